"""The modal benchmark's parts work (scripts/bench-modal): bench-host and the Python peer
answer modal-bench's round trips, storm and resume; the C floors echo what they get.
The sign-in cycle's parts too (scripts/bench-cycle): modal-bench cycle against modal-host and
Bench/python_demo.py, which speak the same protocol for that flow.
Correctness only: no timing is asserted."""
import asyncio
import json
import os
import re
import urllib.request
import shutil
import subprocess
import sys
import time

import pytest

from hosts import ROOT, Host, free_port, log_file
from protocol_client import ProtocolClient

DEBUG = os.path.join(ROOT, ".build", "debug")


def start(*command):
    """Starts a server on a free port (`PORT` in `command` is replaced by it); returns the
    process and the port. NB: a port free when picked can be taken before the server binds
    it (another process's outgoing connection), and the server then exits: that try is
    repeated on a new port, up to three times."""
    import socket
    for _ in range(3):
        port = free_port()
        argv = [str(port) if part == "PORT" else part for part in command]
        log = log_file(os.path.basename(command[0]))
        process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log)
        deadline = time.time() + 15
        while time.time() < deadline and process.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                return process, port
            except OSError:
                time.sleep(0.05)
        if process.poll() is None:
            process.kill()
            raise RuntimeError(f"{command[0]} did not come up")
    log.seek(0)
    raise RuntimeError(f"{command[0]} exited at start three times: {log.read()[-300:]!r}")


def run_bench(*arguments):
    return subprocess.run([os.path.join(DEBUG, "modal-bench"), *arguments], capture_output=True, text=True,
                          timeout=120)


def bench(*arguments):
    result = run_bench(*arguments)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().split("\t")


@pytest.fixture(params=["bridge", "python"])
def modal_server(request):
    if request.param == "bridge":
        process, port = start(os.path.join(DEBUG, "bench-host"), "PORT")
    else:
        process, port = start(sys.executable, os.path.join(ROOT, "Bench", "python_modal.py"), "PORT")
    yield request.param, f"ws://127.0.0.1:{port}/ws"
    process.terminate()
    process.wait(10)


def test_round_trips_are_answered_and_reported_by_both_sides(modal_server):
    import json
    _, url = modal_server
    fields = bench("roundtrip", "--url", url, "--sessions", "3", "--seconds", "1", "--warmup", "0.3",
                   "--host-report")
    per_second, p50, p99 = float(fields[1]), float(fields[2]), float(fields[3])
    host = json.loads(fields[5])
    assert per_second > 0 and 0 < p50 <= p99
    # The host's own window saw round trips too, and its count is close to the client's.
    assert host["count"] > 0 and host["p50"] > 0
    assert abs(host["count"] - per_second) <= max(10, 0.2 * per_second)


def test_storm_welcomes_every_client(modal_server):
    _, url = modal_server
    # More than the host's default sessions per address (64): bench-host raises it, as the
    # 100- and 1,000-session cells of scripts/bench-modal need.
    fields = bench("storm", "--url", url, "--count", "100")
    assert int(fields[1]) == 100


def test_resume_re_presents_the_pending_alert():
    process, port = start(os.path.join(DEBUG, "bench-host"), "PORT")
    try:
        fields = bench("resume", "--url", f"ws://127.0.0.1:{port}/ws", "--count", "5")
        assert int(fields[1]) == 5 and float(fields[2]) > 0
    finally:
        process.terminate()
        process.wait(10)


@pytest.mark.skipif(shutil.which("pkg-config") is None, reason="pkg-config is needed to build lws-echo")
def test_c_floors_echo_everything(tmp_path):
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libwebsockets"], capture_output=True, text=True,
                           check=True).stdout.split()
    subprocess.run(["cc", "-O2", "-Wall", "-Wextra", "-Werror", os.path.join(ROOT, "Bench", "lws_echo.c"), *flags,
                    "-o", str(tmp_path / "lws-echo")], check=True)
    subprocess.run(["cc", "-O2", "-Wall", "-Wextra", "-Werror", os.path.join(ROOT, "Bench", "tcp_pingpong.c"),
                    "-o", str(tmp_path / "tcp-pingpong")], check=True)
    echo, port = start(str(tmp_path / "lws-echo"), "PORT")
    try:
        fields = bench("echo", "--url", f"ws://127.0.0.1:{port}/", "--connections", "3", "--messages", "200",
                       "--payload", "3000")
        assert float(fields[1]) > 0 and int(fields[5]) == 0  # nothing lost
    finally:
        echo.terminate()
        echo.wait(10)
    server, port = start(str(tmp_path / "tcp-pingpong"), "server", "PORT")
    try:
        row = subprocess.run([str(tmp_path / "tcp-pingpong"), "client", str(port), "2", "0.5", "160"],
                             capture_output=True, text=True, timeout=30, check=True).stdout.split("\t")
        assert float(row[1]) > 0 and float(row[2]) > 0
    finally:
        server.kill()
        server.wait(10)


RAISED = ["--rate", "1000000", "--burst", "1000000", "--max-sessions-per-address", "1000",
          "--max-connections-per-address", "1000"]


@pytest.fixture(params=["modal-host", "python"])
def demo_server(request):
    """The demo host (limits raised as scripts/bench-cycle raises them) or the Python peer:
    (name, url, pid, port)."""
    if request.param == "modal-host":
        host = Host(*RAISED)
        yield request.param, host.url, host.process.pid, host.port
        host.stop()
        return
    process, port = start(sys.executable, os.path.join(ROOT, "Bench", "python_demo.py"), "PORT")
    yield request.param, f"ws://127.0.0.1:{port}/ws", process.pid, port
    process.terminate()
    process.wait(10)


def metrics(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
        text = reply.read().decode()
    def value(name):
        found = re.findall(rf"^{name}(?:{{[^}}]*}})? (\d+)", text, re.M)
        return sum(int(each) for each in found)
    return {"resolved": value("remote_modal_modals_resolved_total"),
            "presented": value("remote_modal_modals_presented_total"), "errors": value("remote_modal_errors_total")}


def test_sign_in_cycles_run_and_the_host_counts_as_many(demo_server):
    _, url, pid, port = demo_server
    sessions = 3
    fields = bench("cycle", "--url", url, "--sessions", str(sessions), "--seconds", "1", "--warmup", "0.3",
                   "--pid", str(pid))
    per_second, p50, p99, total, cpu = (float(fields[1]), float(fields[2]), float(fields[3]), int(fields[5]),
                                        float(fields[6]))
    assert per_second > 0 and 0 < p50 <= p99 and cpu > 0
    # Every completed cycle is one answered modal; when the client stops, each session may have
    # one more answered whose last messages it did not wait for.
    counted = metrics(port)
    assert total <= counted["resolved"] <= total + sessions, (total, counted)
    assert counted["presented"] - counted["resolved"] <= sessions and counted["errors"] == 0


def test_the_cycle_fails_loudly_when_the_host_answers_with_an_error():
    host = Host()  # the default rate limit: a busy session gets rate_limited within a second
    try:
        result = run_bench("cycle", "--url", host.url, "--sessions", "1", "--seconds", "3", "--warmup", "0.3")
        assert result.returncode != 0 and "rate_limited" in result.stderr, result
    finally:
        host.stop()


async def conversation(url):
    """The sign-in alert driven through its rules; what came back, order kept only where the
    protocol fixes it (each step's messages as a sorted list)."""
    client = await ProtocolClient.open(url, capabilities=["alert"])
    seen = []

    async def step(count):
        messages = [await client.next() for _ in range(count)]
        seen.append(sorted(json.dumps({key: value for key, value in each.items() if key not in ("seq", "message")},
                                      sort_keys=True) for each in messages))
        return messages

    await step(1)  # controls
    await client.tap("signIn")
    modal = next(each for each in await step(2) if each["type"] == "present")["id"]
    answer = {"type": "result", "id": modal, "value": {"action": 1, "textFields": ["", ""]}}
    await client.send(answer)  # Sign In is disabled as last sent: bad_message
    await step(1)
    await client.send({"type": "input", "id": modal, "textFields": ["ann@example.com", "x"]})
    await step(1)  # update: both enabled
    answer["value"]["textFields"] = ["ann", "x"]
    await client.send(answer)  # the rule judged on the result's own fields: action_disabled
    await step(1)
    answer["value"]["textFields"] = ["ann@example.com", "secret"]
    await client.send(answer)
    await step(3)  # dismiss, status, controls
    await client.send({"type": "result", "id": "m999", "value": {"action": 0, "textFields": ["", ""]}})
    await step(1)
    await client.send({"type": "input", "id": modal, "textFields": ["a", "b"]})  # ended: ignored
    await client.tap("signIn")
    await step(2)  # the next cycle starts: nothing came from the late input
    await client.close()
    return seen


def test_the_python_peer_speaks_the_demo_hosts_sign_in_protocol():
    host = Host(*RAISED)
    peer, port = start(sys.executable, os.path.join(ROOT, "Bench", "python_demo.py"), "PORT")
    try:
        swift = asyncio.run(conversation(host.url))
        python = asyncio.run(conversation(f"ws://127.0.0.1:{port}/ws"))
    finally:
        host.stop()
        peer.terminate()
        peer.wait(10)
    assert python == swift
    flat = " ".join(" ".join(each) for each in swift)
    for expected in ['"code": "bad_message"', '"code": "action_disabled"', '"code": "unknown_modal"',
                     '"text": "Signed in as ann@example.com"', '"type": "update"', '"reason": "resolved"']:
        assert expected in flat


def test_bench_cycle_writes_its_section_and_keeps_the_others(tmp_path):
    sys.path.insert(0, os.path.join(ROOT, "Bench"))
    import cycle
    path = tmp_path / "benchmarks.md"
    path.write_text("# Benchmarks\n\n## Before\n\nkept\n\n" + cycle.MARKERS[0] + "\nold\n" + cycle.MARKERS[1]
                    + "\n\n## After\n\nkept too\n")
    rows = []
    for sessions in (1, 100):
        for impl, cpu in [("default", 50.0), ("warning", 40.0), ("python", 260.0), ("bridge", 30.0),
                          ("lws-echo", 10.0)]:
            rows.append({"impl": impl, "sessions": sessions, "per_second": 1000.0,
                         "p50": 50.0 if impl == "lws-echo" else 100.0, "p99": 200.0,
                         "cpu_us": cpu, "log_lines_per_cycle": 0.5 if impl == "default" else None})
    args = type("Args", (), {"sessions": [1, 100], "seconds": 5.0, "command": "scripts/bench-cycle"})()
    cycle.write_section(str(path), cycle.markdown(args, rows))
    cycle.write_section(str(path), cycle.markdown(args, rows))  # a second run replaces, not appends
    text = path.read_text()
    assert "kept\n" in text and "kept too" in text and "old" not in text
    assert text.count(cycle.MARKERS[0]) == 1 and text.count(cycle.MARKERS[1]) == 1
    assert "at least 5x less than the Python peer's: **met** (5.20x" in text
    assert "at most 1.3x the raw libwebsockets echo's: **not met** (2.00x" in text
    assert "| 100 | default (info) | 5.20x | 1.00x | 1.00x |" in text
    assert "raw echo's per two frames (100 sessions): **not met** (3.00x" in text

"""The modal benchmark's parts work (scripts/bench-modal): bench-host and the Python peer
answer modal-bench's round trips, storm and resume; the C floors echo what they get.
Correctness only: no timing is asserted."""
import os
import shutil
import subprocess
import sys
import time

import pytest

from hosts import ROOT, free_port

DEBUG = os.path.join(ROOT, ".build", "debug")


def start(command, port):
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 15
    import socket
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"{command[0]} did not come up")


def bench(*arguments):
    result = subprocess.run([os.path.join(DEBUG, "modal-bench"), *arguments], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().split("\t")


@pytest.fixture(params=["bridge", "python"])
def modal_server(request):
    port = free_port()
    if request.param == "bridge":
        process = start([os.path.join(DEBUG, "bench-host"), str(port)], port)
    else:
        process = start([sys.executable, os.path.join(ROOT, "Bench", "python_modal.py"), str(port)], port)
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
    fields = bench("storm", "--url", url, "--count", "60")
    assert int(fields[1]) == 60


def test_resume_re_presents_the_pending_alert():
    port = free_port()
    process = start([os.path.join(DEBUG, "bench-host"), str(port)], port)
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
    port = free_port()
    echo = start([str(tmp_path / "lws-echo"), str(port)], port)
    try:
        fields = bench("echo", "--url", f"ws://127.0.0.1:{port}/", "--connections", "3", "--messages", "200",
                       "--payload", "3000")
        assert float(fields[1]) > 0 and int(fields[5]) == 0  # nothing lost
    finally:
        echo.terminate()
        echo.wait(10)
    port = free_port()
    server = start([str(tmp_path / "tcp-pingpong"), "server", str(port)], port)
    try:
        row = subprocess.run([str(tmp_path / "tcp-pingpong"), "client", str(port), "2", "0.5", "160"],
                             capture_output=True, text=True, timeout=30, check=True).stdout.split("\t")
        assert float(row[1]) > 0 and float(row[2]) > 0
    finally:
        server.kill()
        server.wait(10)

"""The modal benchmark: the bridge against its floors and its peer, side by side in one run.

Run through scripts/bench-modal, which builds everything first. It starts, on loopback:
  bench-host         the bridge (RemoteModal host, release build)
  python_modal.py    the same round trip as a plain Python `websockets` server
  lws-echo           a WebSocket echo written directly on libwebsockets (transport floor)
  modal-host --echo  the project's WebSocket layer as an echo (floor plus our transport)
  tcp-pingpong       plain TCP ping-pong (physical floor)
and drives each with the same client (modal-bench; tcp-pingpong's own client for TCP),
one after another at each load, then writes a Markdown section into docs/benchmarks.md
(between the modal-bench markers), the raw rows into docs/bench-modal.csv and a plot of
latency percentiles against load into docs/bench-modal.png.

Usage: compare.py --bin DIR --c-bin DIR [--seconds 5] [--sessions 1,10,100,1000]
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import time
import urllib.request

from processes import free_port, wait_port, cpu_seconds

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAYLOAD = 160  # bytes: about the size of the bench alert's `present`
IDLE_HELLO = ('{"type":"hello","protocol":1,"client":{"kind":"idle","name":"idle"},'
              '"capabilities":["alert"]}')


def estimated_cpu(cpu, per_second, args):
    """CPU µs per echoed message of a floor, whose count is estimated as its measured rate
    times the cell's length (1 s of warm-up plus the measured seconds)."""
    messages = per_second * (1 + args.seconds)
    return cpu * 1e6 / messages if messages else 0


def host_total(port):
    """Round trips a bench server has completed since it started (its /bench/report)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/bench/report", timeout=10) as reply:
        return json.loads(reply.read())["total"]


class Servers:
    def __init__(self, args):
        self.args = args
        self.processes = []

    def start(self, name, command):
        port = free_port()
        process = subprocess.Popen([part.replace("PORT", str(port)) for part in command])
        self.processes.append(process)
        wait_port(port)
        return port, process

    def bridge(self):
        return self.start("bridge", [f"{self.args.bin}/bench-host", "PORT"])

    def python(self):
        return self.start("python", [sys.executable, f"{ROOT}/Bench/python_modal.py", "PORT"])

    def lws(self):
        return self.start("lws", [f"{self.args.c_bin}/lws-echo", "PORT"])

    def transport(self):
        return self.start("transport", [f"{self.args.bin}/modal-host", "--echo", "--port", "PORT",
                                        "--log-level", "error", "--max-connections-per-address", "19000", "--socket-churn-per-address", "0"])

    def tcp(self):
        return self.start("tcp", [f"{self.args.c_bin}/tcp-pingpong", "server", "PORT"])

    def stop(self, process=None):
        for each in [process] if process else self.processes:
            each.terminate()
            try:
                each.wait(10)
            except subprocess.TimeoutExpired:
                each.kill()
        if process is None:
            self.processes = []


def bench(args, *arguments):
    output = subprocess.run([f"{args.bin}/modal-bench", *arguments], check=True, capture_output=True,
                            text=True, timeout=600).stdout
    return output.strip().split("\t")


def round_trips(args, servers, rows):
    started = {"bridge": servers.bridge(), "python": servers.python(), "lws-echo": servers.lws(),
               "transport-echo": servers.transport(), "tcp": servers.tcp()}
    ports = {name: port for name, (port, _) in started.items()}
    seconds = str(args.seconds)
    for sessions in args.sessions:
        for name in ["bridge", "python"]:
            url = f"ws://127.0.0.1:{ports[name]}/ws"
            pid = started[name][1].pid
            cpu, total = cpu_seconds(pid), host_total(ports[name])
            fields = bench(args, "roundtrip", "--url", url, "--sessions", str(sessions), "--seconds", seconds,
                           "--warmup", "1", "--host-report", "--label", name)
            cpu, total = cpu_seconds(pid) - cpu, host_total(ports[name]) - total
            host = json.loads(fields[5])
            rows.append({"impl": name, "sessions": sessions, "per_second": float(fields[1]),
                         "p50": float(fields[2]), "p99": float(fields[3]), "p999": float(fields[4]),
                         "host_p50": host.get("p50", 0), "host_p99": host.get("p99", 0),
                         "cpu_us": cpu * 1e6 / total if total else 0})
            print(f"bench: {rows[-1]}", file=sys.stderr)
        for name in ["lws-echo", "transport-echo"]:
            url = f"ws://127.0.0.1:{ports[name]}/ws"
            cpu = cpu_seconds(started[name][1].pid)
            fields = bench(args, "echo", "--url", url, "--connections", str(sessions), "--window", "1",
                           "--seconds", seconds, "--payload", str(PAYLOAD), "--label", name,
                           *(["--subprotocol", "remote-modal.v1"] if name == "transport-echo" else []))
            rows.append({"impl": name, "sessions": sessions, "per_second": float(fields[1]),
                         "p50": float(fields[2]), "p99": float(fields[3]), "p999": float(fields[4]),
                         "cpu_us": estimated_cpu(cpu_seconds(started[name][1].pid) - cpu, float(fields[1]), args)})
            print(f"bench: {rows[-1]}", file=sys.stderr)
        cpu = cpu_seconds(started["tcp"][1].pid)
        output = subprocess.run([f"{args.c_bin}/tcp-pingpong", "client", str(ports["tcp"]), str(sessions),
                                 seconds, str(PAYLOAD), "tcp"], check=True, capture_output=True, text=True,
                                timeout=600).stdout.strip().split("\t")
        rows.append({"impl": "tcp", "sessions": sessions, "per_second": float(output[1]),
                     "p50": float(output[2]), "p99": float(output[3]), "p999": float(output[4]),
                     "cpu_us": estimated_cpu(cpu_seconds(started["tcp"][1].pid) - cpu, float(output[1]), args)})
        print(f"bench: {rows[-1]}", file=sys.stderr)
    servers.stop()


def storms(args, servers, results):
    for name in ["bridge", "python"]:
        port, process = getattr(servers, name)()
        fields = bench(args, "storm", "--url", f"ws://127.0.0.1:{port}/ws", "--count", str(args.storm),
                       "--label", name)
        results[name] = {"welcomed": int(fields[1]), "seconds": float(fields[2]), "p50": float(fields[3]),
                         "p99": float(fields[4]), "max": float(fields[5])}
        print(f"bench: storm {name} {results[name]}", file=sys.stderr)
        servers.stop(process)


def idle(args, servers, results):
    environment = dict(os.environ, BENCH_HELLO=IDLE_HELLO)
    for name in ["bridge", "python"]:
        for count in args.idle:
            port, process = getattr(servers, name)()
            time.sleep(0.5)
            output = subprocess.run([f"{args.bin}/modal-bench", "idle", "--url", f"ws://127.0.0.1:{port}/ws",
                                     "--count", str(count), "--pid", str(process.pid), "--label", name,
                                     "--subprotocol", "remote-modal.v1"],
                                    check=True, capture_output=True, text=True, env=environment,
                                    timeout=600).stdout.strip().split("\t")
            results.append({"impl": name, "sessions": int(output[1]), "before_kib": int(output[2]),
                            "after_kib": int(output[3]), "kib_per_session": float(output[4])})
            print(f"bench: idle {results[-1]}", file=sys.stderr)
            servers.stop(process)


def resume(args, servers):
    port, process = servers.bridge()
    fields = bench(args, "resume", "--url", f"ws://127.0.0.1:{port}/ws", "--count", str(args.resumes),
                   "--label", "bridge")
    servers.stop(process)
    return {"count": int(fields[1]), "p50": float(fields[2]), "p99": float(fields[3]), "max": float(fields[4])}


def fmt(value, digits=0):
    return f"{value:,.{digits}f}"


def ratio(a, b):
    return f"{a / b:.2f}x" if b else "n/a"


def markdown(args, rows, storm, idle_rows, resumed, command):
    by = {(row["impl"], row["sessions"]): row for row in rows}
    lines = ["<!-- modal-bench:start (written by scripts/bench-modal; edits here are overwritten) -->",
             "### The bridge against its floors and its peer, in one run", "",
             f"Command: `{command}`. One run on {time.strftime('%Y-%m-%d')}, "
             f"{os.cpu_count()} cores, client and servers on the same machine; {args.seconds} s measured after "
             "1 s of warm-up per cell; the implementations take turns at each load.", "",
             "Round trip: bench-host presents a one-button alert on every `bench` session, the client answers as "
             "soon as `present` arrives, the Single completes and the host presents the next one. *Client* latency "
             "is from sending `result` to receiving the next `present`; *host* latency is from subscribing the "
             "alert to the Single's value. The echo and TCP floors bounce a "
             f"{PAYLOAD}-byte message (about a `present`) with one message in flight per connection.", "",
             "*Server CPU* is the server process's user and system time over the whole cell (sessions "
             "connecting, warm-up, measurement) divided by the round trips it completed: what one modal costs it "
             "(three frames: `result` in, `dismiss` and `present` out). For the floors (≈) it is per echoed "
             "message (one frame in, one out), their count estimated as rate x (warm-up + measured seconds).", "",
             "| sessions | implementation | round trips/s | client p50 µs | client p99 µs | client p99.9 µs "
             "| host p50 µs | host p99 µs | server CPU µs per round trip |",
             "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    names = {"bridge": "bridge (bench-host)", "python": "Python websockets modal server",
             "lws-echo": "floor: raw libwebsockets echo", "transport-echo": "project transport echo",
             "tcp": "floor: loopback TCP ping-pong"}
    for sessions in args.sessions:
        for impl in ["bridge", "python", "lws-echo", "transport-echo", "tcp"]:
            row = by.get((impl, sessions))
            if not row:
                continue
            host = (f"{fmt(row['host_p50'], 1)} | {fmt(row['host_p99'], 1)} | {fmt(row['cpu_us'], 1)}"
                    if "host_p50" in row else f" | | ≈{fmt(row['cpu_us'], 1)}")
            lines.append(f"| {sessions} | {names[impl]} | {fmt(row['per_second'])} | {fmt(row['p50'], 1)} | "
                         f"{fmt(row['p99'], 1)} | {fmt(row['p999'], 1)} | {host} |")
    lines += ["", "Ratios at each load (bridge first; throughput: higher is better for the bridge when above 1; "
              "latency: the bridge's p50 divided by the other's, lower is better):", "",
              "| sessions | p50 / raw lws echo p50 | p50 / TCP p50 | throughput / Python | "
              "throughput / raw lws echo | p50 / Python p50 | server CPU per round trip / Python |",
              "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for sessions in args.sessions:
        bridge = by[("bridge", sessions)]
        lws, tcp, python = by[("lws-echo", sessions)], by[("tcp", sessions)], by[("python", sessions)]
        lines.append(f"| {sessions} | {ratio(bridge['p50'], lws['p50'])} | {ratio(bridge['p50'], tcp['p50'])} | "
                     f"{ratio(bridge['per_second'], python['per_second'])} | "
                     f"{ratio(bridge['per_second'], lws['per_second'])} | {ratio(bridge['p50'], python['p50'])} | "
                     f"{ratio(bridge['cpu_us'], python['cpu_us'])} |")
    lines += ["", "![latency percentiles against load](bench-modal.png)", "",
              f"Connection storm: {args.storm:,} clients connect at once, send `hello` and wait for `welcome` "
              "(measured per client from `connect`):", "",
              "| server | welcomed | all welcomed after s | connect→welcome p50 ms | p99 ms | max ms |",
              "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for name in ["bridge", "python"]:
        s = storm[name]
        lines.append(f"| {names[name]} | {s['welcomed']:,} | {s['seconds']:.2f} | {s['p50'] / 1e3:.1f} | "
                     f"{s['p99'] / 1e3:.1f} | {s['max'] / 1e3:.1f} |")
    lines += ["", "Idle memory: sessions connected (hello, welcome, nothing pending); the server's RSS from "
              "`/proc/PID/status` before and 2 s after:", "",
              "| server | sessions | RSS before MiB | RSS after MiB | KiB per session |", "| --- | ---: | ---: | ---: | ---: |"]
    for row in idle_rows:
        lines.append(f"| {names[row['impl']]} | {row['sessions']:,} | {row['before_kib'] / 1024:.1f} | "
                     f"{row['after_kib'] / 1024:.1f} | {row['kib_per_session']:.2f} |")
    lines += ["", f"Resume: one session with a pending alert drops its connection and reconnects "
              f"{resumed['count']} times; from `connect` to the pending alert's `present` on the new connection "
              f"(TCP and WebSocket handshakes, `hello` with `resume`, `welcome`, re-present): "
              f"p50 {resumed['p50']:.0f} µs, p99 {resumed['p99']:.0f} µs, max {resumed['max']:.0f} µs.", ""]
    return lines


def goals(args, rows, idle_rows):
    by = {(row["impl"], row["sessions"]): row for row in rows}
    out = ["Goals (this 2-core machine, client and host sharing it):", ""]
    if ("bridge", 1) in by:
        one, lws = by[("bridge", 1)], by[("lws-echo", 1)]
        factor = one["p50"] / lws["p50"]
        out.append(f"- Round trip p50 within 2x of the raw libwebsockets echo (1 session): "
                   f"{'**met**' if factor <= 2 else '**not met**'} ({factor:.2f}x: {one['p50']:.0f} µs against "
                   f"{lws['p50']:.0f} µs).")
    if (("bridge", 100) in by):
        rate = by[("bridge", 100)]["per_second"]
        out.append(f"- At least 20,000 modal round trips a second with 100 sessions: "
                   f"{'**met**' if rate >= 20000 else '**not met**'} ({rate:,.0f}/s).")
        python = by[("python", 100)]["per_second"]
        out.append(f"- At least 5x the Python server's throughput (100 sessions): "
                   f"{'**met**' if rate >= 5 * python else '**not met**'} ({rate / python:.2f}x).")
    big = [row for row in idle_rows if row["impl"] == "bridge" and row["sessions"] >= 10000]
    if big:
        mib = big[0]["after_kib"] / 1024
        out.append(f"- 10,000 connected sessions under 400 MiB of host RSS: "
                   f"{'**met**' if mib < 400 else '**not met**'} ({mib:.1f} MiB).")
    return out + [""]


def plot(args, rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, (latency, throughput) = plt.subplots(1, 2, figsize=(12, 4.8))
    styles = {"bridge": "tab:blue", "python": "tab:orange", "lws-echo": "tab:green",
              "transport-echo": "tab:olive", "tcp": "tab:gray"}
    for impl, color in styles.items():
        mine = sorted((row for row in rows if row["impl"] == impl), key=lambda row: row["sessions"])
        if not mine:
            continue
        x = [row["sessions"] for row in mine]
        latency.plot(x, [row["p50"] for row in mine], "-o", color=color, label=f"{impl} p50")
        latency.plot(x, [row["p99"] for row in mine], "--", color=color, alpha=0.7, label=f"{impl} p99")
        throughput.plot(x, [row["per_second"] for row in mine], "-o", color=color, label=impl)
    for axis in (latency, throughput):
        axis.set_xscale("log")
        axis.set_xlabel("concurrent sessions (connections), one message in flight each")
        axis.grid(True, which="both", alpha=0.3)
    latency.set_yscale("log")
    latency.set_ylabel("client round trip, µs")
    latency.set_title("Latency percentiles against load")
    latency.legend(fontsize=7, ncol=2)
    throughput.set_ylabel("round trips a second")
    throughput.set_title("Throughput against load")
    throughput.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--c-bin", required=True)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--sessions", default="1,10,100,1000")
    parser.add_argument("--storm", type=int, default=5000)
    parser.add_argument("--idle", default="1000,10000")
    parser.add_argument("--resumes", type=int, default=500)
    parser.add_argument("--docs", default=f"{ROOT}/docs")
    parser.add_argument("--command", default="scripts/bench-modal")
    args = parser.parse_args()
    args.sessions = [int(each) for each in args.sessions.split(",")]
    args.idle = [int(each) for each in args.idle.split(",")]
    servers = Servers(args)
    rows, storm, idle_rows = [], {}, []
    try:
        round_trips(args, servers, rows)
        storms(args, servers, storm)
        idle(args, servers, idle_rows)
        resumed = resume(args, servers)
    finally:
        servers.stop()
    with open(f"{args.docs}/bench-modal.csv", "w", newline="") as handle:
        fields = ["impl", "sessions", "per_second", "p50", "p99", "p999", "host_p50", "host_p99", "cpu_us"]
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    plot(args, rows, f"{args.docs}/bench-modal.png")
    section = markdown(args, rows, storm, idle_rows, resumed, args.command) + goals(args, rows, idle_rows)
    section.append("<!-- modal-bench:end -->")
    path = f"{args.docs}/benchmarks.md"
    text = open(path).read() if os.path.exists(path) else "# Benchmarks\n"
    block = "\n".join(section)
    pattern = re.compile(r"<!-- modal-bench:start.*?<!-- modal-bench:end -->", re.S)
    text = pattern.sub(lambda _: block, text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + block + "\n"
    with open(path, "w") as handle:
        handle.write(text)
    print(block)


if __name__ == "__main__":
    main()

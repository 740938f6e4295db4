"""The demo sign-in cycle benchmark (issue 19): modal-host against a plain Python peer, in one run.

Run through scripts/bench-cycle, which builds everything first. It starts, on loopback:
  modal-host (twice)  the demo host, release build: default log level, and --log-level warning
  python_demo.py      the same sign-in flow written with plain Python `websockets`
  bench-host          the modal round trip of scripts/bench-modal (for the latency and CPU goals)
  lws-echo            a WebSocket echo written directly on libwebsockets (the floor)
and drives each with modal-bench, the implementations taking turns at each load:
`modal-bench cycle` for the three demo hosts, `roundtrip` for bench-host, `echo` (one
160-byte message in flight per connection) for the floor. Server CPU is the server's
utime + stime from /proc/PID/stat over the measured window only, read by modal-bench at the
window's edges, divided by what completed in it. The Markdown goes between the bench-cycle
markers of docs/benchmarks.md (the other sections stay as they are).

Usage: cycle.py --bin DIR --c-bin DIR [--seconds 5] [--sessions 1,100] [--docs DIR] [--command TEXT]
"""
import argparse
import os
import re
import subprocess
import sys
import time

from processes import free_port, wait_port

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAYLOAD = 160  # bytes, as scripts/bench-modal's floors
# The demo host's per-connection limits, raised so that they are not what is measured.
RAISED = ["--rate", "1000000", "--burst", "1000000", "--max-sessions-per-address", "20000",
          "--max-connections-per-address", "20000", "--socket-churn-per-address", "0"]
NAMES = {"default": "modal-host, default log level", "warning": "modal-host, `--log-level warning`",
         "python": "Python `websockets` demo peer", "bridge": "bench-host modal round trip",
         "lws-echo": "floor: raw libwebsockets echo"}
MARKERS = ("<!-- bench-cycle:start (written by scripts/bench-cycle; edits here are overwritten) -->",
           "<!-- bench-cycle:end -->")


class Servers:
    """The servers of one run, each on a free port, stopped together."""

    def __init__(self, args):
        self.args, self.started, self.logs = args, {}, {}

    def start(self, name, command, log=None):
        port = free_port()
        stderr = open(log, "w") if log else subprocess.DEVNULL
        process = subprocess.Popen([part.replace("PORT", str(port)) for part in command], cwd=ROOT,
                                   stdout=subprocess.DEVNULL, stderr=stderr)
        self.started[name] = (port, process)
        if log:
            self.logs[name] = log
        wait_port(port)

    def start_all(self):
        host = [f"{self.args.bin}/modal-host", "--port", "PORT", *RAISED]
        os.makedirs(self.args.logs, exist_ok=True)
        # The host's log goes to a file, as a service's would (not to a terminal, not discarded).
        self.start("default", host, log=f"{self.args.logs}/modal-host-default.log")
        self.start("warning", [*host, "--log-level", "warning"], log=f"{self.args.logs}/modal-host-warning.log")
        self.start("python", [sys.executable, f"{ROOT}/Bench/python_demo.py", "PORT"])
        self.start("bridge", [f"{self.args.bin}/bench-host", "PORT"])
        self.start("lws-echo", [f"{self.args.c_bin}/lws-echo", "PORT"])

    def url(self, name):
        return f"ws://127.0.0.1:{self.started[name][0]}/ws"

    def pid(self, name):
        return self.started[name][1].pid

    def log_lines(self, name):
        if name not in self.logs:
            return None
        with open(self.logs[name], "rb") as handle:
            return sum(1 for _ in handle)

    def stop(self):
        for _, process in self.started.values():
            process.terminate()
        for _, process in self.started.values():
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
        self.started = {}


def bench(args, *arguments):
    result = subprocess.run([f"{args.bin}/modal-bench", *arguments], capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise SystemExit(f"modal-bench {' '.join(arguments)} failed: {result.stderr.strip()}")
    return result.stdout.strip().split("\t")


def measure(args, servers):
    rows = []
    seconds = str(args.seconds)
    for sessions in args.sessions:
        for name in ["default", "warning", "python"]:
            lines = servers.log_lines(name)
            fields = bench(args, "cycle", "--url", servers.url(name), "--sessions", str(sessions),
                           "--seconds", seconds, "--warmup", "1", "--pid", str(servers.pid(name)), "--label", name)
            total = int(fields[5])
            logged = servers.log_lines(name)
            rows.append({"impl": name, "sessions": sessions, "per_second": float(fields[1]),
                         "p50": float(fields[2]), "p99": float(fields[3]), "cpu_us": float(fields[6]),
                         "log_lines_per_cycle": (logged - lines) / total if lines is not None and total else None})
            print(f"bench-cycle: {rows[-1]}", file=sys.stderr)
        # The modal round trip and the floor, with server CPU over the window read the same way.
        fields = bench(args, "roundtrip", "--url", servers.url("bridge"), "--sessions", str(sessions),
                       "--seconds", seconds, "--warmup", "1", "--pid", str(servers.pid("bridge")), "--label", "bridge")
        rows.append({"impl": "bridge", "sessions": sessions, "per_second": float(fields[1]),
                     "p50": float(fields[2]), "p99": float(fields[3]), "cpu_us": float(fields[6])})
        print(f"bench-cycle: {rows[-1]}", file=sys.stderr)
        fields = bench(args, "echo", "--url", servers.url("lws-echo"), "--connections", str(sessions),
                       "--window", "1", "--seconds", seconds, "--payload", str(PAYLOAD), "--pid",
                       str(servers.pid("lws-echo")), "--label", "lws-echo")
        rows.append({"impl": "lws-echo", "sessions": sessions, "per_second": float(fields[1]),
                     "p50": float(fields[2]), "p99": float(fields[3]), "cpu_us": float(fields[6])})
        print(f"bench-cycle: {rows[-1]}", file=sys.stderr)
    return rows


def fmt(value, digits=0):
    return "" if value is None else f"{value:,.{digits}f}"


def verdict(met):
    return "**met**" if met else "**not met**"


def markdown(args, rows):
    by = {(row["impl"], row["sessions"]): row for row in rows}
    lines = [MARKERS[0], "### The demo sign-in cycle against a Python host of the same protocol, in one run", "",
             f"Command: `{args.command}`. One run on {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, "
             f"client and servers on the same machine; {args.seconds:g} s measured after 1 s of warm-up per cell; "
             "the implementations take turns at each load.", "",
             "Cycle (`modal-bench cycle`, docs/protocol.md's demo table): each session taps `signIn`, receives "
             "`controls` (busy) and `present` (the sign-in alert), answers Cancel (`result` action 0, two empty text "
             "fields), receives `dismiss` `resolved`, `status` \"Sign in cancelled\" and `controls` (idle), then taps "
             "again: 2 frames in, 5 out. Any `error` or other message fails the run. Latency is from the tap to the "
             "cycle's last message. `modal-host` is the release build run as "
             f"`modal-host --port P {' '.join(RAISED)} [--log-level warning]` (the per-connection rate limit and the "
             "sessions and connections per address raised so that they are not what is measured), its log written "
             "to a file; the "
             "Python peer is `Bench/python_demo.py` (plain `websockets`; no resume, rate limit or retention).", "",
             "*Server CPU* is the server process's utime + stime from `/proc/PID/stat`, read at the edges of the "
             "measured window, divided by what completed in it: a cycle, a modal round trip of `bench-host` "
             "(`result` in, `dismiss` and `present` out, as in scripts/bench-modal), or an echoed "
             f"{PAYLOAD}-byte message for the raw libwebsockets floor (two frames). The clock ticks every 10 ms, so "
             "each figure carries about 10 ms / (window x rate) of rounding.", "",
             "| sessions | server | per second | p50 µs | p99 µs | server CPU µs each | log lines per cycle |",
             "| ---: | --- | ---: | ---: | ---: | ---: | ---: |"]
    for sessions in args.sessions:
        for impl in ["default", "warning", "python", "bridge", "lws-echo"]:
            row = by[(impl, sessions)]
            unit = {"bridge": " round trips", "lws-echo": " echoes"}.get(impl, " cycles")
            lines.append(f"| {sessions} | {NAMES[impl]} | {fmt(row['per_second'])}{unit} | {fmt(row['p50'], 1)} | "
                         f"{fmt(row['p99'], 1)} | {fmt(row['cpu_us'], 1)} | {fmt(row.get('log_lines_per_cycle'), 2)} |")
    lines += ["", "Ratios at each load (Python's figure divided by modal-host's: above 1 means modal-host is "
              "cheaper or faster):", "",
              "| sessions | log level | Python CPU per cycle / modal-host's | modal-host cycles/s / Python's | "
              "Python p50 / modal-host p50 |", "| ---: | --- | ---: | ---: | ---: |"]
    for sessions in args.sessions:
        python = by[("python", sessions)]
        for impl, level in [("default", "default (info)"), ("warning", "warning")]:
            row = by[(impl, sessions)]
            lines.append(f"| {sessions} | {level} | {python['cpu_us'] / row['cpu_us']:.2f}x | "
                         f"{row['per_second'] / python['per_second']:.2f}x | {python['p50'] / row['p50']:.2f}x |")
    lines += ["", "Goals of issue 19 (this machine, client and servers sharing it):", ""]
    if ("default", 100) in by:
        ratio = by[("python", 100)]["cpu_us"] / by[("default", 100)]["cpu_us"]
        lines.append(f"- Server CPU per cycle at 100 sessions, default log level, at least 5x less than the Python "
                     f"peer's: {verdict(ratio >= 5)} ({ratio:.2f}x: {by[('default', 100)]['cpu_us']:.1f} µs against "
                     f"{by[('python', 100)]['cpu_us']:.1f} µs).")
    if ("bridge", 1) in by:
        ratio = by[("bridge", 1)]["p50"] / by[("lws-echo", 1)]["p50"]
        lines.append(f"- One-session modal round trip p50 at most 1.3x the raw libwebsockets echo's: "
                     f"{verdict(ratio <= 1.3)} ({ratio:.2f}x: {by[('bridge', 1)]['p50']:.1f} µs against "
                     f"{by[('lws-echo', 1)]['p50']:.1f} µs).")
    for sessions in args.sessions:
        ratio = by[("bridge", sessions)]["cpu_us"] / by[("lws-echo", sessions)]["cpu_us"]
        lines.append(f"- Server CPU per modal round trip at most 2x the raw echo's per two frames ({sessions} "
                     f"session{'s' if sessions > 1 else ''}): {verdict(ratio <= 2)} ({ratio:.2f}x: "
                     f"{by[('bridge', sessions)]['cpu_us']:.1f} µs against {by[('lws-echo', sessions)]['cpu_us']:.1f} µs).")
    if ("bridge", 100) in by:
        rate = by[("bridge", 100)]["per_second"]
        lines.append(f"- Modal round trips at 100 sessions at least 2x the 39,923/s of scripts/bench-modal before "
                     f"issue 19 (79,846/s): {verdict(rate >= 2 * 39923)} ({rate:,.0f}/s; scripts/bench-modal's own "
                     "run is the reference, this one shares its minutes with the cycle cells).")
    return lines + ["", MARKERS[1]]


def write_section(path, lines):
    text = open(path).read() if os.path.exists(path) else "# Benchmarks\n"
    block = "\n".join(lines)
    pattern = re.compile(re.escape(MARKERS[0][:len("<!-- bench-cycle:start")]) + r".*?" + re.escape(MARKERS[1]),
                         re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: block, text)
    else:
        text = text.rstrip("\n") + "\n\n## Demo sign-in cycle\n\n" + block + "\n"
    with open(path, "w") as handle:
        handle.write(text)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--c-bin", required=True)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--sessions", default="1,100")
    parser.add_argument("--docs", default=f"{ROOT}/docs")
    parser.add_argument("--logs", default=f"{ROOT}/.build/bench")
    parser.add_argument("--command", default="scripts/bench-cycle")
    args = parser.parse_args()
    args.sessions = [int(each) for each in args.sessions.split(",")]
    servers = Servers(args)
    try:
        servers.start_all()
        rows = measure(args, servers)
    finally:
        servers.stop()
    lines = markdown(args, rows)
    write_section(f"{args.docs}/benchmarks.md", lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()

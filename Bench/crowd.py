"""Issue 31's benchmark: the loop's cost follows the work, not the crowd. One run, as ratios.

Run through scripts/bench-crowd, which builds everything first. Each cell starts a fresh
server on loopback and stops it afterwards:
  modal-host       the demo host, release build, default log level (log to a file), on libev
  modal-host poll  the same with --event-loop poll (lws's poll() loop: the former default)
  python           Bench/python_demo.py, the same sign-in flow in plain Python `websockets`
A cell optionally first opens a crowd of idle sessions with `modal-bench crowd` (each sends
`hello` and is counted once its `welcome` arrived, all held open on one libev client), which
then times `--probes` new sessions one after another (connect to welcome) while the crowd is
held and reads the host's RSS before and after. Then `modal-bench cycle` runs the demo sign-in
cycle on 100 busy sessions for the measured window, reading the server's CPU time at its
edges. The crowd is released when the cell ends. The Markdown goes between the bench-crowd
markers of docs/benchmarks.md (the other sections stay as they are).

Usage: crowd.py --bin DIR [--seconds 5] [--idle 10000] [--big 15000] [--rounds 1] [--command TEXT]
"""
import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import time

from processes import free_port, rss_kib, wait_port

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The demo host's per-connection and per-address limits, raised for the benchmark only (every
# client here is 127.0.0.1), and room for the crowd.
RAISED = ["--rate", "1000000", "--burst", "1000000", "--max-sessions-per-address", "40000",
          "--max-connections-per-address", "40000", "--socket-churn-per-address", "0", "--max-connections", "40000", "--max-sessions", "40000"]
MARKERS = ("<!-- bench-crowd:start (written by scripts/bench-crowd; edits here are overwritten) -->",
           "<!-- bench-crowd:end -->")
PROBES = 200
# Where the new client's probes come from (see `cell`).
FRESH_SOURCE = "127.0.0.2"
BUSY = 100


def raise_open_files():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


class Server:
    def __init__(self, args, impl, extra=()):
        self.port = free_port()
        os.makedirs(args.logs, exist_ok=True)
        environment = dict(os.environ)
        if impl == "python":
            command = [sys.executable, f"{ROOT}/Bench/python_demo.py", str(self.port)]
            stderr = subprocess.DEVNULL
        elif impl == "bench-host":
            command = [f"{args.bin}/bench-host", str(self.port)]
            stderr = subprocess.DEVNULL
        else:
            # NAME=VALUE words of a flag set go to the host's environment (e.g.
            # REMOTE_MODAL_RECEIVE_ARENA=0), the rest are its flags.
            flags = [word for word in extra if word.startswith("-") or "=" not in word]
            environment.update(word.split("=", 1) for word in extra if word not in flags)
            command = [f"{args.bin}/modal-host", "--port", str(self.port), *RAISED, *flags]
            if impl == "poll":
                command += ["--event-loop", "poll"]
            stderr = open(f"{args.logs}/crowd-{impl}.log", "w")
        self.process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=stderr, env=environment)
        wait_port(self.port)
        self.url = f"ws://127.0.0.1:{self.port}/ws"

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def bench(args, *arguments):
    result = subprocess.run([f"{args.bin}/modal-bench", *arguments], capture_output=True, text=True, timeout=900)
    if result.returncode != 0:
        raise SystemExit(f"modal-bench {' '.join(arguments)} failed: {result.stderr.strip()}")
    return result.stdout.strip().split("\t")


def cell(args, impl, idle, cycle=True, settle=0, extra=()):
    """One fresh server: a crowd of `idle` (0: none), then the busy cycle if asked; with
    `settle`, the host's RSS is read again that many seconds after the crowd's row."""
    server = Server(args, impl, extra)
    row = {"impl": impl, "idle": idle}
    crowd = None
    try:
        if idle:
            crowd = subprocess.Popen([f"{args.bin}/modal-bench", "crowd", "--url", server.url, "--count", str(idle),
                                      "--probes", str(PROBES), "--pid", str(server.process.pid), "--hold",
                                      "--label", impl], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
            line = crowd.stdout.readline()
            if not line:
                raise SystemExit(f"modal-bench crowd {impl} {idle} failed: {crowd.stderr.read().strip()}")
            fields = line.strip().split("\t")
            row.update(held=int(fields[1]), open_s=float(fields[2]), rss_before=int(fields[3]),
                       rss_after=int(fields[4]), kib_each=float(fields[5]), probe_p50=float(fields[6]),
                       probe_p99=float(fields[7]), probe_max=float(fields[8]), lost=float(fields[9]),
                       reopened=int(fields[10]))
            time.sleep(1)
            # The same probes from a client of their own, as a new kiosk is: the crowd's client
            # holds N connections, and lws's client side costs it more per connect the more it
            # holds; this is the host's welcome apart from that.
            # From 127.0.0.2, as a kiosk on another machine: from 127.0.0.1, each connect() of
            # the probe waits in the kernel's search for a free local port among the crowd's N
            # (5.5 ms at p50 with 15,000 held, before the host sees a byte).
            fresh = bench(args, "crowd", "--url", server.url, "--count", "1", "--probes", str(PROBES),
                          "--source", FRESH_SOURCE, "--label", "fresh")
            row.update(fresh_p50=float(fresh[6]), fresh_p99=float(fresh[7]), fresh_lost=float(fresh[9]))
            if settle:
                time.sleep(settle)
                row["kib_settled"] = (rss_kib(server.process.pid) - row["rss_before"]) / idle
        if cycle:
            fields = bench(args, "cycle", "--url", server.url, "--sessions", str(BUSY), "--seconds",
                           str(args.seconds), "--warmup", "1", "--pid", str(server.process.pid), "--label", impl)
            row.update(per_second=float(fields[1]), p50=float(fields[2]), p99=float(fields[3]),
                       cpu_us=float(fields[6]))
    finally:
        if crowd:
            crowd.stdin.close()
            try:
                crowd.wait(60)
            except subprocess.TimeoutExpired:
                crowd.kill()
        server.stop()
    print(f"bench-crowd: {row}", file=sys.stderr)
    return row


def median_rows(rounds):
    """Per cell, the median of each figure over the rounds."""
    merged = []
    for cells in zip(*rounds):
        row = dict(cells[0])
        for key, value in cells[0].items():
            if isinstance(value, float):
                row[key] = statistics.median(each[key] for each in cells)
        merged.append(row)
    return merged


def fmt(value, digits=0):
    return "" if value is None else f"{value:,.{digits}f}"


def verdict(met):
    return "**met**" if met else "**not met**"


def markdown(args, rows, rounds, load):
    by = {(row["impl"], row["idle"]): row for row in rows}
    names = {"libev": "modal-host (libev)", "poll": "modal-host `--event-loop poll`", "python": "Python `websockets`",
             "bench-host": "bench-host (libev; no demo flows)"}
    lines = [MARKERS[0], "### The cost of a demo cycle with and without a crowd of idle sessions, in one run", "",
             f"Command: `{args.command}`. One run on {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, "
             f"client and servers on the same machine; {args.rounds} round(s) of every cell, the median shown; "
             f"{args.seconds:g} s measured after 1 s of warm-up per cycle cell; a fresh server per cell. "
             f"Load average before the run: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (other engineers build on "
             "this machine).", "",
             f"A *crowd* is `modal-bench crowd --count N --probes {PROBES}`: N sessions that each sent `hello` and got "
             "their `welcome`, then held open and silent on one client (libev), all from 127.0.0.1 (the host's "
             "per-address limits raised for the benchmark: `modal-host --port P " + " ".join(RAISED) + "`, its log "
             f"written to a file). The crowd opens 500 connections at a time; in the last eighth of its connection table "
             "the host cuts the oldest half-finished requests of the address holding the most of them (docs/security.md), "
             "so past that point the crowd opens the connections cut, and the rest, one at a time (*reopened*: how many "
             "it opened again). While the crowd is held, {PROBES} new sessions open one after another, each timed "
             "from `connect` to its `welcome` (*welcome p99*). *KiB each* is the host's RSS growth over the crowd, "
             f"divided by N; a probe not welcomed within 10 s is counted as lost and left out. *New client* is the "
             f"same {PROBES} probes again from a `modal-bench` process of their own (`--count 1 --source "
             f"{FRESH_SOURCE}`), as a new kiosk on another machine connects: the crowd's client holds N connections "
             "and its own connects slow down with them, which the first figure includes (from the crowd's address, "
             "each `connect` also waits in the kernel's search for a free local port among the crowd's). The busy load is `modal-bench cycle --sessions {BUSY}` (the demo sign-in cycle of "
             "scripts/bench-cycle); *CPU µs per cycle* is the server's utime + stime over the measured window "
             "divided by the cycles completed in it.", "",
             "| server | idle sessions held | cycles/s | cycle p50 µs | cycle p99 µs | CPU µs per cycle | "
             "KiB each | welcome p50 µs | welcome p99 µs | probes lost | new client: welcome p50 µs | p99 µs |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for row in rows:
        lines.append(f"| {names[row['impl']]} | {fmt(row['idle'])} | {fmt(row.get('per_second'))} | "
                     f"{fmt(row.get('p50'), 1)} | {fmt(row.get('p99'), 1)} | {fmt(row.get('cpu_us'), 1)} | "
                     f"{fmt(row.get('kib_each'), 2)} | {fmt(row.get('probe_p50'), 1)} | "
                     f"{fmt(row.get('probe_p99'), 1)} | {fmt(row.get('lost'))} | {fmt(row.get('fresh_p50'), 1)} | "
                     f"{fmt(row.get('fresh_p99'), 1)} |")
    idle = args.idle
    lines += ["", "Goals of issue 31:", ""]
    base, crowded = by[("libev", 0)], by[("libev", idle)]
    ratio = crowded["cpu_us"] / base["cpu_us"]
    lines.append(f"- CPU per cycle of {BUSY} busy sessions with {idle:,} idle ones held, at most 1.25x without: "
                 f"{verdict(ratio <= 1.25)} ({ratio:.2f}x: {crowded['cpu_us']:.1f} µs against {base['cpu_us']:.1f} µs; "
                 f"on lws's poll() loop "
                 f"{by[('poll', idle)]['cpu_us'] / by[('poll', 0)]['cpu_us']:.2f}x: {by[('poll', idle)]['cpu_us']:.1f} "
                 f"against {by[('poll', 0)]['cpu_us']:.1f} µs).")
    python = by[("python", idle)]
    ratio = python["cpu_us"] / crowded["cpu_us"]
    lines.append(f"- With the crowd, at least 3.5x less CPU per cycle than the Python host with the same crowd: "
                 f"{verdict(ratio >= 3.5)} ({ratio:.2f}x: {crowded['cpu_us']:.1f} µs against "
                 f"{python['cpu_us']:.1f} µs).")
    big = by[("libev", args.big)]
    lines.append(f"- At least 15,000 idle sessions on one host at most 10 KiB of host RSS each, a new session "
                 f"welcomed in at most 5 ms at p99 meanwhile: {verdict(big['held'] >= 15000 and big['kib_each'] <= 10 and big['fresh_p99'] <= 5000)} "
                 f"({big['held']:,} held, {big['kib_each']:.2f} KiB each, welcome p99 {big['fresh_p99'] / 1000:.2f} ms "
                 f"from a new client, {big['probe_p99'] / 1000:.2f} ms from the crowd's own client).")
    bare = by[("bench-host", args.big)]
    lines.append(f"  bench-host, the same host core and transport without the demo's flows (six controls, each bound "
                 f"to an Action, per session): {bare['held']:,} held, {bare['kib_each']:.2f} KiB each, welcome p99 "
                 f"{bare['probe_p99'] / 1000:.2f} ms.")
    most = by[("libev", args.most)]
    lines.append(f"- The most this machine allows, {args.most:,}: {most['held']:,} held, {most['kib_each']:.2f} KiB each, "
                 f"welcome p99 {most.get('fresh_p99', float('nan')) / 1000:.2f} ms from a new client; {most.get('reopened', 0):,} crowd "
                 "connections cut near the full table and opened again one at a time.")
    lines.append(f"- Memory per idle session: {crowded['kib_each']:.2f} KiB at {idle:,}, {big['kib_each']:.2f} KiB at "
                 f"{args.big:,}, {most['kib_each']:.2f} KiB at {most['held']:,} (the most this machine allows: the "
                 f"open-file hard limit is {args.hard:,} for the host and for the client).")
    ratio = by[("python", 0)]["cpu_us"] / base["cpu_us"]
    lines.append(f"- Held from issue 19: at {BUSY} busy sessions and no crowd, at least 3x less CPU per cycle than the "
                 f"Python host: {verdict(ratio >= 3)} ({ratio:.2f}x: {base['cpu_us']:.1f} µs against "
                 f"{by[('python', 0)]['cpu_us']:.1f} µs).")
    if args.rounds > 1:
        lines += ["", "Each round's CPU per cycle (µs; libev without / with the crowd, Python with the crowd):", ""]
        for index, cells in enumerate(rounds):
            each = {(row["impl"], row["idle"]): row for row in cells}
            lines.append(f"- round {index + 1}: {each[('libev', 0)]['cpu_us']:.1f} / {each[('libev', idle)]['cpu_us']:.1f}"
                         f", Python {each[('python', idle)]['cpu_us']:.1f}")
    return lines + ["", MARKERS[1]]


def write_section(path, lines):
    text = open(path).read() if os.path.exists(path) else "# Benchmarks\n"
    block = "\n".join(lines)
    pattern = re.compile(re.escape(MARKERS[0][:len("<!-- bench-crowd:start")]) + r".*?" + re.escape(MARKERS[1]), re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: block, text)
    else:
        text = text.rstrip("\n") + "\n\n## The loop's cost with a crowd (issue 31)\n\n" + block + "\n"
    with open(path, "w") as handle:
        handle.write(text)


MEMORY_MARKERS = ("<!-- bench-idle:start (written by scripts/bench-idle; edits here are overwritten) -->",
                  "<!-- bench-idle:end -->")
SETTLE = 12


def memory_markdown(args, rows, load):
    """The bench-idle section: host RSS per idle welcomed session and the welcome time meanwhile."""
    names = {"libev": "modal-host", "bench-host": "bench-host (no demo flows)"}
    lines = [MEMORY_MARKERS[0], "### Host memory per idle session, and a new session's welcome meanwhile", "",
             f"Command: `{args.command}`. One run on {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores "
             f"shared with other engineers' builds (load average before the run: {load[0]:.2f} {load[1]:.2f} "
             f"{load[2]:.2f}); {args.rounds} round(s), the median shown; a fresh server per cell, release builds. "
             f"Each cell is bench-crowd's crowd without the busy cycle: `modal-bench crowd --count N --probes {PROBES}` "
             "(N sessions, each `hello` answered by `welcome`, held open and silent on one libev client from "
             "127.0.0.1; modal-host with `" + " ".join(RAISED) + "`, the per-address limits raised for the "
             "benchmark only). *KiB each* is the host's RSS growth (`VmRSS` in `/proc/PID/status`, from before the "
             f"crowd to 1 s after it and its probes) divided by N; *after {SETTLE} s* reads it again {SETTLE} s later, "
             "past the host's 10 s memory-trim tick. *Welcome* is connect to `welcome` of each of the "
             f"{PROBES} probes opened one after another while the crowd is held, first from the crowd's own client "
             "(it includes that client's work for the N connections it holds), then from a `modal-bench` process of "
             f"their own from {FRESH_SOURCE} (`--count 1 --source {FRESH_SOURCE}`: *new client*), as a new kiosk "
             "on another machine connects (from the crowd's 127.0.0.1, each `connect` would first wait in the "
             "kernel's search for a free local port among the crowd's N: 5.5 ms at p50 with 15,000 held).", "",
             f"| server | flags | sessions held | KiB each | KiB each after {SETTLE} s | welcome p50 µs | "
             "welcome p99 µs | probes lost | new client: welcome p50 µs | p99 µs |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for row in rows:
        lines.append(f"| {names[row['impl']]} | {row.get('flags') or 'defaults'} | {fmt(row.get('held'))} | "
                     f"{fmt(row.get('kib_each'), 2)} | {fmt(row.get('kib_settled'), 2)} | "
                     f"{fmt(row.get('probe_p50'), 1)} | {fmt(row.get('probe_p99'), 1)} | {fmt(row.get('lost'))} | "
                     f"{fmt(row.get('fresh_p50'), 1)} | {fmt(row.get('fresh_p99'), 1)} |")
    return lines + ["", MEMORY_MARKERS[1]]


def write_marked(path, lines, markers, heading):
    text = open(path).read() if os.path.exists(path) else "# Benchmarks\n"
    block = "\n".join(lines)
    pattern = re.compile(re.escape(markers[0]) + r".*?" + re.escape(markers[1]), re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: block, text)
    else:
        text = text.rstrip("\n") + f"\n\n{heading}\n\n" + block + "\n"
    with open(path, "w") as handle:
        handle.write(text)


def memory_main(args, load):
    """Only the crowds: RSS per idle session and the probes' welcome, at --idle and --big."""
    variants = [("libev", ())]
    for flags in filter(None, (each.strip() for each in args.host_flags.split(";"))):
        variants.append(("libev", tuple(flags.split())))
    variants.append(("bench-host", ()))
    rounds = []
    for _ in range(args.rounds):
        cells = []
        for impl, extra in variants:
            for idle in [args.idle, args.big]:
                row = {"impl": impl, "idle": idle, "held": 0}
                # Once more after a failure: on a loaded machine a batch of the crowd can miss
                # its 60 s to be welcomed.
                for _ in range(2):
                    try:
                        row = cell(args, impl, idle, cycle=False, settle=SETTLE, extra=extra)
                        break
                    except SystemExit as failure:
                        print(f"bench-idle: {impl} {idle}: {failure}", file=sys.stderr)
                row["flags"] = " ".join(f"`{flag}`" if flag.startswith("--") or "=" in flag else flag for flag in extra)
                cells.append(row)
        rounds.append(cells)
    rows = median_rows(rounds)
    lines = memory_markdown(args, rows, load)
    write_marked(f"{args.docs}/benchmarks.md", lines, MEMORY_MARKERS, "## Memory per idle session (issue 31)")
    print("\n".join(lines))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--idle", type=int, default=10000)
    parser.add_argument("--big", type=int, default=15000)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--docs", default=f"{ROOT}/docs")
    parser.add_argument("--logs", default=f"{ROOT}/.build/bench")
    parser.add_argument("--command", default="scripts/bench-crowd")
    parser.add_argument("--memory", action="store_true", help="only the crowds' memory and welcome (bench-idle)")
    parser.add_argument("--host-flags", default="", help="with --memory: also modal-host with these flags (several sets: separated by ;)")
    args = parser.parse_args()
    args.hard = raise_open_files()
    # The host keeps its reserve of 128 descriptors for files and 32 for HTTP; the client holds one
    # per session too. What is left after the probes is the most this machine allows.
    # (1,000 more are left for the client's ephemeral ports and the host's other descriptors:
    # 300 fewer failed to connect once.)
    args.most = max(args.big, args.hard - 1000)
    load = os.getloadavg()
    if args.memory:
        memory_main(args, load)
        return
    rounds = []
    for _ in range(args.rounds):
        cells = []
        for impl in ["libev", "python", "poll"]:
            cells.append(cell(args, impl, 0))
            cells.append(cell(args, impl, args.idle))
        for impl, idle in [("libev", args.big), ("libev", args.most), ("bench-host", args.idle),
                           ("bench-host", args.big)]:
            try:
                cells.append(cell(args, impl, idle, cycle=False))
            except SystemExit as failure:
                print(f"bench-crowd: {impl} {idle}: {failure}", file=sys.stderr)
                cells.append({"impl": impl, "idle": idle, "held": 0, "kib_each": float("nan"),
                              "probe_p50": float("nan"), "probe_p99": float("nan"), "lost": float("nan")})
        rounds.append(cells)
    rows = median_rows(rounds)
    lines = markdown(args, rows, rounds, load)
    write_section(f"{args.docs}/benchmarks.md", lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()

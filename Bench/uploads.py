"""The upload benchmark of issue 31: uploads through the demo picker next to a bystander.

Run through scripts/bench-uploads, which builds everything first. For each host binary
given (the current build, and optionally an older one for a before/after table) it starts
modal-host on loopback with default flags (its log to a file), then, RUNS times:
  alone   the bystander: `modal-bench cycle --sessions 1 --pace 25` (the demo sign-in cycle,
          25 a second: under the default --rate of 100 messages a second) for SECONDS
  loaded  `modal-bench upload --sessions 4` (three 3 MiB photos a pick, each session at the
          full window of its picker's present) with the same bystander alongside
Host CPU is modal-host's utime + stime from /proc over the upload window, divided by the MB
the host acknowledged in it. Prints a Markdown table (each run, then the medians).

`modal-bench upload` sends binary chunks to a host that offers them (docs/protocol.md §7,
"Binary chunks"); `--text-too` runs each host again with `--text-chunks` (base64 in text).

Usage: uploads.py --bench BIN --host NAME=BIN [--host NAME=BIN] [--seconds 10] [--runs 3] [--text-too]
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

from processes import free_port, wait_port

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def bystander(bench, url, seconds):
    out = subprocess.run([bench, "cycle", "--url", url, "--sessions", "1", "--pace", "25", "--seconds", str(seconds),
                          "--warmup", "0.5", "--label", "bystander"], check=True, capture_output=True, text=True)
    fields = out.stdout.strip().split("\t")
    return {"cycles": float(fields[1]), "p50": float(fields[2]), "p99": float(fields[3])}


def one_host(args, name, binary, chunk_flags=()):
    port = free_port()
    os.makedirs(os.path.join(ROOT, "artifacts"), exist_ok=True)
    log = open(os.path.join(ROOT, "artifacts", f"bench-uploads-{name}.log"), "w")
    host = subprocess.Popen([binary, "--port", str(port)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log)
    rows = []
    try:
        wait_port(port)
        url = f"ws://127.0.0.1:{port}/ws"
        for run in range(args.runs):
            alone = bystander(args.bench, url, args.seconds)
            upload = subprocess.Popen([args.bench, "upload", "--url", url, "--sessions", "4", "--seconds",
                                       str(args.seconds + 2), "--warmup", "1", "--pid", str(host.pid),
                                       *chunk_flags],
                                      stdout=subprocess.PIPE, text=True)
            time.sleep(1.5)
            loaded = bystander(args.bench, url, args.seconds)
            out, _ = upload.communicate(timeout=args.seconds + 60)
            if upload.returncode != 0:
                raise RuntimeError(f"modal-bench upload failed ({upload.returncode})")
            fields = out.strip().split("\t")
            rows.append({"run": run + 1, "mbps": float(fields[1]), "picks": int(fields[2]),
                         "cpu": float(fields[3]) if len(fields) > 3 and fields[3] else float("nan"),
                         "alone": alone["p99"], "loaded": loaded["p99"], "alone50": alone["p50"],
                         "loaded50": loaded["p50"]})
            print(f"{name} run {run + 1}: {rows[-1]}", file=sys.stderr)
    finally:
        host.terminate()
        host.wait(timeout=10)
        log.close()
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bench", required=True)
    parser.add_argument("--host", action="append", required=True, help="NAME=PATH of a modal-host binary")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--text-too", action="store_true",
                        help="also run each host with the uploads sent as base64 in text (a fresh host)")
    args = parser.parse_args()
    print("| host | run | accepted MB/s (4 sessions) | host CPU ms per MB | bystander p50 alone / loaded (µs) "
          "| bystander p99 alone (µs) | p99 loaded (µs) | loaded / alone |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    load = os.getloadavg()
    runs = []
    for spec in args.host:
        name, binary = spec.split("=", 1)
        runs.append((name, binary, ()))
        if args.text_too:
            runs.append((f"{name}, text chunks", binary, ("--text-chunks",)))
    for name, binary, chunk_flags in runs:
        rows = one_host(args, name, binary, chunk_flags)
        for row in rows:
            print(f"| {name} | {row['run']} | {row['mbps']:.1f} | {row['cpu']:.2f} | {row['alone50']:.0f} / "
                  f"{row['loaded50']:.0f} | {row['alone']:.0f} | {row['loaded']:.0f} | "
                  f"{row['loaded'] / row['alone']:.1f}x |")
        med = {key: statistics.median(row[key] for row in rows) for key in ("mbps", "cpu", "alone", "loaded",
                                                                            "alone50", "loaded50")}
        ratio = statistics.median(row["loaded"] / row["alone"] for row in rows)
        print(f"| **{name}** | median | **{med['mbps']:.1f}** | **{med['cpu']:.2f}** | {med['alone50']:.0f} / "
              f"{med['loaded50']:.0f} | {med['alone']:.0f} | {med['loaded']:.0f} | **{ratio:.1f}x** |")
    print(f"\nLoad average before the runs: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"after: {' '.join(f'{x:.2f}' for x in os.getloadavg())} (2 cores).")


if __name__ == "__main__":
    main()

"""Soak: thousands of connected sessions and a steady trickle of modal round trips for a
long time; host RSS and round-trip latency sampled every 10 s into a CSV, then plotted.

Usage: Bench/soak.py --host-bin PATH [--sessions 5000] [--rate 20] [--seconds 1800]
       [--csv docs/soak.csv] [--png docs/soak.png]
Run through scripts/soak (which builds the host and installs matplotlib).
"""
import argparse
import asyncio
import csv
import json
import random
import statistics
import subprocess
import time

import websockets

from processes import free_port, rss_kib


class Session:
    def __init__(self, ws):
        self.ws = ws
        self.inbox = asyncio.Queue()
        self.reader = asyncio.create_task(self.read())

    async def read(self):
        try:
            async for text in self.ws:
                await self.inbox.put(json.loads(text))
        except websockets.exceptions.ConnectionClosed:
            pass

    async def expect(self, kind, timeout=10):
        while True:
            message = await asyncio.wait_for(self.inbox.get(), timeout)
            if message["type"] == kind:
                return message

    async def round_trip(self, index):
        start = time.perf_counter()
        await self.ws.send(json.dumps({"type": "event", "control": "next"}))
        present = await self.expect("present")
        await self.ws.send(json.dumps({"type": "result", "id": present["id"],
                                       "value": {"action": index % 2, "textFields": [f"soak-{index}"]}}))
        await self.expect("dismiss")
        return (time.perf_counter() - start) * 1000


async def open_session(url, index):
    ws = await websockets.connect(url, max_queue=None, ping_interval=None, open_timeout=30)
    await ws.send(json.dumps({"type": "hello", "protocol": 1, "client": {"kind": "soak", "name": f"s{index}"},
                              "capabilities": ["alert"]}))
    session = Session(ws)
    await session.expect("welcome")
    return session


async def soak(args, pid, url):
    sessions = []
    for start in range(0, args.sessions, 250):
        batch = await asyncio.gather(*(open_session(url, i) for i in range(start, min(args.sessions, start + 250))))
        sessions.extend(batch)
    print(f"soak: {len(sessions)} sessions connected; host RSS {rss_kib(pid)} KiB", flush=True)
    rows = []
    began = time.monotonic()
    window = []
    total = 0
    busy = set()
    next_sample = began + 10

    async def one(session, index):
        nonlocal total
        try:
            window.append(await session.round_trip(index))
            total += 1
        finally:
            busy.discard(session)

    while time.monotonic() - began < args.seconds:
        tick = time.monotonic()
        for _ in range(args.rate):
            session = random.choice(sessions)
            if session in busy:
                continue
            busy.add(session)
            asyncio.create_task(one(session, total + len(busy)))
        if time.monotonic() >= next_sample:
            latencies = sorted(window) or [0.0]
            row = {"seconds": round(time.monotonic() - began), "rss_kib": rss_kib(pid), "modals": total,
                   "p50_ms": round(statistics.median(latencies), 2),
                   "p99_ms": round(latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))], 2)}
            rows.append(row)
            print(f"soak: {row}", flush=True)
            window.clear()
            next_sample += 10
        await asyncio.sleep(max(0, 1 - (time.monotonic() - tick)))
    for session in sessions:
        await session.ws.close()
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host-bin", required=True)
    parser.add_argument("--sessions", type=int, default=5000)
    parser.add_argument("--rate", type=int, default=20, help="modal round trips started per second")
    parser.add_argument("--seconds", type=int, default=1800)
    parser.add_argument("--csv", default="docs/soak.csv")
    parser.add_argument("--png", default="docs/soak.png")
    parser.add_argument("--replot", action="store_true", help="only redraw the PNG from the CSV")
    args = parser.parse_args()
    if args.replot:
        with open(args.csv) as file:
            plot([{key: (float(value) if "." in value else int(value)) for key, value in row.items()}
                  for row in csv.DictReader(file)], args)
        return
    port = free_port()
    host = subprocess.Popen([args.host_bin, str(port), "--count-only"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1.5)
        rows = asyncio.run(soak(args, host.pid, f"ws://127.0.0.1:{port}/ws"))
    finally:
        host.terminate()
        host.wait(timeout=10)
    with open(args.csv, "w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0].keys()))
        writer.writeheader()
        writer.writerows(rows)
    plot(rows, args)


def plot(rows, args):
    """Writes the PNG: RSS on a zoomed axis (the whole range is a few hundred KiB) above
    the latency percentiles; prints the growth after the first tenth of the run."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, (memory, latency) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    minutes = [row["seconds"] / 60 for row in rows]
    rss = [row["rss_kib"] / 1024 for row in rows]
    memory.plot(minutes, rss)
    memory.set_ylabel("host RSS (MiB)")
    memory.set_ylim(min(rss) - 1, max(rss) + 1)
    memory.set_title(f"soak: {args.sessions} sessions, {args.rate} modal round trips/s "
                     f"(RSS {rss[0]:.1f} -> {rss[-1]:.1f} MiB; axis zoomed)")
    memory.grid(True, alpha=0.3)
    latency.plot(minutes, [row["p50_ms"] for row in rows], label="p50")
    latency.plot(minutes, [row["p99_ms"] for row in rows], label="p99")
    latency.set_ylabel("round trip (ms)")
    latency.set_xlabel("minutes")
    latency.grid(True, alpha=0.3)
    latency.legend()
    figure.tight_layout()
    figure.savefig(args.png, dpi=100)
    steady = rows[len(rows) // 10:] or rows
    growth = steady[-1]["rss_kib"] - steady[0]["rss_kib"]
    print(f"soak: {rows[-1]['modals']} modals; RSS {steady[0]['rss_kib']} -> {steady[-1]['rss_kib']} KiB "
          f"({growth:+d} KiB) after warm-up; wrote {args.csv} and {args.png}")

if __name__ == "__main__":
    main()

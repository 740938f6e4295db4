"""What the heartbeat costs a host (docs/protocol.md, section 3 "Heartbeat"): N welcomed idle
sessions are held for 10 s without pinging (the host keeps no heartbeat timer: its CPU then
is what idle sessions cost), then each sends ROUNDS pings, one at a time, and waits for its
pong. Prints the host's CPU over the idle window and per ping (from /proc/PID/stat), and the
round trip (which the Python side dominates past a few hundred connections).
Usage: .venv/bin/python Bench/heartbeat_cost.py [--bin .build/debug/modal-host] [--sessions 100 400]"""
import argparse
import asyncio
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Tests", "python"))
import hosts  # noqa: E402
from hosts import Host  # noqa: E402
import protocol_client  # noqa: E402,F401  (this tree's clients/python first on the path)
from remote_modal_client import ProtocolClient  # noqa: E402


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(host, sessions, rounds):
    clients = [await ProtocolClient.open(host.url, name=f"idle-{i}", capabilities=[], ping_interval=None)
               for i in range(sessions)]
    for client in clients:
        await client.expect("controls")
    await asyncio.sleep(2)
    before = cpu_seconds(host.process.pid)
    await asyncio.sleep(10)
    idle = cpu_seconds(host.process.pid) - before
    trips = []

    async def one(client, ping):
        started = time.perf_counter()
        await client.send({"type": "ping", "id": ping})
        await client.expect("pong", id=ping)
        return time.perf_counter() - started

    before = cpu_seconds(host.process.pid)
    for ping in range(rounds):
        trips += await asyncio.gather(*[one(client, ping) for client in clients])
    pinged = cpu_seconds(host.process.pid) - before
    trips.sort()
    for client in clients:
        await client.close()
    return {"sessions": sessions, "host_cpu_s_idle_10s": round(idle, 3), "pings": sessions * rounds,
            "host_cpu_ms_per_ping": round(pinged * 1000 / (sessions * rounds), 3),
            "round_trip_median_ms": round(trips[len(trips) // 2] * 1000, 1),
            "round_trip_p99_ms": round(trips[int(len(trips) * 0.99)] * 1000, 1)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=hosts.BINARY)
    parser.add_argument("--sessions", type=int, nargs="+", default=[100, 400])
    parser.add_argument("--rounds", type=int, default=10)
    options = parser.parse_args()
    hosts.BINARY = options.bin
    host = Host("--max-connections", "5000", "--max-connections-per-address", "5000", "--socket-churn-per-address", "0",
                "--max-sessions-per-address", "5000")
    try:
        for sessions in options.sessions:
            print(json.dumps(asyncio.run(measure(host, sessions, options.rounds))))
    finally:
        host.stop()


if __name__ == "__main__":
    main()

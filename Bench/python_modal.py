"""The modal round trip as a team would write it with plain Python `websockets`: the
peer that scripts/bench-modal compares the bridge with.

It speaks the same wire messages as bench-host (hello -> welcome; for a client of kind
`bench`, an endless loop of one-button alerts: present, wait for the result, check it,
dismiss, next) and serves the same /bench/report. No sessions to resume, no rate limits,
no retention: only what the round trip needs, so it is a generous peer (its listen backlog
is raised to 4,096 like libwebsockets's, so a connection storm does not measure a default).

Usage: python_modal.py PORT
"""
import asyncio
import http
import json
import secrets
import sys
import time

import websockets
from websockets.asyncio.server import serve

ALERT = {"kind": "alert", "title": "Bench", "message": None, "textFields": [],
         "actions": [{"title": "OK", "style": "default", "enabled": True, "preferred": False}]}
samples = []
total = 0


def dumps(message):
    return json.dumps(message, separators=(",", ":"))


def rank(values, fraction):
    if not values:
        return 0.0
    index = max(0, min(len(values) - 1, -int(-fraction * len(values) // 1) - 1))
    return values[index]


def report(request):
    global samples
    values = sorted(samples)
    if "reset=1" in request.path:
        samples = []
    return dumps({"count": len(values), "total": total, "p50": round(rank(values, 0.5), 1),
                  "p99": round(rank(values, 0.99), 1), "p999": round(rank(values, 0.999), 1)})


async def process_request(connection, request):
    if request.path.startswith("/bench/report"):
        return connection.respond(http.HTTPStatus.OK, report(request))
    return None


async def session(ws):
    global total
    hello = json.loads(await ws.recv())
    if hello.get("type") != "hello":
        await ws.close(1008, "hello required")
        return
    await ws.send(dumps({"type": "welcome", "protocol": 1, "session": secrets.token_urlsafe(16),
                         "resumed": False, "retentionSeconds": 60}))
    if hello.get("client", {}).get("kind") != "bench":
        await ws.wait_closed()
        return
    seq = 0
    number = 0
    try:
        while True:
            number += 1
            modal = f"m{number}"
            started = time.perf_counter()
            seq += 1
            await ws.send(dumps({"type": "present", "seq": seq, "id": modal, "modal": ALERT}))
            while True:
                message = json.loads(await ws.recv())
                value = message.get("value")
                if (message.get("type") == "result" and message.get("id") == modal and isinstance(value, dict)
                        and value.get("action") == 0):
                    break
            seq += 1
            await ws.send(dumps({"type": "dismiss", "seq": seq, "id": modal, "reason": "resolved"}))
            samples.append((time.perf_counter() - started) * 1e6)
            total += 1
    except websockets.exceptions.ConnectionClosed:
        pass


async def main(port):
    async with serve(session, "127.0.0.1", port, subprotocols=["remote-modal.v1"], max_queue=None,
                     ping_interval=None, process_request=process_request, backlog=4096) as server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))

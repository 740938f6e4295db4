"""Issue 33, hello pacing on the real loop (a real modal-host, real sockets): a burst of hellos
past one turn's time waits for later turns, every one still welcomed; a connection that
closes while its hello waits leaves nothing behind, and the host goes on serving."""
import asyncio
import json
import re
import urllib.request

import websockets

from hosts import Host
from protocol_client import ProtocolClient

HELLO = {"type": "hello", "protocol": 1, "client": {"kind": "pytest", "name": "burst"}, "capabilities": ["alert"]}


def metric(port, name):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
        text = reply.read().decode()
    found = re.search(rf"^{name} (\d+)$", text, re.MULTILINE)
    assert found, f"{name} not in /metrics"
    return int(found.group(1))


async def welcome_of(socket):
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), 10))
        if message["type"] == "welcome":
            return message


def test_a_burst_of_hellos_is_paced_every_one_welcomed_and_the_ones_that_left_cost_nothing():
    host = Host("--hello-time-per-turn", "1", "--max-sessions-per-address", "100")

    async def scenario():
        sources = [f"127.0.0.{40 + index}" for index in range(4)]
        sockets = []
        for index in range(60):
            sockets.append(await websockets.connect(
                host.url, subprotocols=["remote-modal.v1"], max_size=None,
                local_addr=(sources[index % 4], 0)))
        # Every hello at once, and a third of the sockets gone right after theirs.
        await asyncio.gather(*(socket.send(json.dumps({**HELLO, "client": {"kind": "pytest", "name": f"b{index}"}}))
                               for index, socket in enumerate(sockets)))
        leaving, staying = sockets[::3], [s for index, s in enumerate(sockets) if index % 3]
        for socket in leaving:
            socket.transport.abort()
        welcomes = await asyncio.gather(*(welcome_of(socket) for socket in staying))
        assert len({w["session"] for w in welcomes}) == len(staying), "one session each"
        assert metric(host.port, "remote_modal_hellos_deferred_total") > 0, "the burst was not paced"
        # Nothing waits any more, and the host goes on: a bystander gets its welcome and a pong.
        for _ in range(50):
            if metric(host.port, "remote_modal_hellos_waiting") == 0:
                break
            await asyncio.sleep(0.1)
        assert metric(host.port, "remote_modal_hellos_waiting") == 0
        bystander = await ProtocolClient.open(host.url, name="bystander", source="127.0.0.60")
        await bystander.send({"type": "ping", "id": 3})
        assert (await bystander.expect("pong"))["id"] == 3
        await bystander.close()
        for socket in staying:
            await socket.close()

    try:
        asyncio.run(asyncio.wait_for(scenario(), 60))
        assert host.process.poll() is None, "the host died"
    finally:
        host.stop()

"""The transport checked by an independent client: Python's websockets library."""
import asyncio

import pytest
import websockets
from websockets.exceptions import ConnectionClosed

MAX = 100000


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 30))


@pytest.mark.parametrize("size", [0, 1, 125, 126, 65535, 65536, MAX])
def test_echo_text_sizes(echo_host, size):
    async def scenario():
        async with websockets.connect(echo_host.url, max_size=None) as ws:
            text = "x" * size
            await ws.send(text)
            assert await ws.recv() == text
    run(scenario())


def test_fragmented_message_is_reassembled(echo_host):
    async def scenario():
        async with websockets.connect(echo_host.url) as ws:
            await ws.send(["héllo ", "wörld ", "🎉" * 1000])
            assert await ws.recv() == "héllo wörld " + "🎉" * 1000
    run(scenario())


def test_binary_keeps_its_opcode(echo_host):
    async def scenario():
        async with websockets.connect(echo_host.url) as ws:
            await ws.send(bytes(range(256)))
            reply = await ws.recv()
            assert isinstance(reply, bytes) and reply == bytes(range(256))
    run(scenario())


def test_subprotocol_is_negotiated(echo_host):
    async def scenario():
        async with websockets.connect(echo_host.url, subprotocols=["remote-modal.v1"]) as ws:
            assert ws.subprotocol == "remote-modal.v1"
    run(scenario())


def test_oversized_message_closes_with_1009_and_others_are_untouched(echo_host):
    async def scenario():
        async with websockets.connect(echo_host.url, max_size=None) as bystander:
            async with websockets.connect(echo_host.url, max_size=None) as ws:
                await ws.send("y" * (MAX + 1))
                with pytest.raises(ConnectionClosed) as closed:
                    await ws.recv()
                assert closed.value.rcvd.code == 1009
            await bystander.send("still fine")
            assert await bystander.recv() == "still fine"
    run(scenario())


def test_oversized_fragmented_message_closes_with_1009(echo_host):
    async def scenario():
        async with websockets.connect(echo_host.url, max_size=None) as ws:
            await ws.send(["z" * 60000, "z" * 60000])
            with pytest.raises(ConnectionClosed) as closed:
                await ws.recv()
            assert closed.value.rcvd.code == 1009
    run(scenario())


def test_foreign_origin_is_refused_with_403(echo_host):
    async def scenario():
        with pytest.raises(websockets.exceptions.InvalidStatus) as refused:
            async with websockets.connect(echo_host.url, origin="http://evil.example"):
                pass
        assert refused.value.response.status_code == 403
    run(scenario())


def _metric(host, line_prefix):
    import urllib.request
    with urllib.request.urlopen(f"http://127.0.0.1:{host.port}/metrics", timeout=10) as reply:
        text = reply.read().decode()
    return int(next(l for l in text.splitlines() if l.startswith(line_prefix + " ")).split()[1])


def test_a_turns_messages_leave_in_one_write(demo_host):
    """The demo sign-in cycle (tap, Cancel) sends five messages: `controls` (busy) and
    `present` for the tap, then `dismiss`, `status` and `controls` (idle) for the answer.
    Each group is produced in one loop turn and must leave in one socket write, whole and
    in order (a strict client reads them), counted by /metrics."""
    from protocol_client import ProtocolClient

    async def scenario():
        client = await ProtocolClient.open(demo_host.url)
        await client.expect("controls")
        sent = _metric(demo_host, 'remote_modal_messages_total{direction="sent"}')
        writes = _metric(demo_host, "remote_modal_writes_total")
        cycles = 20
        for _ in range(cycles):
            await client.tap("signIn")
            first = [await client.next(), await client.next()]
            assert sorted(m["type"] for m in first) == ["controls", "present"], first
            present = next(m for m in first if m["type"] == "present")
            await client.send({"type": "result", "id": present["id"],
                               "value": {"action": 0, "textFields": ["", ""]}})
            rest = [await client.next() for _ in range(3)]
            assert [m["type"] for m in rest] == ["dismiss", "status", "controls"], rest
            assert rest[1]["text"] == "Sign in cancelled"
        assert _metric(demo_host, 'remote_modal_messages_total{direction="sent"}') - sent == 5 * cycles
        assert _metric(demo_host, "remote_modal_writes_total") - writes == 2 * cycles
        await client.close()
    run(scenario())


@pytest.mark.parametrize("backend", ["libev", "poll"])
def test_each_event_loop_echoes_and_closes_with_1001_at_shutdown(backend):
    from hosts import Host
    host = Host("--echo", "--event-loop", backend)
    try:
        async def scenario():
            async with websockets.connect(host.url, max_size=None) as ws:
                for size in (5, 60000, 5):
                    await ws.send("z" * size)
                    assert await ws.recv() == "z" * size
                host.process.terminate()
                with pytest.raises(ConnectionClosed) as closed:
                    await ws.recv()
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 1001
        run(scenario())
    finally:
        host.stop()


def test_an_unknown_event_loop_is_refused_with_the_choices():
    import subprocess
    from hosts import BINARY
    result = subprocess.run([BINARY, "--event-loop", "kqueue"], capture_output=True, text=True, timeout=30)
    assert result.returncode != 0
    assert "event-loop" in result.stderr and "libev or poll" in result.stderr, result.stderr

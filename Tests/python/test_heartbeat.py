"""The heartbeat (docs/protocol.md, section 3 "Heartbeat") against a real host: the offer in
`welcome`, `pong` for `ping` with no `seq`, and the Python client package noticing a stopped
host (SIGSTOP) within 10 s with a dialog open and within 30 s when idle, then resuming."""
import asyncio
import os
import signal

from hosts import Host
import protocol_client  # noqa: F401  (puts this tree's clients/python first on the path)
from remote_modal_client import HostSilent, ModalClient, ProtocolClient, heartbeat_offer
from schema import check_host_message as checked


def run(coro, seconds=60):
    return asyncio.run(asyncio.wait_for(coro, seconds))


def test_the_host_offers_a_heartbeat_and_answers_each_ping_on_its_own_connection(demo_host):
    async def scenario():
        client = await ProtocolClient.open(demo_host.url, on_message=checked)
        assert client.welcome["heartbeat"] == {"idleSeconds": 20, "activeSeconds": 4, "timeoutSeconds": 5}
        other = await ProtocolClient.open(demo_host.url, resume=client.session, on_message=checked)
        await other.expect("resumed")
        await client.send({"type": "ping", "id": 9})
        await client.send({"type": "ping"})
        first = await client.expect("pong")
        second = await client.expect("pong")
        assert first == {"type": "pong", "id": 9} and second == {"type": "pong"}
        # The other connection of the session got nothing: a status would have come first.
        await client.tap("country")
        await other.expect("present")
        assert not [m for m in other.inbox if m["type"] == "pong"]
        await client.close()
        await other.close()
    run(scenario())


def test_an_offer_is_clamped_and_a_malformed_one_is_none():
    assert heartbeat_offer({"idleSeconds": 900, "activeSeconds": 4, "timeoutSeconds": 5}) == \
        {"idleSeconds": 300, "activeSeconds": 4, "timeoutSeconds": 5}
    assert heartbeat_offer(None) is None
    assert heartbeat_offer({"idleSeconds": 0, "activeSeconds": 4, "timeoutSeconds": 5}) is None
    assert heartbeat_offer({"idleSeconds": True, "activeSeconds": 4, "timeoutSeconds": 5}) is None


def test_a_stopped_host_is_noticed_within_10_s_with_a_dialog_open_and_30_s_idle():
    host = Host("--retention", "60")
    try:
        async def scenario():
            busy = ModalClient(host.url, name="busy", on_message=checked)
            idle = ModalClient(host.url, name="idle", on_message=checked)
            await busy.connect()
            await idle.connect()
            await busy.tap("country")
            present = await busy.expect("present")
            await idle.expect("controls")
            loop = asyncio.get_running_loop()

            async def silence(client):
                started = loop.time()
                try:
                    while True:
                        await client.next(60)
                except HostSilent:
                    return loop.time() - started

            os.kill(host.process.pid, signal.SIGSTOP)
            try:
                busy_after, idle_after = await asyncio.gather(silence(busy), silence(idle))
            finally:
                os.kill(host.process.pid, signal.SIGCONT)
            # Pinged after 4 s (dialog open) or 20 s (idle) of silence, given up 5 s later.
            assert busy_after <= 10, busy_after
            assert 15 < idle_after <= 30, idle_after     # the idle interval, not the active one
            # Back: the session resumes and the open dialog is shown again.
            await busy.reconnect(delays=iter([0, 0.5, 1, 1]))
            again = await busy.expect("present", id=present["id"])
            assert again["again"] is True
            await busy.answer(present["id"], {"action": 1})
            await busy.expect("dismiss", id=present["id"])
            assert (await busy.expect("status"))["text"] == "Country: Japan"
            await busy.close()
            await idle.close()
        run(scenario(), 90)
    finally:
        os.kill(host.process.pid, signal.SIGCONT)
        host.stop()

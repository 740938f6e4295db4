"""What was still open after issue #33's round three, against real hosts and a real redis-server:
N2, one huge PUBLISH makes Redis cut every host's subscription (its pub/sub output buffer
limit), and the hosts re-subscribe and recover, the pending approval between two of them
included; N3, a claim taken first under a presentation's predictable id blocks nothing."""
import asyncio
import os
import socket
import sys
import time

from conftest import PASSWORD, metric, start_host, wait_for

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
from protocol_client import ProtocolClient  # noqa: E402


def run(coroutine):
    return asyncio.run(coroutine)


async def status(client, timeout=10):
    return (await client.expect("status", timeout=timeout))["text"]


def resp(*parts):
    """A Redis command in RESP (bytes or text arguments)."""
    out = [b"*%d\r\n" % len(parts)]
    for part in parts:
        data = part if isinstance(part, bytes) else str(part).encode()
        out += [b"$%d\r\n" % len(data), data, b"\r\n"]
    return b"".join(out)


def huge_publish(redis, channel, size):
    """PUBLISH of `size` bytes as anyone with the Redis password can (a raw socket: an argument
    this long cannot go on redis-cli's command line). Returns Redis's reply line."""
    with socket.create_connection(("127.0.0.1", redis.port), timeout=30) as sock:
        sock.sendall(resp("AUTH", PASSWORD))
        assert sock.recv(64).startswith(b"+OK")
        sock.sendall(resp("PUBLISH", channel, b"x" * size))
        return sock.recv(64)


def resubscribed(host):
    return metric(host, "remote_modal_cluster_resubscribed_total") or 0


def test_one_huge_publish_cuts_every_subscription_and_the_pending_approval_survives(redis):
    started = [start_host(redis, name, log_level="info") for name in ("asking", "desk", "bystander")]
    asking, desk_host, bystander_host = started
    try:
        for host in started:
            wait_for(lambda: metric(host, "remote_modal_cluster_connected") == 1, what="cluster connected")

        async def scenario():
            asker = await ProtocolClient.open(asking.url, name="asker", group="huge")
            desk = await ProtocolClient.open(desk_host.url, name="desk-2", group="huge")
            bystander = await ProtocolClient.open(bystander_host.url, name="bystander")
            await asyncio.to_thread(wait_for, lambda: (metric(asking, "remote_modal_cluster_members_seen") or 0) >= 1,
                                    10, "the asking host to see the desk")
            await asker.tap("approve")
            first = await desk.expect("present")
            # 34 MB on the broadcast channel: past Redis's default `client-output-buffer-limit
            # pubsub 32mb`, so Redis closes every subscriber it would go to, every host's.
            reply = await asyncio.to_thread(huge_publish, redis, "remote-modal:all", 34 << 20)
            assert reply.startswith(b":"), reply
            # The desk answers at once, while the subscriptions may still be down.
            await desk.send({"type": "result", "id": first["id"], "value": {"action": 0}})
            assert await status(asker, timeout=15) == "Approved by desk-2"
            for host in started:
                await asyncio.to_thread(wait_for, lambda: resubscribed(host) >= 1, 15, "every host to re-subscribe")
            # The bystander's own flow works, and the cluster works on: a second approval.
            await bystander.tap("country")
            present = await bystander.expect("present")
            await bystander.send({"type": "result", "id": present["id"], "value": {"action": 1}})
            assert await status(bystander) == "Country: Japan"
            for host in started:
                await asyncio.to_thread(wait_for, lambda: metric(host, "remote_modal_cluster_connected") == 1, 15,
                                        "every host subscribed")
            await asyncio.to_thread(wait_for, lambda: (metric(asking, "remote_modal_cluster_members_seen") or 0) >= 1,
                                    10, "the asking host to see the desk again")
            await asker.tap("approve")
            second = await desk.expect("present")
            await desk.send({"type": "result", "id": second["id"], "value": {"action": 0}})
            assert await status(asker) == "Approved by desk-2"
            for client in (asker, desk, bystander):
                await client.close()

        run(scenario())
    finally:
        for host in started:
            host.stop()
    # Each host says in its log that it lost the subscription and came back.
    for host in started:
        log = host.log()
        assert "lost the backplane subscription" in log, log[-3000:]
        assert "subscribed again" in log, log[-3000:]
        assert PASSWORD not in log


def test_claims_taken_first_under_predictable_ids_block_no_answer(redis, hosts):
    host1, host2, _ = hosts

    async def scenario():
        asker = await ProtocolClient.open(host1.url, name="asker", group="squat")
        member = await ProtocolClient.open(host2.url, name="member-2", group="squat")
        await asyncio.to_thread(wait_for, lambda: (metric(host1, "remote_modal_cluster_members_seen") or 0) >= 1,
                                10, "host1 to see member-2")
        # Presentation ids are HOSTID.N, and HOSTID is each host's own channel name: an outsider
        # with the Redis password takes the first claims of every host before anyone answers.
        channels = redis.cli("PUBSUB", "CHANNELS", "remote-modal:host:*").split()
        for channel in channels:
            host_id = channel.split(":")[-1]
            for number in range(1, 40):
                redis.cli("SET", f"remote-modal:answered:{host_id}.{number}", "squatter", "NX")
        before = set(redis.cli("KEYS", "remote-modal:answered:*").split())
        await asker.tap("approve")
        present = await member.expect("present")
        await member.send({"type": "result", "id": present["id"], "value": {"action": 0}})
        assert await status(asker) == "Approved by member-2"
        # The claim the hosts took is named by the cluster key, and its value is signed.
        keys = sorted(set(redis.cli("KEYS", "remote-modal:answered:*").split()) - before)
        assert len(keys) == 1, keys
        assert not any(channel.split(":")[-1] in keys[0] for channel in channels), keys
        assert redis.cli("GET", keys[0]).startswith("rm1.")
        await asker.close()
        await member.close()

    run(scenario())

"""The backplane checked and bounded (issue #33 items 2 and 3), against real hosts and a real
redis-server: Redis AUTH (password, ACL user), a key every host needs, forged `PUBLISH`es that
resolve and present nothing, and one address reconnecting that cannot flood Redis."""
import asyncio
import json
import os
import subprocess
import sys
import time

import pytest
import websockets

from conftest import KEY_FILE, PASSWORD, PASSWORD_FILE, Redis, metric, secret_file, start_host, wait_for

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
from hosts import BINARY  # noqa: E402
from protocol_client import ProtocolClient  # noqa: E402


def run(coroutine):
    return asyncio.run(coroutine)


def members_seen(host):
    return metric(host, "remote_modal_cluster_members_seen") or 0


def rejected(host, reason):
    return metric(host, f'remote_modal_cluster_rejected_total{{reason="{reason}"}}') or 0


def host_channels(redis):
    """The hosts' own channels, from Redis (PUBSUB CHANNELS), by instance name."""
    channels = redis.cli("PUBSUB", "CHANNELS", "remote-modal:host:*").split()
    return {channel.split(":")[-1].rsplit("-", 1)[0]: channel for channel in channels}


def test_a_cluster_without_a_key_refuses_to_start(redis):
    result = subprocess.run([BINARY, "--port", "0", "--web-root", "none", "--cluster", redis.url],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode != 0
    assert "--cluster-key-file" in result.stderr and "--cluster-insecure" in result.stderr
    short = secret_file("short.key", "too short")
    result = subprocess.run([BINARY, "--port", "0", "--web-root", "none", "--cluster", redis.url,
                             "--cluster-key-file", short], capture_output=True, text=True, timeout=30)
    assert result.returncode != 0 and "at least 32 bytes" in result.stderr
    assert "too short" not in result.stderr


def test_redis_auth_with_a_password_file_an_acl_user_and_a_wrong_password():
    acl = Redis(extra=["--user", "desk", "on", ">desk-" + PASSWORD, "~remote-modal:*", "&remote-modal:*",
                       "+@all"])
    started = []
    try:
        by_file = start_host(acl, "by-file")
        started.append(by_file)
        by_user = start_host(acl, "by-user", url=f"redis://desk:desk-{PASSWORD}@127.0.0.1:{acl.port}/0",
                             security=["--cluster-key-file", KEY_FILE])
        started.append(by_user)
        wrong = start_host(acl, "wrong", url=f"redis://:not-{PASSWORD}@127.0.0.1:{acl.port}/0",
                           security=["--cluster-key-file", KEY_FILE], log_level="info")
        started.append(wrong)
        for host in (by_file, by_user):
            wait_for(lambda: metric(host, "remote_modal_cluster_connected") == 1, what="an authenticated host")
        wait_for(lambda: metric(by_file, "remote_modal_cluster_hosts_seen") == 1, what="the two hosts to meet")
        # The wrong password never connects, and its log says why without the password.
        assert metric(wrong, "remote_modal_cluster_connected") == 0
        wrong.stop()
        log = wrong.log()
        assert "WRONGPASS" in log or "AUTH refused" in log, log[-2000:]
        assert PASSWORD not in log
    finally:
        for host in started:
            host.stop()
        acl.kill()


def test_made_up_publishes_resolve_nothing_and_present_nothing(redis, hosts):
    host1, host2, _ = hosts

    async def scenario():
        asker = await ProtocolClient.open(host1.url, name="asker", group="forgery", capabilities=["actionSheet"])
        member = await ProtocolClient.open(host2.url, name="member-2", group="forgery")
        await asyncio.to_thread(wait_for, lambda: members_seen(host1) >= 1, 10, "host1 to see member-2")
        channels = host_channels(redis)
        await asker.tap("approve")
        real = await member.expect("present")
        before = (rejected(host1, "unsigned"), rejected(host2, "unsigned"), rejected(host2, "bad_signature"))
        origin = channels["host1"].split(":")[-1]
        answer = {"t": "answer", "id": f"{origin}.1", "host": channels["host2"].split(":")[-1],
                  "member": "0" * 32, "kind": "desk", "name": "Security desk", "group": "forgery",
                  "result": {"action": 0}, "ts": time.time() * 1000}
        for number in range(1, 40):     # every presentation id host1 may have handed out
            answer["id"] = f"{origin}.{number}"
            redis.cli("PUBLISH", channels["host1"], json.dumps(answer))
        sign_in = {"t": "present", "id": f"{origin}.999", "origin": origin, "group": "forgery",
                   "modal": {"kind": "webAuthentication", "url": "javascript:alert(1)",
                             "callbackURL": f"http://127.0.0.1:{host1.port}/auth/callback/x",
                             "callbackURLScheme": None}, "ts": time.time() * 1000}
        alert = {"t": "present", "id": f"{origin}.998", "origin": origin, "group": "forgery",
                 "modal": {"kind": "alert", "title": "Forged", "message": "Type your password",
                           "actions": [{"title": "OK", "style": "default"}]}, "ts": time.time() * 1000}
        redis.cli("PUBLISH", channels["host2"], json.dumps(sign_in))
        redis.cli("PUBLISH", channels["host2"], json.dumps(alert))
        # Signed-looking, with a made-up signature.
        redis.cli("PUBLISH", channels["host2"], "rm1." + "ab" * 32 + "." + json.dumps(alert))
        await asyncio.to_thread(wait_for, lambda: rejected(host2, "bad_signature") >= before[2] + 1, 10,
                                "host2 to drop the forgeries")
        await asyncio.to_thread(wait_for, lambda: rejected(host1, "unsigned") >= before[0] + 39, 10,
                                "host1 to drop the forged answers")
        assert rejected(host2, "unsigned") >= before[1] + 2
        # The next thing the member sees is the real next present, the asker the real answer.
        await member.send({"type": "result", "id": real["id"], "value": {"action": 1}})
        text = (await asker.expect("status"))["text"]
        assert text == "Rejected by member-2", text
        await asker.tap("approve")
        again = await member.expect("present")
        assert again["modal"]["title"] == real["modal"]["title"], again
        await member.send({"type": "result", "id": again["id"], "value": {"action": 0}})
        assert (await asker.expect("status"))["text"] == "Approved by member-2"
        await asker.close()
        await member.close()

    run(scenario())


LARGEST_HELLO = json.dumps({
    "type": "hello", "protocol": 1, "client": {"kind": "k" * 64, "name": "n" * 256, "group": "g" * 256},
    "capabilities": [f"custom:{n:02d}" + "c" * 55 for n in range(32)]})


async def reconnecting(url, stop, counts, hello=LARGEST_HELLO):
    while time.time() < stop:
        try:
            async with websockets.connect(url, subprotocols=["remote-modal.v1"], local_addr=("127.0.0.77", 0),
                                          max_size=None) as ws:
                await ws.send(hello)
                reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
                kind = reply.get("code") or reply.get("type")
                counts[kind] = counts.get(kind, 0) + 1
        except (OSError, asyncio.TimeoutError, websockets.exceptions.WebSocketException):
            counts["failed"] = counts.get("failed", 0) + 1
            await asyncio.sleep(0.05)


def test_one_address_reconnecting_cannot_flood_redis_nor_break_an_approval(redis, hosts):
    host1, host2, host3 = hosts
    seconds = 6.0

    async def scenario():
        # A 60 KB hello (the attack of issue #33) is refused outright.
        big = json.dumps({"type": "hello", "protocol": 1, "client": {"kind": "k" * 2000, "name": "n"},
                          "capabilities": ["c" * 1000] * 55})
        counts = {}
        await reconnecting(host1.url, time.time() + 0.01, counts, hello=big)
        assert set(counts) == {"bad_message"}, counts
        asker = await ProtocolClient.open(host2.url, name="asker", group="desk", capabilities=["actionSheet"])
        desk = await ProtocolClient.open(host3.url, name="desk-3", group="desk")
        await asyncio.to_thread(wait_for, lambda: members_seen(host2) >= 1, 10, "host2 to see desk-3")
        await asker.tap("approve")
        pending = await desk.expect("present")
        into_before, _ = redis.stats()
        counts = {}
        stop = time.time() + seconds
        await asyncio.gather(*(reconnecting(host1.url, stop, counts) for _ in range(40)))
        elapsed = seconds
        into_after, _ = redis.stats()
        # Every host kept the backplane and the pending approval between the other two survives.
        for host in hosts:
            assert metric(host, "remote_modal_cluster_connected") == 1
        await desk.send({"type": "result", "id": pending["id"], "value": {"action": 0}})
        assert (await asker.expect("status", timeout=10))["text"] == "Approved by desk-3"
        # One address's sessions may cause 16 KiB at once and 4 KiB a second of deltas; the
        # rest of what Redis read is heartbeats, the approval and INFO (64 KiB of slack).
        into = into_after - into_before
        bound = 16384 + 4096 * elapsed + 65536
        welcomed = counts.get("welcome", 0)
        print(f"\n{welcomed} sessions from one address in {elapsed:.0f} s: Redis read {into} bytes "
              f"(bound {bound:.0f}; at 2.6 KB a session unbounded it would be {welcomed * 2600})")
        assert welcomed >= 20, counts
        assert into <= bound, (into, bound, counts)
        await asker.close()
        await desk.close()

    run(scenario())

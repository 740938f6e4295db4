"""Security round two, the host's half (docs/security.md): each attack an outside tester
found, over real sockets against a real modal-host, with a bystander that keeps working.
Distinct clients come from distinct loopback addresses (127.0.0.2, 127.0.0.3, ...)."""
import asyncio
import json
import os
import socket
import tempfile
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request

import websockets

from hosts import BINARY, ROOT, Host, OIDCProvider, free_port
from protocol_client import CAPABILITIES, ProtocolClient


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def run(coroutine, seconds=120):
    return asyncio.run(asyncio.wait_for(coroutine, seconds))


async def hello(url, source, name="flood", group=None, token=None, resume=None):
    ws = await websockets.connect(url, subprotocols=["remote-modal.v1"], local_addr=(source, 0))
    message = {"type": "hello", "protocol": 1, "client": {"kind": "pytest", "name": name}, "capabilities": CAPABILITIES}
    if group:
        message["client"]["group"] = group
    if token:
        message["token"] = token
    if resume:
        message["resume"] = {"session": resume}
    await ws.send(json.dumps(message))
    return ws


async def sign_in_works(client):
    """The bystander's check: the demo's sign-in alert still opens and answers."""
    await client.tap("signIn")
    present = await client.expect("present", timeout=10)
    await client.send({"type": "result", "id": present["id"], "value": {"action": 0, "textFields": ["", ""]}})
    assert (await client.expect("status", timeout=10))["text"] == "Sign in cancelled"


def test_a_session_flood_is_capped_per_address_and_memory_returns_after_retention():
    # The session cap is what is measured: the socket churn budget, which would close most of
    # these short-lived connections on arrival (test_a_connection_churn_flood_is_closed_on_arrival),
    # is off.
    host = Host("--retention", "3", "--socket-churn-per-address", "0")
    try:
        start = rss_kib(host.process.pid)

        async def scenario():
            bystander = await ProtocolClient.open(host.url, name="bystander")
            peak = 0
            refused = 0
            for round_ in range(25):
                # Four attacking addresses, 40 sessions each per round: hello, then close at once.
                async def one(source):
                    nonlocal refused
                    ws = await hello(host.url, source)
                    try:
                        reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
                        assert reply["type"] == "welcome"
                    except websockets.ConnectionClosed as closed:
                        assert closed.rcvd.code == 1013
                        refused += 1
                    await ws.close()
                await asyncio.gather(*(one(f"127.0.0.{2 + i % 4}") for i in range(160)))
                peak = max(peak, rss_kib(host.process.pid))
                if round_ % 5 == 0:
                    await sign_in_works(bystander)
            await sign_in_works(bystander)
            return peak, refused

        peak, refused = run(scenario(), 300)
        with urllib.request.urlopen(f"http://127.0.0.1:{host.port}/metrics", timeout=10) as reply:
            metrics = reply.read().decode()
        evicted = int(next(l for l in metrics.splitlines() if l.startswith("remote_modal_sessions_evicted_total ")).split()[1])
        alive = int(next(l for l in metrics.splitlines() if l.startswith("remote_modal_sessions ")).split()[1])
        expired = int(next(l for l in metrics.splitlines()
                           if l.startswith('remote_modal_sessions_total{event="expired"}')).split()[1])
        # 4,000 sessions were asked for; at most 64 per address (plus the bystander) stay alive:
        # every other one was evicted, or refused with 1013 when a busy host had not yet
        # retired the one it would evict (seen on a loaded machine: 3,552 evicted), or its 3 s
        # retention ran out first (a round that took longer on a loaded machine: 3,456
        # evicted). `expired` counts every ended session, evicted ones too. Most must be the
        # cap's work.
        assert refused + expired >= 4_000 - 4 * 64 - 10, (refused, metrics)
        assert evicted >= 2_000, (refused, metrics)
        assert alive <= 4 * 64 + 1
        assert peak < 300 * 1024, f"RSS peaked at {peak // 1024} MiB"
        time.sleep(3 + 10 + 2)  # retention, then the next trim
        after = rss_kib(host.process.pid)
        print(f"\nsession flood: RSS {start // 1024} MiB -> peak {peak // 1024} MiB -> {after // 1024} MiB after retention")
        assert after - start < 64 * 1024, f"RSS {start // 1024} -> {after // 1024} MiB"
    finally:
        host.stop()


def test_enabled_if_is_judged_on_the_answer_not_the_last_input():
    host = Host()
    try:
        async def scenario():
            client = await ProtocolClient.open(host.url)
            await client.tap("signIn")
            present = await client.expect("present")
            await client.send({"type": "input", "id": present["id"], "textFields": ["a@b", "pw"]})
            await client.expect("update")
            await client.send({"type": "result", "id": present["id"],
                               "value": {"action": 1, "textFields": ["no-at-sign", ""]}})
            error = await client.expect("error")
            assert error["code"] == "action_disabled", error
            # The modal stays: a fitting answer is accepted.
            await client.send({"type": "result", "id": present["id"],
                               "value": {"action": 1, "textFields": ["ann@example.com", "pw"]}})
            assert (await client.expect("status"))["text"] == "Signed in as ann@example.com"
            await client.close()
        run(scenario())
    finally:
        host.stop()


def test_host_served_web_authentication_resolves_only_through_its_callback():
    provider = OIDCProvider()
    host = Host("--oidc-issuer", provider.issuer, "--oidc-client-id", "remote-modal-demo")
    try:
        async def scenario():
            client = await ProtocolClient.open(host.url)
            await client.tap("login")
            present = await client.expect("present")
            callback = present["modal"]["callbackURL"]
            await client.send({"type": "result", "id": present["id"],
                               "value": {"url": "https://evil.example/x?code=FORGED"}})
            error = await client.expect("error")
            assert error["code"] == "bad_message" and "callback" in error["message"]
            # A HEAD with the right state does not consume the one-time callback.
            state = urllib.parse.parse_qs(urllib.parse.urlparse(present["modal"]["url"]).query)["state"][0]
            head = urllib.request.Request(f"{callback}?code=c1&state={state}", method="HEAD")
            try:
                urllib.request.urlopen(head, timeout=5)
                raise AssertionError("HEAD was accepted")
            except urllib.error.HTTPError as refused:
                assert refused.code == 405
            with urllib.request.urlopen(f"{callback}?code=c1&state={state}", timeout=5) as reply:
                assert reply.status == 200
            assert (await client.expect("status"))["text"] == "Logged in (code received)"
            await client.close()
        run(scenario())
    finally:
        host.stop()
        provider.stop()


def test_groups_and_names_come_from_the_token_file():
    folder = tempfile.mkdtemp(prefix="tokens-")
    path = os.path.join(folder, "tokens.json")
    with open(path, "w") as file:
        json.dump({"tokens": [
            {"token": "member-one-token-0001", "name": "Member One", "groups": ["lobby"]},
            {"token": "member-two-token-0002", "name": "Member Two", "groups": ["lobby"]},
            {"token": "visitor-token-000003", "name": "Visitor"},
        ]}, file)
    host = Host("--token-file", path)
    try:
        async def scenario():
            one = await ProtocolClient.open(host.url, name="Security Officer", group="lobby",
                                            token="member-one-token-0001")
            two = await ProtocolClient.open(host.url, name="whatever", group="lobby", token="member-two-token-0002")
            # A visitor claiming the lobby is refused with a bare 1008 `unauthorized`: the same
            # answer a wrong token gets, so the refusal does not tell a guesser its token is real.
            answers = []
            for token in ("visitor-token-000003", "no-such-token-00004"):
                ws = await hello(host.url, "127.0.0.2", name="Security Officer", group="lobby", token=token)
                try:
                    frame = await asyncio.wait_for(ws.recv(), 5)
                    raise AssertionError(f"the host answered {frame!r} before closing")
                except websockets.ConnectionClosed as closed:
                    answers.append((closed.rcvd.code, closed.rcvd.reason))
            assert answers == [(1008, "unauthorized"), (1008, "unauthorized")], answers
            # The approval shows the granted name, not the claimed one.
            await two.tap("approve")
            ask = await one.expect("present")
            assert ask["modal"]["message"] == "Member Two asks for approval"
            await one.send({"type": "result", "id": ask["id"], "value": {"action": 0}})
            status = await two.expect("status", text="Approved by Member One")
            assert status
            await one.close()
            await two.close()
        run(scenario())
    finally:
        host.stop()


def test_client_strings_cannot_forge_log_lines_and_typed_text_stays_out_of_info_logs():
    # Its own process at info level with stderr in a file (the shared Host helper logs at warning).
    log = tempfile.NamedTemporaryFile(prefix="host-log-", delete=False)
    port = free_port()
    process = subprocess.Popen([BINARY, "--port", str(port), "--log-level", "info"], cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=log)
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.05)

        async def scenario():
            url = f"ws://127.0.0.1:{port}/ws"
            evil = await ProtocolClient.open(url, name="evil\n12:00:00.000 info [host] session FORGED\u001b[2J",
                                             group="g\r\nx")
            await evil.tap("signIn")
            present = await evil.expect("present")
            await evil.send({"type": "input", "id": present["id"], "textFields": ["secret.person@example.com", "pw"]})
            await evil.expect("update")
            await evil.send({"type": "result", "id": present["id"],
                             "value": {"action": 1, "textFields": ["secret.person@example.com", "pw"]}})
            await evil.expect("status")
            await evil.close()
        run(scenario())
        time.sleep(0.3)
    finally:
        process.terminate()
        process.wait(timeout=10)
    text = open(log.name, encoding="utf-8").read()
    assert "\x1b" not in text
    assert not any(line.startswith("12:00:00.000 info [host] session FORGED") for line in text.splitlines())
    assert "\\n12:00:00.000 info [host] session FORGED\\u001b[2J" in text
    assert "secret.person@example.com" not in text


def test_errors_never_amplify_and_non_readers_share_one_outgoing_budget():
    host = Host("--max-outgoing-memory", str(1 << 20), "--rate", "100000", "--burst", "100000")
    try:
        async def echo_size():
            client = await ProtocolClient.open(host.url, name="probe")
            await client.send({"type": "X" * 60000})
            error = await client.expect("error")
            await client.close()
            return len(json.dumps(error))

        assert run(echo_size()) < 400  # a 60 KB unknown type gets a short error, not 120 KB

        start = rss_kib(host.process.pid)
        sockets = [non_reader(host.port, f"127.0.0.{2 + i % 4}", 4096, capabilities=["alert"]) for i in range(16)]
        # Each never reads and keeps asking for replies: unknown types (an error each, about
        # 150 bytes), with an accepted message every 20 so "20 errors in a row" never closes it.
        frame = masked(json.dumps({"type": "Y" * 64}).encode())
        ok = masked(json.dumps({"type": "event", "control": "nope"}).encode())
        deadline = time.time() + 20
        closed = 0
        while time.time() < deadline and closed < len(sockets):
            closed = 0
            for sock in sockets:
                try:
                    sock.sendall((frame * 19 + ok) * 50)
                except OSError:
                    closed += 1
        with urllib.request.urlopen(f"http://127.0.0.1:{host.port}/metrics", timeout=10) as reply:
            metrics = reply.read().decode()
        slow = int(next(l for l in metrics.splitlines() if l.startswith("remote_modal_slow_consumers_total ")).split()[1])
        grew = rss_kib(host.process.pid) - start
        print(f"\nnon-readers: {slow} closed for the outgoing budget, RSS +{grew // 1024} MiB")
        assert slow >= 1
        assert grew < 64 * 1024
        for sock in sockets:
            sock.close()

        async def bystander():
            client = await ProtocolClient.open(host.url, name="bystander")
            await sign_in_works(client)
            await client.close()
        run(bystander())
    finally:
        host.stop()


def masked(payload):
    mask = os.urandom(4)
    header = bytes([0x81])
    if len(payload) < 126:
        header += bytes([0x80 | len(payload)])
    elif len(payload) < 65536:
        header += bytes([0x80 | 126]) + len(payload).to_bytes(2, "big")
    else:
        header += bytes([0x80 | 127]) + len(payload).to_bytes(8, "big")
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def gauge(host, name):
    """One of the host's /metrics values."""
    with urllib.request.urlopen(f"http://127.0.0.1:{host.port}/metrics", timeout=10) as reply:
        lines = reply.read().decode().splitlines()
    return int(float(next(line for line in lines if line.startswith(name + " ")).split()[1]))


def non_reader(port, source, receive_buffer, capabilities=CAPABILITIES, resume=None):
    """A raw WebSocket client from `source` that says hello (joining session `resume`, if
    given) and never reads again, with a small receive buffer so its socket fills soon."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    sock.sendall(f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                 "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                 "Sec-WebSocket-Version: 13\r\n\r\n".encode())
    assert b" 101 " in sock.recv(256)  # the upgrade only: nothing is read after it
    hello = {"type": "hello", "protocol": 1, "client": {"kind": "x", "name": "n"}, "capabilities": capabilities}
    if resume:
        hello["resume"] = {"session": resume}
    sock.sendall(masked(json.dumps(hello).encode()))
    return sock


def test_a_full_outgoing_budget_cuts_the_clients_that_stopped_reading_not_a_reader():
    # Two attacker sessions each have a driver that runs sign-in cycles and a second
    # connection that never reads: the session's messages pile up for it. The drivers fill
    # the host-wide budget to within 16 KiB, then stop. The bystander, who reads everything,
    # signs in with a 30 KB e-mail: its status message does not fit. The holder of the most
    # unsent bytes must be cut (1008), not the bystander (before the fix, the connection
    # asking past the budget was the one closed).
    budget = 1 << 20
    # The gauge is read over a new HTTP connection per cycle, faster than the socket churn
    # budget allows one address (64 a second): off here, it is not what is measured.
    host = Host("--max-outgoing-memory", str(budget), "--rate", "100000", "--burst", "100000",
                "--socket-churn-per-address", "0")
    try:

        async def cycle(client, email=None):
            await client.tap("signIn")
            present = await client.expect("present", timeout=10)
            if email is None:
                await client.send({"type": "result", "id": present["id"], "value": {"action": 0, "textFields": ["", ""]}})
            else:
                await client.send({"type": "input", "id": present["id"], "textFields": [email, "pw"]})
                await client.expect("update", timeout=10)
                await client.send({"type": "result", "id": present["id"],
                                   "value": {"action": 1, "textFields": [email, "pw"]}})
            return await client.expect("status", timeout=10)

        async def scenario():
            drivers, sockets = [], []
            for index in range(2):
                source = f"127.0.0.{20 + index}"
                driver = await ProtocolClient.open(host.url, name=f"driver{index}", source=source)
                drivers.append(driver)
                sockets.append(non_reader(host.port, source, 2048, resume=driver.session))
            bystander = await ProtocolClient.open(host.url, name="bystander")
            await asyncio.sleep(0.3)
            # Fill: one driver cycle at a time (a few KB each) until the budget is nearly full.
            cycles = 0
            while gauge(host, "remote_modal_outgoing_queued_bytes") < budget - 16 * 1024:
                await cycle(drivers[cycles % 2])
                cycles += 1
                assert cycles < 5000, "the budget never filled"
            assert gauge(host, "remote_modal_slow_consumers_total") == 0
            email = "b" * 30_000 + "@example.com"
            status = await cycle(bystander, email)
            assert status["text"] == f"Signed in as {email}"
            assert gauge(host, "remote_modal_slow_consumers_total") == 1
            assert gauge(host, "remote_modal_outgoing_queued_bytes") < budget
            await sign_in_works(bystander)
            assert not [m for m in bystander.inbox if m["type"] == "error"]
            for sock in sockets:
                sock.close()
            for driver in drivers:
                await driver.close()
            await bystander.close()
            return cycles

        cycles = run(scenario())
        print(f"\nbudget filled in {cycles} attacker cycles; the bystander's big status cut a non-reader")
    finally:
        host.stop()


def test_a_big_broadcast_to_a_sessions_stalled_connections_never_cuts_its_reader():
    # A session's reader and 20 connections of the same session that never read (small
    # receive buffers: their sockets fill at once). Each sign-in with a 55 KB e-mail sends
    # the session an `update` and a `status` of 55 KB each, to all 21 connections in the
    # same turn: 1.1 MB each if every copy counted, past the 1 MiB budget. The reader must
    # get every status; only connections that stopped reading may be cut (before the fix,
    # the reader was cut in about half of the runs).
    budget = 1 << 20
    host = Host("--max-outgoing-memory", str(budget), "--rate", "100000", "--burst", "100000")
    try:

        async def scenario():
            reader = await ProtocolClient.open(host.url, name="reader", source="127.0.0.39")
            # A resume is honoured from the session's own address.
            sockets = [non_reader(host.port, "127.0.0.39", 2048, resume=reader.session) for _ in range(20)]
            await asyncio.sleep(0.5)
            email = "r" * 55_000 + "@example.com"
            for round_ in range(12):
                await reader.tap("signIn")
                present = await reader.expect("present", timeout=10)
                await reader.send({"type": "input", "id": present["id"], "textFields": [email, "pw"]})
                await reader.expect("update", timeout=10)
                await reader.send({"type": "result", "id": present["id"],
                                   "value": {"action": 1, "textFields": [email, "pw"]}})
                status = await reader.expect("status", timeout=10)
                assert status["text"] == f"Signed in as {email}", round_
                assert gauge(host, "remote_modal_outgoing_queued_bytes") <= budget
            assert not [m for m in reader.inbox if m["type"] == "error"]
            cut = gauge(host, "remote_modal_slow_consumers_total")
            await sign_in_works(reader)
            for sock in sockets:
                sock.close()
            await reader.close()
            return cut

        cut = run(scenario())
        print(f"\n12 big broadcasts to a reader and 20 stalled connections: {cut} stalled ones cut, the reader kept")
    finally:
        host.stop()

"""docs/protocol.md spoken by an independent client over a real socket against modal-host.

Run alone with: .venv/bin/python -m pytest -q Tests/python/test_protocol.py
"""
import asyncio
import os
import json

import pytest
import websockets

from protocol_client import ProtocolClient


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 60))


def test_hello_welcome_and_controls(demo_host):
    async def scenario():
        client = await ProtocolClient.open(demo_host.url)
        assert client.welcome["protocol"] == 1 and client.welcome["resumed"] is False
        assert client.welcome["retentionSeconds"] == 5
        assert len(client.session) == 22
        controls = await client.expect("controls")
        ids = [item["id"] for item in controls["items"]]
        assert "signIn" in ids and "country" in ids
        await client.close()
    run(scenario())


def test_sign_in_flow_with_live_updates(demo_host):
    async def scenario():
        client = await ProtocolClient.open(demo_host.url)
        await client.expect("controls")
        await client.tap("signIn")
        present = await client.expect("present")
        modal = present["modal"]
        assert modal["kind"] == "alert" and modal["title"] == "Sign in"
        assert [f["kind"] for f in modal["textFields"]] == ["email", "password"]
        assert [f["placeholder"] for f in modal["textFields"]] == ["e-mail", "password"]
        assert [(a["title"], a["style"], a["enabled"]) for a in modal["actions"]] == [
            ("Cancel", "cancel", True), ("Sign In", "default", False)]
        # The busy state may come before or after the present.
        busy = [m for m in client.inbox if m["type"] == "controls"][-1]
        if next(i for i in busy["items"] if i["id"] == "signIn")["busy"] is False:
            busy = await client.expect("controls")
        sign_in = next(i for i in busy["items"] if i["id"] == "signIn")
        assert sign_in["busy"] is True and sign_in["enabled"] is False
        # Answering with the disabled action, with fields its rule refuses, is refused; the
        # modal stays. (Fields the rule accepts are accepted: test_an_answer_is_judged_on_its_own_fields.)
        await client.send({"type": "result", "id": present["id"], "value": {"action": 1, "textFields": ["ann@example.com", ""]}})
        error = await client.expect("error")
        assert error["code"] == "bad_message"
        assert error["id"] == present["id"]
        await client.send({"type": "input", "id": present["id"], "textFields": ["ann@example.com", "pw"]})
        update = await client.expect("update", id=present["id"])
        assert update["actions"] == [{"enabled": True}, {"enabled": True}]
        await client.send({"type": "result", "id": present["id"], "value": {"action": 1, "textFields": ["ann@example.com", "pw"]}})
        dismiss = await client.expect("dismiss", id=present["id"])
        assert dismiss["reason"] == "resolved"
        status = await client.expect("status")
        assert status == {"type": "status", "seq": status["seq"], "level": "success", "text": "Signed in as ann@example.com"}
        await client.close()
    run(scenario())


def test_country_flow_and_cancel(demo_host):
    async def scenario():
        client = await ProtocolClient.open(demo_host.url)
        await client.tap("country")
        present = await client.expect("present")
        assert present["modal"]["kind"] == "actionSheet"
        assert present["modal"]["source"] == "country"
        assert [a["title"] for a in present["modal"]["actions"]] == ["France", "Japan", "Brazil", "Cancel"]
        await client.send({"type": "result", "id": present["id"], "value": {"action": 1}})
        assert (await client.expect("status"))["text"] == "Country: Japan"
        await client.tap("country")
        present = await client.expect("present")
        await client.send({"type": "result", "id": present["id"], "value": {"action": 3}})
        assert (await client.expect("status"))["text"] == "Country choice cancelled"
        await client.close()
    run(scenario())


def test_resume_after_dropped_connection_and_duplicate_answers(demo_host):
    async def scenario():
        client = await ProtocolClient.open(demo_host.url)
        await client.tap("signIn")
        present = await client.expect("present")
        client.ws.transport.abort()  # a dropped connection: no close frame
        await asyncio.sleep(0.2)
        again = await ProtocolClient.open(demo_host.url, resume=client.session)
        assert again.welcome["resumed"] is True and again.session == client.session
        controls = await again.expect("controls")
        assert next(i for i in controls["items"] if i["id"] == "signIn")["busy"] is True
        represent = await again.expect("present")
        assert represent["id"] == present["id"] and represent["modal"]["title"] == "Sign in"
        answer = {"type": "result", "id": present["id"], "value": {"action": 0, "textFields": ["", ""]}}
        await again.send(answer)
        await again.send(answer)
        dismiss = await again.expect("dismiss")
        assert dismiss["reason"] == "resolved"
        status = await again.expect("status")
        assert status["text"] == "Sign in cancelled"
        # The duplicate produced nothing: no error, no second status.
        with pytest.raises(asyncio.TimeoutError):
            await again.expect("status", timeout=0.5)
        assert not [m for m in again.inbox if m["type"] == "error"]
        await again.close()
    run(scenario())


def test_an_answer_is_judged_on_its_own_fields_straight_after_a_resume(demo_host):
    # Issue 28: the host forgets the password on resume; the answer's own fields pass the
    # rule, so it is accepted without an `input` first. The resume's end is marked.
    async def scenario():
        client = await ProtocolClient.open(demo_host.url)
        await client.tap("signIn")
        present = await client.expect("present")
        await client.send({"type": "input", "id": present["id"], "textFields": ["ann@example.com", "pw"]})
        await client.expect("update", id=present["id"])
        client.ws.transport.abort()
        await asyncio.sleep(0.2)
        again = await ProtocolClient.open(demo_host.url, resume=client.session, last_seq=client.last_seq)
        burst = []
        while not burst or burst[-1]["type"] != "resumed":
            burst.append(await again.next())
        assert [m["type"] for m in burst] == ["controls", "present", "update", "resumed"], burst
        assert burst[1]["modal"]["actions"][1]["enabled"] is False  # the password was forgotten
        assert burst[-1]["seq"] == max(m["seq"] for m in burst)
        await again.send({"type": "result", "id": present["id"],
                          "value": {"action": 1, "textFields": ["ann@example.com", "pw"]}})
        dismiss = await again.expect("dismiss", id=present["id"])
        assert dismiss["reason"] == "resolved"
        assert (await again.expect("status"))["text"] == "Signed in as ann@example.com"
        assert not [m for m in again.inbox if m["type"] == "error"]
        await again.close()
    run(scenario())


def test_statuses_after_the_last_seq_a_client_processed_come_again_on_its_resume(demo_host):
    # A network that stalls, then comes back: the status went out on the dead connection.
    # The resume names the last seq the client processed; the host sends the statuses after
    # it again (new seqs, after the pending modals). Without lastSeq (older clients, a
    # reloaded page) nothing is sent again.
    async def scenario():
        client = await ProtocolClient.open(demo_host.url)
        await client.tap("signIn")
        present = await client.expect("present")
        processed = present["seq"]
        await client.send({"type": "result", "id": present["id"], "value": {"action": 0, "textFields": ["", ""]}})
        await asyncio.sleep(0.3)  # the dismiss and the status go out; this client never reads them
        client.ws.transport.abort()
        await asyncio.sleep(0.2)
        again = await ProtocolClient.open(demo_host.url, resume=client.session, last_seq=processed)
        assert again.welcome["resumed"] is True
        status = await again.expect("status")
        assert (status["level"], status["text"]) == ("info", "Sign in cancelled") and status["seq"] > processed
        again.ws.transport.abort()
        await asyncio.sleep(0.2)
        plain = await ProtocolClient.open(demo_host.url, resume=client.session)
        assert plain.welcome["resumed"] is True
        with pytest.raises(asyncio.TimeoutError):
            await plain.expect("status", timeout=0.5)
        await plain.close()
    run(scenario())


def test_a_resume_naming_another_group_starts_a_new_session_in_that_group(demo_host):
    # A tab whose address gained ?group= resumed its old session and stayed alone in its old
    # group (its approval reached nobody).
    async def scenario():
        group = "join-" + os.urandom(4).hex()
        alone = await ProtocolClient.open(demo_host.url, name="alice")
        await alone.close()
        joined = await ProtocolClient.open(demo_host.url, name="alice", group=group, resume=alone.session)
        assert joined.welcome["resumed"] is False and joined.session != alone.session
        bob = await ProtocolClient.open(demo_host.url, name="bob", group=group)
        await joined.tap("approve")
        await joined.expect("present")
        asked = await bob.expect("present")
        assert asked["modal"]["message"] == "alice asks for approval"
        # The same group resumes as before.
        joined.ws.transport.abort()
        await asyncio.sleep(0.2)
        back = await ProtocolClient.open(demo_host.url, name="alice", group=group, resume=joined.session)
        assert back.welcome["resumed"] is True
        await back.close()
        await bob.close()
    run(scenario())


def test_closing_the_sign_in_alert_without_a_button_is_a_cancel(demo_host):
    # Escape in a client: `failure` `cancelled`, which the demo reports as the Cancel button does.
    async def scenario():
        client = await ProtocolClient.open(demo_host.url)
        await client.tap("signIn")
        present = await client.expect("present")
        await client.send({"type": "failure", "id": present["id"], "code": "cancelled"})
        assert (await client.expect("dismiss"))["reason"] == "resolved"
        status = await client.expect("status")
        assert (status["level"], status["text"]) == ("info", "Sign in cancelled")
        await client.close()
    run(scenario())


def test_closing_any_demo_modal_without_a_button_is_a_change_of_mind_not_an_error(demo_host):
    # Escape on the country sheet is its Cancel choice; on the contact sheet, a composer or
    # the approval alert it is an info status "WHAT cancelled" (it was error-level
    # "WHAT failed: cancelled"); the approval's cancel is heard by its whole group.
    async def escape(client, control):
        await client.tap(control)
        present = await client.expect("present")
        await client.send({"type": "failure", "id": present["id"], "code": "cancelled"})
        status = await client.expect("status")
        return status["level"], status["text"]

    async def scenario():
        client = await ProtocolClient.open(demo_host.url)
        assert await escape(client, "country") == ("info", "Country choice cancelled")
        assert await escape(client, "contact") == ("info", "Contact cancelled")
        await client.tap("contact")
        sheet = await client.expect("present")
        await client.send({"type": "result", "id": sheet["id"], "value": {"action": 0}})
        composer = await client.expect("present")
        assert composer["modal"]["kind"] == "mailComposer"
        await client.send({"type": "failure", "id": composer["id"], "code": "cancelled"})
        status = await client.expect("status")
        assert (status["level"], status["text"]) == ("info", "Mail cancelled")
        await client.close()

        group = "escape-" + os.urandom(4).hex()
        asker = await ProtocolClient.open(demo_host.url, name="asker", group=group)
        member = await ProtocolClient.open(demo_host.url, name="member", group=group)
        await asker.tap("approve")
        mine = await asker.expect("present")
        theirs = await member.expect("present")
        await member.send({"type": "failure", "id": theirs["id"], "code": "cancelled"})
        dismiss = await asker.expect("dismiss")  # the first answer wins: the asker's copy goes
        assert (dismiss["id"], dismiss["reason"]) == (mine["id"], "superseded")
        for client in (asker, member):
            status = await client.expect("status")
            assert (status["level"], status["text"]) == ("info", "Approval cancelled")
        assert not [m for m in asker.inbox + member.inbox if m["type"] == "error"]
        await asker.close()
        await member.close()
    run(scenario())


def test_a_members_failure_text_never_reaches_another_member_and_statuses_stay_short(demo_host):
    # One member answered the approval with `failure` `failed` and a message of its choosing:
    # the requester was shown "Approval failed: failed: <that text>" (up to 60 KB) as if the
    # host said it, and the rest of the group heard nothing.
    async def scenario():
        group = "failure-" + os.urandom(4).hex()
        asker = await ProtocolClient.open(demo_host.url, name="asker", group=group)
        member = await ProtocolClient.open(demo_host.url, name="member", group=group)
        third = await ProtocolClient.open(demo_host.url, name="third", group=group)
        await asker.tap("approve")
        await asker.expect("present")
        theirs = await member.expect("present")
        await third.expect("present")
        forged = "SECURITY: your account is locked, call +1-555-0100 " + "x" * 60_000
        await member.send({"type": "failure", "id": theirs["id"], "code": "failed", "message": forged})
        for client in (asker, member, third):
            status = await client.expect("status")
            assert (status["level"], status["text"]) == ("error", "Approval request ended: a screen could not show it")
        # A client's message quoted in its own flow's status is cut.
        await asker.tap("photo")
        picker = await asker.expect("present")
        await asker.send({"type": "failure", "id": picker["id"], "code": "failed", "message": "y" * 60_000})
        status = await asker.expect("status")
        assert status["text"].startswith("Photos failed: failed: yyy") and len(status["text"]) <= 241
        for client in (asker, member, third):
            await client.close()
    run(scenario())


def test_answer_to_another_sessions_modal_is_unknown(demo_host):
    async def scenario():
        owner = await ProtocolClient.open(demo_host.url, name="owner")
        intruder = await ProtocolClient.open(demo_host.url, name="intruder")
        await owner.tap("signIn")
        present = await owner.expect("present")
        await intruder.send({"type": "result", "id": present["id"], "value": {"action": 0, "textFields": ["", ""]}})
        error = await intruder.expect("error")
        assert error["code"] == "unknown_modal"
        await owner.send({"type": "result", "id": present["id"], "value": {"action": 0, "textFields": ["", ""]}})
        assert (await owner.expect("status"))["text"] == "Sign in cancelled"
        await owner.close()
        await intruder.close()
    run(scenario())


@pytest.mark.parametrize("raw,code", [
    ("not json", "bad_json"),
    ('{"type": 5}', "bad_message"),
    ('{"type": "result", "value": {}}', "bad_message"),
    ('{"type": "warp"}', "unknown_type"),
    ('{"type": "result", "id": "m999", "value": {"action": 0}}', "unknown_modal"),
    ('[' * 100 + ']' * 100, "bad_json"),
])
def test_bad_inputs_get_errors_and_the_connection_survives(demo_host, raw, code):
    async def scenario():
        client = await ProtocolClient.open(demo_host.url)
        await client.ws.send(raw)
        error = await client.expect("error")
        assert error["code"] == code, error
        await client.tap("country")
        assert (await client.expect("present"))["modal"]["kind"] == "actionSheet"
        await client.close()
    run(scenario())


def test_message_before_hello(demo_host):
    async def scenario():
        async with websockets.connect(demo_host.url) as ws:
            await ws.send(json.dumps({"type": "event", "control": "signIn"}))
            error = json.loads(await ws.recv())
            assert error["code"] == "hello_required" and "seq" not in error
    run(scenario())


def test_binary_frame_is_refused(demo_host):
    async def scenario():
        client = await ProtocolClient.open(demo_host.url)
        await client.ws.send(b"\x00\x01")
        assert (await client.expect("error"))["code"] == "bad_message"
        await client.close()
    run(scenario())


def test_metrics_and_healthz(demo_host):
    import urllib.request
    with urllib.request.urlopen(f"http://127.0.0.1:{demo_host.port}/healthz", timeout=10) as reply:
        assert reply.read() == b"ok\n"
    with urllib.request.urlopen(f"http://127.0.0.1:{demo_host.port}/metrics", timeout=10) as reply:
        text = reply.read().decode()
        assert "remote_modal_sessions" in text and "# TYPE remote_modal_answer_seconds histogram" in text


def test_group_approval_first_answer_wins(demo_host):
    async def scenario():
        asker = await ProtocolClient.open(demo_host.url, name="lobby-1", group="lobby")
        peer = await ProtocolClient.open(demo_host.url, name="lobby-2", group="lobby")
        outsider = await ProtocolClient.open(demo_host.url, name="kitchen", group="kitchen")
        await asker.tap("approve")
        mine = await asker.expect("present")
        theirs = await peer.expect("present")
        assert mine["modal"]["title"] == theirs["modal"]["title"] == "Approve request?"
        assert theirs["modal"]["message"] == "lobby-1 asks for approval"
        # The requester's own copy cannot approve (only withdraw); the others' can.
        assert [a["enabled"] for a in mine["modal"]["actions"]] == [False, True]
        assert [a["enabled"] for a in theirs["modal"]["actions"]] == [True, True]
        # ... and its copy says why: it waits for another screen; Reject withdraws it.
        assert mine["modal"]["actions"][0]["explanation"] == (
            "Waiting for another screen of the group to approve. Reject withdraws your request.")
        assert all("explanation" not in a for a in theirs["modal"]["actions"])
        await asker.send({"type": "result", "id": mine["id"], "value": {"action": 0}})
        assert (await asker.expect("error"))["code"] == "bad_message"
        await peer.send({"type": "result", "id": theirs["id"], "value": {"action": 0}})
        assert (await peer.expect("dismiss", id=theirs["id"]))["reason"] == "resolved"
        assert (await asker.expect("dismiss", id=mine["id"]))["reason"] == "superseded"
        assert (await asker.expect("status"))["text"] == "Approved by lobby-2"
        assert (await peer.expect("status"))["text"] == "Approved by lobby-2"
        # A late answer is not an error: the host repeats the dismiss.
        await asker.send({"type": "result", "id": mine["id"], "value": {"action": 1}})
        assert (await asker.expect("dismiss", id=mine["id"]))["reason"] == "superseded"
        with pytest.raises(asyncio.TimeoutError):
            await outsider.expect("present", timeout=0.5)
        # Alone in its group, the requester sees its request and can withdraw it.
        await outsider.tap("approve")
        alone = await outsider.expect("present")
        assert [a["enabled"] for a in alone["modal"]["actions"]] == [False, True]
        await outsider.send({"type": "result", "id": alone["id"], "value": {"action": 1}})
        # The requester's own Reject is a withdrawal, told as one (not "Rejected by kitchen").
        assert (await outsider.expect("status"))["text"] == "Request withdrawn by kitchen"
        for client in (asker, peer, outsider):
            await client.close()
    run(scenario())


def test_second_tap_while_busy_is_ignored(demo_host):
    async def scenario():
        client = await ProtocolClient.open(demo_host.url)
        await client.tap("country")
        first = await client.expect("present")
        await client.tap("country")
        with pytest.raises(asyncio.TimeoutError):
            await client.expect("present", timeout=0.5)
        await client.send({"type": "result", "id": first["id"], "value": {"action": 0}})
        assert (await client.expect("status"))["text"] == "Country: France"
        controls = [m for m in client.inbox if m["type"] == "controls"][-1]
        country = next(i for i in controls["items"] if i["id"] == "country")
        if country["busy"]:
            controls = await client.expect("controls")
            country = next(i for i in controls["items"] if i["id"] == "country")
        assert country == {"id": "country", "title": "Choose country", "style": "default", "enabled": True, "busy": False}
        await client.close()
    run(scenario())

"""The group approval when its requester's screen leaves for good (issue 32's cold trial: the
approvers' copies vanished after the retention with no word why)."""

import asyncio

from hosts import Host
from protocol_client import ProtocolClient


def with_a_pending_approval(scenario, retention=2):
    """Runs `scenario(ann, boss, present, url)` on a host with a `retention` s retention: Ann
    (group `team`) has asked for approval and Boss (the same group) has been shown it."""
    host = Host("--retention", str(retention))

    async def run():
        ann = await ProtocolClient.open(host.url, name="Ann", group="team")
        boss = await ProtocolClient.open(host.url, name="Boss", group="team")
        try:
            await ann.tap("approve")
            present = await boss.expect("present", timeout=10)
            assert present["modal"]["title"] == "Approve request?"
            await scenario(ann, boss, present, host.url)
        finally:
            await boss.close()

    try:
        asyncio.run(asyncio.wait_for(run(), 60))
    finally:
        host.stop()


def test_the_group_is_told_when_the_requesters_screen_left():
    async def scenario(ann, boss, present, url):
        await ann.close()
        # Nothing while Ann may still come back; once her session is gone, words, then the dismiss.
        status = await boss.expect("status", timeout=10)
        assert status["text"] == "Approval request ended: Ann's screen left", status
        dismiss = await boss.expect("dismiss", timeout=5)
        assert dismiss["id"] == present["id"]

    with_a_pending_approval(scenario)


def test_an_answered_approval_says_nothing_when_the_requester_leaves_later():
    async def scenario(ann, boss, present, url):
        await boss.send({"type": "result", "id": present["id"], "value": {"action": 0}})
        assert (await boss.expect("status", timeout=10))["text"] == "Approved by Boss"
        await ann.close()
        await asyncio.sleep(3.5)
        late = []
        while True:
            try:
                late.append(await boss.next(timeout=0.5))
            except (asyncio.TimeoutError, TimeoutError):
                break
        assert not any(m.get("type") == "status" and "screen left" in m.get("text", "") for m in late), late

    with_a_pending_approval(scenario)


def test_a_requester_cut_off_when_approved_is_told_the_outcome_when_it_comes_back():
    """The second cold trial: a requester whose network was cut while another screen approved
    came back to "This request ended" only; the outcome went to connected screens only."""
    async def scenario(ann, boss, present, url):
        await ann.expect("present", timeout=10)
        session, seen = ann.session, ann.last_seq
        await ann.close()                            # the requester's screen is cut off
        await asyncio.sleep(0.5)
        await boss.send({"type": "result", "id": present["id"], "value": {"action": 0}})
        assert (await boss.expect("status", timeout=10))["text"] == "Approved by Boss"
        back = await ProtocolClient.open(url, name="Ann", group="team", resume=session, last_seq=seen)
        try:
            assert back.session == session
            status = await back.expect("status", timeout=10)
            assert status["text"] == "Approved by Boss", status
        finally:
            await back.close()

    with_a_pending_approval(scenario, retention=30)

"""Three hosts and one Redis as local processes: group presentations across hosts,
first answer wins exactly once, Redis going away and coming back, a host dying."""
import asyncio
import os
import sys
import time

from conftest import EXPIRY, metric, start_host, wait_for

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
from protocol_client import ProtocolClient  # noqa: E402


def run(coroutine):
    return asyncio.run(coroutine)


def members_seen(host):
    return metric(host, "remote_modal_cluster_members_seen") or 0


async def next_of(client, type_, timeout=5):
    return await client.expect(type_, timeout=timeout)


async def status(client, timeout=5):
    return (await client.expect("status", timeout=timeout))["text"]


def test_browser_on_host1_is_approved_by_a_lobby_kiosk_on_another_host(hosts, kiosk_browser):
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait as wait

    host1, host2, host3 = hosts
    browser = kiosk_browser

    async def scenario():
        lobby2 = await ProtocolClient.open(hosts[1].url, name="lobby-2", group="lobby")
        lobby3 = await ProtocolClient.open(hosts[2].url, name="lobby-3", group="lobby")
        await asyncio.to_thread(wait_for, lambda: members_seen(host1) >= 2, 10, "host1 to see the lobby")
        browser.get(f"http://127.0.0.1:{host1.port}/?name=supervisor&group=lobby")
        wait(browser, 10).until(
            lambda d: d.find_element(By.ID, "connection").get_attribute("data-state") == "open")
        wait(browser, 10).until(EC.element_to_be_clickable((By.CSS_SELECTOR, "[data-control=approve]"))).click()
        # One on each other host's lobby client, and the requester's own copy (Approve disabled).
        # The controls are re-rendered as the state changes: a found element may go stale.
        wait(browser, 10, ignored_exceptions=[StaleElementReferenceException]).until(
            lambda d: d.find_element(By.CSS_SELECTOR, "[data-control=approve]").get_attribute("aria-busy") == "true")
        present2 = await lobby2.expect("present", timeout=5)
        present3 = await lobby3.expect("present", timeout=5)
        assert present2["modal"]["message"] == "supervisor asks for approval"
        assert present3["modal"]["title"] == "Approve request?"
        await lobby2.send({"type": "result", "id": present2["id"], "value": {"action": 0}})
        assert (await lobby2.expect("dismiss", id=present2["id"]))["reason"] == "resolved"
        assert (await lobby3.expect("dismiss", id=present3["id"]))["reason"] == "superseded"
        wait(browser, 10).until(
            lambda d: "Approved by lobby-2" in [t.text for t in d.find_elements(By.CSS_SELECTOR, "#toasts .toast")])
        wait(browser, 10).until(lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog.modal[open]"))
        # The same answer again (a client re-sending after a reconnect) and a late one from
        # the loser: neither is accepted a second time.
        await lobby2.send({"type": "result", "id": present2["id"], "value": {"action": 0}})
        assert (await lobby2.expect("dismiss", id=present2["id"]))["reason"] == "resolved"
        await lobby3.send({"type": "result", "id": present3["id"], "value": {"action": 1}})
        assert (await lobby3.expect("dismiss", id=present3["id"]))["reason"] == "superseded"
        await asyncio.sleep(0.5)
        toasts = [t.text for t in browser.find_elements(By.CSS_SELECTOR, "#toasts .toast")]
        assert toasts.count("Approved by lobby-2") == 1
        assert not any(t.startswith("Rejected by") for t in toasts)
        await lobby2.close()
        await lobby3.close()

    run(scenario())


def test_two_answers_racing_from_two_hosts_exactly_one_wins_1000_times(hosts):
    host1, host2, host3 = hosts
    rounds = int(os.environ.get("CLUSTER_RACE_ROUNDS", "1000"))

    async def scenario():
        requester = await ProtocolClient.open(host1.url, name="asker", group="race",
                                              capabilities=["actionSheet"])
        racer2 = await ProtocolClient.open(host2.url, name="racer-2", group="race")
        racer3 = await ProtocolClient.open(host3.url, name="racer-3", group="race")
        await asyncio.to_thread(wait_for, lambda: members_seen(host1) >= 2, 10, "host1 to see the racers")
        wins = {"racer-2": 0, "racer-3": 0}
        for _ in range(rounds):
            await requester.tap("approve")
            present2, present3 = await asyncio.gather(racer2.expect("present"), racer3.expect("present"))
            await asyncio.gather(
                racer2.send({"type": "result", "id": present2["id"], "value": {"action": 0}}),
                racer3.send({"type": "result", "id": present3["id"], "value": {"action": 0}}))
            dismiss2, dismiss3 = await asyncio.gather(
                racer2.expect("dismiss", id=present2["id"]), racer3.expect("dismiss", id=present3["id"]))
            reasons = sorted([dismiss2["reason"], dismiss3["reason"]])
            assert reasons == ["resolved", "superseded"], reasons
            winner = "racer-2" if dismiss2["reason"] == "resolved" else "racer-3"
            text = await status(requester)
            assert text == f"Approved by {winner}", text
            wins[winner] += 1
        assert sum(wins.values()) == rounds
        # Nothing further arrived for the requester: every answer was delivered once.
        await asyncio.sleep(0.3)
        extra = []
        while True:
            try:
                extra.append(await requester.next(timeout=0.1))
            except asyncio.TimeoutError:
                break
        assert not [m for m in extra if m["type"] == "status"], extra
        for client in (requester, racer2, racer3):
            await client.close()
        return wins

    started = time.time()
    wins = run(scenario())
    print(f"\n{rounds} races in {time.time() - started:.1f}s: {wins}")


def test_redis_stopped_and_restarted(redis, hosts):
    host1, host2, _ = hosts

    async def scenario():
        local = await ProtocolClient.open(host1.url, name="local-only")
        asker = await ProtocolClient.open(host1.url, name="asker", group="outage")
        member = await ProtocolClient.open(host2.url, name="member-2", group="outage")
        await asyncio.to_thread(wait_for, lambda: members_seen(host1) >= 1, 10, "host1 to see member-2")

        redis.kill()
        await asyncio.to_thread(wait_for, lambda: metric(host1, "remote_modal_cluster_connected") == 0, 10,
                                "host1 to notice Redis is gone")
        # A local flow is unaffected.
        await local.tap("country")
        present = await local.expect("present")
        await local.send({"type": "result", "id": present["id"], "value": {"action": 1}})
        assert await status(local) == "Country: Japan"
        # A cluster flow fails fast with a clear error.
        started = time.time()
        await asker.tap("approve")
        text = await status(asker, timeout=3)
        assert text == "Approval failed: the cluster backplane is unreachable", text
        assert time.time() - started < 1.5

        redis.start()
        await asyncio.to_thread(wait_for, lambda: metric(host1, "remote_modal_cluster_connected") == 1, 15,
                                "host1 to reconnect")
        await asyncio.to_thread(wait_for, lambda: members_seen(host1) >= 1, 10, "host1 to see member-2 again")
        await asker.tap("approve")
        present = await member.expect("present")
        await member.send({"type": "result", "id": present["id"], "value": {"action": 0}})
        assert await status(asker) == "Approved by member-2"
        for client in (local, asker, member):
            await client.close()

    run(scenario())


def test_a_killed_hosts_members_vanish_within_the_expiry(redis, hosts):
    host1 = hosts[0]
    doomed = start_host(redis, "host4")
    try:
        async def scenario():
            asker = await ProtocolClient.open(host1.url, name="asker", group="doomed")
            witness = await ProtocolClient.open(host1.url, name="witness", group="doomed")
            victim = await ProtocolClient.open(doomed.url, name="victim", group="doomed")
            before = members_seen(host1)
            await asyncio.to_thread(wait_for, lambda: members_seen(host1) >= before + 1 or
                                    metric(host1, "remote_modal_cluster_hosts_seen") >= 3, 10, "host4 to join")
            await asker.tap("approve")
            mine = await witness.expect("present")        # the witness's copy (the requester's cannot approve)
            await victim.expect("present")
            seen = members_seen(host1)
            doomed.process.kill()
            doomed.process.wait(timeout=10)
            killed = time.time()
            await asyncio.to_thread(wait_for, lambda: members_seen(host1) == seen - 1, EXPIRY * 3,
                                    "the dead host's member to drop out")
            assert time.time() - killed <= EXPIRY + EXPIRY / 3 + 1
            # The requester still gets the next answer: the member left on its host.
            await witness.send({"type": "result", "id": mine["id"], "value": {"action": 0}})
            assert await status(asker) == "Approved by witness"
            await asker.close()
            await witness.close()

        run(scenario())
    finally:
        doomed.stop()

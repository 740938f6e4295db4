"""The scale-out harness: clients through nginx in front of two modal-host processes.

Run by scripts/harness (local processes) or by the compose `tests` service. Needs
HARNESS_URL (nginx); HARNESS_HOST1/HARNESS_HOST2 (host addresses, for their metrics) and
HARNESS_HOST1_PID (to kill one host) are given by the local harness.
"""
import asyncio
import json
import os
import re
import subprocess
import sys
import urllib.request
import uuid

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
from protocol_client import ProtocolClient  # noqa: E402

BASE = os.environ.get("HARNESS_URL", "http://127.0.0.1:8080")
WS = BASE.replace("http", "ws", 1) + "/ws"
HOSTS = [h for h in (os.environ.get("HARNESS_HOST1"), os.environ.get("HARNESS_HOST2")) if h]
ROOT = os.environ.get("HARNESS_ROOT", os.path.dirname(os.path.dirname(HERE)))


def run(coroutine, seconds=120):
    return asyncio.run(asyncio.wait_for(coroutine, seconds))


def sessions_on(host):
    with urllib.request.urlopen(f"http://{host}/metrics") as reply:
        return int(re.search(r"^remote_modal_sessions (\d+)$", reply.read().decode(), re.M).group(1))


async def country_round(client, pick=1):
    await client.tap("country")
    present = await client.expect("present", timeout=10)
    await client.send({"type": "result", "id": present["id"], "value": {"action": pick}})
    return await client.expect("status", timeout=10)


@pytest.mark.skipif(not HOSTS, reason="needs the hosts' addresses for their metrics")
def test_the_hosts_share_the_redis_backplane():
    import time
    deadline = time.time() + 15
    while True:
        pages = []
        for host in HOSTS:
            with urllib.request.urlopen(f"http://{host}/metrics") as reply:
                pages.append(reply.read().decode())
        joined = [re.search(r"^remote_modal_cluster_connected 1$", page, re.M) and
                  re.search(r"^remote_modal_cluster_hosts_seen 1$", page, re.M) for page in pages]
        if all(joined):
            return
        assert time.time() < deadline, "the hosts did not join one cluster through Redis"
        time.sleep(0.2)


def test_sticky_resume_of_twenty_clients_through_nginx():
    async def scenario():
        keys = [uuid.uuid4().hex for _ in range(20)]
        clients = [await ProtocolClient.open(WS, name=f"c{i}", affinity=key) for i, key in enumerate(keys)]
        if HOSTS:
            counts = [sessions_on(host) for host in HOSTS]
            assert all(count > 0 for count in counts), f"all clients on one host: {counts}"
        pending = []
        for client in clients:
            await client.tap("country")
            pending.append(await client.expect("present", timeout=10))
        for client in clients:
            client.ws.transport.abort()
        await asyncio.sleep(0.3)
        resumed = []
        for client, key, present in zip(clients, keys, pending):
            again = await ProtocolClient.open(WS, name=client.welcome["session"][:4], resume=client.session, affinity=key)
            assert again.welcome["resumed"] is True, "nginx sent a reconnect to the other host"
            represent = await again.expect("present", timeout=10)
            assert represent["id"] == present["id"]
            answer = {"type": "result", "id": present["id"], "value": {"action": 0}}
            await again.send(answer)
            await again.send(answer)
            resumed.append(again)
        for again in resumed:
            status = await again.expect("status", timeout=10)
            assert status["text"] == "Country: France"
            with pytest.raises(asyncio.TimeoutError):
                await again.expect("status", timeout=0.3)
            assert not [m for m in again.inbox if m["type"] == "error"]
            await again.close()
    run(scenario())


def test_scripted_kiosks_approve_through_nginx(tmp_path):
    kiosk = os.path.join(ROOT, ".build", "debug", "kiosk")
    if not os.path.exists(kiosk):
        pytest.skip("no kiosk build here; in the compose harness the kiosk1 and kiosk2 services run this flow")
    scripts = os.path.join(ROOT, "deploy", "harness")
    answerer = subprocess.Popen([kiosk, WS, "--name", "lobby-2", "--group", "harness-lobby", "--script",
                                 os.path.join(scripts, "approve-answer.json")], stdout=subprocess.PIPE, text=True)
    # The group presentation reaches the sessions connected when it is asked: let the
    # answerer join first (the asker's script also waits 5 s, for the compose harness).
    answerer_log = []
    for line in answerer.stdout:
        answerer_log.append(line)
        if '"welcome"' in line:
            break
    asker = subprocess.Popen([kiosk, WS, "--name", "lobby-1", "--group", "harness-lobby", "--script",
                              os.path.join(scripts, "approve-ask.json")], stdout=subprocess.PIPE, text=True)
    out_answerer, _ = answerer.communicate(timeout=90)
    out_answerer = "".join(answerer_log) + out_answerer
    out_asker, _ = asker.communicate(timeout=90)
    assert answerer.returncode == 0, out_answerer
    assert asker.returncode == 0, out_asker
    for out in (out_answerer, out_asker):
        statuses = [json.loads(line) for line in out.splitlines() if '"status"' in line and '"level"' in line]
        assert any(s["text"] == "Approved by lobby-2" for s in statuses), out


def test_browser_through_nginx():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.get(BASE + "/")
        wait = WebDriverWait(driver, 15)
        wait.until(lambda d: d.find_element(By.ID, "connection").get_attribute("data-state") == "open")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-control=signIn]:not([disabled])"))
        driver.find_element(By.CSS_SELECTOR, "[data-control=signIn]").click()
        dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "dialog.modal[open]"))
        email, password = dialog.find_elements(By.TAG_NAME, "input")
        email.send_keys("nginx@example.com")
        password.send_keys("pw")
        button = dialog.find_element(By.CSS_SELECTOR, "button.preferred")
        wait.until(lambda d: button.is_enabled())
        button.click()
        wait.until(lambda d: "Signed in as nginx@example.com" in [t.text for t in d.find_elements(By.CSS_SELECTOR, ".toast")])
        # Log in through the provider: its redirect must reach the host that minted the nonce.
        if driver.find_elements(By.CSS_SELECTOR, "[data-control=login]"):
            main = driver.current_window_handle
            driver.find_element(By.CSS_SELECTOR, "[data-control=login]").click()
            wait.until(lambda d: len(d.window_handles) == 2)
            driver.switch_to.window(next(h for h in driver.window_handles if h != main))
            wait.until(lambda d: d.find_element(By.NAME, "sub")).send_keys("alice")
            driver.find_element(By.XPATH, "//button[text()='Authorize']").click()
            driver.switch_to.window(main)
            wait.until(lambda d: "Logged in (code received)" in [t.text for t in d.find_elements(By.CSS_SELECTOR, ".toast")])
    finally:
        driver.quit()


@pytest.mark.skipif(not os.environ.get("HARNESS_HOST1_PID"), reason="needs the local harness to kill a host")
def test_killing_a_host_moves_its_clients_to_the_other():
    async def scenario():
        keys = [uuid.uuid4().hex for _ in range(12)]
        clients = [await ProtocolClient.open(WS, name=f"k{i}", affinity=key) for i, key in enumerate(keys)]
        os.kill(int(os.environ["HARNESS_HOST1_PID"]), 15)
        await asyncio.sleep(1.5)
        outcomes = []
        for client, key in zip(clients, keys):
            again = await ProtocolClient.open(WS, resume=client.session, affinity=key)
            outcomes.append(again.welcome["resumed"])
            # The demo works again for everyone, on whichever host they now have.
            status = await country_round(again, pick=2)
            assert status["text"] == "Country: Brazil"
            await again.close()
        assert False in outcomes, "no client was on the killed host"
        assert True in outcomes, "no client kept its session on the surviving host"
    run(scenario())

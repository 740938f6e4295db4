"""Cluster suite fixtures: one redis-server (own port, no persistence) and three
modal-host processes joined through it, all local processes started and killed by PID."""
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
from hosts import Host, ROOT, free_port  # noqa: E402

# Short membership expiry so the dead-host test is quick (hosts heartbeat every third of it).
EXPIRY = 1.5


class Redis:
    """Debian's redis-server on a loopback port, without persistence."""

    def __init__(self, port=None):
        self.port = port or free_port()
        self.process = None
        self.start()

    def start(self):
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not come up")

    def kill(self):
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}/0"


def metrics(host):
    with urllib.request.urlopen(f"http://127.0.0.1:{host.port}/metrics", timeout=2) as reply:
        return reply.read().decode()


def metric(host, name):
    match = re.search(rf"^{name} (\S+)$", metrics(host), re.M)
    return float(match.group(1)) if match else None


def wait_for(condition, timeout=10, what="condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def start_host(redis, name):
    return Host("--web-root", os.path.join(ROOT, "web"), "--cluster", redis.url, "--cluster-expiry", str(EXPIRY),
                "--instance", name, "--rate", "100000", "--burst", "100000", "--retention", "30")


@pytest.fixture(scope="module")
def redis():
    server = Redis()
    yield server
    server.kill()


@pytest.fixture(scope="module")
def hosts(redis):
    started = [start_host(redis, f"host{n}") for n in (1, 2, 3)]
    for host in started:
        wait_for(lambda: metric(host, "remote_modal_cluster_connected") == 1, what="cluster connected")
    yield started
    for host in started:
        host.stop()


@pytest.fixture
def kiosk_browser():
    """Headless Chromium, set up as the browser suite does."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1280,900"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    yield driver
    driver.quit()

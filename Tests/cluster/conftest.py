"""Cluster suite fixtures: one redis-server (own port, no persistence, a password) and three
modal-host processes joined through it (the Redis password and the cluster key each from a
file), all local processes started and killed by PID."""
import os
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
from hosts import Host, ROOT, free_port  # noqa: E402

# Short membership expiry so the dead-host test is quick (hosts heartbeat every third of it).
EXPIRY = 1.5


SECRETS = tempfile.mkdtemp(prefix="remote-modal-cluster-")


def secret_file(name, text):
    """A file only this user reads, in the suite's own folder."""
    path = os.path.join(SECRETS, name)
    with open(path, "w") as out:
        out.write(text + "\n")
    os.chmod(path, 0o600)
    return path


# Every host of the suite signs with this key and logs in to Redis with this password.
KEY_FILE = secret_file("cluster.key", secrets.token_hex(32))
PASSWORD = secrets.token_hex(16)
PASSWORD_FILE = secret_file("redis.password", PASSWORD)


class Redis:
    """Debian's redis-server on a loopback port, without persistence; `password` sets
    `requirepass`, `extra` adds arguments (ACL users)."""

    def __init__(self, port=None, password=PASSWORD, extra=()):
        self.port = port or free_port()
        self.password = password
        self.extra = list(extra)
        self.process = None
        self.start()

    def start(self):
        auth = ["--requirepass", self.password] if self.password else []
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             *auth, *self.extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(64).startswith((b"+PONG", b"-NOAUTH")):
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
        """Without the password: the hosts read it from `PASSWORD_FILE`."""
        return f"redis://127.0.0.1:{self.port}/0"

    def cli(self, *args):
        """redis-cli as the default user (the password through the environment, not argv)."""
        env = dict(os.environ, REDISCLI_AUTH=self.password) if self.password else None
        return subprocess.run(["redis-cli", "-p", str(self.port), *args], capture_output=True, text=True,
                              timeout=10, env=env, check=True).stdout

    def stats(self):
        """INFO stats: total bytes Redis read and wrote."""
        fields = dict(line.split(":", 1) for line in self.cli("INFO", "stats").splitlines() if ":" in line)
        return int(fields["total_net_input_bytes"]), int(fields["total_net_output_bytes"])


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


def start_host(redis, name, url=None, security=None, **options):
    """A host in the cluster; `security` replaces the key and password flags."""
    if security is None:
        security = ["--cluster-key-file", KEY_FILE] + (["--cluster-password-file", PASSWORD_FILE]
                                                        if redis.password else [])
    return Host("--web-root", os.path.join(ROOT, "web"), "--cluster", url or redis.url, *security,
                "--cluster-expiry", str(EXPIRY), "--instance", name, "--rate", "100000", "--burst", "100000",
                "--retention", "30", **options)


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

"""Start a real modal-host on a free loopback port."""
import os
import socket
import itertools
import subprocess
import time
import urllib.request


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("MODAL_HOST_BIN", os.path.join(ROOT, ".build", "debug", "modal-host"))
# The level test hosts log at, into artifacts/hosts/ (`info` or `debug` to follow a failure).
LOG_LEVEL = os.environ.get("MODAL_TEST_LOG_LEVEL", "warning")


LOGS = os.path.join(ROOT, "artifacts", "hosts")
_log_numbers = itertools.count(1)


def log_file(name):
    """A new file for a process's standard error under artifacts/hosts/, kept for whoever reads
    a failed run. NB: not a pipe: nobody reads a pipe while the process runs, and a host that
    logged past the pipe's 64 KiB would block in its next log line, service thread and all."""
    os.makedirs(LOGS, exist_ok=True)
    return open(os.path.join(LOGS, f"{name}-{os.getpid()}-{next(_log_numbers)}.log"), "w+b")


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Host:
    def __init__(self, *args, wrapper=(), log_level=None, cwd=ROOT):
        """`wrapper`: a command the host runs under (for example `prlimit --nofile=1024 --`);
        `cwd`: the folder it is started in."""
        self.port = free_port()
        self.stderr = log_file(f"modal-host-{self.port}")
        self.process = subprocess.Popen(
            [*wrapper, BINARY, "--port", str(self.port), "--log-level", log_level or LOG_LEVEL, *args],
            cwd=cwd, stdout=subprocess.DEVNULL, stderr=self.stderr)
        deadline = time.time() + 15
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=1) as reply:
                    if reply.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("modal-host did not come up")

    @property
    def url(self):
        return f"ws://127.0.0.1:{self.port}/ws"

    def log(self):
        """What the host wrote to its standard error so far."""
        self.stderr.flush()
        with open(self.stderr.name, "rb") as written:
            return written.read().decode(errors="replace")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()



class OIDCProvider:
    """oidc-provider-mock from PyPI, on a free loopback port."""

    def __init__(self):
        self.port = free_port()
        binary = os.path.join(ROOT, ".venv", "bin", "oidc-provider-mock")
        self.process = subprocess.Popen([binary, "--port", str(self.port)], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(f"{self.issuer}/.well-known/openid-configuration", timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("oidc-provider-mock did not come up")

    @property
    def issuer(self):
        return f"http://127.0.0.1:{self.port}"

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


def readable_size(size):
    """Bytes as the demo, the page and the kiosk say them: units of 1,000, one decimal below
    100 ("820 bytes", "9.4 MB", "300 kB"). Written out here, not imported from the host, so a
    test reading the words checks them."""
    if size == 1:
        return "1 byte"
    if size < 1000:
        return f"{size} bytes"
    units = ["kB", "MB", "GB", "TB"]
    value, unit = size / 1000, 0
    while value >= 1000 and unit < len(units) - 1:
        value, unit = value / 1000, unit + 1
    if value < 100:
        tenths = int(value * 10 + 0.5)
        if tenths >= 10000 and unit < len(units) - 1:
            return f"1 {units[unit + 1]}"
        text = f"{tenths // 10}" if tenths % 10 == 0 else f"{tenths // 10}.{tenths % 10}"
        return f"{text} {units[unit]}"
    rounded = int(value + 0.5)
    if rounded >= 1000 and unit < len(units) - 1:
        return f"1 {units[unit + 1]}"
    return f"{rounded} {units[unit]}"


def received_photos(count, size):
    """The demo's status after a photo upload: "Received 1 photo, 9.4 MB"."""
    return f"Received {count} {'photo' if count == 1 else 'photos'}, {readable_size(size)}"

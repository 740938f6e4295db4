"""The kiosk in a real terminal: tmux runs it against a real modal-host; send-keys types as
a person would and capture-pane reads the screen."""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
from hosts import Host, ROOT, received_photos  # noqa: E402

# KIOSK_BIN runs the suite against another build (to see a new test fail on the old kiosk).
KIOSK = os.environ.get("KIOSK_BIN") or os.path.join(ROOT, ".build", "debug", "kiosk")


class Tmux:
    def __init__(self, name, command):
        self.name = name
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
        subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "100", "-y", "30", command], check=True)
        # Everything the program writes to the pane also goes to a file, so a screen shown
        # for less than one capture-pane poll (a fast upload's progress) can still be seen.
        handle, self.output_path = tempfile.mkstemp(prefix=f"{name}-", suffix=".out")
        os.close(handle)
        subprocess.run(["tmux", "pipe-pane", "-o", "-t", name, f"cat >> {self.output_path}"], check=True)

    def keys(self, *keys):
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)

    def screen(self):
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True).stdout

    def wait_for(self, text, seconds=10):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if text in self.screen():
                return
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared on screen:\n{self.screen()}")

    def output(self):
        """What the program has written to the pane so far, its escape sequences removed."""
        with open(self.output_path, "rb") as file:
            raw = file.read().decode("utf-8", errors="replace")
        return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]|\x1b[=>]", "", raw)

    def wait_for_output(self, text, seconds=10):
        """Waits until the program has written `text`, even if it was on screen only briefly."""
        deadline = time.time() + seconds
        while time.time() < deadline:
            if text in self.output():
                return
            time.sleep(0.1)
        raise AssertionError(f"{text!r} was never written to the terminal:\n{self.screen()}")

    def alive(self):
        return subprocess.run(["tmux", "has-session", "-t", self.name], capture_output=True).returncode == 0

    def close(self):
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)
        try:
            os.unlink(self.output_path)
        except FileNotFoundError:
            pass


@pytest.fixture
def host():
    server = Host("--retention", "30")
    yield server
    server.stop()


@pytest.fixture
def kiosk(host):
    terminal = Tmux(f"kiosk-test-{os.getpid()}-{time.monotonic_ns()}", f"{KIOSK} ws://127.0.0.1:{host.port}/ws --name lobby-1 --group lobby")
    terminal.wait_for("| connected")
    yield terminal
    terminal.close()


def test_sign_in_with_masked_password(kiosk):
    kiosk.wait_for("[1] Sign in")
    kiosk.keys("1")
    kiosk.wait_for("== Sign in ==")
    kiosk.keys("ann@example.com", "Enter", "secret")
    kiosk.wait_for("password: ******")
    assert "secret" not in kiosk.screen()
    kiosk.keys("Enter")
    kiosk.wait_for("[2] Sign In")
    assert "[2] Sign In (disabled)" not in kiosk.screen()
    kiosk.keys("2")
    kiosk.wait_for("SUCCESS: Signed in as ann@example.com")


def test_contact_us_mail(kiosk):
    kiosk.wait_for("[2] Contact us")
    kiosk.keys("2")
    kiosk.wait_for("== Contact us ==")
    kiosk.keys("1")
    kiosk.wait_for("== New mail ==")
    assert "To: support@example.com" in kiosk.screen()
    for _ in range(4):
        kiosk.keys("Enter")
    # Enter starts a new line in the body; Tab leaves it for the choices.
    kiosk.keys("Tab")
    kiosk.keys("3")
    kiosk.wait_for("Mail sent")


def test_host_restart_reconnects_and_works_again(host, kiosk):
    kiosk.wait_for("[3] Choose country")
    port = host.port
    host.stop()
    kiosk.wait_for("| reconnecting")
    restarted = Host.__new__(Host)
    restarted.port = port
    restarted.process = subprocess.Popen([os.path.join(ROOT, ".build", "debug", "modal-host"), "--port", str(port),
                                          "--log-level", "warning"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        kiosk.wait_for("| connected", seconds=30)
        kiosk.wait_for("[3] Choose country")
        kiosk.keys("3")
        kiosk.wait_for("== Choose a country ==")
        kiosk.keys("2")
        kiosk.wait_for("Country: Japan")
    finally:
        restarted.stop()


def test_ctrl_c_restores_the_terminal(kiosk):
    # One press only says how: a passer-by's single Ctrl-C left a shell on a public screen.
    kiosk.keys("C-c")
    kiosk.wait_for("Press Ctrl-C again within 3 seconds to close the kiosk.")
    time.sleep(0.5)
    assert kiosk.alive()
    kiosk.keys("C-c")
    deadline = time.time() + 5
    while kiosk.alive() and time.time() < deadline:
        time.sleep(0.1)
    assert not kiosk.alive()


def test_group_approval_with_a_scripted_kiosk(host, kiosk, tmp_path):
    # The scripted kiosk asks; the person at the interactive one approves.
    script = tmp_path / "ask.json"
    script.write_text(json.dumps([
        {"tap": "approve", "timeout": 30},
        {"status": "Approved by", "timeout": 30},
    ]))
    scripted = subprocess.Popen([KIOSK, f"ws://127.0.0.1:{host.port}/ws", "--name", "lobby-2", "--group", "lobby",
                                 "--script", str(script)], stdout=subprocess.PIPE, text=True)
    kiosk.wait_for("== Approve request? ==", seconds=15)
    assert "lobby-2 asks for approval" in kiosk.screen()
    # Escape does not end the group's request for everyone (it has no cancel choice): the
    # dialog stays and says why, as in the browser.
    kiosk.keys("Escape")
    kiosk.wait_for("Please choose one of the options.", seconds=5)
    assert "== Approve request? ==" in kiosk.screen()
    kiosk.keys("1")
    kiosk.wait_for("INFO: Approved by lobby-1", seconds=15)
    out, _ = scripted.communicate(timeout=20)
    assert scripted.returncode == 0, out
    events = [json.loads(line) for line in out.splitlines()]
    assert {"event": "status", "level": "info", "text": "Approved by lobby-1"} in events
    assert events[-1] == {"event": "done"}


def test_scripted_kiosk_fails_when_the_modal_never_comes(host, tmp_path):
    script = tmp_path / "never.json"
    script.write_text(json.dumps([{"expect": "Nothing like this", "timeout": 1}]))
    result = subprocess.run([KIOSK, f"ws://127.0.0.1:{host.port}/ws", "--name", "k", "--script", str(script)],
                            capture_output=True, text=True, timeout=20)
    assert result.returncode == 1
    assert json.loads(result.stdout.splitlines()[-1]) == {"event": "timeout", "step": 0}


def test_photo_upload_from_paths_with_progress(kiosk, tmp_path):
    first = tmp_path / "a.png"
    second = tmp_path / "b.png"
    # Both start as a PNG does: the host judges a photo by its bytes.
    first.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 300)
    second.write_bytes(b"\x89PNG\r\n\x1a\n tiny")
    kiosk.wait_for("[4] Send photos")
    kiosk.keys("4")
    kiosk.wait_for("== Choose photos ==")
    kiosk.keys(f"{first}, {second}", "Enter")
    kiosk.keys("2")
    kiosk.wait_for(received_photos(2, first.stat().st_size + second.stat().st_size))


def test_resize_redraws(kiosk):
    kiosk.wait_for("[1] Sign in")
    subprocess.run(["tmux", "resize-window", "-t", kiosk.name, "-x", "40", "-y", "20"], check=True)
    time.sleep(0.5)
    lines = kiosk.screen().splitlines()
    assert any("[1] Sign in" in line for line in lines)
    assert all(len(line) <= 40 for line in lines)


def test_a_field_error_is_shown_under_its_field_and_goes_when_it_is_edited(kiosk):
    kiosk.wait_for("[2] Contact us")
    kiosk.keys("2")
    kiosk.wait_for("== Contact us ==")
    kiosk.keys("1")
    kiosk.wait_for("== New mail ==")
    kiosk.keys(", bob")
    kiosk.wait_for("To: support@example.com, bob")
    for _ in range(5):
        kiosk.keys("Tab")
    kiosk.keys("3")
    kiosk.wait_for("^ Not a mail address: bob")
    lines = kiosk.screen().splitlines()
    # Under the field, which has the focus again; nothing above the title.
    at = next(i for i, line in enumerate(lines) if line.startswith("> To: support@example.com, bob"))
    assert lines[at + 1] == "    ^ Not a mail address: bob", "\n".join(lines)
    assert lines[2] == "== New mail ==", "\n".join(lines)
    assert sum("Not a mail address" in line for line in lines) == 1
    kiosk.keys("BSpace")
    deadline = time.time() + 5
    while "Not a mail address" in kiosk.screen() and time.time() < deadline:
        time.sleep(0.1)
    assert "Not a mail address" not in kiosk.screen(), kiosk.screen()
    for _ in range(4):
        kiosk.keys("BSpace")
    for _ in range(5):
        kiosk.keys("Tab")
    kiosk.keys("3")
    kiosk.wait_for("Mail sent")


def test_a_pickers_size_error_goes_when_the_path_changes(kiosk, tmp_path):
    big = tmp_path / "big.png"
    big.write_bytes(b"\0" * (11 * 1024 * 1024))
    (tmp_path / "tiny.png").write_bytes(b"\x89PNG\r\n\x1a\n tiny")
    kiosk.wait_for("[4] Send photos")
    kiosk.keys("4")
    kiosk.wait_for("== Choose photos ==")
    kiosk.keys(str(big), "Enter")
    kiosk.keys("2")
    kiosk.wait_for("; these are 1 file, ")
    lines = kiosk.screen().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(f"> Files: {big}"))
    assert lines[at + 1].startswith("    ^ Up to 3 files, ") and "these are 1 file, " in lines[at + 1], "\n".join(lines)
    # The focus is on the path: edit it to another file; what was said about the big one goes.
    for _ in "big.png":
        kiosk.keys("BSpace")
    kiosk.keys("tiny.png")
    kiosk.wait_for(f"> Files: {tmp_path / 'tiny.png'}")
    assert "these are" not in kiosk.screen(), kiosk.screen()
    kiosk.keys("Enter", "2")
    kiosk.wait_for("Received 1 photo,")

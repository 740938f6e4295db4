"""Issue #32's kiosk findings, each as a person meets it in a real terminal (tmux), against a
scripted host (exact messages, what the kiosk sends recorded) or a real modal-host: escape
sequences, a late key, a hidden form, the words after an outage, a silent host, repeated
notices, what a picker reads, the default after a refusal, the sign-in screen, a flood."""
import base64
import hashlib
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

import pytest
import websockets

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
from grey_picture import GreyPicture  # noqa: E402
from kiosk_setup import host_and_kiosk  # noqa: E402
from hosts import ROOT, Host, free_port  # noqa: E402
from test_kiosk import KIOSK, Tmux  # noqa: E402
from test_kiosk_options import ScriptedHost  # noqa: E402
from test_kiosk_unattended import start_host  # noqa: E402

ARTIFACTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "artifacts",
                         "terminal")


def capture(terminal, name):
    """Keeps what the person saw, for a reader of the test run."""
    os.makedirs(ARTIFACTS, exist_ok=True)
    with open(os.path.join(ARTIFACTS, f"finding-{name}.txt"), "w") as out:
        out.write(terminal.screen())


@pytest.fixture
def scripted():
    host = ScriptedHost()
    terminal = Tmux(f"kiosk-findings-{os.getpid()}-{time.monotonic_ns()}",
                    f"{KIOSK} ws://127.0.0.1:{host.port}/ws --name lobby-1")
    terminal.wait_for("| connected")
    assert host.ready.wait(10)
    yield host, terminal
    terminal.close()
    host.close()


def wait_for_words(terminal, text, seconds=10):
    """Waits until `text` is on screen, whatever the wrapping."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        if text in " ".join(terminal.screen().split()):
            return
        time.sleep(0.1)
    raise AssertionError(f"{text!r} never appeared on screen:\n{terminal.screen()}")


def sent(host, type_, seconds):
    """Every message of a type the kiosk sent within `seconds`."""
    found = []
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            message = host.inbox.get(timeout=0.1)
        except Exception:
            continue
        if message["type"] == type_:
            found.append(message)
    return found


def test_escape_sequences_move_the_caret_and_never_type(scripted):
    host, kiosk = scripted
    host.present("m1", {"kind": "alert", "title": "Your e-mail", "message": None,
                        "textFields": [{"kind": "email", "placeholder": "e-mail", "text": None}],
                        "actions": [{"title": "Cancel", "style": "cancel", "enabled": True, "preferred": False},
                                    {"title": "OK", "style": "default", "enabled": True, "preferred": True}]})
    kiosk.wait_for("== Your e-mail ==")
    kiosk.keys("xbobexample.com")
    kiosk.wait_for("e-mail: xbobexample.com_")
    # Home, then Delete removes the x; Right three times and the @ goes where it belongs.
    kiosk.keys("Home", "DC", "Right", "Right", "Right", "@")
    # Keys a field has no use for: ignored, never typed; F1 does not cancel.
    kiosk.keys("F1", "F2", "F5", "F10", "F12", "IC", "PPage", "NPage", "End", "Left", "Right")
    kiosk.keys("-l", "\x1b[99~")  # a sequence nobody knows
    kiosk.keys("-l", "\x1b[1;5D")  # Ctrl-Left
    kiosk.keys("-l", "\x1bOQ")  # F2 in SS3 form
    kiosk.keys("End")
    kiosk.wait_for("e-mail: bob@example.com_")
    time.sleep(0.5)
    screen = kiosk.screen()
    capture(kiosk, "escape-sequences")
    assert "~" not in screen, screen
    assert "== Your e-mail ==" in screen, "F1 or another key cancelled the dialog"
    kiosk.keys("Enter", "Enter")
    result = host.expect("result")
    assert result["value"] == {"action": 1, "textFields": ["bob@example.com"]}


def test_a_lone_escape_still_cancels(scripted):
    host, kiosk = scripted
    host.present("m1", {"kind": "alert", "title": "Leave?", "message": None, "textFields": [],
                        "actions": [{"title": "Cancel", "style": "cancel", "enabled": True, "preferred": False}]})
    kiosk.wait_for("== Leave? ==")
    kiosk.keys("Escape")
    assert host.expect("result")["value"] == {"action": 0, "textFields": []}


def test_escape_after_the_answer_went_keeps_the_dialog_and_sends_no_second_answer(scripted):
    """The host has Japan and has not confirmed it yet. Escape closed the dialog and sent a
    cancel: a second, different answer (protocol.md 12.4) that the host ignores, so the
    person believed they had cancelled what the host then acted on."""
    host, kiosk = scripted
    host.present("m1", {"kind": "actionSheet", "title": "Choose a country", "message": None, "source": None,
                        "actions": [{"title": "France", "style": "default", "enabled": True},
                                    {"title": "Japan", "style": "default", "enabled": True},
                                    {"title": "Cancel", "style": "cancel", "enabled": True}]})
    kiosk.wait_for("== Choose a country ==")
    kiosk.keys("2")
    assert host.expect("result")["value"] == {"action": 1}
    kiosk.wait_for("(answer “Japan” sent, waiting for the host)")
    kiosk.wait_for("Waiting for the host to confirm your answer.")
    assert "Esc stops waiting" not in kiosk.screen(), "offered a way out that would not undo it"
    kiosk.keys("Escape")
    wait_for_words(kiosk, "Your answer has gone to the host and cannot be taken back: "
                          "waiting for the host to confirm it.")
    capture(kiosk, "escape-after-the-answer-went")
    assert "== Choose a country ==" in kiosk.screen(), kiosk.screen()
    assert sent(host, "failure", 1.5) == [], "Escape sent a second answer"
    # The host confirms: the dialog goes, and the words about it with it.
    host.send({"type": "dismiss", "id": "m1", "reason": "resolved"})
    deadline = time.time() + 10
    while "== Choose a country ==" in kiosk.screen() and time.time() < deadline:
        time.sleep(0.1)
    screen = kiosk.screen()
    assert "== Choose a country ==" not in screen, screen
    assert "cannot be taken back" not in screen, screen


def test_a_key_for_a_screen_that_went_is_dropped_with_a_word(scripted):
    host, kiosk = scripted
    host.send({"type": "controls", "items": [
        {"id": "signIn", "title": "Sign in", "style": "default", "enabled": True, "busy": False},
        {"id": "contact", "title": "Contact us", "style": "default", "enabled": True, "busy": False}]})
    kiosk.wait_for("[1] Sign in")
    host.present("approval", {"kind": "alert", "title": "Approve request?", "message": "lobby-2 asks",
                              "textFields": [],
                              "actions": [{"title": "Approve", "style": "default", "enabled": True},
                                          {"title": "Reject", "style": "destructive", "enabled": True}]})
    kiosk.wait_for("== Approve request? ==")
    time.sleep(3.5)  # the person reads it; nothing pressed
    # Another screen of the group answers it; the person's "1" (Approve) lands just after.
    host.send({"type": "dismiss", "id": "approval", "reason": "resolved"})
    kiosk.keys("1")
    kiosk.wait_for("That key came as the screen changed, so nothing was done.")
    capture(kiosk, "late-key")
    assert sent(host, "event", 1.5) == [], "the late 1 tapped Sign in"
    assert "== Sign in ==" not in kiosk.screen()
    # Pressed again on purpose, it acts.
    kiosk.keys("1")
    assert host.expect("event")["control"] == "signIn"


def test_no_input_while_the_form_cannot_be_shown(scripted):
    host, kiosk = scripted
    host.present("m1", {"kind": "mailComposer", "to": [], "cc": [], "bcc": [], "subject": "Hi", "body": "",
                        "isHTML": False})
    kiosk.wait_for("== New mail ==")
    # 40x11: Mail fits 40x12 without its key hint (test_kiosk_second_trial.py).
    subprocess.run(["tmux", "resize-window", "-t", kiosk.name, "-x", "40", "-y", "11"], check=True)
    kiosk.wait_for("Screen too small")
    kiosk.wait_for("Keys are ignored")
    capture(kiosk, "too-small")
    # Esc alone still acts (it cancels: test_kiosk_cold_trial.py); no other key reaches the form.
    kiosk.keys("bob@example.com", "Tab", "Enter")
    time.sleep(0.5)
    subprocess.run(["tmux", "resize-window", "-t", kiosk.name, "-x", "100", "-y", "30"], check=True)
    kiosk.wait_for("== New mail ==")
    assert "> To: _" in kiosk.screen(), kiosk.screen()
    assert sent(host, "result", 1) == [], "the unseen mail was discarded"


def test_an_unreachable_host_shows_its_address_and_why():
    port = free_port()
    terminal = Tmux(f"kiosk-unreachable-{os.getpid()}-{time.monotonic_ns()}",
                    f"{KIOSK} ws://127.0.0.1:{port}/ws --name lobby-1")
    try:
        terminal.wait_for(f"Cannot reach the host at ws://127.0.0.1:{port}/ws: nothing answers there", seconds=15)
        terminal.wait_for("(connection refused)")
        capture(terminal, "unreachable")
        assert "| reconnecting" in terminal.screen()
    finally:
        terminal.close()


def test_an_answer_given_offline_is_said_kept_until_it_is_sent():
    with host_and_kiosk("offline", proxied=True) as (host, proxy, terminal):
        terminal.wait_for("[3] Choose country")
        terminal.keys("3")
        terminal.wait_for("== Choose a country ==")
        proxy.cut(refuse_seconds=6)
        terminal.wait_for("| reconnecting", seconds=10)
        terminal.keys("2")
        terminal.wait_for("(answer “Japan” kept: it goes to the host as soon as it is back)")
        capture(terminal, "answer-kept-offline")
        assert "(answer sent" not in terminal.screen()
        terminal.wait_for("Country: Japan", seconds=30)


def test_back_after_the_retention_it_says_the_session_expired_not_that_the_host_restarted():
    port = free_port()
    host = start_host_with(port, "--retention", "2")
    terminal = Tmux(f"kiosk-expired-{os.getpid()}-{time.monotonic_ns()}",
                    f"{KIOSK} ws://127.0.0.1:{port}/ws --name lobby-1 --group lobby")
    try:
        terminal.wait_for("[3] Choose country", seconds=15)
        terminal.keys("3")
        terminal.wait_for("== Choose a country ==")
        host.stop()
        terminal.wait_for("| reconnecting", seconds=10)
        time.sleep(5)  # longer than the session's 2 s retention
        host = start_host_with(port, "--retention", "2")
        terminal.wait_for("| connected", seconds=15)
        terminal.wait_for("The session expired while the host could not be reached: \u201cChoose a country\u201d was cancelled.")
        capture(terminal, "session-expired")
        assert "The host restarted" not in terminal.screen()
    finally:
        terminal.close()
        host.stop()


def start_host_with(port, *flags):
    server = Host.__new__(Host)
    server.port = port
    binary = os.path.join(ROOT, ".build", "debug", "modal-host")
    server.process = subprocess.Popen([binary, "--port", str(port), "--log-level", "warning", *flags],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return server


def test_a_silent_host_is_said_not_answering_and_the_person_is_not_blamed():
    port = free_port()
    host = start_host(port)
    terminal = Tmux(f"kiosk-silent-{os.getpid()}-{time.monotonic_ns()}",
                    f"{KIOSK} ws://127.0.0.1:{port}/ws --name lobby-1 --group lobby")
    try:
        terminal.wait_for("[1] Sign in")
        terminal.keys("1")
        terminal.wait_for("== Sign in ==")
        host.process.send_signal(signal.SIGSTOP)  # the host stalls, its TCP connection open
        # Typed, then Enter on Sign In at once: the host has not said yet, nobody is blamed.
        terminal.keys("ann@example.com", "Enter", "pw", "Enter", "Enter")
        terminal.wait_for("Checking with the host whether \u201cSign In\u201d can be chosen...")
        terminal.keys("1")  # Cancel: an answer, which the host answers at once when it is alive
        # The heartbeat comes first: 4 s of silence with the dialog open, then 5 s without
        # a reply to its ping (before the answer's own 10 s reply watchdog).
        terminal.wait_for("the host is not answering (nothing heard for 9 s)", seconds=20)
        capture(terminal, "silent-host")
        assert "not available with what is filled in" not in terminal.screen(), terminal.screen()
        host.process.send_signal(signal.SIGCONT)
        terminal.wait_for("| connected", seconds=20)
        terminal.wait_for("Controls (press a number):", seconds=20)
    finally:
        try:
            host.process.send_signal(signal.SIGCONT)
        except ProcessLookupError:
            pass
        terminal.close()
        host.stop()


def test_identical_notices_collapse_with_a_count_and_a_time(scripted):
    host, kiosk = scripted
    for _ in range(6):
        host.send({"type": "status", "level": "info", "text": "Photos cancelled"})
    kiosk.wait_for("Photos cancelled  (6 times, last at ")
    capture(kiosk, "notices")
    assert kiosk.screen().count("Photos cancelled") == 1
    assert re.search(r"last at \d\d:\d\d:\d\d\)", kiosk.screen())


@pytest.mark.parametrize("path", ["/proc/self/status", "/dev/zero", "/sys/kernel/mm/transparent_hugepage/enabled"])
def test_a_picker_reads_ordinary_files_only_and_says_what_it_refused(scripted, path):
    host, kiosk = scripted
    host.present("p1", {"kind": "photoPicker", "selectionLimit": 1, "filter": ["image"], "maxBytes": 10485760},
                 uploadWindow=8)
    kiosk.wait_for("== Choose photos ==")
    kiosk.keys(path, "Enter", "Enter")
    place = "/" + path.split("/")[1]
    kiosk.wait_for(f"Not sent: {path} is in {place}, a system place;")
    capture(kiosk, "picker-" + place.strip("/"))
    assert sent(host, "upload", 1) == []


def test_after_a_refused_file_enter_chooses_other_files(tmp_path):
    with host_and_kiosk("refused") as (host, _, kiosk):
        notes = tmp_path / "notes.txt"
        notes.write_bytes(b"not a photo\n" * 100)
        kiosk.wait_for("[4] Send photos")
        kiosk.keys("4")
        kiosk.wait_for("== Choose photos ==")
        kiosk.keys(str(notes), "Enter", "Enter")
        # Refused on this disk, by its bytes, before anything goes: the path stays to change,
        # the reason under it (never a "Try again" that could only fail again).
        kiosk.wait_for(f"> Files: {notes}_")
        kiosk.wait_for("    ^ Not sent: \u201cnotes.txt\u201d does not start as any known format; only images are "
                       "accepted here.")
        capture(kiosk, "refused-file")
        assert "Try again" not in kiosk.screen()


def test_the_sign_in_screen_enter_does_not_cancel_and_refuses_a_script_address(scripted):
    host, kiosk = scripted
    host.present("w1", {"kind": "webAuthentication", "url": "https://id.example.com/authorize?client_id=k",
                        "callbackURL": "https://kiosk.example/cb"})
    kiosk.wait_for("== Sign in with your provider ==")
    kiosk.keys("Enter")
    kiosk.wait_for("Sign in with the address above on a phone or a computer")
    assert sent(host, "failure", 1) == [], "Enter cancelled the sign-in"
    kiosk.keys("1")
    assert host.expect("failure")["code"] == "cancelled"
    host.send({"type": "dismiss", "id": "w1", "reason": "resolved"})
    kiosk.wait_for("Controls (press a number):")
    host.present("w2", {"kind": "webAuthentication", "url": "javascript:alert(document.cookie)",
                        "callbackURL": "https://kiosk.example/cb"})
    kiosk.wait_for("its address is not a web address")
    capture(kiosk, "script-address")
    assert "javascript:" not in kiosk.screen()


def kiosk_pid(terminal):
    return int(subprocess.run(["tmux", "display-message", "-p", "-t", terminal.name, "#{pane_pid}"],
                              capture_output=True, text=True, check=True).stdout.strip())


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def test_a_hostile_flood_stays_bounded_in_memory_and_ctrl_c_works(scripted):
    host, kiosk = scripted
    pid = kiosk_pid(kiosk)
    before = rss_kib(pid)
    text = "flood " + "x" * 200

    async def flood():
        # The kiosk may drop a link that floods it faster than it can handle (close 1008
        # "client overwhelmed", docs/security.md): then it says so, which is checked below.
        for index in range(100_000):
            host.seq += 1
            if index % 256 == 0:
                # A sender that never yields starves its own reader: the kiosk's close frame
                # went unread and its 5 s wait for the answer ended in a reset.
                await asyncio.sleep(0)
            try:
                await host.connection.send(json.dumps({"type": "status", "level": "info", "text": f"{text} {index}",
                                                       "seq": host.seq}))
            except websockets.ConnectionClosed as closed:
                return closed.rcvd.reason if closed.rcvd else ""
        return None

    import asyncio
    dropped = asyncio.run_coroutine_threadsafe(flood(), host.loop).result(120)
    if dropped is not None:
        assert dropped == "client overwhelmed", dropped
        kiosk.wait_for("The host sent messages too fast")
    peak = rss_kib(pid)
    print(f"kiosk RSS before {before} KiB, after 100,000 statuses of 220 bytes: {peak} KiB")
    # The kiosk before the client core grew by about 48 MB here (and Ctrl-C waited behind the flood).
    assert peak - before < 40 * 1024, f"grew by {peak - before} KiB"
    kiosk.keys("C-c", "C-c")                # twice: one press only says how (issue 32)
    deadline = time.time() + 5
    while kiosk.alive() and time.time() < deadline:
        time.sleep(0.1)
    assert not kiosk.alive(), "Ctrl-C did not end the kiosk under a flood"


def picture(rows, path, light_glyphs):
    """The captured rows as a dark terminal shows them: a glyph's half is its foreground
    (light), the rest the background (dark); 4 pixels a module."""
    width = max(len(row) for row in rows)
    image = GreyPicture(width * 4, len(rows) * 8)
    for y, row in enumerate(rows):
        for x, character in enumerate(row):
            top = character in "\u2588\u2580"
            bottom = character in "\u2588\u2584"
            for half, lit in ((0, top), (1, bottom)):
                if lit == light_glyphs:
                    image.fill((x * 4, y * 8 + half * 4, x * 4 + 4, y * 8 + half * 4 + 4), 255)
    framed = GreyPicture(image.width + 32, image.height + 32)
    framed.paste(image, (16, 16))
    framed.save(path)


def test_without_colour_the_qr_code_decodes_on_a_dark_terminal(tmp_path):
    # zbarimg comes from Debian's zbar-tools, which scripts/bootstrap installs.
    host = ScriptedHost()
    url = "https://id.example.com/authorize?client_id=kiosk&state=abc123&redirect_uri=https%3A%2F%2Fk.example%2Fcb"
    terminal = Tmux(f"kiosk-qr-nocolor-{os.getpid()}-{time.monotonic_ns()}",
                    f"env NO_COLOR=1 {KIOSK} ws://127.0.0.1:{host.port}/ws --name lobby-1")
    try:
        subprocess.run(["tmux", "resize-window", "-t", terminal.name, "-x", "120", "-y", "50"], check=True)
        terminal.wait_for("| connected")
        assert host.ready.wait(10)
        host.present("w1", {"kind": "webAuthentication", "url": url, "callbackURL": "https://k.example/cb"})
        terminal.wait_for(url)
        time.sleep(0.4)
        lines = terminal.screen().splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("http")) + 1
        end = next(i for i, line in enumerate(lines) if "[1] Cancel" in line)
        rows = [line for line in lines[start:end] if line.strip() or any(c in line for c in "\u2588\u2580\u2584")]
        capture(terminal, "qr-no-colour")
        image = tmp_path / "qr.png"
        # A dark terminal: glyphs light. The code must decode as the person's phone sees it.
        picture(rows, image, light_glyphs=True)
        os.makedirs(ARTIFACTS, exist_ok=True)
        subprocess.run(["cp", str(image), os.path.join(ARTIFACTS, "finding-qr-no-colour.png")], check=True)
        decoded = subprocess.run(["zbarimg", "--quiet", "--raw", str(image)], capture_output=True, text=True)
        assert decoded.stdout.strip() == url, f"zbarimg: {decoded.stdout!r} {decoded.stderr!r}"
    finally:
        terminal.close()
        host.close()


def cpu_seconds(pid):
    """The process's user and system CPU time so far, from /proc (clock ticks to seconds)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class FloodingHost:
    """A hostile host on a raw socket (the websockets package cannot send fast enough): it
    welcomes every connection, then sends present (an alert, or a kind no client knows), status
    and dismiss as fast as the socket takes them until `stop_at`, on every connection the kiosk
    makes meanwhile; after it, a reconnecting kiosk is only welcomed. It counts the kiosk's
    hellos and `failure` replies."""

    def __init__(self):
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(8)
        self.port = self.server.getsockname()[1]
        self.stop_at = time.time() + 3600
        self.rounds = 0
        self.hellos = 0
        self.failures = 0
        self.connections = []
        self.closed = threading.Event()
        self.threads = [threading.Thread(target=self.accept, daemon=True)]
        self.threads[0].start()

    @staticmethod
    def frame(message):
        data = json.dumps(message).encode()
        if len(data) < 126:
            return struct.pack("!BB", 0x81, len(data)) + data
        return struct.pack("!BBH", 0x81, 126, len(data)) + data

    def spawn(self, target, *args):
        thread = threading.Thread(target=target, args=args, daemon=True)
        self.threads.append(thread)
        thread.start()

    def accept(self):
        while not self.closed.is_set():
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            if self.closed.is_set():
                connection.close()
                return
            self.connections.append(connection)
            self.spawn(self.serve, connection)

    def serve(self, connection):
        try:
            request = b""
            while b"\r\n\r\n" not in request:
                data = connection.recv(4096)
                if not data:
                    return                          # gone before its request (or shut down)
                request += data
            key = re.search(rb"(?i)sec-websocket-key: *(\S+)", request).group(1)
            accept = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
            connection.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                               b"Sec-WebSocket-Accept: " + accept + b"\r\nSec-WebSocket-Protocol: remote-modal.v1\r\n\r\n")
            self.spawn(self.drain, connection)
            seq = 1
            connection.sendall(self.frame({"type": "welcome", "protocol": 1, "session": "c2NyaXB0ZWQtaG9zdC1zZXNzaW9u",
                                           "resumed": False, "retentionSeconds": 60, "seq": seq}))
            alert = {"kind": "alert", "title": "Flood", "message": "m" * 100,
                     "actions": [{"title": "OK", "style": "default"}]}
            while time.time() < self.stop_at and not self.closed.is_set():
                batch = []
                for _ in range(200):
                    self.rounds += 1
                    index = self.rounds
                    modal = alert if index % 2 else {"kind": "hologram", "title": "Flood"}
                    for message in ({"type": "present", "id": f"f{index}", "modal": modal},
                                    {"type": "status", "level": "info", "text": f"flood {index}"},
                                    {"type": "dismiss", "id": f"f{index}", "reason": "disposed"}):
                        seq += 1
                        batch.append(self.frame({**message, "seq": seq}))
                connection.sendall(b"".join(batch))
        except OSError:
            pass

    def drain(self, connection):
        """Reads what the kiosk sends until it closes, counting hellos and failures (masked
        frames, parsed just enough)."""
        buffer = b""
        try:
            while True:
                data = connection.recv(65536)
                if not data:
                    return
                buffer += data
                while len(buffer) >= 2:
                    length = buffer[1] & 0x7F
                    start = 2
                    if length == 126:
                        if len(buffer) < 4:
                            break
                        length = struct.unpack("!H", buffer[2:4])[0]
                        start = 4
                    elif length == 127:
                        if len(buffer) < 10:
                            break
                        length = struct.unpack("!Q", buffer[2:10])[0]
                        start = 10
                    if len(buffer) < start + 4 + length:
                        break
                    mask = buffer[start:start + 4]
                    payload = bytes(b ^ mask[i % 4] for i, b in enumerate(buffer[start + 4:start + 4 + length]))
                    buffer = buffer[start + 4 + length:]
                    if b'"type":"hello"' in payload:
                        self.hellos += 1
                    elif b'"type":"failure"' in payload:
                        self.failures += 1
        except OSError:
            pass

    def close(self):
        """Stops every thread before any descriptor is freed: a thread left reading or
        accepting on a closed socket's number served the next test's own listener, which the
        kernel gave that number (the kiosk there got this host's welcome)."""
        self.closed.set()
        for connection in [self.server, *self.connections]:
            try:
                connection.shutdown(socket.SHUT_RDWR)   # wakes accept, recv and sendall
            except OSError:
                pass
        for thread in self.threads:
            thread.join(5)
        assert not any(thread.is_alive() for thread in self.threads), "a flooding thread did not stop"
        self.server.close()
        for connection in self.connections:
            connection.close()


def test_after_a_hostile_flood_the_kiosk_is_idle_again_at_once():
    # The outside attack after round three: present, status and dismiss as fast as a socket
    # takes them left the kiosk at 100% CPU for about 20 s after the flood (a backlog of small
    # frames handled one by one, one `failure unsupported` sent for every unknown present).
    host = FloodingHost()
    kiosk = Tmux(f"kiosk-flood-cpu-{os.getpid()}", f"{KIOSK} ws://127.0.0.1:{host.port}/ws --name lobby-1")
    try:
        kiosk.wait_for("| connected")
        pid = kiosk_pid(kiosk)
        host.stop_at = time.time() + 8
        time.sleep(8.5)
        start = cpu_seconds(pid)
        time.sleep(2)
        used = cpu_seconds(pid) - start
        print(f"\n{host.rounds} present/status/dismiss rounds in 8 s, {host.hellos} hellos, {host.failures} failures "
              f"sent; kiosk CPU over the 2 s from 0.5 s after: {used:.2f} s")
        capture(kiosk, "flood-cpu")
        # An idle kiosk uses next to nothing; before the fix it used 0.5 to 1.9 s here. A quarter
        # of one core leaves room for a loaded machine.
        assert used < 0.5, f"the kiosk used {used:.2f} s of CPU in the 2 s after the flood"
        # `failure unsupported` goes out within a budget (16 at once, 16 a second): about 200 in
        # these 10.5 s at most. Before, one went for every unknown present: tens of thousands.
        assert host.failures < 500, f"the kiosk sent {host.failures} failures"
        # The flood was said, and the kiosk is connected again (it resumed after dropping it).
        kiosk.wait_for("too fast", 5)
        kiosk.wait_for("| connected", 10)
        kiosk.keys("C-c", "C-c")            # twice: one press only says how (issue 32)
        deadline = time.time() + 5
        while kiosk.alive() and time.time() < deadline:
            time.sleep(0.1)
        assert not kiosk.alive(), "Ctrl-C did not end the kiosk after a flood"
    finally:
        kiosk.close()
        host.close()


def test_an_attempt_under_way_is_said_not_a_countdown_stuck_at_1_s():
    """A host that takes the connection and never answers (a listener that accepts nothing
    further): each attempt waits up to 10 s for a welcome. The line counted "Next try in 1 s"
    through all of it; it now counts down and then says an attempt is under way."""
    # An address of its own (not 127.0.0.1, which every other suite's hosts use, some on ports
    # picked by closing a probe socket): nothing but this listener can answer there.
    address = f"127.0.0.{100 + os.getpid() % 150}"
    listener = socket.socket()
    listener.bind((address, 0))
    listener.listen(16)
    port = listener.getsockname()[1]
    held = []                                   # taken and kept open; nothing is ever read or sent

    def take():
        try:
            while True:
                held.append(listener.accept()[0])
        except OSError:
            return

    threading.Thread(target=take, daemon=True).start()
    terminal = Tmux(f"kiosk-attempt-{os.getpid()}-{time.monotonic_ns()}",
                    f"{KIOSK} ws://{address}:{port}/ws --name lobby-1")
    try:
        terminal.wait_for("the host is not answering (no welcome in 10 s).", seconds=20)
        assert held, "the kiosk's attempt never reached this listener"
        # The first wait is short (0.5 s doubling, full jitter): the attempt is soon under way,
        # and stays so for its 10 s.
        terminal.wait_for("Trying again now (attempt 2)...", seconds=10)
        time.sleep(3)
        capture(terminal, "attempt-under-way")
        assert "Trying again now (attempt 2)..." in terminal.screen(), terminal.screen()
        assert "Next try in" not in terminal.screen(), terminal.screen()
        # That attempt fails the same way, and the count goes on.
        terminal.wait_for("Trying again now (attempt 3)...", seconds=20)
    finally:
        terminal.close()
        try:
            listener.shutdown(socket.SHUT_RDWR)     # wakes the accepting thread
        except OSError:
            pass
        listener.close()
        for connection in held:
            connection.close()

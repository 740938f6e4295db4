"""The last kiosk findings of issue #32, in a real terminal (tmux): a control tapped while the
host is silent says at once that it waits, then that the host is not answering; wrapped text
keeps its first line's indent at 40x12 and 80x24; notices carry their times; a fresh notice
stays on the top line for its lifetime (KioskModel.bannerLifetime, 20 s) unless a newer one
replaces it. KIOSK_BIN runs them against another build (to see them fail on the old kiosk)."""
import os
import re
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
from hosts import free_port  # noqa: E402
from test_kiosk import KIOSK, Tmux  # noqa: E402
from test_kiosk_findings import capture  # noqa: E402
from test_kiosk_heartbeat import NOT_ANSWERING, stopped  # noqa: E402
from test_kiosk_options import ScriptedHost  # noqa: E402
from test_kiosk_unattended import kiosk_on, start_host  # noqa: E402

TIME = r"\d\d:\d\d:\d\d"
LIFETIME = 20  # KioskModel.bannerLifetime


def resize(terminal, width, height):
    subprocess.run(["tmux", "resize-window", "-t", terminal.name, "-x", str(width), "-y", str(height)], check=True)


def words(screen):
    """A screen's words, whatever the wrapping."""
    return " ".join(screen.split())


def indent(line):
    return len(line) - len(line.lstrip(" "))


def test_a_tap_to_a_silent_host_says_at_once_that_it_waits_then_that_the_host_is_not_answering():
    port = free_port()
    host = start_host(port)
    kiosk = kiosk_on(port, name="tapper")
    try:
        kiosk.wait_for("[1] Sign in")
        with stopped(host):
            tapped = time.time()
            kiosk.keys("1")
            kiosk.wait_for("\u201cSign in\u201d: waiting for the host...", seconds=1.5)
            capture(kiosk, "tap-waits-for-the-host")
            assert time.time() - tapped < 1.5
            # The heartbeat gives the silent host up within 9 s of the tap (4 s + 5 s); the
            # tap's words follow, in the connection's words, never the person's fault.
            kiosk.wait_for("\u201cSign in\u201d got no answer: " + NOT_ANSWERING, seconds=12)
            noticed = time.time() - tapped
            capture(kiosk, "tap-host-not-answering")
            screen = kiosk.screen()
            assert noticed <= 11, noticed
            assert "waiting for the host..." not in screen, screen
            assert "| connected" not in screen, screen
            for blame in ("not available", "wrong", "invalid", "filled in"):
                assert blame not in screen, screen
        # Back: the session resumes; the tap the stopped host read opens Sign in by itself.
        kiosk.wait_for("| connected", seconds=15)
        kiosk.wait_for("== Sign in ==", seconds=10)
        # Said where it came from; "tap it again if nothing opens" is gone once it opened
        # (the second cold trial read both side by side).
        kiosk.wait_for("This opened from the tap on \u201cSign in\u201d", seconds=5)
        kiosk.keys("Escape")
        kiosk.wait_for("[1] Sign in", seconds=5)
        time.sleep(0.3)
        screen = kiosk.screen()
        assert "This opened from the tap" in screen, screen      # the notices are listed here
        assert "tap it again if nothing opens" not in screen, screen
        capture(kiosk, "late-tap-opened-without-tap-again")
    finally:
        kiosk.close()
        host.stop()


RULE = ("Enter the six-digit code from the letter we sent you, then the e-mail address you "
        "registered with")
LONG_NOTICE = ("The photo booth in the west lobby is closed for cleaning until three o'clock; "
               "please use the one by the main door")


@pytest.mark.parametrize("size", [(40, 12), (80, 24)])
def test_wrapped_text_keeps_the_indent_of_its_first_line(size):
    width, height = size
    host = ScriptedHost()
    kiosk = Tmux(f"kiosk-wrap-{os.getpid()}-{time.monotonic_ns()}",
                 f"{KIOSK} ws://127.0.0.1:{host.port}/ws --name lobby-1")
    try:
        resize(kiosk, width, height)
        kiosk.wait_for("| connected")
        assert host.ready.wait(10)
        host.send({"type": "status", "level": "info", "text": LONG_NOTICE})
        host.present("m1", {"kind": "alert", "title": "Your code", "message": None, "textFields": [],
                            "actions": [{"title": "Cancel", "style": "cancel", "enabled": True, "preferred": False},
                                        {"title": "Go on", "style": "default", "enabled": False, "preferred": True,
                                         "explanation": RULE}]})
        kiosk.wait_for("Go on (disabled)")
        time.sleep(0.3)
        lines = kiosk.screen().splitlines()
        capture(kiosk, f"wrapped-rule-{width}x{height}")
        # The rule: its first line under the choice, 6 columns in; every wrapped line as far in.
        at = next(i for i, line in enumerate(lines) if line.startswith("      Enter the six-digit"))
        rule = [lines[at]]
        while "registered with" not in rule[-1]:
            rule.append(lines[at + len(rule)])
        assert len(rule) >= 2, "\n".join(lines)
        assert all(indent(line) == 6 for line in rule), "\n".join(lines)
        assert " ".join(line.strip() for line in rule) == RULE
        assert all(len(line) <= width for line in lines), "\n".join(lines)
        # The hint and any other wrapped line: a line at the margin goes on 2 columns in.
        hint = next(i for i, line in enumerate(lines) if line.startswith("Pick with a number"))
        if hint + 1 < len(lines) and lines[hint + 1].strip() and "cancels." not in lines[hint]:
            assert indent(lines[hint + 1]) == 2, "\n".join(lines)
        # Off the dialog, the controls' notice: wrapped lines under its first at 2 columns or more.
        kiosk.keys("1")
        assert host.expect("result")["id"] == "m1"
        host.send({"type": "dismiss", "id": "m1", "reason": "resolved"})
        kiosk.wait_for("Controls (press a number):")
        time.sleep(0.3)
        lines = kiosk.screen().splitlines()
        capture(kiosk, f"wrapped-notice-{width}x{height}")
        at = next(i for i, line in enumerate(lines) if "INFO: The photo booth" in line)
        following = [line for line in lines[at + 1:at + 3] if line.strip() and "Controls (" not in line]
        assert following, "\n".join(lines)
        assert all(indent(line) >= max(2, indent(lines[at])) for line in following), "\n".join(lines)
    finally:
        kiosk.close()
        host.close()


@pytest.mark.parametrize("size", [(100, 30), (40, 12)])
def test_notices_show_their_times_and_identical_ones_are_folded(size):
    width, height = size
    host = ScriptedHost()
    kiosk = Tmux(f"kiosk-times-{os.getpid()}-{time.monotonic_ns()}",
                 f"{KIOSK} ws://127.0.0.1:{host.port}/ws --name lobby-1")
    try:
        resize(kiosk, width, height)
        kiosk.wait_for("| connected")
        assert host.ready.wait(10)
        # The demo's five controls: at 40x12 three rows are left for the notices.
        host.send({"type": "controls", "items": [
            {"id": name, "title": name, "style": "default", "enabled": True, "busy": False}
            for name in ("Sign in", "Contact us", "Choose country", "Send photos", "Request approval")]})
        host.send({"type": "status", "level": "info", "text": "Photos cancelled"})
        kiosk.wait_for("Photos cancelled")
        time.sleep(2.2)
        host.send({"type": "status", "level": "success", "text": "Mail sent to support@example.com"})
        kiosk.wait_for("SUCCESS: Mail sent to")
        time.sleep(0.3)
        screen = words(kiosk.screen())
        capture(kiosk, f"notice-times-{width}x{height}")
        first = re.search(r"INFO: Photos cancelled \((" + TIME + r")\)", screen)
        second = re.search(r"SUCCESS: Mail sent to support@example.com \((" + TIME + r")\)", screen)
        assert first and second, screen
        assert first.group(1) != second.group(1), "two notices 2 s apart show the same time"
        # The same notice three more times: one line, with the count and the last time.
        for _ in range(3):
            host.send({"type": "status", "level": "success", "text": "Mail sent to support@example.com"})
        kiosk.wait_for("(4 times,")
        time.sleep(0.3)
        screen = words(kiosk.screen())
        capture(kiosk, f"notice-folded-{width}x{height}")
        assert screen.count("Mail sent to") == 1, screen
        assert re.search(r"\(4 times, last at " + TIME + r"\)", screen), screen
        if size == (100, 30):
            assert re.search(r"Photos cancelled \(" + TIME + r"\)", screen), screen
    finally:
        kiosk.close()
        host.close()


def top_line(kiosk):
    """The first line under the header and its divider."""
    return kiosk.screen().splitlines()[2]


def test_a_fresh_notice_stays_on_the_top_line_its_lifetime_unless_a_newer_one_replaces_it():
    port = free_port()
    host = start_host(port)
    kiosk = kiosk_on(port, name="fresh")
    try:
        kiosk.wait_for("[3] Choose country")
        kiosk.keys("3")
        kiosk.wait_for("== Choose a country ==")
        kiosk.keys("2")
        kiosk.wait_for("Country: Japan")
        said = time.time()
        # A key, a redraw and a dialog opened (with the host's controls) do not put it off the top line.
        seen = []
        while time.time() - said < LIFETIME - 1.5:
            line = top_line(kiosk)
            seen.append((round(time.time() - said, 1), line))
            assert "SUCCESS: Country: Japan" in line, seen[-3:]
            elapsed = time.time() - said
            if 2 < elapsed < 2.3:
                kiosk.keys("Right")
            if 4 < elapsed < 4.3:
                resize(kiosk, 90, 28)
            if 6 < elapsed < 6.3:
                kiosk.keys("1")  # Sign in opens under it
            time.sleep(0.25)
        capture(kiosk, "fresh-notice-stays")
        assert "== Sign in ==" in kiosk.screen(), kiosk.screen()
        # Past its lifetime: in the Notices list, with its time; the top line is the dialog's.
        kiosk.wait_for("Notices (newest first):", seconds=5)
        screen = kiosk.screen()
        assert top_line(kiosk) == "== Sign in ==", screen
        assert re.search(r"  SUCCESS: Country: Japan  \(" + TIME + r"\)", screen), screen
        # A newer notice replaces the fresh one at once; the older is in the list.
        kiosk.keys("Escape")
        kiosk.wait_for("Sign in cancelled")
        time.sleep(0.3)
        capture(kiosk, "fresh-notice-replaced")
        screen = kiosk.screen()
        assert "INFO: Sign in cancelled" in top_line(kiosk), screen
        assert "Country: Japan" in screen.split("Notices (newest first):")[1], screen
    finally:
        kiosk.close()
        host.stop()


def test_escape_on_the_requesters_copy_at_40x12_says_its_rule_without_hiding_the_dialog():
    """Found while checking the wrapped lines at 40x12: Esc on the requester's own copy of an
    approval (no Cancel) put its rule on top, which made the dialog "Screen too small" (keys
    ignored, "Esc cancels the dialog": untrue) until another screen answered."""
    port = free_port()
    host = start_host(port)
    kiosk = kiosk_on(port, name="asker", width=40, height=12)
    try:
        kiosk.wait_for("[5] Request approval")
        kiosk.keys("5")
        kiosk.wait_for("== Approve request? ==")
        kiosk.keys("Escape")
        kiosk.wait_for("Waiting for another screen")
        time.sleep(0.5)
        screen = kiosk.screen()
        capture(kiosk, "requester-escape-40x12")
        assert "Screen too small" not in screen, screen
        assert "== Approve request? ==" in screen and "[2] Reject" in screen, screen
        # Reject still withdraws: the dialog takes keys.
        kiosk.keys("2")
        kiosk.wait_for("Controls (press a number):")
    finally:
        kiosk.close()
        host.stop()


def test_sign_in_typed_and_chosen_while_the_host_is_silent_is_kept_and_signs_in_once_back():
    """The second cold trial: e-mail and password typed while the host was silent, then Enter
    on Sign in: "waits for the host, which is not connected", and nothing once it was back.
    Now the choice is kept in words, and goes once the host is back and has checked."""
    port = free_port()
    host = start_host(port)
    kiosk = kiosk_on(port, name="typer")
    try:
        kiosk.wait_for("[1] Sign in")
        kiosk.keys("1")
        kiosk.wait_for("== Sign in ==")
        with stopped(host):
            kiosk.wait_for(NOT_ANSWERING, seconds=40)
            kiosk.keys("-l", "eve@example.com")
            kiosk.keys("Enter")
            kiosk.keys("-l", "pw")
            kiosk.keys("Enter")
            kiosk.keys("2")
            kiosk.wait_for("Saved: \u201cSign In\u201d is chosen once the host is back", seconds=5)
            capture(kiosk, "sign-in-kept-while-host-silent")
        kiosk.wait_for("Signed in as eve@example.com", seconds=30)
        capture(kiosk, "sign-in-kept-went-once-back")
    finally:
        kiosk.close()
        host.stop()

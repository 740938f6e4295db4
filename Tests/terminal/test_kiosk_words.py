"""Issue #32's words in the kiosk (tmux against a real modal-host): a saved draft shown again,
the Sign In rule stated, the requester's copy of an approval saying it waits for another
screen and a withdrawal told as one, the Contact sheet's Cancel told. Each failed before."""
import os
import re
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from test_kiosk import KIOSK, Tmux, host  # noqa: F401  (the host fixture; puts Tests/python on the path)
from grey_picture import GreyPicture  # noqa: E402
from hosts import Host, OIDCProvider, free_port  # noqa: E402

SHOTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                     "artifacts", "terminal")
RULE = "Enter an e-mail address with an @ and a password"
WAITING = "Waiting for another screen of the group to approve. Reject withdraws your request."


def capture(terminal, name):
    """Keeps what the screen showed, for a person to look at."""
    os.makedirs(SHOTS, exist_ok=True)
    with open(os.path.join(SHOTS, f"{name}.txt"), "w") as out:
        out.write(terminal.screen())


@pytest.fixture
def kiosk(host):  # noqa: F811
    terminal = Tmux(f"kiosk-words-{os.getpid()}-{time.monotonic_ns()}",
                    f"{KIOSK} ws://127.0.0.1:{host.port}/ws --name lobby-1 --group lobby")
    terminal.wait_for("| connected")
    yield terminal
    terminal.close()


def test_save_draft_keeps_the_mail_and_reopening_mail_shows_it(kiosk):
    kiosk.wait_for("[2] Contact us")
    kiosk.keys("2")
    kiosk.wait_for("== Contact us ==")
    kiosk.keys("1")
    kiosk.wait_for("== New mail ==")
    for _ in range(3):              # To, Cc, Bcc: on to Subject, the caret at its end
        kiosk.keys("Enter")
    kiosk.keys(" from lobby")
    kiosk.keys("Tab", "Tab")        # past the body, to the choices
    kiosk.wait_for("<- Enter")
    kiosk.keys("2")                 # Save draft
    kiosk.wait_for("Mail saved as a draft on the host: Mail opens it again on this screen")
    kiosk.wait_for("[2] Contact us")
    kiosk.keys("2")
    kiosk.wait_for("== Contact us ==")
    kiosk.keys("1")
    kiosk.wait_for("== New mail ==")
    kiosk.wait_for("Subject: Hello from lobby")
    capture(kiosk, "mail-draft-reopened")
    kiosk.keys("Escape")
    kiosk.wait_for("Mail cancelled")


def test_the_sign_in_rule_is_said_while_sign_in_is_disabled(kiosk):
    kiosk.wait_for("[1] Sign in")
    kiosk.keys("1")
    kiosk.wait_for("== Sign in ==")
    kiosk.wait_for("[2] Sign In (disabled)")
    kiosk.wait_for(RULE)
    capture(kiosk, "sign-in-rule")
    kiosk.keys("ann@example.com", "Enter", "pw", "Enter")
    kiosk.wait_for("[2] Sign In  <- Enter")
    assert RULE not in kiosk.screen(), "the rule goes once Sign In is enabled"
    kiosk.keys("Enter")
    kiosk.wait_for("SUCCESS: Signed in as ann@example.com")


def test_a_disabled_sign_in_pressed_says_the_rule(kiosk):
    kiosk.wait_for("[1] Sign in")
    kiosk.keys("1")
    kiosk.wait_for("== Sign in ==")
    kiosk.keys("Tab", "Tab")        # to the choices, nothing typed
    kiosk.keys("2")
    kiosk.wait_for(f"\u201cSign In\u201d is not available yet: {RULE}")
    kiosk.keys("1")
    kiosk.wait_for("Sign in cancelled")


def test_the_requesters_copy_says_it_waits_and_a_withdrawal_is_told_as_one(kiosk):
    kiosk.wait_for("[5] Request approval")
    kiosk.keys("5")
    kiosk.wait_for("== Approve request? ==")
    kiosk.wait_for("[1] Approve (disabled)")
    kiosk.wait_for("Waiting for another screen of the group to approve.")
    capture(kiosk, "approval-own-copy")
    kiosk.keys("Escape")            # no Cancel: the rule again on top, not "Please choose one of the options."
    deadline = time.time() + 10
    while kiosk.screen().count("Reject withdraws your request.") < 2 and time.time() < deadline:
        time.sleep(0.1)
    assert kiosk.screen().count("Reject withdraws your request.") == 2, kiosk.screen()
    assert "Please choose one of the options." not in kiosk.screen()
    # Enter (Approve is the preferred choice) says the rule too, not "not available right now".
    kiosk.keys("Enter")
    kiosk.wait_for("\u201cApprove\u201d is not available yet: Waiting for another screen")
    kiosk.keys("2")
    kiosk.wait_for("INFO: Request withdrawn by lobby-1")
    assert "Rejected by" not in kiosk.screen()


def test_cancel_on_the_contact_sheet_says_contact_cancelled(kiosk):
    kiosk.wait_for("[2] Contact us")
    kiosk.keys("2")
    kiosk.wait_for("== Contact us ==")
    kiosk.keys("3")
    kiosk.wait_for("INFO: Contact cancelled")


def control_number(terminal, title):
    """The number the kiosk shows for a control, read from the screen."""
    line = next(line for line in terminal.screen().splitlines() if f"] {title}" in line)
    return line.split("[", 1)[1].split("]", 1)[0]


def test_log_in_with_the_provider_hung_can_be_cancelled_and_the_provider_down_is_said(tmp_path):
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)                # takes connections, never answers
    hung = Host("--oidc-issuer", f"http://127.0.0.1:{silent.getsockname()[1]}", "--oidc-client-id", "kiosk")
    down = Host("--oidc-issuer", f"http://127.0.0.1:{free_port()}", "--oidc-client-id", "kiosk")
    terminals = []
    try:
        terminal = Tmux(f"kiosk-login-{os.getpid()}-{time.monotonic_ns()}",
                        f"{KIOSK} ws://127.0.0.1:{hung.port}/ws --name lobby-1")
        terminals.append(terminal)
        terminal.wait_for("] Log in")
        terminal.keys(control_number(terminal, "Log in"))
        terminal.wait_for("Contacting the sign-in service", seconds=10)
        capture(terminal, "login-provider-hung")
        terminal.keys("1")           # Cancel
        terminal.wait_for("INFO: Log in cancelled")
        terminal = Tmux(f"kiosk-login-down-{os.getpid()}-{time.monotonic_ns()}",
                        f"{KIOSK} ws://127.0.0.1:{down.port}/ws --name lobby-2")
        terminals.append(terminal)
        terminal.wait_for("] Log in")
        terminal.keys(control_number(terminal, "Log in"))
        terminal.wait_for("ERROR: Log in is not possible right now.")
        capture(terminal, "login-provider-down")
        assert "NSURLErrorDomain" not in terminal.screen()
    finally:
        for terminal in terminals:
            terminal.close()
        hung.stop()
        down.stop()
        silent.close()


@pytest.mark.parametrize("colour", [True, False], ids=["colour", "no-colour"])
def test_the_sign_in_qr_code_fits_80x24_and_decodes(tmp_path, colour):
    # zbarimg comes from Debian's zbar-tools, which scripts/bootstrap installs.
    from test_kiosk_findings import picture  # noqa: F811
    provider = OIDCProvider()
    host = Host("--oidc-issuer", provider.issuer, "--oidc-client-id", "kiosk")
    env = "" if colour else "env NO_COLOR=1 "
    terminal = Tmux(f"kiosk-qr-80-{os.getpid()}-{time.monotonic_ns()}",
                    f"{env}{KIOSK} ws://127.0.0.1:{host.port}/ws --name lobby-1")
    try:
        subprocess.run(["tmux", "resize-window", "-t", terminal.name, "-x", "80", "-y", "24"], check=True)
        terminal.wait_for("] Log in")
        terminal.keys(control_number(terminal, "Log in"))
        terminal.wait_for("== Sign in with your provider ==", seconds=15)
        time.sleep(0.4)
        lines = terminal.screen().splitlines()
        assert len(lines) <= 24 and max(len(line) for line in lines) <= 80
        url = next(line.strip() for line in lines if line.startswith("http"))
        # The host's short link, not the provider's 200-character authorization URL.
        assert re.fullmatch(rf"http://127\.0\.0\.1:{host.port}/s/[A-Za-z0-9_-]{{8}}", url), url
        start = next(i for i, line in enumerate(lines) if line.startswith("http")) + 1
        end = next(i for i, line in enumerate(lines) if "[1] Cancel" in line)
        rows = [line for line in lines[start:end] if any(c in line for c in "\u2588\u2580\u2584")]
        assert rows, "no QR code at 80x24:\n" + "\n".join(lines)
        # Enter does not cancel a sign-in done on another device.
        assert "<- Enter" not in lines[end]
        name = f"qr-80x24-{'colour' if colour else 'no-colour'}"
        capture(terminal, name)
        image = tmp_path / "qr.png"
        # With colour the glyphs are black on the white the kiosk sets; without, they take a
        # dark terminal's light foreground.
        if colour:
            on_white(rows, image)
        else:
            picture(rows, image, light_glyphs=True)
        os.makedirs(SHOTS, exist_ok=True)
        subprocess.run(["cp", str(image), os.path.join(SHOTS, f"{name}.png")], check=True)
        decoded = subprocess.run(["zbarimg", "--quiet", "--raw", str(image)], capture_output=True, text=True)
        assert decoded.stdout.strip() == url, f"zbarimg: {decoded.stdout!r} {decoded.stderr!r}"
        # The short link leads to the provider's sign-in page, with the flow's state.
        request = urllib.request.Request(url, method="GET")
        opener = urllib.request.build_opener(NoRedirect)
        with pytest.raises(urllib.error.HTTPError) as redirect:
            opener.open(request, timeout=5)
        assert redirect.value.code == 302
        location = redirect.value.headers["location"]
        assert location.startswith(f"{provider.issuer}/") and "state=" in location, location
    finally:
        terminal.close()
        host.stop()
        provider.stop()


def on_white(rows, path):
    """The captured rows as the kiosk draws them in colour on a dark terminal: black glyph
    halves on the white it sets over the code and its 2-module quiet zone (one text row above
    and below, two columns past the longest row: capture-pane drops trailing blanks), the
    terminal's dark background beyond; 4 pixels a module."""
    width = max(len(row) for row in rows) + 2
    image = GreyPicture((width + 8) * 4, (len(rows) + 6) * 8)
    image.fill((16, 16, 16 + width * 4, 16 + (len(rows) + 2) * 8), 255)
    for y, row in enumerate(rows):
        for x, character in enumerate(row):
            for half, dark in ((0, character in "\u2588\u2580"), (1, character in "\u2588\u2584")):
                if dark:
                    top = 16 + (y + 1) * 8 + half * 4
                    image.fill((16 + x * 4, top, 16 + x * 4 + 4, top + 4), 0)
    image.save(path)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args):
        return None

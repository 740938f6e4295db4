"""What the kiosk looks like: every modal kind the demo host shows, at 80x24 and 120x40,
captured with and without escape codes into artifacts/terminal/ (read them), checked for
colour, the marked preferred action, red errors, and a QR code that is libqrencode's own."""
import os
import re
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
from hosts import Host, OIDCProvider, ROOT  # noqa: E402
from test_kiosk import KIOSK, Tmux  # noqa: E402

ARTIFACTS = os.path.join(ROOT, "artifacts", "terminal")
SGR = re.compile(r"\x1b\[([0-9;]*)m")


def cells(line):
    """The characters of a captured line with the attributes tmux says they have."""
    attributes = {"bold": False, "reverse": False, "fg": None}
    result = []
    position = 0
    for match in SGR.finditer(line):
        result += [(character, dict(attributes)) for character in line[position:match.start()]]
        position = match.end()
        codes = [int(code) if code else 0 for code in match.group(1).split(";")]
        for code in codes:
            if code == 0:
                attributes = {"bold": False, "reverse": False, "fg": None}
            elif code == 1:
                attributes["bold"] = True
            elif code == 7:
                attributes["reverse"] = True
            elif code == 22:
                attributes["bold"] = False
            elif code == 27:
                attributes["reverse"] = False
            elif 30 <= code <= 37 or 90 <= code <= 97:
                attributes["fg"] = code
            elif code == 39:
                attributes["fg"] = None
    result += [(character, dict(attributes)) for character in line[position:]]
    return result


def styled(capture, text):
    """The attributes of each character of the first occurrence of `text`."""
    for line in capture.splitlines():
        row = cells(line)
        plain = "".join(character for character, _ in row)
        index = plain.find(text)
        if index >= 0:
            return [attributes for _, attributes in row[index:index + len(text)]]
    raise AssertionError(f"{text!r} not on screen:\n{capture}")


@pytest.fixture(scope="module")
def host():
    provider = OIDCProvider()
    server = Host("--oidc-issuer", provider.issuer, "--oidc-client-id", "remote-modal-demo")
    yield server
    server.stop()
    provider.stop()


def control_number(terminal, title):
    terminal.wait_for(title)
    match = re.search(r"\[(\d+)\] " + re.escape(title), terminal.screen())
    return match.group(1)


# name: keys from the controls, the text that shows the modal is up, the choice marked for Enter.
SCENES = {
    "alert-sign-in": (["Sign in"], "== Sign in ==", None),
    "alert-sign-in-filled": (["Sign in", "ann@example.com", "Enter", "pw", "Tab"], "password: **", "[2] Sign In"),
    "action-sheet-contact": (["Contact us"], "== Contact us ==", "[1] Mail"),
    "action-sheet-country": (["Choose country"], "== Choose a country ==", None),
    "mail-composer": (["Contact us", "1"], "== New mail ==", None),
    "message-composer": (["Contact us", "2"], "== New message ==", None),
    "photo-picker": (["Send photos"], "== Choose photos ==", None),
    "photo-picker-error": (["Send photos", "/nonexistent/photo.jpg", "Tab", "Enter"], "Cannot read", None),
    "web-authentication": (["Log in"], "== Sign in with your provider ==", None),
}


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_every_modal_kind_reads_well(host, size):
    os.makedirs(ARTIFACTS, exist_ok=True)
    width, height = size
    for name, (steps, shown, marked) in SCENES.items():
        terminal = Tmux(f"kiosk-look-{os.getpid()}-{time.monotonic_ns()}",
                        f"{KIOSK} ws://127.0.0.1:{host.port}/ws --name lobby-look --group look-{name}")
        try:
            subprocess.run(["tmux", "resize-window", "-t", terminal.name, "-x", str(width), "-y", str(height)],
                           check=True)
            terminal.wait_for("| connected")
            terminal.keys(control_number(terminal, steps[0]))
            for key in steps[1:]:
                time.sleep(0.3)
                terminal.keys(key)
            terminal.wait_for(shown)
            time.sleep(0.4)
            plain = terminal.screen()
            escaped = subprocess.run(["tmux", "capture-pane", "-e", "-p", "-t", terminal.name],
                                     capture_output=True, text=True).stdout
            base = os.path.join(ARTIFACTS, f"{name}-{width}x{height}")
            with open(base + ".txt", "w") as out:
                out.write(plain)
            with open(base + ".ansi", "w") as out:
                out.write(escaped)
            lines = plain.splitlines()
            assert len(lines) <= height
            assert "Screen too small" not in plain, plain
            assert "\u2500" * width in plain, f"{name}: the divider does not span {width} columns"
            assert all(attributes["fg"] == 32 for attributes in styled(escaped, "connected")), name
            assert all(attributes["bold"] for attributes in styled(escaped, "remote-modal kiosk")), name
            assert "Esc cancels" in plain, f"{name}: no way out shown\n{plain}"
            if marked:
                assert f"{marked}  <- Enter" in plain, f"{name}\n{plain}"
                assert all(a["reverse"] and a["bold"] for a in styled(escaped, marked)), name
            elif "<- Enter" in plain:
                choice = re.search(r"(\[\d\] [^\n]*?)  <- Enter", plain).group(1)
                assert all(a["reverse"] and a["bold"] for a in styled(escaped, choice)), name
            if name == "photo-picker-error":
                assert all(a["fg"] == 31 for a in styled(escaped, "Cannot read /nonexistent/photo.jpg")), name
        finally:
            terminal.close()


def qrencode_matrix(url):
    """libqrencode's own output for the URL (Debian's qrencode CLI), one list per row."""
    ascii_art = subprocess.run(["qrencode", "-l", "L", "-8", "-m", "0", "-t", "ASCII", "-o", "-", url],
                               capture_output=True, text=True, check=True).stdout
    return [[line[i:i + 2] == "##" for i in range(0, len(line), 2)] for line in ascii_art.splitlines() if line]


def test_the_qr_code_is_libqrencodes_and_the_address_is_whole(host):
    terminal = Tmux(f"kiosk-qr-{os.getpid()}-{time.monotonic_ns()}",
                    f"{KIOSK} ws://127.0.0.1:{host.port}/ws --name lobby-qr --group qr")
    try:
        subprocess.run(["tmux", "resize-window", "-t", terminal.name, "-x", "120", "-y", "50"], check=True)
        terminal.wait_for("| connected")
        terminal.keys(control_number(terminal, "Log in"))
        terminal.wait_for("== Sign in with your provider ==")
        time.sleep(0.4)
        # -J joins the rows the terminal wrapped the address over: copying gives it whole.
        joined = subprocess.run(["tmux", "capture-pane", "-J", "-p", "-t", terminal.name],
                                capture_output=True, text=True).stdout
        url = next(line.strip() for line in joined.splitlines() if line.startswith("http"))
        # The host's short link to the provider's page (a code that fits 80x24).
        assert re.fullmatch(rf"http://127\.0\.0\.1:{host.port}/s/[A-Za-z0-9_-]{{8}}", url), url
        lines = joined.splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("http")) + 1
        end = next(i for i, line in enumerate(lines) if "[1] Cancel" in line)
        rows = lines[start:end]
        with open(os.path.join(ARTIFACTS, "web-authentication-qr-120x50.txt"), "w") as out:
            out.write(joined)
        expected = qrencode_matrix(url)
        side = len(expected)
        quiet = (len(rows) * 2 - side) // 2
        assert quiet >= 2, f"no quiet zone: {len(rows)} rows for {side} modules"
        full = side + 2 * quiet
        modules = []
        for line in rows:
            line = line.ljust(full)
            modules.append([character in "\u2588\u2580" for character in line[:full]])
            modules.append([character in "\u2588\u2584" for character in line[:full]])
        modules = modules[:full]
        drawn = [row[quiet:quiet + side] for row in modules[quiet:quiet + side]]
        assert drawn == expected
        # The quiet zone is light all round.
        assert not any(modules[0]) and not any(modules[-1])
        assert not any(row[0] or row[-1] for row in modules)
    finally:
        terminal.close()

"""The kiosk notices a stopped host (SIGSTOP: the TCP connection stays open, nothing comes)
through the protocol's heartbeat (docs/protocol.md, section 3): within 10 s with a dialog
open and within 30 s when idle it says the host is not answering, then resumes once the
host runs again. tmux runs two kiosks on one host, stopped once."""
import contextlib
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
from hosts import free_port  # noqa: E402
from test_kiosk_findings import capture  # noqa: E402
from test_kiosk_unattended import kiosk_on, start_host  # noqa: E402

NOT_ANSWERING = "the host is not answering"


@contextlib.contextmanager
def stopped(host):
    """The host stopped (SIGSTOP: its connections stay open, nothing answers) for the block;
    it runs again (SIGCONT) when the block ends, whatever happened in it."""
    os.kill(host.process.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(host.process.pid, signal.SIGCONT)


def test_a_stopped_host_is_noticed_within_10_s_with_a_dialog_open_and_30_s_idle():
    port = free_port()
    host = start_host(port)
    busy = kiosk_on(port, name="busy")
    idle = kiosk_on(port, name="idle")
    try:
        busy.wait_for("| connected")
        idle.wait_for("| connected")
        busy.keys("3")
        busy.wait_for("== Choose a country ==")
        with stopped(host):
            started = time.time()
            noticed = {}
            while len(noticed) < 2 and time.time() - started < 40:
                for name, terminal in (("busy", busy), ("idle", idle)):
                    if name not in noticed and NOT_ANSWERING in terminal.screen():
                        noticed[name] = time.time() - started
                time.sleep(0.1)
            assert set(noticed) == {"busy", "idle"}, (noticed, busy.screen(), idle.screen())
            capture(busy, "stopped-host-dialog-open")
            capture(idle, "stopped-host-idle")
            # Nothing tells a person their choice is wrong, and the header no longer says connected.
            for terminal in (busy, idle):
                screen = terminal.screen()
                assert "| connected" not in screen, screen
                assert "not available" not in screen, screen
            assert "== Choose a country ==" in busy.screen(), "the dialog stays, waiting for the host"
            # 4 s of silence with a dialog open, then 5 s without a reply to the ping (plus
            # the terminal's redraw); 20 s idle, then 5 s.
            assert noticed["busy"] <= 10.5, noticed
            assert 15 < noticed["idle"] <= 30.5, noticed
        busy.wait_for("| connected", seconds=15)
        idle.wait_for("| connected", seconds=15)
        # The session resumed: the dialog is still the host's and answers as before.
        busy.wait_for("== Choose a country ==")
        busy.keys("2")
        busy.wait_for("Country: Japan")
    finally:
        busy.close()
        idle.close()
        host.stop()


def test_valid_fields_typed_to_a_stopped_host_are_checking_never_refused():
    """The cold trial's case: a valid e-mail and password typed while the host is stopped.
    The kiosk says the host is checking (never the rule, as if the fields broke it), Sign In
    pressed says so too, then the host is said not to answer; back, the kept Sign In goes."""
    rule = "Enter an e-mail address with an @ and a password"
    port = free_port()
    host = start_host(port)
    kiosk = kiosk_on(port, name="typing")
    try:
        kiosk.wait_for("| connected")
        kiosk.keys("1")
        kiosk.wait_for("== Sign in ==")
        kiosk.wait_for(rule)
        with stopped(host):
            kiosk.keys("bob@example.com", "Enter", "secret", "Enter")
            kiosk.wait_for("Sign In (checking")
            time.sleep(2)                       # past the 1 s window of a host without the heartbeat
            screen = kiosk.screen()
            assert "Sign In (checking" in screen and rule not in screen, screen
            kiosk.keys("2")
            kiosk.wait_for("Checking with the host whether \u201cSign In\u201d can be chosen")
            capture(kiosk, "stopped-host-typing-checking")
            kiosk.wait_for(NOT_ANSWERING, seconds=10)
            assert "not available" not in kiosk.screen(), kiosk.screen()
        kiosk.wait_for("| connected", seconds=15)
        # Sign In, pressed while the host was stopped, was kept: back, it goes by itself
        # (issue #32's cold trial), no second key needed.
        kiosk.wait_for("Signed in as bob@example.com", seconds=10)
    finally:
        kiosk.close()
        host.stop()

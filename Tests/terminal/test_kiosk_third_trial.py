"""Issue #32, the kiosk after a cold trial, round three, in a real terminal (tmux against a
real modal-host, one kiosk behind a proxy that cuts it off): an approval answered while cut
off, after another screen had answered, is told as not used, with the outcome, never as "the
host took your answer". Each failed on the kiosk before (KIOSK_BIN runs them against another
build)."""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
from kiosk_setup import host_and_kiosk  # noqa: E402
from test_kiosk_findings import capture  # noqa: E402
from test_kiosk_second_trial import wait_for_words, words  # noqa: E402
from test_kiosk_unattended import kiosk_on  # noqa: E402


def test_an_approval_answered_while_cut_off_after_another_screen_rejected_is_told_not_used():
    """The third cold trial: lobby-2, cut off, pressed Approve ("answer kept"); lobby-3
    rejected meanwhile. Back, lobby-2 said "“Approve request?” is done: the host took your
    answer" and was never told it was rejected."""
    with host_and_kiosk("approve-cut-off", name="lobby-2", proxied=True) as (host, proxy, approver):
        asker = kiosk_on(host.port, name="lobby-1")
        rejecter = kiosk_on(host.port, name="lobby-3")
        try:
            for kiosk in (approver, rejecter, asker):
                kiosk.wait_for("| connected", seconds=15)
            asker.keys("5")
            for kiosk in (approver, rejecter):
                kiosk.wait_for("lobby-1 asks for approval", seconds=15)
            proxy.cut(refuse_seconds=6)
            approver.wait_for("| reconnecting", seconds=10)
            approver.keys("1")
            approver.wait_for("(answer \u201cApprove\u201d kept: it goes to the host as soon as it is back)")
            capture(approver, "approve-kept-while-cut-off")
            rejecter.keys("2")
            wait_for_words(rejecter, "Rejected by lobby-3", seconds=10)
            approver.wait_for("| connected", seconds=30)
            wait_for_words(
                approver,
                "Your \u201cApprove\u201d on \u201cApprove request?\u201d was not used: another screen of the group "
                "answered first.", seconds=15)
            wait_for_words(approver, "Rejected by lobby-3", seconds=10)
            capture(approver, "approve-not-used-after-cut")
            screen = words(approver.screen())
            assert "the host took your answer" not in screen, screen
            assert "== Approve request? ==" not in approver.screen(), screen
        finally:
            asker.close()
            rejecter.close()


def pane_pid(terminal):
    """The kiosk's process id (tmux's pane runs it)."""
    shown = subprocess.run(["tmux", "display", "-p", "-t", terminal.name, "#{pane_pid}"],
                           capture_output=True, text=True, check=True).stdout.strip()
    children = subprocess.run(["pgrep", "-P", shown], capture_output=True, text=True).stdout.split()
    return int(children[0]) if children else int(shown)


def test_one_ctrl_c_never_closes_the_kiosk_and_a_locked_one_never_closes_from_the_keyboard():
    """The third cold trial: "Ctrl-C quits." on the main screen, and one press left a shell
    prompt on the public screen; nothing let whoever runs it turn that off."""
    with host_and_kiosk("ctrl-c-once") as (host, _, kiosk):
        kiosk.wait_for("Ctrl-C twice closes the kiosk.", seconds=15)
        kiosk.keys("C-c")
        kiosk.wait_for("Press Ctrl-C again within 3 seconds to close the kiosk.")
        time.sleep(3.5)                             # past the window: the next press asks again
        kiosk.keys("C-c")
        time.sleep(1)
        assert kiosk.alive(), "one Ctrl-C closed the kiosk"
        capture(kiosk, "ctrl-c-once")
    with host_and_kiosk("locked", kiosk_flags=("--locked",)) as (host, _, kiosk):
        kiosk.wait_for("[5] Request approval", seconds=15)
        assert "Ctrl-C" not in kiosk.screen(), "a locked kiosk does not tell a passer-by how to close it"
        kiosk.keys("C-c", "C-c", "C-c")
        kiosk.wait_for("This kiosk does not close from the keyboard.")
        time.sleep(1)
        assert kiosk.alive(), "the keyboard closed a locked kiosk"
        capture(kiosk, "locked-ctrl-c")
        pid = pane_pid(kiosk)
        os.kill(pid, signal.SIGTERM)                # its supervisor stops it
        deadline = time.time() + 5
        while time.time() < deadline and os.path.exists(f"/proc/{pid}"):
            time.sleep(0.1)
        assert not os.path.exists(f"/proc/{pid}"), "SIGTERM did not stop the kiosk"


def test_a_screen_too_small_speaks_to_the_passer_by_and_to_whoever_runs_it():
    """The third cold trial: "Enlarge the window" told a passer-by to do what nobody at a
    kiosk can."""
    with host_and_kiosk("too-small", size=(40, 8)) as (host, _, kiosk):
        wait_for_words(kiosk, "Screen too small", seconds=15)
        wait_for_words(kiosk, "Whoever runs it: enlarge the window or make the font smaller.")
        capture(kiosk, "screen-too-small-40x8")
        assert "Enlarge the window" not in words(kiosk.screen())

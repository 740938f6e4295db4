"""Issue #32, the kiosk after a cold trial, round three, in a real terminal (tmux against a
real modal-host, one kiosk behind a proxy that cuts it off): an approval answered while cut
off, after another screen had answered, is told as not used, with the outcome, never as "the
host took your answer". Each failed on the kiosk before (KIOSK_BIN runs them against another
build)."""
import os
import sys

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

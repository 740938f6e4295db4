"""Issue #32, this hour's cold trial of the kiosk, each finding as the person met it in a real
terminal (tmux), against a scripted host (exact messages, what the kiosk sends recorded) or a
real modal-host: a refused key is not the person acting, Esc on a form too big to show."""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
from test_kiosk_findings import capture, scripted, sent, wait_for_words  # noqa: E402,F401

WAITING = "Waiting for another screen of the group to approve. Reject withdraws your request."


def test_keys_the_requesters_copy_refused_do_not_let_a_late_key_act(scripted):
    host, kiosk = scripted
    host.send({"type": "controls", "items": [
        {"id": "signIn", "title": "Sign in", "style": "default", "enabled": True, "busy": False},
        {"id": "approve", "title": "Request approval", "style": "default", "enabled": True, "busy": False}]})
    kiosk.wait_for("[2] Request approval")
    kiosk.keys("2")
    assert host.expect("event")["control"] == "approve"
    host.present("own", {"kind": "alert", "title": "Approve request?", "message": "lobby-1 asks for approval",
                         "textFields": [],
                         "actions": [{"title": "Approve", "style": "default", "enabled": False, "preferred": True,
                                      "explanation": WAITING},
                                     {"title": "Reject", "style": "destructive", "enabled": True}]})
    kiosk.wait_for("== Approve request? ==")
    kiosk.keys("Escape")
    time.sleep(0.3)
    kiosk.keys("Enter")
    kiosk.wait_for("\u201cApprove\u201d is not available yet")
    # Another screen approves, well within 3 s of the tap; the person's "1" lands just after.
    host.send({"type": "dismiss", "id": "own", "reason": "resolved"})
    kiosk.keys("1")
    kiosk.wait_for("That key came as the screen changed, so nothing was done.")
    capture(kiosk, "cold-late-key-after-refused-keys")
    assert sent(host, "event", 1.5) == [], "the late 1 tapped Sign in"
    assert "== Sign in ==" not in kiosk.screen()


def test_esc_cancels_a_form_the_terminal_is_too_small_for_and_says_so(scripted):
    host, kiosk = scripted
    host.present("m1", {"kind": "mailComposer", "to": [], "cc": [], "bcc": [], "subject": "Hi", "body": "",
                        "isHTML": False})
    kiosk.wait_for("== New mail ==")
    # 40x11: Mail fits 40x12 without its key hint (test_kiosk_second_trial.py).
    subprocess.run(["tmux", "resize-window", "-t", kiosk.name, "-x", "40", "-y", "11"], check=True)
    kiosk.wait_for("Screen too small")
    wait_for_words(kiosk, "Esc cancels the dialog")
    capture(kiosk, "cold-too-small-esc")
    kiosk.keys("bob@example.com", "Tab", "Enter")
    assert sent(host, "result", 1) == [], "a key other than Esc went to the hidden form"
    kiosk.keys("Escape")
    result = host.expect("result")
    assert result["id"] == "m1" and result["value"]["status"] == "cancelled", result
    host.send({"type": "dismiss", "id": "m1", "reason": "resolved"})
    subprocess.run(["tmux", "resize-window", "-t", kiosk.name, "-x", "100", "-y", "30"], check=True)
    kiosk.wait_for("Controls (press a number):")
    assert "== New mail ==" not in kiosk.screen()


def test_a_silent_host_keeps_sign_in_waiting_never_the_rule_and_the_top_line_follows():
    """The cold trial's order: the e-mail typed to a running host, then SIGSTOP, the password,
    Enter on the choices once the host is said not to answer. Sign In waits for the host (never
    the rule); back, the top line goes with the outage and the kept Sign In goes."""
    from test_kiosk_heartbeat import NOT_ANSWERING, stopped
    from hosts import free_port
    from test_kiosk_unattended import kiosk_on, start_host
    rule = "Enter an e-mail address with an @ and a password"
    port = free_port()
    host = start_host(port)
    kiosk = kiosk_on(port, name="cold-typing")
    try:
        kiosk.wait_for("| connected")
        kiosk.keys("1")
        kiosk.wait_for("== Sign in ==")
        kiosk.keys("bob@example.com")
        kiosk.wait_for(rule)
        time.sleep(1.5)             # the host judged the e-mail: Sign In disabled with its rule
        with stopped(host):
            kiosk.keys("Enter", "secret", "Enter")
            kiosk.wait_for(NOT_ANSWERING, seconds=15)
            kiosk.keys("Enter")
            kiosk.wait_for("waits for the host, which is not answering")
            screen = kiosk.screen()
            capture(kiosk, "cold-silent-host-sign-in-waits")
            assert "Sign In (waits for the host)" in screen, screen
            assert rule not in screen, screen
        kiosk.wait_for("| connected", seconds=15)
        kiosk.wait_for("Signed in as bob@example.com", seconds=10)
        screen = kiosk.screen()
        capture(kiosk, "cold-silent-host-back")
        assert "not answering" not in screen and "not connected" not in screen, screen
    finally:
        kiosk.close()
        host.stop()


def test_enter_on_the_sign_in_screen_keeps_the_qr_code_at_80x24_and_the_hint_goes_with_it(scripted):
    host, kiosk = scripted
    subprocess.run(["tmux", "resize-window", "-t", kiosk.name, "-x", "80", "-y", "24"], check=True)
    host.present("w1", {"kind": "webAuthentication", "url": "https://id.example.com/authorize?client_id=k",
                        "callbackURL": "https://kiosk.example/cb"})
    kiosk.wait_for("== Sign in with your provider ==")

    def code_rows():
        return sum(1 for line in kiosk.screen().splitlines() if "\u2588" in line or "\u2580" in line)

    before = code_rows()
    assert before > 0, kiosk.screen()
    kiosk.keys("Enter")
    kiosk.wait_for("Sign in with the address above on a phone or a computer")
    capture(kiosk, "cold-sign-in-enter-80x24")
    assert code_rows() == before, kiosk.screen()
    assert "shows in a 40x" not in kiosk.screen(), kiosk.screen()
    host.send({"type": "dismiss", "id": "w1", "reason": "resolved"})
    kiosk.wait_for("Controls (press a number):")
    assert "Sign in with the address above" not in kiosk.screen(), kiosk.screen()

"""Issue #32's words in the kiosk (tmux against a real modal-host): a saved draft shown again,
the Sign In rule stated, the requester's copy of an approval saying it waits for another
screen and a withdrawal told as one, the Contact sheet's Cancel told. Each failed before."""
import os
import time

import pytest

from test_kiosk import KIOSK, Tmux, host  # noqa: F401  (the host fixture)

SHOTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                     "artifacts", "terminal")
RULE = "Enter an e-mail address and a password"
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
    kiosk.wait_for("Mail saved as a draft: Mail opens it again")
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
    kiosk.keys("2")
    kiosk.wait_for("INFO: Request withdrawn by lobby-1")
    assert "Rejected by" not in kiosk.screen()


def test_cancel_on_the_contact_sheet_says_contact_cancelled(kiosk):
    kiosk.wait_for("[2] Contact us")
    kiosk.keys("2")
    kiosk.wait_for("== Contact us ==")
    kiosk.keys("3")
    kiosk.wait_for("INFO: Contact cancelled")

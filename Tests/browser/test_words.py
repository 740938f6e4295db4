"""Issue #32's words in the page: a saved draft shown again, an action's rule stated while it
is disabled (and its "not available" hint gone once the host enables it), the Contact sheet's
Cancel told like every other flow's. Each test failed on the page and demo before them."""
import os
import socket

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from browser_support import RestartableHost
from hosts import ROOT, free_port

RULE = "Enter an e-mail address with an @ and a password"


def field(dialog, label):
    """The input or textarea labelled `label` in a dialog."""
    return dialog.find_element(By.XPATH, f".//div[contains(@class,'field')][label[normalize-space(.)='{label}']]"
                                         f"//*[self::input or self::textarea]")


def test_save_draft_keeps_the_mail_and_reopening_mail_shows_it(host, desktop):
    page = desktop
    page.open(host.base)
    dialog = page.composer("Mail")
    subject = field(dialog, "Subject")
    subject.clear()
    subject.send_keys("Broken lift on floor 3")
    body = field(dialog, "Body")
    body.clear()
    body.send_keys("It stops between floors.")
    page.button(dialog, "Save draft").click()
    page.wait_toast("Mail saved as a draft on the host: Mail opens it again on this screen for 5 minutes, then it is deleted (sooner if the host restarts or the screen is away too long)")
    page.no_dialog()
    page.wait_idle("contact")
    # Reopened: the draft, not the demo's "Hello" / "Hello World!".
    dialog = page.composer("Mail")
    assert field(dialog, "Subject").get_attribute("value") == "Broken lift on floor 3"
    assert field(dialog, "Body").get_attribute("value") == "It stops between floors."
    assert field(dialog, "To").get_attribute("value") == "support@example.com"
    page.screenshot("mail-draft-reopened")
    # Sent, the draft is done with: the next mail starts from the defaults again.
    page.button(dialog, "Send").click()
    page.wait_toast("Mail sent")
    page.wait_idle("contact")
    dialog = page.composer("Mail")
    assert field(dialog, "Subject").get_attribute("value") == "Hello"
    page.button(dialog, "Cancel").click()
    page.wait_toast("Mail cancelled")
    page.assert_no_bad_message()


def test_the_sign_in_rule_is_said_while_sign_in_is_disabled(host, desktop):
    page = desktop
    page.open(host.base)
    page.tap("signIn")
    dialog = page.dialog()
    rule = dialog.find_element(By.CSS_SELECTOR, ".rule-line")
    sign_in = page.button(dialog, "Sign In")
    assert not sign_in.is_enabled()
    assert rule.text == RULE
    assert sign_in.get_attribute("aria-describedby") == rule.get_attribute("id")
    page.screenshot("sign-in-rule")
    email = field(dialog, "E-mail")
    email.send_keys("ann@example.com")
    # Enter with the password still empty: refused, in the rule's words.
    email.send_keys(Keys.ENTER)
    hint = dialog.find_element(By.CSS_SELECTOR, ".hint-line")
    page.wait().until(lambda d: hint.text == "Fill in the fields first, as said above")
    assert rule.text == RULE, "the rule stays where it stands"
    assert dialog.text.count(RULE) == 1, f"the rule once on screen, not twice: {dialog.text}"
    field(dialog, "Password").send_keys("pw")
    page.wait().until(lambda d: sign_in.is_enabled())
    # The moment the host enables it, neither the rule nor the refusal is left up (the
    # refusal stayed for 6 s).
    assert hint.text == ""
    assert rule.text == ""
    assert sign_in.get_attribute("aria-describedby") is None
    sign_in.click()
    page.wait_toast("Signed in as ann@example.com")
    page.assert_no_bad_message()


def test_cancel_on_the_contact_sheet_says_contact_cancelled(host, desktop):
    page = desktop
    page.open(host.base)
    page.tap("contact")
    page.button(page.dialog(), "Cancel").click()
    page.wait_toast("Contact cancelled")
    page.no_dialog()
    page.wait_idle("contact")


class SilentService:
    """A loopback port that takes connections and never answers (a hung sign-in service)."""

    def __init__(self):
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(16)
        self.port = self.socket.getsockname()[1]

    def close(self):
        self.socket.close()


def login_host(issuer):
    return RestartableHost("--web-root", os.path.join(ROOT, "web"), "--oidc-issuer", issuer,
                           "--oidc-client-id", "remote-modal-demo")


def test_log_in_with_the_provider_down_says_so_in_plain_words(desktop):
    host = login_host(f"http://127.0.0.1:{free_port()}")      # nothing listens there
    try:
        page = desktop
        page.open(host.base)
        page.tap("login")
        page.wait().until(lambda d: any("sign-in service is not answering" in t for t in page.toasts()))
        toast = next(t for t in page.toasts() if "sign-in service" in t)
        assert toast.startswith("Log in is not possible right now. The sign-in service is not answering"), toast
        assert "NSURLErrorDomain" not in " ".join(page.toasts()) and "Error Domain" not in toast
        page.screenshot("login-provider-down")
        page.wait_idle("login")
        page.no_dialog()
    finally:
        host.stop()


def test_log_in_with_the_provider_hung_can_be_cancelled_and_ends_in_words(desktop):
    service = SilentService()
    host = login_host(f"http://127.0.0.1:{service.port}")
    try:
        page = desktop
        page.open(host.base)
        page.tap("login")
        # While the service says nothing, a dialog says what is going on, with a way out.
        dialog = page.dialog(seconds=10)
        assert "Contacting the sign-in service" in dialog.text
        page.screenshot("login-provider-hung")
        page.button(dialog, "Cancel").click()
        page.wait_toast("Log in cancelled")
        page.no_dialog()
        page.wait_idle("login")
        # Left to wait, it ends by itself within its bound, in words, and the dialog goes.
        page.tap("login")
        page.dialog(seconds=10)
        page.wait(20).until(lambda d: any("no reply within 8 s" in t for t in page.toasts()))
        page.no_dialog()
        page.wait_idle("login")
        assert "NSURLErrorDomain" not in " ".join(page.toasts())
        page.assert_no_bad_message()
    finally:
        host.stop()
        service.close()

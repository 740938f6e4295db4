"""Every way a person could get stuck in a dialog, tried in a real browser: each asserts what
the person sees afterwards and what the host received (no bad_message, the control not busy,
the right status)."""
import http.server
import json
import os
import signal
import threading
import time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from browser_support import Peer, RestartableHost
from hosts import ROOT
from test_heartbeat import noticed_within


def press(page, *keys):
    page.driver.switch_to.active_element.send_keys(*keys)


def test_escape_twice_on_an_alert_without_cancel_keeps_it_and_says_so(host, desktop):
    page = desktop
    page.open(host.base, "?group=team&name=approver")
    asker = Peer(host.url, name="asker", group="team")
    try:
        asker.tap("approve")
        dialog = page.dialog()
        modal_id = page.modal_id(dialog)
        for _ in range(2):                       # Chromium closes a dialog on the second Escape by itself
            press(page, Keys.ESCAPE)
            time.sleep(0.3)
        assert page.finds("dialog.modal[open]"), "the dialog is still there"
        page.wait().until(lambda d: dialog.find_element(By.CSS_SELECTOR, ".hint-line").text == "Please choose one of the options")
        # A click on the backdrop is refused the same way.
        ActionChains(page.driver).move_by_offset(5, 5).click().perform()
        assert page.finds("dialog.modal[open]")
        page.screenshot("approve-escape-refused")
        assert page.answers(modal_id) == [], "nothing was sent for Escape"
        page.button(dialog, "Approve").click()
        page.wait_toast("Approved by approver")
        assert asker.expect("status", text="Approved by approver")
        page.no_dialog()
        assert [m["value"] for m in page.answers(modal_id)] == [{"action": 0, "textFields": []}]
        page.assert_no_bad_message()
    finally:
        asker.close()


def test_the_requester_cannot_approve_its_own_request_and_can_withdraw_it(host, desktop):
    page = desktop
    page.open(host.base, "?group=team&name=asker")
    approver = Peer(host.url, name="boss", group="team")
    try:
        page.tap("approve")
        page.wait().until(lambda d: page.control_busy("approve"))   # the requester's control shows it is waiting
        dialog = page.dialog()                                       # its own copy: Approve disabled
        assert not page.button(dialog, "Approve").is_enabled(), "no approving of one's own request"
        assert page.button(dialog, "Reject").is_enabled()
        # It says why Approve is disabled, under the buttons' row, and the button points to it.
        waiting = "Waiting for another screen of the group to approve. Reject withdraws your request."
        assert dialog.find_element(By.CSS_SELECTOR, ".rule-line").text == waiting
        assert page.button(dialog, "Approve").get_attribute("aria-describedby") == f"rule-{page.modal_id(dialog)}"
        page.screenshot("approval-own-copy")
        # Escape (there is no Cancel) shakes it, says it does not close the request and points
        # at that rule, not at "Please choose one of the options".
        press(page, Keys.ESCAPE)
        page.wait().until(lambda d: "shake" in dialog.get_attribute("class"))
        assert dialog.find_element(By.CSS_SELECTOR, ".hint-line").text == "Escape does not close this request."
        assert dialog.find_element(By.CSS_SELECTOR, ".rule-line").text == waiting
        assert "Please choose one of the options" not in dialog.text
        present = approver.expect("present")
        assert present["modal"]["title"] == "Approve request?"
        assert [a["enabled"] for a in present["modal"]["actions"]] == [True, True]
        approver.call(approver.client.send({"type": "result", "id": present["id"], "value": {"action": 0}}))
        page.wait_toast("Approved by boss")
        page.no_dialog()                                             # superseded
        page.wait_idle("approve")
        # Asked again, the requester withdraws it: the others' copies go.
        page.tap("approve")
        dialog = page.dialog()
        again = approver.expect("present")
        page.button(dialog, "Reject").click()
        page.wait_toast("Request withdrawn by asker")
        assert not [t for t in page.toasts() if "Rejected by" in t], "a withdrawal is no rejection"
        assert approver.expect("dismiss", id=again["id"])["reason"] == "superseded"
        page.wait_idle("approve")
        page.assert_no_bad_message()
    finally:
        approver.close()


def test_a_request_nobody_else_can_approve_says_so(host, desktop):
    page = desktop
    page.open(host.base)
    page.tap("approve")
    dialog = page.dialog()
    assert "open the page twice with ?group=NAME (kiosks: --group)" in dialog.text
    assert not page.button(dialog, "Approve").is_enabled()
    page.button(dialog, "Reject").click()        # the only way out: withdraw it
    page.wait_toast("Request withdrawn by browser")
    page.no_dialog()
    page.wait_idle("approve")


def test_escape_in_the_login_dialog_closes_the_window_and_cancels(oidc_host, desktop):
    page = desktop
    page.open(oidc_host.base)
    page.tap("login")
    dialog = page.dialog()
    modal_id = page.modal_id(dialog)
    page.wait().until(lambda d: len(d.window_handles) == 2)
    page.driver.switch_to.window(page.driver.window_handles[0])
    press(page, Keys.ESCAPE)
    page.wait_toast("Log in cancelled")
    page.wait().until(lambda d: len(d.window_handles) == 1)
    page.no_dialog()
    page.wait_idle("login")
    assert page.answers(modal_id) == [{"type": "failure", "id": modal_id, "code": "cancelled"}]
    page.assert_no_bad_message()


def test_closing_the_login_window_cancels(oidc_host, desktop):
    page = desktop
    page.open(oidc_host.base)
    main = page.driver.current_window_handle
    page.tap("login")
    modal_id = page.modal_id(page.dialog())
    page.wait().until(lambda d: len(d.window_handles) == 2)
    page.driver.switch_to.window(next(h for h in page.driver.window_handles if h != main))
    page.driver.close()
    page.driver.switch_to.window(main)
    page.wait_toast("Log in cancelled")
    page.wait_idle("login")
    assert page.answers(modal_id) == [{"type": "failure", "id": modal_id, "code": "cancelled"}]
    page.assert_no_bad_message()


def test_photo_picker_escape_and_cancel_answer_cancelled(host, page):
    page.open(host.base)
    for how in ("escape", "button"):
        page.tap("photo")
        dialog = page.dialog()
        modal_id = page.modal_id(dialog)
        if how == "escape":
            press(page, Keys.ESCAPE)
        else:
            page.button(dialog, "Cancel").click()
        page.no_dialog()
        page.wait_idle("photo")
        assert page.answers(modal_id) == [{"type": "failure", "id": modal_id, "code": "cancelled"}], how
    assert page.toasts().count("Photos cancelled") == 2
    assert not [t for t in page.toasts() if t.startswith("Received")], "a cancel is not a success"
    assert not page.sent("result"), "no stray result"
    page.assert_no_bad_message()


def test_enter_in_the_mail_to_field_does_not_send(host, desktop):
    page = desktop
    page.open(host.base)
    dialog = page.composer("Mail")
    to = dialog.find_element(By.CSS_SELECTOR, "input[name=to]")
    to.click()
    to.send_keys(", ann@example.com", Keys.ENTER)
    time.sleep(0.5)
    assert dialog.get_attribute("open") is not None, "Enter did not send"
    assert page.driver.switch_to.active_element.get_attribute("name") == "cc", "Enter moves to the next field"
    assert not [m for m in page.sent("result") if "mail" in m["value"]]
    # Escape after typing asks first: what was written is not thrown away by one key.
    press(page, Keys.ESCAPE)
    page.wait(3).until(lambda d: "Press Escape again to discard what you wrote" in dialog.text)
    assert dialog.get_attribute("open") is not None
    # Typing meanwhile disarms it: the next Escape asks again.
    press(page, "x")
    press(page, Keys.ESCAPE)
    time.sleep(0.5)
    assert dialog.get_attribute("open") is not None, "typed since the first Escape: it asks again"
    assert not [m for m in page.sent("result") if "mail" in m["value"]]
    # The second Escape discards however late it comes (the cold trial's came after 5 s and
    # only asked again), as the kiosk's does.
    time.sleep(5)
    press(page, Keys.ESCAPE)                 # the second is the composer's Cancel: a value, not a failure
    page.wait_toast("Mail cancelled")
    [answer] = [m for m in page.sent("result") if "mail" in m["value"]]
    assert answer["value"]["status"] == "cancelled"
    assert answer["value"]["mail"]["to"] == ["support@example.com", "ann@example.com"]
    assert answer["value"]["mail"]["cc"] == ["x"], "the letter typed between the Escapes is in the answer"
    page.wait_idle("contact")
    page.assert_no_bad_message()


def test_a_tap_outside_a_sheet_is_its_cancel(host, phone):
    page = phone
    page.open(host.base)
    page.tap("country")
    dialog = page.dialog()
    modal_id = page.modal_id(dialog)
    # The phone sheet sits at the bottom; the top of the screen is backdrop.
    ActionChains(page.driver).move_to_element_with_offset(page.find("body"), 0, 0).move_by_offset(0, -300).click().perform()
    page.wait_toast("Country choice cancelled")
    page.no_dialog()
    assert [m["value"] for m in page.answers(modal_id)] == [{"action": 3}]
    page.wait_idle("country")
    page.assert_no_bad_message()


class HungProvider:
    """An OpenID provider whose discovery answers and whose sign-in page never does (it took
    the request and hangs): the window the page opens stays blank."""

    def __init__(self):
        provider = self
        self.release = threading.Event()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                if self.path.startswith("/.well-known/openid-configuration"):
                    body = json.dumps({"issuer": provider.issuer,
                                       "authorization_endpoint": f"{provider.issuer}/authorize"}).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                else:
                    provider.release.wait(60)          # hung: nothing until the test ends

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def issuer(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def test_a_hung_sign_in_window_is_named_with_a_way_out(desktop):
    """The provider takes the sign-in request and never answers: the dialog said "this closes
    by itself" with a blank window for ever. It says from the start what to do if the window
    stays blank, and Cancel closes the window and ends the flow in words."""
    page = desktop
    provider = HungProvider()
    host = RestartableHost("--web-root", os.path.join(ROOT, "web"), "--oidc-issuer", provider.issuer, "--oidc-client-id", "remote-modal-demo")
    try:
        page.open(host.base)
        main = page.driver.current_window_handle
        page.tap("login")
        dialog = page.dialog()
        modal_id = page.modal_id(dialog)
        page.wait().until(lambda d: len(d.window_handles) == 2)
        time.sleep(2)                                   # the window loads nothing
        page.driver.switch_to.window(main)
        assert "If that window stays blank or shows an error you cannot get past, press Cancel and try again later." \
            in dialog.text, dialog.text
        page.screenshot("sign-in-window-hung")
        page.button(dialog, "Cancel").click()
        page.wait_toast("Log in cancelled")
        page.wait().until(lambda d: len(d.window_handles) == 1)
        page.no_dialog()
        page.wait_idle("login")
        assert page.answers(modal_id) == [{"type": "failure", "id": modal_id, "code": "cancelled"}]
        page.assert_no_bad_message()
    finally:
        host.stop()
        provider.stop()


def test_an_approval_given_while_the_requester_was_away_is_said_in_its_ended_notice(host, desktop):
    """Issue 32's cold trial: the host stopped, the other screen approved meanwhile; back, the
    requester's page said only "This request ended while the host could not be reached", and
    the "Approved by boss" that ended it went with its toast after 8 s. The notice says it."""
    page = desktop
    page.open(host.base, "?group=team&name=asker")
    approver = Peer(host.url, name="boss", group="team")
    try:
        page.tap("approve")
        page.dialog()
        present = approver.expect("present")
        host.process.send_signal(signal.SIGSTOP)
        try:
            noticed_within(page, 10)
            approver.call(approver.client.send({"type": "result", "id": present["id"], "value": {"action": 0}}))
        finally:
            host.process.send_signal(signal.SIGCONT)
        page.wait(40).until(lambda d: page.connection_state() == "open")
        notice = "return document.querySelector('dialog.modal.notice[open]')?.innerText ?? ''"
        page.wait(20).until(lambda d: "Request ended" in page.script(notice))
        page.wait(5).until(lambda d: "\u201CApproved by boss\u201D" in page.script(notice))
        text = page.script(notice)
        assert "This request ended while the host could not be reached." in text, text
        assert "The host said meanwhile: \u201CApproved by boss\u201D" in text, text
        time.sleep(9)                              # past the toast's 8 s: the notice still says it
        assert "Approved by boss" not in page.toasts()
        assert "The host said meanwhile: \u201CApproved by boss\u201D" in page.script(notice)
        page.screenshot("ended-notice-says-the-approval")
        page.assert_no_bad_message()
    finally:
        approver.close()


def notice_once_back(page, proxy, *words):
    """Restores the cut network, waits for the page to be back and for its notice to hold
    `words`; returns the notice's text."""
    proxy.restore()
    page.wait(40).until(lambda d: page.connection_state() == "open")
    notice = "return document.querySelector('dialog.modal.notice[open]')?.innerText ?? ''"
    for said in words:
        page.wait(20).until(lambda d: said in page.script(notice))
    return page.script(notice)


def test_an_approval_given_while_the_requesters_network_was_cut_is_said_in_its_ended_notice(host, proxy, desktop):
    """The second cold trial: the requester's network cut (its session away from the host's
    view, unlike a stopped host), the other screen approved; back, the page said only "This
    request ended…": the outcome went to connected screens only. Now the host keeps it for
    the requester's resume and the notice says it."""
    page = desktop
    page.open(proxy.base, "?group=team&name=asker")
    approver = Peer(host.url, name="boss", group="team")
    try:
        page.tap("approve")
        page.dialog()
        present = approver.expect("present")
        proxy.cut()
        page.wait(20).until(lambda d: page.connection_state() == "reconnecting")
        time.sleep(1)
        approver.call(approver.client.send({"type": "result", "id": present["id"], "value": {"action": 0}}))
        assert approver.expect("status", text="Approved by boss")
        text = notice_once_back(page, proxy, "Request ended", "\u201CApproved by boss\u201D")
        assert "The host said meanwhile: \u201CApproved by boss\u201D" in text, text
        page.screenshot("ended-notice-after-a-cut-says-the-approval")
        page.assert_no_bad_message()
    finally:
        approver.close()


def test_an_approval_answered_while_cut_off_after_another_screen_rejected_is_told_not_used(host, proxy, desktop):
    """The third cold trial: the page, cut off, pressed Approve (kept for the host); another
    screen rejected meanwhile. Back, the kept answer went and the dialog vanished with no
    word: neither that the Approve was not used nor that the request was rejected."""
    page = desktop
    page.open(proxy.base, "?group=team&name=approver")
    asker = Peer(host.url, name="asker", group="team")
    rejecter = Peer(host.url, name="boss", group="team")
    try:
        asker.tap("approve")
        dialog = page.dialog()
        present = rejecter.expect("present")
        proxy.cut()
        page.wait(20).until(lambda d: page.connection_state() == "reconnecting")
        page.button(dialog, "Approve").click()
        rejecter.call(rejecter.client.send({"type": "result", "id": present["id"], "value": {"action": 1}}))
        assert rejecter.expect("status", text="Rejected by boss")
        text = notice_once_back(page, proxy, "was not used")
        assert ("Your \u201CApprove\u201D on \u201CApprove request?\u201D was not used: another screen of the group "
                "answered first.") in text, text
        assert "The host said meanwhile: \u201CRejected by boss\u201D" in text, text
        page.wait_toast("Rejected by boss")
        page.screenshot("approve-not-used-after-a-cut")
        page.assert_no_bad_message()
    finally:
        asker.close()
        rejecter.close()

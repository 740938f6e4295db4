"""Issue #32's cold-trial leftovers in the page (Chromium against a real modal-host): a tap
while the host is unreachable is kept, shown and sent once; a host restart names the dialog it
closed and brings back what was typed (a saved draft too); the requester's copy of an approval
answers Escape in words and its disabled Approve is not drawn as the primary action. Each
failed on the page before its fix."""
import time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from browser_support import CuttableProxy, Peer, RestartableHost
from test_connection import banner_text
from test_words import field

SIGN_IN_CLOSED = "The host restarted; “Sign in” was closed. What you typed comes back if you open it again within 2 minutes."


def offline(page, proxy):
    """Cuts the network and waits until the page says it is reconnecting."""
    proxy.cut()
    page.wait().until(lambda d: "Reconnecting… attempt" in banner_text(page))


def test_a_control_tapped_while_the_host_is_unreachable_is_kept_shown_and_sent_once(host, proxy, page):
    page.open(proxy.base)
    offline(page, proxy)
    page.tap("country")
    page.wait(3).until(lambda d: "Saved: “Choose country” goes when the host is back." in banner_text(page))
    assert page.control_busy("country"), "the button shows the tap is pending"
    page.tap("country")                              # a second tap is the same one, kept once
    assert banner_text(page).count("Choose country") == 1, banner_text(page)
    page.screenshot("control-kept-offline")
    assert page.sent("event") == [], "nothing could go"
    page.restore_before_retry(proxy)
    page.find("#retry").click()
    dialog = page.dialog()
    assert "Choose a country" in dialog.text
    # The second cold trial: the dialog a kept tap opens says where it came from.
    line = dialog.find_element(By.CSS_SELECTOR, ".carried-line").text
    assert line.startswith("This opened from the tap on “Choose country”"), line
    assert line.endswith("kept while the host was away and sent when it was back. Cancel it if it is not yours."), line
    page.screenshot("kept-tap-dialog-says-where-it-came-from")
    time.sleep(1)
    assert [m["control"] for m in page.sent("event")] == ["country"], "sent exactly once"
    assert not page.find("#kept-taps").is_displayed()
    page.button(dialog, "Japan").click()
    page.wait_toast("Country: Japan")
    page.assert_no_bad_message()


def test_a_tap_kept_longer_than_keep_taps_for_is_dropped_and_said(host, proxy, page):
    """A tap kept while the host was away opened its dialog 90 s later, for whoever stood at
    the screen then (issue 32's cold trial, finding 5): past `?keepTapsFor=` (60 s by default)
    it is dropped, the person is told, and the host back later opens nothing for it."""
    page.open(proxy.base, "?keepTapsFor=3")
    offline(page, proxy)
    page.tap("country")
    page.wait(3).until(lambda d: "Saved: “Choose country” goes when the host is back." in banner_text(page))
    page.wait_toast("“Choose country” was not sent: the host was away for more than 3 s. "
                    "Tap again once the host is back.", seconds=6)
    assert not page.control_busy("country"), "the button no longer says it is pending"
    assert not page.find("#kept-taps").is_displayed()
    page.screenshot("control-kept-offline-expired")
    page.restore_before_retry(proxy)
    page.find("#retry").click()
    page.wait().until(lambda d: page.connection_state() == "open")
    time.sleep(1.5)
    assert page.sent("event") == [], "the expired tap never went"
    page.no_dialog(seconds=1)
    page.assert_no_bad_message()


def test_a_control_tapped_offline_is_kept_across_a_reload_and_sent_exactly_once(host, proxy, desktop):
    """The tap is kept in the tab's session storage as typed text is: a reload while the host
    cannot be reached says it is still saved, and it goes once, never again after another
    reload."""
    page = desktop
    page.open(proxy.base)
    proxy.cut()
    proxy.refuse_websockets()                        # the page loads, its socket cannot connect
    proxy.restore()
    page.wait().until(lambda d: "Reconnecting… attempt" in banner_text(page))
    page.tap("country")
    page.wait(3).until(lambda d: "Saved: “Choose country” goes when the host is back." in banner_text(page))
    page.driver.refresh()
    page.wait(10).until(lambda d: page.connection_state() == "reconnecting")
    said = "Saved before the page was reloaded: “Choose country” goes when the host is back."
    page.wait(5).until(lambda d: said in banner_text(page))
    page.screenshot("control-kept-across-reload")
    assert page.sent("event") == [], "nothing could go"
    proxy.refuse_websockets(False)                   # the host is back: the page reconnects by itself
    dialog = page.dialog()
    assert "Choose a country" in dialog.text
    time.sleep(1)
    assert [m["control"] for m in page.sent("event")] == ["country"], "sent exactly once"
    assert not page.find("#kept-taps").is_displayed()
    assert page.script("return sessionStorage.getItem('remote-modal.taps')") is None, "out of the store once sent"
    page.driver.refresh()                            # a reload after it went sends nothing again
    page.wait(10).until(lambda d: page.connection_state() == "open")
    dialog = page.dialog()                           # the same sheet, presented again on the resume
    time.sleep(1)
    assert [m["control"] for m in page.sent("event")] == ["country"], "never twice"
    page.button(dialog, "Japan").click()
    page.wait_toast("Country: Japan")
    page.assert_no_bad_message()


def test_a_disabled_sign_in_tapped_offline_is_kept_and_goes_when_the_host_is_back(host, proxy, desktop):
    """Typed offline, the host cannot enable Sign In: a tap on it is kept, not lost in silence."""
    page = desktop
    page.open(proxy.base)
    page.tap("signIn")
    dialog = page.dialog()
    modal_id = page.modal_id(dialog)
    offline(page, proxy)
    email, password = dialog.find_elements(By.TAG_NAME, "input")
    email.send_keys("cora@example.com")
    password.send_keys("secret")
    sign_in = page.button(dialog, "Sign In")
    assert not sign_in.is_enabled()
    # Typed while the host cannot be reached: not checked, never the rule as if they broke it.
    rule = dialog.find_element(By.CSS_SELECTOR, ".rule-line")
    assert rule.text == "Not checked yet: the host cannot be reached.", rule.text
    ActionChains(page.driver).move_to_element(sign_in).click().perform()
    hint = dialog.find_element(By.CSS_SELECTOR, ".hint-line")
    page.wait(3).until(lambda d: hint.text == "Saved: “Sign In” goes when the host is back")
    assert sign_in.get_attribute("aria-busy") == "true", "the button shows it is pending"
    page.screenshot("sign-in-kept-offline")
    time.sleep(7)                                    # past the 6 s a refusal's hint lasts
    assert hint.text == "Saved: “Sign In” goes when the host is back"
    page.restore_before_retry(proxy)
    dialog.find_element(By.CSS_SELECTOR, ".connection-line button").click()
    page.wait_toast("Signed in as cora@example.com", seconds=15)
    page.no_dialog()
    time.sleep(1)
    results = [m for m in page.answers(modal_id) if m["type"] == "result"]
    assert [r["value"] for r in results] == [{"action": 1, "textFields": ["cora@example.com", "secret"]}], results
    page.assert_no_bad_message()


def test_a_kept_tap_the_host_then_refuses_says_the_rule_once_back(host, proxy, desktop):
    page = desktop
    page.open(proxy.base)
    page.tap("signIn")
    dialog = page.dialog()
    modal_id = page.modal_id(dialog)
    offline(page, proxy)
    email, password = dialog.find_elements(By.TAG_NAME, "input")
    email.send_keys("cora")                          # no @: the host's rule refuses it
    password.send_keys("secret")
    sign_in = page.button(dialog, "Sign In")
    ActionChains(page.driver).move_to_element(sign_in).click().perform()
    hint = dialog.find_element(By.CSS_SELECTOR, ".hint-line")
    page.wait(3).until(lambda d: hint.text == "Saved: “Sign In” goes when the host is back")
    page.restore_before_retry(proxy)
    dialog.find_element(By.CSS_SELECTOR, ".connection-line button").click()
    page.wait(15).until(lambda d: hint.text.startswith("“Sign In” is not available with what is filled in"))
    assert sign_in.get_attribute("aria-busy") == "false"
    page.screenshot("kept-tap-refused-once-back")
    assert page.answers(modal_id) == [], "nothing was answered for it"
    page.assert_no_bad_message()


def test_a_host_restart_names_the_dialog_and_brings_back_what_was_typed(host, page):
    page.open(host.base)
    page.tap("signIn")
    dialog = page.dialog()
    email, password = dialog.find_elements(By.TAG_NAME, "input")
    email.send_keys("dana@example.com")
    password.send_keys("secret")
    host.kill()
    host.start_again()
    page.wait(15).until(lambda d: [n.text for n in page.finds("dialog.notice .message")] == [SIGN_IN_CLOSED])
    assert page.find("dialog.notice h2").text == "Sign in"
    assert "Request cancelled" not in page.find("dialog.notice").text
    page.screenshot("restart-names-the-dialog")
    page.button(page.find("dialog.notice"), "OK").click()
    page.tap("signIn")
    dialog = page.dialog()
    email, password = dialog.find_elements(By.TAG_NAME, "input")
    assert email.get_attribute("value") == "dana@example.com"
    assert password.get_attribute("value") == "", "a password is never kept"
    assert dialog.find_element(By.CSS_SELECTOR, ".carried-line").text == \
        "Filled in again with what you typed before the host restarted."
    page.screenshot("restart-typed-text-back")
    password.send_keys("secret")
    page.wait().until(lambda d: page.button(dialog, "Sign In").is_enabled())
    page.button(dialog, "Sign In").click()
    page.wait_toast("Signed in as dana@example.com")
    # Used once: the next Sign in starts empty.
    page.wait_idle("signIn")
    page.tap("signIn")
    assert page.dialog().find_elements(By.TAG_NAME, "input")[0].get_attribute("value") == ""
    page.assert_no_bad_message()


def save_a_draft(page, host, subject_text):
    """Opens the page, writes `subject_text` as the mail's subject and saves it as a draft."""
    page.open(host.base)
    dialog = page.composer("Mail")
    subject = field(dialog, "Subject")
    subject.clear()
    subject.send_keys(subject_text)
    page.button(dialog, "Save draft").click()
    page.wait_toast("Mail saved as a draft on the host: Mail opens it again on this screen for 5 minutes, then it is deleted (sooner if the host restarts or the screen is away too long)")
    page.wait_idle("contact")


def test_a_saved_draft_outlives_a_host_restart_and_says_so(host, desktop):
    page = desktop
    save_a_draft(page, host, "Lift broken again")
    host.kill()
    host.start_again()
    page.wait_toast("The host restarted: this screen starts afresh. What you saved comes back if you open it again within 2 minutes.",
                    seconds=15)
    page.screenshot("restart-draft-kept")
    dialog = page.composer("Mail")
    assert field(dialog, "Subject").get_attribute("value") == "Lift broken again"
    assert field(dialog, "To").get_attribute("value") == "support@example.com"
    assert dialog.find_element(By.CSS_SELECTOR, ".carried-line").text == \
        "Your saved draft is back: the host lost it when it restarted."
    page.screenshot("restart-draft-back")
    page.button(dialog, "Send").click()
    page.wait_toast("Mail sent")
    page.assert_no_bad_message()


def test_a_draft_sent_since_it_was_saved_does_not_come_back_after_a_restart(host, desktop):
    page = desktop
    save_a_draft(page, host, "Lift broken again")
    dialog = page.composer("Mail")
    page.button(dialog, "Send").click()              # the saved draft, sent: done with
    page.wait_toast("Mail sent")
    page.wait_idle("contact")
    host.kill()
    host.start_again()
    page.wait_toast("The host restarted: this screen starts afresh.", seconds=15)
    assert "What you saved" not in page.toasts()[-1], page.toasts()
    dialog = page.composer("Mail")
    assert field(dialog, "Subject").get_attribute("value") == "Hello"
    assert not dialog.find_elements(By.CSS_SELECTOR, ".carried-line")
    page.assert_no_bad_message()


def requesters_copy(page, host):
    """The page asks for an approval in group "team" (a second screen, "boss", could give it):
    its own copy of the request, Approve disabled."""
    page.open(host.base, "?group=team&name=asker")
    approver = Peer(host.url, name="boss", group="team")
    page.tap("approve")
    dialog = page.dialog()
    approver.expect("present")
    assert not page.button(dialog, "Approve").is_enabled()
    return approver, dialog


def withdraw(page, approver, dialog):
    page.button(dialog, "Reject").click()
    page.wait_toast("Request withdrawn by asker")
    page.assert_no_bad_message()


def test_escape_on_the_requesters_copy_says_it_does_not_close(host, desktop):
    page = desktop
    approver, dialog = requesters_copy(page, host)
    try:
        page.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
        hint = dialog.find_element(By.CSS_SELECTOR, ".hint-line")
        page.wait(3).until(lambda d: hint.text == "Escape does not close this request.")
        assert "Waiting for another screen of the group to approve" in dialog.find_element(By.CSS_SELECTOR, ".rule-line").text
        page.screenshot("approval-own-copy-escape")
        withdraw(page, approver, dialog)
    finally:
        approver.close()


def test_the_requesters_disabled_approve_is_not_drawn_as_the_primary_action(host, desktop):
    page = desktop
    approver, dialog = requesters_copy(page, host)
    try:
        approve = page.button(dialog, "Approve")
        # Not the accent background an enabled preferred action has, and a dashed border.
        looks = page.script("const s = (n) => getComputedStyle(n);"
                            "const probe = document.createElement('button'); probe.className = 'action preferred';"
                            "arguments[0].parentElement.append(probe); const accent = s(probe).backgroundColor; probe.remove();"
                            "return [s(arguments[0]).backgroundColor, accent, s(arguments[0]).borderTopStyle]", approve)
        assert looks[0] != looks[1], looks
        assert looks[2] == "dashed", looks
        page.both_schemes("approval-own-copy-disabled-approve")
        withdraw(page, approver, dialog)
    finally:
        approver.close()


def test_typed_text_a_restart_kept_is_forgotten_after_forget_typed_after(host, page):
    """On a shared screen what one person typed does not come back for the next: past
    `?forgetTypedAfter=` seconds (default 120) the same flow opens empty, and the notice
    said how long it would come back for."""
    page.open(host.base, "?forgetTypedAfter=3")
    page.tap("signIn")
    email, _ = page.dialog().find_elements(By.TAG_NAME, "input")
    email.send_keys("dana@example.com")
    host.kill()
    host.start_again()
    closed = "The host restarted; “Sign in” was closed. What you typed comes back if you open it again within 3 s."
    page.wait(15).until(lambda d: [n.text for n in page.finds("dialog.notice .message")] == [closed])
    kept = page.script("return sessionStorage.getItem('remote-modal.carry')")
    assert "dana@example.com" in kept, kept
    time.sleep(3.5)
    page.button(page.find("dialog.notice"), "OK").click()
    page.tap("signIn")
    dialog = page.dialog()
    assert dialog.find_elements(By.TAG_NAME, "input")[0].get_attribute("value") == "", "the next passer-by finds it empty"
    assert not dialog.find_elements(By.CSS_SELECTOR, ".carried-line")
    assert "dana" not in (page.script("return sessionStorage.getItem('remote-modal.carry')") or ""), "gone from storage too"
    page.screenshot("typed-text-forgotten")
    page.assert_no_bad_message()


def test_an_unsent_mail_in_a_notice_is_cleared_from_the_screen_after_a_while(host, desktop):
    """A composer the host lost keeps its text in the notice to copy, for
    `?forgetTypedAfter=` seconds; then the notice says it was cleared, and the text is gone
    from the page (not merely hidden)."""
    page = desktop
    page.open(host.base, "?forgetTypedAfter=4")
    dialog = page.composer("Mail")
    dialog.find_element(By.CSS_SELECTOR, "textarea").send_keys(" My flat number is 12.")
    host.kill()
    host.start_again()
    page.wait(15).until(lambda d: page.finds("dialog.notice textarea.kept-text"))
    assert "My flat number is 12." in page.find("dialog.notice textarea.kept-text").get_attribute("value")
    page.screenshot("unsent-mail-kept")
    page.wait(10).until(lambda d: not page.finds("dialog.notice textarea.kept-text"))
    notice = page.find("dialog.notice")
    assert "What was written in “New mail” was not sent; cleared from this screen after 4 s." in notice.text, notice.text
    assert notice.find_element(By.CSS_SELECTOR, ".message").text == "The host restarted; “New mail” was closed.", \
        "it no longer says it comes back"
    assert "flat number" not in page.script("return document.body.innerHTML"), "gone from the page, not hidden"
    page.wait(2).until(lambda d: "flat number" not in (page.script("return sessionStorage.getItem('remote-modal.carry')") or ""))
    assert not notice.find_elements(By.XPATH, ".//button[normalize-space()='Copy']")
    page.screenshot("unsent-mail-cleared")
    page.button(notice, "OK").click()
    assert not page.finds("dialog.notice")
    page.assert_no_bad_message()


def test_forget_typed_after_zero_keeps_nothing_on_screen(host, desktop):
    """`?forgetTypedAfter=0`: an unsent mail's text is never drawn, and nothing comes back."""
    page = desktop
    page.open(host.base, "?forgetTypedAfter=0")
    dialog = page.composer("Mail")
    dialog.find_element(By.CSS_SELECTOR, "textarea").send_keys(" My flat number is 12.")
    host.kill()
    host.start_again()
    page.wait(15).until(lambda d: "The host restarted; “New mail” was closed." in
                        [n.text for n in page.finds("dialog.notice .message")])
    notice = page.find("dialog.notice")
    assert "What was written in “New mail” was not sent; it is not shown on this screen." in notice.text, notice.text
    assert not page.finds("dialog.notice textarea.kept-text")
    assert "flat number" not in page.script("return document.body.innerHTML")
    page.button(notice, "OK").click()
    dialog = page.composer("Mail")
    assert "flat number" not in dialog.find_element(By.CSS_SELECTOR, "textarea").get_attribute("value")
    assert not dialog.find_elements(By.CSS_SELECTOR, ".carried-line")
    page.assert_no_bad_message()


def test_a_mail_half_written_then_reloaded_during_a_long_outage_comes_back_and_says_so(desktop):
    """The third cold trial: a mail half written, the network lost, the page reloaded and the
    host back after its retention: the mail was gone without a word (the page kept it only
    for the session that had expired)."""
    page = desktop
    host = RestartableHost("--retention", "3")
    proxy = CuttableProxy(host.port)
    try:
        page.open(proxy.base, "")
        dialog = page.composer("Mail")
        subject = field(dialog, "Subject")
        subject.clear()
        subject.send_keys("Half-written: the lift is broken")
        proxy.refuse_websockets()
        proxy.cut()                                 # the network goes...
        proxy.restore()                             # ...the page still loads, its socket does not
        page.wait(20).until(lambda d: page.connection_state() == "reconnecting")
        page.driver.refresh()
        page.wait(10).until(lambda d: page.find("h1").text == "remote-modal")
        time.sleep(4.5)                             # past the host's 3 s retention
        proxy.refuse_websockets(False)
        page.wait_toast("This screen was away from the host too long: it starts afresh. What you were writing "
                        "comes back if you open it again within 2 minutes.", seconds=20)
        page.screenshot("reload-long-outage-mail-kept")
        dialog = page.composer("Mail")
        assert field(dialog, "Subject").get_attribute("value") == "Half-written: the lift is broken"
        assert dialog.find_element(By.CSS_SELECTOR, ".carried-line").text == \
            "Filled in again with what you typed before this screen was away from the host too long."
        page.screenshot("reload-long-outage-mail-back")
        page.assert_no_bad_message()
    finally:
        proxy.stop()
        host.stop()

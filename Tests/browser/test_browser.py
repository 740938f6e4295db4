"""The web front end in a real browser against a real modal-host: the happy paths, clicking
and typing as a person would."""
import time
from urllib.parse import quote

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC

from browser_support import Peer
from hosts import received_photos
from pictures import make_png


def test_sign_in_enabled_only_when_valid(host, page):
    page.open(host.base)
    page.tap("signIn")
    dialog = page.dialog()
    assert dialog.get_attribute("role") == "alertdialog"
    assert dialog.find_element(By.TAG_NAME, "h2").text == "Sign in"
    described = dialog.get_attribute("aria-describedby")
    assert dialog.find_element(By.ID, described).text == "Please sign in"
    email, password = dialog.find_elements(By.TAG_NAME, "input")
    assert email.get_attribute("type") == "email" and email.get_attribute("autocomplete") == "email"
    assert password.get_attribute("type") == "password"
    assert page.driver.switch_to.active_element == email, "focus moves into the modal"
    sign_in = dialog.find_element(By.CSS_SELECTOR, "button.preferred")
    assert sign_in.text == "Sign In" and not sign_in.is_enabled()
    page.wait().until(lambda d: page.control_busy("signIn"))
    width = page.control("signIn").size["width"]
    email.send_keys("ann@example.com")
    assert not sign_in.is_enabled()
    password.send_keys("secret")
    page.wait().until(lambda d: sign_in.is_enabled())
    password.send_keys(Keys.ENTER)            # Enter in a field picks the preferred action
    page.wait_toast("Signed in as ann@example.com")
    page.no_dialog()
    page.wait_idle("signIn")
    assert page.control("signIn").size["width"] == width, "a busy control keeps its width"
    page.assert_no_bad_message()


def test_enter_right_after_pasting_waits_for_the_host_and_signs_in(host, page):
    # Autofill or a paste fills both fields at once and Enter follows at once, before the
    # 100 ms input timer has sent them: the host has not enabled Sign In yet. The values go
    # at once and Sign In runs when the host enables it; Enter is not refused or lost.
    page.open(host.base)
    page.tap("signIn")
    dialog = page.dialog()
    email, password = dialog.find_elements(By.TAG_NAME, "input")
    page.script("""
        const [email, password] = arguments;
        email.value = 'paste@example.com';
        email.dispatchEvent(new Event('input', {bubbles: true}));
        password.value = 'pasted-secret';
        password.dispatchEvent(new Event('input', {bubbles: true}));
        password.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));
    """, email, password)
    page.wait_toast("Signed in as paste@example.com")
    page.no_dialog()
    assert "Fill in the fields first" not in page.script("return document.body.innerText")
    page.assert_no_bad_message()


def test_enter_with_an_empty_field_is_refused_at_once(host, page):
    page.open(host.base)
    page.tap("signIn")
    dialog = page.dialog()
    email = dialog.find_elements(By.TAG_NAME, "input")[0]
    email.send_keys("ann@example.com")
    time.sleep(1.2)  # the e-mail reached the host long ago; the password is still empty
    email.send_keys(Keys.ENTER)
    page.wait(2).until(lambda d: "Fill in the fields first" in dialog.text)
    # Still open (it shakes as it refuses; a loaded machine read it mid-animation once).
    page.wait(2).until(lambda d: dialog.is_displayed())


def test_enter_with_filled_fields_the_rule_refuses_says_so(host, desktop):
    page = desktop
    page.open(host.base)
    page.tap("signIn")
    dialog = page.dialog()
    email, password = dialog.find_elements(By.TAG_NAME, "input")
    email.send_keys("not an address")
    password.send_keys("pw")
    time.sleep(1.2)                          # the host has both and keeps Sign In disabled
    password.send_keys(Keys.ENTER)
    page.wait(3).until(lambda d: "“Sign In” is not available with what is filled in" in dialog.text)
    assert "Fill in the fields first" not in dialog.text
    assert dialog.is_displayed()


def test_escape_picks_cancel_and_focus_returns(host, desktop):
    page = desktop
    page.open(host.base)
    page.tap("signIn")
    page.dialog()
    for _ in range(8):
        page.driver.switch_to.active_element.send_keys(Keys.TAB)
        assert page.script("return document.querySelector('dialog[open]').contains(document.activeElement)"), "focus left the modal"
    page.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    page.wait_toast("Sign in cancelled")
    page.no_dialog()
    page.wait().until(lambda d: d.switch_to.active_element.get_attribute("data-control") == "signIn")
    page.assert_no_bad_message()


def test_country_sheet_with_arrow_keys(host, page):
    page.open(host.base)
    page.tap("country")
    dialog = page.dialog()
    titles = [b.text for b in dialog.find_elements(By.CSS_SELECTOR, "button.action")]
    assert titles == ["France", "Japan", "Brazil", "Cancel"]
    page.button(dialog, "France").send_keys(Keys.ARROW_DOWN)
    assert page.driver.switch_to.active_element.text == "Japan"
    page.driver.switch_to.active_element.send_keys(Keys.ARROW_UP, Keys.ARROW_UP)
    assert page.driver.switch_to.active_element.text == "Cancel", "arrows wrap around"
    page.driver.switch_to.active_element.send_keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.ENTER)
    page.wait_toast("Country: Japan")


def test_dismiss_from_the_host_closes_the_modal(host, desktop):
    page = desktop
    page.open(host.base)
    session = page.script("return window.remoteModal.session")
    # A second connection on the same session starts a flow and answers it; the host's
    # dismiss must close the dialog in the page.
    peer = Peer(host.url, resume=session)
    try:
        peer.tap("country")
        present = peer.expect("present")
        page.dialog()
        peer.call(peer.client.send({"type": "result", "id": present["id"], "value": {"action": 2}}))
        peer.expect("dismiss")
    finally:
        peer.close()
    page.no_dialog()
    page.wait_toast("Country: Brazil")


def test_dropped_connection_resumes_the_same_modal_and_answers_once(host, desktop):
    page = desktop
    page.open(host.base)
    page.tap("country")
    page.dialog()
    page.script("window.remoteModal.dropConnection()")
    page.wait(20).until(lambda d: page.connection_state() == "open")
    dialogs = page.finds("dialog.modal[open]")
    assert len(dialogs) == 1, "the resumed modal must not open twice"
    page.button(dialogs[0], "France").click()
    page.wait_toast("Country: France")
    page.script("window.remoteModal.dropConnection()")
    page.wait(20).until(lambda d: page.connection_state() == "open")
    time.sleep(1)
    assert page.toasts().count("Country: France") == 1


def test_host_sent_html_is_shown_as_text(host, desktop):
    page = desktop
    name = "<img src=x onerror=window.__xss=1>"
    page.open(host.base, "?group=team&name=approver")
    asker = Peer(host.url, name=name, group="team")
    try:
        asker.tap("approve")
        dialog = page.dialog()
        message = dialog.find_element(By.CSS_SELECTOR, ".message")
        assert message.text == f"{name} asks for approval"
        assert not dialog.find_elements(By.TAG_NAME, "img")
        assert page.script("return window.__xss") is None
        page.button(dialog, "Approve").click()
        page.wait_toast("Approved by approver")
    finally:
        asker.close()


def test_photo_upload_with_progress_from_acknowledgements(host, page, tmp_path):
    page.open(host.base)
    sizes = [make_png(tmp_path / "one.png", 300, 200, noise=40), make_png(tmp_path / "two.png", 64, 48)]
    page.tap("photo")
    dialog = page.dialog()
    picker = dialog.find_element(By.CSS_SELECTOR, "input[type=file]")
    assert picker.get_attribute("accept") == "image/*"
    picker.send_keys(f"{tmp_path / 'one.png'}\n{tmp_path / 'two.png'}")
    page.wait().until(lambda d: len(dialog.find_elements(By.CSS_SELECTOR, ".previews img")) == 2)
    assert "2 photos" in dialog.find_element(By.CSS_SELECTOR, ".picker-note").text
    # Record what the progress bar is told.
    page.script("""
        const client = window.remoteModal, upload = client.upload.bind(client);
        window.progressSeen = [];
        client.upload = (id, files, report, answer) => upload(id, files, (p) => { window.progressSeen.push(p); report(p); }, answer);
    """)
    page.button(dialog, "Send").click()
    page.wait_toast(received_photos(2, sum(sizes)))
    seen = page.script("return window.progressSeen")
    acked = [p["acked"] for p in seen]
    assert acked == sorted(acked) and acked[-1] == sum(sizes) and seen[-1]["state"] == "done"
    # The bar moved with the host's acknowledgements, not with what was sent.
    acks = page.received("uploadAck")
    assert acks, "the host acknowledged the chunks"
    assert len([m for m in page.sent() if m.get("type") == "result"]) == 1
    page.assert_no_bad_message()


def test_mail_composer_edits_and_sends(host, desktop):
    page = desktop
    page.open(host.base)
    dialog = page.composer("Mail")
    to = dialog.find_element(By.CSS_SELECTOR, "input[name=to]")
    assert to.get_attribute("value") == "support@example.com"
    body = dialog.find_element(By.CSS_SELECTOR, "textarea")
    assert body.get_attribute("value") == "Hello World!"
    body.send_keys(" More text.")
    page.button(dialog, "Send").click()
    page.wait_toast("Mail sent")
    [result] = [m for m in page.sent("result") if m["value"].get("mail")]
    assert result["value"]["mail"]["body"] == "Hello World! More text."


def test_mail_to_something_that_is_not_an_address_is_not_sent(host, desktop):
    page = desktop
    page.open(host.base)
    dialog = page.composer("Mail")
    to = dialog.find_element(By.CSS_SELECTOR, "input[name=to]")
    to.clear()
    to.send_keys("not an address")
    page.button(dialog, "Send").click()
    page.wait().until(lambda d: "Not a mail address: not an address" in dialog.text)
    assert page.driver.switch_to.active_element == to, "the field to fix has the focus"
    # Said right under the field (it was in the hint line below the buttons), and to
    # screen readers through the field itself.
    note = to.find_element(By.XPATH, "following-sibling::*[1]")
    assert note.get_attribute("class") == "field-error"
    # Its words as shown, once the shake lets them be read (a loaded machine read '' mid-shake).
    page.wait(2).until(lambda d: note.text == "Not a mail address: not an address")
    assert to.get_attribute("aria-invalid") == "true"
    assert to.get_attribute("aria-describedby") == note.get_attribute("id")
    time.sleep(0.4)  # the dialog's shake
    page.screenshot("mail-not-an-address")
    to.send_keys("x")
    page.wait().until(lambda d: not dialog.find_elements(By.CSS_SELECTOR, ".field-error"))
    assert to.get_attribute("aria-invalid") is None, "the words go when the field changes"
    to.clear()
    page.button(dialog, "Send").click()
    page.wait().until(lambda d: "Add a recipient first" in dialog.text)
    time.sleep(0.5)
    assert not [m for m in page.sent("result") if m["value"].get("mail")], "nothing was sent"
    assert "Mail sent" not in page.toasts()
    # Saving a draft does not need an address; it ends the composer as docs/protocol.md says.
    page.button(dialog, "Save draft").click()
    page.wait_toast("Mail saved as a draft on the host: Mail opens it again on this screen for 5 minutes, then it is deleted (sooner if the host restarts or the screen is away too long)")
    page.assert_no_bad_message()


def test_a_message_to_something_that_is_no_number_nor_address_is_not_sent(host, desktop):
    page = desktop
    page.open(host.base)
    dialog = page.composer("Message")
    to = dialog.find_element(By.CSS_SELECTOR, "input[name=recipients]")
    to.clear()
    to.send_keys("not a number")
    page.button(dialog, "Send").click()
    page.wait().until(lambda d: "Not a phone number or address: not a number" in dialog.text)
    assert not [m for m in page.sent("result") if m["value"].get("message")], "nothing was sent"
    to.clear()
    to.send_keys("+33 6 39 98 13 37")
    page.button(dialog, "Send").click()
    page.wait_toast("Message sent")
    page.assert_no_bad_message()


def test_login_through_a_real_openid_provider_window(oidc_host, desktop):
    page = desktop
    page.open(oidc_host.base)
    main = page.driver.current_window_handle
    page.tap("login")
    page.dialog()
    page.wait().until(lambda d: len(d.window_handles) == 2)
    popup = next(handle for handle in page.driver.window_handles if handle != main)
    page.driver.switch_to.window(popup)
    page.wait().until(EC.presence_of_element_located((By.NAME, "sub"))).send_keys("alice")
    page.driver.find_element(By.XPATH, "//button[text()='Authorize']").click()
    page.driver.switch_to.window(main)
    page.wait_toast("Logged in (code received)")
    page.wait().until(lambda d: len(d.window_handles) == 1)
    page.assert_no_bad_message()


def test_optional_text_field_hints_reach_the_inputs(host, desktop):
    import json
    import os
    page = desktop
    page.open(host.base)
    fixture = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Fixtures", "protocol",
                           "host.present.alert.configured.json")
    with open(fixture, encoding="utf-8") as file:
        present = json.load(file)
    present["seq"] = 100000                 # rendered as the host would have it; never answered
    page.script("window.remoteModal.receive(arguments[0])", json.dumps(present))
    code, pin = page.dialog().find_elements(By.TAG_NAME, "input")
    assert (code.get_attribute("type"), code.get_attribute("inputmode"), code.get_attribute("autocapitalize"),
            code.get_attribute("autocomplete")) == ("text", "numeric", "none", "one-time-code")
    assert pin.get_attribute("type") == "password", "secure masks a plain field"

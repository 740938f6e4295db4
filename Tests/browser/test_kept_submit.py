"""Issue #32 (cold trial): Enter on Sign In while the host cannot hear the page (the host
SIGSTOPped, or a proxy that stalls) is kept: the page says "“Sign In” goes once the host has
checked what you typed", and once the host is back and has checked the values the Sign In
goes, once, without the person pressing anything again. Both failed on the page before: the
resume's own messages counted as the check, the kept Enter was refused with the button still
disabled, and nothing was sent."""
import signal
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_heartbeat import noticed_within

PROMISE = "“Sign In” goes once the host has checked what you typed"


def typed_e_mail(page, address):
    """Sign in open, an e-mail typed and checked by the host (it has been heard since)."""
    page.tap("signIn")
    dialog = page.dialog()
    modal_id = page.modal_id(dialog)
    email, _ = dialog.find_elements(By.TAG_NAME, "input")
    email.send_keys(address)
    page.wait().until(lambda d: page.script(
        "return window.remoteModal.inputChecked(arguments[0]) && !window.remoteModal.machine.inputTimers.has(arguments[0])",
        modal_id))
    return dialog, modal_id


def enter_with_the_password(page, dialog):
    _, password = dialog.find_elements(By.TAG_NAME, "input")
    password.send_keys("secret")
    password.send_keys(Keys.ENTER)
    hint = dialog.find_element(By.CSS_SELECTOR, ".hint-line")
    assert hint.text == PROMISE, hint.text
    assert not page.button(dialog, "Sign In").is_enabled(), "the host has not enabled it: the Enter is kept"


def kept_sign_in_goes_once(page, modal_id, address, name):
    """Back: signed in without another press, one result, and no refusal on the way."""
    page.wait(40).until(lambda d: page.connection_state() == "open")
    page.wait(20).until(lambda d: f"Signed in as {address}" in page.toasts()
                        or "is not available" in (page.script(
                            "return document.querySelector('dialog.modal[open] .hint-line')?.textContent") or ""))
    assert f"Signed in as {address}" in page.toasts(), page.script(
        "return document.querySelector('dialog.modal[open]')?.innerText")
    page.no_dialog()
    page.screenshot(name)
    results = [m for m in page.answers(modal_id) if m["type"] == "result"]
    assert [r["value"] for r in results] == [{"action": 1, "textFields": [address, "secret"]}], results
    page.assert_no_bad_message()


def test_enter_kept_while_the_host_is_stopped_signs_in_once_it_is_back(host, desktop):
    page = desktop
    page.open(host.base)
    dialog, modal_id = typed_e_mail(page, "sara@example.com")
    host.process.send_signal(signal.SIGSTOP)
    try:
        enter_with_the_password(page, dialog)
        noticed_within(page, 10)
        assert page.find("dialog.modal[open] .hint-line").text == PROMISE
        page.screenshot("kept-enter-host-stopped")
    finally:
        host.process.send_signal(signal.SIGCONT)
    kept_sign_in_goes_once(page, modal_id, "sara@example.com", "kept-enter-host-back")


def test_enter_kept_through_a_stalled_network_signs_in_once_it_is_back(host, proxy, page):
    page.open(proxy.base)
    dialog, modal_id = typed_e_mail(page, "tom@example.com")
    proxy.stall()
    enter_with_the_password(page, dialog)
    noticed_within(page, 10)
    assert page.find("dialog.modal[open] .hint-line").text == PROMISE
    page.screenshot("kept-enter-network-stalled")
    proxy.unstall()
    kept_sign_in_goes_once(page, modal_id, "tom@example.com", "kept-enter-network-back")


def test_a_tap_to_a_stopped_host_is_said_to_wait_and_its_late_dialog_says_where_it_came_from(host, desktop):
    """Issue 32's last cold trial: a tap while the host was stopped left the page saying
    "Connected" with nothing busy for 12 s, and its dialog opened a minute later with no
    word. Now the tap waits in words after 2 s, the lost connection is said of the tap, and
    the late dialog says it came from that tap."""
    page = desktop
    page.open(host.base)
    host.process.send_signal(signal.SIGSTOP)
    try:
        page.tap("country")
        page.wait(4).until(lambda d: "“Choose country”: waiting for the host…" in page.toasts())
        assert page.control_busy("country"), "the button shows the tap waits"
        page.screenshot("tap-waits-for-a-stopped-host")
        noticed_within(page, 12)
        page.wait(3).until(lambda d: any(t.startswith("“Choose country” got no answer: the connection to the host was lost.")
                                         for t in page.toasts()))
        assert "“Choose country”: waiting for the host…" not in page.toasts()
        # The second cold trial: the button kept spinning beside "Nothing happened yet".
        assert not page.control_busy("country"), "a lost tap's button does not spin"
        page.screenshot("tap-lost-button-idle")
        time.sleep(5)
    finally:
        host.process.send_signal(signal.SIGCONT)
    dialog = page.dialog(seconds=30)
    assert "Choose a country" in dialog.text
    line = dialog.find_element(By.CSS_SELECTOR, ".carried-line").text
    assert line.startswith("This opened from the tap on “Choose country”"), line
    assert "ago: the host read it only once it was back. Cancel it if it is not yours." in line, line
    page.screenshot("late-tap-dialog-says-where-it-came-from")
    page.button(dialog, "Cancel").click()
    page.wait_toast("Country choice cancelled")
    page.assert_no_bad_message()

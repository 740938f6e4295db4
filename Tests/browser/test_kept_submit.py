"""Issue #32 (cold trial): Enter on Sign In while the host cannot hear the page (the host
SIGSTOPped, or a proxy that stalls) is kept: the page says "“Sign In” goes once the host has
checked what you typed", and once the host is back and has checked the values the Sign In
goes, once, without the person pressing anything again. Both failed on the page before: the
resume's own messages counted as the check, the kept Enter was refused with the button still
disabled, and nothing was sent."""
import signal

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

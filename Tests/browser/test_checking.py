"""While the page says it is checking what was typed with the host (the network stalled, the
host has not heard the values): a reload, and a host restart, lose nothing without a word.
Each failed on the page before (the reload lost the e-mail in silence; the restart said
"Request cancelled" and lost it)."""
from selenium.webdriver.common.by import By

from test_passer_by import SIGN_IN_CLOSED

CHECKING = "Checking what you typed with the host…"


def checking(page, proxy):
    """Sign in open, the network stalled, an e-mail and a password typed: the page checks."""
    page.tap("signIn")
    dialog = page.dialog()
    proxy.stall()
    email, password = dialog.find_elements(By.TAG_NAME, "input")
    email.send_keys("erin@example.com")
    password.send_keys("secret")
    rule = dialog.find_element(By.CSS_SELECTOR, ".rule-line")
    page.wait().until(lambda d: rule.text == CHECKING)
    return dialog


def sign_in_with_the_password(page, dialog):
    email, password = dialog.find_elements(By.TAG_NAME, "input")
    assert email.get_attribute("value") == "erin@example.com"
    assert password.get_attribute("value") == "", "a password is never kept"
    password.send_keys("secret")
    sign_in = page.button(dialog, "Sign In")
    page.wait().until(lambda d: sign_in.is_enabled())
    sign_in.click()
    page.wait_toast("Signed in as erin@example.com")
    page.assert_no_bad_message()


def test_a_reload_while_checking_keeps_the_typed_e_mail_and_says_so(host, proxy, page):
    page.open(proxy.base)
    checking(page, proxy)
    page.screenshot("checking-before-reload")
    proxy.unstall()
    page.driver.refresh()
    page.wait(20).until(lambda d: page.connection_state() == "open")
    dialog = page.dialog()
    assert dialog.find_element(By.CSS_SELECTOR, ".carried-line").text == \
        "Filled in again with what you typed before the page was reloaded."
    page.screenshot("checking-after-reload")
    sign_in_with_the_password(page, dialog)


def test_a_host_restart_while_checking_names_the_dialog_and_keeps_the_e_mail(host, proxy, desktop):
    page = desktop
    page.open(proxy.base)
    checking(page, proxy)
    host.kill()
    proxy.unstall()
    host.start_again()
    page.wait(20).until(lambda d: [n.text for n in page.finds("dialog.notice .message")] == [SIGN_IN_CLOSED])
    page.screenshot("checking-host-restarted")
    page.button(page.find("dialog.notice"), "OK").click()
    page.tap("signIn")
    sign_in_with_the_password(page, page.dialog())

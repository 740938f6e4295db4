"""Unattended-kiosk findings of the page (issue #32): notices above a dialog, the kiosk size
without scrolling, a token out of the address bar, and a host that cannot be reached said
as such. Each test failed on the page before its fix."""
from selenium.webdriver.common.by import By

from browser_support import RestartableHost


def notify(page, text):
    """A status notice as the host's `status` message delivers it to the page."""
    page.script("window.remoteModal.dispatchEvent(new CustomEvent('status', "
                "{detail: {level: 'info', text: arguments[0]}}))", text)


def test_a_notice_over_an_open_sheet_can_be_closed_and_leaves_the_sheet_open(host, page):
    page.open(host.base)
    page.tap("country")
    sheet = page.dialog()
    modal_id = page.modal_id(sheet)
    notify(page, "Lobby closes at six")
    page.wait_toast("Lobby closes at six")
    page.screenshot("notice-over-sheet")
    toast = next(t for t in page.finds("#toasts .toast") if "Lobby closes at six" in t.text)
    toast.find_element(By.CSS_SELECTOR, ".toast-close").click()
    page.wait().until(lambda d: "Lobby closes at six" not in page.toasts())
    # The click closed the notice, and nothing else: the sheet is still open, unanswered,
    # and says no "choose one of the options".
    assert sheet.get_attribute("open") is not None
    assert page.answers(modal_id) == []
    assert "choose one of the options" not in sheet.text
    page.button(sheet, "Japan").click()
    page.wait_toast("Country: Japan")


def test_the_page_at_kiosk_size_fits_the_screen_without_scrolling(host, kiosk):
    kiosk.open(host.base)
    height = kiosk.script("return document.scrollingElement.scrollHeight")
    viewport = kiosk.script("return window.innerHeight")
    kiosk.screenshot("kiosk-size-empty")
    assert height <= viewport, f"the empty page is {height} px tall in a {viewport} px window"
    kiosk.tap("country")
    sheet = kiosk.dialog()
    box = kiosk.script("const r = arguments[0].getBoundingClientRect(); return [r.right, window.innerWidth]", sheet)
    kiosk.screenshot("kiosk-size-sheet")
    assert box[0] <= box[1]
    assert kiosk.script("return document.scrollingElement.scrollHeight") <= viewport


def test_a_token_leaves_the_address_bar_and_the_tab_keeps_it_for_a_reload(desktop):
    page = desktop
    locked = RestartableHost("--web-root", "web", "--token", "s3cret")
    try:
        page.open(locked.base, "?name=lobby&token=s3cret")
        assert "s3cret" not in page.driver.current_url
        assert "name=lobby" in page.driver.current_url
        page.driver.refresh()
        page.wait().until(lambda d: page.connection_state() == "open")
        assert "s3cret" not in page.driver.current_url
    finally:
        locked.stop()


def test_a_host_that_went_away_is_said_as_unreachable_not_offline(host, desktop):
    page = desktop
    page.open(host.base)
    host.kill()
    page.wait(15).until(lambda d: page.connection_state() == "reconnecting")
    pill = page.find("#connection").text
    page.screenshot("host-unreachable")
    assert pill == "Host not reachable", pill

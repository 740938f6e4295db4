"""Every state of the page at phone and desktop size, light and dark: a screenshot of each
under artifacts/browser/ (for people to look at) and axe-core on each (no serious or
critical violation)."""
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from browser_support import CuttableProxy, Peer, RestartableHost
from pictures import make_big_file, make_png


def test_every_state_looks_finished_and_passes_axe(oidc_host, page, tmp_path):
    failures = []
    shots = lambda name: page.both_schemes(name, failures)   # noqa: E731
    proxy = CuttableProxy(oidc_host.port)
    try:
        page.open(proxy.base, "?group=team&name=kiosk-1")
        shots("controls")

        page.tap("signIn")
        dialog = page.dialog()
        shots("sign-in")
        email, password = dialog.find_elements(By.TAG_NAME, "input")
        email.send_keys("ann@example.com")
        password.send_keys("secret")
        page.wait().until(lambda d: page.button(dialog, "Sign In").is_enabled())
        shots("sign-in-valid")
        password.send_keys(Keys.ENTER)
        page.no_dialog()

        page.tap("country")
        shots("country-sheet")
        page.button(page.dialog(), "Cancel").click()
        page.no_dialog()

        page.tap("contact")
        shots("contact-sheet")
        page.button(page.dialog(), "Mail").click()
        page.wait().until(lambda d: page.finds("dialog.modal-mailComposer[open]"))
        shots("mail-composer")
        page.button(page.dialog(), "Cancel").click()
        page.wait_idle("contact")
        page.no_dialog()
        page.tap("contact")
        page.button(page.dialog(), "Message").click()
        page.wait().until(lambda d: page.finds("dialog.modal-messageComposer[open]"))
        shots("message-composer")
        page.button(page.dialog(), "Cancel").click()
        page.wait_idle("contact")
        page.no_dialog()

        page.tap("photo")
        dialog = page.dialog()
        shots("photo-picker")
        make_png(tmp_path / "one.png", 300, 200, noise=40)
        make_png(tmp_path / "two.png", 64, 48)
        chooser = dialog.find_element(By.CSS_SELECTOR, "input[type=file]")
        chooser.send_keys(f"{tmp_path / 'one.png'}\n{tmp_path / 'two.png'}")
        page.wait().until(lambda d: len(dialog.find_elements(By.CSS_SELECTOR, ".previews img")) == 2)
        shots("photo-picked")
        make_big_file(tmp_path / "huge.png", 11 * 1024 * 1024)
        chooser.send_keys(str(tmp_path / "huge.png"))
        page.wait().until(lambda d: "Too large" in dialog.find_element(By.CSS_SELECTOR, ".picker-note").text)
        shots("photo-too-large")
        page.button(dialog, "Cancel").click()
        page.wait_idle("photo")
        page.no_dialog()

        page.tap("approve")                          # alone in the group: its own copy, Approve disabled
        dialog = page.dialog()
        shots("approve-own-request")
        page.button(dialog, "Reject").click()        # withdrawn
        page.wait_toast("Request withdrawn by kiosk-1")
        shots("toasts")

        asker = Peer(oidc_host.url, name="kiosk-2", group="team")
        try:
            asker.tap("approve")
            dialog = page.dialog()
            page.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
            shots("approve-alert")
            page.button(dialog, "Reject").click()
            page.no_dialog()
        finally:
            asker.close()

        page.tap("login")
        page.dialog()
        page.wait().until(lambda d: len(d.window_handles) == 2)
        page.driver.switch_to.window(page.driver.window_handles[0])
        shots("login")
        page.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
        page.wait_idle("login")
        page.no_dialog()

        proxy.cut()
        page.wait().until(lambda d: page.find("#banner").is_displayed())
        shots("reconnecting")
        proxy.restore()
        page.script("document.querySelector('#banner:not([hidden]) #retry')?.click()")
        page.wait().until(lambda d: page.connection_state() == "open")

        page.tap("country")
        dialog = page.dialog()
        proxy.cut()
        page.wait().until(lambda d: dialog.find_element(By.CSS_SELECTOR, ".connection-line").is_displayed())
        page.button(dialog, "Japan").click()
        shots("answer-waiting-offline")
        page.restore_before_retry(proxy)
        dialog.find_element(By.CSS_SELECTOR, ".connection-line button").click()
        page.wait_toast("Country: Japan")

        page.tap("signIn")
        page.dialog().find_element(By.CSS_SELECTOR, "input[type=email]").send_keys("ann@example.com")
        oidc_host.kill()
        oidc_host.start_again()
        page.wait(15).until(lambda d: page.finds("dialog.notice"))
        shots("host-restarted")
    finally:
        proxy.stop()

    locked = RestartableHost("--web-root", "web", "--token", "s3cret")
    try:
        page.driver.get(locked.base + "/")
        page.wait().until(lambda d: page.connection_state() == "unauthorized")
        shots("unauthorized")
    finally:
        locked.stop()

    assert not failures, "\n".join(f"{name} {size} {scheme}: {v['id']} ({v['impact']}) {v['help']}: {v['nodes'][:3]}"
                                   for name, size, scheme, v in failures)


def test_optional_field_states_look_finished_and_pass_axe(page, tmp_path):
    """The states of the optional fields (modal-host --demo-options): an HTML mail with From
    and an attachment, one removed, edited as text, a hostile body shown inert, a message
    subject, a picker's prompt with no limit and a type the host refused, configured fields."""
    failures = []
    shots = lambda name: page.both_schemes(name, failures)   # noqa: E731
    host = RestartableHost("--web-root", "web", "--demo-options")
    try:
        page.open(host.base)
        page.tap("options")
        page.dialog()
        shots("options-sheet")
        page.button(page.dialog(), "Cancel").click()
        page.no_dialog()

        dialog = page.through_sheet("options", "HTML mail")
        shots("mail-html")
        page.script("arguments[0].scrollTop = arguments[0].scrollHeight", dialog)
        dialog.find_element(By.CSS_SELECTOR, ".attachment button").click()
        shots("mail-attachment-removed")
        page.button(dialog, "Edit as text").click()
        shots("mail-html-as-text")
        page.button(dialog, "Cancel").click()
        page.wait_idle("options")

        dialog = page.through_sheet("options", "Hostile mail")
        shots("mail-hostile")
        assert page.script("return window.__xss") is None
        page.button(dialog, "Cancel").click()
        page.wait_idle("options")

        dialog = page.through_sheet("options", "Message with subject")
        shots("message-subject")
        page.button(dialog, "Cancel").click()
        page.wait_idle("options")

        dialog = page.through_sheet("options", "Any number of photos")
        shots("photos-prompt")
        notes = tmp_path / "notes.txt"
        notes.write_text("not a picture\n")
        dialog.find_element(By.CSS_SELECTOR, "input[type=file]").send_keys(str(notes))
        page.button(dialog, "Send").click()
        page.wait().until(lambda d: dialog.find_element(By.CSS_SELECTOR, ".error-text").is_displayed())
        shots("photos-type-refused")
        page.button(dialog, "Cancel").click()
        page.wait_idle("options")

        dialog = page.through_sheet("options", "Configured fields")
        code, pin = dialog.find_elements(By.TAG_NAME, "input")[:2]
        code.send_keys("123456")
        pin.send_keys("4321")
        shots("fields-configured")
        page.button(dialog, "Cancel").click()
        page.wait_idle("options")
        page.no_dialog()
    finally:
        host.stop()

    assert not failures, "\n".join(f"{name} {size} {scheme}: {v['id']} ({v['impact']}) {v['help']}: {v['nodes'][:3]}"
                                   for name, size, scheme, v in failures)


def test_a_portrait_kiosk_screen_shows_the_page_large_and_passes_axe(host, kiosk):
    """1080x1920: controls a standing person can read and touch, dialogs that fit, notices
    across the bottom, nothing cut off at the side."""
    page = kiosk
    failures = []
    page.open(host.base, "?name=lobby-1")
    page.both_schemes("kiosk-controls", failures)
    # On screen (getBoundingClientRect counts the zoom; WebDriver's element size does not).
    height = page.script("return arguments[0].getBoundingClientRect().height", page.control("signIn"))
    assert height >= 60, f"a control a standing person can touch: {height} px"
    assert page.script("return document.documentElement.scrollWidth <= window.innerWidth"), "no sideways scroll"
    page.tap("signIn")
    dialog = page.dialog()
    page.both_schemes("kiosk-sign-in", failures)
    rect = page.script("const r = arguments[0].getBoundingClientRect(); return [r.left, r.right, r.top, r.bottom];", dialog)
    assert rect[0] >= 0 and rect[1] <= 1080 and rect[2] >= 0 and rect[3] <= 1920, rect
    assert rect[1] - rect[0] >= 700, f"the dialog uses the screen's width: {rect}"
    page.button(dialog, "Cancel").click()
    page.wait_toast("Sign in cancelled")
    width = page.script("return arguments[0].getBoundingClientRect().width", page.find("#toasts .toast"))
    assert width >= 900, f"notices across the bottom: {width} px"
    page.both_schemes("kiosk-toast", failures)
    page.tap("country")
    sheet = page.dialog()
    page.both_schemes("kiosk-country-sheet", failures)
    rect = page.script("const r = arguments[0].getBoundingClientRect(); return [r.left, r.right, r.top, r.bottom];", sheet)
    assert rect[0] >= 0 and rect[1] <= 1080 and rect[2] >= 0 and rect[3] <= 1920, f"the sheet is on the screen: {rect}"
    # Where the alerts open, in the middle of the screen (docs/page.md, "Kiosk screens").
    assert abs((rect[2] + rect[3]) / 2 - 960) <= 2 and abs((rect[0] + rect[1]) / 2 - 540) <= 20, f"centred: {rect}"
    page.button(page.dialog(), "Japan").click()
    page.wait_toast("Country: Japan")
    assert not failures, failures
    page.assert_no_bad_message()

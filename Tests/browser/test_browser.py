"""The web front end in a real browser against a real modal-host, clicking and typing
as a person would."""
import asyncio
import os
import sys

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from protocol_client import ProtocolClient  # noqa: E402
from browser_support import screenshot  # noqa: E402


def wait(driver, seconds=10):
    return WebDriverWait(driver, seconds)


def open_page(driver, host, query=""):
    driver.get(f"http://127.0.0.1:{host.port}/{query}")
    wait(driver).until(lambda d: d.find_element(By.ID, "connection").get_attribute("data-state") == "open")
    wait(driver).until(EC.element_to_be_clickable((By.CSS_SELECTOR, "[data-control=signIn]")))


def toast_texts(driver):
    return [t.text for t in driver.find_elements(By.CSS_SELECTOR, "#toasts .toast")]


def wait_toast(driver, text):
    wait(driver).until(lambda d: text in toast_texts(d))


def open_dialog(driver):
    return wait(driver).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "dialog.modal[open]")))


def test_sign_in_enabled_only_when_valid(host, browser):
    open_page(browser, host)
    screenshot(browser, "controls")
    browser.find_element(By.CSS_SELECTOR, "[data-control=signIn]").click()
    dialog = open_dialog(browser)
    assert dialog.find_element(By.TAG_NAME, "h2").text == "Sign in"
    email, password = dialog.find_elements(By.TAG_NAME, "input")
    assert email.get_attribute("type") == "email" and email.get_attribute("autocomplete") == "email"
    assert password.get_attribute("type") == "password"
    assert browser.switch_to.active_element == email, "focus moves into the modal"
    sign_in = dialog.find_element(By.CSS_SELECTOR, "button.preferred")
    assert sign_in.text == "Sign In" and not sign_in.is_enabled()
    # The control shows its flow is running.
    wait(browser).until(lambda d: d.find_element(By.CSS_SELECTOR, "[data-control=signIn]").get_attribute("aria-busy") == "true")
    email.send_keys("ann@example.com")
    screenshot(browser, "sign-in-half-filled")
    assert not sign_in.is_enabled()
    password.send_keys("secret")
    wait(browser).until(lambda d: sign_in.is_enabled())
    screenshot(browser, "sign-in-valid")
    sign_in.click()
    wait_toast(browser, "Signed in as ann@example.com")
    wait(browser).until(lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog.modal[open]"))
    screenshot(browser, "sign-in-done")


def test_escape_picks_cancel_and_focus_returns(host, kiosk_browser):
    browser = kiosk_browser
    open_page(browser, host)
    control = browser.find_element(By.CSS_SELECTOR, "[data-control=signIn]")
    control.click()
    dialog = open_dialog(browser)
    # Tab cycles inside the modal: nothing behind it takes focus.
    for _ in range(8):
        browser.switch_to.active_element.send_keys(Keys.TAB)
        inside = browser.execute_script("return document.querySelector('dialog[open]').contains(document.activeElement)")
        assert inside, "focus left the modal"
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_toast(browser, "Sign in cancelled")
    wait(browser).until(lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog.modal[open]"))
    # Focus returns to the control that opened it.
    assert browser.switch_to.active_element.get_attribute("data-control") == "signIn"


def test_country_sheet(host, browser):
    open_page(browser, host)
    browser.find_element(By.CSS_SELECTOR, "[data-control=country]").click()
    dialog = open_dialog(browser)
    titles = [b.text for b in dialog.find_elements(By.CSS_SELECTOR, "button.action")]
    assert titles == ["France", "Japan", "Brazil", "Cancel"]
    screenshot(browser, "country-sheet")
    dialog.find_element(By.XPATH, ".//button[text()='Japan']").click()
    wait_toast(browser, "Country: Japan")


def test_dismiss_from_the_host_closes_the_modal(host, kiosk_browser):
    browser = kiosk_browser
    open_page(browser, host)
    session = browser.execute_script("return window.remoteModal.session")

    async def other_connection():
        # A second connection on the same session starts a flow and answers it; the
        # host's dismiss must close the dialog in the page.
        peer = await ProtocolClient.open(host.url, resume=session)
        await peer.tap("country")
        present = await peer.expect("present")
        await asyncio.get_running_loop().run_in_executor(None, lambda: open_dialog(browser))
        await peer.send({"type": "result", "id": present["id"], "value": {"action": 2}})
        await peer.expect("dismiss")
        await peer.close()

    asyncio.run(asyncio.wait_for(other_connection(), 30))
    wait(browser).until(lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog.modal[open]"))
    wait_toast(browser, "Country: Brazil")


def test_dropped_connection_resumes_the_same_modal_and_answers_once(host, kiosk_browser):
    browser = kiosk_browser
    open_page(browser, host)
    browser.find_element(By.CSS_SELECTOR, "[data-control=country]").click()
    open_dialog(browser)
    browser.execute_script("window.remoteModal.dropConnection()")
    wait(browser).until(lambda d: d.find_element(By.ID, "connection").get_attribute("data-state") != "open")
    screenshot(browser, "reconnecting")
    wait(browser, 20).until(lambda d: d.find_element(By.ID, "connection").get_attribute("data-state") == "open")
    dialogs = browser.find_elements(By.CSS_SELECTOR, "dialog.modal[open]")
    assert len(dialogs) == 1, "the resumed modal must not open twice"
    dialogs[0].find_element(By.XPATH, ".//button[text()='France']").click()
    wait_toast(browser, "Country: France")
    browser.execute_script("window.remoteModal.dropConnection()")
    wait(browser, 20).until(lambda d: d.find_element(By.ID, "connection").get_attribute("data-state") == "open")
    import time
    time.sleep(1)
    assert toast_texts(browser).count("Country: France") == 1


def test_host_sent_html_is_shown_as_text(host, kiosk_browser):
    browser = kiosk_browser
    name = "<img src=x onerror=window.__xss=1>"
    from urllib.parse import quote
    open_page(browser, host, f"?name={quote(name)}")
    browser.find_element(By.CSS_SELECTOR, "[data-control=approve]").click()
    dialog = open_dialog(browser)
    message = dialog.find_element(By.CSS_SELECTOR, ".message")
    assert message.text == f"{name} asks for approval"
    assert not dialog.find_elements(By.TAG_NAME, "img")
    assert browser.execute_script("return window.__xss") is None
    screenshot(browser, "approve-xss-as-text")
    dialog.find_element(By.XPATH, ".//button[text()='Approve']").click()
    wait_toast(browser, f"Approved by {name}")


def make_png(path, width=64, height=48, noise=0):
    """Writes a real PNG (a gradient, with some seeded noise so it does not compress
    away) with nothing but the standard library."""
    import random
    import struct
    import zlib
    jitter = random.Random(7)
    raw = b"".join(b"\x00" + bytes((v + jitter.randrange(noise + 1)) % 256
                                    for x in range(width) for v in (x * 4 % 256, y * 5 % 256, 128))
                   for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    with open(path, "wb") as file:
        file.write(png)
    return len(png)


def test_photo_upload_with_progress(host, browser, tmp_path):
    open_page(browser, host)
    sizes = [make_png(tmp_path / "one.png", 300, 200, noise=40), make_png(tmp_path / "two.png", 64, 48)]
    browser.find_element(By.CSS_SELECTOR, "[data-control=photo]").click()
    dialog = open_dialog(browser)
    picker = dialog.find_element(By.CSS_SELECTOR, "input[type=file]")
    assert picker.get_attribute("accept") == "image/*"
    picker.send_keys(f"{tmp_path / 'one.png'}\n{tmp_path / 'two.png'}")
    wait(browser).until(lambda d: len(dialog.find_elements(By.CSS_SELECTOR, ".previews img")) == 2)
    screenshot(browser, "photo-picked")
    # Record what the progress bar is told, chunk by chunk.
    browser.execute_script("""
        const client = window.remoteModal, upload = client.upload.bind(client);
        window.progressSeen = [];
        client.upload = (id, files, report) => upload(id, files, (f) => { window.progressSeen.push(f); report(f); });
    """)
    dialog.find_element(By.CSS_SELECTOR, "button.preferred").click()
    wait_toast(browser, f"Received 2 photo(s), {sum(sizes)} bytes")
    seen = browser.execute_script("return window.progressSeen")
    assert len(seen) >= 3 and seen == sorted(seen) and seen[-1] == 1


def test_mail_composer_edits_and_sends(host, kiosk_browser):
    browser = kiosk_browser
    open_page(browser, host)
    browser.find_element(By.CSS_SELECTOR, "[data-control=contact]").click()
    open_dialog(browser).find_element(By.XPATH, ".//button[text()='Mail']").click()
    wait(browser).until(lambda d: d.find_elements(By.CSS_SELECTOR, "dialog.modal-mailComposer[open]"))
    dialog = browser.find_element(By.CSS_SELECTOR, "dialog.modal-mailComposer[open]")
    to = dialog.find_element(By.CSS_SELECTOR, "input[aria-label=To]")
    assert to.get_attribute("value") == "support@example.com"
    body = dialog.find_element(By.CSS_SELECTOR, "textarea")
    assert body.get_attribute("value") == "Hello World!"
    body.send_keys(" More text.")
    screenshot(browser, "mail-composer")
    dialog.find_element(By.XPATH, ".//button[text()='Send']").click()
    wait_toast(browser, "Mail sent")


def test_login_through_a_real_openid_provider_window(oidc_host, kiosk_browser):
    browser = kiosk_browser
    open_page(browser, oidc_host)
    main = browser.current_window_handle
    browser.find_element(By.CSS_SELECTOR, "[data-control=login]").click()
    open_dialog(browser)
    wait(browser).until(lambda d: len(d.window_handles) == 2)
    popup = next(handle for handle in browser.window_handles if handle != main)
    browser.switch_to.window(popup)
    wait(browser).until(EC.presence_of_element_located((By.NAME, "sub"))).send_keys("alice")
    browser.find_element(By.XPATH, "//button[text()='Authorize']").click()
    browser.switch_to.window(main)
    wait_toast(browser, "Logged in (code received)")
    wait(browser).until(lambda d: len(d.window_handles) == 1)


def test_closing_the_login_window_cancels(oidc_host, kiosk_browser):
    browser = kiosk_browser
    open_page(browser, oidc_host)
    main = browser.current_window_handle
    browser.find_element(By.CSS_SELECTOR, "[data-control=login]").click()
    open_dialog(browser)
    wait(browser).until(lambda d: len(d.window_handles) == 2)
    browser.switch_to.window(next(h for h in browser.window_handles if h != main))
    browser.close()
    browser.switch_to.window(main)
    wait_toast(browser, "Log in cancelled")

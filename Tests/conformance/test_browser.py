"""The browser page, in headless Chromium, passes the conformance host: Selenium plays the
person, reading each dialog's instructions as a person would and doing what they say
(typing, choosing, picking files, pasting the callback address, answering the custom kind
with the JSON its text gives). The page is web/ as shipped, but for its index.html listing the
conformance renderer (web/js/modals/conformance.js) in <meta name="remote-modal-modules">, as a
host application lists its own."""
import json
import os
import shutil
import sys
import time

from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "browser"), os.path.join(HERE, "..", "python")]

from browser_support import make_driver  # noqa: E402
from conformance_client import _location, instructions  # noqa: E402
from conformance_host import ROOT, ConformanceHost, verdicts  # noqa: E402

OPEN = "dialog.modal[open]:not(.notice):not(.closing):not(.answered)"
EXPECTED = {"alert", "sheet", "mail", "message", "photo", "media", "webauth-scheme", "webauth-callback", "custom",
            "unknown-values", "dismiss", "drop-dialog", "drop-answer", "drop-upload", "restart"}
MODULES = '<meta name="remote-modal-modules" content="">'


def conformance_page(tmp_path):
    """web/, its index.html listing the conformance renderer."""
    root = tmp_path / "web"
    shutil.copytree(os.path.join(ROOT, "web"), root)
    index = root / "index.html"
    html = index.read_text()
    assert MODULES in html, "web/index.html has no empty remote-modal-modules meta"
    index.write_text(html.replace(MODULES, MODULES.replace('content=""', 'content="js/modals/conformance.js"')))
    return str(root)


def click_when_enabled(driver, dialog, title):
    button = dialog.find_element(By.XPATH, f".//button[normalize-space(.)='{title}']")
    WebDriverWait(driver, 10).until(lambda d: button.is_enabled() and button.get_attribute("aria-disabled") != "true")
    button.click()


def act(driver, dialog, tmp_path):
    """Does what one dialog says; False when it says to wait."""
    kind = next((c[len("modal-"):] for c in dialog.get_attribute("class").split() if c.startswith("modal-")), "")
    if kind in ("alert", "actionSheet"):
        steps = instructions(dialog.find_element(By.CSS_SELECTOR, ".message").get_attribute("textContent"))
        if ("wait", None) in steps:
            return False
        fields = dialog.find_elements(By.CSS_SELECTOR, "input")
        for verb, value in steps:
            if verb == "type":
                fields[value[0] - 1].clear()
                fields[value[0] - 1].send_keys(value[1])
        for verb, value in steps:
            if verb == "choose":
                click_when_enabled(driver, dialog, value)
    elif kind in ("mailComposer", "messageComposer"):
        body = dialog.find_element(By.CSS_SELECTOR, "textarea").get_attribute("value")
        if ("send", None) in instructions(body):
            click_when_enabled(driver, dialog, "Send")
    elif kind in ("photoPicker", "mediaPicker"):
        for verb, value in instructions(dialog.find_element(By.CSS_SELECTOR, ".prompt").get_attribute("textContent")):
            if verb == "upload":
                count, size, mime = value
                paths = []
                for index in range(count):
                    path = tmp_path / f"{dialog.get_attribute('data-modal-id')}-{index}.{mime.split('/')[-1]}"
                    path.write_bytes(os.urandom(size))
                    paths.append(str(path))
                dialog.find_element(By.CSS_SELECTOR, "input[type=file]").send_keys("\n".join(paths))
                click_when_enabled(driver, dialog, "Send")
    elif kind == "webAuthentication":
        links = dialog.find_elements(By.CSS_SELECTOR, "a.link")
        if links:  # a native scheme: paste where the sign-in page sends the person
            dialog.find_element(By.CSS_SELECTOR, "input").send_keys(_location(links[0].get_attribute("href")))
            click_when_enabled(driver, dialog, "Done")
        # else the page opened the sign-in window itself; the host's callback ends it
    elif kind == "custom":
        for verb, value in instructions(dialog.find_element(By.CSS_SELECTOR, ".message").get_attribute("textContent")):
            if verb == "answer":
                dialog.find_element(By.CSS_SELECTOR, "textarea").send_keys(json.dumps(value))
                click_when_enabled(driver, dialog, "Answer")
    return True


def test_the_page_passes_every_scenario(tmp_path):
    host = ConformanceHost(timeout=15, web_root=conformance_page(tmp_path))
    driver = make_driver("desktop")
    try:
        driver.get(host.page)
        handled = set()
        deadline = time.time() + 150
        while host.process.poll() is None and time.time() < deadline:
            main = driver.window_handles[0]
            driver.switch_to.window(main)
            for dialog in driver.find_elements(By.CSS_SELECTOR, OPEN):
                try:
                    modal_id = dialog.get_attribute("data-modal-id")
                    if modal_id in handled or not dialog.is_displayed():
                        continue
                    act(driver, dialog, tmp_path)
                    handled.add(modal_id)
                except (StaleElementReferenceException, WebDriverException):
                    pass  # taken away meanwhile (a dismiss, a drop): looked at again next round
            time.sleep(0.1)
        status, output = host.finish(timeout=30)
    finally:
        driver.quit()
        host.stop()
    assert verdicts(output) == {name: "PASS" for name in EXPECTED}, output
    assert "conformance: all 15 scenarios passed" in output, output
    assert status == 0, output

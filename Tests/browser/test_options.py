"""The optional modal fields in a real browser against a real modal-host (`--demo-options`):
configured text fields, an HTML mail with From and an attachment, a hostile HTML body that
must stay inert, a message subject, a photo picker with no limit, a prompt and a filter the
host enforces. Each checks what the person sees and what the host says it received."""
import os
import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from browser_support import RestartableHost
from pictures import make_png

WEB = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "web")


@pytest.fixture
def options_host():
    server = RestartableHost("--web-root", WEB, "--demo-options")
    yield server
    server.stop()


def choose(page, title):
    return page.through_sheet("options", title)


def field(dialog, label):
    return dialog.find_element(By.XPATH, f".//label[normalize-space(.)='{label}']/following-sibling::*[self::input or self::textarea]")


def present_of(page, kind):
    return [m for m in page.received("present") if m["modal"]["kind"] == kind][-1]


def result_of(page, modal_id):
    results = [m for m in page.sent("result") if m["id"] == modal_id]
    assert len(results) == 1, results
    return results[0]["value"]


def test_configured_text_fields_reach_the_inputs_and_the_host(options_host, page):
    page.open(options_host.base)
    dialog = choose(page, "Configured fields")
    code, pin, name, phone = dialog.find_elements(By.TAG_NAME, "input")
    attributes = lambda node: tuple(node.get_dom_attribute(a) for a in ("type", "inputmode", "autocapitalize", "autocomplete"))  # noqa: E731
    assert attributes(code) == ("text", "numeric", "none", "one-time-code")
    assert attributes(pin)[0] == "password", "secure masks a plain field"
    assert attributes(name) == ("text", None, "words", "name")
    assert attributes(phone) == ("text", "tel", None, "tel")
    code.send_keys("123456")
    pin.send_keys("4321")
    name.send_keys("Ann Lee")
    phone.send_keys("+33 1 23")
    phone.send_keys(Keys.ENTER)
    page.wait_toast("Verified code 123456, PIN of 4 digit(s), name Ann Lee, phone +33 1 23")
    page.no_dialog()
    page.assert_no_bad_message()


def test_html_mail_shows_formatted_from_and_attachment_and_reports_what_was_kept(options_host, page):
    page.open(options_host.base)
    dialog = choose(page, "HTML mail")
    body = dialog.find_element(By.CSS_SELECTOR, ".html-body")
    assert body.find_element(By.TAG_NAME, "h2").text == "Invoice 1234"
    assert body.find_element(By.TAG_NAME, "b").text == "welcome"
    assert "Hello & welcome," in body.text and "<p>" not in body.text, "formatted, never markup"
    assert [li.text for li in body.find_elements(By.TAG_NAME, "li")] == ["Amount: 12 EUR", "Due: in 30 days"]
    terms, write = body.find_elements(By.TAG_NAME, "a")
    assert (terms.text, terms.get_attribute("href"), terms.get_attribute("target")) == ("our terms", "https://example.com/terms", "_blank")
    assert "noopener" in terms.get_attribute("rel").split()
    assert write.get_attribute("href") == "mailto:help@example.com"
    assert field(dialog, "From").get_attribute("value") == "billing@example.com"
    attachment = dialog.find_element(By.CSS_SELECTOR, ".attachment")
    assert attachment.find_element(By.CSS_SELECTOR, ".file-name").text == "invoice.txt"
    assert attachment.find_element(By.CSS_SELECTOR, ".file-size").text == "12.6 kB · text/plain"
    modal_id = page.modal_id(dialog)

    sender = field(dialog, "From")
    sender.clear()
    sender.send_keys("accounts@example.com")
    remove = attachment.find_element(By.CSS_SELECTOR, "button")
    assert remove.get_attribute("aria-label") == "Remove invoice.txt"
    remove.click()
    assert "removed" in attachment.get_attribute("class") and attachment.find_element(By.CSS_SELECTOR, ".attachment-state").text == "Removed"
    page.button(dialog, "Send").click()
    page.wait_toast("Mail sent from accounts@example.com; attachments: none; body untouched")
    mail = result_of(page, modal_id)["mail"]
    assert mail["attachments"] == [] and mail["from"] == "accounts@example.com"
    assert mail["body"] == present_of(page, "mailComposer")["modal"]["body"], "untouched: the body as sent"
    page.no_dialog()
    page.assert_no_bad_message()


def test_html_mail_edited_as_text_goes_back_as_escaped_html(options_host, desktop):
    page = desktop
    page.open(options_host.base)
    dialog = choose(page, "HTML mail")
    modal_id = page.modal_id(dialog)
    attachment = dialog.find_element(By.CSS_SELECTOR, ".attachment")
    attachment.find_element(By.CSS_SELECTOR, "button").click()       # removed, then put back
    attachment.find_element(By.CSS_SELECTOR, "button").click()
    page.button(dialog, "Edit as text").click()
    area = field(dialog, "Body")
    assert page.driver.switch_to.active_element == area
    text = area.get_attribute("value")
    assert text.startswith("Invoice 1234\n\nHello & welcome,\n\nsee our terms (https://example.com/terms) or write to us (help@example.com).")
    assert "- Amount: 12 EUR\n- Due: in 30 days" in text
    assert not dialog.find_element(By.CSS_SELECTOR, ".html-body").is_displayed()
    area.send_keys(Keys.CONTROL, Keys.END)
    area.send_keys("\nP.S. 1 < 2 & <b>not bold</b>")
    page.button(dialog, "Send").click()
    page.wait().until(lambda d: any(t.startswith("Mail sent from billing@example.com; attachments: invoice.txt; body edited:")
                                    for t in page.toasts()))
    body = result_of(page, modal_id)["mail"]["body"]
    assert body.endswith("<br>\nP.S. 1 &lt; 2 &amp; &lt;b&gt;not bold&lt;/b&gt;"), body
    assert "Invoice 1234<br>\n<br>\nHello &amp; welcome,<br>\n" in body
    assert result_of(page, modal_id)["mail"]["attachments"] == ["invoice.txt"]
    page.assert_no_bad_message()


def test_a_hostile_html_body_renders_inert(options_host, page):
    page.open(options_host.base)
    page.script("window.__xss = undefined")
    dialog = choose(page, "Hostile mail")
    body = dialog.find_element(By.CSS_SELECTOR, ".html-body")
    assert "Safe text" in body.text and "styled" in body.text
    for tag in ("img", "script", "iframe", "svg", "style", "form", "input", "object", "embed"):
        assert not body.find_elements(By.TAG_NAME, tag), tag
    attributes = page.script(
        "return [...arguments[0].querySelectorAll('*')].flatMap((n) => [...n.attributes].map((a) => n.tagName + ' ' + a.name))", body)
    assert attributes == [], "no attribute survives (only a safe link's href would)"
    assert not body.find_elements(By.TAG_NAME, "a"), "javascript: links are only their text"
    assert "click me or me" in body.text
    body.find_element(By.XPATH, ".//*[contains(text(), 'click me')]").click()
    time.sleep(1)                                      # time for an onerror or a load to fire
    assert page.script("return window.__xss") is None, "no script of the body ran"
    assert len(page.driver.window_handles) == 1
    assert not page.script("return [...document.querySelectorAll('*')].some((n) => [...n.attributes].some((a) => a.name.startsWith('on')))")
    assert page.find("#workspace").is_displayed(), "the body's style did not reach the page"
    page.button(dialog, "Cancel").click()
    page.wait_toast("Mail cancelled from billing@example.com; attachments: none; body untouched")
    assert page.script("return window.__xss") is None
    page.assert_no_bad_message()


def test_message_subject_is_shown_edited_and_returned(options_host, page):
    page.open(options_host.base)
    dialog = choose(page, "Message with subject")
    modal_id = page.modal_id(dialog)
    subject = field(dialog, "Subject")
    assert subject.get_attribute("value") == "Order 1234"
    assert field(dialog, "Message").get_attribute("value") == "Where is my parcel?"
    subject.send_keys(" is late")
    page.button(dialog, "Send").click()
    page.wait_toast("Message sent with subject 'Order 1234 is late'")
    assert result_of(page, modal_id)["message"]["subject"] == "Order 1234 is late"
    page.assert_no_bad_message()


def test_photos_without_limit_show_the_prompt_and_take_many(options_host, page, tmp_path):
    page.open(options_host.base)
    dialog = choose(page, "Any number of photos")
    assert dialog.find_element(By.CSS_SELECTOR, ".prompt").text == "Photos of the damage"
    assert dialog.find_element(By.CSS_SELECTOR, ".picker-rule").text == "Any number of photos, 10.5 MB in all."
    described = dialog.get_attribute("aria-describedby").split()
    assert [dialog.find_element(By.ID, i).text for i in described][0] == "Photos of the damage"
    chooser = dialog.find_element(By.CSS_SELECTOR, "input[type=file]")
    assert chooser.get_attribute("accept") == "image/*"
    assert chooser.get_attribute("multiple") == "true"
    paths = []
    for number in range(5):
        make_png(tmp_path / f"p{number}.png", 40 + number, 30)
        paths.append(str(tmp_path / f"p{number}.png"))
    chooser.send_keys("\n".join(paths))
    page.wait().until(lambda d: len(dialog.find_elements(By.CSS_SELECTOR, ".previews li")) == 5)
    assert "Too many" not in dialog.find_element(By.CSS_SELECTOR, ".picker-note").text
    page.button(dialog, "Send").click()
    page.wait_toast("Options photos: 5 file(s): p0.png, p1.png, p2.png, p3.png, p4.png", seconds=20)
    page.assert_no_bad_message()


def test_a_type_the_host_refuses_is_said_and_another_file_can_be_chosen(options_host, page, tmp_path):
    page.open(options_host.base)
    dialog = choose(page, "Any number of photos")
    notes = tmp_path / "notes.txt"
    notes.write_text("not a picture\n")
    chooser = dialog.find_element(By.CSS_SELECTOR, "input[type=file]")
    chooser.send_keys(str(notes))                      # the accept attribute only guides the system chooser
    page.wait().until(lambda d: dialog.find_elements(By.CSS_SELECTOR, ".previews li"))
    page.button(dialog, "Send").click()
    error = dialog.find_element(By.CSS_SELECTOR, ".error-text")
    page.wait().until(lambda d: error.is_displayed())
    assert error.text.startswith("The host refused the upload: only images are accepted here: “notes.txt” is text/plain"), error.text
    assert error.get_attribute("role") == "alert"
    assert any(e["code"] == "upload_invalid" for e in page.received("error"))
    # The same file would be refused again: no Retry, Send waits for another selection.
    assert "Choose another photo, or cancel." in error.text, error.text
    assert not [b for b in dialog.find_elements(By.CSS_SELECTOR, ".actions button") if b.text == "Retry"]
    assert not page.button(dialog, "Send").is_enabled() and page.button(dialog, "Cancel").is_enabled()
    page.screenshot("type-refused-no-retry")
    choose_button = dialog.find_element(By.CSS_SELECTOR, "button.chooser")
    assert choose_button.is_enabled(), "another file can be chosen"
    make_png(tmp_path / "damage.png", 80, 60)
    chooser.clear()                                    # chromedriver adds to a multiple input's files; a person replaces them
    chooser.send_keys(str(tmp_path / "damage.png"))
    page.wait().until(lambda d: [n.text for n in dialog.find_elements(By.CSS_SELECTOR, ".previews .file-name")] == ["damage.png"])
    page.wait().until(lambda d: not error.is_displayed())
    page.button(dialog, "Send").click()
    page.wait_toast("Options photos: 1 file(s): damage.png", seconds=20)
    page.no_dialog()

"""What a cold new-user trial got stuck on: a refused session that looked like an endless
reconnect, composer text lost on a reload, a refused upload that could only be cancelled,
sizes near a limit that read alike, a re-sent dialog whose new state was ignored."""
import json
import time

from selenium.webdriver.common.by import By

from browser_support import Peer, RestartableHost
from hosts import ROOT, received_photos  # noqa: F401
from pictures import make_big_file, make_png


def banner_text(page):
    banner = page.find("#banner")
    return banner.text if banner.is_displayed() else ""


def test_a_refused_session_names_the_reason_and_connects_once_the_host_has_room(desktop):
    page = desktop
    host = RestartableHost("--web-root", "web", "--max-sessions-per-address", "1")
    peer = Peer(f"ws://127.0.0.1:{host.port}/ws")
    try:
        peer.expect("controls")
        page.driver.get(host.base + "/")
        page.wait(15).until(lambda d: "The host refused this page: too many sessions from this address."
                            in banner_text(page))
        assert "Retrying in" in banner_text(page) or "Retrying now" in banner_text(page)
        assert "Reconnecting… attempt" not in banner_text(page)
        assert page.connection_state() == "reconnecting"
        peer.close()
        peer = None
        page.wait(20).until(lambda d: page.connection_state() == "open")
        page.wait().until(lambda d: not page.find("#banner").is_displayed())
        page.tap("country")
        page.button(page.dialog(), "France").click()
        page.wait_toast("Country: France")
    finally:
        if peer:
            peer.close()
        host.stop()


def field(dialog, label):
    return dialog.find_element(By.XPATH, f".//label[normalize-space(.)='{label}']/following-sibling::*[self::input or self::textarea]")


def drafts(page):
    return page.script("return Object.keys(sessionStorage).filter((k) => k.startsWith('remote-modal.draft.'))")


def reload(page):
    page.driver.refresh()
    page.wait().until(lambda d: page.connection_state() == "open")


def test_text_typed_in_the_composers_survives_a_reload_until_the_answer(host, desktop):
    page = desktop
    page.open(host.base)
    dialog = page.through_sheet("contact", "Mail")
    modal_id = page.modal_id(dialog)
    field(dialog, "Cc").send_keys("bob@example.com")
    field(dialog, "Subject").send_keys(" again")
    field(dialog, "Body").send_keys("\nSee you soon.")
    reload(page)
    dialog = page.dialog()
    assert page.modal_id(dialog) == modal_id, "the same modal, re-presented"
    assert field(dialog, "Cc").get_attribute("value") == "bob@example.com"
    assert field(dialog, "Subject").get_attribute("value") == "Hello again"
    assert field(dialog, "Body").get_attribute("value") == "Hello World!\nSee you soon."
    assert field(dialog, "To").get_attribute("value") == "support@example.com"
    page.button(dialog, "Send").click()
    page.wait_toast("Mail sent")
    page.no_dialog()
    sent = page.answers(modal_id)[-1]["value"]["mail"]
    assert (sent["cc"], sent["subject"]) == (["bob@example.com"], "Hello again")
    assert drafts(page) == []
    reload(page)
    page.no_dialog(seconds=3)
    dialog = page.through_sheet("contact", "Mail")
    assert field(dialog, "Cc").get_attribute("value") == ""
    assert field(dialog, "Subject").get_attribute("value") == "Hello"
    page.button(dialog, "Cancel").click()
    page.no_dialog()
    # The message composer keeps its draft too.
    dialog = page.through_sheet("contact", "Message")
    field(dialog, "Message").send_keys(" Call me.")
    reload(page)
    dialog = page.dialog()
    assert field(dialog, "Message").get_attribute("value") == "Hello World! Call me."
    page.button(dialog, "Cancel").click()
    page.no_dialog()
    assert drafts(page) == []
    page.assert_no_bad_message()


def test_a_re_sent_present_for_a_shown_dialog_shows_the_hosts_texts_and_actions(host, desktop):
    """After a reload during Sign in the host sends the alert again; whatever state it sends
    (texts, actions) is what the page shows, also for a dialog it already shows."""
    page = desktop
    page.open(host.base)
    page.tap("signIn")
    dialog = page.dialog()
    modal_id = page.modal_id(dialog)
    dialog.find_element(By.CSS_SELECTOR, "input[type=email]").send_keys("ann@example.com")
    page.wait().until(lambda d: page.sent("input", id=modal_id))
    reload(page)
    dialog = page.dialog()
    email = dialog.find_element(By.CSS_SELECTOR, "input[type=email]")
    assert email.get_attribute("value") == "ann@example.com", "the host kept the alert's input"
    present = [m for m in page.received("present", id=modal_id)][-1]
    # The host presents it once more (as on a resume), with other texts and actions; without
    # a seq, so the host's next message is not taken for a repeat.
    again = {key: value for key, value in present.items() if key != "seq"}
    modal = dict(present["modal"])
    modal["textFields"] = [dict(field, text=("carol@example.com" if field.get("kind") == "email" else ""))
                           for field in modal["textFields"]]
    modal["actions"] = [dict(action, enabled=(action["style"] == "cancel")) for action in modal["actions"]]
    again["modal"] = modal
    page.script("window.remoteModal.receive(arguments[0])", json.dumps(again))
    assert email.get_attribute("value") == "carol@example.com"
    assert len(page.finds("dialog.modal[open]")) == 1, "the same dialog, not a second one"
    states = [not b.get_attribute("disabled") for b in dialog.find_elements(By.CSS_SELECTOR, ".actions button")]
    assert states == [a["enabled"] for a in modal["actions"]]
    page.button(dialog, "Cancel").click()
    page.no_dialog()


def test_a_refused_file_is_named_and_can_be_removed_before_sending_again(desktop, tmp_path):
    page = desktop
    plain = RestartableHost("--web-root", "web")          # the default flags
    try:
        size = make_png(tmp_path / "cat.png")
        (tmp_path / "notes.bin").write_bytes(bytes(range(256)) * 20)
        page.open(plain.base)
        page.tap("photo")
        dialog = page.dialog()
        dialog.find_element(By.CSS_SELECTOR, "input[type=file]").send_keys(f"{tmp_path / 'notes.bin'}\n{tmp_path / 'cat.png'}")
        page.wait().until(lambda d: dialog.find_element(By.CSS_SELECTOR, ".picker-note").text.startswith("2 photos"))
        page.button(dialog, "Send").click()
        error = dialog.find_element(By.CSS_SELECTOR, ".error-text")
        page.wait().until(lambda d: error.text.startswith("The host refused the upload"))
        assert "“notes.bin”" in error.text and "file 0" not in error.text, error.text
        dialog.find_element(By.CSS_SELECTOR, "button[aria-label='Remove notes.bin']").click()
        assert [n.text for n in dialog.find_elements(By.CSS_SELECTOR, ".previews .file-name")] == ["cat.png"]
        assert not error.is_displayed()
        page.button(dialog, "Send").click()
        page.wait_toast(received_photos(1, size), seconds=20)
        page.no_dialog()
    finally:
        plain.stop()


def test_sizes_near_the_limit_do_not_read_alike(host, desktop, tmp_path):
    page = desktop
    make_big_file(tmp_path / "big.png", 10_800_000)
    page.open(host.base)
    page.tap("photo")
    dialog = page.dialog()
    assert dialog.find_element(By.CSS_SELECTOR, ".message").text.endswith("10.5 MB in all.")
    dialog.find_element(By.CSS_SELECTOR, "input[type=file]").send_keys(str(tmp_path / "big.png"))
    note = dialog.find_element(By.CSS_SELECTOR, ".picker-note")
    page.wait().until(lambda d: note.text)
    assert note.text == "Too large: 10.8 MB chosen, at most 10.5 MB in all."
    assert not page.button(dialog, "Send").is_enabled()
    page.button(dialog, "Cancel").click()
    page.no_dialog()

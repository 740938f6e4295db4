"""Issue #32's cold trial, round two (Chromium against a real modal-host): the page says what
it knows about a lost host and no more (the browser stays online while the host is down, so
"offline" would be untrue), a notice once shown keeps its words, the banner says why it
reconnects, and a flag in the host's words never breaks across lines. Each failed on the
page before its fix."""
import time

from browser_support import RestartableHost
from conftest import WEB
from test_connection import banner_text


def short_retention_host(seconds):
    return RestartableHost("--web-root", WEB, "--retention", str(seconds))


def notice_messages(page):
    return [n.text for n in page.finds("dialog.notice .message")]


def test_an_expiry_while_the_host_was_down_is_not_said_as_the_person_offline(desktop):
    """The host is stopped past its retention while the browser stays online: the notice says
    the host could not be reached, not that the person was offline."""
    page = desktop
    host = short_retention_host(3)
    try:
        page.open(host.base)
        page.tap("country")
        assert "Choose a country" in page.dialog().text
        host.kill()
        page.wait(15).until(lambda d: page.connection_state() == "reconnecting")
        time.sleep(4)                                # past the 3 s retention
        host.start_again()
        expected = "This screen was away from the host too long; “Choose a country” was closed."
        page.wait(20).until(lambda d: notice_messages(page))
        assert notice_messages(page) == [expected]
        assert "offline" not in page.find("dialog.notice").text.lower()
        page.screenshot("expired-host-unreachable")
        page.assert_no_bad_message()
    finally:
        host.stop()


def test_a_notice_keeps_its_words_when_a_later_expiry_happens(desktop):
    """A restart's notice, still on screen, is not rewritten by a later, separate expiry: that
    one gets its own words."""
    page = desktop
    host = short_retention_host(8)
    try:
        page.open(host.base)
        page.composer("Mail")
        host.terminate()                             # a plain restart: shutdown, then back at once
        host.start_again()
        page.wait(20).until(lambda d: any("The host restarted; “New mail” was closed." in m for m in notice_messages(page)))
        page.wait().until(lambda d: page.connection_state() == "open")
        first = notice_messages(page)
        host.kill()                                  # later, a stop past the 8 s retention
        page.wait(15).until(lambda d: page.connection_state() == "reconnecting")
        time.sleep(9)
        host.start_again()
        page.wait(20).until(lambda d: page.connection_state() == "open")
        time.sleep(1)
        assert notice_messages(page) == first, "the earlier notice keeps its words"
        assert "This screen was away from the host too long: it starts afresh." in page.toasts(), "the expiry is told on its own"
        page.screenshot("notice-keeps-its-words")
        page.assert_no_bad_message()
    finally:
        host.stop()


def test_a_killed_host_is_named_in_the_banner_not_only_an_attempt_count(host, desktop):
    page = desktop
    page.open(host.base)
    host.kill()
    page.wait(15).until(lambda d: "Reconnecting… attempt" in banner_text(page))
    text = page.find("#banner-text").text
    assert text.startswith("The host cannot be reached. Reconnecting… attempt "), text
    page.screenshot("banner-host-unreachable")


def test_a_flag_in_the_hosts_words_never_breaks_across_lines(host, desktop):
    """The lone approval's hint names "?group=NAME" and "--group": at every width of its
    message, each stays on one line."""
    page = desktop
    page.open(host.base)
    page.tap("approve")
    dialog = page.dialog()
    message = dialog.find_element("css selector", ".message")
    assert "(kiosks: --group)" in message.text
    broken = page.script("""
        const message = arguments[0];
        const words = ["--group", "?group=NAME"];
        const broken = [];
        for (let width = 120; width <= 640; width += 2) {
          message.style.width = `${width}px`;
          const walker = document.createTreeWalker(message, NodeFilter.SHOW_TEXT);
          const text = message.textContent;
          for (const word of words) {
            const start = text.indexOf(word);
            // The word's characters, by text node: one range over them, its line boxes.
            let offset = 0, range = document.createRange(), begun = false;
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
              const end = offset + node.data.length;
              if (!begun && start < end) { range.setStart(node, start - offset); begun = true; }
              if (begun && start + word.length <= end) { range.setEnd(node, start + word.length - offset); break; }
              offset = end;
            }
            walker.currentNode = message;
            const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
            if (tops.size !== 1) broken.push(`${word} at ${width}px, on lines at ${[...tops]}`);
          }
        }
        message.style.width = "";
        return broken;""", message)
    assert broken == [], broken
    page.screenshot("flag-on-one-line")

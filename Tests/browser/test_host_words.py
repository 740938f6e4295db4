"""Issue #32's cold trial, round two (Chromium against a real modal-host): the page says what
it knows about a lost host and no more (the browser stays online while the host is down, so
"offline" would be untrue) and the banner says why it reconnects. Each failed on the page
before its fix."""
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
        expected = "Your session expired while the host could not be reached; “Choose a country” was closed."
        page.wait(20).until(lambda d: notice_messages(page))
        assert notice_messages(page) == [expected]
        assert "offline" not in page.find("dialog.notice").text.lower()
        page.screenshot("expired-host-unreachable")
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

"""What a cold new-user trial got stuck on: a refused session that looked like an endless
reconnect, composer text lost on a reload, a refused upload that could only be cancelled,
sizes near a limit that read alike, a re-sent dialog whose new state was ignored."""
import time

from selenium.webdriver.common.by import By

from browser_support import Peer, RestartableHost
from hosts import ROOT  # noqa: F401
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

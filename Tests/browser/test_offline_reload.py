"""Issue 32 (second cold trial): a page reloaded while the host was down stayed on Chromium's
"This site can't be reached", and a passer-by had no way back. The page's files are kept by
a service worker (web/sw.js): reloaded while the host is down or not answering, the page
opens from its kept copy, says what is happening and keeps trying; it reconnects by itself
when the host is back."""
import os
import signal
import time

from selenium.webdriver.common.by import By

from browser_support import RestartableHost


def kept(page):
    """Waits until the service worker controls the page and has kept its files."""
    page.wait(15).until(lambda d: page.script(
        "return navigator.serviceWorker.controller !== null"))
    page.wait(15).until(lambda d: d.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "caches.open('remote-modal-shell-v1').then(c => c.keys()).then(k => done(k.length))") >= 20)


def banner_text(page):
    banner = page.find("#banner")
    return banner.text if banner.is_displayed() else ""


def test_a_reload_while_the_host_is_down_opens_the_page_and_it_comes_back_by_itself(desktop):
    page = desktop
    host = RestartableHost("--web-root", "web")
    try:
        page.open(host.base, "?name=lobby")
        kept(page)
        host.kill()
        page.driver.refresh()
        # The page itself, not the browser's error page: its header, and a word on the host.
        page.wait(10).until(lambda d: page.find("h1").text == "remote-modal")
        page.wait(15).until(lambda d: "The host cannot be reached" in banner_text(page))
        assert "can't be reached" not in page.driver.page_source
        page.screenshot("reload-while-host-down")
        host.start_again()
        page.wait(40).until(lambda d: page.connection_state() == "open")
        page.wait().until(lambda d: page.finds("[data-control=signIn]"))
    finally:
        host.stop()


def test_a_reload_while_the_host_does_not_answer_opens_the_kept_page_within_seconds(desktop):
    page = desktop
    host = RestartableHost("--web-root", "web")
    try:
        page.open(host.base, "")
        kept(page)
        os.kill(host.process.pid, signal.SIGSTOP)    # the socket accepts, nothing answers
        started = time.monotonic()
        page.driver.refresh()
        page.wait(15).until(lambda d: page.find("h1").text == "remote-modal")
        opened = time.monotonic() - started
        assert opened < 10, f"the kept page took {opened:.1f} s"
        page.wait(30).until(lambda d: "not answering" in banner_text(page) or "cannot be reached" in banner_text(page))
        page.screenshot("reload-while-host-stalled")
        os.kill(host.process.pid, signal.SIGCONT)
        page.wait(40).until(lambda d: page.connection_state() == "open")
    finally:
        try:
            os.kill(host.process.pid, signal.SIGCONT)
        except ProcessLookupError:
            pass
        host.stop()


def test_the_worker_keeps_every_file_of_the_page():
    """The worker's list names every file the page loads (a file left out would be missing
    from a reload while the host is down)."""
    root = os.path.join(os.path.dirname(__file__), "..", "..", "web")
    source = open(os.path.join(root, "sw.js"), encoding="utf-8").read()
    listed = set(line.strip().strip('",') for line in source.split("const SHELL = [")[1].split("];")[0].splitlines()
                 if line.strip())
    files = {os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
             for folder, _, names in os.walk(os.path.join(root, "js")) for name in names if name.endswith(".js")}
    assert files <= listed, sorted(files - listed)
    assert {"./", "css/app.css"} <= listed
    assert not any(path.startswith("/") or ".." in path for path in listed)

"""Helpers for the browser suite: a page object over a real Chromium, what went over its
WebSocket (Chromium's performance log), axe-core, a proxy that can cut the connection, a
host that can be killed and started again on its port, and a protocol peer in a thread."""
import asyncio
import base64
import json
import os
import socket
import subprocess
import threading
import time
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from hosts import BINARY, LOG_LEVEL, ROOT, Host, free_port
from protocol_client import ProtocolClient, read_binary_chunk

SHOTS = os.path.join(ROOT, "artifacts", "browser")
SIZES = {"desktop": (1440, 900), "phone": (390, 844), "kiosk": (1080, 1920)}


def make_driver(size):
    width, height = SIZES[size]
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 f"--window-size={width},{height + 140}", "--disable-popup-blocking", "--hide-scrollbars"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": size == "phone"})
    driver.execute_cdp_cmd("Network.enable", {})
    return driver


def binary_chunk(payload):
    """A binary upload chunk from the performance log (base64) as its header dict, plus
    "binary" and "bytes" (the raw bytes it carried); None if the frame is not one."""
    try:
        header, raw = read_binary_chunk(base64.b64decode(payload))
    except ValueError:
        return None
    return {**header, "binary": True, "bytes": len(raw)}


class Page:
    """One test's view of a browser: what the person sees and what crossed the socket."""

    def __init__(self, driver, size):
        self.driver = driver
        self.size = size
        self.scheme = "light"
        self.sent_frames = []
        self.received_frames = []
        self.console = []

    # Setup between tests: one window, light, no leftover logs.
    def reset(self):
        main = self.driver.window_handles[0]
        for handle in self.driver.window_handles[1:]:
            self.driver.switch_to.window(handle)
            self.driver.close()
        self.driver.switch_to.window(main)
        self.driver.get("about:blank")
        self.set_scheme("light")
        self.drain()
        self.sent_frames.clear()
        self.received_frames.clear()
        self.console.clear()

    def wait(self, seconds=10):
        return WebDriverWait(self.driver, seconds)

    def open(self, base, query=""):
        self.driver.get(f"{base}/{query}")
        self.wait().until(lambda d: self.connection_state() == "open")
        self.wait().until(EC.element_to_be_clickable((By.CSS_SELECTOR, "[data-control=signIn]")))

    def connection_state(self):
        return self.driver.find_element(By.ID, "connection").get_attribute("data-state")

    def restore_before_retry(self, proxy, margin_ms=1500):
        """Restores the proxy's network when the page's next attempt is at least `margin_ms`
        away, so that a "Retry now" pressed next is what reconnects (the backoff has full
        jitter: the next attempt may otherwise be milliseconds off and win the race)."""
        self.wait(30).until(lambda d: self.script(
            "const c = window.remoteModal; return c.state === 'reconnecting' && c.retryAt - Date.now() > arguments[0]",
            margin_ms))
        proxy.restore()

    def find(self, css):
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def finds(self, css):
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def control(self, control_id):
        return self.find(f"[data-control={control_id}]")

    def tap(self, control_id):
        for attempt in range(5):
            try:
                self.wait().until(EC.element_to_be_clickable((By.CSS_SELECTOR, f"[data-control={control_id}]"))).click()
                return
            except StaleElementReferenceException:
                if attempt == 4:
                    raise

    # The controls bar is rebuilt on every change: read it in one script, never a stale element.
    def control_busy(self, control_id):
        return self.script("return document.querySelector(`[data-control='${arguments[0]}']`)?.getAttribute('aria-busy') === 'true'",
                           control_id)

    def wait_idle(self, control_id, seconds=10):
        self.wait(seconds).until(lambda d: self.script(
            "const b = document.querySelector(`[data-control='${arguments[0]}']`);"
            "return !!b && b.getAttribute('aria-busy') !== 'true' && !b.disabled", control_id))

    def dialog(self, seconds=10):
        """The topmost open modal (a flow may present the next before the last one's dismiss)."""
        css = "dialog.modal[open]:not(.notice):not(.closing):not(.answered)"
        self.wait(seconds).until(EC.visibility_of_element_located((By.CSS_SELECTOR, css)))
        dialog = self.finds(css)[-1]
        # Clicks land where a person would click: after the opening transition.
        self.wait(seconds).until(lambda d: self.script(
            "return arguments[0].getAnimations().every((a) => a.playState !== 'running')", dialog))
        return dialog

    def through_sheet(self, control_id, title):
        """Taps a control whose flow starts with an action sheet, picks `title` in it, and
        returns the modal that follows (the sheet is answered at once: `dialog()` skips it)."""
        self.tap(control_id)
        sheet = self.dialog()
        self.button(sheet, title).click()
        return self.wait().until(lambda d: (lambda found: found if found != sheet else None)(self.dialog()))

    def composer(self, choice="Mail"):
        """Contact us, then Mail or Message: the demo's composer, open."""
        kind = {"Mail": "mailComposer", "Message": "messageComposer"}[choice]
        self.tap("contact")
        self.button(self.dialog(), choice).click()
        self.wait().until(lambda d: self.finds(f"dialog.modal-{kind}[open]"))
        return self.find(f"dialog.modal-{kind}[open]")

    def no_dialog(self, seconds=10):
        self.wait(seconds).until(lambda d: not self.finds("dialog.modal[open]:not(.notice)"))

    def button(self, dialog, title):
        return dialog.find_element(By.XPATH, f".//button[normalize-space(.)='{title}']")

    def toasts(self):
        # As read: a no-break space is a space.
        return self.script("return [...document.querySelectorAll('#toasts .toast')]"
                           ".map((t) => t.innerText.replace(/\\u00a0/g, ' ').trim())")

    def wait_toast(self, text, seconds=10):
        self.wait(seconds).until(lambda d: text in self.toasts())

    def script(self, source, *args):
        return self.driver.execute_script(source, *args)

    # What crossed the WebSocket, from Chromium's performance log. A binary frame (Chromium
    # logs it as base64) is an upload chunk (protocol.md section 7): it is recorded as its
    # header with "binary": True and the count of raw bytes it carried.
    def drain(self):
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            method = message.get("method")
            if method not in ("Network.webSocketFrameSent", "Network.webSocketFrameReceived"):
                continue
            response = message["params"]["response"]
            payload = response.get("payloadData", "")
            if response.get("opcode") == 2:
                frame = binary_chunk(payload)
            else:
                try:
                    frame = json.loads(payload)
                except ValueError:
                    frame = None
            if frame is None:
                continue
            (self.sent_frames if method.endswith("Sent") else self.received_frames).append(frame)
        self.console.extend(self.driver.get_log("browser"))

    def sent(self, type_=None, **fields):
        self.drain()
        return [m for m in self.sent_frames
                if (type_ is None or m.get("type") == type_) and all(m.get(k) == v for k, v in fields.items())]

    def received(self, type_=None, **fields):
        self.drain()
        return [m for m in self.received_frames
                if (type_ is None or m.get("type") == type_) and all(m.get(k) == v for k, v in fields.items())]

    def assert_no_bad_message(self):
        errors = self.received("error")
        assert not [e for e in errors if e.get("code") in ("bad_message", "unknown_modal", "bad_json")], errors

    def answers(self, modal_id):
        return [m for m in self.sent() if m.get("type") in ("result", "failure") and m.get("id") == modal_id]

    def modal_id(self, dialog):
        return dialog.get_attribute("data-modal-id")

    # Looks: colour scheme, screenshots, axe-core.
    def set_scheme(self, scheme):
        self.scheme = scheme
        self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                    {"features": [{"name": "prefers-color-scheme", "value": scheme}]})

    def screenshot(self, name):
        os.makedirs(SHOTS, exist_ok=True)
        time.sleep(0.25)          # let open transitions finish
        path = os.path.join(SHOTS, f"{name}-{self.size}-{self.scheme}.png")
        self.driver.save_screenshot(path)
        return path

    def axe(self):
        """Serious and critical axe-core violations on the page as it is now."""
        if not self.script("return !!window.axe"):
            self.script(axe_source())
            # The bundled axe-core (3.x) predates the HTML standard's `one-time-code` autofill
            # token; teach it that one token, nothing else.
            self.script("axe.configure({checks: [{id: 'autocomplete-valid', options: {standaloneTerms: ['one-time-code']}}]})")
        result = self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "axe.run(document, {resultTypes: ['violations']}).then((r) => done(r.violations.map((v) => ({"
            "  id: v.id, impact: v.impact, help: v.help,"
            "  nodes: v.nodes.map((n) => n.target.join(' ') + ': ' + (n.failureSummary || '').slice(0, 200))})))"
            ").catch((e) => done([{id: 'axe-error', impact: 'critical', help: String(e), nodes: []}]));")
        return [v for v in result if v["impact"] in ("serious", "critical")]

    def weak_borders(self):
        """Enabled inputs and buttons whose border has less than 3:1 contrast with what is
        behind them (WCAG 1.4.11; axe does not check it)."""
        return self.script(BORDER_CHECK)

    def both_schemes(self, name, axe_failures=None):
        """Screenshots in light and dark, checking axe in each; returns to light."""
        for scheme in ("light", "dark"):
            self.set_scheme(scheme)
            self.screenshot(name)
            if axe_failures is not None:
                for violation in self.axe():
                    axe_failures.append((name, self.size, scheme, violation))
                for weak in self.weak_borders():
                    axe_failures.append((name, self.size, scheme, {"id": "border-contrast", "impact": "serious",
                                                                   "help": "border under 3:1", "nodes": [weak]}))
        self.set_scheme("light")


BORDER_CHECK = """
const rgb = (text) => (text.match(/[\\d.]+/g) || []).map(Number);
const luminance = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
  .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
const behind = (node) => {
  for (let at = node.parentElement; at; at = at.parentElement) {
    const color = rgb(getComputedStyle(at).backgroundColor);
    if (color.length === 3 || color[3] > 0.5) return color.slice(0, 3);
  }
  return rgb(getComputedStyle(document.documentElement).backgroundColor).slice(0, 3);
};
const weak = [];
for (const node of document.querySelectorAll("input:not([type=file]), textarea, button")) {
  const style = getComputedStyle(node);
  if (node.disabled || node.closest("fieldset:disabled") || node.closest("[hidden]") || !node.offsetParent) continue;
  if (parseFloat(style.borderTopWidth) === 0 || style.borderTopStyle === "none") continue;
  const border = rgb(style.borderTopColor);
  if (border.length > 3 && border[3] < 0.5) continue;
  const [a, b] = [luminance(border.slice(0, 3)), luminance(behind(node))];
  const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  if (ratio < 3) weak.push(`${node.tagName.toLowerCase()}.${node.className} ${style.borderTopColor}: ${ratio.toFixed(2)}`);
}
return weak;
"""

_AXE = None


def axe_source():
    global _AXE
    if _AXE is None:
        import axe_selenium_python
        path = os.path.join(os.path.dirname(axe_selenium_python.__file__), "node_modules", "axe-core", "axe.min.js")
        with open(path, encoding="utf-8") as file:
            _AXE = file.read()
    return _AXE


class RestartableHost(Host):
    """A modal-host that can be killed (SIGKILL, no goodbye) and started again on its port."""

    def __init__(self, *args):
        self.args = args
        super().__init__(*args)

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def kill(self):
        self.process.kill()
        self.process.wait(timeout=10)

    def terminate(self):
        """SIGTERM: the host dismisses its modals with `shutdown` and closes with 1001."""
        self.process.terminate()
        self.process.wait(timeout=10)

    def start_again(self):
        self.process = subprocess.Popen(
            [BINARY, "--port", str(self.port), "--log-level", LOG_LEVEL, *self.args],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=self.stderr)
        deadline = time.time() + 15
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(f"{self.base}/healthz", timeout=1) as reply:
                    if reply.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("modal-host did not come back")


class CuttableProxy:
    """A TCP proxy in front of a host: `cut()` drops every connection and refuses new ones
    (as a lost network does), `restore()` lets them through again; `stall()` keeps every
    connection open but lets nothing through (a network that dies without a word) until
    `unstall()`. Counts the bytes the browser sent."""

    def __init__(self, target_port):
        self.target_port = target_port
        self.port = free_port()
        self.lock = threading.Lock()
        self.pairs = []
        self.upstream_bytes = 0
        self.listener = None
        self.stalled = False
        self.websockets_refused = False
        self.restore()

    def refuse_websockets(self, refused=True):
        """New connections for `/ws` are closed at once while the page itself still loads
        (a host the page's socket cannot reach, with the page reloadable)."""
        self.websockets_refused = refused

    def stall(self):
        self.stalled = True

    def unstall(self):
        self.stalled = False

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def restore(self):
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self):
        listener, self.listener = self.listener, None
        if listener:
            try:
                listener.shutdown(socket.SHUT_RDWR)      # wakes the thread blocked in accept()
            except OSError:
                pass
            listener.close()
        with self.lock:
            pairs, self.pairs = self.pairs, []
        for pair in pairs:
            for sock in pair:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()

    def stop(self):
        self.cut()

    @staticmethod
    def _asks_for_websocket(client):
        """Whether the request a new connection starts with is for the socket (`GET /ws`)."""
        client.settimeout(2)
        try:
            head = client.recv(64, socket.MSG_PEEK)
        except OSError:
            head = b""
        client.settimeout(None)
        return head.startswith(b"GET /ws")

    def _accept(self, listener):
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            if self.websockets_refused and self._asks_for_websocket(client):
                client.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            with self.lock:
                self.pairs.append((client, upstream))
            threading.Thread(target=self._pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False), daemon=True).start()

    def _pump(self, source, sink, upstream):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if self.stalled:
                    continue                             # swallowed, as by a dead network
                if upstream:
                    with self.lock:
                        self.upstream_bytes += len(data)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


class Peer:
    """A protocol client on its own event loop thread, for a second person in a group."""

    def __init__(self, url, **kwargs):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.client = self.call(ProtocolClient.open(url, **kwargs))

    def call(self, coroutine, timeout=20):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def tap(self, control):
        self.call(self.client.tap(control))

    def expect(self, type_, timeout=10, **fields):
        return self.call(self.client.expect(type_, timeout=timeout, **fields), timeout + 5)

    def close(self):
        try:
            self.call(self.client.close())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=5)

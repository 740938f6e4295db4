"""The page with a host that offers no heartbeat (a host before it: a scripted one that serves
web/ and speaks the protocol without `heartbeat` in its welcome): the page never pings it,
says it is checking while typed values are fresh, then the host's rule after a second of
silence, and the host's update enables the action."""
import asyncio
import json
import mimetypes
import os
import queue
import threading
import time

import pytest
from selenium.webdriver.common.by import By
from websockets.asyncio.server import serve
from websockets.datastructures import Headers
from websockets.http11 import Response

from hosts import ROOT

WEB = os.path.join(ROOT, "web")
mimetypes.add_type("text/javascript", ".js")


class PageHost:
    """Serves web/ over HTTP and, on /ws, welcomes one page without a heartbeat offer."""

    def __init__(self):
        self.inbox = queue.Queue()
        self.seq = 0
        self.connection = None
        self.loop = asyncio.new_event_loop()
        started = threading.Event()

        async def main():
            self.server = await serve(self.handle, "127.0.0.1", 0, subprotocols=["remote-modal.v1"],
                                      process_request=self.http)
            self.port = self.server.sockets[0].getsockname()[1]
            started.set()
            await self.server.wait_closed()

        self.thread = threading.Thread(target=lambda: self.loop.run_until_complete(main()), daemon=True)
        self.thread.start()
        assert started.wait(10)

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def http(self, connection, request):
        path = request.path.split("?")[0]
        if path == "/ws":
            return None                                  # the WebSocket handshake goes on
        relative = "index.html" if path == "/" else path.lstrip("/")
        full = os.path.realpath(os.path.join(WEB, relative))
        if not full.startswith(WEB + os.sep) or not os.path.isfile(full):
            return connection.respond(404, "not found\n")
        with open(full, "rb") as file:
            body = file.read()
        kind = mimetypes.guess_type(full)[0] or "application/octet-stream"
        return Response(200, "OK", Headers([("Content-Type", kind), ("Content-Length", str(len(body)))]), body)

    async def handle(self, connection):
        hello = json.loads(await connection.recv())
        assert hello["type"] == "hello"
        self.connection = connection
        await connection.send(json.dumps({"type": "welcome", "protocol": 1, "session": "c2NyaXB0ZWQtcGFnZS1ob3N0",
                                          "resumed": False, "retentionSeconds": 60}))
        await self.emit({"type": "controls", "items": [
            {"id": "signIn", "title": "Sign in", "style": "default", "enabled": True, "busy": False}]})
        async for text in connection:
            self.inbox.put(json.loads(text))

    async def emit(self, message):
        self.seq += 1
        await self.connection.send(json.dumps({**message, "seq": self.seq}))

    def send(self, message):
        asyncio.run_coroutine_threadsafe(self.emit(message), self.loop).result(5)

    def received(self):
        found = []
        while not self.inbox.empty():
            found.append(self.inbox.get())
        return found

    def close(self):
        self.loop.call_soon_threadsafe(self.server.close)
        self.thread.join(5)


@pytest.fixture
def page_host():
    server = PageHost()
    yield server
    server.close()


def test_without_the_heartbeat_the_rule_is_said_after_a_second_and_nothing_pings(page_host, page):
    page.open(page_host.base)
    assert "heartbeat" not in page.received("welcome")[0]
    page_host.send({"type": "present", "id": "m1", "modal": {
        "kind": "alert", "title": "Your e-mail", "message": None,
        "textFields": [{"kind": "email", "placeholder": "e-mail", "text": None}],
        "actions": [{"title": "Cancel", "style": "cancel", "enabled": True, "preferred": False},
                    {"title": "OK", "style": "default", "enabled": False, "preferred": True,
                     "explanation": "Enter an e-mail address"}]}})
    dialog = page.dialog()
    rule = dialog.find_element(By.CSS_SELECTOR, ".rule-line")
    assert rule.text == "Enter an e-mail address"
    dialog.find_element(By.TAG_NAME, "input").send_keys("bob")
    page.wait(3).until(lambda d: rule.text == "Checking what you typed with the host…")
    typed = time.time()
    page.wait(5).until(lambda d: rule.text == "Enter an e-mail address")
    assert time.time() - typed < 3, "a second of silence counts as checked"
    page.screenshot("no-heartbeat-rule")
    inputs = [m for m in page_host.received() if m["type"] == "input"]
    assert inputs and inputs[-1]["textFields"] == ["bob"], inputs
    page_host.send({"type": "update", "id": "m1", "actions": [{"enabled": True}, {"enabled": True}]})
    ok = page.button(dialog, "OK")
    page.wait().until(lambda d: ok.is_enabled())
    assert rule.text == ""
    ok.click()
    deadline = time.time() + 5
    results = []
    while time.time() < deadline and not results:
        results = [m for m in page_host.received() if m["type"] == "result"]
        time.sleep(0.1)
    assert results and results[0]["value"] == {"action": 1, "textFields": ["bob"]}, results
    assert page.sent("ping") == [], "a host that offers no heartbeat is never pinged"

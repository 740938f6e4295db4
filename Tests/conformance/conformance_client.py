"""A client of the conformance host on the `remote_modal_client` package: it reads each
modal's instructions (docs/clients.md, "The conformance host") and does what they say.
`faults` make it break one rule on purpose, for the tests that the host catches it:

- `answer-twice`: every result is sent twice, the same, back to back (protocol.md section 5
  allows it: this client still conforms);
- `answer-changed`: every result is followed by a second, different one;
- `ignore-dismiss`: a dismissed dialog stays; when the next one comes, the stale one is
  cancelled, as a person closing it would;
- `overrun-window`: uploads ignore `uploadWindow`;
- `choke-unknown`: a field or message type it does not know makes it give up;
- `no-resume`: after a drop it starts a new session instead of resuming.

    python Tests/conformance/conformance_client.py ws://127.0.0.1:8090/ws
"""
import asyncio
import json
import os
import re
import sys
import urllib.error
import urllib.request

import websockets

from remote_modal_client import CAPABILITIES, ModalClient, SessionLost, Upload

LINE = re.compile(r'^(?:Type "(?P<text>.*)" in field (?P<field>\d+)|Choose "(?P<choice>.*)"|(?P<wait>Wait)|(?P<send>Send)'
                  r'|Upload (?P<count>\d+) files? of (?P<bytes>\d+) bytes(?: each)? as "(?P<mime>[^"]+)"'
                  r'|Answer (?P<json>.+))\.$')

KNOWN_TYPES = {"welcome", "present", "update", "dismiss", "uploadAck", "controls", "status", "error", "resumed"}
KNOWN_PRESENT = {"type", "seq", "id", "modal", "uploadWindow", "received"}


def instructions(text):
    """[(verb, value)] from a modal's text: ("type", (field, text)), ("choose", title), ("wait", None),
    ("send", None), ("upload", (count, bytes, mime)), ("answer", value)."""
    steps = []
    for line in (text or "").splitlines():
        match = LINE.match(line.strip())
        if not match:
            continue
        if match["choice"] is not None:
            steps.append(("choose", match["choice"]))
        elif match["text"] is not None:
            steps.append(("type", (int(match["field"]), match["text"])))
        elif match["wait"]:
            steps.append(("wait", None))
        elif match["send"]:
            steps.append(("send", None))
        elif match["count"]:
            steps.append(("upload", (int(match["count"]), int(match["bytes"]), match["mime"])))
        elif match["json"]:
            steps.append(("answer", json.loads(match["json"])))
    return steps


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def _location(url):
    """Where `url` redirects to (a native scheme's callback is not followed)."""
    try:
        urllib.request.build_opener(_NoRedirect).open(url, timeout=10)
    except urllib.error.HTTPError as error:
        return error.headers.get("Location")
    return None


def _visit(url):
    with urllib.request.urlopen(url, timeout=10) as reply:
        reply.read()


class ConformanceClient:
    def __init__(self, url, faults=()):
        self.url = url
        self.faults = set(faults)
        self.client = self._new_client()
        self.waiting = set()  # dialogs whose text said "Wait."

    def _new_client(self):
        return ModalClient(self.url, name="python-conformance", capabilities=CAPABILITIES + ["custom:conformance"])

    async def run(self, timeout=120):
        await self.client.connect()
        while True:
            try:
                await self.handle(await self.client.next(timeout=timeout))
            except websockets.exceptions.ConnectionClosed as closed:
                if closed.rcvd is not None and closed.rcvd.code == 1000:
                    return
                await self._reconnect()

    async def _reconnect(self):
        if "no-resume" in self.faults:
            self.client = self._new_client()
            self.waiting.clear()
        try:
            await self.client.reconnect()
        except SessionLost:
            self.waiting.clear()

    async def handle(self, message):
        kind = message["type"]
        if "choke-unknown" in self.faults:
            unknown = kind not in KNOWN_TYPES or (kind == "present" and set(message) - KNOWN_PRESENT - {"again"})
            if unknown:
                raise ValueError(f"unknown message or field in {message}")
        if kind == "dismiss" and "ignore-dismiss" not in self.faults:
            self.waiting.discard(message["id"])
        if kind != "present":
            return
        modal_id = message["id"]
        if modal_id in self.client.unconfirmed or modal_id in self.waiting:
            return  # shown already: a resume re-sent it (the kept answer goes again by itself)
        for stale in sorted(self.waiting):
            await self.client.fail(stale, "cancelled")  # only the broken client has any
        self.waiting.clear()
        modal = message["modal"]
        kind = modal.get("kind")
        if kind in ("alert", "actionSheet"):
            await self._alert(modal_id, modal)
        elif kind in ("mailComposer", "messageComposer"):
            if ("send", None) in instructions(modal.get("body")):
                await self._answer(modal_id, {"status": "sent"})
        elif kind in ("photoPicker", "mediaPicker"):
            await self._picker(modal_id, message, modal)
        elif kind == "webAuthentication":
            if modal.get("callbackURLScheme"):
                location = await asyncio.to_thread(_location, modal["url"])
                await self._answer(modal_id, {"url": location})
            else:
                await asyncio.to_thread(_visit, modal["url"])  # the host resolves it from its callback
        elif kind == "custom" and modal.get("name") == "conformance":
            for verb, value in instructions((modal.get("payload") or {}).get("instructions")):
                if verb == "answer":
                    await self._answer(modal_id, value)
        else:
            await self.client.fail(modal_id, "unsupported")

    async def _alert(self, modal_id, modal):
        steps = instructions(modal.get("message"))
        if ("wait", None) in steps:
            self.waiting.add(modal_id)
            return
        fields = [""] * len(modal.get("textFields") or [])
        for verb, value in steps:
            if verb == "type" and 1 <= value[0] <= len(fields):
                fields[value[0] - 1] = value[1]
        if fields:
            await self.client.type_text(modal_id, fields)
        titles = [action["title"] for action in modal["actions"]]
        for verb, value in steps:
            if verb == "choose" and value in titles:
                answer = {"action": titles.index(value)}
                if modal.get("kind") == "alert":
                    answer["textFields"] = fields
                await self._answer(modal_id, answer)

    async def _picker(self, modal_id, message, modal):
        for verb, value in instructions(modal.get("prompt")):
            if verb != "upload":
                continue
            count, size, mime = value
            extension = mime.split("/")[-1]
            files = [(f"conformance-{index}.{extension}", mime, os.urandom(size)) for index in range(count)]
            if "overrun-window" in self.faults:
                upload = Upload(modal_id, files, window=10_000)
                try:
                    await upload.run(self.client.connection)
                except RuntimeError:
                    pass
                await self._answer(modal_id, upload.result_value())
            else:
                await self.client.upload(modal_id, files)

    async def _answer(self, modal_id, value):
        await self.client.answer(modal_id, value)
        if "answer-twice" in self.faults:
            await self.client.connection.send({"type": "result", "id": modal_id, "value": value})
        if "answer-changed" in self.faults:
            await self.client.connection.send({"type": "result", "id": modal_id, "value": {**value, "changed": True}})


def main():
    url = sys.argv[1] if len(sys.argv) > 1 else "ws://127.0.0.1:8090/ws"
    asyncio.run(ConformanceClient(url, faults=sys.argv[2:]).run())


if __name__ == "__main__":
    main()

"""The kiosk renders what the wire carries since version 1 (docs/protocol.md, "Optional fields"):
text-field configuration, HTML mail as text with its attachments and sender, the message
subject, picker prompts and no selection limit, and a filter refusal in the host's words.

A scripted host (a small websockets server written from docs/protocol.md) presents exactly the
fields under test and records what the kiosk answers; the filter refusal comes from a real
modal-host. tmux runs the kiosk; send-keys types as a person would."""
import asyncio
import base64
import json
import os
import queue
import sys
import threading
import time

import pytest
import websockets

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
from hosts import Host, received_photos  # noqa: E402
from test_kiosk import KIOSK, Tmux  # noqa: E402


class ScriptedHost:
    """Welcomes one kiosk, presents what a test asks, acknowledges uploads, records the rest."""

    def __init__(self):
        self.inbox = queue.Queue()
        self.seq = 0
        self.connection = None
        self.ready = threading.Event()
        self.loop = asyncio.new_event_loop()
        started = threading.Event()

        async def main():
            self.server = await websockets.serve(self.handle, "127.0.0.1", 0, subprotocols=["remote-modal.v1"])
            self.port = self.server.sockets[0].getsockname()[1]
            started.set()
            await self.server.wait_closed()

        self.thread = threading.Thread(target=lambda: self.loop.run_until_complete(main()), daemon=True)
        self.thread.start()
        assert started.wait(10)

    async def handle(self, connection):
        hello = json.loads(await connection.recv())
        assert hello["type"] == "hello"
        self.connection = connection
        await self.emit({"type": "welcome", "protocol": 1, "session": "c2NyaXB0ZWQtaG9zdC1zZXNzaW9u",
                         "resumed": False, "retentionSeconds": 60})
        self.ready.set()
        async for text in connection:
            message = json.loads(text)
            if message["type"] == "upload":
                received = message["offset"] + len(base64.b64decode(message["data"]))
                await self.emit({"type": "uploadAck", "id": message["id"], "file": message["file"],
                                 "received": received})
            self.inbox.put(message)

    async def emit(self, message):
        self.seq += 1
        await self.connection.send(json.dumps({**message, "seq": self.seq}))

    def send(self, message):
        asyncio.run_coroutine_threadsafe(self.emit(message), self.loop).result(5)

    def present(self, modal_id, modal, **extra):
        self.send({"type": "present", "id": modal_id, "modal": modal, **extra})

    def expect(self, type_, seconds=10):
        deadline = time.time() + seconds
        while time.time() < deadline:
            try:
                message = self.inbox.get(timeout=0.1)
            except queue.Empty:
                continue
            if message["type"] == type_:
                return message
        raise AssertionError(f"the kiosk never sent {type_!r}")

    def close(self):
        self.loop.call_soon_threadsafe(self.server.close)
        self.thread.join(5)


@pytest.fixture
def scripted():
    host = ScriptedHost()
    terminal = Tmux(f"kiosk-options-{os.getpid()}-{time.monotonic_ns()}",
                    f"{KIOSK} ws://127.0.0.1:{host.port}/ws --name lobby-1")
    terminal.wait_for("| connected")
    assert host.ready.wait(10)
    yield host, terminal
    terminal.close()
    host.close()


def test_text_field_configuration_masks_and_hints(scripted):
    host, kiosk = scripted
    host.present("m1", {"kind": "alert", "title": "Verify", "message": None, "textFields": [
        {"kind": "plain", "placeholder": "code", "text": None, "keyboard": "numeric", "contentType": "one-time-code"},
        {"kind": "plain", "placeholder": "PIN", "text": None, "secure": True},
    ], "actions": [{"title": "OK", "style": "default", "enabled": True, "preferred": True}]})
    kiosk.wait_for("== Verify ==")
    kiosk.wait_for("code (one-time code, digits):")
    kiosk.keys("123456", "Enter", "4321")
    kiosk.wait_for("PIN: ****")
    assert "4321" not in kiosk.screen()
    kiosk.keys("Enter", "Enter")
    result = host.expect("result")
    assert result["value"] == {"action": 0, "textFields": ["123456", "4321"]}


INVOICE = base64.b64encode(b"Invoice 1234: 12 EUR\n").decode()
HTML = ('<html><head><style>p{color:red}</style></head><body><p>Hello &amp; welcome,</p>'
        '<p>see <a href="https://example.com/terms">our terms</a>.</p><ul><li>one</li><li>two</li></ul></body></html>')


def test_an_html_mail_reads_as_text_lists_its_attachments_and_keeps_them_in_the_result(scripted):
    host, kiosk = scripted
    host.present("m2", {"kind": "mailComposer", "to": ["support@example.com"], "cc": [], "bcc": [],
                        "subject": "Your invoice", "body": HTML, "isHTML": True, "from": "billing@example.com",
                        "attachments": [
                            {"name": "invoice.txt", "mimeType": "text/plain", "data": INVOICE},
                            {"name": "photo.jpg", "mimeType": "image/jpeg",
                             "data": base64.b64encode(bytes(2500)).decode()}]})
    kiosk.wait_for("== New mail ==")
    screen = kiosk.screen()
    assert "Attached: invoice.txt (21 B), photo.jpg (2.5 kB)" in screen
    assert "From: billing@example.com" in screen
    assert "Subject: Your invoice" in screen
    assert "| Hello & welcome," in screen
    assert "| see our terms (https://example.com/terms)." in screen
    assert "| - one" in screen and "| - two" in screen
    assert "<p>" not in screen and "&amp;" not in screen and "color:red" not in screen
    # Leave photo.jpg out: Tab to the Attachments field, erase ", photo.jpg".
    for _ in range(6):
        kiosk.keys("Tab")
    kiosk.keys(*["BSpace"] * len(", photo.jpg"))
    kiosk.wait_for("Attachments (delete a name to leave it out): invoice.txt_")
    kiosk.keys("Tab", "Enter")
    result = host.expect("result")
    mail = result["value"]["mail"]
    assert result["value"]["status"] == "sent"
    assert mail["attachments"] == ["invoice.txt"]
    assert mail["from"] == "billing@example.com"
    assert mail["subject"] == "Your invoice"
    assert mail["body"] == HTML  # untouched: the host's HTML comes back, not the text shown


def test_the_message_subject_is_shown_and_comes_back_edited(scripted):
    host, kiosk = scripted
    host.present("m3", {"kind": "messageComposer", "recipients": ["0639981337"], "subject": "Greetings",
                        "body": "Hello"})
    kiosk.wait_for("== New message ==")
    kiosk.wait_for("Subject: Greetings")
    kiosk.keys("Tab", " from Ann")
    kiosk.wait_for("Subject: Greetings from Ann")
    kiosk.keys("Tab", "Tab", "Enter")
    result = host.expect("result")
    assert result["value"] == {"status": "sent", "message": {
        "recipients": ["0639981337"], "body": "Hello", "subject": "Greetings from Ann"}}


def test_a_picker_shows_its_prompt_and_takes_any_number_of_files_when_unlimited(scripted, tmp_path):
    host, kiosk = scripted
    paths = []
    for index in range(3):
        path = tmp_path / f"p{index}.png"
        path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes([index]) * 100)
        paths.append(str(path))
    host.present("m4", {"kind": "photoPicker", "selectionLimit": 0, "filter": ["image"], "maxBytes": 10485760,
                        "prompt": "Photos of the damage"}, uploadWindow=8)
    kiosk.wait_for("== Choose photos ==")
    screen = kiosk.screen()
    assert "Photos of the damage" in screen
    assert "Images only." in screen
    assert "Any number of files, 10.5 MB in all." in screen
    kiosk.keys(", ".join(paths), "Enter", "Enter")
    result = host.expect("result")
    assert [item["name"] for item in result["value"]["items"]] == ["p0.png", "p1.png", "p2.png"]


def test_a_filter_refusal_is_shown_in_the_hosts_words_and_other_files_can_be_picked(tmp_path):
    host = Host("--retention", "30")
    kiosk = Tmux(f"kiosk-filter-{os.getpid()}-{time.monotonic_ns()}",
                 f"{KIOSK} ws://127.0.0.1:{host.port}/ws --name lobby-1 --group lobby")
    try:
        notes = tmp_path / "notes.txt"
        notes.write_bytes(b"not a photo\n" * 100)
        photo = tmp_path / "cat.png"
        photo.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
        kiosk.wait_for("[4] Send photos")
        kiosk.keys("4")
        kiosk.wait_for("== Choose photos ==")
        kiosk.keys(str(notes), "Enter", "Enter")
        # Judged by its bytes on this disk, as the host would judge it, and never sent (issue
        # 33, round six); said under the path, by the file's name, and the path can be changed.
        kiosk.wait_for("^ Not sent: \u201cnotes.txt\u201d does not start as any known format; "
                       "only images are accepted here.")
        assert "file 0" not in kiosk.screen()
        kiosk.wait_for(f"> Files: {notes}_")
        kiosk.keys(*["BSpace"] * len(str(notes)))
        kiosk.keys(str(photo), "Enter", "Enter")
        kiosk.wait_for(received_photos(1, photo.stat().st_size))
    finally:
        kiosk.close()
        host.stop()

"""Uploads over a real socket: acknowledged, paced by the window, resumed, budgeted (docs/protocol.md)."""
import asyncio
import base64
import hashlib
import os
import re
import tempfile
import urllib.request

from hosts import Host, received_photos
from protocol_client import ProtocolClient

CHUNK = 32 * 1024


def png_bytes(count):
    """`count` random bytes that start as a PNG does (a picker judges a file by its bytes)."""
    return b"\x89PNG\r\n\x1a\n" + os.urandom(count - 8)


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def metric(host, name):
    with urllib.request.urlopen(f"http://127.0.0.1:{host.port}/metrics", timeout=5) as reply:
        text = reply.read().decode()
    match = re.search(rf"^{re.escape(name)} (\d+)", text, re.M)
    return int(match.group(1))


def spool_bytes(folder):
    total = 0
    for name in os.listdir(folder):
        if not name.startswith("upload-"):
            continue
        try:
            total += os.path.getsize(os.path.join(folder, name))
        except FileNotFoundError:
            pass  # the host removed it between the listing and the stat (an upload dropped)
    return total


class Uploader:
    """Sends one file by the window, counting acknowledgements and errors."""

    def __init__(self, client, modal_id, data, name="big.png", index=0, window=8):
        self.client, self.modal_id, self.data, self.name, self.index = client, modal_id, data, name, index
        self.window = window
        self.in_flight = 0
        self.held = 0
        self.errors = []
        self.wire_bytes = 0

    def chunk(self, offset):
        part = self.data[offset:offset + CHUNK]
        return {"type": "upload", "id": self.modal_id, "file": self.index, "name": self.name,
                "mimeType": "image/png", "size": len(self.data), "offset": offset,
                "data": base64.b64encode(part).decode(), "last": offset + len(part) >= len(self.data)}

    async def read_one(self):
        message = await self.client.next(timeout=20)
        if message["type"] == "uploadAck" and message["id"] == self.modal_id:
            self.in_flight -= 1
            self.held = message["received"]
        elif message["type"] == "error":
            self.errors.append(message)
            if message.get("ref") == "upload":
                self.in_flight -= 1
        return message

    async def send(self, start=0, stop_after=None):
        """Sends from `start` until done (or until `stop_after` bytes are acknowledged)."""
        offset = start
        while offset < len(self.data):
            if stop_after is not None and self.held >= stop_after or self.errors:
                break
            while self.in_flight >= self.window:
                await self.read_one()
            await self.client.send(self.chunk(offset))
            self.wire_bytes += min(CHUNK, len(self.data) - offset)
            self.in_flight += 1
            offset += CHUNK
        while self.in_flight > 0:
            await self.read_one()

    def item(self):
        return {"name": self.name, "mimeType": "image/png", "size": len(self.data),
                "sha256": hashlib.sha256(self.data).hexdigest()}


async def open_picker(url, **kwargs):
    client = await ProtocolClient.open(url, **kwargs)
    await client.tap("photo")
    present = await client.expect("present")
    assert present["modal"]["kind"] == "photoPicker"
    return client, present


def test_twenty_mebibytes_at_full_speed_by_the_window_are_never_rate_limited():
    host = Host("--photo-max-bytes", str(25 << 20))
    try:
        async def run():
            client, present = await open_picker(host.url)
            assert present["uploadWindow"] == 8
            data = png_bytes(20 << 20)
            uploader = Uploader(client, present["id"], data)
            await uploader.send()
            assert uploader.errors == []
            assert uploader.held == len(data)
            await client.send({"type": "result", "id": present["id"], "value": {"items": [uploader.item()]}})
            status = await client.expect("status", timeout=20)
            assert status["text"] == received_photos(1, len(data))
            assert not [m for m in client.inbox if m["type"] == "error"]
            await client.close()
        asyncio.run(run())
    finally:
        host.stop()


def test_a_cut_at_half_resumes_from_the_held_bytes():
    host = Host("--photo-max-bytes", str(25 << 20))
    try:
        async def run():
            client, present = await open_picker(host.url)
            data = png_bytes(20 << 20)
            first = Uploader(client, present["id"], data)
            await first.send(stop_after=len(data) // 2)
            session = client.session
            await client.ws.close()  # the network goes; chunks in flight may or may not have arrived

            back = await ProtocolClient.open(host.url, resume=session)
            assert back.welcome["resumed"] is True
            again = await back.expect("present", id=present["id"])
            held = {entry["file"]: entry["bytes"] for entry in again.get("received", [])}
            assert held[0] >= first.held >= len(data) // 2
            rest = Uploader(back, present["id"], data)
            await rest.send(start=held[0])
            assert rest.errors == [] and rest.held == len(data)
            await back.send({"type": "result", "id": present["id"], "value": {"items": [rest.item()]}})
            status = await back.expect("status", timeout=20)
            assert status["text"] == received_photos(1, len(data))
            assert first.wire_bytes + rest.wire_bytes < 1.2 * len(data)
            await back.close()
        asyncio.run(run())
    finally:
        host.stop()


def test_an_offset_that_does_not_continue_the_file_names_the_held_count_and_keeps_it():
    host = Host()
    try:
        async def run():
            client, present = await open_picker(host.url)
            data = png_bytes(2 << 20)
            uploader = Uploader(client, present["id"], data)
            await uploader.send(stop_after=3 * CHUNK)
            assert 3 * CHUNK <= uploader.held < len(data)
            held = uploader.held
            await client.send(uploader.chunk(held + CHUNK))
            error = await client.expect("error")
            assert error["code"] == "upload_invalid" and f"holds {held} bytes" in error["message"]
            await uploader.send(start=held)
            assert uploader.held == len(data)
            await client.send({"type": "result", "id": present["id"], "value": {"items": [uploader.item()]}})
            assert (await client.expect("status"))["text"] == received_photos(1, len(data))
            await client.close()
        asyncio.run(run())
    finally:
        host.stop()


def test_cancel_mid_upload_ends_the_modal_and_frees_the_spool_file():
    spool = tempfile.mkdtemp(prefix="spool-test-")
    host = Host("--spool-dir", spool)
    try:
        async def run():
            client, present = await open_picker(host.url)
            data = png_bytes(4 << 20)
            uploader = Uploader(client, present["id"], data)
            await uploader.send(stop_after=1 << 20)
            assert spool_bytes(spool) >= 1 << 20
            await client.send({"type": "failure", "id": present["id"], "code": "cancelled"})
            dismiss = await client.expect("dismiss", id=present["id"])
            assert dismiss["reason"] == "resolved"
            assert spool_bytes(spool) == 0 and os.listdir(spool) == []
            assert metric(host, 'remote_modal_upload_held_bytes{where="spool"}') == 0
            await client.close()
        asyncio.run(run())
    finally:
        host.stop()
    assert os.listdir(spool) == []


def test_many_sessions_uploading_and_vanishing_stay_within_the_host_budgets():
    spool = tempfile.mkdtemp(prefix="spool-test-")
    memory_budget, spool_budget = 8 << 20, 48 << 20
    host = Host("--spool-dir", spool, "--retention", "2", "--max-upload-memory", str(memory_budget),
                "--max-upload-spool", str(spool_budget))
    try:
        start_rss = rss_kib(host.process.pid)

        async def one(index, refused):
            client, present = await open_picker(host.url, name=f"flood-{index}")
            # Three small files each (in memory while the budget lasts), then a large one half sent.
            for number in range(2):
                small = Uploader(client, present["id"], png_bytes(200_000), name=f"s{number}.png", index=number)
                await small.send()
                refused.extend(small.errors)
            large = Uploader(client, present["id"], png_bytes(2 << 20), name="l.png", index=2)
            await large.send(stop_after=1 << 20)
            refused.extend(large.errors)
            await client.ws.close()

        async def flood():
            refused = []
            peak = {"rss": 0, "spool": 0}
            done = asyncio.Event()

            async def sample():
                while not done.is_set():
                    peak["rss"] = max(peak["rss"], rss_kib(host.process.pid))
                    peak["spool"] = max(peak["spool"], spool_bytes(spool))
                    await asyncio.sleep(0.05)

            sampler = asyncio.create_task(sample())
            await asyncio.gather(*(one(i, refused) for i in range(40)))
            done.set()
            await sampler
            return refused, peak

        refused, peak = asyncio.run(flood())
        # 40 sessions x 2.4 MB = 96 MB declared at once: past the 48 MiB budget, later files are refused.
        budget = [e for e in refused if "host upload budget exhausted" in e["message"]]
        assert budget, "the spool budget never refused a file"
        assert all(e in budget or "must start at offset 0" in e["message"] for e in refused), refused
        print(f"flood: {len(budget)} files refused, peak spool {peak['spool'] >> 20} MiB, RSS +{(peak['rss'] - start_rss) >> 10} MiB")
        assert peak["spool"] <= spool_budget
        assert peak["rss"] - start_rss < 120 * 1024, f"RSS grew by {peak['rss'] - start_rss} KiB"

        async def afterwards():
            await asyncio.sleep(3.5)  # retention (2 s) runs out, the held bytes go
            assert spool_bytes(spool) == 0
            client, present = await open_picker(host.url, name="well-behaved")
            data = png_bytes(5 << 20)
            uploader = Uploader(client, present["id"], data)
            await uploader.send()
            assert uploader.errors == []
            await client.send({"type": "result", "id": present["id"], "value": {"items": [uploader.item()]}})
            assert (await client.expect("status", timeout=20))["text"] == received_photos(1, len(data))
            await client.close()
        asyncio.run(afterwards())
    finally:
        host.stop()


def test_a_picker_refuses_files_of_other_types_at_their_first_chunk_and_says_what_it_accepts():
    """The demo's photo picker accepts images: a text file, and a PDF dressed as a PNG, are
    refused with upload_invalid naming what is accepted; nothing of them is held; a PNG goes through."""
    host = Host()
    try:
        async def run():
            client, present = await open_picker(host.url)
            modal_id = present["id"]
            assert present["modal"]["filter"] == ["image"]

            def chunk(name, mime, data):
                return {"type": "upload", "id": modal_id, "file": 0, "name": name, "mimeType": mime,
                        "size": len(data), "offset": 0, "data": base64.b64encode(data).decode(), "last": True}

            await client.send(chunk("notes.txt", "text/plain", b"just words"))
            error = await client.expect("error")
            assert error["code"] == "upload_invalid"
            assert error["message"] == "only images are accepted here: file 0 ('notes.txt') is text/plain"
            pdf = b"%PDF-1.7\n" + os.urandom(500)
            await client.send(chunk("cat.png", "image/png", pdf))
            error = await client.expect("error")
            assert error["message"] == ("only images are accepted here: file 0 ('cat.png') says image/png"
                                        " but its bytes are a PDF document")
            # Nothing was held: a continuation is told to start at 0.
            follow = chunk("cat.png", "image/png", pdf)
            follow["offset"] = 100
            await client.send(follow)
            error = await client.expect("error")
            assert "must start at offset 0" in error["message"]
            png = b"\x89PNG\r\n\x1a\n" + os.urandom(700)
            await client.send(chunk("cat.png", "image/png", png))
            ack = await client.expect("uploadAck")
            assert ack["received"] == len(png)
            item = {"name": "cat.png", "mimeType": "image/png", "size": len(png),
                    "sha256": hashlib.sha256(png).hexdigest()}
            await client.send({"type": "result", "id": modal_id, "value": {"items": [item]}})
            assert (await client.expect("status"))["text"] == received_photos(1, len(png))
            await client.close()
        asyncio.run(run())
    finally:
        host.stop()

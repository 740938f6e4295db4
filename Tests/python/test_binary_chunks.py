"""Binary upload chunks over a real socket (docs/protocol.md §7, "Binary chunks"): offered in
`welcome`, the same rules as base64 in text, every malformed frame refused saying why, and
a host told not to offer them refusing them as hosts before did."""
import asyncio
import hashlib
import os

import pytest

from hosts import Host, received_photos
import protocol_client  # noqa: F401  (this tree's clients/python first on the path)
from protocol_client import ProtocolClient, read_binary_chunk
from remote_modal_client import ModalClient, binary_chunk, chunk_messages
from schema import SCHEMA, _validator, problems

HEADER = _validator("message.uploadHeader")


def png(count):
    return b"\x89PNG\r\n\x1a\n" + os.urandom(count - 8)


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 60))


@pytest.fixture(scope="module")
def host():
    started = Host("--retention", "5")
    yield started
    started.stop()


def test_the_frame_layout_and_its_header_schema():
    data = png(40_000)
    frames = [binary_chunk(m) for m in chunk_messages("m1", 0, "cat.png", "image/png", data)]
    parts = [read_binary_chunk(frame) for frame in frames]
    assert [len(raw) for _, raw in parts] == [32_768, 40_000 - 32_768]
    assert b"".join(raw for _, raw in parts) == data
    for header, _ in parts:
        assert "data" not in header and problems(HEADER, header) == []
    assert problems(HEADER, {**parts[0][0], "data": "AAAA"}) != [], "a header never carries data"
    assert problems(HEADER, {k: v for k, v in parts[0][0].items() if k != "size"}) != []
    assert "message.uploadHeader" in SCHEMA["$defs"]


def test_binary_chunks_are_acknowledged_and_the_photo_arrives_whole(host):
    data = png(100_000)

    async def scenario():
        client = await ProtocolClient.open(host.url, capabilities=["photoPicker"])
        assert client.welcome["binaryUploads"] is True and client.binary_uploads
        await client.tap("photo")
        present = await client.expect("present")
        for message in chunk_messages(present["id"], 0, "cat.png", "image/png", data):
            await client.ws.send(binary_chunk(message))
        acks = [(await client.expect("uploadAck"))["received"] for _ in range(4)]
        assert acks == [32_768, 65_536, 98_304, 100_000]
        await client.send({"type": "result", "id": present["id"], "value": {"items": [
            {"name": "cat.png", "mimeType": "image/png", "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}]}})
        assert (await client.expect("status"))["text"] == received_photos(1, len(data))
        await client.close()
    run(scenario())


def test_every_malformed_frame_is_refused_saying_why_and_the_upload_goes_on(host):
    data = png(5_000)

    async def scenario():
        client = await ProtocolClient.open(host.url, capabilities=["photoPicker"])
        await client.tap("photo")
        present = await client.expect("present")
        good = next(chunk_messages(present["id"], 0, "cat.png", "image/png", data))
        header = binary_chunk(good)[:-len(data)]
        bad = {
            b"\x01": "2 bytes",
            b"\x40\x00" + header[2:]: "header",
            b"\x00\x05{\"a\":": "binary frame header",
            b"\x00\x02[]": "only an upload chunk",
            binary_chunk({**good, "type": "result"}): "only an upload chunk",
            len(b'{"type":"upload","data":"AA=="}').to_bytes(2, "big") + b'{"type":"upload","data":"AA=="}': "'data'",
        }
        for frame, words in bad.items():
            await client.ws.send(frame)
            error = await client.expect("error")
            assert error["code"] in ("bad_message", "bad_json") and words in error["message"], (frame[:20], error)
        # Still open, nothing held: the right frame is taken.
        await client.ws.send(binary_chunk(good))
        assert (await client.expect("uploadAck"))["received"] == len(data)
        await client.close()
    run(scenario())


def test_the_package_uploads_binary_when_offered_and_text_when_not():
    for flags, binary in (((), True), (("--no-binary-uploads",), False)):
        started = Host("--retention", "5", *flags)
        try:
            async def scenario():
                client = ModalClient(started.url, name="pkg", capabilities=["photoPicker"])
                await client.connect()
                assert client.connection.binary_uploads is binary
                assert ("binaryUploads" in client.connection.welcome) is binary
                sent = []
                original = client.connection.ws.send

                async def spy(frame):
                    sent.append(frame)
                    await original(frame)
                client.connection.ws.send = spy
                await client.tap("photo")
                present = await client.expect("present")
                data = png(70_000)
                await client.upload(present["id"], [("cat.png", "image/png", data)])
                assert (await client.expect("status"))["text"] == received_photos(1, len(data))
                chunks = [f for f in sent if isinstance(f, bytes) or '"upload"' in f]
                assert len(chunks) == 3 and all(isinstance(f, bytes) is binary for f in chunks)
                await client.close()
            run(scenario())
        finally:
            started.stop()


def test_a_host_told_not_to_offer_them_refuses_binary_frames():
    started = Host("--no-binary-uploads")
    try:
        async def scenario():
            client = await ProtocolClient.open(started.url, capabilities=["photoPicker"])
            assert "binaryUploads" not in client.welcome
            await client.tap("photo")
            present = await client.expect("present")
            await client.ws.send(binary_chunk(next(chunk_messages(present["id"], 0, "a.png", "image/png", png(100)))))
            error = await client.expect("error")
            assert (error["code"], error["message"]) == ("bad_message", "binary frames are not accepted")
            await client.close()
        run(scenario())
    finally:
        started.stop()

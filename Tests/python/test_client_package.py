"""The `remote_modal_client` package against a real host: a session that drops and resumes,
answers kept until dismissed, an upload within the window that resumes mid-way."""
import asyncio
import hashlib

import pytest

from hosts import Host, received_photos
import protocol_client  # noqa: F401  (puts this tree's clients/python first on the path)
from remote_modal_client import ModalClient, SessionLost, backoff_delays, chunk_messages
from schema import check_host_message as checked


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 60))


def test_backoff_is_exponential_with_jitter_and_capped():
    top = backoff_delays(rng=lambda: 1.0)
    assert [next(top) for _ in range(6)] == [0.5, 1.0, 2.0, 4.0, 6.0, 6.0]
    assert next(backoff_delays(rng=lambda: 0.0)) == 0.0


def test_chunks_are_standard_base64_with_last_on_the_end():
    data = bytes(range(256)) * 300  # 76,800 bytes: three chunks
    chunks = list(chunk_messages("m1", 0, "a.bin", "image/png", data))
    assert [c["offset"] for c in chunks] == [0, 32768, 65536]
    assert [c["last"] for c in chunks] == [False, False, True]
    assert all("+" in c["data"] or "/" in c["data"] for c in chunks)  # not the URL-safe alphabet
    empty = list(chunk_messages("m1", 1, "e.bin", "image/png", b""))
    assert empty == [{"type": "upload", "id": "m1", "file": 1, "name": "e.bin", "mimeType": "image/png", "size": 0,
                      "offset": 0, "data": "", "last": True}]


def test_a_kept_answer_is_sent_again_after_a_drop_and_accepted_once(demo_host):
    async def scenario():
        client = ModalClient(demo_host.url, name="pkg", on_message=checked)
        await client.connect()
        await client.tap("signIn")
        present = await client.expect("present")
        client.connection.ws.transport.abort()  # the answer goes nowhere: the connection is dead
        await client.answer(present["id"], {"action": 1, "textFields": ["ann@example.com", "pw"]})
        await asyncio.sleep(0.2)
        await client.reconnect(delays=iter([0, 0, 0]))
        assert client.connection.welcome["resumed"] is True
        again = await client.expect("present", id=present["id"])
        assert again["again"] is True
        await client.expect("dismiss", id=present["id"])
        assert (await client.expect("status"))["text"] == "Signed in as ann@example.com"
        assert present["id"] not in client.unconfirmed
        assert client.resumed_marker is True
        await client.close()
    run(scenario())


def test_a_lost_session_is_said():
    host = Host()
    try:
        async def first():
            client = ModalClient(host.url, name="pkg")
            await client.connect()
            return client
        client = run(first())
    finally:
        host.stop()
    again = Host()
    try:
        async def second():
            client.url = again.url
            with pytest.raises(SessionLost):
                await client.connect()
            assert client.last_seq == 0 and not client.unconfirmed
            await client.close()
        run(second())
    finally:
        again.stop()


@pytest.fixture
def slow_upload_host():
    # 300 KB at 100 KB/s: the drop below lands mid-upload (at the default 32 MiB/s the host
    # took the whole file before the client could cut the connection).
    host = Host("--retention", "5", "--upload-rate", "100000")
    yield host
    host.stop()


def test_an_upload_keeps_the_window_and_resumes_from_what_the_host_holds(slow_upload_host):
    data = b"\x89PNG\r\n\x1a\n" + bytes((i * 7) % 251 for i in range(300_000 - 8))  # a PNG's start: judged by its bytes

    async def scenario():
        client = ModalClient(slow_upload_host.url, name="pkg", capabilities=["photoPicker"], on_message=checked)
        await client.connect()
        await client.tap("photo")
        present = await client.expect("present")
        window = present["uploadWindow"]
        upload_task = asyncio.ensure_future(client.upload(present["id"], [("cat.png", "image/png", data)]))
        # Drop the connection once a few chunks are acknowledged.
        while not any(m["type"] == "uploadAck" for m in client.connection.inbox[-5:]):
            await asyncio.sleep(0.01)
        assert not upload_task.done(), "the upload ended before the drop"
        client.connection.ws.transport.abort()
        upload = await upload_task
        assert upload.max_in_flight <= window
        status = await client.expect("status", timeout=20)
        assert status["text"] == received_photos(1, len(data))
        assert hashlib.sha256(data).hexdigest() == upload.result_value()["items"][0]["sha256"]
        await client.close()
    run(scenario())

"""Composers, pickers and web authentication over a real socket, with outside clients."""
import asyncio
import base64
import hashlib
import urllib.error
import urllib.parse
import urllib.request

import pytest

from hosts import Host, received_photos
from protocol_client import ProtocolClient


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 60))


async def open_contact(host, choice, capabilities=None):
    kwargs = {"capabilities": capabilities} if capabilities else {}
    client = await ProtocolClient.open(host.url, **kwargs)
    await choose_contact(client, choice)
    return client


async def choose_contact(client, choice):
    """Taps Contact us and picks `choice` (0: Mail, 1: Message) on its sheet."""
    await client.tap("contact")
    sheet = await client.expect("present")
    assert sheet["modal"]["source"] == "contact"
    assert [a["title"] for a in sheet["modal"]["actions"]] == ["Mail", "Message", "Cancel"]
    await client.send({"type": "result", "id": sheet["id"], "value": {"action": choice}})


def test_mail_composer_returns_the_edited_mail(demo_host):
    async def scenario():
        client = await open_contact(demo_host, 0)
        composer = await client.expect("present")
        assert composer["modal"] == {"kind": "mailComposer", "to": ["support@example.com"], "cc": [], "bcc": [],
                                     "subject": "Hello", "body": "Hello World!", "isHTML": False}
        await client.send({"type": "result", "id": composer["id"], "value": {"status": "sent", "mail": {
            "to": ["support@example.com"], "cc": [], "bcc": [], "subject": "Hello", "body": "Edited"}}})
        assert (await client.expect("status"))["text"] == "Mail sent"
        await client.close()
    run(scenario())


def test_message_composer_cancel_is_a_value(demo_host):
    async def scenario():
        client = await open_contact(demo_host, 1)
        composer = await client.expect("present")
        assert composer["modal"]["recipients"] == ["0639981337"] and composer["modal"]["body"] == "Hello World!"
        await client.send({"type": "result", "id": composer["id"], "value": {"status": "cancelled"}})
        assert (await client.expect("status"))["text"] == "Message cancelled"
        await client.close()
    run(scenario())


def test_mail_unsupported_on_a_client_without_the_capability(demo_host):
    async def scenario():
        client = await open_contact(demo_host, 0, capabilities=["alert", "actionSheet"])
        status = await client.expect("status")
        assert status["level"] == "error" and status["text"] == "Mail is not supported on this client"
        await client.close()
    run(scenario())


PNG = b"\x89PNG\r\n\x1a\n"


def chunks(data, size=32 * 1024):
    for offset in range(0, max(len(data), 1), size):
        yield offset, data[offset:offset + size], offset + size >= len(data)


async def upload(client, modal_id, index, name, data, tamper=None):
    for offset, part, last in chunks(data):
        message = {"type": "upload", "id": modal_id, "file": index, "name": name, "mimeType": "image/png",
                   "size": len(data), "offset": offset, "data": base64.b64encode(part).decode(), "last": last}
        if tamper:
            tamper(message)
        await client.send(message)


def test_photo_upload_checked_and_summarized(demo_host):
    async def scenario():
        client = await ProtocolClient.open(demo_host.url)
        await client.tap("photo")
        picker = await client.expect("present")
        assert picker["modal"] == {"kind": "photoPicker", "selectionLimit": 3, "filter": ["image"], "maxBytes": 10485760}
        # Both start as a PNG does: the picker judges a file by its bytes.
        files = [PNG + bytes(range(256)) * 400, PNG + b"small"]
        for index, data in enumerate(files):
            await upload(client, picker["id"], index, f"p{index}.png", data)
        items = [{"name": f"p{i}.png", "mimeType": "image/png", "size": len(d), "sha256": hashlib.sha256(d).hexdigest()}
                 for i, d in enumerate(files)]
        await client.send({"type": "result", "id": picker["id"], "value": {"items": items}})
        status = await client.expect("status")
        assert status["text"] == received_photos(2, sum(map(len, files)))
        assert not [m for m in client.inbox if m["type"] == "error"]
        await client.close()
    run(scenario())


def test_upload_tampering_is_refused_and_the_modal_stays(demo_host):
    async def scenario():
        client = await ProtocolClient.open(demo_host.url)
        await client.tap("photo")
        picker = await client.expect("present")
        data = PNG + b"a" * 69992
        # A gap in the offsets.
        await upload(client, picker["id"], 0, "a.png", data, tamper=lambda m: m.update(offset=m["offset"] + (1 if m["offset"] else 0)))
        assert (await client.expect("error"))["code"] == "upload_invalid"
        # A wrong hash.
        await upload(client, picker["id"], 0, "a.png", data)
        bad = [{"name": "a.png", "mimeType": "image/png", "size": len(data), "sha256": "0" * 64}]
        await client.send({"type": "result", "id": picker["id"], "value": {"items": bad}})
        assert (await client.expect("error"))["code"] == "upload_invalid"
        # Over the limit: a declared size past maxBytes.
        await client.send({"type": "upload", "id": picker["id"], "file": 0, "name": "big.png", "mimeType": "image/png",
                           "size": 20 * 1024 * 1024, "offset": 0, "data": "", "last": False})
        assert (await client.expect("error"))["code"] == "upload_invalid"
        # Still pending: a clean upload now succeeds.
        await upload(client, picker["id"], 0, "a.png", data)
        good = [{"name": "a.png", "mimeType": "image/png", "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}]
        await client.send({"type": "result", "id": picker["id"], "value": {"items": good}})
        assert (await client.expect("status"))["text"] == received_photos(1, len(data))
        await client.close()
    run(scenario())


def test_empty_selection_is_a_value(demo_host):
    async def scenario():
        client = await ProtocolClient.open(demo_host.url)
        await client.tap("photo")
        picker = await client.expect("present")
        await client.send({"type": "result", "id": picker["id"], "value": {"items": []}})
        # A value: the modal is resolved, and the demo says nothing was picked as it says a
        # cancel (the host API gives both as an empty selection, as upstream's picker does).
        assert (await client.expect("dismiss"))["reason"] == "resolved"
        status = await client.expect("status")
        assert (status["level"], status["text"]) == ("info", "Photos cancelled")
        await client.close()
    run(scenario())


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def authorize(url, sub="alice"):
    """Plays the person at the provider's page: posts the subject, returns the redirect."""
    opener = urllib.request.build_opener(NoRedirect)
    request = urllib.request.Request(url, data=urllib.parse.urlencode({"sub": sub}).encode(), method="POST")
    try:
        opener.open(request)
    except urllib.error.HTTPError as redirect:
        assert redirect.code in (302, 303), redirect.code
        return redirect.headers["Location"]
    raise AssertionError("the provider did not redirect")


def fetch(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_login_against_a_real_openid_provider(oidc_host):
    host, provider = oidc_host

    async def scenario():
        client = await ProtocolClient.open(host.url)
        controls = await client.expect("controls")
        assert "login" in [i["id"] for i in controls["items"]]
        await client.tap("login")
        present = await client.expect("present")
        modal = present["modal"]
        assert modal["kind"] == "webAuthentication" and modal["callbackURLScheme"] is None
        assert modal["url"].startswith(f"{provider.issuer}/oauth2/authorize?")
        assert modal["callbackURL"].startswith(f"http://127.0.0.1:{host.port}/auth/callback/")
        callback = await asyncio.get_running_loop().run_in_executor(None, authorize, modal["url"])
        assert callback.startswith(modal["callbackURL"]) and "code=" in callback
        # A wrong state is refused and resolves nothing.
        wrong = callback.replace("state=", "state=x")
        status, _ = await asyncio.get_running_loop().run_in_executor(None, fetch, wrong)
        assert status == 400
        status, page = await asyncio.get_running_loop().run_in_executor(None, fetch, callback)
        assert status == 200 and "window.close" in page
        assert (await client.expect("dismiss", id=present["id"]))["reason"] == "resolved"
        assert (await client.expect("status"))["text"] == "Logged in (code received)"
        # Replaying the callback is refused.
        status, _ = await asyncio.get_running_loop().run_in_executor(None, fetch, callback)
        assert status == 404
        await client.close()
    run(scenario())


def test_login_window_closed_is_cancelled(oidc_host):
    host, _ = oidc_host

    async def scenario():
        client = await ProtocolClient.open(host.url)
        await client.tap("login")
        present = await client.expect("present")
        await client.send({"type": "failure", "id": present["id"], "code": "cancelled"})
        assert (await client.expect("status"))["text"] == "Log in cancelled"
        await client.close()
    run(scenario())


class ScriptIssuer:
    """An OpenID discovery document whose `authorization_endpoint` is a script (issue 33,
    item 4): the host must present nothing and say so in plain words, never quote it."""

    def __init__(self, endpoint):
        import http.server
        import json
        import threading

        issuer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = json.dumps({"issuer": issuer.issuer, "authorization_endpoint": endpoint}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.issuer = f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize("endpoint", ["javascript:alert(sessionStorage['remote-modal.session'])",
                                      "https://idp.example@evil.example/authorize"])
def test_a_sign_in_service_address_that_is_not_https_is_refused_in_plain_words(endpoint):
    from hosts import Host
    issuer = ScriptIssuer(endpoint)
    host = Host("--oidc-issuer", issuer.issuer, "--oidc-client-id", "remote-modal-demo")
    try:
        async def scenario():
            client = await ProtocolClient.open(host.url)
            await client.tap("login")
            status = await client.expect("status", timeout=15)
            assert status["level"] == "error"
            assert status["text"] == ("Log in is not possible right now. The sign-in service gave an address this "
                                      "host does not open (a sign-in needs https). Tell whoever runs this screen.")
            assert not [m for m in client.inbox if m["type"] == "present" and m["modal"]["kind"] == "webAuthentication"]
            await client.close()
        run(scenario())
    finally:
        host.stop()
        issuer.stop()


def test_a_saved_draft_is_offered_again_only_for_its_lifetime():
    """Issue 32's third cold trial: a mail saved as a draft on a kiosk that never restarted
    was shown to the next person who opened Mail, whenever that was."""
    host = Host("--retention", "5", "--draft-lifetime", "2")
    draft = {"to": ["ann@example.com"], "cc": [], "bcc": [], "subject": "Private", "body": "My address is ..."}

    async def scenario():
        client = await open_contact(host, 0)
        composer = await client.expect("present")
        await client.send({"type": "result", "id": composer["id"], "value": {"status": "saved", "mail": draft}})
        said = (await client.expect("status"))["text"]
        assert said.startswith("Mail saved as a draft on the host: Mail opens it again on this screen for 2 seconds,"), said
        # Within its lifetime the draft comes back...
        await choose_contact(client, 0)
        again = await client.expect("present")
        assert again["modal"]["subject"] == "Private" and again["modal"]["to"] == ["ann@example.com"]
        await client.send({"type": "result", "id": again["id"], "value": {"status": "cancelled"}})
        assert (await client.expect("status"))["text"] == "Mail cancelled"
        # ...past it, the next person finds the mail as the host first wrote it.
        await asyncio.sleep(2.5)
        await choose_contact(client, 0)
        later = await client.expect("present")
        assert later["modal"]["subject"] == "Hello" and later["modal"]["body"] == "Hello World!", later["modal"]
        await client.close()
    try:
        run(scenario())
    finally:
        host.stop()

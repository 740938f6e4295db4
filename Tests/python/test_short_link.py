"""The host's short sign-in link (`shortURL`, docs/protocol.md section 6): a redirect to the
provider's authorization URL while the modal is open, gone with it."""
import asyncio
import http.client
import re
import urllib.error
import urllib.parse
import urllib.request

from hosts import Host, OIDCProvider
from protocol_client import ProtocolClient


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args):
        return None


def status_and_location(url, method="GET"):
    try:
        with urllib.request.build_opener(NoRedirect).open(urllib.request.Request(url, method=method), timeout=5) as reply:
            return reply.status, reply.headers.get("location")
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("location")


def test_the_short_link_redirects_to_the_sign_in_page_while_the_modal_is_open(oidc_host):
    host, provider = oidc_host

    async def scenario():
        loop = asyncio.get_running_loop()
        client = await ProtocolClient.open(host.url)
        await client.expect("controls")
        await client.tap("login")
        present = await client.expect("present")
        modal = present["modal"]
        assert modal["url"].startswith(f"{provider.issuer}/oauth2/authorize?")
        short = modal["shortURL"]
        assert re.fullmatch(rf"http://127\.0\.0\.1:{host.port}/s/[A-Za-z0-9_-]{{8}}", short), short
        # Not single use: a phone's link preview may fetch it before the person opens it.
        for method in ("HEAD", "GET", "GET"):
            assert await loop.run_in_executor(None, status_and_location, short, method) == (302, modal["url"])
        assert (await loop.run_in_executor(None, status_and_location, short, "POST"))[0] == 405
        # Another code leads nowhere.
        other = short[:-1] + ("A" if short[-1] != "A" else "B")
        assert (await loop.run_in_executor(None, status_and_location, other))[0] == 404
        # The person cancels: the modal ends, and its link with it.
        await client.send({"type": "failure", "id": present["id"], "code": "cancelled"})
        assert (await client.expect("dismiss", id=present["id"]))["reason"] == "resolved"
        deadline = loop.time() + 10
        while loop.time() < deadline:
            if (await loop.run_in_executor(None, status_and_location, short))[0] == 404:
                break
            await asyncio.sleep(0.1)
        assert (await loop.run_in_executor(None, status_and_location, short))[0] == 404
        await client.close()

    asyncio.run(scenario())


def status_from(url, source):
    """GET `url` from the loopback address `source` (http.client: urllib cannot pick one)."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5, source_address=(source, 0))
    try:
        connection.request("GET", parts.path)
        reply = connection.getresponse()
        reply.read()
        return reply.status
    finally:
        connection.close()


def test_wrong_codes_from_one_address_are_answered_429_and_another_address_is_served():
    # At the defaults: 20 wrong codes a minute, then 429 for 300 s.
    provider = OIDCProvider()
    host = Host("--oidc-issuer", provider.issuer, "--oidc-client-id", "remote-modal-demo")
    try:
        async def scenario():
            client = await ProtocolClient.open(host.url)
            await client.expect("controls")
            await client.tap("login")
            present = await client.expect("present")
            short = present["modal"]["shortURL"]
            base = short[:short.rindex("/") + 1]
            guesser = "127.0.0.61"
            statuses = [await asyncio.to_thread(status_from, f"{base}guess{n:03d}", guesser) for n in range(24)]
            # Twenty wrong codes are answered 404; past them the address gets 429, the live code too.
            assert statuses == [404] * 20 + [429] * 4, statuses
            assert await asyncio.to_thread(status_from, short, guesser) == 429
            # Another address is served as before, the live code included.
            assert await asyncio.to_thread(status_from, short, "127.0.0.62") == 302
            assert await asyncio.to_thread(status_from, f"{base}guess999", "127.0.0.62") == 404
            await client.close()

        asyncio.run(scenario())
    finally:
        host.stop()
        provider.stop()
    log = host.log()
    assert '"127.0.0.61" tried 20 wrong codes' in log, log[-2000:]

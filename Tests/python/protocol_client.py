"""A small PROTOCOL.md client for tests, written against the spec, not the host's code."""
import asyncio
import json

import websockets

from schema import check_host_message

CAPABILITIES = ["alert", "actionSheet", "webAuthentication", "mailComposer", "messageComposer", "photoPicker",
                "mediaPicker"]


class ProtocolClient:
    def __init__(self, ws):
        self.ws = ws
        self.session = None
        self.inbox = []
        self.last_seq = 0

    @classmethod
    async def open(cls, url, name="py", group=None, capabilities=CAPABILITIES, resume=None, token=None,
                   affinity=None, source=None, last_seq=None):
        """`source`: the local address to connect from (another loopback address is
        another client to the host)."""
        if affinity:
            url = f"{url}{'&' if '?' in url else '?'}affinity={affinity}"
        extra = {"local_addr": (source, 0)} if source else {}
        ws = await websockets.connect(url, subprotocols=["remote-modal.v1"], **extra)
        client = cls(ws)
        hello = {"type": "hello", "protocol": 1, "client": {"kind": "pytest", "name": name},
                 "capabilities": capabilities}
        if group:
            hello["client"]["group"] = group
        if resume:
            hello["resume"] = {"session": resume}
            if last_seq is not None:
                hello["resume"]["lastSeq"] = last_seq
        if token:
            hello["token"] = token
        await client.send(hello)
        welcome = await client.next()
        assert welcome["type"] == "welcome", welcome
        client.session = welcome["session"]
        client.welcome = welcome
        return client

    async def send(self, message):
        await self.ws.send(json.dumps(message))

    async def next(self, timeout=5):
        message = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
        check_host_message(message)  # every message a host sends in the suite fits the schema
        if "seq" in message and message["type"] != "error":
            assert message["seq"] > self.last_seq, f"seq went from {self.last_seq} to {message['seq']}"
            self.last_seq = message["seq"]
        self.inbox.append(message)
        return message

    async def expect(self, type_, timeout=5, **fields):
        """Reads until a message of this type (and fields) arrives; returns it."""
        while True:
            message = await self.next(timeout)
            if message["type"] == type_ and all(message.get(k) == v for k, v in fields.items()):
                return message

    async def tap(self, control):
        await self.send({"type": "event", "control": control})

    async def close(self):
        await self.ws.close()

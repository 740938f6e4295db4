"""The protocol, written from docs/protocol.md (the section numbers below are its own)."""
import asyncio
import base64
import hashlib
import json
import random

import websockets

#: Every built-in kind (section 6); add `custom:NAME` for a custom kind you implement.
CAPABILITIES = ["alert", "actionSheet", "webAuthentication", "mailComposer", "messageComposer", "photoPicker",
                "mediaPicker"]

#: The most bytes of one upload chunk, before base64 (section 7).
CHUNK_BYTES = 32 * 1024


class ProtocolViolation(AssertionError):
    """The host broke a rule of the protocol (a `seq` that went back, no `welcome`...)."""


class HostSilent(ConnectionError):
    """Nothing came from the host within the heartbeat's timeout after a `ping` (section 3,
    "Heartbeat"): a stopped host or a stalled network. The connection was given up;
    `ModalClient.reconnect()` resumes the session."""


class SessionLost(Exception):
    """A resume got a new session (`resumed: false`): the old session's modals are gone."""

    def __init__(self, modals):
        super().__init__(f"the session was lost with {len(modals)} modal(s) shown")
        self.modals = modals


def backoff_delays(base=0.5, cap=6.0, rng=random.random):
    """Reconnection delays: exponential with full jitter, capped (section 12, duty 9)."""
    attempt = 0
    while True:
        yield rng() * min(cap, base * 2 ** attempt)
        attempt += 1


def picked_item(name, mime_type, data):
    """The `result` item describing one uploaded file (section 6, pickers)."""
    return {"name": name, "mimeType": mime_type, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def chunk_messages(modal_id, index, name, mime_type, data, offset=0):
    """The `upload` messages of one file from `offset` (standard base64, `last` on the end)."""
    if not data:
        yield {"type": "upload", "id": modal_id, "file": index, "name": name, "mimeType": mime_type, "size": 0,
               "offset": 0, "data": "", "last": True}
        return
    while offset < len(data):
        end = min(offset + CHUNK_BYTES, len(data))
        yield {"type": "upload", "id": modal_id, "file": index, "name": name, "mimeType": mime_type,
               "size": len(data), "offset": offset, "data": base64.b64encode(data[offset:end]).decode("ascii"),
               "last": end == len(data)}
        offset = end


def binary_chunk(message):
    """An `upload` message as a binary frame (section 7, "Binary chunks"), for a host whose
    `welcome` offered `binaryUploads`: two bytes of big-endian header length, the header (the
    message's JSON without `data`), then the chunk's raw bytes."""
    header = json.dumps({key: value for key, value in message.items() if key != "data"},
                        separators=(",", ":")).encode("utf-8")
    return len(header).to_bytes(2, "big") + header + base64.b64decode(message.get("data", ""), validate=True)


class ProtocolClient:
    """One connection to a host: `hello`, then every host message in order.

    `strict_seq`: a `seq` that does not increase raises `ProtocolViolation` (for tests of a
    host); otherwise such a message is dropped, as section 4 says a client does.
    `on_message`: called with each host message as received (a schema check, a log).
    """

    def __init__(self, ws, strict_seq=False, on_message=None, heartbeat=False):
        self.ws = ws
        self.session = None
        self.welcome = None
        self.inbox = []
        self.last_seq = 0
        self.strict_seq = strict_seq
        self.on_message = on_message
        #: Whether to use the host's heartbeat offer (section 3): off for tests of a host,
        #: which count exactly what they send; `ModalClient` turns it on.
        self.use_heartbeat = heartbeat
        #: The welcome's offer, clamped (None: the host offered none, or `heartbeat` is off).
        self.heartbeat = None
        #: Whether something waits for the host (a dialog shown, an answer kept): the
        #: active interval applies. `ModalClient` sets it; a tap sets `tapped` until a reply.
        self.active = lambda: False
        self.tapped = False
        self.pings = 0
        self._last_heard = None
        self._ping_at = None

    @classmethod
    async def open(cls, url, name="python", group=None, capabilities=CAPABILITIES, resume=None, token=None,
                   last_seq=None, kind="python", strict_seq=False, on_message=None, timeout=10, heartbeat=False,
                   **connect):
        """Connects, sends `hello` (resuming `resume` when given) and waits for `welcome`.
        `heartbeat=True` pings the host after a silence, as its `welcome` offers (section 3).
        Extra keyword arguments go to `websockets.connect` (`local_addr=`, `ssl=`...)."""
        ws = await websockets.connect(url, subprotocols=["remote-modal.v1"], **connect)
        client = cls(ws, strict_seq=strict_seq, on_message=on_message, heartbeat=heartbeat)
        hello = {"type": "hello", "protocol": 1, "client": {"kind": kind, "name": name},
                 "capabilities": list(capabilities)}
        if group:
            hello["client"]["group"] = group
        if resume:
            hello["resume"] = {"session": resume}
            if last_seq is not None:
                hello["resume"]["lastSeq"] = last_seq
        if token:
            hello["token"] = token
        await client.send(hello)
        welcome = await client.next(timeout)
        if welcome["type"] != "welcome":
            await ws.close()
            raise ProtocolViolation(f"expected welcome, got {welcome}")
        client.session = welcome["session"]
        client.welcome = welcome
        if heartbeat:
            client.heartbeat = heartbeat_offer(welcome.get("heartbeat"))
        if resume and (not welcome["resumed"] or welcome["session"] != resume):
            client.last_seq = 0
        elif resume and last_seq is not None:
            client.last_seq = last_seq
        return client

    async def send(self, message):
        await self.ws.send(json.dumps(message))

    @property
    def binary_uploads(self):
        """Whether this connection's `welcome` offered binary upload chunks (section 7)."""
        return bool(self.welcome) and self.welcome.get("binaryUploads") is True

    async def send_chunk(self, message):
        """Sends an `upload` message: as a binary frame when offered, else as JSON text."""
        if self.binary_uploads:
            await self.ws.send(binary_chunk(message))
        else:
            await self.send(message)

    async def _receive(self, timeout):
        """The next frame's text; with a heartbeat, pings after a silence and raises
        `HostSilent` when nothing answers (the caller's `timeout` still raises
        `asyncio.TimeoutError`)."""
        if self.heartbeat is None:
            return await asyncio.wait_for(self.ws.recv(), timeout)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        if self._last_heard is None:
            self._last_heard = loop.time()
        while True:
            now = loop.time()
            if self._ping_at is not None:
                silent_at = self._ping_at + self.heartbeat["timeoutSeconds"]
            else:
                busy = self.tapped or self.active()
                silent_at = self._last_heard + self.heartbeat["activeSeconds" if busy else "idleSeconds"]
            try:
                text = await asyncio.wait_for(self.ws.recv(), max(0.0, min(deadline, silent_at) - now))
            except asyncio.TimeoutError:
                now = loop.time()
                if now < silent_at and now >= deadline:
                    raise
                if now < silent_at:
                    continue
                if self._ping_at is None:
                    self.pings += 1
                    self._ping_at = now
                    await self.ws.send(json.dumps({"type": "ping", "id": self.pings}))
                    continue
                # No closing handshake: a silent host would hold it for its close timeout.
                self.ws.transport.abort()
                raise HostSilent(f"the host is not answering: nothing heard for "
                                 f"{now - self._last_heard:.1f} s, {self.heartbeat['timeoutSeconds']} s after a ping")
            self._last_heard = loop.time()
            self._ping_at = None
            self.tapped = False
            return text

    async def next(self, timeout=5):
        """The next host message not seen before (section 4); `asyncio.TimeoutError` after
        `timeout` seconds of silence. A `pong` is not returned when the heartbeat is on."""
        while True:
            message = json.loads(await self._receive(timeout))
            if self.on_message:
                self.on_message(message)
            if message.get("type") == "pong" and self.heartbeat is not None:
                continue
            seq = message.get("seq")
            if isinstance(seq, int) and message.get("type") != "error":
                if seq <= self.last_seq:
                    if self.strict_seq:
                        raise ProtocolViolation(f"seq went from {self.last_seq} to {seq}")
                    continue
                self.last_seq = seq
            self.inbox.append(message)
            return message

    async def expect(self, type_, timeout=5, **fields):
        """Reads until a message of this type (and these field values) arrives."""
        while True:
            message = await self.next(timeout)
            if message["type"] == type_ and all(message.get(k) == v for k, v in fields.items()):
                return message

    async def tap(self, control):
        await self.send({"type": "event", "control": control})
        if self.heartbeat is not None and not self.active() and self._ping_at is None:
            # A tap waits for the host: the active interval applies from now (section 3).
            self.tapped = True
            self._last_heard = asyncio.get_running_loop().time()

    async def close(self):
        await self.ws.close()


def heartbeat_offer(offer):
    """A welcome's `heartbeat`, each value clamped to 1..300 s; None when absent or malformed
    (a host before it must not be pinged)."""
    keys = ("idleSeconds", "activeSeconds", "timeoutSeconds")
    if not isinstance(offer, dict) or not all(
            isinstance(offer.get(key), int) and not isinstance(offer.get(key), bool) and 1 <= offer[key] <= 3600
            for key in keys):
        return None
    return {key: min(300, offer[key]) for key in keys}


class Upload:
    """The files of one picker, sent within the window and resumable (section 7)."""

    def __init__(self, modal_id, files, window=8):
        self.id = modal_id
        self.files = [(name, mime, bytes(data)) for name, mime, data in files]
        self.window = max(1, window)
        self.held = [0] * len(self.files)         # bytes the host holds, per file
        self.complete = [False] * len(self.files)  # the file's last chunk was acknowledged
        self.max_in_flight = 0

    def result_value(self):
        """The picker's `result` value for these files."""
        return {"items": [picked_item(name, mime, data) for name, mime, data in self.files]}

    def resume_from(self, received):
        """A re-sent `present`'s `received`: continue each file from there (absent: 0)."""
        self.held = [0] * len(self.files)
        self.complete = [False] * len(self.files)
        for entry in received or []:
            index = entry.get("file")
            if isinstance(index, int) and 0 <= index < len(self.files):
                size = len(self.files[index][2])
                self.held[index] = entry["bytes"] if entry["bytes"] <= size else 0
                self.complete[index] = size > 0 and self.held[index] == size

    def _pending(self):
        for index, (name, mime, data) in enumerate(self.files):
            if not self.complete[index]:
                yield from chunk_messages(self.id, index, name, mime, data, self.held[index])

    async def run(self, client, timeout=10):
        """Sends the chunks not yet acknowledged, at most `window` unacknowledged, until
        every file is complete. Raises `ConnectionClosed` (resume, `resume_from`, call again)
        or `RuntimeError` for a refusal other than pacing (`held` then says where to go on)."""
        while not all(self.complete):
            chunks = list(self._pending())
            position = 0
            in_flight = 0
            throttled = False
            while (position < len(chunks) and not throttled) or in_flight:
                while position < len(chunks) and in_flight < self.window and not throttled:
                    await client.send_chunk(chunks[position])
                    position += 1
                    in_flight += 1
                    self.max_in_flight = max(self.max_in_flight, in_flight)
                message = await client.next(timeout)
                kind = message["type"]
                if kind == "uploadAck" and message["id"] == self.id:
                    in_flight -= 1
                    index = message["file"]
                    self.held[index] = message["received"]
                    self.complete[index] = message["received"] == len(self.files[index][2])
                elif kind == "error" and message.get("ref") == "upload" and message.get("id", self.id) == self.id:
                    in_flight -= 1
                    if message["code"] == "rate_limited":
                        throttled = True  # not stored: wait for the others, then go on from the acks
                        continue
                    if isinstance(message.get("file"), int) and isinstance(message.get("held"), int):
                        self.held[message["file"]] = message["held"]
                    raise RuntimeError(f"upload refused: {message.get('message')}")
                elif kind == "dismiss" and message["id"] == self.id:
                    raise RuntimeError(f"the picker ended ({message['reason']})")
            if throttled:
                await asyncio.sleep(0.05)


class ModalClient:
    """A session across connections: resumes, de-duplicates, keeps answers until dismissed.

    Use `connect()`, then `next()` for host messages (`present`, `dismiss`, `status`,
    `controls`, ...), `answer()` / `fail()` to answer, `upload()` for a picker. When a
    connection drops, `reconnect()` resumes with backoff; a lost session raises
    `SessionLost` from it.
    """

    def __init__(self, url, name="python", group=None, capabilities=CAPABILITIES, token=None, on_message=None,
                 strict_seq=False, heartbeat=True, **connect):
        self.url, self.name, self.group, self.token = url, name, group, token
        self.heartbeat = heartbeat
        self.capabilities = list(capabilities)
        self.on_message, self.strict_seq, self.connect_options = on_message, strict_seq, connect
        self.connection = None
        self.session = None
        self.last_seq = 0
        self.shown = {}          # id -> the latest present
        self.unconfirmed = {}    # id -> the answer sent, until its dismiss
        self.last_input = {}     # id -> the alert's last text fields sent
        self.resumed_marker = False

    async def connect(self):
        """Opens a connection (resuming the session when there is one) and re-sends what
        the protocol says to re-send (section 9)."""
        previous = self.session
        self.connection = await ProtocolClient.open(
            self.url, name=self.name, group=self.group, capabilities=self.capabilities, token=self.token,
            resume=previous, last_seq=self.last_seq if previous else None, strict_seq=self.strict_seq,
            on_message=self.on_message, heartbeat=self.heartbeat, **self.connect_options)
        self.connection.active = lambda: bool(self.shown or self.unconfirmed)
        welcome = self.connection.welcome
        lost = previous is not None and (not welcome["resumed"] or welcome["session"] != previous)
        self.session = welcome["session"]
        self.resumed_marker = False
        if lost:
            gone = dict(self.shown)
            self.shown.clear()
            self.unconfirmed.clear()
            self.last_input.clear()
            self.last_seq = 0
            raise SessionLost(gone)
        if previous is not None:
            for modal_id, fields in self.last_input.items():
                if modal_id in self.shown and modal_id not in self.unconfirmed:
                    await self.connection.send({"type": "input", "id": modal_id, "textFields": fields})
        for answer in list(self.unconfirmed.values()):
            await self.connection.send(answer)
        return welcome

    async def reconnect(self, attempts=20, delays=None):
        """Reconnects with backoff until a connection is made (or `attempts` fail)."""
        delays = delays or backoff_delays()
        last = None
        for _ in range(attempts):
            await asyncio.sleep(next(delays))
            try:
                return await self.connect()
            except (OSError, websockets.exceptions.WebSocketException, asyncio.TimeoutError) as error:
                last = error
        raise ConnectionError(f"no connection after {attempts} attempts: {last}")

    async def next(self, timeout=5):
        """The next host message, after the client's own bookkeeping: a `present` is
        remembered (a re-sent one is still returned, with `"again": True` added to a copy),
        a `dismiss` forgets the modal and its kept answer."""
        message = await self.connection.next(timeout)
        self.last_seq = self.connection.last_seq
        kind = message["type"]
        if kind == "present":
            again = message["id"] in self.shown
            self.shown[message["id"]] = message
            if again:
                return {**message, "again": True}
        elif kind == "dismiss":
            self.shown.pop(message["id"], None)
            self.unconfirmed.pop(message["id"], None)
            self.last_input.pop(message["id"], None)
        elif kind == "resumed":
            self.resumed_marker = True
        return message

    async def expect(self, type_, timeout=5, **fields):
        while True:
            message = await self.next(timeout)
            if message["type"] == type_ and all(message.get(k) == v for k, v in fields.items()):
                return message

    async def answer(self, modal_id, value):
        """Sends a `result`, kept until its `dismiss` (re-sent after each resume)."""
        message = {"type": "result", "id": modal_id, "value": value}
        self.unconfirmed[modal_id] = message
        await self._send_kept(message)

    async def fail(self, modal_id, code="cancelled", text=None):
        """Sends a `failure`, kept as an answer is."""
        message = {"type": "failure", "id": modal_id, "code": code}
        if text is not None:
            message["message"] = text
        self.unconfirmed[modal_id] = message
        await self._send_kept(message)

    async def type_text(self, modal_id, fields):
        """Sends an alert's text fields as typed (`input`), remembered for a resume."""
        self.last_input[modal_id] = list(fields)
        await self.connection.send({"type": "input", "id": modal_id, "textFields": list(fields)})

    async def tap(self, control):
        await self.connection.tap(control)

    async def upload(self, modal_id, files):
        """Uploads `files` ([(name, mimeType, bytes)]) to a shown picker within its window,
        then sends the `result`; resumes by itself after a dropped connection."""
        present = self.shown[modal_id]
        upload = Upload(modal_id, files, present.get("uploadWindow", 8))
        while True:
            try:
                await upload.run(self.connection)
                break
            except (websockets.exceptions.ConnectionClosed, HostSilent):
                await self.reconnect()
                # Nothing goes before the re-sent present says what the host holds.
                again = await self.expect("present", id=modal_id, timeout=10)
                upload.resume_from(again.get("received"))
        await self.answer(modal_id, upload.result_value())
        return upload

    async def close(self):
        if self.connection:
            await self.connection.close()

    async def _send_kept(self, message):
        try:
            await self.connection.send(message)
        except websockets.exceptions.ConnectionClosed:
            pass  # kept: the next connect() sends it again

"""The demo host's sign-in flow as a team would write it with plain Python `websockets`: the
peer that scripts/bench-cycle compares `modal-host` with (issue 19).

It speaks docs/protocol.md's version 1 for what the sign-in cycle touches, the way the demo host
does: hello -> welcome, then `controls` (the demo's five buttons); a tap on `signIn` marks it
busy, presents the "Sign in" alert (e-mail and password fields; Cancel, and Sign In enabled
only while the e-mail has an `@` and the password is not empty), sends `update` when `input`
changes that, judges the `result` (shape, last known state, the rule on the result's own text
fields), then `dismiss` `resolved`, the status ("Signed in as EMAIL" or "Sign in cancelled")
and `controls` no longer busy. `/metrics` counts modals presented and resolved and errors sent,
under modal-host's names. Every host message after `welcome` carries a per-session
`seq`; malformed messages get the protocol's `error` codes and 20 in a row close with 1008.

A generous peer: no resume, retention, rate limit, token or origin check, and only `signIn`
has a flow (the other four controls are listed so `controls` frames are as large as the
demo host's; taps on them are ignored).

Usage: python_demo.py PORT
"""
import asyncio
import collections
import http
import json
import secrets
import sys

import websockets
from websockets.asyncio.server import serve

CONTROLS = [("signIn", "Sign in"), ("contact", "Contact us"), ("country", "Choose country"),
            ("photo", "Send photos"), ("approve", "Request approval")]
SIGN_IN = {"kind": "alert", "title": "Sign in", "message": "Please sign in",
           "textFields": [{"kind": "email", "placeholder": "e-mail", "text": None},
                          {"kind": "password", "placeholder": "password", "text": None}],
           "actions": [{"title": "Cancel", "style": "cancel", "enabled": True, "preferred": False},
                       {"title": "Sign In", "style": "default", "enabled": False, "preferred": True,
                        "explanation": "Enter an e-mail address with an @ and a password"}]}
FAILURE_CODES = {"cancelled", "unsupported", "denied", "failed"}
MAX_ERRORS_IN_A_ROW = 20
ENDED_IDS_KEPT = 64
# What /metrics reports, under the names modal-host uses.
counters = {"remote_modal_modals_presented_total": 0, "remote_modal_modals_resolved_total": 0,
            "remote_modal_errors_total": 0}


def dumps(message):
    return json.dumps(message, separators=(",", ":"))


def sign_in_rules(fields):
    """Enabled state of Cancel and Sign In for the text fields typed so far."""
    return [True, "@" in fields[0] and fields[1] != ""]


class Refused(Exception):
    def __init__(self, code, message, ref=None):
        super().__init__(message)
        self.code, self.message, self.ref = code, message, ref


class Pending:
    """An alert on screen: its answer's future and the action states the client last saw."""

    def __init__(self, modal, rules):
        self.modal, self.rules = modal, rules
        self.fields = len(modal["textFields"])
        self.enabled = [action["enabled"] for action in modal["actions"]]
        self.answer = asyncio.get_running_loop().create_future()


class Session:
    def __init__(self, ws, capabilities):
        self.ws = ws
        self.capabilities = capabilities
        self.seq = 0
        self.modals = 0
        self.busy = set()
        self.pending = {}
        self.ended = collections.deque(maxlen=ENDED_IDS_KEPT)
        self.tasks = set()

    async def send(self, kind, **fields):
        self.seq += 1
        await self.ws.send(dumps({"type": kind, "seq": self.seq, **fields}))

    async def send_controls(self):
        await self.send("controls", items=[
            {"id": ident, "title": title, "style": "default", "enabled": ident not in self.busy,
             "busy": ident in self.busy} for ident, title in CONTROLS])

    async def status(self, level, text):
        await self.send("status", level=level, text=text)

    async def alert(self, modal, rules):
        """Presents an alert and waits for its accepted answer: (action, text fields)."""
        if "alert" not in self.capabilities:
            raise Refused("unsupported", "the client cannot show an alert")
        self.modals += 1
        ident = f"m{self.modals}"
        pending = self.pending[ident] = Pending(modal, rules)
        await self.send("present", id=ident, modal=modal)
        counters["remote_modal_modals_presented_total"] += 1
        try:
            return await pending.answer
        finally:
            del self.pending[ident]
            self.ended.append(ident)
            if not pending.answer.cancelled():  # a result or failure was accepted
                counters["remote_modal_modals_resolved_total"] += 1
                await self.send("dismiss", id=ident, reason="resolved")

    def tap(self, control):
        if control != "signIn" or control in self.busy:
            return  # unknown, without a flow here, or busy: ignored, as the protocol says
        task = asyncio.get_running_loop().create_task(self.sign_in())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def sign_in(self):
        self.busy.add("signIn")
        try:
            await self.send_controls()
            try:
                action, fields = await self.alert(SIGN_IN, sign_in_rules)
                if action == 1:
                    await self.status("success", f"Signed in as {fields[0]}")
                else:
                    await self.status("info", "Sign in cancelled")
            except Refused as refused:
                await self.status("error", f"Sign in failed: {refused.code}")
            finally:
                self.busy.discard("signIn")
            await self.send_controls()
        except websockets.exceptions.ConnectionClosed:
            pass  # the session ends with its connection

    def modal(self, message):
        ident = message.get("id")
        if not isinstance(ident, str):
            raise Refused("bad_message", "field 'id' is missing", message["type"])
        pending = self.pending.get(ident)
        if pending is None and ident not in self.ended:
            raise Refused("unknown_modal", f"no modal {ident} was presented", message["type"])
        return pending  # None: answered already, ignored

    def text_fields(self, pending, value, kind):
        fields = value.get("textFields")
        if (not isinstance(fields, list) or len(fields) != pending.fields
                or not all(isinstance(each, str) for each in fields)):
            raise Refused("bad_message", f"'textFields' must hold {pending.fields} strings", kind)
        return fields

    async def result(self, message):
        pending = self.modal(message)
        if pending is None or pending.answer.done():
            return
        value = message.get("value")
        if not isinstance(value, dict):
            raise Refused("bad_message", "field 'value' must be an object", "result")
        action = value.get("action")
        if type(action) is not int or not 0 <= action < len(pending.enabled):
            raise Refused("bad_message", "'action' is out of range", "result")
        fields = self.text_fields(pending, value, "result")
        # The rule judges the answer's own text fields, whatever the last `input` said; a
        # refusal keeps v1's code when the client was told the action is disabled too.
        if not pending.rules(fields)[action]:
            if not pending.enabled[action]:
                raise Refused("bad_message", f"action {action} is disabled", "result")
            raise Refused("action_disabled", f"action {action} is disabled for these text fields", "result")
        pending.answer.set_result((action, fields))

    async def failure(self, message):
        pending = self.modal(message)
        if pending is None or pending.answer.done():
            return
        code = message.get("code")
        if code not in FAILURE_CODES:
            raise Refused("bad_message", "'code' is not a failure code", "failure")
        pending.answer.set_exception(Refused(code, message.get("message") or code))

    async def input(self, message):
        pending = self.modal(message)
        if pending is None:
            return
        enabled = pending.rules(self.text_fields(pending, message, "input"))
        if enabled != pending.enabled:
            pending.enabled = enabled
            await self.send("update", id=message["id"], actions=[{"enabled": each} for each in enabled])

    async def event(self, message):
        control = message.get("control")
        if not isinstance(control, str):
            raise Refused("bad_message", "field 'control' is missing", "event")
        self.tap(control)


async def refuse(ws, session, refused, message=None):
    counters["remote_modal_errors_total"] += 1
    error = {"type": "error"}
    if session:
        session.seq += 1
        error["seq"] = session.seq
    error.update(code=refused.code, message=refused.message)
    if refused.ref:
        error["ref"] = refused.ref
    # An error about a modal names it (`id`), when the id is one a host could have sent.
    ident = message.get("id") if isinstance(message, dict) else None
    if message and message.get("type") in ("result", "failure", "input", "upload") and isinstance(ident, str) \
            and len(ident.encode()) <= 64:
        error["id"] = ident
    await ws.send(dumps(error))


def parse(raw):
    if not isinstance(raw, str):
        raise Refused("bad_message", "binary frames are not accepted")
    try:
        message = json.loads(raw)
    except ValueError as error:
        raise Refused("bad_json", str(error)) from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise Refused("bad_message", "field 'type' is missing")
    return message


async def serve_connection(ws):
    session = None
    errors = 0
    try:
        async for raw in ws:
            message = None
            try:
                message = parse(raw)
                kind = message["type"]
                if session is None:
                    if kind != "hello":
                        raise Refused("hello_required", "send hello first", kind)
                    if message.get("protocol") != 1:
                        await refuse(ws, None, Refused("unsupported_protocol", "protocol 1 only", "hello"))
                        await ws.close(1008, "unsupported protocol")
                        return
                    capabilities = message.get("capabilities")
                    session = Session(ws, set(capabilities) if isinstance(capabilities, list) else set())
                    await ws.send(dumps({"type": "welcome", "protocol": 1, "session": secrets.token_urlsafe(16),
                                         "resumed": False, "retentionSeconds": 0}))
                    await session.send_controls()
                elif kind in ("event", "result", "failure", "input"):
                    await getattr(session, kind)(message)
                elif kind == "hello":
                    raise Refused("bad_message", "hello was already sent", kind)
                else:
                    raise Refused("unknown_type", f"unknown type '{kind}'", kind)
                errors = 0
            except Refused as refused:
                errors += 1
                await refuse(ws, session, refused, message)
                if errors >= MAX_ERRORS_IN_A_ROW:
                    await ws.close(1008, "too many errors")
                    return
    except websockets.exceptions.ConnectionClosed:
        pass
    finally:
        if session:
            for task in list(session.tasks):
                task.cancel()


async def process_request(connection, request):
    if request.path == "/metrics":
        return connection.respond(http.HTTPStatus.OK, "".join(f"{name} {value}\n" for name, value in counters.items()))
    return None


async def main(port):
    async with serve(serve_connection, "127.0.0.1", port, subprotocols=["remote-modal.v1"], max_queue=None,
                     ping_interval=None, process_request=process_request, backlog=4096) as server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))

// The browser's protocol client checked against the golden fixtures the Swift codec uses.
// Run: node --test Tests/js/
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ModalClient, backoffDelay, toBase64, CHUNK_BYTES } from "../../web/js/protocol.js";
import { resolveSocketURL } from "../../web/js/socketURL.js";
import { formatBytes } from "../../web/js/format.js";

const fixture = (name) => readFileSync(fileURLToPath(new URL(`../Fixtures/protocol/${name}.json`, import.meta.url)), "utf8").trim();

class FakeSocket {
  static last = null;
  constructor(url, protocol) { this.url = url; this.protocol = protocol; this.sent = []; this.readyState = 1; FakeSocket.last = this; }
  send(text) { this.sent.push(text); }
  close() {}
  /** The connection drops (the browser's view: readyState 3, then onclose). */
  drop() { this.readyState = 3; this.onclose?.({ code: 1006, reason: "" }); }
}

function connected(options = {}) {
  const client = new ModalClient({ url: "ws://h/ws", name: "lobby-1", group: "lobby", storage: null, WebSocketImpl: FakeSocket,
    capabilities: ["alert", "actionSheet", "webAuthentication", "mailComposer", "messageComposer", "photoPicker", "mediaPicker", "custom:signature"],
    resyncMs: 20, welcomeTimeoutMs: 0, answerTimeoutMs: 0, ...options });   // liveness checks: client.test.mjs
  client.connect();
  const socket = FakeSocket.last;
  socket.onopen();
  const events = [];
  for (const type of ["present", "dismiss", "update", "controls", "status", "error", "welcome"]) {
    client.addEventListener(type, (event) => events.push([type, event.detail]));
  }
  return { client, socket, events };
}

test("hello carries the client, capabilities and the subprotocol", () => {
  const { socket } = connected();
  assert.equal(socket.protocol, "remote-modal.v1");
  const hello = JSON.parse(socket.sent[0]);
  assert.deepEqual(hello.client, { kind: "browser", name: "lobby-1", group: "lobby" });
  assert.equal(hello.protocol, 1);
  assert.deepEqual(hello.capabilities, JSON.parse(fixture("client.hello")).capabilities);
});

test("host fixtures are understood", () => {
  const { socket, events } = connected();
  socket.onmessage({ data: fixture("host.welcome") });
  for (const name of ["host.controls", "host.present.alert", "host.update", "host.dismiss", "host.status", "host.error"]) {
    socket.onmessage({ data: fixture(name) });
  }
  const types = events.map(([type]) => type);
  assert.deepEqual(types, ["welcome", "controls", "present", "update", "dismiss", "status"]);
  const present = events.find(([type]) => type === "present")[1];
  assert.equal(present.modal.title, "Sign in");
  assert.equal(present.modal.textFields[0].kind, "email");
});

test("a message whose seq was already processed is dropped, and a present is never shown twice", () => {
  const { socket, events } = connected();
  socket.onmessage({ data: fixture("host.welcome") });
  socket.onmessage({ data: fixture("host.present.alert") });
  socket.onmessage({ data: fixture("host.present.alert") });
  const again = JSON.parse(fixture("host.present.alert"));
  again.seq = 50;
  socket.onmessage({ data: JSON.stringify(again) });
  assert.equal(events.filter(([type]) => type === "present").length, 1);
});

test("answers encode like the client fixtures and are re-sent after a resume until dismissed", () => {
  const { client, socket } = connected();
  socket.onmessage({ data: fixture("host.welcome") });
  client.result("m12", { action: 1, textFields: ["ann@example.com", "secret"] });
  assert.deepEqual(JSON.parse(socket.sent.at(-1)), JSON.parse(fixture("client.result.alert")));
  client.failure("m13", "cancelled", "optional text");
  assert.deepEqual(JSON.parse(socket.sent.at(-1)), { ...JSON.parse(fixture("client.failure")), id: "m13" });
  client.tap("signIn");
  assert.deepEqual(JSON.parse(socket.sent.at(-1)), JSON.parse(fixture("client.event")));
  // Reconnect and resume: both unconfirmed answers go out again.
  const welcome = JSON.parse(fixture("host.welcome"));
  client.connect();
  const second = FakeSocket.last;
  second.onopen();
  assert.equal(JSON.parse(second.sent[0]).resume.session, welcome.session);
  second.onmessage({ data: JSON.stringify({ ...welcome, resumed: true }) });
  assert.deepEqual(second.sent.slice(1).map((t) => JSON.parse(t).id), ["m12", "m13"]);
  // After the dismiss, nothing is re-sent.
  second.onmessage({ data: JSON.stringify({ type: "dismiss", seq: 60, id: "m12", reason: "resolved" }) });
  client.connect();
  const third = FakeSocket.last;
  third.onopen();
  third.onmessage({ data: JSON.stringify({ ...welcome, resumed: true }) });
  assert.deepEqual(third.sent.slice(1).map((t) => JSON.parse(t).id), ["m13"]);
});

test("input is debounced to the last value", async () => {
  const { client, socket } = connected();
  socket.onmessage({ data: fixture("host.welcome") });
  socket.onmessage({ data: fixture("host.present.alert") });
  client.input("m12", ["a", ""]);
  client.input("m12", ["an", ""]);
  client.input("m12", ["ann@example.com", ""]);
  await new Promise((resolve) => setTimeout(resolve, 150));
  const inputs = socket.sent.map((t) => JSON.parse(t)).filter((m) => m.type === "input");
  assert.deepEqual(inputs, [JSON.parse(fixture("client.input"))]);
});

test("backoff grows and stays within its ceiling", () => {
  assert.equal(backoffDelay(0, 500, 15000, () => 1), 500);
  assert.equal(backoffDelay(3, 500, 15000, () => 1), 4000);
  assert.equal(backoffDelay(10, 500, 15000, () => 1), 15000);
  assert.equal(backoffDelay(10, 500, 15000, () => 0), 0);
});

test("base64 of upload chunks", () => {
  assert.equal(toBase64(new TextEncoder().encode("hello")), JSON.parse(fixture("client.upload")).data);
});

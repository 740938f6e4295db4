// Shared fakes for the browser client's Node tests: a socket the test drives, a storage.
import { ModalClient } from "../../web/js/protocol.js";

export class FakeSocket {
  static all = [];
  static get last() { return FakeSocket.all.at(-1); }
  constructor(url, protocol) {
    Object.assign(this, { url, protocol, sent: [], readyState: 1 });
    FakeSocket.all.push(this);
  }
  send(text) { this.sent.push(text); }
  close() {}
  /** What was sent, parsed: a binary chunk (docs/protocol.md §7) as its header plus `bytes`
   *  and `binary: true`. */
  messages(type) { return this.sent.map(FakeSocket.parse).filter((m) => !type || m.type === type); }
  static parse(frame) {
    if (typeof frame === "string") return JSON.parse(frame);
    const length = (frame[0] << 8) | frame[1];
    const header = JSON.parse(new TextDecoder().decode(frame.subarray(2, 2 + length)));
    return { ...header, binary: true, bytes: frame.subarray(2 + length) };
  }
  receive(message) { this.onmessage({ data: JSON.stringify(message) }); }
  drop() { this.readyState = 3; this.onclose?.({ code: 1006, reason: "" }); }
}

export class MemoryStorage {
  constructor() { this.items = new Map(); }
  getItem(key) { return this.items.has(key) ? this.items.get(key) : null; }
  setItem(key, value) { this.items.set(key, String(value)); }
}

/** Lets promise chains and zero-delay timers run. */
export async function settle(rounds = 20) {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Waits until `condition()` holds (hashing runs on the platform's crypto: not a fixed number of turns). */
export async function until(condition, ms = 3000) {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A client on a fake socket, welcomed into session `s1`; `events` records what it emits. */
export function welcomed({ storage = null, now, resumed = false, session = "s1", retentionSeconds = 60,
                          welcomeTimeoutMs = 0, answerTimeoutMs = 0, heartbeat = undefined, heartbeatSecondMs = 1000,
                          binaryUploads = undefined } = {}) {
  // The liveness checks are off unless a test asks for them: most tests leave their client
  // connected to a fake socket that never replies.
  const client = new ModalClient({ url: "ws://h/ws", storage, WebSocketImpl: FakeSocket, capabilities: ["alert", "photoPicker"],
                                   resyncMs: 30, welcomeTimeoutMs, answerTimeoutMs, heartbeatSecondMs,
                                   ...(now ? { now } : {}) });
  const events = [];
  for (const type of ["state", "present", "dismiss", "update", "controls", "status", "answer", "rejected", "sessionLost", "welcome", "represent", "checked"]) {
    client.addEventListener(type, (event) => events.push([type, event.detail]));
  }
  client.connect();
  const socket = FakeSocket.last;
  socket.onopen();
  socket.receive({ type: "welcome", protocol: 1, session, resumed, retentionSeconds, ...(heartbeat ? { heartbeat } : {}),
                   ...(binaryUploads !== undefined ? { binaryUploads } : {}) });
  return { client, socket, events };
}

/** Reconnects `client` (after a drop) and answers its hello with `welcome`. */
export function reconnect(client, welcome) {
  client.connect();
  const socket = FakeSocket.last;
  socket.onopen();
  socket.receive({ type: "welcome", protocol: 1, retentionSeconds: 60, ...welcome });
  return socket;
}

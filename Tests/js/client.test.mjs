// The browser client's connection behaviour: answers kept and sent exactly once, sessions
// lost and named, modals that ended while away, the ?ws= rule. Run: node --test Tests/js/
import { test } from "node:test";
import assert from "node:assert/strict";
import { ModalClient } from "../../web/js/protocol.js";
import { resolveSocketURL } from "../../web/js/socketURL.js";
import { formatBytes, formatBytesPair } from "../../web/js/format.js";
import { FakeSocket, MemoryStorage, reconnect, settle, welcomed } from "./support.mjs";

const alert = (id, seq, extra = {}) => ({ type: "present", seq, id, modal: { kind: "alert", title: "Approve?", textFields: [],
  actions: [{ title: "Approve", style: "default", enabled: true }, { title: "Reject", style: "destructive", enabled: true }] }, ...extra });

test("an answer given offline is kept, shown as waiting, and sent once after the resume", async () => {
  const { client, socket, events } = welcomed();
  socket.receive(alert("m1", 1));
  socket.drop();
  client.result("m1", { action: 0, textFields: [] });
  assert.deepEqual(events.filter(([type]) => type === "answer").map(([, d]) => d), [{ id: "m1", sent: false }]);
  assert.equal(socket.messages("result").length, 0, "nothing goes to a dropped socket");
  const second = reconnect(client, { session: "s1", resumed: true });
  second.receive({ type: "controls", seq: 2, items: [] });
  second.receive(alert("m1", 3));
  assert.deepEqual(second.messages("result"), [{ type: "result", id: "m1", value: { action: 0, textFields: [] } }]);
  assert.deepEqual(events.filter(([type]) => type === "answer").at(-1)[1], { id: "m1", sent: true });
  assert.equal(events.filter(([type]) => type === "present").length, 1, "the re-sent present opens no second dialog");
  second.receive({ type: "dismiss", seq: 4, id: "m1", reason: "resolved" });
  second.drop();
  const third = reconnect(client, { session: "s1", resumed: true });
  assert.equal(third.messages("result").length, 0, "confirmed answers are not sent again");
  await settle();
});

test("a kept sign-in answer goes after its own fields, so the host has its password again", async () => {
  const { client, socket } = welcomed();
  socket.receive(alert("m1", 1));
  client.input("m1", ["ann@example.com", "secret"]);
  socket.drop();
  client.result("m1", { action: 0, textFields: ["ann@example.com", "secret"] });
  const second = reconnect(client, { session: "s1", resumed: true });
  const sent = second.messages().filter((m) => m.type === "input" || m.type === "result");
  assert.deepEqual(sent, [
    { type: "input", id: "m1", textFields: ["ann@example.com", "secret"] },
    { type: "result", id: "m1", value: { action: 0, textFields: ["ann@example.com", "secret"] } },
  ]);
  client.close();
  await settle();
});

test("a network that dies without closing is noticed: no reply to an answer, no welcome", async () => {
  const { client, socket, events } = welcomed({ answerTimeoutMs: 40, welcomeTimeoutMs: 40 });
  socket.receive(alert("m1", 1));
  client.result("m1", { action: 0, textFields: [] });
  assert.equal(client.state, "open");
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.equal(client.state, "reconnecting", "silence after an answer gives the connection up");
  assert.deepEqual(events.filter(([type]) => type === "answer").at(-1)[1], { id: "m1", sent: true });
  // The next attempt opens but never gets its welcome: given up too, and tried again.
  client.retryNow();
  const hanging = FakeSocket.last;
  hanging.onopen();
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.notEqual(client.ws, hanging, "the silent attempt is given up");
  assert.equal(client.state, "reconnecting");
  // A reply in time keeps the connection: the answer's dismiss.
  const second = reconnect(client, { session: "s1", resumed: true });
  assert.deepEqual(second.messages("result").map((m) => m.id), ["m1"], "the kept answer is sent again");
  second.receive({ type: "dismiss", seq: 2, id: "m1", reason: "resolved" });
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.equal(client.state, "open");
  assert.equal(FakeSocket.last, second);
  client.close();
  await settle();
});

test("an answer re-sent after a resume is watched too: silence after the resume's own burst gives the connection up", async () => {
  const { client, socket } = welcomed({ answerTimeoutMs: 40 });
  socket.receive(alert("m1", 1));
  socket.drop();
  client.result("m1", { action: 0, textFields: [] });          // kept while offline
  const second = reconnect(client, { session: "s1", resumed: true });
  assert.deepEqual(second.messages("result").map((m) => m.id), ["m1"]);
  // What the host sent for the hello, before it read the answer, is no reply to it.
  second.receive({ type: "controls", seq: 2, items: [] });
  second.receive(alert("m1", 3));
  second.receive({ type: "update", seq: 4, id: "m1", actions: [{ enabled: true }, { enabled: true }] });
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.equal(client.state, "reconnecting", "the network died right after the resume: noticed");
  assert.notEqual(client.ws, second, "the silent connection is given up");
  // The next resume is answered: the dismiss keeps the connection.
  const third = reconnect(client, { session: "s1", resumed: true });
  assert.deepEqual(third.messages("result").map((m) => m.id), ["m1"], "the kept answer is sent again");
  third.receive({ type: "controls", seq: 5, items: [] });
  third.receive(alert("m1", 6));
  third.receive({ type: "dismiss", seq: 7, id: "m1", reason: "resolved" });
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.equal(client.state, "open");
  assert.equal(client.ws, third);
  client.close();
  await settle();
});

test("a re-sent answer hears its reply in an error, and is not waited for when the host no longer presents its modal", async () => {
  const storage = new MemoryStorage();
  const first = welcomed({ storage });
  first.socket.receive(alert("m1", 1));
  first.socket.receive(alert("m2", 2));
  first.client.result("m1", { action: 0, textFields: [] });
  first.client.result("m2", { action: 0, textFields: [] });
  // A reload; m1 ended long ago (the host ignores its answer without a word), m2 is pending.
  const reloaded = new ModalClient({ url: "ws://h/ws", storage, WebSocketImpl: FakeSocket, resyncMs: 30,
                                     welcomeTimeoutMs: 0, answerTimeoutMs: 60 });
  const second = reconnect(reloaded, { session: "s1", resumed: true });
  assert.deepEqual(second.messages("result").map((m) => m.id), ["m1", "m2"]);
  second.receive({ type: "controls", seq: 3, items: [] });
  second.receive(alert("m2", 4));
  second.receive({ type: "error", code: "action_disabled", message: "no", ref: "result" });   // m2's reply
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(reloaded.state, "open", "an error is a reply");
  assert.equal(reloaded.ws, second);
  second.receive({ type: "dismiss", seq: 5, id: "m2", reason: "resolved" });
  // The next resume: only m1 is kept, and the host does not present it again.
  second.drop();
  const third = reconnect(reloaded, { session: "s1", resumed: true });
  assert.deepEqual(third.messages("result").map((m) => m.id), ["m1"]);
  third.receive({ type: "controls", seq: 6, items: [] });
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(reloaded.state, "open", "no reply is waited for an answer whose modal ended");
  assert.equal(reloaded.ws, third);
  reloaded.close();
  await settle();
});

test("a hello the host refuses with an error is not tried again by itself, and says why", async () => {
  const client = new ModalClient({ url: "ws://h/ws", group: "g".repeat(300), storage: null, WebSocketImpl: FakeSocket,
                                   welcomeTimeoutMs: 40, answerTimeoutMs: 0 });
  const states = [];
  client.addEventListener("state", (event) => states.push(event.detail));
  client.connect();
  const socket = FakeSocket.last;
  socket.onopen();
  const why = "field 'client.group' is too long (at most 256 bytes)";
  socket.receive({ type: "error", code: "bad_message", message: why, ref: "hello" });
  assert.equal(client.state, "refused");
  assert.deepEqual(states.at(-1).helloError, { code: "bad_message", message: why });
  const before = FakeSocket.all.length;
  socket.drop();                                        // the host's later close changes nothing
  await new Promise((resolve) => setTimeout(resolve, 700));   // past the first backoff and the welcome timeout
  assert.equal(FakeSocket.all.length, before, "no attempt of its own: it would be refused the same way");
  assert.equal(client.state, "refused");
  client.retryNow();                                    // the person asks
  assert.equal(FakeSocket.all.length, before + 1);
  assert.equal(states.at(-1).helloError, null);
  client.close();
  await settle();
});

test("a group the token does not grant: the host's words go with the unauthorized state", () => {
  const client = new ModalClient({ url: "ws://h/ws", group: "lobby", storage: null, WebSocketImpl: FakeSocket,
                                   welcomeTimeoutMs: 0, answerTimeoutMs: 0 });
  const states = [];
  client.addEventListener("state", (event) => states.push(event.detail));
  client.connect();
  const socket = FakeSocket.last;
  socket.onopen();
  socket.receive({ type: "error", code: "unauthorized", message: "this token does not grant the group 'lobby'", ref: "hello" });
  socket.readyState = 3;
  socket.onclose({ code: 1008, reason: "unauthorized" });
  assert.equal(client.state, "unauthorized");
  assert.deepEqual(states.at(-1).helloError, { code: "unauthorized", message: "this token does not grant the group 'lobby'" });
});

test("the retry button reconnects at once, and the state names the attempt", () => {
  const { client, socket, events } = welcomed();
  socket.drop();
  const reconnecting = events.filter(([type, d]) => type === "state" && d.state === "reconnecting");
  assert.equal(reconnecting.at(-1)[1].attempt, 1);
  const before = FakeSocket.all.length;
  client.retryNow();
  assert.equal(FakeSocket.all.length, before + 1, "a new socket without waiting for the backoff");
  client.close();
});

test("a fresh session inside the retention means the host restarted: the modal is dismissed as restarted", () => {
  let clock = 1_000;
  const { client, socket, events } = welcomed({ now: () => clock });
  socket.receive(alert("m1", 1));
  client.result("m1", { action: 0, textFields: [] });   // answered, not yet confirmed
  socket.drop();
  clock += 5_000;
  const second = reconnect(client, { session: "s2", resumed: false });
  assert.deepEqual(events.filter(([type]) => type === "dismiss").map(([, d]) => d), [{ id: "m1", reason: "restarted" }]);
  assert.deepEqual(events.find(([type]) => type === "sessionLost")[1], { reason: "restarted", modals: 1, session: "s1" });   // session: the one that is gone
  assert.equal(second.messages("result").length, 0, "an answer for a lost session is not sent to the new one");
  // seq starts again in the new session.
  second.receive({ type: "status", seq: 1, level: "info", text: "hello again" });
  assert.equal(events.at(-1)[0], "status");
});

test("a fresh session after the retention means the session expired", () => {
  let clock = 1_000;
  const { client, socket, events } = welcomed({ now: () => clock, retentionSeconds: 30 });
  socket.receive(alert("m1", 1));
  socket.drop();
  clock += 31_000;
  reconnect(client, { session: "s2", resumed: false });
  assert.deepEqual(events.filter(([type]) => type === "dismiss").map(([, d]) => d), [{ id: "m1", reason: "expired" }]);
});

test("a shown modal the resumed host does not re-present ended while away", async () => {
  const { client, socket, events } = welcomed();
  socket.receive(alert("m1", 1));
  socket.receive(alert("m2", 2));
  socket.drop();
  const second = reconnect(client, { session: "s1", resumed: true });
  second.receive({ type: "controls", seq: 5, items: [] });
  second.receive(alert("m2", 6));
  second.receive({ type: "status", seq: 7, level: "info", text: "x" });   // the resume burst is over
  assert.deepEqual(events.filter(([type]) => type === "dismiss").map(([, d]) => d), [{ id: "m1", reason: "ended" }]);
  // Without a following message, a timer ends the burst.
  second.drop();
  const third = reconnect(client, { session: "s1", resumed: true });
  third.receive({ type: "controls", seq: 8, items: [] });
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.deepEqual(events.filter(([type]) => type === "dismiss").map(([, d]) => d.id), ["m1", "m2"]);
});

test("typed text is re-sent after a resume so the host can restore it", async () => {
  const { client, socket } = welcomed();
  socket.receive(alert("m1", 1, { modal: { kind: "alert", title: "Sign in", textFields: [{ kind: "email" }], actions: [{ title: "OK", style: "default", enabled: true }] } }));
  socket.drop();
  client.input("m1", ["ann@"]);          // typed while offline
  await new Promise((resolve) => setTimeout(resolve, 120));
  const second = reconnect(client, { session: "s1", resumed: true });
  assert.deepEqual(second.messages("input"), [{ type: "input", id: "m1", textFields: ["ann@"] }]);
});

test("answers survive a reload (session storage) and the re-sent present shows as answered", () => {
  const storage = new MemoryStorage();
  const first = welcomed({ storage });
  first.socket.receive(alert("m1", 1));
  first.client.result("m1", { action: 1, textFields: [] });
  // The page reloads before the dismiss: a new client, same storage.
  const reloaded = new ModalClient({ url: "ws://h/ws", storage, WebSocketImpl: FakeSocket, resyncMs: 30,
                                     welcomeTimeoutMs: 0, answerTimeoutMs: 0 });
  const presents = [];
  reloaded.addEventListener("present", (event) => presents.push(event.detail));
  reloaded.connect();
  const socket = FakeSocket.last;
  socket.onopen();
  assert.equal(socket.messages("hello")[0].resume.session, "s1");
  socket.receive({ type: "welcome", protocol: 1, session: "s1", resumed: true, retentionSeconds: 60 });
  socket.receive(alert("m1", 3));
  assert.deepEqual(socket.messages("result"), [{ type: "result", id: "m1", value: { action: 1, textFields: [] } }]);
  assert.equal(presents[0].answered, true);
  reloaded.close();
});

test("an answer the host refuses gives the modal back and is not re-sent", () => {
  const { client, socket, events } = welcomed();
  socket.receive(alert("m1", 1));
  client.result("m1", { action: 0, textFields: [] });
  socket.receive({ type: "error", seq: 2, code: "action_disabled", message: "action 0 is disabled", ref: "result" });
  assert.deepEqual(events.find(([type]) => type === "rejected")[1], { id: "m1", code: "action_disabled", message: "action 0 is disabled" });
  socket.drop();
  const second = reconnect(client, { session: "s1", resumed: true });
  assert.equal(second.messages("result").length, 0);
});

test("?ws= is honoured only for this page's origin or a URL the host lists", () => {
  const page = "http://kiosk.example:8080/?ws=x";
  assert.deepEqual(resolveSocketURL(null, page), { url: "ws://kiosk.example:8080/ws", warning: null });
  assert.equal(resolveSocketURL("ws://kiosk.example:8080/other/ws", page).url, "ws://kiosk.example:8080/other/ws");
  assert.equal(resolveSocketURL("/ws2", page).url, "ws://kiosk.example:8080/ws2");
  const foreign = resolveSocketURL("wss://evil.example/ws", page);
  assert.equal(foreign.url, "ws://kiosk.example:8080/ws");
  assert.match(foreign.warning, /ignoring \?ws=wss:\/\/evil\.example\/ws/);
  assert.equal(resolveSocketURL("ws://kiosk.example:9999/ws", page).url, "ws://kiosk.example:8080/ws", "another port is another origin");
  assert.equal(resolveSocketURL("wss://b.example/ws", page, ["wss://b.example/ws"]).url, "wss://b.example/ws");
  assert.equal(resolveSocketURL("ws://kiosk.example:8080/ws", "https://kiosk.example:8080/").url, "wss://kiosk.example:8080/ws",
               "an https page never downgrades");
  assert.equal(resolveSocketURL("javascript:alert(1)", page).url, "ws://kiosk.example:8080/ws");
});

test("sizes read as people read them, in the kiosk's units of 1,000", () => {
  assert.equal(formatBytes(0), "0 bytes");
  assert.equal(formatBytes(1), "1 byte");
  assert.equal(formatBytes(999), "999 bytes");
  assert.equal(formatBytes(34_000), "34 kB");
  assert.equal(formatBytes(9_500_000), "9.5 MB");
  assert.equal(formatBytes(10 * 1024 * 1024), "10.5 MB");
  assert.equal(formatBytes(999_960), "1 MB");
  assert.equal(formatBytes(128 * 1024 * 1024), "134 MB");
});

test("two sizes near a limit never read alike", () => {
  assert.deepEqual(formatBytesPair(10_800_000, 10 * 1024 * 1024), ["10.8 MB", "10.5 MB"]);
  assert.deepEqual(formatBytesPair(10_520_000, 10 * 1024 * 1024), ["10.52 MB", "10.49 MB"]);
  assert.deepEqual(formatBytesPair(10 * 1024 * 1024 + 1, 10 * 1024 * 1024), ["10,485,761 bytes", "10,485,760 bytes"]);
  assert.deepEqual(formatBytesPair(5_000_000, 5_000_000), ["5 MB", "5 MB"]);
});

test("a refused session is named with its reason and retried; unauthorized stops", async () => {
  const { client, socket, events } = welcomed();
  socket.readyState = 3;
  socket.onclose({ code: 1013, reason: "too many sessions from this address" });
  const state = events.filter(([type]) => type === "state").at(-1)[1];
  assert.equal(state.state, "reconnecting");
  assert.deepEqual(state.refusal, { code: 1013, reason: "too many sessions from this address" });
  assert.ok(state.retryAt >= Date.now() + 900, "at least a second before trying again after a 1013");
  const second = reconnect(client, { session: "s1", resumed: true });
  assert.equal(events.filter(([type]) => type === "state").at(-1)[1].refusal, null, "cleared once welcomed");
  second.readyState = 3;
  second.onclose({ code: 1008, reason: "unauthorized" });
  assert.equal(client.state, "unauthorized");
  client.close();
  await settle();
});

test("after a 1001 (the host going away) attempts come at most 2 s apart until it is back", async () => {
  const { client, socket, events } = welcomed();
  const realRandom = Math.random;
  Math.random = () => 0.999;                 // the top of every jittered range
  try {
    socket.readyState = 3;
    socket.onclose({ code: 1001, reason: "host shutting down" });
    const waits = [];
    for (let attempt = 0; attempt < 8; attempt++) {
      const state = events.filter(([type]) => type === "state").at(-1)[1];
      assert.equal(state.hostLeft, true, "the page can say the host went away");
      waits.push(state.retryAt - Date.now());
      client.retryNow();                     // the attempt fails at once, as against a host still down
      FakeSocket.last.readyState = 3;
      FakeSocket.last.onclose({ code: 1006, reason: "" });
    }
    assert.ok(Math.max(...waits) <= 2000, `waits ${waits}`);
    assert.ok(Math.max(...waits) > 1500, `the ceiling is reached: ${waits}`);
    reconnect(client, { session: "s2", resumed: false });
    assert.equal(events.filter(([type]) => type === "state").at(-1)[1].hostLeft, false, "cleared once back");
    // An ordinary drop afterwards backs off up to 6 s again.
    FakeSocket.last.readyState = 3;
    for (let attempt = 0; attempt < 6; attempt++) {
      client.retryNow();
      FakeSocket.last.readyState = 3;
      FakeSocket.last.onclose({ code: 1006, reason: "" });
    }
    const last = events.filter(([type]) => type === "state").at(-1)[1];
    assert.ok(last.retryAt - Date.now() > 5000, "the usual ceiling after an ordinary drop");
  } finally {
    Math.random = realRandom;
    client.close();
  }
  await settle();
});

test("a present for a shown modal carries the host's texts and what the page re-sent", async () => {
  const { client, socket, events } = welcomed();
  const signIn = (seq, texts) => alert("m1", seq, { modal: { kind: "alert", title: "Sign in",
    textFields: [{ kind: "email", text: texts[0] }, { kind: "password", text: texts[1] }],
    actions: [{ title: "Sign In", style: "default", enabled: false }] } });
  socket.receive(signIn(1, ["", ""]));
  socket.drop();
  let second = reconnect(client, { session: "s1", resumed: true });
  second.receive(signIn(2, ["ann@example.com", ""]));
  assert.deepEqual(events.filter(([type]) => type === "represent").at(-1)[1].typed, null);
  assert.equal(events.filter(([type]) => type === "represent").at(-1)[1].modal.textFields[0].text, "ann@example.com");
  client.input("m1", ["bob@example.com", "secret"]);
  second.drop();
  second = reconnect(client, { session: "s1", resumed: true });
  second.receive(signIn(3, ["ann@example.com", ""]));
  assert.deepEqual(events.filter(([type]) => type === "represent").at(-1)[1].typed, ["bob@example.com", "secret"]);
  assert.equal(events.filter(([type]) => type === "present").length, 1);
  client.close();
  await settle();
});

// The page's heartbeat (docs/protocol.md, section 3 "Heartbeat"): a ping after a silence, the
// connection given up when nothing answers it, idle and active intervals. In virtual time
// (node:test's mocked setTimeout): no assertion depends on how loaded the machine is.
// Run: node --test Tests/js/
import { test, mock } from "node:test";
import assert from "node:assert/strict";
import { FakeSocket, welcomed } from "./support.mjs";

const standard = { idleSeconds: 20, activeSeconds: 4, timeoutSeconds: 5 };
const alert = (id, seq) => ({ type: "present", seq, id, modal: { kind: "alert", title: "Approve?", textFields: [],
  actions: [{ title: "Approve", style: "default", enabled: true }] } });

/** Moves virtual time on in 50 ms steps: Node 20's mocked clock dates a timer set inside
 *  a tick's callback from the end of that tick, so a step must not jump past due times. */
function advance(seconds) {
  for (let left = Math.round(seconds * 1000); left > 0; left -= 50) mock.timers.tick(Math.min(50, left));
}

/** A welcomed client on a fake socket, in virtual time. */
function virtual(options = {}) {
  mock.timers.enable({ apis: ["setTimeout"] });
  return { ...welcomed({ heartbeat: standard, ...options }), advance };
}

test("an idle page pings after 20 s of silence and gives a silent host up 5 s later", (t) => {
  t.after(() => mock.timers.reset());
  const { client, socket, events, advance } = virtual();
  advance(19.9);
  assert.equal(socket.messages("ping").length, 0, "no ping before 20 s of silence");
  advance(0.2);
  assert.deepEqual(socket.messages("ping"), [{ type: "ping", id: 1 }]);
  advance(4.8);
  assert.equal(client.state, "open");
  advance(0.2);
  assert.equal(client.state, "reconnecting", "nothing answered the ping: the host is silent");
  const state = events.filter(([type]) => type === "state").at(-1)[1];
  assert.equal(state.silent, true, "the page is told the host is not answering");
  client.close();
});

test("an open dialog pings after 4 s; any message answers the ping; silence gives up within 9 s", (t) => {
  t.after(() => mock.timers.reset());
  const { client, socket, advance } = virtual();
  advance(10);
  socket.receive(alert("m1", 1));
  advance(4.1);
  assert.equal(socket.messages("ping").length, 1, "a dialog is open: 4 s of silence are enough");
  socket.receive({ type: "status", seq: 2, level: "info", text: "here" });
  advance(3.9);
  assert.equal(client.state, "open", "the status answered the ping and started the silence again");
  assert.equal(socket.messages("ping").length, 1);
  socket.receive({ type: "pong", id: 1 });
  advance(8.9);
  assert.equal(client.state, "open");
  assert.equal(socket.messages("ping").length, 2);
  advance(0.2);
  assert.equal(client.state, "reconnecting", "silent with the dialog open: given up 9 s after the last message");
  client.close();
});

test("a tap on an idle page quickens the heartbeat; more taps do not put the ping off", (t) => {
  t.after(() => mock.timers.reset());
  const { client, socket, advance } = virtual();
  advance(15);
  client.tap("signIn");
  for (let i = 0; i < 3; i++) { advance(1); client.tap("signIn"); }
  advance(1.1);
  assert.equal(socket.messages("ping").length, 1, "pinged 4 s after the first tap");
  advance(5);
  assert.equal(client.state, "reconnecting", "given up within 10 s of the tap");
  client.close();
});

test("a dismissed dialog goes back to the idle interval", (t) => {
  t.after(() => mock.timers.reset());
  const { client, socket, advance } = virtual();
  socket.receive(alert("m1", 1));
  socket.receive({ type: "dismiss", seq: 2, id: "m1", reason: "resolved" });
  advance(19.9);
  assert.equal(socket.messages("ping").length, 0);
  advance(0.2);
  assert.equal(socket.messages("ping").length, 1);
  client.close();
});

test("a host that offers no heartbeat is never pinged, and a malformed offer is none", (t) => {
  t.after(() => mock.timers.reset());
  mock.timers.enable({ apis: ["setTimeout"] });
  const old = welcomed();
  const odd = welcomed({ heartbeat: { idleSeconds: 0, activeSeconds: "1", timeoutSeconds: 1 } });
  old.socket.receive(alert("m1", 1));
  advance(600);
  assert.equal(old.socket.messages("ping").length, 0);
  assert.equal(odd.socket.messages("ping").length, 0);
  assert.equal(old.client.state, "open");
  old.client.close();
  odd.client.close();
});

test("typed values are 'checking' until the host is heard; a ping follows them and its pong checks them", (t) => {
  t.after(() => mock.timers.reset());
  const { client, socket, events, advance } = virtual();
  socket.receive({ type: "present", seq: 1, id: "m1", modal: { kind: "alert", title: "Sign in",
    textFields: [{ placeholder: "E-mail", text: "", kind: "email" }],
    actions: [{ title: "Sign In", style: "default", enabled: false, explanation: "Enter an e-mail address" }] } });
  assert.equal(client.inputChecked("m1"), true, "nothing typed: nothing to check");
  client.input("m1", ["ann@example.com"]);
  advance(0.15);
  assert.equal(socket.messages("input").length, 1);
  assert.equal(client.inputChecked("m1"), false, "sent, nothing heard since: the host's verdict is unknown");
  advance(0.35);
  assert.equal(socket.messages("ping").length, 1, "a host that changes nothing sends nothing: a ping asks");
  socket.receive({ type: "pong", id: socket.messages("ping")[0].id });
  assert.equal(client.inputChecked("m1"), true, "the pong came after the host took the values");
  assert.deepEqual(events.filter(([type]) => type === "checked").map(([, detail]) => detail.id), ["m1"]);
  client.close();
});

test("typed values met by silence stay 'checking' until the heartbeat gives the host up", (t) => {
  t.after(() => mock.timers.reset());
  const { client, socket, events, advance } = virtual();
  socket.receive({ type: "present", seq: 1, id: "m1", modal: { kind: "alert", title: "Sign in",
    textFields: [{ placeholder: "E-mail", text: "", kind: "email" }],
    actions: [{ title: "Sign In", style: "default", enabled: false }] } });
  client.input("m1", ["ann@example.com"]);
  advance(5.3);
  assert.equal(client.inputChecked("m1"), false, "never said to be checked while the host is silent");
  assert.equal(events.filter(([type]) => type === "checked").length, 0);
  advance(0.3);
  assert.equal(client.state, "reconnecting", "the ping after the values went unanswered: the host is not answering");
  client.close();
});

test("values typed into a dead connection are not checked by the resume's burst: only by what the host sent after them", (t) => {
  t.after(() => mock.timers.reset());
  const { client, socket, events, advance } = virtual();
  const signIn = (enabled) => ({ type: "present", seq: 1, id: "m1", modal: { kind: "alert", title: "Sign in",
    textFields: [{ placeholder: "E-mail", text: "", kind: "email" }, { placeholder: "Password", text: "", kind: "password" }],
    actions: [{ title: "Sign In", style: "default", enabled, explanation: "Enter an e-mail address with an @ and a password" }] } });
  socket.receive(signIn(false));
  client.input("m1", ["ann@example.com", "secret"]);
  advance(5.5);                                  // the ping after the values went unanswered
  assert.equal(client.state, "reconnecting");
  assert.equal(client.inputChecked("m1"), false);
  advance(1);                                    // the backoff (at most 0.5 s)
  const again = FakeSocket.last;
  assert.notEqual(again, socket);
  again.onopen();
  const checks = () => events.filter(([type, detail]) => type === "checked" && detail.id === "m1").length;
  // What the host sends for the hello came before it read the re-sent values: no check.
  again.receive({ type: "welcome", protocol: 1, session: "s1", resumed: true, retentionSeconds: 60, heartbeat: standard });
  assert.deepEqual(again.messages("input").map((m) => m.textFields), [["ann@example.com", "secret"]]);
  again.receive({ type: "controls", seq: 2, items: [] });
  again.receive({ ...signIn(false), seq: 3 });
  again.receive({ type: "resumed", seq: 4 });
  assert.equal(client.inputChecked("m1"), false, "the resume's burst is no check of the re-sent values");
  assert.equal(checks(), 0);
  // The host's reply to them.
  again.receive({ type: "update", seq: 5, id: "m1", actions: [{ enabled: true }] });
  assert.equal(client.inputChecked("m1"), true);
  assert.equal(checks(), 1);
  client.close();
});

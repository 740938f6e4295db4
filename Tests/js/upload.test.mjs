// Uploads: paced by the window, progress from acknowledgements, resumed at the host's
// offsets, cancellable at any moment, a refusal recoverable. Run: node --test Tests/js/
import { mock, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { CHUNK_BYTES } from "../../web/js/protocol.js";
import { reconnect, settle, until, welcomed } from "./support.mjs";

function file(name, size, seed = 1) {
  const bytes = new Uint8Array(size).map((_, i) => (i * 31 + seed) % 251);
  return Object.assign(new Blob([bytes], { type: "image/png" }), { name, bytes });
}

// uploadWindow and received travel beside the modal (docs/protocol.md, "Uploads").
const picker = (id, seq, extra = {}) => ({ type: "present", seq, id, modal: { kind: "photoPicker", selectionLimit: 3, filter: ["image"], maxBytes: 10485760 }, ...extra });

function ackAll(socket, id, seq) {
  for (const chunk of socket.messages("upload")) {
    socket.receive({ type: "uploadAck", seq: seq++, id, file: chunk.file, received: chunk.offset + Buffer.from(chunk.data, "base64").length });
  }
  return seq;
}

test("chunks are paced by the window and progress counts only acknowledged bytes", async () => {
  const { client, socket } = welcomed();
  socket.receive(picker("m1", 1, { uploadWindow: 4 }));
  const big = file("big.png", CHUNK_BYTES * 10 + 5);
  const progress = [];
  client.upload("m1", [big], (p) => progress.push(p));
  await settle();
  assert.equal(socket.messages("upload").length, 4, "no more than the window in flight");
  assert.equal(progress.at(-1).acked, 0, "nothing acknowledged, nothing shown");
  socket.receive({ type: "uploadAck", seq: 2, id: "m1", file: 0, received: CHUNK_BYTES });
  await settle();
  assert.equal(socket.messages("upload").length, 5, "one acknowledgement frees one slot");
  assert.equal(progress.at(-1).acked, CHUNK_BYTES);
  let seq = 3;
  for (let round = 0; round < 6; round++) {
    const sent = socket.messages("upload");
    const last = sent.at(-1);
    socket.receive({ type: "uploadAck", seq: seq++, id: "m1", file: 0, received: last.offset + Buffer.from(last.data, "base64").length });
    await settle();
  }
  await until(() => socket.messages("result").length === 1);
  const chunks = socket.messages("upload");
  assert.equal(chunks.length, 11);
  assert.deepEqual(chunks.map((c) => c.offset), Array.from({ length: 11 }, (_, i) => i * CHUNK_BYTES));
  assert.equal(chunks.at(-1).last, true);
  assert.ok(chunks.slice(0, -1).every((c) => !c.last));
  const [result] = socket.messages("result");
  assert.deepEqual(result.value.items, [{ name: "big.png", mimeType: "image/png", size: big.size,
    sha256: createHash("sha256").update(big.bytes).digest("hex") }]);
  assert.equal(progress.at(-1).state, "done");
  assert.ok(progress.every((p, i) => i === 0 || p.acked >= progress[i - 1].acked), "the bar never goes back");
});

test("the window defaults to 8 when the present names none", async () => {
  const { client, socket } = welcomed();
  socket.receive(picker("m1", 1));
  client.upload("m1", [file("a.png", CHUNK_BYTES * 20)]);
  await settle();
  assert.equal(socket.messages("upload").length, 8);
});

test("after a drop the upload stands still, then continues at the offsets the host holds", async () => {
  const { client, socket } = welcomed();
  socket.receive(picker("m1", 1, { uploadWindow: 8 }));
  const first = file("one.png", CHUNK_BYTES * 3);
  const second = file("two.png", CHUNK_BYTES * 6, 7);
  const progress = [];
  client.upload("m1", [first, second], (p) => progress.push(p));
  await settle();
  // The host acknowledges file 0 and two chunks of file 1, then the connection drops.
  socket.receive({ type: "uploadAck", seq: 2, id: "m1", file: 0, received: first.size });
  socket.receive({ type: "uploadAck", seq: 3, id: "m1", file: 1, received: 2 * CHUNK_BYTES });
  await settle();
  socket.drop();
  assert.equal(progress.at(-1).state, "paused");
  const ackedAtDrop = progress.at(-1).acked;
  await settle();
  const resumed = reconnect(client, { session: "s1", resumed: true });
  await settle();
  assert.equal(resumed.messages("upload").length, 0, "nothing is sent before the host says what it holds");
  resumed.receive({ type: "controls", seq: 4, items: [] });
  resumed.receive(picker("m1", 5, { uploadWindow: 8, received: [{ file: 0, bytes: first.size }, { file: 1, bytes: 3 * CHUNK_BYTES }] }));
  await settle();
  const chunks = resumed.messages("upload");
  assert.deepEqual(chunks.map((c) => [c.file, c.offset]), [[1, 3 * CHUNK_BYTES], [1, 4 * CHUNK_BYTES], [1, 5 * CHUNK_BYTES]]);
  assert.ok(progress.at(-1).acked >= ackedAtDrop);
  ackAll(resumed, "m1", 6);
  await until(() => resumed.messages("result").length === 1);
  assert.equal(resumed.messages("result")[0].value.items.length, 2);
});

test("Cancel stops an upload at once and answers failure cancelled", async () => {
  const { client, socket } = welcomed();
  socket.receive(picker("m1", 1));
  const upload = client.upload("m1", [file("a.png", CHUNK_BYTES * 20)]);
  await settle();
  upload.cancel();
  socket.receive({ type: "uploadAck", seq: 2, id: "m1", file: 0, received: CHUNK_BYTES });
  await settle();
  assert.equal(socket.messages("upload").length, 8, "no chunk after Cancel");
  assert.deepEqual(socket.messages("failure"), [{ type: "failure", id: "m1", code: "cancelled" }]);
  assert.equal(socket.messages("result").length, 0);
});

test("an upload_invalid stops the upload with the reason; Retry goes on from what the host holds", async () => {
  const { client, socket } = welcomed();
  socket.receive(picker("m1", 1, { uploadWindow: 2 }));
  const progress = [];
  const upload = client.upload("m1", [file("a.png", CHUNK_BYTES * 4)], (p) => progress.push(p));
  await settle();
  socket.receive({ type: "error", seq: 2, code: "upload_invalid", ref: "upload",
                   message: "offset 32768 does not continue file 0: the host holds 0 bytes; send from offset 0" });
  assert.equal(progress.at(-1).state, "failed");
  assert.match(progress.at(-1).error, /does not continue/);
  await settle();
  assert.equal(socket.messages("upload").length, 2, "nothing more is sent while failed");
  // A chunk sent before the refusal may still be accepted after it: its ack is the truth.
  socket.receive({ type: "uploadAck", seq: 3, id: "m1", file: 0, received: CHUNK_BYTES });
  await settle();
  assert.equal(socket.messages("upload").length, 2);
  upload.retry();
  await settle();
  assert.deepEqual(socket.messages("upload").slice(2).map((c) => c.offset), [CHUNK_BYTES, 2 * CHUNK_BYTES]);
});

test("the refusals of chunks sent after a refused one keep the first cause in words and the last held bytes", async () => {
  const { client, socket } = welcomed();
  socket.receive(picker("m1", 1, { uploadWindow: 3 }));
  const progress = [];
  const upload = client.upload("m1", [file("a.png", CHUNK_BYTES * 4)], (p) => progress.push(p));
  await settle();
  socket.receive({ type: "uploadAck", seq: 2, id: "m1", file: 0, received: CHUNK_BYTES });
  socket.receive({ type: "error", seq: 3, code: "upload_invalid", ref: "upload", id: "m1", file: 0, held: CHUNK_BYTES,
                   message: "offset 12345 does not continue file 0: the host holds 32768 bytes; send from offset 32768" });
  socket.receive({ type: "error", seq: 4, code: "upload_invalid", ref: "upload", id: "m1", file: 0, held: CHUNK_BYTES,
                   message: "offset 65536 does not continue file 0: the host holds 32768 bytes; send from offset 32768" });
  assert.match(progress.at(-1).error, /^offset 12345/, "the cause, not its consequence");
  upload.retry();
  await settle();
  assert.equal(socket.messages("upload").slice(3)[0].offset, CHUNK_BYTES);
});

test("an upload whose result the host refuses starts again from 0 on Retry, and its result is not re-sent", async () => {
  const { client, socket } = welcomed();
  socket.receive(picker("m1", 1));
  const progress = [];
  const upload = client.upload("m1", [file("a.png", 100)], (p) => progress.push(p));
  await settle();
  ackAll(socket, "m1", 2);
  await until(() => socket.messages("result").length === 1);
  socket.receive({ type: "error", seq: 3, code: "upload_invalid", message: "file 0: SHA-256 does not match", ref: "result" });
  assert.equal(progress.at(-1).state, "failed");
  upload.retry();
  await settle();
  assert.deepEqual(socket.messages("upload").map((c) => c.offset), [0, 0]);
  socket.drop();
  const again = reconnect(client, { session: "s1", resumed: true });
  assert.equal(again.messages("result").length, 0, "the refused result is forgotten");
});

test("a refusal naming what the host holds continues that file from there", async () => {
  const { client, socket } = welcomed();
  socket.receive(picker("m1", 1, { uploadWindow: 1 }));
  const upload = client.upload("m1", [file("a.png", CHUNK_BYTES * 4)]);
  await settle();
  socket.receive({ type: "error", seq: 2, code: "upload_invalid", ref: "upload",
                   message: `offset 0 does not continue file 0: the host holds ${2 * CHUNK_BYTES} bytes; send from offset ${2 * CHUNK_BYTES}` });
  upload.retry();
  await settle();
  assert.deepEqual(socket.messages("upload").map((c) => c.offset), [0, 2 * CHUNK_BYTES]);
});

test("a refusal's file and held fields say where to go on, whatever its words", async () => {
  const { client, socket } = welcomed();
  socket.receive(picker("m1", 1, { uploadWindow: 1 }));
  const upload = client.upload("m1", [file("a.png", CHUNK_BYTES * 4), file("b.png", CHUNK_BYTES * 2, 2)]);
  await settle();
  // The words name another file and no count: the fields (newer hosts) are what counts.
  socket.receive({ type: "error", seq: 2, code: "upload_invalid", ref: "upload", id: "m1", file: 0,
                   held: 3 * CHUNK_BYTES, message: "refused (file 9)" });
  upload.retry();
  await settle();
  assert.deepEqual(socket.messages("upload").map((c) => [c.file, c.offset]), [[0, 0], [0, 3 * CHUNK_BYTES]]);
});

test("a refused answer is the one the error's id names, not the last one sent", async () => {
  const { client, socket, events } = welcomed();
  socket.receive({ type: "present", seq: 1, id: "m1", modal: { kind: "actionSheet", title: "A", source: null,
                   actions: [{ title: "x", style: "default", enabled: true, preferred: false }] } });
  socket.receive({ type: "present", seq: 2, id: "m2", modal: { kind: "actionSheet", title: "B", source: null,
                   actions: [{ title: "y", style: "default", enabled: true, preferred: false }] } });
  client.result("m1", { action: 0 });
  client.result("m2", { action: 0 });
  socket.receive({ type: "error", seq: 3, code: "bad_message", message: "no", ref: "result", id: "m1" });
  assert.deepEqual(events.filter(([type]) => type === "rejected").map(([, detail]) => detail.id), ["m1"]);
});

test("a chunk refused for pacing is sent again from the last acknowledgement", async () => {
  const { client, socket } = welcomed();
  socket.receive(picker("m1", 1, { uploadWindow: 2 }));
  client.upload("m1", [file("a.png", CHUNK_BYTES * 3)]);
  await settle();
  socket.receive({ type: "uploadAck", seq: 2, id: "m1", file: 0, received: CHUNK_BYTES });
  socket.receive({ type: "error", seq: 3, code: "rate_limited", ref: "upload", message: "more than 2 upload chunks unacknowledged" });
  await new Promise((resolve) => setTimeout(resolve, 300));
  await settle();
  const offsets = socket.messages("upload").map((c) => c.offset);
  assert.deepEqual(offsets.slice(-2), [CHUNK_BYTES, 2 * CHUNK_BYTES], "again from what the host acknowledged");
});

test("acknowledgements that arrive during a pacing pause move the resend past what the host holds", async () => {
  const { client, socket } = welcomed();
  socket.receive(picker("m1", 1, { uploadWindow: 2 }));
  client.upload("m1", [file("a.png", CHUNK_BYTES * 4)]);
  await settle();
  socket.receive({ type: "error", seq: 2, code: "rate_limited", ref: "upload", message: "more than 2 upload chunks unacknowledged" });
  // The two chunks sent before the refusal were stored; their acknowledgements come late.
  socket.receive({ type: "uploadAck", seq: 3, id: "m1", file: 0, received: CHUNK_BYTES });
  socket.receive({ type: "uploadAck", seq: 4, id: "m1", file: 0, received: 2 * CHUNK_BYTES });
  await new Promise((resolve) => setTimeout(resolve, 300));
  await settle();
  const offsets = socket.messages("upload").map((c) => c.offset);
  assert.deepEqual(offsets, [0, CHUNK_BYTES, 2 * CHUNK_BYTES, 3 * CHUNK_BYTES], "nothing the host holds is sent again");
  client.close();
});

test("a pacing refusal that says what the host holds goes on from there", async () => {
  const { client, socket } = welcomed();
  socket.receive(picker("m1", 1, { uploadWindow: 2 }));
  client.upload("m1", [file("a.png", CHUNK_BYTES * 4)]);
  await settle();
  socket.receive({ type: "error", seq: 2, code: "rate_limited", ref: "upload", id: "m1", file: 0, held: 2 * CHUNK_BYTES,
                   message: "more than 2 upload chunks unacknowledged; wait for uploadAck" });
  await new Promise((resolve) => setTimeout(resolve, 300));
  await settle();
  const offsets = socket.messages("upload").map((c) => c.offset);
  assert.deepEqual(offsets.slice(2), [2 * CHUNK_BYTES, 3 * CHUNK_BYTES], "from the host's held bytes, not from 0");
  client.close();
});

test("files chosen again after a reload go on from what the host holds only where they are the same files", async () => {
  const { client, socket } = welcomed();
  // The picker as presented after the reload: the host holds bytes of two files.
  socket.receive(picker("m1", 1, { uploadWindow: 8, received: [{ file: 0, bytes: CHUNK_BYTES }, { file: 1, bytes: CHUNK_BYTES }] }));
  const same = file("one.png", CHUNK_BYTES * 2);
  const other = file("other.png", CHUNK_BYTES * 2, 5);
  const before = [{ name: "one.png", size: same.size }, { name: "two.png", size: CHUNK_BYTES * 2 }];
  client.upload("m1", [same, other], () => {}, undefined,
                { held: (index, chosen) => before[index]?.name === chosen.name && before[index]?.size === chosen.size });
  await settle();
  assert.deepEqual(socket.messages("upload").map((c) => [c.file, c.offset]), [[0, CHUNK_BYTES], [1, 0], [1, CHUNK_BYTES]],
                   "the same file goes on; another one starts at 0 (which drops what the host held)");
  client.close();
});

test("chunks met by silence give the connection up, and the upload goes on after the resume", async (t) => {
  // Virtual time: with real 40 ms timers a loaded machine once let the watchdog fire early.
  mock.timers.enable({ apis: ["setTimeout"] });
  t.after(() => mock.timers.reset());
  const { client, socket } = welcomed({ answerTimeoutMs: 40 });
  socket.receive(picker("m1", 1, { uploadWindow: 4 }));
  const upload = client.upload("m1", [file("a.png", CHUNK_BYTES * 6)]);
  await settle();
  assert.equal(socket.messages("upload").length, 4);
  // An acknowledgement in time keeps the connection...
  socket.receive({ type: "uploadAck", seq: 2, id: "m1", file: 0, received: CHUNK_BYTES });
  await settle();
  mock.timers.tick(30);
  await settle();
  assert.equal(client.state, "open");
  // ...then the network stalls: no acknowledgement of what was sent.
  mock.timers.tick(80);
  await settle();
  assert.equal(client.state, "reconnecting", "a stalled upload is noticed, not shown as Connected");
  const resumed = reconnect(client, { session: "s1", resumed: true });
  resumed.receive({ type: "controls", seq: 3, items: [] });
  resumed.receive(picker("m1", 4, { uploadWindow: 4, received: [{ file: 0, bytes: CHUNK_BYTES }] }));
  await settle();
  assert.equal(resumed.messages("upload")[0].offset, CHUNK_BYTES, "it goes on from what the host holds");
  upload.stop();
  client.close();
  await settle();
});

test("a pacing refusal with chunks still in flight is bounded by the reply watchdog: a host that never answers them is given up", async (t) => {
  mock.timers.enable({ apis: ["setTimeout"] });
  t.after(() => mock.timers.reset());
  const { client, socket } = welcomed({ answerTimeoutMs: 40 });
  socket.receive(picker("m1", 1, { uploadWindow: 3 }));
  const upload = client.upload("m1", [file("a.png", CHUNK_BYTES * 6)]);
  await settle();
  assert.equal(socket.messages("upload").length, 3);
  socket.receive({ type: "error", seq: 2, code: "rate_limited", ref: "upload", id: "m1", file: 0, offset: CHUNK_BYTES,
                   held: CHUNK_BYTES, message: "more than 3 upload chunks unacknowledged; wait for uploadAck" });
  await settle();
  mock.timers.tick(30);
  await settle();
  assert.equal(client.state, "open");
  assert.equal(socket.messages("upload").length, 3, "chunks 0 and 2 are still in flight: nothing is sent");
  // The error was heard (which ends the watchdog of the chunks sent), yet two chunks have no reply.
  mock.timers.tick(30);
  await settle();
  assert.equal(client.state, "reconnecting", "the pause ends with the connection given up, not a stuck bar");
  upload.stop();
  client.close();
  await settle();
});

test("after a pacing refusal nothing is sent until every chunk in flight has its reply; a chunk refused behind it is counted out, not a stop", async () => {
  const { client, socket } = welcomed();
  socket.receive(picker("m1", 1, { uploadWindow: 3 }));
  const progress = [];
  client.upload("m1", [file("a.png", CHUNK_BYTES * 6)], (p) => progress.push(p));
  await settle();
  // Chunk 0 stored (its acknowledgement held back), chunk 1 refused for pacing, chunk 2 refused behind it.
  socket.receive({ type: "error", seq: 2, code: "rate_limited", ref: "upload", id: "m1", file: 0, offset: CHUNK_BYTES,
                   held: CHUNK_BYTES, message: "more than 3 upload chunks unacknowledged; wait for uploadAck" });
  socket.receive({ type: "error", seq: 3, code: "upload_invalid", ref: "upload", id: "m1", file: 0, offset: 2 * CHUNK_BYTES,
                   held: CHUNK_BYTES, message: "offset 65536 does not continue file 0 ('a.png'): the host holds 32768 bytes" });
  await new Promise((resolve) => setTimeout(resolve, 300));
  await settle();
  assert.equal(socket.messages("upload").length, 3, "chunk 0 is still in flight: nothing is sent, not even after 250 ms");
  assert.notEqual(progress.at(-1).state, "failed", "a chunk refused behind a pacing refusal is counted out, not a stop");
  socket.receive({ type: "uploadAck", seq: 4, id: "m1", file: 0, received: CHUNK_BYTES });
  await settle();
  assert.deepEqual(socket.messages("upload").slice(3).map((c) => c.offset), [CHUNK_BYTES, 2 * CHUNK_BYTES, 3 * CHUNK_BYTES],
                   "a full window from the held bytes once every chunk has its reply");
  client.close();
});

// Binary chunks (docs/protocol.md §7, "Binary chunks"): raw bytes after a header, only when
// the welcome offered them; the rules and the answer are the text form's.
test("a host that offers binary uploads gets raw bytes after a header without data", async () => {
  const { client, socket } = welcomed({ binaryUploads: true });
  socket.receive(picker("m1", 1, { uploadWindow: 8 }));
  const photo = file("cat.png", CHUNK_BYTES * 2 + 100);
  client.upload("m1", [photo]);
  await settle();
  const chunks = socket.messages("upload");
  assert.equal(chunks.length, 3);
  assert.ok(socket.sent.every((frame) => typeof frame === "string" || frame instanceof Uint8Array));
  assert.ok(chunks.every((c) => c.binary && !("data" in c)), "binary frames, no base64");
  assert.deepEqual(chunks.map((c) => [c.offset, c.bytes.length, c.last]),
    [[0, CHUNK_BYTES, false], [CHUNK_BYTES, CHUNK_BYTES, false], [2 * CHUNK_BYTES, 100, true]]);
  const joined = new Uint8Array(chunks.flatMap((c) => Array.from(c.bytes)));
  assert.deepEqual(joined, photo.bytes, "the frames carry the file's bytes, in order");
  assert.deepEqual(chunks.map((c) => [c.name, c.mimeType, c.size, c.file]),
    chunks.map(() => ["cat.png", "image/png", photo.size, 0]));
  let seq = 2;
  for (const chunk of chunks) {
    socket.receive({ type: "uploadAck", seq: seq++, id: "m1", file: 0, received: chunk.offset + chunk.bytes.length });
  }
  await until(() => socket.messages("result").length === 1);
  assert.equal(typeof socket.sent.at(-1), "string", "the result stays JSON text");
  const [result] = socket.messages("result");
  assert.equal(result.value.items[0].sha256, createHash("sha256").update(photo.bytes).digest("hex"));
});

test("an offer of anything but true, or none, keeps base64 in text", async () => {
  for (const binaryUploads of [undefined, false, "yes", 1]) {
    const { client, socket } = welcomed({ binaryUploads });
    socket.receive(picker("m1", 1));
    client.upload("m1", [file("a.png", 1000)]);
    await settle();
    const [chunk] = socket.messages("upload");
    assert.equal(typeof socket.sent.find((frame) => frame.includes?.('"upload"')), "string");
    assert.equal(Buffer.from(chunk.data, "base64").length, 1000, `offer ${binaryUploads}`);
    client.disconnect?.();
  }
});

test("a reconnect to a host that no longer offers binary uploads goes back to text", async () => {
  const { client, socket } = welcomed({ binaryUploads: true });
  socket.receive(picker("m1", 1, { uploadWindow: 1 }));
  client.upload("m1", [file("a.png", CHUNK_BYTES * 3)]);
  await settle();
  assert.equal(socket.messages("upload")[0].binary, true);
  socket.drop();
  const again = reconnect(client, { session: "s1", resumed: true });
  again.receive(picker("m1", 2, { uploadWindow: 1, received: [{ file: 0, bytes: 0 }] }));
  await settle();
  const [chunk] = again.messages("upload");
  assert.ok(chunk && !chunk.binary && typeof chunk.data === "string", "text on the connection that offered nothing");
});

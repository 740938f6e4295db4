// The page's protocol client: the pure ClientMachine (machine.js) run with a real WebSocket,
// real timers, a Storage (sessionStorage) and the picked files' bytes. No DOM: any page (and
// Node's test runner) can use it. This is the only module here that does I/O.
import { ClientMachine, PROTOCOL } from "./machine.js";
import { AFFINITY_KEY, ANSWERS_KEY, SESSION_KEY } from "./keys.js";
import { binaryChunk, sha256OfBlob } from "./bytes.js";

/**
 * Events (CustomEvent detail):
 * - state {state, attempt, refusal, retryAt, retryIn, hostLeft, helloError, silent}: connecting |
 *   open | reconnecting | refused | unauthorized | closed;
 *   `refusal` {code, reason} when the host closed the last connection with 1013 or 1008 (a
 *   reason other than `unauthorized`), `retryAt` when the next attempt starts (ms, `now()`),
 *   `retryIn` the backoff chosen (ms, on the state a lost connection enters),
 *   `hostLeft` while the host is away after closing with 1001 (going away: shutting down),
 *   `helloError` {code, message} when the host answered the hello with an `error`: `refused`
 *   (no more attempts until `retryNow()`), or `unauthorized` (a group the token does not grant),
 *   `silent` when the page gave the connection up (no welcome, no reply, no pong)
 * - welcome {session, resumed}
 * - controls {items}, status {level, text}, update {id, actions}
 * - present {id, modal, answered}: `answered` when an answer for it is still unconfirmed
 *   (a reload between the click and the dismiss)
 * - represent {id, modal, typed}: the host sent again a modal the page shows (a resume): take
 *   its field texts, except `typed` (the text fields this page re-sent, or null)
 * - dismiss {id, reason}: the host's reasons, plus two the client decides:
 *   `restarted` (the resume got a fresh session while inside the retention: the host lost
 *   its state) and `ended` (the modal was no longer pending when the session resumed)
 * - sessionLost {reason, modals, session} (`session`: the id that is gone), checking {id}, checked {id}
 * - answer {id, sent}: an answer was given; `sent` false while it waits for a connection
 * - rejected {id, code, message}: the host refused the last answer; the modal stays
 * - error {code, message, ref}
 */
export class ModalClient extends EventTarget {
  constructor({ url, name = "browser", kind = "browser", group = null, capabilities = [], token = null,
                storage = globalThis.sessionStorage ?? null, WebSocketImpl = globalThis.WebSocket,
                now = () => Date.now(), resyncMs = 2000, welcomeTimeoutMs = 10000, answerTimeoutMs = 10000,
                heartbeatSecondMs = 1000 } = {}) {
    super();
    this.url = url;
    this.storage = storage;
    this.WebSocketImpl = WebSocketImpl;
    // A routing key, not a secret: a load balancer hashes it so reconnects reach the same host.
    this.affinity = storage?.getItem(AFFINITY_KEY) ?? Math.random().toString(36).slice(2, 14);
    storage?.setItem(AFFINITY_KEY, this.affinity);
    const client = { kind, name };
    if (group) client.group = group;
    this.machine = new ClientMachine({
      client, capabilities, token, now, resyncMs, welcomeTimeoutMs, answerTimeoutMs, heartbeatSecondMs,
      stored: { session: storage?.getItem(SESSION_KEY) ?? null, answers: storage?.getItem(ANSWERS_KEY) ?? null },
    });
    this.sockets = new Map();        // attempt -> WebSocket
    this.timers = new Map();         // name -> timeout handle
    this.pickedFiles = new Map();    // upload serial -> {files, onProgress, answer, hashes, reading}
    this.serial = 0;
  }

  get state() { return this.machine.state; }
  get session() { return this.machine.session; }
  /** Whether messages reach the host now (welcomed on an open socket). */
  get isOpen() { return this.machine.isOpen; }
  /** The current attempt's socket, if any. */
  get ws() { return this.sockets.get(this.machine.link?.attempt) ?? null; }
  /** When the next attempt starts (ms, `now()`), while reconnecting. */
  get retryAt() { return this.machine.retryAt ?? null; }
  /** The hello's `client` object ({kind, name, group}): a change goes into the next hello. */
  get client() { return this.machine.client; }

  /** Puts one message on the wire (every message the machine sends goes through here). */
  send(message, attempt = this.machine.link?.attempt, bytes = undefined) {
    const ws = this.sockets.get(attempt);
    if (ws?.readyState !== 1) return false;
    ws.send(bytes === undefined ? JSON.stringify(message) : binaryChunk(message, bytes));
    return true;
  }

  /** Handles `text` as if the host had sent it on the current connection (tests, debugging). */
  receive(text) { this.handle({ type: "text", attempt: this.machine.link?.attempt, text }); }

  handle(event) {
    for (const action of this.machine.handle(event)) this.run(action);
  }

  run(action) {
    switch (action.do) {
      case "open": return this.open(action.attempt);
      case "send": return this.send(action.message, action.attempt, action.bytes);
      case "closeLink": return this.closeLink(action);
      case "startTimer":
        clearTimeout(this.timers.get(action.name));
        this.timers.set(action.name, setTimeout(() => {
          this.timers.delete(action.name);
          this.handle({ type: "timer", name: action.name });
        }, action.ms));
        return undefined;
      case "cancelTimer":
        clearTimeout(this.timers.get(action.name));
        this.timers.delete(action.name);
        return undefined;
      case "persist":
        try { this.storage?.setItem(action.key, action.value); } catch { /* full */ }
        return undefined;
      case "emit": return this.emitted(action);
      case "read": return this.read(action);
      case "hash": return this.hash(action);
      default: return undefined;
    }
  }

  open(attempt) {
    const separator = this.url.includes("?") ? "&" : "?";
    const ws = new this.WebSocketImpl(`${this.url}${separator}affinity=${encodeURIComponent(this.affinity)}`, PROTOCOL);
    this.sockets.set(attempt, ws);
    ws.onopen = () => this.handle({ type: "opened", attempt });
    ws.onmessage = (event) => this.handle({ type: "text", attempt, text: event.data });
    ws.onclose = (event) => {
      this.sockets.delete(attempt);
      this.handle({ type: "closed", attempt, code: event.code, reason: event.reason });
    };
  }

  /** `detach`: no more of the socket's events count (it was given up). */
  closeLink({ attempt, code, reason, detach }) {
    const ws = this.sockets.get(attempt);
    if (!ws) return;
    if (detach) {
      ws.onclose = null;
      ws.onmessage = null;
      this.sockets.delete(attempt);
    }
    try {
      if (code === undefined) ws.close();
      else if (reason === undefined) ws.close(code);
      else ws.close(code, reason);
    } catch { /* already closing */ }
  }

  emitted({ type, detail }) {
    if (type === "uploadProgress") return this.pickedFiles.get(detail.serial)?.onProgress(detail.progress);
    if (type === "uploadAnswer") return this.pickedFiles.get(detail.serial)?.answer(detail.message);
    if (type === "dismiss") {
      for (const [serial, picked] of this.pickedFiles) if (picked.id === detail.id) this.pickedFiles.delete(serial);
    }
    return this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  /** Reads a chunk's bytes, in the order asked (each upload's reads one after the other). */
  read({ id, serial, file, offset, end, generation }) {
    const picked = this.pickedFiles.get(serial);
    if (!picked) return;
    // Read at once, delivered in order: a window of chunks goes out as fast as before.
    const reading = picked.files[file].slice(offset, end).arrayBuffer();
    picked.reading = picked.reading.then(() => reading).then((buffer) => {
      this.handle({ type: "chunkRead", id, serial, file, offset, end, generation, bytes: new Uint8Array(buffer) });
    }).catch(() => {});
  }

  hash({ id, serial }) {
    const picked = this.pickedFiles.get(serial);
    if (!picked) return;
    picked.hashes.then(
      (hashes) => this.handle({ type: "hashed", id, serial, hashes }),
      (error) => this.handle({ type: "hashed", id, serial, error: String(error?.message ?? error) }));
  }

  connect() { this.handle({ type: "connect" }); }

  /** Reconnects at once instead of waiting for the backoff ("Retry now"), or after a refused hello. */
  retryNow() { this.handle({ type: "retryNow" }); }

  close() { this.handle({ type: "stop" }); }

  /** Drops the connection without a close handshake's courtesy (tests, "network lost"). */
  dropConnection() { this.handle({ type: "drop" }); }

  /** Sends (or queues, while offline) the one answer of a modal; kept until its dismiss. */
  answer(message) { this.handle({ type: "answer", message }); }

  result(id, value) { this.answer({ type: "result", id, value }); }

  failure(id, code, text) {
    const message = { type: "failure", id, code };
    if (text) message.message = text;
    this.answer(message);
  }

  /** Whether an answer for `id` is still waiting for its dismiss. */
  answered(id) { return this.machine.unconfirmed.has(id); }

  /** Sends a control tap; false while offline (the tap is dropped). */
  tap(control) {
    const sent = this.isOpen;
    this.handle({ type: "tap", control });
    return sent;
  }

  /** Sends text field values, at most 10 messages a second per modal (trailing edge). The
   *  last values are kept and re-sent after a resume, so the host can restore them. */
  input(id, textFields) { this.handle({ type: "input", id, textFields }); }

  /** Sends `id`'s text field values still waiting for the throttle now (Enter right after
   *  typing or pasting). Returns whether an `update` from the host may still be on its
   *  way: values were sent within the last second, or the host was not heard since. */
  flushInput(id) {
    this.handle({ type: "flushInput", id });
    return this.machine.inputMayChange(id);
  }

  /** Whether the host has been heard since `id`'s typed values went (false: still checking). */
  inputChecked(id) { return this.machine.inputChecked(id); }

  /**
   * Uploads picked files (Blobs with name/type) for a picker, paced by its `uploadWindow`,
   * progress from the host's `uploadAck`s, resumed at the host's offsets after a reconnect;
   * then sends the result. `onProgress({state, acked, total, error})`, state one of
   * `sending`, `paused` (offline), `failed` (the host refused; `retry()` or `cancel()`),
   * `finishing`, `done`, `cancelled`. The result (or the `failure` of `cancel()`) goes through
   * `answer`, by default this client's `answer`. `held(index, file)`: whether the bytes the
   * host holds of file `index` (the present's `received`) are of this file; the others start
   * at 0 (files chosen again after a reload may not be the ones that were being sent).
   * @returns {{files, state, active, retry(), cancel(), stop()}}
   */
  upload(id, files, onProgress = () => {}, answer = (message) => this.answer(message), { held = () => true } = {}) {
    const serial = ++this.serial;
    // Read a slice at a time, never whole: a 20 MB file is not held in memory for its hash.
    const hashes = Promise.all(files.map((file) => sha256OfBlob(file)));
    hashes.catch(() => {});
    this.pickedFiles.set(serial, { id, files, onProgress, answer, hashes, reading: Promise.resolve() });
    const picker = this.machine.pickers.get(id) ?? {};
    const received = (picker.received ?? []).filter((entry) => files[entry?.file] && held(entry.file, files[entry.file]));
    this.handle({ type: "upload", id, serial, received,
                  files: files.map((file) => ({ name: file.name, type: file.type, size: file.size })) });
    const plan = this.machine.uploads.get(id);
    const event = (type) => () => this.handle({ type, id, serial });
    return {
      id, files,
      get state() { return plan.state; },
      get active() { return plan.active; },
      retry: event("uploadRetry"), cancel: event("uploadCancel"), stop: event("uploadStop"),
    };
  }
}

// The remote-modal.v1 protocol client: connection, hello/resume, seq handling, answers kept
// until their dismiss, paced and resumable uploads, reconnect with backoff. No DOM: any page
// (and Node's test runner) can use it.
import { Upload } from "./upload.js";

export { CHUNK_BYTES, DEFAULT_UPLOAD_WINDOW, toBase64, sha256Hex } from "./upload.js";

export const PROTOCOL = "remote-modal.v1";

/** The most a page waits between attempts after the host closed with 1001 (going away). */
export const GOING_AWAY_RETRY_MS = 2000;

/** Exponential backoff with full jitter, in milliseconds. The ceiling is low enough that a
 *  page notices a restarted host within seconds (and "Retry now" is always there). */
export function backoffDelay(attempt, baseMs = 500, maxMs = 6000, random = Math.random) {
  const ceiling = Math.min(maxMs, baseMs * 2 ** attempt);
  return Math.round(random() * ceiling);
}

/**
 * Which WebSocket URL a page may use. `requested` is the page's `?ws=` parameter (or null).
 * It is honoured only when it names the page's own origin (ws: for http:, wss: for https:,
 * same host and port; any path) or one of `allowed` (the host-served meta tag
 * `remote-modal-ws`, space-separated URLs). Otherwise the page's own `/ws` is used and
 * `warning` says why.
 * @returns {{url: string, warning: string|null}}
 */
export function resolveSocketURL(requested, pageURL, allowed = []) {
  const page = new URL(pageURL);
  const secure = page.protocol === "https:";
  const own = `${secure ? "wss:" : "ws:"}//${page.host}/ws`;
  if (!requested) return { url: own, warning: null };
  let target;
  try {
    target = new URL(requested, page);
  } catch {
    return { url: own, warning: `ignoring ?ws=${requested}: not a URL` };
  }
  if (target.protocol === "http:") target.protocol = "ws:";
  if (target.protocol === "https:") target.protocol = "wss:";
  const normalized = target.href;
  const listed = allowed.some((entry) => {
    try { return new URL(entry).href === normalized; } catch { return false; }
  });
  const sameOrigin = target.host === page.host && target.protocol === (secure ? "wss:" : "ws:");
  if (listed || sameOrigin) return { url: normalized, warning: null };
  return { url: own, warning: `ignoring ?ws=${requested}: only this page's own origin or a URL the host lists in <meta name="remote-modal-ws"> is used` };
}

const SESSION_KEY = "remote-modal.session";
const AFFINITY_KEY = "remote-modal.affinity";
const ANSWERS_KEY = "remote-modal.answers";

/**
 * Events (CustomEvent detail):
 * - state {state, attempt, refusal, retryAt, hostLeft, helloError}: connecting | open | reconnecting |
 *   refused | unauthorized | closed;
 *   `refusal` {code, reason} when the host closed the last connection with 1013 or 1008 (a
 *   reason other than `unauthorized`), `retryAt` when the next attempt starts (ms, `now()`),
 *   `hostLeft` while the host is away after closing with 1001 (going away: shutting down),
 *   `helloError` {code, message} when the host answered the hello with an `error`: `refused`
 *   (no more attempts until `retryNow()`), or `unauthorized` (a group the token does not grant)
 * - welcome {session, resumed}
 * - controls {items}, status {level, text}, update {id, actions}
 * - present {id, modal, answered}: `answered` when an answer for it is still unconfirmed
 *   (a reload between the click and the dismiss)
 * - represent {id, modal, typed}: the host sent again a modal the page shows (a resume): take
 *   its field texts, except `typed` (the text fields this page re-sent, or null)
 * - dismiss {id, reason}: the host's reasons, plus two the client decides:
 *   `restarted` (the resume got a fresh session while inside the retention: the host lost
 *   its state) and `ended` (the modal was no longer pending when the session resumed)
 * - answer {id, sent}: an answer was given; `sent` false while it waits for a connection
 * - rejected {id, code, message}: the host refused the last answer; the modal stays
 * - error {code, message, ref}
 */
export class ModalClient extends EventTarget {
  constructor({ url, name = "browser", kind = "browser", group = null, capabilities = [], token = null,
                storage = globalThis.sessionStorage ?? null, WebSocketImpl = globalThis.WebSocket,
                now = () => Date.now(), resyncMs = 2000, welcomeTimeoutMs = 10000, answerTimeoutMs = 10000,
                heartbeatSecondMs = 1000 } = {}) {
    // welcomeTimeoutMs, answerTimeoutMs: when a connection is given up (no `welcome`; no reply
    // to an answer); 0 turns the check off. heartbeatSecondMs: the length of one of the
    // heartbeat's seconds (tests shorten it); 0 turns the heartbeat off.
    super();
    this.heartbeatSecondMs = heartbeatSecondMs;
    this.heartbeat = null;           // the welcome's {idleSeconds, activeSeconds, timeoutSeconds}, clamped
    this.beatTimer = null;           // runs out after a silence: a ping goes out
    this.pongTimer = null;           // runs out when nothing answered the ping: the host is silent
    this.beatActive = false;
    this.pingId = 0;
    this.welcomeTimeoutMs = welcomeTimeoutMs;
    this.answerTimeoutMs = answerTimeoutMs;
    this.url = url;
    this.client = { kind, name };
    if (group) this.client.group = group;
    this.capabilities = capabilities;
    this.token = token;
    this.storage = storage;
    this.WebSocketImpl = WebSocketImpl;
    this.now = now;
    this.resyncMs = resyncMs;
    this.session = storage?.getItem(SESSION_KEY) ?? null;
    // A routing key, not a secret: a load balancer hashes it so reconnects reach the same host.
    this.affinity = storage?.getItem(AFFINITY_KEY) ?? Math.random().toString(36).slice(2, 14);
    storage?.setItem(AFFINITY_KEY, this.affinity);
    this.lastSeq = 0;
    this.shown = new Set();          // modal ids presented and not yet dismissed
    this.modals = new Map();         // id -> the latest modal description the host sent
    this.unconfirmed = new Map(restore(storage));   // id -> answer message kept until its dismiss
    this.lastAnswered = null;        // the id of the answer an error with ref result/failure is about
    this.inputTimers = new Map();
    this.inputSentAt = new Map();
    // Modals whose typed values went to the host and nothing has come from it since: what
    // their rules say now is not known (checking), never that the fields are wrong.
    this.inputUnchecked = new Set();
    this.lastInput = new Map();      // id -> last text fields, re-sent after a resume
    this.uploads = new Map();        // id -> Upload
    this.pickers = new Map();        // id -> {window, received} from the picker's latest present
    this.attempt = 0;
    this.state = "idle";
    this.stopped = false;
    this.retentionSeconds = 60;
    this.disconnectedAt = null;
    this.resync = null;              // after a resume: {seen: Set, timer}
  }

  /** Whether messages reach the host now (welcomed on an open socket). */
  get isOpen() { return this.state === "open" && this.ws?.readyState === 1; }

  connect() {
    this.stopped = false;
    this.helloError = null;
    clearTimeout(this.retryTimer);
    this.heard();                                  // a watchdog of an earlier connection ("Retry now") ends
    this.stopHeartbeat();
    this.setState(this.attempt === 0 && this.state !== "reconnecting" ? "connecting" : "reconnecting");
    const separator = this.url.includes("?") ? "&" : "?";
    const ws = new this.WebSocketImpl(`${this.url}${separator}affinity=${encodeURIComponent(this.affinity)}`, PROTOCOL);
    this.ws = ws;
    ws.onopen = () => {
      const hello = { type: "hello", protocol: 1, client: this.client, capabilities: this.capabilities };
      if (this.token) hello.token = this.token;
      // lastSeq: the host sends again the statuses after it (they may have died with the
      // old connection). None after a reload: what this page showed before is not known, and
      // old notices would come back.
      if (this.session) hello.resume = this.lastSeq > 0 ? { session: this.session, lastSeq: this.lastSeq } : { session: this.session };
      ws.send(JSON.stringify(hello));
    };
    ws.onmessage = (event) => this.receive(event.data);
    ws.onclose = (event) => this.lost(ws, event);
    // A connection that never gets its `welcome` (a network that swallows packets) is given
    // up and tried again, as the kiosk does.
    clearTimeout(this.welcomeTimer);
    if (this.welcomeTimeoutMs > 0) {
      this.welcomeTimer = setTimeout(() => {
        if (this.ws === ws && this.state !== "open") this.abandon(ws, "no welcome from the host");
      }, this.welcomeTimeoutMs);
    }
  }

  /** Gives a connection up without waiting for its close (a dead network can take minutes
   *  to report one) and reconnects as after a drop; a resume re-sends what was kept. The
   *  state event says `silent`: the host is not answering. */
  abandon(ws, reason) {
    ws.onclose = null;
    ws.onmessage = null;
    try { ws.close(4000, reason); } catch { /* already closing */ }
    this.lost(ws, { code: 1006, reason, silent: true });
  }

  /** The heartbeat (docs/protocol.md, section 3): whether something waits for the host. */
  waitsForHost() { return this.shown.size > 0 || this.unconfirmed.size > 0 || Boolean(this.answerTimer); }

  /** The host was heard (or has just welcomed us): the silence starts again, with the
   *  active interval while something waits for the host. */
  beat() {
    if (!this.heartbeat || !this.isOpen) return;
    clearTimeout(this.pongTimer);
    this.pongTimer = null;
    this.beatActive = this.waitsForHost();
    this.armBeat(this.beatActive ? this.heartbeat.activeSeconds : this.heartbeat.idleSeconds);
  }

  /** Something now waits for the host (a tap, an answer): an idle heartbeat becomes the
   *  active one from now. An active one runs on: repeated taps do not put the ping off. */
  quicken() {
    if (!this.heartbeat || !this.isOpen || this.pongTimer || this.beatActive) return;
    this.beatActive = true;
    this.armBeat(this.heartbeat.activeSeconds);
  }

  armBeat(seconds) {
    clearTimeout(this.beatTimer);
    const ws = this.ws;
    this.beatTimer = setTimeout(() => {
      this.beatTimer = null;
      if (this.ws !== ws || !this.isOpen) return;
      this.send({ type: "ping", id: this.pingId = (this.pingId % 2147483647) + 1 });
      this.pongTimer = setTimeout(() => {
        this.pongTimer = null;
        if (this.ws === ws) this.abandon(ws, "the host is not answering");
      }, this.heartbeat.timeoutSeconds * this.heartbeatSecondMs);
    }, seconds * this.heartbeatSecondMs);
  }

  /** Typed values went: a host that changes nothing sends nothing, so with the heartbeat a
   *  ping follows shortly (its `pong` says the values were checked; silence, that the host
   *  is not answering). Without the heartbeat a second of silence counts as checked. */
  probe() {
    if (!this.heartbeat) {
      clearTimeout(this.probeTimer);
      this.probeTimer = setTimeout(() => {
        const ids = [...this.inputUnchecked];
        this.inputUnchecked.clear();
        for (const id of ids) this.emit("checked", { id });
      }, 1000);
      return;
    }
    if (!this.isOpen || this.pongTimer) return;     // a ping is out: its pong will do
    this.armBeat(0.3);
  }

  stopHeartbeat() {
    clearTimeout(this.beatTimer);
    clearTimeout(this.pongTimer);
    this.beatTimer = this.pongTimer = null;
    this.heartbeat = null;
  }

  /** Something came from the host: the connection is alive. Answers re-sent after a resume
   *  wait for their own reply (see `welcome`). */
  heard(message = null) {
    if (message && this.awaitingReply && message.type !== "error"
        && !(message.type === "dismiss" && this.awaitingReply.has(message.id))) return;
    clearTimeout(this.answerTimer);
    this.answerTimer = null;
    this.awaitingReply = null;
  }

  /** After an answer is sent the host answers at once (`dismiss`, or an `error`): silence
   *  means the network died without closing anything, and the page would say "Connected"
   *  beside a spinner for minutes. */
  expectReply() {
    if (this.answerTimer || !(this.answerTimeoutMs > 0)) return;
    const ws = this.ws;
    this.answerTimer = setTimeout(() => {
      this.answerTimer = null;
      if (this.ws === ws && ws) this.abandon(ws, "no reply from the host");
    }, this.answerTimeoutMs);
  }

  /** The connection ended (closed, or given up): reconnect with backoff, or stop. */
  lost(ws, event) {
    if (this.ws !== ws) return;
    clearTimeout(this.welcomeTimer);
    this.stopHeartbeat();
    this.silent = Boolean(event.silent);
    this.heard();
    this.ws = null;
    this.disconnected();
    if (this.stopped) return this.setState("closed");
    if (event.code === 1008 && event.reason === "unauthorized") return this.setState("unauthorized");
    // A refusal (1013 "try again later", 1008 policy) is named so the page can say why; it
    // is retried with the same backoff, never less than a second for a 1013.
    this.refusal = event.code === 1013 || event.code === 1008
      ? { code: event.code, reason: event.reason || (event.code === 1013 ? "the host is busy" : "policy") } : null;
    // 1001: the host said it is going away (shutting down, most often to restart). Until it
    // is back, attempts come at most 2 s apart, so the page returns within 2 s of it.
    if (event.code === 1001) this.hostLeft = true;
    const ceiling = this.hostLeft ? GOING_AWAY_RETRY_MS : undefined;
    const delay = Math.max(backoffDelay(this.attempt++, undefined, ceiling), this.refusal?.code === 1013 ? 1000 : 0);
    this.retryAt = this.now() + delay;
    this.setState("reconnecting");
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  /** Reconnects at once instead of waiting for the backoff ("Retry now"), or after a refused hello. */
  retryNow() {
    if ((this.state !== "reconnecting" && this.state !== "refused") || this.stopped) return;
    if (this.ws) { const ws = this.ws; this.ws = null; ws.onclose = null; ws.close(); }
    this.connect();
  }

  close() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.welcomeTimer);
    this.stopHeartbeat();
    this.heard();
    this.ws?.close(1000);
  }

  /** Drops the connection without a close handshake's courtesy (tests, "network lost"). */
  dropConnection() { this.ws?.close(4000, "dropped"); }

  disconnected() {
    if (this.state === "open") this.disconnectedAt = this.now();
    this.endResync();
    for (const upload of this.uploads.values()) upload.connectionLost();
  }

  setState(state) {
    this.state = state;
    if (state === "open") { this.refusal = null; this.hostLeft = false; this.silent = false; }
    this.emit("state", { state, attempt: this.attempt, refusal: this.refusal ?? null, retryAt: this.retryAt ?? null,
                         hostLeft: Boolean(this.hostLeft), helloError: this.helloError ?? null,
                         silent: Boolean(this.silent) });
  }

  emit(type, detail) { this.dispatchEvent(new CustomEvent(type, { detail })); }

  send(message) {
    if (this.ws?.readyState !== 1) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  receive(text) {
    // Messages are handled in order: whatever follows typed values (an `update`, a `pong`)
    // comes after the host took them. Their check is known once the message is applied.
    const checked = this.inputUnchecked.size > 0 ? [...this.inputUnchecked] : null;
    this.inputUnchecked.clear();
    this.apply(text);
    this.beat();
    for (const id of checked ?? []) this.emit("checked", { id });
  }

  /** Whether the host has been heard since `id`'s typed values went (false: still checking). */
  inputChecked(id) { return !this.inputUnchecked.has(id); }

  apply(text) {
    let message;
    try { message = JSON.parse(text); } catch { this.heard(); return; }
    this.heard(message);
    if (message.type === "welcome") return this.welcome(message);
    if (typeof message.seq === "number") {
      if (message.seq <= this.lastSeq) return;    // already processed (resume re-sends)
      this.lastSeq = message.seq;
    }
    if (this.resync && message.type !== "controls" && message.type !== "present") this.endResync();
    switch (message.type) {
      case "present": return this.present(message);
      case "dismiss": return this.dismissed(message.id, message.reason);
      case "update":
        this.modals.get(message.id)?.actions?.forEach((action, index) => {
          if (message.actions[index]) action.enabled = message.actions[index].enabled;
        });
        return this.emit("update", { id: message.id, actions: message.actions });
      case "controls":
        if (this.resync) this.resync.controls = true;
        return this.emit("controls", { items: message.items });
      case "status": return this.emit("status", { level: message.level, text: message.text });
      case "uploadAck": return this.uploads.get(message.id)?.acknowledged(message.file, message.received);
      case "error": return this.hostError(message);
      // The end of a resume's re-sent messages (newer hosts; the resync already ended above,
      // as on any message past the re-sent `controls` and `present`s).
      case "resumed": return undefined;
      default: return undefined;
    }
  }

  welcome(message) {
    clearTimeout(this.welcomeTimer);
    this.attempt = 0;
    this.heartbeat = heartbeatOffer(message.heartbeat, this.heartbeatSecondMs);
    const fresh = !message.resumed || message.session !== this.session;
    if (fresh && this.session) {
      // The session we had is gone. Inside its retention that means the host lost it
      // (restarted); past it, it expired while we were away.
      const away = this.disconnectedAt === null ? Infinity : this.now() - this.disconnectedAt;
      const reason = away < this.retentionSeconds * 1000 ? "restarted" : "expired";
      this.emit("sessionLost", { reason, modals: this.shown.size });
      for (const id of [...this.shown]) this.dismissed(id, reason);
      for (const id of [...this.unconfirmed.keys()]) this.unconfirmed.delete(id);
      this.persistAnswers();
      this.lastSeq = 0;
    } else if (fresh) {
      this.lastSeq = 0;
    }
    this.session = message.session;
    this.retentionSeconds = message.retentionSeconds ?? this.retentionSeconds;
    this.disconnectedAt = null;
    this.storage?.setItem(SESSION_KEY, message.session);
    this.setState("open");
    this.emit("welcome", { session: message.session, resumed: !fresh });
    if (!fresh) {
      // The host now re-sends controls and every pending present; a shown modal that is not
      // among them ended while we were away (its dismiss went nowhere).
      this.resync = { seen: new Set(), timer: setTimeout(() => this.endResync(), this.resyncMs) };
      for (const [id, textFields] of this.lastInput) {
        if (this.shown.has(id) && !this.unconfirmed.has(id)) this.send({ type: "input", id, textFields });
      }
    }
    const resent = [];
    for (const answer of this.unconfirmed.values()) {
      // A kept alert answer goes with its own text fields first: on the resume the host
      // forgot the typed password and disabled the action its rule guards, so the answer
      // alone would be refused as choosing a disabled action. After this `input` the host
      // has enabled it again (an `update` says so) before it judges the answer.
      const fields = answer.type === "result" ? answer.value?.textFields : null;
      if (!fresh && Array.isArray(fields) && this.shown.has(answer.id)) {
        this.send({ type: "input", id: answer.id, textFields: fields });
      }
      if (this.send(answer)) resent.push(answer.id);
      this.emit("answer", { id: answer.id, sent: true });
    }
    // Re-sent answers are watched as a live one is. The host sent `controls`, the pending
    // `present`s and their `update`s for the hello before it read them: only the answer's
    // `dismiss` (the host repeats it for a modal that already ended) or an `error` is a
    // reply, else a network that dies right after the resume goes unnoticed until the next
    // answer.
    if (resent.length) {
      this.awaitingReply = new Set(resent);
      this.expectReply();
    }
  }

  endResync() {
    if (!this.resync) return;
    const { seen, timer, controls } = this.resync;
    this.resync = null;
    clearTimeout(timer);
    if (this.state !== "open") return;             // cut short by another drop: judge next time
    for (const id of [...this.shown]) if (!seen.has(id)) this.dismissed(id, "ended");
    // With the resume's `controls` in, its `present`s came too (the host sends them at once):
    // an answer re-sent for a modal not among them is for one that ended. The host repeats
    // its dismiss, or says nothing once the modal is past its memory of ended ones: no
    // reply is waited for (the page would otherwise reconnect at every resume).
    if (controls && this.awaitingReply) {
      for (const id of [...this.awaitingReply]) if (!seen.has(id)) this.awaitingReply.delete(id);
      if (this.awaitingReply.size === 0) this.heard();
    }
  }

  present(message) {
    const { id, modal } = message;
    this.resync?.seen.add(id);
    this.modals.set(id, modal);
    // A picker's pacing and what the host holds travel beside the modal (docs/protocol.md).
    if (message.uploadWindow !== undefined || message.received !== undefined) {
      this.pickers.set(id, { window: message.uploadWindow, received: message.received ?? [] });
    }
    if (this.shown.has(id)) {
      // Re-sent after a resume: keep the dialog, take the current action states and the
      // upload offsets the host holds.
      if (modal.actions) this.emit("update", { id, actions: modal.actions.map(({ enabled }) => ({ enabled })) });
      this.uploads.get(id)?.resume(message.received ?? []);
      // ...and its field texts: the host's, except what this page typed and re-sent after the
      // resume (`typed`: the host is about to take those and answer with an update).
      const typed = this.lastInput.get(id) ?? null;
      this.emit("represent", { id, modal, typed: this.unconfirmed.has(id) ? null : typed });
      return;
    }
    this.shown.add(id);
    this.emit("present", { id, modal, answered: this.unconfirmed.has(id) });
  }

  dismissed(id, reason) {
    this.shown.delete(id);
    this.modals.delete(id);
    this.pickers.delete(id);
    this.lastInput.delete(id);
    this.inputSentAt.delete(id);
    this.inputUnchecked.delete(id);
    this.uploads.get(id)?.stop();
    this.uploads.delete(id);
    if (this.unconfirmed.delete(id)) this.persistAnswers();
    this.emit("dismiss", { id, reason });
  }

  hostError(message) {
    const detail = { code: message.code, message: message.message, ref: message.ref };
    this.emit("error", detail);
    if (message.ref === "hello" && this.state !== "open" && this.ws) return this.helloRefused(message);
    if (message.code === "rate_limited" && message.ref === "upload") {
      // A newer host names the modal, the file and what it holds of it: that upload goes on
      // from there; every other one (or every one, for an older host) from its acknowledgements.
      const detail = Number.isInteger(message.file) ? { file: message.file, held: message.held } : null;
      for (const upload of this.uploads.values()) upload.throttled(upload.id === message.id ? detail : null);
      return;
    }
    if (message.code === "upload_invalid") {
      // A newer host names the modal (`id`), the file and the bytes it holds of it (`file`,
      // `held`); an older one says it only in words, which `refused` then reads.
      const upload = (typeof message.id === "string" && this.uploads.get(message.id))
        || [...this.uploads.values()].find((candidate) => candidate.active || candidate.state === "done");
      if (upload) {
        if (message.ref === "result") this.forget(upload.id);
        const detail = Number.isInteger(message.file) ? { file: message.file, held: message.held } : null;
        return upload.refused(message.message ?? "", message.ref, detail);
      }
    }
    const answerRefused = ["bad_message", "action_disabled", "upload_invalid"].includes(message.code);
    // The refused answer is the one the error names (`id`, newer hosts), else the last one sent.
    const refusedID = typeof message.id === "string" ? message.id : this.lastAnswered;
    if (answerRefused && (message.ref === "result" || message.ref === "failure") && refusedID
        && this.unconfirmed.has(refusedID)) {
      const id = refusedID;
      this.forget(id);
      this.emit("rejected", { id, code: message.code, message: message.message });
    }
  }

  /** The host answered the hello with an `error` (a field it refuses, as a group over 256
   *  bytes; a protocol it does not speak): the same hello would be refused the same way, so
   *  the page stops trying and says why; `retryNow()` tries once more. An `unauthorized` one
   *  (a group the token does not grant) is followed by the host's close 1008 `unauthorized`. */
  helloRefused(message) {
    this.helloError = { code: message.code, message: message.message || message.code };
    if (message.code === "unauthorized") return;
    const ws = this.ws;
    clearTimeout(this.welcomeTimer);
    clearTimeout(this.retryTimer);
    ws.onclose = null;
    ws.onmessage = null;
    try { ws.close(1000); } catch { /* already closing */ }
    this.ws = null;
    this.disconnected();
    this.setState("refused");
  }

  forget(id) {
    if (this.unconfirmed.delete(id)) this.persistAnswers();
  }

  persistAnswers() {
    try { this.storage?.setItem(ANSWERS_KEY, JSON.stringify([...this.unconfirmed.values()])); } catch { /* full */ }
  }

  /** Sends (or queues, while offline) the one answer of a modal; kept until its dismiss. */
  answer(message) {
    if (message.type === "failure") this.uploads.get(message.id)?.stop();
    this.unconfirmed.set(message.id, message);
    this.lastAnswered = message.id;
    this.persistAnswers();
    const sent = this.isOpen && this.send(message);
    if (sent) { this.awaitingReply?.add(message.id); this.expectReply(); this.quicken(); }
    this.emit("answer", { id: message.id, sent });
  }

  result(id, value) { this.answer({ type: "result", id, value }); }

  failure(id, code, text) {
    const message = { type: "failure", id, code };
    if (text) message.message = text;
    this.answer(message);
  }

  /** Whether an answer for `id` is still waiting for its dismiss. */
  answered(id) { return this.unconfirmed.has(id); }

  tap(control) {
    const sent = this.isOpen && this.send({ type: "event", control });
    if (sent) this.quicken();
    return sent;
  }

  /** Sends text field values, at most 10 messages a second per modal (trailing edge). The
   *  last values are kept and re-sent after a resume, so the host can restore them. */
  input(id, textFields) {
    this.lastInput.set(id, textFields);
    const pending = this.inputTimers.get(id);
    if (pending) { pending.values = textFields; return; }
    const entry = { values: textFields, flushed: false };
    this.inputTimers.set(id, entry);
    setTimeout(() => {
      if (entry.flushed) return;
      this.inputTimers.delete(id);
      this.sendInput(id, entry.values);
    }, 100);
  }

  /** Sends `id`'s text field values still waiting for the 100 ms timer now (Enter right
   *  after typing or pasting). Returns whether an `update` from the host may still be on its
   *  way: values were sent within the last second. */
  flushInput(id) {
    const pending = this.inputTimers.get(id);
    if (pending) {
      pending.flushed = true;
      this.inputTimers.delete(id);
      this.sendInput(id, pending.values);
    }
    return Date.now() - (this.inputSentAt.get(id) ?? 0) < 1000 || this.inputUnchecked.has(id);
  }

  sendInput(id, textFields) {
    if (!this.shown.has(id) || !this.isOpen) return;
    this.send({ type: "input", id, textFields });
    this.inputSentAt.set(id, Date.now());
    this.inputUnchecked.add(id);
    this.emit("checking", { id });
    this.probe();
  }

  /**
   * Uploads picked files (Blobs with name/type) for a picker, paced by its `uploadWindow`,
   * progress from the host's `uploadAck`s, resumed at the host's offsets after a reconnect;
   * then sends the result. `onProgress({state, acked, total, error})`, state one of
   * `sending`, `paused` (offline), `failed` (the host refused; `retry()` or `cancel()`),
   * `finishing`, `done`, `cancelled`. The result (or the `failure` of `cancel()`) goes through
   * `answer`, by default this client's `answer`. `held(index, file)`: whether the bytes the
   * host holds of file `index` (the present's `received`) are of this file; the others start
   * at 0 (files chosen again after a reload may not be the ones that were being sent).
   * @returns {Upload}
   */
  upload(id, files, onProgress = () => {}, answer = (message) => this.answer(message), { held = () => true } = {}) {
    this.uploads.get(id)?.stop();
    const picker = this.pickers.get(id) ?? {};
    const received = (picker.received ?? []).filter((entry) => files[entry?.file] && held(entry.file, files[entry.file]));
    const upload = new Upload({
      id, files, window: picker.window, received, onProgress,
      transport: {
        isOpen: () => this.isOpen,
        // The host acknowledges every chunk at once (or after its pacing, milliseconds): a
        // chunk met by silence is a network that died without closing, as for an answer
        // (the bar stood still beside "Connected" for minutes).
        send: (message) => {
          const sent = this.send(message);
          if (sent) this.expectReply();
          return sent;
        },
        result: (value) => answer({ type: "result", id, value }),
        cancel: () => answer({ type: "failure", id, code: "cancelled" }),
      },
    });
    this.uploads.set(id, upload);
    upload.start();
    return upload;
  }
}

/** A welcome's heartbeat offer, each value clamped to 1..300 s (a hostile or mistaken 0 must
 *  not make the page ping in a loop); null when absent or malformed (a host before it: the
 *  page must not ping it). */
function heartbeatOffer(offer, secondMs) {
  if (!(secondMs > 0) || !offer || typeof offer !== "object") return null;
  const keys = ["idleSeconds", "activeSeconds", "timeoutSeconds"];
  if (!keys.every((key) => Number.isInteger(offer[key]) && offer[key] >= 1 && offer[key] <= 3600)) return null;
  return Object.fromEntries(keys.map((key) => [key, Math.min(300, offer[key])]));
}

function restore(storage) {
  try {
    const answers = JSON.parse(storage?.getItem(ANSWERS_KEY) ?? "[]");
    return Array.isArray(answers) ? answers.filter((a) => typeof a?.id === "string").map((a) => [a.id, a]) : [];
  } catch {
    return [];
  }
}

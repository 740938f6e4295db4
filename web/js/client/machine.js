// The page's protocol client as a pure machine, the twin of RemoteModalClient's
// ClientStateMachine: `handle(event)` takes one event (the link, a timer, the app) and returns
// the actions to run, in order. No socket, no timer, no storage, no DOM: the clock (`now`),
// the jitter (`random`) and what was stored are injected; `socket.js` runs it in a page.
//
// Events: {type: "connect"} | {type: "opened", attempt} | {type: "text", attempt, text}
//   | {type: "closed", attempt, code, reason} | {type: "timer", name} | {type: "answer", message}
//   | {type: "tap", control} | {type: "input", id, textFields} | {type: "flushInput", id}
//   | {type: "retryNow"} | {type: "stop"} | {type: "drop"} | the upload events (upload.js).
// Actions: {do: "open", attempt} | {do: "send", attempt, message} | {do: "closeLink", attempt,
//   code, reason, detach} | {do: "startTimer", name, ms} | {do: "cancelTimer", name}
//   | {do: "persist", key, value} | {do: "emit", type, detail} | {do: "read", ...} | {do: "hash", id}.
import { heartbeatMethods } from "./heartbeat.js";
import { inputMethods } from "./input.js";
import { outboxMethods, restoreAnswers } from "./outbox.js";
import { sessionMethods } from "./session.js";
import { uploadMethods } from "./upload.js";

export const PROTOCOL = "remote-modal.v1";

/** The most a page waits between attempts after the host closed with 1001 (going away). */
export const GOING_AWAY_RETRY_MS = 2000;

export { SESSION_KEY, AFFINITY_KEY, ANSWERS_KEY } from "./keys.js";

/** Exponential backoff with full jitter, in milliseconds. The ceiling is low enough that a
 *  page notices a restarted host within seconds (and "Retry now" is always there). */
export function backoffDelay(attempt, baseMs = 500, maxMs = 6000, random = Math.random) {
  const ceiling = Math.min(maxMs, baseMs * 2 ** attempt);
  return Math.round(random() * ceiling);
}

export class ClientMachine {
  /**
   * @param {object} options
   * @param {{kind: string, name: string, group?: string}} options.client  the hello's `client`
   * @param {string[]} options.capabilities  the kinds shown
   * @param {string|null} options.token  never logged
   * @param {{session?: string|null, answers?: string|null}} options.stored  what the store held
   * @param {() => number} options.now  milliseconds
   * @param {() => number} options.random  0..1, the backoff's jitter
   * welcomeTimeoutMs, answerTimeoutMs: when a connection is given up (no `welcome`; no reply
   * to an answer); 0 turns the check off. heartbeatSecondMs: the length of one of the
   * heartbeat's seconds (tests shorten it); 0 turns the heartbeat off.
   */
  constructor({ client, capabilities = [], token = null, stored = {}, now = () => 0, random = () => Math.random(),
                resyncMs = 2000, welcomeTimeoutMs = 10000, answerTimeoutMs = 10000, heartbeatSecondMs = 1000 } = {}) {
    Object.assign(this, { client, capabilities, token, now, random, resyncMs, welcomeTimeoutMs, answerTimeoutMs,
                          heartbeatSecondMs });
    this.out = [];
    this.link = null;                // {attempt, open}: the current connection attempt
    this.attempts = 0;               // attempts made (each one's number)
    this.timerAttempt = new Map();   // timer name -> the attempt it watches (null: none)
    this.heartbeat = null;           // the welcome's {idleSeconds, activeSeconds, timeoutSeconds}, clamped
    this.binaryUploads = false;      // the welcome offered binary upload chunks (§7)
    this.beatActive = false;
    this.pingOutstanding = false;
    this.pingId = 0;
    this.session = stored.session ?? null;
    this.lastSeq = 0;
    this.shown = new Set();          // modal ids presented and not yet dismissed
    this.modals = new Map();         // id -> the latest modal description the host sent
    this.unconfirmed = new Map(restoreAnswers(stored.answers));  // id -> answer kept until its dismiss
    this.lastAnswered = null;        // the id of the answer an error with ref result/failure is about
    this.replyArmed = false;
    this.awaitingReply = null;
    this.inputTimers = new Map();    // id -> the values waiting for the throttle
    this.inputSentAt = new Map();
    // Modals whose typed values went to the host and nothing has come from it since: what
    // their rules say now is not known (checking), never that the fields are wrong.
    this.inputUnchecked = new Set();
    this.lastInput = new Map();      // id -> last text fields, re-sent after a resume
    this.uploads = new Map();        // id -> UploadPlan
    this.pickers = new Map();        // id -> {window, received} from the picker's latest present
    this.failures = 0;               // attempts failed in a row (the backoff's exponent)
    this.state = "idle";
    this.stopped = false;
    this.retentionSeconds = 60;
    this.disconnectedAt = null;
    this.resync = null;              // after a resume: {seen: Set, controls}
    // After a resume: shown modals not presented again whose answer went again. The host
    // repeats a remembered modal's dismiss with its reason (`superseded`: another screen
    // answered first) and handles messages in order: the pong to a later ping without that
    // dismiss says the modal ended while away.
    this.concluding = new Set();
    this.helloBurst = false;         // a resume's re-sent state is coming (welcome to resumed)
  }

  /** Applies one event; returns the actions to run, in order. */
  handle(event) {
    const handler = EVENTS[event.type];
    if (handler) handler.call(this, event);
    const actions = this.out;
    this.out = [];
    return actions;
  }

  /** Whether messages reach the host now (welcomed on an open link). */
  get isOpen() { return this.state === "open" && Boolean(this.link?.open); }

  act(action) { this.out.push(action); }
  emit(type, detail) { this.act({ do: "emit", type, detail }); }
  persist(key, value) { this.act({ do: "persist", key, value }); }

  /** Starts (or restarts) a timer that watches the current attempt. */
  timer(name, ms) {
    this.timerAttempt.set(name, this.link?.attempt ?? null);
    this.act({ do: "startTimer", name, ms });
  }

  cancel(name) {
    if (!this.timerAttempt.delete(name)) return;
    this.act({ do: "cancelTimer", name });
  }

  /** Sends `message`; with `bytes`, as a binary chunk of that header (§7, "Binary chunks"). */
  send(message, bytes) {
    if (!this.link?.open) return false;
    this.act(bytes === undefined ? { do: "send", attempt: this.link.attempt, message }
      : { do: "send", attempt: this.link.attempt, message, bytes });
    return true;
  }

  connect() {
    this.stopped = false;
    this.helloError = null;
    this.cancel("retry");
    this.heard();                                  // a watchdog of an earlier connection ("Retry now") ends
    this.stopHeartbeat();
    this.setState(this.failures === 0 && this.state !== "reconnecting" ? "connecting" : "reconnecting");
    this.link = { attempt: ++this.attempts, open: false };
    this.act({ do: "open", attempt: this.link.attempt });
    // A connection that never gets its `welcome` (a network that swallows packets) is given
    // up and tried again, as the kiosk does.
    this.cancel("welcome");
    if (this.welcomeTimeoutMs > 0) this.timer("welcome", this.welcomeTimeoutMs);
  }

  opened() {
    this.link.open = true;
    const hello = { type: "hello", protocol: 1, client: this.client, capabilities: this.capabilities };
    if (this.token) hello.token = this.token;
    // lastSeq: the host sends again the statuses after it (they may have died with the
    // old connection). None after a reload: what this page showed before is not known, and
    // old notices would come back.
    if (this.session) hello.resume = this.lastSeq > 0 ? { session: this.session, lastSeq: this.lastSeq } : { session: this.session };
    this.send(hello);
  }

  /** Gives the connection up without waiting for its close (a dead network can take minutes
   *  to report one) and reconnects as after a drop; a resume re-sends what was kept. The
   *  state event says `silent`: the host is not answering. */
  abandon(reason) {
    this.act({ do: "closeLink", attempt: this.link.attempt, code: 4000, reason, detach: true });
    this.lost({ code: 1006, reason, silent: true });
  }

  /** The connection ended (closed, or given up): reconnect with backoff, or stop. */
  lost(event) {
    this.helloBurst = false;
    this.cancel("welcome");
    this.stopHeartbeat();
    this.silent = Boolean(event.silent);
    this.heard();
    this.link = null;
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
    const delay = Math.max(backoffDelay(this.failures++, undefined, ceiling, this.random),
                           this.refusal?.code === 1013 ? 1000 : 0);
    this.retryAt = this.now() + delay;
    this.setState("reconnecting", delay);
    this.timer("retry", delay);
  }

  disconnected() {
    if (this.state === "open") this.disconnectedAt = this.now();
    // A resume this drop cut short is not judged: its re-sent presents may never have come
    // (ending its modals as "ended" here dropped their kept answers). The next resume judges.
    this.cancel("resync");
    this.resync = null;
    this.concluding.clear();                       // still shown: the next resume judges them
    for (const upload of this.uploads.values()) upload.connectionLost();
  }

  /** `retryIn`: the backoff just chosen, when a lost connection is about to be tried again. */
  setState(state, retryIn) {
    this.state = state;
    if (state === "open") { this.refusal = null; this.hostLeft = false; this.silent = false; }
    const detail = { state, attempt: this.failures, refusal: this.refusal ?? null, retryAt: this.retryAt ?? null,
                     hostLeft: Boolean(this.hostLeft), helloError: this.helloError ?? null, silent: Boolean(this.silent) };
    if (retryIn !== undefined) detail.retryIn = retryIn;
    this.emit("state", detail);
  }

  fired(name) {
    if (!this.timerAttempt.has(name)) return;
    const attempt = this.timerAttempt.get(name);
    this.timerAttempt.delete(name);
    const current = attempt === null || attempt === this.link?.attempt;
    if (name === "retry") return this.connect();
    if (name === "welcome") return current && this.link && this.state !== "open" ? this.abandon("no welcome from the host") : undefined;
    if (name === "reply") return current && this.link ? this.replyTimedOut() : undefined;
    if (name === "beat") return current && this.isOpen ? this.ping() : undefined;
    if (name === "pong") return current && this.link ? this.abandon("the host is not answering") : undefined;
    if (name === "resync") return this.endResync(null, true);
    if (name === "probe") return this.probed();
    if (name.startsWith("input:")) return this.inputDue(name.slice(6));
    if (name.startsWith("throttle:")) return this.uploads.get(name.slice(9))?.throttleOver();
    return undefined;
  }

  /** Reconnects at once instead of waiting for the backoff ("Retry now"), or after a refused hello. */
  retryNow() {
    if ((this.state !== "reconnecting" && this.state !== "refused") || this.stopped) return;
    if (this.link) this.act({ do: "closeLink", attempt: this.link.attempt, detach: true });
    this.link = null;
    this.connect();
  }

  stop() {
    this.stopped = true;
    this.cancel("retry");
    this.cancel("welcome");
    this.stopHeartbeat();
    this.heard();
    if (this.link) this.act({ do: "closeLink", attempt: this.link.attempt, code: 1000, detach: false });
  }
}

Object.assign(ClientMachine.prototype, heartbeatMethods, inputMethods, outboxMethods, sessionMethods, uploadMethods);

const EVENTS = {
  connect() { this.connect(); },
  opened({ attempt }) { if (this.link?.attempt === attempt && !this.link.open) this.opened(); },
  text({ attempt, text }) { if (this.link?.attempt === attempt && this.link.open) this.receive(text); },
  closed({ attempt, code, reason, silent }) { if (this.link?.attempt === attempt) this.lost({ code, reason, silent }); },
  timer({ name }) { this.fired(name); },
  answer({ message }) { this.answer(message); },
  tap({ control }) { this.tap(control); },
  input({ id, textFields }) { this.input(id, textFields); },
  flushInput({ id }) { this.flushInput(id); },
  retryNow() { this.retryNow(); },
  stop() { this.stop(); },
  /** Drops the connection without a close handshake's courtesy (tests, "network lost"). */
  drop() { if (this.link) this.act({ do: "closeLink", attempt: this.link.attempt, code: 4000, reason: "dropped", detach: false }); },
  ...Object.fromEntries(Object.entries(uploadMethods.events)),
};

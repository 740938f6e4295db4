// Answers kept until their `dismiss` (and across a reload, through the store), the reply
// watchdog, and the host's errors: a refused answer, a refused hello, an upload's refusal.
// Methods of ClientMachine.
import { ANSWERS_KEY } from "./keys.js";

/** The answers a store kept (a JSON array), as [id, message] pairs; none when malformed. */
export function restoreAnswers(text) {
  try {
    const answers = JSON.parse(text ?? "[]");
    return Array.isArray(answers) ? answers.filter((a) => typeof a?.id === "string").map((a) => [a.id, a]) : [];
  } catch {
    return [];
  }
}

export const outboxMethods = {
  /** Sends (or queues, while offline) the one answer of a modal; kept until its dismiss. */
  answer(message) {
    if (message.type === "failure") this.uploads.get(message.id)?.stop();
    this.unconfirmed.set(message.id, message);
    this.lastAnswered = message.id;
    this.persistAnswers();
    const sent = this.isOpen && this.send(message);
    if (sent) { this.awaitingReply?.add(message.id); this.expectReply(); this.quicken(); }
    this.emit("answer", { id: message.id, sent });
  },

  forget(id) {
    if (this.unconfirmed.delete(id)) this.persistAnswers();
  },

  persistAnswers() { this.persist(ANSWERS_KEY, JSON.stringify([...this.unconfirmed.values()])); },

  /** Something came from the host: the connection is alive. Answers re-sent after a resume
   *  wait for their own reply (see `welcome`). */
  heard(message = null) {
    if (message && this.awaitingReply && message.type !== "error"
        && !(message.type === "dismiss" && this.awaitingReply.has(message.id))) return;
    this.cancel("reply");
    this.replyArmed = false;
    this.awaitingReply = null;
  },

  /** After an answer (or a chunk) is sent the host answers at once (`dismiss`, `error`,
   *  `uploadAck`): silence means the network died without closing anything, and the page
   *  would say "Connected" beside a spinner for minutes. */
  expectReply() {
    if (this.replyArmed || !(this.answerTimeoutMs > 0)) return;
    this.replyArmed = true;
    this.timer("reply", this.answerTimeoutMs);
  },

  replyTimedOut() {
    this.replyArmed = false;
    this.abandon("no reply from the host");
  },

  hostError(message) {
    const detail = { code: message.code, message: message.message, ref: message.ref };
    this.emit("error", detail);
    if (message.ref === "hello" && this.state !== "open" && this.link) return this.helloRefused(message);
    if (message.code === "rate_limited" && message.ref === "upload") {
      // A host that names the refused chunk (`id`, `file`, `offset`, docs/protocol.md §7): its
      // upload counts it out, every upload sends nothing until its chunks in flight have their
      // replies (the window is the connection's), then goes on from the last error's `held`.
      if (Number.isInteger(message.offset) && Number.isInteger(message.file) && typeof message.id === "string") {
        const reply = { file: message.file, offset: message.offset, held: message.held };
        for (const upload of this.uploads.values()) upload.paced(upload.id === message.id ? reply : null);
        return undefined;
      }
      // An older host names no chunk: each upload goes on from its acknowledgements (or from
      // the held bytes the error names), after a pause.
      const held = Number.isInteger(message.file) ? { file: message.file, held: message.held } : null;
      for (const upload of this.uploads.values()) upload.throttled(upload.id === message.id ? held : null);
      return undefined;
    }
    if (message.code === "upload_invalid" && message.ref === "upload" && typeof message.id === "string") {
      // A chunk refused behind a pacing refusal was sent before the page could know (§7):
      // one more reply counted out, not a stop.
      const upload = this.uploads.get(message.id);
      if (upload?.draining && upload.awaits(message.file, message.offset)) {
        return upload.paced({ file: message.file, offset: message.offset, held: message.held });
      }
    }
    if (message.code === "upload_invalid") {
      // A newer host names the modal (`id`), the file and the bytes it holds of it (`file`,
      // `held`); an older one says it only in words, which `refused` then reads.
      const upload = (typeof message.id === "string" && this.uploads.get(message.id))
        || [...this.uploads.values()].find((candidate) => candidate.active || candidate.state === "done");
      if (upload) {
        if (message.ref === "result") this.forget(upload.id);
        const held = Number.isInteger(message.file) ? { file: message.file, held: message.held } : null;
        return upload.refused(message.message ?? "", message.ref, held);
      }
    }
    const answerRefused = ["bad_message", "action_disabled", "upload_invalid"].includes(message.code);
    // The refused answer is the one the error names (`id`, newer hosts), else the last one sent.
    const refusedID = typeof message.id === "string" ? message.id : this.lastAnswered;
    if (answerRefused && (message.ref === "result" || message.ref === "failure") && refusedID
        && this.unconfirmed.has(refusedID)) {
      this.forget(refusedID);
      this.emit("rejected", { id: refusedID, code: message.code, message: message.message });
    }
    return undefined;
  },

  /** The host answered the hello with an `error` (a field it refuses, as a group over 256
   *  bytes; a protocol it does not speak): the same hello would be refused the same way, so
   *  the page stops trying and says why; `retryNow()` tries once more. An `unauthorized` one
   *  (a group the token does not grant) is followed by the host's close 1008 `unauthorized`. */
  helloRefused(message) {
    this.helloError = { code: message.code, message: message.message || message.code };
    if (message.code === "unauthorized") return;
    this.cancel("welcome");
    this.cancel("retry");
    this.act({ do: "closeLink", attempt: this.link.attempt, code: 1000, detach: true });
    this.link = null;
    this.disconnected();
    this.setState("refused");
  },
};

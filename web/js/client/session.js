// Host messages in (de-duplicated by seq) and the session: the welcome (fresh, resumed, or lost while away), the resume's re-sent state
// (modals that ended while away), and the modals shown. Methods of ClientMachine.
import { heartbeatOffer } from "./heartbeat.js";
import { SESSION_KEY } from "./keys.js";

export const sessionMethods = {
  receive(text) {
    // Messages are handled in order: whatever follows typed values (an `update`, a `pong`)
    // comes after the host took them. Their check is known once the message is applied;
    // not by what a resume sends for its hello (`welcome` to `resumed`), which the host sent
    // before it read the values re-sent after the welcome.
    const hello = this.helloBurst || this.state !== "open";
    this.apply(text);
    this.beat();
    if (this.concluding.size > 0) this.probe();       // its pong gives the verdict
    if (hello || this.helloBurst) {
      if (this.inputUnchecked.size > 0) this.probe();     // the pong after them checks them
      return;
    }
    const checked = [...this.inputUnchecked];
    this.inputUnchecked.clear();
    for (const id of checked) this.emit("checked", { id });
  },

  apply(text) {
    let message;
    try { message = JSON.parse(text); } catch { this.heard(); return; }
    if (!message || typeof message !== "object") { this.heard(); return; }
    this.heard(message);
    if (message.type === "welcome") return this.welcome(message);
    if (typeof message.seq === "number") {
      if (message.seq <= this.lastSeq) return;    // already processed (resume re-sends)
      this.lastSeq = message.seq;
    }
    // A `dismiss` that ends the resync ends its own modal with the host's reason, not "ended".
    if (this.resync && message.type !== "controls" && message.type !== "present") {
      this.endResync(message.type === "dismiss" ? message.id : null);
    }
    switch (message.type) {
      case "present": return this.present(message);
      case "dismiss": return this.dismissed(message.id, message.reason);
      case "update": return this.updated(message);
      case "controls":
        if (this.resync) this.resync.controls = true;
        return this.emit("controls", { items: message.items });
      case "status": return this.emit("status", { level: message.level, text: message.text });
      case "uploadAck": return this.uploads.get(message.id)?.acknowledged(message.file, message.received);
      case "error": return this.hostError(message);
      // The end of a resume's re-sent messages (newer hosts; the resync already ended above,
      // as on any message past the re-sent `controls` and `present`s).
      case "resumed":
        this.helloBurst = false;
        return undefined;
      case "pong": return this.concludeEnded();
      default: return undefined;
    }
  },

  welcome(message) {
    if (this.state === "open") return;               // a second welcome on the same connection
    this.cancel("welcome");
    this.failures = 0;
    this.heartbeat = heartbeatOffer(message.heartbeat, this.heartbeatSecondMs);
    this.binaryUploads = message.binaryUploads === true;
    const fresh = !message.resumed || message.session !== this.session;
    if (fresh && this.session) {
      // The session we had is gone. Inside its retention that means the host lost it
      // (restarted); past it, it expired while we were away.
      const away = this.disconnectedAt === null ? Infinity : this.now() - this.disconnectedAt;
      const reason = away < this.retentionSeconds * 1000 ? "restarted" : "expired";
      this.emit("sessionLost", { reason, modals: this.shown.size, session: this.session });
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
    this.persist(SESSION_KEY, message.session);
    this.setState("open");
    this.emit("welcome", { session: message.session, resumed: !fresh });
    if (!fresh) {
      // The host now re-sends controls and every pending present; a shown modal that is not
      // among them ended while we were away (its dismiss went nowhere).
      this.resync = { seen: new Set(), controls: false };
      this.timer("resync", this.resyncMs);
      this.helloBurst = true;                        // until `resumed` (or the resync's wait)
      for (const [id, textFields] of this.lastInput) {
        if (!this.shown.has(id) || this.unconfirmed.has(id)) continue;
        // The host forgot the typed password: its rules are not known until it has read these.
        if (this.send({ type: "input", id, textFields })) {
          this.inputSentAt.set(id, this.now());
          this.inputUnchecked.add(id);
          this.emit("checking", { id });
        }
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
  },

  endResync(dismissed = null, waited = false) {
    // A host from before `resumed`: its burst is taken to be over after the resync's wait.
    if (waited) this.helloBurst = false;
    if (!this.resync) return;
    const { seen, controls } = this.resync;
    this.resync = null;
    this.cancel("resync");
    if (this.state !== "open") return;             // cut short by another drop: judge next time
    for (const id of [...this.shown]) {
      if (seen.has(id) || id === dismissed) continue;
      // With the heartbeat, an answer sent again waits for the host's verdict: its repeated
      // dismiss, or the pong after it.
      if (this.heartbeat && this.unconfirmed.has(id)) this.concluding.add(id);
      else this.dismissed(id, "ended");
    }
    // With the resume's `controls` in, its `present`s came too (the host sends them at once):
    // an answer re-sent for a modal not among them is for one that ended. The host repeats
    // its dismiss, or says nothing once the modal is past its memory of ended ones: no
    // reply is waited for (the page would otherwise reconnect at every resume).
    if (controls && this.awaitingReply) {
      for (const id of [...this.awaitingReply]) if (!seen.has(id) && id !== dismissed) this.awaitingReply.delete(id);
      if (this.awaitingReply.size === 0) this.heard();
    }
  },

  present(message) {
    const { id, modal } = message;
    if (typeof id !== "string" || !modal || typeof modal !== "object") return;
    this.resync?.seen.add(id);
    this.modals.set(id, modal);
    // A picker's pacing and what the host holds travel beside the modal (docs/protocol.md).
    if (message.uploadWindow !== undefined || message.received !== undefined) {
      this.pickers.set(id, { window: message.uploadWindow, received: Array.isArray(message.received) ? message.received : [] });
    }
    if (this.shown.has(id)) {
      // Re-sent after a resume: keep the dialog, take the current action states and the
      // upload offsets the host holds.
      if (Array.isArray(modal.actions)) this.emit("update", { id, actions: modal.actions.map(({ enabled }) => ({ enabled })) });
      this.uploads.get(id)?.resume(Array.isArray(message.received) ? message.received : []);
      // ...and its field texts: the host's, except what this page typed and re-sent after the
      // resume (`typed`: the host is about to take those and answer with an update).
      const typed = this.lastInput.get(id) ?? null;
      this.emit("represent", { id, modal, typed: this.unconfirmed.has(id) ? null : typed });
      return;
    }
    this.shown.add(id);
    this.emit("present", { id, modal, answered: this.unconfirmed.has(id) });
  },

  updated(message) {
    if (!Array.isArray(message.actions)) return;
    this.modals.get(message.id)?.actions?.forEach((action, index) => {
      if (message.actions[index]) action.enabled = message.actions[index].enabled;
    });
    this.emit("update", { id: message.id, actions: message.actions });
  },

  /** A pong: the host read the answers sent again before its ping; a modal among them it
   *  sent no dismiss for is past its memory of ended ones: it ended while away. */
  concludeEnded() {
    const ended = [...this.concluding];
    this.concluding.clear();
    for (const id of ended) if (this.shown.has(id)) this.dismissed(id, "ended");
  },

  dismissed(id, reason) {
    this.concluding.delete(id);
    this.shown.delete(id);
    this.modals.delete(id);
    this.pickers.delete(id);
    this.forgetInput(id);
    this.uploads.get(id)?.stop();
    this.uploads.delete(id);
    if (this.unconfirmed.delete(id)) this.persistAnswers();
    this.emit("dismiss", { id, reason });
  },
};

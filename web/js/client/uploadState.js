// What happens to an upload plan (upload.js): acknowledgements, a lost connection, a resume
// at the host's offsets, a refusal, pacing, retry, cancel. Methods of UploadPlan.

/** The pause after an older host (one that names no `offset`) refused a chunk for pacing
 *  (`rate_limited`): it does not say which chunk, so the page cannot count the replies out. */
export const THROTTLE_MS = 250;

export const uploadStateMethods = {
  /** The host acknowledged `received` contiguous bytes of `file`. */
  acknowledged(file, received) {
    if (!this.active || !Number.isInteger(file) || file < 0 || file >= this.files.length) return;
    if (!Number.isInteger(received) || received < 0) return;
    // Acknowledgements arrive in the order the chunks were sent: each is the host's truth,
    // also while failed (chunks sent before the refusal may still be accepted after it).
    this.acked[file] = Math.min(received, this.files[file].size);
    this.complete[file] = received >= this.files[file].size;
    // What the host holds is where the next chunk of this file goes: sending from before it
    // (after a pause rewound to an older acknowledgement) would be refused.
    if (this.state === "failed" || this.next[file] < this.acked[file]) this.next[file] = this.acked[file];
    this.inFlight = this.inFlight.filter((chunk) => chunk.file > file || (chunk.file === file && chunk.end > received));
    this.report();
    if (this.draining) this.goOnIfReplied();
    else this.pump();
  },

  /** The connection dropped: nothing is sent, the bar stands still. */
  connectionLost() {
    if (this.state !== "sending") return;
    this.state = "paused";
    this.generation += 1;
    this.inFlight = [];
    this.endDrain();
    this.report();
  },

  /** The session resumed and the host re-sent the picker with what it holds. */
  resume(received) {
    if (this.state !== "paused" && this.state !== "sending") return;
    this.applyReceived(received);
    this.state = "sending";
    this.report();
    this.pump();
  },

  /** The host refused a chunk or the result (`upload_invalid`): stop and let the person choose.
   *  `detail`: the error's `file` and `held` fields (newer hosts), else null. */
  refused(message, ref, detail = null) {
    if (!this.active && this.state !== "done") return;
    // Chunks sent after the refused one are refused too, as consequences: the person is told
    // the first cause, while what the host holds is still taken from each.
    if (this.state !== "failed" || ref !== "upload" || this.errorRef !== "upload") {
      this.error = message;
      this.errorRef = ref ?? null;
    }
    this.state = "failed";
    this.generation += 1;
    this.inFlight = [];
    this.endDrain();
    // A refusal that names what the host holds of a file ("the host holds 65536 bytes") goes
    // on from there; one that names a file drops that file; anything else starts every
    // file again (offset 0 always restarts a file, so that is never wrong, only slower).
    // A newer host says both as fields; an older one only in words.
    let index = -1;
    let bytes = 0;
    if (detail && Number.isInteger(detail.file)) {
      index = detail.file;
      bytes = Number.isInteger(detail.held) ? detail.held : 0;
    } else {
      const file = /file (\d+)/.exec(message);
      const held = /holds (?:all )?(\d+) bytes/.exec(message);
      index = file ? Number(file[1]) : -1;
      bytes = held ? Number(held[1]) : 0;
    }
    if (ref === "upload" && index >= 0 && index < this.files.length) {
      const size = this.files[index].size;
      this.acked[index] = bytes >= 0 && bytes <= size ? bytes : 0;
      this.next[index] = this.acked[index];
      this.complete[index] = size > 0 && this.acked[index] === size;
      if (this.sentEmpty) delete this.sentEmpty[index];
      for (let later = index + 1; later < this.files.length; later++) this.next[later] = this.acked[later];
    } else {
      this.applyReceived([]);
    }
    this.report();
  },

  /** Whether `file`'s chunk at `offset` was sent and has had no reply yet. */
  awaits(file, offset) {
    return this.inFlight.some((chunk) => chunk.sent && chunk.file === file && chunk.offset === offset);
  },

  /** A pacing refusal (`rate_limited`) from a host that names the refused chunk, or a chunk
   *  refused behind one while draining (docs/protocol.md §7, "After a refusal"): nothing more
   *  is sent, the chunks asked of the reader and not sent are dropped, and the upload goes on
   *  once every chunk sent has had its reply, from the `held` of the last error for each file.
   *  `reply`: the refused chunk's `file`, `offset` and `held` when it is this upload's (it is
   *  counted out: a refused chunk holds no slot), null when another upload's chunk was refused
   *  (this one only waits for its own replies). */
  paced(reply = null) {
    if (this.state !== "sending") return;
    this.generation += 1;                        // a read still under way is stale
    this.inFlight = this.inFlight.filter((chunk) => chunk.sent);
    if (reply && Number.isInteger(reply.file) && reply.file >= 0 && reply.file < this.files.length) {
      const index = this.inFlight.findIndex((chunk) => chunk.file === reply.file && chunk.offset === reply.offset);
      if (index >= 0) this.inFlight.splice(index, 1);
      const held = reply.held;
      if (Number.isInteger(held) && held >= 0 && held <= this.files[reply.file].size) this.drainHeld.set(reply.file, held);
    }
    this.draining = true;
    this.goOnIfReplied();
  },

  /** Ends a drain once no chunk is in flight: each file from the `held` of its last error (an
   *  acknowledgement after that error is of an earlier chunk and does not move it), else
   *  from what was acknowledged.
   *
   *  Never stuck: while chunks are still in flight the reply watchdog (`expectReply`,
   *  `answerTimeoutMs`, 10 s by default) is armed again after every reply counted out, so a
   *  host that stops answering them gives the connection up, and the resume goes on from the
   *  host's `received`. With that watchdog turned off (`answerTimeoutMs` 0) only the
   *  heartbeat's pong timeout is left: it catches a silent host, not one that answers pings
   *  but never the chunks. */
  goOnIfReplied() {
    if (!this.draining) return;
    if (this.inFlight.length > 0) { this.machine.expectReply(); return; }
    const held = this.drainHeld;
    this.endDrain();
    this.generation += 1;
    this.files.forEach((file, index) => {
      if (held.has(index)) {
        this.acked[index] = held.get(index);
        this.complete[index] = file.size > 0 && this.acked[index] === file.size;
      }
      this.next[index] = this.acked[index];
      if (!this.complete[index] && this.sentEmpty) delete this.sentEmpty[index];
    });
    this.report();
    this.pump();
  },

  /** Forgets a drain (the offsets are set anew: a resume, a refusal, a lost connection). */
  endDrain() {
    this.draining = false;
    this.drainHeld = new Map();
  },

  /** An older host refused a chunk for pacing (`rate_limited`) without naming it (no
   *  `offset`): nothing of it was stored; send again from what was acknowledged, after a
   *  pause (`THROTTLE_MS`). */
  throttled(detail = null) {
    if (this.state !== "sending") return;
    this.generation += 1;
    this.inFlight = [];
    this.endDrain();
    this.next = [...this.acked];
    // A newer host says what it holds of the file the refused chunk belongs to.
    const file = detail?.file;
    if (Number.isInteger(file) && file >= 0 && file < this.files.length && Number.isInteger(detail.held)
        && detail.held >= this.acked[file] && detail.held <= this.files[file].size) {
      this.acked[file] = detail.held;
      this.next[file] = detail.held;
      this.complete[file] = this.files[file].size > 0 && detail.held === this.files[file].size;
    }
    this.state = "paused";
    this.machine.timer(`throttle:${this.id}`, THROTTLE_MS);
  },

  throttleOver() {
    if (this.state === "paused" && this.isOpen()) { this.state = "sending"; this.pump(); }
  },

  retry() {
    if (this.state !== "failed") return;
    this.error = null;
    this.generation += 1;
    this.inFlight = [];
    this.next = [...this.acked];
    this.state = this.isOpen() ? "sending" : "paused";
    this.report();
    this.pump();
  },

  /** Cancel at any moment: nothing more is sent, the host hears `failure` `cancelled`. */
  cancel() {
    if (!this.active && this.state !== "finishing") return;
    this.stop();
    this.state = "cancelled";
    this.report();
    this.machine.uploadAnswer(this, { type: "failure", id: this.id, code: "cancelled" });
  },

  /** Stops sending (the modal ended). */
  stop() {
    this.generation += 1;
    if (this.active || this.state === "finishing") this.state = "stopped";
  },
};

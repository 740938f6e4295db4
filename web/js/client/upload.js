// One picker's upload as a plan: files sent in 32 KiB chunks, at most `window` unacknowledged,
// progress counted from the host's uploadAck, continued at the host's offsets after a
// reconnect, and the result sent once every byte is acknowledged. No file is read here: the
// plan asks (`read` actions) and the bytes come back as `chunkRead` events; the hashes the
// same way (`hash`, then `hashed`). Also the ClientMachine methods and events of uploads.
import { CHUNK_BYTES, DEFAULT_UPLOAD_WINDOW, toBase64 } from "./bytes.js";
import { uploadStateMethods } from "./uploadState.js";

const mimeOf = (file) => file.type || "application/octet-stream";

export class UploadPlan {
  /**
   * @param {object} options
   * @param {string} options.id  the picker's modal id
   * @param {number} options.serial  this upload's number (a new pick of the same picker is another)
   * @param {{name: string, type: string, size: number}[]} options.files  what was picked
   * @param {number} [options.window]  the present's `uploadWindow`
   * @param {{file: number, bytes: number}[]} [options.received]  what the host already holds
   * @param {ClientMachine} options.machine
   */
  constructor({ id, serial, files, window, received = [], machine }) {
    Object.assign(this, { id, serial, files, machine });
    this.window = Number.isInteger(window) && window > 0 ? window : DEFAULT_UPLOAD_WINDOW;
    this.total = files.reduce((sum, file) => sum + file.size, 0);
    this.acked = files.map(() => 0);
    this.next = files.map(() => 0);
    this.complete = files.map(() => false);
    this.inFlight = [];                 // {file, offset, end, sent} of chunks asked for or sent, not yet answered
    this.draining = false;              // after a pacing refusal: nothing is sent until inFlight is empty
    this.drainHeld = new Map();         // while draining, per file, the `held` of its last error
    this.state = "sending";
    this.error = null;
    this.generation = 0;                // bumped whenever offsets are reset (a chunk read before is stale)
    this.hashes = null;
    this.applyReceived(received);
  }

  /** Sending, paused or failed: the upload still owns the modal. */
  get active() { return ["sending", "paused", "failed"].includes(this.state); }

  get ackedBytes() { return this.acked.reduce((sum, bytes) => sum + bytes, 0); }

  isOpen() { return this.machine.isOpen; }

  start() {
    if (!this.isOpen()) this.state = "paused";
    this.report();
    this.pump();
  }

  /** Offsets the host holds (a re-sent `present`'s `received`, or none: from 0). */
  applyReceived(received) {
    this.generation += 1;
    this.inFlight = [];
    this.endDrain();
    this.files.forEach((file, index) => {
      const held = received.find((entry) => entry?.file === index)?.bytes ?? 0;
      const bytes = Number.isInteger(held) && held >= 0 && held <= file.size ? held : 0;
      this.acked[index] = bytes;
      this.next[index] = bytes;
      this.complete[index] = file.size > 0 && bytes === file.size;
    });
  }

  report() {
    this.machine.emit("uploadProgress", {
      id: this.id, serial: this.serial,
      progress: { state: this.state, acked: this.ackedBytes, total: this.total, error: this.error,
                  ref: this.state === "failed" ? this.errorRef ?? null : null },
    });
  }

  nextFile() {
    return this.files.findIndex((file, index) => !this.complete[index]
      && (this.next[index] < file.size || (file.size === 0 && this.next[index] === 0 && !this.sentEmpty?.[index])));
  }

  /** Fills the window: asks for the next chunks' bytes, or finishes. */
  pump() {
    if (this.draining) return;
    while (this.state === "sending" && this.inFlight.length < this.window && this.isOpen()) {
      const index = this.nextFile();
      if (index < 0) break;
      const file = this.files[index];
      const offset = this.next[index];
      const end = Math.min(file.size, offset + CHUNK_BYTES);
      this.next[index] = end;
      if (file.size === 0) (this.sentEmpty ??= {})[index] = true;
      this.inFlight.push({ file: index, offset, end, sent: false });
      this.machine.act({ do: "read", id: this.id, serial: this.serial, file: index, offset, end, generation: this.generation });
    }
    this.finishIfComplete();
  }

  /** The bytes of a chunk `pump` asked for: sent, unless the offsets changed meanwhile. */
  chunkRead({ file: index, offset, end, generation, bytes }) {
    if (generation !== this.generation || this.state !== "sending" || !this.isOpen()) return;
    const file = this.files[index];
    const chunk = this.inFlight.find((pending) => pending.file === index && pending.offset === offset && !pending.sent);
    if (chunk) chunk.sent = true;
    const header = {
      type: "upload", id: this.id, file: index, name: file.name, mimeType: mimeOf(file), size: file.size,
      offset, last: end >= file.size,
    };
    // Raw bytes in a binary frame when the host offered it (§7, "Binary chunks"), else base64.
    if (this.machine.binaryUploads) this.machine.sendChunk(header, bytes);
    else this.machine.sendChunk({ ...header, data: toBase64(bytes) });
  }

  finishIfComplete() {
    if (this.state !== "sending" || !this.complete.every(Boolean)) return;
    this.state = "finishing";
    this.report();
    this.machine.act({ do: "hash", id: this.id, serial: this.serial });
  }

  /** The files' SHA-256 (hex), or why they could not be read. */
  hashed({ hashes, error }) {
    if (this.state !== "finishing") return;     // cancelled meanwhile
    if (error !== undefined) {
      this.state = "failed";
      this.error = `could not read the files: ${error}`;
      this.report();
      return;
    }
    this.state = "done";
    this.report();
    this.machine.uploadAnswer(this, {
      type: "result", id: this.id,
      value: { items: this.files.map((file, index) => ({ name: file.name, mimeType: mimeOf(file), size: file.size, sha256: hashes[index] })) },
    });
  }
}

Object.assign(UploadPlan.prototype, uploadStateMethods);

export const uploadMethods = {
  /** Picked files start an upload (`received`: what the host holds of them, checked by the
   *  page to be of these files). */
  startUpload({ id, serial, files, received }) {
    this.uploads.get(id)?.stop();
    const picker = this.pickers.get(id) ?? {};
    const plan = new UploadPlan({ id, serial, files, window: picker.window, received: received ?? [], machine: this });
    this.uploads.set(id, plan);
    plan.start();
  },

  /** The host acknowledges every chunk at once (or after its pacing, milliseconds): a chunk
   *  met by silence is a network that died without closing, as for an answer. */
  sendChunk(message, bytes) {
    if (this.send(message, bytes)) this.expectReply();
  },

  /** The upload's own answer (the result, or the `failure` of a cancel): the page may route
   *  it through its dialog (`uploadAnswer`), which answers with an `answer` event. */
  uploadAnswer(plan, message) {
    this.emit("uploadAnswer", { id: plan.id, serial: plan.serial, message });
  },

  planFor({ id, serial }) {
    const plan = this.uploads.get(id);
    return plan && (serial === undefined || plan.serial === serial) ? plan : null;
  },

  events: {
    upload(event) { this.startUpload(event); },
    chunkRead(event) { this.planFor(event)?.chunkRead(event); },
    hashed(event) { this.planFor(event)?.hashed(event); },
    uploadRetry(event) { this.planFor(event)?.retry(); },
    uploadCancel(event) { this.planFor(event)?.cancel(); },
    uploadStop(event) { this.planFor(event)?.stop(); },
  },
};

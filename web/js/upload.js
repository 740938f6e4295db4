// One picker's upload: files sent in 32 KiB chunks, at most `window` unacknowledged,
// progress counted from the host's uploadAck, continued at the host's offsets after a
// reconnect, and the result sent once every byte is acknowledged. No DOM.

/** The most raw bytes one `upload` message carries. */
export const CHUNK_BYTES = 32 * 1024;
/** Chunks kept unacknowledged when the picker's `present` names no `uploadWindow`. */
export const DEFAULT_UPLOAD_WINDOW = 8;

export function toBase64(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

export async function sha256Hex(bytes) {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

const mimeOf = (file) => file.type || "application/octet-stream";

export class Upload {
  /**
   * @param {object} options
   * @param {string} options.id  the picker's modal id
   * @param {Blob[]} options.files  picked files (File, or Blob with `name`)
   * @param {number} [options.window]  the present's `uploadWindow`
   * @param {{file: number, bytes: number}[]} [options.received]  what the host already holds
   * @param {(progress: object) => void} options.onProgress
   * @param {{isOpen(): boolean, send(message): boolean, result(value), cancel()}} options.transport
   */
  constructor({ id, files, window, received = [], onProgress, transport }) {
    this.id = id;
    this.files = files;
    this.window = Number.isInteger(window) && window > 0 ? window : DEFAULT_UPLOAD_WINDOW;
    this.onProgress = onProgress;
    this.transport = transport;
    this.total = files.reduce((sum, file) => sum + file.size, 0);
    this.acked = files.map(() => 0);
    this.next = files.map(() => 0);
    this.complete = files.map(() => false);
    this.inFlight = [];                 // {file, end} of chunks sent and not yet acknowledged
    this.state = "sending";
    this.error = null;
    this.generation = 0;                // bumped whenever offsets are reset (a chunk read before is stale)
    this.hashes = null;
    this.applyReceived(received);
  }

  /** Sending, paused or failed: the upload still owns the modal. */
  get active() { return ["sending", "paused", "failed"].includes(this.state); }

  get ackedBytes() { return this.acked.reduce((sum, bytes) => sum + bytes, 0); }

  start() {
    this.hashes ??= Promise.all(this.files.map(async (file) => sha256Hex(new Uint8Array(await file.arrayBuffer()))));
    this.hashes.catch(() => {});
    if (!this.transport.isOpen()) this.state = "paused";
    this.report();
    this.pump();
  }

  /** Offsets the host holds (a re-sent `present`'s `received`, or none: from 0). */
  applyReceived(received) {
    this.generation += 1;
    this.inFlight = [];
    this.files.forEach((file, index) => {
      const held = received.find((entry) => entry.file === index)?.bytes ?? 0;
      const bytes = Number.isInteger(held) && held >= 0 && held <= file.size ? held : 0;
      this.acked[index] = bytes;
      this.next[index] = bytes;
      this.complete[index] = file.size > 0 && bytes === file.size;
    });
  }

  /** The host acknowledged `received` contiguous bytes of `file`. */
  acknowledged(file, received) {
    if (!this.active || !Number.isInteger(file) || file < 0 || file >= this.files.length) return;
    // Acknowledgements arrive in the order the chunks were sent: each is the host's truth,
    // also while failed (chunks sent before the refusal may still be accepted after it).
    this.acked[file] = Math.min(received, this.files[file].size);
    this.complete[file] = received >= this.files[file].size;
    // What the host holds is where the next chunk of this file goes: sending from before it
    // (after a pause rewound to an older acknowledgement) would be refused.
    if (this.state === "failed" || this.next[file] < this.acked[file]) this.next[file] = this.acked[file];
    this.inFlight = this.inFlight.filter((chunk) => chunk.file > file || (chunk.file === file && chunk.end > received));
    this.report();
    this.pump();
  }

  /** The connection dropped: nothing is sent, the bar stands still. */
  connectionLost() {
    if (this.state !== "sending") return;
    this.state = "paused";
    this.generation += 1;
    this.inFlight = [];
    this.report();
  }

  /** The session resumed and the host re-sent the picker with what it holds. */
  resume(received) {
    if (this.state !== "paused" && this.state !== "sending") return;
    this.applyReceived(received);
    this.state = "sending";
    this.report();
    this.pump();
  }

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
      this.acked[index] = bytes <= size ? bytes : 0;
      this.next[index] = this.acked[index];
      this.complete[index] = size > 0 && this.acked[index] === size;
      if (this.sentEmpty) delete this.sentEmpty[index];
      for (let later = index + 1; later < this.files.length; later++) this.next[later] = this.acked[later];
    } else {
      this.applyReceived([]);
    }
    this.report();
  }

  /** The host refused a chunk for pacing (`rate_limited`): nothing of it was stored; send
   *  again from what was acknowledged, after a pause. */
  throttled(detail = null) {
    if (this.state !== "sending") return;
    this.generation += 1;
    this.inFlight = [];
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
    setTimeout(() => { if (this.state === "paused" && this.transport.isOpen()) { this.state = "sending"; this.pump(); } }, 250);
  }

  retry() {
    if (this.state !== "failed") return;
    this.error = null;
    this.generation += 1;
    this.inFlight = [];
    this.next = [...this.acked];
    this.state = this.transport.isOpen() ? "sending" : "paused";
    this.report();
    this.pump();
  }

  /** Cancel at any moment: nothing more is sent, the host hears `failure` `cancelled`. */
  cancel() {
    if (!this.active && this.state !== "finishing") return;
    this.stop();
    this.state = "cancelled";
    this.report();
    this.transport.cancel();
  }

  /** Stops sending (the modal ended). */
  stop() {
    this.generation += 1;
    if (this.active || this.state === "finishing") this.state = "stopped";
  }

  report() {
    this.onProgress({ state: this.state, acked: this.ackedBytes, total: this.total, error: this.error,
                      ref: this.state === "failed" ? this.errorRef ?? null : null });
  }

  nextFile() {
    return this.files.findIndex((file, index) => !this.complete[index]
      && (this.next[index] < file.size || (file.size === 0 && this.next[index] === 0 && !this.sentEmpty?.[index])));
  }

  async pump() {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.state === "sending" && this.inFlight.length < this.window && this.transport.isOpen()) {
        const index = this.nextFile();
        if (index < 0) break;
        const file = this.files[index];
        const offset = this.next[index];
        const end = Math.min(file.size, offset + CHUNK_BYTES);
        const generation = this.generation;
        const bytes = new Uint8Array(await file.slice(offset, end).arrayBuffer());
        if (generation !== this.generation || this.state !== "sending" || !this.transport.isOpen()) continue;
        const sent = this.transport.send({
          type: "upload", id: this.id, file: index, name: file.name, mimeType: mimeOf(file), size: file.size,
          offset, data: toBase64(bytes), last: end >= file.size,
        });
        if (!sent) break;
        this.next[index] = end;
        if (file.size === 0) (this.sentEmpty ??= {})[index] = true;
        this.inFlight.push({ file: index, end });
      }
    } finally {
      this.pumping = false;
    }
    await this.finishIfComplete();
  }

  async finishIfComplete() {
    if (this.state !== "sending" || !this.complete.every(Boolean)) return;
    this.state = "finishing";
    this.report();
    let hashes;
    try {
      hashes = await this.hashes;
    } catch (error) {
      this.state = "failed";
      this.error = `could not read the files: ${error?.message ?? error}`;
      return this.report();
    }
    if (this.state !== "finishing") return;     // cancelled meanwhile
    this.state = "done";
    this.report();
    this.transport.result({
      items: this.files.map((file, index) => ({ name: file.name, mimeType: mimeOf(file), size: file.size, sha256: hashes[index] })),
    });
  }
}

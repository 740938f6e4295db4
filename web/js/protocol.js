// The remote-modal.v1 protocol client: connection, hello/resume, seq handling,
// re-sending unconfirmed answers, reconnect with backoff. No DOM: reusable by any page.

export const PROTOCOL = "remote-modal.v1";

/** Exponential backoff with full jitter, in milliseconds. */
export function backoffDelay(attempt, baseMs = 500, maxMs = 15000, random = Math.random) {
  const ceiling = Math.min(maxMs, baseMs * 2 ** attempt);
  return Math.round(random() * ceiling);
}

/** Splits bytes into protocol upload chunks of at most 32 KiB (base64 encoded). */
export const CHUNK_BYTES = 32 * 1024;

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

/**
 * Events (CustomEvent detail): state {state}, welcome {session, resumed}, controls {items},
 * present {id, modal}, dismiss {id, reason}, update {id, actions}, status {level, text},
 * error {code, message, ref}.
 */
export class ModalClient extends EventTarget {
  constructor({ url, name = "browser", kind = "browser", group = null, capabilities = [], token = null,
                storage = globalThis.sessionStorage ?? null, WebSocketImpl = globalThis.WebSocket } = {}) {
    super();
    this.url = url;
    this.client = { kind, name };
    if (group) this.client.group = group;
    this.capabilities = capabilities;
    this.token = token;
    this.storage = storage;
    this.WebSocketImpl = WebSocketImpl;
    this.session = storage?.getItem("remote-modal.session") ?? null;
    // A routing key, not a secret: a load balancer hashes it so reconnects reach the same host.
    this.affinity = storage?.getItem("remote-modal.affinity") ?? Math.random().toString(36).slice(2, 14);
    storage?.setItem("remote-modal.affinity", this.affinity);
    this.lastSeq = 0;
    this.shown = new Set();          // modal ids presented and not yet dismissed
    this.unconfirmed = new Map();    // id -> answer message kept until its dismiss
    this.inputTimers = new Map();
    this.attempt = 0;
    this.state = "idle";
    this.stopped = false;
  }

  connect() {
    this.stopped = false;
    this.setState(this.attempt === 0 ? "connecting" : "reconnecting");
    const separator = this.url.includes("?") ? "&" : "?";
    const ws = new this.WebSocketImpl(`${this.url}${separator}affinity=${encodeURIComponent(this.affinity)}`, PROTOCOL);
    this.ws = ws;
    ws.onopen = () => {
      const hello = { type: "hello", protocol: 1, client: this.client, capabilities: this.capabilities };
      if (this.token) hello.token = this.token;
      if (this.session) hello.resume = { session: this.session };
      ws.send(JSON.stringify(hello));
    };
    ws.onmessage = (event) => this.receive(event.data);
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped) return this.setState("closed");
      if (event.code === 1008 && event.reason === "unauthorized") return this.setState("unauthorized");
      const delay = backoffDelay(this.attempt++);
      this.setState("reconnecting");
      this.retryTimer = setTimeout(() => this.connect(), delay);
    };
  }

  close() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.ws?.close(1000);
  }

  /** Drops the connection without a close handshake's courtesy (tests, "network lost"). */
  dropConnection() { this.ws?.close(4000, "dropped"); }

  setState(state) {
    this.state = state;
    this.emit("state", { state });
  }

  emit(type, detail) { this.dispatchEvent(new CustomEvent(type, { detail })); }

  send(message) {
    if (this.ws?.readyState === 1) this.ws.send(JSON.stringify(message));
  }

  receive(text) {
    let message;
    try { message = JSON.parse(text); } catch { return; }
    if (message.type === "welcome") return this.welcome(message);
    if (typeof message.seq === "number") {
      if (message.seq <= this.lastSeq) return;    // already processed (resume re-sends)
      this.lastSeq = message.seq;
    }
    switch (message.type) {
      case "present":
        if (this.shown.has(message.id)) return;   // already on screen: never a second dialog
        this.shown.add(message.id);
        return this.emit("present", { id: message.id, modal: message.modal });
      case "dismiss":
        this.shown.delete(message.id);
        this.unconfirmed.delete(message.id);
        return this.emit("dismiss", { id: message.id, reason: message.reason });
      case "update": return this.emit("update", { id: message.id, actions: message.actions });
      case "controls": return this.emit("controls", { items: message.items });
      case "status": return this.emit("status", { level: message.level, text: message.text });
      case "error": return this.emit("error", { code: message.code, message: message.message, ref: message.ref });
      default: return undefined;
    }
  }

  welcome(message) {
    this.attempt = 0;
    if (!message.resumed || message.session !== this.session) {
      // A new session: whatever was on screen belongs to a session that is gone.
      for (const id of this.shown) this.emit("dismiss", { id, reason: "expired" });
      this.shown.clear();
      this.unconfirmed.clear();
      this.lastSeq = 0;
    }
    this.session = message.session;
    this.storage?.setItem("remote-modal.session", message.session);
    this.setState("open");
    this.emit("welcome", { session: message.session, resumed: message.resumed });
    for (const answer of this.unconfirmed.values()) this.send(answer);
  }

  answer(message) {
    this.unconfirmed.set(message.id, message);
    this.send(message);
  }

  result(id, value) { this.answer({ type: "result", id, value }); }

  failure(id, code, text) {
    const message = { type: "failure", id, code };
    if (text) message.message = text;
    this.answer(message);
  }

  tap(control) { this.send({ type: "event", control }); }

  /** Sends text field values, at most 10 messages a second per modal (trailing edge). */
  input(id, textFields) {
    const pending = this.inputTimers.get(id);
    if (pending) { pending.values = textFields; return; }
    const entry = { values: textFields };
    this.inputTimers.set(id, entry);
    setTimeout(() => {
      this.inputTimers.delete(id);
      if (this.shown.has(id)) this.send({ type: "input", id, textFields: entry.values });
    }, 100);
  }

  /** Uploads files in order in 32 KiB chunks, then sends the result. */
  async upload(id, files, onProgress = () => {}) {
    const total = files.reduce((sum, file) => sum + file.size, 0) || 1;
    let sent = 0;
    const items = [];
    for (let index = 0; index < files.length; index++) {
      const file = files[index];
      const bytes = new Uint8Array(await file.arrayBuffer());
      for (let offset = 0; offset < bytes.length || offset === 0; offset += CHUNK_BYTES) {
        const chunk = bytes.subarray(offset, offset + CHUNK_BYTES);
        const last = offset + CHUNK_BYTES >= bytes.length;
        this.send({ type: "upload", id, file: index, name: file.name, mimeType: file.type || "application/octet-stream",
                    size: bytes.length, offset, data: toBase64(chunk), last });
        sent += chunk.length;
        onProgress(sent / total);
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (last) break;
      }
      items.push({ name: file.name, mimeType: file.type || "application/octet-stream", size: bytes.length,
                   sha256: await sha256Hex(bytes) });
    }
    this.result(id, { items });
  }
}

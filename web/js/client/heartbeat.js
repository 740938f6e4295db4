// The heartbeat (docs/protocol.md, section 3): after a silence of the offered interval a
// `ping`; any message within the timeout keeps the connection, none gives it up. The
// interval is the active one while something waits for the host. Methods of ClientMachine.

/** A welcome's heartbeat offer, each value clamped to 1..300 s (a hostile or mistaken 0 must
 *  not make the page ping in a loop); null when absent or malformed (a host before it: the
 *  page must not ping it). */
export function heartbeatOffer(offer, secondMs) {
  if (!(secondMs > 0) || !offer || typeof offer !== "object") return null;
  const keys = ["idleSeconds", "activeSeconds", "timeoutSeconds"];
  if (!keys.every((key) => Number.isInteger(offer[key]) && offer[key] >= 1 && offer[key] <= 3600)) return null;
  return Object.fromEntries(keys.map((key) => [key, Math.min(300, offer[key])]));
}

export const heartbeatMethods = {
  /** Whether something waits for the host: a dialog shown, an answer kept, a reply outstanding. */
  waitsForHost() { return this.shown.size > 0 || this.unconfirmed.size > 0 || this.replyArmed; },

  /** The host was heard (or has just welcomed us): the silence starts again, with the
   *  active interval while something waits for the host. */
  beat() {
    if (!this.heartbeat || !this.isOpen) return;
    this.cancel("pong");
    this.pingOutstanding = false;
    this.beatActive = this.waitsForHost();
    this.armBeat(this.beatActive ? this.heartbeat.activeSeconds : this.heartbeat.idleSeconds);
  },

  /** Something now waits for the host (a tap, an answer): an idle heartbeat becomes the
   *  active one from now. An active one runs on: repeated taps do not put the ping off. */
  quicken() {
    if (!this.heartbeat || !this.isOpen || this.pingOutstanding || this.beatActive) return;
    this.beatActive = true;
    this.armBeat(this.heartbeat.activeSeconds);
  },

  armBeat(seconds) { this.timer("beat", seconds * this.heartbeatSecondMs); },

  /** The silence ran out: one `ping`, then `timeoutSeconds` for any message. */
  ping() {
    this.send({ type: "ping", id: this.pingId = (this.pingId % 2147483647) + 1 });
    this.pingOutstanding = true;
    this.timer("pong", this.heartbeat.timeoutSeconds * this.heartbeatSecondMs);
  },

  stopHeartbeat() {
    this.cancel("beat");
    this.cancel("pong");
    this.pingOutstanding = false;
    this.heartbeat = null;
  },
};

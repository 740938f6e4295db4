// Typed text fields: at most 10 `input` messages a second per modal (trailing edge), the
// last values kept and sent again after a resume, and whether the host has been heard since
// (checking / checked). Taps. Methods of ClientMachine.

/** The throttle: the wait before a modal's typed values go. */
export const INPUT_MS = 100;

export const inputMethods = {
  tap(control) {
    const sent = this.isOpen && this.send({ type: "event", control });
    if (sent) this.quicken();
    return sent;
  },

  /** Keeps the values, and sends them when the throttle's wait is over. */
  input(id, textFields) {
    this.lastInput.set(id, textFields);
    if (this.inputTimers.has(id)) { this.inputTimers.set(id, textFields); return; }
    this.inputTimers.set(id, textFields);
    this.timer(`input:${id}`, INPUT_MS);
  },

  inputDue(id) {
    if (!this.inputTimers.has(id)) return;
    const values = this.inputTimers.get(id);
    this.inputTimers.delete(id);
    this.sendInput(id, values);
  },

  /** Sends `id`'s text field values still waiting for the throttle now (Enter right after
   *  typing or pasting). */
  flushInput(id) {
    if (!this.inputTimers.has(id)) return;
    this.cancel(`input:${id}`);
    this.inputDue(id);
  },

  /** Whether an `update` from the host may still be on its way: values were sent within the
   *  last second, or the host has not been heard since. */
  inputMayChange(id) {
    return this.now() - (this.inputSentAt.get(id) ?? -Infinity) < 1000 || this.inputUnchecked.has(id);
  },

  /** Whether the host has been heard since `id`'s typed values went (false: still checking). */
  inputChecked(id) { return !this.inputUnchecked.has(id); },

  sendInput(id, textFields) {
    if (!this.shown.has(id) || !this.isOpen) return;
    this.send({ type: "input", id, textFields });
    this.inputSentAt.set(id, this.now());
    this.inputUnchecked.add(id);
    this.emit("checking", { id });
    this.probe();
  },

  /** Typed values went: a host that changes nothing sends nothing, so with the heartbeat a
   *  ping follows shortly (its `pong` says the values were checked; silence, that the host
   *  is not answering). Without the heartbeat a second of silence counts as checked. */
  probe() {
    if (!this.heartbeat) {
      this.timer("probe", 1000);
      return;
    }
    if (!this.isOpen || this.pingOutstanding) return;     // a ping is out: its pong will do
    this.armBeat(0.3);
  },

  probed() {
    const ids = [...this.inputUnchecked];
    this.inputUnchecked.clear();
    for (const id of ids) this.emit("checked", { id });
  },

  forgetInput(id) {
    this.lastInput.delete(id);
    this.inputSentAt.delete(id);
    this.inputUnchecked.delete(id);
  },
};

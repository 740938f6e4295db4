// Runs a shared client scenario (Tests/Fixtures/client-scenarios/README.md) against the
// page's pure machine (web/js/client/machine.js) in virtual time: no socket, no timer, no
// storage. Tests/ClientTests/SharedScenarioTests.swift runs the same files against the Swift
// machine.
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ClientMachine } from "../../web/js/client/machine.js";

export const SCENARIO_DIR = fileURLToPath(new URL("../Fixtures/client-scenarios/", import.meta.url));

/** Every scenario file, by name. */
export function scenarios() {
  return readdirSync(SCENARIO_DIR).filter((name) => name.endsWith(".json")).sort()
    .map((name) => ({ name, scenario: JSON.parse(readFileSync(SCENARIO_DIR + name, "utf8")) }));
}

/** The kinds RemoteModalClient's configuration lists by default (ClientConfiguration.allKinds). */
const KINDS = ["alert", "actionSheet", "webAuthentication", "mailComposer", "messageComposer", "photoPicker", "mediaPicker"];

/** Whether `actual` has everything `expected` says: objects by their expected keys, arrays
 *  element by element and of the same length, `null` for absent (or null). */
export function matches(expected, actual) {
  if (expected === null) return actual === null || actual === undefined;
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length && expected.every((item, i) => matches(item, actual[i]));
  }
  if (typeof expected === "object") {
    return actual !== null && typeof actual === "object" && !Array.isArray(actual)
      && Object.keys(expected).every((key) => matches(expected[key], actual[key]));
  }
  return expected === actual;
}

/** What the app heard, in the scenario's words (README: "events"). */
function normalized({ type, detail }) {
  switch (type) {
    case "present": return { event: "present", id: detail.id };
    case "represent": return { event: "represent", id: detail.id };
    case "dismiss": return { event: "dismiss", id: detail.id, reason: detail.reason };
    case "welcome": return { event: "connected", resumed: detail.resumed };
    case "rejected": return { event: "rejected", id: detail.id };
    case "state":
      if (detail.state === "reconnecting" && detail.retryIn !== undefined) return { event: "reconnecting", delay: detail.retryIn / 1000 };
      if (detail.state === "refused" || detail.state === "unauthorized") return { event: "stopped" };
      return null;
    case "uploadProgress":
      return detail.progress.state === "failed" ? { event: "uploadStopped", id: detail.id } : null;
    default: return null;
  }
}

class Runner {
  constructor(config = {}) {
    this.now = 0;
    this.order = 0;
    this.timers = new Map();         // name -> {due, order}
    this.queue = [];
    this.draining = false;
    this.picked = new Map();         // upload serial -> files (with sha256)
    this.serial = 0;
    this.reset();
    this.machine = new ClientMachine({
      client: { kind: "test", name: "t" }, capabilities: KINDS, now: () => this.now, random: () => config.jitter ?? 1,
      resyncMs: 2000, welcomeTimeoutMs: 10000, answerTimeoutMs: 10000, heartbeatSecondMs: 1000,
    });
    this.attempt = 0;
    this.handle({ type: "connect" });
  }

  reset() {
    this.sent = [];
    this.events = [];
    this.opened = 0;
    this.closed = 0;
  }

  handle(event) {
    this.queue.push(event);
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.queue.length) for (const action of this.machine.handle(this.queue.shift())) this.run(action);
    } finally {
      this.draining = false;
    }
  }

  run(action) {
    switch (action.do) {
      case "open": this.opened += 1; this.attempt = action.attempt; break;
      case "send": this.sent.push(JSON.parse(JSON.stringify(action.message))); break;
      case "closeLink": this.closed += 1; break;
      case "startTimer": this.timers.set(action.name, { due: this.now + action.ms, order: this.order++ }); break;
      case "cancelTimer": this.timers.delete(action.name); break;
      case "read":
        this.queue.push({ ...action, type: "chunkRead", bytes: new Uint8Array(action.end - action.offset) });
        break;
      case "hash":
        this.queue.push({ type: "hashed", id: action.id, serial: action.serial,
                          hashes: this.picked.get(action.serial).map((file) => file.sha256) });
        break;
      case "emit": {
        if (action.type === "uploadAnswer") this.queue.push({ type: "answer", message: action.detail.message });
        const event = normalized(action);
        if (event) this.events.push(event);
        break;
      }
      default: break;
    }
  }

  advance(seconds) {
    const target = this.now + seconds * 1000;
    for (;;) {
      let next = null;
      for (const [name, timer] of this.timers) {
        if (timer.due <= target + 1e-6 && (!next || timer.due < next[1].due || (timer.due === next[1].due && timer.order < next[1].order))) next = [name, timer];
      }
      if (!next) break;
      this.now = Math.max(this.now, next[1].due);
      this.timers.delete(next[0]);
      this.handle({ type: "timer", name: next[0] });
    }
    this.now = target;
  }

  step(step) {
    const [[verb, argument]] = Object.entries(step);
    const attempt = this.attempt;
    switch (verb) {
      case "open": return this.handle({ type: "opened", attempt });
      case "host": return this.handle({ type: "text", attempt, text: JSON.stringify(argument) });
      case "hostText": return this.handle({ type: "text", attempt, text: argument });
      case "close": return this.handle({ type: "closed", attempt, code: argument.code, reason: argument.reason ?? "" });
      // A browser sees a refused or reset connection as a close 1006 before any open.
      case "refused": return this.handle({ type: "closed", attempt, code: 1006, reason: "" });
      case "advance": return this.advance(argument);
      case "answer": {
        const { id, failure, ...value } = argument;
        const message = failure ? { type: "failure", id, code: failure } : { type: "result", id, value };
        return this.handle({ type: "answer", message });
      }
      case "type": return this.handle({ type: "input", id: argument.id, textFields: argument.textFields });
      case "tap": return this.handle({ type: "tap", control: argument });
      case "pick": {
        const serial = ++this.serial;
        this.picked.set(serial, argument.files);
        const received = (this.machine.pickers.get(argument.id)?.received ?? []).filter((entry) => argument.files[entry?.file]);
        const files = argument.files.map((file) => ({ name: file.name, type: file.mimeType, size: file.size }));
        return this.handle({ type: "upload", id: argument.id, serial, received, files });
      }
      case "retryUpload": return this.handle({ type: "uploadRetry", id: argument });
      case "retryNow": return this.handle({ type: "retryNow" });
      case "expect": return this.expect(argument);
      default: throw new Error(`unknown step ${verb}`);
    }
  }

  expect(expected) {
    const problems = [];
    if (expected.sent && !matches(expected.sent, this.sent)) {
      problems.push(`sent ${JSON.stringify(this.sent)}\n  expected ${JSON.stringify(expected.sent)}`);
    }
    if (expected.events && !matches(expected.events, this.events)) {
      problems.push(`events ${JSON.stringify(this.events)}\n  expected ${JSON.stringify(expected.events)}`);
    }
    if (expected.opened !== undefined && expected.opened !== this.opened) problems.push(`opened ${this.opened}, expected ${expected.opened}`);
    if (expected.closed !== undefined && expected.closed !== this.closed) problems.push(`closed ${this.closed}, expected ${expected.closed}`);
    this.reset();
    return problems;
  }
}

/** Runs a scenario; returns what did not hold (empty: it passed), each with its step. */
export function runScenario(scenario) {
  const runner = new Runner(scenario.config);
  const problems = [];
  scenario.steps.forEach((step, index) => {
    const found = runner.step(step);
    if (Array.isArray(found)) for (const problem of found) problems.push(`step ${index + 1}: ${problem}`);
  });
  return problems;
}

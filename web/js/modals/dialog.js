// The frame every modal kind shares: a <dialog> whose every way out goes through the host.
// Text from the host is only ever set with textContent or attributes, never parsed as HTML.
import { rendererFor } from "./registry.js";

/** Creates an element: attributes (`text` sets textContent, `on...` adds a listener), children. */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

/** How long a sent answer's spinner waits for the host's confirmation before it is said in
 *  words (a host answers in milliseconds; this is a stalled network, until the heartbeat). */
const CONFIRM_WORDS_MS = 2000;

/** Why the host cannot be heard, as the start of a sentence: "Offline" only when the device
 *  says it has no network; otherwise the host may as well be down, and the page says only
 *  what it knows. */
export function unreachedLead() {
  return navigator.onLine === false ? "Offline" : "The host cannot be reached";
}

// A command-line flag or an address's query part in words ("--group", "?group=NAME").
const CODE_WORD = /(?<![\w-])(?:--?[A-Za-z][\w-]*(?:=[^\s),;]*)?|\?[A-Za-z][\w-]*=[^\s),;]*)/g;

/** `text` as nodes, each flag or query part in it a `code-word` span that never breaks
 *  across lines ("--group" split as "--" / "group" reads as two words). The text is set as
 *  text, never parsed. */
export function withCodeWords(text) {
  const fragment = document.createDocumentFragment();
  let last = 0;
  for (const match of text.matchAll(CODE_WORD)) {
    const word = match[0].replace(/[.:]+$/, "");     // a sentence's full stop is not the flag's
    fragment.append(text.slice(last, match.index), el("span", { class: "code-word", text: word }));
    last = match.index + word.length;
  }
  fragment.append(text.slice(last));
  return fragment;
}

/** A button whose label keeps its width when it turns into a spinner. */
export function actionButton(title, { style = "default", preferred = false, enabled = true } = {}) {
  const button = el("button", { type: "button", class: `action ${style}${preferred ? " preferred" : ""}`, disabled: !enabled });
  button.append(el("span", { class: "label", text: title }), el("span", { class: "spinner", "aria-hidden": "true" }));
  return button;
}

/** Marks a button busy (spinner in place of its label, same width) or not. */
export function setBusy(button, busy) {
  button.classList.toggle("busy", busy);
  button.setAttribute("aria-busy", String(busy));
}

const reducedMotion = () => window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;

/**
 * What a renderer gets: the dialog's body to fill, helpers for the shared parts, and the only
 * ways to answer (`resolve`, `fail`, `cancel`), which all end in `answer`.
 */
export class DialogUI {
  constructor(id, modal, io, dialog, body) {
    Object.assign(this, { id, modal, io, dialog, body });
    this.answered = false;
    this.cancelHandler = null;
    this.closeHandlers = [];
    this.status = el("p", { class: "answer-status", role: "status", "aria-live": "polite" });
    this.hintLine = el("p", { class: "hint-line", "aria-live": "polite" });
    // A disabled action's rule in the host's words (`explanation`), while it is disabled.
    this.ruleLine = el("p", { id: `rule-${id}`, class: "rule-line", "aria-live": "polite" });
    this.errorLine = el("p", { class: "error-text", role: "alert", hidden: true });
  }

  /** The title; `hidden` keeps it for screen readers only. */
  heading(text, { hidden = false } = {}) {
    const node = el("h2", { id: `title-${this.id}`, class: hidden ? "visually-hidden" : null, text: text ?? "" });
    this.body.append(node);
    return node;
  }

  /** A message, announced as the dialog's description. */
  message(text, { className = "message" } = {}) {
    const node = el("p", { id: `message-${this.id}`, class: className }, withCodeWords(text ?? ""));
    this.dialog.setAttribute("aria-describedby", node.id);
    this.body.append(node);
    return node;
  }

  /** A labelled text input or textarea, appended to the body. */
  field(label, { value = "", multiline = false, attributes = {} } = {}) {
    const input = multiline ? el("textarea", { rows: 5, ...attributes }) : el("input", { type: "text", ...attributes });
    input.value = value ?? "";
    const fieldId = `f-${this.id}-${this.body.querySelectorAll(".field").length}`;
    input.id = fieldId;
    this.body.append(el("div", { class: "field" }, el("label", { for: fieldId, text: label }), input));
    return input;
  }

  /**
   * A row of actions; `pick(index, button)` runs on a click of an enabled one. Arrow keys move
   * between them. `submitOnEnter`: Enter in a text field picks the preferred action.
   * @returns {{row: HTMLElement, buttons: HTMLButtonElement[], update(states)}}
   */
  actions(list, pick, { submitOnEnter = false } = {}) {
    const row = el("div", { class: "actions", role: "group", "aria-label": "Actions" });
    const buttons = list.map((action, index) => {
      const button = actionButton(action.title, action);
      button.dataset.index = String(index);
      button.addEventListener("click", (event) => {
        event.preventDefault();
        if (!button.disabled && (!this.answered || this.changeable)) pick(index, button);
      });
      // A disabled button gets no click, but the pointer's press and release still reach it.
      button.addEventListener("pointerup", () => this.keepDisabled(button));
      row.append(button);
      return button;
    });
    row.addEventListener("keydown", (event) => moveBetween(buttons, event));
    if (submitOnEnter) {
      this.body.addEventListener("keydown", (event) => {
        if (event.key !== "Enter" || event.target.tagName !== "INPUT") return;
        event.preventDefault();
        const preferred = buttons.find((button) => button.classList.contains("preferred"));
        if (preferred && !preferred.disabled) preferred.click();
        // Typed or pasted a moment ago: the host has not enabled the action yet. The values go
        // now, and the action runs when the host enables it (within a second), not lost.
        else if (preferred && this.io.flushInput?.()) {
          // The host has not said what it makes of the values yet: that is said, not a refusal.
          const title = preferred.querySelector(".label")?.textContent ?? "Your answer";
          this.hintLine.textContent = `“${title}” goes once the host has checked what you typed`;
          clearTimeout(this.hintTimer);
          this.submitWhenEnabled(preferred);
        }
        // Offline, the host cannot check the fields (nor enable the action): say that, not
        // that they are empty.
        else if (this.io.isOnline?.() === false) this.refuse(`${unreachedLead()}: what you typed is checked when the connection is back`);
        else this.refuse(this.unavailableReason(preferred));
      });
    }
    this.body.append(row);
    // The rules of the disabled actions that say theirs, above the row; gone once enabled.
    const showRules = () => {
      const rules = list.map((action, index) => (buttons[index].disabled && action.explanation) || null).filter(Boolean);
      // Until the host has checked what was typed, its rule may already hold: say it is checking
      // (typed while the host cannot be reached: that it checks once back), never the rule.
      const checking = rules.length > 0 && this.io.isChecked?.() === false;
      const unreached = rules.length > 0 && this.typedOffline && this.io.isOnline?.() === false;
      this.ruleLine.textContent = unreached ? "Not checked yet: the host cannot be reached."
        : checking ? "Checking what you typed with the host…" : [...new Set(rules)].join(" ");
      buttons.forEach((button, index) => {
        if (list[index].explanation && button.disabled) button.setAttribute("aria-describedby", this.ruleLine.id);
        else button.removeAttribute("aria-describedby");
      });
    };
    showRules();
    this.showRules = showRules;
    const update = (states) => {
      this.typedOffline = false;                 // the host said what it makes of the values
      let enabledNow = false;
      states.forEach((state, index) => {
        if (!buttons[index]) return;
        if (buttons[index].disabled && state.enabled) enabledNow = true;
        buttons[index].disabled = !state.enabled;
      });
      showRules();
      // A "not available" hint is wrong once the host enables an action: it goes at once.
      if (enabledNow && this.hintLine.textContent) {
        clearTimeout(this.hintTimer);
        this.hintLine.textContent = "";
      }
      const waiting = this.pendingSubmit;
      if (waiting && !waiting.button.disabled) {
        this.pendingSubmit = null;
        waiting.button.click();
      }
    };
    return { row, buttons, update };
  }

  /** Why Enter did not pick the preferred action: a field is empty, or what is filled in
   *  does not pass the action's rule (a mail address without an @). */
  unavailableReason(preferred) {
    const empty = [...this.body.querySelectorAll("input, textarea")].some((node) => !node.value);
    const title = preferred?.querySelector(".label")?.textContent;
    const reason = empty || !title ? "Fill in the fields first" : `“${title}” is not available with what is filled in`;
    // The host's words for the rule, when it said them, are on screen already (the rule
    // line): said again there (announced anew), not a second time in the hint.
    if (!preferred?.hasAttribute("aria-describedby") || !this.ruleLine.textContent) return reason;
    this.reannounceRule();
    return `${reason}, as said above`;
  }

  /** Says the rule line again where it stands (a live region announces a change only). */
  reannounceRule() {
    const rule = this.ruleLine.textContent;
    this.ruleLine.textContent = "";
    queueMicrotask(() => { this.ruleLine.textContent = rule; });
  }

  /** Clicks `button` once the host enables it, or says why not once the host has checked
   *  the values (`checked`; a host that never answers is the connection's to tell). */
  submitWhenEnabled(button) {
    if (this.pendingSubmit && this.pendingSubmit.button !== button) setBusy(this.pendingSubmit.button, false);
    this.pendingSubmit = { button };
  }

  /** A tap on an alert's disabled action while the host cannot say whether it may go (it is
   *  unreachable, or still checking what was typed): kept, the button shown pending, and it
   *  goes once the host enables it (or the rule is said once the host has checked). */
  keepDisabled(button) {
    if (!button.disabled || this.answered || this.modal.kind !== "alert" || this.pendingSubmit?.button === button) return;
    if (!this.body.querySelector("input")) return;           // nothing typed that it could wait for
    const offline = this.io.isOnline?.() === false;
    if (!offline && this.io.isChecked?.() !== false) return; // the host's rule holds: the rule line says it
    const title = button.querySelector(".label")?.textContent ?? "Your answer";
    this.submitWhenEnabled(button);
    this.keptOffline = offline;
    setBusy(button, true);
    clearTimeout(this.hintTimer);
    this.hintLine.textContent = offline ? `Saved: “${title}” goes when the host is back` : `“${title}” goes once the host has checked what you typed`;
  }

  /** The host presented this alert again after a resume, with a tap kept offline: the values
   *  go again, so that the host's answer (an update, or a pong) settles it. */
  recheck() {
    const waiting = this.pendingSubmit;
    this.keptOffline = false;
    if (!waiting || this.answered) return;
    const title = waiting.button.querySelector(".label")?.textContent ?? "Your answer";
    this.hintLine.textContent = `“${title}” goes once the host has checked what you typed`;
    // What the host sent for the resume's hello comes before its reply to these values (and
    // would count as their check): the first check only sends them once more.
    this.settling = true;
    this.sendValues();
  }

  sendValues() {
    this.io.input([...this.body.querySelectorAll("input")].map((input) => input.value));
    this.io.flushInput?.();
  }

  /** The host has been heard since the values went: its rules are known now. */
  checked() {
    this.typedOffline = false;
    this.showRules?.();
    const waiting = this.pendingSubmit;
    if (!waiting) return;
    if (this.settling && waiting.button.disabled) {
      this.settling = false;
      return this.sendValues();
    }
    this.settling = false;
    this.pendingSubmit = null;
    if (/goes (once the host has checked what you typed|when the host is back)$/.test(this.hintLine.textContent)) this.hintLine.textContent = "";
    if (!waiting.button.isConnected) return;
    if (waiting.button.disabled) {
      setBusy(waiting.button, false);
      this.refuse(this.unavailableReason(waiting.button));
    } else waiting.button.click();
  }

  /** What Escape, the back gesture and a tap outside a sheet do. */
  onCancel(handler) { this.cancelHandler = handler; }

  /** Runs when the dialog goes away for any reason (close pop-ups, stop timers). */
  onClose(handler) { this.closeHandlers.push(handler); }

  /** What the person wrote that the host has not taken (a composer's text): shown, to copy,
   *  in the notice should the host end the modal without it. `provider()` returns "" for nothing. */
  unsent(provider) { this.unsentText = provider; }

  /** A close request: the kind's cancel action, or a visible refusal. */
  cancel() {
    if (this.answered && !this.changeable) return this.refuse("Waiting for the host to confirm your answer");
    if (this.cancelHandler) return this.cancelHandler();
    // A rule the host stated (the requester's copy of an approval) says more than "choose":
    // the dialog shakes and the rule is said again where it stands, not twice on screen.
    if (this.ruleLine.textContent) {
      // Escape did something: it is said not to close this, the rule being why.
      this.refuse("Escape does not close this request.");
      this.reannounceRule();
      return;
    }
    return this.refuse("Please choose one of the options");
  }

  /** Shakes the dialog: something was refused. */
  shake() {
    this.dialog.classList.remove("shake");
    void this.dialog.offsetWidth;            // restart the animation
    this.dialog.classList.add("shake");
  }

  refuse(text) {
    this.shake();
    this.hintLine.textContent = text;
    clearTimeout(this.hintTimer);
    this.hintTimer = setTimeout(() => { this.hintLine.textContent = ""; }, 6000);
  }

  resolve(value, button) { this.answer({ type: "result", value }, button); }

  fail(code, button) { this.answer({ type: "failure", code }, button); }

  /** The one way an answer leaves the dialog. */
  answer(message, button = null) {
    if (this.answered && !this.changeable) return;
    // A kept answer not yet sent is replaced by the new one (the client keeps one per modal).
    if (this.changeable && this.busyButton) setBusy(this.busyButton, false);
    this.changeable = false;
    this.answered = true;
    this.errorLine.hidden = true;
    this.dialog.classList.add("answered");
    this.content.disabled = true;
    if (button) { setBusy(button, true); this.busyButton = button; }
    // Named where the answer is spoken of later ("Your “Approve” … was not used").
    this.answerTitle = button?.textContent?.trim() || null;
    this.dialog.focus();
    this.io.answer({ ...message, id: this.id });
  }

  /** Shown again after a reload while its answer still waits for the host's dismiss. */
  alreadyAnswered() {
    this.answered = true;
    this.dialog.classList.add("answered");
    this.content.disabled = true;
  }

  /** The client sent the answer, or keeps it until the connection is back. */
  answerState(sent) {
    clearTimeout(this.confirmTimer);
    // Sent: the host confirms at once (its dismiss). Should it not within a moment (a network
    // that stalls: the heartbeat needs up to 10 s to say so), the spinner is said in words.
    // Whether the answer ever left the page: only then may the host have taken it (a kept
    // one the host never saw "was not sent", never "may not have been").
    if (sent && this.answered) this.everSent = true;
    if (sent && this.answered) {
      this.confirmTimer = setTimeout(() => {
        if (this.answered && this.dialog.isConnected && !this.status.textContent) {
          this.status.textContent = "Sent: waiting for the host to confirm it…";
        }
      }, CONFIRM_WORDS_MS);
    }
    this.dialog.classList.toggle("waiting", !sent);
    // Kept, not sent: the person may still change their mind (another choice, or Escape
    // for the kind's cancel replaces it), as the kiosk's Escape does; sent, it is the host's.
    this.changeable = !sent && this.answered;
    this.content.disabled = this.answered && !this.changeable;
    this.dialog.classList.toggle("answered", this.answered && !this.changeable);
    this.status.textContent = sent ? "" : `${unreachedLead()}: your answer is kept and will be sent when the connection is back (unless the host has ended this request by then). You can still change it, or press Escape to cancel.`;
  }

  /** The host refused the answer: the dialog is the person's again, with the reason. */
  rejected(text) {
    clearTimeout(this.confirmTimer);
    this.answered = false;
    this.changeable = false;
    this.dialog.classList.remove("answered", "waiting");
    this.content.disabled = false;
    if (this.busyButton) setBusy(this.busyButton, false);
    this.status.textContent = "";
    this.showError(text);
  }

  showError(text) {
    this.errorLine.textContent = text;
    this.errorLine.hidden = !text;
  }

  input(values) {
    this.io.input(values);
    if (this.io.isOnline?.() === false && !this.typedOffline) {
      this.typedOffline = true;
      this.showRules?.();
    }
  }

  /** This modal's draft in session storage: {load(), save(values), clear()} (none: a no-op). */
  draft() { return this.io.draft ?? { load: () => null, save: () => {}, clear: () => {} }; }

  upload(files, onProgress, options) { return this.io.upload(files, onProgress, (message) => this.answer(message), options); }

  anchor(source) { return this.io.anchor(source); }
}

/** A duration in words: "2 minutes", "90 s". */
export function durationWords(ms) {
  const seconds = Math.round(ms / 1000);
  // No-break spaces: "4 s" never breaks across lines.
  if (seconds >= 60 && seconds % 60 === 0) return seconds === 60 ? "1\u00a0minute" : `${seconds / 60}\u00a0minutes`;
  return `${seconds}\u00a0s`;
}

/** What was written and not sent, in a notice: read-only text to select, and Copy. */
function keptText(id, text, unsure, forgetAfterMs = null) {
  const note = el("p", { id: `kept-${id}`, class: "kept-note",
                         text: unsure ? "What you wrote may not have been sent. Copy it to keep it:" : "What you wrote was not sent. Copy it to keep it:" });
  const area = el("textarea", { class: "kept-text", readonly: true, rows: Math.min(8, text.split("\n").length + 1),
                                "aria-labelledby": note.id });
  area.value = text;
  const copy = actionButton("Copy", { style: "secondary small" });
  const done = el("span", { class: "kept-status", role: "status" });
  copy.addEventListener("click", async () => {
    area.focus();
    area.select();
    let copied = false;
    try {
      await navigator.clipboard.writeText(text);
      copied = true;
    } catch {
      try { copied = document.execCommand("copy"); } catch { copied = false; }
    }
    // A shared screen's clipboard must not hand it to the next person: emptied as long after
    // the copy as the text stays on screen, whether or not the notice is still open.
    if (copied && forgetAfterMs) {
      setTimeout(() => navigator.clipboard?.writeText("").catch(() => {}), forgetAfterMs);
    }
    const when = forgetAfterMs ? ` This screen's clipboard is emptied in ${durationWords(forgetAfterMs)}.` : "";
    done.textContent = copied ? `Copied.${when}` : "Selected: copy it with Ctrl+C (⌘C on a Mac).";
  });
  return [note, area, el("div", { class: "kept-row" }, copy, done)];
}

/** Arrow keys move focus between a row's enabled buttons. */
function moveBetween(buttons, event) {
  const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
  if (!step) return;
  const enabled = buttons.filter((button) => !button.disabled);
  const at = enabled.indexOf(document.activeElement);
  if (at < 0 || enabled.length === 0) return;
  event.preventDefault();
  enabled[(at + step + enabled.length) % enabled.length].focus();
}

/** Keeps Tab and Shift-Tab cycling inside the dialog. */
function trapTab(dialog, event) {
  if (event.key !== "Tab") return;
  const focusable = [...dialog.querySelectorAll("input, textarea, button, a[href], select")]
    .filter((node) => !node.disabled && !node.closest("fieldset:disabled") && node.offsetParent !== null && node.tabIndex >= 0);
  if (focusable.length === 0) { event.preventDefault(); return; }
  const first = focusable[0];
  const last = focusable[focusable.length - 1];
  if (event.shiftKey && (document.activeElement === first || document.activeElement === dialog)) { event.preventDefault(); last.focus(); }
  else if (!event.shiftKey && document.activeElement === last) { event.preventDefault(); first.focus(); }
}

/** Focuses the first text field, else the preferred button, else the first button. */
function focusFirst(dialog) {
  const target = dialog.querySelector("input:not([type=file]):not([disabled]), textarea")
    ?? dialog.querySelector("button.preferred:not([disabled])") ?? dialog.querySelector("button:not([disabled])");
  (target ?? dialog).focus();
}

/**
 * Builds and shows a modal. `io`: answer(message), input(values), upload(files, onProgress, answer),
 * anchor(source). Returns a handle: {dialog, ui, update(actions), answerState(sent), rejected(text),
 * close(), notice(title, text, onDone, reason)}.
 */
export function openModal(id, modal, io, layer) {
  const dialog = el("dialog", { class: `modal modal-${modal.kind}`, "aria-labelledby": `title-${id}`, "data-modal-id": id, tabindex: "-1" });
  const body = el("form", { class: "modal-body", novalidate: true });
  const content = el("fieldset", { class: "modal-content" });
  body.append(content);
  dialog.append(body);
  const ui = new DialogUI(id, modal, io, dialog, content);
  ui.content = content;
  // Offline, the page's banner sits behind the modal: the dialog carries its own, outside the
  // fieldset an answer disables, so "Retry now" always works.
  const retry = el("button", { type: "button", class: "banner-button", text: "Retry now", onclick: () => io.retry?.() });
  const connectionText = el("span", { class: "connection-text" });
  const connectionLine = el("div", { class: "connection-line", role: "status", hidden: true }, connectionText, retry);
  body.append(connectionLine);
  body.addEventListener("submit", (event) => event.preventDefault());   // never a local close

  const render = rendererFor(modal);
  let result = null;
  if (render) {
    result = render(modal, ui);
    if (result instanceof Node) { content.append(result); result = null; }
  } else {
    ui.heading("Not supported here");
    ui.message("This page cannot show this kind of request; the host has been told.");
    setTimeout(() => ui.fail("unsupported"), 0);
  }
  // Errors, hints and the answer's state sit just above the actions, where the eye is.
  const row = content.querySelector(":scope > .actions");
  for (const line of [ui.errorLine, ui.ruleLine, ui.hintLine, ui.status]) content.insertBefore(line, row);
  if (!content.querySelector("h2")) {
    content.prepend(el("h2", { id: `title-${id}`, class: "visually-hidden", text: "Request" }));
  }

  // Every way out goes through the host: Escape, the browser's close request, a tap outside.
  dialog.addEventListener("keydown", (event) => {
    if (event.key === "Escape") { event.preventDefault(); event.stopPropagation(); ui.cancel(); }
    else trapTab(dialog, event);
  });
  dialog.addEventListener("cancel", (event) => { event.preventDefault(); ui.cancel(); });
  dialog.addEventListener("click", (event) => {
    if (event.target !== dialog || !(event.clientX || event.clientY)) return;
    const box = dialog.getBoundingClientRect();
    const outside = event.clientX < box.left || event.clientX > box.right || event.clientY < box.top || event.clientY > box.bottom;
    if (!outside) return;
    if (dialog.classList.contains("sheet")) ui.cancel(); else ui.refuse("Please choose one of the options");
  });
  const handle = { dialog, ui, closing: false };
  // Should the browser close it anyway (a forced close request), it opens again and the
  // close counts as a cancel request.
  dialog.addEventListener("close", () => {
    if (handle.closing) return;
    dialog.showModal();
    ui.cancel();
  });
  dialog.addEventListener("animationend", () => dialog.classList.remove("shake"));

  handle.update = (actions) => result?.update?.(actions);
  handle.checked = () => ui.checked();
  handle.checking = () => ui.showRules?.();
  /** The host sent the modal again: its action states and field texts (see the kind's `refresh`). */
  handle.refresh = (next, typed) => {
    if (next.actions) result?.update?.(next.actions);
    if (!ui.answered) result?.refresh?.(next, typed);
    if (ui.keptOffline) ui.recheck();
  };
  handle.connection = (text) => {
    connectionLine.hidden = !text;
    connectionText.textContent = text ?? "";
  };
  /** Says, above the fields, that they were filled in again (what the host had lost). */
  handle.carried = (text) => {
    const line = el("p", { class: "carried-line", role: "status", text });
    const heading = content.querySelector("h2");
    heading ? heading.after(line) : content.prepend(line);
  };
  handle.answerState = (sent) => ui.answerState(sent);
  handle.rejected = (text) => ui.rejected(text);
  handle.close = () => new Promise((resolve) => {
    handle.closing = true;
    for (const done of ui.closeHandlers) done();
    const finish = () => { dialog.close(); dialog.remove(); resolve(); };
    if (reducedMotion() || !dialog.isConnected) return finish();
    dialog.classList.add("closing");
    setTimeout(finish, 140);
  });
  /** The modal ended without the person: say why where it was, and give the page back. */
  /** `forgetAfterMs`: how long unsent typed text stays readable in the notice (null: until
   *  OK; 0: never shown); then it is cleared, saying so (an unattended screen is shared). */
  handle.notice = (title, text, onDone, reason = null, forgetAfterMs = null) => {
    const unsent = ui.unsentText?.() ?? "";      // read before the fields go
    const heading = content.querySelector("h2")?.textContent?.trim();
    handle.closing = true;
    for (const done of ui.closeHandlers) done();
    const ok = actionButton("OK", { preferred: true });
    const message = el("p", { id: `message-${id}`, class: "message", text });
    const box = el("div", { class: "notice-body", role: "alert" }, el("h2", { id: `title-${id}`, text: title }), message);
    content.disabled = false;
    connectionLine.remove();
    // An answer given before the host lost the session may have been taken before it did.
    const unsure = ui.answered && ui.everSent === true && (reason === "restarted" || reason === "expired");
    const shown = unsent && forgetAfterMs !== 0;
    const kept = shown ? keptText(id, unsent, unsure, forgetAfterMs) : [];
    const forgotten = () => el("p", { id: `kept-${id}`, class: "kept-note forgotten",
      text: `What was written${heading ? ` in “${heading}”` : ""} ${unsure ? "may not have been" : "was not"} sent; ${forgetAfterMs
        ? `cleared from this screen after ${durationWords(forgetAfterMs)}.` : "it is not shown on this screen."}` });
    content.replaceChildren(box, ...(shown ? kept : unsent ? [forgotten()] : []), el("div", { class: "actions" }, ok));
    dialog.className = `modal notice modal-${modal.kind}${shown ? " keeps-text" : ""}`;
    if (reason) dialog.dataset.reason = reason;
    dialog.setAttribute("role", "dialog");
    dialog.setAttribute("aria-describedby", unsent ? `${message.id} kept-${id}` : message.id);
    dialog.close();
    dialog.show();                               // not modal: the controls work again
    const forget = shown && forgetAfterMs ? setTimeout(() => {
      if (!dialog.isConnected) return;
      const focusWasInside = kept.some((node) => node.contains(document.activeElement));
      kept[0].replaceWith(forgotten());
      for (const node of kept.slice(1)) node.remove();
      dialog.classList.remove("keeps-text");
      if (focusWasInside) ok.focus();
    }, forgetAfterMs) : null;
    ok.addEventListener("click", () => { clearTimeout(forget); dialog.close(); dialog.remove(); onDone?.(); });
  };

  if (modal.kind === "alert") dialog.setAttribute("role", "alertdialog");
  layer.append(dialog);
  dialog.showModal();
  focusFirst(dialog);
  return handle;
}

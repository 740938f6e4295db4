// The page: connection state, controls, notices, and the modals the host presents.
import { ModalClient } from "./protocol.js";
import { resolveSocketURL } from "./socketURL.js";
import { capabilities } from "./modals/index.js";
import { openModal, setBusy } from "./modals/dialog.js";
import "./signature.js";

const $ = (selector) => document.querySelector(selector);
const params = new URLSearchParams(location.search);
const listed = ($('meta[name="remote-modal-ws"]')?.content ?? "").split(/\s+/).filter(Boolean);
const socket = resolveSocketURL(params.get("ws"), location.href, listed);
if (socket.warning) console.warn(socket.warning);

// The host takes at most 256 bytes of a name (60 characters stay under it in any script) and
// of a group. A group is never cut: a cut one would silently join another group.
const group = params.get("group");
const GROUP_BYTES = 256;
const groupTooLong = group !== null && new TextEncoder().encode(group).length > GROUP_BYTES;

// A ?token= is read once and taken out of the address bar (and so out of the history entry,
// a bookmark or a shared link made from here on); the tab keeps it for its reloads beside
// the session id it guards, in sessionStorage, which no other tab or site reads.
const TOKEN_KEY = "remote-modal.token";
function readToken() {
  const given = params.get("token");
  if (given === null) {
    try { return sessionStorage.getItem(TOKEN_KEY); } catch { return null; }
  }
  try { sessionStorage.setItem(TOKEN_KEY, given); } catch { /* storage off: this load only */ }
  const clean = new URL(location.href);
  clean.searchParams.delete("token");
  history.replaceState(history.state, "", clean);
  return given;
}

// More renderers, listed by the page: <meta name="remote-modal-modules" content="js/a.js js/b.js">
// (space-separated module paths on this page's own origin; others are refused). Each registers
// its kinds with registerModal (docs/page.md, "Custom kinds"), so hello advertises them.
await loadListedModules($('meta[name="remote-modal-modules"]')?.content ?? "");

async function loadListedModules(content) {
  for (const path of content.split(/\s+/).filter(Boolean)) {
    const url = new URL(path, document.baseURI);
    if (url.origin !== location.origin) {
      console.warn(`remote-modal-modules: ${path} is not on this page's origin; not loaded`);
      continue;
    }
    try { await import(url.href); } catch (error) { console.error(`remote-modal-modules: ${path} did not load`, error); }
  }
}

const client = new ModalClient({
  url: socket.url,
  name: (params.get("name") ?? "browser").slice(0, 60),
  group,
  token: readToken(),
  capabilities: capabilities(),
});
window.remoteModal = client;   // for tests and debugging

const controlsBar = $("#controls");
const toasts = $("#toasts");
const connection = $("#connection");
const banner = $("#banner");
const layer = $("#modals");
const open = new Map();        // id -> {handle, returnFocus}
let everOpen = false;

// Connection: a quiet pill while all is well; after a moment offline, a banner that says
// what is happening and lets the person retry at once.
let bannerTimer = null;
let countdown = null;

/** What the banner says while offline: a refusal names the host's reason and when the page
 *  tries again (a 1013 is "try again later": the page keeps trying by itself). */
function offlineText({ attempt, refusal, retryAt, hostLeft, silent }) {
  if (hostLeft) return `The host went away (it is shutting down or restarting). Reconnecting… attempt ${Math.max(1, attempt)}`;
  if (silent && !refusal) return `The host is not answering. Reconnecting… attempt ${Math.max(1, attempt)}`;
  if (!refusal) return `Reconnecting… attempt ${Math.max(1, attempt)}`;
  const lead = refusal.code === 1013 ? "The host refused this page" : "The host closed the connection";
  const seconds = Math.ceil(((retryAt ?? 0) - Date.now()) / 1000);
  return `${lead}: ${refusal.reason}. ${seconds > 0 ? `Retrying in ${seconds} s.` : "Retrying now…"}`;
}

/** The page does not try (again) by itself: the banner says why at once, without a spinner;
 *  `retry` keeps "Retry now". */
function stopped(text, note, { retry }) {
  clearTimeout(bannerTimer);
  bannerTimer = null;
  banner.classList.add("stopped");
  $("#banner-text").textContent = text;
  $(".banner-note").textContent = note;
  $("#retry").hidden = !retry;
  banner.hidden = false;
}

client.addEventListener("state", ({ detail }) => {
  const { state } = detail;
  connection.dataset.state = state;
  // "Offline" only when the device says it has no network; otherwise it is the host that
  // cannot be reached.
  const reconnecting = navigator.onLine === false ? "Offline" : "Host not reachable";
  connection.textContent = { connecting: "Connecting…", open: "Connected", reconnecting, refused: "Refused",
                             unauthorized: "Not authorized", closed: "Disconnected" }[state] ?? state;
  document.body.classList.toggle("offline", state !== "open");
  document.body.dataset.connection = state;
  banner.classList.remove("stopped");
  $("#retry").hidden = false;
  if (state === "open") { everOpen = true; clearTimeout(bannerTimer); bannerTimer = null; banner.hidden = true; }
  clearInterval(countdown);
  // After a 1001 the host has cancelled every flow: nothing is kept for it, and no control
  // is busy any more (the new session's controls replace them).
  $(".banner-note").textContent = detail.hostLeft
    ? "What was open was cancelled; start again from the controls when the host is back."
    : "Answers you give meanwhile are kept and sent when the connection is back.";
  if (detail.hostLeft) for (const button of controlsBar.querySelectorAll("button")) setBusy(button, false);
  if (state === "connecting" && !banner.hidden) $("#banner-text").textContent = "Connecting…";   // Retry now after a refusal
  if (state === "reconnecting") {
    $("#banner-text").textContent = offlineText(detail);
    if (detail.refusal) {
      countdown = setInterval(() => { $("#banner-text").textContent = offlineText(detail); showInDialogs(); }, 1000);
    }
    bannerTimer ??= setTimeout(() => { banner.hidden = client.state === "open"; showInDialogs(); }, 1000);
  }
  // The host answered the hello with an error (a field it refuses): the same hello would be
  // refused the same way, so the page stops and shows the host's words.
  if (state === "refused") {
    const reason = (detail.helloError?.message ?? "no reason given").replace(/\.$/, "");
    stopped(`The host refused this page: ${reason}.`,
            "The page does not try again by itself: the same request would be refused the same way.", { retry: true });
  }
  showInDialogs();
  if (state === "unauthorized") {
    banner.hidden = true;
    $("#unauthorized").hidden = false;
    $("#workspace").hidden = true;
    $("#unauthorized-reason").hidden = !detail.helloError;
    $("#unauthorized-reason").textContent = detail.helloError ? `The host said: ${detail.helloError.message}.` : "";
  }
  setControlsEnabled(state === "open");
});
$("#retry").addEventListener("click", () => client.retryNow());

/** Open dialogs repeat the banner (the page behind a modal cannot be clicked). */
function showInDialogs() {
  const text = banner.hidden ? null : $("#banner-text").textContent;
  for (const { handle } of open.values()) handle.connection(text);
}

let controlItems = [];
let pendingFocus = null;     // a control to focus once it is enabled again
let lastTapped = null;       // the control whose flow most likely presents next

function setControlsEnabled(online) {
  for (const button of controlsBar.querySelectorAll("button")) {
    const item = controlItems.find((candidate) => candidate.id === button.dataset.control);
    button.disabled = !online || !item?.enabled;
  }
}

client.addEventListener("controls", ({ detail }) => {
  controlItems = detail.items;
  const focused = document.activeElement?.dataset?.control ?? (document.activeElement === document.body ? pendingFocus : null);
  controlsBar.replaceChildren(...detail.items.map((item) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = `control ${item.style}`;
    button.dataset.control = item.id;
    const label = document.createElement("span");
    label.className = "label";
    label.textContent = item.title;
    const spinner = document.createElement("span");
    spinner.className = "spinner";
    spinner.setAttribute("aria-hidden", "true");
    button.append(label, spinner);
    setBusy(button, item.busy);
    button.addEventListener("click", () => { lastTapped = item.id; client.tap(item.id); });
    return button;
  }));
  setControlsEnabled(client.state === "open");
  // The bar is rebuilt on every change; keep focus where the person left it.
  const again = focused && controlsBar.querySelector(`[data-control="${CSS.escape(focused)}"]`);
  if (again && !again.disabled) { again.focus(); pendingFocus = null; }
});

function toast(level, text) {
  const box = document.createElement("div");
  box.className = `toast ${level}`;
  box.setAttribute("role", level === "error" ? "alert" : "status");
  const words = document.createElement("span");
  words.className = "toast-text";
  words.textContent = text;
  const close = document.createElement("button");
  close.type = "button";
  close.className = "toast-close";
  close.setAttribute("aria-label", "Close notice");   // the × is drawn by CSS: a toast's text is its message
  close.addEventListener("click", () => box.remove());
  box.append(words, close);
  toasts.append(box);
  setTimeout(() => box.remove(), level === "error" ? 15000 : 8000);
  while (toasts.children.length > 4) toasts.firstChild.remove();
}

client.addEventListener("status", ({ detail }) => toast(detail.level, detail.text));

// A modal <dialog> makes the rest of the page inert, so notices outside it could neither be
// closed nor read by a screen reader, and a click on one landed on the dialog (a sheet took it
// for a tap outside and cancelled). They live in the top-most open dialog while one is open,
// and leave one as it starts closing (its closing animation moves it, and them with it).
function placeToasts() {
  const top = [...document.querySelectorAll("dialog[open]:not(.closing)")].at(-1) ?? document.body;
  if (toasts.parentElement !== top) top.append(toasts);
}
new MutationObserver(placeToasts).observe(document.body,
  { subtree: true, childList: true, attributes: true, attributeFilter: ["open", "class"] });
client.addEventListener("error", ({ detail }) => console.warn("host error", detail));
client.addEventListener("sessionLost", ({ detail }) => {
  // A notice already on screen (the host shut down with a modal open) says it once, updated;
  // a toast besides would be a second message about the same event.
  const notices = layer.querySelectorAll('dialog.notice[data-reason="shutdown"] .message');
  if (notices.length) {
    for (const message of notices) message.textContent = NOTICES[detail.reason][1];
    return;
  }
  if (detail.modals === 0 && everOpen) {
    toast("info", detail.reason === "restarted" ? "The host restarted; you have a new session." : "Your session expired; you have a new session.");
  }
});

// Drafts of what was typed in a composer, per session and modal, until the modal's dismiss.
const DRAFT_PREFIX = "remote-modal.draft.";
const draftKey = (id) => `${DRAFT_PREFIX}${client.session}.${id}`;
function draftStore(id) {
  const key = draftKey(id);
  return {
    load: () => { try { return JSON.parse(sessionStorage.getItem(key) ?? "null"); } catch { return null; } },
    save: (values) => { try { sessionStorage.setItem(key, JSON.stringify(values)); } catch { /* full */ } },
    clear: () => sessionStorage.removeItem(key),
  };
}
client.addEventListener("welcome", ({ detail: { session } }) => {
  // Drafts of a session that is gone are stale.
  for (const key of Object.keys(sessionStorage)) {
    if (key.startsWith(DRAFT_PREFIX) && !key.startsWith(`${DRAFT_PREFIX}${session}.`)) sessionStorage.removeItem(key);
  }
});

client.addEventListener("present", ({ detail: { id, modal, answered } }) => {
  // A notice left by an earlier modal gives way to the new one; not one holding text the
  // person wrote and has not copied yet (its OK takes it away).
  for (const notice of layer.querySelectorAll("dialog.notice:not(.keeps-text)")) notice.remove();
  // Remember what had focus (by control id too: the controls bar is rebuilt meanwhile).
  const active = document.activeElement === document.body ? null : document.activeElement;
  const returnFocus = { element: active, control: active?.dataset?.control ?? lastTapped };
  const handle = openModal(id, modal, {
    answer: (message) => client.answer(message),
    input: (values) => client.input(id, values),
    flushInput: () => client.flushInput(id),
    isChecked: () => client.inputChecked(id),
    isOnline: () => client.isOpen,
    upload: (files, onProgress, answer, options) => client.upload(id, files, onProgress, answer, options),
    retry: () => client.retryNow(),
    draft: draftStore(id),
    anchor: (source) => document.querySelector(`[data-control="${CSS.escape(source)}"]`)?.getBoundingClientRect() ?? null,
  }, layer);
  if (answered) { handle.ui.alreadyAnswered(); handle.answerState(client.isOpen); }
  open.set(id, { handle, returnFocus });
  showInDialogs();
});

client.addEventListener("update", ({ detail }) => open.get(detail.id)?.handle.update(detail.actions));
client.addEventListener("checked", ({ detail }) => open.get(detail.id)?.handle.checked());
client.addEventListener("checking", ({ detail }) => open.get(detail.id)?.handle.checking());
client.addEventListener("represent", ({ detail }) => open.get(detail.id)?.handle.refresh(detail.modal, detail.typed));
client.addEventListener("answer", ({ detail }) => open.get(detail.id)?.handle.answerState(detail.sent));
client.addEventListener("rejected", ({ detail }) => {
  const reason = detail.code === "action_disabled" ? "that choice is not available with what is filled in" : detail.message;
  open.get(detail.id)?.handle.rejected(`The host did not accept this answer: ${reason}.`);
});

// Why a modal went away without the person, in words, where it was.
const NOTICES = {
  restarted: ["Request cancelled", "The host restarted; this request was cancelled."],
  expired: ["Request cancelled", "Your session expired while you were offline; this request was cancelled."],
  ended: ["Request ended", "This request ended while you were offline."],
  timeout: ["Request timed out", "This request was open too long and has been withdrawn."],
  shutdown: ["Request cancelled", "The host is shutting down; this request was cancelled."],
};

client.addEventListener("dismiss", ({ detail }) => {
  draftStore(detail.id).clear();
  const entry = open.get(detail.id);
  if (!entry) return;
  open.delete(detail.id);
  const { element, control } = entry.returnFocus;
  // Looked up when it is time: the controls bar may have been rebuilt meanwhile.
  const restoreFocus = () => {
    const target = element?.isConnected ? element : control && document.querySelector(`[data-control="${CSS.escape(control)}"]`);
    if (target?.disabled) pendingFocus = control; else target?.focus();
  };
  // An answer given before a drop was most likely accepted: its modal just closes.
  const notice = detail.reason === "ended" && entry.handle.ui.answered ? null : NOTICES[detail.reason];
  if (notice) {
    entry.handle.notice(notice[0], notice[1], restoreFocus, detail.reason);
  } else {
    entry.handle.close().then(restoreFocus);
  }
});

if (groupTooLong) {
  // Not even tried: the host would refuse the hello (bad_message) at every attempt.
  connection.dataset.state = "refused";
  connection.textContent = "Not connected";
  document.body.classList.add("offline");
  document.body.dataset.connection = "refused";
  stopped(`The group name in the address is too long: at most ${GROUP_BYTES} bytes. Fix ?group= and reload.`,
          "", { retry: false });
} else {
  client.connect();
}

// The page: connection state, controls, notices, and the modals the host presents.
import { ModalClient } from "./protocol.js";
import { resolveSocketURL } from "./socketURL.js";
import { capabilities } from "./modals/index.js";
import { durationWords, openModal, setBusy, withCodeWords } from "./modals/dialog.js";
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

/** Why the host cannot be heard, as far as the page knows: "offline" only when the device
 *  says it has no network (the host being down looks the same from here otherwise). */
const unreachedWords = () => (navigator.onLine === false ? "You are offline" : "The host cannot be reached");

/** What the banner says while offline: a refusal names the host's reason and when the page
 *  tries again (a 1013 is "try again later": the page keeps trying by itself). */
function offlineText({ attempt, refusal, retryAt, hostLeft, silent }) {
  if (hostLeft) return `The host went away (it is shutting down or restarting). Reconnecting… attempt ${Math.max(1, attempt)}`;
  if (silent && !refusal) return `The host is not answering. Reconnecting… attempt ${Math.max(1, attempt)}`;
  // No word from the host: the device's own network is the one thing the page can know is gone.
  if (!refusal) return `${unreachedWords()}. Reconnecting… attempt ${Math.max(1, attempt)}`;
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
  if (state === "open") {
    backAt = Date.now();
    sendKeptTaps();
    // A tap lost with the connection that opens nothing soon after the host is back: over.
    const lost = waitingTap;
    if (lost?.lost) setTimeout(() => { if (waitingTap === lost) waitingTap = null; }, LATE_TAP_WINDOW_MS);
  } else if (state === "reconnecting") {
    tapLost();
  } else if (state !== "connecting") {
    // Refused, unauthorized, closed: nothing goes (a reload's first "connecting" keeps them).
    forgetKeptTaps();
  }
  clearInterval(countdown);
  // After a 1001 the host has cancelled every flow: nothing is kept for it, and no control
  // is busy any more (the new session's controls replace them).
  $(".banner-note").textContent = detail.hostLeft
    ? "What was open was cancelled; start again from the controls when the host is back."
    : "Answers you give meanwhile are kept and sent when the connection is back.";
  if (detail.hostLeft) for (const button of controlsBar.querySelectorAll("button:not(.kept)")) setBusy(button, false);
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

/** A `?NAME=SECONDS` parameter (0 or more) in milliseconds; `fallback` seconds when absent or
 *  not such a number (said in the console). A function declaration: used above its place. */
function secondsParam(name, fallback) {
  const given = params.get(name);
  if (given === null) return fallback * 1000;
  const seconds = Number(given);
  if (given.trim() !== "" && Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  console.warn(`?${name}= takes a number of seconds, 0 or more (got ${given}); ${fallback} s it is`);
  return fallback * 1000;
}

let controlItems = [];
let pendingFocus = null;     // a control to focus once it is enabled again
let lastTapped = null;       // the control whose flow most likely presents next
let waitingTap = null;       // a tap not answered yet: {id, title, at, timer, notice, lost} (see tapSent)
let backAt = 0;              // when the connection was last welcomed (Date.now())

/** Controls work while the host is reachable, and while it is being reconnected to (a tap is
 *  then kept and goes once it is back); not once the host refused the page. */
function setControlsEnabled(online) {
  const keeping = client.state === "reconnecting";
  for (const button of controlsBar.querySelectorAll("button")) {
    const item = controlItems.find((candidate) => candidate.id === button.dataset.control);
    button.disabled = !(online || keeping) || !item?.enabled;
  }
}

// Taps on controls while the host cannot be reached (the banner promises answers are kept):
// kept, one per control, the button shown pending and the banner saying so; sent once, when
// the connection is back. They are kept across a reload too (sessionStorage, as typed text
// is), and taken out of it before they go: a reload after they went never sends them again.
const TAPS_KEY = "remote-modal.taps";
// How long a tap kept while the host is away waits for it (`?keepTapsFor=SECONDS`, default
// 60; 0: a tap while away is not kept): past it the tap is dropped and said so, rather than
// open a dialog minutes later for whoever stands at the screen then.
const KEEP_TAPS_MS = secondsParam("keepTapsFor", 60);
/** The taps a reload kept ([[control id, title, tapped at], ...]; an entry without its time
 *  counts from now); none when absent or malformed. */
function restoreKeptTaps() {
  try {
    const taps = JSON.parse(sessionStorage.getItem(TAPS_KEY) ?? "[]");
    const now = Date.now();
    return Array.isArray(taps)
      ? taps.filter((tap) => Array.isArray(tap) && typeof tap[0] === "string" && typeof tap[1] === "string")
        .map(([id, title, at]) => [id, { title, at: Number.isFinite(at) && at <= now ? at : now }]) : [];
  } catch {
    return [];
  }
}
const keptTaps = new Map(restoreKeptTaps());  // control id -> {title, at}
let tapExpiry = null;
/** Whether the kept taps were made before this page was loaded (said so in the banner). */
let tapsFromReload = keptTaps.size > 0;
const keptLine = $("#kept-taps");

function persistKeptTaps() {
  try {
    if (keptTaps.size) sessionStorage.setItem(TAPS_KEY, JSON.stringify([...keptTaps].map(([id, tap]) => [id, tap.title, tap.at])));
    else sessionStorage.removeItem(TAPS_KEY);
  } catch { /* storage off or full: kept for this load only */ }
}

function keepTap(item, button) {
  if (KEEP_TAPS_MS === 0) return;
  keptTaps.set(item.id, { title: item.title, at: Date.now() });
  armTapExpiry();
  tapsFromReload = false;      // not all of them are from before the reload any more
  persistKeptTaps();
  setBusy(button, true);
  button.classList.add("kept");
  showKeptTaps();
  // Said now, not after the banner's usual second.
  clearTimeout(bannerTimer);
  bannerTimer = null;
  banner.hidden = false;
  showInDialogs();
}

/** Drops the taps kept longer than `KEEP_TAPS_MS`, saying so; wakes for the next one. */
function expireKeptTaps() {
  clearTimeout(tapExpiry);
  tapExpiry = null;
  const now = Date.now();
  const expired = [...keptTaps].filter(([, tap]) => now - tap.at >= KEEP_TAPS_MS);
  if (!expired.length) return armTapExpiry();
  for (const [id] of expired) {
    keptTaps.delete(id);
    const button = controlsBar.querySelector(`button.kept[data-control="${CSS.escape(id)}"]`);
    if (button) { button.classList.remove("kept"); setBusy(button, false); }
  }
  persistKeptTaps();
  showKeptTaps();
  const titles = expired.map(([, tap]) => `“${tap.title}”`);
  toast("error", `${titles.join(", ")} ${titles.length === 1 ? "was" : "were"} not sent: the host was away for more than ${durationWords(KEEP_TAPS_MS)}. Tap again once the host is back.`);
  armTapExpiry();
}

function armTapExpiry() {
  if (tapExpiry !== null || !keptTaps.size) return;
  const first = Math.min(...[...keptTaps.values()].map((tap) => tap.at));
  tapExpiry = setTimeout(() => { tapExpiry = null; expireKeptTaps(); }, Math.max(0, first + KEEP_TAPS_MS - Date.now()));
}

function showKeptTaps() {
  const titles = [...keptTaps.values()].map((tap) => `“${tap.title}”`);
  const saved = tapsFromReload ? "Saved before the page was reloaded" : "Saved";
  keptLine.textContent = titles.length
    ? `${saved}: ${titles.join(", ")} ${titles.length === 1 ? "goes" : "go"} when the host is back.` : "";
  keptLine.hidden = titles.length === 0;
}
showKeptTaps();                // a reload's kept taps, said with the banner
armTapExpiry();                // (async: what it may say is set up below)

// Kept taps just sent: the dialog one of them opens says so (the second cold trial: after a
// restart a kept tap opened its dialog with no word of where it came from).
let sentKeptTaps = [];

/** The oldest kept tap sent within the last few seconds, taken: it opened this dialog. */
function takeSentKeptTap() {
  sentKeptTaps = sentKeptTaps.filter((tap) => Date.now() - tap.sentAt < LATE_TAP_WINDOW_MS);
  return sentKeptTaps.shift() ?? null;
}

function sendKeptTaps() {
  expireKeptTaps();            // a reload or a sleeping tab may not have run the timer
  const ids = [...keptTaps.keys()];
  const sentAt = Date.now();
  sentKeptTaps = [...keptTaps.values()].map((tap) => ({ title: tap.title, at: tap.at, sentAt }));
  keptTaps.clear();
  tapsFromReload = false;
  persistKeptTaps();           // out of the store before they go: never sent twice
  showKeptTaps();
  for (const id of ids) client.tap(id);
}

function forgetKeptTaps() {
  keptTaps.clear();
  tapsFromReload = false;
  persistKeptTaps();
  showKeptTaps();
  for (const button of controlsBar.querySelectorAll("button.kept")) { button.classList.remove("kept"); setBusy(button, false); }
}

client.addEventListener("controls", ({ detail }) => {
  if (waitingTap && !waitingTap.lost) endTapWait();
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
    setBusy(button, item.busy || keptTaps.has(item.id));
    button.classList.toggle("kept", keptTaps.has(item.id));
    button.addEventListener("click", () => {
      lastTapped = item.id;
      if (keptTaps.has(item.id)) return showKeptTaps();      // kept already: it goes once
      if (client.tap(item.id)) tapSent(item, button);
      else if (client.state === "reconnecting") keepTap(item, button);
    });
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
  words.append(withCodeWords(text));
  const close = document.createElement("button");
  close.type = "button";
  close.className = "toast-close";
  close.setAttribute("aria-label", "Close notice");   // the × is drawn by CSS: a toast's text is its message
  close.addEventListener("click", () => box.remove());
  box.append(words, close);
  toasts.append(box);
  setTimeout(() => box.remove(), level === "error" ? 15000 : 8000);
  while (toasts.children.length > 4) toasts.firstChild.remove();
  return box;
}

// A tap the host has not answered yet. The host answers a tap at once (the control busy, a
// dialog); with a host that stalled, the page said nothing for 12 s, and the dialog opened a
// minute later with no word (issue 32's last cold trial). Now: after 2 s the button is busy
// and a notice says the tap waits; when the connection is given up, the notice says the tap
// got no answer; and a dialog that opens right after the host is back says it came from that
// tap, and how long ago it was made.
const TAP_WORDS_MS = 2000;
const LATE_TAP_WINDOW_MS = 5000;

function tapSent(item, button) {
  endTapWait();
  const tap = { id: item.id, title: item.title, at: Date.now(), lost: false, notice: null };
  tap.timer = setTimeout(() => {
    if (waitingTap !== tap || tap.lost) return;
    setBusy(button, true);
    tap.notice = toast("info", `“${tap.title}”: waiting for the host…`);
  }, TAP_WORDS_MS);
  waitingTap = tap;
}

/** The button of a control, as the bar shows it now (the bar is rebuilt on every change). */
const controlButton = (id) => controlsBar.querySelector(`[data-control="${CSS.escape(id)}"]`);

/** The host answered something: the tap's wait is over. */
function endTapWait() {
  if (!waitingTap) return;
  clearTimeout(waitingTap.timer);
  waitingTap.notice?.remove();
  const button = controlButton(waitingTap.id);
  if (button && !button.classList.contains("kept") && !waitingTap.lost) setBusy(button, false);
  waitingTap = null;
}

/** The connection was given up with a tap unanswered: said of the tap, never of the person. */
function tapLost() {
  if (!waitingTap || waitingTap.lost) return;
  clearTimeout(waitingTap.timer);
  waitingTap.notice?.remove();
  waitingTap.lost = true;
  // Its button stops spinning: "Nothing happened yet" beside a busy button read as still going.
  const button = controlButton(waitingTap.id);
  if (button && !button.classList.contains("kept")) setBusy(button, false);
  waitingTap.notice = toast("error", `“${waitingTap.title}” got no answer: the connection to the host was lost. Nothing happened yet; once it is back, tap it again if nothing opens.`);
}

// A request that ended while the page was away: the statuses the host kept for that time come
// right after its end in the resume and say how it ended ("Approved by Bob"). They are added to
// its notice, which stays until closed, where the toast goes after 8 s (issue 32's cold trial:
// "Request ended" stayed and the approval it ended with was gone).
const endedNotices = [];
const ENDED_OUTCOME_MS = 3000;
// An answer that was not used is told after the resume's kept statuses (its dismiss is the
// host's reply to the answer sent again): those of the last moments are added to its notice.
const recentStatuses = [];

function addOutcome(text) {
  const now = performance.now();
  recentStatuses.push({ text, at: now });
  while (recentStatuses.length > 8 || (recentStatuses.length && now - recentStatuses[0].at > ENDED_OUTCOME_MS)) {
    recentStatuses.shift();
  }
  for (let i = endedNotices.length - 1; i >= 0; i--) {
    const { dialog, at } = endedNotices[i];
    if (!dialog.isConnected || !dialog.open || now - at > ENDED_OUTCOME_MS) {
      endedNotices.splice(i, 1);
      continue;
    }
    addOutcomeLine(dialog, text);
  }
}

/** One "The host said meanwhile" line under a notice's words. */
function addOutcomeLine(dialog, text) {
  const line = document.createElement("p");
  line.className = "outcome";
  line.textContent = `The host said meanwhile: \u201C${text}\u201D`;
  [...dialog.querySelectorAll(".message, .outcome")].pop()?.after(line);
}

client.addEventListener("status", ({ detail }) => {
  if (waitingTap && !waitingTap.lost) endTapWait();
  toast(detail.level, detail.text);
  addOutcome(detail.text);
});

// A modal <dialog> makes the rest of the page inert, so notices outside it could neither be
// closed nor read by a screen reader, and a click on one landed on the dialog (a sheet took it
// for a tap outside and cancelled). They live in the top-most open dialog while one is open,
// and leave one as it starts closing (its closing animation moves it, and them with it).
function placeToasts() {
  const top = [...document.querySelectorAll("dialog[open]:not(.closing)")].at(-1) ?? document.body;
  if (toasts.parentElement !== top) top.append(toasts);
  // Notices at the top of the screen (over a phone's sheet) sit below the header's status.
  const headerBottom = Math.max(0, Math.ceil($("header").getBoundingClientRect().bottom));
  document.documentElement.style.setProperty("--header-bottom", `${headerBottom}px`);
}
new MutationObserver(placeToasts).observe(document.body,
  { subtree: true, childList: true, attributes: true, attributeFilter: ["open", "class"] });
client.addEventListener("error", ({ detail }) => console.warn("host error", detail));
client.addEventListener("sessionLost", ({ detail }) => {
  // Drafts the person saved in the session that is gone come back where the same flow does.
  const drafts = carryDrafts(detail.reason, detail.session);
  // What was being written in the session that is gone, its dialog not on screen (the page
  // was reloaded meanwhile): it comes back the same way (the third cold trial's half-written
  // mail went without a word after a reload during a long outage).
  const written = carryWritten(detail.reason, detail.session);
  // A shutdown notice on screen (the host shut down with a modal open) is this same event:
  // it says how it ended, once, updated (a toast besides would be a second message). It is
  // then that outcome's notice: a later, separate loss never rewrites it, it gets its own.
  const notices = layer.querySelectorAll('dialog.notice[data-reason="shutdown"]');
  if (notices.length) {
    for (const notice of notices) {
      notice.querySelector(".message").textContent = NOTICES[detail.reason](notice.dataset.name, notice.dataset.carried === "true")[1];
      notice.dataset.reason = detail.reason;
    }
    return;
  }
  if (detail.modals === 0 && (everOpen || drafts || written)) {
    const lead = detail.reason === "restarted" ? "The host restarted: this screen starts afresh."
      : "This screen was away from the host too long: it starts afresh.";
    const what = drafts && written ? "What you saved and what you were writing" : drafts ? "What you saved" : "What you were writing";
    toast("info", drafts || written ? `${lead} ${what} comes back if you open it again within ${durationWords(FORGET_TYPED_MS)}.` : lead);
  }
});

// What the person typed in a modal the host lost (a restart, an expired session, a shutdown),
// and the drafts they saved in the session that is gone, by the flow's look (its kind and
// title): filled in again when the same flow presents it in the new session. A password is
// never kept.
const CARRY_KEY = "remote-modal.carry";
// How long what a person typed and did not send stays readable or comes back
// (`?forgetTypedAfter=SECONDS`, 0: never; default 120): an unattended screen is shared, and
// the next passer-by neither reads it nor finds it filled in.
const FORGET_TYPED_MS = secondsParam("forgetTypedAfter", 120);
/** The carried entries not yet forgotten (older ones are dropped from storage as read). */
function readCarried() {
  const carried = readJSON(CARRY_KEY) ?? {};
  const now = Date.now();
  const fresh = Object.fromEntries(Object.entries(carried)
    .filter(([, kept]) => typeof kept?.at === "number" && now - kept.at <= FORGET_TYPED_MS && kept.at <= now + 60_000));
  if (Object.keys(fresh).length !== Object.keys(carried).length) writeJSON(CARRY_KEY, fresh);
  return fresh;
}
const SAVED_KEY = "remote-modal.saved";
const readJSON = (key) => { try { return JSON.parse(sessionStorage.getItem(key) ?? "null"); } catch { return null; } };
const writeJSON = (key, value) => { try { sessionStorage.setItem(key, JSON.stringify(value)); } catch { /* full */ } };
const flowKey = (modal) => `${modal.kind}:${modal.title ?? ""}`;
const TEXT_TYPES = new Set(["text", "email", "tel", "url", "search", "number", "password"]);
const typedNodes = (dialog) => [...dialog.querySelectorAll(".modal-content input, .modal-content textarea")]
  .filter((node) => !node.readOnly && (node.tagName === "TEXTAREA" || TEXT_TYPES.has(node.type)));
const typedValues = (dialog) => typedNodes(dialog).map((node) => (node.type === "password" ? null : node.value));

/** Keeps what was typed in `entry`'s dialog for its flow's return; whether anything was. */
function carryTyped(entry, modal, why) {
  if (FORGET_TYPED_MS === 0) return false;
  const values = typedValues(entry.handle.dialog);
  if (!values.some((value, index) => value !== null && value !== entry.initial[index])) return false;
  writeJSON(CARRY_KEY, { ...readCarried(), [flowKey(modal)]: { values, why, draft: false, at: Date.now() } });
  setTimeout(readCarried, FORGET_TYPED_MS + 100);     // and out of storage when it is forgotten
  return true;
}

/** The saved drafts of the session that is gone become carried ones; whether there were any. */
function carryDrafts(why, lostSession) {
  // `lostSession`: the session that is gone (the client already holds the new one).
  const saved = readJSON(SAVED_KEY);
  sessionStorage.removeItem(SAVED_KEY);
  if (!saved || saved.session !== lostSession || !Object.keys(saved.drafts ?? {}).length) return false;
  if (FORGET_TYPED_MS === 0) return false;
  const carried = readCarried();
  const at = Date.now();
  for (const [key, values] of Object.entries(saved.drafts)) carried[key] ??= { values, why, draft: true, at };
  writeJSON(CARRY_KEY, carried);
  setTimeout(readCarried, FORGET_TYPED_MS + 100);
  return true;
}

/** The typed values of dialogs of the session that is gone, kept by `draftStore` and not on
 *  screen any more (a reload), become carried ones; whether there were any. */
function carryWritten(why, lostSession) {
  const prefix = `${DRAFT_PREFIX}${lostSession}.`;
  const carried = readCarried();
  const at = Date.now();
  let any = false;
  for (const key of Object.keys(sessionStorage)) {
    if (!key.startsWith(prefix)) continue;
    const kept = readJSON(key);
    sessionStorage.removeItem(key);
    if (FORGET_TYPED_MS === 0 || typeof kept?.flow !== "string" || !Array.isArray(kept.typed)) continue;
    carried[kept.flow] ??= { values: kept.typed, why, draft: false, at };
    any = true;
  }
  if (any) {
    writeJSON(CARRY_KEY, carried);
    setTimeout(readCarried, FORGET_TYPED_MS + 100);
  }
  return any;
}

/** A composer's "Save draft": the host keeps the draft, but only as long as the session (a
 *  "Send" is the end of it). */
function noteSaved(id, modal, message) {
  const status = message.type === "result" ? message.value?.status : null;
  const entry = open.get(id);
  if (!entry || (status !== "saved" && status !== "sent")) return;
  const saved = readJSON(SAVED_KEY);
  const drafts = saved?.session === client.session ? { ...saved.drafts } : {};
  if (status === "saved") drafts[flowKey(modal)] = typedValues(entry.handle.dialog);
  else delete drafts[flowKey(modal)];
  writeJSON(SAVED_KEY, { session: client.session, drafts });
}

/** Fills a flow's carried values into its dialog, once, and says so there. */
function fillCarried(handle, modal) {
  const carried = readCarried();
  const kept = carried[flowKey(modal)];
  if (!kept) return;
  delete carried[flowKey(modal)];
  writeJSON(CARRY_KEY, carried);
  const nodes = typedNodes(handle.dialog);
  if (nodes.length !== kept.values.length) return;
  nodes.forEach((node, index) => {
    const value = kept.values[index];
    if (typeof value !== "string" || node.type === "password" || node.value === value) return;
    node.value = value;
    node.dispatchEvent(new Event("input", { bubbles: true }));   // to the host, and to the page's own draft
  });
  const when = kept.why === "expired" ? "before this screen was away from the host too long" : "before the host restarted";
  // The host lost the draft because it restarted (or the session expired), not before.
  const lostWhen = kept.why === "expired" ? "when this screen was away too long" : "when it restarted";
  handle.carried(kept.draft ? `Your saved draft is back: the host lost it ${lostWhen}.`
                            : `Filled in again with what you typed ${when}.`);
}

// Drafts of what was typed in a dialog, per session and modal, until the modal's dismiss: the
// renderer's own `values`, and, for the flow's return in a new session, the flow (`modal`'s
// kind and title) and the typed values as `carryTyped` keeps them (null: nothing changed).
const DRAFT_PREFIX = "remote-modal.draft.";
const draftKey = (id) => `${DRAFT_PREFIX}${client.session}.${id}`;
function draftStore(id, modal = null) {
  const key = draftKey(id);
  return {
    load: () => {
      const kept = readJSON(key);
      return kept && typeof kept === "object" && "values" in kept && "flow" in kept ? kept.values : kept;
    },
    save: (values) => {
      const entry = open.get(id);
      const typed = entry ? typedValues(entry.handle.dialog) : [];
      const changed = typed.some((value, index) => value !== null && value !== entry.initial[index]);
      writeJSON(key, { flow: modal ? flowKey(modal) : null, values, typed: changed ? typed : null });
    },
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
  // A dialog that opens just after the host is back, while a tap it never answered waits:
  // most likely that tap, read late by the host. Said, with when it was made.
  const lateTap = waitingTap?.lost && Date.now() - backAt < LATE_TAP_WINDOW_MS && !answered ? waitingTap : null;
  if (waitingTap) { waitingTap.lost = false; endTapWait(); }     // lost no more: its button not busy
  // A notice left by an earlier modal gives way to the new one; not one holding text the
  // person wrote and has not copied yet (its OK takes it away).
  for (const notice of layer.querySelectorAll("dialog.notice:not(.keeps-text)")) notice.remove();
  // Remember what had focus (by control id too: the controls bar is rebuilt meanwhile).
  const active = document.activeElement === document.body ? null : document.activeElement;
  const returnFocus = { element: active, control: active?.dataset?.control ?? lastTapped };
  const handle = openModal(id, modal, {
    answer: (message) => { noteSaved(id, modal, message); client.answer(message); },
    input: (values) => client.input(id, values),
    flushInput: () => client.flushInput(id),
    isChecked: () => client.inputChecked(id),
    isOnline: () => client.isOpen,
    upload: (files, onProgress, answer, options) => client.upload(id, files, onProgress, answer, options),
    retry: () => client.retryNow(),
    draft: draftStore(id, modal),
    anchor: (source) => document.querySelector(`[data-control="${CSS.escape(source)}"]`)?.getBoundingClientRect() ?? null,
  }, layer);
  if (answered) { handle.ui.alreadyAnswered(); handle.answerState(client.isOpen); }
  open.set(id, { handle, returnFocus, modal, initial: typedValues(handle.dialog) });
  if (!answered) fillCarried(handle, modal);
  const keptTap = lateTap || answered ? null : takeSentKeptTap();
  if (lateTap) {
    const seconds = Math.max(1, Math.round((Date.now() - lateTap.at) / 1000));
    handle.carried(`This opened from the tap on “${lateTap.title}” ${durationWords(seconds * 1000)} ago: the host read it only once it was back. Cancel it if it is not yours.`);
  } else if (keptTap) {
    const seconds = Math.max(1, Math.round((Date.now() - keptTap.at) / 1000));
    handle.carried(`This opened from the tap on “${keptTap.title}” ${durationWords(seconds * 1000)} ago, kept while the host was away and sent when it was back. Cancel it if it is not yours.`);
  }
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

// Why a modal went away without the person, in words, where it was: [title, message] for
// the dialog's name (null: none shown) and whether what was typed in it was kept.
const comesBack = (carried) => (carried ? ` What you typed comes back if you open it again within ${durationWords(FORGET_TYPED_MS)}.` : "");
const NOTICES = {
  restarted: (name, carried) => name
    ? [name, `The host restarted; “${name}” was closed.${comesBack(carried)}`]
    : ["Request cancelled", `The host restarted; this request was cancelled.${comesBack(carried)}`],
  // Away past the retention: the page cannot tell its own network from the host's absence,
  // so it says what is true in both cases.
  expired: (name, carried) => name
    ? [name, `This screen was away from the host too long; “${name}” was closed.${comesBack(carried)}`]
    : ["Request cancelled", `This screen was away from the host too long; this request was cancelled.${comesBack(carried)}`],
  ended: () => ["Request ended", "This request ended while the host could not be reached."],
  timeout: () => ["Request timed out", "This request was open too long and has been withdrawn."],
  // Named as the dialog was: the notice's heading stays when the restart's words replace these.
  shutdown: (name) => name
    ? [name, `The host is shutting down; “${name}” was cancelled.`]
    : ["Request cancelled", "The host is shutting down; this request was cancelled."],
};

/** The words for an answer another screen's came before: [title, message]. */
const notUsed = (choice) => (name) => [name ?? "Answer not used",
  `Your ${choice ? `“${choice}”` : "answer"}${name ? ` on “${name}”` : ""} was not used: another screen of the group answered first.`];

/** The name the person saw on a dialog (its heading), or null for an unnamed one. */
function dialogName(handle) {
  const text = handle.dialog.querySelector("h2")?.textContent?.trim();
  return text && text !== "Request" ? text : null;
}

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
  // An answer given before a drop was most likely accepted: its modal just closes. One that
  // went after another screen's answer (also kept offline and sent with the resume) was not
  // used, which nothing else says: the host's status says only the outcome.
  const { answered, answerTitle } = entry.handle.ui;
  const words = detail.reason === "superseded" ? (answered ? notUsed(answerTitle) : null)
    : detail.reason === "ended" && answered ? null : NOTICES[detail.reason];
  if (words) {
    const name = dialogName(entry.handle);
    const lost = ["restarted", "expired", "shutdown"].includes(detail.reason) && !entry.handle.ui.answered;
    const carried = lost && carryTyped(entry, entry.modal, detail.reason === "expired" ? "expired" : "restarted");
    const [title, text] = words(name, carried);
    entry.handle.notice(title, text, restoreFocus, detail.reason, FORGET_TYPED_MS);
    if (detail.reason === "ended") endedNotices.push({ dialog: entry.handle.dialog, at: performance.now() });
    if (detail.reason === "superseded") {
      const now = performance.now();
      for (const { text: said, at } of recentStatuses) {
        if (now - at <= ENDED_OUTCOME_MS) addOutcomeLine(entry.handle.dialog, said);
      }
      endedNotices.push({ dialog: entry.handle.dialog, at: now });
    }
    entry.handle.dialog.dataset.name = name ?? "";
    entry.handle.dialog.dataset.carried = String(carried);
    // Once forgotten, nothing comes back: the notice stops saying it does.
    if (carried) setTimeout(() => {
      const { dialog } = entry.handle;
      if (!dialog.isConnected || dialog.dataset.carried !== "true") return;
      dialog.dataset.carried = "false";
      dialog.querySelector(".message").textContent = NOTICES[dialog.dataset.reason ?? detail.reason](name, false)[1];
    }, FORGET_TYPED_MS);
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

// The page's files kept for a reload while the host is away (web/sw.js): the page then opens
// and says what is happening instead of the browser's error page. Only in a secure context
// (https, or http on localhost); elsewhere the page goes without.
if ("serviceWorker" in navigator && window.isSecureContext) {
  navigator.serviceWorker.register("sw.js").catch((error) => console.warn("no offline copy of the page:", error.message));
}

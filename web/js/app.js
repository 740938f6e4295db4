// The page: controls bar, status toasts, connection indicator, and the modals.
import { ModalClient } from "./protocol.js";
import { renderModal, focusFirst, customCapabilities } from "./render.js";
import "./signature.js";

const params = new URLSearchParams(location.search);
const scheme = location.protocol === "https:" ? "wss:" : "ws:";
const client = new ModalClient({
  url: params.get("ws") ?? `${scheme}//${location.host}/ws`,
  name: params.get("name") ?? "browser",
  group: params.get("group"),
  token: params.get("token"),
  capabilities: ["alert", "actionSheet", "webAuthentication", "mailComposer", "messageComposer", "photoPicker",
                 "mediaPicker", ...customCapabilities()],
});
window.remoteModal = client;   // for tests and debugging

const $ = (selector) => document.querySelector(selector);
const controlsBar = $("#controls");
const toasts = $("#toasts");
const connection = $("#connection");
const layer = $("#modals");
const open = new Map();        // id -> {handle, returnFocus}

client.addEventListener("state", ({ detail }) => {
  connection.dataset.state = detail.state;
  connection.textContent = { connecting: "Connecting…", open: "Connected", reconnecting: "Reconnecting…",
                             unauthorized: "Not authorized", closed: "Disconnected" }[detail.state] ?? detail.state;
  document.body.classList.toggle("offline", detail.state !== "open");
});

let pendingFocus = null;     // a control to focus once it is enabled again

client.addEventListener("controls", ({ detail }) => {
  const focused = document.activeElement?.dataset?.control ?? (document.activeElement === document.body ? pendingFocus : null);
  controlsBar.replaceChildren(...detail.items.map((item) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = `control ${item.style}${item.busy ? " busy" : ""}`;
    button.dataset.control = item.id;
    button.disabled = !item.enabled;
    button.setAttribute("aria-busy", String(item.busy));
    const label = document.createElement("span");
    label.textContent = item.title;
    button.append(label);
    if (item.busy) {
      const spinner = document.createElement("span");
      spinner.className = "spinner";
      spinner.setAttribute("aria-hidden", "true");
      button.append(spinner);
    }
    button.addEventListener("click", () => client.tap(item.id));
    return button;
  }));
  // The bar is rebuilt on every change; keep focus where the person left it.
  const again = focused && controlsBar.querySelector(`[data-control="${CSS.escape(focused)}"]`);
  if (again && !again.disabled) { again.focus(); pendingFocus = null; }
});

client.addEventListener("status", ({ detail }) => {
  const toast = document.createElement("div");
  toast.className = `toast ${detail.level}`;
  toast.setAttribute("role", detail.level === "error" ? "alert" : "status");
  toast.textContent = detail.text;
  toasts.append(toast);
  setTimeout(() => toast.remove(), 8000);
  while (toasts.children.length > 4) toasts.firstChild.remove();
});

client.addEventListener("error", ({ detail }) => console.warn("host error", detail));

client.addEventListener("present", ({ detail: { id, modal } }) => {
  // Remember what had focus (by control id too: the controls bar is rebuilt meanwhile).
  const returnFocus = { element: document.activeElement, control: document.activeElement?.dataset?.control };
  const handle = renderModal(id, modal, {
    result: (value) => { handle.dialog.classList.add("answered"); client.result(id, value); },
    failure: (code) => { handle.dialog.classList.add("answered"); client.failure(id, code); },
    input: (values) => client.input(id, values),
    upload: (files, onProgress) => client.upload(id, files, onProgress),
    anchor: (source) => document.querySelector(`[data-control="${CSS.escape(source)}"]`)?.getBoundingClientRect() ?? null,
  });
  open.set(id, { handle, returnFocus });
  layer.append(handle.dialog);
  handle.dialog.showModal();
  focusFirst(handle.dialog);
});

client.addEventListener("update", ({ detail }) => open.get(detail.id)?.handle.update(detail.actions));

client.addEventListener("dismiss", ({ detail }) => {
  const entry = open.get(detail.id);
  if (!entry) return;
  open.delete(detail.id);
  entry.handle.dialog.close();
  entry.handle.dialog.remove();
  const { element, control } = entry.returnFocus;
  const target = element?.isConnected ? element : control && document.querySelector(`[data-control="${CSS.escape(control)}"]`);
  if (target?.disabled) pendingFocus = control; else target?.focus();
});

client.connect();

// Renders protocol modals as <dialog> elements. Text from the host is only ever set
// with textContent or attributes, never parsed as HTML.

const customRenderers = new Map();

/** Registers a renderer for `custom` modals named `name` (advertised as `custom:NAME`).
 *  render(payload, {resolve(value), cancel()}) returns an element to put in the dialog. */
export function registerModal(name, render) { customRenderers.set(name, render); }

export function customCapabilities() { return [...customRenderers.keys()].map((name) => `custom:${name}`); }

function el(tag, attributes = {}, ...children) {
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

const FIELD_TYPES = {
  plain: { type: "text", autocomplete: "off" },
  email: { type: "email", autocomplete: "email", inputmode: "email" },
  password: { type: "password", autocomplete: "current-password" },
  phoneNumber: { type: "tel", autocomplete: "tel", inputmode: "tel" },
  number: { type: "text", inputmode: "decimal", autocomplete: "off" },
  url: { type: "url", autocomplete: "url", inputmode: "url" },
};

/**
 * Builds the dialog for one modal. `io` has: result(value), failure(code), input(textFields),
 * upload(files, onProgress), anchor(source) -> DOMRect|null.
 * Returns {dialog, update(actions), setBusy(text)}.
 */
export function renderModal(id, modal, io) {
  const titleId = `title-${id}`;
  const dialog = el("dialog", { class: `modal modal-${modal.kind}`, "aria-labelledby": titleId, "data-modal-id": id });
  const body = el("form", { method: "dialog", class: "modal-body" });
  dialog.append(body);
  dialog.addEventListener("keydown", (event) => trapTab(dialog, event));
  let buttons = [];
  let cancelIndex = -1;
  const handle = { dialog, update() {}, setBusy() {} };
  const heading = (text) => el("h2", { id: titleId, text: text ?? "" });

  const actionList = (actions, collect) => {
    const row = el("div", { class: "actions" });
    buttons = actions.map((action, index) => {
      const button = el("button", {
        type: action.preferred ? "submit" : "button", class: `action ${action.style}${action.preferred ? " preferred" : ""}`,
        text: action.title, disabled: !action.enabled, "data-index": index,
      });
      button.addEventListener("click", (event) => {
        event.preventDefault();
        if (button.disabled) return;
        io.result(collect(index));
      });
      if (action.style === "cancel" && cancelIndex < 0) cancelIndex = index;
      row.append(button);
      return button;
    });
    handle.update = (states) => states.forEach((state, index) => { if (buttons[index]) buttons[index].disabled = !state.enabled; });
    dialog.addEventListener("cancel", (event) => {
      event.preventDefault();                         // Escape picks the cancel action, if any
      if (cancelIndex >= 0 && !buttons[cancelIndex].disabled) io.result(collect(cancelIndex));
    });
    return row;
  };

  switch (modal.kind) {
    case "alert": {
      body.append(heading(modal.title));
      if (modal.message) body.append(el("p", { class: "message", text: modal.message }));
      const inputs = (modal.textFields ?? []).map((field, index) => {
        const spec = FIELD_TYPES[field.kind] ?? FIELD_TYPES.plain;
        const input = el("input", { ...spec, name: `field${index}`, placeholder: field.placeholder ?? "",
                                    "aria-label": field.placeholder || field.kind });
        input.value = field.text ?? "";
        input.addEventListener("input", () => io.input(inputs.map((i) => i.value)));
        body.append(el("label", { class: "field" }, el("span", { text: field.placeholder ?? "" }), input));
        return input;
      });
      body.append(actionList(modal.actions, (index) => ({ action: index, textFields: inputs.map((i) => i.value) })));
      body.addEventListener("submit", (event) => {
        event.preventDefault();
        const preferred = buttons.find((b) => b.classList.contains("preferred"));
        if (preferred && !preferred.disabled) preferred.click();
      });
      break;
    }
    case "actionSheet": {
      dialog.classList.add("sheet");
      if (modal.title) body.append(heading(modal.title)); else body.append(el("h2", { id: titleId, class: "visually-hidden", text: "Choose" }));
      if (modal.message) body.append(el("p", { class: "message", text: modal.message }));
      body.append(actionList(modal.actions, (index) => ({ action: index })));
      const rect = modal.source ? io.anchor(modal.source) : null;
      if (rect && window.matchMedia("(min-width: 700px)").matches) {
        dialog.classList.add("anchored");
        dialog.style.top = `${Math.round(rect.bottom + 8)}px`;
        dialog.style.left = `${Math.round(Math.max(8, rect.left))}px`;
      }
      break;
    }
    case "mailComposer":
    case "messageComposer": {
      const mail = modal.kind === "mailComposer";
      body.append(heading(mail ? "New mail" : "New message"));
      const field = (label, value, multiline = false) => {
        const input = multiline ? el("textarea", { rows: 5, "aria-label": label }) : el("input", { type: "text", "aria-label": label });
        input.value = value ?? "";
        body.append(el("label", { class: "field" }, el("span", { text: label }), input));
        return input;
      };
      const list = (text) => text.split(/[,;]/).map((s) => s.trim()).filter(Boolean);
      const fields = mail
        ? { to: field("To", (modal.to ?? []).join(", ")), cc: field("Cc", (modal.cc ?? []).join(", ")),
            bcc: field("Bcc", (modal.bcc ?? []).join(", ")), subject: field("Subject", modal.subject), body: field("Body", modal.body, true) }
        : { recipients: field("To", (modal.recipients ?? []).join(", ")), body: field("Message", modal.body, true) };
      const content = () => mail
        ? { to: list(fields.to.value), cc: list(fields.cc.value), bcc: list(fields.bcc.value), subject: fields.subject.value, body: fields.body.value }
        : { recipients: list(fields.recipients.value), body: fields.body.value };
      const statuses = mail ? [["Cancel", "cancelled", "cancel"], ["Save draft", "saved", "default"], ["Send", "sent", "default"]]
                            : [["Cancel", "cancelled", "cancel"], ["Send", "sent", "default"]];
      const actions = statuses.map(([title, , style], index) => ({ title, style, enabled: true, preferred: index === statuses.length - 1 }));
      body.append(actionList(actions, (index) => ({ status: statuses[index][1], [mail ? "mail" : "message"]: content() })));
      break;
    }
    case "webAuthentication": {
      body.append(heading("Sign in with your provider"));
      if (modal.callbackURL) {
        body.append(el("p", { class: "message", text: "A sign-in window is open. Finish there; this closes by itself." }));
        const reopen = el("button", { type: "button", class: "action default", text: "Open sign-in window" });
        const cancel = el("button", { type: "button", class: "action cancel", text: "Cancel" });
        let popup = null;
        const open = () => {
          popup = window.open(modal.url, `auth-${id}`, "popup,width=520,height=640");
          if (!popup) reopen.textContent = "Allow pop-ups, then open the sign-in window";
        };
        reopen.addEventListener("click", open);
        cancel.addEventListener("click", () => { popup?.close(); io.failure("cancelled"); });
        const watcher = setInterval(() => {
          if (!dialog.isConnected) return clearInterval(watcher);
          if (popup && popup.closed) { clearInterval(watcher); setTimeout(() => { if (dialog.isConnected) io.failure("cancelled"); }, 1500); }
        }, 500);
        body.append(el("div", { class: "actions" }, cancel, reopen));
        open();
      } else {
        body.append(el("p", { class: "message", text: `Open this address, sign in, then paste the ${modal.callbackURLScheme}: address you are sent to.` }));
        body.append(el("a", { href: modal.url, target: "_blank", rel: "noopener", text: modal.url }));
        const pasted = el("input", { type: "url", "aria-label": "callback address" });
        body.append(el("label", { class: "field" }, el("span", { text: "Callback address" }), pasted));
        body.append(actionList([{ title: "Cancel", style: "cancel", enabled: true }, { title: "Done", style: "default", enabled: true, preferred: true }],
          (index) => index === 0 ? null : { url: pasted.value }));
        const original = io.result;
        io.result = (value) => (value ? original(value) : io.failure("cancelled"));
      }
      break;
    }
    case "photoPicker":
    case "mediaPicker": {
      const photo = modal.kind === "photoPicker";
      body.append(heading(photo ? "Choose photos" : "Choose media"));
      const limit = photo ? modal.selectionLimit || 1 : modal.allowsMultiple ? 1000 : 1;
      const accept = (photo ? modal.filter ?? ["image"] : modal.types ?? ["audio"]).map((t) => `${t}/*`).join(",");
      const input = el("input", { type: "file", accept, multiple: limit > 1, "aria-label": "files" });
      const previews = el("div", { class: "previews" });
      const note = el("p", { class: "message", role: "status" });
      const progress = el("progress", { max: 1, value: 0, hidden: true, "aria-label": "upload progress" });
      let files = [];
      input.addEventListener("change", () => {
        files = [...input.files];
        previews.replaceChildren();
        const bytes = files.reduce((sum, f) => sum + f.size, 0);
        if (files.length > limit) note.textContent = `Pick at most ${limit}.`;
        else if (bytes > modal.maxBytes) note.textContent = `Too large: at most ${modal.maxBytes} bytes in all.`;
        else note.textContent = `${files.length} selected, ${bytes} bytes`;
        for (const file of files.slice(0, 12)) {
          if (file.type.startsWith("image/")) previews.append(el("img", { src: URL.createObjectURL(file), alt: file.name }));
          else previews.append(el("span", { class: "file", text: file.name }));
        }
        buttons[1].disabled = files.length === 0 || files.length > limit || bytes > modal.maxBytes;
      });
      body.append(input, previews, note, progress);
      const row = actionList([{ title: "Cancel", style: "cancel", enabled: true }, { title: "Send", style: "default", enabled: false, preferred: true }], () => null);
      body.append(row);
      buttons[0].onclick = (event) => { event.preventDefault(); io.result({ items: [] }); };
      buttons[1].onclick = (event) => {
        event.preventDefault();
        buttons.forEach((b) => { b.disabled = true; });
        progress.hidden = false;
        io.upload(files, (fraction) => { progress.value = fraction; note.textContent = `Uploading… ${Math.round(fraction * 100)}%`; });
      };
      handle.update = () => {};
      break;
    }
    case "custom": {
      const render = customRenderers.get(modal.name);
      if (!render) { body.append(heading("Unsupported")); setTimeout(() => io.failure("unsupported"), 0); break; }
      body.append(render(modal.payload, { resolve: (value) => io.result(value), cancel: () => io.failure("cancelled") }));
      break;
    }
    default:
      setTimeout(() => io.failure("unsupported"), 0);
  }
  return handle;
}

/** Keeps Tab and Shift-Tab cycling inside the dialog (the page behind is inert, but the
 *  browser would otherwise move focus out to its own interface). */
function trapTab(dialog, event) {
  if (event.key !== "Tab") return;
  const focusable = [...dialog.querySelectorAll("input, textarea, button, a[href], select")]
    .filter((node) => !node.disabled && node.offsetParent !== null);
  if (focusable.length === 0) return;
  const first = focusable[0];
  const last = focusable[focusable.length - 1];
  if (event.shiftKey && document.activeElement === first) { event.preventDefault(); last.focus(); }
  else if (!event.shiftKey && document.activeElement === last) { event.preventDefault(); first.focus(); }
}

/** Focuses the first text field, else the preferred button, else the first button. */
export function focusFirst(dialog) {
  const target = dialog.querySelector("input:not([type=file]), textarea") ?? dialog.querySelector("button.preferred:not([disabled])")
    ?? dialog.querySelector("button:not([disabled]), input");
  target?.focus();
}

// `mailComposer`: To, Cc, Bcc, From (when the host names one), Subject, Body, the host's
// attachments (each removable); Cancel, Save draft, Send.
// An HTML body (`isHTML`) is shown formatted but sanitized: parsed by DOMParser (no script
// runs, nothing loads), reduced to a small allow-list by `sanitizeTree`, and rebuilt node by
// node; its markup never reaches innerHTML. "Edit as text" swaps it for a text area; the
// result carries the body as sent when untouched, else the text made HTML (docs/protocol.md).
import { registerModal } from "./registry.js";
import { composer, looksLikeMailAddress } from "./composer.js";
import { actionButton, el } from "./dialog.js";
import { base64Size, sanitizeTree, textToHTML, treeText } from "../options.js";
import { formatBytes } from "../format.js";

const joined = (addresses) => (addresses ?? []).join(", ");

registerModal("mailComposer", (modal, ui) => {
  const attachments = Array.isArray(modal.attachments) ? modal.attachments : null;
  const hasFrom = typeof modal.from === "string";
  composer(ui, {
    title: "New mail",
    fields: [
      { key: "to", label: "To", value: joined(modal.to) },
      { key: "cc", label: "Cc", value: joined(modal.cc) },
      { key: "bcc", label: "Bcc", value: joined(modal.bcc) },
      hasFrom ? { key: "from", label: "From", value: modal.from, attributes: { type: "email", autocomplete: "email", spellcheck: "false" } } : null,
      { key: "subject", label: "Subject", value: modal.subject ?? "" },
      modal.isHTML ? { key: "body", label: "Body", build: (dialog) => htmlBody(dialog, modal.body ?? "") }
                   : { key: "body", label: "Body", value: modal.body ?? "", multiline: true },
      attachments?.length ? { key: "attachments", build: (dialog) => attachmentList(dialog, attachments) } : null,
    ],
    statuses: [["Cancel", "cancelled"], ["Save draft", "saved"], ["Send", "sent"]],
    // A mail to "not an address" is not sent (and never reported as sent).
    check: (v, list) => {
      for (const key of ["to", "cc", "bcc"]) {
        const wrong = list(v[key]).find((address) => !looksLikeMailAddress(address));
        if (wrong) return { key, message: `Not a mail address: ${wrong}` };
      }
      if (![...list(v.to), ...list(v.cc), ...list(v.bcc)].length) return { key: "to", message: "Add a recipient first" };
      return null;
    },
    content: (v, list) => ({ mail: {
      to: list(v.to), cc: list(v.cc), bcc: list(v.bcc), subject: v.subject, body: v.body,
      ...(hasFrom ? { from: v.from.trim() } : {}),
      ...(attachments ? { attachments: v.attachments ?? [] } : {}),
    } }),
  });
});

/** The safe tree as DOM nodes: elements by name, text as text, links opening elsewhere. */
function nodesOf(items) {
  return items.map((item) => {
    if (typeof item === "string") return document.createTextNode(item);
    const node = document.createElement(item.tag);
    if (item.tag === "a" && item.href) {
      node.setAttribute("href", item.href);
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer");
    }
    node.append(...nodesOf(item.children));
    return node;
  });
}

function htmlBody(ui, html) {
  const items = sanitizeTree(new DOMParser().parseFromString(html, "text/html").body);
  const text = treeText(items);
  const labelId = `body-label-${ui.id}`;
  const areaId = `body-text-${ui.id}`;
  const preview = el("div", { class: "html-body", role: "region", tabindex: "0", "aria-labelledby": labelId });
  preview.append(...nodesOf(items));
  const area = el("textarea", { id: areaId, name: "body", rows: 8, autocomplete: "off", hidden: true });
  const note = el("p", { class: "field-note", text: "Formatted mail. Links open in a new tab." });
  const edit = actionButton("Edit as text", { style: "secondary small" });
  let editing = false;
  edit.addEventListener("click", () => {
    editing = true;
    area.value = text;
    preview.hidden = true;
    edit.hidden = true;
    area.hidden = false;
    note.textContent = "Edited as text: it is sent as simple HTML, line breaks kept, formatting left out.";
    area.focus();
  });
  ui.body.append(el("div", { class: "field html-field" },
    el("label", { id: labelId, for: areaId, text: "Body" }), preview, area, el("div", { class: "field-foot" }, note, edit)));
  return { value: () => (editing && area.value !== text ? textToHTML(area.value) : html), text: () => (editing ? area.value : text) };
}

function attachmentList(ui, attachments) {
  const removed = new Set();
  const labelId = `attachments-${ui.id}`;
  const announce = el("p", { class: "visually-hidden", role: "status", "aria-live": "polite" });
  const rows = attachments.map((file) => {
    const name = String(file.name ?? "");
    const size = formatBytes(base64Size(file.data));
    const toggle = actionButton("Remove", { style: "secondary small" });
    toggle.setAttribute("aria-label", `Remove ${name}`);
    const state = el("span", { class: "attachment-state", text: "" });
    const row = el("li", { class: "attachment" },
      el("span", { class: "file-icon", "aria-hidden": "true", text: (name.split(".").pop() || "file").slice(0, 4).toUpperCase() }),
      el("span", { class: "attachment-text" }, el("span", { class: "file-name", text: name }),
         el("span", { class: "file-size", text: `${size}${file.mimeType ? ` · ${file.mimeType}` : ""}` }), state),
      toggle);
    toggle.addEventListener("click", () => {
      const gone = !removed.has(name);
      if (gone) removed.add(name); else removed.delete(name);
      row.classList.toggle("removed", gone);
      state.textContent = gone ? "Removed" : "";
      toggle.querySelector(".label").textContent = gone ? "Put back" : "Remove";
      toggle.setAttribute("aria-label", `${gone ? "Put back" : "Remove"} ${name}`);
      announce.textContent = `${name} ${gone ? "removed" : "put back"}`;
    });
    return row;
  });
  ui.body.append(el("div", { class: "field attachments-field" },
    el("span", { id: labelId, class: "field-label", text: `Attachments (${attachments.length})` }),
    el("ul", { class: "attachments", "aria-labelledby": labelId }, ...rows), announce));
  return { value: () => attachments.map((file) => String(file.name ?? "")).filter((name) => !removed.has(name)) };
}

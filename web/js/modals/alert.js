// `alert`: title, message, text fields, actions. Enter in a field picks the preferred
// action; Escape picks the cancel action (none: the alert stays and says so).
import { registerModal } from "./registry.js";
import { el } from "./dialog.js";
import { fieldAttributes } from "../options.js";

const LABELS = { plain: "Text", email: "E-mail", password: "Password", phoneNumber: "Phone number", number: "Number", url: "Address" };

registerModal("alert", (modal, ui) => {
  ui.heading(modal.title);
  if (modal.message) ui.message(modal.message);
  // What this page typed (never a password) is kept in its draft until the dismiss: a reload
  // before the host heard it (a stalled network, the host still checking) would lose it.
  const draft = ui.draft();
  const kept = draft.load();
  const restored = [];
  const inputs = (modal.textFields ?? []).map((field, index) => {
    const label = field.placeholder ? field.placeholder[0].toUpperCase() + field.placeholder.slice(1) : LABELS[field.kind] ?? "Text";
    const attributes = fieldAttributes(field);
    const secret = attributes.type === "password";
    const typed = Array.isArray(kept) && typeof kept[index] === "string" ? kept[index] : null;
    if (!secret && typed !== null && typed !== (field.text ?? "")) restored.push(index);
    const input = ui.field(label, { value: secret ? "" : typed ?? field.text, attributes });
    input.addEventListener("input", () => {
      ui.input(inputs.map((i) => i.value));
      draft.save(inputs.map((i) => (i.type === "password" ? null : i.value)));
    });
    return input;
  });
  if (restored.length) {
    // The host did not have these: they go to it now, and the person is told.
    const first = ui.body.querySelector(".field");
    ui.body.insertBefore(el("p", { class: "carried-line", role: "status",
                                   text: "Filled in again with what you typed before the page was reloaded." }), first);
    queueMicrotask(() => ui.input(inputs.map((i) => i.value)));
  }
  const values = () => inputs.map((input) => input.value);
  const { buttons, update } = ui.actions(modal.actions, (index, button) => ui.resolve({ action: index, textFields: values() }, button),
                                         { submitOnEnter: inputs.length > 0 });
  const cancelIndex = modal.actions.findIndex((action) => action.style === "cancel");
  if (cancelIndex >= 0) {
    ui.onCancel(() => {
      const button = buttons[cancelIndex];
      if (button.disabled) return ui.refuse("Cancel is not available right now");
      return ui.resolve({ action: cancelIndex, textFields: values() }, button);
    });
  }
  // Sent again (a resume): the host's texts, or what this page typed and re-sent; a password
  // is never filled in from the host, only blanked when the host holds none.
  const refresh = (next, typed) => {
    (next.textFields ?? []).forEach((field, index) => {
      const input = inputs[index];
      if (!input) return;
      let text = typeof typed?.[index] === "string" ? typed[index] : field.text ?? "";
      if (input.type === "password" && typeof typed?.[index] !== "string" && text !== "") text = input.value;
      if (input.value !== text) input.value = text;
    });
  };
  return { update, refresh };
});

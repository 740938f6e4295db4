// `alert`: title, message, text fields, actions. Enter in a field picks the preferred
// action; Escape picks the cancel action (none: the alert stays and says so).
import { registerModal } from "./registry.js";
import { fieldAttributes } from "../options.js";

const LABELS = { plain: "Text", email: "E-mail", password: "Password", phoneNumber: "Phone number", number: "Number", url: "Address" };

registerModal("alert", (modal, ui) => {
  ui.heading(modal.title);
  if (modal.message) ui.message(modal.message);
  const inputs = (modal.textFields ?? []).map((field) => {
    const label = field.placeholder ? field.placeholder[0].toUpperCase() + field.placeholder.slice(1) : LABELS[field.kind] ?? "Text";
    const attributes = fieldAttributes(field);
    const input = ui.field(label, { value: attributes.type === "password" ? "" : field.text, attributes });
    input.addEventListener("input", () => ui.input(inputs.map((i) => i.value)));
    return input;
  });
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

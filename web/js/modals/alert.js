// `alert`: title, message, text fields, actions. Enter in a field picks the preferred
// action; Escape picks the cancel action (none: the alert stays and says so).
import { registerModal } from "./registry.js";

const FIELD_TYPES = {
  plain: { type: "text", autocomplete: "off" },
  email: { type: "email", autocomplete: "email", inputmode: "email", spellcheck: "false" },
  password: { type: "password", autocomplete: "current-password" },
  phoneNumber: { type: "tel", autocomplete: "tel", inputmode: "tel" },
  number: { type: "text", inputmode: "decimal", autocomplete: "off" },
  url: { type: "url", autocomplete: "url", inputmode: "url", spellcheck: "false" },
};

const INPUT_MODES = { email: "email", numeric: "numeric", decimal: "decimal", phone: "tel", url: "url" };

/** The field's input attributes: its kind, then the optional hints a host may add
 *  (docs/protocol.md, "Optional fields"): keyboard, autocapitalize, contentType, secure. */
function inputAttributes(field) {
  const attributes = { ...(FIELD_TYPES[field.kind] ?? FIELD_TYPES.plain) };
  if (field.keyboard && field.keyboard !== "default") {
    if (INPUT_MODES[field.keyboard]) attributes.inputmode = INPUT_MODES[field.keyboard];
  }
  if (typeof field.autocapitalize === "string") attributes.autocapitalize = field.autocapitalize;
  if (typeof field.contentType === "string") attributes.autocomplete = field.contentType;
  if (field.secure === true) attributes.type = "password";
  if (field.secure === false && attributes.type === "password") attributes.type = "text";
  return attributes;
}

const LABELS = { plain: "Text", email: "E-mail", password: "Password", phoneNumber: "Phone number", number: "Number", url: "Address" };

registerModal("alert", (modal, ui) => {
  ui.heading(modal.title);
  if (modal.message) ui.message(modal.message);
  const inputs = (modal.textFields ?? []).map((field) => {
    const label = field.placeholder ? field.placeholder[0].toUpperCase() + field.placeholder.slice(1) : LABELS[field.kind] ?? "Text";
    const attributes = inputAttributes(field);
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
  return { update };
});

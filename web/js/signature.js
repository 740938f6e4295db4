// An example custom modal: the host presents {"kind":"custom","name":"signature",
// "payload":{"prompt":"..."}} to clients advertising custom:signature; the person types
// their name and the result is {"name": "..."}. Registered like every built-in kind.
import { registerModal } from "./modals/registry.js";

registerModal("custom:signature", ({ payload }, ui) => {
  ui.heading(payload?.prompt ?? "Sign");
  const name = ui.field("Your name", { attributes: { autocomplete: "name" } });
  const { buttons } = ui.actions([{ title: "Cancel", style: "cancel" }, { title: "Sign", preferred: true }],
    (index, button) => (index === 0 ? ui.fail("cancelled", button) : ui.resolve({ name: name.value }, button)), { submitOnEnter: true });
  ui.onCancel(() => ui.fail("cancelled", buttons[0]));
});

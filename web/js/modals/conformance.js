// The custom kind `custom:conformance` of the conformance host (docs/clients.md): its payload
// carries `instructions`, lines such as `Answer {"echo":"K7"}.`; the person (or a test playing
// one) types the JSON to answer into the field and presses Answer. Not in the page by default:
// a page lists it in <meta name="remote-modal-modules"> to pass the `custom` scenario (the
// conformance suite's page does, Tests/conformance/test_browser.py). An example of a custom
// renderer, too: registered by its capability, answered through `ui.resolve`.
import { registerModal } from "./registry.js";

registerModal("custom:conformance", ({ payload }, ui) => {
  ui.heading("Conformance: a custom kind");
  ui.message(typeof payload?.instructions === "string" ? payload.instructions : "");
  const answer = ui.field("Answer (JSON)", { multiline: true, attributes: { spellcheck: "false", class: "json" } });
  const { buttons } = ui.actions([{ title: "Cancel", style: "cancel" }, { title: "Answer", preferred: true }],
    (index, button) => {
      if (index === 0) return ui.fail("cancelled", button);
      let value;
      try { value = JSON.parse(answer.value); } catch { return ui.refuse("That is not JSON: check the quotes and braces."); }
      ui.resolve(value, button);
    });
  ui.onCancel(() => ui.fail("cancelled", buttons[0]));
});

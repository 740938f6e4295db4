// `messageComposer`: recipients and text; Cancel, Send.
import { registerModal } from "./registry.js";
import { composer } from "./composer.js";

registerModal("messageComposer", (modal, ui) => composer(ui, {
  title: "New message",
  fields: [["recipients", "To", (modal.recipients ?? []).join(", ")], ["body", "Message", modal.body ?? "", true]],
  statuses: [["Cancel", "cancelled"], ["Send", "sent"]],
  content: (v, list) => ({ message: { recipients: list(v.recipients), body: v.body } }),
}));

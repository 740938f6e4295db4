// `messageComposer`: recipients, the subject (when the host sends one), text; Cancel, Send.
import { registerModal } from "./registry.js";
import { composer } from "./composer.js";

registerModal("messageComposer", (modal, ui) => {
  const hasSubject = typeof modal.subject === "string";
  composer(ui, {
    title: "New message",
    fields: [
      { key: "recipients", label: "To", value: (modal.recipients ?? []).join(", ") },
      hasSubject ? { key: "subject", label: "Subject", value: modal.subject } : null,
      { key: "body", label: "Message", value: modal.body ?? "", multiline: true },
    ],
    statuses: [["Cancel", "cancelled"], ["Send", "sent"]],
    check: (v, list) => (list(v.recipients).length ? null : { key: "recipients", message: "Add a recipient first" }),
    content: (v, list) => ({ message: { recipients: list(v.recipients), body: v.body, ...(hasSubject ? { subject: v.subject } : {}) } }),
  });
});

// `messageComposer`: recipients, the subject (when the host sends one), text; Cancel, Send.
import { registerModal } from "./registry.js";
import { composer, looksLikeMailAddress } from "./composer.js";

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
    check: (v, list) => {
      const recipients = list(v.recipients);
      if (!recipients.length) return { key: "recipients", message: "Add a recipient first" };
      // A phone number has digits; an address an @ (a handle some services use).
      const wrong = recipients.find((recipient) => !/\d/.test(recipient) && !looksLikeMailAddress(recipient));
      return wrong ? { key: "recipients", message: `Not a phone number or address: ${wrong}` } : null;
    },
    content: (v, list) => ({ message: { recipients: list(v.recipients), body: v.body, ...(hasSubject ? { subject: v.subject } : {}) } }),
  });
});

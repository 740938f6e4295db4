// `mailComposer`: To, Cc, Bcc, Subject, Body; Cancel, Save draft, Send.
import { registerModal } from "./registry.js";
import { composer } from "./composer.js";

const joined = (addresses) => (addresses ?? []).join(", ");

registerModal("mailComposer", (modal, ui) => composer(ui, {
  title: "New mail",
  fields: [["to", "To", joined(modal.to)], ["cc", "Cc", joined(modal.cc)], ["bcc", "Bcc", joined(modal.bcc)],
           ["subject", "Subject", modal.subject ?? ""], ["body", "Body", modal.body ?? "", true]],
  statuses: [["Cancel", "cancelled"], ["Save draft", "saved"], ["Send", "sent"]],
  content: (v, list) => ({ mail: { to: list(v.to), cc: list(v.cc), bcc: list(v.bcc), subject: v.subject, body: v.body } }),
}));

// `webAuthentication`: with a host-served callback, a sign-in window the host answers for
// (closing it, Cancel or Escape: `failure` `cancelled`); with a custom scheme, the person
// pastes the address they were sent to.
import { registerModal } from "./registry.js";
import { actionButton, el } from "./dialog.js";
import { unsafeSignInURL } from "../signInURL.js";

registerModal("webAuthentication", (modal, ui) => {
  const refusal = unsafeSignInURL(modal.url);
  if (refusal) return refuseFlow(refusal, ui);
  return modal.callbackURL ? popupFlow(modal, ui) : pasteFlow(modal, ui);
});

function refuseFlow(reason, ui) {
  ui.heading("Sign in with your provider");
  ui.message(`This sign-in cannot be opened here: ${reason}. Nothing was opened; ask staff for help.`);
  // The host hears at once why nothing happens, so its flow ends with words too (the dialog
  // closes at its dismiss; Escape meanwhile is the same answer, already given).
  ui.onCancel(() => {});
  setTimeout(() => ui.answer({ type: "failure", code: "failed", message: `refused to open: ${reason}` }), 0);
}

// True whether the provider answers or hangs (the page cannot see into its window): the
// person is never left waiting on "closes by itself" with a blank window and no word.
const POPUP_OPEN = "A sign-in window is open. Finish there; this closes by itself once you are signed in. " +
  "If that window stays blank or shows an error you cannot get past, press Cancel and try again later.";

function popupFlow(modal, ui) {
  ui.heading("Sign in with your provider");
  const note = ui.message(POPUP_OPEN);
  let popup = null;
  let closedAt = 0;
  const cancel = () => { popup?.close(); ui.fail("cancelled", cancelButton); };
  const open = () => {
    popup = window.open(modal.url, `auth-${ui.id}`, "popup,width=520,height=640");
    closedAt = 0;
    if (popup) {
      note.textContent = POPUP_OPEN;
      ui.showError("");
    } else {
      ui.showError("The browser blocked the sign-in window. Allow pop-ups for this page, then open it again.");
    }
  };
  const cancelButton = actionButton("Cancel", { style: "cancel" });
  const reopen = actionButton("Open sign-in window", { preferred: true });
  cancelButton.addEventListener("click", cancel);
  reopen.addEventListener("click", open);
  ui.body.append(el("div", { class: "actions" }, cancelButton, reopen));
  ui.onCancel(cancel);
  // The window closed by the person is a cancel; the host's callback page closes it too,
  // so wait a moment for the host's dismiss before saying so.
  const watcher = setInterval(() => {
    if (!popup?.closed || ui.answered) return;
    closedAt ||= Date.now();
    if (Date.now() - closedAt >= 1500) { clearInterval(watcher); ui.fail("cancelled", cancelButton); }
  }, 250);
  ui.onClose(() => { clearInterval(watcher); if (popup && !popup.closed) popup.close(); });
  open();
}

function pasteFlow(modal, ui) {
  ui.heading("Sign in with your provider");
  ui.message(`Open this address, sign in, then paste the ${modal.callbackURLScheme}: address you are sent to.`);
  ui.body.append(el("a", { href: modal.url, target: "_blank", rel: "noopener", class: "link", text: modal.url }));
  const pasted = ui.field("Callback address", { attributes: { type: "url", autocomplete: "off" } });
  const { buttons } = ui.actions([{ title: "Cancel", style: "cancel" }, { title: "Done", preferred: true }], (index, button) =>
    (index === 0 ? ui.fail("cancelled", button) : ui.resolve({ url: pasted.value }, button)), { submitOnEnter: true });
  ui.onCancel(() => ui.fail("cancelled", buttons[0]));
}

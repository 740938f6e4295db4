// `actionSheet`: a list of choices, anchored to its control on wide screens, a bottom sheet
// on phones, centred as alerts are on a portrait kiosk screen (docs/page.md). Escape or a tap
// outside picks the cancel action, if it has one.
import { registerModal } from "./registry.js";

/** `dialog.modal`'s width in app.css (CSS pixels). */
const SHEET_WIDTH = 460;

/** app.css's portrait kiosk screen (1080x1920 and up). A person standing there looks at the
 *  middle of the screen, where every alert opens; a sheet anchored under its control sat at
 *  the top edge, over the page's text, next to the screen's right edge. */
const KIOSK_SCREEN = "(orientation: portrait) and (min-width: 1000px) and (min-height: 1600px)";

registerModal("actionSheet", (modal, ui) => {
  ui.dialog.classList.add("sheet");
  ui.heading(modal.title || "Choose", { hidden: !modal.title });
  if (modal.message) ui.message(modal.message);
  const { buttons, update } = ui.actions(modal.actions, (index, button) => ui.resolve({ action: index }, button));
  const cancelIndex = modal.actions.findIndex((action) => action.style === "cancel");
  if (cancelIndex >= 0) {
    ui.onCancel(() => (buttons[cancelIndex].disabled
      ? ui.refuse("Cancel is not available right now")
      : ui.resolve({ action: cancelIndex }, buttons[cancelIndex])));
  }
  const rect = modal.source ? ui.anchor(modal.source) : null;
  if (rect && window.matchMedia("(min-width: 700px)").matches && !window.matchMedia(KIOSK_SCREEN).matches) {
    ui.dialog.classList.add("anchored");
    // The control's rectangle is on screen; the dialog's position is in the page's own
    // (zoomed, on a kiosk screen) pixels.
    const zoom = document.documentElement.currentCSSZoom ?? 1;
    const page = window.innerWidth / zoom;
    const width = Math.min(SHEET_WIDTH, page - 32);   // as app.css sizes `dialog.modal`
    const margin = 16 / zoom + 2;                      // 16 screen pixels from the edges (and its border)
    const top = Math.round(rect.bottom / zoom + 8);
    const left = Math.round(Math.max(margin, Math.min(rect.left / zoom, page - width - margin)));
    ui.dialog.style.top = `${top}px`;
    ui.dialog.style.left = `${left}px`;
  }
  return { update };
});

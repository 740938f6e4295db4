// `photoPicker`: up to `selectionLimit` images or videos (`filter`; 0: no limit), the host's
// `prompt` above, uploaded, then the result.
import { registerModal } from "./registry.js";
import { picker } from "./picker.js";
import { acceptFor, pickerLimit } from "../options.js";

registerModal("photoPicker", (modal, ui) => picker(ui, {
  title: "Choose photos", noun: "photo", limit: pickerLimit(modal), maxBytes: modal.maxBytes ?? Infinity,
  accept: acceptFor(modal), prompt: modal.prompt,
}));

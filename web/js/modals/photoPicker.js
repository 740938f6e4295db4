// `photoPicker`: up to `selectionLimit` images (or videos; 0: no limit), uploaded, then the result.
import { registerModal } from "./registry.js";
import { picker } from "./picker.js";

registerModal("photoPicker", (modal, ui) => picker(ui, {
  title: "Choose photos", noun: "photo", limit: modal.selectionLimit === 0 ? 1000 : modal.selectionLimit ?? 1, maxBytes: modal.maxBytes ?? Infinity,
  accept: (modal.filter ?? ["image"]).map((type) => `${type}/*`).join(","),
}));

// `mediaPicker`: audio (or other media) files, one or many, uploaded, then the result.
import { registerModal } from "./registry.js";
import { picker } from "./picker.js";

registerModal("mediaPicker", (modal, ui) => picker(ui, {
  title: "Choose media", noun: "file", limit: modal.allowsMultiple ? 1000 : 1, maxBytes: modal.maxBytes ?? Infinity,
  accept: (modal.types ?? ["audio"]).map((type) => `${type}/*`).join(","),
}));

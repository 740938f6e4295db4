// `mediaPicker`: audio or video files (`types`), one or many, the host's `prompt` above,
// uploaded, then the result.
import { registerModal } from "./registry.js";
import { picker } from "./picker.js";
import { acceptFor, pickerLimit } from "../options.js";

registerModal("mediaPicker", (modal, ui) => picker(ui, {
  title: "Choose media", noun: "file", limit: pickerLimit(modal), maxBytes: modal.maxBytes ?? Infinity,
  accept: acceptFor(modal), prompt: modal.prompt,
}));

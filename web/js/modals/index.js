// The built-in kinds, each registering itself (docs/protocol.md, "Kinds").
import "./alert.js";
import "./actionSheet.js";
import "./webAuthentication.js";
import "./mailComposer.js";
import "./messageComposer.js";
import "./photoPicker.js";
import "./mediaPicker.js";

export { registerModal, capabilities } from "./registry.js";

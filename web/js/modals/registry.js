// One registry for every kind of modal the page can show: the built-in kinds (one module
// each, in this folder) and custom ones register the same way, by the capability they add.

const renderers = new Map();

/**
 * Registers how to show one kind of modal.
 * @param {string} capability  a built-in kind ("alert") or "custom:NAME" for custom modals
 * @param {(modal: object, ui: import("./dialog.js").DialogUI) => (void|Node|{update?: Function})} render
 *   fills `ui.body` (or returns a node to append); every answer goes through `ui.resolve`,
 *   `ui.fail` or `ui.cancel`. A renderer that calls `ui.onCancel(fn)` decides what Escape,
 *   the browser's back gesture and a tap outside a sheet do; without it they are refused
 *   visibly.
 */
export function registerModal(capability, render) {
  if (typeof render !== "function") throw new TypeError("registerModal needs a render function");
  renderers.set(capability, render);
}

/** The capabilities to advertise in `hello`: every registered kind. */
export function capabilities() { return [...renderers.keys()]; }

/** The renderer for a modal description, or null. */
export function rendererFor(modal) {
  const capability = modal?.kind === "custom" ? `custom:${modal.name}` : modal?.kind;
  return renderers.get(capability) ?? null;
}

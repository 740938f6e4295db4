// The optional fields a host may add to a modal (docs/protocol.md, "Optional fields added
// since version 1"), turned into what the page needs: input attributes, file-chooser types,
// attachment sizes, and an HTML mail body reduced to a small safe tree. No DOM: the
// sanitizer reads any tree with `nodeType`, `nodeName`, `childNodes`, `getAttribute` and
// `textContent` (a parsed document in the page, plain objects in tests).

const FIELD_TYPES = {
  plain: { type: "text", autocomplete: "off" },
  email: { type: "email", autocomplete: "email", inputmode: "email", spellcheck: "false" },
  password: { type: "password", autocomplete: "current-password" },
  phoneNumber: { type: "tel", autocomplete: "tel", inputmode: "tel" },
  number: { type: "text", inputmode: "decimal", autocomplete: "off" },
  url: { type: "url", autocomplete: "url", inputmode: "url", spellcheck: "false" },
};

const INPUT_MODES = { default: null, email: "email", numeric: "numeric", decimal: "decimal", phone: "tel", url: "url" };
const AUTOCAPITALIZE = new Set(["none", "off", "on", "words", "sentences", "characters"]);

/**
 * An alert text field's input attributes: its `kind`, then the hints a host may add:
 * `keyboard` (the `inputmode`; `default` or an unknown value: the kind's keyboard),
 * `autocapitalize`, `contentType` (the `autocomplete` token) and `secure` (masks the field,
 * or unmasks a password when `false`).
 */
export function fieldAttributes(field) {
  const attributes = { ...(FIELD_TYPES[field?.kind] ?? FIELD_TYPES.plain) };
  const mode = INPUT_MODES[field?.keyboard];
  if (mode) attributes.inputmode = mode;
  else if (field?.keyboard === "default") delete attributes.inputmode;
  if (AUTOCAPITALIZE.has(field?.autocapitalize)) attributes.autocapitalize = field.autocapitalize;
  if (typeof field?.contentType === "string" && /^[\w -]{1,64}$/.test(field.contentType)) attributes.autocomplete = field.contentType;
  if (field?.secure === true) attributes.type = "password";
  if (field?.secure === false && attributes.type === "password") attributes.type = "text";
  // Browsers ignore "off" on a password field (and fill it anyway): leave it out there.
  if (attributes.type === "password" && attributes.autocomplete === "off") delete attributes.autocomplete;
  if (attributes.type === "password" || ["none", "off"].includes(attributes.autocapitalize)) attributes.autocorrect = "off";
  return attributes;
}

/** The protocol's array limit: the most files a picker with no limit takes (docs/protocol.md). */
export const MOST_FILES = 1000;

const AUDIO = new Set(["audio", "music", "podcast", "audiobook", "anyaudio", "audioaudiobook", "itunesu"]);

/** A photo picker's `filter` or a media picker's `types` as a file chooser's `accept`. */
export function acceptFor(modal) {
  const kinds = new Set();
  if (modal?.kind === "photoPicker") {
    const filter = Array.isArray(modal.filter) ? modal.filter : ["image"];
    for (const name of filter) if (name === "image" || name === "video") kinds.add(name);
    if (filter.length === 0) { kinds.add("image"); kinds.add("video"); }
  } else {
    const types = Array.isArray(modal?.types) ? modal.types : ["audio"];
    for (const name of types.map((type) => String(type).toLowerCase())) {
      if (name === "any") { kinds.add("audio"); kinds.add("video"); } else kinds.add(AUDIO.has(name) ? "audio" : "video");
    }
    if (types.length === 0) { kinds.add("audio"); kinds.add("video"); }
  }
  return [...kinds].sort().map((kind) => `${kind}/*`).join(",");
}

/** How many files a picker takes: `Infinity` for a photo picker's `selectionLimit` 0. */
export function pickerLimit(modal) {
  if (modal?.kind === "photoPicker") {
    const limit = modal.selectionLimit ?? 1;
    return limit === 0 ? Infinity : Math.max(1, limit);
  }
  return modal?.allowsMultiple ? Infinity : 1;
}

/** The decoded size of standard base64 (with or without padding). */
export function base64Size(data) {
  const text = String(data ?? "").replace(/\s/g, "");
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor(text.length * 3 / 4) - padding);
}

/** Plain text as HTML, as the kiosk makes it: reserved characters escaped, line breaks `<br>`. */
export function textToHTML(text) {
  return String(text).replace(/\r\n?/g, "\n").replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c])
    .replace(/\n/g, "<br>\n");
}

// The sanitizer: a small allow-list, everything else unwrapped (its text kept) or dropped.
const KEPT = new Set(["p", "br", "b", "strong", "i", "em", "u", "ul", "ol", "li", "a", "blockquote", "pre", "code", "h1", "h2", "h3", "h4"]);
const DROPPED = new Set(["script", "style", "template", "noscript", "iframe", "frame", "frameset", "object", "embed", "applet",
                         "img", "picture", "video", "audio", "source", "track", "svg", "math", "canvas", "head", "title",
                         "meta", "link", "base", "form", "input", "button", "select", "textarea", "option", "dialog", "portal"]);
const MAX_DEPTH = 32;
const TEXT = 3;
const ELEMENT = 1;

/** An `href` a person may follow from a mail: absolute http, https or mailto; anything else null. */
export function safeHref(href) {
  if (typeof href !== "string") return null;
  let url;
  try { url = new URL(href.trim()); } catch { return null; }
  return ["http:", "https:", "mailto:"].includes(url.protocol) ? url.href : null;
}

/**
 * A parsed HTML body as a safe tree: strings, and `{tag, href?, children}` for the allowed
 * elements only (`href` on every link: a link `safeHref` refuses is kept as its text). Comments and the
 * dropped elements vanish with their content; other elements (div, span, table, font...)
 * give way to their children. Past 32 levels only text is kept.
 */
export function sanitizeTree(root, depth = 0) {
  const out = [];
  for (const node of root?.childNodes ?? []) {
    if (node.nodeType === TEXT) { if (node.textContent) out.push(node.textContent); continue; }
    if (node.nodeType !== ELEMENT) continue;
    const tag = String(node.nodeName).toLowerCase();
    if (DROPPED.has(tag)) continue;
    if (depth >= MAX_DEPTH) { if (node.textContent) out.push(node.textContent); continue; }
    const children = sanitizeTree(node, depth + 1);
    if (!KEPT.has(tag)) { out.push(...children); continue; }
    const item = { tag, children };
    if (tag === "a") {
      // A link without a safe address is only its text: nothing to follow, nothing that looks followable.
      const href = safeHref(node.getAttribute?.("href"));
      if (!href) { out.push(...children); continue; }
      item.href = href;
    }
    out.push(item);
  }
  return out;
}

const BLOCKS = new Set(["p", "ul", "ol", "li", "blockquote", "pre", "h1", "h2", "h3", "h4"]);

/** A safe tree as readable text (the "edit as text" start): blocks on their own lines, list
 *  items marked, links written after their text, at most one blank line in a row. */
export function treeText(items) {
  const walk = (list) => list.map((item) => {
    if (typeof item === "string") return item.replace(/\s+/g, " ");
    if (item.tag === "br") return "\n";
    if (item.tag === "pre") return `\n\n${item.children.map((c) => (typeof c === "string" ? c : walk([c]))).join("")}\n\n`;
    let inner = walk(item.children);
    if (item.tag === "a" && item.href) {
      const shown = item.href.startsWith("mailto:") ? item.href.slice(7) : item.href;
      const label = inner.trim();
      if (label && label !== shown && label !== item.href) inner = `${inner} (${shown})`;
      else if (!label) inner = shown;
    }
    if (item.tag === "li") return `\n- ${inner.trim()}`;
    return BLOCKS.has(item.tag) ? `\n\n${inner.trim()}\n\n` : inner;
  }).join("");
  return walk(items).split("\n").map((line) => line.replace(/^ +| +$/g, "")).join("\n")
    .replace(/\n{3,}/g, "\n\n").trim();
}

// The optional modal fields, DOM-free: text field hints, picker types and limits, attachment
// sizes, and the HTML mail sanitizer over a parsed tree (plain objects standing in for the
// nodes DOMParser makes). Checked against the golden fixtures. Run: node --test Tests/js/
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { acceptFor, base64Size, fieldAttributes, pickerLimit, safeHref, sanitizeTree, textToHTML, treeText } from "../../web/js/options.js";

const fixture = (name) => JSON.parse(readFileSync(new URL(`../Fixtures/protocol/${name}.json`, import.meta.url), "utf8"));

// A parsed tree as DOMParser would give it: elements (upper-case names, attributes), text, comments.
function h(tag, attributes = {}, ...children) {
  const childNodes = children.map((child) => (typeof child === "string" ? { nodeType: 3, nodeName: "#text", textContent: child } : child));
  return { nodeType: 1, nodeName: tag.toUpperCase(), childNodes, getAttribute: (name) => attributes[name] ?? null,
           get textContent() { return childNodes.map((node) => node.textContent ?? "").join(""); } };
}
const comment = (text) => ({ nodeType: 8, nodeName: "#comment", textContent: text });
const body = (...children) => h("body", {}, ...children);

test("the configured alert fixture: a one-time code on the numeric keyboard, a masked PIN", () => {
  const [code, pin] = fixture("host.present.alert.configured").modal.textFields;
  assert.deepEqual(fieldAttributes(code), { type: "text", autocomplete: "one-time-code", inputmode: "numeric", autocapitalize: "none", autocorrect: "off" });
  assert.deepEqual(fieldAttributes(pin), { type: "password", autocorrect: "off" }, "masked; no autocomplete=off, which browsers ignore on passwords");
});

test("field hints: keyboards map to inputmode, secure false unmasks, unknown values fall back", () => {
  assert.equal(fieldAttributes({ kind: "plain", keyboard: "phone" }).inputmode, "tel");
  assert.equal(fieldAttributes({ kind: "plain", keyboard: "email" }).inputmode, "email");
  assert.equal(fieldAttributes({ kind: "plain", keyboard: "url" }).inputmode, "url");
  assert.equal(fieldAttributes({ kind: "email", keyboard: "default" }).inputmode, undefined, "default: the standard keyboard");
  assert.equal(fieldAttributes({ kind: "number", keyboard: "hologram" }).inputmode, "decimal", "unknown: the kind's keyboard");
  assert.equal(fieldAttributes({ kind: "password", secure: false }).type, "text");
  assert.equal(fieldAttributes({ kind: "plain", autocapitalize: "words" }).autocapitalize, "words");
  assert.equal(fieldAttributes({ kind: "plain", autocapitalize: "loud" }).autocapitalize, undefined);
  assert.equal(fieldAttributes({ kind: "plain", contentType: "username" }).autocomplete, "username");
  assert.equal(fieldAttributes({ kind: "plain", contentType: "x\" onfocus=\"y" }).autocomplete, "off", "not a token: ignored");
  assert.deepEqual(fieldAttributes({ kind: "url" }), { type: "url", autocomplete: "url", inputmode: "url", spellcheck: "false" }, "no hints: as before");
});

test("picker filters become the chooser's accept; selectionLimit 0 is no limit", () => {
  const photo = fixture("host.present.photoPicker.prompt").modal;
  assert.equal(acceptFor(photo), "image/*,video/*");
  assert.equal(pickerLimit(photo), Infinity);
  assert.equal(acceptFor(fixture("host.present.photoPicker").modal), "image/*");
  assert.equal(pickerLimit(fixture("host.present.photoPicker").modal), 3);
  assert.equal(acceptFor({ kind: "photoPicker", filter: [] }), "image/*,video/*", "empty: both");
  assert.equal(acceptFor({ kind: "photoPicker" }), "image/*", "absent: images, the default");
  const media = fixture("host.present.mediaPicker.prompt").modal;
  assert.equal(acceptFor(media), "audio/*");
  assert.equal(pickerLimit(media), 1);
  assert.equal(acceptFor({ kind: "mediaPicker", types: ["music", "podcast"] }), "audio/*");
  assert.equal(acceptFor({ kind: "mediaPicker", types: ["movie"] }), "video/*");
  assert.equal(acceptFor({ kind: "mediaPicker", types: ["any"] }), "audio/*,video/*");
  assert.equal(acceptFor({ kind: "mediaPicker", types: [] }), "audio/*,video/*");
  assert.equal(pickerLimit({ kind: "mediaPicker", allowsMultiple: true }), Infinity);
});

test("an attachment's size is its decoded size", () => {
  const [invoice] = fixture("host.present.mailComposer.attachments").modal.attachments;
  assert.equal(base64Size(invoice.data), Buffer.from(invoice.data, "base64").length);
  for (const length of [0, 1, 2, 3, 4, 1000, 12_595]) {
    assert.equal(base64Size(Buffer.alloc(length, 7).toString("base64")), length);
  }
});

test("text edited from an HTML body goes back escaped, line breaks as <br>, as the kiosk does", () => {
  assert.equal(textToHTML("a < b & \"c\"\nnext\r\nlast"), "a &lt; b &amp; &quot;c&quot;<br>\nnext<br>\nlast");
  assert.equal(textToHTML("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
});

test("only http, https and mailto links survive", () => {
  assert.equal(safeHref("https://example.com/terms"), "https://example.com/terms");
  assert.equal(safeHref("mailto:a@example.com"), "mailto:a@example.com");
  for (const bad of ["javascript:alert(1)", " JaVaScRiPt:alert(1)", "java\tscript:alert(1)", "\u0001javascript:alert(1)",
                     "data:text/html,<script>alert(1)</script>", "vbscript:x", "/relative", "//evil.example/x", "", null, undefined]) {
    assert.equal(safeHref(bad), null, String(bad));
  }
});

test("the sanitizer keeps the allow-list, unwraps the rest, drops scripts, styles, frames and images", () => {
  const tree = sanitizeTree(body(
    h("p", { style: "color:red", onclick: "x()" }, "Hello ", h("b", {}, "bold"), h("img", { src: "x", onerror: "alert(1)" })),
    h("script", {}, "alert(2)"),
    h("style", {}, "p { display: none }"),
    h("iframe", { src: "https://evil.example" }, "frame text"),
    comment("<script>alert(3)</script>"),
    h("div", { class: "x" }, h("span", {}, "unwrapped"), h("a", { href: "javascript:alert(4)", onmouseover: "y" }, "bad link")),
    h("a", { href: "https://example.com/terms", target: "_self" }, "terms"),
    h("svg", {}, h("script", {}, "alert(5)")),
    h("ul", {}, h("li", {}, "one"), h("li", {}, "two")),
  ));
  assert.deepEqual(tree, [
    { tag: "p", children: ["Hello ", { tag: "b", children: ["bold"] }] },
    "unwrapped",
    "bad link",
    { tag: "a", href: "https://example.com/terms", children: ["terms"] },
    { tag: "ul", children: [{ tag: "li", children: ["one"] }, { tag: "li", children: ["two"] }] },
  ]);
  assert.doesNotMatch(JSON.stringify(tree), /alert|onerror|onclick|style|evil/);
});

test("deep nesting keeps its text and stops building elements", () => {
  let node = h("b", {}, "deep");
  for (let i = 0; i < 200; i++) node = h(i % 2 ? "i" : "div", {}, node);
  const tree = sanitizeTree(body(node));
  let depth = 0;
  for (let at = tree; at.length && typeof at[0] !== "string"; at = at[0].children) depth += 1;
  assert.ok(depth <= 32, `depth ${depth}`);
  assert.match(JSON.stringify(tree), /deep/);
});

test("readable text of a safe tree: paragraphs, list items, links after their text", () => {
  const tree = sanitizeTree(body(
    h("p", {}, "Hello & welcome,"),
    h("p", {}, "see ", h("a", { href: "https://example.com/terms" }, "our terms"), "."),
    h("ul", {}, h("li", {}, "one"), h("li", {}, "two")),
    h("p", {}, "line", h("br"), "break ", h("a", { href: "mailto:a@example.com" }, "a@example.com")),
  ));
  assert.equal(treeText(tree), "Hello & welcome,\n\nsee our terms (https://example.com/terms).\n\n- one\n- two\n\nline\nbreak a@example.com");
});

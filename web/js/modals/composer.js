// What the mail and message composers share: labelled fields, Cancel / (Save draft) / Send
// as values of the result, never sent by Enter in a one-line field.

const list = (text) => text.split(/[,;]/).map((part) => part.trim()).filter(Boolean);

/** What was written, as text to keep: "To: ..." lines for the one-line fields, then the body. */
function writtenText(parts) {
  const lines = [];
  const blocks = [];
  for (const [, part] of parts) {
    const text = part.text?.() ?? "";
    if (!part.label || !text.trim()) continue;
    if (part.multiline) blocks.push(text); else lines.push(`${part.label}: ${text}`);
  }
  return [lines.join("\n"), ...blocks].filter(Boolean).join("\n\n");
}

/** A mail address as a person would type one: something, an @, a domain; no spaces. */
export const looksLikeMailAddress = (text) => /^[^\s@,;<>"]+@[^\s@,;<>"]+$/.test(text);

/**
 * @param {object} ui  the dialog
 * @param {{title: string, fields: (object|null)[], statuses: [string, string][],
 *          content(values: object, list: Function): object}} spec
 *   fields (null ones are left out): `{key, label, value, multiline, attributes}` for a text
 *   field, or `{key, label?, build(ui) -> {value(), text?()}}` for a part of its own (an HTML
 *   body, attachments; `text()`: what the person reads and wrote there);
 *   statuses: [button title, status]
 *   check(values, list): for Send only, what keeps it from going (`{key, message}`: the field
 *   to fix and why), or null. Cancel and Save draft always go.
 */
export function composer(ui, { title, fields, statuses, content, check = null }) {
  ui.heading(title);
  // What the person typed survives a reload: a draft per modal in session storage (the host
  // keeps only an alert's input), restored when the host presents the modal again.
  const draft = ui.draft();
  const saved = draft.load() ?? {};
  const typed = {};
  const parts = fields.filter(Boolean).map((field) => {
    if (field.build) return [field.key, { label: field.label, multiline: true, ...field.build(ui) }];
    const value = typeof saved[field.key] === "string" ? saved[field.key] : field.value;
    const input = ui.field(field.label, { value, multiline: field.multiline,
                                         attributes: { autocomplete: "off", name: field.key, ...field.attributes } });
    typed[field.key] = input;
    input.addEventListener("input", () => draft.save(Object.fromEntries(Object.entries(typed).map(([key, node]) => [key, node.value]))));
    return [field.key, { label: field.label, multiline: field.multiline, value: () => input.value, text: () => input.value }];
  });
  const values = () => Object.fromEntries(parts.map(([key, part]) => [key, part.value()]));
  let cancelled = false;
  const answer = (index, button) => {
    const problem = statuses[index][1] === "sent" ? check?.(values(), list) : null;
    if (problem) {
      const input = typed[problem.key];
      if (input) fieldError(ui, input, problem.message); else ui.refuse(problem.message);
      input?.focus();
      return;
    }
    cancelled = statuses[index][1] === "cancelled";
    ui.resolve({ status: statuses[index][1], ...content(values(), list) }, button);
  };
  // Should the host end the composer without taking it (shutting down, restarted, timed out),
  // its notice shows what was written, to copy and keep; not after the person's own Cancel.
  ui.unsent(() => (ui.answered && cancelled ? "" : writtenText(parts)));
  const actions = statuses.map(([name, status], index) => ({
    title: name, style: status === "cancelled" ? "cancel" : "default", enabled: true, preferred: index === statuses.length - 1,
  }));
  const { buttons } = ui.actions(actions, answer);
  // Enter in a one-line field moves on instead of sending (a form would submit).
  ui.body.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.target.tagName !== "INPUT") return;
    event.preventDefault();
    const order = [...ui.body.querySelectorAll("input:not([type=file]), textarea")].filter((node) => node.offsetParent !== null);
    order[order.indexOf(event.target) + 1]?.focus();
  });
  // Escape, the back gesture or a tap outside after typing does not throw the text away at
  // once: the first asks for a second, which discards it however late it comes, as the kiosk's
  // does, unless the person typed or pressed another key meanwhile (a 4 s limit, unsaid, made a
  // late second Escape ask again: issue 32's cold trial). The Cancel button cancels at once.
  const initial = JSON.stringify(values());
  let armed = false;
  const disarm = (event) => { if (event.type === "input" || event.key !== "Escape") armed = false; };
  ui.body.addEventListener("input", disarm);
  ui.body.addEventListener("keydown", disarm);
  ui.onCancel(() => {
    if (JSON.stringify(values()) === initial || armed) return answer(0, buttons[0]);
    armed = true;
    return ui.refuse("Press Escape again to discard what you wrote");
  });
}

/** Says what is wrong with a field right under it (and to screen readers, through
 *  `aria-invalid` and `aria-describedby`), shaking the dialog as a refusal does; the words go
 *  when the field's text changes. They were in the dialog's hint line, far below the field. */
function fieldError(ui, input, message) {
  const id = `${input.id}-error`;
  let note = document.getElementById(id);
  if (!note) {
    note = Object.assign(document.createElement("p"), { id, className: "field-error" });
    note.setAttribute("role", "alert");
    input.after(note);
    input.addEventListener("input", () => {
      note.remove();
      input.removeAttribute("aria-invalid");
      input.removeAttribute("aria-describedby");
    }, { once: true });
  }
  note.textContent = message;
  input.setAttribute("aria-invalid", "true");
  input.setAttribute("aria-describedby", id);
  ui.shake();
}

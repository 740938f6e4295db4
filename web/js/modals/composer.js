// What the mail and message composers share: labelled fields, Cancel / (Save draft) / Send
// as values of the result, never sent by Enter in a one-line field.

const list = (text) => text.split(/[,;]/).map((part) => part.trim()).filter(Boolean);

/**
 * @param {object} ui  the dialog
 * @param {{title: string, fields: [string, string, string, boolean][], statuses: [string, string][],
 *          content(values: object, list: Function): object}} spec
 *   fields: [key, label, initial value, multiline]; statuses: [button title, status]
 */
export function composer(ui, { title, fields, statuses, content }) {
  ui.heading(title);
  const inputs = Object.fromEntries(fields.map(([key, label, value, multiline]) =>
    [key, ui.field(label, { value, multiline, attributes: { autocomplete: "off", name: key } })]));
  const values = () => Object.fromEntries(Object.entries(inputs).map(([key, input]) => [key, input.value]));
  const answer = (index, button) => ui.resolve({ status: statuses[index][1], ...content(values(), list) }, button);
  const actions = statuses.map(([name, status], index) => ({
    title: name, style: status === "cancelled" ? "cancel" : "default", enabled: true, preferred: index === statuses.length - 1,
  }));
  const { buttons } = ui.actions(actions, answer);
  // Enter in a one-line field moves on instead of sending (a form would submit).
  ui.body.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.target.tagName !== "INPUT") return;
    event.preventDefault();
    const order = Object.values(inputs);
    order[order.indexOf(event.target) + 1]?.focus();
  });
  ui.onCancel(() => answer(0, buttons[0]));
}

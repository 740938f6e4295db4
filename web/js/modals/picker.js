// What the photo and media pickers share: a styled file chooser, previews with sizes,
// limits checked before sending, an upload whose bar moves only with the host's
// acknowledgements, stands still (and says so) while offline, and can be cancelled at any
// moment; a refused upload offers Retry (unless only another selection can help) and Cancel.
import { actionButton, el, setBusy } from "./dialog.js";
import { formatBytes, formatBytesPair } from "../format.js";
import { MOST_FILES } from "../options.js";

/**
 * @param {object} ui  the dialog
 * @param {{title: string, noun: string, limit: number, accept: string, maxBytes: number, prompt?: string}} spec
 *   limit: `Infinity` for no limit (the protocol's 1,000 files still apply)
 */
export function picker(ui, { title, noun, limit, accept, maxBytes, prompt }) {
  ui.heading(title);
  const most = Number.isFinite(maxBytes) ? `${formatBytes(maxBytes)} in all` : "";
  const tail = most ? `, ${most}` : "";
  let rule;
  if (!Number.isFinite(limit)) rule = `Any number of ${describeAccept(accept, true) ?? `${noun}s`}${tail}.`;
  else if (limit > 1) rule = `Up to ${limit} ${describeAccept(accept, true) ?? `${noun}s`}${tail}.`;
  else rule = `One ${describeAccept(accept, false) ?? noun}${tail}.`;
  // The host's prompt is what the person reads first; the rule follows it.
  if (typeof prompt === "string" && prompt) {
    const line = el("p", { id: `prompt-${ui.id}`, class: "prompt", text: prompt });
    ui.body.append(line);
    ui.message(rule, { className: "message picker-rule" });
    ui.dialog.setAttribute("aria-describedby", `${line.id} message-${ui.id}`);
  } else {
    ui.message(rule);
  }
  limit = Math.min(limit, MOST_FILES);
  const input = el("input", { type: "file", accept, multiple: limit > 1, class: "visually-hidden", tabindex: "-1", "aria-hidden": "true" });
  const choose = actionButton(limit > 1 ? `Choose ${noun}s…` : `Choose a ${noun}…`, { style: "chooser" });
  choose.addEventListener("click", () => input.click());
  const previews = el("ul", { class: "previews", "aria-label": `Chosen ${noun}s` });
  const note = el("p", { class: "picker-note" });
  const progress = el("progress", { max: 1, value: 0, hidden: true, "aria-label": "Upload progress" });
  const progressText = el("p", { class: "progress-text", role: "status", "aria-live": "polite" });
  // Which files are being sent is kept in session storage (the modal's draft, removed with its
  // dismiss); the files themselves are not. After a reload the host presents the picker
  // again (with what it holds of them): it says why it is empty, and the same files chosen
  // again go on from there.
  const record = ui.draft();
  const kept = record.load()?.uploading;
  let sending = Array.isArray(kept) ? kept.filter((entry) => typeof entry?.name === "string" && Number.isInteger(entry.size)) : null;
  const stoppedLine = el("p", { class: "picker-stopped", role: "status", text: sending?.length ? stoppedText(sending) : "" });
  ui.body.append(stoppedLine, el("div", { class: "chooser-row" }, choose, input), previews, note, progress, progressText);

  let files = [];
  let upload = null;
  const { buttons } = ui.actions([{ title: "Cancel", style: "cancel" }, { title: "Send", preferred: true, enabled: false }], (index, button) => {
    if (index === 0) return cancel();
    if (upload?.state === "failed") return upload.retry();
    return send(button);
  });
  const [cancelButton, sendButton] = buttons;

  // A refused upload gives the files back: the person removes one, or chooses others.
  let replaced = false;                    // files changed after a refusal: see `show`
  const restart = () => {
    if (upload?.state !== "failed") return;
    replaced = true;
    upload.stop();
    upload = null;
    progress.hidden = true;
    progressText.textContent = "";
    delete ui.dialog.dataset.upload;
    ui.showError("");
    sendButton.querySelector(".label").textContent = "Send";
  };

  const chosen = () => {
    const idle = !upload || upload.state === "failed";
    previews.replaceChildren(...files.slice(0, 12).map((file, index) => {
      const remove = actionButton("Remove", { style: "secondary small", enabled: idle });
      remove.setAttribute("aria-label", `Remove ${file.name}`);
      remove.addEventListener("click", () => {
        restart();
        files = files.filter((_, at) => at !== index);
        chosen();
        (previews.querySelector("button:not([disabled])") ?? choose).focus();
      });
      return el("li", {}, thumbnail(file),
        el("span", { class: "file-text" }, el("span", { class: "file-name", text: file.name }),
           el("span", { class: "file-size", text: formatBytes(file.size) })), remove);
    }));
    const bytes = files.reduce((sum, file) => sum + file.size, 0);
    let problem = null;
    if (files.length > limit) problem = `Too many: ${files.length} chosen, at most ${limit}.`;
    else if (bytes > maxBytes) {
      const [picked, most] = formatBytesPair(bytes, maxBytes);
      problem = `Too large: ${picked} chosen, at most ${most} in all.`;
    }
    note.textContent = problem ?? (files.length ? `${files.length} ${noun}${files.length === 1 ? "" : "s"}, ${formatBytes(bytes)}` : "");
    note.classList.toggle("error-text", Boolean(problem));
    if (idle && upload?.state !== "failed") sendButton.disabled = files.length === 0 || Boolean(problem);
  };

  input.addEventListener("change", () => {
    // Files chosen again after a refusal (a type the host does not take): a new upload.
    restart();
    files = [...input.files];
    input.value = "";                      // the same file can be chosen again after a Remove
    // The note about an upload a reload stopped asks for its files: it names only those not
    // chosen again (same name and size), and goes once they all are.
    if (stoppedLine.textContent && sending?.length) {
      const missing = sending.filter((kept) => !files.some((file) => file.name === kept.name && file.size === kept.size));
      stoppedLine.textContent = missing.length ? stoppedText(missing) : "";
    }
    chosen();
  });

  // The bytes acknowledged when the connection was lost, and whether the resume went on from
  // fewer: the host drops a file that gets no chunk for its stall time (60 s by default), and
  // the bar jumping back without a word read as the page losing the person's upload.
  let pausedAt = null;
  let restarted = false;
  const show = ({ state, acked, total, error, ref }) => {
    if (state === "paused") {
      pausedAt ??= acked;
      restarted = false;
    } else if (state === "sending" && pausedAt !== null) {
      restarted = acked < pausedAt;
      pausedAt = null;
    } else if (state !== "sending") {
      pausedAt = null;
      restarted = false;
    }
    // The host may still hold files of the refused selection (sent beside the refused one):
    // the result of the new selection then does not match, and the host drops every file.
    // Sending the new selection once more, from the start, is then what the person asked for.
    // A refused result gives the dialog back to the person (it was answered).
    if (state === "failed" && ui.answered) ui.rejected("");
    if (state === "done" || state === "cancelled") record.clear();   // its answer is kept from here on
    if (state === "failed" && ref === "result" && replaced) {
      replaced = false;
      queueMicrotask(() => upload?.retry());
    }
    progress.hidden = false;
    progress.value = total ? acked / total : 1;
    ui.dialog.dataset.upload = state;
    const amount = `${formatBytes(acked)} of ${formatBytes(total)}`;
    progressText.textContent = {
      sending: restarted
        ? `Uploading again… ${amount}: the host dropped what it held while the connection was away.`
        : `Uploading… ${amount}`,
      paused: `Connection lost at ${amount}. The upload goes on from there if the connection is back within a minute; after that it starts again.`,
      failed: `Stopped at ${amount}.`,
      finishing: `Uploaded ${formatBytes(total)}; checking…`,
      done: `Uploaded ${formatBytes(total)}.`,
      cancelled: "Upload cancelled.",
      stopped: "",
    }[state] ?? "";
    // A refusal of what was chosen (a type this picker does not take, more bytes than it
    // takes) comes again on a retry: only another selection helps, so no Retry is offered.
    const final = state === "failed" && /accepted here|add up to more than/.test(String(error ?? ""));
    const what = final
      ? `${files.length > 1 ? `Remove it, choose other ${noun}s` : `Choose another ${noun}`}, or cancel`
      : `Retry${files.length > 1 ? `, remove a ${noun}` : ""}, choose other ${noun}s, or cancel`;
    ui.showError(state === "failed" ? `The host refused the upload: ${named(error)}. ${what}.` : "");
    setBusy(sendButton, state === "sending" || state === "finishing" || state === "paused");
    sendButton.querySelector(".label").textContent = state === "failed" && !final ? "Retry" : "Send";
    sendButton.disabled = state !== "failed" || final;
    choose.disabled = state !== "failed";
    for (const remove of previews.querySelectorAll("button")) remove.disabled = state !== "failed";
  };

  /** The host's "file 1 ('b.png')" or "file 1" as the name the person chose. */
  const named = (text) => String(text ?? "").replace(/\bfile (\d+)(?: \('[^']*'\))?/g, (whole, index) => {
    const name = upload?.files[Number(index)]?.name;
    return name ? `“${name}”` : whole;
  });

  function send() {
    // What the host holds of a file is used only for the same file (name and size) at the same place.
    const before = sending;
    const held = (index, file) => !before || (before[index]?.name === file.name && before[index]?.size === file.size);
    sending = files.map((file) => ({ name: file.name, size: file.size }));
    record.save({ uploading: sending });
    stoppedLine.textContent = "";
    upload = ui.upload(files, show, { held });
  }

  function cancel() {
    setBusy(sendButton, false);
    if (upload?.active) {
      setBusy(cancelButton, true);
      upload.cancel();                    // sends failure cancelled through the dialog
    } else {
      ui.fail("cancelled", cancelButton);
    }
  }
  ui.onCancel(cancel);
  ui.onClose(() => upload?.stop());
}

/** Why a picker shown again after a reload is empty: the files being sent, by name. */
function stoppedText(files) {
  const names = files.slice(0, 3).map((file) => `“${file.name}”`);
  if (files.length > 3) names.push(`${files.length - 3} more`);
  const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : names[0];
  const again = files.length > 1 ? "the files" : "the file";
  return `The upload of ${list} stopped when the page was reloaded: choose ${again} again to continue.`;
}

/** What a chooser's `accept` lets through, in words ("images or videos"); null: anything. */
function describeAccept(accept, plural) {
  const names = { "image/*": "photo", "video/*": "video", "audio/*": "audio file" };
  const kinds = accept.split(",").map((type) => names[type]).filter(Boolean).map((name) => (plural ? `${name}s` : name));
  return kinds.length ? kinds.join(" or ") : null;
}

/** A picture's thumbnail, or its file type when it has none (or does not decode). */
function thumbnail(file) {
  const icon = () => el("span", { class: "file-icon", "aria-hidden": "true", text: (file.name.split(".").pop() || "file").slice(0, 4).toUpperCase() });
  if (!file.type.startsWith("image/")) return icon();
  const image = el("img", { src: URL.createObjectURL(file), alt: "" });
  image.addEventListener("error", () => image.replaceWith(icon()));
  return image;
}

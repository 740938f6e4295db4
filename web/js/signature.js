// An example custom modal: the host presents {"kind":"custom","name":"signature",
// "payload":{"prompt":"..."}} to clients advertising custom:signature; the person types
// their name and the result is {"name": "..."}.
import { registerModal } from "./render.js";

registerModal("signature", (payload, { resolve, cancel }) => {
  const box = document.createElement("div");
  const title = document.createElement("h2");
  title.textContent = payload?.prompt ?? "Sign";
  const input = document.createElement("input");
  input.type = "text";
  input.setAttribute("aria-label", "Your name");
  input.placeholder = "Your name";
  const sign = document.createElement("button");
  sign.type = "button";
  sign.className = "action default preferred";
  sign.textContent = "Sign";
  sign.addEventListener("click", () => resolve({ name: input.value }));
  const back = document.createElement("button");
  back.type = "button";
  back.className = "action cancel";
  back.textContent = "Cancel";
  back.addEventListener("click", cancel);
  const row = document.createElement("div");
  row.className = "actions";
  row.append(back, sign);
  box.append(title, input, row);
  return box;
});

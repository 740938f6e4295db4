// Which sign-in addresses the page opens (DOM-free, so node tests it).

/** Why a sign-in address must not be opened, or null: only https, and http to this machine
 *  (a development provider). A javascript:, data: or file: address would run in, or read
 *  from, this page's origin, where the session id lives. */
export function unsafeSignInURL(text) {
  let url;
  try { url = new URL(text); } catch { return "the sign-in address is not a web address"; }
  const loopback = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i.test(url.hostname);
  // https://bank.example@evil.example/ reads as one host and opens another.
  if ((url.protocol === "https:" || url.protocol === "http:") && (url.username || url.password)) {
    return "the sign-in address carries a user name before its host";
  }
  if (url.protocol === "https:" && url.hostname) return null;
  if (url.protocol === "http:" && loopback) return null;
  return `the sign-in address is not https (${url.protocol.replace(/:$/, "") || "no scheme"})`;
}

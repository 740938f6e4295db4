// The page's URL policy: which WebSocket URL the page connects to. Not the protocol
// client's business (a kiosk or a test names its URL itself).

/**
 * Which WebSocket URL a page may use. `requested` is the page's `?ws=` parameter (or null).
 * It is honoured only when it names the page's own origin (ws: for http:, wss: for https:,
 * same host and port; any path) or one of `allowed` (the host-served meta tag
 * `remote-modal-ws`, space-separated URLs). Otherwise the page's own `/ws` is used and
 * `warning` says why.
 * @returns {{url: string, warning: string|null}}
 */
export function resolveSocketURL(requested, pageURL, allowed = []) {
  const page = new URL(pageURL);
  const secure = page.protocol === "https:";
  const own = `${secure ? "wss:" : "ws:"}//${page.host}/ws`;
  if (!requested) return { url: own, warning: null };
  let target;
  try {
    target = new URL(requested, page);
  } catch {
    return { url: own, warning: `ignoring ?ws=${requested}: not a URL` };
  }
  if (target.protocol === "http:") target.protocol = "ws:";
  if (target.protocol === "https:") target.protocol = "wss:";
  const normalized = target.href;
  const listed = allowed.some((entry) => {
    try { return new URL(entry).href === normalized; } catch { return false; }
  });
  const sameOrigin = target.host === page.host && target.protocol === (secure ? "wss:" : "ws:");
  if (listed || sameOrigin) return { url: normalized, warning: null };
  return { url: own, warning: `ignoring ?ws=${requested}: only this page's own origin or a URL the host lists in <meta name="remote-modal-ws"> is used` };
}

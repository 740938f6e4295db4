// The page's own files, kept by the browser so that a reload while the host is down or not
// answering still opens the page, which then says what is happening and keeps trying
// (without it the person is left on the browser's "This site can't be reached", with no way
// back but to know to reload later). Network first: while the host answers, every file comes
// from it and the copy is refreshed; the copy is used only when the host does not answer
// within NETWORK_WAIT_MS or cannot be reached. Nothing else is kept: the WebSocket, /auth/...,
// /metrics and every other path go to the network untouched. Service workers run only in a
// secure context (https, or http on localhost); elsewhere the page works as before without one.

const CACHE = "remote-modal-shell-v1";
const NETWORK_WAIT_MS = 3000;
/** After the host failed to answer one request, the page's other files come from the kept
 *  copy at once for this long (a reload fetches about thirty: waiting for each would make the
 *  page take minutes to appear). */
const NETWORK_DOWN_MS = 10000;
let networkDownUntil = 0;

/** The page's files, relative to this worker (a test checks the list against web/). */
const SHELL = [
  "./",
  "css/app.css",
  "js/app.js",
  "js/client/bytes.js",
  "js/client/heartbeat.js",
  "js/client/input.js",
  "js/client/keys.js",
  "js/client/machine.js",
  "js/client/outbox.js",
  "js/client/session.js",
  "js/client/socket.js",
  "js/client/upload.js",
  "js/client/uploadState.js",
  "js/format.js",
  "js/modals/actionSheet.js",
  "js/modals/alert.js",
  "js/modals/composer.js",
  "js/modals/conformance.js",
  "js/modals/dialog.js",
  "js/modals/index.js",
  "js/modals/mailComposer.js",
  "js/modals/mediaPicker.js",
  "js/modals/messageComposer.js",
  "js/modals/photoPicker.js",
  "js/modals/picker.js",
  "js/modals/registry.js",
  "js/modals/webAuthentication.js",
  "js/options.js",
  "js/protocol.js",
  "js/signInURL.js",
  "js/signature.js",
  "js/socketURL.js",
];

const scope = new URL(self.registration.scope);
const shellPaths = new Set(SHELL.map((path) => new URL(path, scope).pathname));

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) if (key !== CACHE) await caches.delete(key);
    await self.clients.claim();
  })());
});

/** Where a request's copy is kept: the page itself for a navigation (whatever its ?query). */
const cacheKey = (request) => (request.mode === "navigate" ? new URL("./", scope).href : request);

/** The kept copy of a request's file. */
async function keptCopy(request) {
  return (await caches.open(CACHE)).match(cacheKey(request), { ignoreSearch: true });
}

async function networkFirst(request) {
  if (Date.now() < networkDownUntil) {
    const copy = await keptCopy(request);
    if (copy) return copy;
  }
  const network = fetch(request).then(async (response) => {
    networkDownUntil = 0;
    if (response.ok && response.type === "basic") {
      await (await caches.open(CACHE)).put(cacheKey(request), response.clone());
    }
    return response;
  });
  let timer;
  const late = new Promise((resolve) => { timer = setTimeout(resolve, NETWORK_WAIT_MS, null); });
  try {
    const first = await Promise.race([network.catch(() => null), late]);
    if (first) return first;
    networkDownUntil = Date.now() + NETWORK_DOWN_MS;
    // No answer in time, or none at all: the kept copy, else whatever the network gives.
    return (await keptCopy(request)) ?? (await network);
  } finally {
    clearTimeout(timer);
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== scope.origin) return;
  const isPage = request.mode === "navigate" && url.pathname === scope.pathname;
  if (!isPage && !shellPaths.has(url.pathname)) return;
  event.respondWith(networkFirst(request));
});

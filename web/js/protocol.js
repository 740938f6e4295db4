// The remote-modal.v1 protocol client, as the page and its tests import it. The client is
// cut into DOM-free modules under client/: machine.js (the pure machine, events in, actions
// out, the twin of RemoteModalClient's ClientStateMachine), session.js, outbox.js, input.js,
// heartbeat.js, upload.js and uploadState.js (its parts), bytes.js, and socket.js (the
// driver: WebSocket, timers, storage, files). The page's URL policy is socketURL.js.
export { ModalClient } from "./client/socket.js";
export { ClientMachine, PROTOCOL, GOING_AWAY_RETRY_MS, backoffDelay } from "./client/machine.js";
export { CHUNK_BYTES, DEFAULT_UPLOAD_WINDOW, toBase64, sha256Hex } from "./client/bytes.js";

// Bytes on the wire: the chunk size, the default window, standard base64, SHA-256 (hex).

/** The most raw bytes one `upload` message carries. */
export const CHUNK_BYTES = 32 * 1024;
/** Chunks kept unacknowledged when the picker's `present` names no `uploadWindow`. */
export const DEFAULT_UPLOAD_WINDOW = 8;

export function toBase64(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

export async function sha256Hex(bytes) {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

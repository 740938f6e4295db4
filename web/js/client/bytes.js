// Bytes on the wire: the chunk size, the default window, standard base64, SHA-256 (hex, of
// bytes at once with WebCrypto, or of a file a slice at a time).

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

/** The binary form of an `upload` (docs/protocol.md §7, "Binary chunks"), for a host whose
 *  `welcome` offered `binaryUploads`: two bytes of big-endian header length, the header (the
 *  message's JSON without `data`), then the chunk's raw bytes. */
export function binaryChunk(header, bytes) {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const frame = new Uint8Array(2 + json.length + bytes.length);
  frame[0] = json.length >> 8;
  frame[1] = json.length & 0xff;
  frame.set(json, 2);
  frame.set(bytes, 2 + json.length);
  return frame;
}

export async function sha256Hex(bytes) {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The bytes a file's SHA-256 reads at a time (`sha256OfBlob`): one slice in memory, never
 *  the whole file. */
export const HASH_SLICE_BYTES = 1024 * 1024;

// FIPS 180-4's round constants: the first 32 bits of the fractional parts of the cube roots
// of the first 64 primes.
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** An incremental SHA-256 (FIPS 180-4): `update` with the bytes in order, then `hex()`.
 *  WebCrypto's digest takes the whole input at once, which for a 20 MB file means the whole
 *  file in memory; this takes it a slice at a time. */
export class Sha256 {
  constructor() {
    this.state = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
    this.block = new Uint8Array(64);
    this.filled = 0;          // bytes waiting in `block`
    this.length = 0;          // bytes hashed in all
    this.words = new Uint32Array(64);
  }

  /** Adds `bytes` (a Uint8Array) to what is hashed. */
  update(bytes) {
    this.length += bytes.length;
    let at = 0;
    if (this.filled > 0) {
      const take = Math.min(64 - this.filled, bytes.length);
      this.block.set(bytes.subarray(0, take), this.filled);
      this.filled += take;
      at = take;
      if (this.filled < 64) return this;
      this.compress(this.block, 0);
      this.filled = 0;
    }
    for (; at + 64 <= bytes.length; at += 64) this.compress(bytes, at);
    this.block.set(bytes.subarray(at), 0);
    this.filled = bytes.length - at;
    return this;
  }

  /** The digest as 64 lowercase hex digits; the hash takes no more bytes after it. */
  hex() {
    const bits = this.length * 8;
    const tail = new Uint8Array(this.filled < 56 ? 64 : 128);
    tail.set(this.block.subarray(0, this.filled));
    tail[this.filled] = 0x80;
    const view = new DataView(tail.buffer);
    view.setUint32(tail.length - 8, Math.floor(bits / 0x100000000));
    view.setUint32(tail.length - 4, bits >>> 0);
    for (let at = 0; at < tail.length; at += 64) this.compress(tail, at);
    return Array.from(this.state, (word) => word.toString(16).padStart(8, "0")).join("");
  }

  compress(bytes, at) {
    const w = this.words;
    for (let i = 0; i < 16; i++) {
      const j = at + i * 4;
      w[i] = (bytes[j] << 24) | (bytes[j + 1] << 16) | (bytes[j + 2] << 8) | bytes[j + 3];
    }
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15];
      const b = w[i - 2];
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    const h = this.state;
    let [a, b, c, d, e, f, g, k] = h;
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const choice = (e & f) ^ (~e & g);
      const t1 = (k + S1 + choice + K[i] + w[i]) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const majority = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + majority) | 0;
      k = g; g = f; f = e; e = (d + t1) | 0;
      d = c; c = b; b = a; a = (t1 + t2) | 0;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += k;
  }
}

/** A Blob's (a File's) SHA-256 (hex), read `HASH_SLICE_BYTES` at a time: at most one slice
 *  of it is in memory. One slice or less goes to WebCrypto at once (several times faster). */
export async function sha256OfBlob(blob, sliceBytes = HASH_SLICE_BYTES) {
  if (blob.size <= sliceBytes) return sha256Hex(new Uint8Array(await blob.slice(0, blob.size).arrayBuffer()));
  const hash = new Sha256();
  for (let offset = 0; offset < blob.size; offset += sliceBytes) {
    hash.update(new Uint8Array(await blob.slice(offset, Math.min(blob.size, offset + sliceBytes)).arrayBuffer()));
  }
  return hash.hex();
}

// The page's incremental SHA-256 (web/js/client/bytes.js) against Node's, at the lengths where
// padding changes (55, 56, 64 bytes...), fed in uneven pieces, and a Blob read a slice at a
// time with no slice larger than asked. Run: node --test Tests/js/
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { Sha256, sha256OfBlob } from "../../web/js/client/bytes.js";

const bytesOf = (size) => new Uint8Array(size).map((_, i) => (i * 131 + 7) & 255);
const nodeHash = (bytes) => createHash("sha256").update(bytes).digest("hex");

test("the digest is FIPS 180-4's at every padding boundary, however the bytes are split", () => {
  assert.equal(new Sha256().hex(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assert.equal(new Sha256().update(new TextEncoder().encode("abc")).hex(),
               "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  for (const size of [1, 55, 56, 63, 64, 65, 119, 120, 128, 1000, 70_003]) {
    const bytes = bytesOf(size);
    const hash = new Sha256();
    for (let at = 0; at < size;) {
      const piece = Math.min(size - at, 1 + (at % 97));
      hash.update(bytes.subarray(at, at + piece));
      at += piece;
    }
    assert.equal(hash.hex(), nodeHash(bytes), `${size} bytes`);
  }
});

test("a Blob is hashed a slice at a time, never read whole", async () => {
  const bytes = bytesOf(300_001);
  const blob = new Blob([bytes]);
  const reads = [];
  const slice = blob.slice.bind(blob);
  blob.slice = (start, end) => { reads.push(end - start); return slice(start, end); };
  blob.arrayBuffer = () => { throw new Error("read whole"); };
  assert.equal(await sha256OfBlob(blob, 65_536), nodeHash(bytes));
  assert.deepEqual(reads, [65_536, 65_536, 65_536, 65_536, 37_857]);
  const small = bytesOf(65_536);                       // one slice or less: WebCrypto, as one slice
  assert.equal(await sha256OfBlob(new Blob([small]), 65_536), nodeHash(small));
  assert.equal(await sha256OfBlob(new Blob([])), nodeHash(new Uint8Array(0)));
});

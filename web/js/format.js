// Formatting for people. No DOM.

const UNITS = ["kB", "MB", "GB", "TB"];

/** Bytes as people read them: "512 bytes", "34 kB", "9.5 MB". Units of 1,000, as the kiosk
 *  counts (a 10 MiB limit, 10,485,760 bytes, reads "10.5 MB"); one decimal below 100.
 *  `decimals` forces that many decimals (see `formatBytesPair`). */
export function formatBytes(bytes, decimals = null) {
  if (!Number.isFinite(bytes) || bytes < 0) return "";
  if (bytes === 1) return "1 byte";
  if (bytes < 1000) return `${bytes} bytes`;
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < UNITS.length - 1) { value /= 1000; unit += 1; }
  const places = decimals ?? (value < 100 ? 1 : 0);
  let text = value.toFixed(places);
  // 999.96 kB rounds to "1000.0 kB": say "1 MB" instead.
  if (Number(text) >= 1000 && unit < UNITS.length - 1) return `1 ${UNITS[unit + 1]}`;
  if (decimals === null) text = text.replace(/\.0$/, "");
  return `${text} ${UNITS[unit]}`;
}

/** Two sizes that must not read alike when they differ ("10.8 MB chosen, at most 10.5 MB";
 *  10,520,000 against 10,485,760 reads "10.52 MB" and "10.49 MB"): more decimals until they
 *  differ, at most three, then bytes. */
export function formatBytesPair(a, b) {
  let first = formatBytes(a);
  let second = formatBytes(b);
  for (let decimals = 1; first === second && a !== b && decimals <= 3; decimals++) {
    first = formatBytes(a, decimals);
    second = formatBytes(b, decimals);
  }
  if (first === second && a !== b) return [`${a.toLocaleString("en-US")} bytes`, `${b.toLocaleString("en-US")} bytes`];
  return [first, second];
}

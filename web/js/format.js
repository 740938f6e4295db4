// Formatting for people. No DOM.

/** Bytes as people read them: "512 bytes", "34 KB", "9.1 MB". Units of 1,024 (a 10 MiB limit
 *  reads "10 MB", as file managers that count in 1,024s show it); one decimal below 10. */
export function formatBytes(bytes) {
  if (!Number.isFinite(bytes) || bytes < 0) return "";
  if (bytes === 1) return "1 byte";
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
  const rounded = value < 10 ? Math.round(value * 10) / 10 : Math.round(value);
  // 1023.96 KB rounds to "1024 KB": say "1 MB" instead.
  if (rounded >= 1024 && unit < units.length - 1) return `1 ${units[unit + 1]}`;
  return `${rounded} ${units[unit]}`;
}

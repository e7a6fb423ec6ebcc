// Tiny hex helpers for reference models and tests (web-standard only: no Buffer).

/** Decodes a hex string (case-insensitive; spaces and newlines are ignored). */
export function hexToBytes(hex: string): Uint8Array {
  const s = hex.replace(/\s+/g, '');
  if (s.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(s)) {
    throw new RangeError(`hexToBytes: not an even-length hex string: ${JSON.stringify(hex)}`);
  }
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Encodes bytes as lowercase hex. */
export function bytesToHex(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

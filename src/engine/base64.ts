// Base64 to bytes with the web-standard atob (Node.js 16+, browsers, Deno, Bun, workers).
export function fromBase64(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

// Benchmark inputs: deterministic, non-trivial bytes (xorshift32), the same in every revision so
// that --base comparisons time the same work.
export function bytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** The AEAD families' record sizes (`<alg>/tls-seal/N`, `tls-open/N`) and message sizes (`encrypt/N`, `decrypt/N`). */
export const TLS_SIZES = [15, 31, 47, 63, 127, 207, 239, 1400];
export const AEAD_SIZES = [64, 192, 384, 1024, 16384, 1048576];
/** The AEAD families' TLS associated data (13 bytes, as a TLS 1.2 record header) and the empty one. */
export const TLS_AAD = bytes(13, 0x13);
export const NO_AAD = new Uint8Array(0);

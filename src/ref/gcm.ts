// Reference AES-GCM, written from NIST SP 800-38D, "Recommendation for Block Cipher Modes of
// Operation: Galois/Counter Mode (GCM) and GMAC":
//   - section 6.2: inc_32, the increment of the rightmost 32 bits modulo 2^32;
//   - section 6.5, Algorithm 3: GCTR;
//   - section 7.1, Algorithm 4: GCM-AE (H = CIPH_K(0^128); J_0 = IV ‖ 0^31 ‖ 1 for a 96-bit IV,
//     else GHASH_H(IV ‖ 0^(s+64) ‖ [len(IV)]_64); C = GCTR_K(inc_32(J_0), P);
//     S = GHASH_H(A ‖ 0^v ‖ C ‖ 0^u ‖ [len(A)]_64 ‖ [len(C)]_64); T = MSB_t(GCTR_K(J_0, S)));
//   - section 7.2, Algorithm 5: GCM-AD (recompute T and compare; FAIL on mismatch).
// Built only on the reference AES and reference GHASH; slow, obvious, not constant-time, for
// tests only. It imports no kernel. Lengths are in bytes here (the standard counts bits).

import { aesEncryptWithSchedule, aesExpandKeyRef } from './aes.js';
import { ghashRef } from './ghash.js';

/** Optional deliberate deviations for tests (the reference is correct without them). */
export interface GcmRefOptions {
  /** tag length in bytes (16 by default) */
  tagLength?: number;
}

/** inc_32 (section 6.2): the rightmost 32 bits, big-endian, plus one modulo 2^32. */
export function inc32(block: Uint8Array): Uint8Array {
  const out = Uint8Array.from(block);
  const v = ((out[12] << 24) | (out[13] << 16) | (out[14] << 8) | out[15]) >>> 0;
  const n = (v + 1) >>> 0;
  out[12] = n >>> 24;
  out[13] = (n >>> 16) & 0xff;
  out[14] = (n >>> 8) & 0xff;
  out[15] = n & 0xff;
  return out;
}

/** GCTR_K(ICB, X) (section 6.5, Algorithm 3). */
function gctrRef(rks: Uint8Array[], icb: Uint8Array, x: Uint8Array): Uint8Array {
  const y = new Uint8Array(x.length);
  let cb: Uint8Array = Uint8Array.from(icb);
  for (let off = 0; off < x.length; off += 16) {
    const ks = aesEncryptWithSchedule(rks, cb);
    for (let j = off; j < Math.min(off + 16, x.length); j++) y[j] = x[j] ^ ks[j - off];
    cb = inc32(cb);
  }
  return y;
}

/** [n]_64: the bit length of n bytes as a 64-bit big-endian integer. */
function len64(bytes: number): Uint8Array {
  const out = new Uint8Array(8);
  let bits = BigInt(bytes) * 8n;
  for (let i = 7; i >= 0; i--) {
    out[i] = Number(bits & 0xffn);
    bits >>= 8n;
  }
  return out;
}

/** X ‖ 0^pad: zero-padded to a multiple of 16 bytes. */
function pad16(x: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(x.length / 16) * 16);
  out.set(x);
  return out;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

/** The pre-counter block J_0 (Algorithm 4, step 2). */
export function j0Ref(h: Uint8Array, iv: Uint8Array): Uint8Array {
  if (iv.length === 12) return concat(iv, Uint8Array.of(0, 0, 0, 1));
  return ghashRef(h, concat(pad16(iv), new Uint8Array(8), len64(iv.length)));
}

function tagRef(rks: Uint8Array[], h: Uint8Array, j0: Uint8Array, aad: Uint8Array, c: Uint8Array, t: number): Uint8Array {
  const s = ghashRef(h, concat(pad16(aad), pad16(c), len64(aad.length), len64(c.length)));
  return gctrRef(rks, j0, s).subarray(0, t);
}

/** GCM-AE_K(IV, P, A) → (C, T) (section 7.1, Algorithm 4). */
export function gcmSealRef(key: Uint8Array, iv: Uint8Array, p: Uint8Array, aad: Uint8Array, options: GcmRefOptions = {}): { ciphertext: Uint8Array; tag: Uint8Array } {
  if (iv.length === 0) throw new RangeError('GCM needs an IV of at least one bit');
  const t = options.tagLength ?? 16;
  const rks = aesExpandKeyRef(key);
  const h = aesEncryptWithSchedule(rks, new Uint8Array(16));
  const j0 = j0Ref(h, iv);
  const c = gctrRef(rks, inc32(j0), p);
  return { ciphertext: c, tag: tagRef(rks, h, j0, aad, c, t) };
}

/** GCM-AD_K(IV, C, A, T) → P or null for FAIL (section 7.2, Algorithm 5). */
export function gcmOpenRef(key: Uint8Array, iv: Uint8Array, c: Uint8Array, aad: Uint8Array, tag: Uint8Array): Uint8Array | null {
  if (iv.length === 0) throw new RangeError('GCM needs an IV of at least one bit');
  const rks = aesExpandKeyRef(key);
  const h = aesEncryptWithSchedule(rks, new Uint8Array(16));
  const j0 = j0Ref(h, iv);
  const expected = tagRef(rks, h, j0, aad, c, tag.length);
  for (let i = 0; i < tag.length; i++) if (expected[i] !== tag[i]) return null;
  return gctrRef(rks, inc32(j0), c);
}

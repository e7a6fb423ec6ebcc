// HKDF (RFC 5869) over ctkit's HMAC-SHA-2: extract-then-expand.
//   PRK = HMAC-Hash(salt, IKM)                       (salt absent: HashLen zero bytes)
//   T(0) = empty, T(i) = HMAC-Hash(PRK, T(i−1) ‖ info ‖ i) for i = 1 … N, N = ⌈L / HashLen⌉
//   OKM = the first L bytes of T(1) ‖ … ‖ T(N),      L ≤ 255·HashLen
//
// Each HMAC is the one-shot hmac() (the key combined with the pads in the kernel, its state
// wiped before the call returns). The glue copies bytes by position only and wipes what held
// key material (the PRK inside hkdf(), every T(i) and the buffer T(i−1) ‖ info ‖ i) before it
// returns; lengths are public.

import { CtkitRangeError, CtkitTypeError } from '../errors.js';
import { checkBytes } from '../util/check.js';
import { hmac } from './hmac.js';
import { type Hash, hashInfo } from './sha2.js';

const EMPTY = new Uint8Array(0);

function optionalBytes(name: string, v: Uint8Array | undefined): Uint8Array {
  if (v === undefined) return EMPTY;
  checkBytes(name, v);
  return v;
}

function checkOutputLength(length: unknown, hashLen: number, algorithm: string): number {
  if (typeof length !== 'number') throw new CtkitTypeError(`length must be a number, got ${typeof length}`);
  const max = 255 * hashLen;
  if (!Number.isInteger(length) || length < 0 || length > max) {
    throw new CtkitRangeError(`length must be an integer from 0 to ${max} (255 · HashLen for HKDF-${algorithm}), got ${length}`);
  }
  return length;
}

/** HKDF-Extract: PRK = HMAC-Hash(salt, ikm); an absent salt is HashLen zero bytes. */
function extract(hash: Hash, ikm: Uint8Array, salt?: Uint8Array): Uint8Array<ArrayBuffer> {
  const info = hashInfo(hash);
  checkBytes('ikm', ikm);
  const s = salt === undefined ? new Uint8Array(info.outputLen) : optionalBytes('salt', salt);
  return hmac(hash, s, ikm);
}

/** HKDF-Expand: the first `length` bytes of T(1) ‖ T(2) ‖ …; length ≤ 255·HashLen. */
function expand(hash: Hash, prk: Uint8Array, info?: Uint8Array, length?: number): Uint8Array<ArrayBuffer> {
  const h = hashInfo(hash);
  checkBytes('prk', prk);
  const inf = optionalBytes('info', info);
  const L = checkOutputLength(length, h.outputLen, h.algorithm);
  const n = h.outputLen;
  const out = new Uint8Array(L);
  // T(i−1) ‖ info ‖ i; T(0) is empty, so the first message starts at offset n
  const buf = new Uint8Array(n + inf.length + 1);
  buf.set(inf, n);
  try {
    for (let i = 1, off = 0; off < L; i++, off += n) {
      buf[n + inf.length] = i;
      const t = hmac(hash, prk, i === 1 ? buf.subarray(n) : buf);
      out.set(t.subarray(0, L - off), off); // all of T(i) but in the last block (subarray clamps)
      buf.set(t);
      t.fill(0);
    }
  } finally {
    buf.fill(0);
  }
  return out;
}

export interface HkdfFunction {
  /** HKDF (RFC 5869 section 2): extract, then expand to `length` bytes (at most 255·HashLen). */
  (hash: Hash, ikm: Uint8Array, salt: Uint8Array | undefined, info: Uint8Array | undefined, length: number): Uint8Array<ArrayBuffer>;
  /** HKDF-Extract (section 2.2): the pseudorandom key PRK, HashLen bytes. */
  extract(hash: Hash, ikm: Uint8Array, salt?: Uint8Array): Uint8Array<ArrayBuffer>;
  /** HKDF-Expand (section 2.3): `length` bytes of output keying material from PRK. */
  expand(hash: Hash, prk: Uint8Array, info: Uint8Array | undefined, length: number): Uint8Array<ArrayBuffer>;
}

function hkdfOneShot(hash: Hash, ikm: Uint8Array, salt: Uint8Array | undefined, info: Uint8Array | undefined, length: number): Uint8Array<ArrayBuffer> {
  const h = hashInfo(hash);
  // every argument checked before any work, so a bad length does not cost an extraction
  checkBytes('ikm', ikm);
  optionalBytes('salt', salt);
  optionalBytes('info', info);
  checkOutputLength(length, h.outputLen, h.algorithm);
  const prk = extract(hash, ikm, salt);
  try {
    return expand(hash, prk, info, length);
  } finally {
    prk.fill(0);
  }
}

/** HKDF (RFC 5869) with ctkit's SHA-256, SHA-384 or SHA-512 (SHA-224 too). */
export const hkdf: HkdfFunction = Object.assign(hkdfOneShot, { extract, expand });

// HKDF (RFC 5869 section 2), written from the standard over the reference HMAC (sha2.ts).
import { type RefHash, hmacRef } from './sha2.js';

/** HKDF-Extract (2.2): PRK = HMAC-Hash(salt, IKM); salt defaults to HashLen zeros. */
export function hkdfExtractRef(hash: RefHash, ikm: Uint8Array, salt?: Uint8Array): Uint8Array {
  return hmacRef(hash, salt ?? new Uint8Array(hash.outputLen), ikm);
}

/** HKDF-Expand (2.3): T(i) = HMAC-Hash(PRK, T(i−1) | info | i), OKM = first L octets of T. */
export function hkdfExpandRef(hash: RefHash, prk: Uint8Array, info: Uint8Array, L: number): Uint8Array {
  if (L > 255 * hash.outputLen) throw new RangeError('L > 255·HashLen');
  const N = Math.ceil(L / hash.outputLen);
  const T: number[] = [];
  let prev: number[] = [];
  for (let i = 1; i <= N; i++) {
    prev = [...hmacRef(hash, prk, Uint8Array.from([...prev, ...info, i]))];
    T.push(...prev);
  }
  return Uint8Array.from(T.slice(0, L));
}

export function hkdfRef(hash: RefHash, ikm: Uint8Array, salt: Uint8Array | undefined, info: Uint8Array, L: number): Uint8Array {
  return hkdfExpandRef(hash, hkdfExtractRef(hash, ikm, salt), info, L);
}

// POLYVAL (RFC 8452, section 3), constant time, on the shared gf128 kernel.
import { UniversalHash, hashOneShot } from './universal-hash.js';

export interface Polyval {
  /** one-shot: POLYVAL(H, data), a partial final block zero-padded */
  (key: Uint8Array, data: Uint8Array): Uint8Array<ArrayBuffer>;
  /** incremental: create(key).update(a).update(b).digest() */
  create(key: Uint8Array): UniversalHash;
}

export const polyval: Polyval = Object.assign((key: Uint8Array, data: Uint8Array): Uint8Array<ArrayBuffer> => hashOneShot('polyval', key, data), { create: (key: Uint8Array) => new UniversalHash('polyval', key) });

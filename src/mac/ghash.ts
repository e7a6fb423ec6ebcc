// GHASH (NIST SP 800-38D, section 6.4), constant time, on the shared gf128 kernel.
import { UniversalHash, hashOneShot } from './universal-hash.js';

export interface GHash {
  /** one-shot: GHASH_H of data, a partial final block zero-padded */
  (key: Uint8Array, data: Uint8Array): Uint8Array<ArrayBuffer>;
  /** incremental: create(key).update(a).update(b).digest() */
  create(key: Uint8Array): UniversalHash;
}

export const ghash: GHash = Object.assign((key: Uint8Array, data: Uint8Array): Uint8Array<ArrayBuffer> => hashOneShot('ghash', key, data), { create: (key: Uint8Array) => new UniversalHash('ghash', key) });

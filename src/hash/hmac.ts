// HMAC (FIPS 198-1, RFC 2104) over ctkit's SHA-2: HMAC(K, m) = H((K0 ⊕ opad) ‖ H((K0 ⊕ ipad) ‖ m)),
// K0 = the key, hashed first if longer than a block, zero-padded to a block.
//
// The kernel turns K0 into the two chaining values after K0 ⊕ ipad and K0 ⊕ opad
// (sha2_hmac_init), so the key is combined with the pads 16 bytes at a time in WebAssembly, and
// every later step is the plain hash: one-shot, the message streams through scratch from the
// inner chaining value, then the inner digest is compressed from the outer one; incremental,
// both chaining values sit in the object's slot, update() is the hash's update, and digest()
// costs one more compression. K0 only ever sits in the IO area, wiped before the call returns.
// The key length is public; the key bytes move by position only, never branched on.
//
// For HMAC-DRBG (RFC 6979) and other constructions: `outputLen` and `blockLen` on the hash and
// on each Hmac object. The one-shot hmac() allocates nothing in WebAssembly memory and is the
// cheap way to make many short tags; hmac.create() holds a slot (a finalizer registration).

import { SCRATCH_PTR, SCRATCH_SIZE } from '../engine/kernel.js';
import { StateError } from '../errors.js';
import { checkBytes } from '../util/check.js';
import { CHUNK, IO_KEY, IO_OUTER, IO_STATE, IO_USED, SLOT_BUF, SLOT_OUTER, SLOT_STATE, Sha2Stream, absorbAll, hashInfo, lastFn, type Hash, type Sha2Algorithm, type Sha2Info } from './sha2.js';

/**
 * K0 (FIPS 198-1 section 4, steps 1-3) into the IO area at IO_KEY, zero-padded to the block.
 * A key longer than the block is hashed there (the hash runs with its state at IO_STATE).
 */
function loadKey(info: Sha2Info, key: Uint8Array): void {
  const k = info.kernel();
  k.wipe(IO_KEY, info.blockLen);
  if (key.length > info.blockLen) {
    k.exports.sha2_init(IO_STATE, info.variant);
    absorbAll(k, info, IO_STATE, key, key.length);
    k.u8.copyWithin(IO_KEY, IO_STATE, IO_STATE + info.outputLen);
    k.wipe(IO_STATE, 64);
  } else {
    k.u8.set(key, IO_KEY);
  }
}

function oneShot(hash: Hash, key: Uint8Array, msg: Uint8Array): Uint8Array<ArrayBuffer> {
  const info = hashInfo(hash);
  checkBytes('key', key);
  checkBytes('msg', msg);
  const k = info.kernel();
  const B = info.blockLen;
  const n = info.outputLen;
  let done = false;
  // K0 and the chaining values sit in the IO area from loadKey on: whatever the message does
  // (a subclass whose length or subarray throws), they are wiped before this returns or throws
  try {
    loadKey(info, key);
    const len = msg.length;
    if (len <= CHUNK) {
      // the whole HMAC in one kernel call; the tag lands at IO_OUTER
      k.u8.set(msg, SCRATCH_PTR);
      k.exports.sha2_hmac(IO_STATE, IO_KEY, SCRATCH_PTR, len, info.variant);
      const tag = k.u8.slice(IO_OUTER, IO_OUTER + n);
      k.wipe(SCRATCH_PTR, len + 2 * B);
      done = true;
      return tag;
    }
    k.exports.sha2_hmac_init(IO_STATE, IO_OUTER, IO_KEY, info.variant);
    // inner: the message after the key block
    absorbAll(k, info, IO_STATE, msg, B + len);
    // outer: the inner digest after the other key block
    k.u8.copyWithin(SCRATCH_PTR, IO_STATE, IO_STATE + n);
    lastFn(k, info)(IO_OUTER, SCRATCH_PTR, n, 0, B + n);
    const out = k.u8.slice(IO_OUTER, IO_OUTER + n);
    k.wipe(SCRATCH_PTR, 2 * B);
    done = true;
    return out;
  } finally {
    k.wipe(IO_STATE, IO_USED);
    if (!done) k.wipe(SCRATCH_PTR, SCRATCH_SIZE);
  }
}

/** An incremental HMAC computation. Single use: digest() ends it and wipes the key state. */
export class Hmac {
  readonly algorithm: Sha2Algorithm;
  readonly blockLen: number;
  readonly outputLen: number;
  #s: Sha2Stream;

  /** Use `hmac.create(sha256, key)`. */
  constructor(hash: Hash, key: Uint8Array) {
    const info = hashInfo(hash);
    checkBytes('key', key);
    this.algorithm = info.algorithm;
    this.blockLen = info.blockLen;
    this.outputLen = info.outputLen;
    const s = (this.#s = new Sha2Stream(this, info));
    try {
      loadKey(info, key);
      s.k.exports.sha2_hmac_init(s.state, s.slot + SLOT_OUTER, IO_KEY, info.variant);
    } finally {
      s.k.wipe(IO_STATE, IO_USED); // K0 (and a long key's hash state)
    }
    s.restart(SLOT_STATE, info.blockLen); // the inner hash has absorbed one block
  }

  /** Absorb data; any length, any number of calls. */
  update(data: Uint8Array): this {
    if (this.#s.released) throw new StateError(`HMAC-${this.algorithm}: update() after digest() or dispose()`);
    checkBytes('data', data);
    this.#s.update(data);
    return this;
  }

  /** The tag. Wipes the key state; the object cannot be used again. */
  digest(): Uint8Array<ArrayBuffer> {
    const s = this.#s;
    if (s.released) throw new StateError(`HMAC-${this.algorithm}: digest() after digest() or dispose()`);
    const n = this.outputLen;
    s.finish();
    // outer: continue from H's state after K0 ⊕ opad with the inner digest as the message
    s.k.u8.copyWithin(s.slot + SLOT_BUF, s.state, s.state + n);
    s.restart(SLOT_OUTER, this.blockLen, n);
    s.finish();
    const out = s.digestBytes(n);
    s.release();
    return out;
  }

  /** Wipe the key state without producing a tag. Idempotent. */
  dispose(): void {
    this.#s.release();
  }
}

export interface HmacFunction {
  /** one-shot: the tag of msg under key */
  (hash: Hash, key: Uint8Array, msg: Uint8Array): Uint8Array<ArrayBuffer>;
  /** incremental: create(hash, key).update(a).update(b).digest() */
  create(hash: Hash, key: Uint8Array): Hmac;
}

/** HMAC (FIPS 198-1) with ctkit's SHA-224, SHA-256, SHA-384 or SHA-512; keys of any length. */
export const hmac: HmacFunction = Object.assign(oneShot, {
  create: (hash: Hash, key: Uint8Array): Hmac => new Hmac(hash, key),
});

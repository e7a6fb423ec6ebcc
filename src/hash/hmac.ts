// HMAC (FIPS 198-1, RFC 2104) over ctkit's SHA-2: HMAC(K, m) = H((K0 ⊕ opad) ‖ H((K0 ⊕ ipad) ‖ m)),
// K0 = the key, hashed first if longer than a block, zero-padded to a block.
//
// One-shot: K0 ⊕ ipad is written to scratch right before the message, so the inner hash of a
// short message is one kernel call; the outer hash is a second. Incremental: the constructor
// compresses K0 ⊕ ipad and K0 ⊕ opad once, keeping both chaining values in the object's slot,
// so update() is the plain hash's update and digest() costs one more compression of the
// outer block. K0 only ever sits in the IO area (wiped before the call returns) and in
// short-lived JavaScript arrays that are zeroed after use. The key length is public; the key
// bytes are combined by position only (XOR with a constant), never branched on.
//
// For HMAC-DRBG (RFC 6979) and other constructions: `outputLen` and `blockLen` on the hash and
// on each Hmac object; `hmac.create(hash, key)` is cheap enough to make per step.

import { SCRATCH_PTR } from '../engine/kernel.js';
import { StateError } from '../errors.js';
import { checkBytes } from '../util/check.js';
import { IO_KEY, IO_STATE, SLOT_BUF, SLOT_OUTER, SLOT_STATE, Sha2Stream, absorbAll, hashInfo, type Hash, type Sha2Algorithm, type Sha2Info } from './sha2.js';

const IPAD = 0x36;
const OPAD = 0x5c;
const EMPTY = new Uint8Array(0);

/**
 * K0 (FIPS 198-1 section 4, steps 1-3) into the IO area at IO_KEY, zero-padded to the block.
 * A key longer than the block is hashed there (the hash runs with its state at IO_STATE).
 */
function loadKey(info: Sha2Info, key: Uint8Array): void {
  const k = info.kernel();
  k.wipe(IO_KEY, info.blockLen);
  if (key.length > info.blockLen) {
    k.exports.sha2_init(IO_STATE, info.variant);
    absorbAll(k, info, IO_STATE, 0, key, key.length);
    k.u8.copyWithin(IO_KEY, IO_STATE, IO_STATE + info.outputLen);
    k.wipe(IO_STATE, 64);
  } else {
    k.u8.set(key, IO_KEY);
  }
}

/** dst[i] = IO_KEY[i] ^ pad for one block, inside WebAssembly memory. */
function xorKey(info: Sha2Info, dst: number, pad: number): void {
  const u8 = info.kernel().u8;
  for (let i = 0; i < info.blockLen; i++) u8[dst + i] = u8[IO_KEY + i] ^ pad;
}

function oneShot(hash: Hash, key: Uint8Array, msg: Uint8Array): Uint8Array {
  const info = hashInfo(hash);
  checkBytes('key', key);
  checkBytes('msg', msg);
  const k = info.kernel();
  const B = info.blockLen;
  const n = info.outputLen;
  loadKey(info, key);
  // inner: (K0 ⊕ ipad) ‖ msg, the key block already in scratch
  xorKey(info, SCRATCH_PTR, IPAD);
  k.exports.sha2_init(IO_STATE, info.variant);
  absorbAll(k, info, IO_STATE, B, msg, B + msg.length);
  // outer: (K0 ⊕ opad) ‖ inner digest
  xorKey(info, SCRATCH_PTR, OPAD);
  k.u8.copyWithin(SCRATCH_PTR + B, IO_STATE, IO_STATE + n);
  k.exports.sha2_init(IO_STATE, info.variant);
  absorbAll(k, info, IO_STATE, B + n, EMPTY, B + n);
  const out = k.u8.slice(IO_STATE, IO_STATE + n);
  k.wipe(IO_STATE, 64 + 128);
  return out;
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
    const k = s.k;
    const B = info.blockLen;
    const blocks = B === 64 ? k.exports.sha256_blocks : k.exports.sha512_blocks;
    loadKey(info, key);
    // the outer chaining value: IV compressed with K0 ⊕ opad
    xorKey(info, s.slot + SLOT_BUF, OPAD);
    k.exports.sha2_init(s.slot + SLOT_OUTER, info.variant);
    blocks(s.slot + SLOT_OUTER, s.slot + SLOT_BUF, 1);
    // the inner one: IV (written by Sha2Stream) compressed with K0 ⊕ ipad, one block counted
    xorKey(info, s.slot + SLOT_BUF, IPAD);
    blocks(s.slot + SLOT_STATE, s.slot + SLOT_BUF, 1);
    s.restart(SLOT_STATE, B);
    k.wipe(s.slot + SLOT_BUF, B);
    k.wipe(IO_KEY, B);
  }

  /** Absorb data; any length, any number of calls. */
  update(data: Uint8Array): this {
    if (this.#s.released) throw new StateError(`HMAC-${this.algorithm}: update() after digest() or dispose()`);
    checkBytes('data', data);
    this.#s.update(data);
    return this;
  }

  /** The tag. Wipes the key state; the object cannot be used again. */
  digest(): Uint8Array {
    const s = this.#s;
    if (s.released) throw new StateError(`HMAC-${this.algorithm}: digest() after digest() or dispose()`);
    const n = this.outputLen;
    s.finish();
    // outer: continue from H's state after K0 ⊕ opad with the inner digest as the message
    s.k.u8.copyWithin(s.slot + SLOT_BUF, s.slot + SLOT_STATE, s.slot + SLOT_STATE + n);
    s.restart(SLOT_OUTER, this.blockLen, n);
    s.finish();
    const out = s.read(SLOT_STATE, n);
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
  (hash: Hash, key: Uint8Array, msg: Uint8Array): Uint8Array;
  /** incremental: create(hash, key).update(a).update(b).digest() */
  create(hash: Hash, key: Uint8Array): Hmac;
}

/** HMAC (FIPS 198-1) with ctkit's SHA-224, SHA-256, SHA-384 or SHA-512; keys of any length. */
export const hmac: HmacFunction = Object.assign(oneShot, {
  create: (hash: Hash, key: Uint8Array): Hmac => new Hmac(hash, key),
});

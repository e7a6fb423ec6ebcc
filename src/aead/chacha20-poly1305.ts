// ChaCha20-Poly1305 (RFC 8439 §2.8) and XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha-03 §2.3.1)
// as reusable keyed objects, and the raw ChaCha20 / XChaCha20 streams (RFC 8439 §2.4; draft
// §2.3) and HChaCha20 (draft §2.2), all on the 'chacha' kernel module.
//
// Large inputs stream through the module's 64 KiB scratch window: each chunk is encrypted and
// MACed by one fused kernel pass (src/kernels/chacha20_simd128.ts), so sealing a gigabyte needs
// no more WebAssembly memory than sealing a kilobyte. open() decrypts as it verifies and wipes
// every byte it wrote when the tag does not match, so no plaintext is released.
//
// Constant time: the glue branches only on lengths, and compares tags by OR-accumulating the
// XOR of all sixteen bytes, without an early exit.

import { ARENA, type Arena, SCRATCH_PTR, SCRATCH_SIZE, SLOTS_PTR } from '../engine/kernel.js';
import { AuthenticationError, StateError, CtkitRangeError } from '../errors.js';
import { absorbPadded, absorbPartial, chachaKernel, type ChachaKernel, IO, MAXG, POWERS_MIN_BLOCKS } from '../mac/poly1305.js';
import { checkBytes, checkLength, checkOutput, copyBytes } from '../util/check.js';
import { takeSeams } from '../util/seam.js';
import { blocks16, pad16, whole16 } from '../util/length.js';
import { inPlaceSource } from '../util/overlap.js';
import { type Aead, type AeadOneShot, oneShot } from './types.js';

const TAG = 16;
const KEY = 32;
/** RFC 8439 §2.8: the plaintext is at most 2^38 − 64 bytes ((2^32 − 1) blocks of 64 bytes after block 0). */
const CHACHA20_POLY1305_MAX_PLAINTEXT = 2 ** 38 - 64;
const EMPTY = new Uint8Array(0);
const SIGMA = [0x61707865, 0x3320646e, 0x79622d32, 0x6b206574];

/** Test seams (src/internal.ts): the kernel instance to run on. */
export interface ChachaSeams {
  kernel?: ChachaKernel;
}

/** n (an integer from 0 to 2^53 − 1) as 8 little-endian bytes at u8[at] (exported for the tests). */
export function le64(u8: Uint8Array, at: number, n: number): void {
  const lo = n >>> 0;
  const hi = (n - lo) / 4294967296;
  u8[at] = lo & 0xff;
  u8[at + 1] = (lo >>> 8) & 0xff;
  u8[at + 2] = (lo >>> 16) & 0xff;
  u8[at + 3] = lo >>> 24;
  u8[at + 4] = hi & 0xff;
  u8[at + 5] = (hi >>> 8) & 0xff;
  u8[at + 6] = (hi >>> 16) & 0xff;
  u8[at + 7] = hi >>> 24;
}

/**
 * RFC 8439 §2.8's limit on a message of `n` bytes (`what`: the plaintext, or the sealed input
 * less its tag): past it the 32-bit block counter would wrap (exported for the tests: no array
 * that long can be made). The AAD's limit, 2^64 − 1 bytes, is beyond any array.
 */
export function chachaCheckLimits(name: string, n: number, what: 'plaintext' | 'sealed'): void {
  if (n > CHACHA20_POLY1305_MAX_PLAINTEXT) {
    throw new CtkitRangeError(what === 'plaintext' ? `${name}: plaintext must be at most 2^38 - 64 bytes long (RFC 8439), got ${n}` : `${name}: sealed must be at most 2^38 - 48 bytes long (RFC 8439), got ${n + TAG}`);
  }
}

/** Blocks of Poly1305 input for an AEAD message: padded AAD, padded message, the lengths. */
export function macBlocks(aadLength: number, n: number): number {
  return blocks16(aadLength) + blocks16(n) + 1;
}

/** Does the whole MAC input (AAD, text, lengths) fit the scratch window (the one-call path)? */
export const chachaFitsOnce = (aadLength: number, n: number): boolean => 16 * macBlocks(aadLength, n) <= SCRATCH_SIZE;

// The one-call layout in scratch: aad ‖ zeros ‖ message ‖ zeros ‖ le64(|aad|) ‖ le64(|message|).
// This is where the AEADs' partial blocks are padded when a message fits in scratch; streamed
// messages pad through absorbPartial. Returns the message's offset in memory.
function layout(u8: Uint8Array, aad: Uint8Array, msg: Uint8Array): number {
  const aPad = pad16(aad.length);
  const mPad = pad16(msg.length);
  const base = SCRATCH_PTR;
  u8.set(aad, base);
  u8.fill(0, base + aad.length, base + aPad);
  u8.set(msg, base + aPad);
  u8.fill(0, base + aPad + msg.length, base + aPad + mPad);
  le64(u8, base + aPad + mPad, aad.length);
  le64(u8, base + aPad + mPad + 8, msg.length);
  return base + aPad;
}

/** ChaCha20-Poly1305 (12-byte nonce) or XChaCha20-Poly1305 (24-byte nonce) with one key. */
export class ChaCha20Poly1305 implements Aead {
  readonly algorithm: string;
  readonly keyLength = KEY;
  readonly nonceLength: number;
  readonly tagLength = TAG;
  readonly #x: number;
  readonly #name: string;
  #k: ChachaKernel;
  /** the key (32 bytes, copied into the IO area for each call; no slot), undefined once disposed */
  #key: Uint8Array | undefined;

  constructor(key: Uint8Array, extendedNonce: boolean) {
    const seams = takeSeams<ChachaSeams>();
    this.#name = this.algorithm = extendedNonce ? 'xchacha20-poly1305' : 'chacha20-poly1305';
    checkBytes('key', key);
    checkLength('key', key, [KEY]);
    this.nonceLength = extendedNonce ? 24 : 12;
    this.#x = extendedNonce ? 1 : 0;
    this.#k = seams.kernel ?? chachaKernel();
    this.#key = copyBytes(key);
  }

  seal<B extends ArrayBufferLike = ArrayBuffer>(nonce: Uint8Array, plaintext: Uint8Array, aad: Uint8Array = EMPTY, output?: Uint8Array<B>): Uint8Array<B> {
    this.#check(nonce, aad);
    checkBytes('plaintext', plaintext);
    const n = plaintext.length;
    chachaCheckLimits(this.#name, n, 'plaintext');
    const out = checkOutput(output, n + TAG);
    const k = this.#k;
    const e = k.exports;
    const blocks = macBlocks(aad.length, n);
    let used = 0; // scratch bytes to wipe
    try {
      const at = this.#inKernel(plaintext, out);
      if (at >= 0) {
        // in place in kernel memory (an Arena region): no copy through scratch
        const maxg = this.#begin(nonce, aad, n);
        e.aead_seal(IO.ST, IO.POLY, at, at, n, maxg);
        const whole = whole16(n);
        if (whole < n) absorbPartial(k, IO.POLY, k.u8.subarray(at + whole, at + n), false);
        this.#finish(aad.length, n);
        k.u8.copyWithin(at + n, IO.TAG, IO.TAG + TAG);
        return out;
      }
      if (chachaFitsOnce(aad.length, n)) {
        used = 16 * blocks;
        const u8 = k.u8;
        u8.set(nonce, IO.NONCE);
        const m = layout(u8, aad, plaintext);
        u8.set(this.#key!, IO.KEY);
        e.aead_seal_all(IO.KEY, IO.NONCE, this.#x, SCRATCH_PTR, blocks16(aad.length), n, blocks >= POWERS_MIN_BLOCKS ? MAXG : 1, IO.TAG);
        out.set(u8.subarray(m, m + n));
        out.set(u8.subarray(IO.TAG, IO.TAG + TAG), n);
        return out;
      }
      const maxg = this.#begin(nonce, aad, n);
      // after the nonce and AAD were read; a message of one chunk is all in scratch before the
      // first write, so an overlapping output (a sealed stream's segment in place) needs no move
      const src = n <= SCRATCH_SIZE ? plaintext : inPlaceSource(plaintext, out);
      for (let off = 0; off < n; off += SCRATCH_SIZE) {
        const len = Math.min(SCRATCH_SIZE, n - off);
        used = Math.max(used, len);
        const u8 = k.u8;
        u8.set(src.subarray(off, off + len), SCRATCH_PTR);
        e.aead_seal(IO.ST, IO.POLY, SCRATCH_PTR, SCRATCH_PTR, len, maxg);
        const whole = whole16(len);
        if (whole < len) absorbPartial(k, IO.POLY, u8.subarray(SCRATCH_PTR + whole, SCRATCH_PTR + len), false);
        out.set(u8.subarray(SCRATCH_PTR, SCRATCH_PTR + len), off);
      }
      this.#finish(aad.length, n);
      out.set(k.u8.subarray(IO.TAG, IO.TAG + TAG), n);
      return out;
    } finally {
      k.wipe(0, IO.END);
      k.wipe(SCRATCH_PTR, used);
    }
  }

  open<B extends ArrayBufferLike = ArrayBuffer>(nonce: Uint8Array, sealed: Uint8Array, aad: Uint8Array = EMPTY, output?: Uint8Array<B>): Uint8Array<B> {
    this.#check(nonce, aad);
    checkBytes('sealed', sealed);
    if (sealed.length < TAG) throw new AuthenticationError(`${this.#name}: sealed input is shorter than the ${TAG}-byte tag`);
    const n = sealed.length - TAG;
    chachaCheckLimits(this.#name, n, 'sealed');
    const out = checkOutput(output, n);
    const k = this.#k;
    const e = k.exports;
    const blocks = macBlocks(aad.length, n);
    let used = 0; // scratch bytes to wipe
    let ok = false;
    try {
      const at = this.#inKernel(sealed, out);
      if (at >= 0) {
        // in place in kernel memory (an Arena region): no copy through scratch
        const tag = k.u8.slice(at + n, at + n + TAG);
        const maxg = this.#begin(nonce, aad, n);
        const whole = whole16(n);
        // the partial block's ciphertext, taken before the kernel decrypts it in place
        const partial = whole < n ? k.u8.slice(at + whole, at + n) : undefined;
        e.aead_open(IO.ST, IO.POLY, at, at, n, maxg);
        if (partial) {
          absorbPartial(k, IO.POLY, partial, false);
          partial.fill(0);
        }
        this.#finish(aad.length, n);
        const u8 = k.u8;
        let diff = 0;
        for (let i = 0; i < TAG; i++) diff |= u8[IO.TAG + i] ^ tag[i];
        ok = diff === 0;
      } else if (chachaFitsOnce(aad.length, n)) {
        used = 16 * blocks;
        const u8 = k.u8;
        u8.set(nonce, IO.NONCE);
        const m = layout(u8, aad, sealed.subarray(0, n));
        u8.set(this.#key!, IO.KEY);
        e.aead_open_all(IO.KEY, IO.NONCE, this.#x, SCRATCH_PTR, blocks16(aad.length), n, blocks >= POWERS_MIN_BLOCKS ? MAXG : 1, IO.TAG);
        let diff = 0;
        for (let i = 0; i < TAG; i++) diff |= u8[IO.TAG + i] ^ sealed[n + i];
        ok = diff === 0;
        // the plaintext leaves scratch only now that the tag has been checked
        if (ok) out.set(u8.subarray(m, m + n));
      } else {
        const tag = copyBytes(sealed.subarray(n)); // before any write: output may overlap sealed (not slice(): a view on a Buffer)
        const maxg = this.#begin(nonce, aad, n);
        const src = n <= SCRATCH_SIZE ? sealed.subarray(0, n) : inPlaceSource(sealed.subarray(0, n), out);
        for (let off = 0; off < n; off += SCRATCH_SIZE) {
          const len = Math.min(SCRATCH_SIZE, n - off);
          used = Math.max(used, len);
          const u8 = k.u8;
          u8.set(src.subarray(off, off + len), SCRATCH_PTR);
          const whole = whole16(len);
          // the kernel MACs whole blocks of ciphertext then decrypts in place; the partial block's
          // ciphertext is taken first and absorbed after them
          let partial: Uint8Array | undefined;
          if (whole < len) partial = u8.slice(SCRATCH_PTR + whole, SCRATCH_PTR + len);
          e.aead_open(IO.ST, IO.POLY, SCRATCH_PTR, SCRATCH_PTR, len, maxg);
          if (partial) {
            absorbPartial(k, IO.POLY, partial, false);
            partial.fill(0);
          }
          out.set(u8.subarray(SCRATCH_PTR, SCRATCH_PTR + len), off);
        }
        this.#finish(aad.length, n);
        const u8 = k.u8;
        let diff = 0;
        for (let i = 0; i < TAG; i++) diff |= u8[IO.TAG + i] ^ tag[i];
        ok = diff === 0;
      }
    } finally {
      k.wipe(0, IO.END);
      k.wipe(SCRATCH_PTR, used);
      if (!ok) out.fill(0); // a bad tag (or a failure part way) releases no plaintext
    }
    if (!ok) throw new AuthenticationError(`${this.#name}: authentication failed, the tag does not match`);
    return out;
  }

  /** Kernel memory for batches sealed and opened in place (the CLI's file path); none on the js backend. */
  [ARENA](): Arena | undefined {
    // (a wrapper made by Object.create has no kernel of its own: none)
    return #k in this && this.#k.backend !== 'js' ? this.#k : undefined;
  }

  /**
   * The offset of `input` in kernel memory when it and `out` start at the same byte there (a
   * region from ARENA: sealed or opened in place with no copy), else -1.
   */
  #inKernel(input: Uint8Array, out: Uint8Array): number {
    const buf = this.#k.u8.buffer;
    return input.buffer === buf && out.buffer === buf && out.byteOffset === input.byteOffset && input.byteOffset >= SLOTS_PTR ? input.byteOffset : -1;
  }

  /** Wipe the key. Further use throws StateError. Idempotent. */
  dispose(): void {
    this.#key?.fill(0);
    this.#key = undefined;
  }

  #check(nonce: Uint8Array, aad: Uint8Array): void {
    if (this.#key === undefined) throw new StateError(`${this.#name}: used after dispose()`);
    checkBytes('nonce', nonce);
    checkLength('nonce', nonce, [this.nonceLength]);
    checkBytes('aad', aad);
  }

  // ChaCha20 state and one-time Poly1305 key for this nonce, the powers of r when the message
  // is long enough to use them, and the AAD absorbed. Returns the kernel's block group size.
  #begin(nonce: Uint8Array, aad: Uint8Array, n: number): number {
    const k = this.#k;
    const u8 = k.u8;
    u8.set(nonce, IO.NONCE);
    u8.set(this.#key!, IO.KEY);
    k.exports.aead_init(IO.KEY, IO.NONCE, IO.ST, IO.POLY, this.#x);
    u8.fill(0, IO.KEY, IO.KEY + KEY);
    let maxg = 1;
    if (macBlocks(aad.length, n) >= POWERS_MIN_BLOCKS) {
      k.exports.poly1305_powers(IO.POLY);
      maxg = MAXG;
    }
    if (aad.length > 0) absorbPadded(k, IO.POLY, aad, maxg);
    return maxg;
  }

  // The lengths block, then the tag into IO.TAG.
  #finish(aadLen: number, n: number): void {
    const k = this.#k;
    const u8 = k.u8;
    le64(u8, IO.PAD, aadLen);
    le64(u8, IO.PAD + 8, n);
    k.exports.poly1305_blocks(IO.POLY, IO.PAD, 1, 1, 1);
    k.exports.poly1305_finish(IO.POLY, IO.TAG);
  }
}

export interface ChaCha20Poly1305Function extends AeadOneShot {
  (key: Uint8Array): ChaCha20Poly1305;
}

/**
 * ChaCha20-Poly1305 (RFC 8439): 32-byte key, 12-byte nonce, 16-byte tag. `chacha20Poly1305(key)`
 * keyed object; `chacha20Poly1305.seal(key, nonce, plaintext, aad?)` / `.open(…)` one message.
 */
export const chacha20Poly1305: ChaCha20Poly1305Function = /* @__PURE__ */ Object.assign(
  (key: Uint8Array): ChaCha20Poly1305 => new ChaCha20Poly1305(key, false),
  /* @__PURE__ */ oneShot((key) => new ChaCha20Poly1305(key, false)),
);

/**
 * XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha): 32-byte key, 24-byte nonce, 16-byte tag.
 * `xchacha20Poly1305(key)` keyed object; `xchacha20Poly1305.seal(…)` / `.open(…)` one message.
 */
export const xchacha20Poly1305: ChaCha20Poly1305Function = /* @__PURE__ */ Object.assign(
  (key: Uint8Array): ChaCha20Poly1305 => new ChaCha20Poly1305(key, true),
  /* @__PURE__ */ oneShot((key) => new ChaCha20Poly1305(key, true)),
);

function checkCounter(counter: number, dataLength: number, name: string): void {
  if (!Number.isInteger(counter) || counter < 0 || counter > 0xffffffff) {
    throw new CtkitRangeError(`counter must be an integer from 0 to 2^32 - 1, got ${counter}`);
  }
  const blocks = Math.ceil(dataLength / 64);
  if (counter + blocks > 2 ** 32) {
    throw new CtkitRangeError(`${name}: the 32-bit block counter is exhausted: data needs ${blocks} blocks from block ${counter}, the last block is 2^32 - 1`);
  }
}

// data XOR keystream for the state set up in IO.ST, through scratch.
function streamXor<B extends ArrayBufferLike>(k: ChachaKernel, data: Uint8Array, out: Uint8Array<B>): Uint8Array<B> {
  let used = 0;
  try {
    const src = inPlaceSource(data, out); // key and nonce are in the IO area already
    for (let off = 0; off < src.length; off += SCRATCH_SIZE) {
      const len = Math.min(SCRATCH_SIZE, src.length - off);
      used = Math.max(used, len);
      const u8 = k.u8;
      u8.set(src.subarray(off, off + len), SCRATCH_PTR);
      k.exports.chacha20_xor(IO.ST, SCRATCH_PTR, SCRATCH_PTR, len);
      out.set(u8.subarray(SCRATCH_PTR, SCRATCH_PTR + len), off);
    }
    return out;
  } finally {
    k.wipe(0, IO.END); // the key and state, however the data behaved
    k.wipe(SCRATCH_PTR, used);
  }
}

function writeWord(u8: Uint8Array, at: number, w: number): void {
  u8[at] = w & 0xff;
  u8[at + 1] = (w >>> 8) & 0xff;
  u8[at + 2] = (w >>> 16) & 0xff;
  u8[at + 3] = w >>> 24;
}

/**
 * ChaCha20 (RFC 8439 §2.4): data XOR the keystream of (key, nonce) from block `counter`
 * (default 0). Encryption and decryption are the same. Throws RangeError when the data would
 * need a block past 2^32 − 1 rather than wrap the counter.
 */
export function chacha20<B extends ArrayBufferLike = ArrayBuffer>(key: Uint8Array, nonce: Uint8Array, data: Uint8Array, counter = 0, output?: Uint8Array<B>): Uint8Array<B> {
  const seams = takeSeams<ChachaSeams>();
  checkBytes('key', key);
  checkLength('key', key, [KEY]);
  checkBytes('nonce', nonce);
  checkLength('nonce', nonce, [12]);
  checkBytes('data', data);
  checkCounter(counter, data.length, 'chacha20');
  const out = checkOutput(output, data.length);
  const k = seams.kernel ?? chachaKernel();
  const u8 = k.u8;
  SIGMA.forEach((c, i) => writeWord(u8, IO.ST + 4 * i, c));
  u8.set(key, IO.ST + 16);
  writeWord(u8, IO.ST + 48, counter);
  u8.set(nonce, IO.ST + 52);
  return streamXor(k, data, out);
}

/**
 * XChaCha20 (draft-irtf-cfrg-xchacha §2.3): ChaCha20 under the subkey HChaCha20(key, nonce[0..16])
 * with the nonce 0^4 ‖ nonce[16..24], from block `counter` (default 0).
 */
export function xchacha20<B extends ArrayBufferLike = ArrayBuffer>(key: Uint8Array, nonce: Uint8Array, data: Uint8Array, counter = 0, output?: Uint8Array<B>): Uint8Array<B> {
  const seams = takeSeams<ChachaSeams>();
  checkBytes('key', key);
  checkLength('key', key, [KEY]);
  checkBytes('nonce', nonce);
  checkLength('nonce', nonce, [24]);
  checkBytes('data', data);
  checkCounter(counter, data.length, 'xchacha20');
  const out = checkOutput(output, data.length);
  const k = seams.kernel ?? chachaKernel();
  const u8 = k.u8;
  SIGMA.forEach((c, i) => writeWord(u8, IO.ST + 4 * i, c));
  u8.set(key, IO.KEY);
  u8.set(nonce, IO.NONCE);
  k.exports.hchacha20(IO.KEY, IO.NONCE, IO.ST + 16);
  writeWord(u8, IO.ST + 48, counter);
  writeWord(u8, IO.ST + 52, 0);
  u8.set(nonce.subarray(16, 24), IO.ST + 56);
  return streamXor(k, data, out);
}

/** HChaCha20 (draft-irtf-cfrg-xchacha §2.2): a 32-byte subkey from a key and a 16-byte nonce. */
export function hchacha20(key: Uint8Array, nonce: Uint8Array): Uint8Array<ArrayBuffer> {
  checkBytes('key', key);
  checkLength('key', key, [KEY]);
  checkBytes('nonce', nonce);
  checkLength('nonce', nonce, [16]);
  const k = chachaKernel();
  const u8 = k.u8;
  u8.set(key, IO.KEY);
  u8.set(nonce, IO.NONCE);
  k.exports.hchacha20(IO.KEY, IO.NONCE, IO.ST);
  const out = u8.slice(IO.ST, IO.ST + 32);
  k.wipe(0, IO.END);
  return out;
}

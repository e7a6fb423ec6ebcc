// The GCM construction (NIST SP 800-38D, sections 6–7) over any 128-bit block cipher whose
// kernel module carries the GCM mode loops (the generated src/engine/wasm/gcm.contract.ts:
// gcm_seal_x, gcm_open_x, gcm_lengths, gcm_finish, gcm_oneshot and the GF(2^128) functions under
// the `gf_` prefix). AES-GCM and
// SM4-GCM (RFC 8998) are GcmAead objects (below), each with its own module and key schedule.
//
// What happens here, all of it on lengths and positions only:
//   - J0: a 12-byte nonce is copied with 0^31 ‖ 1 appended; any other length is hashed with
//     GHASH (zero-padded, then the block 0^64 ‖ [len(IV)]_64);
//   - the AAD streams through the scratch window into GHASH, zero-padded;
//   - the text streams through the scratch window in 64 KiB chunks; each chunk is one kernel call
//     that encrypts and hashes it group by group; the first call also computes E(K, J0);
//   - the length block and the tag mask are applied by gcm_finish; the tag is truncated.
// open() hashes and decrypts in one pass, then compares the tags by OR-accumulating their XOR
// (no early exit). A message that fits the scratch window stays there until the tag has been
// checked, so nothing reaches the caller on failure; a longer one is decrypted into the output
// chunk by chunk and the output is wiped when the tag does not match.
//
// Constant time: no branch or index here depends on a key, a nonce's bytes, the data or a tag.

import { type Kernel, SCRATCH_PTR, SCRATCH_SIZE } from '../engine/kernel.js';
import { AuthenticationError, CtkitRangeError } from '../errors.js';
import { type GcmExports, layout } from '../engine/wasm/gcm.contract.js';
import { checkBytes, checkOutput, copyBytes } from '../util/check.js';
import { CachedKey } from '../util/key-slot.js';
import { pad16 } from '../util/length.js';
import { inPlaceSource } from '../util/overlap.js';
import type { Aead } from './types.js';

/**
 * Where the GCM state lives in the IO area of the modules that carry the GCM loops (aes, sm4:
 * their shared layout.IO); bytes [0, wipe) are wiped after every call.
 */
const IO = { ctr: layout.IO.ctr, state: layout.IO.state, tag: layout.IO.tag, wipe: layout.IO.keys + 48 } as const;

/** SP 800-38D section 5.2.1.1: len(P) ≤ 2^39 − 256 bits. */
const GCM_MAX_PLAINTEXT = 2 ** 36 - 32;
/** SP 800-38D: len(A) ≤ 2^64 − 1 bits (beyond any JavaScript buffer; checked for completeness). */
const GCM_MAX_AAD = 2 ** 61 - 1;
/** Tag lengths SP 800-38D section 5.2.1.2 allows (in bytes): 128, 120, 112, 104, 96 bits, and 64 or 32 for special applications. */
const GCM_TAG_LENGTHS = [4, 8, 12, 13, 14, 15, 16] as const;

const MAX_POWERS = layout.GF128.MAX_POWERS;

/** The key-dependent part of one GCM instance: a slot with the cipher's round keys and H's tables. */
interface GcmKey {
  kernel: Kernel<GcmExports>;
  /** bitsliced round keys */
  rk: number;
  /** GHASH key and tables (gf128 slot layout) */
  gf: number;
  /** rounds */
  nr: number;
  name: string;
}

/** Hash `data` (zero-padded to whole blocks) into the state through scratch. Returns the scratch bytes used. */
function ghashPadded(g: GcmKey, data: Uint8Array): number {
  const k = g.kernel;
  let used = 0;
  for (let off = 0; off < data.length; off += SCRATCH_SIZE) {
    const len = Math.min(SCRATCH_SIZE, data.length - off);
    const padded = pad16(len);
    const u8 = k.u8;
    u8.set(data.subarray(off, off + len), SCRATCH_PTR);
    u8.fill(0, SCRATCH_PTR + len, SCRATCH_PTR + padded);
    k.exports.gf_ghash_blocks(g.gf, IO.state, SCRATCH_PTR, padded >>> 4, MAX_POWERS);
    if (padded > used) used = padded;
  }
  return used;
}

/** J0 into IO.ctr, the state zeroed. Returns the scratch bytes used. */
function j0(g: GcmKey, nonce: Uint8Array): number {
  const u8 = g.kernel.u8;
  u8.fill(0, IO.state, IO.state + 16);
  let used = 0;
  if (nonce.length === 12) {
    u8.set(nonce, IO.ctr);
    u8[IO.ctr + 12] = 0;
    u8[IO.ctr + 13] = 0;
    u8[IO.ctr + 14] = 0;
    u8[IO.ctr + 15] = 1;
  } else {
    used = ghashPadded(g, nonce);
    g.kernel.exports.gcm_lengths(g.gf, 0n, BigInt(nonce.length));
    u8.copyWithin(IO.ctr, IO.state, IO.state + 16);
    u8.fill(0, IO.state, IO.state + 16);
  }
  return used;
}

/** J0 into IO.ctr, state zeroed, then the AAD hashed. Returns the scratch bytes used. */
function begin(g: GcmKey, nonce: Uint8Array, aad: Uint8Array): number {
  let used = j0(g, nonce);
  if (aad.length > 0) used = Math.max(used, ghashPadded(g, aad));
  return used;
}

/**
 * A message whose text and AAD fit the scratch window together, in one kernel call: the text at
 * the start of scratch, the AAD after it, both zero-padded. Leaves the result text in scratch and
 * the tag at IO.tag; returns the scratch bytes used.
 */
function oneshot(g: GcmKey, nonce: Uint8Array, src: Uint8Array, aad: Uint8Array, decrypt: number): number {
  const k = g.kernel;
  const used = j0(g, nonce);
  const n = src.length;
  const aadAt = SCRATCH_PTR + pad16(n);
  const end = aadAt + pad16(aad.length);
  const u8 = k.u8;
  u8.set(src, SCRATCH_PTR);
  u8.fill(0, SCRATCH_PTR + n, aadAt);
  u8.set(aad, aadAt);
  u8.fill(0, aadAt + aad.length, end);
  k.exports.gcm_oneshot(g.rk, g.gf, g.nr, SCRATCH_PTR, n, aadAt, aad.length, decrypt);
  return Math.max(used, end - SCRATCH_PTR);
}

/**
 * Do a text of n bytes and an AAD of aadLength bytes, each zero-padded to whole blocks, fit the
 * scratch window together (the one-call path)? Exact for every length (util/length.ts).
 */
export const gcmFitsOnce = (n: number, aadLength: number): boolean => pad16(n) + pad16(aadLength) <= SCRATCH_SIZE;

function wipe(g: GcmKey, scratchUsed: number): void {
  const k = g.kernel;
  k.wipe(0, IO.wipe);
  if (scratchUsed > 0) k.wipe(SCRATCH_PTR, pad16(scratchUsed));
}

/** The length limits of SP 800-38D (exported for the tests: no JavaScript buffer reaches them). */
export function gcmCheckLimits(name: string, n: number, aadLength: number, what: 'plaintext' | 'sealed'): void {
  if (n > GCM_MAX_PLAINTEXT) throw new CtkitRangeError(`${name}: ${what} must be at most 2^36 - 32 bytes long (SP 800-38D), got ${n}`);
  if (aadLength > GCM_MAX_AAD) throw new CtkitRangeError(`${name}: aad must be at most 2^61 - 1 bytes long, got ${aadLength}`);
}

/** GCM-AE (SP 800-38D Algorithm 4): ciphertext ‖ tag into out (n + tagLength bytes). */
function gcmSeal(g: GcmKey, nonce: Uint8Array, plaintext: Uint8Array, aad: Uint8Array, out: Uint8Array, tagLength: number): Uint8Array {
  const k = g.kernel;
  const e = k.exports;
  const n = plaintext.length;
  let used = 0;
  try {
    if (gcmFitsOnce(n, aad.length)) {
      // nonce, AAD and text are all in scratch before the first write to out
      used = oneshot(g, nonce, plaintext, aad, 0);
      const u8 = k.u8;
      out.set(u8.subarray(SCRATCH_PTR, SCRATCH_PTR + n));
      for (let i = 0; i < tagLength; i++) out[n + i] = u8[IO.tag + i];
      return out;
    }
    used = begin(g, nonce, aad);
    // after the nonce and AAD were read; a text of one chunk is all in scratch before the first
    // write, so an overlapping output (a sealed stream's segment in place) needs no move
    const src = n <= SCRATCH_SIZE ? plaintext : inPlaceSource(plaintext, out);
    if (n === 0) e.gcm_seal_x(g.rk, g.gf, g.nr, SCRATCH_PTR, 0, 1, MAX_POWERS);
    for (let off = 0; off < n; off += SCRATCH_SIZE) {
      const len = Math.min(SCRATCH_SIZE, n - off);
      let u8 = k.u8;
      u8.set(src.subarray(off, off + len), SCRATCH_PTR);
      e.gcm_seal_x(g.rk, g.gf, g.nr, SCRATCH_PTR, len, off === 0 ? 1 : 0, MAX_POWERS);
      u8 = k.u8;
      out.set(u8.subarray(SCRATCH_PTR, SCRATCH_PTR + len), off);
      if (len > used) used = len;
    }
    e.gcm_finish(g.gf, BigInt(aad.length), BigInt(n));
    const u8 = k.u8;
    out.set(u8.subarray(IO.tag, IO.tag + tagLength), n);
    return out;
  } finally {
    wipe(g, used);
  }
}

/** GCM-AD (SP 800-38D Algorithm 5): the plaintext into out, or AuthenticationError (out wiped). */
function gcmOpen(g: GcmKey, nonce: Uint8Array, sealed: Uint8Array, aad: Uint8Array, out: Uint8Array, tagLength: number): Uint8Array {
  const k = g.kernel;
  const e = k.exports;
  const n = sealed.length - tagLength;
  const once = gcmFitsOnce(n, aad.length);
  // the tag, read before any write (out may overlap sealed); the one-call path writes out only
  // after the comparison, so it can read the tag in place
  const tag = once ? sealed.subarray(n) : copyBytes(sealed.subarray(n)); // not slice(): a view on a Buffer
  let used = 0;
  let ok = false;
  try {
    if (once) {
      used = oneshot(g, nonce, sealed.subarray(0, n), aad, 1);
    } else {
      used = begin(g, nonce, aad);
      const src = n <= SCRATCH_SIZE ? sealed.subarray(0, n) : inPlaceSource(sealed.subarray(0, n), out);
      for (let off = 0; off < n; off += SCRATCH_SIZE) {
        const len = Math.min(SCRATCH_SIZE, n - off);
        k.u8.set(src.subarray(off, off + len), SCRATCH_PTR);
        e.gcm_open_x(g.rk, g.gf, g.nr, SCRATCH_PTR, len, off === 0 ? 1 : 0, MAX_POWERS);
        if (n > SCRATCH_SIZE) out.set(k.u8.subarray(SCRATCH_PTR, SCRATCH_PTR + len), off);
        if (len > used) used = len;
      }
      if (n === 0) e.gcm_open_x(g.rk, g.gf, g.nr, SCRATCH_PTR, 0, 1, MAX_POWERS);
      e.gcm_finish(g.gf, BigInt(aad.length), BigInt(n));
    }
    const u8 = k.u8;
    let diff = 0;
    for (let i = 0; i < tagLength; i++) diff |= u8[IO.tag + i] ^ tag[i];
    ok = diff === 0;
    // a message that fitted the scratch window leaves it only now that the tag has been checked
    if (ok && n <= SCRATCH_SIZE) out.set(u8.subarray(SCRATCH_PTR, SCRATCH_PTR + n));
  } finally {
    wipe(g, used);
    if (!ok) out.fill(0);
  }
  if (!ok) throw new AuthenticationError(`${g.name}: authentication failed, the tag does not match`);
  return out;
}

const EMPTY = new Uint8Array(0);

/** Where a GCM cipher keeps its key in a slot, and how it expands it. */
export interface GcmCipher<E extends GcmExports> {
  /** offset of the round keys in the slot */
  rk: number;
  /** offset of the GHASH key and tables (gf128 slot layout) */
  gf: number;
  /** rounds (passed through to the mode loops) */
  nr: number;
  /** bytes from the slot's start that the expansion, H and its powers write */
  written: number;
  /** write the round keys at slot + rk and H = E(K, 0^128) at slot + gf (the slot is zero-filled) */
  expand(k: Kernel<E>, slot: number, key: Uint8Array): void;
}

/**
 * GCM with one key over one block cipher (AES-GCM, SM4-GCM): the tag length, the key, the
 * argument checks and seal / open / dispose. The cipher's class checks its key, then passes its
 * kernel and how to expand the key; here H gets its POLYVAL-domain form, tables and powers
 * H … H^8. The expanded key lives in the module's key cache (util/key-slot.ts CachedKey): an
 * object that is never disposed does not hold a slot for ever, and one whose slot was reclaimed
 * expands its key again on its next use.
 */
export class GcmAead<E extends GcmExports> implements Aead {
  readonly algorithm: string;
  readonly keyLength: number;
  readonly nonceLength = 12;
  readonly tagLength: number;
  readonly #name: string;
  readonly #key: CachedKey;
  readonly #cipher: GcmCipher<E>;
  readonly #g: GcmKey;

  protected constructor(name: string, key: Uint8Array, tagLength: number | undefined, kernel: Kernel<E>, cipher: GcmCipher<E>) {
    tagLength ??= 16;
    if (!(GCM_TAG_LENGTHS as readonly number[]).includes(tagLength)) {
      throw new CtkitRangeError(`tagLength must be 4, 8, 12, 13, 14, 15 or 16 bytes, got ${String(tagLength)}`);
    }
    this.keyLength = key.length;
    this.tagLength = tagLength;
    this.#name = this.algorithm = name;
    this.#cipher = cipher;
    this.#g = { kernel, rk: -1, gf: -1, nr: cipher.nr, name };
    this.#key = new CachedKey(kernel as Kernel<unknown>, key, (slot, raw) => {
      cipher.expand(kernel, slot, raw);
      kernel.exports.gf_gf128_init(slot + cipher.gf, 1);
      kernel.exports.gf_gf128_powers(slot + cipher.gf);
      return cipher.written;
    });
  }

  seal<B extends ArrayBufferLike = ArrayBuffer>(nonce: Uint8Array, plaintext: Uint8Array, aad: Uint8Array = EMPTY, output?: Uint8Array<B>): Uint8Array<B> {
    const g = this.#begin(nonce, aad);
    checkBytes('plaintext', plaintext);
    gcmCheckLimits(this.#name, plaintext.length, aad.length, 'plaintext');
    const out = checkOutput(output, plaintext.length + this.tagLength);
    return gcmSeal(g, nonce, plaintext, aad, out, this.tagLength) as Uint8Array<B>;
  }

  open<B extends ArrayBufferLike = ArrayBuffer>(nonce: Uint8Array, sealed: Uint8Array, aad: Uint8Array = EMPTY, output?: Uint8Array<B>): Uint8Array<B> {
    const g = this.#begin(nonce, aad);
    checkBytes('sealed', sealed);
    if (sealed.length < this.tagLength) {
      throw new AuthenticationError(`${this.#name}: sealed input is shorter than the ${this.tagLength}-byte tag`);
    }
    gcmCheckLimits(this.#name, sealed.length - this.tagLength, aad.length, 'sealed');
    const out = checkOutput(output, sealed.length - this.tagLength);
    return gcmOpen(g, nonce, sealed, aad, out, this.tagLength) as Uint8Array<B>;
  }

  dispose(): void {
    this.#key.release();
  }

  /** Checks the state and the nonce and AAD; the key's slot (expanded again if it was reclaimed). */
  #begin(nonce: Uint8Array, aad: Uint8Array): GcmKey {
    const slot = this.#key.ptr(this.#name);
    checkBytes('nonce', nonce);
    if (nonce.length === 0) throw new CtkitRangeError('nonce must be at least 1 byte long (12 recommended), got 0');
    checkBytes('aad', aad);
    const g = this.#g;
    g.rk = slot + this.#cipher.rk;
    g.gf = slot + this.#cipher.gf;
    return g;
  }
}

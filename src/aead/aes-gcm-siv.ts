// AES-GCM-SIV (RFC 8452) with 128- and 256-bit keys and 12-byte nonces, as a reusable keyed
// object: `const aead = aesGcmSiv(key)`, then seal / open / dispose as for AES-GCM.
//
// Per message (section 4): the key-generating key (expanded once, bitsliced, in the slot)
// derives the POLYVAL key and the message-encryption key from the nonce (one eight-block pass of
// the AES kernel); POLYVAL runs over the zero-padded AAD, the zero-padded plaintext and the
// little-endian length block on the shared GF(2^128) kernel; the nonce is XORed in, the top bit
// cleared, and the result encrypted into the tag; the tag with its top bit set is the initial
// counter of AES-CTR with a 32-bit little-endian counter that wraps modulo 2^32.
// Seal hashes the plaintext before it can encrypt (two passes); open decrypts and hashes each
// group in one pass, then compares tags by OR-accumulating their XOR (no early exit). A message
// that fits the 64 KiB scratch window never leaves it before the tag is checked; a longer one is
// decrypted into the output chunk by chunk and the output is wiped when the tag does not match.
// The per-nonce keys are wiped at the end of every call.
//
// Constant time: no branch or index here depends on a key, a nonce's bytes, the data or a tag.

import { type Kernel, SCRATCH_PTR, SCRATCH_SIZE } from '../engine/kernel.js';
import { CachedKey } from '../util/key-slot.js';
import { AuthenticationError, CtkitRangeError } from '../errors.js';
import { layout } from '../engine/wasm/aes.contract.js';
import { checkBytes, checkLength, checkOutput, copyBytes } from '../util/check.js';
import { takeSeams } from '../util/seam.js';
import { type AesKernel, type AesSeams, aesKernel, expandAesKey } from './aes-gcm.js';
import { pad16 } from '../util/length.js';
import { inPlaceSource } from '../util/overlap.js';
import { type Aead, type AeadOneShot, oneShot } from './types.js';

/** RFC 8452 section 6: P_MAX = A_MAX = 2^36 bytes. */
const GCM_SIV_MAX_PLAINTEXT = 2 ** 36;
const GCM_SIV_MAX_AAD = 2 ** 36;
const TAG = 16;
const NONCE = 12;
const AES_IO = layout.IO;
const AES_SLOT = layout.SLOT;
/** gf128 slot layout: H, state and pin words before the tables, then one table per power */
const GF_TABLES = layout.GF128.TABLE_OFFSET;
const GF_TABLE = layout.GF128.TABLE_SIZE;
const EMPTY = new Uint8Array(0);

/**
 * POLYVAL inputs (padded AAD + padded text + length block) of at least this many bytes get the
 * powers of the per-message key computed, so that eight blocks share one reduction. Below it
 * computing them costs more than it saves; the value follows the measurement for the standalone
 * POLYVAL (src/mac/universal-hash.ts), re-checked with `npx tsx bench/run.ts aes-256-gcm-siv`.
 */
export const SIV_POWERS_THRESHOLD = 768;

/** Bytes POLYVAL hashes for a message: the padded AAD, the padded text and the length block. */
export const sivHashedBytes = (aadLength: number, n: number): number => pad16(aadLength) + pad16(n) + 16;

/**
 * RFC 8452 section 6's limits on a message of `n` bytes (`what`: the plaintext, or the sealed
 * input less its tag) and its AAD (exported for the tests: no array that long can be made).
 */
export function sivCheckLimits(name: string, n: number, aadLength: number, what: 'plaintext' | 'sealed'): void {
  if (n > GCM_SIV_MAX_PLAINTEXT) {
    throw new CtkitRangeError(what === 'plaintext' ? `${name}: plaintext must be at most 2^36 bytes long (RFC 8452), got ${n}` : `${name}: sealed must be at most 2^36 + 16 bytes long (RFC 8452), got ${n + TAG}`);
  }
  if (aadLength > GCM_SIV_MAX_AAD) throw new CtkitRangeError(`${name}: aad must be at most 2^36 bytes long (RFC 8452), got ${aadLength}`);
}

/** Whether a message's POLYVAL gets the powers of its key (SIV_POWERS_THRESHOLD). */
export const sivUsesPowers = (aadLength: number, n: number): boolean => sivHashedBytes(aadLength, n) >= SIV_POWERS_THRESHOLD;

/** AES-GCM-SIV with one key. */
export class AesGcmSiv implements Aead {
  readonly algorithm: string;
  readonly keyLength: number;
  readonly nonceLength = NONCE;
  readonly tagLength = TAG;
  readonly #k: AesKernel;
  /** the key's slot for the call in progress (set by #check: the cache may have moved it) */
  #slot = -1;
  readonly #key: CachedKey;
  readonly #nr: number;
  readonly #name: string;
  /** whether this message's POLYVAL key has its powers (and tables) written */
  #powers = false;

  constructor(key: Uint8Array) {
    const seams = takeSeams<AesSeams>();
    checkBytes('key', key);
    checkLength('key', key, [16, 32]);
    this.keyLength = key.length;
    this.#name = this.algorithm = `aes-${key.length * 8}-gcm-siv`;
    const k = (this.#k = seams.kernel ?? aesKernel());
    const nr = (this.#nr = key.length / 4 + 6);
    // the key-generating key's round keys; the per-nonce keys are written and wiped per message
    this.#key = new CachedKey(k as Kernel<unknown>, key, (slot, raw) => {
      expandAesKey(k, slot + AES_SLOT.rk, raw);
      return AES_SLOT.rk + (nr + 1) * 128;
    });
  }

  seal<B extends ArrayBufferLike = ArrayBuffer>(nonce: Uint8Array, plaintext: Uint8Array, aad: Uint8Array = EMPTY, output?: Uint8Array<B>): Uint8Array<B> {
    this.#check(nonce, aad);
    checkBytes('plaintext', plaintext);
    const n = plaintext.length;
    sivCheckLimits(this.#name, n, aad.length, 'plaintext');
    const out = checkOutput(output, n + TAG);
    const k = this.#k;
    const e = k.exports;
    const rk = this.#slot + AES_SLOT.sivRk;
    let used = 0;
    try {
      const maxg = this.#begin(nonce, aad, n);
      used = this.#polyval(aad, maxg);
      if (n <= SCRATCH_SIZE) {
        // one copy in: hash, tag, then encrypt the same bytes in place
        const padded = pad16(n);
        const u8 = k.u8;
        u8.set(plaintext, SCRATCH_PTR);
        u8.fill(0, SCRATCH_PTR + n, SCRATCH_PTR + padded);
        e.gf_polyval_blocks(this.#slot + AES_SLOT.sivGf, AES_IO.state, SCRATCH_PTR, padded >>> 4, maxg);
        e.siv_tag(this.#slot, this.#nr, BigInt(aad.length), BigInt(n));
        e.siv_ctr_x(rk, 0, this.#nr, SCRATCH_PTR, n, 0, 1);
        out.set(k.u8.subarray(SCRATCH_PTR, SCRATCH_PTR + n));
        used = Math.max(used, padded);
      } else {
        used = Math.max(used, this.#polyval(plaintext, maxg));
        e.siv_tag(this.#slot, this.#nr, BigInt(aad.length), BigInt(n));
        const src = inPlaceSource(plaintext, out); // after everything else was read
        for (let off = 0; off < n; off += SCRATCH_SIZE) {
          const len = Math.min(SCRATCH_SIZE, n - off);
          k.u8.set(src.subarray(off, off + len), SCRATCH_PTR);
          e.siv_ctr_x(rk, 0, this.#nr, SCRATCH_PTR, len, 0, 1);
          out.set(k.u8.subarray(SCRATCH_PTR, SCRATCH_PTR + len), off);
        }
      }
      out.set(k.u8.subarray(AES_IO.tag, AES_IO.tag + TAG), n);
      return out;
    } finally {
      this.#wipe(used);
    }
  }

  open<B extends ArrayBufferLike = ArrayBuffer>(nonce: Uint8Array, sealed: Uint8Array, aad: Uint8Array = EMPTY, output?: Uint8Array<B>): Uint8Array<B> {
    this.#check(nonce, aad);
    checkBytes('sealed', sealed);
    if (sealed.length < TAG) throw new AuthenticationError(`${this.#name}: sealed input is shorter than the ${TAG}-byte tag`);
    const n = sealed.length - TAG;
    sivCheckLimits(this.#name, n, aad.length, 'sealed');
    const out = checkOutput(output, n);
    const tag = copyBytes(sealed.subarray(n)); // before any write: out may overlap sealed (not slice(): a view on a Buffer)
    const k = this.#k;
    const e = k.exports;
    const rk = this.#slot + AES_SLOT.sivRk;
    const gf = this.#slot + AES_SLOT.sivGf;
    let used = 0;
    let ok = false;
    try {
      const maxg = this.#begin(nonce, aad, n);
      used = this.#polyval(aad, maxg);
      // the counter block: the received tag with the top bit set
      const u8 = k.u8;
      u8.set(tag, AES_IO.ctr);
      u8[AES_IO.ctr + 15] |= 0x80;
      const single = n <= SCRATCH_SIZE;
      const src = inPlaceSource(sealed.subarray(0, n), out); // the nonce, AAD and tag were read
      for (let off = 0; off < n; off += SCRATCH_SIZE) {
        const len = Math.min(SCRATCH_SIZE, n - off);
        k.u8.set(src.subarray(off, off + len), SCRATCH_PTR);
        // with the powers, POLYVAL runs stitched into the AES rounds
        if (maxg === 8) e.siv_open_s(rk, gf, this.#nr, SCRATCH_PTR, len, 0, maxg);
        else e.siv_open_x(rk, gf, this.#nr, SCRATCH_PTR, len, 0, maxg);
        if (!single) out.set(k.u8.subarray(SCRATCH_PTR, SCRATCH_PTR + len), off);
        used = Math.max(used, pad16(len));
      }
      e.siv_tag(this.#slot, this.#nr, BigInt(aad.length), BigInt(n));
      const v = k.u8;
      let diff = 0;
      for (let i = 0; i < TAG; i++) diff |= v[AES_IO.tag + i] ^ tag[i];
      ok = diff === 0;
      if (ok && single) out.set(v.subarray(SCRATCH_PTR, SCRATCH_PTR + n));
    } finally {
      this.#wipe(used);
      if (!ok) out.fill(0);
    }
    if (!ok) throw new AuthenticationError(`${this.#name}: authentication failed, the tag does not match`);
    return out;
  }

  dispose(): void {
    this.#key.release();
  }

  #check(nonce: Uint8Array, aad: Uint8Array): void {
    this.#slot = this.#key.ptr(this.#name);
    checkBytes('nonce', nonce);
    checkLength('nonce', nonce, [NONCE]);
    checkBytes('aad', aad);
  }

  /** Derive the per-nonce keys, zero the state, decide on the powers; returns maxg. */
  #begin(nonce: Uint8Array, aad: Uint8Array, n: number): number {
    const k = this.#k;
    const u8 = k.u8;
    u8.set(nonce, AES_IO.nonce);
    k.exports.siv_init(this.#slot, this.#nr);
    u8.fill(0, AES_IO.state, AES_IO.state + 16);
    if (!sivUsesPowers(aad.length, n)) return 1;
    k.exports.gf_gf128_powers(this.#slot + AES_SLOT.sivGf);
    this.#powers = true;
    return 8;
  }

  /** POLYVAL `data`, zero-padded, into the state through scratch; returns the scratch bytes used. */
  #polyval(data: Uint8Array, maxg: number): number {
    const k = this.#k;
    let used = 0;
    for (let off = 0; off < data.length; off += SCRATCH_SIZE) {
      const len = Math.min(SCRATCH_SIZE, data.length - off);
      const padded = pad16(len);
      const u8 = k.u8;
      u8.set(data.subarray(off, off + len), SCRATCH_PTR);
      u8.fill(0, SCRATCH_PTR + len, SCRATCH_PTR + padded);
      k.exports.gf_polyval_blocks(this.#slot + AES_SLOT.sivGf, AES_IO.state, SCRATCH_PTR, padded >>> 4, maxg);
      if (padded > used) used = padded;
    }
    return used;
  }

  /** Wipe the IO area, the scratch used and the per-nonce keys (the round keys, H and the tables written). */
  #wipe(scratchUsed: number): void {
    const k = this.#k;
    k.wipe(0, AES_IO.keys + 48);
    if (scratchUsed > 0) k.wipe(SCRATCH_PTR, scratchUsed);
    k.wipe(this.#slot + AES_SLOT.sivRk, (this.#nr + 1) * 128);
    k.wipe(this.#slot + AES_SLOT.sivGf, GF_TABLES + (this.#powers ? 8 : 1) * GF_TABLE);
    this.#powers = false;
  }
}

export interface AesGcmSivFunction extends AeadOneShot {
  /** AES-GCM-SIV keyed object: key of 16 or 32 bytes, nonces of 12 bytes, 16-byte tags. */
  (key: Uint8Array): AesGcmSiv;
}

/** AES-GCM-SIV: `aesGcmSiv(key)` keyed object; `aesGcmSiv.seal(key, nonce, plaintext, aad?)` / `.open(…)` one message. */
export const aesGcmSiv: AesGcmSivFunction = /* @__PURE__ */ Object.assign(
  (key: Uint8Array): AesGcmSiv => new AesGcmSiv(key),
  /* @__PURE__ */ oneShot((key) => new AesGcmSiv(key)),
);

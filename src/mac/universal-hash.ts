// The glue shared by GHASH and POLYVAL: key slot, streaming through scratch, the partial final
// block (zero-padded, in this one place), and when to precompute the powers of H.
//
// Constant time: the glue branches only on lengths and on which hash it is; the key, data and
// state move by position only, and all arithmetic on them happens in the gf128 kernel.

import { Kernel, SCRATCH_PTR, SCRATCH_SIZE, getKernel, registerModule } from '../engine/kernel.js';
import * as gf128Module from '../engine/wasm/gf128.js';
import { type Gf128Exports, layout } from '../engine/wasm/gf128.contract.js';
import { StateError } from '../errors.js';
import { BlockBuffer } from '../util/block-buffer.js';
import { checkBytes, checkLength, checkOptions } from '../util/check.js';
import { takeSeams } from '../util/seam.js';
import { KeySlot } from '../util/key-slot.js';

registerModule(gf128Module);

const { SLOT_SIZE, STATE_OFFSET, TABLE_OFFSET, TABLE_SIZE, W16_OFFSET, W16_SIZE, MAX_POWERS } = layout;
/**
 * Bytes of the slot the kernel wrote, wiped on release: without powers, key, state, pin and the
 * i64 table of H_1; with them also the i64 tables of H_2…H_8, the v128 pin and the i16x8 tables.
 */
const written = (powers: boolean) => (powers ? W16_OFFSET + W16_SIZE * MAX_POWERS : TABLE_OFFSET + TABLE_SIZE);

/**
 * Inputs of at least this many bytes (counted over the life of one hash object) get the powers
 * H^2…H^8 computed so that eight blocks share one reduction and run the kernel's i16x8 loop
 * (from the table: ~15 ns per block against ~29 ns one block at a time). Below it the powers
 * cost more than they save: computing seven powers and the i64 and i16x8 tables of eight costs
 * ~0.4 µs, about 14 blocks one at a time.
 * Measured with `npm run bench -- gf128-threshold` (GHASH through the hash object, powers forced
 * on including their cost, or off; median per call, 2-core VM with other work running):
 *
 *   | bytes | powers  | 1 power |
 *   |  256  | 1.53 µs | 1.38 µs |
 *   |  384  | 1.65 µs | 1.61 µs |
 *   |  512  | 1.72 µs | 1.79 µs |   <- break-even between 384 and 512
 *   |  640  | 1.83 µs | 2.00 µs |
 *   |  768  | 1.91 µs | 2.19 µs |
 *   | 1024  | 2.13 µs | 2.67 µs |
 *   | 1536  | 2.68 µs | 3.66 µs |
 *   | 2048  | 3.13 µs | 4.53 µs |
 *   | 4096  | 5.07 µs | 8.24 µs |
 *
 * (Before the i16x8 loop, with the i64.mul loop for both, break-even was at 768 bytes.)
 */
const POWERS_THRESHOLD = 512;

function kernel(): Kernel<Gf128Exports> {
  return getKernel<Gf128Exports>(gf128Module, SLOT_SIZE);
}

/** A separate instance of a gf128 module built from other bytes (tests: negative controls). */
export function gf128KernelFrom(name: string, bytes: Uint8Array): Kernel<Gf128Exports> {
  return new Kernel<Gf128Exports>({ name, bytes: () => bytes }, SLOT_SIZE);
}

/** Options for tests and for the AEAD modes; create(key) uses none of them. */
export interface UniversalHashOptions {
  /** start from this state instead of zero (16 bytes, in the hash's own byte order) */
  initialState?: Uint8Array;
  /** when to precompute H^2…H^8: by the measured threshold (default), always, or never */
  powers?: 'auto' | 'always' | 'never';
}

/** Test seams (src/internal.ts). */
export interface UniversalHashSeams {
  /** the kernel instance to run on */
  kernel?: Kernel<Gf128Exports>;
}

export type HashKind = 'ghash' | 'polyval';

/**
 * One-shot GHASH/POLYVAL without an object: the key slot lives only for this call, so there
 * is nothing for a finalizer to guard, and only the bytes written are wiped.
 */
export function hashOneShot(kind: HashKind, key: Uint8Array, data: Uint8Array, kernelOverride?: Kernel<Gf128Exports>): Uint8Array<ArrayBuffer> {
  checkBytes('key', key);
  checkLength('key', key, [16]);
  checkBytes('data', data);
  const k = kernelOverride ?? kernel();
  const slot = k.allocSlot();
  const powers = data.length >= POWERS_THRESHOLD;
  let used = 0;
  try {
    k.u8.set(key, slot);
    k.exports.gf128_init(slot, kind === 'ghash' ? 1 : 0);
    if (powers) k.exports.gf128_powers(slot);
    const fn = kind === 'ghash' ? k.exports.ghash_blocks : k.exports.polyval_blocks;
    const maxg = powers ? MAX_POWERS : 1;
    for (let off = 0; off < data.length; off += SCRATCH_SIZE) {
      const end = Math.min(off + SCRATCH_SIZE, data.length);
      const len = end - off;
      const padded = (len + 15) & ~15;
      const u8 = k.u8;
      u8.set(data.subarray(off, end), SCRATCH_PTR);
      u8.fill(0, SCRATCH_PTR + len, SCRATCH_PTR + padded); // the partial final block, zero-padded
      fn(slot, slot + STATE_OFFSET, SCRATCH_PTR, padded >>> 4, maxg);
      used = Math.max(used, padded);
    }
    return k.u8.slice(slot + STATE_OFFSET, slot + STATE_OFFSET + 16);
  } finally {
    k.wipe(SCRATCH_PTR, used);
    k.freeSlot(slot, written(powers));
  }
}

/** An incremental GHASH or POLYVAL computation. Single use: digest() ends it. */
export class UniversalHash {
  readonly kind: HashKind;
  #k: Kernel<Gf128Exports>;
  #slot: number;
  #key: KeySlot;
  #buf = new BlockBuffer();
  #seen = 0;
  #powers = false;
  /** update()'s sink for BlockBuffer.feed, made once per object rather than per call */
  readonly #onBlocks = (whole: Uint8Array): void => this.#blocks(whole);

  #policy: 'auto' | 'always' | 'never';

  constructor(kind: HashKind, key: Uint8Array, options?: UniversalHashOptions) {
    const seams = takeSeams<UniversalHashSeams>();
    const o = checkOptions(options);
    checkBytes('key', key);
    checkLength('key', key, [16]);
    const { initialState, powers = 'auto' } = o;
    this.#policy = powers;
    if (initialState !== undefined) {
      checkBytes('initialState', initialState);
      checkLength('initialState', initialState, [16]);
    }
    this.kind = kind;
    const k = (this.#k = seams.kernel ?? kernel());
    this.#key = new KeySlot(this, k as Kernel<unknown>);
    this.#slot = this.#key.ptr;
    k.u8.set(key, this.#slot);
    k.exports.gf128_init(this.#slot, kind === 'ghash' ? 1 : 0);
    if (initialState) k.u8.set(initialState, this.#slot + STATE_OFFSET);
  }

  /** Absorb data; any length, any number of calls. */
  update(data: Uint8Array): this {
    if (this.#key.released) throw new StateError(`${this.kind}: update() after digest()`);
    checkBytes('data', data);
    this.#buf.feed(data, this.#onBlocks);
    return this;
  }

  /** The hash value; zero-pads a partial final block. Wipes the key and state. */
  digest(): Uint8Array<ArrayBuffer> {
    if (this.#key.released) throw new StateError(`${this.kind}: digest() called twice`);
    if (this.#buf.length > 0) {
      this.#buf.block.fill(0, this.#buf.length); // the partial final block, zero-padded
      this.#blocks(this.#buf.block);
    }
    const k = this.#k;
    const out = k.u8.slice(this.#slot + STATE_OFFSET, this.#slot + STATE_OFFSET + 16);
    this.dispose();
    return out;
  }

  /** Wipe the key and state without producing a value. Idempotent. */
  dispose(): void {
    if (this.#key.released) return;
    this.#buf.wipe();
    this.#key.release(written(this.#powers)); // the bytes written, as in hashOneShot
  }

  // Hash the whole blocks of src (src.length a multiple of 16), streaming through scratch.
  #blocks(src: Uint8Array): void {
    const k = this.#k;
    this.#seen += src.length;
    if (!this.#powers && this.#policy !== 'never' && (this.#policy === 'always' || this.#seen >= POWERS_THRESHOLD)) {
      k.exports.gf128_powers(this.#slot);
      this.#powers = true;
    }
    const maxg = this.#powers ? MAX_POWERS : 1;
    const fn = this.kind === 'ghash' ? k.exports.ghash_blocks : k.exports.polyval_blocks;
    const st = this.#slot + STATE_OFFSET;
    let used = 0;
    for (let off = 0; off < src.length; off += SCRATCH_SIZE) {
      const chunk = src.subarray(off, Math.min(off + SCRATCH_SIZE, src.length));
      k.u8.set(chunk, SCRATCH_PTR);
      fn(this.#slot, st, SCRATCH_PTR, chunk.length >>> 4, maxg);
      used = Math.max(used, chunk.length);
    }
    k.wipe(SCRATCH_PTR, used);
  }
}

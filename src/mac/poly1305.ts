// Poly1305 (RFC 8439 §2.5) as a MAC, and the glue of the 'chacha' kernel module that the MAC,
// ChaCha20, XChaCha20 and both ChaCha AEADs share: the kernel instance, the layout of its IO
// area, and the one place where a partial Poly1305 block is padded (absorbPartial).
//
// Constant time: the glue branches only on lengths; key, message, accumulator and tag move by
// position, and all arithmetic on them happens in the kernel (src/kernels/poly1305_radix26.ts).

import { Kernel, SCRATCH_PTR, SCRATCH_SIZE, getKernel, registerModule } from '../engine/kernel.js';
import * as chachaModule from '../engine/wasm/chacha.js';
import { type ChachaExports, layout } from '../engine/wasm/chacha.contract.js';
import { StateError } from '../errors.js';
import { BlockBuffer } from '../util/block-buffer.js';
import { checkBytes, checkLength, checkOptions } from '../util/check.js';
import { takeSeams } from '../util/seam.js';
import { whole16 } from '../util/length.js';
import { KeySlot } from '../util/key-slot.js';

registerModule(chachaModule);

export type ChachaKernel = Kernel<ChachaExports>;

/** Key slots of the chacha module: a Poly1305 state (448 bytes) or an AEAD key (32 bytes). */
export const CHACHA_SLOT_SIZE = 512;

/**
 * The IO area of the chacha module, per call (wiped up to END when the call ends). ST, KS, POLY
 * and PIN are the kernel's (its contract's layout); the rest are the glue's, between them.
 */
export const IO = {
  /** ChaCha20 state: constants, key, counter, nonce (64 bytes) */
  ST: layout.ST,
  /** keystream of a partial pass (256 bytes) */
  KS: layout.KS_PTR,
  /** one padded Poly1305 block */
  PAD: 320,
  /** a computed tag */
  TAG: 336,
  /** a key (32 bytes) */
  KEY: 352,
  /** a nonce (up to 24 bytes) */
  NONCE: 384,
  /** Poly1305 state of an AEAD call or a one-shot MAC (layout.POLY_STATE_SIZE: 448 bytes) */
  POLY: layout.POLY,
  /** the kernel's dead pinning stores (64 bytes): round and Poly1305 intermediates */
  PIN: layout.PIN,
  END: 1024,
} as const;

/**
 * Whole blocks at or above this many (over one MAC object, or one AEAD message) get r^2…r^8
 * computed (~70 ns), and the kernel then runs eight blocks per step (four scalar, four in SIMD
 * lanes). Measured break-even, one-shot MAC, ns with / without the powers:
 * 512 B 424 / 388, 640 B 470 / 448, 768 B 509 / 506, 1024 B 576 / 594, 2048 B 816 / 984.
 * The fused AEAD pass needs the powers from 256 bytes on; it runs only on streamed messages
 * (larger than the scratch window), far above this threshold.
 */
export const POWERS_MIN_BLOCKS = 48;

/** The kernel's group size once the powers exist (poly1305_blocks: 8, 4, then 1 per step). */
export const MAXG = 8;

export function chachaKernel(): ChachaKernel {
  return getKernel<ChachaExports>(chachaModule, CHACHA_SLOT_SIZE);
}

/** A separate instance of a chacha module built from other bytes (tests: negative controls). */
export function chachaKernelFrom(name: string, bytes: Uint8Array): ChachaKernel {
  return new Kernel<ChachaExports>({ name, bytes: () => bytes }, CHACHA_SLOT_SIZE);
}

/** Test-only faults of the glue (negative controls). */
export interface GlueFaults {
  /** a MAC's partial last block is absorbed without its 0x01 byte */
  omitPadByte?: boolean;
}

/**
 * The one place where a partial block (0 < tail.length < 16) enters Poly1305. For the MAC it is
 * tail ‖ 0x01 ‖ zeros without the 2^128 bit (RFC 8439 §2.5); for the AEADs it is tail ‖ zeros,
 * a full block (§2.8: pad16).
 */
export function absorbPartial(k: ChachaKernel, p: number, tail: Uint8Array, mac: boolean, faults?: GlueFaults): void {
  const u8 = k.u8;
  u8.fill(0, IO.PAD, IO.PAD + 16);
  u8.set(tail, IO.PAD);
  if (mac && !faults?.omitPadByte) u8[IO.PAD + tail.length] = 1;
  k.exports.poly1305_blocks(p, IO.PAD, 1, 1, mac ? 0 : 1);
}

/** Whole 16-byte blocks of data (data.length a multiple of 16) into Poly1305, through scratch. */
function absorbBlocks(k: ChachaKernel, p: number, data: Uint8Array, maxg: number): void {
  let used = 0;
  for (let off = 0; off < data.length; off += SCRATCH_SIZE) {
    const chunk = data.subarray(off, Math.min(off + SCRATCH_SIZE, data.length));
    k.u8.set(chunk, SCRATCH_PTR);
    k.exports.poly1305_blocks(p, SCRATCH_PTR, chunk.length >>> 4, maxg, 1);
    used = Math.max(used, chunk.length);
  }
  k.wipe(SCRATCH_PTR, used);
}

/** Absorb any bytes, AEAD style: whole blocks, then the partial last block zero-padded. */
export function absorbPadded(k: ChachaKernel, p: number, data: Uint8Array, maxg: number): void {
  const whole = whole16(data.length);
  if (whole > 0) absorbBlocks(k, p, data.subarray(0, whole), maxg);
  if (whole < data.length) absorbPartial(k, p, data.subarray(whole), false);
}

/** Options for tests and benchmarks; create(key) uses none of them. */
export interface Poly1305Options {
  /** when to compute r^2…r^4: by POWERS_MIN_BLOCKS (default), always, or never */
  powers?: 'auto' | 'always' | 'never';
}

/** Test seams (src/internal.ts). */
export interface Poly1305Seams {
  /** the kernel instance to run on */
  kernel?: ChachaKernel;
  faults?: GlueFaults;
}

/** An incremental Poly1305 computation with a one-time key. Single use: digest() ends it. */
export class Poly1305 {
  #k: ChachaKernel;
  #slot: number;
  #key: KeySlot;
  #buf = new BlockBuffer();
  #seen = 0;
  #maxg = 1;
  /** update()'s sink for BlockBuffer.feed, made once per object rather than per call */
  readonly #onBlocks = (whole: Uint8Array): void => this.#blocks(whole);
  #policy: 'auto' | 'always' | 'never';
  #faults: GlueFaults | undefined;

  constructor(key: Uint8Array, options?: Poly1305Options) {
    const seams = takeSeams<Poly1305Seams>();
    const o = checkOptions(options);
    checkBytes('key', key);
    checkLength('key', key, [32]);
    this.#policy = o.powers ?? 'auto';
    this.#faults = seams.faults;
    const k = (this.#k = seams.kernel ?? chachaKernel());
    this.#key = new KeySlot(this, k as Kernel<unknown>);
    this.#slot = this.#key.ptr;
    k.u8.set(key, IO.KEY);
    k.exports.poly1305_init(this.#slot, IO.KEY);
    k.wipe(IO.KEY, 32);
  }

  /** Absorb data; any length, any number of calls. */
  update(data: Uint8Array): this {
    if (this.#key.released) throw new StateError('poly1305: update() after digest()');
    checkBytes('data', data);
    this.#buf.feed(data, this.#onBlocks);
    return this;
  }

  /** The 16-byte tag. Wipes the key and state; the object is then used up. */
  digest(): Uint8Array<ArrayBuffer> {
    if (this.#key.released) throw new StateError('poly1305: digest() called twice');
    const k = this.#k;
    if (this.#buf.length > 0) absorbPartial(k, this.#slot, this.#buf.partial(), true, this.#faults);
    k.exports.poly1305_finish(this.#slot, IO.TAG);
    const tag = k.u8.slice(IO.TAG, IO.TAG + 16);
    k.wipe(0, IO.END);
    this.dispose();
    return tag;
  }

  /** Wipe the key and state without producing a tag. Idempotent. */
  dispose(): void {
    if (this.#key.released) return;
    this.#buf.wipe();
    this.#key.release();
  }

  #blocks(data: Uint8Array): void {
    const k = this.#k;
    this.#seen += data.length / 16; // whole blocks
    if (this.#maxg === 1 && this.#policy !== 'never' && (this.#policy === 'always' || this.#seen >= POWERS_MIN_BLOCKS)) {
      k.exports.poly1305_powers(this.#slot);
      this.#maxg = MAXG;
    }
    absorbBlocks(k, this.#slot, data, this.#maxg);
  }
}

export interface Poly1305Fn {
  /** one-shot: the tag of msg under a 32-byte one-time key */
  (key: Uint8Array, msg: Uint8Array): Uint8Array<ArrayBuffer>;
  /** incremental: create(key).update(a).update(b).digest() */
  create(key: Uint8Array): Poly1305;
}

/**
 * One-shot Poly1305: the state lives in the IO area for the length of the call (no key slot),
 * whole blocks stream through scratch, the partial last block goes through absorbPartial.
 */
export function poly1305OneShot(key: Uint8Array, msg: Uint8Array, options?: Poly1305Options): Uint8Array<ArrayBuffer> {
  const seams = takeSeams<Poly1305Seams>();
  const o = checkOptions(options);
  checkBytes('key', key);
  checkLength('key', key, [32]);
  checkBytes('msg', msg);
  const k = seams.kernel ?? chachaKernel();
  const e = k.exports;
  let done = false;
  try {
    k.u8.set(key, IO.KEY);
    e.poly1305_init(IO.POLY, IO.KEY);
    const len = msg.length;
    const whole = whole16(len);
    const policy = o.powers ?? 'auto';
    let maxg = 1;
    if (policy === 'always' || (policy === 'auto' && whole / 16 >= POWERS_MIN_BLOCKS)) {
      e.poly1305_powers(IO.POLY);
      maxg = MAXG;
    }
    if (whole > 0) absorbBlocks(k, IO.POLY, msg.subarray(0, whole), maxg);
    if (whole < len) absorbPartial(k, IO.POLY, msg.subarray(whole), true, seams.faults);
    e.poly1305_finish(IO.POLY, IO.TAG);
    done = true;
    return k.u8.slice(IO.TAG, IO.TAG + 16);
  } finally {
    k.wipe(0, IO.END); // the key and state, however the message behaved
    if (!done) k.wipe(SCRATCH_PTR, SCRATCH_SIZE);
  }
}

export const poly1305: Poly1305Fn = Object.assign((key: Uint8Array, msg: Uint8Array): Uint8Array<ArrayBuffer> => poly1305OneShot(key, msg), { create: (key: Uint8Array) => new Poly1305(key) });

// SHA-224, SHA-256, SHA-384 and SHA-512 (FIPS 180-4) on the sha2 kernel: one-shot and
// incremental.
//
// Where the bytes go. A one-shot call streams the message through the scratch window, with the
// chaining value in the IO area, and the kernel pads the tail in place (sha256_last /
// sha512_last), so a short message costs two kernel calls and no allocation in WebAssembly
// memory. An incremental object holds a slot: its chaining value, the one partial block that
// update() buffers (this is the only place a partial block waits), and, for HMAC, the outer
// chaining value. Whole blocks never wait: they go through scratch as soon as they arrive.
// Scratch, the IO area and the partial block are wiped after each call; the slot is wiped by
// digest() and dispose().
//
// Constant time: the glue branches only on lengths (public); message, key and state bytes move
// by position only, and all arithmetic on them happens in the kernel.

import { IO_PTR, Kernel, SCRATCH_PTR, SCRATCH_SIZE, getKernel, registerModule } from '../engine/kernel.js';
import * as sha2Module from '../engine/wasm/sha2.js';
import type { Sha2Exports } from '../engine/wasm/sha2.contract.js';
import { StateError, CtkitTypeError } from '../errors.js';
import { checkBytes } from '../util/check.js';
import { KeySlot } from '../util/key-slot.js';

registerModule(sha2Module);

export type { Sha2Exports };

// Slot layout (bytes from the slot's base). Must fit the kernel: st is 64 bytes, and *_last
// pads the tail in place, up to two blocks past the last whole block.
export const SLOT_SIZE = 512;
export const SLOT_STATE = 0; // chaining value, big-endian (64 bytes)
export const SLOT_BUF = 64; // the partial block, and room to pad it (2 × 128 bytes)
export const SLOT_OUTER = 320; // HMAC: the outer chaining value (64 bytes)

// The IO area: the kernel owns [IO_GLUE_END, 4096) (sha2.contract.ts layout); one-shot calls use
export const IO_STATE = IO_PTR; // a chaining value (64 bytes)
export const IO_OUTER = IO_PTR + 64; // HMAC's outer chaining value (64 bytes)
export const IO_KEY = IO_PTR + 128; // HMAC's K0 (128 bytes at most)
export const IO_USED = 256;

/** Whole 128-byte blocks of scratch, leaving room for the padding of a final chunk. */
export const CHUNK = SCRATCH_SIZE - 256;
const SCRATCH_BLOCKS = SCRATCH_SIZE; // a multiple of both block sizes

export type Sha2Algorithm = 'SHA-224' | 'SHA-256' | 'SHA-384' | 'SHA-512';

/** What distinguishes the four hashes, and the kernel instance that runs them. */
export interface Sha2Info {
  algorithm: Sha2Algorithm;
  /** the number given to sha2_init */
  variant: 224 | 256 | 384 | 512;
  blockLen: 64 | 128;
  outputLen: 28 | 32 | 48 | 64;
  kernel(): Kernel<Sha2Exports>;
}

/** A SHA-2 hash function: `sha256(msg)`, `sha256.create()`, and its lengths in bytes. */
export interface Hash {
  (msg: Uint8Array): Uint8Array<ArrayBuffer>;
  /** an incremental computation: create().update(a).update(b).digest() */
  create(): Sha2;
  readonly algorithm: Sha2Algorithm;
  /** block length in bytes (64 for SHA-224/256, 128 for SHA-384/512) */
  readonly blockLen: number;
  /** digest length in bytes */
  readonly outputLen: number;
}

const infos = new WeakMap<object, Sha2Info>();

/** The description of one of ctkit's hash functions; a TypeError for anything else. */
export function hashInfo(hash: unknown): Sha2Info {
  const info = typeof hash === 'function' ? infos.get(hash) : undefined;
  if (!info) throw new CtkitTypeError("hash must be one of ctkit's sha224, sha256, sha384 or sha512");
  return info;
}

/** The high and low 32 bits of a byte count below 2^53, as the kernels' *_last take it. */
export const hi32 = (n: number): number => Math.floor(n / 0x100000000);
export const lo32 = (n: number): number => n >>> 0;

function blocksFn(k: Kernel<Sha2Exports>, info: Sha2Info) {
  return info.blockLen === 64 ? k.exports.sha256_blocks : k.exports.sha512_blocks;
}
export function lastFn(k: Kernel<Sha2Exports>, info: Sha2Info) {
  return info.blockLen === 64 ? k.exports.sha256_last : k.exports.sha512_last;
}

/**
 * Hash msg to the end (padding included) into the chaining value at `st`, which the caller
 * initialised: whole chunks through scratch, then the tail, which the kernel pads in place (up to
 * two blocks past it: CHUNK leaves that room). `total` is the length of the whole message,
 * counting blocks compressed before this call. Wipes the scratch it used.
 */
export function absorbAll(k: Kernel<Sha2Exports>, info: Sha2Info, st: number, msg: Uint8Array, total: number): void {
  const blocks = blocksFn(k, info);
  let off = 0;
  for (; msg.length - off > CHUNK; off += CHUNK) {
    k.u8.set(msg.subarray(off, off + CHUNK), SCRATCH_PTR);
    blocks(st, SCRATCH_PTR, CHUNK / info.blockLen);
  }
  // a message that fits needs no subarray (a short hash allocates nothing)
  k.u8.set(off === 0 ? msg : msg.subarray(off), SCRATCH_PTR);
  lastFn(k, info)(st, SCRATCH_PTR, msg.length - off, hi32(total), lo32(total));
  k.wipe(SCRATCH_PTR, Math.min(msg.length, CHUNK) + 2 * info.blockLen);
}

function oneShot(info: Sha2Info, msg: Uint8Array): Uint8Array<ArrayBuffer> {
  checkBytes('msg', msg);
  const k = info.kernel();
  k.exports.sha2_init(IO_STATE, info.variant);
  absorbAll(k, info, IO_STATE, msg, msg.length);
  const out = k.u8.slice(IO_STATE, IO_STATE + info.outputLen);
  k.wipe(IO_PTR, IO_USED);
  return out;
}

/**
 * The incremental engine behind Sha2 and Hmac: a slot with the chaining value and the partial
 * block. Internal: the public classes check arguments and state before calling it.
 */
export class Sha2Stream {
  readonly info: Sha2Info;
  readonly k: Kernel<Sha2Exports>;
  readonly slot: number;
  /** where the chaining value is: slot + SLOT_STATE */
  readonly state: number;
  readonly #key: KeySlot;
  #bufLen = 0;
  /** bytes absorbed so far, buffered ones included */
  #total = 0;

  constructor(owner: object, info: Sha2Info) {
    this.info = info;
    const k = (this.k = info.kernel());
    this.#key = new KeySlot(owner, k as Kernel<unknown>);
    this.slot = this.#key.ptr;
    this.state = this.slot + SLOT_STATE;
    k.exports.sha2_init(this.state, info.variant);
  }

  get released(): boolean {
    return this.#key.released;
  }

  update(data: Uint8Array): void {
    const k = this.k;
    const B = this.info.blockLen;
    const buf = this.slot + SLOT_BUF;
    const st = this.state;
    this.#total += data.length;
    let off = 0;
    if (this.#bufLen > 0) {
      const take = Math.min(B - this.#bufLen, data.length);
      k.u8.set(data.subarray(0, take), buf + this.#bufLen);
      this.#bufLen += take;
      off = take;
      if (this.#bufLen < B) return;
      blocksFn(k, this.info)(st, buf, 1);
      this.#bufLen = 0;
    }
    // the whole blocks through scratch (none: the loop does not run and the wipe is empty) …
    const whole = Math.floor((data.length - off) / B) * B;
    const blocks = blocksFn(k, this.info);
    let used = 0;
    for (let at = off; at < off + whole; at += SCRATCH_BLOCKS) {
      const chunk = data.subarray(at, Math.min(at + SCRATCH_BLOCKS, off + whole));
      k.u8.set(chunk, SCRATCH_PTR);
      blocks(st, SCRATCH_PTR, chunk.length / B);
      used = Math.max(used, chunk.length);
    }
    k.wipe(SCRATCH_PTR, used);
    off += whole;
    // … and the rest, less than a block, into the buffer (empty here whatever came before)
    k.u8.set(data.subarray(off), buf);
    this.#bufLen = data.length - off;
  }

  /**
   * Pad and compress the tail: the digest is then the first outputLen bytes at `state`.
   * The padded tail stays in the slot until release(), which wipes the whole slot (the callers
   * release it as soon as they have read the digest).
   */
  finish(): void {
    lastFn(this.k, this.info)(this.state, this.slot + SLOT_BUF, this.#bufLen, hi32(this.#total), lo32(this.#total));
    this.#bufLen = 0;
  }

  /** A copy of the first `n` bytes of the chaining value (after finish(): the digest). */
  digestBytes(n: number): Uint8Array<ArrayBuffer> {
    return this.k.u8.slice(this.state, this.state + n);
  }

  /**
   * Restart from the chaining value at slot + `from`, reached after `total` bytes, with
   * `buffered` (< one block) more bytes already at slot + SLOT_BUF (HMAC's outer hash).
   */
  restart(from: number, total: number, buffered = 0): void {
    this.k.u8.copyWithin(this.state, this.slot + from, this.slot + from + 64);
    this.#bufLen = buffered;
    this.#total = total + buffered;
  }

  /** Wipe the slot and give it back. Idempotent. */
  release(): void {
    this.#bufLen = 0;
    this.#key.release();
  }
}

/** An incremental SHA-2 computation. Single use: digest() ends it and wipes its state. */
export class Sha2 {
  readonly algorithm: Sha2Algorithm;
  readonly blockLen: number;
  readonly outputLen: number;
  #s: Sha2Stream;

  /** Use `sha256.create()` (etc.). */
  constructor(hash: Hash) {
    const info = hashInfo(hash);
    this.algorithm = info.algorithm;
    this.blockLen = info.blockLen;
    this.outputLen = info.outputLen;
    this.#s = new Sha2Stream(this, info);
  }

  /** Absorb data; any length, any number of calls. */
  update(data: Uint8Array): this {
    if (this.#s.released) throw new StateError(`${this.algorithm}: update() after digest() or dispose()`);
    checkBytes('data', data);
    this.#s.update(data);
    return this;
  }

  /** The hash value. Wipes the state; the object cannot be used again. */
  digest(): Uint8Array<ArrayBuffer> {
    if (this.#s.released) throw new StateError(`${this.algorithm}: digest() after digest() or dispose()`);
    this.#s.finish();
    const out = this.#s.digestBytes(this.outputLen);
    this.#s.release();
    return out;
  }

  /** Wipe the state without producing a value. Idempotent. */
  dispose(): void {
    this.#s.release();
  }
}

const SPECS: [Sha2Algorithm, Sha2Info['variant'], Sha2Info['blockLen'], Sha2Info['outputLen']][] = [
  ['SHA-224', 224, 64, 28],
  ['SHA-256', 256, 64, 32],
  ['SHA-384', 384, 128, 48],
  ['SHA-512', 512, 128, 64],
];

export interface Sha2Family {
  sha224: Hash;
  sha256: Hash;
  sha384: Hash;
  sha512: Hash;
}

/**
 * The four hash functions on a kernel instance: the shipped one (`sha224` … `sha512` below), or,
 * for tests, another build of the module (see sha2KernelFrom).
 */
export function sha2Family(kernel: () => Kernel<Sha2Exports>): Sha2Family {
  const make = ([algorithm, variant, blockLen, outputLen]: (typeof SPECS)[number]): Hash => {
    const info: Sha2Info = { algorithm, variant, blockLen, outputLen, kernel };
    const hash: Hash = Object.assign((msg: Uint8Array) => oneShot(info, msg), {
      create: (): Sha2 => new Sha2(hash),
      algorithm,
      blockLen,
      outputLen,
    });
    infos.set(hash, info);
    return hash;
  };
  const [sha224, sha256, sha384, sha512] = SPECS.map(make);
  return { sha224, sha256, sha384, sha512 };
}

// getKernel, not a cached instance: the instance of the backend in use (setBackend)
const shippedKernel = (): Kernel<Sha2Exports> => getKernel<Sha2Exports>(sha2Module, SLOT_SIZE);

/** A separate instance of a sha2 module built from other bytes (tests: negative controls). */
export function sha2KernelFrom(name: string, bytes: Uint8Array): Kernel<Sha2Exports> {
  return new Kernel<Sha2Exports>({ name, bytes: () => bytes }, SLOT_SIZE);
}

/** SHA-224, SHA-256, SHA-384, SHA-512 (FIPS 180-4), constant time. */
export const { sha224, sha256, sha384, sha512 } = sha2Family(shippedKernel);

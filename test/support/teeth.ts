// Shared pieces of the test/teeth-*.test.ts suites (issue 18: tests that fail on the glue
// mutants they name): the AEADs with their kernels and an independent sealer, fresh kernel
// instances (so that the slot layout of a test is known), whole-memory checks, and the bit
// positions the large-message tamper property flips.
import assert from 'node:assert/strict';
import { createCipheriv } from 'node:crypto';
import type { Aead } from '../../src/aead/types.js';
import { aesKernel, aesKernelFrom } from '../../src/aead/aes-gcm.js';
import { sm4Kernel, sm4KernelFrom } from '../../src/aead/sm4-gcm.js';
import { chachaKernel, chachaKernelFrom } from '../../src/mac/poly1305.js';
import { type Kernel, SCRATCH_SIZE, SLOTS_PTR } from '../../src/engine/kernel.js';
import * as aesModule from '../../src/engine/wasm/aes.js';
import * as sm4Module from '../../src/engine/wasm/sm4.js';
import * as chachaModule from '../../src/engine/wasm/chacha.js';
import { gcmSivSealRef } from '../../src/ref/gcm-siv.js';
import { sm4GcmSealRef } from '../../src/ref/sm4.js';
import { xchacha20Poly1305SealRef } from '../../src/ref/chacha20-poly1305.js';
import { ghashRef, gfMulGcm } from '../../src/ref/ghash.js';
import { dotRef, polyvalRef } from '../../src/ref/polyval.js';
import { aesGcmSivWith, aesGcmWith, chacha20Poly1305With, sm4GcmWith } from '../../src/internal.js';

export const W = SCRATCH_SIZE;
export const pad16 = (n: number): number => 16 * Math.ceil(n / 16);

export interface AeadCase {
  name: string;
  keyLength: number;
  nonceLength: number;
  /** a keyed object on `kernel` (default: the shared instance) */
  make(key: Uint8Array, kernel?: Kernel<any>): Aead;
  /** the shared kernel instance the library uses */
  kernel(): Kernel<unknown>;
  /** a new instance of the shipped module, with its own memory */
  fresh(name: string): Kernel<any>;
  /** ciphertext ‖ tag from OpenSSL or the reference model (never the code under test) */
  sealRef(key: Uint8Array, nonce: Uint8Array, pt: Uint8Array, aad: Uint8Array): Uint8Array;
  /** whether sealRef is fast (OpenSSL) or a slow reference model */
  fastRef: boolean;
  /** the largest text that takes the one-call path with an AAD of `a` bytes */
  fitsOnce(a: number): number;
}

const cat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};

export function opensslSeal(cipher: string, key: Uint8Array, nonce: Uint8Array, pt: Uint8Array, aad: Uint8Array, tagLength = 16): Uint8Array {
  const c = createCipheriv(cipher as 'aes-128-gcm', key, nonce, { authTagLength: tagLength });
  c.setAAD(aad);
  return cat(c.update(pt), c.final(), c.getAuthTag());
}

const joined = (r: { ciphertext: Uint8Array; tag: Uint8Array }) => cat(r.ciphertext, r.tag);
const gcmFit = (a: number) => W - pad16(a);
const chachaFit = (a: number) => W - 16 - pad16(a);

export const AEADS: AeadCase[] = [
  ...[16, 24, 32].map(
    (kl): AeadCase => ({
      name: `aes-${kl * 8}-gcm`,
      keyLength: kl,
      nonceLength: 12,
      make: (key, kernel) => aesGcmWith({ kernel }, key),
      kernel: aesKernel,
      fresh: (name) => aesKernelFrom(name, aesModule.bytes()),
      sealRef: (k, n, p, a) => opensslSeal(`aes-${kl * 8}-gcm`, k, n, p, a),
      fastRef: true,
      fitsOnce: gcmFit,
    }),
  ),
  ...[16, 32].map(
    (kl): AeadCase => ({
      name: `aes-${kl * 8}-gcm-siv`,
      keyLength: kl,
      nonceLength: 12,
      make: (key, kernel) => aesGcmSivWith({ kernel }, key),
      kernel: aesKernel,
      fresh: (name) => aesKernelFrom(name, aesModule.bytes()),
      sealRef: (k, n, p, a) => joined(gcmSivSealRef(k, n, p, a)),
      fastRef: false,
      fitsOnce: () => W,
    }),
  ),
  {
    name: 'sm4-gcm',
    keyLength: 16,
    nonceLength: 12,
    make: (key, kernel) => sm4GcmWith({ kernel }, key),
    kernel: sm4Kernel,
    fresh: (name) => sm4KernelFrom(name, sm4Module.bytes()),
    sealRef: (k, n, p, a) => joined(sm4GcmSealRef(k, n, p, a)),
    fastRef: false,
    fitsOnce: gcmFit,
  },
  {
    name: 'chacha20-poly1305',
    keyLength: 32,
    nonceLength: 12,
    make: (key, kernel) => chacha20Poly1305With({ kernel }, key, false),
    kernel: chachaKernel,
    fresh: (name) => chachaKernelFrom(name, chachaModule.bytes()),
    sealRef: (k, n, p, a) => opensslSeal('chacha20-poly1305', k, n, p, a),
    fastRef: true,
    fitsOnce: chachaFit,
  },
  {
    name: 'xchacha20-poly1305',
    keyLength: 32,
    nonceLength: 24,
    make: (key, kernel) => chacha20Poly1305With({ kernel }, key, true),
    kernel: chachaKernel,
    fresh: (name) => chachaKernelFrom(name, chachaModule.bytes()),
    sealRef: (k, n, p, a) => xchacha20Poly1305SealRef(k, n, p, a),
    fastRef: false,
    fitsOnce: chachaFit,
  },
];

const ZERO = Buffer.alloc(SLOTS_PTR);

/** Whether memory [from, to) of kernel k is all zero (native compare: cheap enough per call). */
export function zeroRange(k: Kernel<unknown>, from: number, to: number): boolean {
  const u8 = k.u8;
  const b = Buffer.from(u8.buffer, u8.byteOffset + from, to - from);
  for (let o = 0; o < b.length; o += ZERO.length) {
    const part = b.subarray(o, Math.min(b.length, o + ZERO.length));
    if (!part.equals(ZERO.subarray(0, part.length))) return false;
  }
  return true;
}

/** The first non-zero byte in [from, to), or -1. */
export function firstNonZero(k: Kernel<unknown>, from: number, to: number): number {
  const u8 = k.u8;
  for (let i = from; i < to; i++) if (u8[i] !== 0) return i;
  return -1;
}

/** Asserts that the IO area and the scratch window are all zero. */
export function assertIoScratchZero(k: Kernel<unknown>, what: string): void {
  if (!zeroRange(k, 0, SLOTS_PTR)) assert.fail(`${what}: IO area or scratch not wiped (byte ${firstNonZero(k, 0, SLOTS_PTR)} is non-zero)`);
}

/**
 * Every 4-byte window of each secret, searched for in the whole memory of k. Returns the
 * findings ("<label>[i..i+4) at <address>"); empty when nothing of the secrets is in memory.
 * Windows that are all one byte value are skipped (a random secret has few; zero memory has many).
 */
export function findWindows(k: Kernel<unknown>, secrets: Record<string, Uint8Array>, skip: [number, number][] = []): string[] {
  const u8 = k.u8;
  const mem = Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength);
  const found: string[] = [];
  for (const [label, s] of Object.entries(secrets)) {
    for (let i = 0; i + 4 <= s.length; i++) {
      const w = s.subarray(i, i + 4);
      if (w[0] === w[1] && w[1] === w[2] && w[2] === w[3]) continue;
      let at = mem.indexOf(w);
      while (at >= 0) {
        if (!skip.some(([a, b]) => at >= a && at < b)) {
          found.push(`${label}[${i}..${i + 4}) at ${at}`);
          break;
        }
        at = mem.indexOf(w, at + 1);
      }
    }
  }
  return found;
}

// ---- the large-message tamper property ------------------------------------------------------

export type Target = 'ct' | 'tag' | 'nonce' | 'aad';
export interface Flip {
  target: Target;
  /** bit index into the target */
  bit: number;
}

/**
 * Bit positions of the ciphertext to flip. The glue moves ciphertext by chunk (the 64 KiB scratch
 * window) and by 16-byte block (the MACs consume whole blocks; the partial last block is padded
 * in one place), and never looks at a byte's value. A glue mistake therefore shows up as one of:
 * a chunk (or part of one) not authenticated or authenticated at the wrong offset; a block
 * position inside the block mishandled (a partial block copied from the wrong offset, with the
 * wrong length); the tail after the last whole block mishandled. So the flips cover, for a
 * message of n bytes: every (byte position in the block, bit) pair — 128 flips, `full` — or every
 * byte position once (16, `light`), spread evenly over the blocks so that every chunk gets some;
 * and the first and last byte of every chunk and of the message (the chunk edges and the tail).
 */
export function ctFlips(n: number, full: boolean): number[] {
  if (n === 0) return [];
  const blocks = Math.ceil(n / 16);
  const count = full ? 128 : 16;
  const bytes = new Set<number>();
  const bits: number[] = [];
  for (let j = 0; j < count; j++) {
    const cls = j % 16;
    const bit = full ? j >> 4 : j % 8;
    let byte = 16 * Math.floor((j * blocks) / count) + cls;
    while (byte >= n) byte -= 16; // the partial last block has fewer positions
    if (byte < 0) byte = n - 1;
    bits.push(8 * byte + bit);
    bytes.add(byte);
  }
  const edges: number[] = [];
  for (let c = 0; c * W < n; c++) edges.push(c * W, Math.min(n, (c + 1) * W) - 1);
  edges.push(n - 1, Math.max(0, n - 16), 16 * (blocks - 1));
  for (const [i, e] of edges.entries()) bits.push(8 * e + ((i * 3) % 8));
  return [...new Set(bits)];
}

/** Every bit of v (full), or one bit per byte (light). */
function allBits(len: number, full: boolean, rot: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < len; i++) {
    if (full) for (let b = 0; b < 8; b++) out.push(8 * i + b);
    else out.push(8 * i + ((i + rot) % 8));
  }
  return out;
}

export function flips(n: number, tagLength: number, nonceLength: number, aadLength: number, full: boolean): Flip[] {
  return [
    ...ctFlips(n, full).map((bit): Flip => ({ target: 'ct', bit })),
    ...allBits(tagLength, full, 3).map((bit): Flip => ({ target: 'tag', bit })),
    ...allBits(nonceLength, full, 5).map((bit): Flip => ({ target: 'nonce', bit })),
    ...allBits(aadLength, full, 1).map((bit): Flip => ({ target: 'aad', bit })),
  ];
}

// ---- GHASH / POLYVAL of long, mostly zero inputs, cheaply from the reference ------------------

/** x^e by square-and-multiply with `mul`. */
function power(x: Uint8Array, e: number, mul: (a: Uint8Array, b: Uint8Array) => Uint8Array): Uint8Array {
  let r: Uint8Array | undefined;
  let b = x;
  for (let k = e; k > 0; k = Math.floor(k / 2)) {
    if (k % 2 === 1) r = r ? mul(r, b) : b;
    b = mul(b, b);
  }
  return r!;
}

/**
 * GHASH / POLYVAL of head(48 bytes) ‖ zeros ‖ tail, where head ‖ zeros is `zeroBlocks + 3`
 * blocks: the state after the head, then `zeroBlocks` steps of "times H" (GHASH: X·H each;
 * POLYVAL: dot(X, H) each, and dot(X, P) with P = H^k·x^(−128(k−1)) does k of them), then the tail.
 */
export function expectedHash(kind: 'ghash' | 'polyval', h: Uint8Array, head: Uint8Array, zeroBlocks: number, tail: Uint8Array): Uint8Array {
  if (kind === 'ghash') {
    const x = ghashRef(h, head);
    return ghashRef(h, tail, zeroBlocks === 0 ? x : gfMulGcm(x, power(h, zeroBlocks, gfMulGcm)));
  }
  const x = polyvalRef(h, head);
  return polyvalRef(h, tail, zeroBlocks === 0 ? x : dotRef(x, power(h, zeroBlocks, dotRef)));
}

// The field differential suite for the curve kernels: every field operation mod p and mod n
// against BigInt, through the kernel's exported functions, over structured and random operands.
// Used by test/ec-field.test.ts on the shipped kernels (no case may fail) and on deliberately
// broken kernels (some case must fail).

import type { EcKernel } from '../../src/ec/kernel.js';
import { SCRATCH_PTR } from '../../src/engine/kernel.js';
import { bigToBytes, bytesToBig, invMod, mod, sqrtMod } from '../../src/ref/ec.js';
import { Rng } from './rng.js';

// operands 384 bytes apart (a field element of the js backend is up to 352 bytes)
const A = 1024,
  B = 1408,
  R = 1792,
  IN = 2176,
  OUT = 2304,
  C = 2432;

export interface FieldCase {
  a: bigint;
  b: bigint;
  /** the representation of a and b in memory: v·R mod m plus this many m (0 = as from_bytes gives) */
  ka: number;
  kb: number;
}

/** The operands: special values against each other, then random ones, at least `count` (limb
 * boundaries for limbs of w bits: 29 on simd and wasm, 12 on js). */
export function fieldCases(m: bigint, count: number, seed: number, w = 29): FieldCase[] {
  const rng = new Rng(seed);
  const bits = m.toString(2).length;
  const rand = () => {
    let v = 0n;
    for (let i = 0; i < bits + 64; i += 32) v = (v << 32n) | BigInt(rng.u32());
    return v % m;
  };
  const special = new Set<bigint>([0n, 1n, 2n, 3n, m - 1n, m - 2n, (m - 1n) / 2n, (m + 1n) / 2n]);
  for (let k = 8; k < bits; k += k % w === 0 ? 8 : 21) {
    for (const v of [(1n << BigInt(k)) - 1n, 1n << BigInt(k), (1n << BigInt(k)) + 1n, m - (1n << BigInt(k))]) special.add(mod(v, m));
  }
  for (let j = 1; w * j < bits; j++) {
    const k = BigInt(w * j);
    for (const v of [(1n << k) - 1n, 1n << k, m - (1n << k), (1n << (k + BigInt(w))) - (1n << k)]) special.add(mod(v, m));
  }
  const sp = [...special];
  const out: FieldCase[] = [];
  for (const a of sp) for (const b of sp) out.push({ a, b, ka: 0, kb: 0 });
  for (const a of sp) out.push({ a, b: rand(), ka: 1, kb: 0 }, { a: rand(), b: a, ka: 0, kb: 1 });
  while (out.length < count) {
    const i = out.length;
    out.push({ a: rand(), b: i % 7 === 0 ? sp[i % sp.length] : rand(), ka: i % 5 === 0 ? 1 : 0, kb: i % 11 === 0 ? 1 : 0 });
  }
  return out;
}

function limbs(v: bigint, L: number, w: bigint): BigInt64Array {
  const out = new BigInt64Array(L);
  for (let i = 0; i < L; i++) {
    out[i] = v & ((1n << w) - 1n);
    v >>= w;
  }
  if (v !== 0n) throw new Error('limbs: too large');
  return out;
}

export interface SuiteResult {
  total: number;
  failures: string[];
}

/**
 * Runs the suite for one modulus ('fp' or 'fn') of a curve kernel. `stride` > 1 runs every
 * stride-th case only (negative controls). Inversions run on every 10th case and square roots
 * (mod p) on every 40th. `limbBits`: the module's limb width (12 for a js module).
 */
export function fieldSuite(e: EcKernel, which: 'fp' | 'fn', count = 10_000, stride = 1, limbBits = 29): SuiteResult {
  const m = which === 'fp' ? e.params.p : e.params.n;
  const L = e.FE / 8;
  const LIMB = BigInt(limbBits);
  const Rm = 1n << (LIMB * BigInt(L));
  const len = which === 'fp' ? e.fieldBytes : e.scalarBytes;
  const x = e.x;
  const f = (op: string) => (x as unknown as Record<string, (...a: number[]) => number>)[`${which}_${op}`];
  const [mul, sqr, add, sub, neg, inv, fromBytes, toBytes, eq, isZero] = ['mul', 'sqr', 'add', 'sub', 'neg', 'inv', 'from_bytes', 'to_bytes', 'eq', 'is_zero'].map(f);
  const cases = fieldCases(m, count, which === 'fp' ? 0x5eed0001 : 0x5eed0002, limbBits);
  const failures: string[] = [];
  let total = 0;
  const put = (ptr: number, v: bigint, k: number) => {
    if (k === 0) {
      e.k.u8.set(bigToBytes(v, len), IN);
      fromBytes(ptr, IN);
    } else {
      // a redundant representation: v·R mod m + k·m (limbs written directly)
      const w = limbs(((v * Rm) % m) + BigInt(k) * m, L, LIMB);
      new BigInt64Array(e.k.u8.buffer, ptr, L).set(w);
    }
  };
  const read = (ptr: number): bigint => {
    toBytes(OUT, ptr);
    return bytesToBig(e.k.u8.subarray(OUT, OUT + len));
  };
  const check = (what: string, c: FieldCase, got: bigint, want: bigint) => {
    total++;
    if (got !== want) failures.push(`${which} ${what} a=${c.a.toString(16)} (+${c.ka}m) b=${c.b.toString(16)} (+${c.kb}m): got ${got.toString(16)}, want ${want.toString(16)}`);
  };
  for (let i = 0; i < cases.length; i += stride) {
    const c = cases[i];
    const { a, b } = c;
    put(A, a, c.ka);
    put(B, b, c.kb);
    mul(R, A, B);
    check('mul', c, read(R), (a * b) % m);
    sqr(R, A);
    check('sqr', c, read(R), (a * a) % m);
    add(R, A, B);
    check('add', c, read(R), (a + b) % m);
    // a sum used again: compared, and summed repeatedly (the output must stay below 2m)
    put(C, (a + b) % m, 0);
    check('eq(add)', c, BigInt(eq(R, C)), 1n);
    for (let j = 0; j < 6; j++) add(R, R, A);
    check('add chain', c, read(R), (7n * a + b) % m);
    sub(R, A, B);
    check('sub', c, read(R), mod(a - b, m));
    neg(R, A);
    check('neg', c, read(R), mod(-a, m));
    check('eq', c, BigInt(eq(A, B)), a === b ? 1n : 0n);
    check('is_zero', c, BigInt(isZero(A)), a === 0n ? 1n : 0n);
    if (i % 10 === 0) {
      inv(R, A, SCRATCH_PTR);
      check('inv', c, read(R), invMod(a, m));
    }
    if (which === 'fp' && i % 40 === 0) {
      const ok = x.fp_sqrt(R, A, SCRATCH_PTR);
      const want = sqrtMod(a, m);
      check('sqrt (is square)', c, BigInt(ok), want === undefined ? 0n : 1n);
      if (want !== undefined) {
        const r = read(R);
        check('sqrt', c, r === want || r === mod(-want, m) ? 1n : 0n, 1n);
      }
    }
    // products of values up to 4m (the formulas feed unreduced sums into products)
    if (i % 3 === 0) {
      const w = limbs(((a * Rm) % m) + 3n * m, L, LIMB);
      new BigInt64Array(e.k.u8.buffer, A, L).set(w);
      mul(R, A, A);
      check('mul (+3m operands)', c, read(R), (a * a) % m);
    }
  }
  e.wipe();
  return { total, failures };
}

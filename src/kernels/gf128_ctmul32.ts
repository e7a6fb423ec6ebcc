// GF(2^128) multiplication for the JavaScript target: "multiplication with holes" on 32-bit
// words (BearSSL's ghash_ctmul32), where every product is one Math.imul.
//
// Technique: the scalar targets' ctmul64 (gf128_ctmul64.ts) multiplies 64-bit words, and the
// JavaScript printer writes each i64.mul as seven Math.imul on 16-bit pieces; here a carry-less
// 32×32 product's low half is sixteen i32.mul (Math.imul) of operands masked to every fourth bit
// (a column sums at most 8 one-bit terms, so its carries stay in the three holes above it), and
// its high half is the low half of the bit-reversed operands, reversed and shifted right by one.
// A 128×128 product is nine 32×32 products (Karatsuba on 64-bit halves, then on 32-bit
// quarters), eighteen with the reversed ones. Reversal and the Karatsuba recombination are
// linear, so a group of blocks (one per power H … H^8) accumulates the eighteen low halves by
// XOR and reverses, recombines and reduces once (the reduction is ctmul64's Montgomery fold).
//
// Why constant time: products are i32.mul (Math.imul; its timing does not depend on the values
// on the engines we target), masks, shifts and XOR; no table is indexed and no branch is taken on
// data; the powers' words are read at public offsets.
//
// Cost per block: 288 i32.mul and ~500 other 32-bit operations, against 96 i64.mul (672
// Math.imul) and ~2,000 operations for ctmul64 printed as JavaScript; per group, nine 32-bit
// reversals and the reduction. (On WebAssembly i64.mul is one instruction: the wasm target keeps
// ctmul64.)
//
// Layout: the table of a power H_k = (x0, x1) (at its GF128_TABLE_OFFSET + 192(k−1) place) holds
// its nine Karatsuba words (below) at +0 and their bit reversals at +36: 72 of the 192 bytes.

import { type Expr, Func, type Local, type Stmt, type Val, call, comment, i32, i64, setMany } from './builder/index.js';

/** How a scalar target multiplies a block by a power of H: the technique's side of the loops in gf128_ctmul64.ts. */
export interface ScalarMul {
  /** the block, in the POLYVAL domain (the state XORed in), before accumulate() */
  readonly v0: Local<'i64'>;
  readonly v1: Local<'i64'>;
  /** once per function, before the first block: the slot is at `slot` */
  setup(slot: Val<'i32'>): Stmt[];
  /** before the first block of a group */
  zero(): Stmt[];
  /** the block (v0, v1) times the power whose table is at p, accumulated */
  accumulate(p: Local<'i32'>): Stmt[];
  /** the group's product, reduced, into (r0, r1) */
  reduceInto(r0: Local<'i64'>, r1: Local<'i64'>): Stmt[];
}

export interface ScalarTechnique {
  /** $table(x0, x1, dst): the words of the power H_k = (x0, x1) that accumulate() reads */
  table: Func;
  /** its other functions, in module order (after table) */
  helpers: Func[];
  /** declares the technique's locals in f */
  bind(f: Func): ScalarMul;
}

/** The Montgomery reduction of the 256-bit product c0 (low) … c3 (high); the result in c2 (low), c3. */
export type Reduce256 = (c: readonly [Local<'i64'>, Local<'i64'>, Local<'i64'>, Local<'i64'>]) => Stmt[];

const MASKS = [0x11111111, 0x22222222, 0x44444444, 0x88888888];
const mask = (i: number) => i32.const(MASKS[i], true);
const NK = 9;
/** byte offset in a power's table of its reversed words */
const REV = 4 * NK;

/** The nine Karatsuba operands of a 128-bit value in 32-bit words w0 (low) … w3. */
const karatsuba = (w: readonly Local<'i32'>[]): Expr<'i32'>[] => {
  const [a, b, c, d] = w;
  return [a.get(), b.get(), i32.xor(a, b), c.get(), d.get(), i32.xor(c, d), i32.xor(a, c), i32.xor(b, d), i32.xor(a, b, c, d)];
};

/** x with its bit groups of width s (at masks m) swapped. */
const swap = (x: Val<'i32'>, s: number, m: number): Expr<'i32'> => i32.or(i32.and(i32.shr_u(x, s), i32.const(m, true)), i32.shl(i32.and(x, i32.const(m, true)), s));

/** t = the bits of x reversed (five statements). */
function rev32(t: Local<'i32'>, x: Val<'i32'>): Stmt[] {
  return [t.set(swap(x, 1, 0x55555555)), t.set(swap(t, 2, 0x33333333)), t.set(swap(t, 4, 0x0f0f0f0f)), t.set(swap(t, 8, 0x00ff00ff)), t.set(i32.rotl(t, 16))];
}

/** (w0, w1) = the 32-bit halves of the i64 x. */
const halves = (w0: Local<'i32'>, w1: Local<'i32'>, x: Val<'i64'>): Stmt[] => [w0.set(i32.wrap_i64(x)), w1.set(i32.wrap_i64(i64.shr_u(x, 32n)))];

/** acc ^= clmul_lo32(x, y) with x, y's masked parts in xs, ys: sixteen i32.mul. */
function bmul32(acc: Local<'i32'>, xs: readonly Local<'i32'>[], ys: readonly Local<'i32'>[], x: Val<'i32'>, y: Val<'i32'>): Stmt[] {
  const z = (k: number) => i32.and(i32.xor(...(xs.map((xi, i) => i32.mul(xi, ys[(k - i + 4) % 4])) as [Expr<'i32'>, Expr<'i32'>])), mask(k));
  return [...xs.map((xi, i) => xi.set(i32.and(x, mask(i)))), ...ys.map((yi, i) => yi.set(i32.and(y, mask(i)))), acc.set(i32.xor(acc, i32.or(z(0), z(1), z(2), z(3))))];
}

const LO = Array.from({ length: NK }, (_, k) => `lo${k}`);
const RL = Array.from({ length: NK }, (_, k) => `rl${k}`);

/**
 * The reduction of a group: the eighteen accumulated low halves to the nine 64-bit products
 * (high halves by reversal), recombined (Karatsuba on 32-bit quarters, then on 64-bit halves)
 * into the 256-bit product, reduced by `reduce256`. A function of its own, called once a group.
 */
function reduceFunc(prefix: string, reduce256: Reduce256): Func {
  const params = Object.fromEntries([...LO, ...RL].map((n) => [n, 'i32' as const]));
  const f = new Func(`${prefix}reduce32`, params, { results: ['i64', 'i64'] });
  const lo = LO.map((n) => f.p[n] as Local<'i32'>);
  const rl = RL.map((n) => f.p[n] as Local<'i32'>);
  const hi = f.locals(
    'i32',
    Array.from({ length: NK }, (_, k) => `hi${k}`),
  );
  const q = f.locals(
    'i32',
    Array.from({ length: 12 }, (_, k) => `q${k}`),
  );
  const m = f.locals('i32', ['m0', 'm1', 'm2', 'm3']);
  const c = f.locals('i64', ['c0', 'c1', 'c2', 'c3']) as [Local<'i64'>, Local<'i64'>, Local<'i64'>, Local<'i64'>];
  const w = (lo32: Val<'i32'>, hi32: Val<'i32'>): Expr<'i64'> => i64.or(i64.extend_i32_u(lo32), i64.shl(i64.extend_i32_u(hi32), 32n));
  const out: Stmt[] = [comment('high halves: the reversed products reversed, shifted right by one')];
  hi.forEach((h, k) => out.push(...rev32(h, rl[k]), h.set(i32.shr_u(h, 1))));
  out.push(comment('the three 64×64 products (Karatsuba on 32-bit quarters), 128 bits each, in q[4j] … q[4j+3]'));
  for (let j = 0; j < 3; j++) {
    const [p, r, s] = [3 * j, 3 * j + 1, 3 * j + 2];
    // (p + (p ^ r ^ s)·x^32 + r·x^64): words lo_p, hi_p ^ mid_lo, lo_r ^ mid_hi, hi_r
    out.push(q[4 * j].set(lo[p]), q[4 * j + 1].set(i32.xor(hi[p], lo[p], lo[r], lo[s])), q[4 * j + 2].set(i32.xor(lo[r], hi[p], hi[r], hi[s])), q[4 * j + 3].set(hi[r]));
  }
  out.push(comment('the 256-bit product: Q0 + (Q0 ^ Q1 ^ Q2)·x^64 + Q1·x^128'));
  m.forEach((mi, i) => out.push(mi.set(i32.xor(q[i], q[4 + i], q[8 + i]))));
  out.push(c[0].set(w(q[0], q[1])), c[1].set(w(i32.xor(q[2], m[0]), i32.xor(q[3], m[1]))), c[2].set(w(i32.xor(q[4], m[2]), i32.xor(q[5], m[3]))), c[3].set(w(q[6], q[7])));
  out.push(...reduce256(c), c[2].get(), c[3].get());
  f.emit(out);
  return f;
}

/** The ctmul32 technique for gf128_ctmul64.ts's scalar loops (the js target). */
export function ctmul32Technique(prefix: string, reduce256: Reduce256): ScalarTechnique {
  const table = new Func(`${prefix}table`, { x0: 'i64', x1: 'i64', dst: 'i32' });
  {
    const f = table,
      { x0, x1, dst } = f.p;
    const h = f.locals('i32', ['h0', 'h1', 'h2', 'h3']);
    const t = f.i32('t');
    f.emit(halves(h[0], h[1], x0), halves(h[2], h[3], x1));
    karatsuba(h).forEach((e, k) => f.emit(t.set(e), i32.store(dst, t, 4 * k), rev32(t, t), i32.store(dst, t, REV + 4 * k)));
  }
  const reduce = reduceFunc(prefix, reduce256);

  const bind = (f: Func): ScalarMul => {
    const [v0, v1] = f.locals('i64', ['v0', 'v1']);
    const a = f.locals('i32', ['a0', 'a1', 'a2', 'a3']);
    const ar = f.locals('i32', ['ar0', 'ar1', 'ar2', 'ar3']);
    const xs = f.locals('i32', ['x0', 'x1', 'x2', 'x3']);
    const ys = f.locals('i32', ['y0', 'y1', 'y2', 'y3']);
    const lo = f.locals('i32', LO);
    const rl = f.locals('i32', RL);
    const [x, y] = f.locals('i32', ['x', 'y']);
    return {
      v0,
      v1,
      setup: () => [],
      zero: () => [...lo, ...rl].map((l) => l.set(0)),
      accumulate: (p) => {
        const out: Stmt[] = [comment('the block in 32-bit words, and their bit reversals'), ...halves(a[0], a[1], v0), ...halves(a[2], a[3], v1)];
        a.forEach((ai, i) => out.push(...rev32(ar[i], ai)));
        const ka = karatsuba(a);
        const kr = karatsuba(ar);
        for (let k = 0; k < NK; k++) {
          out.push(comment(`Karatsuba product ${k}: low half, and the low half of the reversed operands`));
          out.push(x.set(ka[k]), y.set(i32.load(p, 4 * k)), ...bmul32(lo[k], xs, ys, x, y));
          out.push(x.set(kr[k]), y.set(i32.load(p, REV + 4 * k)), ...bmul32(rl[k], xs, ys, x, y));
        }
        return out;
      },
      reduceInto: (r0, r1) => setMany(call(reduce, ...lo, ...rl), [r0, r1]),
    };
  };
  return { table, helpers: [reduce], bind };
}

// The field's linear operations, one carry chain each (fe_mont29.ts has the products):
// addition, subtraction and negation with a masked correction, the unreduced sums the formula
// planner asks for, canonical reduction, equality and zero tests, the constant-time move, and
// the conversions between big-endian bytes and limbs.
//
// Constant time: straight-line code on i64 values (i32 on js: fe_mont29.ts); a correction by
// 2m (or m) is added under a mask made from the chain's sign (arithmetic shift), never by a
// branch; a test's result is computed from all limbs (OR of XORs), never by an early exit.
//
// Bounds: inputs are below 2m with W-bit limbs (as the chains leave them; W = 29, on js 12); a
// chain's true value lies in (−2^(WL), 2^(WL)), so its final carry c is the sign, 0 or −1.

import { type Expr, type Func, type Local, type Stmt, call, i32, i64, i64x2, target, v128 } from './builder/index.js';
import type { FieldGen } from './fe_mont29.js';
import { toLimbs } from './fe_limbs.js';

type E = Expr<'i64'>;

/** Declares the chain locals in f: t, c, mask, then a_i b_i r_i. */
function chainLocals(fg: FieldGen, f: Func): void {
  f.locals(fg.T, ['t', 'c', 'mask', ...Array.from({ length: fg.L }, (_, i) => [`a${i}`, `b${i}`, `r${i}`]).flat()]);
}

/** Carry chain over locals: dst_i = (Σ terms_i + c) mod 2^29; the final carry is in c. */
function chain(fg: FieldGen, f: Func, dst: string, terms: (i: number) => E): Stmt[] {
  const [t, c] = [fg.v(f, 't'), fg.v(f, 'c')];
  const out: Stmt[] = [];
  for (let i = 0; i < fg.L; i++) {
    out.push(t.set(i === 0 ? terms(i) : fg.I.add(terms(i), c)), fg.v(f, `${dst}${i}`).set(fg.andM(t)), c.set(fg.I.shr_s(t, fg.W)));
  }
  return out;
}

/** r ← r + (k & mask), k given as limbs; mask in its local; carry out discarded. */
function addMasked(fg: FieldGen, f: Func, dst: string, k: bigint[]): Stmt[] {
  return chain(fg, f, dst, (i) => fg.I.add(fg.v(f, `${dst}${i}`), fg.I.and(fg.k(k[i]), fg.v(f, 'mask'))));
}

/** Canonical reduction of locals src (value in [0, 2m)) into locals dst. */
export function canonLines(fg: FieldGen, f: Func, src: string, dst: string): Stmt[] {
  return [...chain(fg, f, dst, (i) => fg.I.sub(fg.v(f, `${src}${i}`), fg.k(fg.mLimbs[i]))), fg.v(f, 'mask').set(fg.v(f, 'c')), ...addMasked(fg, f, dst, fg.mLimbs)];
}

const orAll = (fg: FieldGen, xs: E[]) => xs.reduce((x, y) => fg.I.or(x, y));

/** (a − b) reduced into [0, 2m); zero iff it is 0 or m. The last statement is the i32 result. */
function eqLines(fg: FieldGen, f: Func, b: (i: number) => E): Stmt[] {
  const { L, I } = fg;
  const r = (i: number) => fg.v(f, `r${i}`);
  return [
    ...chain(fg, f, 'r', (i) => I.sub(fg.v(f, `a${i}`), b(i))),
    fg.v(f, 'mask').set(fg.v(f, 'c')),
    ...addMasked(fg, f, 'r', fg.m2Limbs),
    i32.or(
      I.eqz(
        orAll(
          fg,
          Array.from({ length: L }, (_, i) => r(i).get()),
        ),
      ),
      I.eqz(
        orAll(
          fg,
          Array.from({ length: L }, (_, i) => I.xor(r(i), fg.k(fg.mLimbs[i]))),
        ),
      ),
    ),
  ];
}

/** Big-endian bytes at src → limbs (stored at dst, or into locals `into`0…). */
function fromBytesLines(fg: FieldGen, f: Func, dst: Local<'i32'> | null, src: Local<'i32'>, into?: string): Stmt[] {
  const out: Stmt[] = [];
  const { bytes: n, W, I } = fg;
  for (let j = 0; j < fg.L; j++) {
    const lo = W * j,
      hi = W * j + W; // bits [lo, hi)
    const parts: E[] = [];
    for (let bi = Math.floor(lo / 8); bi * 8 < hi && bi < n; bi++) {
      const byte = I.load8_u(src, n - 1 - bi);
      const shift = 8 * bi - lo;
      parts.push(shift >= 0 ? (shift ? I.shl(byte, shift) : byte) : I.shr_u(byte, -shift));
    }
    const v = parts.length === 0 ? I.const(0) : fg.andM(orAll(fg, parts));
    out.push(...(into ? [fg.v(f, `${into}${j}`).set(v)] : fg.st(dst!, v, 8 * j)));
  }
  return out;
}

/** Locals src0… (canonical, limbs normalised) → big-endian bytes at dst. */
function toBytesLines(fg: FieldGen, f: Func, dst: Local<'i32'>, src: string): Stmt[] {
  const out: Stmt[] = [];
  const { bytes: n, W, I } = fg;
  for (let bi = 0; bi < n; bi++) {
    const pos = 8 * bi,
      j = Math.floor(pos / W),
      sh = pos - W * j;
    const s = fg.v(f, `${src}${j}`);
    let e: E = sh ? I.shr_u(s, sh) : s.get();
    if (sh + 8 > W && j + 1 < fg.L) e = I.or(e, I.shl(fg.v(f, `${src}${j + 1}`), W - sh));
    out.push(I.store8(dst, e, n - 1 - bi));
  }
  return out;
}

/**
 * r ← mask ? a : r over L limbs (8·L bytes) in f: by v128.bitselect (the local v) and a scalar
 * tail on the simd target, limb by limb as r ⊕ ((r ⊕ a) & mask) on the scalar ones.
 */
export function cmovLines(f: Func, r: Local<'i32'>, a: Local<'i32'>, mask: Local<'i64'>, L: number): Stmt[] {
  if (target() === 'js') {
    // js: 32-bit words, the mask's low half (all ones or zero) for both; an i64 is two numbers there
    const [t, m] = [f.i32('cw'), f.i32('cmask')];
    const words = Array.from({ length: 2 * L }, (_, i) => [t.set(i32.load(r, 4 * i)), i32.store(r, i32.xor(t, i32.and(i32.xor(t, i32.load(a, 4 * i)), m)), 4 * i)]);
    return [m.set(i32.wrap_i64(mask)), ...words.flat()];
  }
  if (target() !== 'simd') {
    const t = f.i64('cm');
    return Array.from({ length: L }, (_, i) => [t.set(i64.load(r, 8 * i)), i64.store(r, i64.xor(t, i64.and(i64.xor(t, i64.load(a, 8 * i)), mask)), 8 * i)]).flat();
  }
  const v = f.v128('v');
  const out: Stmt[] = [v.set(i64x2.splat(mask))];
  for (let i = 0; i + 1 < L; i += 2) out.push(v128.store(r, v128.bitselect(v128.load(a, 8 * i), v128.load(r, 8 * i), v), 8 * i));
  if (L % 2) {
    const o = 8 * (L - 1);
    out.push(i64.store(r, i64.xor(i64.load(r, o), i64.and(i64.xor(i64.load(r, o), i64.load(a, o)), mask)), o));
  }
  return out;
}

/**
 * The carry-chain functions, in module order: add, sub, add_lazy, sub_lazy_k (those in use),
 * neg, canon, eq, eq_one, is_zero_lt_K (in use), is_zero, cmov, from_bytes, from_bytes_raw,
 * to_bytes, bytes_lt, bytes_nonzero.
 */
export function carryChainFunctions(fg: FieldGen): Func[] {
  const { L, I } = fg;
  const out: Func[] = [];
  const A = (f: Func, i: number) => fg.v(f, `a${i}`);
  const Bl = (f: Func, i: number) => fg.v(f, `b${i}`);
  const maskFromCarry = (f: Func) => fg.v(f, 'mask').set(fg.v(f, 'c'));
  /** a chain function (r, a[, b]): load, compute, store r */
  const chained = (f: Func, two: boolean, code: (f: Func) => Stmt[]) => {
    chainLocals(fg, f);
    f.emit(fg.loadLimbs(f, 'a', f.i32('a')), two ? fg.loadLimbs(f, 'b', f.i32('b')) : [], code(f), fg.storeLimbs(f, f.i32('r'), 'r'));
    out.push(f);
  };
  // add: a + b − 2m, then + 2m under the sign mask
  fg.add.doc.push('r = a + b mod m for a, b below 2m: a + b − 2m, then + 2m under the sign mask; r below 2m, limbs below 2^29.');
  chained(fg.add, true, (f) =>
    fg.flags.skipCorrection ? chain(fg, f, 'r', (i) => I.add(A(f, i), Bl(f, i))) : [...chain(fg, f, 'r', (i) => I.sub(I.add(A(f, i), Bl(f, i)), fg.k(fg.m2Limbs[i]))), maskFromCarry(f), ...addMasked(fg, f, 'r', fg.m2Limbs)],
  );
  // sub: a − b, then + 2m under the sign mask
  fg.sub.doc.push('r = a − b mod m for a, b below 2m: a − b, then + 2m under the sign mask; r below 2m.');
  chained(fg.sub, true, (f) => [...chain(fg, f, 'r', (i) => I.sub(A(f, i), Bl(f, i))), maskFromCarry(f), ...addMasked(fg, f, 'r', fg.m2Limbs)]);
  // add_lazy: a + b with the carries propagated, no reduction (the formula compiler tracks
  // the bound: the result is below (bound_a + bound_b)·m)
  fg.addLazy.doc.push('r = a + b, carries propagated, not reduced: below (ka + kb)·m for a < ka·m, b < kb·m (the planner tracks ka, kb).');
  chained(fg.addLazy, true, (f) => chain(fg, f, 'r', (i) => I.add(A(f, i), Bl(f, i))));
  // sub_lazy_k: a − b + k·m for b < k·m, no reduction (below (bound_a + k)·m)
  for (const k of [...fg.lazySubs].sort((x, y) => x - y)) {
    const km = toLimbs(BigInt(k) * fg.m, L, fg.W);
    fg.subLazy(k).doc.push(`r = a − b + ${k}·m for b below ${k}·m, not reduced: below (ka + ${k})·m.`);
    chained(fg.subLazy(k), true, (f) => chain(fg, f, 'r', (i) => I.add(I.sub(A(f, i), Bl(f, i)), fg.k(km[i]))));
  }
  // neg: 0 − a, then + 2m under the sign mask
  fg.neg.doc.push('r = −a mod m for a below 2m: 0 − a, then + 2m under the sign mask; r below 2m.');
  chained(fg.neg, false, (f) => [...chain(fg, f, 'r', (i) => I.sub(0, A(f, i))), maskFromCarry(f), ...addMasked(fg, f, 'r', fg.m2Limbs)]);
  // canon: [0, 2m) → [0, m)
  fg.canon.doc.push('r = a mod m, canonical (below m), for a below 2m: a − m, then + m under the sign mask.');
  chained(fg.canon, false, (f) => canonLines(fg, f, 'a', 'r'));
  // eq(a, b) → 1 if a ≡ b (mod m), else 0; eq_one(a)
  {
    const f = fg.eq;
    f.doc.push('→ 1 iff a ≡ b (mod m), for a, b below 2m: a − b reduced into [0, 2m) is 0 or m.');
    chainLocals(fg, f);
    f.emit(
      fg.loadLimbs(f, 'a', f.i32('a')),
      fg.loadLimbs(f, 'b', f.i32('b')),
      eqLines(fg, f, (i) => Bl(f, i).get()),
    );
    out.push(f);
  }
  const one = fg.consts.get('one')!;
  {
    const f = fg.eqOne;
    chainLocals(fg, f);
    f.emit(
      fg.loadLimbs(f, 'a', f.i32('a')),
      eqLines(fg, f, (i) => I.const(fg.k(one[i]) as bigint)),
    );
    out.push(f);
  }
  // is_zero_lt_K(a) → 1 if a ≡ 0 (mod m), for a value below K·m with limbs of 29 bits (as
  // the carry chains leave them): a equals one of 0, m, …, (K − 1)·m limb for limb
  for (const K of [...fg.zeroTests].sort((x, y) => x - y)) {
    if (BigInt(K) * fg.m > fg.R) throw new Error(`${fg.pre}: is_zero_lt_${K} beyond the limbs`);
    const f = fg.isZeroLt(K);
    f.doc.push(`→ 1 iff a ≡ 0 (mod m), for a below ${K}·m with 29-bit limbs: a equals 0, m, …, ${K - 1}·m limb for limb.`);
    f.locals(
      fg.T,
      Array.from({ length: L }, (_, i) => `a${i}`),
    );
    const tests = Array.from({ length: K }, (_, j) => {
      const jm = toLimbs(BigInt(j) * fg.m, L, fg.W);
      return I.eqz(
        orAll(
          fg,
          Array.from({ length: L }, (_, i) => I.xor(A(f, i), fg.k(jm[i]))),
        ),
      );
    });
    f.emit(
      fg.loadLimbs(f, 'a', f.i32('a')),
      tests.reduce((x, y) => i32.or(x, y)),
    );
    out.push(f);
  }
  {
    const f = fg.isZero;
    chainLocals(fg, f);
    f.emit(
      fg.loadLimbs(f, 'a', f.i32('a')),
      eqLines(fg, f, () => I.const(0)),
    );
    out.push(f);
  }
  // cmov(r, a, mask): r ← mask ? a : r
  {
    const f = fg.cmov;
    f.emit(cmovLines(f, f.i32('r'), f.i32('a'), f.i64('mask'), L));
    out.push(f);
  }
  // from_bytes(r, src): big-endian bytes (fg.bytes of them) → Montgomery form (any value below
  // 2^(8·bytes) is accepted and reduced)
  {
    const f = fg.fromBytes;
    f.doc.push('r = x·R mod m (below 2m) for the big-endian x below 2^(8·bytes), reduced by the product with R².');
    const { r, src } = { r: f.i32('r'), src: f.i32('src') };
    f.emit(fromBytesLines(fg, f, r, src), call(fg.mulc('r2'), r, r));
    out.push(f);
  }
  // from_bytes_raw(r, src): the plain integer in limbs (no Montgomery conversion)
  {
    const f = fg.fromBytesRaw;
    f.emit(fromBytesLines(fg, f, f.i32('r'), f.i32('src')));
    out.push(f);
  }
  // to_bytes(dst, a): out of Montgomery form, fully reduced, big-endian
  {
    const f = fg.toBytes;
    f.doc.push('the canonical value of a (below 2m) out of Montgomery form (a product by 1), big-endian.');
    fg.mulLocals(f, ['t', 'mask']);
    f.emit(
      fg.loadLimbs(f, 'a', f.i32('a')),
      fg.mulCore(f, { kind: 'const', limbs: fg.consts.get('raw1')! }).code,
      Array.from({ length: L }, (_, i) => A(f, i).set(fg.v(f, `r${i}`))),
      canonLines(fg, f, 'a', 'r'),
      toBytesLines(fg, f, f.i32('dst'), 'r'),
    );
    out.push(f);
  }
  // bytes_lt(src) → 1 if the big-endian integer at src is below m (canonical), else 0
  {
    const f = fg.bytesLt;
    chainLocals(fg, f);
    f.emit(
      fromBytesLines(fg, f, null, f.i32('src'), 'a'),
      chain(fg, f, 'r', (i) => I.sub(A(f, i), fg.k(fg.mLimbs[i]))),
      fg.i32of(I.and(fg.v(f, 'c'), 1)),
    );
    out.push(f);
  }
  // bytes_nonzero(src) → 1 if the big-endian integer at src is not 0
  {
    const f = fg.bytesNonzero;
    chainLocals(fg, f);
    f.emit(
      fromBytesLines(fg, f, null, f.i32('src'), 'a'),
      i32.eqz(
        I.eqz(
          orAll(
            fg,
            Array.from({ length: L }, (_, i) => A(f, i).get()),
          ),
        ),
      ),
    );
    out.push(f);
  }
  return out;
}

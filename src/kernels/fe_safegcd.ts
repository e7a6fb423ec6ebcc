// Modular inversion by Bernstein and Yang's "safegcd" ("Fast constant-time gcd computation and
// modular inversion", TCHES 2019), generated per modulus, in a constant-time and a variable-time
// variant (the latter for public data: ECDSA verification).
//
// Algorithm: a divstep maps (δ, f, g), f odd, to (1 − δ, g, (g − f)/2) if δ > 0 and g is odd,
// (1 + δ, f, (g + f)/2) if g is odd, else (1 + δ, f, g/2); from f = m, g = a, enough steps reach g
// = 0 with f = ±1. The steps run in batches of 30 on the low words, recorded as a 2×2 matrix of
// entries ≤ 2^30 (two per i64: UV = u + 2^32·v), then applied to the full f, g and to the
// cofactors d, e (f ≡ d·a, g ≡ e·a mod m), made exact by adding K·m; at the end a⁻¹ = ±d. f, g,
// d, e are N signed 30-bit limbs in locals (N = ⌈(bits(m) + 2)/30⌉), normalised after each update.
//
// Why constant time (constantTime): a fixed number of branch-free divsteps chosen by masks (c2 =
// −(g & 1), c1 = c2 & (δ > 0 ? −1 : 0)); no branch, select, secret address or division. The count
// is 590 hddivsteps up to 256 bits (P. Wuille's bound, github.com/sipa/safegcd-bounds), else
// ⌊(49d + 57)/17⌋ divsteps (the paper's Theorem 11.2), rounded up to whole batches. The
// variable-time variant skips zeros by ctz, takes up to 6 steps at once and stops at g = 0.
//
// Invariants (why no i64 overflows): |f|, |g| ≤ m; d, e ∈ (−2m, m); a limb column below 2^62;
// the input canonical (a < m). Output: L limbs of 29 bits (fe_mont29's format), canonical.
//
// Cost: 1.25 µs (constant time) and 0.92 µs (variable time) for a 256-bit inverse, 4.2 and 2.4 µs
// at 512 bits. The derivation of the bounds and the measurements: docs/kernels/ec.md.
// Negative-control flag (tests only): broken 'dropTerm' (a K·m term left out) or 'halfSteps'.

import { type Expr, Func, type Local, type Stmt, block, br, br_if, i32, i64, if_, label, loop, printFunc } from './builder/index.js';
import { bitLength, limbsFor } from './fe_limbs.js';

export interface SafegcdOptions {
  constantTime: boolean;
  /** negative controls for the tests: a deliberately broken generator */
  broken?: 'dropTerm' | 'halfSteps';
}

const B = 30; // limb bits and divsteps per batch
const M30 = (1n << 30n) - 1n;

/** Constant-time divstep count: see the header. */
function ctDivsteps(m: bigint): { steps: number; halfDelta: boolean } {
  const d = bitLength(m);
  if (d <= 256) return { steps: 590, halfDelta: true };
  return { steps: Math.floor((49 * d + 57) / 17), halfDelta: false };
}

/** Number of signed 30-bit limbs for f, g, d, e. */
function safegcdLimbs(m: bigint): number {
  return Math.ceil((bitLength(m) + 2) / B);
}

function inv30(m: bigint): bigint {
  // m⁻¹ mod 2^30 by Newton iteration (m odd)
  let x = m & M30;
  for (let i = 0; i < 5; i++) x = (x * (2n - m * x)) & M30;
  if (((x * m) & M30) !== 1n) throw new Error('inv30');
  return x;
}

type E = Expr<'i64'>;
type V = E | Local<'i64'> | bigint | number;
const { add, sub, mul, and, xor, or, shl } = i64;
const sar = i64.shr_s;
const shr = i64.shr_u;
const MASK = () => i64.const(M30);

/**
 * `$name(r, a, ws)`: r ← a⁻¹ mod m for the canonical a at a (L limbs of 29 bits, fe_mont29's
 * format), 0 for a = 0; everything in locals (workspace 0). Also the function as text (`wat`),
 * for a test module of its own.
 */
export function safegcdFunction(name: string, m: bigint, opts: SafegcdOptions): { func: Func; wat: string; workspace: number } {
  if ((m & 1n) === 0n || m < 3n) throw new Error('safegcd: modulus must be odd');
  const N = safegcdLimbs(m);
  const L = limbsFor(m);
  const mL: bigint[] = [];
  for (let i = 0, t = m; i < N; i++, t >>= 30n) mL.push(t & M30);
  const minv = inv30(m);
  const ct = opts.constantTime;

  const fn = new Func(name, { r: 'i32', a: 'i32', ws: 'i32' });
  const { r, a } = fn.p;
  for (let i = 0; i < N; i++) fn.locals('i64', [`f${i}`, `g${i}`, `d${i}`, `e${i}`]);
  const F = (i: number) => fn.i64(`f${i}`),
    G = (i: number) => fn.i64(`g${i}`),
    D = (i: number) => fn.i64(`d${i}`),
    Ed = (i: number) => fn.i64(`e${i}`);
  const [fl, gl, uv, qr, nu, c1, c2, mu, mv, mq, mr, cf, cg, sd, se, md, me] = fn.locals('i64', ['fl', 'gl', 'uv', 'qr', ct ? 'nu' : 'eta', 'c1', 'c2', 'mu', 'mv', 'mq', 'mr', 'cf', 'cg', 'sd', 'se', 'md', 'me']);
  const eta = nu;
  const [iv, z, w] = ct ? [] : fn.locals('i64', ['i', 'z', 'w']);
  const it = fn.i32('it');
  const len = ct ? undefined : fn.i32('len');

  // ---- load: f = m, g = a (29-bit limbs → 30-bit limbs), d = 0, e = 1
  const aLimb = (j: number): E | null => (j < L ? i64.load(a, 8 * j) : null);
  for (let k = 0; k < N; k++) {
    fn.emit(F(k).set(mL[k]));
    const bit = 30 * k,
      j = Math.floor(bit / 29),
      o = bit - 29 * j;
    const lo = aLimb(j),
      hi = aLimb(j + 1);
    let v: E;
    if (lo === null) v = i64.const(0);
    else {
      v = o ? shr(lo, o) : lo;
      if (hi !== null) v = or(v, shl(hi, 29 - o));
      v = and(v, MASK());
    }
    fn.emit(G(k).set(v), D(k).set(0), Ed(k).set(k === 0 ? 1 : 0));
  }

  // ---- one batch of 30 divsteps on the low words fl, gl → UV, QR
  const steps = ctDivsteps(m);
  const eta0 = ct && steps.halfDelta ? 0 : 1; // η = 2δ − 1
  // CT: ν = −η − 1 = −2δ (swap mask ν >> 63); for hddivsteps ζ = (ν − 1)/2 = −δ − 1/2 = −1
  fn.emit(nu.set(ct ? (steps.halfDelta ? -1 : -eta0 - 1) : eta0));

  // c2 (g odd) for the first step from gl; each step computes the next one from the unshifted g
  const batchCT: Stmt[] = [c2.set(sar(shl(gl, 63), 63))];
  for (let s = 0; s < B; s++) {
    batchCT.push(
      c1.set(and(sar(nu, 63), c2)),
      // g += c2 ? (c1 ? −f : f) : 0, as (g − c1) + ((f & c2) ^ c1): a short dependency chain
      gl.set(add(sub(gl, c1), xor(and(fl, c2), c1))),
      qr.set(add(sub(qr, c1), xor(and(uv, c2), c1))),
      fl.set(add(fl, and(gl, c1))),
      uv.set(add(uv, and(qr, c1))),
      // ν → −ν − 2 on a swap, ν − 2 otherwise; with hddivsteps ν is odd and ζ = (ν − 1)/2 is
      // held instead: ζ → (ζ ^ c1) − 1, one operation fewer
      steps.halfDelta ? nu.set(sub(xor(nu, c1), 1)) : nu.set(sub(sub(xor(nu, c1), c1), 2)),
      ...(s < B - 1 ? [c2.set(sar(shl(gl, 62), 63))] : []),
      gl.set(sar(gl, 1)),
      uv.set(shl(uv, 1)),
    );
  }

  // variable time: i = steps left in the batch (i64)
  const batchVT = (): Stmt[] => {
    const [bdone, bstep] = [label('bdone'), label('bstep')];
    return [
      iv.set(B),
      block(
        bdone,
        loop(
          bstep,
          // skip the zeros of g: z = ctz(g | 2^i) ≤ i
          z.set(i64.ctz(or(gl, shl(1, iv)))),
          gl.set(sar(gl, z)),
          uv.set(shl(uv, z)),
          eta.set(add(eta, shl(z, 1))),
          iv.set(sub(iv, z)),
          br_if(bdone, i64.eqz(iv)),
          // g odd. δ > 0: swap and negate, (δ, f, g) → (−δ, g, −f), η → −η − 2
          if_(i64.ge_s(eta, 0), [z.set(fl), fl.set(gl), gl.set(sub(0, z)), z.set(uv), uv.set(qr), qr.set(sub(0, z)), eta.set(sub(sub(0, eta), 2))]),
          // now δ < 0: k = min(i, ⌈−η/2⌉, 6) non-swap steps at once
          z.set(shr(add(sub(0, eta), 1), 1)),
          if_(i64.gt_u(z, iv), [z.set(iv)]),
          if_(i64.gt_u(z, 6), [z.set(6)]),
          // w = −g·f⁻¹ mod 2^k, f⁻¹ ≡ f·(2 − f²) mod 2^6
          w.set(and(mul(sub(0, gl), mul(fl, sub(2, mul(fl, fl)))), sub(shl(1, z), 1))),
          gl.set(sar(add(gl, mul(w, fl)), z)),
          qr.set(add(qr, mul(w, uv))),
          uv.set(shl(uv, z)),
          eta.set(add(eta, shl(z, 1))),
          iv.set(sub(iv, z)),
          br_if(bstep, i64.ne(iv, 0)),
        ),
      ),
    ];
  };

  // ---- apply the matrix to f, g and d, e
  const update: Stmt[] = [
    fl.set(F(0)),
    gl.set(G(0)),
    uv.set(1),
    qr.set(1n << 32n),
    ...(ct ? batchCT : batchVT()),
    mu.set(i64.extend32_s(uv)),
    mv.set(sar(sub(uv, mu), 32)),
    mq.set(i64.extend32_s(qr)),
    mr.set(sar(sub(qr, mq), 32)),
    // f, g
    cf.set(sar(add(mul(mu, F(0)), mul(mv, G(0))), 30)),
    cg.set(sar(add(mul(mq, F(0)), mul(mr, G(0))), 30)),
  ];
  const fgColumn = (i: number): Stmt[] => [
    cf.set(add(cf, add(mul(mu, F(i)), mul(mv, G(i))))),
    cg.set(add(cg, add(mul(mq, F(i)), mul(mr, G(i))))),
    F(i - 1).set(and(cf, MASK())),
    G(i - 1).set(and(cg, MASK())),
    cf.set(sar(cf, 30)),
    cg.set(sar(cg, 30)),
  ];
  if (ct) {
    for (let i = 1; i < N; i++) update.push(...fgColumn(i));
    update.push(F(N - 1).set(cf), G(N - 1).set(cg));
  } else {
    // variable time: only the `len` live limbs of f and g (the limbs above are 0). Column i is
    // skipped when len ≤ i; the exit for length k stores the top limbs f_(k−1), g_(k−1) and,
    // when both are 0 or −1 (f and g fit in k − 1 limbs), folds them into limb k − 2 (which then
    // holds the signed top, in [−2^30, 2^30)) and shortens len.
    const fgdone = label('fgdone');
    const lens = Array.from({ length: N }, (_, k) => label(`len${k}`));
    const top = (k: number): Stmt[] => {
      const fits = (c: Local<'i64'>) => i64.eqz(xor(c, sar(c, 63)));
      const lines: Stmt[] = [F(k - 1).set(cf), G(k - 1).set(cg)];
      if (k >= 2) lines.push(if_(i32.and(fits(cf), fits(cg)), [F(k - 2).set(add(F(k - 2), shl(cf, 30))), G(k - 2).set(add(G(k - 2), shl(cg, 30))), F(k - 1).set(0), G(k - 1).set(0), len!.set(k - 1)]));
      return lines;
    };
    let inner: Stmt[] = [];
    for (let i = 1; i < N; i++) inner.push(br_if(lens[i], i32.le_u(len!, i)), ...fgColumn(i));
    inner.push(...top(N), br(fgdone));
    for (let k = N - 1; k >= 1; k--) inner = [block(lens[k], inner), ...top(k), br(fgdone)];
    update.push(block(fgdone, inner));
  }
  // d, e: K = u·[d<0] + v·[e<0] − ((m⁻¹·cd + u·[d<0] + v·[e<0]) mod 2^30)
  const mTerm = (c: Local<'i64'>, i: number): E | null => {
    if (mL[i] === 0n) return null;
    if (opts.broken === 'dropTerm' && i === 1) return null;
    return mul(c, mL[i]);
  };
  update.push(
    sd.set(sar(D(N - 1), 63)),
    se.set(sar(Ed(N - 1), 63)),
    md.set(add(and(mu, sd), and(mv, se))),
    me.set(add(and(mq, sd), and(mr, se))),
    cf.set(add(mul(mu, D(0)), mul(mv, Ed(0)))),
    cg.set(add(mul(mq, D(0)), mul(mr, Ed(0)))),
    md.set(sub(md, and(add(mul(cf, minv), md), MASK()))),
    me.set(sub(me, and(add(mul(cg, minv), me), MASK()))),
    cf.set(sar(add(cf, mul(md, mL[0])), 30)),
    cg.set(sar(add(cg, mul(me, mL[0])), 30)),
  );
  for (let i = 1; i < N; i++) {
    const tf = mTerm(md, i),
      tg = mTerm(me, i);
    let sf = add(mul(mu, D(i)), mul(mv, Ed(i)));
    let sg = add(mul(mq, D(i)), mul(mr, Ed(i)));
    if (tf) sf = add(sf, tf);
    if (tg) sg = add(sg, tg);
    update.push(cf.set(add(cf, sf)), cg.set(add(cg, sg)), D(i - 1).set(and(cf, MASK())), Ed(i - 1).set(and(cg, MASK())), cf.set(sar(cf, 30)), cg.set(sar(cg, 30)));
  }
  update.push(D(N - 1).set(cf), Ed(N - 1).set(cg));

  const batch = label('batch');
  if (ct) {
    let batches = Math.ceil(steps.steps / B);
    if (opts.broken === 'halfSteps') batches = Math.floor(batches / 2);
    fn.emit(it.set(batches), loop(batch, update, it.set(i32.sub(it, 1)), br_if(batch, it)));
  } else {
    // exit when g = 0; a public cap (the paper's bound for δ = 1, plus one) guards against a hang
    const cap = Math.ceil(Math.floor((49 * Math.max(bitLength(m), 46) + 80) / 17) / B) + 1;
    const gz = or(G(0), G(1), ...Array.from({ length: N - 2 }, (_, i) => G(i + 2)));
    const done = label('done');
    fn.emit(it.set(cap), len!.set(N), block(done, loop(batch, br_if(done, i64.eqz(gz)), update, it.set(i32.sub(it, 1)), br_if(batch, it))));
  }

  // ---- result: f·d mod m, canonical
  const chain = (term: (i: number) => V) => {
    fn.emit(cf.set(0));
    for (let i = 0; i < N; i++) {
      fn.emit(cf.set(add(cf, term(i))));
      if (i < N - 1) fn.emit(D(i).set(and(cf, MASK())), cf.set(sar(cf, 30)));
      else fn.emit(D(i).set(cf));
    }
  };
  // f = ±1 (or m when a = 0, with d = 0). CT: the sign of the top limb; VT (f possibly
  // shortened): f = 1 exactly when f0 = 1 (f = −1 has f0 = 2^30 − 1 or, in one limb, −1)
  fn.emit(ct ? sd.set(sar(F(N - 1), 63)) : sd.set(sub(0, i64.extend_i32_u(i64.ne(F(0), 1)))));
  chain((i) => sub(xor(D(i), sd), sd));
  for (let t = 0; t < 2; t++) {
    fn.emit(sd.set(sar(D(N - 1), 63)));
    chain((i) => (mL[i] === 0n ? D(i) : add(D(i), and(mL[i], sd))));
  }
  // e := d − m; keep e when e ≥ 0
  fn.emit(cf.set(0));
  for (let i = 0; i < N; i++) {
    fn.emit(cf.set(add(cf, sub(D(i), mL[i]))));
    if (i < N - 1) fn.emit(Ed(i).set(and(cf, MASK())), cf.set(sar(cf, 30)));
    else fn.emit(Ed(i).set(cf));
  }
  fn.emit(sd.set(sar(Ed(N - 1), 63)));
  for (let i = 0; i < N; i++) fn.emit(D(i).set(xor(Ed(i), and(xor(Ed(i), D(i)), sd))));
  // repack into L limbs of 29 bits
  for (let j = 0; j < L; j++) {
    const bit = 29 * j,
      k = Math.floor(bit / 30),
      o = bit - 30 * k;
    let v: E = k < N ? (o ? shr(D(k), o) : D(k).get()) : i64.const(0);
    if (o > 1 && k + 1 < N) v = or(v, shl(D(k + 1), 30 - o));
    v = and(v, (1n << 29n) - 1n);
    fn.emit(i64.store(r, v, 8 * j));
  }
  return { func: fn, wat: printFunc(fn, '  ', new Set()).join('\n'), workspace: 0 };
}

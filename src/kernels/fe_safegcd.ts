// Modular inversion by the Bernstein–Yang "safegcd" method (D. J. Bernstein, B.-Y. Yang, "Fast
// constant-time gcd computation and modular inversion", 2019), generated per modulus. One
// generator, two variants: variable time (public data: ECDSA verification) and constant time.
//
// Algorithm. A divstep maps (δ, f, g), f odd, to
//   (1 − δ, g, (g − f)/2)   if δ > 0 and g odd,
//   (1 + δ, f, (g + f)/2)   if g odd otherwise,
//   (1 + δ, f, g/2)         if g even.
// Starting from f = m, g = a, enough divsteps reach g = 0 with f = ±gcd(m, a) = ±1. The first k
// divsteps depend only on the low k bits of f and g, so they run in batches of 30 on a single
// machine word holding those bits, recording the batch as a 2×2 matrix T = [u v; q r] with
// 2^30·(f', g') = T·(f, g), |u| + |v| ≤ 2^30, |q| + |r| ≤ 2^30 (each divstep at most doubles the
// row sums). T is then applied to the full f, g (exact division by 2^30) and to the cofactors
// d, e, kept with f ≡ d·a, g ≡ e·a (mod m) (d = 0, e = 1 at the start): d' = (u·d + v·e)/2^30
// mod m, made exact by adding K·m with K chosen so that the low 30 bits vanish. At the end
// a⁻¹ = f·d mod m (f = ±1); for a = 0, g = 0 throughout, d stays 0 and the result is 0.
//
// Inside a batch the four entries ride in two words, UV = u + 2^32·v and QR = q + 2^32·r: every
// batch operation is linear (add, negate, mask with all-zeros/all-ones, shift left, multiply
// by a small scalar), so it acts on both halves at once; u = extend32_s(UV) and
// v = (UV − u) >> 32 recover them since |u|, |v| ≤ 2^30 < 2^31. The variable-time batch holds
// δ as η = 2δ − 1 (the constant-time one as ν or ζ, below): "δ > 0" is "η ≥ 0", a swap maps η
// to −η, any other step to η + 2. Tracking within a batch (s steps done, f_s, g_s the true values):
// 2^s·f_s = u·f + v·g, 2^s·g_s = q·f + r·g; a step adds ±f to g and ±(u, v) to (q, r), a swap
// also moves the old g, (q, r) into f, (u, v); then g halves and (u, v) double.
//
// Constant time (constantTime: true): a fixed number of branch-free divsteps, each from masks:
// c2 = −(g & 1) (all ones when g is odd), c1 = c2 & (δ > 0 ? −1 : 0) (swap);
// g ← (g − c1) + ((f & c2) ^ c1), i.e. g, g + f or g − f; the same for QR from UV; then
// f += g & c1, UV += QR & c1 (under c1 that makes f the old g); δ updated; g >>= 1, UV <<= 1.
// The mask of the next step is taken from g before its shift ((g << 62) >> 63): the chain from
// one step's g to the next is 5 operations (it was 8 with the plain x = (f ^ c1) − c1 form:
// 256-bit inversion 1.50 → 1.26 µs). δ is held here as ν = −η − 1 = −2δ (the swap mask is
// ν >> 63; ν → −ν − 2 on a swap, ν − 2 otherwise), and for hddivsteps as ζ = −δ − 1/2
// (ζ → (ζ ^ c1) − 1: one operation fewer, 1.26 → 1.20 µs; the step is 20 operations and on
// this machine (AMD EPYC, 4 integer ALUs) bound by both latency and throughput).
// No branch, select, secret address or division; the loop counters are public.
// Iteration bound:
//   - moduli of at most 256 bits: 590 "hddivsteps" (divsteps started at δ = 1/2 instead of 1),
//     the bound computed by P. Wuille (github.com/sipa/safegcd-bounds: a convex-hull analysis
//     covering every 0 ≤ g ≤ f ≤ 2^256; the repository carries a Coq development of it,
//     coq/hddivsteps/hddivsteps590*.v; libsecp256k1 uses it). 20 batches (600). The paper's
//     bound for δ = 1 would be 741 (25 batches).
//   - larger moduli (384, 512, 521 bits): original divsteps from δ = 1 with the paper's proven
//     bound (Theorem 11.2: f² + 4g² ≤ 5·2^(2d) ⇒ g = 0 after ⌊(49d + 57)/17⌋ steps for
//     d ≥ 46; with 0 ≤ g < f < 2^d take d = bits(m)): 384 → 1110, 512 → 1479, 521 → 1505
//     divsteps, rounded up to whole batches (37, 50, 51). Once g = 0 further divsteps leave f,
//     and d up to a multiple of m, unchanged, so rounding up is harmless.
//     Not used: the same repository's hddivsteps formula ⌊(3787·log2(M) + 2166)/1644⌋ for
//     0 ≤ g ≤ f ≤ M, stated as computationally verified (convex hulls in exact arithmetic) for
//     M ≤ 2^3805 but not proven: 885 / 1180 / 1201 steps (30 / 40 / 41 batches), measured
//     brainpoolP512r1 n 4.1 → 3.3 µs, all tests passing. A one-line change in ctDivsteps if a
//     computationally verified bound is acceptable.
// Variable time (constantTime: false): original divsteps (δ = 1), a batch loop that exits
// when g = 0, and within a batch: skip the trailing zeros of g at once (i64.ctz), swap when
// δ > 0, then, while δ stays ≤ 0, do k = min(remaining, steps until δ > 0, 6) steps in one go:
// g += w·f with w = −g·f⁻¹ mod 2^k (f⁻¹ mod 2^6 = f·(2 − f·f): f is its own inverse mod 8, one
// Newton step), which is exactly what k single steps would add, then shift by k. f and g
// shrink (about 14 bits a batch), so the variable-time update multiplies only their live limbs
// (`len`, one block exit per length) and drops a limb when the top limbs of both are 0 or −1
// (folded into the limb below, which then holds the signed top): brainpoolP512r1 n
// 2.6 → 2.4 µs, 256-bit within noise. At the end f = ±1 is told apart by f0 = 1. The batch
// loop has a cap (the paper's bound plus one batch) that a correct run never reaches.
//
// Representation. f, g, d, e: N signed radix-2^30 limbs in i64 locals, N = ⌈(bits(m) + 2)/30⌉
// (224 bits: 8, 256: 9, 384: 13, 512 and 521: 18), normalized after every update: limbs
// 0 … N−2 in [0, 2^30), the top limb signed, so the sign of the value is the sign of the top
// limb. All four stay in locals (no memory but the input and output); workspace 0.
// Bounds (why no i64 overflows):
//   - |f|, |g| ≤ m throughout (|f'| ≤ (|u|·|f| + |v|·|g|)/2^30 ≤ max(|f|, |g|)); d, e ∈ (−2m, m):
//     before an update d̃ = d + m·[d < 0] ∈ (−m, m) (likewise ẽ), |u·d̃ + v·ẽ| < 2^30·m, and
//     K = u·[d<0] + v·[e<0] − k with k ∈ [0, 2^30) (k ≡ m⁻¹·(u·d + v·e) + u[d<0] + v[e<0] mod
//     2^30) gives d' = (u·d̃ + v·ẽ − k·m)/2^30 ∈ (−2m, m). 2m < 2^(bits+1) ≤ 2^(30N − 1), so the
//     top limb is below 2^29 in magnitude.
//   - one limb column: |u·d_i + v·e_i| ≤ 2^30·2^30 = 2^60, |K·m_i| < 2^31·2^30 = 2^61, carry
//     < 2^32: below 2^62. For f, g: at most 2^60 + 2^31. K·m0 and the sums below 2^62 too.
//     m⁻¹·cd is computed mod 2^64 (wrapping i64.mul): only its low 30 bits are used.
//   - batch words: |u|, |v|, |q|, |r| ≤ 2^30 (fit the signed 32-bit halves); the low word of f
//     and g: after s steps of a batch the low 30 − s bits of g are exact, the only ones read.
//   - η: at most 2·(steps) + 1 in magnitude, a few thousand.
// The input must be canonical, a ∈ [0, m): the bounds above assume g = a < f = m.
// Final step: d ← ±d (sign of f), + m twice under the sign mask (→ [0, 2m)), − m under the
// mask of a non-negative difference (→ [0, m)), then repacked into L limbs of 29 bits
// (fe_mont29's memory format, L = limbsFor(m)).
//
// Cost (µs per call, best of 15 × 2000 calls, `node --import tsx /tmp/safegcd-bench.ts` at the
// time of writing; Fermat = the shipped fp_inv/fn_inv addition chain):
//                        Fermat   safegcd VT   safegcd CT
//   P-256 p               3.9        0.92         1.25
//   brainpoolP256r1 p     7.6        0.92         1.25
//   brainpoolP512r1 n    42.5        2.4          4.2
// Tried and dropped: in the variable-time batch, eliminating up to 12 bits at once (two Newton
// steps for f⁻¹; 0.93 → 1.12 µs: a longer chain per iteration) or 3 (no Newton step; within
// noise), and the swap done with `select` instead of a branch (0.93 → 1.10 µs).
//
// Negative-control flag (tests only): `broken: 'dropTerm'` leaves out the K·m_1 term of the
// cofactor update (results wrong), `broken: 'halfSteps'` runs half the batches (CT only).

import { limbsFor } from './fe_mont29.js';
import { bitLength, get, set } from './wat.js';

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

const k64 = (v: bigint | number) => `(i64.const ${v})`;
const add = (a: string, b: string) => `(i64.add ${a} ${b})`;
const sub = (a: string, b: string) => `(i64.sub ${a} ${b})`;
const mul = (a: string, b: string) => `(i64.mul ${a} ${b})`;
const and = (a: string, b: string) => `(i64.and ${a} ${b})`;
const xor = (a: string, b: string) => `(i64.xor ${a} ${b})`;
const or = (a: string, b: string) => `(i64.or ${a} ${b})`;
const shl = (a: string, b: string) => `(i64.shl ${a} ${b})`;
const sar = (a: string, b: string) => `(i64.shr_s ${a} ${b})`;
const shr = (a: string, b: string) => `(i64.shr_u ${a} ${b})`;
const MASK = k64(M30);

export function safegcdFunction(name: string, m: bigint, opts: SafegcdOptions): { wat: string; workspace: number } {
  if ((m & 1n) === 0n || m < 3n) throw new Error('safegcd: modulus must be odd');
  const N = safegcdLimbs(m);
  const L = limbsFor(m);
  const mL: bigint[] = [];
  for (let i = 0, t = m; i < N; i++, t >>= 30n) mL.push(t & M30);
  const minv = inv30(m);
  const ct = opts.constantTime;
  const F = (i: number) => `f${i}`, G = (i: number) => `g${i}`, D = (i: number) => `d${i}`, E = (i: number) => `e${i}`;

  const out: string[] = [];
  const emit = (...s: string[]) => out.push(...s.map((x) => '    ' + x));

  // ---- load: f = m, g = a (29-bit limbs → 30-bit limbs), d = 0, e = 1
  const aLimb = (j: number) => (j < L ? `(i64.load offset=${8 * j} (local.get $a))` : null);
  for (let k = 0; k < N; k++) {
    emit(set(F(k), k64(mL[k])));
    const bit = 30 * k, j = Math.floor(bit / 29), o = bit - 29 * j;
    const lo = aLimb(j), hi = aLimb(j + 1);
    let v: string;
    if (lo === null) v = k64(0);
    else {
      v = o ? shr(lo, k64(o)) : lo;
      if (hi !== null) v = or(v, shl(hi, k64(29 - o)));
      v = and(v, MASK);
    }
    emit(set(G(k), v));
    emit(set(D(k), k64(0)), set(E(k), k64(k === 0 ? 1 : 0)));
  }

  // ---- one batch of 30 divsteps on the low words fl, gl → UV, QR
  const steps = ctDivsteps(m);
  const eta0 = ct && steps.halfDelta ? 0 : 1; // η = 2δ − 1
  // CT: ν = −η − 1 = −2δ (swap mask ν >> 63); for hddivsteps ζ = (ν − 1)/2 = −δ − 1/2 = −1
  emit(set(ct ? 'nu' : 'eta', k64(ct ? (steps.halfDelta ? -1 : -eta0 - 1) : eta0)));

  // c2 (g odd) for the first step from gl; each step computes the next one from the unshifted g
  const batchCT: string[] = [set('c2', sar(shl(get('gl'), k64(63)), k64(63)))];
  for (let s = 0; s < B; s++) {
    batchCT.push(
      set('c1', and(sar(get('nu'), k64(63)), get('c2'))),
      // g += c2 ? (c1 ? −f : f) : 0, as (g − c1) + ((f & c2) ^ c1): a short dependency chain
      set('gl', add(sub(get('gl'), get('c1')), xor(and(get('fl'), get('c2')), get('c1')))),
      set('qr', add(sub(get('qr'), get('c1')), xor(and(get('uv'), get('c2')), get('c1')))),
      set('fl', add(get('fl'), and(get('gl'), get('c1')))),
      set('uv', add(get('uv'), and(get('qr'), get('c1')))),
      // ν → −ν − 2 on a swap, ν − 2 otherwise; with hddivsteps ν is odd and ζ = (ν − 1)/2 is
      // held instead: ζ → (ζ ^ c1) − 1, one operation fewer
      steps.halfDelta ? set('nu', sub(xor(get('nu'), get('c1')), k64(1)))
        : set('nu', sub(sub(xor(get('nu'), get('c1')), get('c1')), k64(2))),
      ...(s < B - 1 ? [set('c2', sar(shl(get('gl'), k64(62)), k64(63)))] : []),
      set('gl', sar(get('gl'), k64(1))),
      set('uv', shl(get('uv'), k64(1))),
    );
  }

  // variable time: i = steps left in the batch (i64)
  const batchVT: string[] = [
    set('i', k64(B)),
    `(block $bdone (loop $bstep`,
    // skip the zeros of g: z = ctz(g | 2^i) ≤ i
    set('z', `(i64.ctz ${or(get('gl'), shl(k64(1), get('i')))})`),
    set('gl', sar(get('gl'), get('z'))),
    set('uv', shl(get('uv'), get('z'))),
    set('eta', add(get('eta'), shl(get('z'), k64(1)))),
    set('i', sub(get('i'), get('z'))),
    `(br_if $bdone (i64.eqz ${get('i')}))`,
    // g odd. δ > 0: swap and negate, (δ, f, g) → (−δ, g, −f), η → −η − 2
    `(if (i64.ge_s ${get('eta')} ${k64(0)}) (then`,
    set('z', get('fl')), set('fl', get('gl')), set('gl', sub(k64(0), get('z'))),
    set('z', get('uv')), set('uv', get('qr')), set('qr', sub(k64(0), get('z'))),
    set('eta', sub(sub(k64(0), get('eta')), k64(2))),
    `))`,
    // now δ < 0: k = min(i, ⌈−η/2⌉, 6) non-swap steps at once
    set('z', shr(add(sub(k64(0), get('eta')), k64(1)), k64(1))),
    `(if (i64.gt_u ${get('z')} ${get('i')}) (then ${set('z', get('i'))}))`,
    `(if (i64.gt_u ${get('z')} ${k64(6)}) (then ${set('z', k64(6))}))`,
    // w = −g·f⁻¹ mod 2^k, f⁻¹ ≡ f·(2 − f²) mod 2^6
    set('w', and(mul(sub(k64(0), get('gl')), mul(get('fl'), sub(k64(2), mul(get('fl'), get('fl'))))),
      sub(shl(k64(1), get('z')), k64(1)))),
    set('gl', sar(add(get('gl'), mul(get('w'), get('fl'))), get('z'))),
    set('qr', add(get('qr'), mul(get('w'), get('uv')))),
    set('uv', shl(get('uv'), get('z'))),
    set('eta', add(get('eta'), shl(get('z'), k64(1)))),
    set('i', sub(get('i'), get('z'))),
    `(br_if $bstep (i64.ne ${get('i')} ${k64(0)}))`,
    `))`,
  ];

  // ---- apply the matrix to f, g and d, e
  const update: string[] = [
    set('fl', get(F(0))), set('gl', get(G(0))), set('uv', k64(1)), set('qr', k64(1n << 32n)),
    ...(ct ? batchCT : batchVT),
    set('mu', `(i64.extend32_s ${get('uv')})`), set('mv', sar(sub(get('uv'), get('mu')), k64(32))),
    set('mq', `(i64.extend32_s ${get('qr')})`), set('mr', sar(sub(get('qr'), get('mq')), k64(32))),
    // f, g
    set('cf', sar(add(mul(get('mu'), get(F(0))), mul(get('mv'), get(G(0)))), k64(30))),
    set('cg', sar(add(mul(get('mq'), get(F(0))), mul(get('mr'), get(G(0)))), k64(30))),
  ];
  const fgColumn = (i: number) => [
    set('cf', add(get('cf'), add(mul(get('mu'), get(F(i))), mul(get('mv'), get(G(i)))))),
    set('cg', add(get('cg'), add(mul(get('mq'), get(F(i))), mul(get('mr'), get(G(i)))))),
    set(F(i - 1), and(get('cf'), MASK)), set(G(i - 1), and(get('cg'), MASK)),
    set('cf', sar(get('cf'), k64(30))), set('cg', sar(get('cg'), k64(30))),
  ];
  if (ct) {
    for (let i = 1; i < N; i++) update.push(...fgColumn(i));
    update.push(set(F(N - 1), get('cf')), set(G(N - 1), get('cg')));
  } else {
    // variable time: only the `len` live limbs of f and g (the limbs above are 0). Column i is
    // skipped when len ≤ i; the exit for length k stores the top limbs f_(k−1), g_(k−1) and,
    // when both are 0 or −1 (f and g fit in k − 1 limbs), folds them into limb k − 2 (which then
    // holds the signed top, in [−2^30, 2^30)) and shortens len.
    const top = (k: number) => {
      const fits = (c: string) => `(i64.eqz ${xor(get(c), sar(get(c), k64(63)))})`;
      const lines = [set(F(k - 1), get('cf')), set(G(k - 1), get('cg'))];
      if (k >= 2) lines.push(
        `(if (i32.and ${fits('cf')} ${fits('cg')}) (then`,
        `  ${set(F(k - 2), add(get(F(k - 2)), shl(get('cf'), k64(30))))}`,
        `  ${set(G(k - 2), add(get(G(k - 2)), shl(get('cg'), k64(30))))}`,
        `  ${set(F(k - 1), k64(0))} ${set(G(k - 1), k64(0))}`,
        `  (local.set $len (i32.const ${k - 1}))))`);
      return lines;
    };
    update.push(`(block $fgdone`);
    for (let k = 1; k < N; k++) update.push(`(block $len${k}`);
    for (let i = 1; i < N; i++) {
      update.push(`(br_if $len${i} (i32.le_u (local.get $len) (i32.const ${i})))`, ...fgColumn(i));
    }
    update.push(...top(N), `(br $fgdone)`);
    for (let k = N - 1; k >= 1; k--) update.push(`) ;; $len${k}`, ...top(k), `(br $fgdone)`);
    update.push(`) ;; $fgdone`);
  }
  // d, e: K = u·[d<0] + v·[e<0] − ((m⁻¹·cd + u·[d<0] + v·[e<0]) mod 2^30)
  const mTerm = (c: string, i: number) => {
    if (mL[i] === 0n) return null;
    if (opts.broken === 'dropTerm' && i === 1) return null;
    return mul(get(c), k64(mL[i]));
  };
  update.push(
    set('sd', sar(get(D(N - 1)), k64(63))), set('se', sar(get(E(N - 1)), k64(63))),
    set('md', add(and(get('mu'), get('sd')), and(get('mv'), get('se')))),
    set('me', add(and(get('mq'), get('sd')), and(get('mr'), get('se')))),
    set('cf', add(mul(get('mu'), get(D(0))), mul(get('mv'), get(E(0))))),
    set('cg', add(mul(get('mq'), get(D(0))), mul(get('mr'), get(E(0))))),
    set('md', sub(get('md'), and(add(mul(get('cf'), k64(minv)), get('md')), MASK))),
    set('me', sub(get('me'), and(add(mul(get('cg'), k64(minv)), get('me')), MASK))),
    set('cf', sar(add(get('cf'), mul(get('md'), k64(mL[0]))), k64(30))),
    set('cg', sar(add(get('cg'), mul(get('me'), k64(mL[0]))), k64(30))),
  );
  for (let i = 1; i < N; i++) {
    const tf = mTerm('md', i), tg = mTerm('me', i);
    let sf = add(mul(get('mu'), get(D(i))), mul(get('mv'), get(E(i))));
    let sg = add(mul(get('mq'), get(D(i))), mul(get('mr'), get(E(i))));
    if (tf) sf = add(sf, tf);
    if (tg) sg = add(sg, tg);
    update.push(
      set('cf', add(get('cf'), sf)), set('cg', add(get('cg'), sg)),
      set(D(i - 1), and(get('cf'), MASK)), set(E(i - 1), and(get('cg'), MASK)),
      set('cf', sar(get('cf'), k64(30))), set('cg', sar(get('cg'), k64(30))),
    );
  }
  update.push(set(D(N - 1), get('cf')), set(E(N - 1), get('cg')));

  if (ct) {
    let batches = Math.ceil(steps.steps / B);
    if (opts.broken === 'halfSteps') batches = Math.floor(batches / 2);
    emit(`(local.set $it (i32.const ${batches}))`, `(loop $batch`);
    emit(...update.map((s) => '  ' + s));
    emit(`  (local.set $it (i32.sub (local.get $it) (i32.const 1)))`,
      `  (br_if $batch (local.get $it))`, `)`);
  } else {
    // exit when g = 0; a public cap (the paper's bound for δ = 1, plus one) guards against a hang
    const cap = Math.ceil(Math.floor((49 * Math.max(bitLength(m), 46) + 80) / 17) / B) + 1;
    const gz = Array.from({ length: N }, (_, i) => get(G(i))).reduce((a, b) => or(a, b));
    emit(`(local.set $it (i32.const ${cap}))`, `(local.set $len (i32.const ${N}))`, `(block $done (loop $batch`);
    emit(`  (br_if $done (i64.eqz ${gz}))`);
    emit(...update.map((s) => '  ' + s));
    emit(`  (local.set $it (i32.sub (local.get $it) (i32.const 1)))`,
      `  (br_if $batch (local.get $it))`, `))`);
  }

  // ---- result: f·d mod m, canonical
  const chain = (term: (i: number) => string) => {
    emit(set('cf', k64(0)));
    for (let i = 0; i < N; i++) {
      emit(set('cf', add(get('cf'), term(i))));
      if (i < N - 1) emit(set(D(i), and(get('cf'), MASK)), set('cf', sar(get('cf'), k64(30))));
      else emit(set(D(i), get('cf')));
    }
  };
  // f = ±1 (or m when a = 0, with d = 0). CT: the sign of the top limb; VT (f possibly
  // shortened): f = 1 exactly when f0 = 1 (f = −1 has f0 = 2^30 − 1 or, in one limb, −1)
  if (ct) emit(set('sd', sar(get(F(N - 1)), k64(63))));
  else emit(set('sd', sub(k64(0), `(i64.extend_i32_u (i64.ne ${get(F(0))} ${k64(1)}))`)));
  chain((i) => sub(xor(get(D(i)), get('sd')), get('sd')));
  for (let t = 0; t < 2; t++) {
    emit(set('sd', sar(get(D(N - 1)), k64(63))));
    chain((i) => (mL[i] === 0n ? get(D(i)) : add(get(D(i)), and(k64(mL[i]), get('sd')))));
  }
  // e := d − m; keep e when e ≥ 0
  emit(set('cf', k64(0)));
  for (let i = 0; i < N; i++) {
    emit(set('cf', add(get('cf'), sub(get(D(i)), k64(mL[i])))));
    if (i < N - 1) emit(set(E(i), and(get('cf'), MASK)), set('cf', sar(get('cf'), k64(30))));
    else emit(set(E(i), get('cf')));
  }
  emit(set('sd', sar(get(E(N - 1)), k64(63))));
  for (let i = 0; i < N; i++) emit(set(D(i), xor(get(E(i)), and(xor(get(E(i)), get(D(i))), get('sd')))));
  // repack into L limbs of 29 bits
  for (let j = 0; j < L; j++) {
    const bit = 29 * j, k = Math.floor(bit / 30), o = bit - 30 * k;
    let v = k < N ? (o ? shr(get(D(k)), k64(o)) : get(D(k))) : k64(0);
    if (o > 1 && k + 1 < N) v = or(v, shl(get(D(k + 1)), k64(30 - o)));
    v = and(v, k64((1n << 29n) - 1n));
    emit(`(i64.store offset=${8 * j} (local.get $r) ${v})`);
  }

  const names: string[] = [];
  for (let i = 0; i < N; i++) names.push(F(i), G(i), D(i), E(i));
  names.push('fl', 'gl', 'uv', 'qr', ct ? 'nu' : 'eta', 'c1', 'c2', 'mu', 'mv', 'mq', 'mr', 'cf', 'cg', 'sd', 'se', 'md', 'me');
  if (!ct) names.push('i', 'z', 'w');
  const i32Locals = ct ? '' : ' (local $len i32)';
  const wat = [
    `  (func $${name} (param $r i32) (param $a i32) (param $ws i32)`,
    `    ${names.map((n) => `(local $${n} i64)`).join(' ')} (local $it i32)${i32Locals}`,
    ...out,
    `  )`,
  ].join('\n');
  return { wat, workspace: 0 };
}

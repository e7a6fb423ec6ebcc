// ECDSA (FIPS 186-5 section 6.4, SEC 1 section 4.1) inside each curve's kernel module: signing
// in constant time, verification by a variable-time Straus–Shamir double-scalar multiplication
// with width-w NAF digits on Jacobian coordinates. ec_rcb_window.ts calls ecdsaFunctions() with
// the curve's field generators, so these functions share the module's field code (fe_mont29.ts),
// its fixed-base comb (ec_mul_base), its affine conversion and its work-space accounting.
//
// Signing: ecdsa_sign(out, k, d, z, tab, ws) → 1 unless r = 0 or s = 0 (the glue then draws the
// next RFC 6979 nonce). R = k·G by the constant-time comb (ec_mul_base); x(R) by to_affine (the
// constant-time inversion mod p); r = x mod n by fn_from_bytes (it reduces any value below
// 2^(8·bytes)); k⁻¹ by fn_inv, the constant-time safegcd (fe_safegcd.ts: a fixed number of
// branch-free divsteps) in the mod-n field; s = k⁻¹·(z + r·d) mod n by fn_mul and fn_add. Why it is
// constant time: every step is straight-line field code or the comb (see those files), the calls
// are the same for every k and d, and every address is a pointer the glue passed plus a
// constant. The only data-dependent outputs are r and s (public: the signature) and the
// r = 0 / s = 0 flag (a rejection, probability ~2^-bits(n)).
//
// Verification: ecdsa_verify(rs, z, xy, gtab, ws, alt) → 1 iff (r, s) verifies for the message
// representative z and the public key x ‖ y (already validated by the glue), r and s in
// [1, n − 1] (checked by the glue). VARIABLE TIME: every input is public (signature, message
// digest, public key), so the code branches on the digits of u1 and u2, on the point at
// infinity and on the exceptional cases of the addition, and reads the tables at digit-chosen
// addresses. These functions are declared in src/ct/vartime.ts with that reason; nothing secret
// ever reaches them (the glue calls them with public data only, and no constant-time function
// calls them).
//   w = s⁻¹ (fn_inv_vt: the variable-time safegcd of fe_safegcd.ts), u1 = z·w, u2 = r·w mod n;
//   u1 in wNAF of width W_G = 8 against a table of the odd multiples G, 3G, …, 127G kept in
//   affine form (built once into an engine slot by ecdsa_gtable: Jacobian multiples, then
//   batch-normalised 16 at a time with one inversion each); u2 in wNAF of width W_Q = 5 against
//   Q, 3Q, …, 15Q, built per call (1 doubling and 7 full additions, add-2007-bl, 11M + 5S) and
//   normalised to affine form with one variable-time inversion mod p (fp_inv_vt; Montgomery's
//   trick, 21 + 32 products); one shared chain of bits(n) + 1 doublings; a non-zero digit of
//   either scalar costs a mixed addition (madd-2007-bl, 7M + 4S). Measured together with the
//   variable-time inversion of s (bench --base): brainpoolP512r1 verify 743 → 705 µs, P-256
//   94 → 88 µs; with Fermat's inversion the normalisation alone was a loss (brainpoolP512r1
//   763 → 804 µs);
//   doublings per curve shape: a = −3 dbl-2001-b rearranged (4M + 4S and 12 sums instead of
//   3M + 5S and 16: Z3 = 2·Y·Z, and 2γ shared by 4β, 8β and 8γ²; a sum costs about half a
//   product here), a = 0 dbl-2009-l (2M + 5S); the Brainpool curves (generic a) are mapped to
//   their isomorphic twist with a = −3 (RFC 5639's brainpoolPxxxt1: (x, y) ↦ (Z²x, Z³y) with
//   a·Z⁴ = −3, Z computed here): Q and the G table are mapped, r·Z² is compared, and the
//   doubling is the a = −3 one instead of dbl-2007-bl's 1M + 8S + 1 product by a (measured:
//   verification 15–30% faster on the three Brainpool curves);
//   the check x(R) ≡ r (mod n) without an inversion: X == r·Z² (mod p), or, when r + n < p
//   (the glue says so in `alt`), X == (r + n)·Z². R = O fails.
// The Jacobian additions are not complete: when H = U2 − U1 ≡ 0 the inputs have the same x, and
// the function doubles (R ≡ 0 too: same point) or returns the point at infinity (opposite
// points), which is a branch — allowed here, as above. The accumulator's infinity is a flag in
// a local. Formulas from the Explicit-Formulas Database (Bernstein–Lange, hyperelliptic.org/EFD,
// g1p/auto-shortw-jacobian*.html): dbl-2001-b, dbl-2009-l, dbl-2007-bl, madd-2007-bl,
// add-2007-bl; additions and subtractions that only feed products skip their reduction
// (planBounds below: the rules of planReductions in ec_rcb_window.ts, with the point
// coordinates allowed a bound B > 2; the generator picks the B that needs the fewest carry
// chains, counting a product as 5. H and R, tested for zero, may stay lazy too: below K·p, they
// are compared limb for limb with 0, p, …, (K − 1)·p (fp_is_zero_lt_K, K·L constants); before,
// the mixed addition took reduced copies of X1 and Y1 (two products by 1) for B > 2: measured
// (bench --base) brainpoolP512r1 verify 700 → 657 µs, P-521 418 → 392, brainpoolP384r1
// 297 → 282, P-384 194 → 187, P-224 64.4 → 62.2, the 9-limb curves unchanged. Chosen today:
// B = 2 at 9 limbs (P-256, secp256k1, brainpoolP256r1: R/p ≈ 32–48 leaves no room), 6 for
// P-224, 12 for P-384, P-521, brainpoolP384r1/P512r1; measured 3–8% faster verification there
// than B = 2.)
// Tried and dropped: the lazy reduction of ec_rcb_window.ts (a sum of two products, here
// Y3 = α·(4β − X3) − 2γ'² and Y3 = R·(V − X3) − 2·S1·J, reduced once) at 14–19 limbs, with the
// second product's columns normalised by a carry chain so they fit: verification 20–30%
// slower (brainpoolP512r1 667 → 820 µs, P-521 409 → 535 µs). There the products run on SIMD
// and the reduction on the scalar multiplier in parallel, so a product without its reduction
// costs ~70% of one with it, and the squaring became a general product.
//
// Cost (P-256): 257 doublings, ~72 mixed additions, 8 table additions, ~60 ns of digit
// handling, one variable-time inversion mod n and one mod p (about 1 µs each).
//
// Negative-control flag (tests only):
//   nonceInvModP  the signing nonce is "inverted" as k^(p−2) in the mod-n field (Fermat with
//                 the wrong modulus), so s is wrong.

import type { CurveParams } from '../ec/params.js';
import { parseFormula, type CurveShape, type Step } from './ec_formulas.js';
import { type FieldGen, powLines } from './fe_mont29.js';
import { at, bitLength, call, get, round16, set } from './wat.js';

export interface EcdsaFlags {
  nonceInvModP?: boolean;
}

/** The shape of a function for ec_rcb_window.ts's module assembly. */
export interface EcdsaFunc {
  name: string;
  params: [string, 'i32' | 'i64'][];
  result?: 'i32';
  locals?: string;
  body: string[];
  export?: boolean;
}

export interface EcdsaContext {
  c: CurveParams;
  fp: FieldGen;
  fn: FieldGen;
  shape: CurveShape;
  /** bytes of a projective point with its stride rounded to 16 */
  PTS: number;
  flags: EcdsaFlags;
  /** work-space accounting of ec_rcb_window.ts: own bytes, and callees */
  need(name: string, own: number, children?: string[]): number;
}

/** wNAF widths: G against a precomputed affine table, Q against a per-call Jacobian table. */
export const ECDSA_G_WINDOW = 8;
export const ECDSA_Q_WINDOW = 5;
/** Entries of the G table (odd multiples 1 … 2^(W−1) − 1). */
export const ECDSA_G_ENTRIES = 1 << (ECDSA_G_WINDOW - 2);
const Q_ENTRIES = 1 << (ECDSA_Q_WINDOW - 2);
/** Entries normalised per inversion when the G table is built. */
const GT_CHUNK = 16;

/** The functions declared variable-time (src/ct/vartime.ts lists them for every curve module). */
export const ECDSA_VARTIME = ['ecdsa_verify', 'ecdsa_jadd_vt', 'ecdsa_jmadd_vt', 'ecdsa_wnaf', 'fn_inv_vt_raw', 'fp_inv_vt_raw'] as const;

const i32 = (v: number) => `(i32.const ${v})`;

// Jacobian (X : Y : Z), x = X/Z², y = Y/Z³. Inputs X1 Y1 Z1 (and X2 Y2 [Z2]), outputs X3 Y3 Z3.
const DBL: Record<CurveShape, string> = {
  // dbl-2001-b (a = −3) with Z3 = 2·Y·Z and 2γ shared by β and γ²: 4M + 4S, 12 sums
  'a=-3': `delta = Z1*Z1; gamma = Y1*Y1; g2 = gamma+gamma; b2 = X1*g2; b4 = b2+b2; b8 = b4+b4;
    t0 = X1-delta; t1 = X1+delta; t0 = t0*t1; alpha = t0+t0; alpha = alpha+t0;
    X3 = alpha*alpha; X3 = X3-b8;
    Z3 = Y1*Z1; Z3 = Z3+Z3;
    Y3 = b4-X3; Y3 = alpha*Y3; t4 = g2*g2; t4 = t4+t4; Y3 = Y3-t4`,
  // dbl-2009-l (a = 0): 2M + 5S
  'a=0': `A = X1*X1; B = Y1*Y1; C = B*B;
    t0 = X1+B; t0 = t0*t0; t0 = t0-A; t0 = t0-C; D = t0+t0;
    E = A+A; E = E+A; F = E*E; t1 = D+D; X3 = F-t1;
    t2 = D-X3; Y3 = E*t2; t3 = C+C; t3 = t3+t3; t3 = t3+t3; Y3 = Y3-t3;
    Z3 = Y1*Z1; Z3 = Z3+Z3`,
  // dbl-2007-bl (any a): 1M + 8S + 1 product by a
  generic: `XX = X1*X1; YY = Y1*Y1; YYYY = YY*YY; ZZ = Z1*Z1;
    t0 = X1+YY; t0 = t0*t0; t0 = t0-XX; t0 = t0-YYYY; S = t0+t0;
    t1 = ZZ*ZZ; t1 = a*t1; M = XX+XX; M = M+XX; M = M+t1;
    X3 = M*M; t2 = S+S; X3 = X3-t2;
    t3 = S-X3; Y3 = M*t3; t4 = YYYY+YYYY; t4 = t4+t4; t4 = t4+t4; Y3 = Y3-t4;
    Z3 = Y1+Z1; Z3 = Z3*Z3; Z3 = Z3-YY; Z3 = Z3-ZZ`,
};
// madd-2007-bl (Z2 = 1): 7M + 4S; first part up to H and R (checked for the exceptional cases)
const MADD1 = `Z1Z1 = Z1*Z1; U2 = X2*Z1Z1; S2 = Y2*Z1; S2 = S2*Z1Z1; H = U2-X1; R = S2-Y1`;
const MADD2 = `HH = H*H; I = HH+HH; I = I+I; J = H*I; R = R+R; V = X1*I;
  X3 = R*R; X3 = X3-J; t0 = V+V; X3 = X3-t0;
  Y3 = V-X3; Y3 = R*Y3; t1 = Y1*J; t1 = t1+t1; Y3 = Y3-t1;
  Z3 = Z1+H; Z3 = Z3*Z3; Z3 = Z3-Z1Z1; Z3 = Z3-HH`;
// add-2007-bl: 11M + 5S
const ADD1 = `Z1Z1 = Z1*Z1; Z2Z2 = Z2*Z2; U1 = X1*Z2Z2; U2 = X2*Z1Z1; S1 = Y1*Z2; S1 = S1*Z2Z2;
  S2 = Y2*Z1; S2 = S2*Z1Z1; H = U2-U1; R = S2-S1`;
const ADD2 = `I = H+H; I = I*I; J = H*I; R = R+R; V = U1*I;
  X3 = R*R; X3 = X3-J; t0 = V+V; X3 = X3-t0;
  Y3 = V-X3; Y3 = R*Y3; t1 = S1*J; t1 = t1+t1; Y3 = Y3-t1;
  Z3 = Z1+Z2; Z3 = Z3*Z3; Z3 = Z3-Z1Z1; Z3 = Z3-Z2Z2; Z3 = Z3*H`;

/**
 * Which additions and subtractions may skip their reduction, for points whose coordinates may
 * carry a bound B (value < B·p) in and out — the generalisation of planReductions
 * (ec_rcb_window.ts), whose points are always reduced (B = 2). Rules (see fe_mont29.ts): a
 * product needs ka·kb ≤ R/p and gives 2; a fused x·y ± u·v needs kx·ky + ku·kv ≤ R/p (kv
 * taken as 2 and v reduced when negated) and gives 2; a lazy sum or difference gives ka + kb and must stay
 * within R/(2p); a reduced addition needs ka + kb ≤ 4, a reduced subtraction ka, kb ≤ 2, both
 * give 2; the outputs X3 Y3 Z3 must end ≤ B; names in `reduced` are reduced (they are tested
 * for zero). Start with every sum lazy; reduce the producer of an operand that breaks a rule.
 */
export function planBounds(steps: Step[], rOverP: number, B: number, reduced: Set<string>): { lazy: boolean; k: number; out: number }[] | undefined {
  const lazy = steps.map((s) => (s.op === 'add' || s.op === 'sub') && !reduced.has(s.d));
  for (;;) {
    const bound = new Map<string, number>();
    const def = new Map<string, number>();
    const kOf = steps.map(() => 0);
    const outOf = steps.map(() => 2);
    let fix = -1;
    const b = (v: string) => bound.get(v) ?? B;
    const blame = (...vs: string[]) => {
      const cands = vs.filter((v) => def.has(v) && lazy[def.get(v)!]).sort((x, y) => b(y) - b(x));
      return cands.length ? def.get(cands[0])! : -2;
    };
    for (let i = 0; i < steps.length && fix === -1; i++) {
      const s = steps[i];
      let out = 2;
      if (s.op === 'mul') {
        if (b(s.x) * b(s.y) > rOverP) fix = blame(s.x, s.y);
      } else if (s.op === 'mul2') {
        // x·y ± u·v with one reduction (the negated v is 2p − v: v must be reduced)
        if (s.neg && b(s.v) > 2) fix = blame(s.v);
        else if (b(s.x) * b(s.y) + b(s.u) * (s.neg ? 2 : b(s.v)) > rOverP) fix = blame(s.x, s.y, s.u, s.v);
      } else if (s.op === 'mulc') {
        if (b(s.x) * 2 > rOverP) fix = blame(s.x);
      } else if (lazy[i]) {
        out = b(s.x) + b(s.y);
        if (s.op === 'sub') kOf[i] = b(s.y);
        if (out * 2 > rOverP) fix = i;
      } else if (s.op === 'add') {
        if (b(s.x) + b(s.y) > 4) fix = blame(s.x, s.y);
      } else if (b(s.x) > 2) fix = blame(s.x);
      else if (b(s.y) > 2) fix = blame(s.y);
      bound.set(s.d, out);
      outOf[i] = out;
      def.set(s.d, i);
    }
    for (const v of ['X3', 'Y3', 'Z3']) if (fix === -1 && def.has(v) && b(v) > B) fix = blame(v);
    if (fix === -1) return steps.map((_, i) => ({ lazy: lazy[i], k: lazy[i] && steps[i].op === 'sub' ? kOf[i] : 0, out: outOf[i] }));
    if (fix === -2 || !lazy[fix]) return undefined; // no plan with this B
    lazy[fix] = false;
  }
}

/** Carry chains a plan costs: two for a reduced sum, one for a lazy one (products not counted). */
const chains = (steps: Step[], plan: { lazy: boolean }[]) =>
  steps.reduce((n, s, i) => n + (s.op === 'add' || s.op === 'sub' ? (plan[i].lazy ? 1 : 2) : 0), 0);

/**
 * Compiles straight-line steps into calls of the p-field kernels. X1 Y1 Z1 are read at $p, X2 Y2
 * Z2 at $q; X3 Y3 Z3 and every temporary live in the work space ($ws, outputs first). Returns
 * the lines, split after `split` steps, and the work space used.
 */
function compile(fp: FieldGen, steps: Step[], plan: { lazy: boolean; k: number }[], split = steps.length): { parts: [string[], string[]]; bytes: number; loc: (v: string) => string } {
  const FE = fp.FE;
  const slots = new Map<string, number>([['X3', 0], ['Y3', FE], ['Z3', 2 * FE]]);
  const loc = (v: string): string => {
    const m = /^([XYZ])([12])$/.exec(v);
    if (m) return at(m[2] === '1' ? 'p' : 'q', 'XYZ'.indexOf(m[1]) * FE);
    if (!slots.has(v)) slots.set(v, slots.size * FE);
    return at('ws', slots.get(v)!);
  };
  const lines = steps.map((s, i) => {
    const lazy = plan[i].lazy;
    switch (s.op) {
      case 'mul': return s.x === s.y ? call('fp_sqr', loc(s.d), loc(s.x)) : call('fp_mul', loc(s.d), loc(s.x), loc(s.y));
      case 'add': return call(lazy ? 'fp_add_lazy' : 'fp_add', loc(s.d), loc(s.x), loc(s.y));
      case 'sub': {
        const k = lazy ? plan[i].k : 0;
        if (k) fp.lazySubs.add(k);
        return call(k ? `fp_sub_lazy_${k}` : 'fp_sub', loc(s.d), loc(s.x), loc(s.y));
      }
      case 'mulc':
        fp.mulConsts.add(s.c);
        return call(`fp_mulc_${s.c}`, loc(s.d), loc(s.x));
      case 'mul2':
        throw new Error('fused products are not used in the Jacobian formulas');
    }
  });
  return { parts: [lines.slice(0, split), lines.slice(split)], bytes: slots.size * FE, loc };
}

/** x^e mod m */
function pow(x: bigint, e: bigint, m: bigint): bigint {
  let r = 1n;
  for (x %= m; e > 0n; e >>= 1n, x = (x * x) % m) if (e & 1n) r = (r * x) % m;
  return r;
}

/**
 * Z with a·Z⁴ ≡ −3 (mod p), when one exists and p ≡ 3 (mod 4): then (x, y) ↦ (Z²·x, Z³·y) maps
 * the curve onto y² = x³ − 3x + b·Z⁶ (RFC 5639 section 3 calls these the twisted curves
 * brainpoolPxxxt1). Undefined otherwise.
 */
export function twistToAm3(p: bigint, a: bigint): bigint | undefined {
  if (p % 4n !== 3n) return undefined;
  const u = (((-3n * pow(((a % p) + p) % p, p - 2n, p)) % p) + p) % p;
  const sqrt = (v: bigint) => pow(v, (p + 1n) / 4n, p);
  let s = sqrt(u);
  if ((s * s) % p !== u) return undefined;
  if (pow(s, (p - 1n) / 2n, p) !== 1n) s = p - s; // the square one of ±s
  const z = sqrt(s);
  return pow(z, 4n, p) === u ? z : undefined;
}

export function ecdsaFunctions(ctx: EcdsaContext): EcdsaFunc[] {
  const { c, fp, fn, PTS, flags, need } = ctx;
  // Verification runs on an isomorphic curve with a = −3 when the curve's a is generic and
  // allows it (the Brainpool curves): doublings cost 3M + 5S instead of 1M + 8S + 1 product.
  const twist = ctx.shape === 'generic' ? twistToAm3(c.p, c.a) : undefined;
  const shape: CurveShape = twist === undefined ? ctx.shape : 'a=-3';
  if (twist !== undefined) {
    const z2 = (twist * twist) % c.p, z3 = (z2 * twist) % c.p;
    fp.addConst({ name: 'tz2', value: z2 }, true);
    fp.addConst({ name: 'tz3', value: z3 }, true);
    fp.addConst({ name: 'tgx', value: (c.gx * z2) % c.p });
    fp.addConst({ name: 'tgy', value: (c.gy * z3) % c.p });
  }
  const FE = fp.FE, PT = 3 * FE, Lb = fp.bytes, Ls = fn.bytes;
  if (Lb !== Ls) throw new Error(`${c.name}: ECDSA here assumes field and scalar encodings of the same length`);
  if (!(c.n < c.p)) throw new Error(`${c.name}: ECDSA here assumes n < p`);
  const out: EcdsaFunc[] = [];
  const copyOut = `(memory.copy ${get('r')} ${get('ws')} ${i32(PT)})`;

  // ---- Jacobian group law (variable time where it branches) ----------------------------------
  // The accumulator's coordinates carry a bound B (value < B·p) chosen here per curve: the one
  // whose plans need the fewest carry chains over a verification (weighted by how often each
  // formula runs). Larger moduli have room (R/p up to 2^30) for lazier sums.
  const dblSteps = parseFormula(DBL[shape]);
  const add1 = parseFormula(ADD1), add2 = parseFormula(ADD2);
  const addSteps = [...add1, ...add2];
  const maddOf = (B: number) => {
    const m1 = parseFormula(MADD1);
    return { split: m1.length, steps: [...m1, ...parseFormula(MADD2)] };
  };
  const rOverP = Number(fp.R / fp.m);
  // H and R, tested for zero, may stay lazy: is_zero_lt_K compares them with 0, p, …, (K−1)·p
  const zeroTest = new Set<string>();
  // cost per 18 doublings, 3 additions and 2 mixed additions (a verification's mix), in carry
  // chains; a product costs about 5 (measured: ~100 ns vs ~18 ns at 18 limbs, 24 vs 5.5 at 9)
  let best: { B: number; cost: number; plans: { lazy: boolean; k: number; out: number }[][] } | undefined;
  for (const B of [2, 3, 4, 6, 8, 12, 16, 24, 32]) {
    const madd = maddOf(B);
    const plans = [planBounds(dblSteps, rOverP, B, new Set()), planBounds(addSteps, rOverP, B, zeroTest), planBounds(madd.steps, rOverP, B, zeroTest)];
    if (plans.some((x) => x === undefined)) continue;
    const [pd, pa, pm] = plans as { lazy: boolean; k: number; out: number }[][];
    const cost = 18 * chains(dblSteps, pd) + 3 * chains(addSteps, pa) + 2 * chains(madd.steps, pm);
    if (!best || cost < best.cost) best = { B, cost, plans: [pd, pa, pm] };
  }
  if (!best) throw new Error(`${c.name}: no reduction plan for the Jacobian formulas`);
  const B = best.B;
  fp.lazySubs.add(B);
  {
    const d = compile(fp, dblSteps, best.plans[0]);
    out.push({ name: 'ecdsa_jdbl', params: [['r', 'i32'], ['p', 'i32'], ['ws', 'i32']], body: [`;; coordinates below ${B}p in and out`, ...d.parts[0], copyOut] });
    need('ecdsa_jdbl', d.bytes);
  }
  const addFn = (name: string, steps: Step[], split: number, plan: { lazy: boolean; k: number; out: number }[]) => {
    const a = compile(fp, steps, plan, split);
    const kid = round16(a.bytes);
    // the bound of the value tested: the planner's output bound of the step that last wrote it
    // in the first part (H and R are written once, there)
    const isZero = (v: string) => {
      const i = steps.slice(0, split).map((s) => s.d).lastIndexOf(v);
      if (i < 0) throw new Error(`${name}: ${v} is not written before the zero test`);
      const K = plan[i].out;
      fp.zeroTests.add(K);
      return call(`fp_is_zero_lt_${K}`, a.loc(v));
    };
    out.push({
      name, params: [['p', 'i32'], ['q', 'i32'], ['ws', 'i32']], result: 'i32',
      body: [
        `;; coordinates below ${B}p in and out`,
        ...a.parts[0],
        `(if ${isZero('H')} (then`,
        `  (if ${isZero('R')} (then ${call('ecdsa_jdbl', get('p'), get('p'), at('ws', kid))} (return ${i32(0)})))`,
        `  (return ${i32(1)})))`,
        ...a.parts[1],
        `(memory.copy ${get('p')} ${get('ws')} ${i32(PT)})`,
        i32(0),
      ],
    });
    need(name, kid, ['ecdsa_jdbl']);
  };
  // ecdsa_jadd_vt(p, q, ws): p ← p + q (both Jacobian, neither the identity) → 1 if the sum is O
  addFn('ecdsa_jadd_vt', addSteps, add1.length, best.plans[1]);
  // ecdsa_jmadd_vt(p, q, ws): p ← p + q (q affine: X, Y) → 1 if the sum is O
  const madd = maddOf(B);
  addFn('ecdsa_jmadd_vt', madd.steps, madd.split, best.plans[2]);

  // ---- wNAF recoding (variable time) ---------------------------------------------------------
  // ecdsa_wnaf(dst, k, w): the big-endian scalar at k (Ls bytes, below n) → bits(n) + 1 signed
  // digits (i8, least significant first): each non-zero digit odd with |d| < 2^(w−1), followed
  // by at least w − 1 zeros.
  const nbits = bitLength(c.n);
  const N = nbits + 1;
  const bit = (j: string) =>
    `(if (result i32) (i32.lt_u ${j} ${i32(8 * Ls)}) (then (i32.and (i32.shr_u (i32.load8_u (i32.sub ${at('k', Ls - 1)} (i32.shr_u ${j} ${i32(3)}))) (i32.and ${j} ${i32(7)})) ${i32(1)})) (else ${i32(0)}))`;
  out.push({
    name: 'ecdsa_wnaf', params: [['dst', 'i32'], ['k', 'i32'], ['w', 'i32']],
    locals: '(local $i i32) (local $carry i32) (local $word i32) (local $t i32)',
    body: [
      `(memory.fill ${get('dst')} ${i32(0)} ${i32(N)})`,
      `(block $done (loop $next`,
      `  (br_if $done (i32.ge_u ${get('i')} ${i32(N)}))`,
      `  (if (i32.eq ${bit(get('i'))} ${get('carry')}) (then ${set('i', `(i32.add ${get('i')} ${i32(1)})`)} (br $next)))`,
      `  ${set('word', get('carry'))}`,
      `  ${set('t', i32(0))}`,
      `  (loop $bits`,
      `    ${set('word', `(i32.add ${get('word')} (i32.shl ${bit(`(i32.add ${get('i')} ${get('t')})`)} ${get('t')}))`)}`,
      `    ${set('t', `(i32.add ${get('t')} ${i32(1)})`)}`,
      `    (br_if $bits (i32.lt_u ${get('t')} ${get('w')})))`,
      `  ${set('carry', `(i32.gt_u ${get('word')} (i32.shl ${i32(1)} (i32.sub ${get('w')} ${i32(1)})))`)}`,
      `  (i32.store8 (i32.add ${get('dst')} ${get('i')}) (i32.sub ${get('word')} (i32.shl ${get('carry')} ${get('w')})))`,
      `  ${set('i', `(i32.add ${get('i')} ${get('w')})`)}`,
      `  (br $next)))`,
    ],
  });
  need('ecdsa_wnaf', 0);

  // ---- the G table: ecdsa_gtable(tab, ws) ----------------------------------------------------
  // (2j+1)·G for j < ECDSA_G_ENTRIES, affine (X, Y in Montgomery form, 2·FE bytes each). Built in
  // Jacobian form at a stride of PT, normalised in chunks of GT_CHUNK (prefix products, one
  // inversion), then packed down to a stride of 2·FE. Public data only; every address is the
  // table pointer plus a public counter.
  {
    const E = ECDSA_G_ENTRIES;
    const D2 = 0, PRE = D2 + PTS, INV = PRE + GT_CHUNK * FE, ZI = INV + FE, Z2 = ZI + FE, KID = Z2 + FE;
    const ent = (t: number) => `(i32.add ${get('e')} ${i32(t * PT)})`; // entry t of the chunk at $e
    const pre = (t: number) => at('ws', PRE + t * FE);
    const body: string[] = [
      call(twist ? 'fp_set_tgx' : 'fp_set_gx', get('tab')), call(twist ? 'fp_set_tgy' : 'fp_set_gy', at('tab', FE)), call('fp_set_one', at('tab', 2 * FE)),
      call('ecdsa_jdbl', at('ws', D2), get('tab'), at('ws', KID)),
      set('e', get('tab')),
      set('j', i32(E - 1)),
      '(loop $mult',
      `  (memory.copy (i32.add ${get('e')} ${i32(PT)}) ${get('e')} ${i32(PT)})`,
      `  (drop ${call('ecdsa_jadd_vt', `(i32.add ${get('e')} ${i32(PT)})`, at('ws', D2), at('ws', KID))})`,
      `  ${set('e', `(i32.add ${get('e')} ${i32(PT)})`)}`,
      `  ${set('j', `(i32.sub ${get('j')} ${i32(1)})`)}`,
      `  (br_if $mult ${get('j')}))`,
      set('e', get('tab')),
      set('j', i32(E / GT_CHUNK)),
      '(loop $chunk',
      `  (memory.copy ${pre(0)} (i32.add ${get('e')} ${i32(2 * FE)}) ${i32(FE)})`,
    ];
    for (let t = 1; t < GT_CHUNK; t++) body.push('  ' + call('fp_mul', pre(t), pre(t - 1), `(i32.add ${ent(t)} ${i32(2 * FE)})`));
    body.push('  ' + call('fp_inv', at('ws', INV), pre(GT_CHUNK - 1), at('ws', KID)));
    for (let t = GT_CHUNK - 1; t >= 0; t--) {
      if (t > 0) {
        body.push('  ' + call('fp_mul', at('ws', ZI), at('ws', INV), pre(t - 1)));
        body.push('  ' + call('fp_mul', at('ws', INV), at('ws', INV), `(i32.add ${ent(t)} ${i32(2 * FE)})`));
      } else {
        body.push(`  (memory.copy ${at('ws', ZI)} ${at('ws', INV)} ${i32(FE)})`);
      }
      body.push(
        '  ' + call('fp_sqr', at('ws', Z2), at('ws', ZI)),
        '  ' + call('fp_mul', ent(t), ent(t), at('ws', Z2)),
        '  ' + call('fp_mul', at('ws', Z2), at('ws', Z2), at('ws', ZI)),
        '  ' + call('fp_mul', `(i32.add ${ent(t)} ${i32(FE)})`, `(i32.add ${ent(t)} ${i32(FE)})`, at('ws', Z2)),
      );
    }
    body.push(
      `  ${set('e', `(i32.add ${get('e')} ${i32(GT_CHUNK * PT)})`)}`,
      `  ${set('j', `(i32.sub ${get('j')} ${i32(1)})`)}`,
      `  (br_if $chunk ${get('j')}))`,
      // pack: entry j from j·PT down to j·2FE (increasing j never overwrites an unread entry)
      set('j', i32(1)),
      '(loop $pack',
      `  (memory.copy (i32.add ${get('tab')} (i32.mul ${get('j')} ${i32(2 * FE)})) (i32.add ${get('tab')} (i32.mul ${get('j')} ${i32(PT)})) ${i32(2 * FE)})`,
      `  ${set('j', `(i32.add ${get('j')} ${i32(1)})`)}`,
      `  (br_if $pack (i32.lt_u ${get('j')} ${i32(E)})))`,
    );
    out.push({ name: 'ecdsa_gtable', params: [['tab', 'i32'], ['ws', 'i32']], locals: '(local $e i32) (local $j i32)', body, export: true });
    need('ecdsa_gtable', KID, ['ecdsa_jdbl', 'ecdsa_jadd_vt', 'fp_inv']);
  }

  // ---- signing: ecdsa_sign(out, k, d, z, tab, ws) ---------------------------------------------
  {
    const R = 0, XB = R + PTS, KM = XB + round16(Lb), KI = KM + FE, RM = KI + FE, DM = RM + FE, ZM = DM + FE, T = ZM + FE, KID = T + FE;
    let inv = call('fn_inv', at('ws', KI), at('ws', KM), at('ws', KID));
    if (flags.nonceInvModP) {
      out.push({
        name: 'ecdsa_inv_wrong', params: [['r', 'i32'], ['a', 'i32'], ['ws', 'i32']], locals: '(local $i i32)',
        body: powLines(fn, c.p - 2n, 'r', 'a', 'ws'),
      });
      need('ecdsa_inv_wrong', fn.powWorkspace);
      inv = call('ecdsa_inv_wrong', at('ws', KI), at('ws', KM), at('ws', KID));
    }
    out.push({
      name: 'ecdsa_sign', params: [['out', 'i32'], ['k', 'i32'], ['d', 'i32'], ['z', 'i32'], ['tab', 'i32'], ['ws', 'i32']], result: 'i32', export: true,
      body: [
        call('ec_mul_base', at('ws', R), get('k'), get('tab'), at('ws', KID)),
        `(drop ${call('to_affine', at('ws', XB), at('ws', XB), at('ws', R), at('ws', KID), i32(0))})`,
        call('fn_from_bytes', at('ws', RM), at('ws', XB)), // r = x mod n
        call('fn_from_bytes', at('ws', KM), get('k')),
        inv, // k⁻¹
        call('fn_from_bytes', at('ws', DM), get('d')),
        call('fn_from_bytes', at('ws', ZM), get('z')),
        call('fn_mul', at('ws', T), at('ws', RM), at('ws', DM)),
        call('fn_add', at('ws', T), at('ws', T), at('ws', ZM)),
        call('fn_mul', at('ws', T), at('ws', KI), at('ws', T)), // s = k⁻¹·(z + r·d)
        call('fn_to_bytes', get('out'), at('ws', RM)),
        call('fn_to_bytes', at('out', Ls), at('ws', T)),
        `(i32.and (i32.eqz ${call('fn_is_zero', at('ws', RM))}) (i32.eqz ${call('fn_is_zero', at('ws', T))}))`,
      ],
    });
    need('ecdsa_sign', KID, ['ec_mul_base', 'to_affine', flags.nonceInvModP ? 'ecdsa_inv_wrong' : 'fn_inv']);
  }

  // ---- verification: ecdsa_verify(rs, z, xy, gtab, ws, alt) (variable time) -------------------
  {
    const INV_VT = 'fp_inv_vt';
    fp.varTimeInv = fn.varTimeInv = true;
    need('fp_inv_vt', fp.invWorkspace);
    need('fn_inv_vt', fn.invWorkspace);
    fp.addConst({ name: 'ordn', value: c.n });
    const RM = 0, SM = RM + FE, ZM = SM + FE, W = ZM + FE, U = W + FE, UB1 = U + FE, UB2 = UB1 + round16(Ls),
      D1 = UB2 + round16(Ls), D2 = D1 + round16(N), QT = D2 + round16(N), ACC = QT + Q_ENTRIES * PTS,
      TMP = ACC + PTS, ZZ = TMP + PTS, RP = ZZ + FE, T = RP + FE, ZERO = T + FE, XR = ZERO + FE,
      QA = XR + FE, PRE = QA + Q_ENTRIES * 2 * FE, INV = PRE + Q_ENTRIES * FE, ZI = INV + FE, Z2 = ZI + FE, KID = Z2 + FE;
    const qj = (t: number, off = 0) => at('ws', QT + t * PTS + off);
    const pre = (t: number) => at('ws', PRE + t * FE);
    const body: string[] = [
      `(memory.fill ${at('ws', ZERO)} ${i32(0)} ${i32(FE)})`,
      call('fn_from_bytes', at('ws', RM), get('rs')),
      call('fn_from_bytes', at('ws', SM), at('rs', Ls)),
      call('fn_from_bytes', at('ws', ZM), get('z')),
      call('fn_inv_vt', at('ws', W), at('ws', SM), at('ws', KID)), // w = s⁻¹ (public: variable time)
      call('fn_mul', at('ws', U), at('ws', ZM), at('ws', W)), // u1 = z·w
      call('fn_to_bytes', at('ws', UB1), at('ws', U)),
      call('fn_mul', at('ws', U), at('ws', RM), at('ws', W)), // u2 = r·w
      call('fn_to_bytes', at('ws', UB2), at('ws', U)),
      call('ecdsa_wnaf', at('ws', D1), at('ws', UB1), i32(ECDSA_G_WINDOW)),
      call('ecdsa_wnaf', at('ws', D2), at('ws', UB2), i32(ECDSA_Q_WINDOW)),
      // Q, 3Q, …, 15Q (2Q in ACC meanwhile)
      call('point_from_bytes', at('ws', QT), get('xy')),
      ...(twist ? [call('fp_mulc_tz2', at('ws', QT), at('ws', QT)), call('fp_mulc_tz3', at('ws', QT + FE), at('ws', QT + FE))] : []),
      call('ecdsa_jdbl', at('ws', ACC), at('ws', QT), at('ws', KID)),
    ];
    for (let j = 1; j < Q_ENTRIES; j++) {
      body.push(
        `(memory.copy ${at('ws', QT + j * PTS)} ${at('ws', QT + (j - 1) * PTS)} ${i32(PT)})`,
        `(drop ${call('ecdsa_jadd_vt', at('ws', QT + j * PTS), at('ws', ACC), at('ws', KID))})`,
      );
    }
    // the Q table to affine form (QA, stride 2·FE): prefix products of the Z, one inversion,
    // then each Z⁻¹ from the running inverse (Montgomery's trick): 3(E − 1) + 4E products
    body.push(`(memory.copy ${pre(0)} ${qj(0, 2 * FE)} ${i32(FE)})`);
    for (let t = 1; t < Q_ENTRIES; t++) body.push(call('fp_mul', pre(t), pre(t - 1), qj(t, 2 * FE)));
    body.push(call(INV_VT, at('ws', INV), pre(Q_ENTRIES - 1), at('ws', KID)));
    for (let t = Q_ENTRIES - 1; t >= 0; t--) {
      if (t > 0) body.push(call('fp_mul', at('ws', ZI), at('ws', INV), pre(t - 1)), call('fp_mul', at('ws', INV), at('ws', INV), qj(t, 2 * FE)));
      else body.push(`(memory.copy ${at('ws', ZI)} ${at('ws', INV)} ${i32(FE)})`);
      body.push(
        call('fp_sqr', at('ws', Z2), at('ws', ZI)),
        call('fp_mul', at('ws', QA + t * 2 * FE), qj(t), at('ws', Z2)),
        call('fp_mul', at('ws', Z2), at('ws', Z2), at('ws', ZI)),
        call('fp_mul', at('ws', QA + t * 2 * FE + FE), qj(t, FE), at('ws', Z2)),
      );
    }
    const digit = (D: number, tab: string, stride: number, bytes: number, madd: boolean) => [
      `  ${set('d', `(i32.load8_s (i32.add ${at('ws', D)} ${get('i')}))`)}`,
      `  (if ${get('d')} (then`,
      `    ${set('e', `(i32.mul (i32.shr_u (select (i32.sub ${i32(0)} ${get('d')}) ${get('d')} (i32.lt_s ${get('d')} ${i32(0)})) ${i32(1)}) ${i32(stride)})`)}`,
      `    (memory.copy ${at('ws', TMP)} (i32.add ${tab} ${get('e')}) ${i32(bytes)})`,
      `    (if (i32.lt_s ${get('d')} ${i32(0)}) (then ${call(`fp_sub_lazy_${B}`, at('ws', TMP + FE), at('ws', ZERO), at('ws', TMP + FE))}))`,
      `    (if ${get('inf')}`,
      `      (then (memory.copy ${at('ws', ACC)} ${at('ws', TMP)} ${i32(bytes)})${madd ? ' ' + call('fp_set_one', at('ws', ACC + 2 * FE)) : ''} ${set('inf', i32(0))})`,
      `      (else ${set('inf', call(madd ? 'ecdsa_jmadd_vt' : 'ecdsa_jadd_vt', at('ws', ACC), at('ws', TMP), at('ws', KID)))}))))`,
    ];
    body.push(
      set('inf', i32(1)),
      set('i', i32(N - 1)),
      '(loop $bit',
      `  (if (i32.eqz ${get('inf')}) (then ${call('ecdsa_jdbl', at('ws', ACC), at('ws', ACC), at('ws', KID))}))`,
      ...digit(D1, get('gtab'), 2 * FE, 2 * FE, true),
      ...digit(D2, at('ws', QA), 2 * FE, 2 * FE, true),
      `  ${set('i', `(i32.sub ${get('i')} ${i32(1)})`)}`,
      `  (br_if $bit (i32.ge_s ${get('i')} ${i32(0)})))`,
      `(if ${get('inf')} (then (return ${i32(0)})))`,
      // x(R) ≡ r (mod n): X == r·Z², or X == (r + n)·Z² when r + n < p
      // X and Z may be up to B·p: X is reduced by a product with 1 (Z by its square)
      call('fp_set_one', at('ws', XR)),
      call('fp_mul', at('ws', XR), at('ws', ACC), at('ws', XR)),
      call('fp_sqr', at('ws', ZZ), at('ws', ACC + 2 * FE)),
      call('fp_from_bytes', at('ws', RP), get('rs')),
      ...(twist ? [call('fp_mulc_tz2', at('ws', T), at('ws', RP))] : [`(memory.copy ${at('ws', T)} ${at('ws', RP)} ${i32(FE)})`]),
      call('fp_mul', at('ws', T), at('ws', T), at('ws', ZZ)),
      `(if ${call('fp_eq', at('ws', XR), at('ws', T))} (then (return ${i32(1)})))`,
      `(if (i32.eqz ${get('alt')}) (then (return ${i32(0)})))`,
      call('fp_set_ordn', at('ws', T)),
      call('fp_add', at('ws', RP), at('ws', RP), at('ws', T)),
      ...(twist ? [call('fp_mulc_tz2', at('ws', RP), at('ws', RP))] : []),
      call('fp_mul', at('ws', T), at('ws', RP), at('ws', ZZ)),
      call('fp_eq', at('ws', XR), at('ws', T)),
    );
    out.push({
      name: 'ecdsa_verify', params: [['rs', 'i32'], ['z', 'i32'], ['xy', 'i32'], ['gtab', 'i32'], ['ws', 'i32'], ['alt', 'i32']], result: 'i32', export: true,
      locals: '(local $i i32) (local $d i32) (local $e i32) (local $inf i32)',
      body,
    });
    need('ecdsa_verify', KID, ['fn_inv_vt', INV_VT, 'ecdsa_jdbl', 'ecdsa_jadd_vt', 'ecdsa_jmadd_vt', 'ecdsa_wnaf']);
  }
  return out;
}

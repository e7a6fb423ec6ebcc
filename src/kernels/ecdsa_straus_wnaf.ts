// ECDSA (FIPS 186-5 §6.4, SEC 1 §4.1) inside each curve's module: signing in constant time,
// verification by a variable-time Straus–Shamir double-scalar multiplication with width-w NAF
// digits on Jacobian coordinates.
//
// Signing: R = k·G by the constant-time comb (ec_mul_base), x(R) by to_affine, r = x mod n, k⁻¹
// by the constant-time safegcd mod n, s = k⁻¹·(z + r·d). Constant time: straight-line field code
// and the comb, the same calls for every k and d, addresses the glue's pointers plus constants;
// the only data-dependent outputs are r, s and the r = 0 / s = 0 flag (a rejection).
//
// Verification, VARIABLE TIME, on public data only (signature, digest, public key; declared in
// src/ct/vartime.ts): w = s⁻¹ (variable-time safegcd), u1 = z·w, u2 = r·w; u1 in wNAF of width
// 8 against an affine table of G, 3G, …, 127G (ecdsa_gtable, built once), u2 in wNAF of width 5
// against Q, 3Q, …, 15Q (built per call, normalised with one inversion); one shared chain of
// doublings; x(R) ≡ r checked as X == r·Z² (or (r + n)·Z² when r + n < p), without an inversion.
// The Jacobian formulas (EFD: dbl-2001-b, dbl-2009-l, dbl-2007-bl, madd-2007-bl, add-2007-bl)
// are not complete: the exceptional cases branch, as allowed here. Brainpool curves verify on
// their a = −3 twist. Sums that only feed products stay lazy, the coordinates' bound B chosen per
// curve for the fewest carry chains (planBounds, ec_formulas.ts).
//
// Cost (P-256): 257 doublings, ~72 mixed additions, 8 table additions and two variable-time
// inversions (~1 µs each); measurements: docs/kernels/ec.md.
// Negative-control flag (tests only): nonceInvModP (k "inverted" as k^(p−2) mod n).

import { type Expr, Func, type Local, type Stmt, block, br, br_if, call, callv, comment, drop, i32, if_, ifv, label, loop, memory, ret, select } from './builder/index.js';
import { type EcContext, at, round16 } from './ec_context.js';
import { parseFormula, planBounds, type CurveShape, type Step } from './ec_formulas.js';
import type { FieldGen } from './fe_mont29.js';
import { bitLength } from './fe_limbs.js';
import { powLines, powWorkspace } from './fe_pow.js';

/** wNAF widths: G against a precomputed affine table, Q against a per-call Jacobian table. */
const ECDSA_G_WINDOW = 8;
const ECDSA_Q_WINDOW = 5;
/** Entries of the G table (odd multiples 1 … 2^(W−1) − 1). */
const ECDSA_G_ENTRIES = 1 << (ECDSA_G_WINDOW - 2);
const Q_ENTRIES = 1 << (ECDSA_Q_WINDOW - 2);
/** Entries normalised per inversion when the G table is built. */
const GT_CHUNK = 16;

/** The functions declared variable-time (src/ct/vartime.ts lists them for every curve module). */
export const ECDSA_VARTIME = ['ecdsa_verify', 'ecdsa_jadd_vt', 'ecdsa_jmadd_vt', 'ecdsa_wnaf', 'fn_inv_vt_raw', 'fp_inv_vt_raw'] as const;

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
/** Carry chains a plan costs: two for a reduced sum, one for a lazy one (products not counted). */
const chains = (steps: Step[], plan: { lazy: boolean }[]) => steps.reduce((n, s, i) => n + (s.op === 'add' || s.op === 'sub' ? (plan[i].lazy ? 1 : 2) : 0), 0);

/**
 * Compiles straight-line steps into calls of the p-field kernels in f. X1 Y1 Z1 are read at p,
 * X2 Y2 Z2 at q; X3 Y3 Z3 and every temporary live in the work space (ws, outputs first).
 * Returns the statements, split after `split` steps, and the work space used.
 */
function compile(fp: FieldGen, f: Func, steps: Step[], plan: { lazy: boolean; k: number }[], split = steps.length): { parts: [Stmt[], Stmt[]]; bytes: number; loc: (v: string) => Expr<'i32'> } {
  const FE = fp.FE;
  const ws = f.i32('ws');
  const slots = new Map<string, number>([
    ['X3', 0],
    ['Y3', FE],
    ['Z3', 2 * FE],
  ]);
  const loc = (v: string): Expr<'i32'> => {
    const m = /^([XYZ])([12])$/.exec(v);
    if (m) return at(f.i32(m[2] === '1' ? 'p' : 'q'), 'XYZ'.indexOf(m[1]) * FE);
    if (!slots.has(v)) slots.set(v, slots.size * FE);
    return at(ws, slots.get(v)!);
  };
  const lines = steps.map((s, i): Stmt => {
    const lazy = plan[i].lazy;
    switch (s.op) {
      case 'mul':
        return s.x === s.y ? call(fp.sqr, loc(s.d), loc(s.x)) : call(fp.mul, loc(s.d), loc(s.x), loc(s.y));
      case 'add':
        return call(lazy ? fp.addLazy : fp.add, loc(s.d), loc(s.x), loc(s.y));
      case 'sub': {
        const k = lazy ? plan[i].k : 0;
        return call(k ? fp.subLazy(k) : fp.sub, loc(s.d), loc(s.x), loc(s.y));
      }
      case 'mulc':
        return call(fp.mulc(s.c), loc(s.d), loc(s.x));
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

/** What ECDSA uses of the rest of the module. */
export interface EcdsaDeps {
  ecMulBase: Func;
  toAffine: Func;
  pointFromBytes: Func;
}

/** What the ECDSA generators share: the context, the Jacobian formulas' curve shape, sizes. */
interface Env {
  c: EcContext['c'];
  fp: FieldGen;
  fn: FieldGen;
  PTS: number;
  flags: EcContext['flags'];
  need: (f: Func, own: number, children?: Func[]) => number;
  /** Z of the a = −3 twist verification runs on (the Brainpool curves), else undefined */
  twist: bigint | undefined;
  shape: CurveShape;
  FE: number;
  PT: number;
  Lb: number;
  Ls: number;
  /** wNAF digits: bits(n) + 1 */
  N: number;
}

/** The Jacobian group law (variable time where it branches) and the coordinates' bound B. */
function jacobianFunctions(env: Env): { jdbl: Func; jadd: Func; jmadd: Func; B: number; out: Func[] } {
  const { c, fp, need, shape, PT } = env;
  const out: Func[] = [];
  // ---- Jacobian group law (variable time where it branches) ----------------------------------
  // The accumulator's coordinates carry a bound B (value < B·p) chosen here per curve: the one
  // whose plans need the fewest carry chains over a verification (weighted by how often each
  // formula runs). Larger moduli have room (R/p up to 2^30) for lazier sums.
  const dblSteps = parseFormula(DBL[shape]);
  const add1 = parseFormula(ADD1),
    add2 = parseFormula(ADD2);
  const addSteps = [...add1, ...add2];
  const madd1 = parseFormula(MADD1);
  const madd = { split: madd1.length, steps: [...madd1, ...parseFormula(MADD2)] };
  const rOverP = Number(fp.R / fp.m);
  // H and R, tested for zero, may stay lazy: is_zero_lt_K compares them with 0, p, …, (K−1)·p
  const zeroTest = new Set<string>();
  // cost per 18 doublings, 3 additions and 2 mixed additions (a verification's mix), in carry
  // chains; a product costs about 5 (measured: ~100 ns vs ~18 ns at 18 limbs, 24 vs 5.5 at 9)
  let best: { B: number; cost: number; plans: { lazy: boolean; k: number; out: number }[][] } | undefined;
  for (const B of [2, 3, 4, 6, 8, 12, 16, 24, 32]) {
    const plans = [planBounds(dblSteps, rOverP, B, new Set()), planBounds(addSteps, rOverP, B, zeroTest), planBounds(madd.steps, rOverP, B, zeroTest)];
    if (plans.some((x) => x === undefined)) continue;
    const [pd, pa, pm] = plans as { lazy: boolean; k: number; out: number }[][];
    const cost = 18 * chains(dblSteps, pd) + 3 * chains(addSteps, pa) + 2 * chains(madd.steps, pm);
    if (!best || cost < best.cost) best = { B, cost, plans: [pd, pa, pm] };
  }
  if (!best) throw new Error(`${c.name}: no reduction plan for the Jacobian formulas`);
  const B = best.B;
  fp.subLazy(B);
  const jdbl = new Func('ecdsa_jdbl', { r: 'i32', p: 'i32', ws: 'i32' });
  {
    const d = compile(fp, jdbl, dblSteps, best.plans[0]);
    jdbl.emit(comment(`coordinates below ${B}p in and out`), d.parts[0], memory.copy(jdbl.p.r, jdbl.p.ws, PT));
    out.push(jdbl);
    need(jdbl, d.bytes);
  }
  const addFn = (name: string, steps: Step[], split: number, plan: { lazy: boolean; k: number; out: number }[]) => {
    const f = new Func(name, { p: 'i32', q: 'i32', ws: 'i32' }, { results: ['i32'] });
    const { p, ws } = f.p;
    const a = compile(fp, f, steps, plan, split);
    const kid = round16(a.bytes);
    // the bound of the value tested: the planner's output bound of the step that last wrote it
    // in the first part (H and R are written once, there)
    const isZero = (v: string) => {
      const i = steps
        .slice(0, split)
        .map((s) => s.d)
        .lastIndexOf(v);
      if (i < 0) throw new Error(`${name}: ${v} is not written before the zero test`);
      return callv('i32', fp.isZeroLt(plan[i].out), a.loc(v));
    };
    f.emit(comment(`coordinates below ${B}p in and out`), a.parts[0], if_(isZero('H'), [if_(isZero('R'), [call(jdbl, p, p, at(ws, kid)), ret(i32.const(0))]), ret(i32.const(1))]), a.parts[1], memory.copy(p, ws, PT), i32.const(0));
    out.push(f);
    need(f, kid, [jdbl]);
    return f;
  };
  // ecdsa_jadd_vt(p, q, ws): p ← p + q (both Jacobian, neither the identity) → 1 if the sum is O
  const jadd = addFn('ecdsa_jadd_vt', addSteps, add1.length, best.plans[1]);
  // ecdsa_jmadd_vt(p, q, ws): p ← p + q (q affine: X, Y) → 1 if the sum is O
  const jmadd = addFn('ecdsa_jmadd_vt', madd.steps, madd.split, best.plans[2]);

  return { jdbl, jadd, jmadd, B, out };
}

/** ecdsa_wnaf: the scalar in width-w NAF (variable time). */
function wnafFunction(env: Env): Func {
  const { need, Ls, N } = env;
  const out: Func[] = [];
  // ---- wNAF recoding (variable time) ---------------------------------------------------------
  // ecdsa_wnaf(dst, k, w): the big-endian scalar at k (Ls bytes, below n) → bits(n) + 1 signed
  // digits (i8, least significant first): each non-zero digit odd with |d| < 2^(w−1), followed
  // by at least w − 1 zeros.
  const wnaf = new Func('ecdsa_wnaf', { dst: 'i32', k: 'i32', w: 'i32' });
  {
    const { dst, k, w } = wnaf.p;
    const [i, carry, word, t] = wnaf.locals('i32', ['i', 'carry', 'word', 't']);
    const bit = (j: Expr<'i32'> | Local<'i32'>) => ifv('i32', i32.lt_u(j, 8 * Ls), [i32.and(i32.shr_u(i32.load8_u(i32.sub(at(k, Ls - 1), i32.shr_u(j, 3))), i32.and(j, 7)), 1)], [i32.const(0)]);
    const [done, next, bits] = [label('done'), label('next'), label('bits')];
    wnaf.emit(
      memory.fill(dst, 0, N),
      block(
        done,
        loop(
          next,
          br_if(done, i32.ge_u(i, N)),
          if_(i32.eq(bit(i), carry), [i.set(i32.add(i, 1)), br(next)]),
          word.set(carry),
          t.set(0),
          loop(bits, word.set(i32.add(word, i32.shl(bit(i32.add(i, t)), t))), t.set(i32.add(t, 1)), br_if(bits, i32.lt_u(t, w))),
          carry.set(i32.gt_u(word, i32.shl(1, i32.sub(w, 1)))),
          i32.store8(i32.add(dst, i), i32.sub(word, i32.shl(carry, w))),
          i.set(i32.add(i, w)),
          br(next),
        ),
      ),
    );
    out.push(wnaf);
    need(wnaf, 0);
  }

  return wnaf;
}

/** ecdsa_gtable: the affine odd multiples of G for verification. */
function gtableFunction(env: Env, jac: { jdbl: Func; jadd: Func }): Func {
  const { fp, PTS, need, twist, FE, PT } = env;
  const out: Func[] = [];
  const { jdbl, jadd } = jac;
  // ---- the G table: ecdsa_gtable(tab, ws) ----------------------------------------------------
  // (2j+1)·G for j < ECDSA_G_ENTRIES, affine (X, Y in Montgomery form, 2·FE bytes each). Built in
  // Jacobian form at a stride of PT, normalised in chunks of GT_CHUNK (prefix products, one
  // inversion), then packed down to a stride of 2·FE. Public data only; every address is the
  // table pointer plus a public counter.
  {
    const f = new Func('ecdsa_gtable', { tab: 'i32', ws: 'i32' });
    const { tab, ws } = f.p;
    const [e, j] = f.locals('i32', ['e', 'j']);
    const E = ECDSA_G_ENTRIES;
    const D2 = 0,
      PRE = D2 + PTS,
      INV = PRE + GT_CHUNK * FE,
      ZI = INV + FE,
      Z2 = ZI + FE,
      KID = Z2 + FE;
    const w = (o: number) => at(ws, o);
    const ent = (t: number) => i32.add(e, t * PT); // entry t of the chunk at e
    const pre = (t: number) => w(PRE + t * FE);
    const [mult, chunk, pack] = [label('mult'), label('chunk'), label('pack')];
    const norm: Stmt[] = [memory.copy(pre(0), i32.add(e, 2 * FE), FE)];
    for (let t = 1; t < GT_CHUNK; t++) norm.push(call(fp.mul, pre(t), pre(t - 1), i32.add(ent(t), 2 * FE)));
    norm.push(call(fp.inv, w(INV), pre(GT_CHUNK - 1), w(KID)));
    for (let t = GT_CHUNK - 1; t >= 0; t--) {
      if (t > 0) norm.push(call(fp.mul, w(ZI), w(INV), pre(t - 1)), call(fp.mul, w(INV), w(INV), i32.add(ent(t), 2 * FE)));
      else norm.push(memory.copy(w(ZI), w(INV), FE));
      norm.push(call(fp.sqr, w(Z2), w(ZI)), call(fp.mul, ent(t), ent(t), w(Z2)), call(fp.mul, w(Z2), w(Z2), w(ZI)), call(fp.mul, i32.add(ent(t), FE), i32.add(ent(t), FE), w(Z2)));
    }
    f.emit(
      call(fp.setc(twist ? 'tgx' : 'gx'), tab),
      call(fp.setc(twist ? 'tgy' : 'gy'), at(tab, FE)),
      call(fp.setc('one'), at(tab, 2 * FE)),
      call(jdbl, w(D2), tab, w(KID)),
      e.set(tab),
      j.set(E - 1),
      loop(mult, memory.copy(i32.add(e, PT), e, PT), drop(callv('i32', jadd, i32.add(e, PT), w(D2), w(KID))), e.set(i32.add(e, PT)), j.set(i32.sub(j, 1)), br_if(mult, j)),
      e.set(tab),
      j.set(E / GT_CHUNK),
      loop(chunk, norm, e.set(i32.add(e, GT_CHUNK * PT)), j.set(i32.sub(j, 1)), br_if(chunk, j)),
      // pack: entry j from j·PT down to j·2FE (increasing j never overwrites an unread entry)
      j.set(1),
      loop(pack, memory.copy(i32.add(tab, i32.mul(j, 2 * FE)), i32.add(tab, i32.mul(j, PT)), 2 * FE), j.set(i32.add(j, 1)), br_if(pack, i32.lt_u(j, E))),
    );
    out.push(f);
    need(f, KID, [jdbl, jadd, fp.inv]);
  }

  return out[0];
}

/** ecdsa_sign (and the negative control's wrong inversion before it). */
function signFunctions(env: Env, deps: EcdsaDeps): Func[] {
  const { c, fn, PTS, flags, need, FE, Lb, Ls } = env;
  const out: Func[] = [];
  // ---- signing: ecdsa_sign(out, k, d, z, tab, ws) ---------------------------------------------
  {
    const R = 0,
      XB = R + PTS,
      KM = XB + round16(Lb),
      KI = KM + FE,
      RM = KI + FE,
      DM = RM + FE,
      ZM = DM + FE,
      T = ZM + FE,
      KID = T + FE;
    let invFn = fn.inv;
    if (flags.nonceInvModP) {
      const wrong = new Func('ecdsa_inv_wrong', { r: 'i32', a: 'i32', ws: 'i32' });
      wrong.i32('i');
      wrong.emit(powLines(fn, wrong, c.p - 2n, wrong.p.r, wrong.p.a, wrong.p.ws));
      out.push(wrong);
      need(wrong, powWorkspace(fn));
      invFn = wrong;
    }
    const f = new Func('ecdsa_sign', { out: 'i32', k: 'i32', d: 'i32', z: 'i32', tab: 'i32', ws: 'i32' }, { results: ['i32'] });
    const { out: o, k, d, z, tab, ws } = f.p;
    const w = (x: number) => at(ws, x);
    f.emit(
      call(deps.ecMulBase, w(R), k, tab, w(KID)),
      drop(callv('i32', deps.toAffine, w(XB), w(XB), w(R), w(KID), 0)),
      call(fn.fromBytes, w(RM), w(XB)), // r = x mod n
      call(fn.fromBytes, w(KM), k),
      call(invFn, w(KI), w(KM), w(KID)), // k⁻¹
      call(fn.fromBytes, w(DM), d),
      call(fn.fromBytes, w(ZM), z),
      call(fn.mul, w(T), w(RM), w(DM)),
      call(fn.add, w(T), w(T), w(ZM)),
      call(fn.mul, w(T), w(KI), w(T)), // s = k⁻¹·(z + r·d)
      call(fn.toBytes, o, w(RM)),
      call(fn.toBytes, at(o, Ls), w(T)),
      i32.and(i32.eqz(callv('i32', fn.isZero, w(RM))), i32.eqz(callv('i32', fn.isZero, w(T)))),
    );
    out.push(f);
    need(f, KID, [deps.ecMulBase, deps.toAffine, invFn]);
  }

  return out;
}

/** ecdsa_verify (variable time). */
function verifyFunction(env: Env, deps: EcdsaDeps, jac: { jdbl: Func; jadd: Func; jmadd: Func; B: number }, wnaf: Func): Func {
  const { c, fp, fn, PTS, need, twist, FE, PT, Ls, N } = env;
  const out: Func[] = [];
  const { jdbl, jadd, jmadd, B } = jac;
  // ---- verification: ecdsa_verify(rs, z, xy, gtab, ws, alt) (variable time) -------------------
  {
    need(fp.invVt, fp.invWorkspace);
    need(fn.invVt, fn.invWorkspace);
    fp.addConst({ name: 'ordn', value: c.n });
    const RM = 0,
      SM = RM + FE,
      ZM = SM + FE,
      W = ZM + FE,
      U = W + FE,
      UB1 = U + FE,
      UB2 = UB1 + round16(Ls),
      D1 = UB2 + round16(Ls),
      D2 = D1 + round16(N),
      QT = D2 + round16(N),
      ACC = QT + Q_ENTRIES * PTS,
      TMP = ACC + PTS,
      ZZ = TMP + PTS,
      RP = ZZ + FE,
      T = RP + FE,
      ZERO = T + FE,
      XR = ZERO + FE,
      QA = XR + FE,
      PRE = QA + Q_ENTRIES * 2 * FE,
      INV = PRE + Q_ENTRIES * FE,
      ZI = INV + FE,
      Z2 = ZI + FE,
      KID = Z2 + FE;
    const f = new Func('ecdsa_verify', { rs: 'i32', z: 'i32', xy: 'i32', gtab: 'i32', ws: 'i32', alt: 'i32' }, { results: ['i32'] });
    const { rs, z, xy, gtab, ws, alt } = f.p;
    const [i, d, e, inf] = f.locals('i32', ['i', 'd', 'e', 'inf']);
    const w = (x: number) => at(ws, x);
    const qj = (t: number, off = 0) => w(QT + t * PTS + off);
    const pre = (t: number) => w(PRE + t * FE);
    f.emit(
      memory.fill(w(ZERO), 0, FE),
      call(fn.fromBytes, w(RM), rs),
      call(fn.fromBytes, w(SM), at(rs, Ls)),
      call(fn.fromBytes, w(ZM), z),
      call(fn.invVt, w(W), w(SM), w(KID)), // w = s⁻¹ (public: variable time)
      call(fn.mul, w(U), w(ZM), w(W)), // u1 = z·w
      call(fn.toBytes, w(UB1), w(U)),
      call(fn.mul, w(U), w(RM), w(W)), // u2 = r·w
      call(fn.toBytes, w(UB2), w(U)),
      call(wnaf, w(D1), w(UB1), ECDSA_G_WINDOW),
      call(wnaf, w(D2), w(UB2), ECDSA_Q_WINDOW),
      // Q, 3Q, …, 15Q (2Q in ACC meanwhile)
      call(deps.pointFromBytes, w(QT), xy),
      twist ? [call(fp.mulc('tz2'), w(QT), w(QT)), call(fp.mulc('tz3'), w(QT + FE), w(QT + FE))] : [],
      call(jdbl, w(ACC), w(QT), w(KID)),
    );
    for (let j = 1; j < Q_ENTRIES; j++) {
      f.emit(memory.copy(w(QT + j * PTS), w(QT + (j - 1) * PTS), PT), drop(callv('i32', jadd, w(QT + j * PTS), w(ACC), w(KID))));
    }
    // the Q table to affine form (QA, stride 2·FE): prefix products of the Z, one inversion,
    // then each Z⁻¹ from the running inverse (Montgomery's trick): 3(E − 1) + 4E products
    f.emit(memory.copy(pre(0), qj(0, 2 * FE), FE));
    for (let t = 1; t < Q_ENTRIES; t++) f.emit(call(fp.mul, pre(t), pre(t - 1), qj(t, 2 * FE)));
    f.emit(call(fp.invVt, w(INV), pre(Q_ENTRIES - 1), w(KID)));
    for (let t = Q_ENTRIES - 1; t >= 0; t--) {
      if (t > 0) f.emit(call(fp.mul, w(ZI), w(INV), pre(t - 1)), call(fp.mul, w(INV), w(INV), qj(t, 2 * FE)));
      else f.emit(memory.copy(w(ZI), w(INV), FE));
      f.emit(call(fp.sqr, w(Z2), w(ZI)), call(fp.mul, w(QA + t * 2 * FE), qj(t), w(Z2)), call(fp.mul, w(Z2), w(Z2), w(ZI)), call(fp.mul, w(QA + t * 2 * FE + FE), qj(t, FE), w(Z2)));
    }
    const digit = (D: number, tab: () => Expr<'i32'>, stride: number, bytes: number, madd: boolean): Stmt[] => [
      d.set(i32.load8_s(i32.add(w(D), i))),
      if_(d, [
        e.set(i32.mul(i32.shr_u(select(i32.sub(0, d), d, i32.lt_s(d, 0)), 1), stride)),
        memory.copy(w(TMP), i32.add(tab(), e), bytes),
        if_(i32.lt_s(d, 0), [call(fp.subLazy(B), w(TMP + FE), w(ZERO), w(TMP + FE))]),
        if_(inf, [memory.copy(w(ACC), w(TMP), bytes), ...(madd ? [call(fp.setc('one'), w(ACC + 2 * FE))] : []), inf.set(0)], [inf.set(callv('i32', madd ? jmadd : jadd, w(ACC), w(TMP), w(KID)))]),
      ]),
    ];
    const bit = label('bit');
    f.emit(
      inf.set(1),
      i.set(N - 1),
      loop(
        bit,
        if_(i32.eqz(inf), [call(jdbl, w(ACC), w(ACC), w(KID))]),
        digit(D1, () => gtab.get(), 2 * FE, 2 * FE, true),
        digit(D2, () => w(QA), 2 * FE, 2 * FE, true),
        i.set(i32.sub(i, 1)),
        br_if(bit, i32.ge_s(i, 0)),
      ),
      if_(inf, [ret(i32.const(0))]),
      // x(R) ≡ r (mod n): X == r·Z², or X == (r + n)·Z² when r + n < p
      // X and Z may be up to B·p: X is reduced by a product with 1 (Z by its square)
      call(fp.setc('one'), w(XR)),
      call(fp.mul, w(XR), w(ACC), w(XR)),
      call(fp.sqr, w(ZZ), w(ACC + 2 * FE)),
      call(fp.fromBytes, w(RP), rs),
      twist ? call(fp.mulc('tz2'), w(T), w(RP)) : memory.copy(w(T), w(RP), FE),
      call(fp.mul, w(T), w(T), w(ZZ)),
      if_(callv('i32', fp.eq, w(XR), w(T)), [ret(i32.const(1))]),
      if_(i32.eqz(alt), [ret(i32.const(0))]),
      call(fp.setc('ordn'), w(T)),
      call(fp.add, w(RP), w(RP), w(T)),
      twist ? [call(fp.mulc('tz2'), w(RP), w(RP))] : [],
      call(fp.mul, w(T), w(RP), w(ZZ)),
      callv('i32', fp.eq, w(XR), w(T)),
    );
    out.push(f);
    need(f, KID, [fn.invVt, fp.invVt, jdbl, jadd, jmadd, wnaf]);
  }
  return out[0];
}

/** The ECDSA functions of a curve module, in module order, and those it exports. */
export function ecdsaFunctions(ctx: EcContext, deps: EcdsaDeps): { functions: Func[]; exported: Func[] } {
  const { c, fp, fn, PTS, flags } = ctx;
  const need = (f: Func, own: number, children: Func[] = []) => ctx.ws.need(f, own, children);
  // Verification runs on an isomorphic curve with a = −3 when the curve's a is generic and
  // allows it (the Brainpool curves): doublings cost 3M + 5S instead of 1M + 8S + 1 product.
  const twist = ctx.shape === 'generic' ? twistToAm3(c.p, c.a) : undefined;
  const shape: CurveShape = twist === undefined ? ctx.shape : 'a=-3';
  if (twist !== undefined) {
    const z2 = (twist * twist) % c.p,
      z3 = (z2 * twist) % c.p;
    fp.addConst({ name: 'tz2', value: z2 }, true);
    fp.addConst({ name: 'tz3', value: z3 }, true);
    fp.addConst({ name: 'tgx', value: (c.gx * z2) % c.p });
    fp.addConst({ name: 'tgy', value: (c.gy * z3) % c.p });
  }
  const FE = fp.FE,
    PT = 3 * FE,
    Lb = fp.bytes,
    Ls = fn.bytes;
  if (Lb !== Ls) throw new Error(`${c.name}: ECDSA here assumes field and scalar encodings of the same length`);
  if (!(c.n < c.p)) throw new Error(`${c.name}: ECDSA here assumes n < p`);

  const env: Env = { c, fp, fn, PTS, flags, need, twist, shape, FE, PT, Lb, Ls, N: bitLength(c.n) + 1 };
  const jac = jacobianFunctions(env);
  const wnaf = wnafFunction(env);
  const gtable = gtableFunction(env, jac);
  const sign = signFunctions(env, deps);
  const verify = verifyFunction(env, deps, jac, wnaf);
  return { functions: [...jac.out, wnaf, gtable, ...sign, verify], exported: [gtable, sign[sign.length - 1], verify] };
}

// One WebAssembly module per curve: the field kernels mod p and mod n (fe_mont29.ts), the group
// law by complete projective formulas (Renes–Costello–Batina, ec_formulas.ts), a fixed-window
// signed-digit variable-base scalar multiplication, a fixed-base multiplication with a lazily
// built comb table, and the ECDH / public-key / validation entry points. One module per curve so
// that an application using P-256 carries no P-521 code (and the per-curve code is specialised:
// the modulus's digits, the curve's a and b are immediates).
//
// Why constant time:
//   - the field code is straight-line on i64 values (see fe_mont29.ts);
//   - the formulas are complete, so doubling, adding the identity or adding P to −P need no
//     special case: the sequence of field operations is the same for every input;
//   - the scalar is recoded into signed digits d_i ∈ [−2^(w−1), 2^(w−1)] by arithmetic on the
//     scalar's bits (carry by shift, no branch); every digit is used the same way;
//   - a table lookup reads every entry and keeps the wanted one with a mask
//     ((|d| ⊕ j) − 1) >> 63, 16 bytes at a time (v128.and / v128.or); the negation for a
//     negative digit is computed always and kept by a mask;
//   - loop counters and every memory address are public (pointers, constants); the digits and
//     coordinates live in linear memory, which the checker treats as secret.
//
// Variable base, k·P: digits in radix 2^w (w = 5: D = ⌈(bits(n)+1)/5⌉ digits), table of
// 0·P … 16·P in projective form (built with 8 doublings and 7 additions), then D − 1 rounds of
// w doublings and one addition. P-256: 255 doublings + 51 additions + 52 lookups of 17 entries.
//
// Fixed base, k·G: a comb of the signed digits in radix 2^wb: positions i = 0 … P−1 hold
// j·2^(wb·S·i)·G for j = 1 … 2^(wb−1) as affine points (two coordinates, i32 limbs); then
// k·G = Σ_s 2^(wb·s) Σ_i d_(iS+s)·T_i, evaluated with (S−1)·wb doublings and D mixed additions.
// S is the least spacing that keeps the table within 32 KB. The table is built on first use
// (base_table) into an engine slot, never at import time; it depends only on G (public).
//
// Measured and not taken (--no-liftoff, separate processes, min of runs): the additions and
// subtractions of the formulas written inline instead of called: P-256 ECDH 149 → 150 µs,
// brainpoolP256r1 213 → 208 µs, for a module of 118 KB instead of 66. The field product is the
// cost: a P-256 doubling is 8M + 3S + 2m_b ≈ 310 of its 410 ns.
//
// Brainpool (generic a): the scalar multiplications run on the isomorphic a = −3 curve (see
// scalarTwist; 13 products per doubling and 14 per addition instead of 16 and 17). First
// measured on brainpoolP256r1 alone (217 → 212 µs) and not taken; taken once measured on
// brainpoolP512r1, where a product by a constant runs entirely on the scalar multiplier (no
// SIMD products) and costs more than a general product: pt_dbl 2.59 → 2.03 µs, pt_add 2.68 →
// 1.82 µs, ECDSA sign 509 → 409 µs; brainpoolP256r1 ECDH 215 → 206 µs, public key 50.1 → 48.0
// µs (bench --base, 3 copies).
//
// Lazy reduction (up to 12 limbs: P-224, P-256, secp256k1, brainpoolP256r1): each formula is
// put in single-assignment form and every sum or difference of two products, x·y ± u·v, is
// computed with one Montgomery reduction (fuseProducts in ec_formulas.ts; fp_mulw/mulwn and
// fp_mul2w in fe_mont29.ts): three per addition, two per doubling. For a dense modulus a
// reduction costs L² + L multiplies, as much as the product; for P-256 it is shifts and adds.
// Measured (bench --base): brainpoolP256r1 pt_double 523 → 496 ns, pt_add 593 → 563 ns, ECDH
// 185 → 181 µs; P-256 pt_double 382 → 379 ns, pt_add 469 → 458 ns, ECDH 140 → 144 µs (noise
// band). A single function with all four operands in locals was slower (P-256 pt_double +4%,
// brainpoolP256r1 +6%: 36 operand locals spill).
//
// Work space: every function takes $ws, a pointer to scratch memory it may use (its own
// temporaries first, callees' after); the exported global WS_SIZE bounds the whole tree.
// The glue wipes what was used after each call that handled a secret.
//
// Negative-control flags (tests only): those of the field (dropCarry, skipCorrection) and
//   wrongCoefficient  the addition formula's first tripling computes 4× instead of 3×;
//   wrongLookup       the variable-base lookup swaps the masks of entries 1 and 2;
//   skipZeroDigits    timing control (npm run ct:timing): ec_mul skips the lookup and addition
//                     of a zero digit (a branch on the scalar; same results).

import { CURVES, type CurveParams } from '../ec/params.js';
import { type Func, type GeneratedKernel, Module, kernel } from './builder/index.js';
import { COMB_WINDOW, combFunctions, combLookup, combShape } from './ec_comb.js';
import { type EcContext, type EcFlags, WorkSpace, round16 } from './ec_context.js';
import { encodingFunctions } from './ec_encoding.js';
import { curveShape, planReductions, type CurveShape } from './ec_formulas.js';
import { groupFunctions } from './ec_group.js';
import { recodeFunc } from './ec_recode.js';
import { WINDOW, windowFunctions } from './ec_window.js';
import { ecdsaFunctions, twistToAm3 } from './ecdsa_straus_wnaf.js';
import { fieldFunctions } from './fe_field.js';
import { bitLength, modInv } from './fe_limbs.js';
import { FieldGen } from './fe_mont29.js';
import { sqrtFunction, sqrtWorkspace } from './fe_pow.js';

export type { EcFlags };
export { planReductions };

export interface EcLayout {
  FE: number;
  fieldBytes: number;
  scalarBytes: number;
  window: number;
  digits: number;
  combWindow: number;
  combSpacing: number;
  combPositions: number;
  tableBytes: number;
  wsSize: number;
}

export function ecModuleName(c: CurveParams): string {
  return `ec_${c.name.toLowerCase()}`;
}

/**
 * Z when the scalar multiplications of curve c run on its a = −3 isomorphic curve
 * ((x, y) ↦ (Z²x, Z³y)): projective points inside the module (pt_add, pt_dbl, ec_mul's result)
 * are then on that curve; to_affine maps back. Undefined when they run on c itself.
 */
export function scalarTwist(c: CurveParams): bigint | undefined {
  return curveShape(c.p, c.a) === 'generic' ? twistToAm3(c.p, c.a) : undefined;
}

/** The two fields of curve c with the curve's constants (and its twist's) in the p-field. */
function fields(c: CurveParams, flags: EcFlags): { fp: FieldGen; fn: FieldGen; twist: bigint | undefined } {
  const fp = new FieldGen('fp', c.p, flags);
  const fn = new FieldGen('fn', c.n, {});
  if (fp.L !== fn.L) throw new Error(`${c.name}: p and n need different limb counts`);
  // products by these constants are generated only where a formula (or rhs) uses them
  fp.addConst({ name: 'b', value: c.b });
  fp.addConst({ name: 'b3', value: 3n * c.b });
  fp.addConst({ name: 'a', value: c.a });
  fp.addConst({ name: 'gx', value: c.gx });
  fp.addConst({ name: 'gy', value: c.gy });
  // Generic a (the Brainpool curves): the scalar multiplications run on the isomorphic curve
  // y² = x³ − 3x + b·Z⁶ ((x, y) ↦ (Z²x, Z³y), a·Z⁴ = −3; RFC 5639's brainpoolPxxxt1), whose
  // a = −3 formulas need no product by a: 13 products per doubling and 14 per addition instead
  // of 16 and 17. ec_mul maps its input point there, base_table builds from the mapped G, and
  // to_affine maps back (x·Z⁻², y·Z⁻³); everything else (point checks, decompression) stays on
  // the curve itself.
  const twist = scalarTwist(c);
  if (twist !== undefined) {
    const z2 = (twist * twist) % c.p, z3 = (z2 * twist) % c.p;
    const zi = modInv(twist, c.p);
    const zi2 = (zi * zi) % c.p, zi3 = (zi2 * zi) % c.p;
    fp.addConst({ name: 'tz2', value: z2 }, true);
    fp.addConst({ name: 'tz3', value: z3 }, true);
    fp.addConst({ name: 'tzi2', value: zi2 }, true);
    fp.addConst({ name: 'tzi3', value: zi3 }, true);
    fp.addConst({ name: 'tgx', value: (c.gx * z2) % c.p });
    fp.addConst({ name: 'tgy', value: (c.gy * z3) % c.p });
    fp.addConst({ name: 'tb', value: (c.b * z3 * z3) % c.p });
  }
  return { fp, fn, twist };
}

/** The module of curve c: its fields, group law, multiplications, encodings and ECDSA. */
export function generateEc(c: CurveParams, flags: EcFlags = {}): GeneratedKernel & { layout: EcLayout } {
  const { fp, fn, twist } = fields(c, flags);
  const L = fp.L, FE = fp.FE, PT = 3 * FE;
  const shape = curveShape(c.p, c.a);
  const gshape: CurveShape = twist === undefined ? shape : 'a=-3';
  const sqrt = sqrtFunction(fp); // may add a constant: before fieldFunctions(fp)
  const ws = new WorkSpace();
  ws.need(fp.inv, fp.invWorkspace);
  ws.need(fn.inv, fn.invWorkspace);
  ws.need(fp.sqrt, sqrtWorkspace(fp));
  const ctx: EcContext = { c, fp, fn, shape, gshape, twist, L, FE, PT, PTS: round16(PT), flags, ws };

  const nbits = bitLength(c.n);
  const D = Math.ceil((nbits + 1) / WINDOW);
  const comb = combShape(ctx, nbits);
  const group = groupFunctions(ctx);
  const recode = recodeFunc(fn, WINDOW, D);
  const recodeComb = COMB_WINDOW !== WINDOW || comb.Db !== D ? recodeFunc(fn, COMB_WINDOW, comb.Db) : recode;
  const { lookup, ecMul } = windowFunctions(ctx, group, recode, D);
  const lookupAff = combLookup(ctx, comb);
  const { baseTable, ecMulBase } = combFunctions(ctx, group, recodeComb, lookupAff, comb);
  const enc = encodingFunctions(ctx, ecMul, ecMulBase);
  // ECDSA signing and verification (src/kernels/ecdsa_straus_wnaf.ts)
  const ecdsa = ecdsaFunctions(ctx, { ...enc, ecMulBase });

  const wsSize = round16(ws.max());
  if (wsSize > 65536) throw new Error(`${c.name}: work space ${wsSize} exceeds scratch`);

  const funcs: Func[] = [
    group.ptAdd, group.ptMadd, group.ptDbl, group.ptCmov, group.ptIdentity,
    recode, ...(recodeComb !== recode ? [recodeComb] : []),
    lookup, lookupAff, ecMul, baseTable, ecMulBase,
    enc.toAffine, enc.rhs, enc.pointFromBytes, enc.checkPoint, enc.decompress, enc.scalarOk, enc.ecdh, enc.pubkey,
    ...ecdsa,
  ];
  const exported = new Set<Func>([
    group.ptAdd, group.ptDbl, ecMul, baseTable, ecMulBase,
    enc.toAffine, enc.pointFromBytes, enc.checkPoint, enc.decompress, enc.scalarOk, enc.ecdh, enc.pubkey,
    ...ecdsa.filter((f) => ['ecdsa_gtable', 'ecdsa_sign', 'ecdsa_verify'].includes(f.name)),
  ]);

  const layout: EcLayout = {
    FE, fieldBytes: fp.bytes, scalarBytes: fn.bytes, window: WINDOW, digits: D, combWindow: COMB_WINDOW,
    combSpacing: comb.S, combPositions: comb.P, tableBytes: comb.tableBytes, wsSize,
  };
  const m = new Module(ecModuleName(c)).memory(2);
  for (const [k, v] of Object.entries({ FE, FIELD_BYTES: fp.bytes, SCALAR_BYTES: fn.bytes, WS_SIZE: wsSize, TABLE_BYTES: comb.tableBytes })) m.global(k, 'i32', v);
  m.add(fieldFunctions(fp), sqrt, fieldFunctions(fn), funcs);
  const all = (f: Func) => f.params.map((_, i) => i);
  for (const f of [fp, fn]) {
    for (const g of [f.mul, f.sqr, f.add, f.sub, f.neg, f.canon, f.inv, f.fromBytes, f.toBytes, f.bytesLt, f.eq, f.isZero, f.setc('one')]) {
      m.exportFunc(g.name, g, all(g));
    }
  }
  m.exportFunc('fp_sqrt', sqrt, all(sqrt));
  for (const f of funcs) if (exported.has(f)) m.exportFunc(f.name, f, all(f));
  m.header.push(
    `${c.name} (${shape}): field kernels mod p and mod n, complete formulas, window and comb multiplications, ECDSA.`,
    `p: ${fp.L} limbs of 29 bits, digits ${fp.digits.join(' ')}, -p^-1 mod 2^29 = ${fp.qinv}`,
    `n: ${fn.L} limbs, -n^-1 mod 2^29 = ${fn.qinv}`,
    `layout ${JSON.stringify(layout)}`,
  );
  return { ...kernel(m), layout: layout as unknown as Record<string, unknown> & EcLayout };
}

/** Every curve module, for the registry. */
export const EC_MODULES = Object.entries(CURVES).map(([key, c]) => ({
  name: ecModuleName(c),
  source: 'src/kernels/ec_rcb_window.ts',
  call: `generateEc(CURVES.${key})`,
  generate: () => generateEc(c),
}));

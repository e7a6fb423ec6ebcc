// One WebAssembly module per curve: the fields mod p and mod n (fe_*.ts), the group law by the
// complete formulas of Renes, Costello and Batina (ec_group.ts), the variable-base window
// multiplication (ec_window.ts), the fixed-base comb (ec_comb.ts), the edges (ec_encoding.ts)
// and ECDSA (ecdsa_straus_wnaf.ts); this file assembles them. One module per curve, so that an
// application using P-256 carries no P-521 code, and specialised: the modulus's digits and the
// curve's a and b are immediates.
//
// Why constant time: the field code is straight-line; the formulas are complete, so the sequence
// of field operations is the same for every input; scalars are recoded by arithmetic and every
// digit is used the same way; table lookups read every entry under masks; loop counters and
// addresses are public. Only ECDSA verification is variable time (public data only; it says so,
// and src/ct/vartime.ts lists it).
//
// Brainpool (generic a): the scalar multiplications run on the isomorphic a = −3 curve (RFC
// 5639's brainpoolPxxxt1, (x, y) ↦ (Z²x, Z³y)): 13 products per doubling and 14 per addition
// instead of 16 and 17. ec_mul maps its input there, base_table builds from the mapped G, and
// to_affine maps back.
//
// Cost: a P-256 ECDH is 255 doublings, 51 additions and 52 lookups (~140 µs on the development
// machine); measurements: docs/kernels/ec.md.
//
// Work space: every function takes ws, scratch it may use (its own first, its callees' after);
// the exported global WS_SIZE bounds the tree, and the glue wipes it after a call on secrets.
// Negative-control flags (tests only): EcFlags in ec_context.ts.

import { CURVES, type CurveParams } from '../curves/params.js';
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
    const z2 = (twist * twist) % c.p,
      z3 = (z2 * twist) % c.p;
    const zi = modInv(twist, c.p);
    const zi2 = (zi * zi) % c.p,
      zi3 = (zi2 * zi) % c.p;
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
  const L = fp.L,
    FE = fp.FE,
    PT = 3 * FE;
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
    group.ptAdd,
    group.ptMadd,
    group.ptDbl,
    group.ptCmov,
    group.ptIdentity,
    recode,
    ...(recodeComb !== recode ? [recodeComb] : []),
    lookup,
    lookupAff,
    ecMul,
    baseTable,
    ecMulBase,
    enc.toAffine,
    enc.rhs,
    enc.pointFromBytes,
    enc.checkPoint,
    enc.decompress,
    enc.scalarOk,
    enc.ecdh,
    enc.pubkey,
    ...ecdsa.functions,
  ];
  const exported = new Set<Func>([group.ptAdd, group.ptDbl, ecMul, baseTable, ecMulBase, enc.toAffine, enc.pointFromBytes, enc.checkPoint, enc.decompress, enc.scalarOk, enc.ecdh, enc.pubkey, ...ecdsa.exported]);

  const layout: EcLayout = {
    FE,
    fieldBytes: fp.bytes,
    scalarBytes: fn.bytes,
    window: WINDOW,
    digits: D,
    combWindow: COMB_WINDOW,
    combSpacing: comb.S,
    combPositions: comb.P,
    tableBytes: comb.tableBytes,
    wsSize,
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
  // js: 470–910 KB of JavaScript per curve (210–440 KB minified), so opt-in (src/ec/js/<curve>.ts provides it). P-521,
  // brainpoolP384r1 and brainpoolP512r1 (44, 33 and 43 twelve-bit limbs) have rolled products
  // (fe_mont29.ts: ROLL_FROM_TERMS); unrolled, V8 left them to its interpreter (P-521's ECDH
  // took about a second, 50× @noble/curves' BigInt)
  targets: ['wasm', 'js'] as const,
  optIn: { js: `ctkit/ec/js/${key}` },
  generate: () => generateEc(c),
}));

// The group law of a curve module: the complete projective formulas of Renes, Costello and
// Batina (ec_formulas.ts) compiled into calls of the field kernel — pt_add, pt_madd (the second
// point affine), pt_dbl — and the point-sized helpers pt_cmov and pt_identity.
//
// Why constant time: the formulas are complete (doubling, the identity and P + (−P) need no
// special case), so the sequence of field calls is the same for every input; the field code is
// straight-line (fe_mont29.ts, fe_ops.ts).
//
// Lazy reduction (up to 12 limbs: P-224, P-256, secp256k1, brainpoolP256r1): each formula is put
// in single-assignment form and every sum or difference of two products, x·y ± u·v, is computed
// with one Montgomery reduction (fuseProducts; fp_mulw/mulwn and fp_mul2w): three per addition,
// two per doubling. Sums that only feed products skip their reduction (planReductions).
// Measurements: docs/kernels/ec.md.

import { Func, type Stmt, call, comment, memory } from './builder/index.js';
import { type EcContext, at } from './ec_context.js';
import { FORMULAS, allocateSlots, fuseProducts, parseFormula, planReductions, withWrongCoefficient, type Step } from './ec_formulas.js';
import { cmovLines } from './fe_ops.js';

/** Sums of two products fused into one reduction (fuseProducts) up to this many limbs: beyond,
 * a column of 2L products and L reduction terms could overflow an i64 (5L·2^57 < 2^63). */
const FUSE_MAX_LIMBS = 12;

export interface GroupFunctions {
  ptAdd: Func;
  ptMadd: Func;
  ptDbl: Func;
  ptCmov: Func;
  ptIdentity: Func;
}

/** One formula as a function of p (and q) into r, its temporaries in the work space. */
function compile(ctx: EcContext, name: string, source: Step[], mixed: boolean): Func {
  const { fp, c, FE, PT, L, twist } = ctx;
  const dbl = name === 'pt_dbl';
  const f = dbl ? new Func(name, { r: 'i32', p: 'i32', ws: 'i32' }) : new Func(name, { r: 'i32', p: 'i32', q: 'i32', ws: 'i32' });
  const [r, p, ws] = [f.i32('r'), f.i32('p'), f.i32('ws')];
  const fuse = L <= FUSE_MAX_LIMBS;
  const steps = fuse ? fuseProducts(source) : source;
  // fused programs are in single-assignment form and get slots by liveness; the programs as
  // written keep X3 Y3 Z3 in slots 0–2 and t0…t5 in 3–8
  const { slot, count } = fuse ? allocateSlots(steps) : { slot: new Map([...['X3', 'Y3', 'Z3'], ...Array.from({ length: 6 }, (_, i) => `t${i}`)].map((v, i) => [v, i])), count: 9 };
  // the unreduced columns of a fused sum's second product (2L − 1 i64 ≤ 2·FE), after the slots
  const WIDE = () => at(ws, count * FE);
  const loc = (v: string) => {
    const m = /^([XYZ])([12])$/.exec(v);
    if (m) {
      if (m[2] === '2' && mixed && m[1] === 'Z') throw new Error('mixed formula reads Z2');
      return at(m[2] === '1' ? p : f.i32('q'), 'XYZ'.indexOf(m[1]) * FE);
    }
    const k = slot.get(v);
    if (k === undefined) throw new Error(`formula variable ${v} read before it is written`);
    return at(ws, k * FE);
  };
  const plan = planReductions(steps, Number(fp.R / c.p));
  const body: Stmt[] = steps.flatMap((s, i): Stmt[] => {
    switch (s.op) {
      case 'mul':
        return [s.x === s.y ? call(fp.sqr, loc(s.d), loc(s.x)) : call(fp.mul, loc(s.d), loc(s.x), loc(s.y))];
      case 'mul2':
        return [call(fp.fusedMul(s.neg ? 'mulwn' : 'mulw'), WIDE(), loc(s.u), loc(s.v)), call(fp.fusedMul('mul2w'), loc(s.d), loc(s.x), loc(s.y), WIDE())];
      case 'add':
        return [call(plan[i].lazy ? fp.addLazy : fp.add, loc(s.d), loc(s.x), loc(s.y))];
      case 'sub': {
        const k = plan[i].k;
        return [call(k ? fp.subLazy(k) : fp.sub, loc(s.d), loc(s.x), loc(s.y))];
      }
      case 'mulc': {
        const k = twist !== undefined ? ({ b: 'tb' } as Record<string, string>)[s.c] : s.c;
        if (k === undefined) throw new Error(`twisted formula uses ${s.c}`);
        return [call(fp.mulc(k), loc(s.d), loc(s.x))];
      }
    }
  });
  f.emit(
    comment(
      `${steps
        .map((s, i) => ((s.op === 'add' || s.op === 'sub') && plan[i].lazy ? `${s.d}~` : ''))
        .filter(Boolean)
        .join(' ')} lazy`,
    ),
    body,
    memory.copy(r, ws, PT),
  );
  ctx.ws.need(f, (count + (fuse ? 2 : 0)) * FE);
  return f;
}

export function groupFunctions(ctx: EcContext): GroupFunctions {
  const { L, FE, PT, flags } = ctx;
  const formulas = FORMULAS[ctx.gshape];
  let addSteps = parseFormula(formulas.add);
  let maddSteps = parseFormula(formulas.mixedAdd);
  if (flags.wrongCoefficient) {
    addSteps = withWrongCoefficient(addSteps);
    maddSteps = withWrongCoefficient(maddSteps);
  }
  const ptAdd = compile(ctx, 'pt_add', addSteps, false);
  const ptMadd = compile(ctx, 'pt_madd', maddSteps, true);
  const ptDbl = compile(ctx, 'pt_dbl', parseFormula(formulas.double), false);

  // pt_cmov(r, a, mask): r ← mask ? a : r for a whole projective point
  const ptCmov = new Func('pt_cmov', { r: 'i32', a: 'i32', mask: 'i64' });
  ptCmov.emit(cmovLines(ptCmov, ptCmov.p.r, ptCmov.p.a, ptCmov.p.mask, 3 * L));
  // pt_identity(r): (0 : 1 : 0)
  const ptIdentity = new Func('pt_identity', { r: 'i32' });
  ptIdentity.emit(memory.fill(ptIdentity.p.r, 0, PT), call(ctx.fp.setc('one'), at(ptIdentity.p.r, FE)));
  return { ptAdd, ptMadd, ptDbl, ptCmov, ptIdentity };
}

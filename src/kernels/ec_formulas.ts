// Complete projective formulas for prime-order short Weierstrass curves, as straight-line
// programs, transcribed step by step from J. Renes, C. Costello, L. Batina, "Complete addition
// formulas for prime order elliptic curves" (EUROCRYPT 2016, ePrint 2015/1060), Algorithms 1–9.
//
// Points are projective (X:Y:Z) with x = X/Z, y = Y/Z and the identity (0:1:0). The addition
// formulas are complete: they give the right sum for every pair of points, equal, opposite or the
// identity included, so the scalar multiplication needs no exceptional case (and no branch). The
// mixed forms take the second point affine (Z2 = 1): complete for every first point, but the
// second cannot be the identity (the fixed-base multiplication handles a zero digit by a masked
// select).
//
// Syntax: `d = x*y` (field product; x*x is a squaring), `d = x+y`, `d = x-y`, and `d = b*x`,
// `d = b3*x`, `d = a*x` (product by the curve constant b, 3b or a). Inputs X1 Y1 Z1 (and X2 Y2 Z2);
// outputs X3 Y3 Z3; temporaries t0…t5. The generator (ec_rcb_window.ts) compiles a program into
// calls of the field kernel; test/ec-formulas.test.ts runs the same text on BigInt against the
// affine group law of src/ref/ec.ts.

export type CurveShape = 'a=-3' | 'a=0' | 'generic';

export interface Formulas {
  add: string;
  mixedAdd: string;
  double: string;
}

/** Algorithms 4 (addition), 5 (mixed addition) and 6 (doubling): a = −3, cost 12M+2m_b, 11M+2m_b, 8M+3S+2m_b. */
const AM3: Formulas = {
  add: `t0 = X1*X2; t1 = Y1*Y2; t2 = Z1*Z2; t3 = X1+Y1; t4 = X2+Y2; t3 = t3*t4; t4 = t0+t1;
    t3 = t3-t4; t4 = Y1+Z1; X3 = Y2+Z2; t4 = t4*X3; X3 = t1+t2; t4 = t4-X3; X3 = X1+Z1;
    Y3 = X2+Z2; X3 = X3*Y3; Y3 = t0+t2; Y3 = X3-Y3; Z3 = b*t2; X3 = Y3-Z3; Z3 = X3+X3;
    X3 = X3+Z3; Z3 = t1-X3; X3 = t1+X3; Y3 = b*Y3; t1 = t2+t2; t2 = t1+t2; Y3 = Y3-t2;
    Y3 = Y3-t0; t1 = Y3+Y3; Y3 = t1+Y3; t1 = t0+t0; t0 = t1+t0; t0 = t0-t2; t1 = t4*Y3;
    t2 = t0*Y3; Y3 = X3*Z3; Y3 = Y3+t2; X3 = t3*X3; X3 = X3-t1; Z3 = t4*Z3; t1 = t3*t0;
    Z3 = Z3+t1`,
  mixedAdd: `t0 = X1*X2; t1 = Y1*Y2; t3 = X2+Y2; t4 = X1+Y1; t3 = t3*t4; t4 = t0+t1; t3 = t3-t4;
    t4 = Y2*Z1; t4 = t4+Y1; Y3 = X2*Z1; Y3 = Y3+X1; Z3 = b*Z1; X3 = Y3-Z3; Z3 = X3+X3;
    X3 = X3+Z3; Z3 = t1-X3; X3 = t1+X3; Y3 = b*Y3; t1 = Z1+Z1; t2 = t1+Z1; Y3 = Y3-t2;
    Y3 = Y3-t0; t1 = Y3+Y3; Y3 = t1+Y3; t1 = t0+t0; t0 = t1+t0; t0 = t0-t2; t1 = t4*Y3;
    t2 = t0*Y3; Y3 = X3*Z3; Y3 = Y3+t2; X3 = t3*X3; X3 = X3-t1; Z3 = t4*Z3; t1 = t3*t0;
    Z3 = Z3+t1`,
  double: `t0 = X1*X1; t1 = Y1*Y1; t2 = Z1*Z1; t3 = X1*Y1; t3 = t3+t3; Z3 = X1*Z1; Z3 = Z3+Z3;
    Y3 = b*t2; Y3 = Y3-Z3; X3 = Y3+Y3; Y3 = X3+Y3; X3 = t1-Y3; Y3 = t1+Y3; Y3 = X3*Y3;
    X3 = X3*t3; t3 = t2+t2; t2 = t2+t3; Z3 = b*Z3; Z3 = Z3-t2; Z3 = Z3-t0; t3 = Z3+Z3;
    Z3 = Z3+t3; t3 = t0+t0; t0 = t3+t0; t0 = t0-t2; t0 = t0*Z3; Y3 = Y3+t0; t0 = Y1*Z1;
    t0 = t0+t0; Z3 = t0*Z3; X3 = X3-Z3; Z3 = t0*t1; Z3 = Z3+Z3; Z3 = Z3+Z3`,
};

/** Algorithms 7, 8 and 9: a = 0, cost 12M+2m_3b, 11M+2m_3b, 6M+2S+1m_3b. */
const A0: Formulas = {
  add: `t0 = X1*X2; t1 = Y1*Y2; t2 = Z1*Z2; t3 = X1+Y1; t4 = X2+Y2; t3 = t3*t4; t4 = t0+t1;
    t3 = t3-t4; t4 = Y1+Z1; X3 = Y2+Z2; t4 = t4*X3; X3 = t1+t2; t4 = t4-X3; X3 = X1+Z1;
    Y3 = X2+Z2; X3 = X3*Y3; Y3 = t0+t2; Y3 = X3-Y3; X3 = t0+t0; t0 = X3+t0; t2 = b3*t2;
    Z3 = t1+t2; t1 = t1-t2; Y3 = b3*Y3; X3 = t4*Y3; t2 = t3*t1; X3 = t2-X3; Y3 = Y3*t0;
    t1 = t1*Z3; Y3 = t1+Y3; t0 = t0*t3; Z3 = Z3*t4; Z3 = Z3+t0`,
  mixedAdd: `t0 = X1*X2; t1 = Y1*Y2; t3 = X2+Y2; t4 = X1+Y1; t3 = t3*t4; t4 = t0+t1; t3 = t3-t4;
    t4 = Y2*Z1; t4 = t4+Y1; Y3 = X2*Z1; Y3 = Y3+X1; X3 = t0+t0; t0 = X3+t0; t2 = b3*Z1;
    Z3 = t1+t2; t1 = t1-t2; Y3 = b3*Y3; X3 = t4*Y3; t2 = t3*t1; X3 = t2-X3; Y3 = Y3*t0;
    t1 = t1*Z3; Y3 = t1+Y3; t0 = t0*t3; Z3 = Z3*t4; Z3 = Z3+t0`,
  double: `t0 = Y1*Y1; Z3 = t0+t0; Z3 = Z3+Z3; Z3 = Z3+Z3; t1 = Y1*Z1; t2 = Z1*Z1; t2 = b3*t2;
    X3 = t2*Z3; Y3 = t0+t2; Z3 = t1*Z3; t1 = t2+t2; t2 = t1+t2; t0 = t0-t2; Y3 = t0*Y3;
    Y3 = X3+Y3; t1 = X1*Y1; X3 = t0*t1; X3 = X3+X3`,
};

/** Algorithms 1, 2 and 3: any a, cost 12M+3m_a+2m_3b, 11M+3m_a+2m_3b, 8M+3S+3m_a+2m_3b. */
const GENERIC: Formulas = {
  add: `t0 = X1*X2; t1 = Y1*Y2; t2 = Z1*Z2; t3 = X1+Y1; t4 = X2+Y2; t3 = t3*t4; t4 = t0+t1;
    t3 = t3-t4; t4 = X1+Z1; t5 = X2+Z2; t4 = t4*t5; t5 = t0+t2; t4 = t4-t5; t5 = Y1+Z1;
    X3 = Y2+Z2; t5 = t5*X3; X3 = t1+t2; t5 = t5-X3; Z3 = a*t4; X3 = b3*t2; Z3 = X3+Z3;
    X3 = t1-Z3; Z3 = t1+Z3; Y3 = X3*Z3; t1 = t0+t0; t1 = t1+t0; t2 = a*t2; t4 = b3*t4;
    t1 = t1+t2; t2 = t0-t2; t2 = a*t2; t4 = t4+t2; t0 = t1*t4; Y3 = Y3+t0; t0 = t5*t4;
    X3 = t3*X3; X3 = X3-t0; t0 = t3*t1; Z3 = t5*Z3; Z3 = Z3+t0`,
  mixedAdd: `t0 = X1*X2; t1 = Y1*Y2; t3 = X2+Y2; t4 = X1+Y1; t3 = t3*t4; t4 = t0+t1; t3 = t3-t4;
    t4 = X2*Z1; t4 = t4+X1; t5 = Y2*Z1; t5 = t5+Y1; Z3 = a*t4; X3 = b3*Z1; Z3 = X3+Z3;
    X3 = t1-Z3; Z3 = t1+Z3; Y3 = X3*Z3; t1 = t0+t0; t1 = t1+t0; t2 = a*Z1; t4 = b3*t4;
    t1 = t1+t2; t2 = t0-t2; t2 = a*t2; t4 = t4+t2; t0 = t1*t4; Y3 = Y3+t0; t0 = t5*t4;
    X3 = t3*X3; X3 = X3-t0; t0 = t3*t1; Z3 = t5*Z3; Z3 = Z3+t0`,
  double: `t0 = X1*X1; t1 = Y1*Y1; t2 = Z1*Z1; t3 = X1*Y1; t3 = t3+t3; Z3 = X1*Z1; Z3 = Z3+Z3;
    X3 = a*Z3; Y3 = b3*t2; Y3 = X3+Y3; X3 = t1-Y3; Y3 = t1+Y3; Y3 = X3*Y3; X3 = t3*X3;
    Z3 = b3*Z3; t2 = a*t2; t3 = t0-t2; t3 = a*t3; t3 = t3+Z3; Z3 = t0+t0; t0 = Z3+t0;
    t0 = t0+t2; t0 = t0*t3; Y3 = Y3+t0; t2 = Y1*Z1; t2 = t2+t2; t0 = t2*t3; X3 = X3-t0;
    Z3 = t2*t1; Z3 = Z3+Z3; Z3 = Z3+Z3`,
};

export const FORMULAS: Record<CurveShape, Formulas> = { 'a=-3': AM3, 'a=0': A0, generic: GENERIC };

export function curveShape(p: bigint, a: bigint): CurveShape {
  const am = ((a % p) + p) % p;
  if (am === 0n) return 'a=0';
  if (am === p - 3n) return 'a=-3';
  return 'generic';
}

export type Step =
  | { op: 'mul'; d: string; x: string; y: string }
  | { op: 'add' | 'sub'; d: string; x: string; y: string }
  | { op: 'mulc'; d: string; c: 'a' | 'b' | 'b3'; x: string }
  /** fused x·y + u·v (neg: x·y − u·v), one Montgomery reduction for both (fuseProducts) */
  | { op: 'mul2'; d: string; x: string; y: string; u: string; v: string; neg: boolean };

const OUTPUTS = ['X3', 'Y3', 'Z3'];

/** The variables a step reads. */
export function reads(s: Step): string[] {
  switch (s.op) {
    case 'mulc':
      return [s.x];
    case 'mul2':
      return [s.x, s.y, s.u, s.v];
    default:
      return [s.x, s.y];
  }
}

/**
 * Lazy reduction: every sum or difference of two products, d = x·y ± u·v, where each product
 * is read by that sum only, becomes one fused step (mul2) that adds both products' columns and
 * reduces once. For a dense modulus a reduction costs as much as the product itself (L² + L
 * multiplies); the sum step disappears too. The program is first put in single-assignment form
 * (a variable written twice gets a fresh name v<i> for all but its last value; the outputs
 * X3 Y3 Z3 keep their names on their last assignment), so a product's operands are still
 * there when the sum runs. The caller assigns the names to memory (see allocateSlots).
 */
export function fuseProducts(steps: Step[]): Step[] {
  // single assignment: rename every write but the last of each name
  const lastWrite = new Map<string, number>();
  steps.forEach((s, i) => lastWrite.set(s.d, i));
  const cur = new Map<string, string>();
  const name = (v: string) => cur.get(v) ?? v;
  const ssa: Step[] = steps.map((s, i) => {
    const r = (v: string) => name(v);
    let t: Step;
    switch (s.op) {
      case 'mulc':
        t = { ...s, x: r(s.x) };
        break;
      case 'mul2':
        t = { ...s, x: r(s.x), y: r(s.y), u: r(s.u), v: r(s.v) };
        break;
      default:
        t = { ...s, x: r(s.x), y: r(s.y) };
    }
    const d = lastWrite.get(s.d) === i ? s.d : `v${i}`;
    cur.set(s.d, d);
    return { ...t, d };
  });
  const uses = new Map<string, number>();
  for (const s of ssa) for (const v of reads(s)) uses.set(v, (uses.get(v) ?? 0) + 1);
  const def = new Map<string, number>();
  ssa.forEach((s, i) => def.set(s.d, i));
  const product = (v: string) => {
    const i = def.get(v);
    return i !== undefined && ssa[i].op === 'mul' && uses.get(v) === 1 && !OUTPUTS.includes(v) ? i : undefined;
  };
  const drop = new Set<number>();
  const out = ssa.map((s) => {
    if ((s.op !== 'add' && s.op !== 'sub') || s.x === s.y) return s;
    const px = product(s.x),
      py = product(s.y);
    if (px === undefined || py === undefined) return s;
    const a = ssa[px],
      b = ssa[py];
    if (a.op !== 'mul' || b.op !== 'mul') return s;
    drop.add(px).add(py);
    return { op: 'mul2', d: s.d, x: a.x, y: a.y, u: b.x, v: b.y, neg: s.op === 'sub' } as Step;
  });
  return out.filter((_, i) => !drop.has(i));
}

/**
 * Memory slots for the variables of a single-assignment program: the outputs X3 Y3 Z3 in slots
 * 0–2, every other written name in the lowest slot from 3 on that is free (a slot is free
 * again after the last read of its value). Inputs (X1 … Z2) are not assigned.
 */
export function allocateSlots(steps: Step[]): { slot: Map<string, number>; count: number } {
  const last = new Map<string, number>();
  steps.forEach((s, i) => {
    for (const v of reads(s)) last.set(v, i);
  });
  const slot = new Map<string, number>(OUTPUTS.map((v, i) => [v, i]));
  const busy: boolean[] = [true, true, true];
  steps.forEach((s, i) => {
    if (!slot.has(s.d)) {
      let k = 3;
      while (busy[k]) k++;
      busy[k] = true;
      slot.set(s.d, k);
    }
    for (const v of new Set(reads(s))) {
      if (last.get(v) === i && slot.has(v) && !OUTPUTS.includes(v)) busy[slot.get(v)!] = false;
    }
  });
  return { slot, count: busy.length };
}

/** Parses a straight-line program. */
export function parseFormula(text: string): Step[] {
  const steps: Step[] = [];
  for (const raw of text.split(';')) {
    const s = raw.trim();
    if (!s) continue;
    const m = /^(\w+) = (\w+)([*+-])(\w+)$/.exec(s.replace(/\s+/g, ' ').replace(/ ?([*+-]) ?/g, '$1'));
    if (!m) throw new Error(`formula: cannot parse step "${s}"`);
    const [, d, x, o, y] = m;
    if (o === '*' && (x === 'a' || x === 'b' || x === 'b3')) steps.push({ op: 'mulc', d, c: x, x: y });
    else steps.push({ op: o === '*' ? 'mul' : o === '+' ? 'add' : 'sub', d, x, y });
  }
  return steps;
}

/**
 * Negative control (tests only): the formula with a wrong coefficient. The first tripling
 * `u = v+w` that follows a doubling `v = w+w` becomes `u = v+v` (4w instead of 3w).
 */
export function withWrongCoefficient(steps: Step[]): Step[] {
  const out = steps.slice();
  for (let i = 1; i < out.length; i++) {
    const prev = out[i - 1],
      s = out[i];
    if (prev.op === 'add' && prev.x === prev.y && s.op === 'add' && s.x === prev.d && s.y === prev.x) {
      out[i] = { op: 'add', d: s.d, x: prev.d, y: prev.d };
      return out;
    }
  }
  throw new Error('withWrongCoefficient: no tripling found');
}

/**
 * Which additions and subtractions may skip their reduction, for points whose coordinates may
 * carry a bound B (value < B·p) in and out — the generalisation of planReductions
 * (ec_group.ts), whose points are always reduced (B = 2). Rules (see fe_mont29.ts): a
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

/**
 * Which additions and subtractions of a formula may skip their reduction. Every value carries
 * a bound k (value < k·p). A product of operands with bounds ka·kb ≤ R/p comes out below 2p
 * (see fe_mont29.ts), so a sum that only feeds products need not be reduced: its carries are
 * propagated (limbs stay 29-bit) and its bound is ka + kb (a − b + kb·p for a difference,
 * bound ka + kb). A reduced addition needs ka + kb ≤ 4 and a reduced subtraction ka, kb ≤ 2;
 * both give bound 2, and so must the outputs X3, Y3, Z3. Start with everything lazy and reduce
 * the producer of any operand that breaks a rule, until nothing does.
 */
export function planReductions(steps: Step[], rOverP: number): { lazy: boolean; k: number }[] {
  // planBounds with every point coordinate reduced: bound 2 in and out
  const plan = planBounds(steps, rOverP, 2, new Set());
  if (!plan) throw new Error('planReductions: no plan keeps every bound');
  return plan;
}

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
  | { op: 'mulc'; d: string; c: 'a' | 'b' | 'b3'; x: string };

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
    const prev = out[i - 1], s = out[i];
    if (prev.op === 'add' && prev.x === prev.y && s.op === 'add' && s.x === prev.d && s.y === prev.x) {
      out[i] = { op: 'add', d: s.d, x: prev.d, y: prev.d };
      return out;
    }
  }
  throw new Error('withWrongCoefficient: no tripling found');
}

// Two multiplications modulo p = 2^255 − 19 at once on SIMD128: a "pair" holds two field
// elements X, Y in radix 2^25.5 (fe25519_radix25.ts's limbs), interleaved limb by limb as
// unsigned i32 lanes — vector m is (X_2m, Y_2m, X_2m+1, Y_2m+1), five vectors, 80 bytes — and
// every operation acts on both lanes. The X25519 ladder's products come in independent pairs
// (x25519_ladder.ts), so one pair product does the work of two scalar ones.
//
// Product: i64x2.extmul_low/high_i32x4_u multiplies limb i of both elements of P by limb j of
// both elements of Q (Q's limb pair duplicated into both halves by one shuffle, doubled where
// both limb indices are odd); the 19 raw columns are summed in i64x2 lanes, the top nine
// folded ×19 (shifts and adds), then the carry chains of fe25519_radix25.ts, lane by lane,
// and the lanes packed back into i32 (one shufps per output vector).
//
// Unsigned limbs: a subtraction adds 2p (limbs 2^27 − 38, 2^26 − 2, 2^27 − 2, …, each above a
// tight limb) so that every limb stays non-negative, products and carries are unsigned
// (vpmuludq, vpsrlq: no emulated 64-bit arithmetic shift on x64).
//
// Why constant time: straight-line SIMD integer code; no branch, address or division on data.
// Bounds: tight limbs (a carry chain's output) below 2^26/2^25 (+ a small carry into limbs 1
// and 5); loose (a sum, or a difference plus 2p) below 3× tight; the generator proves every
// column below 2^64 for loose inputs and writes the bounds beside each function.

import { type Expr, Func, type Local, type Stmt, comment, i32x4, i64, i64x2, i8x16, v128 } from './builder/index.js';

const NL = 10;
const BITS = Array.from({ length: NL }, (_, i) => (i % 2 === 0 ? 26 : 25));
/** bytes of a pair in memory */
export const PAIR = 8 * NL;

type V = Expr<'v128'>;
type LV = Local<'v128'>;

/** 2p in limbs: added before a subtraction so that limbs stay non-negative. */
export const TWO_P_LIMBS = BITS.map((b, i) => (i === 0 ? 2 * ((1 << b) - 19) : 2 * ((1 << b) - 1)));

/** A byte pattern for i8x16.shuffle from i32 lane indices (0–7 over the two operands). */
const lanes32 = (l: number[]) => l.flatMap((x) => [4 * x, 4 * x + 1, 4 * x + 2, 4 * x + 3]);

export class FePair25519 {
  readonly pre: string;
  readonly #funcs = new Map<string, Func>();

  readonly dropCarry: boolean;

  /** dropCarry (negative control, tests only): the carry from limb 4 into limb 5 is lost in products */
  constructor(prefix: string, flags: { dropCarry?: boolean } = {}) {
    this.pre = prefix;
    this.dropCarry = flags.dropCarry === true;
  }

  func(name: string, params: Record<string, 'i32' | 'i64'>): Func {
    let f = this.#funcs.get(name);
    if (!f) {
      f = new Func(`${this.pre}_${name}`, params);
      this.#funcs.set(name, f);
    }
    return f;
  }
  /** r = (P.x·Q.x, P.y·Q.y) (loose inputs, tight output) */
  get mul() {
    return this.func('mul', { r: 'i32', a: 'i32', b: 'i32' });
  }
  /** r = (P.x², P.y²) (loose input, tight output) */
  get sqr() {
    return this.func('sqr', { r: 'i32', a: 'i32' });
  }

  /** The product or square body: operand vectors at a (and b), result at r. */
  #body(f: Func, square: boolean): Stmt[] {
    const { r, a } = { r: f.i32('r'), a: f.i32('a') };
    const b = square ? a : f.i32('b');
    const out: Stmt[] = [];
    const P = Array.from({ length: 5 }, (_, m) => f.v128(`p${m}`));
    out.push(...P.map((v, m) => v.set(v128.load(a, 16 * m))));
    // Operand vectors for Q: Q2 = Q with its high half (odd limbs) doubled, for the products of
    // halves alike (even·even in the low lanes, odd·odd, doubled, in the high lanes); Qs = Q with
    // its halves swapped, for even·odd and odd·even. A square scales them once more (cross products ×2).
    const Q = square ? P : Array.from({ length: 5 }, (_, m) => f.v128(`q${m}`));
    if (!square) out.push(...Q.map((v, m) => v.set(v128.load(b, 16 * m))));
    const hi = f.v128('hi');
    out.push(hi.set(v128.i32x4([0, 0, -1, -1])));
    const made = new Map<string, LV>();
    const variant = (kind: 'q2' | 'qs', n: number, k: number): LV => {
      const key = `${kind}${n}_${k}`;
      let l = made.get(key);
      if (!l) {
        l = f.v128(key);
        made.set(key, l);
        const src = Q[n];
        let e: V = kind === 'q2' ? i32x4.add(src, v128.and(src, hi)) : i8x16.shuffle(src, src, lanes32([2, 3, 0, 1]));
        if (k > 1) e = i32x4.shl(e, k === 2 ? 1 : 2);
        out.push(l.set(e));
      }
      return l;
    };
    const raw: V[][] = Array.from({ length: 2 * NL - 1 }, () => []);
    for (let m = 0; m < 5; m++) {
      for (let n = square ? m : 0; n < 5; n++) {
        const cross = square && m !== n ? 2 : 1;
        // low lanes: P_2m·Q_2n (column 2m + 2n); high lanes: P_2m+1·2Q_2n+1 (column 2m + 2n + 2)
        raw[2 * m + 2 * n].push(i64x2.extmul_low_i32x4_u(P[m], variant('q2', n, cross)));
        raw[2 * m + 2 * n + 2].push(i64x2.extmul_high_i32x4_u(P[m], variant('q2', n, cross)));
        // P_2m·Q_2n+1 (column 2m + 2n + 1) and P_2m+1·Q_2n (column 2m + 2n + 1); in a square only
        // i ≤ j: the first when m ≤ n, the second when m < n, both doubled
        if (!square) {
          raw[2 * m + 2 * n + 1].push(i64x2.extmul_low_i32x4_u(P[m], variant('qs', n, 1)), i64x2.extmul_high_i32x4_u(P[m], variant('qs', n, 1)));
        } else {
          raw[2 * m + 2 * n + 1].push(i64x2.extmul_low_i32x4_u(P[m], variant('qs', n, 2)));
          if (m < n) raw[2 * m + 2 * n + 1].push(i64x2.extmul_high_i32x4_u(P[m], variant('qs', n, 2)));
        }
      }
    }
    const h = Array.from({ length: NL }, (_, k) => f.v128(`h${k}`));
    const u = f.v128('u');
    const t19 = (x: LV): V => i64x2.add(i64x2.add(x, i64x2.shl(x, 1)), i64x2.shl(x, 4));
    for (let k = 0; k < NL; k++) {
      out.push(comment(`column ${k}`));
      const lo = raw[k].reduce((x, y) => i64x2.add(x, y));
      if (k < NL - 1) out.push(u.set(raw[k + NL].reduce((x, y) => i64x2.add(x, y))), h[k].set(i64x2.add(lo, t19(u))));
      else out.push(h[k].set(lo));
    }
    out.push(...carryPairLines(f, h, this.dropCarry), ...packLines(r, h));
    return out;
  }

  /**
   * r = (lane0, lane1) built from the lanes x, y of the pair at a: each of 'x', 'y', 'x+y',
   * 'x−y' or 'y−x' (a difference plus 2p). Tight input; output loose.
   */
  combine(l0: LaneExpr, l1: LaneExpr): Func {
    const key = `${LANE_NAMES[l0]}_${LANE_NAMES[l1]}`;
    this.#combines.set(key, [l0, l1]);
    return this.func(`comb_${key}`, { r: 'i32', a: 'i32' });
  }
  readonly #combines = new Map<string, [LaneExpr, LaneExpr]>();

  /** r = (b.y, a.x + c·a.y), carried: the ladder's (BB, AA + a24·E) from a = (AA, E), b = (AA, BB). */
  linA24(c: number): Func {
    this.#lin.add(c);
    return this.func(`lin_${c}`, { r: 'i32', a: 'i32', b: 'i32' });
  }
  readonly #lin = new Set<number>();

  /** r = a carried (limbs of a below 2^30, non-negative; output tight) */
  get carry() {
    return this.func('carry', { r: 'i32', a: 'i32' });
  }
  /** (a, b) ← (b, a) when mask is all ones (pairs, 80 bytes each) */
  get cswap() {
    return this.func('cswap', { a: 'i32', b: 'i32', mask: 'i64' });
  }
  /** r = the pair (x, y) from the single elements (ten i32 limbs each, non-negative) at x and y */
  get join() {
    return this.func('join', { r: 'i32', x: 'i32', y: 'i32' });
  }
  /** r = lane 0 (x) or 1 (y) of the pair at a, as a single element */
  lane(l: 0 | 1): Func {
    return this.func(`lane${l}`, { r: 'i32', a: 'i32' });
  }

  functions(): Func[] {
    const out: Func[] = [];
    const bounds = pairBounds();
    const bits = (v: bigint[]) => v.map((x) => `2^${Math.log2(Number(x)).toFixed(2)}`).join(' ');
    if (this.#funcs.has('mul')) {
      const f = this.mul;
      f.doc.push(
        'r = (a.x·b.x, a.y·b.y) mod p on both lanes: 100 extmul (two products each), folded, carried.',
        `Inputs: limbs below ${bits(bounds.loose)} (loose). Proven: every column below 2^${bounds.mulBits} (< 2^64).`,
        `Output (tight): limbs below ${bits(bounds.tight)}.`,
      );
      f.emit(this.#body(f, false));
      out.push(f);
    }
    if (this.#funcs.has('sqr')) {
      const f = this.sqr;
      f.doc.push('r = (a.x², a.y²) mod p: 55 extmul, cross products doubled.', `Inputs loose, output tight, as for ${this.pre}_mul (columns below 2^${bounds.sqrBits}).`);
      f.emit(this.#body(f, true));
      out.push(f);
    }
    for (const [key, [l0, l1]] of this.#combines) {
      const f = this.func(`comb_${key}`, { r: 'i32', a: 'i32' });
      const { r, a } = { r: f.i32('r'), a: f.i32('a') };
      const [w, sw, t] = [f.v128('w'), f.v128('sw'), f.v128('t')];
      f.doc.push(`r = (${LANE_TEXT[l0]}, ${LANE_TEXT[l1]}) of the lanes x, y of a (a difference plus 2p, limbwise).`);
      const code: Stmt[] = [];
      for (let m = 0; m < 5; m++) {
        const twoP = v128.i32x4([TWO_P_LIMBS[2 * m], TWO_P_LIMBS[2 * m], TWO_P_LIMBS[2 * m + 1], TWO_P_LIMBS[2 * m + 1]]);
        // in w lane 0 is x and lane 1 is y; in sw they are swapped: lane0's expression reads w as
        // (x, y), lane1's reads the same names from the lane it sits in
        code.push(w.set(v128.load(a, 16 * m)), sw.set(i8x16.shuffle(w, w, lanes32([1, 0, 3, 2]))));
        code.push(t.set(v128.bitselect(laneExpr(l0, w, sw, twoP, 0), laneExpr(l1, w, sw, twoP, 1), v128.i32x4([-1, 0, -1, 0]))));
        code.push(v128.store(r, t, 16 * m));
      }
      f.emit(code);
      out.push(f);
    }
    for (const c of this.#lin) {
      const f = this.linA24(c);
      const { r, a, b } = { r: f.i32('r'), a: f.i32('a'), b: f.i32('b') };
      f.doc.push(`r = (b.y, a.x + ${c}·a.y), carried (tight output for loose a, tight b).`);
      const h = Array.from({ length: NL }, (_, k) => f.v128(`h${k}`));
      const [va, vb] = [f.v128('va'), f.v128('vb')];
      const kb = f.v128('kb');
      if (bounds.linOut(c).some((v, i) => v > bounds.tight[i])) throw new Error(`lin_${c}: output not tight`);
      // lane 0: b.y; lane 1: a.x + c·a.y — (b.y, a.x) widened, plus (a.y, a.y)·(0, c) by extmul
      const code: Stmt[] = [kb.set(v128.i32x4([0, c, 0, c]))];
      for (let m = 0; m < 5; m++) {
        code.push(va.set(v128.load(a, 16 * m)), vb.set(v128.load(b, 16 * m)));
        // (b.y, a.x): lanes [y_b, x_a] per limb; (0, a.y): [0, y_a]
        const bySwap = i8x16.shuffle(vb, va, lanes32([1, 4, 3, 6]));
        const ay = i8x16.shuffle(va, va, lanes32([1, 1, 3, 3]));
        for (const half of [0, 1]) {
          const ext = half === 0 ? i64x2.extend_low_i32x4_u : i64x2.extend_high_i32x4_u;
          const mul = half === 0 ? i64x2.extmul_low_i32x4_u : i64x2.extmul_high_i32x4_u;
          code.push(h[2 * m + half].set(i64x2.add(ext(bySwap), mul(ay, kb))));
        }
      }
      f.emit(code, carryPairLines(f, h), packLines(r, h));
      out.push(f);
    }
    if (this.#funcs.has('carry')) {
      const f = this.carry;
      const { r, a } = { r: f.i32('r'), a: f.i32('a') };
      if (bounds.carryOut(BITS.map(() => 1n << 30n)).some((v, i) => v > bounds.tight[i])) throw new Error('fp_carry: output not tight');
      const h = Array.from({ length: NL }, (_, k) => f.v128(`h${k}`));
      const va = f.v128('va');
      const code: Stmt[] = [];
      for (let m = 0; m < 5; m++) code.push(va.set(v128.load(a, 16 * m)), h[2 * m].set(i64x2.extend_low_i32x4_u(va)), h[2 * m + 1].set(i64x2.extend_high_i32x4_u(va)));
      f.doc.push('r = a with its carries propagated on both lanes (limbs below 2^30 in, tight out).');
      f.emit(code, carryPairLines(f, h, this.dropCarry), packLines(r, h));
      out.push(f);
    }
    if (this.#funcs.has('cswap')) {
      const f = this.cswap;
      const { a, b } = { a: f.i32('a'), b: f.i32('b') };
      const [mk, t] = [f.v128('m'), f.v128('t')];
      const code: Stmt[] = [mk.set(i64x2.splat(f.i64('mask')))];
      for (let o = 0; o < PAIR; o += 16) {
        code.push(t.set(v128.and(v128.xor(v128.load(a, o), v128.load(b, o)), mk)), v128.store(a, v128.xor(v128.load(a, o), t), o), v128.store(b, v128.xor(v128.load(b, o), t), o));
      }
      f.doc.push('(a, b) ← (b, a) where mask is all ones (xor under the mask, 80 bytes).');
      f.emit(code);
      out.push(f);
    }
    if (this.#funcs.has('join')) {
      const f = this.join;
      const { r, x, y } = { r: f.i32('r'), x: f.i32('x'), y: f.i32('y') };
      // (x_0..x_3) and (y_0..y_3) → (x0 y0 x1 y1), (x2 y2 x3 y3): unpack low/high
      const [vx, vy] = [f.v128('vx'), f.v128('vy')];
      const code: Stmt[] = [];
      for (const [o, wide] of [
        [0, true],
        [16, true],
        [32, false],
      ] as const) {
        code.push(vx.set(wide ? v128.load(x, o) : v128.load64_zero(x, o)), vy.set(wide ? v128.load(y, o) : v128.load64_zero(y, o)));
        code.push(v128.store(r, i8x16.shuffle(vx, vy, lanes32([0, 4, 1, 5])), 2 * o));
        if (wide) code.push(v128.store(r, i8x16.shuffle(vx, vy, lanes32([2, 6, 3, 7])), 2 * o + 16));
      }
      f.emit(code);
      out.push(f);
    }
    for (const l of [0, 1] as const) {
      if (!this.#funcs.has(`lane${l}`)) continue;
      const f = this.lane(l);
      const { r, a } = { r: f.i32('r'), a: f.i32('a') };
      const v = f.v128('v');
      const code: Stmt[] = [];
      for (let m = 0; m < 5; m++) {
        code.push(v.set(v128.load(a, 16 * m)));
        code.push(i64.store(r, i64x2.extract_lane(i8x16.shuffle(v, v, lanes32(l === 0 ? [0, 2, 0, 2] : [1, 3, 1, 3])), 0), 8 * m));
      }
      f.emit(code);
      out.push(f);
    }
    return out;
  }
}

export type LaneExpr = 'x' | 'y' | 'x+y' | 'x-y' | 'y-x';
const LANE_NAMES: Record<LaneExpr, string> = { x: 'x', y: 'y', 'x+y': 'xpy', 'x-y': 'xmy', 'y-x': 'ymx' };
const LANE_TEXT: Record<LaneExpr, string> = { x: 'x', y: 'y', 'x+y': 'x + y', 'x-y': 'x − y', 'y-x': 'y − x' };

/**
 * The vector whose lane `at` (0 or 1, and 2, 3 likewise) holds expression e of its own pair:
 * w = (x, y), sw = (y, x) per limb, so lane 0 reads x from w and y from sw, lane 1 the reverse.
 */
function laneExpr(e: LaneExpr, w: LV, sw: LV, twoP: V, at: 0 | 1): V {
  const X = at === 0 ? w : sw,
    Y = at === 0 ? sw : w;
  switch (e) {
    case 'x':
      return X.get();
    case 'y':
      return Y.get();
    case 'x+y':
      return i32x4.add(w, sw);
    case 'x-y':
      return i32x4.add(i32x4.sub(X, Y), twoP);
    case 'y-x':
      return i32x4.add(i32x4.sub(Y, X), twoP);
  }
}

/**
 * Interval bounds (unsigned) for the pair arithmetic: tight = the fixed point of "carry the
 * columns of a product of loose inputs", loose = tight plus 2p (a difference) or twice tight.
 */
export function pairBounds(): { tight: bigint[]; loose: bigint[]; mulBits: number; sqrBits: number; linOut: (c: number) => bigint[]; carryOut: (limbs: bigint[]) => bigint[] } {
  const cols = (a: bigint[], b: bigint[], square: boolean) => {
    const c: bigint[] = Array(NL).fill(0n);
    for (let i = 0; i < NL; i++)
      for (let j = square ? i : 0; j < NL; j++) {
        const k = BigInt((i % 2 === 1 && j % 2 === 1 ? 2 : 1) * (i + j >= NL ? 19 : 1) * (square && i !== j ? 2 : 1));
        c[(i + j) % NL] += k * a[i] * b[j];
      }
    return c;
  };
  const carry = (h0: bigint[]) => {
    const h = [...h0];
    for (const i of CARRY_ORDER) {
      const c = h[i] >> BigInt(BITS[i]);
      h[i] = (1n << BigInt(BITS[i])) - 1n;
      if (i === 9) h[0] += 19n * c;
      else h[i + 1] += c;
    }
    return h;
  };
  let tight = BITS.map((b) => (1n << BigInt(b)) - 1n);
  const looseOf = (t: bigint[]) => t.map((v, i) => (v + BigInt(TWO_P_LIMBS[i]) > 2n * v ? v + BigInt(TWO_P_LIMBS[i]) : 2n * v));
  for (let it = 0; it < 8; it++) {
    const L = looseOf(tight);
    const next = carry(cols(L, L, false)).map((v, i) => (v > tight[i] ? v : tight[i]));
    if (next.every((v, i) => v === tight[i])) break;
    tight = next;
  }
  const loose = looseOf(tight);
  const mx = (v: bigint[]) => v.reduce((x, y) => (x > y ? x : y));
  const mulBits = mx(cols(loose, loose, false)).toString(2).length,
    sqrBits = mx(cols(loose, loose, true)).toString(2).length;
  if (mulBits > 64 || sqrBits > 64) throw new Error('fe25519 pair: a column may overflow');
  if (tight.some((v, i) => v >= BigInt(TWO_P_LIMBS[i]))) throw new Error('fe25519 pair: 2p does not cover a tight limb');
  if (loose.some((v) => 4n * v >= 1n << 32n)) throw new Error('fe25519 pair: a scaled operand does not fit 32 bits');
  const linOut = (c: number) => carry(loose.map((v, i) => tight[i] + BigInt(c) * v));
  return { tight, loose, mulBits, sqrBits, linOut, carryOut: carry };
}

/** fe25519_radix25.ts's carry order, on i64x2 columns (unsigned: vpsrlq). */
export const CARRY_ORDER = [0, 4, 1, 5, 2, 6, 3, 7, 4, 8, 9, 0];

export function carryPairLines(f: Func, h: LV[], dropCarry = false): Stmt[] {
  const c = f.v128('c');
  const out: Stmt[] = [];
  const m26 = f.v128('m26'),
    m25 = f.v128('m25');
  out.push(m26.set(i64x2.splat((1 << 26) - 1)), m25.set(i64x2.splat((1 << 25) - 1)));
  for (const i of CARRY_ORDER) {
    const b = BITS[i];
    const dst = h[(i + 1) % NL];
    out.push(c.set(i64x2.shr_u(h[i], b)));
    if (!(dropCarry && i === 4)) out.push(dst.set(i === 9 ? i64x2.add(dst, i64x2.add(i64x2.add(c, i64x2.shl(c, 1)), i64x2.shl(c, 4))) : i64x2.add(dst, c)));
    out.push(h[i].set(v128.and(h[i], b === 26 ? m26 : m25)));
  }
  return out;
}

/** The low 32 bits of the lanes of h_2m, h_2m+1 → vector m of the pair at r. */
export function packLines(r: Local<'i32'>, h: LV[]): Stmt[] {
  return Array.from({ length: 5 }, (_, m) => v128.store(r, i8x16.shuffle(h[2 * m], h[2 * m + 1], lanes32([0, 2, 4, 6])), 16 * m));
}

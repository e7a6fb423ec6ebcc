// Arithmetic modulo p = 2^255 − 19 in radix 2^25.5 (ten signed limbs of 26 and 25 bits, the
// representation of ref10 / Bernstein's "curve25519-20050915"), for X25519 and Ed25519.
//
// Representation: x = Σ x_i·2^⌈25.5·i⌉, limb i of 26 bits (i even) or 25 bits (i odd), each an
// i32 in memory (40 bytes per element), signed. "Tight" limbs are what a carry chain leaves
// (about 2^26 / 2^25); additions and subtractions are limbwise, without carries ("loose": a sum
// or difference of up to three tight values); products and squares accept loose inputs and
// return tight ones. Values are not
// reduced: only to_bytes and the tests built on it (eq, is_zero, is_negative) make them canonical.
//
// Product (wasm and simd targets): Karatsuba over the even/odd split. The even limbs sit at
// 2^(51k) and the odd ones at 2^(51k + 26), so with X = 2^51 an element is A(X) + 2^26·B(X),
// two polynomials of five uniform limbs, and a product is AC + 2^26·((A + B)(C + D) − AC − BD)
// + 2X·BD: three five-by-five products, 75 limb products in i64 (a square 45), each
// polynomial's top coefficients folded ×19 (2^255 ≡ 19). Schoolbook (the js target, and the
// flag): all 100 limb products f_i·g_j (55 for a square), a factor 2 where both limb indices
// are odd (their weights add to one bit more), summed into 19 columns, the top nine folded ×19
// by shifts and adds. Both give the same ten column integers; then two interleaved carry
// chains (0→1→…, 4→5→…) with the top carry folded ×19.
// The generator proves every column below 2^63 from the input bounds and writes the bounds
// beside each function; Karatsuba's intermediates are exact modulo 2^64 (#evenOddColumns).
//
// Why constant time: straight-line code on i64 values (imul, shifts, adds); no branch, address or
// division depends on data; canonical reduction subtracts p under a mask made by arithmetic.
//
// Cost: mul 75 i64.mul (schoolbook 100), sqr 45 (55), add/sub 10 adds; inversion by safegcd (fe_safegcd.ts) on the
// canonical value. On the js target (i64 printed as i32 halves) mul's columns come from two
// functions of five and inversion is a^(p − 2) (#columnHalves, #fermatLines; measurements in
// docs/kernels/x25519.md). Measurements (against fe_mont29's 9 × 29-bit Montgomery form for the
// same p) and the choice: docs/kernels/x25519.md.
// Negative-control flag (tests only): dropCarry (the carry from limb 4 into limb 5 lost).
// schoolbook (tests, and measurements) builds the schoolbook products on every target.

import { type Expr, Func, type Local, type Stmt, br_if, call, comment, i32, i64, i64x2, label, loop, memory, setMany, simdAllowed, target, v128 } from './builder/index.js';
import { safegcdFunction } from './fe_safegcd.js';
import { cmovLines } from './fe_ops.js';

export const P25519 = (1n << 255n) - 19n;

/** RFC 7748 section 5's clamp of the 32-byte scalar at p: bits 0–2 and 255 cleared, bit 254 set. */
export function clamp25519(p: Local<'i32'>): Stmt[] {
  return [i32.store8(p, i32.and(i32.load8_u(p, 0), 248), 0), i32.store8(p, i32.or(i32.and(i32.load8_u(p, 31), 127), 64), 31)];
}
/** limbs, bytes of an element in memory, limb widths and positions */
export const NL = 10;
/** bytes of an element in memory: ten i32 limbs (the shipped layout) */
export const FE25519 = 4 * NL;
/** A loose value: up to this many tight values added or subtracted (the products accept it). */
export const LOOSE = 3n;
const BITS = Array.from({ length: NL }, (_, i) => (i % 2 === 0 ? 26 : 25));
const POS = Array.from({ length: NL }, (_, i) => 25 * i + Math.ceil(i / 2));

export interface Fe25519Flags {
  /** the carry from limb 4 into limb 5 is lost in every carry chain of a product */
  dropCarry?: boolean;
  /** the products by the schoolbook (100 limb products) instead of Karatsuba over even/odd limbs */
  schoolbook?: boolean;
}

type E = Expr<'i64'>;
type L64 = Local<'i64'>;
/** a closed interval of integers, for the bounds proofs */
type Iv = [bigint, bigint];
const LIM = 1n << 63n;
const abs = (v: bigint) => (v < 0n ? -v : v);
const mag = (iv: Iv) => (abs(iv[0]) > abs(iv[1]) ? abs(iv[0]) : abs(iv[1]));
const ivAdd = (a: Iv, b: Iv): Iv => [a[0] + b[0], a[1] + b[1]];
const ivMulK = (a: Iv, k: bigint): Iv => (k >= 0n ? [a[0] * k, a[1] * k] : [a[1] * k, a[0] * k]);
const ivMul = (a: Iv, b: Iv): Iv => {
  const c = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]];
  return [c.reduce((x, y) => (x < y ? x : y)), c.reduce((x, y) => (x > y ? x : y))];
};
const floorDiv = (v: bigint, d: bigint) => (v >= 0n ? v / d : -((-v + d - 1n) / d));
const ivShr = (a: Iv, s: number): Iv => [floorDiv(a[0], 1n << BigInt(s)), floorDiv(a[1], 1n << BigInt(s))];
const bitsOf = (v: bigint) => v.toString(2).length;
const check = (what: string, iv: Iv) => {
  if (mag(iv) >= LIM) throw new Error(`fe25519: ${what} may overflow i64 (${bitsOf(mag(iv))} bits)`);
};

/** The limbs of a constant (canonical, in [0, 2^b_i)). */
export function limbs25519(v: bigint): bigint[] {
  v = ((v % P25519) + P25519) % P25519;
  return Array.from({ length: NL }, (_, i) => (v >> BigInt(POS[i])) & ((1n << BigInt(BITS[i])) - 1n));
}

/**
 * The field's functions as handles (created on first use, written by functions()), with the
 * bound classes they accept and return: tight (after a carry chain) and loose (a sum or
 * difference of two tight values), per limb.
 */
export class Fe25519 {
  readonly pre: string;
  /** bytes of an element in memory (ten i32 limbs) */
  readonly FE = FE25519;
  readonly flags: Fe25519Flags;
  /** limb intervals a carry chain guarantees */
  readonly tight: Iv[];
  /** limb intervals the products accept: LOOSE times the tight magnitude, either sign */
  readonly loose: Iv[];
  readonly consts = new Map<string, bigint>();
  readonly #funcs = new Map<string, Func>();

  constructor(prefix: string, flags: Fe25519Flags = {}) {
    this.pre = prefix;
    this.flags = flags;
    // safegcd: 32 bytes and 9 limbs of 29 bits; js: five elements for the chain of a^(p − 2)
    this.invWorkspace = target() === 'js' ? 5 * FE25519 : 32 + 72;
    this.testWorkspace = this.FE + 32;
    // tight: the fixed point of "carry the columns of a product of loose inputs"
    let tight: Iv[] = BITS.map((b) => [0n, (1n << BigInt(b)) - 1n]);
    for (let it = 0; it < 8; it++) {
      const loose = tight.map((t): Iv => [-LOOSE * mag(t), LOOSE * mag(t)]);
      const next = this.#carryBounds(this.#columnBounds(loose, loose, false));
      const sq = this.#carryBounds(this.#columnBounds(loose, loose, true));
      const merged = next.map((iv, i): Iv => [iv[0] < sq[i][0] ? iv[0] : sq[i][0], iv[1] > sq[i][1] ? iv[1] : sq[i][1]]);
      const widened = merged.map((iv, i): Iv => [iv[0] < tight[i][0] ? iv[0] : tight[i][0], iv[1] > tight[i][1] ? iv[1] : tight[i][1]]);
      if (widened.every((iv, i) => iv[0] === tight[i][0] && iv[1] === tight[i][1])) break;
      tight = widened;
    }
    this.tight = tight;
    this.loose = tight.map((t): Iv => [-LOOSE * mag(t), LOOSE * mag(t)]);
    this.addConst('one', 1n);
    this.addConst('zero', 0n);
  }

  addConst(name: string, v: bigint): void {
    this.consts.set(name, ((v % P25519) + P25519) % P25519);
  }

  // ---- handles -----------------------------------------------------------------------------------

  func(name: string, params: Record<string, 'i32' | 'i64'>, results: 'i32'[] = []): Func {
    let f = this.#funcs.get(name);
    if (!f) {
      f = new Func(`${this.pre}_${name}`, params, { results });
      this.#funcs.set(name, f);
    }
    return f;
  }
  has(name: string): boolean {
    return this.#funcs.has(name);
  }

  /** r = a·b (loose inputs, tight output) */
  get mul() {
    return this.func('mul', { r: 'i32', a: 'i32', b: 'i32' });
  }
  /** r = a² (loose input, tight output) */
  get sqr() {
    return this.func('sqr', { r: 'i32', a: 'i32' });
  }
  /** r = a + b, limbwise (tight inputs, loose output) */
  get add() {
    return this.func('add', { r: 'i32', a: 'i32', b: 'i32' });
  }
  /** r = a − b, limbwise (tight inputs, loose output) */
  get sub() {
    return this.func('sub', { r: 'i32', a: 'i32', b: 'i32' });
  }
  /** s = a + b and d = a − b, limbwise, each limb of a and b read once (tight inputs, loose outputs) */
  get addSub() {
    return this.func('add_sub', { s: 'i32', d: 'i32', a: 'i32', b: 'i32' });
  }
  /** r = −a, limbwise */
  get neg() {
    return this.func('neg', { r: 'i32', a: 'i32' });
  }
  /** r = a, carried (loose input, tight output) */
  get carry() {
    return this.func('carry', { r: 'i32', a: 'i32' });
  }
  /** (a, b) ← (b, a) when mask is all ones, unchanged when 0 */
  get cswap() {
    return this.func('cswap', { a: 'i32', b: 'i32', mask: 'i64' });
  }
  /** r ← a when mask is all ones */
  get cmov() {
    return this.func('cmov', { r: 'i32', a: 'i32', mask: 'i64' });
  }
  /** r ← 32 little-endian bytes at src, bit 255 ignored (RFC 7748, RFC 8032); tight */
  get fromBytes() {
    return this.func('from_bytes', { r: 'i32', src: 'i32' });
  }
  /** dst ← the canonical value of a (below p), 32 little-endian bytes */
  get toBytes() {
    return this.func('to_bytes', { dst: 'i32', a: 'i32' });
  }
  /** → 1 if the 255 low bits of the 32 bytes at src are a value below p (canonical) */
  get bytesCanonical() {
    return this.func('bytes_canonical', { src: 'i32' }, ['i32']);
  }
  /** → 1 iff a ≡ 0 */
  get isZero() {
    return this.func('is_zero', { a: 'i32', ws: 'i32' }, ['i32']);
  }
  /** → 1 iff a ≡ b */
  get eq() {
    return this.func('eq', { a: 'i32', b: 'i32', ws: 'i32' }, ['i32']);
  }
  /** → the low bit of the canonical value of a (RFC 8032's "negative") */
  get isNegative() {
    return this.func('is_negative', { a: 'i32', ws: 'i32' }, ['i32']);
  }
  /** r = a⁻¹ (0 for 0), constant time (safegcd); ws: 80 bytes */
  get inv() {
    return this.func('inv', { r: 'i32', a: 'i32', ws: 'i32' });
  }
  /** r = a⁻¹ by variable-time safegcd: public data only */
  get invVt() {
    return this.func('inv_vt', { r: 'i32', a: 'i32', ws: 'i32' });
  }
  /** e = a − b (loose) and r = a + c·(a − b) (tight), for tight a and b and a small constant c (|c| < 2^20) */
  subMulAdd(c: number): Func {
    if (!Number.isInteger(c) || c <= 0 || c >= 1 << 20) throw new Error('subMulAdd: 0 < c < 2^20');
    this.subMulAdds.add(c);
    return this.func(`sub_mul_add${c}`, { e: 'i32', r: 'i32', a: 'i32', b: 'i32' });
  }
  readonly subMulAdds = new Set<number>();
  /** r ← the named constant */
  setc(name: string): Func {
    if (!this.consts.has(name)) throw new Error(`${this.pre}: no constant ${name}`);
    return this.func(`set_${name}`, { r: 'i32' });
  }

  /** The work space inv and inv_vt need: 32 bytes and 9 limbs of 29 bits. */
  readonly invWorkspace: number;
  readonly testWorkspace: number;

  // ---- bounds ------------------------------------------------------------------------------------

  /** Coefficient of f_i·g_j in column (i + j) mod 10: 2 when both odd, 19 when it wraps. */
  static coeff(i: number, j: number): bigint {
    return (i % 2 === 1 && j % 2 === 1 ? 2n : 1n) * (i + j >= NL ? 19n : 1n);
  }

  #columnBounds(f: Iv[], g: Iv[], square: boolean): Iv[] {
    const cols: Iv[] = Array.from({ length: NL }, (): Iv => [0n, 0n]);
    for (let i = 0; i < NL; i++) {
      for (let j = 0; j < NL; j++) {
        if (square && j < i) continue;
        const k = (i + j) % NL;
        const c = Fe25519.coeff(i, j) * (square && i !== j ? 2n : 1n);
        cols[k] = ivAdd(cols[k], ivMulK(ivMul(f[i], square ? f[j] : g[j]), c));
      }
    }
    cols.forEach((c, k) => check(`column ${k}`, c));
    return cols;
  }

  /** The order of the two interleaved chains (ref10): limb i's carry goes into limb i + 1. */
  static readonly CARRY_ORDER = [0, 4, 1, 5, 2, 6, 3, 7, 4, 8, 9, 0];

  #carryBounds(cols: Iv[]): Iv[] {
    const h = cols.map((c): Iv => [c[0], c[1]]);
    for (const i of Fe25519.CARRY_ORDER) {
      const c = ivShr(h[i], BITS[i]);
      h[i] = [0n, (1n << BigInt(BITS[i])) - 1n];
      if (i === 9) h[0] = ivAdd(h[0], ivMulK(c, 19n));
      else h[i + 1] = ivAdd(h[i + 1], c);
      check('carry', h[(i + 1) % NL]);
    }
    return h;
  }

  // ---- code --------------------------------------------------------------------------------------

  #load(f: Func, prefix: string): L64[] {
    return Array.from({ length: NL }, (_, i) => f.i64(`${prefix}${i}`));
  }
  /** limb i of the element at ptr, as an i64 */
  ld(ptr: Local<'i32'> | Expr<'i32'>, i: number): E {
    return i64.load32_s(ptr, 4 * i);
  }
  /** limb i of the element at ptr ← v */
  st(ptr: Local<'i32'> | Expr<'i32'>, i: number, v: E | L64 | bigint | number): Stmt {
    return i64.store32(ptr, v, 4 * i);
  }
  #loadLines(f: Func, prefix: string, ptr: Local<'i32'>): Stmt[] {
    return this.#load(f, prefix).map((l, i) => l.set(this.ld(ptr, i)));
  }
  #storeLines(ptr: Local<'i32'>, h: L64[]): Stmt[] {
    return h.map((l, i) => this.st(ptr, i, l));
  }

  /** The carry chain over the column locals h (ref10's order); the result in h. */
  carryLines(h: L64[], c: L64): Stmt[] {
    const out: Stmt[] = [];
    for (const i of Fe25519.CARRY_ORDER) {
      const b = BITS[i];
      const dst = h[(i + 1) % NL];
      const lost = this.flags.dropCarry && i === 4;
      out.push(c.set(i64.shr_s(h[i], b)));
      if (!lost) out.push(dst.set(i === 9 ? i64.add(dst, i64.mul(c, 19)) : i64.add(dst, c)));
      out.push(h[i].set(i64.and(h[i], (1 << b) - 1)));
    }
    return out;
  }

  /**
   * On js, the product's ten columns come from two functions of five columns each (their results
   * the columns): one function of all 100 emulated i64 products was larger than V8 optimises
   * (it stayed in the baseline tier: X25519 ~20 ms instead of ~3), the square's 55 were not.
   */
  #columnHalves(): Func[] {
    if (!this.#halves) {
      this.#halves = [0, 1].map((half) => {
        const h = new Func(`${this.pre}_mul_cols${half}`, { a: 'i32', b: 'i32' }, { results: Array(NL / 2).fill('i64') });
        h.doc.push(`columns ${(NL / 2) * half} … ${(NL / 2) * half + NL / 2 - 1} of mul (the js target: see #columnHalves), each raw_k + 19·raw_(k+10), unreduced.`);
        const { body, cols } = this.#columns(h, false, (NL / 2) * half, (NL / 2) * (half + 1));
        h.emit(
          body,
          cols.map((c) => c.get()),
        );
        return h;
      });
    }
    return this.#halves;
  }
  #halves: Func[] | undefined;

  /** The product (or square) of the operands in f's parameters after r, into r. */
  #mulBody(f: Func, square: boolean): Stmt[] {
    const r = f.i32('r');
    if (!square && target() === 'js') {
      const h = Array.from({ length: NL }, (_, k) => f.i64(`h${k}`));
      const [a, b] = [f.i32('a'), f.i32('b')];
      const halves = this.#columnHalves();
      return [...setMany(call(halves[0], a, b), h.slice(0, NL / 2)), ...setMany(call(halves[1], a, b), h.slice(NL / 2)), ...this.carryLines(h, f.i64('c')), ...this.#storeLines(r, h)];
    }
    const { body, cols } = this.#evenOdd() ? this.#evenOddColumns(f, square) : this.#columns(f, square, 0, NL);
    return [...body, ...this.carryLines(cols, f.i64('c')), ...this.#storeLines(r, cols)];
  }

  /** Karatsuba over the even/odd limbs (#evenOddColumns), except on js (see #columnHalves) or when the flag asks for the schoolbook */
  #evenOdd(): boolean {
    return !this.flags.schoolbook && target() !== 'js';
  }

  /**
   * The ten columns by Karatsuba over the even/odd split. With X = 2^51, an element is
   * A(X) + 2^26·B(X), A the even limbs and B the odd ones, each a polynomial of five uniform
   * limbs; so f·g = AC + 2^26·(AD + BC) + 2X·BD, and AD + BC = (A + B)(C + D) − AC − BD: three
   * products of five by five limbs (75 multiplications; a square 45) where the schoolbook takes
   * 100 (55). AC lands in the even columns, 2X·BD in the even columns one up (the factor 2 of
   * two odd limbs), the middle term in the odd columns; each polynomial's coefficients of X^5 and
   * up are folded ×19 before they are combined.
   * Bounds: every column is the same integer as the schoolbook's (#columnBounds proves it below
   * 2^63). An intermediate such as (A + B)(C + D)'s coefficient may pass 2^63, but everything up
   * to the columns is addition, subtraction, multiplication and shl, exact modulo 2^64, so a
   * column that lies below 2^63 comes out exact; only the carry chain after it needs the bound.
   */
  #evenOddColumns(f: Func, square: boolean): { body: Stmt[]; cols: L64[] } {
    const H = NL / 2;
    const out: Stmt[] = [];
    /** the limbs 2k + odd (k = 0 … 4) of the element at ptr, into locals */
    const limbs = (name: string, ptr: Local<'i32'>, odd: number): L64[] => {
      const l = Array.from({ length: H }, (_, k) => f.i64(`${name}${k}`));
      out.push(...l.map((x, k) => x.set(this.ld(ptr, 2 * k + odd))));
      return l;
    };
    /** x + y limbwise, into locals */
    const sums = (name: string, x: L64[], y: L64[]): L64[] => {
      const l = x.map((_, k) => f.i64(`${name}${k}`));
      out.push(...l.map((s, k) => s.set(i64.add(x[k], y[k]))));
      return l;
    };
    /** the nine coefficients of x·y (five limbs each), those of X^5 … X^8 folded ×19 into 0 … 3 */
    const poly = (name: string, x: L64[], y: L64[]): L64[] => {
      const terms: E[][] = Array.from({ length: 2 * H - 1 }, () => []);
      for (let i = 0; i < H; i++)
        for (let j = square ? i : 0; j < H; j++) {
          const p = i64.mul(x[i], y[j]);
          terms[i + j].push(square && i !== j ? i64.shl(p, 1) : p);
        }
      const sum = (k: number): E => terms[k].reduce((u, v) => i64.add(u, v));
      const c = Array.from({ length: H }, (_, k) => f.i64(`${name}${k}`));
      for (let k = 0; k < H; k++) out.push(c[k].set(k + H < 2 * H - 1 ? i64.add(sum(k), i64.mul(sum(k + H), 19)) : sum(k)));
      return c;
    };
    const [a, b] = [f.i32('a'), square ? f.i32('a') : f.i32('b')];
    const A = limbs('fe', a, 0);
    const B = limbs('fo', a, 1);
    const C = square ? A : limbs('ge', b, 0);
    const D = square ? B : limbs('go', b, 1);
    const S = sums('s', A, B);
    const T = square ? S : sums('t', C, D);
    const P = poly('p', A, C);
    const Q = poly('q', B, D);
    const M = poly('m', S, T);
    const h = Array.from({ length: NL }, (_, k) => f.i64(`h${k}`));
    for (let k = 0; k < H; k++) {
      // even column 2k: AC_k + 2·BD_(k−1), BD_(−1) being 19·BD_4 (X^5 wraps)
      const q = k === 0 ? i64.mul(Q[H - 1], 38) : i64.shl(Q[k - 1], 1);
      out.push(comment(`columns ${2 * k}, ${2 * k + 1}`), h[2 * k].set(i64.add(P[k], q)), h[2 * k + 1].set(i64.sub(i64.sub(M[k], P[k]), Q[k])));
    }
    return { body: out, cols: h };
  }

  /** Columns from..to−1 of the product (or square) of the operands a (and b) of f, in locals h_k. */
  #columns(f: Func, square: boolean, from: number, to: number): { body: Stmt[]; cols: L64[] } {
    const out: Stmt[] = this.#loadLines(f, 'f', f.i32('a'));
    const F = (i: number) => f.i64(`f${i}`);
    const G = (j: number) => f.i64(square ? `f${j}` : `g${j}`);
    if (!square) out.push(...this.#loadLines(f, 'g', f.i32('b')));
    // operands times 2 or 4, each computed once (f_i·2 for odd i; in a square also f_i·4)
    const scaled = new Map<string, L64>();
    const pre: Stmt[] = [];
    const scale = (i: number, k: bigint): E => {
      if (k === 1n) return F(i).get();
      const key = `f${i}_${k}`;
      let l = scaled.get(key);
      if (!l) {
        l = f.i64(key);
        scaled.set(key, l);
        pre.push(l.set(i64.shl(F(i), k === 2n ? 1 : 2)));
      }
      return l.get();
    };
    // raw columns c = 0 … 18 (2^255 not yet folded): Σ f_i·g_j·(2 if both odd)(2 if a square's cross product)
    const raw: E[][] = Array.from({ length: 2 * NL - 1 }, () => []);
    for (let i = 0; i < NL; i++) {
      for (let j = square ? i : 0; j < NL; j++) {
        const k = (i % 2 === 1 && j % 2 === 1 ? 2n : 1n) * (square && i !== j ? 2n : 1n);
        raw[i + j].push(i64.mul(scale(i, k), G(j)));
      }
    }
    // h_k = raw_k + 19·raw_(k+10), the 19 as shifts and adds (off the multiplier)
    const h = Array.from({ length: to - from }, (_, k) => f.i64(`h${from + k}`));
    const u = f.i64('u');
    const times19 = (x: L64): E => i64.add(i64.add(x, i64.shl(x, 1)), i64.shl(x, 4));
    out.push(...pre);
    for (let k = from; k < to; k++) {
      const lo = raw[k].reduce((x, y) => i64.add(x, y));
      out.push(comment(`column ${k}`));
      if (k < NL - 1) out.push(u.set(raw[k + NL].reduce((x, y) => i64.add(x, y))), h[k - from].set(i64.add(lo, times19(u))));
      else out.push(h[k - from].set(lo));
    }
    return { body: out, cols: h };
  }

  #boundsDoc(square: boolean): string[] {
    const cols = this.#columnBounds(this.loose, this.loose, square);
    return [
      `Inputs: limb i within ±${this.loose.map((v) => `2^${Math.log2(Number(mag(v))).toFixed(2)}`).join(' ')} (loose).`,
      `Proven at generation time: |column k| < 2^b_k, b = ${cols.map((v) => bitsOf(mag(v))).join(' ')}; all < 2^63.`,
      ...(this.#evenOdd() ? ["Karatsuba's intermediates may pass 2^63; they are sums, differences and products modulo 2^64, and each column is the schoolbook's integer, so it is exact."] : []),
      `Output (tight): limb i in [${this.tight.map((v) => `${v[0]}, 2^${Math.log2(Number(v[1])).toFixed(3)}`).join('] [')}].`,
    ];
  }

  /** Canonical value of the limbs at a into the locals h (and the bytes at dst if given). */
  #canonLines(f: Func, a: Local<'i32'>): { code: Stmt[]; h: L64[] } {
    const h = this.#load(f, 'h');
    const c = f.i64('c');
    const code: Stmt[] = this.#loadLines(f, 'h', a);
    // three sequential passes with the top carry folded (×19): limbs in [0, 2^b), value below 2^255
    // (see docs/kernels/x25519.md for why three suffice for loose inputs)
    for (let pass = 0; pass < 3; pass++) {
      for (let i = 0; i < NL; i++) {
        code.push(c.set(i64.shr_s(h[i], BITS[i])), h[i].set(i64.and(h[i], (1 << BITS[i]) - 1)));
        const dst = h[(i + 1) % NL];
        code.push(dst.set(i === NL - 1 ? (pass === 2 ? dst.get() : i64.add(dst, i64.mul(c, 19))) : i64.add(dst, c)));
      }
    }
    // q = 1 iff value + 19 ≥ 2^255 (value ≥ p): the carry out of value + 19; then value + 19q mod 2^255
    code.push(c.set(19));
    for (let i = 0; i < NL; i++) code.push(c.set(i64.shr_s(i64.add(h[i], c), BITS[i])));
    code.push(h[0].set(i64.add(h[0], i64.mul(c, 19))));
    for (let i = 0; i < NL; i++) {
      code.push(c.set(i64.shr_s(h[i], BITS[i])), h[i].set(i64.and(h[i], (1 << BITS[i]) - 1)));
      if (i < NL - 1) code.push(h[i + 1].set(i64.add(h[i + 1], c)));
    }
    return { code, h };
  }

  /**
   * r = a^(p − 2) = a^(2^255 − 21) by ref10's chain (the js target's inversion: safegcd's i64
   * arithmetic, emulated on i32 halves, took about half of a signing: a profile of 400 Ed25519
   * signatures on js gave fe_inv and fe_inv_raw 1.3 s of 2.8 s).
   */
  #fermatLines(f: Func): Stmt[] {
    const { r, a, ws } = { r: f.i32('r'), a: f.i32('a'), ws: f.i32('ws') };
    const i = f.i32('i');
    const T = (k: number): Expr<'i32'> => (k ? i32.add(ws, k * FE25519) : ws.get());
    const [z11, e5, e10, e20, e50] = [0, 1, 2, 3, 4];
    const code: Stmt[] = [];
    const sqrN = (k: number, n: number) => {
      const lp = label('sq');
      code.push(i.set(n), loop(lp, call(this.sqr, T(k), T(k)), i.set(i32.sub(i, 1)), br_if(lp, i)));
    };
    /** T(dst) = T(src)^(2^n) · T(by) */
    const step = (dst: number, src: number, n: number, by: number) => {
      if (dst !== src) code.push(memory.copy(T(dst), T(src), FE25519));
      sqrN(dst, n);
      code.push(call(this.mul, T(dst), T(dst), T(by)));
    };
    code.push(
      call(this.sqr, T(z11), a), //              a^2
      call(this.sqr, T(e5), T(z11)),
      call(this.sqr, T(e5), T(e5)), //           a^8
      call(this.mul, T(e5), a, T(e5)), //        a^9
      call(this.mul, T(z11), T(z11), T(e5)), //  a^11
      call(this.sqr, T(e10), T(z11)), //         a^22
      call(this.mul, T(e5), T(e5), T(e10)), //   a^(2^5 − 1)
    );
    step(e10, e5, 5, e5); //     2^10 − 1
    step(e20, e10, 10, e10); //  2^20 − 1
    step(e50, e20, 20, e20); //  2^40 − 1
    step(e50, e50, 10, e10); //  2^50 − 1
    step(e5, e50, 50, e50); //   2^100 − 1 (e5's place is free)
    step(e10, e5, 100, e5); //   2^200 − 1
    step(e10, e10, 50, e50); //  2^250 − 1
    sqrN(e10, 5); //             2^255 − 32
    code.push(call(this.mul, r, T(e10), T(z11))); // 2^255 − 21
    return code;
  }

  /** The four little-endian words of canonical limbs h. */
  static words(h: L64[]): E[] {
    const out: E[] = [];
    for (let w = 0; w < 4; w++) {
      let e: E | undefined;
      for (let i = 0; i < NL; i++) {
        const lo = POS[i],
          hi = POS[i] + BITS[i];
        if (hi <= 64 * w || lo >= 64 * (w + 1)) continue;
        const s = lo - 64 * w;
        const part = s >= 0 ? (s ? i64.shl(h[i], s) : h[i].get()) : i64.shr_u(h[i], -s);
        e = e ? i64.or(e, part) : part;
      }
      out.push(e!);
    }
    return out;
  }

  /** The functions asked for so far (and those they call), with their bodies, in a fixed order. */
  functions(): Func[] {
    const deps: Record<string, string[]> = {
      eq: ['sub', 'to_bytes'],
      is_zero: ['to_bytes'],
      is_negative: ['to_bytes'],
      inv: ['to_bytes', 'from_bytes'],
      inv_vt: ['to_bytes', 'from_bytes'],
    };
    const needed = new Set<string>();
    const need = (n: string) => {
      if (needed.has(n)) return;
      needed.add(n);
      for (const d of deps[n] ?? []) need(d);
    };
    for (const n of this.#funcs.keys()) need(n);
    const out: Func[] = [];
    const pushed = new Set<string>();
    const emit = (name: string, f: Func, also: Func[] = []) => {
      pushed.add(name);
      if (needed.has(name)) out.push(...also, f);
    };
    {
      const f = this.mul;
      f.doc.push(
        this.#evenOdd() ? 'r = a·b mod p: Karatsuba over the even and odd limbs, 75 limb products, then the carry chains.' : 'r = a·b mod p: 100 limb products in 19 columns, the top nine folded ×19, then the carry chains.',
        ...this.#boundsDoc(false),
      );
      f.emit(this.#mulBody(f, false));
      emit('mul', f, target() === 'js' ? this.#columnHalves() : []);
    }
    {
      const f = this.sqr;
      f.doc.push(this.#evenOdd() ? 'r = a² mod p: Karatsuba over the even and odd limbs, 45 limb products, cross products doubled.' : 'r = a² mod p: 55 limb products, cross products doubled.', ...this.#boundsDoc(true));
      f.emit(this.#mulBody(f, true));
      emit('sqr', f);
    }
    for (const [name, op] of [
      ['add', i32.add],
      ['sub', i32.sub],
    ] as const) {
      const f = name === 'add' ? this.add : this.sub;
      f.doc.push(`r = a ${name === 'add' ? '+' : '−'} b limbwise, no carry (tight inputs, loose output).`);
      const { r, a, b } = { r: f.i32('r'), a: f.i32('a'), b: f.i32('b') };
      f.emit(Array.from({ length: NL }, (_, i) => i32.store(r, op(i32.load(a, 4 * i), i32.load(b, 4 * i)), 4 * i)));
      emit(name, f);
    }
    {
      const f = this.addSub;
      f.doc.push('s = a + b and d = a − b limbwise, no carry (tight inputs, loose outputs; s or d may be a or b).');
      const { s, d, a, b } = { s: f.i32('s'), d: f.i32('d'), a: f.i32('a'), b: f.i32('b') };
      const [x, y] = [f.i32('x'), f.i32('y')];
      f.emit(Array.from({ length: NL }, (_, i) => [x.set(i32.load(a, 4 * i)), y.set(i32.load(b, 4 * i)), i32.store(s, i32.add(x, y), 4 * i), i32.store(d, i32.sub(x, y), 4 * i)]).flat());
      emit('add_sub', f);
    }
    {
      const f = this.neg;
      const { r, a } = { r: f.i32('r'), a: f.i32('a') };
      f.emit(Array.from({ length: NL }, (_, i) => this.st(r, i, i64.sub(0, this.ld(a, i)))));
      emit('neg', f);
    }
    {
      const f = this.carry;
      f.doc.push('r = a with its carries propagated (loose input, tight output).');
      const h = this.#load(f, 'h');
      f.emit(this.#loadLines(f, 'h', f.i32('a')), this.carryLines(h, f.i64('c')), this.#storeLines(f.i32('r'), h));
      emit('carry', f);
    }
    for (const c of [...this.subMulAdds].sort((x, y) => x - y)) {
      const f = this.subMulAdd(c);
      const diff = this.tight.map((t): Iv => [t[0] - t[1], t[1] - t[0]]);
      const bound = this.#carryBounds(diff.map((v, i) => ivAdd(ivMulK(v, BigInt(c)), this.tight[i])));
      if (bound.some((v, i) => mag(v) > mag(this.tight[i]))) throw new Error(`sub_mul_add${c}: output not tight`);
      f.doc.push(`e = a − b limbwise (loose) and r = a + ${c}·(a − b) carried (tight), for tight a and b.`);
      const h = this.#load(f, 'h');
      const [x, d] = [f.i32('x'), f.i32('d')];
      const { e, r, a, b } = { e: f.i32('e'), r: f.i32('r'), a: f.i32('a'), b: f.i32('b') };
      const code: Stmt[] = [];
      for (let i = 0; i < NL; i++) {
        code.push(x.set(i32.load(a, 4 * i)), d.set(i32.sub(x, i32.load(b, 4 * i))), i32.store(e, d, 4 * i));
        code.push(h[i].set(i64.add(i64.extend_i32_s(x), i64.mul(i64.extend_i32_s(d), c))));
      }
      f.emit(code, this.carryLines(h, f.i64('c')), this.#storeLines(r, h));
      emit(`sub_mul_add${c}`, f);
    }
    for (const [name, swap] of [
      ['cswap', true],
      ['cmov', false],
    ] as const) {
      const f = swap ? this.cswap : this.cmov;
      const [x, y] = swap ? [f.i32('a'), f.i32('b')] : [f.i32('r'), f.i32('a')];
      const mask = f.i64('mask');
      const FE = this.FE;
      const code: Stmt[] = [];
      // SIMD128: 16 bytes at a time, then the tail word; the scalar targets: i64 words
      const simd = simdAllowed();
      const vecEnd = simd ? FE - (FE % 16) : 0;
      if (simd) {
        const m = f.v128('m'),
          t = f.v128('t');
        code.push(m.set(i64x2.splat(mask)));
        for (let o = 0; o < vecEnd; o += 16) {
          if (swap) {
            code.push(t.set(v128.and(v128.xor(v128.load(x, o), v128.load(y, o)), m)), v128.store(x, v128.xor(v128.load(x, o), t), o), v128.store(y, v128.xor(v128.load(y, o), t), o));
          } else {
            code.push(v128.store(x, v128.bitselect(v128.load(y, o), v128.load(x, o), m), o));
          }
        }
      }
      if (!simd && !swap) code.push(...cmovLines(f, x, y, mask, FE / 8));
      else {
        const tt = f.i64('tt');
        for (let o = vecEnd; o < FE; o += 8) {
          if (swap) {
            code.push(tt.set(i64.and(i64.xor(i64.load(x, o), i64.load(y, o)), mask)), i64.store(x, i64.xor(i64.load(x, o), tt), o), i64.store(y, i64.xor(i64.load(y, o), tt), o));
          } else {
            code.push(i64.store(x, i64.xor(i64.load(x, o), i64.and(i64.xor(i64.load(x, o), i64.load(y, o)), mask)), o));
          }
        }
      }
      f.doc.push(swap ? '(a, b) ← (b, a) where mask is all ones (xor under the mask).' : 'r ← a where mask is all ones.');
      f.emit(code);
      emit(name, f);
    }
    {
      const f = this.fromBytes;
      f.doc.push('r = the little-endian 32 bytes at src, bit 255 ignored: limbs in [0, 2^b_i) (tight).');
      const { r, src } = { r: f.i32('r'), src: f.i32('src') };
      // limb i: bits [POS_i, POS_i + b_i) from the 32-bit word at byte ⌊POS_i/8⌋ (shift + b_i ≤ 32)
      f.emit(
        Array.from({ length: NL }, (_, i) => {
          const byte = POS[i] >> 3,
            s = POS[i] & 7;
          if (s + BITS[i] > 32) throw new Error('from_bytes: limb straddles a word');
          const v = i32.and(i32.shr_u(i32.load(src, byte), s), (1 << BITS[i]) - 1);
          return i32.store(r, v, 4 * i);
        }),
      );
      emit('from_bytes', f);
    }
    {
      const f = this.toBytes;
      f.doc.push('dst = the canonical value of a (any loose input) as 32 little-endian bytes: three carry passes, then − p if ≥ p.');
      const { code, h } = this.#canonLines(f, f.i32('a'));
      f.emit(
        code,
        Fe25519.words(h).map((w, k) => i64.store(f.i32('dst'), w, 8 * k)),
      );
      emit('to_bytes', f);
    }
    {
      const f = this.bytesCanonical;
      f.doc.push('→ 1 iff the 255 low bits of the little-endian bytes at src are below p (canonical: below 2^255 − 19).');
      const src = f.i32('src');
      // below p unless every bit of 19…2^255 − 1 is set: the top 251 bits all ones and the low byte ≥ 0xed
      const w = (k: number) => i64.load(src, 8 * k);
      const hi = i64.and(i64.and(w(1), w(2)), i64.or(w(3), i64.const(1n << 63n, true)));
      const allOnes = i64.eq(i64.and(hi, i64.or(w(0), 0xff)), -1);
      const low = i64.ge_u(i64.and(w(0), 0xff), 0xed);
      f.emit(i32.eqz(i32.and(allOnes, low)));
      emit('bytes_canonical', f);
    }
    const tests: [string, Func][] = [
      ['is_zero', this.isZero],
      ['eq', this.eq],
      ['is_negative', this.isNegative],
    ];
    for (const [name, f] of tests) {
      const ws = f.i32('ws');
      const code: Stmt[] = [];
      if (name === 'eq') code.push(call(this.sub, ws, f.i32('a'), f.i32('b')), call(this.toBytes, i32.add(ws, this.FE), ws));
      else code.push(call(this.toBytes, i32.add(ws, this.FE), f.i32('a')));
      const w = (k: number) => i64.load(ws, this.FE + 8 * k);
      if (name === 'is_negative') code.push(i32.wrap_i64(i64.and(w(0), 1)));
      else code.push(i64.eqz(i64.or(i64.or(w(0), w(1)), i64.or(w(2), w(3)))));
      f.doc.push(name === 'is_negative' ? '→ the low bit of the canonical value (RFC 8032 section 5.1.2: x is "negative").' : name === 'eq' ? '→ 1 iff a ≡ b (mod p).' : '→ 1 iff a ≡ 0 (mod p).');
      f.emit(code);
      emit(name, f);
    }
    // inversion: canonical bytes → 9 limbs of 29 bits → safegcd → bytes → limbs; on js, a^(p − 2)
    const kinds: [Func, boolean][] = [[this.inv, true], ...(this.has('inv_vt') ? [[this.invVt, false] as [Func, boolean]] : [])];
    for (const [f, constantTime] of kinds) {
      if (target() === 'js') {
        f.doc.push(`r = a⁻¹ = a^(p − 2) mod p (0 for 0): 254 squarings and 11 products (a fixed chain); ws: ${this.invWorkspace} bytes.`);
        f.emit(this.#fermatLines(f));
        emit(f === this.inv ? 'inv' : 'inv_vt', f);
        continue;
      }
      const sg = safegcdFunction(`${f.name}_raw`, P25519, { constantTime });
      const { r, a, ws } = { r: f.i32('r'), a: f.i32('a'), ws: f.i32('ws') };
      const lw = (k: number) => i64.load(ws, 8 * k);
      const code: Stmt[] = [call(this.toBytes, ws, a)];
      for (let j = 0; j < 9; j++) {
        const lo = 29 * j,
          k = lo >> 6,
          s = lo & 63;
        let e: E = s ? i64.shr_u(lw(k), s) : lw(k);
        if (s + 29 > 64 && k + 1 < 4) e = i64.or(e, i64.shl(lw(k + 1), 64 - s));
        code.push(i64.store(ws, i64.and(e, (1 << 29) - 1), 32 + 8 * j));
      }
      code.push(call(sg.func, i32.add(ws, 32), i32.add(ws, 32), i32.add(ws, this.invWorkspace)));
      const L = (j: number) => i64.load(ws, 32 + 8 * j);
      for (let k = 0; k < 4; k++) {
        let e: E | undefined;
        for (let j = 0; j < 9; j++) {
          const lo = 29 * j,
            hi = lo + 29;
          if (hi <= 64 * k || lo >= 64 * (k + 1)) continue;
          const s = lo - 64 * k;
          const part = s >= 0 ? (s ? i64.shl(L(j), s) : L(j)) : i64.shr_u(L(j), -s);
          e = e ? i64.or(e, part) : part;
        }
        code.push(i64.store(ws, e!, 8 * k));
      }
      code.push(call(this.fromBytes, r, ws));
      f.doc.push(`r = a⁻¹ mod p (0 for 0) by ${constantTime ? 'constant-time' : 'variable-time (public data only)'} safegcd on the canonical value; ws: ${this.invWorkspace} bytes.`);
      f.emit(code);
      emit(f === this.inv ? 'inv' : 'inv_vt', f, [sg.func]);
    }
    for (const [name, v] of this.consts) {
      if (!this.has(`set_${name}`)) continue;
      const f = this.setc(name);
      f.emit(limbs25519(v).map((l, i) => this.st(f.i32('r'), i, l)));
      emit(`set_${name}`, f);
    }
    for (const name of needed) if (!pushed.has(name)) throw new Error(`${this.pre}_${name}: asked for but not generated`);
    return out;
  }
}

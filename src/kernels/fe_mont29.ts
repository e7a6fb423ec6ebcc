// Prime-field arithmetic for the elliptic curves: Montgomery multiplication in unsaturated 29-bit
// limbs, generated per modulus (each curve's p and n). This is the field core — representation,
// constants, the Montgomery product and a handle for each function of the field; the carry chains
// are fe_ops.ts, powers and square roots fe_pow.ts, the field's assembly fe_field.ts.
//
// Representation: x in Montgomery form x·R mod m, R = 2^(29·L), as L limbs of 29 bits in i64 (8
// bytes each in memory), L the least with R ≥ 16m (P-224: 8, 256 bits: 9, 384: 14, 512: 18,
// P-521: 19). Values stay in [0, 2m): R ≥ 16m makes a product of two such values come out below
// 2m with no final subtraction; the canonical value is made only at the edges.
//
// Multiplication: product scanning with the reduction interleaved: column k sums a_i·b_j (i + j
// = k), q_i·m_j (i < k) and the carry; while k < L its low 29 bits choose q_k = col·(−m⁻¹) mod
// 2^29. m is in signed radix 2^29: a zero digit costs nothing, ±2^s is a shift, and −m⁻¹ ≡ ±1
// (P-256, P-384, P-521, P-224) makes the quotient the column's own bits. From 14 limbs the
// products run on SIMD (i64x2.extmul) beside the scalar reduction (on the wasm target, their
// column sums come from two levels of Karatsuba instead: 123, 198, 216 products for 14, 18,
// 19 limbs, not L² = 196, 324, 361); for dense moduli from 9 limbs the reduction's higher
// digits run on SIMD. Column sums are chains for dense moduli, balanced trees otherwise
// (TurboFan schedules by the graph's shape).
//
// The js target (JavaScript has no 64-bit multiply: the printer writes an i64.mul as seven
// Math.imul on 16-bit pieces) uses the same code with 12-bit limbs in i32 (W = 12, P-256: 22
// limbs, FE 176 bytes; only each limb's low word in memory is read): a product of two limbs is
// one Math.imul, and mulCore proves every column below 2^31 (up to P-521's 44 limbs). From
// ROLL_FROM_TERMS multiplications (P-521, brainpoolP384r1, brainpoolP512r1) the product is a
// loop over a's limbs (rolledProduct), not unrolled. Inversion there is a^(m−2) (fe_field.ts).
// Opt-in per curve (src/ec/js/); test/backends.test.ts runs the curve family tests on it (the
// field suite against BigInt on 12-bit limbs, OpenSSL, Wycheproof).
//
// Why constant time: straight-line code on i64 (js: i32) values, no branch, address or division
// depending on data; i64.mul is imul, whose timing does not depend on its operands.
//
// Cost (P-256 p): mul 81 i64.mul, sqr 45. mulCore proves every column below 2^63 and the bounds are
// written beside each function in the WAT. Measurements: docs/kernels/ec.md. Negative-control
// flags (tests only): dropCarry (a column's carry lost), skipCorrection (the addition's masked
// correction skipped), fusedSignSlip (x·y − u·v computed as x·y + u·v).

import { type Expr, Func, type Local, type Stmt, br_if, comment, i32, i32x4, i64, i64x2, i8x16, label, loop, target, v128 } from './builder/index.js';
import { JS_LIMB_BITS, LIMB_BITS, POW_TABLE, bitLength, isDense, limbsFor, modInv, signedDigits, toLimbs } from './fe_limbs.js';

export { LIMB_BITS, limbsFor, modInv, toLimbs };

export interface FieldFlags {
  dropCarry?: boolean;
  skipCorrection?: boolean;
  /** mulwn computes u·v instead of u·(2m − v): a fused difference of products becomes a sum */
  fusedSignSlip?: boolean;
  /** products a·b on SIMD (i64x2.extmul), the reduction on scalar multiplies */
  simdProducts?: boolean;
  /** reduction products q_k·m_j for j ≥ this on SIMD (i64x2.extmul_low_i32x4_s), when the
   * products are scalar (squaring, products by constants); 0: none */
  simdReduce?: number;
  /** (wasm target) a·b's column sums by Karatsuba on the scalar multiplier (KARATSUBA_DEPTH levels) */
  karatsuba?: boolean;
}

/**
 * From this many limbs on, the wasm target's a·b runs through Karatsuba (the simd target's
 * runs on SIMD from the same size). One level measured against the schoolbook (bench
 * --base, 3 copies, AMD EPYC Zen 4, ECDH / ECDSA signing on wasm): P-384 −10.0 / −9.7 %, P-521
 * −3.9 / −4.4 %, brainpoolP384r1 −4.5 / −4.3 %, brainpoolP512r1 −4.7 / −5.0 %; from 8 limbs
 * on instead, the 8–9-limb curves moved −4.6 … +0.5 % (P-256 −0.6 / +0.5 %): no clear gain.
 */
export const KARATSUBA_FROM_LIMBS = 14;
/**
 * Levels of Karatsuba in those products (at two, each of the three half products is split again).
 * Two levels against one (bench --base, 3 copies, Zen 4, ECDH / signing on wasm): P-384
 * −0.7 / +1.5 %, P-521 −2.2 / −2.3 %, brainpoolP384r1 −3.3 / −0.4 %, brainpoolP512r1
 * −3.3 / −4.6 %; fp_mul in a loop: three levels were slower than two on P-384 and
 * brainpoolP384r1 (their quarter products are four limbs).
 */
export const KARATSUBA_DEPTH = 2;

/** From this many limbs on, a·b's products run on SIMD (see the measurements in the header). */
export const SIMD_FROM_LIMBS = 14;
/** With scalar products (a·b below 14 limbs, squaring, constant products) of a dense modulus
 * from SIMD_REDUCE_FROM_LIMBS limbs on, the reduction's q_k·m_j for j ≥ this run on SIMD
 * (measured with balanced column trees: 4–6 best on brainpoolP512r1, 4–5 on brainpoolP256r1;
 * re-measured with the column chains and paired constants, 4 against 5, --no-liftoff, min of
 * runs: sqr brainpoolP256r1 26.5 → 25.2 ns, P384r1 43.1 → 42.4, P512r1 61.1 → 60.0; mul
 * brainpoolP256r1 29.0 → 28.3; P-256 n mul 29.0 → 28.0, sqr 26.0 → 25.3; 3: P512r1 sqr 68 ns). */
export const SIMD_REDUCE_FROM_DIGIT = 4;
export const SIMD_REDUCE_FROM_LIMBS = 9;
/**
 * On js, a product with at least this many multiplications unrolled (L² products and L per
 * non-zero digit of m) is rolled instead: a loop over a's limbs (rolledProduct). Unrolled, P-521,
 * brainpoolP384r1 and brainpoolP512r1 (2024–3698 multiplications) made functions of 70–140 KB
 * that ran far slower (P-521 ECDH: about a second unrolled, 12.4 ms rolled, README);
 * P-384 (n: 1650) is the largest unrolled one.
 */
export const ROLL_FROM_TERMS = 2000;
type E = Expr<'i64'>;
type L64 = Local<'i64'>;

interface Term {
  e: E;
  neg: boolean;
}

/**
 * A sum of terms (positive ones added, negative ones subtracted): a balanced tree, or with
 * `chain` a chain in the order given (oldest operands first). TurboFan orders a block's pure
 * nodes by the shape of the graph, not by the order of the WAT: with a tree it computes every
 * product of a column before the first addition, and for a dense modulus (L reduction products
 * per column) those spill. Chains there: brainpoolP512r1 mul 2047 → 1882 x64 instructions
 * (spill stores 152 → 72), sqr 1689 → 1593 (with the paired constants, see mulCore). For the
 * sparse moduli the tree stays (P-384: chains +2–3% on ECDH and verification).
 */
function sum(I: typeof i64, terms: Term[], chain = false): E {
  const tree = (xs: E[]): E => {
    if (xs.length === 1) return xs[0];
    if (chain) return xs.reduce((x, y) => I.add(x, y));
    const h = xs.length >> 1;
    return I.add(tree(xs.slice(0, h)), tree(xs.slice(h)));
  };
  const pos = terms.filter((t) => !t.neg).map((t) => t.e);
  const neg = terms.filter((t) => t.neg).map((t) => t.e);
  if (pos.length === 0 && neg.length === 0) return I.const(0);
  if (neg.length === 0) return tree(pos);
  if (pos.length === 0) return I.sub(0, tree(neg));
  return I.sub(tree(pos), tree(neg));
}

/** x·d for a constant d, as a term (shift for ±2^s, nothing for 0). */
function constTerm(fg: FieldGen, x: L64, d: bigint): Term | undefined {
  if (d === 0n) return undefined;
  const neg = d < 0n;
  const a = neg ? -d : d;
  if (a === 1n) return { e: x.get(), neg };
  if ((a & (a - 1n)) === 0n) return { e: fg.I.shl(x, bitLength(a) - 1), neg };
  return { e: fg.I.mul(x, fg.k(d)), neg: false };
}

/** Where a multiplication's second operand comes from. */
/** b as locals, a constant, a itself, or `columns`: b at ptr, a·b's column sums computed first (SIMD on simd, Karatsuba on wasm) */
export type Operand = { kind: 'locals'; prefix: string } | { kind: 'const'; limbs: bigint[] } | 'square' | { kind: 'columns'; ptr: Local<'i32'> };

/** A named constant of the field, in Montgomery form unless `raw`. */
export interface FieldConst {
  name: string;
  value: bigint;
  raw?: boolean;
}

type P = Record<string, 'i32' | 'i64'>;

/**
 * The arithmetic modulo one prime m, generated: its representation (L limbs of 29 bits, the
 * signed digits of m, −m⁻¹ mod 2^29), its named constants, and a handle for each function the
 * module will carry (created on first use; fe_field.ts writes them, in a fixed order). The
 * functions that exist only when used — a product by a constant, a lazy subtraction, a zero
 * test, a fused product, the variable-time inversion — register themselves when asked for.
 */
export class FieldGen {
  readonly pre: string;
  readonly m: bigint;
  /** limb width: 29 bits in i64 on the WebAssembly targets; 12 bits in i32 on js, where an i64
   * product costs seven Math.imul (print_js.ts) and a 12-bit one is one */
  readonly W: number;
  readonly MASK: bigint;
  /** the type the limbs are computed in (memory keeps 8 bytes a limb either way: FE = 8L) */
  readonly T: 'i64' | 'i32';
  /** the operations on limbs: i64's, or on js i32's (the same names; the builder checks at
   * generation time that every operand of one field has the one type) */
  readonly I: typeof i64;
  readonly L: number;
  /** bytes of an element in memory */
  readonly FE: number;
  /** bytes of the big-endian encoding: ceil(bits(m)/8) */
  readonly bytes: number;
  readonly R: bigint;
  readonly flags: FieldFlags;
  readonly mLimbs: bigint[];
  readonly m2Limbs: bigint[];
  readonly digits: bigint[];
  readonly qinv: bigint;
  /** isDense(digits): the reduction multiplies (column sums as chains, see sum()) */
  readonly dense: boolean;
  readonly consts = new Map<string, bigint[]>();
  /** constants whose products are needed (mulc_<name>) */
  readonly mulConsts = new Set<string>(['r2']);
  /** the k of every sub_lazy_k the formulas use */
  readonly lazySubs = new Set<number>();
  /** generate inv_vt, the variable-time inversion (public data only) */
  varTimeInv = false;
  /** the bounds K of every is_zero_lt_K the formulas use */
  readonly zeroTests = new Set<number>();
  /** lazy-reduction functions the formulas use (see fe_field.ts: mulw, mulwn, mul2w) */
  readonly fused = new Set<'mulw' | 'mulwn' | 'mul2w'>();
  readonly #funcs = new Map<string, Func>();

  constructor(prefix: string, m: bigint, flags: FieldFlags = {}) {
    this.pre = prefix;
    this.m = m;
    this.T = target() === 'js' ? 'i32' : 'i64';
    this.W = this.T === 'i32' ? JS_LIMB_BITS : LIMB_BITS;
    this.MASK = (1n << BigInt(this.W)) - 1n;
    this.I = this.T === 'i32' ? (i32 as unknown as typeof i64) : i64;
    const W = this.W;
    this.L = limbsFor(m, W);
    this.FE = 8 * this.L;
    this.bytes = Math.ceil(bitLength(m) / 8);
    this.R = 1n << BigInt(W * this.L);
    // measured (bench on the curve kernels): SIMD products pay from 14 limbs on; at 8–9 limbs the
    // scalar form is as fast (the reduction chain, not the multiplier, bounds it)
    this.mLimbs = toLimbs(m, this.L, W);
    this.m2Limbs = toLimbs(2n * m, this.L, W);
    this.digits = signedDigits(m, this.L, W);
    const simdProducts = flags.simdProducts ?? this.L >= SIMD_FROM_LIMBS;
    this.dense = isDense(this.digits);
    this.flags = { simdProducts, simdReduce: this.L >= SIMD_REDUCE_FROM_LIMBS && this.dense ? SIMD_REDUCE_FROM_DIGIT : 0, ...flags };
    // the scalar targets: every product and reduction term on i64.mul (wasm) or i32.mul (js)
    if (target() !== 'simd') this.flags = { ...this.flags, simdProducts: false, simdReduce: 0 };
    if (target() === 'wasm') this.flags = { karatsuba: this.L >= KARATSUBA_FROM_LIMBS, ...this.flags };
    else this.flags = { ...this.flags, karatsuba: false };
    this.qinv = -modInv(m, 1n << BigInt(W)) & this.MASK;
    this.addConst({ name: 'one', value: 1n });
    this.addConst({ name: 'raw1', value: 1n, raw: true });
    this.addConst({ name: 'r2', value: (this.R * this.R) % m, raw: true });
    this.addConst({ name: 'r3', value: (this.R * this.R * this.R) % m, raw: true }, true);
    if (8 * this.bytes > W * this.L) throw new Error(`${prefix}: byte encoding wider than the limbs`);
  }

  /** Montgomery form of v. */
  mont(v: bigint): bigint {
    return ((((v % this.m) + this.m) % this.m) * this.R) % this.m;
  }

  addConst(c: FieldConst, withProduct = false): void {
    this.consts.set(c.name, toLimbs(c.raw ? c.value : this.mont(c.value), this.L, this.W));
    if (withProduct) this.mulConsts.add(c.name);
  }

  /** The work space (bytes) that inv and inv_vt need: the canonical copy of the input (safegcd
   * itself keeps everything in locals; fe_field.ts checks that); on js, whose inversion is
   * a^(m−2) by fe_pow.ts (safegcd's 62-bit steps would run on i64 emulated in halves), its
   * table of odd powers and a². */
  get invWorkspace(): number {
    return this.T === 'i32' ? (POW_TABLE + 1) * this.FE : this.FE;
  }

  // ---- limbs in the field's type ---------------------------------------------------------------

  /** A constant operand of the limb type. */
  k(v: bigint): bigint | number {
    return this.T === 'i64' ? v : Number(v);
  }

  /** The local `name` of f in the limb type (declared by the caller with f.locals(fg.T, …)). */
  v(f: Func, name: string): L64 {
    return (this.T === 'i64' ? f.i64(name) : f.i32(name)) as unknown as L64;
  }

  /** x mod 2^W */
  andM(e: E | L64): E {
    return this.I.and(e, this.I.const(this.k(this.MASK) as bigint, true));
  }

  /** The limb at ptr + off. On js only the low 32 bits are the limb (limbs and column sums
   * fit them); every reader of a limb in a js module reads those, never the high word. */
  ld(ptr: Local<'i32'>, off: number): E {
    return this.T === 'i64' ? i64.load(ptr, off) : (i32.load(ptr, off) as unknown as E);
  }

  /** Stores a limb at ptr + off: 8 bytes, or on js the low word (see ld). */
  st(ptr: Local<'i32'>, v: E | L64 | bigint, off: number): Stmt[] {
    if (this.T === 'i64') return [i64.store(ptr, v, off)];
    return [i32.store(ptr, (typeof v === 'bigint' ? Number(v) : v) as unknown as Expr<'i32'>, off)];
  }

  /** An i32 of a limb-typed value (wrap on i64). */
  i32of(e: E | L64): Expr<'i32'> {
    return this.T === 'i64' ? i32.wrap_i64(e) : (e as unknown as Expr<'i32'>);
  }

  /** A column's bound must stay below this (the limb type's signed range). */
  get columnLimit(): bigint {
    return 1n << (this.T === 'i64' ? 63n : 31n);
  }

  // ---- function handles ------------------------------------------------------------------------

  /** The function `<pre>_<name>` with these parameters, created on first use. */
  func(name: string, params: P, results: 'i32'[] = []): Func {
    let f = this.#funcs.get(name);
    if (!f) {
      f = new Func(`${this.pre}_${name}`, params, { results });
      this.#funcs.set(name, f);
    }
    return f;
  }

  /** A handle that exists only if asked for (fe_field.ts: the functions created so far). */
  has(name: string): boolean {
    return this.#funcs.has(name);
  }

  get mul() {
    return this.func('mul', { r: 'i32', a: 'i32', b: 'i32' });
  }
  get sqr() {
    return this.func('sqr', { r: 'i32', a: 'i32' });
  }
  get add() {
    return this.func('add', { r: 'i32', a: 'i32', b: 'i32' });
  }
  get sub() {
    return this.func('sub', { r: 'i32', a: 'i32', b: 'i32' });
  }
  get addLazy() {
    return this.func('add_lazy', { r: 'i32', a: 'i32', b: 'i32' });
  }
  get neg() {
    return this.func('neg', { r: 'i32', a: 'i32' });
  }
  get canon() {
    return this.func('canon', { r: 'i32', a: 'i32' });
  }
  get eq() {
    return this.func('eq', { a: 'i32', b: 'i32' }, ['i32']);
  }
  get eqOne() {
    return this.func('eq_one', { a: 'i32' }, ['i32']);
  }
  get isZero() {
    return this.func('is_zero', { a: 'i32' }, ['i32']);
  }
  get cmov() {
    return this.func('cmov', { r: 'i32', a: 'i32', mask: 'i64' });
  }
  get fromBytes() {
    return this.func('from_bytes', { r: 'i32', src: 'i32' });
  }
  get fromBytesRaw() {
    return this.func('from_bytes_raw', { r: 'i32', src: 'i32' });
  }
  get toBytes() {
    return this.func('to_bytes', { dst: 'i32', a: 'i32' });
  }
  get bytesLt() {
    return this.func('bytes_lt', { src: 'i32' }, ['i32']);
  }
  get bytesNonzero() {
    return this.func('bytes_nonzero', { src: 'i32' }, ['i32']);
  }
  get inv() {
    return this.func('inv', { r: 'i32', a: 'i32', ws: 'i32' });
  }
  /** the variable-time inversion (public data only); asking for it generates it */
  get invVt() {
    this.varTimeInv = true;
    return this.func('inv_vt', { r: 'i32', a: 'i32', ws: 'i32' });
  }
  get sqrt() {
    return this.func('sqrt', { r: 'i32', a: 'i32', ws: 'i32' }, ['i32']);
  }

  /** r ← a·c for the named constant c (its product generated on first use). */
  mulc(name: string): Func {
    if (!this.consts.has(name)) throw new Error(`${this.pre}: no constant ${name}`);
    this.mulConsts.add(name);
    return this.func(`mulc_${name}`, { r: 'i32', a: 'i32' });
  }

  /** r ← the named constant c. */
  setc(name: string): Func {
    if (!this.consts.has(name)) throw new Error(`${this.pre}: no constant ${name}`);
    return this.func(`set_${name}`, { r: 'i32' });
  }

  /** r ← a − b + k·m, unreduced (for b < k·m). */
  subLazy(k: number): Func {
    this.lazySubs.add(k);
    return this.func(`sub_lazy_${k}`, { r: 'i32', a: 'i32', b: 'i32' });
  }

  /** → 1 if a ≡ 0 for a value below K·m. */
  isZeroLt(K: number): Func {
    this.zeroTests.add(K);
    return this.func(`is_zero_lt_${K}`, { a: 'i32' }, ['i32']);
  }

  /** The lazy reduction of x·y ± u·v: mulw / mulwn (w, u, v), then mul2w (r, x, y, w). */
  fusedMul(kind: 'mulw' | 'mulwn' | 'mul2w'): Func {
    this.fused.add(kind);
    return kind === 'mul2w' ? this.func('mul2w', { r: 'i32', a: 'i32', b: 'i32', w: 'i32' }) : this.func(kind, { w: 'i32', a: 'i32', b: 'i32' });
  }

  // ---- Montgomery multiplication core ----------------------------------------------------------

  /** Declares the product's locals in f (see mulCore): acc, c, extra, a_i b_i q_i r_i, …. */
  mulLocals(f: Func, extra: string[] = [], simd = false): void {
    const L = this.L;
    const names: string[] = ['acc', 'c', ...extra];
    for (let i = 0; i < L; i++) names.push(`a${i}`, `b${i}`, `q${i}`, `r${i}`);
    if (simd || this.flags.karatsuba) for (let k = 0; k <= 2 * L - 2; k++) names.push(`s${k}`);
    f.locals(this.T, names);
    const vr = this.flags.simdReduce ? ['vq', ...Array.from({ length: L }, (_, v) => `vr${v}`), ...Array.from({ length: 2 * L }, (_, v) => `vk${v}`)] : [];
    const v = simd ? [...vr, 'vs', ...Array.from({ length: Math.ceil(L / 2) }, (_, t) => `va${t}`), ...Array.from({ length: L + 1 }, (_, j) => `vb${j}`)] : vr;
    f.locals('v128', v);
  }

  /** Locals `${prefix}0…` ← the L limbs at ptr. */
  loadLimbs(f: Func, prefix: string, ptr: Local<'i32'>): Stmt[] {
    return Array.from({ length: this.L }, (_, i) => this.v(f, `${prefix}${i}`).set(this.ld(ptr, 8 * i)));
  }

  storeLimbs(f: Func, ptr: Local<'i32'>, prefix: string): Stmt[] {
    return Array.from({ length: this.L }, (_, i) => this.st(ptr, this.v(f, `${prefix}${i}`), 8 * i)).flat();
  }

  /**
   * The column sums Σ a_i·b_(k−i) on SIMD: pairs A_t = (a_2t, a_2t+1) against reversed pairs
   * B_j = (b_j, b_(j−1)) with i64x2.extmul_low_i32x4_u, two products per instruction, lanes
   * added per column. Operands read from memory at a and bPtr (i64 limbs); sums into s0….
   */
  #simdColumns(f: Func, bPtr: Local<'i32'>): Stmt[] {
    const L = this.L;
    const a = f.i32('a');
    const out: Stmt[] = [];
    const T = Math.ceil(L / 2);
    // i32 lanes 0,1 ← bytes 0–3 and 8–11 of an i64x2 (the low halves of two limbs)
    const packLo = '0 1 2 3 8 9 10 11 0 1 2 3 8 9 10 11';
    const packSwap = '8 9 10 11 0 1 2 3 8 9 10 11 0 1 2 3';
    for (let t = 0; t < T; t++) {
      const ld = 2 * t + 1 < L ? v128.load(a, 16 * t) : v128.load64_zero(a, 16 * t);
      out.push(f.v128(`va${t}`).set(i8x16.shuffle(ld, ld, packLo)));
    }
    for (let j = 0; j <= L; j++) {
      let e: Expr<'v128'>;
      if (j === 0) e = v128.load64_zero(bPtr, 0);
      else if (j === L) {
        const ld = v128.load64_zero(bPtr, 8 * (L - 1));
        e = i8x16.shuffle(ld, ld, '4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3');
      } else {
        const ld = v128.load(bPtr, 8 * (j - 1));
        e = i8x16.shuffle(ld, ld, packSwap);
      }
      out.push(f.v128(`vb${j}`).set(e));
    }
    const vs = f.v128('vs');
    for (let k = 0; k <= 2 * L - 2; k++) {
      const terms: Expr<'v128'>[] = [];
      for (let t = 0; t < T; t++) {
        const j = k - 2 * t;
        if (j < 0 || j > L) continue;
        terms.push(i64x2.extmul_low_i32x4_u(f.v128(`va${t}`), f.v128(`vb${j}`)));
      }
      const tree = (xs: Expr<'v128'>[]): Expr<'v128'> => (xs.length === 1 ? xs[0] : i64x2.add(tree(xs.slice(0, xs.length >> 1)), tree(xs.slice(xs.length >> 1))));
      out.push(vs.set(tree(terms)), f.i64(`s${k}`).set(i64.add(i64x2.extract_lane(vs, 0), i64x2.extract_lane(vs, 1))));
    }
    return out;
  }

  /**
   * The column sums Σ a_i·b_(k−i) by Karatsuba on the scalar multiplier (the wasm target),
   * KARATSUBA_DEPTH levels: with h = ⌈n/2⌉ and the halves x = x' + B^h·x'' (B = 2^29), the
   * columns of x'·y', x''·y'' and (x' + x'')(y' + y'') give c_k = P_k + M_(k−h) − P_(k−h)
   * − Q_(k−h) + Q_(k−2h), each of the three again by Karatsuba one level down (schoolbook at the
   * bottom, or below four limbs). Each s_k is the schoolbook's column, a true integer below the
   * column bound; the intermediates are exact modulo 2^64. Operands from memory at a and bPtr.
   */
  #karatsubaColumns(f: Func, bPtr: Local<'i32'>): Stmt[] {
    const L = this.L;
    const a = f.i32('a');
    const out: Stmt[] = [];
    const A = (i: number) => f.i64(`a${i}`);
    const Bv = (i: number) => f.i64(`b${i}`);
    for (let i = 0; i < L; i++) out.push(A(i).set(this.ld(a, 8 * i)), Bv(i).set(this.ld(bPtr, 8 * i)));
    /** the 2n − 1 column sums of x·y (n limbs each), by Karatsuba `depth` levels deep, into locals */
    const cols = (name: string, n: number, x: (i: number) => Expr<'i64'>, y: (i: number) => Expr<'i64'>, depth: number): Local<'i64'>[] => {
      const c = Array.from({ length: 2 * n - 1 }, (_, k) => f.i64(`${name}${k}`));
      if (depth === 0 || n < 4) {
        for (let k = 0; k <= 2 * n - 2; k++) {
          const terms: Term[] = [];
          for (let i = Math.max(0, k - n + 1); i <= Math.min(k, n - 1); i++) terms.push({ e: i64.mul(x(i), y(k - i)), neg: false });
          out.push(c[k].set(sum(i64, terms, false)));
        }
        return c;
      }
      const h = Math.ceil(n / 2);
      const sx = Array.from({ length: h }, (_, i) => f.i64(`${name}x${i}`));
      const sy = Array.from({ length: h }, (_, i) => f.i64(`${name}y${i}`));
      for (let i = 0; i < h; i++) out.push(sx[i].set(i + h < n ? i64.add(x(i), x(i + h)) : x(i)), sy[i].set(i + h < n ? i64.add(y(i), y(i + h)) : y(i)));
      const P = cols(`${name}p`, h, x, y, depth - 1);
      const Q = cols(
        `${name}q`,
        n - h,
        (i) => x(i + h),
        (i) => y(i + h),
        depth - 1,
      );
      const M = cols(
        `${name}m`,
        h,
        (i) => sx[i].get(),
        (i) => sy[i].get(),
        depth - 1,
      );
      for (let k = 0; k <= 2 * n - 2; k++) {
        const terms: Term[] = [];
        if (k < P.length) terms.push({ e: P[k].get(), neg: false });
        const j = k - h;
        if (j >= 0 && j < M.length) {
          terms.push({ e: M[j].get(), neg: false });
          if (j < P.length) terms.push({ e: P[j].get(), neg: true });
          if (j < Q.length) terms.push({ e: Q[j].get(), neg: true });
        }
        if (k - 2 * h >= 0 && k - 2 * h < Q.length) terms.push({ e: Q[k - 2 * h].get(), neg: false });
        out.push(c[k].set(sum(i64, terms, false)));
      }
      return c;
    };
    const S = cols(
      'k',
      L,
      (i) => A(i).get(),
      (i) => Bv(i).get(),
      KARATSUBA_DEPTH,
    );
    for (let k = 0; k <= 2 * L - 2; k++) out.push(f.i64(`s${k}`).set(S[k]));
    return out;
  }

  /**
   * Montgomery multiplication in f (its locals from mulLocals): operand a in locals a0…, b in
   * locals, constants, itself (square) or as column sums made first from memory (`columns`:
   * SIMD on simd, Karatsuba on wasm); the result r0…r(L−1) below 2m for
   * operands whose bounds multiply to at most R/m. Product scanning with the reduction
   * interleaved: column k sums its products, its reduction terms q_i·m_(k−i) and the carry; its
   * low 29 bits choose q_k while k < L; columns L … 2L−2 give the result. `wide`: the unreduced
   * columns of a second product at that pointer (mul2w). Returns the statements and each
   * column's proven bound (|column| < bound).
   */
  mulCore(f: Func, src: Operand, wide?: Local<'i32'>): { code: Stmt[]; bounds: bigint[] } {
    const L = this.L;
    const out: Stmt[] = [];
    const bounds = this.#columnBounds(typeof src === 'object' && src.kind === 'const' ? src : 'products', wide !== undefined);
    const columns = typeof src === 'object' && src.kind === 'columns';
    if (typeof src === 'object' && src.kind === 'columns') out.push(...(target() === 'simd' ? this.#simdColumns(f, src.ptr) : this.#karatsubaColumns(f, src.ptr)));
    const [acc, c] = [this.v(f, 'acc'), this.v(f, 'c')];
    const { I, W } = this;
    // digits j ≥ sr of the reduction on SIMD (0: none), only when the products are scalar
    const sr = columns ? 0 : (this.flags.simdReduce ?? 0);
    const simdRed = { init: new Set<number>(), pairs: new Map<string, number>() };
    for (let k = 0; k <= 2 * L - 2; k++) {
      const p = this.#productTerms(f, src, k, wide);
      const r = this.#reductionTerms(f, k, sr);
      let col = sum(I, [...p, ...r.terms], this.dense);
      if (r.late) col = r.late.neg ? I.sub(col, r.late.e) : I.add(col, r.late.e);
      const dropped = this.flags.dropCarry && k === L + 1;
      if (k > 0 && !dropped) col = I.add(col, c);
      out.push(comment(`column ${k}`), acc.set(col));
      out.push(...(k < L ? this.#quotient(f, k, sr, simdRed) : [this.v(f, `r${k - L}`).set(this.andM(acc)), c.set(I.shr_s(acc, W))]));
    }
    out.push(this.v(f, `r${L - 1}`).set(c));
    if (simdRed.pairs.size > 2 * L) throw new Error('too many constant pairs');
    // two digit pairs per constant: the low half for extmul_low, the high half for extmul_high
    const keys = [...simdRed.pairs.keys()];
    out.unshift(...Array.from({ length: Math.ceil(keys.length / 2) }, (_, n) => f.v128(`vk${n}`).set(v128.i32x4(`${keys[2 * n]} ${keys[2 * n + 1] ?? '0 0'}`.split(' ')))));
    return { code: out, bounds };
  }

  /** Are this field's products rolled (js, from ROLL_FROM_TERMS multiplications; see rolledProduct)? */
  get rolled(): boolean {
    const nz = this.digits.filter((d) => d !== 0n).length;
    return this.T === 'i32' && this.L * this.L + this.L * nz >= ROLL_FROM_TERMS;
  }

  /**
   * The proven bounds of a product's columns (|column k| < bound): its products a_i·b_(k−i)
   * (each below 2^2W, or 2^W·|c| by a constant's limb; a square's doubled cross products count
   * twice, the same), its reduction terms q_i·m_(k−i), a wide column's up-to-L products (mul2w),
   * and the carry in; also that the column with its own quotient's term q_k·m_0 stays in range.
   * mulCore and rolledProduct sum the same terms per column (in other orders), so every partial
   * sum is bounded by its column's bound.
   */
  #columnBounds(src: 'products' | { kind: 'const'; limbs: bigint[] }, wide = false): bigint[] {
    const { L, MASK, W } = this;
    const abs = (d: bigint) => (d < 0n ? -d : d);
    const d0 = abs(this.digits[0]);
    const bounds: bigint[] = [];
    let carryBound = 0n;
    for (let k = 0; k <= 2 * L - 2; k++) {
      let bound = carryBound;
      for (let i = Math.max(0, k - L + 1); i <= Math.min(k, L - 1); i++) bound += typeof src === 'object' ? MASK * abs(src.limbs[k - i]) : MASK * MASK;
      for (let i = Math.max(0, k - L + 1); i <= Math.min(k - 1, L - 1); i++) bound += MASK * abs(this.digits[k - i]);
      if (wide) bound += BigInt(Math.min(k, 2 * L - 2 - k) + 1) * MASK * MASK;
      const own = k < L ? MASK * d0 : 0n;
      if (bound + own >= this.columnLimit) throw new Error(`${this.pre}: column ${k} may overflow`);
      bounds.push(bound);
      carryBound = ((bound + own) >> BigInt(W)) + 1n;
    }
    return bounds;
  }

  /**
   * Montgomery multiplication as a loop over a's limbs (js, for the fields with the most
   * products: unrolled, they ran far slower, see ROLL_FROM_TERMS). Operand scanning with the
   * reduction interleaved, in locals t_0 … t_(L−1): row i adds a_i·b_j to t_j, takes q_i from
   * t_0 (the low W bits of column i: the same digit as mulCore's), adds q_i·m_j to t_j, and
   * shifts t down by one limb, t_0's carry into t_1. After L rows t holds columns L … 2L − 2
   * (uncarried), and one carry chain gives r. Every column is the same sum as in mulCore, with
   * the same carries, so the same bounds hold (#columnBounds). b comes from memory at b (or a,
   * squaring: no cross-product saving) into locals, or is a constant (immediates); a_i is read
   * at a + 8i in the loop (a public address); r, written last, may be a or b.
   */
  rolledProduct(f: Func, src: 'square' | 'locals' | { kind: 'const'; limbs: bigint[] }): { code: Stmt[]; bounds: bigint[] } {
    const { L, I, W } = this;
    const bounds = this.#columnBounds(typeof src === 'object' ? src : 'products');
    const [r, a] = [f.i32('r'), f.i32('a')];
    const [p, end] = [f.i32('p'), f.i32('end')];
    const t = (j: number) => this.v(f, `t${j}`);
    const [ai, q] = [this.v(f, 'ai'), this.v(f, 'q')];
    f.locals(this.T, ['ai', 'q', ...Array.from({ length: L }, (_, j) => `t${j}`)]);
    const out: Stmt[] = [];
    if (typeof src !== 'object') {
      f.locals(
        this.T,
        Array.from({ length: L }, (_, j) => `b${j}`),
      );
      out.push(...this.loadLimbs(f, 'b', src === 'square' ? a : f.i32('b')));
    }
    const addTo = (j: number, term: Term | undefined): Stmt[] => (term ? [t(j).set(term.neg ? I.sub(t(j), term.e) : I.add(t(j), term.e))] : []);
    const row = label('row');
    const d0 = this.digits[0];
    const qOf = this.qinv === 1n ? this.andM(t(0)) : this.qinv === this.MASK ? this.andM(I.sub(0, t(0))) : this.andM(I.mul(t(0), this.k(this.qinv)));
    out.push(
      ...Array.from({ length: L }, (_, j) => t(j).set(I.const(0))),
      p.set(a),
      end.set(i32.add(a, 8 * L)),
      loop(
        row,
        ai.set(this.ld(p, 0)),
        Array.from({ length: L }, (_, j) => addTo(j, typeof src === 'object' ? constTerm(this, ai, src.limbs[j]) : { e: I.mul(ai, this.v(f, `b${j}`)), neg: false })).flat(),
        q.set(qOf),
        // t_0 + q·m_0 ≡ 0 mod 2^W; with m_0 = −1 and q = t_0 mod 2^W, t_0 − q has t_0's high part
        Array.from({ length: L - 1 }, (_, j) => addTo(j + 1, constTerm(this, q, this.digits[j + 1]))).flat(),
        d0 === -1n && this.qinv === 1n ? [] : addTo(0, constTerm(this, q, d0)),
        this.flags.dropCarry ? t(0).set(t(1)) : t(0).set(I.add(t(1), I.shr_s(t(0), W))),
        Array.from({ length: L - 2 }, (_, j) => t(j + 1).set(t(j + 2))),
        t(L - 1).set(I.const(0)),
        p.set(i32.add(p, 8)),
        br_if(row, i32.lt_u(p, end)),
      ),
    );
    for (let j = 0; j < L - 1; j++) out.push(...this.st(r, this.andM(t(j)), 8 * j), t(j + 1).set(I.add(t(j + 1), I.shr_s(t(j), W))));
    out.push(...this.st(r, t(L - 1), 8 * (L - 1)));
    return { code: out, bounds };
  }

  /** Column k's products a_i·b_(k−i) (or the square's, or the SIMD sum, plus a wide column); their bound: #columnBounds. */
  #productTerms(f: Func, src: Operand, k: number, wide?: Local<'i32'>): Term[] {
    const { L, I } = this;
    const A = (i: number) => this.v(f, `a${i}`);
    const terms: Term[] = [];
    const lo = Math.max(0, k - L + 1),
      hi = Math.min(k, L - 1);
    if (src === 'square') {
      // cross products summed once, then doubled; the square of the middle limb added after
      const cross: Term[] = [];
      for (let i = lo; i <= hi; i++) {
        if (i < k - i) cross.push({ e: I.mul(A(i), A(k - i)), neg: false });
      }
      if (cross.length) terms.push({ e: I.shl(sum(I, cross, this.dense), 1), neg: false });
      if (k % 2 === 0) terms.push({ e: I.mul(A(k / 2), A(k / 2)), neg: false });
    } else if (src.kind === 'columns') {
      terms.push({ e: f.i64(`s${k}`).get(), neg: false });
    } else {
      for (let i = lo; i <= hi; i++) {
        if (src.kind === 'locals') terms.push({ e: I.mul(A(i), this.v(f, `${src.prefix}${k - i}`)), neg: false });
        else {
          const t = constTerm(this, A(i), src.limbs[k - i]);
          if (t) terms.push(t);
        }
      }
      if (wide) {
        // column k of a product left unreduced by mulw (up to L products, signed limbs)
        terms.push({ e: this.ld(wide, 8 * k), neg: false });
      }
    }
    return terms;
  }

  /**
   * Column k's reduction terms q_i·m_(k−i) (their bound: #columnBounds): the newest quotient
   * digit apart (`late`, added last: it is on the carry path), digits j ≥ sr from the SIMD
   * accumulators.
   */
  #reductionTerms(f: Func, k: number, sr: number): { terms: Term[]; late?: Term } {
    const L = this.L;
    const terms: Term[] = [];
    let late: Term | undefined;
    let fromSimd = false;
    for (let i = Math.max(0, k - L + 1); i <= Math.min(k - 1, L - 1); i++) {
      const d = this.digits[k - i];
      const t = constTerm(this, this.v(f, `q${i}`), d);
      if (!t) continue;
      if (i === k - 1) late = t;
      else if (!sr || k - i < sr) terms.push(t);
      else fromSimd = true;
    }
    if (fromSimd) terms.push({ e: i64x2.extract_lane(f.v128(`vr${k >> 1}`), k & 1), neg: false });
    return { terms, late };
  }

  /**
   * The quotient digit q_k = acc·(−m⁻¹) mod 2^29 (then acc + q_k·m_0 ≡ 0 mod 2^29), its SIMD
   * reduction products (digits j ≥ sr into the column-pair accumulators vr), and the carry.
   */
  #quotient(f: Func, k: number, sr: number, simdRed: { init: Set<number>; pairs: Map<string, number> }): Stmt[] {
    const L = this.L;
    const [acc, c, q] = [this.v(f, 'acc'), this.v(f, 'c'), this.v(f, `q${k}`)];
    const { I, W } = this;
    const out: Stmt[] = [q.set(this.qinv === 1n ? this.andM(acc) : this.qinv === this.MASK ? this.andM(I.sub(0, acc)) : this.andM(I.mul(acc, this.k(this.qinv))))];
    if (sr) {
      // q_k·m_j for j ≥ sr on SIMD: column k + j is lane (k + j) & 1 of vr_((k + j) >> 1)
      const vq = f.v128('vq');
      out.push(vq.set(i32x4.splat(i32.wrap_i64(q))));
      const byV = new Map<number, [bigint, bigint]>();
      for (let j = sr; j < L; j++) {
        const d = this.digits[j];
        if (d === 0n) continue;
        const cl = k + j,
          v = cl >> 1;
        const pair = byV.get(v) ?? [0n, 0n];
        pair[cl & 1] = d;
        byV.set(v, pair);
      }
      for (const [v, [da, db]] of byV) {
        const key = `${da} ${db}`;
        if (!simdRed.pairs.has(key)) simdRed.pairs.set(key, simdRed.pairs.size);
        const n = simdRed.pairs.get(key)!;
        const kv = f.v128(`vk${n >> 1}`);
        const p = n & 1 ? i64x2.extmul_high_i32x4_s(vq, kv) : i64x2.extmul_low_i32x4_s(vq, kv);
        const vr = f.v128(`vr${v}`);
        out.push(vr.set(simdRed.init.has(v) ? i64x2.add(vr, p) : p));
        simdRed.init.add(v);
      }
    }
    const d0 = this.digits[0];
    if (d0 === -1n && this.qinv === 1n) {
      out.push(c.set(I.shr_s(acc, W))); // acc − (acc mod 2^W) has the same high part
    } else {
      const t = constTerm(this, q, d0)!;
      out.push(c.set(I.shr_s(t.neg ? I.sub(acc, t.e) : I.add(acc, t.e), W)));
    }
    return out;
  }
}

/**
 * The products of the field, in module order: mul, the fused products in use (mul2w, mulw,
 * mulwn), sqr, and for each constant its product (when used) and its setter.
 */
export function productFunctions(fg: FieldGen): Func[] {
  const { L, W, I } = fg;
  const out: Func[] = [];
  const body = (f: Func, operand: Operand, load: 'a' | 'ab', wide?: Local<'i32'>) => {
    if (fg.rolled) {
      if (wide || (typeof operand === 'object' && operand.kind === 'columns')) throw new Error(`${fg.pre}: a rolled product takes no wide columns or precomputed column sums`);
      const core = fg.rolledProduct(f, operand === 'square' ? 'square' : operand.kind === 'const' ? operand : 'locals');
      f.doc.push('Rolled: a loop over the limbs of a (rolledProduct).', ...boundsDoc(fg, core.bounds));
      f.emit(core.code);
      return;
    }
    const { r, a } = { r: f.i32('r'), a: f.i32('a') };
    const loads = [...fg.loadLimbs(f, 'a', a), ...(load === 'ab' ? fg.loadLimbs(f, 'b', f.i32('b')) : [])];
    const core = fg.mulCore(f, operand, wide);
    f.doc.push(...boundsDoc(fg, core.bounds));
    f.emit(loads, core.code, fg.storeLimbs(f, r, 'r'));
  };
  // mul
  {
    const f = fg.mul;
    f.doc.push(`r = a·b·R⁻¹ mod m (R = 2^${W * L}), for a, b below 2m (so a·b < R·m): r below 2m; every limb below 2^${W}.`);
    if (fg.flags.simdProducts || fg.flags.karatsuba) {
      fg.mulLocals(f, [], fg.flags.simdProducts);
      const core = fg.mulCore(f, { kind: 'columns', ptr: f.i32('b') });
      f.doc.push(fg.flags.simdProducts ? 'a·b column sums on SIMD (i64x2.extmul), the reduction on scalar multiplies.' : `a·b column sums by Karatsuba (${KARATSUBA_DEPTH} levels), then the reduction.`, ...boundsDoc(fg, core.bounds));
      f.emit(core.code, fg.storeLimbs(f, f.i32('r'), 'r'));
    } else {
      fg.mulLocals(f);
      body(f, { kind: 'locals', prefix: 'b' }, 'ab');
    }
    out.push(f);
  }
  // Lazy reduction of a sum of two products, x·y + u·v (or x·y + u·(2m − v)), in two calls:
  // mulw(w, u, v) / mulwn(w, u, v) leave the 2L − 1 column sums of u·v (or of u·(2m − v),
  // its limbs formed one by one as 2m_j − v_j, signed, |·| < 2^29: no carry chain) unreduced
  // in memory at w; mul2w(r, x, y, w) adds them to the columns of x·y and reduces once. The
  // columns then hold up to 2L products and L reduction terms (mulCore's column bound check
  // refuses limb counts where that could overflow); the result is below
  // (kx·ky + ku·kv)·m²/R + m ≤ 2m when kx·ky + ku·kv ≤ R/m (the formula planner's rule).
  // Tried first: one function with all four operands in locals (mul2): slower than two
  // products and a sum at 9 limbs (P-256 pt_double +4%, brainpoolP256r1 +6%: 36 operand
  // locals spill).
  for (const kind of [...fg.fused].sort()) {
    if (fg.flags.simdProducts) throw new Error(`${fg.pre}: fused products need scalar products`);
    if (fg.rolled) throw new Error(`${fg.pre}: fused products need unrolled products`);
    const f = fg.fusedMul(kind as 'mulw' | 'mulwn' | 'mul2w');
    f.doc.push(
      kind === 'mul2w'
        ? 'r = (a·b + w)·R⁻¹ mod m, w the 2L − 1 unreduced columns of u·v from mulw/mulwn: below 2m when ka·kb + ku·kv ≤ R/m.'
        : `w = the 2L − 1 column sums of ${kind === 'mulw' ? 'a·b' : 'a·(2m − b)'}, unreduced (each below ${L}·2^${2 * W}; ${kind === 'mulwn' ? 'b below 2m, ' : ''}limbs below 2^${W}).`,
    );
    if (kind === 'mul2w') {
      fg.mulLocals(f);
      body(f, { kind: 'locals', prefix: 'b' }, 'ab', f.i32('w'));
      out.push(f);
      continue;
    }
    if (BigInt(L) << BigInt(2 * W) >= fg.columnLimit) throw new Error(`${fg.pre}: ${kind}'s columns may overflow`);
    const [w, a, b] = [f.i32('w'), f.i32('a'), f.i32('b')];
    for (let i = 0; i < L; i++) f.locals(fg.T, [`a${i}`, `b${i}`]);
    const B = (i: number) => fg.v(f, `b${i}`);
    const loadB = kind === 'mulw' || fg.flags.fusedSignSlip ? fg.loadLimbs(f, 'b', b) : Array.from({ length: L }, (_, i) => B(i).set(I.sub(fg.k(fg.m2Limbs[i]), fg.ld(b, 8 * i))));
    const cols: Stmt[] = [];
    for (let k = 0; k <= 2 * L - 2; k++) {
      const terms: Term[] = [];
      for (let i = Math.max(0, k - L + 1); i <= Math.min(k, L - 1); i++) terms.push({ e: I.mul(fg.v(f, `a${i}`), B(k - i)), neg: false });
      cols.push(...fg.st(w, sum(I, terms), 8 * k));
    }
    f.emit(fg.loadLimbs(f, 'a', a), loadB, cols);
    out.push(f);
  }
  {
    const f = fg.sqr;
    f.doc.push('r = a²·R⁻¹ mod m, for a below 2m: r below 2m (cross products summed once, doubled).');
    fg.mulLocals(f);
    body(f, 'square', 'a');
    out.push(f);
  }
  // multiplication by each constant (when used), and each constant's setter
  for (const [name, limbs] of fg.consts) {
    if (fg.mulConsts.has(name)) {
      const f = fg.mulc(name);
      f.doc.push(`r = a·${name}·R⁻¹ mod m for the constant ${name} (its limbs are immediates), a below 2m: r below 2m.`);
      fg.mulLocals(f);
      body(f, { kind: 'const', limbs }, 'a');
      out.push(f);
    }
    const f = fg.setc(name);
    f.emit(limbs.flatMap((v, i) => fg.st(f.i32('r'), v, 8 * i)));
    out.push(f);
  }
  return out;
}

/** The proven bounds of a product's columns, for the function's comment (fiat-crypto style). */
function boundsDoc(fg: FieldGen, bounds: bigint[]): string[] {
  const bits = bounds.map((b) => bitLength(b));
  const limit = fg.columnLimit.toString(2).length - 1;
  return [
    `Proven at generation time: |column k| < 2^b_k (products, reduction terms, carry), b = ${bits.join(' ')}; all < 2^${limit}.`,
    `Quotient digits q_k below 2^${fg.W}; -m^-1 mod 2^${fg.W} = ${fg.qinv}; m in signed digits: ${fg.digits.join(' ')}.`,
  ];
}

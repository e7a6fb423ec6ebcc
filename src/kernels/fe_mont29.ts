// Prime-field arithmetic for the elliptic curves: Montgomery multiplication in unsaturated
// 29-bit limbs, generated per modulus (each curve's p and n). One generator serves every prime;
// a modulus is its constants.
//
// Representation. An element x is held in Montgomery form x·R mod m, R = 2^(29·L), as L limbs of
// 29 bits, each in an i64 (8 bytes per limb in memory, least significant first). L is the least
// number of limbs with R ≥ 16m (P-224: 8, 256-bit primes: 9, 384-bit: 14, brainpoolP512r1: 18,
// P-521: 19). Values are kept in [0, 2m), not fully reduced; R ≥ 16m makes a product of two such
// values come out below 2m with no final subtraction ((a·b + q·m)/R < 4m²/R + m ≤ 2m), and the
// canonical value is produced only at the edges (to_bytes, comparisons).
//
// Why 29-bit limbs and not 32 (WASM-NOTES.md): WebAssembly has no 64×64→128 multiply, so a
// limb is at most 32 bits, and a 32-bit CIOS chains every step through its carry (48 ns for a
// P-256 product in the probe against 42 ns for 9 × 29 bits). With 29-bit limbs a product is below
// 2^58 and a column of up to 2L products and reduction terms stays below 2^63: each column is a
// balanced tree of independent products and only one carry per column is serial.
//
// Multiplication: product scanning with the Montgomery reduction interleaved ("FIPS"): column k
// sums a_i·b_j (i + j = k) and q_i·m_j (i < k), plus the carry of column k − 1; while k < L the
// column's low 29 bits choose q_k = (col·(−m⁻¹)) mod 2^29 so that adding q_k·m_0 clears them;
// columns L … 2L−2 give the result limbs. The modulus is written in signed radix 2^29
// (digits in (−2^28, 2^28]): a zero digit costs nothing, a ±2^s digit is a shift, and when
// −m⁻¹ ≡ 1 (P-256, P-384, P-521: m ≡ −1) the quotient digit is the column's low bits themselves
// and the carry is the column shifted right. P-256's p then needs no multiplication for its
// reduction at all (p = −1 + 2^9·B^3 + 2^18·B^6 − 2^21·B^7 + 2^24·B^8, B = 2^29); P-224's needs
// none either (−m⁻¹ ≡ −1); a dense modulus (Brainpool, every order n) costs L² + L products.
// Squaring sums the cross products once and doubles them (L(L+1)/2 products).
//
// From 14 limbs on (P-384, P-521, brainpoolP384r1/P512r1) the products a_i·b_j run on SIMD:
// pairs (a_2t, a_2t+1) against reversed pairs (b_j, b_(j−1)) with i64x2.extmul_low_i32x4_u (V8:
// two shuffles and one vpmuludq for two products), lanes added per column, while the reduction
// stays on the scalar multiplier: the two run on different execution ports. Measured (separate
// processes, --no-liftoff, min of runs; ECDH per call): P-384 391 → 360 µs, P-521 970 → 823 µs,
// brainpoolP384r1 840 → 701 µs, brainpoolP512r1 2.83 → 1.85 ms; at 8–9 limbs no gain (25 vs
// 27 ns for P-256's product), so those stay scalar. Tried and dropped: operands read from memory
// at each product (TurboFan hoists the loads and spills them: 556 → 851 instructions for P-256),
// the same pinned by a store per column (984 instructions), and two quotient digits per step
// with −m⁻¹ mod 2^58 for dense moduli (no gain: the register spills, not the quotient chain,
// bound the 9-limb product; V8 spills about 40% of the instructions of a 9-limb product).
//
// Dense moduli from 9 limbs on (brainpoolP256r1/P384r1/P512r1 and the orders of P-256 and
// secp256k1; isDense: most signed digits cost a multiplication): where the products are scalar
// (every product below 14 limbs; squaring and products by a constant from 14 on) the scalar
// multiplier did both them and the L² reduction products, so there the reduction's
// q_k·m_j for j ≥ SIMD_REDUCE_FROM_DIGIT (5) run on SIMD instead: q_k splatted, times constant
// digit pairs (m_j, m_(j+1)) held in v128 locals set once per call (i64x2.extmul_low_i32x4_s:
// the digits are signed), accumulated per column pair (columns 2v, 2v+1 in the two lanes of
// vr_v; an odd k meets pairs shifted by one digit, so every q_k lands aligned), one lane
// extracted when its column is summed. The digits j < 5 stay scalar: they feed the next
// columns, whose quotient digits are the serial chain. Measured (bench --base, 3 copies):
// brainpoolP512r1 sqr 102 → 78 ns, pt_double 2.02 → 1.81 µs, ECDSA verify 874 → 840 µs,
// ECDH 1.34 → 1.23 ms; brainpoolP384r1 sqr 63.5 → 54.3 ns, ECDH 563 → 530 µs; brainpoolP256r1
// mul 36.8 → 34.6 ns, pt_double 568 → 539 ns, ECDH 205 → 194 µs, ECDSA verify 141 → 132 µs
// (P-256 and secp256k1 unchanged). Split point, brainpoolP512r1 sqr: j ≥ 2 no gain, 3: −15%,
// 4–6: −24…−28%, 9: −17%, 13: −11%; brainpoolP256r1 pt_double: j ≥ 3: +6%, 4: −4%, 5: −7%,
// 6: −3%, 7: −1%.
// Tried and dropped here (same method): the same SIMD reduction in the general product, whose
// a·b already runs on SIMD (j ≥ 2: +7%: the vector side is then the bottleneck); the SIMD
// reduction from digit 2 at 9 limbs (brainpoolP256r1, constants inline or in locals: +22…27%
// on mul and sqr: the latency of splat → extmul → extract lands on the quotient chain); at 9
// limbs, SIMD products together with the SIMD reduction from digit 5 (brainpoolP256r1 mul
// +5%, pt_double +6%, ECDH +3%); SIMD products at 9 limbs for dense moduli (brainpoolP256r1 mul 44.8 → 44.3
// ns, ECDH ±1%: noise); squaring at 14+ limbs through the SIMD product path (a·a as a general
// product: 104 → 101 ns, verify +7%); addition, subtraction and negation computing both
// candidate results in two independent carry chains with a masked select instead of a chain
// then a masked correction chain (brainpoolP512r1 add 36 → 33 ns through the JS call, but
// ECDH, point operations and verification within ±2–4% noise either way: not the bottleneck);
// squaring at 14+ limbs by one level of Karatsuba (three squares of L/2 limbs, 135 products
// instead of 171 at 18 limbs, exact modulo 2^64): slower (sqr P-384 26.8 → 29.6 ns, P-521
// 44.4 → 49.0, brainpoolP512r1 69.4 → 73.0; the 3L/2 extra column locals spill).
//
// Constant time: straight-line code on i64 values, no branch, no memory address and no division
// depending on data; i64.mul is imul, whose timing does not depend on its operands. Addition,
// subtraction and negation run a carry chain, then add 2m under a mask made from the sign
// (arithmetic shift), never a branch. Inversion is safegcd (fe_safegcd.ts: a fixed number of
// branch-free divsteps); square roots are a^((p+1)/4), with a fixed sliding-window addition
// chain computed here from the public exponent, when
// p ≡ 3 (mod 4), and Tonelli–Shanks with a fixed iteration structure (RFC 9380, Appendix I.4)
// otherwise (P-224, p ≡ 1 mod 2^96). Loop counters in the exponentiations are public constants.
//
// Cost (P-256 p): mul 81 i64.mul, sqr 45; add/sub two carry chains of 9 limbs (one when the
// formula compiler leaves a sum unreduced). Times: `npx tsx bench/run.ts 'ec_.*_(fp|pt)_'`.
//
// Negative-control flags (tests only) produce deliberately broken variants:
//   dropCarry      the carry into one column of the multiplication is lost;
//   skipCorrection the masked final subtraction of 2m in the addition is skipped;
//   fusedSignSlip  the lazily reduced x·y − u·v is computed as x·y + u·v.

import { safegcdFunction } from './fe_safegcd.js';
import { at as addr, bitLength, get, locals, set } from './wat.js';

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
}

export const LIMB_BITS = 29;
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
const W = LIMB_BITS;
const MASK = (1n << BigInt(W)) - 1n;
const MASK_S = `0x${MASK.toString(16)}`;

/** Number of limbs for a modulus: the least L with 2^(29L) ≥ 16m. */
export function limbsFor(m: bigint): number {
  let L = 1;
  while (1n << BigInt(W * L) < 16n * m) L++;
  return L;
}

function powMod(b: bigint, e: bigint, m: bigint): bigint {
  let r = 1n;
  b %= m;
  for (; e > 0n; e >>= 1n) {
    if (e & 1n) r = (r * b) % m;
    b = (b * b) % m;
  }
  return r;
}

/** a⁻¹ mod m (extended Euclid; a coprime to m). */
export function modInv(a: bigint, m: bigint): bigint {
  let [r0, r1, s0, s1] = [((a % m) + m) % m, m, 1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1, s0, s1] = [r1, r0 - q * r1, s1, s0 - q * s1];
  }
  return ((s0 % m) + m) % m;
}

/** Unsigned radix-2^29 limbs of v (L of them). */
export function toLimbs(v: bigint, L: number): bigint[] {
  const out: bigint[] = [];
  for (let j = 0; j < L; j++) {
    out.push(v & MASK);
    v >>= BigInt(W);
  }
  if (v !== 0n) throw new Error('toLimbs: value too large');
  return out;
}

/** Signed radix-2^29 digits of v, each in (−2^28, 2^28] (the top one absorbs the rest). */
function signedDigits(v: bigint, L: number): bigint[] {
  const out: bigint[] = [];
  const half = 1n << BigInt(W - 1);
  for (let j = 0; j < L; j++) {
    let d = v & MASK;
    if (j < L - 1 && d > half) d -= 1n << BigInt(W);
    out.push(d);
    v = (v - d) >> BigInt(W);
  }
  if (v !== 0n) throw new Error('signedDigits: value too large');
  return out;
}

/** A dense modulus: most of its signed digits cost a multiplication in the reduction. */
export function isDense(digits: bigint[]): boolean {
  const costly = digits.filter((d) => { const a = d < 0n ? -d : d; return (a & (a - 1n)) !== 0n; });
  return 2 * costly.length > digits.length;
}

const i64c = (v: bigint) => `(i64.const ${v})`;
const shrS = (e: string, s: number) => `(i64.shr_s ${e} (i64.const ${s}))`;
const andM = (e: string) => `(i64.and ${e} (i64.const ${MASK_S}))`;
const ld = (ptr: string, off: number) => `(i64.load offset=${off} ${ptr})`;
const st = (ptr: string, off: number, e: string) => `(i64.store offset=${off} ${ptr} ${e})`;

interface Term {
  e: string;
  neg: boolean;
}

/**
 * A sum of terms (positive ones added, negative ones subtracted): a balanced tree, or with
 * `chain` a chain in the order given (oldest operands first). TurboFan orders a block's pure
 * nodes by the shape of the graph, not by the order of the WAT: with a tree it computes every
 * product of a column before the first addition, and for a dense modulus (L reduction products
 * per column) those spill. Chains there: brainpoolP512r1 mul 2047 → 1882 x64 instructions
 * (spill stores 152 → 72), sqr 1689 → 1593 (with the paired constants, see #mulCore). For the
 * sparse moduli the tree stays (P-384: chains +2–3% on ECDH and verification).
 */
function sum(terms: Term[], chain = false): string {
  const tree = (xs: string[]): string => {
    if (xs.length === 1) return xs[0];
    if (chain) return xs.reduce((x, y) => `(i64.add ${x} ${y})`);
    const h = xs.length >> 1;
    return `(i64.add ${tree(xs.slice(0, h))} ${tree(xs.slice(h))})`;
  };
  const pos = terms.filter((t) => !t.neg).map((t) => t.e);
  const neg = terms.filter((t) => t.neg).map((t) => t.e);
  if (pos.length === 0 && neg.length === 0) return '(i64.const 0)';
  if (neg.length === 0) return tree(pos);
  if (pos.length === 0) return `(i64.sub (i64.const 0) ${tree(neg)})`;
  return `(i64.sub ${tree(pos)} ${tree(neg)})`;
}

/** e·d for a constant d, as a term (shift for ±2^s, nothing for 0). */
function constTerm(e: string, d: bigint): Term | undefined {
  if (d === 0n) return undefined;
  const neg = d < 0n;
  const a = neg ? -d : d;
  if (a === 1n) return { e, neg };
  if ((a & (a - 1n)) === 0n) return { e: `(i64.shl ${e} (i64.const ${bitLength(a) - 1}))`, neg };
  return { e: `(i64.mul ${e} ${i64c(d)})`, neg: false };
}

/** Where a multiplication's second operand comes from. */
type Operand = { kind: 'locals'; prefix: string } | { kind: 'const'; limbs: bigint[] };

/** A named constant of the field, in Montgomery form unless `raw`. */
export interface FieldConst {
  name: string;
  value: bigint;
  raw?: boolean;
}

export class FieldGen {
  readonly pre: string;
  readonly m: bigint;
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
  /** lazy-reduction functions the formulas use (see functions(): mulw, mulwn, mul2w) */
  readonly fused = new Set<'mulw' | 'mulwn' | 'mul2w'>();

  constructor(prefix: string, m: bigint, flags: FieldFlags = {}) {
    this.pre = prefix;
    this.m = m;
    this.L = limbsFor(m);
    this.FE = 8 * this.L;
    this.bytes = Math.ceil(bitLength(m) / 8);
    this.R = 1n << BigInt(W * this.L);
    // measured (bench on the curve kernels): SIMD products pay from 14 limbs on; at 8–9 limbs the
    // scalar form is as fast (the reduction chain, not the multiplier, bounds it)
    this.mLimbs = toLimbs(m, this.L);
    this.m2Limbs = toLimbs(2n * m, this.L);
    this.digits = signedDigits(m, this.L);
    const simdProducts = flags.simdProducts ?? this.L >= SIMD_FROM_LIMBS;
    this.dense = isDense(this.digits);
    this.flags = { simdProducts, simdReduce: this.L >= SIMD_REDUCE_FROM_LIMBS && this.dense ? SIMD_REDUCE_FROM_DIGIT : 0, ...flags };
    this.qinv = (-modInv(m, 1n << BigInt(W))) & MASK;
    this.addConst({ name: 'one', value: 1n });
    this.addConst({ name: 'raw1', value: 1n, raw: true });
    this.addConst({ name: 'r2', value: (this.R * this.R) % m, raw: true });
    this.addConst({ name: 'r3', value: (this.R * this.R * this.R) % m, raw: true }, true);
    if (8 * this.bytes > W * this.L) throw new Error(`${prefix}: byte encoding wider than the limbs`);
  }

  /** Montgomery form of v. */
  mont(v: bigint): bigint {
    return (((v % this.m) + this.m) % this.m * this.R) % this.m;
  }

  addConst(c: FieldConst, withProduct = false): void {
    this.consts.set(c.name, toLimbs(c.raw ? c.value : this.mont(c.value), this.L));
    if (withProduct) this.mulConsts.add(c.name);
  }

  fn(name: string): string {
    return `$${this.pre}_${name}`;
  }

  // -------------------------------------------------------------------------------------------
  // Montgomery multiplication core: operand a in locals a0…, b in locals or constants; leaves
  // the result in locals r0…r(L−1). Declares nothing; see mulLocals().

  /**
   * The column sums Σ a_i·b_(k−i) on SIMD: pairs A_t = (a_2t, a_2t+1) against reversed pairs
   * B_j = (b_j, b_(j−1)) with i64x2.extmul_low_i32x4_u, two products per instruction, lanes
   * added per column. Operands read from memory at $a and $b (i64 limbs); sums into locals s0….
   */
  #simdColumns(bPtr: string): string[] {
    const L = this.L;
    const out: string[] = [];
    const T = Math.ceil(L / 2);
    // i32 lanes 0,1 ← bytes 0–3 and 8–11 of an i64x2 (the low halves of two limbs)
    const packLo = '0 1 2 3 8 9 10 11 0 1 2 3 8 9 10 11';
    const packSwap = '8 9 10 11 0 1 2 3 8 9 10 11 0 1 2 3';
    for (let t = 0; t < T; t++) {
      const ld = 2 * t + 1 < L ? `(v128.load offset=${16 * t} ${get('a')})` : `(v128.load64_zero offset=${16 * t} ${get('a')})`;
      out.push(set(`va${t}`, `(i8x16.shuffle ${packLo} ${ld} ${ld})`));
    }
    for (let j = 0; j <= L; j++) {
      let e: string;
      if (j === 0) e = `(v128.load64_zero offset=0 ${get(bPtr)})`;
      else if (j === L) { const ld = `(v128.load64_zero offset=${8 * (L - 1)} ${get(bPtr)})`; e = `(i8x16.shuffle ${'4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3'} ${ld} ${ld})`; }
      else { const ld = `(v128.load offset=${8 * (j - 1)} ${get(bPtr)})`; e = `(i8x16.shuffle ${packSwap} ${ld} ${ld})`; }
      out.push(set(`vb${j}`, e));
    }
    for (let k = 0; k <= 2 * L - 2; k++) {
      const terms: string[] = [];
      for (let t = 0; t < T; t++) {
        const j = k - 2 * t;
        if (j < 0 || j > L) continue;
        terms.push(`(i64x2.extmul_low_i32x4_u ${get(`va${t}`)} ${get(`vb${j}`)})`);
      }
      const tree = (xs: string[]): string => xs.length === 1 ? xs[0] : `(i64x2.add ${tree(xs.slice(0, xs.length >> 1))} ${tree(xs.slice(xs.length >> 1))})`;
      out.push(set('vs', tree(terms)), set(`s${k}`, `(i64.add (i64x2.extract_lane 0 ${get('vs')}) (i64x2.extract_lane 1 ${get('vs')}))`));
    }
    return out;
  }

  #mulCore(src: Operand | 'square' | { kind: 'simd'; ptr: string }, wide?: string): string[] {
    const L = this.L;
    const out: string[] = [];
    let b: Operand | 'square';
    const simd = typeof src === 'object' && src.kind === 'simd';
    if (typeof src === 'object' && src.kind === 'simd') {
      out.push(...this.#simdColumns(src.ptr));
      b = { kind: 'locals', prefix: 'b' };
    } else b = src;
    const square = b === 'square';
    const bTerm = (i: number, j: number): Term | undefined => {
      if (b === 'square') throw new Error('unreachable');
      if (b.kind === 'locals') return { e: `(i64.mul ${get(`a${i}`)} ${get(`${b.prefix}${j}`)})`, neg: false };
      return constTerm(get(`a${i}`), b.limbs[j]);
    };
    let carryBound = 0n; // bound on |carry|
    // digits j ≥ sr of the reduction on SIMD (0: none), only when the products are scalar
    const sr = simd ? 0 : this.flags.simdReduce ?? 0;
    const vrInit = new Set<number>();
    const vk = new Map<string, string>(); // constant digit pairs, set once at the start
    for (let k = 0; k <= 2 * L - 2; k++) {
      const prod: Term[] = [];
      let bound = 0n;
      const pmax = MASK * MASK;
      if (square) {
        // cross products summed once, then doubled; the square of the middle limb added after
        const cross: Term[] = [];
        for (let i = Math.max(0, k - L + 1); i <= Math.min(k, L - 1); i++) {
          const j = k - i;
          if (i < j) {
            cross.push({ e: `(i64.mul ${get(`a${i}`)} ${get(`a${j}`)})`, neg: false });
            bound += 2n * pmax;
          }
        }
        if (cross.length) prod.push({ e: `(i64.shl ${sum(cross, this.dense)} (i64.const 1))`, neg: false });
        if (k % 2 === 0) {
          prod.push({ e: `(i64.mul ${get(`a${k / 2}`)} ${get(`a${k / 2}`)})`, neg: false });
          bound += pmax;
        }
      } else if (simd) {
        prod.push({ e: get(`s${k}`), neg: false });
        bound += BigInt(Math.min(k, 2 * L - 2 - k) + 1) * pmax;
      } else {
        for (let i = Math.max(0, k - L + 1); i <= Math.min(k, L - 1); i++) {
          const t = bTerm(i, k - i);
          if (t) {
            prod.push(t);
            const bo = b as Operand;
            bound += bo.kind === 'const' ? MASK * (bo.limbs[k - i] < 0n ? -bo.limbs[k - i] : bo.limbs[k - i]) : pmax;
          }
        }
        if (wide) {
          // column k of a product left unreduced by mulw (up to L products, signed limbs)
          prod.push({ e: ld(get(wide), 8 * k), neg: false });
          bound += BigInt(Math.min(k, 2 * L - 2 - k) + 1) * pmax;
        }
      }
      // reduction terms q_i·m_(k−i); the newest quotient digit last (it is on the carry path)
      const red: Term[] = [];
      let late: Term | undefined;
      let simdRed = false;
      for (let i = Math.max(0, k - L + 1); i <= Math.min(k - 1, L - 1); i++) {
        const d = this.digits[k - i];
        const t = constTerm(get(`q${i}`), d);
        if (!t) continue;
        bound += MASK * (d < 0n ? -d : d);
        if (i === k - 1) late = t;
        else if (!sr || k - i < sr) red.push(t);
        else simdRed = true;
      }
      if (simdRed) red.push({ e: `(i64x2.extract_lane ${k & 1} ${get(`vr${k >> 1}`)})`, neg: false });
      bound += carryBound;
      if (bound >= 1n << 63n) throw new Error(`${this.pre}: column ${k} may overflow`);
      let col = sum([...prod, ...red], this.dense);
      if (late) col = late.neg ? `(i64.sub ${col} ${late.e})` : `(i64.add ${col} ${late.e})`;
      const dropped = this.flags.dropCarry && k === L + 1;
      if (k > 0 && !dropped) col = `(i64.add ${col} ${get('c')})`;
      out.push(`;; column ${k}`, set('acc', col));
      if (k < L) {
        // quotient digit q_k = acc·(−m⁻¹) mod 2^29; then acc + q_k·m_0 ≡ 0 (mod 2^29)
        const qe = this.qinv === 1n ? andM(get('acc'))
          : this.qinv === MASK ? andM(`(i64.sub (i64.const 0) ${get('acc')})`)
          : andM(`(i64.mul ${get('acc')} ${i64c(this.qinv)})`);
        out.push(set(`q${k}`, qe));
        if (sr) {
          // q_k·m_j for j ≥ sr on SIMD: column k + j is lane (k + j) & 1 of vr_((k + j) >> 1)
          out.push(set('vq', `(i32x4.splat (i32.wrap_i64 ${get(`q${k}`)}))`));
          const byV = new Map<number, [bigint, bigint]>();
          for (let j = sr; j < L; j++) {
            const d = this.digits[j];
            if (d === 0n) continue;
            const col = k + j, v = col >> 1;
            const pair = byV.get(v) ?? [0n, 0n];
            pair[col & 1] = d;
            byV.set(v, pair);
          }
          for (const [v, [d0, d1]] of byV) {
            const key = `${d0} ${d1}`;
            if (!vk.has(key)) vk.set(key, `${vk.size}`);
            const n = Number(vk.get(key)!);
            const p = `(i64x2.extmul_${n & 1 ? 'high' : 'low'}_i32x4_s ${get('vq')} ${get(`vk${n >> 1}`)})`;
            out.push(set(`vr${v}`, vrInit.has(v) ? `(i64x2.add ${get(`vr${v}`)} ${p})` : p));
            vrInit.add(v);
          }
        }
        const d0 = this.digits[0];
        if (d0 === -1n && this.qinv === 1n) {
          out.push(set('c', shrS(get('acc'), W))); // acc − (acc mod 2^29) has the same high part
        } else {
          const t = constTerm(get(`q${k}`), d0)!;
          out.push(set('c', shrS(`(${t.neg ? 'i64.sub' : 'i64.add'} ${get('acc')} ${t.e})`, W)));
        }
      } else {
        out.push(set(`r${k - L}`, andM(get('acc'))), set('c', shrS(get('acc'), W)));
      }
      const d0 = this.digits[0] < 0n ? -this.digits[0] : this.digits[0];
      carryBound = ((bound + (k < L ? MASK * d0 : 0n)) >> BigInt(W)) + 1n;
    }
    out.push(set(`r${L - 1}`, get('c')));
    if (vk.size > 2 * L) throw new Error('too many constant pairs');
    // two digit pairs per constant: the low half for extmul_low, the high half for extmul_high
    const keys = [...vk.keys()];
    out.unshift(...Array.from({ length: Math.ceil(keys.length / 2) }, (_, n) => set(`vk${n}`, `(v128.const i32x4 ${keys[2 * n]} ${keys[2 * n + 1] ?? '0 0'})`)));
    return out;
  }

  #mulLocals(extra: string[] = [], simd = false): string {
    const L = this.L;
    const names: string[] = ['acc', 'c', ...extra];
    for (let i = 0; i < L; i++) names.push(`a${i}`, `b${i}`, `q${i}`, `r${i}`);
    if (simd) for (let k = 0; k <= 2 * L - 2; k++) names.push(`s${k}`);
    const vr = this.flags.simdReduce ? ['vq', ...Array.from({ length: L }, (_, v) => `vr${v}`), ...Array.from({ length: 2 * L }, (_, v) => `vk${v}`)] : [];
    const v = simd ? [...vr, 'vs', ...Array.from({ length: Math.ceil(L / 2) }, (_, t) => `va${t}`), ...Array.from({ length: L + 1 }, (_, j) => `vb${j}`)] : vr;
    return [locals('i64', names), ...(v.length ? [locals('v128', v)] : [])].join(' ');
  }

  #loadLimbs(prefix: string, ptr: string): string[] {
    return Array.from({ length: this.L }, (_, i) => set(`${prefix}${i}`, ld(get(ptr), 8 * i)));
  }

  #storeLimbs(ptr: string, prefix: string): string[] {
    return Array.from({ length: this.L }, (_, i) => st(get(ptr), 8 * i, get(`${prefix}${i}`)));
  }

  // Carry chain over locals: dst_i = (Σ terms_i + c) mod 2^29; returns the lines; the final
  // carry (the sign, 0 or −1, for a chain whose true value is in (−2^(29L), 2^(29L))) is in $c.
  #chain(dst: string, terms: (i: number) => string): string[] {
    const out: string[] = [];
    for (let i = 0; i < this.L; i++) {
      const e = i === 0 ? terms(i) : `(i64.add ${terms(i)} ${get('c')})`;
      out.push(set('t', e), set(`${dst}${i}`, andM(get('t'))), set('c', shrS(get('t'), W)));
    }
    return out;
  }

  // r ← r + (k & mask), k given as limbs; mask in $mask; carry out discarded.
  #addMasked(dst: string, k: bigint[]): string[] {
    return this.#chain(dst, (i) => `(i64.add ${get(`${dst}${i}`)} (i64.and ${i64c(k[i])} ${get('mask')}))`);
  }

  /** Every function of this field, as WAT text. */
  functions(): string[] {
    const L = this.L, pre = this.pre, FE = this.FE;
    const fns: string[] = [];
    const chainLocals = () => locals('i64', ['t', 'c', 'mask', ...Array.from({ length: L }, (_, i) => [`a${i}`, `b${i}`, `r${i}`]).flat()]);

    // mul, sqr
    if (this.flags.simdProducts) {
      fns.push(`(func ${this.fn('mul')} (param $r i32) (param $a i32) (param $b i32) ${this.#mulLocals([], true)}
  ${[...this.#mulCore({ kind: 'simd', ptr: 'b' }), ...this.#storeLimbs('r', 'r')].join('\n  ')})`);
    } else {
      fns.push(`(func ${this.fn('mul')} (param $r i32) (param $a i32) (param $b i32) ${this.#mulLocals()}
  ${[...this.#loadLimbs('a', 'a'), ...this.#loadLimbs('b', 'b'), ...this.#mulCore({ kind: 'locals', prefix: 'b' }), ...this.#storeLimbs('r', 'r')].join('\n  ')})`);
    }
    // Lazy reduction of a sum of two products, x·y + u·v (or x·y + u·(2m − v)), in two calls:
    // mulw(w, u, v) / mulwn(w, u, v) leave the 2L − 1 column sums of u·v (or of u·(2m − v),
    // its limbs formed one by one as 2m_j − v_j, signed, |·| < 2^29: no carry chain) unreduced
    // in memory at w; mul2w(r, x, y, w) adds them to the columns of x·y and reduces once. The
    // columns then hold up to 2L products and L reduction terms (the generator's column bound
    // check refuses limb counts where that could overflow); the result is below
    // (kx·ky + ku·kv)·m²/R + m ≤ 2m when kx·ky + ku·kv ≤ R/m (the formula planner's rule).
    // Tried first: one function with all four operands in locals (mul2): slower than two
    // products and a sum at 9 limbs (P-256 pt_double +4%, brainpoolP256r1 +6%: 36 operand
    // locals spill).
    for (const kind of [...this.fused].sort()) {
      if (this.flags.simdProducts) throw new Error(`${pre}: fused products need scalar products`);
      if (kind === 'mul2w') {
        fns.push(`(func ${this.fn('mul2w')} (param $r i32) (param $a i32) (param $b i32) (param $w i32) ${this.#mulLocals()}
  ${[...this.#loadLimbs('a', 'a'), ...this.#loadLimbs('b', 'b'), ...this.#mulCore({ kind: 'locals', prefix: 'b' }, 'w'), ...this.#storeLimbs('r', 'r')].join('\n  ')})`);
        continue;
      }
      const loadB = kind === 'mulw' || this.flags.fusedSignSlip ? this.#loadLimbs('b', 'b')
        : Array.from({ length: L }, (_, i) => set(`b${i}`, `(i64.sub ${i64c(this.m2Limbs[i])} ${ld(get('b'), 8 * i)})`));
      const cols: string[] = [];
      for (let k = 0; k <= 2 * L - 2; k++) {
        const terms: Term[] = [];
        for (let i = Math.max(0, k - L + 1); i <= Math.min(k, L - 1); i++) terms.push({ e: `(i64.mul ${get(`a${i}`)} ${get(`b${k - i}`)})`, neg: false });
        cols.push(st(get('w'), 8 * k, sum(terms)));
      }
      fns.push(`(func ${this.fn(kind)} (param $w i32) (param $a i32) (param $b i32) ${locals('i64', Array.from({ length: L }, (_, i) => [`a${i}`, `b${i}`]).flat())}
  ${[...this.#loadLimbs('a', 'a'), ...loadB, ...cols].join('\n  ')})`);
    }
    fns.push(`(func ${this.fn('sqr')} (param $r i32) (param $a i32) ${this.#mulLocals()}
  ${[...this.#loadLimbs('a', 'a'), ...this.#mulCore('square'), ...this.#storeLimbs('r', 'r')].join('\n  ')})`);
    // multiplication by each constant
    for (const [name, limbs] of this.consts) {
      if (this.mulConsts.has(name)) fns.push(`(func ${this.fn(`mulc_${name}`)} (param $r i32) (param $a i32) ${this.#mulLocals()}
  ${[...this.#loadLimbs('a', 'a'), ...this.#mulCore({ kind: 'const', limbs }), ...this.#storeLimbs('r', 'r')].join('\n  ')})`);
      fns.push(`(func ${this.fn(`set_${name}`)} (param $r i32)
  ${limbs.map((v, i) => st(get('r'), 8 * i, i64c(v))).join('\n  ')})`);
    }

    // add: a + b − 2m, then + 2m under the sign mask
    const addBody = this.flags.skipCorrection
      ? this.#chain('r', (i) => `(i64.add ${get(`a${i}`)} ${get(`b${i}`)})`)
      : [
          ...this.#chain('r', (i) => `(i64.sub (i64.add ${get(`a${i}`)} ${get(`b${i}`)}) ${i64c(this.m2Limbs[i])})`),
          set('mask', get('c')),
          ...this.#addMasked('r', this.m2Limbs),
        ];
    fns.push(`(func ${this.fn('add')} (param $r i32) (param $a i32) (param $b i32) ${chainLocals()}
  ${[...this.#loadLimbs('a', 'a'), ...this.#loadLimbs('b', 'b'), ...addBody, ...this.#storeLimbs('r', 'r')].join('\n  ')})`);
    // sub: a − b, then + 2m under the sign mask
    fns.push(`(func ${this.fn('sub')} (param $r i32) (param $a i32) (param $b i32) ${chainLocals()}
  ${[...this.#loadLimbs('a', 'a'), ...this.#loadLimbs('b', 'b'),
      ...this.#chain('r', (i) => `(i64.sub ${get(`a${i}`)} ${get(`b${i}`)})`),
      set('mask', get('c')), ...this.#addMasked('r', this.m2Limbs), ...this.#storeLimbs('r', 'r')].join('\n  ')})`);
    // add_lazy: a + b with the carries propagated, no reduction (the formula compiler tracks
    // the bound: the result is below (bound_a + bound_b)·m)
    fns.push(`(func ${this.fn('add_lazy')} (param $r i32) (param $a i32) (param $b i32) ${chainLocals()}
  ${[...this.#loadLimbs('a', 'a'), ...this.#loadLimbs('b', 'b'),
      ...this.#chain('r', (i) => `(i64.add ${get(`a${i}`)} ${get(`b${i}`)})`), ...this.#storeLimbs('r', 'r')].join('\n  ')})`);
    // sub_lazy_k: a − b + k·m for b < k·m, no reduction (below (bound_a + k)·m)
    for (const k of [...this.lazySubs].sort((x, y) => x - y)) {
      const km = toLimbs(BigInt(k) * this.m, L);
      fns.push(`(func ${this.fn(`sub_lazy_${k}`)} (param $r i32) (param $a i32) (param $b i32) ${chainLocals()}
  ${[...this.#loadLimbs('a', 'a'), ...this.#loadLimbs('b', 'b'),
      ...this.#chain('r', (i) => `(i64.add (i64.sub ${get(`a${i}`)} ${get(`b${i}`)}) ${i64c(km[i])})`), ...this.#storeLimbs('r', 'r')].join('\n  ')})`);
    }
    // neg: 0 − a, then + 2m under the sign mask
    fns.push(`(func ${this.fn('neg')} (param $r i32) (param $a i32) ${chainLocals()}
  ${[...this.#loadLimbs('a', 'a'),
      ...this.#chain('r', (i) => `(i64.sub (i64.const 0) ${get(`a${i}`)})`),
      set('mask', get('c')), ...this.#addMasked('r', this.m2Limbs), ...this.#storeLimbs('r', 'r')].join('\n  ')})`);
    // canon: [0, 2m) → [0, m)
    fns.push(`(func ${this.fn('canon')} (param $r i32) (param $a i32) ${chainLocals()}
  ${[...this.#loadLimbs('a', 'a'), ...this.#canonLines('a', 'r'), ...this.#storeLimbs('r', 'r')].join('\n  ')})`);
    // eq(a, b) → 1 if a ≡ b (mod m), else 0; is_zero(a); eq_one(a)
    fns.push(`(func ${this.fn('eq')} (param $a i32) (param $b i32) (result i32) ${chainLocals()}
  ${[...this.#loadLimbs('a', 'a'), ...this.#loadLimbs('b', 'b'), ...this.#eqLines((i) => get(`b${i}`))].join('\n  ')})`);
    const one = this.consts.get('one')!;
    fns.push(`(func ${this.fn('eq_one')} (param $a i32) (result i32) ${chainLocals()}
  ${[...this.#loadLimbs('a', 'a'), ...this.#eqLines((i) => i64c(one[i]))].join('\n  ')})`);
    // is_zero_lt_K(a) → 1 if a ≡ 0 (mod m), for a value below K·m with limbs of 29 bits (as
    // the carry chains leave them): a equals one of 0, m, …, (K − 1)·m limb for limb
    for (const K of [...this.zeroTests].sort((x, y) => x - y)) {
      if (BigInt(K) * this.m > this.R) throw new Error(`${pre}: is_zero_lt_${K} beyond the limbs`);
      const tests = Array.from({ length: K }, (_, j) => {
        const jm = toLimbs(BigInt(j) * this.m, L);
        return `(i64.eqz ${Array.from({ length: L }, (_, i) => `(i64.xor ${get(`a${i}`)} ${i64c(jm[i])})`).reduce((x, y) => `(i64.or ${x} ${y})`)})`;
      });
      fns.push(`(func ${this.fn(`is_zero_lt_${K}`)} (param $a i32) (result i32) ${locals('i64', Array.from({ length: L }, (_, i) => `a${i}`))}
  ${[...this.#loadLimbs('a', 'a'), tests.reduce((x, y) => `(i32.or ${x} ${y})`)].join('\n  ')})`);
    }
    fns.push(`(func ${this.fn('is_zero')} (param $a i32) (result i32) ${chainLocals()}
  ${[...this.#loadLimbs('a', 'a'), ...this.#eqLines(() => '(i64.const 0)')].join('\n  ')})`);
    // cmov(r, a, mask): r ← mask ? a : r
    fns.push(`(func ${this.fn('cmov')} (param $r i32) (param $a i32) (param $mask i64) (local $v v128)
  ${cmovLines('r', 'a', 'mask', L).join('\n  ')})`);
    // from_bytes(r, src): big-endian bytes (this.bytes of them) → Montgomery form (any value
    // below 2^(8·bytes) is accepted and reduced)
    fns.push(`(func ${this.fn('from_bytes')} (param $r i32) (param $src i32)
  ${this.#fromBytesLines('r', 'src').join('\n  ')}
  (call ${this.fn('mulc_r2')} (local.get $r) (local.get $r)))`);
    // from_bytes_raw(r, src): the plain integer in limbs (no Montgomery conversion)
    fns.push(`(func ${this.fn('from_bytes_raw')} (param $r i32) (param $src i32)
  ${this.#fromBytesLines('r', 'src').join('\n  ')})`);
    // to_bytes(dst, a): out of Montgomery form, fully reduced, big-endian
    fns.push(`(func ${this.fn('to_bytes')} (param $dst i32) (param $a i32) ${this.#mulLocals(['t', 'mask'])}
  ${[...this.#loadLimbs('a', 'a'), ...this.#mulCore({ kind: 'const', limbs: this.consts.get('raw1')! }),
      ...Array.from({ length: L }, (_, i) => set(`a${i}`, get(`r${i}`))), ...this.#canonLines('a', 'r'),
      ...this.#toBytesLines('dst', 'r')].join('\n  ')})`);
    // lt_m(src) → 1 if the big-endian integer at src is below m (canonical), else 0
    fns.push(`(func ${this.fn('bytes_lt')} (param $src i32) (result i32) ${chainLocals()}
  ${[...this.#fromBytesLines(null, 'src', 'a'),
      ...this.#chain('r', (i) => `(i64.sub ${get(`a${i}`)} ${i64c(this.mLimbs[i])})`),
      `(i32.wrap_i64 (i64.and ${get('c')} (i64.const 1)))`].join('\n  ')})`);
    // bytes_nonzero(src) → 1 if the big-endian integer at src is not 0
    fns.push(`(func ${this.fn('bytes_nonzero')} (param $src i32) (result i32) ${chainLocals()}
  ${[...this.#fromBytesLines(null, 'src', 'a'),
      `(i32.eqz (i64.eqz ${Array.from({ length: L }, (_, i) => get(`a${i}`)).reduce((x, y) => `(i64.or ${x} ${y})`)}))`].join('\n  ')})`);
    // inversion: safegcd on the canonical value (fe_safegcd.ts), then the Montgomery factors
    // restored by a product with R³ ((aR)⁻¹ = a⁻¹R⁻¹; mont(a⁻¹R⁻¹, R³) = a⁻¹R). Constant time
    // for inv; inv_vt, for public data only (ECDSA verification), is the variable-time variant.
    // Measured against the Fermat addition chain it replaces (µs per call, see fe_safegcd.ts):
    // P-256 p 3.9 → 1.25, brainpoolP256r1 p 7.6 → 1.25, brainpoolP512r1 n 42.5 → 4.2.
    for (const [name, constantTime] of [['inv', true], ...(this.varTimeInv ? [['inv_vt', false]] : [])] as [string, boolean][]) {
      const sg = safegcdFunction(`${pre}_${name}_raw`, this.m, { constantTime });
      if (this.FE + sg.workspace > this.invWorkspace) throw new Error(`${pre}: ${name} needs more work space than invWorkspace`);
      fns.push(sg.wat);
      fns.push(`(func ${this.fn(name)} (param $r i32) (param $a i32) (param $ws i32)
  (call ${this.fn('canon')} (local.get $ws) (local.get $a))
  (call ${this.fn(`${name}_raw`)} (local.get $r) (local.get $ws) (i32.add (local.get $ws) (i32.const ${FE})))
  (call ${this.fn('mulc_r3')} (local.get $r) (local.get $r)))`);
    }
    return fns;
  }

  /** The work space (bytes) that sqrt needs. */
  get sqrtWorkspace(): number {
    return this.powWorkspace + 7 * this.FE;
  }

  /**
   * sqrt(r, a, ws) → 1 if a is a square (r² = a), else 0 (r is then meaningless). r may alias a.
   * p ≡ 3 (mod 4): r = a^((p+1)/4). Otherwise the constant-time Tonelli–Shanks of RFC 9380,
   * Appendix I.4: the same squarings and multiplications whatever a is, the choices by masks.
   */
  sqrtFunction(): string {
    const m = this.m, FE = this.FE;
    const base = this.powWorkspace;
    const slot = (i: number) => addr('ws', base + i * FE);
    const [A, Z, T, B, C, TMP, SQ] = [0, 1, 2, 3, 4, 5, 6].map(slot);
    const lines: string[] = [`(memory.copy ${A} ${get('a')} (i32.const ${FE}))`];
    const wsLocal = set('pw', A);
    if (m % 4n === 3n) {
      lines.push(wsLocal, ...powLines(this, (m + 1n) / 4n, 'r', 'pw', 'ws'));
    } else {
      let s = 0, q = m - 1n;
      while ((q & 1n) === 0n) { q >>= 1n; s++; }
      let c4 = 2n;
      while (powMod(c4, (m - 1n) / 2n, m) !== m - 1n) c4++;
      this.addConst({ name: 'ts_c5', value: powMod(c4, q, m) });
      lines.push(
        set('pw', Z),
        set('pa', A),
        ...powLines(this, (q - 1n) / 2n, 'pw', 'pa', 'ws'),
        `(call ${this.fn('sqr')} ${T} ${Z})`,
        `(call ${this.fn('mul')} ${T} ${T} ${A})`,
        `(call ${this.fn('mul')} ${Z} ${Z} ${A})`,
        `(memory.copy ${B} ${T} (i32.const ${FE}))`,
        `(call ${this.fn('set_ts_c5')} ${C})`,
        set('k', `(i32.const ${s})`),
        `(loop $outer`,
        `  ${set('j', `(i32.sub ${get('k')} (i32.const 2))`)}`,
        `  (block $jd (loop $jl (br_if $jd (i32.eqz ${get('j')})) (call ${this.fn('sqr')} ${B} ${B}) ${set('j', `(i32.sub ${get('j')} (i32.const 1))`)} (br $jl)))`,
        `  ;; mask: all ones when b ≠ 1 (then z ← z·c and t ← t·c²)`,
        `  ${set('mask', `(i64.sub (i64.extend_i32_u (call ${this.fn('eq_one')} ${B})) (i64.const 1))`)}`,
        `  (call ${this.fn('mul')} ${TMP} ${Z} ${C})`,
        `  (call ${this.fn('cmov')} ${Z} ${TMP} ${get('mask')})`,
        `  (call ${this.fn('sqr')} ${C} ${C})`,
        `  (call ${this.fn('mul')} ${TMP} ${T} ${C})`,
        `  (call ${this.fn('cmov')} ${T} ${TMP} ${get('mask')})`,
        `  (memory.copy ${B} ${T} (i32.const ${FE}))`,
        `  ${set('k', `(i32.sub ${get('k')} (i32.const 1))`)}`,
        `  (br_if $outer (i32.ge_u ${get('k')} (i32.const 2))))`,
        `(memory.copy ${get('r')} ${Z} (i32.const ${FE}))`,
      );
    }
    lines.push(`(call ${this.fn('sqr')} ${SQ} ${get('r')})`, `(call ${this.fn('eq')} ${SQ} ${A})`);
    return `(func ${this.fn('sqrt')} (param $r i32) (param $a i32) (param $ws i32) (result i32) (local $pw i32) (local $pa i32) (local $i i32) (local $k i32) (local $j i32) (local $mask i64)
  ${lines.join('\n  ')})`;
  }

  /** The work space (bytes) that powLines needs (sqrt; the negative control's inversion). */
  get powWorkspace(): number {
    return (POW_TABLE + 1) * this.FE;
  }

  /** The work space (bytes) that inv and inv_vt need: the canonical copy of the input (safegcd
   * itself keeps everything in locals; functions() checks that). */
  get invWorkspace(): number {
    return this.FE;
  }

  // canonical reduction of locals src (value in [0, 2m)) into locals dst
  #canonLines(src: string, dst: string): string[] {
    return [
      ...this.#chain(dst, (i) => `(i64.sub ${get(`${src}${i}`)} ${i64c(this.mLimbs[i])})`),
      set('mask', get('c')),
      ...this.#addMasked(dst, this.mLimbs),
    ];
  }

  // (a − b) reduced into [0, 2m); zero iff it is 0 or m. Leaves the i32 result on the stack.
  #eqLines(b: (i: number) => string): string[] {
    const L = this.L;
    const orAll = (f: (i: number) => string) => Array.from({ length: L }, (_, i) => f(i)).reduce((x, y) => `(i64.or ${x} ${y})`);
    return [
      ...this.#chain('r', (i) => `(i64.sub ${get(`a${i}`)} ${b(i)})`),
      set('mask', get('c')),
      ...this.#addMasked('r', this.m2Limbs),
      `(i32.or (i64.eqz ${orAll((i) => get(`r${i}`))}) (i64.eqz ${orAll((i) => `(i64.xor ${get(`r${i}`)} ${i64c(this.mLimbs[i])})`)}))`,
    ];
  }

  // Big-endian bytes at src → limbs (stored at dst, or into locals `intoLocals`0…).
  #fromBytesLines(dst: string | null, src: string, intoLocals?: string): string[] {
    const out: string[] = [];
    const n = this.bytes;
    for (let j = 0; j < this.L; j++) {
      const lo = W * j, hi = W * j + W; // bits [lo, hi)
      const parts: string[] = [];
      for (let bi = Math.floor(lo / 8); bi * 8 < hi && bi < n; bi++) {
        const byte = `(i64.load8_u offset=${n - 1 - bi} ${get(src)})`;
        const shift = 8 * bi - lo;
        parts.push(shift >= 0 ? (shift ? `(i64.shl ${byte} (i64.const ${shift}))` : byte) : `(i64.shr_u ${byte} (i64.const ${-shift}))`);
      }
      const v = parts.length === 0 ? '(i64.const 0)' : andM(parts.reduce((x, y) => `(i64.or ${x} ${y})`));
      if (intoLocals) out.push(set(`${intoLocals}${j}`, v));
      else out.push(st(get(dst!), 8 * j, v));
    }
    return out;
  }

  // locals src0… (canonical, limbs normalised) → big-endian bytes at dst
  #toBytesLines(dst: string, src: string): string[] {
    const out: string[] = [];
    const n = this.bytes;
    for (let bi = 0; bi < n; bi++) {
      const pos = 8 * bi, j = Math.floor(pos / W), sh = pos - W * j;
      let e = sh ? `(i64.shr_u ${get(`${src}${j}`)} (i64.const ${sh}))` : get(`${src}${j}`);
      if (sh + 8 > W && j + 1 < this.L) e = `(i64.or ${e} (i64.shl ${get(`${src}${j + 1}`)} (i64.const ${W - sh})))`;
      out.push(`(i64.store8 offset=${n - 1 - bi} ${get(dst)} ${e})`);
    }
    return out;
  }
}

export const POW_WINDOW = 5;
export const POW_TABLE = 1 << (POW_WINDOW - 1); // odd powers a^1, a^3, …, a^31

/**
 * Lines computing r ← a^e (e public) with calls to the field's sqr and mul; the work space at
 * ws holds the odd powers a^1 … a^(2·POW_TABLE − 1) and a². r may alias a. Runs of squarings
 * become counted loops (public counter in $i).
 */
export function powLines(f: FieldGen, e: bigint, r: string, a: string, ws: string): string[] {
  if (e <= 0n) throw new Error('powLines: exponent must be positive');
  const FE = f.FE;
  const tab = (i: number) => addr(ws, i * FE); // a^(2i+1)
  const sq = addr(ws, POW_TABLE * FE);
  const out: string[] = [
    `(memory.copy ${tab(0)} ${get(a)} (i32.const ${FE}))`,
    `(call ${f.fn('sqr')} ${sq} ${get(a)})`,
  ];
  for (let i = 1; i < POW_TABLE; i++) out.push(`(call ${f.fn('mul')} ${tab(i)} ${tab(i - 1)} ${sq})`);
  const bits = e.toString(2);
  let started = false;
  let pendingSq = 0;
  const flushSq = () => {
    if (pendingSq >= 4) {
      out.push(set('i', `(i32.const ${pendingSq})`),
        `(loop $sq (call ${f.fn('sqr')} ${get(r)} ${get(r)}) ${set('i', `(i32.sub ${get('i')} (i32.const 1))`)} (br_if $sq ${get('i')}))`);
    } else {
      for (let k = 0; k < pendingSq; k++) out.push(`(call ${f.fn('sqr')} ${get(r)} ${get(r)})`);
    }
    pendingSq = 0;
  };
  let i = 0;
  while (i < bits.length) {
    if (bits[i] === '0') {
      pendingSq++;
      i++;
      continue;
    }
    let j = Math.min(i + POW_WINDOW, bits.length) - 1;
    while (bits[j] === '0') j--;
    const val = parseInt(bits.slice(i, j + 1), 2);
    if (started) {
      pendingSq += j - i + 1;
      flushSq();
      out.push(`(call ${f.fn('mul')} ${get(r)} ${get(r)} ${tab((val - 1) / 2)})`);
    } else {
      out.push(`(memory.copy ${get(r)} ${tab((val - 1) / 2)} (i32.const ${FE}))`);
      started = true;
    }
    i = j + 1;
  }
  flushSq();
  return out;
}

/** r ← mask ? a : r over L limbs (8·L bytes), by v128.bitselect and a scalar tail. */
export function cmovLines(r: string, a: string, mask: string, L: number): string[] {
  const out: string[] = [set('v', `(i64x2.splat ${get(mask)})`)];
  for (let i = 0; i + 1 < L; i += 2) {
    out.push(`(v128.store offset=${8 * i} ${get(r)} (v128.bitselect (v128.load offset=${8 * i} ${get(a)}) (v128.load offset=${8 * i} ${get(r)}) ${get('v')}))`);
  }
  if (L % 2) {
    const o = 8 * (L - 1);
    out.push(st(get(r), o, `(i64.xor ${ld(get(r), o)} (i64.and (i64.xor ${ld(get(r), o)} ${ld(get(a), o)}) ${get(mask)}))`));
  }
  return out;
}

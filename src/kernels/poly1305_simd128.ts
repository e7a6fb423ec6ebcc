// Poly1305 partial sums in SIMD128 lanes: four blocks, one per i32x4 lane, each multiplied by its
// own power of r with `i64x2.extmul_{low,high}_i32x4_u` (32×32→64 products, two per instruction).
//
// Used by poly1305_radix26.ts for an eight-block step that keeps both halves of the core busy:
//   h' = (h + m1)·r^8 + m2·r^7 + m3·r^6 + m4·r^5      scalar i64.mul, the integer multiplier
//      +  m5·r^4 + m6·r^3 + m7·r^2 + m8·r             here, in vector lanes (r^4, r^3, r^2, r in
//                                                      lanes 0–3), summed across lanes at the end
// and one carry chain for all eight. The lane sums are unreduced 26-bit-limb products: five
// products per limb per lane, each below 2^54.5, so the four-lane total stays below 2^61 and
// the scalar half's sum (below 2^60) plus it fits an i64.
//
// Layout of the four blocks: a 4×4 transpose of their 32-bit words (unpack-lo/hi-32, -64), then
// the five 26-bit limbs by shifts and masks, the 2^128 bit from `$vhib`.
//
// Why constant time: only lane-wise integer multiply, add, shift, and, or and constant shuffles;
// addresses are the caller's public pointer plus constants.
//
// Cost: 50 extmul (V8: two unpacks and a vpmuludq each), 45 adds, 10 lane extracts, ~25 layout
// operations per four blocks, on the vector ports while the scalar half runs on the integer ones.

import { type Expr, type Func, type Local, type Stmt, type Val, i32, i32x4, i64, i64x2, i8x16, v128 } from './builder/index.js';
import { SHUF_HI32 as HI32, SHUF_HI64 as HI64, SHUF_LO32 as LO32, SHUF_LO64 as LO64 } from './builder/lanes.js';

const M26 = 0x3ffffff;

/** v128 locals the SIMD half uses. */
const SIMD_LOCALS = ['vhib', 'vm', 'R0', 'R1', 'R2', 'R3', 'R4', 'S1', 'S2', 'S3', 'S4', 'B0', 'B1', 'B2', 'B3', 'M0', 'M1', 'M2', 'M3', 'M4', 'D'];

/** Offsets (from the state) of the lane tables: R_i = (r^4_i, r^3_i, r^2_i, r_i), S_i = 5·R_i. */
function laneTableOffsets(base: number): { R: number[]; S: number[] } {
  return { R: [0, 1, 2, 3, 4].map((i) => base + 16 * i), S: [0, 1, 2, 3, 4].map((i) => base + 80 + 16 * (i - 1)) };
}

/**
 * Build the lane tables at p from the scalar powers (limbs as u32 at rOff[k-1] for r^k).
 * `reversed` is the negative control: lanes get r, r^2, r^3, r^4 (the wrong order).
 */
export function buildLaneTables(p: Local<'i32'>, rOff: number[], base: number, reversed: boolean): Stmt[] {
  const { R, S } = laneTableOffsets(base);
  const out: Stmt[] = [];
  for (let i = 0; i < 5; i++) {
    for (let lane = 0; lane < 4; lane++) {
      const k = reversed ? lane + 1 : 4 - lane;
      out.push(i32.store(p, i32.load(p, rOff[k - 1] + 4 * i), R[i] + 4 * lane));
      if (i > 0) out.push(i32.store(p, i32.mul(i32.load(p, rOff[k - 1] + 4 * i), 5), S[i] + 4 * lane));
    }
  }
  return out;
}

/** The SIMD half's locals in one function (declared when created, in this order). */
export class PolySimd {
  readonly #l: Map<string, Local<'v128'>>;

  constructor(f: Func) {
    this.#l = new Map(SIMD_LOCALS.map((n) => [n, f.v128(n)]));
  }

  #v(n: string): Local<'v128'> {
    return this.#l.get(n)!;
  }

  /** Load the lane tables at p into R0…R4, S1…S4 and the constants; `hib` is 0 or 1. */
  loadLaneTables(p: Local<'i32'>, base: number, hib: Val<'i32'>): Stmt[] {
    const { R, S } = laneTableOffsets(base);
    return [
      ...[0, 1, 2, 3, 4].map((i) => this.#v(`R${i}`).set(v128.load(p, R[i]))),
      ...[1, 2, 3, 4].map((i) => this.#v(`S${i}`).set(v128.load(p, S[i]))),
      this.#v('vhib').set(i32x4.splat(i32.shl(hib, 24))),
      this.#v('vm').set(v128.i32x4([M26, M26, M26, M26])),
    ];
  }

  /**
   * Σ_lane Σ_j M_j·(R or S) for the four blocks at (addr + off): adds the two 64-bit lane sums
   * of each output limb i into the scalar d[i].
   */
  quad(addr: Local<'i32'>, off: number, d: Local<'i64'>[]): Stmt[] {
    const v = (n: string) => this.#v(n);
    const [B0, B1, B2, B3] = [0, 1, 2, 3].map((b) => v(`B${b}`));
    const [M0, M1, M2, M3, M4] = [0, 1, 2, 3, 4].map((j) => v(`M${j}`));
    const [vm, vhib, D] = [v('vm'), v('vhib'), v('D')];
    const out: Stmt[] = [B0, B1, B2, B3].map((b, k) => b.set(v128.load(addr, off + 16 * k)));
    // transpose: B_b holds block b's words; afterwards B0…B3 hold word w of blocks 0…3
    out.push(
      M0.set(i8x16.shuffle(B0, B1, LO32)),
      M1.set(i8x16.shuffle(B2, B3, LO32)),
      M2.set(i8x16.shuffle(B0, B1, HI32)),
      M3.set(i8x16.shuffle(B2, B3, HI32)),
      B0.set(i8x16.shuffle(M0, M1, LO64)),
      B1.set(i8x16.shuffle(M0, M1, HI64)),
      B2.set(i8x16.shuffle(M2, M3, LO64)),
      B3.set(i8x16.shuffle(M2, M3, HI64)),
    );
    // 26-bit limbs
    out.push(
      M0.set(v128.and(B0, vm)),
      M1.set(v128.and(v128.or(i32x4.shr_u(B0, 26), i32x4.shl(B1, 6)), vm)),
      M2.set(v128.and(v128.or(i32x4.shr_u(B1, 20), i32x4.shl(B2, 12)), vm)),
      M3.set(v128.and(v128.or(i32x4.shr_u(B2, 14), i32x4.shl(B3, 18)), vm)),
      M4.set(v128.or(i32x4.shr_u(B3, 8), vhib)),
    );
    const M = [M0, M1, M2, M3, M4];
    for (let i = 0; i < 5; i++) {
      const coef = (j: number) => (i - j >= 0 ? v(`R${i - j}`) : v(`S${i - j + 5}`));
      const sum = (half: 'low' | 'high') => {
        const ps = M.map((m, j) => (half === 'low' ? i64x2.extmul_low_i32x4_u(m, coef(j)) : i64x2.extmul_high_i32x4_u(m, coef(j))));
        return i64x2.add(...(ps as [Expr<'v128'>, Expr<'v128'>]));
      };
      out.push(D.set(i64x2.add(sum('low'), sum('high'))), d[i].set(i64.add(d[i], i64x2.extract_lane(D, 0), i64x2.extract_lane(D, 1))));
    }
    return out;
  }
}

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

import { SHUF_HI32 as HI32, SHUF_HI64 as HI64, SHUF_LO32 as LO32, SHUF_LO64 as LO64 } from './wat.js';

type Lines = string[];

const M26 = 0x3ffffff;

/** v128 locals the SIMD half uses. */
export const SIMD_LOCALS = [
  'vhib', 'vm',
  'R0', 'R1', 'R2', 'R3', 'R4', 'S1', 'S2', 'S3', 'S4',
  'B0', 'B1', 'B2', 'B3', 'M0', 'M1', 'M2', 'M3', 'M4', 'D',
];

/** Offsets (from the state) of the lane tables: R_i = (r^4_i, r^3_i, r^2_i, r_i), S_i = 5·R_i. */
export function laneTableOffsets(base: number): { R: number[]; S: number[] } {
  return { R: [0, 1, 2, 3, 4].map((i) => base + 16 * i), S: [0, 1, 2, 3, 4].map((i) => base + 80 + 16 * (i - 1)) };
}

/**
 * Build the lane tables at $p from the scalar powers (limbs as u32 at rOff[k-1] for r^k).
 * `reversed` is the negative control: lanes get r, r^2, r^3, r^4 (the wrong order).
 */
export function buildLaneTables(rOff: number[], base: number, reversed: boolean): Lines {
  const { R, S } = laneTableOffsets(base);
  const out: Lines = [];
  for (let i = 0; i < 5; i++) {
    for (let lane = 0; lane < 4; lane++) {
      const k = reversed ? lane + 1 : 4 - lane;
      out.push('local.get $p', 'local.get $p', `i32.load offset=${rOff[k - 1] + 4 * i}`, `i32.store offset=${R[i] + 4 * lane}`);
      if (i > 0) out.push('local.get $p', 'local.get $p', `i32.load offset=${rOff[k - 1] + 4 * i}`, 'i32.const 5', 'i32.mul', `i32.store offset=${S[i] + 4 * lane}`);
    }
  }
  return out;
}

/** Load the lane tables into $R0…$R4, $S1…$S4 and the constants; `hib` is an i32 expression (0 or 1). */
export function loadLaneTables(base: number, hib: Lines): Lines {
  const { R, S } = laneTableOffsets(base);
  const out: Lines = [];
  for (let i = 0; i < 5; i++) out.push('local.get $p', `v128.load offset=${R[i]}`, `local.set $R${i}`);
  for (let i = 1; i < 5; i++) out.push('local.get $p', `v128.load offset=${S[i]}`, `local.set $S${i}`);
  out.push(...hib, 'i32.const 24', 'i32.shl', 'i32x4.splat', 'local.set $vhib');
  out.push(`v128.const i32x4 ${M26} ${M26} ${M26} ${M26}`, 'local.set $vm');
  return out;
}

/**
 * Σ_lane Σ_j M_j·(R or S) for the four blocks at ($addr + off): adds the two 64-bit lane sums
 * of each output limb i into the scalar $d{i}.
 */
export function simdQuad(addr: string, off: number): Lines {
  const out: Lines = [];
  for (let b = 0; b < 4; b++) out.push(`local.get $${addr}`, `v128.load offset=${off + 16 * b}`, `local.set $B${b}`);
  // transpose: B_b holds block b's words; afterwards B0…B3 hold word w of blocks 0…3
  out.push(
    'local.get $B0', 'local.get $B1', `i8x16.shuffle ${LO32}`, 'local.set $M0',
    'local.get $B2', 'local.get $B3', `i8x16.shuffle ${LO32}`, 'local.set $M1',
    'local.get $B0', 'local.get $B1', `i8x16.shuffle ${HI32}`, 'local.set $M2',
    'local.get $B2', 'local.get $B3', `i8x16.shuffle ${HI32}`, 'local.set $M3',
    'local.get $M0', 'local.get $M1', `i8x16.shuffle ${LO64}`, 'local.set $B0',
    'local.get $M0', 'local.get $M1', `i8x16.shuffle ${HI64}`, 'local.set $B1',
    'local.get $M2', 'local.get $M3', `i8x16.shuffle ${LO64}`, 'local.set $B2',
    'local.get $M2', 'local.get $M3', `i8x16.shuffle ${HI64}`, 'local.set $B3',
  );
  // 26-bit limbs
  out.push(
    'local.get $B0', 'local.get $vm', 'v128.and', 'local.set $M0',
    'local.get $B0', 'i32.const 26', 'i32x4.shr_u', 'local.get $B1', 'i32.const 6', 'i32x4.shl', 'v128.or', 'local.get $vm', 'v128.and', 'local.set $M1',
    'local.get $B1', 'i32.const 20', 'i32x4.shr_u', 'local.get $B2', 'i32.const 12', 'i32x4.shl', 'v128.or', 'local.get $vm', 'v128.and', 'local.set $M2',
    'local.get $B2', 'i32.const 14', 'i32x4.shr_u', 'local.get $B3', 'i32.const 18', 'i32x4.shl', 'v128.or', 'local.get $vm', 'v128.and', 'local.set $M3',
    'local.get $B3', 'i32.const 8', 'i32x4.shr_u', 'local.get $vhib', 'v128.or', 'local.set $M4',
  );
  for (let i = 0; i < 5; i++) {
    const coef = (j: number) => (i - j >= 0 ? `$R${i - j}` : `$S${i - j + 5}`);
    for (const half of ['low', 'high']) {
      for (let j = 0; j < 5; j++) {
        out.push(`local.get $M${j}`, `local.get ${coef(j)}`, `i64x2.extmul_${half}_i32x4_u`);
        if (j > 0) out.push('i64x2.add');
      }
      if (half === 'high') out.push('i64x2.add');
    }
    out.push(
      'local.set $D',
      `local.get $d${i}`, 'local.get $D', 'i64x2.extract_lane 0', 'i64.add', 'local.get $D', 'i64x2.extract_lane 1', 'i64.add', `local.set $d${i}`,
    );
  }
  return out;
}

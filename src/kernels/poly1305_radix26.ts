// Poly1305 (RFC 8439 §2.5) in radix 2^26 on 64-bit integer multiplies, several blocks per step
// with precomputed powers of r, constant time.
//
// Representation: a number below 2^130 + ε as five limbs h0…h4 of 26 bits (h = Σ h_i·2^(26i)),
// each held in an i64 local. A product h·r mod 2^130 − 5 is 25 `i64.mul` of 26-bit by 26-bit
// (or 26-bit by 5·26-bit: 2^130 ≡ 5, so a limb product that lands at 2^(26·(i+j)) with i+j ≥ 5
// is folded down with the precomputed s_j = 5·r_j), summed in 64 bits, then one partial carry
// chain. Bounds: limbs stay below 2^27.1 before a multiply and 5·r_j below 2^28.4, so each
// product is below 2^55.5 and a sum of twenty (four blocks) below 2^60: no overflow.
//
// Multi-block: four blocks at once as h' = (h + m1)·r^4 + m2·r^3 + m3·r^2 + m4·r, with r^2, r^3,
// r^4 computed once per key (poly1305_powers). The four products are independent, so the
// multiplier pipelines them, and one carry chain serves four blocks. The accumulator and all
// powers stay in locals across the loop; memory holds them only between calls.
//
// Why constant time: the only branches and addresses depend on pointers and block counts;
// key, message and accumulator flow through add, mul, shift, and, or only. `i64.mul` is `imul`
// on x86-64 (data-independent timing, WASM-NOTES.md). The final reduction computes h − p in full
// and chooses between h and h − p with an all-ones/all-zeros mask taken from the sign bit, and
// the `+ s` carry comes from an unsigned compare turned into a number, never a branch.
//
// Cost: 25 multiplies and ~40 other integer operations per block; ~1.8 GB/s on the probe.
//
// Eight blocks at once (maxg 8): the same with r^8…r^5 on the scalar half and blocks 5–8 in
// SIMD lanes (poly1305_simd128.ts), so the vector units carry part of the multiplications.
//
// State layout at p (bytes; limbs as u32):
//   0   h0…h4      32 + 32(k−1)  r^k limbs (k = 1…8)   288  s (16 bytes, the key's second half)
//   304 the lane tables of poly1305_simd128.ts (144 bytes)
// The glue owns buffering and the padding of a final partial block (one place for the MAC and
// both AEADs); this kernel sees whole 16-byte blocks only, with the 2^128 bit added or not
// (`hibit`), so the MAC's padded last block is a block with hibit 0 and its 0x01 byte in memory.

import { SIMD_LOCALS, buildLaneTables, loadLaneTables, simdQuad } from './poly1305_simd128.js';
import { locals } from './wat.js';

export const POLY_STATE_SIZE = 448;
export const POLY_R = [1, 2, 3, 4, 5, 6, 7, 8].map((k) => 32 * k); // offsets of r^1 … r^8
export const POLY_S = 288;
export const POLY_V = 304;

export interface PolyFlags {
  /** the four-block step applies the powers in the wrong order (m1·r, …, m4·r^4) */
  powersReversed?: boolean;
  /** the final reduction's h + 5 − 2^130 drops the carry out of its lowest limb */
  finalCarryLost?: boolean;
}

const M26 = '0x3ffffff';
type Lines = string[];

/** i64 locals the generated poly code uses, with the powers r^k for k in ks. */
export function polyLocals(ks: number[]): string[] {
  const names = ['h0', 'h1', 'h2', 'h3', 'h4', 'd0', 'd1', 'd2', 'd3', 'd4', 'pc', 'm0', 'm1', 'm2', 'm3', 'm4', 'mt0', 'mt1'];
  for (const k of ks) {
    for (let i = 0; i < 5; i++) names.push(`r${k}_${i}`);
    for (let i = 1; i < 5; i++) names.push(`s${k}_${i}`);
  }
  return names;
}

/** Load h from the state at local $p. */
export function polyLoadH(): Lines {
  const out: Lines = [];
  for (let i = 0; i < 5; i++) out.push('local.get $p', `i64.load32_u offset=${4 * i}`, `local.set $h${i}`);
  return out;
}

/** Load the powers r^k (k in ks) and their 5·r^k limbs from the state at local $p. */
export function polyLoadR(ks: number[]): Lines {
  const out: Lines = [];
  for (const k of ks) {
    for (let i = 0; i < 5; i++) out.push('local.get $p', `i64.load32_u offset=${POLY_R[k - 1] + 4 * i}`, `local.set $r${k}_${i}`);
    for (let i = 1; i < 5; i++) out.push(`local.get $r${k}_${i}`, 'i64.const 5', 'i64.mul', `local.set $s${k}_${i}`);
  }
  return out;
}

/** Store h back to the state at $p. */
export function polyStore(): Lines {
  const out: Lines = [];
  for (let i = 0; i < 5; i++) out.push('local.get $p', `local.get $h${i}`, `i64.store32 offset=${4 * i}`);
  return out;
}

/** The 26-bit limbs of the block at ($addr + off) into $m0…$m4, with the 2^128 bit from `hib`. */
function loadBlock(addr: string, off: number, hib: Lines): Lines {
  return [
    `local.get $${addr}`, `i64.load offset=${off}`, 'local.set $mt0',
    `local.get $${addr}`, `i64.load offset=${off + 8}`, 'local.set $mt1',
    'local.get $mt0', `i64.const ${M26}`, 'i64.and', 'local.set $m0',
    'local.get $mt0', 'i64.const 26', 'i64.shr_u', `i64.const ${M26}`, 'i64.and', 'local.set $m1',
    'local.get $mt0', 'i64.const 52', 'i64.shr_u', 'local.get $mt1', 'i64.const 12', 'i64.shl', 'i64.or', `i64.const ${M26}`, 'i64.and', 'local.set $m2',
    'local.get $mt1', 'i64.const 14', 'i64.shr_u', `i64.const ${M26}`, 'i64.and', 'local.set $m3',
    'local.get $mt1', 'i64.const 40', 'i64.shr_u', ...hib, 'i64.or', 'local.set $m4',
  ];
}

/** d_i (+)= x · r^k, where x is in $x0…$x4 (the names given). */
function mulInto(x: string[], k: number, first: boolean): Lines {
  const out: Lines = [];
  for (let i = 0; i < 5; i++) {
    out.push(...(first ? [] : [`local.get $d${i}`]));
    for (let j = 0; j < 5; j++) {
      // term x_j · r_{i-j}, or x_j · 5·r_{i-j+5} when i − j < 0
      const t = i - j;
      const rr = t >= 0 ? `$r${k}_${t}` : `$s${k}_${t + 5}`;
      out.push(`local.get $${x[j]}`, `local.get ${rr}`, 'i64.mul');
      if (j > 0 || !first) out.push('i64.add');
    }
    out.push(`local.set $d${i}`);
  }
  return out;
}

/** Partial carry d → h (h1 may exceed 2^26 slightly; every other limb is below 2^26). */
function carry(): Lines {
  const out: Lines = [];
  for (let i = 0; i < 4; i++) {
    out.push(`local.get $d${i}`, 'i64.const 26', 'i64.shr_u', `local.get $d${i + 1}`, 'i64.add', `local.set $d${i + 1}`);
    out.push(`local.get $d${i}`, `i64.const ${M26}`, 'i64.and', `local.set $h${i}`);
  }
  out.push(
    'local.get $d4', 'i64.const 26', 'i64.shr_u', 'local.set $pc',
    'local.get $d4', `i64.const ${M26}`, 'i64.and', 'local.set $h4',
    'local.get $h0', 'local.get $pc', 'i64.const 5', 'i64.mul', 'i64.add', 'local.set $h0',
    'local.get $h1', 'local.get $h0', 'i64.const 26', 'i64.shr_u', 'i64.add', 'local.set $h1',
    'local.get $h0', `i64.const ${M26}`, 'i64.and', 'local.set $h0',
  );
  return out;
}

const HM = ['m0', 'm1', 'm2', 'm3', 'm4'];

/** One block at ($addr + off): h = (h + m)·r. */
export function polyStep1(addr: string, off: number, hib: Lines): Lines {
  const out = loadBlock(addr, off, hib);
  for (let i = 0; i < 5; i++) out.push(`local.get $m${i}`, `local.get $h${i}`, 'i64.add', `local.set $m${i}`);
  return [...out, ...mulInto(HM, 1, true), ...carry()];
}

/**
 * Four blocks at ($addr + off) into d: (h + m1)·r^ks[0] + m2·r^ks[1] + m3·r^ks[2] + m4·r^ks[3]
 * (without the carry).
 */
function products4(addr: string, off: number, hib: Lines, ks: number[], flags: PolyFlags, pin?: (j: number) => Lines): Lines {
  const out: Lines = [];
  const order = flags.powersReversed ? [...ks].reverse() : ks;
  for (let j = 0; j < 4; j++) {
    out.push(...loadBlock(addr, off + 16 * j, hib));
    if (j === 0) for (let i = 0; i < 5; i++) out.push(`local.get $m${i}`, `local.get $h${i}`, 'i64.add', `local.set $m${i}`);
    out.push(...mulInto(HM, order[j], j === 0));
    if (pin) out.push(...pin(j));
  }
  return out;
}

/** Four blocks at ($addr + off): h = (h + m1)·r^4 + m2·r^3 + m3·r^2 + m4·r; `pin(j)`, when
 * given, is emitted after block j's products (a store that keeps the next block's loads after
 * them: src/kernels/chacha20_simd128.ts). */
export function polyStep4(addr: string, off: number, hib: Lines, flags: PolyFlags = {}, pin?: (j: number) => Lines): Lines {
  return [...products4(addr, off, hib, [4, 3, 2, 1], flags, pin), ...carry()];
}

/** Eight blocks at ($addr + off): the scalar half with r^8…r^5, the SIMD half with r^4…r, one carry. */
export function polyStep8(addr: string, off: number, hib: Lines, flags: PolyFlags = {}): Lines {
  return [...products4(addr, off, hib, [8, 7, 6, 5], flags), ...simdQuad(addr, off + 64), ...carry()];
}

const FN_LOCALS = (ks: number[]) => locals('i64', polyLocals(ks));

/** `while (n >= k) { step; src += 16k; n -= k }` inside an `if` at depth one, for $poly1305_blocks. */
function stepLoop(label: string, k: number, step: Lines): Lines {
  return [
    `  block $${label}_done`,
    `    loop $${label}`,
    '      local.get $n', `      i32.const ${k}`, '      i32.lt_u', `      br_if $${label}_done`,
    ...step,
    '      local.get $src', `      i32.const ${16 * k}`, '      i32.add', '      local.set $src',
    '      local.get $n', `      i32.const ${k}`, '      i32.sub', '      local.set $n',
    `      br $${label}`,
    '    end',
    '  end',
  ];
}

/**
 * The module-level Poly1305 functions: $poly1305_init(p, key), $poly1305_powers(p),
 * $poly1305_blocks(p, src, n, maxg, hibit), $poly1305_finish(p, out), and the internal
 * $poly1305_mul(p, a, b, out) that multiplies the r-limb vectors at offsets a and b.
 */
export function polyFunctions(flags: PolyFlags = {}): string[] {
  const init = [
    '(func $poly1305_init (export "poly1305_init") (param $p i32) (param $key i32) (local $t0 i64) (local $t1 i64)',
    ';; r = clamp(key[0..16]) as five 26-bit limbs, s = key[16..32], h = 0',
    'local.get $key', 'i64.load offset=0', 'i64.const 0x0ffffffc0fffffff', 'i64.and', 'local.set $t0',
    'local.get $key', 'i64.load offset=8', 'i64.const 0x0ffffffc0ffffffc', 'i64.and', 'local.set $t1',
    'local.get $p', 'local.get $t0', `i64.const ${M26}`, 'i64.and', `i64.store32 offset=${POLY_R[0]}`,
    'local.get $p', 'local.get $t0', 'i64.const 26', 'i64.shr_u', `i64.const ${M26}`, 'i64.and', `i64.store32 offset=${POLY_R[0] + 4}`,
    'local.get $p', 'local.get $t0', 'i64.const 52', 'i64.shr_u', 'local.get $t1', 'i64.const 12', 'i64.shl', 'i64.or', `i64.const ${M26}`, 'i64.and', `i64.store32 offset=${POLY_R[0] + 8}`,
    'local.get $p', 'local.get $t1', 'i64.const 14', 'i64.shr_u', `i64.const ${M26}`, 'i64.and', `i64.store32 offset=${POLY_R[0] + 12}`,
    'local.get $p', 'local.get $t1', 'i64.const 40', 'i64.shr_u', `i64.store32 offset=${POLY_R[0] + 16}`,
    'local.get $p', 'local.get $key', 'i64.load offset=16', `i64.store offset=${POLY_S}`,
    'local.get $p', 'local.get $key', 'i64.load offset=24', `i64.store offset=${POLY_S + 8}`,
    'local.get $p', 'v128.const i64x2 0 0', 'v128.store offset=0',
    'local.get $p', 'i32.const 0', 'i32.store offset=16',
    ')',
  ];

  // out-limbs = (limbs at p+a) · (limbs at p+b), using the single-block multiply with h := a, r^1 := b
  const mulLoad: Lines = [];
  for (let i = 0; i < 5; i++) mulLoad.push('local.get $p', 'local.get $a', 'i32.add', `i64.load32_u offset=${4 * i}`, `local.set $m${i}`);
  for (let i = 0; i < 5; i++) mulLoad.push('local.get $p', 'local.get $b', 'i32.add', `i64.load32_u offset=${4 * i}`, `local.set $r1_${i}`);
  for (let i = 1; i < 5; i++) mulLoad.push(`local.get $r1_${i}`, 'i64.const 5', 'i64.mul', `local.set $s1_${i}`);
  const mulStore: Lines = [];
  for (let i = 0; i < 5; i++) mulStore.push('local.get $p', 'local.get $out', 'i32.add', `local.get $h${i}`, `i64.store32 offset=${4 * i}`);
  const mul = [
    `(func $poly1305_mul (param $p i32) (param $a i32) (param $b i32) (param $out i32) ${FN_LOCALS([1])}`,
    ...mulLoad, ...mulInto(HM, 1, true), ...carry(), ...mulStore,
    ')',
  ];

  const powers = [
    '(func $poly1305_powers (export "poly1305_powers") (param $p i32)',
    ';; r^k = r^(k-1)·r for k = 2…8, then the lane tables (r^4, r^3, r^2, r) and 5× for the SIMD half',
    ...[2, 3, 4, 5, 6, 7, 8].flatMap((k) => ['local.get $p', `i32.const ${POLY_R[k - 2]}`, `i32.const ${POLY_R[0]}`, `i32.const ${POLY_R[k - 1]}`, 'call $poly1305_mul']),
    ...buildLaneTables(POLY_R, POLY_V, !!flags.powersReversed),
    ')',
  ];

  const hib = ['local.get $hib'];
  const blocks = [
    `(func $poly1305_blocks (export "poly1305_blocks") (param $p i32) (param $src i32) (param $n i32) (param $maxg i32) (param $hibit i32) (local $hib i64) ${FN_LOCALS([1, 2, 3, 4, 5, 6, 7, 8])} ${locals('v128', SIMD_LOCALS)}`,
    'local.get $hibit', 'i64.extend_i32_u', 'i64.const 24', 'i64.shl', 'local.set $hib',
    ...polyLoadH(),
    ...polyLoadR([1]),
    'local.get $maxg', 'i32.const 8', 'i32.ge_u',
    'if',
    ...polyLoadR([5, 6, 7, 8]),
    ...loadLaneTables(POLY_V, ['local.get $hibit']),
    ...stepLoop('eight', 8, polyStep8('src', 0, hib, flags)),
    'end',
    'local.get $maxg', 'i32.const 4', 'i32.ge_u',
    'if',
    ...polyLoadR([2, 3, 4]),
    ...stepLoop('four', 4, polyStep4('src', 0, hib, flags)),
    'end',
    'block $one_done',
    '  loop $one',
    '    local.get $n', '    i32.eqz', '    br_if $one_done',
    ...polyStep1('src', 0, hib),
    '    local.get $src', '    i32.const 16', '    i32.add', '    local.set $src',
    '    local.get $n', '    i32.const 1', '    i32.sub', '    local.set $n',
    '    br $one',
    '  end',
    'end',
    ...polyStore(),
    ')',
  ];

  // Final reduction: full carry (twice, so that every limb is below 2^26 when h < p), then
  // g = h + 5 − 2^130; take g when it did not go negative (h ≥ p), by mask; then + s mod 2^128.
  const fc: Lines = [];
  const carryStep = (i: number) => [
    `local.get $h${i}`, 'i64.const 26', 'i64.shr_u', 'local.set $pc',
    `local.get $h${i}`, `i64.const ${M26}`, 'i64.and', `local.set $h${i}`,
    `local.get $h${i + 1}`, 'local.get $pc', 'i64.add', `local.set $h${i + 1}`,
  ];
  for (let i = 0; i < 4; i++) fc.push(...carryStep(i));
  fc.push(
    'local.get $h4', 'i64.const 26', 'i64.shr_u', 'local.set $pc',
    'local.get $h4', `i64.const ${M26}`, 'i64.and', 'local.set $h4',
    'local.get $h0', 'local.get $pc', 'i64.const 5', 'i64.mul', 'i64.add', 'local.set $h0',
  );
  for (let i = 0; i < 4; i++) fc.push(...carryStep(i));
  // g = h + 5 with carries, g4 −= 2^26
  fc.push('local.get $h0', 'i64.const 5', 'i64.add', 'local.set $d0');
  for (let i = 0; i < 4; i++) {
    const lose = i === 0 && !!flags.finalCarryLost;
    fc.push(`local.get $h${i + 1}`, ...(lose ? [] : [`local.get $d${i}`, 'i64.const 26', 'i64.shr_u', 'i64.add']), `local.set $d${i + 1}`);
    fc.push(`local.get $d${i}`, `i64.const ${M26}`, 'i64.and', `local.set $d${i}`);
  }
  fc.push('local.get $d4', 'i64.const 0x4000000', 'i64.sub', 'local.set $d4');
  // mask = all ones when g4 ≥ 0 (h ≥ p): (g4 >> 63) − 1
  fc.push('local.get $d4', 'i64.const 63', 'i64.shr_u', 'i64.const 1', 'i64.sub', 'local.set $pc');
  for (let i = 0; i < 5; i++) {
    fc.push(`local.get $d${i}`, 'local.get $pc', 'i64.and', `local.get $h${i}`, 'local.get $pc', 'i64.const -1', 'i64.xor', 'i64.and', 'i64.or', `local.set $h${i}`);
  }
  fc.push('local.get $h4', `i64.const ${M26}`, 'i64.and', 'local.set $h4');
  // pack into two 64-bit words (mod 2^128) and add s
  fc.push(
    'local.get $h0', 'local.get $h1', 'i64.const 26', 'i64.shl', 'i64.or', 'local.get $h2', 'i64.const 52', 'i64.shl', 'i64.or', 'local.set $mt0',
    'local.get $h2', 'i64.const 12', 'i64.shr_u', 'local.get $h3', 'i64.const 14', 'i64.shl', 'i64.or', 'local.get $h4', 'i64.const 40', 'i64.shl', 'i64.or', 'local.set $mt1',
    'local.get $mt0', 'local.get $p', `i64.load offset=${POLY_S}`, 'i64.add', 'local.set $m0',
    'local.get $mt1', 'local.get $p', `i64.load offset=${POLY_S + 8}`, 'i64.add',
    'local.get $m0', 'local.get $mt0', 'i64.lt_u', 'i64.extend_i32_u', 'i64.add', 'local.set $m1',
    'local.get $out', 'local.get $m0', 'i64.store offset=0',
    'local.get $out', 'local.get $m1', 'i64.store offset=8',
  );
  const finish = [
    `(func $poly1305_finish (export "poly1305_finish") (param $p i32) (param $out i32) ${FN_LOCALS([1])}`,
    ...polyLoadH(),
    ...fc,
    ')',
  ];
  return [...init, ...mul, ...powers, ...blocks, ...finish];
}

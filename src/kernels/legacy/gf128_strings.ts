// TRANSITIONAL: the string form of gf128_ctmul64.ts, used by aes_gcm.ts and sm4_gcm.ts until they
// are written in the builder (issue 13); deleted then. Not a module of its own.

// GF(2^128) multiplication for GHASH (SP 800-38D) and POLYVAL (RFC 8452), constant time:
// "multiplication with holes" on 64-bit integer multiplies, one kernel for both hashes.
//
// Why constant time: there is no table indexed by data. A carry-less 64×64 product is built
// from sixteen ordinary 64-bit multiplications of operands masked to every fourth bit
// (0x1111…, 0x2222…, 0x4444…, 0x8888…). In each such product a column of the low 64 bits sums
// at most 16 one-bit terms; the count's carries land only in the three "hole" bits above the
// column (or beyond bit 63, where they are dropped) and are masked away, so the kept bit is the
// XOR of the terms. `i64.mul` is `imul` on x86-64, whose timing does not depend on its operands
// (WASM-NOTES.md). The high 64 bits of a product come from the same routine on bit-reversed
// operands: rev64(lo(rev(a)·rev(b))) >> 1 = hi(a·b). Bit reversal is two `i8x16.swizzle`
// nibble lookups with constant tables held in registers (the index is the data, the table is
// a constant: vpshufb, no memory access).
//
// Domain: everything runs in POLYVAL's little-endian polynomial order (bit i of the 128-bit
// little-endian block is the coefficient of x^i) with its Montgomery product
// dot(a, b) = a·b·x^-128 mod x^128 + x^127 + x^126 + x^121 + 1. GHASH maps onto it as
// RFC 8452 Appendix A says: GHASH(H, X…) = rev(POLYVAL(mulX(rev(H)), rev(X)…)), with rev the
// 16-byte reversal, done here by one swizzle per block.
//
// Multi-block: with powers H_k = dot(H_{k-1}, H) (H_1 = H), a group of g blocks
// S' = dot(…dot(S ⊕ X_1, H)…⊕ X_g, H) equals one reduction of Σ_j clmul(Y_j, H_{g-j+1}),
// Y_1 = S ⊕ X_1, Y_j = X_j. The six 64-bit partial products of each block (Karatsuba: lo, hi,
// and the middle term, each for a and for rev(a)) are XOR-accumulated in locals across the
// group; the reversal back and the Montgomery reduction run once per group. The state stays
// in a local across the whole call and is stored once at the end.
//
// Cost per block of this loop (embedded by aes_gcm.ts and sm4_gcm.ts, and run by the gf128
// module for one block per group): 96 i64.mul (6 products × 16), 24 loads of the key-side
// masked parts, ~150 other scalar operations and ~10 SIMD ones; the multiplier bounds it near
// 6 cycles/byte. Each product ends with a store of its accumulator to the slot (offset 48):
// TurboFan keeps memory operations in order but floats pure arithmetic, and without these
// stores it interleaved all six products of a block and spilled ~40 values to the stack. With
// them the eight-block loop went from 478 to ~700 MB/s (polyval_blocks over 16 KiB).
//
// The gf128 module's loop with powers (maxg > 1): "w16", two of the three Karatsuba 64×64
// products on SIMD. `i16x8.mul` (`vpmullw` on x86-64) multiplies eight 16-bit lanes keeping
// the low 16 bits; with operands masked to every third bit (0x9249, 0x2492, 0x4924: at most 6
// bits per piece) a column sums at most 6 terms, so its carries stay in the two hole bits above
// it and are masked away — 9 multiplies give eight 16×16 carry-less low halves. The products
// a0·h0 and a1·h1 are split by Karatsuba twice more (64 → 32 → 16 bits) into 18 16×16 products
// whose operands (XORs of the block's 16-bit chunks c0…c7) sit in the lanes of five vectors:
// V = the block, V2 = pairs c_2i ^ c_2i+1 and friends, Vr and V2r = the same with each 16-bit
// lane bit-reversed (rev16(lo16(rev a·rev b)) >> 1 = hi16(a·b)), V5 = the 32-bit-level middle
// operands, plain and reversed. The key side of each lane is precomputed per power (240 bytes,
// written by $table16 in gf128_powers). Lanes are XOR-accumulated over the group; the 16 → 32
// → 64-bit recombination (lane extracts, shifts) runs once per group. The middle product
// (a0^a1)(h0^h1) and its reversal stay on i64.mul as above (table words 2 and 5). Each SIMD
// product ends with a v128 pinning store (slot + 1984), for the same reason as the i64 ones;
// the order V, Vr, scalar low, V2, V2r, scalar reversed, V5, and the group's state-carrying
// block hashed last (blocks 2…g first, so their loads do not wait on the previous reduction)
// measured fastest (a standalone probe, not committed, variant w16-hyb-statelast-rv16-o9: 1.50×
// the scalar loop). `vpmullw`, like `imul`, has one latency per microarchitecture in the
// published instruction tables and no documented operand-dependent early exit; that Intel's
// data-operand-independent-timing list names PMULLW is recalled, not checked here.
//
// Per block: 45 i16x8.mul and 32 i64.mul, 15 v128 and 8 i64 table loads, 10 swizzles, ~85
// other SIMD and ~70 other scalar operations, 5 v128 and 2 i64 pinning stores; per group
// 37 lane extracts, 12 swizzles and ~200 scalar operations of recombination and reduction.
// Measured (`npx tsx bench/run.ts '^(ghash|polyval)' --base HEAD --time 1000`, fastest of 3
// copies, 2-core VM): polyval/16384 22.2 → 15.4 µs (738 → 1064 MB/s), ghash/16384 23.1 →
// 15.3 µs (709 → 1071 MB/s), 1024 bytes −20 %, sizes below POWERS_THRESHOLD unchanged (they
// run the i64.mul loop and gf128_init does no i16x8 work).
//
// Negative-control flags (tests only) produce deliberately broken variants the differential
// suite must reject.

import { type GeneratedKernel, type KernelFunction, hex64, indent, locals, paramDecl, publicMap, v128Bytes, BSWAP64 as LANE_REV } from '../wat.js';

export interface Gf128Flags {
  /** drop the x^57 term of the first reduction step */
  dropReductionTerm?: boolean;
  /** a partial group (fewer blocks than powers) starts one block late */
  tailLate?: boolean;
  /** the second block of each group uses the first block's power of H */
  wrongPower?: boolean;
  /** GHASH's 16-byte reversal swaps two bytes */
  byteSlip?: boolean;
}

export const GF128_SLOT_SIZE = 4096;
export const GF128_TABLE_OFFSET = 64;
export const GF128_TABLE_SIZE = 192;
export const GF128_MAX_POWERS = 8;
/** the gf128 module's i16x8 parts of H_k: slot + GF128_W16_OFFSET + (k-1)·GF128_W16_SIZE */
export const GF128_W16_OFFSET = 2048;
export const GF128_W16_SIZE = 240;
/** the gf128 module's v128 pinning store: slot + GF128_W16_PIN (between the two tables) */
export const GF128_W16_PIN = 1984;

const M = [0x1111111111111111n, 0x2222222222222222n, 0x4444444444444444n, 0x8888888888888888n];

// Bit reversal of each byte by nibbles: low nibble n -> rev4(n) << 4, high nibble n -> rev4(n).
const rev4 = (n: number) => ((n & 1) << 3) | ((n & 2) << 1) | ((n & 4) >> 1) | ((n & 8) >> 3);
const REV_HI = Array.from({ length: 16 }, (_, n) => rev4(n) << 4);
const REV_LO = Array.from({ length: 16 }, (_, n) => rev4(n));

/**
 * Bit reversal of each lane of the v128 on the stack: the bytes of each lane reversed by the
 * swizzle index in local $byteIdx (kLaneRev: 64-bit lanes, kBswap16: 16-bit lanes), then the
 * bits of each byte by the nibble tables $kRevHi/$kRevLo. Leaves the result on the stack; uses $t.
 * (i8x16.swizzle pops the index vector, then the data: it computes data[index[i]].)
 */
const revBits = (byteIdx: string): string[] => [
  `local.get $${byteIdx}`, 'i8x16.swizzle', 'local.set $t',
  'local.get $kRevHi', 'local.get $t', 'local.get $kNib', 'v128.and', 'i8x16.swizzle',
  'local.get $kRevLo', 'local.get $t', 'i32.const 4', 'i16x8.shr_u', 'local.get $kNib', 'v128.and', 'i8x16.swizzle',
  'v128.or',
];

/**
 * acc ^= clmul_lo64(w, the four masked parts of a table word at $p + off): sixteen i64.mul of
 * operands masked to every fourth bit; z_k collects x_i·y_j with i + j ≡ k (mod 4). Ends with
 * `local.tee $acc`, the new value left on the stack for the caller's pinning store.
 */
function clmulLo64(w: string, acc: string, off: number, note = ''): string[] {
  const out: string[] = [`;; ${acc} ^= clmul_lo64(${w}, table word ${off / 32})${note}`];
  for (let i = 0; i < 4; i++) out.push(`local.get $${w}`, `i64.const ${hex64(M[i])}`, 'i64.and', `local.set $x${i}`);
  for (let i = 0; i < 4; i++) out.push('local.get $p', `i64.load offset=${off + 8 * i}`, `local.set $y${i}`);
  out.push(`local.get $${acc}`);
  for (let k2 = 0; k2 < 4; k2++) {
    for (let i = 0; i < 4; i++) {
      out.push(`local.get $x${i}`, `local.get $y${(k2 - i + 4) % 4}`, 'i64.mul');
      if (i > 0) out.push('i64.xor');
    }
    out.push(`i64.const ${hex64(M[k2])}`, 'i64.and');
    if (k2 > 0) out.push('i64.or');
  }
  out.push('i64.xor', `local.tee $${acc}`);
  return out;
}

/** One step of the Montgomery reduction by x^64 (fold lo into mid and hi); dropFirst: the
 * negative control dropReductionTerm. */
function foldStep(lo: string, mid: string, hi: string, dropFirst: boolean): string[] {
  const shl = (v: string, sh: number) => [`local.get $${v}`, `i64.const ${sh}`, 'i64.shl'];
  const shr = (v: string, sh: number) => [`local.get $${v}`, `i64.const ${sh}`, 'i64.shr_u'];
  return [
    `;; fold ${lo}: ${mid} ^= ${lo}<<57 ^ ${lo}<<62 ^ ${lo}<<63; ${hi} ^= ${lo} ^ ${lo}>>1 ^ ${lo}>>2 ^ ${lo}>>7`,
    `local.get $${mid}`,
    ...(dropFirst ? [] : [...shl(lo, 57), 'i64.xor']),
    ...shl(lo, 62), 'i64.xor', ...shl(lo, 63), 'i64.xor',
    `local.set $${mid}`,
    `local.get $${hi}`, `local.get $${lo}`, 'i64.xor',
    ...shr(lo, 1), 'i64.xor', ...shr(lo, 2), 'i64.xor', ...shr(lo, 7), 'i64.xor',
    `local.set $${hi}`,
  ];
}

const FUNCS: KernelFunction[] = [
  { name: 'gf128_init', params: [['slot', 'i32'], ['ghash', 'i32']], publicParams: ['slot', 'ghash'] },
  { name: 'gf128_powers', params: [['slot', 'i32']], publicParams: ['slot'] },
  {
    name: 'polyval_blocks',
    params: [['slot', 'i32'], ['st', 'i32'], ['src', 'i32'], ['n', 'i32'], ['maxg', 'i32']],
    publicParams: ['slot', 'st', 'src', 'n', 'maxg'],
  },
  {
    name: 'ghash_blocks',
    params: [['slot', 'i32'], ['st', 'i32'], ['src', 'i32'], ['n', 'i32'], ['maxg', 'i32']],
    publicParams: ['slot', 'st', 'src', 'n', 'maxg'],
  },
];

/**
 * The kernel's functions as WAT text, each name (and export name) prefixed with `prefix`, so
 * that another module can carry the same GF(2^128) code next to its own (the AES-GCM module
 * hashes the ciphertext it has just produced in the same memory). Exported functions are
 * returned with their public-parameter declarations.
 */
export function gf128Functions(
  flags: Gf128Flags = {},
  prefix = '',
  options: { w16?: boolean } = {},
): { functions: string[]; exports: KernelFunction[]; parts: Gf128Parts } {
  const w16 = options.w16 ? w16Loop(flags, prefix) : undefined;
  const F = FUNCS.map((f) => ({ ...f, name: prefix + f.name }));
  const rev16 = Array.from({ length: 16 }, (_, i) => 15 - i);
  if (flags.byteSlip) [rev16[0], rev16[1]] = [rev16[1], rev16[0]];

  // Constants kept in v128 locals so that each swizzle is a bare vpshufb.
  const constLocals = locals('v128', ['kLaneRev', 'kRev16', 'kNib', 'kRevHi', 'kRevLo']);
  const initConsts = [
    v128Bytes(LANE_REV), 'local.set $kLaneRev',
    v128Bytes(rev16), 'local.set $kRev16',
    'v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15', 'local.set $kNib',
    v128Bytes(REV_HI), 'local.set $kRevHi',
    v128Bytes(REV_LO), 'local.set $kRevLo',
  ];

  // rev64 of both lanes of the v128 on the stack; leaves the result on the stack. Uses $t.
  const revLanes = [';; rev64 of each lane: reverse the bytes of each lane, then the bits of each byte', ...revBits('kLaneRev')];

  // One block's six Karatsuba partial products, XOR-accumulated into L0 L1 L2 R0 R1 R2.
  // Input: $v (block in POLYVAL domain), $p (table of the power to use).
  const accumulate = (): string[] => {
    const out: string[] = [
      'local.get $v', ...revLanes, 'local.set $vr',
      'local.get $v', 'i64x2.extract_lane 0', 'local.set $a0',
      'local.get $v', 'i64x2.extract_lane 1', 'local.set $a1',
      'local.get $vr', 'i64x2.extract_lane 0', 'local.set $ar0',
      'local.get $vr', 'i64x2.extract_lane 1', 'local.set $ar1',
      'local.get $a0', 'local.get $a1', 'i64.xor', 'local.set $a2',
      'local.get $ar0', 'local.get $ar1', 'i64.xor', 'local.set $ar2',
    ];
    const words: [string, string][] = [['a0', 'L0'], ['a1', 'L1'], ['a2', 'L2'], ['ar0', 'R0'], ['ar1', 'R1'], ['ar2', 'R2']];
    words.forEach(([w, acc], k) => {
      out.push(...clmulLo64(w, acc, k * 32));
      // A store after each product pins the next product's loads behind it, so TurboFan
      // cannot interleave the six products (which spilled ~40 values to the stack).
      out.push('local.set $pin', 'local.get $pinAt', 'local.get $pin', 'i64.store offset=48');
    });
    return out;
  };

  // Karatsuba recombination and Montgomery reduction of the accumulated products;
  // leaves the 128-bit result in $r0 (low) and $r1 (high).
  const reduce = (): string[] => {
    return [
      ';; high halves: rev64 of the accumulated reversed products, shifted right by one',
      'local.get $R0', 'i64x2.splat', 'local.get $R1', 'i64x2.replace_lane 1', ...revLanes, 'local.set $vr',
      'local.get $R2', 'i64x2.splat', ...revLanes, 'local.set $v',
      'local.get $vr', 'i64x2.extract_lane 0', 'i64.const 1', 'i64.shr_u', 'local.set $R0',
      'local.get $vr', 'i64x2.extract_lane 1', 'i64.const 1', 'i64.shr_u', 'local.set $R1',
      'local.get $v', 'i64x2.extract_lane 0', 'i64.const 1', 'i64.shr_u', 'local.set $R2',
      ';; 256-bit product c0..c3 = z0 + (z2 ^ z0 ^ z1)·x^64 + z1·x^128',
      'local.get $L0', 'local.set $c0',
      'local.get $R0', 'local.get $L2', 'i64.xor', 'local.get $L0', 'i64.xor', 'local.get $L1', 'i64.xor', 'local.set $c1',
      'local.get $L1', 'local.get $R2', 'i64.xor', 'local.get $R0', 'i64.xor', 'local.get $R1', 'i64.xor', 'local.set $c2',
      'local.get $R1', 'local.set $c3',
      ';; Montgomery reduction by x^128 modulo x^128 + x^127 + x^126 + x^121 + 1',
      ...foldStep('c0', 'c1', 'c2', !!flags.dropReductionTerm),
      ...foldStep('c1', 'c2', 'c3', false),
      'local.get $c2', 'local.set $r0',
      'local.get $c3', 'local.set $r1',
    ];
  };

  const zeroAcc = ['L0', 'L1', 'L2', 'R0', 'R1', 'R2'].flatMap((a) => ['i64.const 0', `local.set $${a}`]);
  const mulLocals = [
    locals('v128', ['v', 'vr', 't']),
    locals('i64', ['a0', 'a1', 'a2', 'ar0', 'ar1', 'ar2', 'x0', 'x1', 'x2', 'x3', 'y0', 'y1', 'y2', 'y3']),
    locals('i64', ['L0', 'L1', 'L2', 'R0', 'R1', 'R2', 'c0', 'c1', 'c2', 'c3', 'r0', 'r1', 'pin']),
    locals('i32', ['pinAt']),
    constLocals,
  ].join(' ');

  // $table(x0, x1, dst): write the 24 masked words of the multiplier x = (x0, x1).
  const tableFn = [
    `(func $${prefix}table (param $x0 i64) (param $x1 i64) (param $dst i32) (local $w i64) (local $t v128) (local $vr v128) ${constLocals}`,
    indent([
      ...initConsts,
      'local.get $x0', 'i64x2.splat', 'local.get $x1', 'i64x2.replace_lane 1', ...revLanes, 'local.set $vr',
      ...(['x0', 'x1', 'x01', 'xr0', 'xr1', 'xr01'] as const).flatMap((src, k) => {
        const get: Record<string, string[]> = {
          x0: ['local.get $x0'],
          x1: ['local.get $x1'],
          x01: ['local.get $x0', 'local.get $x1', 'i64.xor'],
          xr0: ['local.get $vr', 'i64x2.extract_lane 0'],
          xr1: ['local.get $vr', 'i64x2.extract_lane 1'],
          xr01: ['local.get $vr', 'i64x2.extract_lane 0', 'local.get $vr', 'i64x2.extract_lane 1', 'i64.xor'],
        };
        return [
          ...get[src], 'local.set $w',
          ...M.flatMap((m, i) => ['local.get $dst', 'local.get $w', `i64.const ${hex64(m)}`, 'i64.and', `i64.store offset=${k * 32 + 8 * i}`]),
        ];
      }),
    ]),
    ')',
  ];

  // $mul(m0, m1, p) -> (r0, r1): dot(m, H_k) for the table at p.
  const mulFn = [
    `(func $${prefix}mul (param $m0 i64) (param $m1 i64) (param $p i32) (result i64 i64) ${mulLocals}`,
    indent([
      ...initConsts,
      ';; $mul is only called with the table of H_1 (slot + 64); pin stores go to slot + 48',
      'local.get $p', `i32.const ${GF128_TABLE_OFFSET}`, 'i32.sub', 'local.set $pinAt',
      ...zeroAcc,
      'local.get $m0', 'i64x2.splat', 'local.get $m1', 'i64x2.replace_lane 1', 'local.set $v',
      ...accumulate(),
      ...reduce(),
      'local.get $r0', 'local.get $r1',
    ]),
    ')',
  ];

  const initFn = [
    `(func $${F[0].name} (export "${F[0].name}") ${paramDecl(F[0])} (local $h0 i64) (local $h1 i64) (local $m i64) (local $k v128) ${constLocals}`,
    indent([
      ...initConsts,
      'local.get $slot', 'v128.load', 'local.set $k',
      'local.get $ghash',
      'if',
      '  ;; GHASH key: H_polyval = mulX(rev16(H)); mulX masks the reduction, no branch on the key',
      '  local.get $k', '  local.get $kRev16', '  i8x16.swizzle', '  local.set $k',
      '  local.get $k', '  i64x2.extract_lane 0', '  local.set $h0',
      '  local.get $k', '  i64x2.extract_lane 1', '  local.set $h1',
      '  i64.const 0', '  local.get $h1', '  i64.const 63', '  i64.shr_u', '  i64.sub', '  local.set $m',
      '  local.get $h1', '  i64.const 1', '  i64.shl', '  local.get $h0', '  i64.const 63', '  i64.shr_u', '  i64.or',
      `  local.get $m`, `  i64.const ${hex64(0xc200000000000000n)}`, '  i64.and', '  i64.xor', '  local.set $h1',
      '  local.get $h0', '  i64.const 1', '  i64.shl', '  local.get $m', '  i64.const 1', '  i64.and', '  i64.xor', '  local.set $h0',
      'else',
      '  local.get $k', '  i64x2.extract_lane 0', '  local.set $h0',
      '  local.get $k', '  i64x2.extract_lane 1', '  local.set $h1',
      'end',
      'local.get $slot', 'local.get $h0', 'i64.store offset=0',
      'local.get $slot', 'local.get $h1', 'i64.store offset=8',
      'local.get $h0', 'local.get $h1', 'local.get $slot', `i32.const ${GF128_TABLE_OFFSET}`, 'i32.add', `call $${prefix}table`,
    ]),
    ')',
  ];

  const powersFn = [
    `(func $${F[1].name} (export "${F[1].name}") ${paramDecl(F[1])} (local $x0 i64) (local $x1 i64) (local $k i32)`,
    indent([
      'local.get $slot', 'i64.load offset=0', 'local.set $x0',
      'local.get $slot', 'i64.load offset=8', 'local.set $x1',
      ...(w16
        ? [';; the i16x8 parts of H_1 (only the loop with powers uses them)', 'local.get $x0', 'local.get $x1', 'local.get $slot', `i32.const ${GF128_W16_OFFSET}`, 'i32.add', `call $${prefix}table16`]
        : []),
      'i32.const 1', 'local.set $k',
      'loop $next',
      '  ;; H_{k+1} = dot(H_k, H_1)',
      '  local.get $x0', '  local.get $x1', '  local.get $slot', `  i32.const ${GF128_TABLE_OFFSET}`, '  i32.add', `  call $${prefix}mul`,
      '  local.set $x1', '  local.set $x0',
      '  local.get $x0', '  local.get $x1',
      `  local.get $slot`, `  local.get $k`, `  i32.const ${GF128_TABLE_SIZE}`, '  i32.mul', '  i32.add', `  i32.const ${GF128_TABLE_OFFSET}`, '  i32.add',
      `  call $${prefix}table`,
      ...(w16
        ? [
            '  local.get $x0', '  local.get $x1',
            `  local.get $slot`, `  local.get $k`, `  i32.const ${GF128_W16_SIZE}`, '  i32.mul', '  i32.add', `  i32.const ${GF128_W16_OFFSET}`, '  i32.add',
            `  call $${prefix}table16`,
          ]
        : []),
      '  local.get $k', '  i32.const 1', '  i32.add', '  local.tee $k',
      `  i32.const ${GF128_MAX_POWERS}`, '  i32.lt_u', '  br_if $next',
      'end',
    ]),
    ')',
  ];

  // exported, or (exported false) as the internal $<name>_one that the w16 loop calls for maxg = 1
  const blocksFn = (f: KernelFunction, ghash: boolean, exported = true): string[] => {
    const toDomain = ghash ? ['local.get $kRev16', 'i8x16.swizzle'] : [];
    return [
      `(func $${f.name}${exported ? ` (export "${f.name}")` : '_one'} ${paramDecl(f)} (local $s v128) (local $g i32) (local $j i32) (local $p i32) ${mulLocals}`,
      indent([
        ...initConsts,
        'local.get $slot', 'local.set $pinAt',
        `;; state S in the POLYVAL domain${ghash ? ' (stored in GHASH byte order)' : ''}`,
        'local.get $st', 'v128.load', ...toDomain, 'local.set $s',
        'block $done',
        '  local.get $n', '  i32.eqz', '  br_if $done',
        '  loop $group',
        '    ;; g = min(n, maxg) blocks share one reduction; block j uses H_{g-j+1}',
        '    local.get $n', '    local.get $maxg', '    local.get $n', '    local.get $maxg', '    i32.lt_u', '    select', '    local.set $g',
        ...(flags.tailLate
          ? ['    local.get $g', '    local.get $maxg', '    i32.lt_u', '    if', '      local.get $src', '      i32.const 16', '      i32.add', '      local.set $src', '    end']
          : []),
        ...zeroAcc.map((l) => '    ' + l),
        `    local.get $slot`, `    local.get $g`, `    i32.const ${GF128_TABLE_SIZE}`, '    i32.mul', '    i32.add',
        `    i32.const ${GF128_TABLE_OFFSET - GF128_TABLE_SIZE}`, '    i32.add', '    local.set $p',
        '    i32.const 0', '    local.set $j',
        '    loop $block',
        '      local.get $src', '      v128.load', ...toDomain.map((l) => '      ' + l),
        '      ;; the state enters with the first block of the group, then is zero',
        '      local.get $s', '      v128.xor', '      local.set $v',
        '      v128.const i64x2 0 0', '      local.set $s',
        indent(accumulate(), 6),
        '      local.get $src', '      i32.const 16', '      i32.add', '      local.set $src',
        ...(flags.wrongPower
          ? ['      local.get $p', `      i32.const ${GF128_TABLE_SIZE}`, '      local.get $j', '      i32.const 0', '      i32.ne', '      i32.mul', '      i32.sub', '      local.set $p']
          : ['      local.get $p', `      i32.const ${GF128_TABLE_SIZE}`, '      i32.sub', '      local.set $p']),
        '      local.get $j', '      i32.const 1', '      i32.add', '      local.tee $j',
        '      local.get $g', '      i32.lt_u', '      br_if $block',
        '    end',
        indent(reduce(), 4),
        '    local.get $r0', '    i64x2.splat', '    local.get $r1', '    i64x2.replace_lane 1', '    local.set $s',
        '    local.get $n', '    local.get $g', '    i32.sub', '    local.tee $n',
        '    br_if $group',
        '  end',
        'end',
        'local.get $st', 'local.get $s', ...toDomain, 'v128.store',
      ]),
      ')',
    ];
  };

  return {
    functions: (w16
      ? [tableFn, w16.tableFn, mulFn, initFn, powersFn, blocksFn(F[2], false, false), blocksFn(F[3], true, false), w16.blocksFn(F[2], false), w16.blocksFn(F[3], true)]
      : [tableFn, mulFn, initFn, powersFn, blocksFn(F[2], false), blocksFn(F[3], true)]
    ).map((f) => indent(f, 2)),
    exports: F,
    parts: { constLocals, initConsts, mulLocals, zeroAcc, accumulate, reduce, ghashDomain: ['local.get $kRev16', 'i8x16.swizzle'] },
  };
}

/**
 * The pieces of the multi-block loop, for a kernel that interleaves hashing with other work
 * (aes_gcm.ts hashes one block per AES round). The caller declares `mulLocals`
 * (mulLocals includes constLocals), runs `initConsts`, sets $pinAt to the slot (the pin stores go to slot + 48) and, per group:
 * `zeroAcc`, then for each block its POLYVAL-domain value in $v (the state XORed into the first;
 * GHASH blocks through `ghashDomain`) and its power's table in $p before `accumulate()`, then
 * `reduce()`, which leaves the new state in $r0 (low) and $r1 (high).
 */
export interface Gf128Parts {
  constLocals: string;
  initConsts: string[];
  mulLocals: string;
  zeroAcc: string[];
  accumulate: () => string[];
  reduce: () => string[];
  ghashDomain: string[];
}

/**
 * `parts.accumulate()` cut before each of its six partial products (at the `;; X ^= clmul…`
 * comment that opens one), for weaving one block's products into other code piece by piece.
 */
export function accumulatePieces(parts: Gf128Parts): string[][] {
  const acc = parts.accumulate();
  const cuts = acc.map((l, k) => (/^;; [LR][012] \^= clmul/.test(l) ? k : -1)).filter((k) => k >= 0);
  return [acc.slice(0, cuts[0]), ...cuts.map((c, k) => acc.slice(c, cuts[k + 1]))];
}

export function generateGf128(flags: Gf128Flags = {}): GeneratedKernel {
  const { functions } = gf128Functions(flags, '', { w16: true });
  const wat = [
    ';; GENERATED by `npm run gen` from src/kernels/gf128_ctmul64.ts — do not edit.',
    ';; GF(2^128) for GHASH and POLYVAL: carry-less multiplication with holes, constant time.',
    `;; public parameters: ${FUNCS.map((f) => `${f.name}(${f.publicParams.join(', ')})`).join('; ')}`,
    '(module',
    '  (memory (export "memory") 4)',
    ...functions,
    ')',
    '',
  ].join('\n');

  return { name: 'gf128', wat, publicParams: publicMap(FUNCS) };
}

// ---------------------------------------------------------------------------------------------
// The gf128 module's loop: two of the three Karatsuba 64×64 products on i16x8.mul (see the
// header), the middle one on i64.mul as above.

/** masks of every third bit of a 16-bit lane: pieces of at most 6 set bits, column sums ≤ 6 < 8 */
const M16 = [0x9249, 0x2492, 0x4924];

/** a v128 expression with, per 16-bit lane, the set of 16-bit chunks of the block XORed in it */
interface VExpr {
  wat: string[];
  lanes: number[];
}

// 16-bit lane indices (-1: zero) -> byte indices for i8x16.swizzle (0x80 reads as zero)
const idx16 = (l: number[]) => l.flatMap((j) => (j < 0 ? [0x80, 0x80] : [2 * j, 2 * j + 1]));
const Z = -1;
const BSWAP16 = [1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14];
/** pairs each 16-bit chunk with its Karatsuba partner one level down: (0,1) (2,3) → 0^1 in lane 0, … */
const PAIR16 = [1, 3, 0, 2, 5, 7, 4, 6];

function w16Loop(flags: Gf128Flags, prefix: string) {
  const rev16 = Array.from({ length: 16 }, (_, i) => 15 - i);
  if (flags.byteSlip) [rev16[0], rev16[1]] = [rev16[1], rev16[0]];
  const shuffles: Record<string, number[]> = {
    kPair: PAIR16,
    kMidLo: [0, 4, 0, Z, Z, Z, Z, Z],
    kMidHi: [3, 7, 3, Z, Z, Z, Z, Z],
    kMidRLo: [Z, Z, Z, Z, 0, 4, 0, Z],
    kMidRHi: [Z, Z, Z, Z, 3, 7, 3, Z],
    kRev4x16: [3, 2, 1, 0, 7, 6, 5, 4],
  };
  const constNames = ['kLaneRev', 'kBswap16', 'kRev16', 'kNib', 'kRevHi', 'kRevLo', 'm0', 'm1', 'm2', ...Object.keys(shuffles)];
  const constLocals = locals('v128', constNames);
  const initConsts = [
    v128Bytes(LANE_REV), 'local.set $kLaneRev',
    v128Bytes(BSWAP16), 'local.set $kBswap16',
    v128Bytes(rev16), 'local.set $kRev16',
    'v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15', 'local.set $kNib',
    v128Bytes(REV_HI), 'local.set $kRevHi',
    v128Bytes(REV_LO), 'local.set $kRevLo',
    ...M16.flatMap((m, i) => [`v128.const i16x8 ${Array(8).fill(hex16(m)).join(' ')}`, `local.set $m${i}`]),
    ...Object.entries(shuffles).flatMap(([k, l]) => [v128Bytes(idx16(l)), `local.set $${k}`]),
  ];

  // The five operand vectors of a block (or of H_k, for its table): lane l of vector k holds the
  // XOR of the 16-bit chunks c_i of $v with bit i of lanes[l] set, bit-reversed where rev[l].
  const leaf = (name: string, lanes: number[]): VExpr => ({ wat: [`local.get $${name}`], lanes });
  const xor = (a: VExpr, b: VExpr): VExpr => ({ wat: [...a.wat, ...b.wat, 'v128.xor'], lanes: a.lanes.map((x, i) => x ^ b.lanes[i]) });
  const swz = (a: VExpr, k: string): VExpr => ({ wat: [...a.wat, `local.get $${k}`, 'i8x16.swizzle'], lanes: shuffles[k].map((j) => (j < 0 ? 0 : a.lanes[j])) });
  const prep: string[] = [];
  const set = (name: string, e: VExpr): VExpr => {
    prep.push(...e.wat, `local.set $${name}`);
    return leaf(name, e.lanes);
  };
  const V = leaf('v', [0, 1, 2, 3, 4, 5, 6, 7].map((i) => 1 << i));
  const V2 = set('V2', xor(V, swz(V, 'kPair')));
  prep.push('local.get $v', ...revBits('kBswap16'), 'local.set $vr16');
  const Vr = leaf('vr16', V.lanes);
  const V2r = set('V2r', xor(Vr, swz(Vr, 'kPair')));
  const V5 = set('V5', xor(xor(swz(V2, 'kMidLo'), swz(V2, 'kMidHi')), xor(swz(V2r, 'kMidRLo'), swz(V2r, 'kMidRHi'))));
  const F = false, T = true;
  const vecs = [
    { name: 'v', lanes: V.lanes, rev: [F, F, F, F, F, F, F, F] },
    { name: 'V2', lanes: V2.lanes, rev: [F, F, F, F, F, F, F, F] },
    { name: 'vr16', lanes: Vr.lanes, rev: [T, T, T, T, T, T, T, T] },
    { name: 'V2r', lanes: V2r.lanes, rev: [T, T, T, T, T, T, T, T] },
    { name: 'V5', lanes: V5.lanes, rev: [F, F, F, F, T, T, T, T] },
  ];
  if (vecs.length * 48 !== GF128_W16_SIZE) throw new Error('w16 table size');

  // the lane holding operand (word W of 64 bits, 32-bit half h, 16-bit half s), plain or reversed
  const chunk = (W: number, t: number) => 1 << (4 * W + t);
  const opMask = (W: number, h: number, s: number) => {
    const u0 = h === 0 ? chunk(W, 0) : h === 1 ? chunk(W, 2) : chunk(W, 0) ^ chunk(W, 2);
    const u1 = h === 0 ? chunk(W, 1) : h === 1 ? chunk(W, 3) : chunk(W, 1) ^ chunk(W, 3);
    return s === 0 ? u0 : s === 1 ? u1 : u0 ^ u1;
  };
  const find = (mask: number, rev: boolean): [number, number] => {
    for (let k = 0; k < vecs.length; k++) for (let l = 0; l < 8; l++) if (vecs[k].lanes[l] === mask && vecs[k].rev[l] === rev) return [k, l];
    throw new Error(`operand ${mask.toString(2)} rev=${rev} in no lane`);
  };

  // $table16(x0, x1, dst): the 240 bytes of H = (x0, x1): for each vector, its lanes masked by m0, m1, m2
  const tableFn = [
    `(func $${prefix}table16 (param $x0 i64) (param $x1 i64) (param $dst i32) ${locals('v128', ['v', 't', 'vr16', 'V2', 'V2r', 'V5'])} ${constLocals}`,
    indent([
      ...initConsts,
      'local.get $x0', 'i64x2.splat', 'local.get $x1', 'i64x2.replace_lane 1', 'local.set $v',
      ...prep,
      ...vecs.flatMap((d, k) => M16.flatMap((_, i) => ['local.get $dst', `local.get $${d.name}`, `local.get $m${i}`, 'v128.and', `v128.store offset=${k * 48 + 16 * i}`])),
    ]),
    ')',
  ];

  const pin64 = ['local.set $pin', 'local.get $slot', 'local.get $pin', 'i64.store offset=48'];
  const pin128 = ['local.set $vpin', 'local.get $slot', 'local.get $vpin', `v128.store offset=${GF128_W16_PIN}`];
  // acc ^= clmul_lo64(w, table word at off) on i64.mul, pinned
  const scalarHalf = (w: string, acc: string, off: number): string[] =>
    [...clmulLo64(w, acc, off, ' on i64.mul'), ...pin64];
  // A_k ^= the eight 16×16 low products of vector k's lanes with H's (9 i16x8.mul)
  const simdVec = (k: number): string[] => {
    const d = vecs[k].name;
    const out: string[] = [`;; A${k} ^= clmul_lo16 of the lanes of ${d} (i16x8.mul)`];
    for (let i = 0; i < 3; i++) out.push(`local.get $${d}`, `local.get $m${i}`, 'v128.and', `local.set $X${i}`);
    for (let i = 0; i < 3; i++) out.push('local.get $q', `v128.load offset=${k * 48 + 16 * i}`, `local.set $Y${i}`);
    out.push(`local.get $A${k}`);
    for (let k2 = 0; k2 < 3; k2++) {
      for (let i = 0; i < 3; i++) {
        out.push(`local.get $X${i}`, `local.get $Y${(k2 - i + 3) % 3}`, 'i16x8.mul');
        if (i > 0) out.push('v128.xor');
      }
      out.push(`local.get $m${k2}`, 'v128.and');
      if (k2 > 0) out.push('v128.or');
    }
    out.push('v128.xor', `local.tee $A${k}`, ...pin128);
    return out;
  };
  // one block in $v, its power's tables at $p (64-bit parts) and $q (16-bit parts)
  const accumulate = (): string[] => {
    const S = vecs.map((_, k) => simdVec(k));
    return [
      ...prep,
      'local.get $vr16', 'local.get $kRev4x16', 'i8x16.swizzle', 'local.set $vr',
      'local.get $v', 'i64x2.extract_lane 0', 'local.get $v', 'i64x2.extract_lane 1', 'i64.xor', 'local.set $a2',
      'local.get $vr', 'i64x2.extract_lane 0', 'local.get $vr', 'i64x2.extract_lane 1', 'i64.xor', 'local.set $ar2',
      // this order measured fastest (probe variant o9)
      ...S[0], ...S[2], ...scalarHalf('a2', 'L2', 64), ...S[1], ...S[3], ...scalarHalf('ar2', 'R2', 160), ...S[4],
    ];
  };

  const reduce = (): string[] => {
    const out: string[] = [';; high 16 bits of the reversed lanes: rev16(A) >> 1'];
    vecs.forEach((d, k) => {
      if (d.rev.some((x) => x)) out.push(`local.get $A${k}`, ...revBits('kBswap16'), 'i32.const 1', 'i16x8.shr_u', `local.set $H${k}`);
    });
    // 32-bit product of operand (W, h, s): low 16 bits from the plain lane, high from the reversed one
    const P = (W: number, h: number, s: number) => {
      const lo = find(opMask(W, h, s), false);
      const rv = find(opMask(W, h, s), true);
      return [
        `local.get $A${lo[0]}`, `i16x8.extract_lane_u ${lo[1]}`,
        `local.get $H${rv[0]}`, `i16x8.extract_lane_u ${rv[1]}`, 'i32.const 16', 'i32.shl', 'i32.or', 'i64.extend_i32_u',
      ];
    };
    for (const W of [0, 1]) {
      out.push(`;; Karatsuba recombination 16 -> 32 -> 64 bits of word ${W}: L${W} (low 64), R${W} (high 64)`);
      for (let h = 0; h < 3; h++) {
        out.push(...P(W, h, 0), 'local.set $e0', ...P(W, h, 1), 'local.set $e1', ...P(W, h, 2), 'local.set $ex');
        out.push(
          'local.get $e0', 'local.get $e0', 'local.get $e1', 'i64.xor', 'local.get $ex', 'i64.xor', 'i64.const 16', 'i64.shl', 'i64.xor',
          'local.get $e1', 'i64.const 32', 'i64.shl', 'i64.xor', `local.set $f${h}`,
        );
      }
      out.push(
        'local.get $f0', 'local.get $f1', 'i64.xor', 'local.get $f2', 'i64.xor', 'local.set $ex',
        'local.get $f0', 'local.get $ex', 'i64.const 32', 'i64.shl', 'i64.xor', `local.set $L${W}`,
        'local.get $f1', 'local.get $ex', 'i64.const 32', 'i64.shr_u', 'i64.xor', `local.set $R${W}`,
      );
    }
    out.push(
      ';; high half of the middle product: rev64 of the reversed one, shifted right by one',
      'local.get $R2', 'i64x2.splat', ...revBits('kLaneRev'), 'i64x2.extract_lane 0', 'i64.const 1', 'i64.shr_u', 'local.set $R2',
      ';; 256-bit product c0..c3 = z0 + (z2 ^ z0 ^ z1)·x^64 + z1·x^128',
      'local.get $L0', 'local.set $c0',
      'local.get $R0', 'local.get $L2', 'i64.xor', 'local.get $L0', 'i64.xor', 'local.get $L1', 'i64.xor', 'local.set $c1',
      'local.get $L1', 'local.get $R2', 'i64.xor', 'local.get $R0', 'i64.xor', 'local.get $R1', 'i64.xor', 'local.set $c2',
      'local.get $R1', 'local.set $c3',
      ';; Montgomery reduction by x^128 modulo x^128 + x^127 + x^126 + x^121 + 1',
      ...foldStep('c0', 'c1', 'c2', !!flags.dropReductionTerm),
      ...foldStep('c1', 'c2', 'c3', false),
    );
    return out;
  };

  const zeroAcc = [
    ...['L2', 'R2'].flatMap((a) => ['i64.const 0', `local.set $${a}`]),
    ...vecs.flatMap((_, k) => ['v128.const i64x2 0 0', `local.set $A${k}`]),
  ];
  const loopLocals = [
    locals('v128', ['s', 'v', 'vr', 'vr16', 't', 'vpin', 'X0', 'X1', 'X2', 'Y0', 'Y1', 'Y2', 'V2', 'V2r', 'V5']),
    locals('v128', vecs.flatMap((_, k) => [`A${k}`, `H${k}`])),
    constLocals,
    locals('i64', ['a2', 'ar2', 'x0', 'x1', 'x2', 'x3', 'y0', 'y1', 'y2', 'y3', 'e0', 'e1', 'ex', 'f0', 'f1', 'f2']),
    locals('i64', ['L0', 'L1', 'L2', 'R0', 'R1', 'R2', 'c0', 'c1', 'c2', 'c3', 'pin']),
    locals('i32', ['g', 'j', 'p', 'q', 'src1', 'p1', 'q1']),
  ].join(' ');

  const blocksFn = (f: KernelFunction, ghash: boolean): string[] => {
    const toDomain = ghash ? ['local.get $kRev16', 'i8x16.swizzle'] : [];
    const next = (all: boolean) => [
      'local.get $src', 'i32.const 16', 'i32.add', 'local.set $src',
      ...(all
        ? [
            'local.get $p', `i32.const ${GF128_TABLE_SIZE}`, 'i32.sub', 'local.set $p',
            'local.get $q', `i32.const ${GF128_W16_SIZE}`, 'i32.sub', 'local.set $q',
          ]
        : []),
    ];
    return [
      `(func $${f.name} (export "${f.name}") ${paramDecl(f)} ${loopLocals}`,
      indent([
        ';; one block per group (no powers of H computed): the i64.mul loop, which needs only the table of H_1',
        'local.get $maxg', 'i32.const 1', 'i32.le_u',
        'if',
        `  local.get $slot`, '  local.get $st', '  local.get $src', '  local.get $n', '  local.get $maxg', `  call $${f.name}_one`,
        '  return',
        'end',
        ...initConsts,
        `;; state S in the POLYVAL domain${ghash ? ' (stored in GHASH byte order)' : ''}`,
        'local.get $st', 'v128.load', ...toDomain, 'local.set $s',
        'block $done',
        'local.get $n', 'i32.eqz', 'br_if $done',
        'loop $group',
        ';; g = min(n, maxg) blocks share one reduction; block j uses H_{g-j+1}',
        'local.get $n', 'local.get $maxg', 'local.get $n', 'local.get $maxg', 'i32.lt_u', 'select', 'local.set $g',
        ...(flags.tailLate
          ? ['local.get $g', 'local.get $maxg', 'i32.lt_u', 'if', '  local.get $src', '  i32.const 16', '  i32.add', '  local.set $src', 'end']
          : []),
        ...zeroAcc,
        'local.get $slot', 'local.get $g', `i32.const ${GF128_TABLE_SIZE}`, 'i32.mul', 'i32.add',
        `i32.const ${GF128_TABLE_OFFSET - GF128_TABLE_SIZE}`, 'i32.add', 'local.set $p',
        'local.get $slot', 'local.get $g', `i32.const ${GF128_W16_SIZE}`, 'i32.mul', 'i32.add',
        `i32.const ${GF128_W16_OFFSET - GF128_W16_SIZE}`, 'i32.add', 'local.set $q',
        'local.get $src', 'local.set $src1', 'local.get $p', 'local.set $p1', 'local.get $q', 'local.set $q1',
        ';; blocks 2…g first, then block 1 with the state XORed in (the state arrives last)',
        'block $rest',
        '  local.get $g', '  i32.const 1', '  i32.le_u', '  br_if $rest',
        '  i32.const 1', '  local.set $j',
        indent(next(!flags.wrongPower), 2),
        '  loop $block',
        '    local.get $src', '    v128.load', ...toDomain.map((l) => '    ' + l), '    local.set $v',
        indent(accumulate(), 4),
        indent(next(true), 4),
        '    local.get $j', '    i32.const 1', '    i32.add', '    local.tee $j', '    local.get $g', '    i32.lt_u', '    br_if $block',
        '  end',
        'end',
        'local.get $src1', 'v128.load', ...toDomain, 'local.get $s', 'v128.xor', 'local.set $v',
        'local.get $p1', 'local.set $p', 'local.get $q1', 'local.set $q',
        ...accumulate(),
        'local.get $src1', 'local.get $g', 'i32.const 4', 'i32.shl', 'i32.add', 'local.set $src',
        ...reduce(),
        'local.get $c2', 'i64x2.splat', 'local.get $c3', 'i64x2.replace_lane 1', 'local.set $s',
        'local.get $n', 'local.get $g', 'i32.sub', 'local.tee $n',
        'br_if $group',
        'end',
        'end',
        'local.get $st', 'local.get $s', ...toDomain, 'v128.store',
      ]),
      ')',
    ];
  };

  return { tableFn, blocksFn };
}

function hex16(m: number): string {
  return '0x' + m.toString(16).padStart(4, '0');
}

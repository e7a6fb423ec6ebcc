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
// Cost per block: 96 i64.mul (6 products × 16), 24 loads of the key-side masked parts,
// ~150 other scalar operations and ~10 SIMD ones; the multiplier bounds it near 6 cycles/byte.
// Each product ends with a store of its accumulator to the slot (offset 48): TurboFan keeps
// memory operations in order but floats pure arithmetic, and without these stores it
// interleaved all six products of a block and spilled ~40 values to the stack. With them the
// eight-block loop went from 478 to ~700 MB/s (polyval_blocks over 16 KiB, same machine).
//
// Key slot layout (bytes from the slot's base, 2048 bytes per slot):
//   0      H_1 (16 bytes, POLYVAL domain) — the raw key is written here, init transforms it
//   64 + (k-1)·192   table of H_k, k = 1…8: for w in (h0, h1, h0^h1, rev h0, rev h1, rev h0^rev h1)
//                    the four masked parts w & 0x1111…, w & 0x2222…, w & 0x4444…, w & 0x8888…
//
// Negative-control flags (tests only) produce deliberately broken variants the differential
// suite must reject.

import { type GeneratedKernel, type KernelFunction, hex64, indent, locals, paramDecl, publicMap, v128Bytes, BSWAP64 as LANE_REV } from './wat.js';

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

export const GF128_SLOT_SIZE = 2048;
export const GF128_TABLE_OFFSET = 64;
export const GF128_TABLE_SIZE = 192;
export const GF128_MAX_POWERS = 8;

const M = [0x1111111111111111n, 0x2222222222222222n, 0x4444444444444444n, 0x8888888888888888n];

// Bit reversal of each byte by nibbles: low nibble n -> rev4(n) << 4, high nibble n -> rev4(n).
const rev4 = (n: number) => ((n & 1) << 3) | ((n & 2) << 1) | ((n & 4) >> 1) | ((n & 8) >> 3);
const REV_HI = Array.from({ length: 16 }, (_, n) => rev4(n) << 4);
const REV_LO = Array.from({ length: 16 }, (_, n) => rev4(n));

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
export function gf128Functions(flags: Gf128Flags = {}, prefix = ''): { functions: string[]; exports: KernelFunction[]; parts: Gf128Parts } {
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
  // (i8x16.swizzle pops the index vector, then the data: it computes data[index[i]].)
  const revLanes = [
    ';; rev64 of each lane: reverse the bytes of each lane, then the bits of each byte',
    'local.get $kLaneRev', 'i8x16.swizzle', 'local.set $t',
    'local.get $kRevHi', 'local.get $t', 'local.get $kNib', 'v128.and', 'i8x16.swizzle',
    'local.get $kRevLo', 'local.get $t', 'i32.const 4', 'i16x8.shr_u', 'local.get $kNib', 'v128.and', 'i8x16.swizzle',
    'v128.or',
  ];

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
      const off = k * 32;
      out.push(`;; ${acc} ^= clmul_lo64(${w}, table word ${k})`);
      for (let i = 0; i < 4; i++) out.push(`local.get $${w}`, `i64.const ${hex64(M[i])}`, 'i64.and', `local.set $x${i}`);
      for (let i = 0; i < 4; i++) out.push('local.get $p', `i64.load offset=${off + 8 * i}`, `local.set $y${i}`);
      out.push(`local.get $${acc}`);
      // z_k collects x_i * y_j with i + j ≡ k (mod 4)
      for (let k2 = 0; k2 < 4; k2++) {
        for (let i = 0; i < 4; i++) {
          const j = (k2 - i + 4) % 4;
          out.push(`local.get $x${i}`, `local.get $y${j}`, 'i64.mul');
          if (i > 0) out.push('i64.xor');
        }
        out.push(`i64.const ${hex64(M[k2])}`, 'i64.and');
        if (k2 > 0) out.push('i64.or');
      }
      out.push('i64.xor', `local.tee $${acc}`);
      // A store after each product pins the next product's loads behind it, so TurboFan
      // cannot interleave the six products (which spilled ~40 values to the stack).
      out.push('local.set $pin', 'local.get $pinAt', 'local.get $pin', 'i64.store offset=48');
    });
    return out;
  };

  // Karatsuba recombination and Montgomery reduction of the accumulated products;
  // leaves the 128-bit result in $r0 (low) and $r1 (high).
  const reduce = (): string[] => {
    const shl = (v: string, s: number) => [`local.get $${v}`, `i64.const ${s}`, 'i64.shl'];
    const shr = (v: string, s: number) => [`local.get $${v}`, `i64.const ${s}`, 'i64.shr_u'];
    const step = (lo: string, mid: string, hi: string, dropFirst: boolean): string[] => [
      `;; fold ${lo}: ${mid} ^= ${lo}<<57 ^ ${lo}<<62 ^ ${lo}<<63; ${hi} ^= ${lo} ^ ${lo}>>1 ^ ${lo}>>2 ^ ${lo}>>7`,
      `local.get $${mid}`,
      ...(dropFirst ? [] : [...shl(lo, 57), 'i64.xor']),
      ...shl(lo, 62), 'i64.xor', ...shl(lo, 63), 'i64.xor',
      `local.set $${mid}`,
      `local.get $${hi}`, `local.get $${lo}`, 'i64.xor',
      ...shr(lo, 1), 'i64.xor', ...shr(lo, 2), 'i64.xor', ...shr(lo, 7), 'i64.xor',
      `local.set $${hi}`,
    ];
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
      ...step('c0', 'c1', 'c2', !!flags.dropReductionTerm),
      ...step('c1', 'c2', 'c3', false),
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
      'i32.const 1', 'local.set $k',
      'loop $next',
      '  ;; H_{k+1} = dot(H_k, H_1)',
      '  local.get $x0', '  local.get $x1', '  local.get $slot', `  i32.const ${GF128_TABLE_OFFSET}`, '  i32.add', `  call $${prefix}mul`,
      '  local.set $x1', '  local.set $x0',
      '  local.get $x0', '  local.get $x1',
      `  local.get $slot`, `  local.get $k`, `  i32.const ${GF128_TABLE_SIZE}`, '  i32.mul', '  i32.add', `  i32.const ${GF128_TABLE_OFFSET}`, '  i32.add',
      `  call $${prefix}table`,
      '  local.get $k', '  i32.const 1', '  i32.add', '  local.tee $k',
      `  i32.const ${GF128_MAX_POWERS}`, '  i32.lt_u', '  br_if $next',
      'end',
    ]),
    ')',
  ];

  const blocksFn = (f: KernelFunction, ghash: boolean): string[] => {
    const toDomain = ghash ? ['local.get $kRev16', 'i8x16.swizzle'] : [];
    return [
      `(func $${f.name} (export "${f.name}") ${paramDecl(f)} (local $s v128) (local $g i32) (local $j i32) (local $p i32) ${mulLocals}`,
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
    functions: [tableFn, mulFn, initFn, powersFn, blocksFn(F[2], false), blocksFn(F[3], true)].map((f) => indent(f, 2)),
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
  const { functions } = gf128Functions(flags);
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

// The SM4 family module ("sm4"): the SM4 kernel (sm4_vperm_simd128.ts), the GF(2^128) code of
// gf128_ctmul64.ts under the prefix `gf_`, and the GCM mode loops of aes_gcm.ts
// (gcmModeFunctions) with SM4 as their block cipher: SM4-GCM of RFC 8998 is the same GCM code as
// AES-GCM, only the cipher call differs.
//
// Why one module: the GCM loop encrypts a group of counter blocks in place in the IO area, XORs
// them into the scratch window and hashes them there, all in one memory, with no copy between
// modules; a bundle that imports SM4-GCM carries this module and no AES.
//
// The cipher call of the mode loop: $sm4_ks(rk, nr, ks, count) encrypts the first `count` of
// SM4_GCM_BLOCKS counter blocks at ks in place (sm4_ecb, one pass of up to four groups of four
// blocks; the round count nr is the mode loop's parameter for AES and is ignored here). GCM seal
// and open use the stitched form, $sm4_ks_ghash, which also hashes up to 16 blocks: with more
// than 8 counter blocks to encrypt it runs the 16-block pass with GHASH woven into the round
// loop (sm4PassFunc + ghashStitch below), so the scalar multiplications of GHASH and the SIMD
// rounds of SM4 can issue side by side. Measured on this 2-vCPU VM under load (best of 15
// interleaved runs, 16 blocks): pass with 16 blocks hashed 846–867 ns, sm4_ecb then
// gf_ghash_blocks 884–901 ns (SM4 alone ~510, GHASH alone ~385): ~4%, less than the overlap
// the separate execution units would allow, as if the core's issue rate were the limit.
//
// Constant time: as in the three generators it combines; this file adds only the adapter, whose
// arguments are public pointers and counts.
//
// Memory: the IO area as AES_IO (aes_layout.ts); key slot SM4_SLOT (sm4_layout.ts): GHASH key and
// tables at 0, SM4 round keys at 2048.

import { GF_PREFIX, gcmModeFunctions } from './legacy/aes_gcm_strings.js';
import { AES_IO } from './aes_layout.js';
import { type Gf128Flags, type Gf128Parts, GF128_TABLE_OFFSET, GF128_TABLE_SIZE, accumulatePieces, gf128Functions } from './legacy/gf128_strings.js';
import { SM4_GCM_BLOCKS } from './sm4_layout.js';
import { type Sm4Flags, type Sm4Options, type Sm4Stitch, sm4Functions, sm4PassFunc } from './sm4_vperm_simd128.js';
import { type GeneratedKernel, type KernelFunction, indent, publicMap } from './wat.js';

export interface Sm4GcmFlags extends Sm4Flags, Gf128Flags {}

export interface Sm4GcmOptions extends Sm4Options {
  /** GHASH stitched into the SM4 rounds (default true) */
  stitch?: boolean;
}

// the GF(2^128) functions carry aes_gcm's prefix: gcmModeFunctions calls them by that name
const GHASH = `$${GF_PREFIX}ghash_blocks`;

/**
 * GHASH of hn ≤ 16 blocks at $hsrc into IO.state, woven into the 16-block SM4 pass: two blocks
 * per iteration of the four-round loop (each block's load and lane work, then its six 64-bit
 * carry-less products, one piece after each group's round), blocks 0–7 reduced together with
 * H^g1 … H^1 (g1 = min(hn, 8)) at the end of the fourth iteration, blocks 8 … hn−1 with
 * H^(hn−8) … H^1 after the loop. Every piece is guarded by the public count (hb < hn).
 */
function ghashStitch(parts: Gf128Parts): Sm4Stitch {
  const domain = parts.ghashDomain;
  const pieces = accumulatePieces(parts);
  const guard = (body: string[]) => ['local.get $hb', 'local.get $hn', 'i32.lt_u', 'if', ...indent(body, 2).split('\n'), 'end'];
  const block = pieces.map((piece, k) =>
    guard([
      ...(k === 0 ? [';; GHASH block hb of hsrc (the state enters with the first block of a reduction)', 'local.get $hsrc', 'v128.load', ...domain, 'local.get $hs', 'v128.xor', 'local.set $v', 'v128.const i64x2 0 0', 'local.set $hs'] : []),
      ...piece,
      ...(k === pieces.length - 1
        ? ['local.get $hsrc', 'i32.const 16', 'i32.add', 'local.set $hsrc', 'local.get $p', `i32.const ${GF128_TABLE_SIZE}`, 'i32.sub', 'local.set $p', 'local.get $hb', 'i32.const 1', 'i32.add', 'local.set $hb']
        : []),
    ]),
  );
  /** $p = the table of H^(power on the stack) */
  const table = ['local.set $p', 'local.get $gf', 'local.get $p', `i32.const ${GF128_TABLE_SIZE}`, 'i32.mul', 'i32.add', `i32.const ${GF128_TABLE_OFFSET - GF128_TABLE_SIZE}`, 'i32.add', 'local.set $p'];
  const reduceInto = [...parts.reduce(), 'local.get $r0', 'i64x2.splat', 'local.get $r1', 'i64x2.replace_lane 1', 'local.set $hs'];
  return {
    params: '(param $gf i32) (param $hsrc i32) (param $hn i32)',
    locals: `${parts.mulLocals} (local $hs v128) (local $p i32) (local $hb i32)`,
    prologue: [
      ';; GHASH: the state in the POLYVAL domain, the table of H^min(hn, 8) for the first block',
      ...parts.initConsts,
      'local.get $gf', 'local.set $pinAt',
      ...parts.zeroAcc,
      `i32.const ${AES_IO.state}`, 'v128.load', ...domain, 'local.set $hs',
      'local.get $hn', 'i32.const 8', 'local.get $hn', 'i32.const 8', 'i32.lt_u', 'select', ...table,
    ],
    weave: {
      pieces: [...block, ...block],
      iterationEnd: [
        ';; after the fourth iteration: blocks 0–7 reduced, the table of H^(hn−8) for block 8',
        'local.get $rkp', 'local.get $rk', 'i32.const 192', 'i32.add', 'i32.eq',
        'local.get $hn', 'i32.const 0', 'i32.ne', 'i32.and',
        'if',
        ...indent([...reduceInto, ...parts.zeroAcc, 'local.get $hn', 'i32.const 8', 'i32.sub', ...table], 2).split('\n'),
        'end',
      ],
    },
    epilogue: [
      'local.get $hn', 'i32.const 8', 'i32.gt_u',
      'if', ...indent(reduceInto, 2).split('\n'), 'end',
      'local.get $hn',
      'if', `  i32.const ${AES_IO.state}`, '  local.get $hs', ...domain.map((l) => '  ' + l), '  v128.store', 'end',
    ],
  };
}

export function generateSm4Gcm(flags: Sm4GcmFlags = {}, options: Sm4GcmOptions = {}): GeneratedKernel {
  const stitch = options.stitch ?? true;
  const sm4 = sm4Functions(flags, options);
  const gf = gf128Functions(flags, GF_PREFIX);
  const gcm = gcmModeFunctions({ call: '$sm4_ks', blocks: SM4_GCM_BLOCKS, counted: true, ...(stitch ? { stitched: '$sm4_ks_ghash' } : {}) });
  const exported: KernelFunction[] = [...sm4.exports, ...gcm.exports, ...gf.exports];
  const adapter = [
    '(func $sm4_ks (param $rk i32) (param $nr i32) (param $ks i32) (param $count i32)',
    indent(['local.get $rk', 'local.get $ks', 'local.get $ks', 'local.get $count', 'call $sm4_ecb']),
    ')',
    ...(stitch
      ? [
          ';; the cipher call of the stitched GCM loop: more than 8 blocks with some to hash run the 16-block pass',
          ';; with GHASH woven in; otherwise the smaller passes, and GHASH after them',
          '(func $sm4_ks_ghash (param $rk i32) (param $nr i32) (param $ks i32) (param $gf i32) (param $hsrc i32) (param $hn i32) (param $count i32)',
          indent([
            'local.get $count', 'i32.const 8', 'i32.le_u', 'local.get $hn', 'i32.eqz', 'i32.or',
            'if',
            '  local.get $rk', '  local.get $ks', '  local.get $ks', '  local.get $count', '  call $sm4_ecb',
            '  local.get $hn',
            '  if', '    local.get $gf', `    i32.const ${AES_IO.state}`, '    local.get $hsrc', '    local.get $hn', '    i32.const 8', `    call ${GHASH}`, '  end',
            '  return',
            'end',
            'local.get $rk', 'local.get $ks', 'local.get $gf', 'local.get $hsrc', 'local.get $hn', 'call $sm4_pass_ghash',
          ]),
          ')',
          sm4PassFunc('sm4_pass_ghash', ghashStitch(gf.parts), flags, options),
        ]
      : []),
  ];
  const wat = [
    ';; GENERATED by `npm run gen` from src/kernels/sm4_gcm.ts — do not edit.',
    ';; SM4 (vector-permute S-box, SIMD128), the GCM mode loops, GF(2^128) (multiplication with holes), constant time.',
    `;; public parameters: ${exported.map((f) => `${f.name}(${f.publicParams.join(', ')})`).join('; ')}`,
    '(module',
    '  (memory (export "memory") 2)',
    ...sm4.functions.map((f) => indent(f.split('\n'), 2)),
    indent(adapter, 2),
    ...gcm.functions.map((f) => indent(f, 2)),
    ...gf.functions,
    ')',
    '',
  ].join('\n');
  return { name: 'sm4', wat, publicParams: publicMap(exported) };
}

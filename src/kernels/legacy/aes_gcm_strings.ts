// TRANSITIONAL: the string form of aes_gcm.ts (its gcmModeFunctions), used by sm4_gcm.ts until it
// is written in the builder (issue 13); deleted then.

// The AES family module ("aes"): bitsliced AES (aes_bitsliced_simd128.ts), the GF(2^128) code of
// gf128_ctmul64.ts emitted into the same module under the prefix `gf_`, and the mode loops of
// AES-GCM (SP 800-38D) and AES-GCM-SIV (RFC 8452) that join them.
//
// Why one module: the counter-mode loop encrypts a group of eight blocks in place in the scratch
// window and hashes them right there, while they are in L1, with no copy between two modules'
// memories. GCM seal: CTR then GHASH per group; GCM open: GHASH then CTR per group; GCM-SIV open:
// CTR then POLYVAL per group; GCM-SIV seal hashes the whole plaintext first (the tag is the
// counter), so it runs POLYVAL and then CTR. Each group of up to eight blocks shares one GHASH
// reduction (powers H … H^8 in the key slot).
//
// Stitching: in GCM seal/open and GCM-SIV open (with the powers) the hash is woven into the AES
// rounds — one block per round, its six 64-bit products spread between the S-box gates — so that
// the scalar multiplier and the SIMD units work at the same time (GHASH runs on i64.mul, AES on
// xmm registers, disjoint register files). Measured on 8 KiB calls, AES-128, interleaved A/B:
// AES alone ~580 MB/s, GHASH alone ~690 MB/s, one after the other ~300 MB/s, stitched ~340 MB/s.
// The gain is bounded by GHASH's own code: ~600 x86 instructions per block in the stitched loop,
// about half of them register moves and spills around the 96 multiplications.
//
// Constant time: everything secret (keys, counters, data, states) is only loaded, stored and
// computed on. Branches, loop bounds and addresses depend only on the public parameters
// (pointers, lengths, counts, round numbers and mode flags). The 32-bit counter is added with
// `i32.add` (wrapping modulo 2^32, as GCM's inc32 and GCM-SIV's little-endian counter both
// require) and byte-swapped with a swizzle.
//
// Memory: IO area [0, 4096) as laid out in AES_IO (aes_layout.ts); the key slot (AES_SLOT, same
// file: AES_SLOT.size bytes) holds the GHASH key and tables at 0, the bitsliced round keys at
// 2048, and for GCM-SIV the per-nonce round keys at 4096 and POLYVAL key and tables at 6144
// (wiped after each message).

import { type GeneratedKernel, type KernelFunction, indent, locals, paramDecl, publicMap, v128Bytes, BSWAP64 as LANE_REV } from '../wat.js';
import { type AesFlags, type Aes8Stitch, AES_MAX_RK_BYTES, aes8Func, expandFunc, sub16Func } from './aes_bitsliced_strings.js';
import { type Gf128Flags, type Gf128Parts, GF128_TABLE_OFFSET, GF128_TABLE_SIZE, accumulatePieces, gf128Functions } from './gf128_strings.js';
import { AES_IO, AES_SLOT } from '../aes_layout.js';

export { AES_IO, AES_SLOT };

export interface AesGcmFlags extends AesFlags, Gf128Flags {
  /** GCM's 32-bit counter carries into the nonce (a 64-bit increment) */
  counterCarry?: boolean;
  /** GCM's length block has len(C) and len(A) swapped */
  swapLengths?: boolean;
  /** GCM-SIV skips XORing the nonce into the POLYVAL result */
  sivSkipNonceXor?: boolean;
}

export const GF_PREFIX = 'gf_';
const IO = AES_IO;
const GHASH = `$${GF_PREFIX}ghash_blocks`;
const POLYVAL = `$${GF_PREFIX}polyval_blocks`;

const fns = {
  expand: { name: 'aes_expand', params: [['rk', 'i32'], ['key', 'i32'], ['nk', 'i32'], ['tmp', 'i32']], publicParams: ['rk', 'key', 'nk', 'tmp'] },
  ecb: { name: 'aes_ecb', params: [['rk', 'i32'], ['nr', 'i32'], ['src', 'i32'], ['dst', 'i32'], ['n', 'i32']], publicParams: ['rk', 'nr', 'src', 'dst', 'n'] },
  gcmLengths: { name: 'gcm_lengths', params: [['gf', 'i32'], ['a', 'i64'], ['b', 'i64']], publicParams: ['gf', 'a', 'b'] },
  gcmFinish: { name: 'gcm_finish', params: [['gf', 'i32'], ['a', 'i64'], ['b', 'i64']], publicParams: ['gf', 'a', 'b'] },
  sivInit: { name: 'siv_init', params: [['slot', 'i32'], ['nr', 'i32']], publicParams: ['slot', 'nr'] },
  gcmOneshot: {
    name: 'gcm_oneshot',
    params: [['rk', 'i32'], ['gf', 'i32'], ['nr', 'i32'], ['buf', 'i32'], ['len', 'i32'], ['aad', 'i32'], ['aadLen', 'i32'], ['decrypt', 'i32']],
    publicParams: ['rk', 'gf', 'nr', 'buf', 'len', 'aad', 'aadLen', 'decrypt'],
  },
  sivTag: { name: 'siv_tag', params: [['slot', 'i32'], ['nr', 'i32'], ['a', 'i64'], ['b', 'i64']], publicParams: ['slot', 'nr', 'a', 'b'] },
} satisfies Record<string, KernelFunction>;

const cryptParams: KernelFunction['params'] = [['rk', 'i32'], ['gf', 'i32'], ['nr', 'i32'], ['buf', 'i32'], ['len', 'i32'], ['mask', 'i32'], ['maxg', 'i32']];
const cryptFn = (name: string): KernelFunction => ({ name, params: cryptParams, publicParams: cryptParams.map(([n]) => n) });
const crypt = {
  gcmSeal: cryptFn('gcm_seal_x'),
  gcmOpen: cryptFn('gcm_open_x'),
  sivCtr: cryptFn('siv_ctr_x'),
  sivOpen: cryptFn('siv_open_x'),
  /** siv_open_x with POLYVAL stitched into the rounds (needs the powers) */
  sivOpenStitched: cryptFn('siv_open_s'),
};

type Mode = 'gcm' | 'gcm-carry' | 'siv';

// Byte 12..15 reversed (GCM's big-endian 32-bit counter in lane 3); bytes 8..15 reversed.
const BSWAP3 = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 14, 13, 12];
const BSWAP_HI64 = [0, 1, 2, 3, 4, 5, 6, 7, 15, 14, 13, 12, 11, 10, 9, 8];

/** Counter-block helpers for a mode; the counter lives in $c (i32) or $c64 (i64), the block in $cb. */
function counter(mode: Mode) {
  const init = [v128Bytes(BSWAP3), 'local.set $kBs', v128Bytes(BSWAP_HI64), 'local.set $kBs64'];
  const load = [`i32.const ${IO.ctr}`, 'v128.load', 'local.set $cb'];
  if (mode === 'gcm') load.push('local.get $cb', 'local.get $kBs', 'i8x16.swizzle', 'i32x4.extract_lane 3', 'local.set $c');
  if (mode === 'gcm-carry') load.push('local.get $cb', 'local.get $kBs64', 'i8x16.swizzle', 'i64x2.extract_lane 1', 'local.set $c64');
  if (mode === 'siv') load.push('local.get $cb', 'i32x4.extract_lane 0', 'local.set $c');
  /** the counter block for counter + j, on the stack */
  const block = (j: number): string[] => {
    if (mode === 'gcm') return ['local.get $cb', 'local.get $c', `i32.const ${j}`, 'i32.add', 'i32x4.replace_lane 3', 'local.get $kBs', 'i8x16.swizzle'];
    if (mode === 'gcm-carry') return ['local.get $cb', 'local.get $c64', `i64.const ${j}`, 'i64.add', 'i64x2.replace_lane 1', 'local.get $kBs64', 'i8x16.swizzle'];
    return ['local.get $cb', 'local.get $c', `i32.const ${j}`, 'i32.add', 'i32x4.replace_lane 0'];
  };
  /** counter += the i32 on top of the stack */
  const advance = (by: string[]): string[] =>
    mode === 'gcm-carry' ? ['local.get $c64', ...by, 'i64.extend_i32_u', 'i64.add', 'local.set $c64'] : ['local.get $c', ...by, 'i32.add', 'local.set $c'];
  const store = [`i32.const ${IO.ctr}`, ...block(0), 'v128.store'];
  return { init, load, block, advance, store };
}

const counterLocals = [locals('v128', ['cb', 'kBs', 'kBs64']), locals('i32', ['c']), locals('i64', ['c64'])].join(' ');

/**
 * The block cipher of a counter-mode loop: `call` is a function (rk, nr, ks) that encrypts
 * `blocks` blocks in place at IO.ks — or, with `counted`, (rk, nr, ks, count) that encrypts only
 * the first count ≤ blocks of them. AES: $aes8, eight blocks; SM4-GCM (src/kernels/sm4_gcm.ts)
 * passes its own.
 */
export interface GcmCipher {
  call: string;
  blocks: number;
  counted?: boolean;
  /**
   * Optional: the same call that also hashes hn ≤ blocks blocks at hsrc into IO.state (the
   * powers H … H^8 in the slot): (rk, nr, ks, gf, hsrc, hn), with `counted` (…, hn, count).
   * GCM seal and open then run stitchedCryptFunc.
   */
  stitched?: string;
}

const AES8: GcmCipher = { call: '$aes8', blocks: 8 };

/** buf[j] ^= keystream block (j + skip) for j < g, at loop depth one (shared by both crypt loops). */
const xorGroup = [
  '    i32.const 0', '    local.set $j',
  '    block $xd',
  '      loop $x',
  '        local.get $j', '        local.get $g', '        i32.ge_u', '        br_if $xd',
  '        local.get $buf', '        local.get $j', '        i32.const 4', '        i32.shl', '        i32.add',
  '        local.get $buf', '        local.get $j', '        i32.const 4', '        i32.shl', '        i32.add', '        v128.load',
  `        i32.const ${IO.ks}`, '        local.get $j', '        local.get $skip', '        i32.add', '        i32.const 4', '        i32.shl', '        i32.add', '        v128.load',
  '        v128.xor', '        v128.store',
  '        local.get $j', '        i32.const 1', '        i32.add', '        local.set $j',
  '        br $x',
  '      end',
  '    end',
];

/**
 * A counter-mode loop over `len` bytes at buf, in place, optionally joined with a hash:
 *   hash 'after'  — encrypt a group, then hash it (GCM seal, GCM-SIV open: the hashed text is
 *                   what the group becomes; the partial last block is zero-padded first);
 *   hash 'before' — hash a group, then encrypt it (GCM open);
 *   none          — CTR only (GCM-SIV seal).
 * With mask ≠ 0 the first counter's keystream block goes to IO.mask (GCM's E(K, J0)) and the
 * data starts at the next counter. maxg: blocks per GHASH reduction (1, or 8 with the powers).
 */
function cryptFunc(f: KernelFunction, mode: Mode, hash: { fn: string; order: 'before' | 'after' } | undefined, cipher: GcmCipher = AES8, stitched?: string): string[] {
  if (stitched) return stitchedCryptFunc(f, mode, hash!, stitched, cipher);
  const B = cipher.blocks;
  // count = min(n + skip, B): the blocks this group needs
  const count = cipher.counted
    ? ['    local.get $n', '    local.get $skip', '    i32.add', `    i32.const ${B}`, '    local.get $n', '    local.get $skip', '    i32.add', `    i32.const ${B}`, '    i32.lt_u', '    select']
    : [];
  const ctr = counter(mode);
  const callHash = hash ? ['local.get $gf', `i32.const ${IO.state}`, 'local.get $buf', 'local.get $g', 'local.get $maxg', `call ${hash.fn}`] : [];
  const fillPad = ['local.get $end', 'i32.const 0', 'local.get $pad', 'memory.fill'];
  return [
    `(func $${f.name} (export "${f.name}") ${paramDecl(f)} ${locals('i32', ['n', 'g', 'j', 'skip', 'pad', 'end'])} ${counterLocals}`,
    indent([
      ...ctr.init,
      'local.get $len', 'i32.const 15', 'i32.add', 'i32.const 4', 'i32.shr_u', 'local.set $n',
      'local.get $n', 'i32.const 4', 'i32.shl', 'local.get $len', 'i32.sub', 'local.set $pad',
      'local.get $buf', 'local.get $len', 'i32.add', 'local.set $end',
      'local.get $mask', 'i32.const 0', 'i32.ne', 'local.set $skip',
      ...ctr.load,
      ...(hash?.order === 'before' ? [';; zero-pad the partial last block before hashing it', ...fillPad] : []),
      'block $done',
      '  loop $group',
      '    local.get $n', '    local.get $skip', '    i32.or', '    i32.eqz', '    br_if $done',
      `    ;; ${B === 8 ? 'eight' : B} counter blocks, encrypted in place`,
      ...Array.from({ length: B }, (_, j) => [`i32.const ${IO.ks}`, ...ctr.block(j), `v128.store offset=${16 * j}`]).flat().map((l) => '    ' + l),
      '    local.get $rk', '    local.get $nr', `    i32.const ${IO.ks}`, ...count, `    call ${cipher.call}`,
      '    local.get $skip',
      '    if',
      `      i32.const ${IO.mask}`, `      i32.const ${IO.ks}`, '      v128.load', '      v128.store',
      '    end',
      `    ;; g = min(n, ${B} - skip) data blocks in this group`,
      '    local.get $n', `    i32.const ${B}`, '    local.get $skip', '    i32.sub', '    local.tee $g',
      '    local.get $n', '    local.get $g', '    i32.lt_u', '    select', '    local.set $g',
      ...(hash?.order === 'before' ? callHash.map((l) => '    ' + l) : []),
      ...xorGroup,
      ...(hash?.order === 'after'
        ? [
            '    ;; the last group: zero the padding of the partial last block, then hash',
            '    local.get $n', '    local.get $g', '    i32.eq',
            '    if', ...fillPad.map((l) => '      ' + l), '    end',
            ...callHash.map((l) => '    ' + l),
          ]
        : []),
      ...ctr.advance(['local.get $g', 'local.get $skip', 'i32.add']).map((l) => '    ' + l),
      '    local.get $buf', '    local.get $g', '    i32.const 4', '    i32.shl', '    i32.add', '    local.set $buf',
      '    local.get $n', '    local.get $g', '    i32.sub', '    local.set $n',
      '    i32.const 0', '    local.set $skip',
      '    br $group',
      '  end',
      'end',
      ...ctr.store,
      `i32.const ${IO.ks}`, 'i32.const 0', `i32.const ${16 * B}`, 'memory.fill',
    ]),
    ')',
  ];
}

/**
 * The AES counter-mode loop with the hash interleaved into the cipher (`stitched` is an
 * aes8Func variant from hashStitch, which hashes up to eight blocks while it encrypts eight):
 *   'before' (GCM open): each group's input blocks are hashed while its keystream is computed;
 *   'after' (GCM seal, GCM-SIV open): each group's output blocks are hashed while the next
 *           group's keystream is computed, and the last group's after the loop.
 * The scalar multiplications of the hash and the SIMD rounds of AES then run side by side in
 * the core instead of one after the other. Requires the powers H … H^8 (maxg is ignored).
 */
function stitchedCryptFunc(f: KernelFunction, mode: Mode, hash: { fn: string; order: 'before' | 'after' }, stitched: string, cipher: GcmCipher = AES8): string[] {
  const B = cipher.blocks;
  const ctr = counter(mode);
  const after = hash.order === 'after';
  const fillPad = ['local.get $end', 'i32.const 0', 'local.get $pad', 'memory.fill'];
  const minG = ['local.get $n', `i32.const ${B}`, 'local.get $skip', 'i32.sub', 'local.tee $g', 'local.get $n', 'local.get $g', 'i32.lt_u', 'select', 'local.set $g'];
  // counted ciphers: count = g + skip, the blocks this group needs
  const count = cipher.counted ? ['    local.get $g', '    local.get $skip', '    i32.add'] : [];
  return [
    `(func $${f.name} (export "${f.name}") ${paramDecl(f)} ${locals('i32', ['n', 'g', 'j', 'skip', 'pad', 'end', 'prev', 'prevN'])} ${counterLocals}`,
    indent([
      ...ctr.init,
      'local.get $len', 'i32.const 15', 'i32.add', 'i32.const 4', 'i32.shr_u', 'local.set $n',
      'local.get $n', 'i32.const 4', 'i32.shl', 'local.get $len', 'i32.sub', 'local.set $pad',
      'local.get $buf', 'local.get $len', 'i32.add', 'local.set $end',
      'local.get $mask', 'i32.const 0', 'i32.ne', 'local.set $skip',
      ...ctr.load,
      ...(after ? [] : [';; zero-pad the partial last block before hashing it', ...fillPad]),
      'block $done',
      '  loop $group',
      '    local.get $n', '    local.get $skip', '    i32.or', '    i32.eqz', '    br_if $done',
      `    ;; ${B === 8 ? 'eight' : B} counter blocks, encrypted in place while hashing`,
      ...Array.from({ length: B }, (_, j) => [`i32.const ${IO.ks}`, ...ctr.block(j), `v128.store offset=${16 * j}`]).flat().map((l) => '    ' + l),
      '    ;; g = min(n, 8 - skip) data blocks in this group',
      ...minG.map((l) => '    ' + l),
      '    local.get $rk', '    local.get $nr', `    i32.const ${IO.ks}`, '    local.get $gf',
      ...(after ? ['    local.get $prev', '    local.get $prevN'] : ['    local.get $buf', '    local.get $g']),
      ...count,
      `    call ${stitched}`,
      '    local.get $skip',
      '    if',
      `      i32.const ${IO.mask}`, `      i32.const ${IO.ks}`, '      v128.load', '      v128.store',
      '    end',
      ...xorGroup,
      ...(after
        ? [
            '    ;; the last group: zero the padding of the partial last block; hash this group with the next',
            '    local.get $n', '    local.get $g', '    i32.eq',
            '    if', ...fillPad.map((l) => '      ' + l), '    end',
            '    local.get $buf', '    local.set $prev',
            '    local.get $g', '    local.set $prevN',
          ]
        : []),
      ...ctr.advance(['local.get $g', 'local.get $skip', 'i32.add']).map((l) => '    ' + l),
      '    local.get $buf', '    local.get $g', '    i32.const 4', '    i32.shl', '    i32.add', '    local.set $buf',
      '    local.get $n', '    local.get $g', '    i32.sub', '    local.set $n',
      '    i32.const 0', '    local.set $skip',
      '    br $group',
      '  end',
      'end',
      ...(after ? [';; the last group', 'local.get $gf', `i32.const ${IO.state}`, 'local.get $prev', 'local.get $prevN', 'i32.const 8', `call ${hash.fn}`] : []),
      ...ctr.store,
      `i32.const ${IO.ks}`, 'i32.const 0', `i32.const ${16 * B}`, 'memory.fill',
    ]),
    ')',
  ];
}

/**
 * One block's hashing cut into pieces to weave between the S-box gates of a round: the block's
 * load and lane extraction, then its six 64-bit carry-less products, each guarded by i ≤ hn.
 */
function weaveGhash(parts: Gf128Parts, domain: string[]): string[][] {
  const pieces = accumulatePieces(parts);
  const guard = (body: string[]) => ['local.get $i', 'local.get $hn', 'i32.le_u', 'if', ...indent(body, 2).split('\n'), 'end'];
  return pieces.map((piece, k) =>
    guard([
      ...(k === 0 ? [';; hash block i - 1 of hsrc (the state enters with the first)', 'local.get $hsrc', 'v128.load', ...domain, 'local.get $hs', 'v128.xor', 'local.set $v', 'v128.const i64x2 0 0', 'local.set $hs'] : []),
      ...piece,
      ...(k === pieces.length - 1
        ? ['local.get $hsrc', 'i32.const 16', 'i32.add', 'local.set $hsrc', 'local.get $p', `i32.const ${GF128_TABLE_SIZE}`, 'i32.sub', 'local.set $p']
        : []),
    ]),
  );
}

/**
 * An aes8Func variant that also hashes hn ≤ 8 blocks at hsrc into IO.state with one reduction
 * (block j with H^(hn−j), so the powers must be in the slot): one block per looped round, the
 * reduction before the final round.
 */
function hashStitch(kind: 'ghash' | 'polyval', parts: Gf128Parts): Aes8Stitch {
  const domain = kind === 'ghash' ? parts.ghashDomain : [];
  return {
    name: `aes8_${kind}`,
    params: '(param $gf i32) (param $hsrc i32) (param $hn i32)',
    locals: `${parts.mulLocals} (local $hs v128) (local $p i32)`,
    prologue: [
      ';; hashing: the state in the POLYVAL domain, the table of H^hn for the first block',
      ...parts.initConsts,
      'local.get $gf', 'local.set $pinAt',
      ...parts.zeroAcc,
      `i32.const ${IO.state}`, 'v128.load', ...domain, 'local.set $hs',
      'local.get $gf', 'local.get $hn', `i32.const ${GF128_TABLE_SIZE}`, 'i32.mul', 'i32.add', `i32.const ${GF128_TABLE_OFFSET - GF128_TABLE_SIZE}`, 'i32.add', 'local.set $p',
    ],
    inRound: [],
    weave: weaveGhash(parts, domain),
    afterRounds: [
      'local.get $hn',
      'if',
      ...indent([
        ...parts.reduce(),
        `i32.const ${IO.state}`, 'local.get $r0', 'i64x2.splat', 'local.get $r1', 'i64x2.replace_lane 1', ...domain, 'v128.store',
      ], 2).split('\n'),
      'end',
    ],
  };
}

function expandExport(): string[] {
  const f = fns.expand;
  return [
    `(func $${f.name} (export "${f.name}") ${paramDecl(f)}`,
    indent([
      'local.get $nk', 'i32.const 4', 'i32.eq',
      'if', '  local.get $rk', '  local.get $key', '  local.get $tmp', '  call $expand4', 'end',
      'local.get $nk', 'i32.const 6', 'i32.eq',
      'if', '  local.get $rk', '  local.get $key', '  local.get $tmp', '  call $expand6', 'end',
      'local.get $nk', 'i32.const 8', 'i32.eq',
      'if', '  local.get $rk', '  local.get $key', '  local.get $tmp', '  call $expand8', 'end',
    ]),
    ')',
  ];
}

/** aes_ecb(rk, nr, src, dst, n): n blocks, eight per pass, through the IO keystream buffer. */
function ecbExport(): string[] {
  const f = fns.ecb;
  const copy = (from: string, to: string) => [
    'i32.const 0', 'local.set $j',
    'loop $c',
    `  local.get $${to}`, '  local.get $j', '  i32.add', `  local.get $${from}`, '  local.get $j', '  i32.add', '  v128.load', '  v128.store',
    '  local.get $j', '  i32.const 16', '  i32.add', '  local.tee $j', '  local.get $bytes', '  i32.lt_u', '  br_if $c',
    'end',
  ];
  return [
    `(func $${f.name} (export "${f.name}") ${paramDecl(f)} ${locals('i32', ['j', 'bytes', 'ks'])}`,
    indent([
      `i32.const ${IO.ks}`, 'local.set $ks',
      'block $done',
      '  loop $group',
      '    local.get $n', '    i32.eqz', '    br_if $done',
      '    local.get $n', '    i32.const 8', '    local.get $n', '    i32.const 8', '    i32.lt_u', '    select',
      '    i32.const 4', '    i32.shl', '    local.set $bytes',
      indent(copy('src', 'ks'), 4),
      '    local.get $rk', '    local.get $nr', '    local.get $ks', '    call $aes8',
      indent(copy('ks', 'dst'), 4),
      '    local.get $src', '    local.get $bytes', '    i32.add', '    local.set $src',
      '    local.get $dst', '    local.get $bytes', '    i32.add', '    local.set $dst',
      '    local.get $n', '    local.get $bytes', '    i32.const 4', '    i32.shr_u', '    i32.sub', '    local.set $n',
      '    br $group',
      '  end',
      'end',
      `i32.const ${IO.ks}`, 'i32.const 0', 'i32.const 128', 'memory.fill',
    ]),
    ')',
  ];
}

/** The length block of a and b byte counts as bit counts, big-endian (GCM) or little-endian (SIV), at IO.lengths. */
function lengthBlock(bigEndian: boolean, swap: boolean): string[] {
  const [x, y] = swap ? ['b', 'a'] : ['a', 'b'];
  return [
    `i32.const ${IO.lengths}`,
    `local.get $${x}`, 'i64.const 3', 'i64.shl', 'i64x2.splat',
    `local.get $${y}`, 'i64.const 3', 'i64.shl', 'i64x2.replace_lane 1',
    ...(bigEndian ? [v128Bytes(LANE_REV), 'i8x16.swizzle'] : []),
    'v128.store',
  ];
}

function gcmLengthsExport(flags: AesGcmFlags): string[] {
  const f = fns.gcmLengths;
  return [
    `(func $${f.name} (export "${f.name}") ${paramDecl(f)}`,
    indent([
      ...lengthBlock(true, !!flags.swapLengths),
      'local.get $gf', `i32.const ${IO.state}`, `i32.const ${IO.lengths}`, 'i32.const 1', 'i32.const 1', `call ${GHASH}`,
    ]),
    ')',
  ];
}

/** gcm_finish(gf, aadLen, len): hash the length block, tag = S ⊕ E(K, J0) at IO.tag. */
function gcmFinishExport(): string[] {
  const f = fns.gcmFinish;
  return [
    `(func $${f.name} (export "${f.name}") ${paramDecl(f)}`,
    indent([
      'local.get $gf', 'local.get $a', 'local.get $b', `call $${fns.gcmLengths.name}`,
      `i32.const ${IO.tag}`, `i32.const ${IO.state}`, 'v128.load', `i32.const ${IO.mask}`, 'v128.load', 'v128.xor', 'v128.store',
    ]),
    ')',
  ];
}

/**
 * gcm_oneshot(rk, gf, nr, buf, len, aad, aadLen, decrypt): a whole GCM message that fits the
 * scratch window in one call (J0 already at IO.ctr): the state zeroed, the AAD (zero-padded by
 * the caller) hashed, the text sealed or opened in place with E(K, J0) from the first group, and
 * the tag at IO.tag. Saves the calls and 64-bit arguments of the general path on short records.
 */
function gcmOneshotExport(): string[] {
  const f = fns.gcmOneshot;
  const args = ['local.get $rk', 'local.get $gf', 'local.get $nr', 'local.get $buf', 'local.get $len', 'i32.const 1', 'i32.const 8'];
  return [
    `(func $${f.name} (export "${f.name}") ${paramDecl(f)}`,
    indent([
      `i32.const ${IO.state}`, 'v128.const i64x2 0 0', 'v128.store',
      'local.get $gf', `i32.const ${IO.state}`, 'local.get $aad', 'local.get $aadLen', 'i32.const 15', 'i32.add', 'i32.const 4', 'i32.shr_u', 'i32.const 8', `call ${GHASH}`,
      'local.get $decrypt',
      'if', ...args.map((l) => '  ' + l), `  call $${crypt.gcmOpen.name}`,
      'else', ...args.map((l) => '  ' + l), `  call $${crypt.gcmSeal.name}`,
      'end',
      'local.get $gf', 'local.get $aadLen', 'i64.extend_i32_u', 'local.get $len', 'i64.extend_i32_u', `call $${fns.gcmFinish.name}`,
    ]),
    ')',
  ];
}

/**
 * siv_init(slot, nr): RFC 8452 key derivation for the nonce at IO.nonce. Encrypts
 * LE32(i) ‖ nonce for i = 0 … 3 (nr = 10) or 0 … 5 (nr = 14) under the key-generating key;
 * the first halves give the POLYVAL key (initialised at slot + sivGf) and the encryption key
 * (expanded at slot + sivRk). Wipes what it used of the IO area.
 */
function sivInitExport(): string[] {
  const f = fns.sivInit;
  const take = (i: number, dst: string) => [dst, `i32.const ${IO.ks}`, `i64.load offset=${16 * i}`];
  return [
    `(func $${f.name} (export "${f.name}") ${paramDecl(f)} (local $nb v128)`,
    indent([
      `i32.const ${IO.nonce}`, 'v128.load', 'local.set $nb',
      ';; block i = LE32(i) ‖ nonce',
      ...Array.from({ length: 6 }, (_, i) => [
        `i32.const ${IO.ks}`,
        `v128.const i32x4 ${i} 0 0 0`, 'local.get $nb', 'i8x16.shuffle 0 1 2 3 16 17 18 19 20 21 22 23 24 25 26 27',
        `v128.store offset=${16 * i}`,
      ]).flat(),
      'local.get $slot', `i32.const ${AES_SLOT.rk}`, 'i32.add', 'local.get $nr', `i32.const ${IO.ks}`, 'call $aes8',
      ';; the POLYVAL key: first halves of blocks 0, 1',
      ...take(0, 'local.get $slot'), `i64.store offset=${AES_SLOT.sivGf}`,
      ...take(1, 'local.get $slot'), `i64.store offset=${AES_SLOT.sivGf + 8}`,
      'local.get $slot', `i32.const ${AES_SLOT.sivGf}`, 'i32.add', 'i32.const 0', `call $${GF_PREFIX}gf128_init`,
      ';; the encryption key: first halves of blocks 2, 3 (and 4, 5)',
      ...take(2, `i32.const ${IO.keys}`), 'i64.store offset=0',
      ...take(3, `i32.const ${IO.keys}`), 'i64.store offset=8',
      ...take(4, `i32.const ${IO.keys}`), 'i64.store offset=16',
      ...take(5, `i32.const ${IO.keys}`), 'i64.store offset=24',
      'local.get $nr', 'i32.const 10', 'i32.eq',
      'if',
      `  local.get $slot`, `  i32.const ${AES_SLOT.sivRk}`, '  i32.add', `  i32.const ${IO.keys}`, `  i32.const ${IO.tmp}`, '  call $expand4',
      'else',
      `  local.get $slot`, `  i32.const ${AES_SLOT.sivRk}`, '  i32.add', `  i32.const ${IO.keys}`, `  i32.const ${IO.tmp}`, '  call $expand8',
      'end',
      `i32.const ${IO.keys}`, 'i32.const 0', 'i32.const 32', 'memory.fill',
      `i32.const ${IO.ks}`, 'i32.const 0', 'i32.const 128', 'memory.fill',
      'v128.const i64x2 0 0', 'local.set $nb',
    ]),
    ')',
  ];
}

/**
 * siv_tag(slot, nr, aadLen, len): POLYVAL the length block into the state, XOR the nonce,
 * clear the top bit, encrypt with the per-nonce key: the tag at IO.tag and the counter block
 * (the tag with the top bit of its last byte set) at IO.ctr.
 */
function sivTagExport(flags: AesGcmFlags): string[] {
  const f = fns.sivTag;
  return [
    `(func $${f.name} (export "${f.name}") ${paramDecl(f)} (local $s v128)`,
    indent([
      ...lengthBlock(false, false),
      'local.get $slot', `i32.const ${AES_SLOT.sivGf}`, 'i32.add', `i32.const ${IO.state}`, `i32.const ${IO.lengths}`, 'i32.const 1', 'i32.const 1', `call ${POLYVAL}`,
      `i32.const ${IO.state}`, 'v128.load', 'local.set $s',
      ...(flags.sivSkipNonceXor ? [] : [';; S ⊕ (nonce ‖ 0^32)', 'local.get $s', `i32.const ${IO.nonce}`, 'v128.load', 'v128.const i32x4 -1 -1 -1 0', 'v128.and', 'v128.xor', 'local.set $s']),
      ';; clear the most significant bit of the last byte',
      `i32.const ${IO.ks}`, 'local.get $s', 'v128.const i32x4 -1 -1 -1 0x7fffffff', 'v128.and', 'v128.store',
      'local.get $slot', `i32.const ${AES_SLOT.sivRk}`, 'i32.add', 'local.get $nr', `i32.const ${IO.ks}`, 'call $aes8',
      `i32.const ${IO.tag}`, `i32.const ${IO.ks}`, 'v128.load', 'v128.store',
      `i32.const ${IO.ctr}`, `i32.const ${IO.ks}`, 'v128.load', 'v128.const i32x4 0 0 0 0x80000000', 'v128.or', 'v128.store',
      `i32.const ${IO.ks}`, 'i32.const 0', 'i32.const 128', 'memory.fill',
      'v128.const i64x2 0 0', 'local.set $s',
    ]),
    ')',
  ];
}

/**
 * The GCM mode functions (gcm_seal_x, gcm_open_x, gcm_lengths, gcm_finish, gcm_oneshot) over another block
 * cipher, for a module that also holds that cipher's `call` and the GF(2^128) functions under
 * GF_PREFIX, with the IO layout of AES_IO (src/aead/gcm-mode.ts drives them).
 */
export function gcmModeFunctions(cipher: GcmCipher, flags: Pick<AesGcmFlags, 'counterCarry' | 'swapLengths'> = {}): { functions: string[][]; exports: KernelFunction[] } {
  const gcmMode: Mode = flags.counterCarry ? 'gcm-carry' : 'gcm';
  return {
    functions: [
      cryptFunc(crypt.gcmSeal, gcmMode, { fn: GHASH, order: 'after' }, cipher, cipher.stitched),
      cryptFunc(crypt.gcmOpen, gcmMode, { fn: GHASH, order: 'before' }, cipher, cipher.stitched),
      gcmLengthsExport(flags),
      gcmFinishExport(),
      gcmOneshotExport(),
    ],
    exports: [crypt.gcmSeal, crypt.gcmOpen, fns.gcmLengths, fns.gcmFinish, fns.gcmOneshot],
  };
}

export function generateAesGcm(flags: AesGcmFlags = {}): GeneratedKernel {
  const gf = gf128Functions(flags, GF_PREFIX);
  const gcmMode: Mode = flags.counterCarry ? 'gcm-carry' : 'gcm';
  const exported: KernelFunction[] = [...Object.values(fns), ...Object.values(crypt), ...gf.exports];
  const funcs = [
    sub16Func(),
    expandFunc(4, flags),
    expandFunc(6, flags),
    expandFunc(8, flags),
    aes8Func(),
    aes8Func(hashStitch('ghash', gf.parts)),
    aes8Func(hashStitch('polyval', gf.parts)),
    expandExport(),
    ecbExport(),
    cryptFunc(crypt.gcmSeal, gcmMode, { fn: GHASH, order: 'after' }, AES8, '$aes8_ghash'),
    cryptFunc(crypt.gcmOpen, gcmMode, { fn: GHASH, order: 'before' }, AES8, '$aes8_ghash'),
    cryptFunc(crypt.sivCtr, 'siv', undefined),
    cryptFunc(crypt.sivOpen, 'siv', { fn: POLYVAL, order: 'after' }),
    cryptFunc(crypt.sivOpenStitched, 'siv', { fn: POLYVAL, order: 'after' }, AES8, '$aes8_polyval'),
    gcmLengthsExport(flags),
    gcmFinishExport(),
    gcmOneshotExport(),
    sivInitExport(),
    sivTagExport(flags),
  ];
  const wat = [
    ';; GENERATED by `npm run gen` from src/kernels/aes_gcm.ts — do not edit.',
    ';; AES (bitsliced, SIMD128), GCM and GCM-SIV mode loops, GF(2^128) (multiplication with holes), constant time.',
    `;; public parameters: ${exported.map((f) => `${f.name}(${f.publicParams.join(', ')})`).join('; ')}`,
    '(module',
    '  (memory (export "memory") 2)',
    ...funcs.map((f) => indent(f, 2)),
    ...gf.functions,
    ')',
    '',
  ].join('\n');
  return { name: 'aes', wat, publicParams: publicMap(exported) };
}

export { AES_MAX_RK_BYTES };

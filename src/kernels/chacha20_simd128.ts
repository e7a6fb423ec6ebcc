// ChaCha20 (RFC 8439) over SIMD128, four blocks per pass, and the 'chacha' kernel module that
// holds it together with Poly1305 (poly1305_radix26.ts), HChaCha20 and the fused AEAD passes.
//
// Technique: one v128 per state word, its four i32 lanes the same word of four consecutive
// blocks (counters c, c+1, c+2, c+3), so a quarter round on four columns is 12 lane-wise
// instructions and the whole double round needs no shuffle between columns and diagonals.
// Rotations by 16 and 8 are byte permutations, done as `i8x16.swizzle` with the pattern held
// in a local (a bare vpshufb on V8, WASM-NOTES.md: +13–16% over shifts); by 12 and 7 they are
// shl/shr/or. After the rounds, a 4×4 transpose per row (unpack-lo/hi-32, -64 shuffles) puts
// each block's bytes back in order for the XOR with the message. Inputs shorter than four
// blocks run the same pass into a keystream buffer and XOR what they need; a rest of at most
// 64 bytes takes one block on scalar i32 instead ($chacha_block1, the HChaCha20 rounds plus the
// feed-forward: ~90 against ~180 ns for 47 bytes; TLS records of 207/239 bytes 8-11% faster,
// whose rest after the key pass's 192 bytes is 15/47 bytes). Two scalar blocks for rests up to
// 128 bytes would save ~30 ns (estimated from 2 × 70 ns against 180 ns): not done.
//
// Why constant time: key, nonce, counter, state and message flow only through i32x4 add, xor,
// shifts, swizzles with constant indices, shuffles and loads/stores at public addresses. The
// loops count public lengths. HChaCha20 is the same rounds on scalar i32 (add, xor, rotl).
//
// Block counter: 32 bits as RFC 8439 says. The kernel adds lane offsets without carrying into
// the nonce; the glue refuses any call that would need a block past 2^32 − 1, so the kernel
// never wraps.
//
// One module for the family ('chacha'): the AEAD encrypts a chunk and MACs the ciphertext in the
// same instance and the same pass over scratch, so nothing is copied between memories, and a
// bundle that imports ChaCha20-Poly1305 carries exactly this module.
//
// AEAD passes (aead_seal / aead_open): 256 bytes at a time, the twenty rounds unrolled and the
// sixteen Poly1305 blocks of a pass (four steps with r^4…r) interleaved statement by statement
// with them ("stitched": ChaCha20 keeps the vector units busy, Poly1305 the integer multiplier).
// Unrolling took the fused pass from 1.0 to 1.25 GB/s; the stitching itself measured neutral
// on V8 11.3 (its scheduler and the out-of-order core overlap the two either way). Messages
// that fit in scratch take one call (aead_seal_all / aead_open_all) over the glue's layout
// aad ‖ pad ‖ message ‖ pad ‖ lengths, and up to 192 bytes reuse blocks 1–3 of the pass that
// made the one-time key: a TLS record costs one four-block pass.
//
// Pinning stores (PIN, 64 bytes of the IO area the glue wipes). TurboFan keeps memory
// operations in program order but places pure arithmetic itself (WASM-NOTES.md, load
// hoisting): the order of the quarter rounds in the WAT made no difference at all (columns one
// by one, in pairs or all four per step: identical speed), and the fused pass ran ChaCha20 and
// Poly1305 in two clumps, with all of a pass's message loads first and their limbs spilled
// (V8's loop: ~3800 instructions per 256 bytes, ~940 of them scalar reloads from the stack).
// Two kinds of dead store fix the schedule: after each quarter round its b vector, and in the
// fused pass after each Poly1305 block's products its d4 (and after each four-block step's
// carry its h1: +2% more, added later). Measured (kernel alone, 64 KiB
// calls, in-process A/B): fused seal/open 1.19 -> 1.39-1.42 GB/s, chacha20_xor 1.44 -> 1.50
// GB/s; seal 1 MiB through the glue 970 -> 832 µs. Variants measured and dropped: a store
// after each Poly1305 four-block step only (1.30-1.42, less steady), a store after every
// quarter-round step (four per step; the same within noise, 4× the stores), stores of one
// column only per step or per quarter round (-6%), ChaCha20 pins without Poly1305 pins (the
// fused pass 5% slower than unpinned), pins with the passes unstitched (-4%), the quarter
// rounds in groups of one or two columns with pins (no gain). Measured after the pins and
// dropped: the same pins in poly1305_blocks' eight- and four-block loops (kernel +3% / +13%,
// but through the glue poly1305/64 and the 239-byte TLS rows 3-11% slower, the MAC object
// would need a wipe of PIN per update); chacha20_xor with its rounds unrolled (-1.5%); row c
// (words 8-11) kept in memory, loaded and stored at each use (neutral to -7%); rotate-by-16 as
// a constant-lane i8x16.shuffle, freeing the pattern's register (-6% fused, -10% xor); the
// Poly1305 blocks spread over the first 80%, the last 90% or the middle 90% of the rounds
// instead of all of them (neutral).
//
// Memory used by this module (the glue's IO area; see src/aead/chacha20-poly1305.ts):
//   state (64 bytes: constants, key, counter, nonce) at the caller's `st`,
//   KS_PTR: 256 bytes of keystream for a partial pass (the glue wipes it after each call);
//   POLY: the Poly1305 state of the one-call AEAD functions.

import { type GeneratedKernel, type KernelFunction, indent, locals, paramDecl, publicMap, v128Bytes, ROTL16_32 as ROT16, ROTL8_32 as ROT8, SHUF_HI32 as HI32, SHUF_HI64 as HI64, SHUF_LO32 as LO32, SHUF_LO64 as LO64 } from './wat.js';
import { type PolyFlags, POLY_STATE_SIZE, polyFunctions, polyLoadH, polyLoadR, polyLocals, polyStep4, polyStore } from './poly1305_radix26.js';

export interface ChachaFlags extends PolyFlags {
  /** each four-block pass advances the counter by five: a block is skipped */
  counterSkips?: boolean;
  /** the scalar one-block tail uses the next block's counter */
  tailCounterOff?: boolean;

}

/** The IO-area layout the one-call AEAD functions use (src/mac/poly1305.ts, IO). */
export const ST = 0;
export const KS_PTR = 64;
export const POLY = 512;
/** 64 bytes for the pinning stores (dead stores of round and Poly1305 intermediates; see the
 * opening comment), inside the IO area the glue wipes after each call. */
export const PIN = 960;
/** Messages from this many bytes on take the fused pass in the one-call AEAD functions (measured:
 * 16 KiB 1.0 -> 1.1 GB/s, 60 KB 1.04 -> 1.16 GB/s; at 1-2 KiB the separate passes, which reuse
 * the key pass for 192 bytes, are as fast). */
export const FUSED_MIN = 4096;
export const CHACHA_POLY_STATE_SIZE = POLY_STATE_SIZE;

type Lines = string[];

const SIGMA = [0x61707865, 0x3320646e, 0x79622d32, 0x6b206574];

const V = Array.from({ length: 16 }, (_, i) => `v${i}`);
const CHACHA_V128_LOCALS = [...V, 't', 'u0', 'u1', 'u2', 'u3', 'ctr', 'rot16', 'rot8'];

const initConsts: Lines = [v128Bytes(ROT16), 'local.set $rot16', v128Bytes(ROT8), 'local.set $rot8'];

/** $ctr = splat(st.counter) + (0, 1, 2, 3). */
const ctrInit: Lines = ['local.get $st', 'v128.load32_splat offset=48', 'v128.const i32x4 0 1 2 3', 'i32x4.add', 'local.set $ctr'];

function ctrNext(flags: ChachaFlags): Lines {
  const step = flags.counterSkips ? 5 : 4;
  return ['local.get $ctr', `v128.const i32x4 ${step} ${step} ${step} ${step}`, 'i32x4.add', 'local.set $ctr'];
}

/** v_w = the state word w in every lane (the counter word: $ctr). */
function loadState(): Lines {
  const out: Lines = [];
  for (let w = 0; w < 16; w++) {
    if (w === 12) out.push('local.get $ctr', 'local.set $v12');
    else out.push('local.get $st', `v128.load32_splat offset=${4 * w}`, `local.set $v${w}`);
  }
  return out;
}

/** Four quarter rounds at once (each step across the four), on the given word indices; then
 * each quarter round's b stored at PIN (dead stores that fix where TurboFan schedules them). */
function quarter4(qs: number[][]): Lines {
  const out: Lines = [];
  const add = (x: number, y: number) => qs.forEach((q) => out.push(`local.get $v${q[x]}`, `local.get $v${q[y]}`, 'i32x4.add', `local.set $v${q[x]}`));
  const xorSwz = (x: number, y: number, pat: string) => qs.forEach((q) => out.push(`local.get $v${q[x]}`, `local.get $v${q[y]}`, 'v128.xor', `local.get $${pat}`, 'i8x16.swizzle', `local.set $v${q[x]}`));
  const xorRot = (x: number, y: number, r: number) =>
    qs.forEach((q) => out.push(`local.get $v${q[x]}`, `local.get $v${q[y]}`, 'v128.xor', 'local.tee $t', `i32.const ${r}`, 'i32x4.shl', 'local.get $t', `i32.const ${32 - r}`, 'i32x4.shr_u', 'v128.or', `local.set $v${q[x]}`));
  // (a, b, c, d) = (0, 1, 2, 3)
  add(0, 1); xorSwz(3, 0, 'rot16');
  add(2, 3); xorRot(1, 2, 12);
  add(0, 1); xorSwz(3, 0, 'rot8');
  add(2, 3); xorRot(1, 2, 7);
  qs.forEach((q, i) => out.push(`i32.const ${PIN}`, `local.get $v${q[1]}`, `v128.store offset=${16 * i}`));
  return out;
}

const COLS = [[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]];
const DIAGS = [[0, 5, 10, 15], [1, 6, 11, 12], [2, 7, 8, 13], [3, 4, 9, 14]];

/** Twenty rounds on $v0…$v15 (a loop of ten double rounds), then the feed-forward. */
function rounds(): Lines {
  const feed: Lines = [];
  for (let w = 0; w < 16; w++) {
    if (w === 12) feed.push('local.get $v12', 'local.get $ctr', 'i32x4.add', 'local.set $v12');
    else feed.push(`local.get $v${w}`, 'local.get $st', `v128.load32_splat offset=${4 * w}`, 'i32x4.add', `local.set $v${w}`);
  }
  return [
    'i32.const 10', 'local.set $i',
    'loop $dround',
    ...quarter4(COLS),
    ...quarter4(DIAGS),
    'local.get $i', 'i32.const 1', 'i32.sub', 'local.tee $i', 'br_if $dround',
    'end',
    ...feed,
  ];
}

/** Twenty rounds unrolled, without the feed-forward (for stitching). */
function roundsUnrolled(): Lines {
  const out: Lines = [];
  for (let i = 0; i < 10; i++) out.push(...quarter4(COLS), ...quarter4(DIAGS));
  return out;
}

/** The feed-forward: v_w += the input word. */
function feedForward(): Lines {
  const feed: Lines = [];
  for (let w = 0; w < 16; w++) {
    if (w === 12) feed.push('local.get $v12', 'local.get $ctr', 'i32x4.add', 'local.set $v12');
    else feed.push(`local.get $v${w}`, 'local.get $st', `v128.load32_splat offset=${4 * w}`, 'i32x4.add', `local.set $v${w}`);
  }
  return feed;
}

/** Split straight-line code into statements: each ends where the operand stack is empty again. */
function statements(code: Lines): Lines[] {
  const out: Lines[] = [];
  let cur: Lines = [];
  for (const ins of code) {
    cur.push(ins);
    const op = ins.trim().split(/\s/)[0];
    if (op === 'local.set' || op.endsWith('.store') || /\.store\d+$/.test(op)) {
      out.push(cur);
      cur = [];
    }
  }
  if (cur.length) out.push(cur);
  return out;
}

/**
 * Interleave two independent straight-line sequences statement by statement, spreading b
 * evenly over a, so that the integer multiplier (Poly1305) and the vector units (ChaCha20) are
 * busy at the same time ("stitching").
 */
export function stitch(a: Lines, b: Lines): Lines {
  const sa = statements(a);
  const sb = statements(b);
  const out: Lines = [];
  let j = 0;
  for (let i = 0; i < sa.length; i++) {
    out.push(...sa[i]);
    const want = Math.floor(((i + 1) * sb.length) / sa.length);
    while (j < want) out.push(...sb[j++]);
  }
  while (j < sb.length) out.push(...sb[j++]);
  return out;
}

/**
 * Transpose the four blocks back to byte order and either XOR them with 256 bytes at $src into
 * $dst, or store them as keystream at $dst.
 */
function output(xor: boolean): Lines {
  const out: Lines = [];
  for (let j = 0; j < 4; j++) {
    const [a, b, c, d] = [4 * j, 4 * j + 1, 4 * j + 2, 4 * j + 3].map((w) => `$v${w}`);
    out.push(
      `local.get ${a}`, `local.get ${b}`, `i8x16.shuffle ${LO32}`, 'local.set $u0',
      `local.get ${c}`, `local.get ${d}`, `i8x16.shuffle ${LO32}`, 'local.set $u1',
      `local.get ${a}`, `local.get ${b}`, `i8x16.shuffle ${HI32}`, 'local.set $u2',
      `local.get ${c}`, `local.get ${d}`, `i8x16.shuffle ${HI32}`, 'local.set $u3',
    );
    const blocks: [string, string, string, number][] = [['u0', 'u1', LO64, 0], ['u0', 'u1', HI64, 1], ['u2', 'u3', LO64, 2], ['u2', 'u3', HI64, 3]];
    for (const [x, y, pat, k] of blocks) {
      const off = 64 * k + 16 * j;
      out.push('local.get $dst');
      if (xor) out.push('local.get $src', `v128.load offset=${off}`);
      out.push(`local.get $${x}`, `local.get $${y}`, `i8x16.shuffle ${pat}`);
      if (xor) out.push('v128.xor');
      out.push(`v128.store offset=${off}`);
    }
  }
  return out;
}

const FUNCS: KernelFunction[] = [
  { name: 'chacha20_xor', params: [['st', 'i32'], ['src', 'i32'], ['dst', 'i32'], ['len', 'i32']], publicParams: ['st', 'src', 'dst', 'len'] },
  { name: 'hchacha20', params: [['key', 'i32'], ['nonce', 'i32'], ['out', 'i32']], publicParams: ['key', 'nonce', 'out'] },
  { name: 'aead_init', params: [['key', 'i32'], ['nonce', 'i32'], ['st', 'i32'], ['p', 'i32'], ['x', 'i32']], publicParams: ['key', 'nonce', 'st', 'p', 'x'] },
  { name: 'aead_seal', params: [['st', 'i32'], ['p', 'i32'], ['src', 'i32'], ['dst', 'i32'], ['len', 'i32'], ['maxg', 'i32']], publicParams: ['st', 'p', 'src', 'dst', 'len', 'maxg'] },
  { name: 'aead_open', params: [['st', 'i32'], ['p', 'i32'], ['src', 'i32'], ['dst', 'i32'], ['len', 'i32'], ['maxg', 'i32']], publicParams: ['st', 'p', 'src', 'dst', 'len', 'maxg'] },
  { name: 'aead_seal_all', params: [['key', 'i32'], ['nonce', 'i32'], ['x', 'i32'], ['buf', 'i32'], ['ablocks', 'i32'], ['len', 'i32'], ['maxg', 'i32'], ['tag', 'i32']], publicParams: ['key', 'nonce', 'x', 'buf', 'ablocks', 'len', 'maxg', 'tag'] },
  { name: 'aead_open_all', params: [['key', 'i32'], ['nonce', 'i32'], ['x', 'i32'], ['buf', 'i32'], ['ablocks', 'i32'], ['len', 'i32'], ['maxg', 'i32'], ['tag', 'i32']], publicParams: ['key', 'nonce', 'x', 'buf', 'ablocks', 'len', 'maxg', 'tag'] },
  { name: 'poly1305_init', params: [['p', 'i32'], ['key', 'i32']], publicParams: ['p', 'key'] },
  { name: 'poly1305_powers', params: [['p', 'i32']], publicParams: ['p'] },
  { name: 'poly1305_blocks', params: [['p', 'i32'], ['src', 'i32'], ['n', 'i32'], ['maxg', 'i32'], ['hibit', 'i32']], publicParams: ['p', 'src', 'n', 'maxg', 'hibit'] },
  { name: 'poly1305_finish', params: [['p', 'i32'], ['out', 'i32']], publicParams: ['p', 'out'] },
];

const fn = (name: string) => FUNCS.find((f) => f.name === name)!;

export function generateChacha(flags: ChachaFlags = {}): GeneratedKernel {
  const chachaLocals = [locals('v128', CHACHA_V128_LOCALS), locals('i32', ['i'])].join(' ');

  // chacha20_xor(st, src, dst, len): whole passes of 256 bytes, then a partial pass through
  // the keystream buffer; the state's counter advances by the number of blocks used.
  const xorFn = [
    `(func $chacha20_xor (export "chacha20_xor") ${paramDecl(fn('chacha20_xor'))} ${chachaLocals} (local $len0 i32) (local $off i32)`,
    indent([
      ...initConsts, ...ctrInit,
      'local.get $len', 'local.set $len0',
      'block $whole_done',
      '  loop $whole',
      '    local.get $len', '    i32.const 256', '    i32.lt_u', '    br_if $whole_done',
      ...indent([...loadState(), ...rounds(), ...output(true), ...ctrNext(flags)], 4).split('\n'),
      '    local.get $src', '    i32.const 256', '    i32.add', '    local.set $src',
      '    local.get $dst', '    i32.const 256', '    i32.add', '    local.set $dst',
      '    local.get $len', '    i32.const 256', '    i32.sub', '    local.set $len',
      '    br $whole',
      '  end',
      'end',
      'local.get $len',
      'if',
      ';; partial pass: keystream into KS (one scalar block up to 64 bytes, else a four-block',
      ';; pass), then XOR 16 bytes at a time, then bytes',
      '  local.get $dst', '  local.set $off',
      `  i32.const ${KS_PTR}`, '  local.set $dst',
      '  local.get $len', '  i32.const 64', '  i32.le_u',
      '  if',
      '    local.get $st', '    local.get $ctr', '    i32x4.extract_lane 0', ...(flags.tailCounterOff ? ['    i32.const 1', '    i32.add'] : []), `    i32.const ${KS_PTR}`, '    call $chacha_block1',
      '  else',
      ...indent([...loadState(), ...rounds(), ...output(false)], 4).split('\n'),
      '  end',
      '  local.get $src', '  local.get $off', `  i32.const ${KS_PTR}`, '  local.get $len', '  call $xor_ks',
      'end',
      ';; counter += blocks used',
      'local.get $st', 'local.get $st', 'i32.load offset=48',
      'local.get $len0', 'i32.const 63', 'i32.add', 'i32.const 6', 'i32.shr_u', 'i32.add', 'i32.store offset=48',
    ]),
    ')',
  ];

  // $xor_ks(src, dst, ks, len): dst = src XOR ks over len bytes, 16 at a time, then bytes;
  // nothing past len is written (the glue's zero padding after a message stays zero).
  const xorKsFn = [
    '(func $xor_ks (param $src i32) (param $dst i32) (param $ks i32) (param $len i32) (local $off i32)',
    indent([
      'block $v_done',
      '  loop $v',
      '    local.get $off', '    i32.const 16', '    i32.add', '    local.get $len', '    i32.gt_u', '    br_if $v_done',
      '    local.get $dst', '    local.get $off', '    i32.add',
      '    local.get $src', '    local.get $off', '    i32.add', '    v128.load',
      '    local.get $ks', '    local.get $off', '    i32.add', '    v128.load',
      '    v128.xor', '    v128.store',
      '    local.get $off', '    i32.const 16', '    i32.add', '    local.set $off',
      '    br $v',
      '  end',
      'end',
      'block $b_done',
      '  loop $b',
      '    local.get $off', '    local.get $len', '    i32.ge_u', '    br_if $b_done',
      '    local.get $dst', '    local.get $off', '    i32.add',
      '    local.get $src', '    local.get $off', '    i32.add', '    i32.load8_u',
      '    local.get $ks', '    local.get $off', '    i32.add', '    i32.load8_u',
      '    i32.xor', '    i32.store8',
      '    local.get $off', '    i32.const 1', '    i32.add', '    local.set $off',
      '    br $b',
      '  end',
      'end',
    ]),
    ')',
  ];

  // aead_seal_all / aead_open_all(key, nonce, x, buf, ablocks, len, maxg, tag): one call for a
  // message laid out by the glue as aad ‖ zeros ‖ message ‖ zeros ‖ le64 lengths at buf (ablocks
  // whole blocks of padded AAD; the message padded to whole blocks). Poly1305 runs over that
  // whole region in one go; the message's len bytes are XORed in place, the padding untouched.
  // Blocks 1–3 of the pass that made the one-time key encrypt the first 192 bytes.
  const allFn = (seal: boolean): Lines => {
    const f = fn(seal ? 'aead_seal_all' : 'aead_open_all');
    // the first 192 bytes with blocks 1–3 of the key pass, the rest from block 4
    const xor = [
      'local.get $msg', 'local.get $msg', `i32.const ${KS_PTR + 64}`,
      'local.get $len', 'i32.const 192', 'local.get $len', 'i32.const 192', 'i32.lt_u', 'select',
      'call $xor_ks',
      'local.get $len', 'i32.const 192', 'i32.gt_u',
      'if',
      `  i32.const ${ST}`, '  i32.const 4', '  i32.store offset=48',
      `  i32.const ${ST}`, '  local.get $msg', '  i32.const 192', '  i32.add', '  local.get $msg', '  i32.const 192', '  i32.add',
      '  local.get $len', '  i32.const 192', '  i32.sub', '  call $chacha20_xor',
      'end',
    ];
    const mac = [
      `i32.const ${POLY}`, 'local.get $buf',
      'local.get $ablocks', 'local.get $len', 'i32.const 15', 'i32.add', 'i32.const 4', 'i32.shr_u', 'i32.add', 'i32.const 1', 'i32.add',
      'local.get $maxg', 'i32.const 1', 'call $poly1305_blocks',
    ];
    // From FUSED_MIN bytes on, the message's whole 256-byte passes go through the fused pass
    // (aead_seal / aead_open) and only the rest and the lengths block are MACed separately.
    const blocks = (n: string) => ['local.get ' + n, 'i32.const 15', 'i32.add', 'i32.const 4', 'i32.shr_u', 'i32.const 1', 'i32.add'];
    const fusedMac = (what: string) => [`i32.const ${POLY}`, `local.get $${what}`];
    const fused = [
      'local.get $len', 'i32.const -256', 'i32.and', 'local.set $big',
      'local.get $len', 'local.get $big', 'i32.sub', 'local.set $rest',
      'local.get $msg', 'local.get $big', 'i32.add', 'local.set $tail',
      ...fusedMac('buf'), 'local.get $ablocks', 'local.get $maxg', 'i32.const 1', 'call $poly1305_blocks',
      `i32.const ${ST}`, `i32.const ${POLY}`, 'local.get $msg', 'local.get $msg', 'local.get $big', 'local.get $maxg', `call $${seal ? 'aead_seal' : 'aead_open'}`,
      ...(seal
        ? [`i32.const ${ST}`, 'local.get $tail', 'local.get $tail', 'local.get $rest', 'call $chacha20_xor',
           ...fusedMac('tail'), ...blocks('$rest'), 'local.get $maxg', 'i32.const 1', 'call $poly1305_blocks']
        : [...fusedMac('tail'), ...blocks('$rest'), 'local.get $maxg', 'i32.const 1', 'call $poly1305_blocks',
           `i32.const ${ST}`, 'local.get $tail', 'local.get $tail', 'local.get $rest', 'call $chacha20_xor']),
    ];
    return [
      `(func $${f.name} (export "${f.name}") ${paramDecl(f)} (local $msg i32) (local $big i32) (local $rest i32) (local $tail i32)`,
      indent([
        'local.get $key', 'local.get $nonce', `i32.const ${ST}`, `i32.const ${POLY}`, 'local.get $x', 'call $aead_init',
        'local.get $maxg', 'i32.const 4', 'i32.ge_u', 'if', `  i32.const ${POLY}`, '  call $poly1305_powers', 'end',
        'local.get $buf', 'local.get $ablocks', 'i32.const 4', 'i32.shl', 'i32.add', 'local.set $msg',
        'local.get $maxg', 'i32.const 4', 'i32.ge_u', 'local.get $len', `i32.const ${FUSED_MIN}`, 'i32.ge_u', 'i32.and',
        'if',
        ...indent(fused, 2).split('\n'),
        'else',
        ...indent(seal ? [...xor, ...mac] : [...mac, ...xor], 2).split('\n'),
        'end',
        `i32.const ${POLY}`, 'local.get $tag', 'call $poly1305_finish',
      ]),
      ')',
    ];
  };

  // hchacha20(key, nonce16, out): scalar rounds, words 0–3 and 12–15 out, no feed-forward.
  const x = (i: number) => `$x${i}`;
  const sqr = (a: number, b: number, c: number, d: number): Lines => {
    const o: Lines = [];
    const step = (p: number, q: number, r: number, rot: number) => o.push(
      `local.get ${x(p)}`, `local.get ${x(q)}`, 'i32.add', `local.set ${x(p)}`,
      `local.get ${x(r)}`, `local.get ${x(p)}`, 'i32.xor', `i32.const ${rot}`, 'i32.rotl', `local.set ${x(r)}`,
    );
    step(a, b, d, 16); step(c, d, b, 12); step(a, b, d, 8); step(c, d, b, 7);
    return o;
  };
  const hLoad: Lines = [];
  SIGMA.forEach((c, i) => hLoad.push(`i32.const ${c}`, `local.set ${x(i)}`));
  for (let i = 0; i < 8; i++) hLoad.push('local.get $key', `i32.load offset=${4 * i}`, `local.set ${x(4 + i)}`);
  for (let i = 0; i < 4; i++) hLoad.push('local.get $nonce', `i32.load offset=${4 * i}`, `local.set ${x(12 + i)}`);
  const hOut: Lines = [];
  [0, 1, 2, 3, 12, 13, 14, 15].forEach((w, i) => hOut.push('local.get $out', `local.get ${x(w)}`, `i32.store offset=${4 * i}`));
  // the 20 rounds on the scalar words x0 … x15, as ten column+diagonal double rounds in a loop
  const scalarLocals = `${locals('i32', Array.from({ length: 16 }, (_, i) => `x${i}`))} (local $i i32)`;
  const doubleRounds: Lines = [
    'i32.const 10', 'local.set $i',
    'loop $dround',
    ...COLS.flatMap((q) => sqr(q[0], q[1], q[2], q[3])),
    ...DIAGS.flatMap((q) => sqr(q[0], q[1], q[2], q[3])),
    'local.get $i', 'i32.const 1', 'i32.sub', 'local.tee $i', 'br_if $dround',
    'end',
  ];
  const hchachaFn = [
    `(func $hchacha20 (export "hchacha20") ${paramDecl(fn('hchacha20'))} ${scalarLocals}`,
    indent([...hLoad, ...doubleRounds, ...hOut]),
    ')',
  ];

  // $chacha_block1(st, ctr, out): one block of keystream (64 bytes) for the state at st with
  // the counter word ctr, on scalar i32 like HChaCha20: for a partial pass of at most 64 bytes
  // it costs ~70 ns against ~180 ns for the four-block SIMD pass.
  const b1Load: Lines = [];
  for (let w = 0; w < 16; w++) b1Load.push(...(w === 12 ? ['local.get $ctr'] : ['local.get $st', `i32.load offset=${4 * w}`]), `local.set ${x(w)}`);
  const b1Out: Lines = [];
  for (let w = 0; w < 16; w++) b1Out.push('local.get $out', `local.get ${x(w)}`, ...(w === 12 ? ['local.get $ctr'] : ['local.get $st', `i32.load offset=${4 * w}`]), 'i32.add', `i32.store offset=${4 * w}`);
  const block1Fn = [
    `(func $chacha_block1 (param $st i32) (param $ctr i32) (param $out i32) ${scalarLocals}`,
    indent([...b1Load, ...doubleRounds, ...b1Out]),
    ')',
  ];

  // aead_init(key, nonce, st, p, x): the ChaCha20 state for (key, nonce) — for x = 1 the
  // XChaCha subkey from HChaCha20(key, nonce[0..16]) and nonce 0^4 ‖ nonce[16..24] — then the
  // one-time Poly1305 key from block 0, and the counter set to 1 (RFC 8439 §2.6, §2.8).
  const initFn = [
    `(func $aead_init (export "aead_init") ${paramDecl(fn('aead_init'))}`,
    indent([
      ...SIGMA.flatMap((c, i) => ['local.get $st', `i32.const ${c}`, `i32.store offset=${4 * i}`]),
      'local.get $st', 'i32.const 0', 'i32.store offset=48',
      'local.get $x',
      'if',
      '  local.get $key', '  local.get $nonce', '  local.get $st', '  i32.const 16', '  i32.add', '  call $hchacha20',
      '  local.get $st', '  i32.const 0', '  i32.store offset=52',
      '  local.get $st', '  local.get $nonce', '  i64.load offset=16', '  i64.store offset=56',
      'else',
      '  local.get $st', '  local.get $key', '  v128.load offset=0', '  v128.store offset=16',
      '  local.get $st', '  local.get $key', '  v128.load offset=16', '  v128.store offset=32',
      '  local.get $st', '  local.get $nonce', '  i32.load offset=0', '  i32.store offset=52',
      '  local.get $st', '  local.get $nonce', '  i64.load offset=4', '  i64.store offset=56',
      'end',
      ';; block 0 (with blocks 1–3, unused) into KS; its first 32 bytes key Poly1305',
      `local.get $st`, `i32.const ${KS_PTR}`, 'call $chacha_ks',
      'local.get $p', `i32.const ${KS_PTR}`, 'call $poly1305_init',
      'local.get $st', 'i32.const 1', 'i32.store offset=48',
    ]),
    ')',
  ];

  // $chacha_ks(st, dst): four blocks of keystream at dst (a whole pass over 256 zero bytes).
  const ksFn = [
    '(func $chacha_ks (param $st i32) (param $dst i32)',
    '  local.get $dst', '  i32.const 0', '  i32.const 256', '  memory.fill',
    '  local.get $st', '  local.get $dst', '  local.get $dst', '  i32.const 256', '  call $chacha20_xor',
    ')',
  ];

  // aead_seal / aead_open(st, p, src, dst, len, maxg): len bytes of message; ChaCha20 from the
  // state's counter, Poly1305 over the ciphertext's whole 16-byte blocks (the glue pads the
  // last partial block). Whole 256-byte passes with the powers of r run fused: one ChaCha20
  // pass, then sixteen Poly1305 blocks in four steps over the same 256 bytes while they are in
  // L1 — after the XOR when sealing, before it when opening (so dst may equal src).
  const aeadFn = (seal: boolean): Lines => {
    const f = fn(seal ? 'aead_seal' : 'aead_open');
    const hib = ['i64.const 0x1000000'];
    // after each block's products, d4 stored at PIN: the next block's loads stay after it; and
    // after each four-block step's carry, h1
    const pin = (j: number): Lines => [`i32.const ${PIN}`, 'local.get $d4', `i64.store offset=${8 * j}`];
    const carryPin = [`i32.const ${PIN}`, 'local.get $h1', 'i64.store offset=32'];
    const mac = (addr: string) => [0, 64, 128, 192].flatMap((o) => [...polyStep4(addr, o, hib, flags, pin), ...carryPin]);
    const advance = [
      'local.get $src', 'i32.const 256', 'i32.add', 'local.set $src',
      'local.get $dst', 'i32.const 256', 'i32.add', 'local.set $dst',
      'local.get $ng', 'i32.const 1', 'i32.add', 'local.set $ng',
      'local.get $len', 'i32.const 256', 'i32.sub', 'local.set $len',
    ];
    // one pass: four ChaCha20 blocks with the Poly1305 steps over 256 bytes at macAddr stitched in
    const pass = (macAddr: string): Lines => [
      ...loadState(),
      ...stitch(roundsUnrolled(), mac(macAddr)),
      ...feedForward(), ...output(true), ...ctrNext(flags),
    ];
    // Sealing MACs the ciphertext of the pass before the previous one while computing this one
    // (the first two passes run as plain ChaCha20 through a call, the last two are MACed after
    // the loop by a call: code around the loop changes V8's register allocation inside it, and
    // this keeps the loop the same shape as opening's). Opening MACs this pass's ciphertext
    // before the XOR overwrites it (dst may equal src).
    const loop = (macAddr: string, setup: Lines) => [
      'loop $pass',
      ...indent([...setup, ...pass(macAddr), ...advance], 2).split('\n'),
      '  local.get $len', '  i32.const 256', '  i32.ge_u', '  br_if $pass',
      'end',
    ];
    const minLen = seal ? 768 : 256;
    const fused = seal
      ? [
          'local.get $st', 'local.get $src', 'local.get $dst', 'i32.const 512', 'call $chacha20_xor',
          'local.get $src', 'i32.const 512', 'i32.add', 'local.set $src',
          'local.get $dst', 'i32.const 512', 'i32.add', 'local.set $dst',
          'local.get $len', 'i32.const 512', 'i32.sub', 'local.set $len',
          ...initConsts, ...ctrInit, ...polyLoadH(), ...polyLoadR([1, 2, 3, 4]),
          ...loop('mp', ['local.get $dst', 'i32.const 512', 'i32.sub', 'local.set $mp']),
          ...polyStore(),
          'local.get $p', 'local.get $dst', 'i32.const 512', 'i32.sub', 'i32.const 32', 'i32.const 4', 'i32.const 1', 'call $poly1305_blocks',
        ]
      : [...initConsts, ...ctrInit, ...polyLoadH(), ...polyLoadR([1, 2, 3, 4]), ...loop('src', []), ...polyStore()];
    return [
      `(func $${f.name} (export "${f.name}") ${paramDecl(f)} ${chachaLocals} ${locals('i64', polyLocals([1, 2, 3, 4]))} (local $ng i32) (local $mp i32)`,
      indent([
        'local.get $maxg', 'i32.const 4', 'i32.ge_u', 'local.get $len', `i32.const ${minLen}`, 'i32.ge_u', 'i32.and',
        'if',
        ...indent(fused, 2).split('\n'),
        '  local.get $st', '  local.get $st', '  i32.load offset=48', '  local.get $ng', '  i32.const 2', '  i32.shl', '  i32.add', '  i32.store offset=48',
        'end',
        'local.get $len',
        'if',
        ...(seal
          ? ['  local.get $st', '  local.get $src', '  local.get $dst', '  local.get $len', '  call $chacha20_xor',
             '  local.get $p', '  local.get $dst', '  local.get $len', '  i32.const 4', '  i32.shr_u', '  local.get $maxg', '  i32.const 1', '  call $poly1305_blocks']
          : ['  local.get $p', '  local.get $src', '  local.get $len', '  i32.const 4', '  i32.shr_u', '  local.get $maxg', '  i32.const 1', '  call $poly1305_blocks',
             '  local.get $st', '  local.get $src', '  local.get $dst', '  local.get $len', '  call $chacha20_xor']),
        'end',
      ]),
      ')',
    ];
  };

  const wat = [
    ';; GENERATED by `npm run gen` from src/kernels/chacha20_simd128.ts and poly1305_radix26.ts — do not edit.',
    ';; ChaCha20 (SIMD128, four blocks per pass), HChaCha20, Poly1305 (radix 2^26, r^1..r^4), fused AEAD passes.',
    `;; public parameters: ${FUNCS.map((f) => `${f.name}(${f.publicParams.join(', ')})`).join('; ')}`,
    '(module',
    '  (memory (export "memory") 2)',
    indent(xorFn, 2),
    indent(hchachaFn, 2),
    indent(block1Fn, 2),
    indent(ksFn, 2),
    indent(xorKsFn, 2),
    indent(allFn(true), 2),
    indent(allFn(false), 2),
    indent(initFn, 2),
    indent(aeadFn(true), 2),
    indent(aeadFn(false), 2),
    indent(polyFunctions(flags), 2),
    ')',
    '',
  ].join('\n');

  return { name: 'chacha', wat, publicParams: publicMap(FUNCS) };
}

// SM4 (GB/T 32907-2016) over SIMD128 with a vector-permute S-box: the SM4 functions of the 'sm4'
// kernel module (sm4_gcm.ts adds the GCM mode around them).
//
// Technique. The SM4 S-box is affine-equivalent to inversion in GF(2^8):
//   Sbox(x) = A·inv(A·x ⊕ 0xD3) ⊕ 0xD3,  inv in GF(2)[α]/(α^8+α^7+α^6+α^5+α^4+α^2+1),
// A the circulant bit matrix whose row i is 0xA7 rotated left by i (out bit i = parity(row_i & x)).
// This generator moves the inversion into a tower field GF(16)[t]/(t^2 + a·t + a),
// GF(16) = GF(2)[z]/(z^4 + z + 1), through the field isomorphism φ that sends α to a root β of
// the same polynomial, and computes it on 16 bytes at a time with nibble-indexed `i8x16.swizzle`
// lookups (the vector-permute inversion of Hamburg, CHES 2009). For x = i·t + k (i, k nibbles),
// N = a·i^2 + a·i·k + k^2 is its norm and x^-1 = (i/N)·t + (k + a·i)/N. With j = i ⊕ k,
//   iak = 1/i ⊕ a/k,  jak = 1/j ⊕ a/k,  io = 1/iak ⊕ j = N/(k + a·i),  jo = 1/jak ⊕ i = N/(k + a·j)
// and the two coordinates of x^-1 are GF(2)-linear in 1/io and 1/jo, so the output byte is
// U[io] ⊕ V[jo] for two nibble tables that also apply A·φ^-1. 1/0 is an "infinity" (0x80):
// `i8x16.swizzle` returns 0 for any index ≥ 16, which carries every zero-divisor case (k = 0,
// i = 0, j = 0, k = a·i, k = a·j, x = 0) to the right answer; the generator checks all 256 inputs
// against the algebraic definition before it emits anything. The affine map on the way in is two
// more lookups (low and high nibble); the output constant 0xD3 is not added per S-box: through L
// it is the word constant K = L(0xD3D3D3D3), which enters X_{i+4} every round, and keeping the
// state as X_j ⊕ d_j (d_j = K when ⌊j/4⌋ is odd, else 0) moves it into the round keys:
// rk'_i = rk_i ⊕ d_{i+1} ⊕ d_{i+2} ⊕ d_{i+3}, zero for the output words X32…X35. That pattern is
// symmetric (rk'_{31-i} adjustment = rk'_i adjustment), so decryption uses the same adjusted
// keys in reverse order.
//
// Layout: four blocks per group, one v128 per state word, lane b holding the word of block b as
// a number (each 32-bit lane byte-swapped from memory), so the S-box runs on all 16 bytes of
// the four words X1⊕X2⊕X3⊕rk at once and L(B) = B ⊕ (B<<<24) ⊕ ((B ⊕ B<<<8 ⊕ B<<<16) <<< 2)
// is three byte-rotation swizzles (constant pattern in a local: a bare vpshufb), one shl/shr/or
// rotation and four XORs; X_r ⊕ s ⊕ s<<<24 is formed beside the <<< 2 chain, off the round's
// critical path (measured side by side: one group 152 → 166 MB/s, four 440 → 476). A 4×4
// transpose (unpack shuffles) per group on the way in and out. Four groups (16 blocks) are
// interleaved per pass for instruction-level parallelism across the serial round chain; a tail of
// 1–15 blocks runs one pass of 1, 2 or 4 groups, loading and storing only the blocks that exist.
// Counter mode writes 16 counter blocks (inc_32) to a keystream buffer, encrypts them in place
// with the ECB function and XORs: measured as fast as building the counter words in transposed
// form in registers (506 vs 483 MB/s on 16 KiB), with 12 KiB less code.
//
// Why constant time: no memory access depends on data (round keys are read at fixed offsets from
// a public pointer); every secret-dependent lookup is an `i8x16.swizzle` whose table is a
// constant and whose index is the data, which V8 compiles to vpaddusb + vpshufb on registers.
// Loops and branches count public block numbers. The key expansion is the same S-box on one
// word (the other lanes compute copies), scalar i32 xor and rotl, in a loop over the public
// round number.
//
// Cost per round and group of four blocks: 9 data-indexed swizzles (2 in, 5 inversion, 2 out;
// each is movq + vpaddusb + vpshufb on V8), 3 constant swizzles, 4 shifts, ~22 and/xor/or:
// ~60 x86 instructions, ~1900 per 64 bytes. Measured: ~470–500 MB/s for 16 KiB of CTR in the
// kernel (OpenSSL's table-based sm4-ctr through node:crypto: ~150 MB/s on the same machine).
//
// Round keys (SM4_RK in sm4_layout.ts, from the pointer given to sm4_expand): [0, 512) the 32
// adjusted encryption round keys, each splatted to 16 bytes; [512, 1024) the same in decryption
// order; [1024, 1040) the raw key, written by the glue and zeroed by sm4_expand.
//
// Negative-control flags (tests only) produce deliberately broken variants.

import { SM4_RK } from './sm4_layout.js';
import { type KernelFunction, indent, locals, paramDecl, v128Bytes, BSWAP32 as BSWAP, ROTL16_32 as ROT16, ROTL8_32 as ROT8, SHUF_HI32 as HI32, SHUF_HI64 as HI64, SHUF_LO32 as LO32, SHUF_LO64 as LO64 } from './wat.js';

export interface Sm4Flags {
  /** CK_5 off by one bit in the key expansion */
  wrongCk?: boolean;
  /** the <<< 2 rotation of L (hence <<< 10 and <<< 18) becomes <<< 3 */
  rotOffByOne?: boolean;
  /** the final reversal R is skipped: (X32, X33, X34, X35) instead of (X35, X34, X33, X32) */
  skipReversal?: boolean;
}

export interface Sm4Options {
  /** groups of four blocks per pass in the main loop */
  groups?: number;
}

const SM4_DEC_OFFSET = SM4_RK.dec;
const SM4_KEY_OFFSET = SM4_RK.key;
/**
 * Groups of four blocks per pass of the main loop. One group alone is latency-bound (~27
 * dependent instructions per round); interleaving hides that. Measured on the 16 KiB CTR kernel
 * loop (MB/s, side by side): 1 group 150, 2: 290, 3: 380, 4: 470, 8: 460–520; with 8 the tail
 * passes of the same function got slower (a 16-byte call 497 ns instead of 402 ns, V8 spilling
 * more of the 17 v128 locals per group), so 4.
 */
export const SM4_DEFAULT_GROUPS = 4;

type Lines = string[];

// ---------------------------------------------------------------------------------------------
// Field arithmetic at generation time.

const POLY_SM4 = 0x1f5; // α^8 + α^7 + α^6 + α^5 + α^4 + α^2 + 1
const SM4_A_ROW = 0xa7;
const SM4_C = 0xd3;
const FK = [0xa3b1bac6, 0x56aa3350, 0x677d9197, 0xb27022dc];

function gf16Mul(a: number, b: number): number {
  let r = 0;
  for (let i = 0; i < 4; i++) {
    if ((b >> i) & 1) r ^= a << i;
  }
  for (let i = 7; i >= 4; i--) if ((r >> i) & 1) r ^= 0x13 << (i - 4);
  return r & 15;
}
const gf16Inv = (a: number): number => {
  for (let b = 1; b < 16; b++) if (gf16Mul(a, b) === 1) return b;
  throw new Error('gf16Inv(0)');
};

/** The tower constant a: t^2 + a·t + a has no root in GF(16); the smallest such a ≥ 2. */
function towerConstant(): number {
  for (let a = 2; a < 16; a++) {
    let root = false;
    for (let r = 0; r < 16; r++) if ((gf16Mul(r, r) ^ gf16Mul(a, r) ^ a) === 0) root = true;
    if (!root) return a;
  }
  throw new Error('no tower constant');
}
const TA = towerConstant();

/** Product in the tower: byte (i << 4) | k is i·t + k, t^2 = a·t + a. */
function towerMul(x: number, y: number): number {
  const [i1, k1, i2, k2] = [x >> 4, x & 15, y >> 4, y & 15];
  const ii = gf16Mul(gf16Mul(i1, i2), TA);
  const hi = ii ^ gf16Mul(i1, k2) ^ gf16Mul(k1, i2);
  const lo = ii ^ gf16Mul(k1, k2);
  return (hi << 4) | lo;
}

const parity = (v: number): number => {
  v ^= v >> 4;
  v ^= v >> 2;
  v ^= v >> 1;
  return v & 1;
};
const rotl8 = (v: number, n: number): number => ((v << n) | (v >> (8 - n))) & 0xff;
/** The SM4 affine matrix A (without the constant). */
const sm4A = (x: number): number => {
  let o = 0;
  for (let i = 0; i < 8; i++) o |= parity(rotl8(SM4_A_ROW, i) & x) << i;
  return o;
};

function polyMul(a: number, b: number): number {
  let r = 0;
  for (let i = 0; i < 8; i++) {
    if (b & 1) r ^= a;
    b >>= 1;
    a <<= 1;
    if (a & 0x100) a ^= POLY_SM4;
  }
  return r;
}
function polyInv(x: number): number {
  if (x === 0) return 0;
  for (let b = 1; b < 256; b++) if (polyMul(x, b) === 1) return b;
  throw new Error('polyInv');
}

/** The S-box from its algebraic definition (the generator's self-check). */
const sboxAlgebraic = (x: number): number => sm4A(polyInv(sm4A(x) ^ SM4_C)) ^ SM4_C;

/** φ: GF(2^8)/POLY_SM4 → tower, α ↦ β (a root of POLY_SM4 in the tower); as a 256-entry map. */
function isomorphism(): { phi: number[]; phiInv: number[] } {
  const pow = (b: number, e: number): number => {
    let r = 0x01; // tower 1 = 0·t + 1
    for (let i = 0; i < e; i++) r = towerMul(r, b);
    return r;
  };
  for (let beta = 2; beta < 256; beta++) {
    let v = 0;
    for (let e = 0; e <= 8; e++) if ((POLY_SM4 >> e) & 1) v ^= pow(beta, e);
    if (v !== 0) continue;
    const basis = Array.from({ length: 8 }, (_, e) => pow(beta, e));
    const phi = Array.from({ length: 256 }, (_, x) => basis.reduce((acc, b, e) => ((x >> e) & 1 ? acc ^ b : acc), 0));
    if (new Set(phi).size !== 256) continue;
    const phiInv = new Array<number>(256);
    phi.forEach((y, x) => (phiInv[y] = x));
    return { phi, phiInv };
  }
  throw new Error('no root of the SM4 field polynomial in the tower');
}

interface Tables {
  inLo: number[];
  inHi: number[];
  inv: number[];
  ak: number[];
  outU: number[];
  outV: number[];
}

const INF = 0x80;

function tables(): Tables {
  const { phi, phiInv } = isomorphism();
  const a = TA;
  const ia = gf16Inv(a);
  const ia2 = gf16Mul(ia, ia);
  const inLo = Array.from({ length: 16 }, (_, n) => phi[sm4A(n)] ^ phi[SM4_C]);
  const inHi = Array.from({ length: 16 }, (_, n) => phi[sm4A(n << 4)]);
  const inv = Array.from({ length: 16 }, (_, n) => (n === 0 ? INF : gf16Inv(n)));
  const ak = Array.from({ length: 16 }, (_, n) => (n === 0 ? INF : gf16Mul(a, gf16Inv(n))));
  // u = 1/io = (k + a·i)/N is the low coordinate; v = 1/jo = u + a·k/N;
  // high coordinate i/N = (u + (u + v)/a)/a = u·(1/a + 1/a^2) + v/a^2.
  const outU = Array.from({ length: 16 }, (_, n) => {
    if (n === 0) return 0;
    const u = gf16Inv(n);
    const hi = gf16Mul(u, ia ^ ia2);
    return sm4A(phiInv[(hi << 4) | u]);
  });
  const outV = Array.from({ length: 16 }, (_, n) => {
    if (n === 0) return 0;
    const v = gf16Inv(n);
    return sm4A(phiInv[gf16Mul(v, ia2) << 4]);
  });
  const t = { inLo, inHi, inv, ak, outU, outV };
  // Self-check: the lookup sequence below, with swizzle semantics (index ≥ 16 → 0), equals
  // Sbox(x) ⊕ 0xD3 for every byte.
  for (let x = 0; x < 256; x++) {
    if ((sboxLookups(t, x) ^ SM4_C) !== sboxAlgebraic(x)) throw new Error(`sm4 S-box tables wrong at ${x}`);
  }
  return t;
}

/** One byte through the kernel's lookup sequence (generation-time model of the emitted code). */
function sboxLookups(t: Tables, x: number): number {
  const swz = (table: number[], idx: number): number => (idx < 16 ? table[idx] : 0);
  const y = swz(t.inLo, x & 15) ^ swz(t.inHi, x >> 4);
  const k = y & 15;
  const i = y >> 4;
  const ak = swz(t.ak, k);
  const j = i ^ k;
  const iak = swz(t.inv, i) ^ ak;
  const jak = swz(t.inv, j) ^ ak;
  const io = swz(t.inv, iak) ^ j;
  const jo = swz(t.inv, jak) ^ i;
  return swz(t.outU, io) ^ swz(t.outV, jo);
}

const rotl32 = (x: number, n: number): number => ((x << n) | (x >>> (32 - n))) >>> 0;
const L = (b: number): number => (b ^ rotl32(b, 2) ^ rotl32(b, 10) ^ rotl32(b, 18) ^ rotl32(b, 24)) >>> 0;
const Lk = (b: number): number => (b ^ rotl32(b, 13) ^ rotl32(b, 23)) >>> 0;
const C4 = 0xd3d3d3d3;
/** The round-key adjustment for round i (see the opening comment). */
function rkAdjust(i: number): number {
  const d = (j: number): number => (Math.floor(j / 4) % 2 === 1 ? L(C4) : 0);
  return (d(i + 1) ^ d(i + 2) ^ d(i + 3)) >>> 0;
}
function ck(i: number, flags: Sm4Flags): number {
  let w = 0;
  for (let j = 0; j < 4; j++) w = (w << 8) | (((4 * i + j) * 7) & 0xff);
  if (flags.wrongCk && i === 5) w ^= 1;
  return w >>> 0;
}

// ---------------------------------------------------------------------------------------------
// Emission.

const i32 = (v: number): string => `i32.const ${v | 0}`;
const ROT24 = [1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12];

const CONSTS = ['kM', 'kInLo', 'kInHi', 'kInv', 'kAk', 'kU', 'kV', 'kR8', 'kR16', 'kR24', 'kBswap'];

function initConsts(t: Tables): Lines {
  return [
    'v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15', 'local.set $kM',
    v128Bytes(t.inLo), 'local.set $kInLo',
    v128Bytes(t.inHi), 'local.set $kInHi',
    v128Bytes(t.inv), 'local.set $kInv',
    v128Bytes(t.ak), 'local.set $kAk',
    v128Bytes(t.outU), 'local.set $kU',
    v128Bytes(t.outV), 'local.set $kV',
    v128Bytes(ROT8), 'local.set $kR8',
    v128Bytes(ROT16), 'local.set $kR16',
    v128Bytes(ROT24), 'local.set $kR24',
    v128Bytes(BSWAP), 'local.set $kBswap',
  ];
}

/** Temporaries of one group. */
// (names chosen apart from the GF(2^128) locals that a stitched pass declares beside them)
const temps = (g: number): string[] => ['t', 'u', 'i', 'k', 'j', 'ak', 'iak', 'jak', 'p'].map((n) => `${n}${g}`);

/**
 * The S-box (without its output constant) on the v128 in $t{g}; leaves the result on the stack.
 * (i8x16.swizzle pops the index, then the table: table[index].)
 */
function sbox(g: number): Lines {
  const [t, y, i, k, j, ak, iak, jak] = temps(g).map((n) => `$${n}`);
  return [
    ';; S-box: affine map into the tower (two nibble lookups)',
    'local.get $kInLo', `local.get ${t}`, 'local.get $kM', 'v128.and', 'i8x16.swizzle',
    'local.get $kInHi', `local.get ${t}`, 'i32.const 4', 'i16x8.shr_u', 'local.get $kM', 'v128.and', 'i8x16.swizzle',
    'v128.xor', `local.set ${y}`,
    `local.get ${y}`, 'local.get $kM', 'v128.and', `local.set ${k}`,
    `local.get ${y}`, 'i32.const 4', 'i16x8.shr_u', 'local.get $kM', 'v128.and', `local.set ${i}`,
    ';; inversion: a/k, 1/i ⊕ a/k, 1/j ⊕ a/k, then io, jo',
    'local.get $kAk', `local.get ${k}`, 'i8x16.swizzle', `local.set ${ak}`,
    `local.get ${i}`, `local.get ${k}`, 'v128.xor', `local.set ${j}`,
    'local.get $kInv', `local.get ${i}`, 'i8x16.swizzle', `local.get ${ak}`, 'v128.xor', `local.set ${iak}`,
    'local.get $kInv', `local.get ${j}`, 'i8x16.swizzle', `local.get ${ak}`, 'v128.xor', `local.set ${jak}`,
    ';; out = U[1/iak ⊕ j] ⊕ V[1/jak ⊕ i]',
    'local.get $kU', 'local.get $kInv', `local.get ${iak}`, 'i8x16.swizzle', `local.get ${j}`, 'v128.xor', 'i8x16.swizzle',
    'local.get $kV', 'local.get $kInv', `local.get ${jak}`, 'i8x16.swizzle', `local.get ${i}`, 'v128.xor', 'i8x16.swizzle',
    'v128.xor',
  ];
}

/**
 * One round on group g: X_{r+4} = X_r ⊕ L(S(X_{r+1} ⊕ X_{r+2} ⊕ X_{r+3} ⊕ rk_r)), written over
 * x{g}_{r mod 4}. Pairs of rounds share X_{r+2} ⊕ X_{r+3} (in $p{g}). rkOff: byte offset of
 * the splatted round key from $rkp.
 */
function round(g: number, r: number, rkOff: number, flags: Sm4Flags): Lines {
  const x = (j: number) => `$x${g}_${(r + j) % 4}`;
  const [t, , , , , , , , p] = temps(g).map((n) => `$${n}`);
  const [s, m, a] = [`$u${g}`, `$k${g}`, `$j${g}`]; // reuse temporaries after the S-box
  const rot = flags.rotOffByOne ? 3 : 2;
  const rk = ['local.get $rkp', `v128.load offset=${rkOff}`];
  // X_{r+3} is the newest word: it enters last, so one or two XORs sit on the round-to-round path
  const input =
    r % 2 === 0
      ? [`local.get ${x(1)}`, ...rk, 'v128.xor', `local.get ${x(2)}`, `local.get ${x(3)}`, 'v128.xor', `local.tee ${p}`, 'v128.xor']
      : [`local.get ${p}`, ...rk, 'v128.xor', `local.get ${x(3)}`, 'v128.xor'];
  return [
    `;; round ${r}, group ${g}`,
    ...input, `local.set ${t}`,
    ...sbox(g), `local.set ${s}`,
    ';; X_r ⊕ L(s) = (X_r ⊕ s ⊕ s<<<24) ⊕ (s ⊕ s<<<8 ⊕ s<<<16) <<< 2',
    `local.get ${x(0)}`, `local.get ${s}`, 'v128.xor', `local.get ${s}`, 'local.get $kR24', 'i8x16.swizzle', 'v128.xor', `local.set ${a}`,
    `local.get ${s}`, 'local.get $kR8', 'i8x16.swizzle', `local.get ${s}`, 'v128.xor',
    `local.get ${s}`, 'local.get $kR16', 'i8x16.swizzle', 'v128.xor', `local.set ${m}`,
    `local.get ${m}`, `i32.const ${rot}`, 'i32x4.shl', `local.get ${m}`, `i32.const ${32 - rot}`, 'i32x4.shr_u', 'v128.or',
    `local.get ${a}`, 'v128.xor', `local.set ${x(0)}`,
  ];
}

/**
 * Work woven into the round loop of a pass (a stitched pass): `pieces` go one after each group's
 * round in every iteration of the four-round loop (the same code each iteration: the pieces keep
 * their own counters), `iterationEnd` at the end of each iteration ($rkp still points at the
 * iteration's first round key).
 */
export interface Sm4Weave {
  pieces: Lines[];
  iterationEnd: Lines;
}

/** 32 rounds on groups 0…G-1: a loop of four rounds, with the round keys at $rkp, which it advances. */
function rounds(G: number, flags: Sm4Flags, weave?: Sm4Weave): Lines {
  const body = (r0: number, count: number, base: number): Lines => {
    const out: Lines = [];
    let k = 0;
    for (let r = r0; r < r0 + count; r++) {
      for (let g = 0; g < G; g++) {
        out.push(...round(g, r, (r - base) * 16, flags));
        if (weave && k < weave.pieces.length) out.push(...weave.pieces[k++]);
      }
    }
    while (weave && k < weave.pieces.length) out.push(...weave.pieces[k++]);
    return out;
  };
  // four rounds per iteration keep the state names in place (x_{r mod 4})
  return [
    'local.get $rk', 'local.set $rkp',
    'local.get $rk', 'i32.const 512', 'i32.add', 'local.set $rkEnd',
    'loop $rounds',
    ...indent([...body(0, 4, 0), ...(weave?.iterationEnd ?? [])], 2).split('\n'),
    '  local.get $rkp', '  i32.const 64', '  i32.add', '  local.tee $rkp',
    '  local.get $rkEnd', '  i32.lt_u', '  br_if $rounds',
    'end',
  ];
}

/**
 * Group g's output words in block order: the reversal R = (X35, X34, X33, X32), transposed
 * back to one block per v128 and byte-swapped; leaves blocks in $o{g}_0…3.
 */
function outputBlocks(g: number, flags: Sm4Flags): Lines {
  // after 32 rounds X32…X35 are in x_0…x_3
  const w = flags.skipReversal ? [0, 1, 2, 3] : [3, 2, 1, 0];
  const xw = (n: number) => `$x${g}_${w[n]}`;
  const sh = (a: string, b: string, pat: string) => [`local.get ${a}`, `local.get ${b}`, `i8x16.shuffle ${pat}`];
  const o = (b: number) => `$o${g}_${b}`;
  return [
    ...sh(xw(0), xw(1), LO32), `local.set ${o(0)}`,
    ...sh(xw(2), xw(3), LO32), `local.set ${o(1)}`,
    ...sh(xw(0), xw(1), HI32), `local.set ${o(2)}`,
    ...sh(xw(2), xw(3), HI32), `local.set ${o(3)}`,
    ...transposeTail(g),
  ];
}

/** Finish a 4×4 transpose started with unpack-lo/hi-32 into $o{g}_*: unpack-lo/hi-64, byte swap. */
function transposeTail(g: number): Lines {
  const o = (b: number) => `$o${g}_${b}`;
  const t = `$t${g}`;
  const y = `$u${g}`;
  // o0 = lo32(w0,w1) = (A0 A1 B0 B1), o1 = lo32(w2,w3) = (A2 A3 B2 B3) → block A = lo64(o0,o1), B = hi64(o0,o1)
  // o2 = hi32(w0,w1) = (C0 C1 D0 D1), o3 = hi32(w2,w3) = (C2 C3 D2 D3) → C = lo64(o2,o3), D = hi64(o2,o3)
  return [
    `local.get ${o(0)}`, `local.get ${o(1)}`, `i8x16.shuffle ${LO64}`, `local.set ${t}`,
    `local.get ${o(0)}`, `local.get ${o(1)}`, `i8x16.shuffle ${HI64}`, `local.set ${y}`,
    `local.get ${o(2)}`, `local.get ${o(3)}`, `i8x16.shuffle ${LO64}`, `local.set ${o(0)}`,
    `local.get ${o(2)}`, `local.get ${o(3)}`, `i8x16.shuffle ${HI64}`, 'local.get $kBswap', 'i8x16.swizzle', `local.set ${o(3)}`,
    `local.get ${o(0)}`, 'local.get $kBswap', 'i8x16.swizzle', `local.set ${o(2)}`,
    `local.get ${t}`, 'local.get $kBswap', 'i8x16.swizzle', `local.set ${o(0)}`,
    `local.get ${y}`, 'local.get $kBswap', 'i8x16.swizzle', `local.set ${o(1)}`,
  ];
}

/** Transpose group g's blocks in $o{g}_0…3 (already byte-swapped) into its state words. */
function transposeIn(g: number): Lines {
  const o = (b: number) => `$o${g}_${b}`;
  const x = (j: number) => `$x${g}_${j}`;
  const t = `$t${g}`;
  const y = `$u${g}`;
  // blocks A B C D → t = lo32(A,B) = (A0 B0 A1 B1), y = lo32(C,D) = (C0 D0 C1 D1) → w0 = lo64(t,y), w1 = hi64(t,y)
  return [
    `local.get ${o(0)}`, `local.get ${o(1)}`, `i8x16.shuffle ${LO32}`, `local.set ${t}`,
    `local.get ${o(2)}`, `local.get ${o(3)}`, `i8x16.shuffle ${LO32}`, `local.set ${y}`,
    `local.get ${t}`, `local.get ${y}`, `i8x16.shuffle ${LO64}`, `local.set ${x(0)}`,
    `local.get ${t}`, `local.get ${y}`, `i8x16.shuffle ${HI64}`, `local.set ${x(1)}`,
    `local.get ${o(0)}`, `local.get ${o(1)}`, `i8x16.shuffle ${HI32}`, `local.set ${t}`,
    `local.get ${o(2)}`, `local.get ${o(3)}`, `i8x16.shuffle ${HI32}`, `local.set ${y}`,
    `local.get ${t}`, `local.get ${y}`, `i8x16.shuffle ${LO64}`, `local.set ${x(2)}`,
    `local.get ${t}`, `local.get ${y}`, `i8x16.shuffle ${HI64}`, `local.set ${x(3)}`,
  ];
}

function groupLocals(G: number): string {
  const names: string[] = [];
  for (let g = 0; g < G; g++) {
    names.push(...[0, 1, 2, 3].map((j) => `x${g}_${j}`), ...[0, 1, 2, 3].map((j) => `o${g}_${j}`), ...temps(g));
  }
  return locals('v128', names);
}

const FUNCS: KernelFunction[] = [
  { name: 'sm4_expand', params: [['slot', 'i32']], publicParams: ['slot'] },
  { name: 'sm4_ecb', params: [['rk', 'i32'], ['src', 'i32'], ['dst', 'i32'], ['n', 'i32']], publicParams: ['rk', 'src', 'dst', 'n'] },
  {
    name: 'sm4_ctr32',
    params: [['rk', 'i32'], ['ctr', 'i32'], ['src', 'i32'], ['dst', 'i32'], ['n', 'i32'], ['ks', 'i32']],
    publicParams: ['rk', 'ctr', 'src', 'dst', 'n', 'ks'],
  },
];

/**
 * The functions of the SM4 kernel as WAT text (sm4_expand, sm4_ctr32, sm4_ecb), for the 'sm4'
 * module (src/kernels/sm4_gcm.ts), which adds the GCM mode around them.
 */
export function sm4Functions(flags: Sm4Flags = {}, options: Sm4Options = {}): { functions: string[]; exports: KernelFunction[] } {
  const G = options.groups ?? SM4_DEFAULT_GROUPS;
  const t = tables();
  const consts = locals('v128', CONSTS);

  // ---- key expansion -------------------------------------------------------------------------
  // A loop over i = 0…31 (public). CK_i's bytes are (4i + j)·7 mod 256: each byte of CK_{i+1} is
  // the same byte of CK_i plus 28 (i8x16.add). The round-key adjustment is K = L(0xD3D3D3D3) for
  // i mod 8 in {1, 3, 4, 6}: bit (i mod 8) of 0x5A.
  const K = L(C4);
  for (let i = 0; i < 32; i++) if (rkAdjust(i) !== (((0x5a >> (i & 7)) & 1) ? K : 0)) throw new Error('rkAdjust pattern');
  const expand: Lines = [
    ...initConsts(t),
    'local.get $slot', `v128.load offset=${SM4_KEY_OFFSET}`, 'local.get $kBswap', 'i8x16.swizzle', 'local.set $t0',
    ...[0, 1, 2, 3].flatMap((j) => ['local.get $t0', `i32x4.extract_lane ${j}`, i32(FK[j]), 'i32.xor', `local.set $mk${j}`]),
    `v128.const i32x4 ${ck(0, {})} 0 0 0`, 'local.set $ck',
    'i32.const 0', 'local.set $i',
    'loop $rounds',
    ...indent([
      ";; rk_i = K_{i+4} = K_i ⊕ L'(τ(K_{i+1} ⊕ K_{i+2} ⊕ K_{i+3} ⊕ CK_i))",
      'local.get $mk1', 'local.get $mk2', 'i32.xor', 'local.get $mk3', 'i32.xor',
      'local.get $ck', 'i32x4.extract_lane 0', 'i32.xor',
      ...(flags.wrongCk ? ['local.get $i', 'i32.const 5', 'i32.eq', 'i32.xor'] : []),
      'i32x4.splat', 'local.set $t0',
      ...sbox(0),
      'i32x4.extract_lane 0', 'local.tee $w',
      'local.get $w', 'i32.const 13', 'i32.rotl', 'i32.xor',
      'local.get $w', 'i32.const 23', 'i32.rotl', 'i32.xor',
      ";; the S-box constant through L': L'(0xD3D3D3D3)",
      i32(Lk(C4)), 'i32.xor',
      'local.get $mk0', 'i32.xor', 'local.set $w',
      'local.get $mk1', 'local.set $mk0', 'local.get $mk2', 'local.set $mk1', 'local.get $mk3', 'local.set $mk2', 'local.get $w', 'local.set $mk3',
      ';; stored adjusted (see the opening comment), splatted, in both orders',
      'local.get $w',
      i32(K), 'i32.const 0', 'i32.const 0x5a', 'local.get $i', 'i32.const 7', 'i32.and', 'i32.shr_u', 'i32.const 1', 'i32.and', 'select',
      'i32.xor', 'i32x4.splat', 'local.set $t0',
      'local.get $slot', 'local.get $i', 'i32.const 4', 'i32.shl', 'i32.add', 'local.get $t0', 'v128.store',
      'local.get $slot', 'i32.const 31', 'local.get $i', 'i32.sub', 'i32.const 4', 'i32.shl', 'i32.add', 'local.get $t0', `v128.store offset=${SM4_DEC_OFFSET}`,
      'local.get $ck', 'v128.const i8x16 28 28 28 28 28 28 28 28 28 28 28 28 28 28 28 28', 'i8x16.add', 'local.set $ck',
      'local.get $i', 'i32.const 1', 'i32.add', 'local.tee $i', 'i32.const 32', 'i32.lt_u', 'br_if $rounds',
    ], 2).split('\n'),
    'end',
    ';; the raw key is no longer needed',
    'local.get $slot', 'v128.const i64x2 0 0', `v128.store offset=${SM4_KEY_OFFSET}`,
  ];
  const expandFn = [
    `(func $sm4_expand (export "sm4_expand") ${paramDecl(FUNCS[0])} ${locals('i32', ['mk0', 'mk1', 'mk2', 'mk3', 'w', 'i'])} ${locals('v128', [...temps(0), 'ck'])} ${consts}`,
    indent(expand),
    ')',
  ];

  // ---- passes ----------------------------------------------------------------------------------
  // A pass runs g groups (4g blocks) through the 32 rounds. The main loop runs whole passes of G
  // groups while at least 4G blocks are left; the 0…4G−1 that remain go through one pass of the
  // smallest size in `sizes` (G, G/2, …, 1 groups) that holds them. Blocks of a tail pass at index
  // ≥ `guard` are loaded/stored only when `n` (a public count) says they exist. (Guarding the main
  // loop's stores instead of a separate tail pass measured 30% slower with 8 groups: 368 vs 531 MB/s.)
  const sizes = [G];
  while (sizes[sizes.length - 1] > 1) sizes.push(Math.max(1, sizes[sizes.length - 1] >> 1));
  const ifMore = (b: number, body: Lines): Lines => [`local.get $n`, i32(b), 'i32.gt_u', 'if', ...indent(body, 2).split('\n'), 'end'];

  const advance = (groups: number): Lines => [
    'local.get $src', i32(64 * groups), 'i32.add', 'local.set $src',
    'local.get $dst', i32(64 * groups), 'i32.add', 'local.set $dst',
    'local.get $n', i32(4 * groups), 'i32.sub', 'local.set $n',
  ];
  /** The main loop and the tail, around a pass generator. */
  const passes = (pass: (groups: number, guard: number) => Lines, step: Lines): Lines => {
    const out: Lines = [
      'block $end',
      'block $tail',
      '  loop $main',
      `    local.get $n`, `    ${i32(4 * G)}`, '    i32.lt_u', '    br_if $tail',
      ...indent([...pass(G, 4 * G), ...step, ...advance(G)], 4).split('\n'),
      '    br $main',
      '  end',
      'end',
      `;; 0 … ${4 * G - 1} blocks left: one pass of the smallest size that holds them`,
    ];
    const chain = (k: number): Lines => {
      const g = sizes[k];
      const body = pass(g, g === 1 ? 1 : 2 * g + 1);
      if (k === sizes.length - 1) return ['local.get $n', 'i32.eqz', 'br_if $end', ...body];
      return ['local.get $n', i32(2 * g), 'i32.gt_u', 'if', ...indent(body, 2).split('\n'), '  br $end', 'end', ...chain(k + 1)];
    };
    out.push(...chain(0), 'end');
    return out;
  };

  // Counter mode: 4G counter blocks at a time written to the keystream buffer ks (IO area),
  // encrypted in place by sm4_ecb (one pass), XORed into dst; ks is wiped at the end.
  const B = 4 * G;
  const ctr: Lines = [
    'local.get $ctr', 'v128.load', 'local.get $kBswap', 'i8x16.swizzle', 'local.set $c',
    'local.get $c', 'i32x4.extract_lane 3', 'local.set $c3',
    ';; the counter after this call: word 3 plus n (mod 2^32, inc_32 of SP 800-38D)',
    'local.get $ctr', 'local.get $c', 'local.get $c3', 'local.get $n', 'i32.add', 'i32x4.replace_lane 3', 'local.get $kBswap', 'i8x16.swizzle', 'v128.store',
    'block $done',
    '  loop $chunk',
    '    local.get $n', '    i32.eqz', '    br_if $done',
    ...indent([
      ...Array.from({ length: B }, (_, j) => [
        'local.get $ks', 'local.get $c', 'local.get $c3', i32(j), 'i32.add', 'i32x4.replace_lane 3', 'local.get $kBswap', 'i8x16.swizzle', `v128.store offset=${16 * j}`,
      ]).flat(),
      `;; count = min(n, ${B})`,
      'local.get $n', i32(B), 'local.get $n', i32(B), 'i32.lt_u', 'select', 'local.set $m',
      'local.get $rk', 'local.get $ks', 'local.get $ks', 'local.get $m', 'call $sm4_ecb',
      'i32.const 0', 'local.set $j',
      'loop $xor',
      '  local.get $dst', '  local.get $j', '  i32.add',
      '  local.get $src', '  local.get $j', '  i32.add', '  v128.load',
      '  local.get $ks', '  local.get $j', '  i32.add', '  v128.load',
      '  v128.xor', '  v128.store',
      '  local.get $j', '  i32.const 16', '  i32.add', '  local.tee $j',
      '  local.get $m', '  i32.const 4', '  i32.shl', '  i32.lt_u', '  br_if $xor',
      'end',
      'local.get $c3', 'local.get $m', 'i32.add', 'local.set $c3',
      'local.get $src', i32(16 * B), 'i32.add', 'local.set $src',
      'local.get $dst', i32(16 * B), 'i32.add', 'local.set $dst',
      'local.get $n', 'local.get $m', 'i32.sub', 'local.set $n',
    ], 4).split('\n'),
    '    br $chunk',
    '  end',
    'end',
    'local.get $ks', 'i32.const 0', i32(16 * B), 'memory.fill',
  ];
  const ctrFn = [
    `(func $sm4_ctr32 (export "sm4_ctr32") ${paramDecl(FUNCS[2])} ${locals('i32', ['c3', 'm', 'j'])} ${locals('v128', ['c'])} (local $kBswap v128)`,
    indent([v128Bytes(BSWAP), 'local.set $kBswap', ...ctr]),
    ')',
  ];

  // ECB: blocks in, blocks out (the round keys in either order).
  const ecbPass = (groups: number, guard: number): Lines => {
    const out: Lines = [];
    for (let g = 0; g < groups; g++) {
      const loads: Lines = [];
      for (let b = 0; b < 4; b++) {
        const ld = ['local.get $src', `v128.load offset=${64 * g + 16 * b}`, 'local.get $kBswap', 'i8x16.swizzle', `local.set $o${g}_${b}`];
        if (4 * g + b >= guard) loads.push('v128.const i64x2 0 0', `local.set $o${g}_${b}`, ...ifMore(4 * g + b, ld));
        else loads.push(...ld);
      }
      out.push(...loads, ...transposeIn(g));
    }
    out.push(...rounds(groups, flags));
    for (let g = 0; g < groups; g++) {
      out.push(...outputBlocks(g, flags));
      for (let b = 0; b < 4; b++) {
        const st = ['local.get $dst', `local.get $o${g}_${b}`, `v128.store offset=${64 * g + 16 * b}`];
        out.push(...(4 * g + b >= guard ? ifMore(4 * g + b, st) : st));
      }
    }
    return out;
  };
  const ecbFn = [
    `(func $sm4_ecb (export "sm4_ecb") ${paramDecl(FUNCS[1])} ${locals('i32', ['rkp', 'rkEnd'])} ${groupLocals(G)} ${consts}`,
    indent([...initConsts(t), ...passes(ecbPass, [])]),
    ')',
  ];

  return { functions: [expandFn.join('\n'), ctrFn.join('\n'), ecbFn.join('\n')], exports: FUNCS };
}

/** Work stitched into one pass (see sm4PassFunc). */
export interface Sm4Stitch {
  /** extra parameter declarations after (rk, src) */
  params: string;
  locals: string;
  /** before the blocks are loaded */
  prologue: Lines;
  weave: Sm4Weave;
  /** after the rounds, before the blocks are stored */
  epilogue: Lines;
}

/**
 * `$name(rk, src, …)`: encrypt the 4·G blocks at src in place in one pass (no tail handling),
 * with `stitch` woven into the round loop: a second, independent instruction stream (the GCM
 * hash) that the core runs beside the SIMD rounds.
 */
export function sm4PassFunc(name: string, stitch: Sm4Stitch, flags: Sm4Flags = {}, options: Sm4Options = {}): string {
  const G = options.groups ?? SM4_DEFAULT_GROUPS;
  const t = tables();
  const body: Lines = [
    ...initConsts(t),
    'local.get $src', 'local.set $dst',
    ...stitch.prologue,
    ...Array.from({ length: G }, (_, g) => [
      ...[0, 1, 2, 3].flatMap((b) => ['local.get $src', `v128.load offset=${64 * g + 16 * b}`, 'local.get $kBswap', 'i8x16.swizzle', `local.set $o${g}_${b}`]),
      ...transposeIn(g),
    ]).flat(),
    ...rounds(G, flags, stitch.weave),
    ...stitch.epilogue,
    ...Array.from({ length: G }, (_, g) => [
      ...outputBlocks(g, flags),
      ...[0, 1, 2, 3].flatMap((b) => ['local.get $dst', `local.get $o${g}_${b}`, `v128.store offset=${64 * g + 16 * b}`]),
    ]).flat(),
  ];
  return [
    `(func $${name} (param $rk i32) (param $src i32) ${stitch.params} ${locals('i32', ['dst', 'rkp', 'rkEnd'])} ${groupLocals(G)} ${locals('v128', CONSTS)} ${stitch.locals}`,
    indent(body),
    ')',
  ].join('\n');
}

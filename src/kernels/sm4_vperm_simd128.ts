// SM4 (GB/T 32907-2016) over SIMD128 with a vector-permute S-box: the SM4 functions of the 'sm4'
// module (sm4_gcm.ts adds GCM around them).
//
// Technique: the S-box is affine-equivalent to inversion in GF(2^8), Sbox(x) = A·inv(A·x ⊕ 0xD3)
// ⊕ 0xD3. The inversion moves by a field isomorphism into the tower GF(16)[t]/(t² + a·t + a),
// where it is a few nibble-indexed i8x16.swizzle lookups on 16 bytes at once (Hamburg's
// vector-permute inversion, CHES 2009); 1/0 is an index ≥ 16, which swizzle maps to 0, carrying
// every zero-divisor case to the right answer. The generator checks all 256 inputs against the
// algebraic definition before it emits anything. The output constant is moved into the round
// keys (rk'_i = rk_i ⊕ d_{i+1} ⊕ d_{i+2} ⊕ d_{i+3}). Four blocks per group, one v128 per state
// word (its lanes the blocks); L is three byte-rotation swizzles, one rotation and four XORs;
// four groups per pass for instruction-level parallelism across the serial round chain.
//
// Why constant time: no memory access depends on data (round keys at fixed offsets); every
// secret-dependent lookup is an i8x16.swizzle of a constant table by the data (vpaddusb and
// vpshufb on registers); the loops count public block numbers.
//
// Cost per round and group of four blocks: 9 data-indexed swizzles, 3 constant ones and ~26
// other SIMD operations; ~470–500 MB/s of CTR on 16 KiB. Measurements: docs/kernels/sm4.md.
//
// Round keys (SM4_RK, sm4_layout.ts): [0, 512) the 32 adjusted encryption keys, each splatted to
// 16 bytes; [512, 1024) the same in decryption order; [1024, 1040) the raw key (zeroed by
// sm4_expand). Negative-control flags (tests only) produce deliberately broken variants.

import { SM4_RK } from './sm4_layout.js';
import { type Expr, Func, type Local, type Params, type Stmt, type Val, block, br, br_if, call, comment, i32, i32x4, i16x8, i8x16, if_, label, loop, memory, select, v128 } from './builder/index.js';
import { BSWAP32 as BSWAP, ROTL16_32 as ROT16, ROTL8_32 as ROT8, SHUF_HI32 as HI32, SHUF_HI64 as HI64, SHUF_LO32 as LO32, SHUF_LO64 as LO64 } from './builder/lanes.js';

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

// ---------------------------------------------------------------------------------------------
// Field arithmetic at generation time.

export const POLY_SM4 = 0x1f5; // α^8 + α^7 + α^6 + α^5 + α^4 + α^2 + 1
const SM4_A_ROW = 0xa7;
export const SM4_C = 0xd3;
export const FK = [0xa3b1bac6, 0x56aa3350, 0x677d9197, 0xb27022dc];

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
export const sboxAlgebraic = (x: number): number => sm4A(polyInv(sm4A(x) ^ SM4_C)) ^ SM4_C;

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
export function ck(i: number, flags: Sm4Flags): number {
  let w = 0;
  for (let j = 0; j < 4; j++) w = (w << 8) | (((4 * i + j) * 7) & 0xff);
  if (flags.wrongCk && i === 5) w ^= 1;
  return w >>> 0;
}

// ---------------------------------------------------------------------------------------------
// Emission.

const ROT24 = [1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12];

const CONSTS = ['kM', 'kInLo', 'kInHi', 'kInv', 'kAk', 'kU', 'kV', 'kR8', 'kR16', 'kR24', 'kBswap'] as const;
type Consts = Record<(typeof CONSTS)[number], Local<'v128'>>;

/** The constant vectors as locals of f (declared in this order). */
function consts(f: Func): Consts {
  return Object.fromEntries(CONSTS.map((n) => [n, f.v128(n)])) as Consts;
}

function initConsts(k: Consts, t: Tables): Stmt[] {
  return [
    k.kM.set(v128.i8x16(Array(16).fill(15))),
    k.kInLo.set(v128.bytes(t.inLo)),
    k.kInHi.set(v128.bytes(t.inHi)),
    k.kInv.set(v128.bytes(t.inv)),
    k.kAk.set(v128.bytes(t.ak)),
    k.kU.set(v128.bytes(t.outU)),
    k.kV.set(v128.bytes(t.outV)),
    k.kR8.set(v128.bytes(ROT8)),
    k.kR16.set(v128.bytes(ROT16)),
    k.kR24.set(v128.bytes(ROT24)),
    k.kBswap.set(v128.bytes(BSWAP)),
  ];
}

/** Temporaries of group g (names apart from the GF(2^128) locals a stitched pass declares beside them). */
const TEMPS = ['t', 'u', 'i', 'k', 'j', 'ak', 'iak', 'jak', 'p'];
const temps = (f: Func, g: number) => TEMPS.map((n) => f.v128(`${n}${g}`));
/** The state words x{g}_j and the blocks o{g}_b of group g. */
const words = (f: Func, g: number) => [0, 1, 2, 3].map((j) => f.v128(`x${g}_${j}`));
const blocks = (f: Func, g: number) => [0, 1, 2, 3].map((b) => f.v128(`o${g}_${b}`));

/** Declares the locals of groups 0 … G−1: per group its words, blocks and temporaries. */
function groupLocals(f: Func, G: number): void {
  for (let g = 0; g < G; g++) {
    words(f, g);
    blocks(f, g);
    temps(f, g);
  }
}

/**
 * The S-box (without its output constant) on the v128 in t{g}: the statements, and the result.
 * (i8x16.swizzle(table, index) is table[index].)
 */
function sbox(f: Func, k: Consts, g: number): [Stmt[], Expr<'v128'>] {
  const [t, y, i, kk, j, ak, iak, jak] = temps(f, g);
  return [
    [
      comment('S-box: affine map into the tower (two nibble lookups)'),
      y.set(v128.xor(i8x16.swizzle(k.kInLo, v128.and(t, k.kM)), i8x16.swizzle(k.kInHi, v128.and(i16x8.shr_u(t, 4), k.kM)))),
      kk.set(v128.and(y, k.kM)),
      i.set(v128.and(i16x8.shr_u(y, 4), k.kM)),
      comment('inversion: a/k, 1/i ⊕ a/k, 1/j ⊕ a/k, then io, jo'),
      ak.set(i8x16.swizzle(k.kAk, kk)),
      j.set(v128.xor(i, kk)),
      iak.set(v128.xor(i8x16.swizzle(k.kInv, i), ak)),
      jak.set(v128.xor(i8x16.swizzle(k.kInv, j), ak)),
      comment('out = U[1/iak ⊕ j] ⊕ V[1/jak ⊕ i]'),
    ],
    v128.xor(i8x16.swizzle(k.kU, v128.xor(i8x16.swizzle(k.kInv, iak), j)), i8x16.swizzle(k.kV, v128.xor(i8x16.swizzle(k.kInv, jak), i))),
  ];
}

/**
 * One round on group g: X_{r+4} = X_r ⊕ L(S(X_{r+1} ⊕ X_{r+2} ⊕ X_{r+3} ⊕ rk_r)), written over
 * x{g}_{r mod 4}. Pairs of rounds share X_{r+2} ⊕ X_{r+3} (in p{g}). rkOff: byte offset of the
 * splatted round key from rkp.
 */
function round(f: Func, k: Consts, g: number, r: number, rkOff: number, flags: Sm4Flags): Stmt[] {
  const xs = words(f, g);
  const x = (j: number) => xs[(r + j) % 4];
  const tt = temps(f, g);
  const [t, p] = [tt[0], tt[8]];
  const [s, m, a] = [tt[1], tt[3], tt[4]]; // temporaries reused after the S-box
  const rot = flags.rotOffByOne ? 3 : 2;
  const rk = v128.load(f.i32('rkp'), rkOff);
  // X_{r+3} is the newest word: it enters last, so one or two XORs sit on the round-to-round path
  const input = r % 2 === 0 ? v128.xor(v128.xor(x(1), rk), p.tee(v128.xor(x(2), x(3)))) : v128.xor(v128.xor(p, rk), x(3));
  const [sb, sv] = sbox(f, k, g);
  return [
    comment(`round ${r}, group ${g}`),
    t.set(input),
    ...sb,
    s.set(sv),
    comment('X_r ⊕ L(s) = (X_r ⊕ s ⊕ s<<<24) ⊕ (s ⊕ s<<<8 ⊕ s<<<16) <<< 2'),
    a.set(v128.xor(v128.xor(x(0), s), i8x16.swizzle(s, k.kR24))),
    m.set(v128.xor(v128.xor(i8x16.swizzle(s, k.kR8), s), i8x16.swizzle(s, k.kR16))),
    x(0).set(v128.xor(v128.or(i32x4.shl(m, rot), i32x4.shr_u(m, 32 - rot)), a)),
  ];
}

/**
 * Work woven into the round loop of a pass (a stitched pass): `pieces` go one after each group's
 * round in every iteration of the four-round loop (the same code each iteration: the pieces keep
 * their own counters), `iterationEnd` at the end of each iteration (rkp still points at the
 * iteration's first round key).
 */
export interface Sm4Weave {
  pieces: Stmt[][];
  iterationEnd: Stmt[];
}

/** 32 rounds on groups 0…G-1: a loop of four rounds, with the round keys at rkp, which it advances. */
function rounds(f: Func, k: Consts, G: number, flags: Sm4Flags, weave?: Sm4Weave): Stmt[] {
  const [rk, rkp, rkEnd] = [f.i32('rk'), f.i32('rkp'), f.i32('rkEnd')];
  const body: Stmt[] = [];
  let n = 0;
  for (let r = 0; r < 4; r++) {
    for (let g = 0; g < G; g++) {
      body.push(...round(f, k, g, r, r * 16, flags));
      if (weave && n < weave.pieces.length) body.push(...weave.pieces[n++]);
    }
  }
  while (weave && n < weave.pieces.length) body.push(...weave.pieces[n++]);
  // four rounds per iteration keep the state names in place (x_{r mod 4})
  const lp = label('rounds');
  return [rkp.set(rk), rkEnd.set(i32.add(rk, 512)), loop(lp, body, weave?.iterationEnd ?? [], br_if(lp, i32.lt_u(rkp.tee(i32.add(rkp, 64)), rkEnd)))];
}

/**
 * Group g's output words in block order: the reversal R = (X35, X34, X33, X32), transposed
 * back to one block per v128 and byte-swapped; leaves the blocks in o{g}_0…3.
 */
function outputBlocks(f: Func, k: Consts, g: number, flags: Sm4Flags): Stmt[] {
  // after 32 rounds X32…X35 are in x_0…x_3
  const xs = words(f, g);
  const w = (flags.skipReversal ? [0, 1, 2, 3] : [3, 2, 1, 0]).map((j) => xs[j]);
  const o = blocks(f, g);
  const [t, y] = temps(f, g);
  // o0 = lo32(w0,w1) = (A0 A1 B0 B1), o1 = lo32(w2,w3) = (A2 A3 B2 B3) → block A = lo64(o0,o1), B = hi64(o0,o1)
  // o2 = hi32(w0,w1) = (C0 C1 D0 D1), o3 = hi32(w2,w3) = (C2 C3 D2 D3) → C = lo64(o2,o3), D = hi64(o2,o3)
  return [
    o[0].set(i8x16.shuffle(w[0], w[1], LO32)),
    o[1].set(i8x16.shuffle(w[2], w[3], LO32)),
    o[2].set(i8x16.shuffle(w[0], w[1], HI32)),
    o[3].set(i8x16.shuffle(w[2], w[3], HI32)),
    t.set(i8x16.shuffle(o[0], o[1], LO64)),
    y.set(i8x16.shuffle(o[0], o[1], HI64)),
    o[0].set(i8x16.shuffle(o[2], o[3], LO64)),
    o[3].set(i8x16.swizzle(i8x16.shuffle(o[2], o[3], HI64), k.kBswap)),
    o[2].set(i8x16.swizzle(o[0], k.kBswap)),
    o[0].set(i8x16.swizzle(t, k.kBswap)),
    o[1].set(i8x16.swizzle(y, k.kBswap)),
  ];
}

/** Transpose group g's blocks in o{g}_0…3 (already byte-swapped) into its state words. */
function transposeIn(f: Func, g: number): Stmt[] {
  const o = blocks(f, g);
  const x = words(f, g);
  const [t, y] = temps(f, g);
  // blocks A B C D → t = lo32(A,B) = (A0 B0 A1 B1), y = lo32(C,D) = (C0 D0 C1 D1) → w0 = lo64(t,y), w1 = hi64(t,y)
  return [
    t.set(i8x16.shuffle(o[0], o[1], LO32)),
    y.set(i8x16.shuffle(o[2], o[3], LO32)),
    x[0].set(i8x16.shuffle(t, y, LO64)),
    x[1].set(i8x16.shuffle(t, y, HI64)),
    t.set(i8x16.shuffle(o[0], o[1], HI32)),
    y.set(i8x16.shuffle(o[2], o[3], HI32)),
    x[2].set(i8x16.shuffle(t, y, LO64)),
    x[3].set(i8x16.shuffle(t, y, HI64)),
  ];
}

/** Group g's four blocks at src + 64g, byte-swapped into o{g}_*. */
const loadBlock = (f: Func, k: Consts, src: Val<'i32'>, g: number, b: number) => blocks(f, g)[b].set(i8x16.swizzle(v128.load(src, 64 * g + 16 * b), k.kBswap));

export interface Sm4Functions {
  expand: Func;
  ctr32: Func;
  ecb: Func;
  /** in module order */
  functions: Func[];
}

/**
 * The functions of the SM4 kernel (sm4_expand, sm4_ctr32, sm4_ecb), for the 'sm4' module
 * (src/kernels/sm4_gcm.ts), which adds the GCM mode around them.
 */
export function sm4Functions(flags: Sm4Flags = {}, options: Sm4Options = {}): Sm4Functions {
  const G = options.groups ?? SM4_DEFAULT_GROUPS;
  const t = tables();

  // ---- key expansion -------------------------------------------------------------------------
  // A loop over i = 0…31 (public). CK_i's bytes are (4i + j)·7 mod 256: each byte of CK_{i+1} is
  // the same byte of CK_i plus 28 (i8x16.add). The round-key adjustment is K = L(0xD3D3D3D3) for
  // i mod 8 in {1, 3, 4, 6}: bit (i mod 8) of 0x5A.
  const K = L(C4);
  for (let i = 0; i < 32; i++) if (rkAdjust(i) !== ((0x5a >> (i & 7)) & 1 ? K : 0)) throw new Error('rkAdjust pattern');
  const expand = new Func('sm4_expand', { slot: 'i32' }, { export: true, public: 'all' });
  {
    const f = expand,
      { slot } = f.p;
    const [mk0, mk1, mk2, mk3, w, i] = f.locals('i32', ['mk0', 'mk1', 'mk2', 'mk3', 'w', 'i']);
    const mk = [mk0, mk1, mk2, mk3];
    const t0 = temps(f, 0)[0];
    const ckv = f.v128('ck');
    const k = consts(f);
    const [sb, sv] = sbox(f, k, 0);
    const lp = label('rounds');
    f.emit(
      initConsts(k, t),
      t0.set(i8x16.swizzle(v128.load(slot, SM4_KEY_OFFSET), k.kBswap)),
      mk.map((m, j) => m.set(i32.xor(i32x4.extract_lane(t0, j), FK[j] | 0))),
      ckv.set(v128.i32x4([ck(0, {}), 0, 0, 0])),
      i.set(0),
      loop(
        lp,
        comment("rk_i = K_{i+4} = K_i ⊕ L'(τ(K_{i+1} ⊕ K_{i+2} ⊕ K_{i+3} ⊕ CK_i))"),
        t0.set(i32x4.splat(flags.wrongCk ? i32.xor(mk1, mk2, mk3, i32x4.extract_lane(ckv, 0), i32.eq(i, 5)) : i32.xor(mk1, mk2, mk3, i32x4.extract_lane(ckv, 0)))),
        sb,
        comment("the S-box constant through L': L'(0xD3D3D3D3)"),
        w.set(i32.xor(w.tee(i32x4.extract_lane(sv, 0)), i32.rotl(w, 13), i32.rotl(w, 23), Lk(C4) | 0, mk0)),
        mk0.set(mk1),
        mk1.set(mk2),
        mk2.set(mk3),
        mk3.set(w),
        comment('stored adjusted (see the opening comment), splatted, in both orders'),
        t0.set(i32x4.splat(i32.xor(w, select(K | 0, 0, i32.and(i32.shr_u(i32.const(0x5a, true), i32.and(i, 7)), 1))))),
        v128.store(i32.add(slot, i32.shl(i, 4)), t0),
        v128.store(i32.add(slot, i32.shl(i32.sub(31, i), 4)), t0, SM4_DEC_OFFSET),
        ckv.set(i8x16.add(ckv, v128.i8x16(Array(16).fill(28)))),
        br_if(lp, i32.lt_u(i.tee(i32.add(i, 1)), 32)),
      ),
      comment('the raw key is no longer needed'),
      v128.store(slot, v128.zero(), SM4_KEY_OFFSET),
    );
  }

  // ---- passes ----------------------------------------------------------------------------------
  // A pass runs g groups (4g blocks) through the 32 rounds. The main loop runs whole passes of G
  // groups while at least 4G blocks are left; the 0…4G−1 that remain go through one pass of the
  // smallest size in `sizes` (G, G/2, …, 1 groups) that holds them. Blocks of a tail pass at index
  // ≥ `guard` are loaded/stored only when `n` (a public count) says they exist. (Guarding the main
  // loop's stores instead of a separate tail pass measured 30% slower with 8 groups: 368 vs 531 MB/s.)
  const sizes = [G];
  while (sizes[sizes.length - 1] > 1) sizes.push(Math.max(1, sizes[sizes.length - 1] >> 1));

  const ecb = new Func('sm4_ecb', { rk: 'i32', src: 'i32', dst: 'i32', n: 'i32' }, { export: true, public: 'all' });
  const ctr32 = new Func('sm4_ctr32', { rk: 'i32', ctr: 'i32', src: 'i32', dst: 'i32', n: 'i32', ks: 'i32' }, { export: true, public: 'all' });

  // Counter mode: 4G counter blocks at a time written to the keystream buffer ks (IO area),
  // encrypted in place by sm4_ecb (one pass), XORed into dst; ks is wiped at the end.
  {
    const f = ctr32,
      { rk, ctr, src, dst, n, ks } = f.p;
    const B = 4 * G;
    const [c3, m, j] = f.locals('i32', ['c3', 'm', 'j']);
    const c = f.v128('c');
    const kBswap = f.v128('kBswap');
    const [done, chunk, xr] = [label('done'), label('chunk'), label('xor')];
    f.emit(
      kBswap.set(v128.bytes(BSWAP)),
      c.set(i8x16.swizzle(v128.load(ctr), kBswap)),
      c3.set(i32x4.extract_lane(c, 3)),
      comment('the counter after this call: word 3 plus n (mod 2^32, inc_32 of SP 800-38D)'),
      v128.store(ctr, i8x16.swizzle(i32x4.replace_lane(c, 3, i32.add(c3, n)), kBswap)),
      block(
        done,
        loop(
          chunk,
          br_if(done, i32.eqz(n)),
          Array.from({ length: B }, (_, b) => v128.store(ks, i8x16.swizzle(i32x4.replace_lane(c, 3, i32.add(c3, b)), kBswap), 16 * b)),
          comment(`count = min(n, ${B})`),
          m.set(select(n, B, i32.lt_u(n, B))),
          call(ecb, rk, ks, ks, m),
          j.set(0),
          loop(xr, v128.store(i32.add(dst, j), v128.xor(v128.load(i32.add(src, j)), v128.load(i32.add(ks, j)))), br_if(xr, i32.lt_u(j.tee(i32.add(j, 16)), i32.shl(m, 4)))),
          c3.set(i32.add(c3, m)),
          src.set(i32.add(src, 16 * B)),
          dst.set(i32.add(dst, 16 * B)),
          n.set(i32.sub(n, m)),
          br(chunk),
        ),
      ),
      memory.fill(ks, 0, 16 * B),
    );
  }

  // ECB: blocks in, blocks out (the round keys in either order).
  {
    const f = ecb,
      { src, dst, n } = f.p;
    f.locals('i32', ['rkp', 'rkEnd']);
    groupLocals(f, G);
    const k = consts(f);
    const ifMore = (b: number, body: Stmt[]): Stmt => if_(i32.gt_u(n, b), body);
    const advance = (groups: number): Stmt[] => [src.set(i32.add(src, 64 * groups)), dst.set(i32.add(dst, 64 * groups)), n.set(i32.sub(n, 4 * groups))];
    const pass = (groups: number, guard: number): Stmt[] => {
      const out: Stmt[] = [];
      for (let g = 0; g < groups; g++) {
        for (let b = 0; b < 4; b++) {
          const ld = loadBlock(f, k, src, g, b);
          if (4 * g + b >= guard) out.push(blocks(f, g)[b].set(v128.zero()), ifMore(4 * g + b, [ld]));
          else out.push(ld);
        }
        out.push(...transposeIn(f, g));
      }
      out.push(...rounds(f, k, groups, flags));
      for (let g = 0; g < groups; g++) {
        out.push(...outputBlocks(f, k, g, flags));
        for (let b = 0; b < 4; b++) {
          const st = v128.store(dst, blocks(f, g)[b], 64 * g + 16 * b);
          out.push(4 * g + b >= guard ? ifMore(4 * g + b, [st]) : st);
        }
      }
      return out;
    };
    const end = label('end'),
      tail = label('tail'),
      main = label('main');
    const chain = (i: number): Stmt[] => {
      const g = sizes[i];
      const body = pass(g, g === 1 ? 1 : 2 * g + 1);
      if (i === sizes.length - 1) return [br_if(end, i32.eqz(n)), ...body];
      return [if_(i32.gt_u(n, 2 * g), [...body, br(end)]), ...chain(i + 1)];
    };
    f.emit(initConsts(k, t), block(end, block(tail, loop(main, br_if(tail, i32.lt_u(n, 4 * G)), pass(G, 4 * G), advance(G), br(main))), comment(`0 … ${4 * G - 1} blocks left: one pass of the smallest size that holds them`), chain(0)));
  }

  return { expand, ctr32, ecb, functions: [expand, ctr32, ecb] };
}

/** Work stitched into one pass (see sm4PassFunc). */
export interface Sm4Stitch {
  /** extra parameters after (rk, src) */
  params: Params;
  /** declares the stitch's locals in f (after the SM4 ones); returns its code; rkp is the
   * round-key pointer of the round loop (at an iteration's first key), rk the pass's parameter */
  build(
    f: Func,
    core: { rk: Local<'i32'>; rkp: Local<'i32'> },
  ): {
    /** before the blocks are loaded */
    prologue: Stmt[];
    weave: Sm4Weave;
    /** after the rounds, before the blocks are stored */
    epilogue: Stmt[];
  };
}

/**
 * `$name(rk, src, …)`: encrypt the 4·G blocks at src in place in one pass (no tail handling),
 * with `stitch` woven into the round loop: a second, independent instruction stream (the GCM
 * hash) that the core runs beside the SIMD rounds.
 */
export function sm4PassFunc(name: string, stitch: Sm4Stitch, flags: Sm4Flags = {}, options: Sm4Options = {}): Func {
  const G = options.groups ?? SM4_DEFAULT_GROUPS;
  const t = tables();
  const f = new Func(name, { rk: 'i32', src: 'i32', ...stitch.params });
  const src = f.i32('src');
  const dst = f.i32('dst');
  const [rkp] = f.locals('i32', ['rkp', 'rkEnd']);
  groupLocals(f, G);
  const k = consts(f);
  const s = stitch.build(f, { rk: f.i32('rk'), rkp });
  f.emit(
    initConsts(k, t),
    dst.set(src),
    s.prologue,
    Array.from({ length: G }, (_, g) => [...[0, 1, 2, 3].map((b) => loadBlock(f, k, src, g, b)), ...transposeIn(f, g)]).flat(),
    rounds(f, k, G, flags, s.weave),
    s.epilogue,
    Array.from({ length: G }, (_, g) => [...outputBlocks(f, k, g, flags), ...[0, 1, 2, 3].map((b) => v128.store(dst, blocks(f, g)[b], 64 * g + 16 * b))]).flat(),
  );
  return f;
}

// SHA-224, SHA-256, SHA-384 and SHA-512 compression (FIPS 180-4 §6.2–6.5), padding (§5.1) and
// HMAC (FIPS 198-1): scalar rounds, the message schedule computed in SIMD128 lanes ("vsched").
//
// Technique: a block's words are loaded 16 bytes at a time and byte-swapped by one swizzle; the
// schedule W_t = σ1(W_t−2) + W_t−7 + σ0(W_t−15) + W_t−16 runs four (SHA-256) or two (SHA-512)
// words per step in v128 registers, K_t added there too, and W_t + K_t goes to a work area from
// which each round loads one word, so the vector and integer units overlap. The rounds keep the
// working variables and the chaining value in locals: T1 accumulates into h, Ch = g ^ (e & (f ^
// g)), Maj = b ^ ((a ^ b) & (b ^ c)) with b ^ c the previous round's a ^ b, each Σ three
// independent rotations. The rounds run in a loop of 16 (the names come back after 16), the
// block loop's exit test at its head.
//
// Why constant time: additions, rotations, shifts and bitwise operations on words; no table
// indexed by data, no branch on it; branches and addresses come from the public parameters and
// from the round number.
//
// Cost: 22 integer operations per round, bound by the integer ALUs; SHA-256 ~610–660 MB/s,
// SHA-512 ~950–1000 MB/s (16 KiB). The options, the variants and their measurements:
// docs/kernels/sha2.md.
//
// Memory (the module's own): the glue owns IO [0, 2048) and the scratch window; the kernel owns
// [2048, 4096): 2048 K256 and 2304 K512 (data segments), 3072 the work area and 3712 HMAC's key
// pad (both zeroed before returning). The chaining value at st is big-endian, so the digest is
// its first bytes. Negative-control flags (tests only) produce deliberately broken variants.

import {
  type Expr,
  Func,
  type GeneratedKernel,
  type Local,
  Module,
  type Stmt,
  type Val,
  type ValType,
  block,
  br,
  br_if,
  call,
  comment,
  i32,
  i32x4,
  i64,
  i64x2,
  i8x16,
  if_,
  kernel,
  label,
  loop,
  make,
  memory,
  select,
  target,
  v128,
} from './builder/index.js';
import { BSWAP32 as bswap32, BSWAP64 as bswap64 } from './builder/lanes.js';

export interface Sha2Flags {
  /** round constant K_20 has its lowest bit flipped */
  wrongConstant?: boolean;
  /** Σ1 rotates by 7 instead of 6 (SHA-256) and by 15 instead of 14 (SHA-512) */
  rotationOff?: boolean;
  /** the length field of the padding is written one byte early */
  lengthSlip?: boolean;
  /** the schedule reads W_t-6 where it should read W_t-7 */
  scheduleSlip?: boolean;
}

/** Code-shape options, for measurement; the defaults are what ships. */
export interface Sha2Options {
  /** message schedule in SIMD lanes (default) or in scalar locals */
  schedule?: 'simd' | 'scalar';
  /** Σ0, Σ1 as three rotations of x (parallel, default) or as rotations of partial results (nested) */
  sigma?: 'parallel' | 'nested';
  /** rounds in a loop of 16 (default; half the code) instead of fully unrolled */
  rolled?: boolean;
}

export const SHA2_K256_PTR = 2048;
export const SHA2_K512_PTR = 2304;
export const SHA2_WORK_PTR = 3072;
export const SHA2_PAD_PTR = 3712;
/** The glue may use IO [0, SHA2_IO_GLUE_END); the kernel owns the rest of the IO area. */
export const SHA2_IO_GLUE_END = 2048;

// FIPS 180-4 section 4.2.3: the first 64 bits of the fractional parts of the cube roots of the
// first 80 primes. Section 4.2.2's SHA-256 constants are the first 32 bits of the same numbers
// for the first 64 primes, i.e. the upper halves of the first 64 entries.
const K512: readonly bigint[] = [
  0x428a2f98d728ae22n,
  0x7137449123ef65cdn,
  0xb5c0fbcfec4d3b2fn,
  0xe9b5dba58189dbbcn,
  0x3956c25bf348b538n,
  0x59f111f1b605d019n,
  0x923f82a4af194f9bn,
  0xab1c5ed5da6d8118n,
  0xd807aa98a3030242n,
  0x12835b0145706fben,
  0x243185be4ee4b28cn,
  0x550c7dc3d5ffb4e2n,
  0x72be5d74f27b896fn,
  0x80deb1fe3b1696b1n,
  0x9bdc06a725c71235n,
  0xc19bf174cf692694n,
  0xe49b69c19ef14ad2n,
  0xefbe4786384f25e3n,
  0x0fc19dc68b8cd5b5n,
  0x240ca1cc77ac9c65n,
  0x2de92c6f592b0275n,
  0x4a7484aa6ea6e483n,
  0x5cb0a9dcbd41fbd4n,
  0x76f988da831153b5n,
  0x983e5152ee66dfabn,
  0xa831c66d2db43210n,
  0xb00327c898fb213fn,
  0xbf597fc7beef0ee4n,
  0xc6e00bf33da88fc2n,
  0xd5a79147930aa725n,
  0x06ca6351e003826fn,
  0x142929670a0e6e70n,
  0x27b70a8546d22ffcn,
  0x2e1b21385c26c926n,
  0x4d2c6dfc5ac42aedn,
  0x53380d139d95b3dfn,
  0x650a73548baf63den,
  0x766a0abb3c77b2a8n,
  0x81c2c92e47edaee6n,
  0x92722c851482353bn,
  0xa2bfe8a14cf10364n,
  0xa81a664bbc423001n,
  0xc24b8b70d0f89791n,
  0xc76c51a30654be30n,
  0xd192e819d6ef5218n,
  0xd69906245565a910n,
  0xf40e35855771202an,
  0x106aa07032bbd1b8n,
  0x19a4c116b8d2d0c8n,
  0x1e376c085141ab53n,
  0x2748774cdf8eeb99n,
  0x34b0bcb5e19b48a8n,
  0x391c0cb3c5c95a63n,
  0x4ed8aa4ae3418acbn,
  0x5b9cca4f7763e373n,
  0x682e6ff3d6b2b8a3n,
  0x748f82ee5defb2fcn,
  0x78a5636f43172f60n,
  0x84c87814a1f0ab72n,
  0x8cc702081a6439ecn,
  0x90befffa23631e28n,
  0xa4506cebde82bde9n,
  0xbef9a3f7b2c67915n,
  0xc67178f2e372532bn,
  0xca273eceea26619cn,
  0xd186b8c721c0c207n,
  0xeada7dd6cde0eb1en,
  0xf57d4f7fee6ed178n,
  0x06f067aa72176fban,
  0x0a637dc5a2c898a6n,
  0x113f9804bef90daen,
  0x1b710b35131c471bn,
  0x28db77f523047d84n,
  0x32caab7b40c72493n,
  0x3c9ebe0a15c9bebcn,
  0x431d67c49c100d4cn,
  0x4cc5d4becb3e42b6n,
  0x597f299cfc657e2an,
  0x5fcb6fab3ad6faecn,
  0x6c44198c4a475817n,
];

// Section 5.3.5: SHA-512's initial value, the first 64 bits of the fractional parts of the
// square roots of the first 8 primes; section 5.3.3's SHA-256 value is their upper halves.
const H512: readonly bigint[] = [0x6a09e667f3bcc908n, 0xbb67ae8584caa73bn, 0x3c6ef372fe94f82bn, 0xa54ff53a5f1d36f1n, 0x510e527fade682d1n, 0x9b05688c2b3e6c1fn, 0x1f83d9abfb41bd6bn, 0x5be0cd19137e2179n];
// Section 5.3.4: SHA-384's, the same for the 9th to 16th primes; section 5.3.2's SHA-224 value
// is "the second 32 bits" of those, i.e. their lower halves.
const H384: readonly bigint[] = [0xcbbb9d5dc1059ed8n, 0x629a292a367cd507n, 0x9159015a3070dd17n, 0x152fecd8f70e5939n, 0x67332667ffc00b31n, 0x8eb44a8768581511n, 0xdb0c2e0d64f98fa7n, 0x47b5481dbefa4fa4n];

const upper = (w: bigint): number => Number(w >> 32n);
const lower = (w: bigint): number => Number(w & 0xffffffffn);

/** Big-endian bytes of 32-bit or 64-bit words. */
function beBytes(words: readonly (number | bigint)[], size: 4 | 8): number[] {
  const out: number[] = [];
  for (const w of words) {
    const v = BigInt(w);
    for (let i = size - 1; i >= 0; i--) out.push(Number((v >> BigInt(8 * i)) & 0xffn));
  }
  return out;
}

/** Little-endian bytes of 32-bit or 64-bit words (a data segment). */
function leBytes(words: readonly (number | bigint)[], size: 4 | 8): number[] {
  const be = beBytes(words, size);
  const out: number[] = [];
  for (let i = 0; i < be.length; i += size) for (let j = size - 1; j >= 0; j--) out.push(be[i + j]);
  return out;
}

/** What differs between the 32-bit and the 64-bit family. */
interface Family {
  t: 'i32' | 'i64';
  bytes: 4 | 8;
  block: 64 | 128;
  rounds: 64 | 80;
  K: readonly (number | bigint)[];
  kPtr: number;
  /** Σ0, Σ1 rotation amounts (section 4.1.2 / 4.1.3) */
  S0: [number, number, number];
  S1: [number, number, number];
  /** σ0, σ1: two rotations and a shift */
  s0: [number, number, number];
  s1: [number, number, number];
}

/** A word of either family (i32 for SHA-256, i64 for SHA-512). */
type Word = Expr<'i32'> | Expr<'i64'>;
type WordVal = Word | Local<'i32'> | Local<'i64'> | Local<'i32' | 'i64'> | number | bigint;

/** The family's word operations (the same instruction names on i32 or i64). */
function wordOps(f: Family) {
  const t = f.t;
  const op =
    (name: string) =>
    (a: WordVal, b: WordVal): Word =>
      make(t, `${t}.${name}`, '', [t, t], [a as Val<ValType>, b as Val<ValType>]) as Word;
  return {
    add: op('add'),
    xor: op('xor'),
    and: op('and'),
    shr_u: op('shr_u'),
    rotr: (x: WordVal, n: number) => op('rotr')(x, t === 'i32' ? n : BigInt(n)),
    const: (v: number | bigint): Word => (t === 'i32' ? i32.const(Number(v)) : i64.const(BigInt(v), true)),
    load: (addr: Val<'i32'>, offset: number): Word => (t === 'i32' ? i32.load(addr, offset) : i64.load(addr, offset)),
    extract: (v: Val<'v128'>, l: number): Word => (t === 'i32' ? i32x4.extract_lane(v, l) : i64x2.extract_lane(v, l)),
  };
}

/** A big-endian word at addr + off (scalar: the bytes reversed with rotations and masks). */
function loadBE(t: 'i32' | 'i64', addr: Val<'i32'>, off: number): Word {
  const bswap32 = (x: Expr<'i32'>): Expr<'i32'> => i32.or(i32.and(i32.rotl(x, 8), 0x00ff00ff), i32.and(i32.rotr(x, 8), 0xff00ff00 | 0));
  if (t === 'i32') return bswap32(i32.load(addr, off));
  return i64.or(i64.shl(i64.extend_i32_u(bswap32(i32.load(addr, off))), 32n), i64.extend_i32_u(bswap32(i32.load(addr, off + 4))));
}

/** Stores a word big-endian at addr + off. */
function storeBE(t: 'i32' | 'i64', addr: Val<'i32'>, off: number, v: Local<'i32'> | Local<'i64'>): Stmt[] {
  const bswap32 = (x: Expr<'i32'>): Expr<'i32'> => i32.or(i32.and(i32.rotl(x, 8), 0x00ff00ff), i32.and(i32.rotr(x, 8), 0xff00ff00 | 0));
  if (t === 'i32') return [i32.store(addr, bswap32((v as Local<'i32'>).get()), off)];
  const x = v as Local<'i64'>;
  return [i32.store(addr, bswap32(i32.wrap_i64(i64.shr_u(x, 32n))), off), i32.store(addr, bswap32(i32.wrap_i64(x)), off + 4)];
}

export function generateSha2(flags: Sha2Flags = {}, options: Sha2Options = {}): GeneratedKernel {
  // outside the simd target: the schedule in scalar locals, the rounds in a loop of 16 over K in memory
  const simd = target() === 'simd';
  const schedule = simd ? (options.schedule ?? 'simd') : 'scalar';
  const sigma = options.sigma ?? 'parallel';
  const rolled = (options.rolled ?? true) && schedule === 'simd';
  const rolledScalar = target() === 'wasm';
  // js: the schedule in the work area (a loop of one word), the rounds in a loop of 8: a small
  // body for the JIT (16 rounds of SHA-512 on 32-bit pairs were past TurboFan's size limit)
  const memSchedule = target() === 'js';

  const k512 = K512.slice();
  if (flags.wrongConstant) k512[20] ^= (1n << 32n) | 1n; // the lowest bit of K256_20 and of K512_20
  const k256 = k512.slice(0, 64).map(upper);

  const F256: Family = {
    t: 'i32',
    bytes: 4,
    block: 64,
    rounds: 64,
    K: k256,
    kPtr: SHA2_K256_PTR,
    S0: [2, 13, 22],
    S1: [flags.rotationOff ? 7 : 6, 11, 25],
    s0: [7, 18, 3],
    s1: [17, 19, 10],
  };
  const F512: Family = {
    t: 'i64',
    bytes: 8,
    block: 128,
    rounds: 80,
    K: k512,
    kPtr: SHA2_K512_PTR,
    S0: [28, 34, 39],
    S1: [flags.rotationOff ? 15 : 14, 18, 41],
    s0: [1, 8, 7],
    s1: [19, 61, 6],
  };

  // Σ(x) = rotr(x, r1) ^ rotr(x, r2) ^ rotr(x, r3), r1 < r2 < r3. Nested, it is
  // rotr(rotr(rotr(x, r3 − r2) ^ x, r2 − r1) ^ x, r1): one temporary instead of three.
  const bigSigma = (f: Family, x: WordVal, [r1, r2, r3]: number[]) => {
    const o = wordOps(f);
    return sigma === 'nested' ? o.rotr(o.xor(o.rotr(o.xor(o.rotr(x, r3 - r2), x), r2 - r1), x), r1) : o.xor(o.xor(o.rotr(x, r1), o.rotr(x, r2)), o.rotr(x, r3));
  };

  // The work area word t: W_t + K_t.
  // `base` is a public pointer added to every work-area and K address (the rolled loop's $wp).
  const wk = (f: Family, t: number, base: Val<'i32'> = 0) => wordOps(f).load(base, SHA2_WORK_PTR + f.bytes * t);

  /**
   * One round. `v` holds a…h in this round; `wkt` is W_t + K_t.
   * T1 accumulates into h, which becomes the new a; d becomes the new e.
   */
  const round = (f: Family, t: number, v: Local<'i32' | 'i64'>[], m: [Local<'i32' | 'i64'>, Local<'i32' | 'i64'>], wkt: Word): Stmt[] => {
    const o = wordOps(f);
    const [a, b, , d, e, ff, g, h] = v as Local<'i32'>[];
    const ch = o.xor(g, o.and(e, o.xor(ff, g)));
    const maj = o.xor(b, o.and(m[0] as Local<'i32'>, m[1] as Local<'i32'>));
    return [
      comment(`round ${t}`),
      h.set(o.add(o.add(o.add(h, wkt), ch), bigSigma(f, e, f.S1)) as Expr<'i32'>),
      d.set(o.add(d, h) as Expr<'i32'>),
      (m[0] as Local<'i32'>).set(o.xor(a, b) as Expr<'i32'>),
      h.set(o.add(o.add(h, bigSigma(f, a, f.S0)), maj) as Expr<'i32'>),
    ];
  };

  // ---- schedule, SIMD ------------------------------------------------------------------------

  const range = (a: number, n: number) => Array.from({ length: n }, (_, i) => a + i);

  /** Store schedule vector j (words nv·j … nv·j + nv−1) plus K to the work area. */
  const storeWK = (f: Family, j: number, x: Local<'v128'>, base: Val<'i32'> = 0): Stmt => {
    const off = 16 * j;
    const add = f.t === 'i32' ? i32x4.add : i64x2.add;
    return v128.store(base, add(x, v128.load(base, f.kPtr + off)), SHA2_WORK_PTR + off);
  };

  /** SHA-256 schedule step j ≥ 4: X_j = words 4j … 4j+3, ring of four vectors x0..x3. */
  const step256 = (fn: Func, j: number, base?: Val<'i32'>): Stmt[] => {
    const X = (i: number) => fn.v128(`x${i % 4}`);
    const [vb, vp, vd, klo, khi] = ['vb', 'vp', 'vd', 'klo', 'khi'].map((n) => fn.v128(n));
    const [r1, r2, sh] = F256.s0;
    const [q1, q2, sh1] = F256.s1;
    const B = i8x16.shuffle(X(j - 4), X(j - 3), range(4, 16)); // W_t-15
    const C = flags.scheduleSlip ? i8x16.shuffle(X(j - 2), X(j - 1), range(8, 16)) : i8x16.shuffle(X(j - 2), X(j - 1), range(4, 16)); // W_t-7
    const sigma0 = v128.xor(i32x4.shr_u(vb, r1), i32x4.shl(vb, 32 - r1), i32x4.shr_u(vb, r2), i32x4.shl(vb, 32 - r2), i32x4.shr_u(vb, sh));
    // σ1 on two words duplicated into 64-bit lanes: the low half of each lane is σ1(word)
    const sigma1dup = (src: Local<'v128'>) => v128.xor(i64x2.shr_u(src, q1), i64x2.shr_u(src, q2), i32x4.shr_u(src, sh1));
    return [
      comment(`schedule: W_${4 * j}..W_${4 * j + 3}`),
      vb.set(B),
      vp.set(i32x4.add(i32x4.add(X(j - 4), C), sigma0)),
      vd.set(i8x16.shuffle(X(j - 1), X(j - 1), [8, 9, 10, 11, 8, 9, 10, 11, 12, 13, 14, 15, 12, 13, 14, 15])),
      vp.set(i32x4.add(vp, i8x16.swizzle(sigma1dup(vd), klo))),
      vd.set(i8x16.shuffle(vp, vp, [0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 4, 5, 6, 7])),
      X(j).set(i32x4.add(vp, i8x16.swizzle(sigma1dup(vd), khi))),
      storeWK(F256, j, X(j), base),
    ];
  };

  /** SHA-512 schedule step j ≥ 8: X_j = words 2j, 2j+1, ring of eight vectors x0..x7. */
  const step512 = (fn: Func, j: number, base?: Val<'i32'>): Stmt[] => {
    const X = (i: number) => fn.v128(`x${i % 8}`);
    const [vb, krot8] = [fn.v128('vb'), fn.v128('krot8')];
    const [r1, , sh] = F512.s0; // the rotation by 8 is the swizzle $krot8
    const [q1, q2, sh1] = F512.s1;
    const B = i8x16.shuffle(X(j - 8), X(j - 7), range(8, 16)); // W_t-15, W_t-14
    const C = flags.scheduleSlip ? X(j - 3).get() : i8x16.shuffle(X(j - 4), X(j - 3), range(8, 16)); // W_t-7, W_t-6
    const sigma0 = v128.xor(i64x2.shr_u(vb, r1), i64x2.shl(vb, 64 - r1), i8x16.swizzle(vb, krot8), i64x2.shr_u(vb, sh));
    const D = X(j - 1);
    const sigma1 = v128.xor(i64x2.shr_u(D, q1), i64x2.shl(D, 64 - q1), i64x2.shr_u(D, q2), i64x2.shl(D, 64 - q2), i64x2.shr_u(D, sh1));
    return [comment(`schedule: W_${2 * j}, W_${2 * j + 1}`), vb.set(B), X(j).set(i64x2.add(X(j - 8), C, sigma0, sigma1)), storeWK(F512, j, X(j), base)];
  };

  // ---- schedule, scalar (for comparison) -----------------------------------------------------

  /** W_t for t ≥ 16 in a ring of 16 locals w0..w15; the update of w[t % 16]. */
  const scalarStep = (fn: Func, f: Family, t: number): Stmt => {
    const o = wordOps(f);
    const w = (i: number) => fn.local(f.t, `w${((i % 16) + 16) % 16}`);
    const small = (x: WordVal, [r1, r2, sh]: number[]) => o.xor(o.xor(o.rotr(x, r1), o.rotr(x, r2)), o.shr_u(x, o.const(sh)));
    const w7 = flags.scheduleSlip ? w(t - 6) : w(t - 7);
    return (w(t) as Local<'i32'>).set(o.add(o.add(o.add(small(w(t - 2), f.s1), w7), small(w(t - 15), f.s0)), w(t - 16)) as Expr<'i32'>);
  };

  // ---- the block function --------------------------------------------------------------------

  const blocksFn = (f: Family, name: string): Func => {
    const fn = new Func(name, { st: 'i32', src: 'i32', n: 'i32' }, { export: true, public: 'all' });
    const { st, src, n } = fn.p;
    const o = wordOps(f);
    const is256 = f.t === 'i32';
    const nv = 16 / f.bytes; // words per vector
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const word = (nm: string) => fn.local(f.t, nm) as Local<'i32'>;
    for (const nm of names) word(nm), word(`${nm}0`);
    const [m0, m1] = [word('m0'), word('m1')];
    const v = simd ? fn.v128('v') : undefined!;
    const bswap = simd ? fn.v128('bswap') : undefined!;
    const wp = fn.i32('wp');
    if (schedule === 'simd') {
      fn.locals(
        'v128',
        Array.from({ length: 16 / nv }, (_, i) => `x${i}`),
      );
      fn.locals('v128', ['vb', 'vp', 'vd', 'klo', 'khi', 'krot8']);
    } else {
      for (let i = 0; i < 16; i++) word(`w${i}`);
    }
    const vset = (nm: string, bytes: number[]) => fn.v128(nm).set(v128.bytes(bytes));

    if (simd) fn.emit(bswap.set(v128.bytes(is256 ? bswap32 : bswap64)));
    if (schedule === 'simd') {
      if (is256) {
        fn.emit(vset('klo', [0, 1, 2, 3, 8, 9, 10, 11, 128, 128, 128, 128, 128, 128, 128, 128]));
        fn.emit(vset('khi', [128, 128, 128, 128, 128, 128, 128, 128, 0, 1, 2, 3, 8, 9, 10, 11]));
      } else {
        fn.emit(vset('krot8', [1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8]));
      }
    }
    fn.emit(comment('the chaining value: big-endian words at st, into locals a0…h0'));
    for (let i = 0; i < 8 / nv && simd; i++) {
      fn.emit(v.set(i8x16.swizzle(v128.load(st, 16 * i), bswap)));
      for (let l = 0; l < nv; l++) fn.emit(word(`${names[i * nv + l]}0`).set(o.extract(v, l) as Expr<'i32'>));
    }
    if (!simd) names.forEach((nm, i) => fn.emit(word(`${nm}0`).set(loadBE(f.t, st, f.bytes * i) as Expr<'i32'>)));

    const body: Stmt[] = [];
    for (const nm of names) body.push(word(nm).set(word(`${nm}0`)));
    if (rolledScalar) for (let i = 0; i < 16; i++) body.push(word(`w${i}`).set(loadBE(f.t, src, f.bytes * i) as Expr<'i32'>));
    if (memSchedule) {
      const W = (base: Val<'i32'>, t: number): Word => o.load(base, SHA2_WORK_PTR + f.bytes * t);
      const small = (x: Word, [r1, r2, sh]: number[]) => o.xor(o.xor(o.rotr(x, r1), o.rotr(x, r2)), o.shr_u(x, o.const(sh)));
      const x = word('m0');
      const store = (addr: Val<'i32'>, off: number, v: Word): Stmt => (f.t === 'i32' ? i32.store(addr, v as Expr<'i32'>, off) : i64.store(addr, v as Expr<'i64'>, off));
      for (let i = 0; i < 16; i++) body.push(store(0, SHA2_WORK_PTR + f.bytes * i, loadBE(f.t, src, f.bytes * i)));
      const [sd, sl] = [label('sched_done'), label('sched')];
      body.push(
        comment('W_t = σ1(W_t−2) + W_t−7 + σ0(W_t−15) + W_t−16 into the work area'),
        wp.set(16 * f.bytes),
        block(
          sd,
          loop(
            sl,
            br_if(sd, i32.ge_u(wp, f.rounds * f.bytes)),
            x.set(o.add(o.add(o.add(small(W(wp, -2), f.s1), W(wp, flags.scheduleSlip ? -6 : -7)), small(W(wp, -15), f.s0)), W(wp, -16)) as Expr<'i32'>),
            store(wp, SHA2_WORK_PTR, x.get()),
            wp.set(i32.add(wp, f.bytes)),
            br(sl),
          ),
        ),
      );
    }
    // the first 16 words: four (eight) byte-swapped vectors
    for (let i = 0; i < 16 / nv && simd; i++) {
      const load = i8x16.swizzle(v128.load(src, 16 * i), bswap);
      if (schedule === 'simd') {
        body.push(fn.v128(`x${i}`).set(load), storeWK(f, i, fn.v128(`x${i}`)));
      } else {
        body.push(v.set(load));
        for (let l = 0; l < nv; l++) body.push(word(`w${i * nv + l}`).set(o.extract(v, l) as Expr<'i32'>));
      }
    }
    body.push(m1.set(o.xor(word('b'), word('c')) as Expr<'i32'>));
    const steps = 16 / nv; // schedule vectors per 16 words
    const stepEvery = nv; // rounds per schedule vector
    /** Rounds t0 … t0+count−1 (t relative to `base`), each schedule step 16 words ahead. */
    const rounds = (t0: number, count: number, total: number, base?: Val<'i32'>): Stmt[] => {
      const out: Stmt[] = [];
      let vs = names.map(word);
      for (let t = t0; t < t0 + count; t++) {
        if (schedule === 'simd' && t % stepEvery === 0) {
          const j = t / stepEvery + steps;
          if (j < total / nv) out.push(...(is256 ? step256(fn, j, base) : step512(fn, j, base)));
        }
        let wkt: Word;
        if (schedule === 'simd') {
          wkt = wk(f, t, base);
        } else if (memSchedule) {
          wkt = o.add(o.load(base!, SHA2_WORK_PTR + f.bytes * t), o.load(base!, f.kPtr + f.bytes * t));
        } else if (rolledScalar) {
          // rounds 16j + t of the loop: W from the ring (updated first after the first 16), K from memory
          if (base !== undefined) out.push(scalarStep(fn, f, t + 16));
          wkt = o.add(word(`w${t % 16}`), base === undefined ? o.const(f.K[t]) : o.load(base, f.kPtr + f.bytes * t));
        } else {
          if (t >= 16) out.push(scalarStep(fn, f, t));
          wkt = o.add(word(`w${t % 16}`), o.const(f.K[t]));
        }
        const m: [Local<'i32'>, Local<'i32'>] = t % 2 === 0 ? [m0, m1] : [m1, m0];
        out.push(...round(f, t, vs, m, wkt));
        vs = [vs[7], vs[0], vs[1], vs[2], vs[3], vs[4], vs[5], vs[6]];
      }
      return out;
    };
    if (memSchedule) {
      const [rd, rl] = [label('rounds_done'), label('rounds8')];
      body.push(wp.set(0), block(rd, loop(rl, br_if(rd, i32.ge_u(wp, f.rounds * f.bytes)), rounds(0, 8, 8, wp), wp.set(i32.add(wp, 8 * f.bytes)), br(rl))));
    } else if (rolledScalar) {
      // the first 16 rounds on the message words, then 16 at a time with the schedule in the ring
      const stride = 16 * f.bytes;
      const [all, sixteen] = [label('all'), label('sixteen')];
      body.push(...rounds(0, 16, 16), wp.set(stride), block(all, loop(sixteen, br_if(all, i32.ge_u(wp, stride * (f.rounds / 16))), rounds(0, 16, 16, wp), wp.set(i32.add(wp, stride)), br(sixteen))));
    } else if (rolled) {
      // 16 rounds with their schedule steps, looped while steps remain, then the last 16
      const stride = 16 * f.bytes;
      const [last16, sixteen] = [label('last16'), label('sixteen')];
      body.push(wp.set(0), block(last16, loop(sixteen, br_if(last16, i32.ge_u(wp, stride * (f.rounds / 16 - 1))), rounds(0, 16, 32, wp), wp.set(i32.add(wp, stride)), br(sixteen))), ...rounds(0, 16, 16, wp));
    } else {
      body.push(...rounds(0, f.rounds, f.rounds));
    }
    // after a multiple of 8 rounds the names are back in place
    for (const nm of names) body.push(word(`${nm}0`).set(o.add(word(`${nm}0`), word(nm)) as Expr<'i32'>));
    body.push(src.set(i32.add(src, f.block)));

    // The exit test heads the loop (see the top of the file: at its foot it cost ~1000 cycles).
    const [done, next] = [label('done'), label('next')];
    body.push(br(next));
    fn.emit(block(done, loop(next, br_if(done, i32.eqz(n)), n.set(i32.sub(n, 1)), body)));
    fn.emit(comment('the chaining value back as big-endian words'));
    if (!simd) names.forEach((nm, i) => fn.emit(storeBE(f.t, st, f.bytes * i, word(`${nm}0`))));
    for (let i = 0; i < 8 / nv && simd; i++) {
      const w0 = (l: number) => word(`${names[i * nv + l]}0`);
      let vec: Expr<'v128'> = is256 ? i32x4.splat(w0(0)) : i64x2.splat(w0(0) as unknown as Local<'i64'>);
      for (let l = 1; l < nv; l++) vec = is256 ? i32x4.replace_lane(vec, l, w0(l)) : i64x2.replace_lane(vec, l, w0(l) as unknown as Local<'i64'>);
      fn.emit(v128.store(st, i8x16.swizzle(vec, bswap), 16 * i));
    }
    if (memSchedule) fn.emit(comment('wipe the work area'), memory.fill(SHA2_WORK_PTR, 0, f.rounds * f.bytes));
    if (schedule === 'simd') {
      fn.emit(comment('wipe the work area'));
      for (let i = 0; i < (f.rounds * f.bytes) / 16; i++) fn.emit(v128.store(0, v128.zero(), SHA2_WORK_PTR + 16 * i));
    }
    return fn;
  };

  // ---- padding (section 5.1) -----------------------------------------------------------------

  const lastFn = (f: Family, name: string, blocks: Func): Func => {
    const fn = new Func(name, { st: 'i32', src: 'i32', len: 'i32', hi: 'i32', lo: 'i32' }, { export: true, public: 'all' });
    const { st, src, len, hi, lo } = fn.p;
    const [p, end] = fn.locals('i32', ['p', 'end']);
    const B = f.block;
    const L = 2 * f.bytes; // the length field: 64 or 128 bits
    const at = flags.lengthSlip ? L + 1 : L; // distance of the length field from the end
    const field = () => i32.sub(end, at);
    // big-endian i32 stores of public values, byte by byte
    const be32 = (off: number, val: Val<'i32'>) => [24, 16, 8, 0].map((s, i) => i32.store8(field(), i32.shr_u(val, s), off + i));
    const [zeroed, zero] = [label('zeroed'), label('zero')];
    fn.emit(
      comment('p: the tail after the whole blocks; end: the end of the padded message'),
      p.set(i32.add(src, i32.and(len, -B))),
      end.set(i32.add(p, select(B, 2 * B, i32.lt_u(i32.and(len, B - 1), B - L)))),
      comment('M ‖ 1 ‖ 0…0 ‖ the length in bits, big-endian'),
      i32.store8(i32.add(src, len), i32.const(0x80, true)),
      comment('zeros up to the length field, 8 bytes per store (memory.fill is a runtime call, ~80 ns)'),
      p.set(i32.add(i32.add(src, len), 1)),
      block(zeroed, loop(zero, br_if(zeroed, i32.ge_u(p, i32.sub(end, L))), i64.store(p, 0), p.set(i32.add(p, 8)), br(zero))),
      L === 16 ? [...be32(0, 0), ...be32(4, i32.shr_u(hi, 29))] : [],
      be32(L - 8, i32.or(i32.shl(hi, 3), i32.shr_u(lo, 29))),
      be32(L - 4, i32.shl(lo, 3)),
      call(blocks, st, src, i32.shr_u(i32.sub(end, src), Math.log2(B))),
    );
    return fn;
  };

  const initFn = (): Func => {
    const fn = new Func('sha2_init', { st: 'i32', variant: 'i32' }, { export: true, public: 'all' });
    const { st, variant } = fn.p;
    const store = (words: readonly (number | bigint)[], size: 4 | 8) => {
      const bytes = beBytes(words, size);
      const out: Stmt[] = [];
      if (!simd) {
        for (let i = 0; i < bytes.length; i += 4)
          out.push(
            i32.store(
              st,
              bytes.slice(i, i + 4).reduceRight((a, b) => (a << 8) | b, 0),
              i,
            ),
          );
        return out;
      }
      for (let i = 0; i < bytes.length; i += 16) out.push(v128.store(st, v128.bytes(bytes.slice(i, i + 16)), i));
      return out;
    };
    const variants: [number, Stmt[]][] = [
      [224, store(H384.map(lower), 4)],
      [256, store(H512.map(upper), 4)],
      [384, store(H384, 8)],
      [512, store(H512, 8)],
    ];
    fn.emit(variants.map(([n, code]) => if_(i32.eq(variant, n), code)));
    return fn;
  };

  // HMAC's two chaining values: IV compressed with K0 ⊕ ipad, and with K0 ⊕ opad (FIPS 198-1).
  // The XOR runs here, 16 bytes at a time, into the pad block: byte stores from JavaScript
  // followed by 16-byte loads here cost ~0.5 µs per block (store forwarding fails).
  const zeroPad = (B: number): Stmt[] => (simd ? Array.from({ length: B / 16 }, (_, i) => v128.store(0, v128.zero(), SHA2_PAD_PTR + 16 * i)) : Array.from({ length: B / 8 }, (_, i) => i64.store(0, 0, SHA2_PAD_PTR + 8 * i)));
  const hmacInitFn = (init: Func, b256: Func, b512: Func): Func => {
    const fn = new Func('sha2_hmac_init', { inner: 'i32', outer: 'i32', key: 'i32', variant: 'i32' }, { export: true, public: 'all' });
    const { inner, outer, key, variant } = fn.p;
    const xorInto = (B: number, pad: number) =>
      simd
        ? Array.from({ length: B / 16 }, (_, i) => v128.store(0, v128.xor(v128.load(key, 16 * i), v128.i8x16(Array(16).fill(pad))), SHA2_PAD_PTR + 16 * i))
        : Array.from({ length: B / 4 }, (_, i) => i32.store(0, i32.xor(i32.load(key, 4 * i), pad * 0x01010101), SHA2_PAD_PTR + 4 * i));
    const path = (B: number, blocks: Func) => [...xorInto(B, 0x36), call(blocks, inner, SHA2_PAD_PTR, 1), ...xorInto(B, 0x5c), call(blocks, outer, SHA2_PAD_PTR, 1), ...zeroPad(B)];
    fn.emit(call(init, inner, variant), call(init, outer, variant), if_(i32.le_u(variant, 256), path(64, b256), path(128, b512)));
    return fn;
  };

  // A whole HMAC of len bytes at src (len < 2^32 − 128): the tag at st + 64, the inner
  // chaining value left at st. One call instead of three for the short messages of HMAC-DRBG.
  const hmacFn = (hmacInit: Func, l256: Func, l512: Func): Func => {
    const fn = new Func('sha2_hmac', { st: 'i32', key: 'i32', src: 'i32', len: 'i32', variant: 'i32' }, { export: true, public: 'all' });
    const { st, key, src, len, variant } = fn.p;
    const path = (B: number, n: number, last: Func) => [
      call(last, st, src, len, 0, i32.add(len, B)),
      comment('the inner digest, then the outer hash of it'),
      ...(simd ? Array.from({ length: Math.ceil(n / 16) }, (_, i) => v128.store(0, v128.load(st, 16 * i), SHA2_PAD_PTR + 16 * i)) : Array.from({ length: Math.ceil(n / 4) }, (_, i) => i32.store(0, i32.load(st, 4 * i), SHA2_PAD_PTR + 4 * i))),
      call(last, i32.add(st, 64), SHA2_PAD_PTR, n, 0, B + n),
      ...zeroPad(B),
    ];
    const outLen: [number, number, number, Func][] = [
      [224, 64, 28, l256],
      [256, 64, 32, l256],
      [384, 128, 48, l512],
      [512, 128, 64, l512],
    ];
    fn.emit(
      call(hmacInit, st, i32.add(st, 64), key, variant),
      outLen.map(([v, B, n, last]) => if_(i32.eq(variant, v), path(B, n, last))),
    );
    return fn;
  };

  const init = initFn();
  const b256 = blocksFn(F256, 'sha256_blocks');
  const b512 = blocksFn(F512, 'sha512_blocks');
  const l256 = lastFn(F256, 'sha256_last', b256);
  const l512 = lastFn(F512, 'sha512_last', b512);
  const hmacInit = hmacInitFn(init, b256, b512);
  const hmac = hmacFn(hmacInit, l256, l512);
  const m = new Module('sha2').memory(2).dataSegment(SHA2_K256_PTR, leBytes(k256, 4)).dataSegment(SHA2_K512_PTR, leBytes(k512, 8)).add(init, b256, b512, l256, l512, hmacInit, hmac);
  m.header.push(simd ? 'SHA-224/256/384/512 compression: scalar rounds, message schedule in SIMD lanes, constant time.' : `SHA-224/256/384/512 compression: scalar rounds and schedule, 16 rounds per loop pass; target ${target()}.`);
  return kernel(m);
}

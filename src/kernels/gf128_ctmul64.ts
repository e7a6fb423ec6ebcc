// GF(2^128) multiplication for GHASH (SP 800-38D) and POLYVAL (RFC 8452): "multiplication
// with holes" on 64-bit integer multiplies, one kernel for both hashes (as BearSSL's ghash_ctmul64).
//
// Technique: a carry-less 64×64 product is sixteen i64.mul of operands masked to every fourth
// bit; a column of the low 64 bits sums at most 16 one-bit terms, whose carries land in the
// three "hole" bits above it and are masked away. The high half is the same on bit-reversed
// operands (rev64(lo(rev a · rev b)) >> 1), the reversal two nibble swizzles. Everything runs in
// POLYVAL's domain (RFC 8452 Appendix A maps GHASH onto it by a 16-byte reversal) with its
// Montgomery product; g blocks share one reduction with the powers H … H^8, their six Karatsuba
// parts XOR-accumulated in locals. The gf128 module's loop with powers runs two of the three
// Karatsuba products on i16x8.mul (operands masked to every third bit: column sums ≤ 6).
//
// Why constant time: no table is indexed by data (swizzle tables are constants in registers,
// the data only their index: vpshufb); i64.mul (imul) and i16x8.mul (vpmullw) take the same
// time whatever their operands; branches and addresses depend only on pointers and counts.
//
// Cost per block: 96 i64.mul and ~150 other scalar operations (the aes and sm4 loops, and the
// one-block path); the i16x8 loop 45 i16x8.mul and 32 i64.mul. A pinning store after each
// product keeps TurboFan from interleaving (and spilling) them. Measurements: docs/kernels/gf128.md.
//
// Invariants: the state stays in a local across a call; the slot layout is GF128_* below (H at
// 0, the table of H_k at 64 + 192(k−1), its i16x8 parts at 2048 + 240(k−1)).
// Negative-control flags (tests only) produce deliberately broken variants.

import { type Expr, Func, type GeneratedKernel, type Local, Module, type Stmt, type Val, block, br_if, call, comment, i16x8, i32, i64, i64x2, i8x16, if_, kernel, label, loop, ret, select, setMany, target, v128 } from './builder/index.js';
import { BSWAP64 as LANE_REV } from './builder/lanes.js';
import { ctmul32Technique, type ScalarMul, type ScalarTechnique } from './gf128_ctmul32.js';

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
/** where the glue keeps a hash state in the slot (the kernel takes its pointer): between H and the pin at 48 */
export const GF128_STATE_OFFSET = 32;
export const GF128_TABLE_OFFSET = 64;
export const GF128_TABLE_SIZE = 192;
export const GF128_MAX_POWERS = 8;
/** the gf128 module's i16x8 parts of H_k: slot + GF128_W16_OFFSET + (k-1)·GF128_W16_SIZE */
export const GF128_W16_OFFSET = 2048;
export const GF128_W16_SIZE = 240;
/** the gf128 module's v128 pinning store: slot + GF128_W16_PIN (between the two tables) */
export const GF128_W16_PIN = 1984;

/** masks of every fourth bit: pieces of at most 16 set bits, column sums ≤ 16 < 2^4 */
const M = [0x1111111111111111n, 0x2222222222222222n, 0x4444444444444444n, 0x8888888888888888n];
const mask = (i: number) => i64.const(M[i], true);

// Bit reversal of each byte by nibbles: low nibble n -> rev4(n) << 4, high nibble n -> rev4(n).
const rev4 = (n: number) => ((n & 1) << 3) | ((n & 2) << 1) | ((n & 4) >> 1) | ((n & 8) >> 3);
const REV_HI = Array.from({ length: 16 }, (_, n) => rev4(n) << 4);
const REV_LO = Array.from({ length: 16 }, (_, n) => rev4(n));
const NIBBLE = Array(16).fill(15);

const reverse16 = (flags: Gf128Flags) => {
  const r = Array.from({ length: 16 }, (_, i) => 15 - i);
  if (flags.byteSlip) [r[0], r[1]] = [r[1], r[0]];
  return r;
};

/** The constants of the bit reversal, in v128 locals (a swizzle by a local is a bare vpshufb). */
interface RevConsts {
  nib: Local<'v128'>;
  hi: Local<'v128'>;
  lo: Local<'v128'>;
  /** scratch */
  t: Local<'v128'>;
}

/**
 * Bit reversal of each lane of x: the bytes of each lane reversed by the swizzle `byteIdx`
 * (64-bit lanes, or 16-bit ones), then the bits of each byte by the nibble tables. The first
 * statement computes into t, the expression is the result.
 * (i8x16.swizzle(table, index) is table[index].)
 */
function revBits(k: RevConsts, x: Val<'v128'>, byteIdx: Local<'v128'>): [Stmt, Expr<'v128'>] {
  return [k.t.set(i8x16.swizzle(x, byteIdx)), v128.or(i8x16.swizzle(k.hi, v128.and(k.t, k.nib)), i8x16.swizzle(k.lo, v128.and(i16x8.shr_u(k.t, 4), k.nib)))];
}

/**
 * acc ^= clmul_lo64(w, y), y the four masked parts of a table word at p + off: sixteen i64.mul
 * of operands masked to every fourth bit; z_k collects x_i·y_j with i + j ≡ k (mod 4), the
 * carries of each column sum land in the holes and are masked away. Returns the statements
 * and the new acc (a local.tee, for the caller's pinning store).
 */
function clmulLo64(f: Func, w: Local<'i64'>, acc: Local<'i64'>, p: Local<'i32'>, off: number, note = ''): [Stmt[], Expr<'i64'>] {
  const x = f.locals('i64', ['x0', 'x1', 'x2', 'x3']);
  const y = f.locals('i64', ['y0', 'y1', 'y2', 'y3']);
  const z = (k: number) => i64.and(i64.xor(...(x.map((xi, i) => i64.mul(xi, y[(k - i + 4) % 4])) as [Expr<'i64'>, Expr<'i64'>])), mask(k));
  return [
    [comment(`${acc.name} ^= clmul_lo64(${w.name}, table word ${off / 32})${note}`), ...x.map((xi, i) => xi.set(i64.and(w, mask(i)))), ...y.map((yi, i) => yi.set(i64.load(p, off + 8 * i)))],
    acc.tee(i64.xor(acc, i64.or(z(0), z(1), z(2), z(3)))),
  ];
}

/**
 * One step of the Montgomery reduction by x^64 modulo x^128 + x^127 + x^126 + x^121 + 1:
 * lo folded into mid and hi. dropFirst: the negative control dropReductionTerm.
 */
function foldStep(lo: Local<'i64'>, mid: Local<'i64'>, hi: Local<'i64'>, dropFirst: boolean): Stmt[] {
  const n = (l: Local) => l.name;
  return [
    comment(`fold ${n(lo)}: ${n(mid)} ^= ${n(lo)}<<57 ^ ${n(lo)}<<62 ^ ${n(lo)}<<63; ${n(hi)} ^= ${n(lo)} ^ ${n(lo)}>>1 ^ ${n(lo)}>>2 ^ ${n(lo)}>>7`),
    mid.set(dropFirst ? i64.xor(mid, i64.shl(lo, 62), i64.shl(lo, 63)) : i64.xor(mid, i64.shl(lo, 57), i64.shl(lo, 62), i64.shl(lo, 63))),
    hi.set(i64.xor(hi, lo, i64.shr_u(lo, 1), i64.shr_u(lo, 2), i64.shr_u(lo, 7))),
  ];
}

/** The 256-bit product from the Karatsuba parts, reduced: c2 (low), c3 (high) hold the result. */
function recombineReduce(f: Func, flags: Gf128Flags): Stmt[] {
  const [L0, L1, L2, R0, R1, R2] = ['L0', 'L1', 'L2', 'R0', 'R1', 'R2'].map((n) => f.i64(n));
  const [c0, c1, c2, c3] = ['c0', 'c1', 'c2', 'c3'].map((n) => f.i64(n));
  return [
    comment('256-bit product c0..c3 = z0 + (z2 ^ z0 ^ z1)·x^64 + z1·x^128'),
    c0.set(L0),
    c1.set(i64.xor(R0, L2, L0, L1)),
    c2.set(i64.xor(L1, R2, R0, R1)),
    c3.set(R1),
    comment('Montgomery reduction by x^128 modulo x^128 + x^127 + x^126 + x^121 + 1'),
    ...foldStep(c0, c1, c2, !!flags.dropReductionTerm),
    ...foldStep(c1, c2, c3, false),
  ];
}

/**
 * The multiplication by a power of H inside a function f — its locals, constants and the code
 * of one block's products and of the reduction, for the gf128 functions below and for the
 * kernels that weave hashing into other work (aes_gcm.ts, sm4_gcm.ts). Declares its locals in f
 * when created. Per group: `zero()`; per block, its POLYVAL-domain value in `v` (the state XORed
 * into the first; GHASH blocks through `domain`) and its power's table in a pointer p, then
 * `products(p)`; then `reduce()`, which leaves the new state in r0 (low) and r1 (high).
 * The pinning stores go to pinAt + 48 (the caller sets pinAt to the slot).
 */
export class Gf128Mul {
  readonly v: Local<'v128'>;
  readonly r0: Local<'i64'>;
  readonly r1: Local<'i64'>;
  readonly pinAt: Local<'i32'>;
  readonly kRev16: Local<'v128'>;
  readonly #k: RevConsts;
  readonly #laneRev: Local<'v128'>;
  readonly #consts: Stmt[];

  constructor(
    readonly f: Func,
    readonly flags: Gf128Flags,
  ) {
    const [v, , t] = f.locals('v128', ['v', 'vr', 't']);
    f.locals('i64', ['a0', 'a1', 'a2', 'ar0', 'ar1', 'ar2', 'x0', 'x1', 'x2', 'x3', 'y0', 'y1', 'y2', 'y3']);
    f.locals('i64', ['L0', 'L1', 'L2', 'R0', 'R1', 'R2', 'c0', 'c1', 'c2', 'c3', 'r0', 'r1', 'pin']);
    this.pinAt = f.i32('pinAt');
    const c = revConsts(f, t, flags);
    this.v = v;
    this.r0 = f.i64('r0');
    this.r1 = f.i64('r1');
    this.kRev16 = c.kRev16;
    this.#k = c;
    this.#laneRev = c.kLaneRev;
    this.#consts = c.init;
  }

  /** GHASH's byte order to POLYVAL's and back (a 16-byte reversal). */
  domain(x: Val<'v128'>): Expr<'v128'> {
    return i8x16.swizzle(x, this.kRev16);
  }

  /** The constants' initialisation (once per function, before the first use). */
  consts(): Stmt[] {
    return this.#consts;
  }

  /** rev64 of both lanes of x: [the statement into t, the value]. */
  revLanes(x: Val<'v128'>): [Stmt, Expr<'v128'>] {
    return revBits(this.#k, x, this.#laneRev);
  }

  zero(): Stmt[] {
    return ['L0', 'L1', 'L2', 'R0', 'R1', 'R2'].map((n) => this.f.i64(n).set(0));
  }

  /**
   * One block's work in pieces, to weave into other code: the lane preparation, then its six
   * Karatsuba partial products (lo, hi, middle, of a and of rev(a)), each XOR-accumulated and
   * ended by a pinning store. The block is in v, its power's table at p.
   */
  products(p: Local<'i32'>): Stmt[][] {
    const f = this.f;
    const [v, vr] = [f.v128('v'), f.v128('vr')];
    const [a0, a1, a2, ar0, ar1, ar2] = ['a0', 'a1', 'a2', 'ar0', 'ar1', 'ar2'].map((n) => f.i64(n));
    const [rs, rv] = this.revLanes(v);
    const prep: Stmt[] = [
      comment('rev64 of each lane: reverse the bytes of each lane, then the bits of each byte'),
      rs,
      vr.set(rv),
      a0.set(i64x2.extract_lane(v, 0)),
      a1.set(i64x2.extract_lane(v, 1)),
      ar0.set(i64x2.extract_lane(vr, 0)),
      ar1.set(i64x2.extract_lane(vr, 1)),
      a2.set(i64.xor(a0, a1)),
      ar2.set(i64.xor(ar0, ar1)),
    ];
    const pin = f.i64('pin');
    const words: [Local<'i64'>, string][] = [
      [a0, 'L0'],
      [a1, 'L1'],
      [a2, 'L2'],
      [ar0, 'R0'],
      [ar1, 'R1'],
      [ar2, 'R2'],
    ];
    return [
      prep,
      ...words.map(([w, acc], k) => {
        const [code, value] = clmulLo64(f, w, f.i64(acc), p, k * 32);
        // a store after each product pins the next product's loads behind it, so TurboFan
        // cannot interleave the six products (which spilled ~40 values to the stack)
        return [...code, pin.set(value), i64.store(this.pinAt, pin, 48)];
      }),
    ];
  }

  /** products(p), in one piece. */
  accumulate(p: Local<'i32'>): Stmt[] {
    return this.products(p).flat();
  }

  /** Karatsuba recombination and Montgomery reduction of the accumulated products → r0, r1. */
  reduce(): Stmt[] {
    const f = this.f;
    const [v, vr] = [f.v128('v'), f.v128('vr')];
    const [R0, R1, R2] = ['R0', 'R1', 'R2'].map((n) => f.i64(n));
    const [hs, hv] = this.revLanes(i64x2.replace_lane(i64x2.splat(R0), 1, R1));
    const [ms, mv] = this.revLanes(i64x2.splat(R2));
    return [
      comment('high halves: rev64 of the accumulated reversed products, shifted right by one'),
      hs,
      vr.set(hv),
      ms,
      v.set(mv),
      R0.set(i64.shr_u(i64x2.extract_lane(vr, 0), 1)),
      R1.set(i64.shr_u(i64x2.extract_lane(vr, 1), 1)),
      R2.set(i64.shr_u(i64x2.extract_lane(v, 0), 1)),
      ...recombineReduce(f, this.flags),
      this.r0.set(f.i64('c2')),
      this.r1.set(f.i64('c3')),
    ];
  }
}

/** The reversal constants in f (t its scratch): [kLaneRev, kRev16, kNib, kRevHi, kRevLo]. */
function revConsts(f: Func, t: Local<'v128'>, flags: Gf128Flags, order = ['kLaneRev', 'kRev16', 'kNib', 'kRevHi', 'kRevLo']) {
  const value: Record<string, number[]> = { kLaneRev: LANE_REV, kRev16: reverse16(flags), kNib: NIBBLE, kRevHi: REV_HI, kRevLo: REV_LO };
  const l = Object.fromEntries(order.map((n) => [n, f.v128(n)]));
  return {
    kLaneRev: l.kLaneRev,
    kRev16: l.kRev16,
    nib: l.kNib,
    hi: l.kRevHi,
    lo: l.kRevLo,
    t,
    init: order.filter((n) => n in value).map((n) => l[n].set(v128.bytes(value[n]))),
  };
}

/** The gf128 functions (their names carry `prefix`), for this module and for aes/sm4. */
export interface Gf128Functions {
  /** in module order */
  functions: Func[];
  init: Func;
  powers: Func;
  polyval: Func;
  ghash: Func;
  /** the exported ones */
  exports: Func[];
}

/**
 * The kernel's functions, each name (and export name) prefixed with `prefix`, so that another
 * module can carry the same GF(2^128) code next to its own (the AES-GCM module hashes the
 * ciphertext it has just produced in the same memory). With w16, the loop with powers is the
 * i16x8 one (the gf128 module).
 */
export function gf128Functions(flags: Gf128Flags = {}, prefix = '', options: { w16?: boolean } = {}): Gf128Functions {
  if (target() !== 'simd') return gf128FunctionsScalar(flags, prefix);
  const pub = { public: 'all' as const };

  // $table(x0, x1, dst): write the 24 masked words of the multiplier x = (x0, x1).
  const table = new Func(`${prefix}table`, { x0: 'i64', x1: 'i64', dst: 'i32' });
  {
    const f = table,
      { x0, x1, dst } = f.p;
    const w = f.i64('w');
    const [t, vr] = f.locals('v128', ['t', 'vr']);
    const c = revConsts(f, t, flags);
    const [rs, rv] = revBits(c, i64x2.replace_lane(i64x2.splat(x0), 1, x1), c.kLaneRev);
    const parts: Expr<'i64'>[] = [x0.get(), x1.get(), i64.xor(x0, x1), i64x2.extract_lane(vr, 0), i64x2.extract_lane(vr, 1), i64.xor(i64x2.extract_lane(vr, 0), i64x2.extract_lane(vr, 1))];
    f.emit(c.init, comment('rev64 of each lane: reverse the bytes of each lane, then the bits of each byte'), rs, vr.set(rv));
    parts.forEach((e, k) =>
      f.emit(
        w.set(e),
        M.map((_, i) => i64.store(dst, i64.and(w, mask(i)), k * 32 + 8 * i)),
      ),
    );
  }

  // $mul(m0, m1, p) -> (r0, r1): dot(m, H_k) for the table at p.
  const mul = new Func(`${prefix}mul`, { m0: 'i64', m1: 'i64', p: 'i32' }, { results: ['i64', 'i64'] });
  {
    const f = mul,
      { m0, m1, p } = f.p;
    const g = new Gf128Mul(f, flags);
    f.emit(
      g.consts(),
      comment('$mul is only called with the table of H_1 (slot + 64); pin stores go to slot + 48'),
      g.pinAt.set(i32.sub(p, GF128_TABLE_OFFSET)),
      g.zero(),
      g.v.set(i64x2.replace_lane(i64x2.splat(m0), 1, m1)),
      g.accumulate(p),
      g.reduce(),
      g.r0.get(),
      g.r1.get(),
    );
  }

  const init = new Func(`${prefix}gf128_init`, { slot: 'i32', ghash: 'i32' }, { export: true, ...pub });
  {
    const f = init,
      { slot, ghash } = f.p;
    const [h0, h1, m] = f.locals('i64', ['h0', 'h1', 'm']);
    const k = f.v128('k');
    const c = revConsts(f, k, flags);
    f.emit(
      c.init,
      k.set(v128.load(slot)),
      if_(
        ghash,
        [
          comment('GHASH key: H_polyval = mulX(rev16(H)); mulX masks the reduction, no branch on the key'),
          k.set(i8x16.swizzle(k, c.kRev16)),
          h0.set(i64x2.extract_lane(k, 0)),
          h1.set(i64x2.extract_lane(k, 1)),
          m.set(i64.sub(0, i64.shr_u(h1, 63))),
          h1.set(i64.xor(i64.or(i64.shl(h1, 1), i64.shr_u(h0, 63)), i64.and(m, i64.const(0xc200000000000000n, true)))),
          h0.set(i64.xor(i64.shl(h0, 1), i64.and(m, 1))),
        ],
        [h0.set(i64x2.extract_lane(k, 0)), h1.set(i64x2.extract_lane(k, 1))],
      ),
      i64.store(slot, h0, 0),
      i64.store(slot, h1, 8),
      call(table, h0, h1, i32.add(slot, GF128_TABLE_OFFSET)),
    );
  }

  const w16 = options.w16 ? { table16: w16Table(flags, prefix), blocks: (name: string, ghash: boolean, one: Func) => w16Blocks(name, ghash, one, flags) } : undefined;

  const powers = new Func(`${prefix}gf128_powers`, { slot: 'i32' }, { export: true, ...pub });
  {
    const f = powers,
      { slot } = f.p;
    const [x0, x1] = f.locals('i64', ['x0', 'x1']);
    const k = f.i32('k');
    const next = label('next');
    f.emit(
      x0.set(i64.load(slot, 0)),
      x1.set(i64.load(slot, 8)),
      w16 ? [comment('the i16x8 parts of H_1 (only the loop with powers uses them)'), call(w16.table16, x0, x1, i32.add(slot, GF128_W16_OFFSET))] : [],
      k.set(1),
      loop(
        next,
        comment('H_{k+1} = dot(H_k, H_1)'),
        setMany(call(mul, x0, x1, i32.add(slot, GF128_TABLE_OFFSET)), [x0, x1]),
        call(table, x0, x1, i32.add(i32.add(slot, i32.mul(k, GF128_TABLE_SIZE)), GF128_TABLE_OFFSET)),
        w16 ? [call(w16.table16, x0, x1, i32.add(i32.add(slot, i32.mul(k, GF128_W16_SIZE)), GF128_W16_OFFSET))] : [],
        br_if(next, i32.lt_u(k.tee(i32.add(k, 1)), GF128_MAX_POWERS)),
      ),
    );
  }

  // polyval_blocks / ghash_blocks(slot, st, src, n, maxg): exported, or (with the w16 loop) the
  // internal $<name>_one that it calls for maxg = 1
  const blocks = (name: string, ghash: boolean, exported: boolean): Func => {
    const f = new Func(exported ? name : `${name}_one`, { slot: 'i32', st: 'i32', src: 'i32', n: 'i32', maxg: 'i32' }, exported ? { export: true, ...pub } : {});
    const { slot, st, src, n, maxg } = f.p;
    const s = f.v128('s');
    const [gg, j, p] = f.locals('i32', ['g', 'j', 'p']);
    const g = new Gf128Mul(f, flags);
    const toDomain = (x: Expr<'v128'>) => (ghash ? g.domain(x) : x);
    const [done, group, blk] = [label('done'), label('group'), label('block')];
    f.emit(
      g.consts(),
      g.pinAt.set(slot),
      comment(`state S in the POLYVAL domain${ghash ? ' (stored in GHASH byte order)' : ''}`),
      s.set(toDomain(v128.load(st))),
      block(
        done,
        br_if(done, i32.eqz(n)),
        loop(
          group,
          comment('g = min(n, maxg) blocks share one reduction; block j uses H_{g-j+1}'),
          gg.set(select(n, maxg, i32.lt_u(n, maxg))),
          flags.tailLate ? [if_(i32.lt_u(gg, maxg), [src.set(i32.add(src, 16))])] : [],
          g.zero(),
          p.set(i32.add(i32.add(slot, i32.mul(gg, GF128_TABLE_SIZE)), GF128_TABLE_OFFSET - GF128_TABLE_SIZE)),
          j.set(0),
          loop(
            blk,
            comment('the state enters with the first block of the group, then is zero'),
            g.v.set(v128.xor(toDomain(v128.load(src)), s)),
            s.set(v128.zero()),
            g.accumulate(p),
            src.set(i32.add(src, 16)),
            flags.wrongPower ? p.set(i32.sub(p, i32.mul(GF128_TABLE_SIZE, i32.ne(j, 0)))) : p.set(i32.sub(p, GF128_TABLE_SIZE)),
            br_if(blk, i32.lt_u(j.tee(i32.add(j, 1)), gg)),
          ),
          g.reduce(),
          s.set(i64x2.replace_lane(i64x2.splat(g.r0), 1, g.r1)),
          br_if(group, n.tee(i32.sub(n, gg))),
        ),
      ),
      v128.store(st, toDomain(s.get())),
    );
    return f;
  };

  if (w16) {
    const polyOne = blocks(`${prefix}polyval_blocks`, false, false);
    const ghashOne = blocks(`${prefix}ghash_blocks`, true, false);
    const polyval = w16.blocks(`${prefix}polyval_blocks`, false, polyOne);
    const ghash = w16.blocks(`${prefix}ghash_blocks`, true, ghashOne);
    return {
      functions: [table, w16.table16, mul, init, powers, polyOne, ghashOne, polyval, ghash],
      init,
      powers,
      polyval,
      ghash,
      exports: [init, powers, polyval, ghash],
    };
  }
  const polyval = blocks(`${prefix}polyval_blocks`, false, true);
  const ghash = blocks(`${prefix}ghash_blocks`, true, true);
  return { functions: [table, mul, init, powers, polyval, ghash], init, powers, polyval, ghash, exports: [init, powers, polyval, ghash] };
}

export function generateGf128(flags: Gf128Flags = {}): GeneratedKernel {
  const gf = gf128Functions(flags, '', { w16: true });
  const m = new Module('gf128').memory(4).add(gf.functions);
  m.header.push(target() === 'simd' ? 'GF(2^128) for GHASH and POLYVAL: carry-less multiplication with holes, constant time.' : `GF(2^128) for GHASH and POLYVAL: carry-less multiplication with holes on i64 alone; target ${target()}.`);
  return kernel(m);
}

// ---------------------------------------------------------------------------------------------
// The gf128 module's loop: two of the three Karatsuba 64×64 products on i16x8.mul (see the
// header), the middle one on i64.mul as above.

/** masks of every third bit of a 16-bit lane: pieces of at most 6 set bits, column sums ≤ 6 < 8 */
const M16 = [0x9249, 0x2492, 0x4924];

// 16-bit lane indices (-1: zero) -> byte indices for i8x16.swizzle (0x80 reads as zero)
const idx16 = (l: number[]) => l.flatMap((j) => (j < 0 ? [0x80, 0x80] : [2 * j, 2 * j + 1]));
const Z = -1;
const BSWAP16 = [1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14];
/** pairs each 16-bit chunk with its Karatsuba partner one level down: (0,1) (2,3) → 0^1 in lane 0, … */
const PAIR16 = [1, 3, 0, 2, 5, 7, 4, 6];
const SHUFFLES: Record<string, number[]> = {
  kPair: PAIR16,
  kMidLo: [0, 4, 0, Z, Z, Z, Z, Z],
  kMidHi: [3, 7, 3, Z, Z, Z, Z, Z],
  kMidRLo: [Z, Z, Z, Z, 0, 4, 0, Z],
  kMidRHi: [Z, Z, Z, Z, 3, 7, 3, Z],
  kRev4x16: [3, 2, 1, 0, 7, 6, 5, 4],
};

/**
 * The five operand vectors of a block (or of H_k, for its table): lane l of vector k holds the
 * XOR of the 16-bit chunks c_i of the block with bit i of lanes[l] set, bit-reversed where
 * rev[l]. Pure data: which chunk combination each lane of each vector holds.
 */
const LANES = (() => {
  const sw = (lanes: number[], k: string) => SHUFFLES[k].map((j) => (j < 0 ? 0 : lanes[j]));
  const x = (a: number[], b: number[]) => a.map((v, i) => v ^ b[i]);
  const V = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => 1 << i);
  const V2 = x(V, sw(V, 'kPair'));
  const V5 = x(x(sw(V2, 'kMidLo'), sw(V2, 'kMidHi')), x(sw(V2, 'kMidRLo'), sw(V2, 'kMidRHi')));
  const F = false,
    T = true;
  return [
    { name: 'v', lanes: V, rev: [F, F, F, F, F, F, F, F] },
    { name: 'V2', lanes: V2, rev: [F, F, F, F, F, F, F, F] },
    { name: 'vr16', lanes: V, rev: [T, T, T, T, T, T, T, T] },
    { name: 'V2r', lanes: V2, rev: [T, T, T, T, T, T, T, T] },
    { name: 'V5', lanes: V5, rev: [F, F, F, F, T, T, T, T] },
  ];
})();
if (LANES.length * 48 !== GF128_W16_SIZE) throw new Error('w16 table size');

// the lane holding operand (word W of 64 bits, 32-bit half h, 16-bit half s), plain or reversed
const chunk = (W: number, t: number) => 1 << (4 * W + t);
const opMask = (W: number, h: number, s: number) => {
  const u0 = h === 0 ? chunk(W, 0) : h === 1 ? chunk(W, 2) : chunk(W, 0) ^ chunk(W, 2);
  const u1 = h === 0 ? chunk(W, 1) : h === 1 ? chunk(W, 3) : chunk(W, 1) ^ chunk(W, 3);
  return s === 0 ? u0 : s === 1 ? u1 : u0 ^ u1;
};
const find = (m: number, rev: boolean): [number, number] => {
  for (let k = 0; k < LANES.length; k++) for (let l = 0; l < 8; l++) if (LANES[k].lanes[l] === m && LANES[k].rev[l] === rev) return [k, l];
  throw new Error(`operand ${m.toString(2)} rev=${rev} in no lane`);
};

/** The w16 constants of f, declared in f in this order. */
function w16Consts(f: Func, t: Local<'v128'>, flags: Gf128Flags) {
  const names = ['kLaneRev', 'kBswap16', 'kRev16', 'kNib', 'kRevHi', 'kRevLo', 'm0', 'm1', 'm2', ...Object.keys(SHUFFLES)];
  const c = revConsts(f, t, flags, names);
  const l = (n: string) => f.v128(n);
  const hex16 = (m: number) => '0x' + m.toString(16).padStart(4, '0');
  return {
    ...c,
    kBswap16: l('kBswap16'),
    m: [l('m0'), l('m1'), l('m2')],
    init: [
      c.kLaneRev.set(v128.bytes(LANE_REV)),
      l('kBswap16').set(v128.bytes(BSWAP16)),
      c.kRev16.set(v128.bytes(reverse16(flags))),
      c.nib.set(v128.bytes(NIBBLE)),
      c.hi.set(v128.bytes(REV_HI)),
      c.lo.set(v128.bytes(REV_LO)),
      ...M16.map((m, i) => l(`m${i}`).set(v128.i16x8(Array(8).fill(hex16(m))))),
      ...Object.entries(SHUFFLES).map(([k, lanes]) => l(k).set(v128.bytes(idx16(lanes)))),
    ],
  };
}

/** The five operand vectors of the block in v, computed into their locals. */
function w16Operands(f: Func, c: ReturnType<typeof w16Consts>): Stmt[] {
  const [v, V2, vr16, V2r, V5] = ['v', 'V2', 'vr16', 'V2r', 'V5'].map((n) => f.v128(n));
  const sw = (x: Local<'v128'>, k: string) => i8x16.swizzle(x, f.v128(k));
  const [rs, rv] = revBits(c, v, c.kBswap16);
  return [V2.set(v128.xor(v, sw(v, 'kPair'))), rs, vr16.set(rv), V2r.set(v128.xor(vr16, sw(vr16, 'kPair'))), V5.set(v128.xor(v128.xor(sw(V2, 'kMidLo'), sw(V2, 'kMidHi')), v128.xor(sw(V2r, 'kMidRLo'), sw(V2r, 'kMidRHi'))))];
}

/** $table16(x0, x1, dst): the 240 bytes of H = (x0, x1): for each vector, its lanes masked by m0, m1, m2. */
function w16Table(flags: Gf128Flags, prefix: string): Func {
  const f = new Func(`${prefix}table16`, { x0: 'i64', x1: 'i64', dst: 'i32' });
  const { x0, x1, dst } = f.p;
  const [v, t] = f.locals('v128', ['v', 't', 'vr16', 'V2', 'V2r', 'V5']);
  const c = w16Consts(f, t, flags);
  f.emit(
    c.init,
    v.set(i64x2.replace_lane(i64x2.splat(x0), 1, x1)),
    w16Operands(f, c),
    LANES.flatMap((d, k) => c.m.map((m, i) => v128.store(dst, v128.and(f.v128(d.name), m), k * 48 + 16 * i))),
  );
  return f;
}

/**
 * The i16x8 multiplication inside the w16 loop function f: declares its locals there when
 * created (after the caller's state s); per block in v, with its power's tables at p (64-bit
 * parts) and q (16-bit parts), `products(p, q)`; per group `zero()` first and `reduce()` last,
 * which leaves the product in c2 (low) and c3 (high). Pinning stores go to the slot.
 */
class W16Mul {
  readonly c: ReturnType<typeof w16Consts>;
  readonly #A: Local<'v128'>[];
  readonly #H: Local<'v128'>[];

  constructor(
    readonly f: Func,
    readonly flags: Gf128Flags,
    readonly slot: Local<'i32'>,
  ) {
    const t = f.locals('v128', ['v', 'vr', 'vr16', 't', 'vpin', 'X0', 'X1', 'X2', 'Y0', 'Y1', 'Y2', 'V2', 'V2r', 'V5'])[3];
    f.locals(
      'v128',
      LANES.flatMap((_, k) => [`A${k}`, `H${k}`]),
    );
    this.c = w16Consts(f, t, flags);
    f.locals('i64', ['a2', 'ar2', 'x0', 'x1', 'x2', 'x3', 'y0', 'y1', 'y2', 'y3', 'e0', 'e1', 'ex', 'f0', 'f1', 'f2']);
    f.locals('i64', ['L0', 'L1', 'L2', 'R0', 'R1', 'R2', 'c0', 'c1', 'c2', 'c3', 'pin']);
    this.#A = LANES.map((_, k) => f.v128(`A${k}`));
    this.#H = LANES.map((_, k) => f.v128(`H${k}`));
  }

  zero(): Stmt[] {
    return [this.f.i64('L2').set(0), this.f.i64('R2').set(0), ...this.#A.map((a) => a.set(v128.zero()))];
  }

  /** acc ^= clmul_lo64(w, table word at off) on i64.mul, pinned. */
  #scalarHalf(p: Local<'i32'>, w: string, acc: string, off: number): Stmt[] {
    const f = this.f;
    const [code, value] = clmulLo64(f, f.i64(w), f.i64(acc), p, off, ' on i64.mul');
    return [...code, f.i64('pin').set(value), i64.store(this.slot, f.i64('pin'), 48)];
  }

  /** A_k ^= the eight 16×16 low products of vector k's lanes with H's (9 i16x8.mul), pinned. */
  #simdVec(q: Local<'i32'>, k: number): Stmt[] {
    const f = this.f,
      c = this.c;
    const d = f.v128(LANES[k].name);
    const X = ['X0', 'X1', 'X2'].map((x) => f.v128(x));
    const Y = ['Y0', 'Y1', 'Y2'].map((x) => f.v128(x));
    const A = this.#A[k];
    const z = (k2: number) => v128.and(v128.xor(...(X.map((xi, i) => i16x8.mul(xi, Y[(k2 - i + 3) % 3])) as [Expr<'v128'>, Expr<'v128'>])), c.m[k2]);
    return [
      comment(`A${k} ^= clmul_lo16 of the lanes of ${d.name} (i16x8.mul)`),
      ...X.map((xi, i) => xi.set(v128.and(d, c.m[i]))),
      ...Y.map((yi, i) => yi.set(v128.load(q, k * 48 + 16 * i))),
      f.v128('vpin').set(A.tee(v128.xor(A, v128.or(z(0), z(1), z(2))))),
      v128.store(this.slot, f.v128('vpin'), GF128_W16_PIN),
    ];
  }

  /** One block's operands and products (the order measured fastest: probe variant o9). */
  products(p: Local<'i32'>, q: Local<'i32'>): Stmt[] {
    const f = this.f;
    const [v, vr] = [f.v128('v'), f.v128('vr')];
    const S = LANES.map((_, k) => this.#simdVec(q, k));
    return [
      ...w16Operands(f, this.c),
      vr.set(i8x16.swizzle(f.v128('vr16'), f.v128('kRev4x16'))),
      f.i64('a2').set(i64.xor(i64x2.extract_lane(v, 0), i64x2.extract_lane(v, 1))),
      f.i64('ar2').set(i64.xor(i64x2.extract_lane(vr, 0), i64x2.extract_lane(vr, 1))),
      ...S[0],
      ...S[2],
      ...this.#scalarHalf(p, 'a2', 'L2', 64),
      ...S[1],
      ...S[3],
      ...this.#scalarHalf(p, 'ar2', 'R2', 160),
      ...S[4],
    ];
  }

  /** The 16 → 32 → 64-bit Karatsuba recombination of the lanes, then the shared reduction. */
  reduce(): Stmt[] {
    const f = this.f,
      c = this.c,
      A = this.#A,
      H = this.#H;
    const [e0, e1, ex] = ['e0', 'e1', 'ex'].map((x) => f.i64(x));
    const fh = ['f0', 'f1', 'f2'].map((x) => f.i64(x));
    const R2 = f.i64('R2');
    const out: Stmt[] = [comment('high 16 bits of the reversed lanes: rev16(A) >> 1')];
    LANES.forEach((d, k) => {
      if (!d.rev.some((x) => x)) return;
      const [rs, rv] = revBits(c, A[k], c.kBswap16);
      out.push(rs, H[k].set(i16x8.shr_u(rv, 1)));
    });
    // 32-bit product of operand (W, h, s): low 16 bits from the plain lane, high from the reversed one
    const P = (W: number, h: number, s: number) => {
      const lo = find(opMask(W, h, s), false);
      const rv = find(opMask(W, h, s), true);
      return i64.extend_i32_u(i32.or(i16x8.extract_lane_u(A[lo[0]], lo[1]), i32.shl(i16x8.extract_lane_u(H[rv[0]], rv[1]), 16)));
    };
    for (const W of [0, 1]) {
      out.push(comment(`Karatsuba recombination 16 -> 32 -> 64 bits of word ${W}: L${W} (low 64), R${W} (high 64)`));
      for (let h = 0; h < 3; h++) {
        out.push(e0.set(P(W, h, 0)), e1.set(P(W, h, 1)), ex.set(P(W, h, 2)), fh[h].set(i64.xor(e0, i64.shl(i64.xor(e0, e1, ex), 16), i64.shl(e1, 32))));
      }
      out.push(ex.set(i64.xor(fh[0], fh[1], fh[2])), f.i64(`L${W}`).set(i64.xor(fh[0], i64.shl(ex, 32))), f.i64(`R${W}`).set(i64.xor(fh[1], i64.shr_u(ex, 32))));
    }
    const [rs, rv] = revBits(c, i64x2.splat(R2), c.kLaneRev);
    out.push(comment('high half of the middle product: rev64 of the reversed one, shifted right by one'), rs, R2.set(i64.shr_u(i64x2.extract_lane(rv, 0), 1)), ...recombineReduce(f, this.flags));
    return out;
  }
}

/**
 * polyval_blocks / ghash_blocks of the gf128 module: groups of g ≤ maxg blocks with one
 * reduction each on the i16x8 products, the block carrying the state hashed last; maxg = 1
 * (no powers computed) calls the i64.mul loop `one`.
 */
function w16Blocks(name: string, ghash: boolean, one: Func, flags: Gf128Flags): Func {
  const f = new Func(name, { slot: 'i32', st: 'i32', src: 'i32', n: 'i32', maxg: 'i32' }, { export: true, public: 'all' });
  const { slot, st, src, n, maxg } = f.p;
  const s = f.v128('s');
  const w = new W16Mul(f, flags, slot);
  const [gg, j, p, q, src1, p1, q1] = f.locals('i32', ['g', 'j', 'p', 'q', 'src1', 'p1', 'q1']);
  const v = f.v128('v');
  const toDomain = (x: Expr<'v128'>) => (ghash ? i8x16.swizzle(x, w.c.kRev16) : x);
  const next = (all: boolean) => [src.set(i32.add(src, 16)), ...(all ? [p.set(i32.sub(p, GF128_TABLE_SIZE)), q.set(i32.sub(q, GF128_W16_SIZE))] : [])];
  const [done, group, rest, blk] = [label('done'), label('group'), label('rest'), label('block')];
  f.emit(
    comment('one block per group (no powers of H computed): the i64.mul loop, which needs only the table of H_1'),
    if_(i32.le_u(maxg, 1), [call(one, slot, st, src, n, maxg), ret()]),
    w.c.init,
    comment(`state S in the POLYVAL domain${ghash ? ' (stored in GHASH byte order)' : ''}`),
    s.set(toDomain(v128.load(st))),
    block(
      done,
      br_if(done, i32.eqz(n)),
      loop(
        group,
        comment('g = min(n, maxg) blocks share one reduction; block j uses H_{g-j+1}'),
        gg.set(select(n, maxg, i32.lt_u(n, maxg))),
        flags.tailLate ? [if_(i32.lt_u(gg, maxg), [src.set(i32.add(src, 16))])] : [],
        w.zero(),
        p.set(i32.add(i32.add(slot, i32.mul(gg, GF128_TABLE_SIZE)), GF128_TABLE_OFFSET - GF128_TABLE_SIZE)),
        q.set(i32.add(i32.add(slot, i32.mul(gg, GF128_W16_SIZE)), GF128_W16_OFFSET - GF128_W16_SIZE)),
        src1.set(src),
        p1.set(p),
        q1.set(q),
        comment('blocks 2…g first, then block 1 with the state XORed in (the state arrives last)'),
        block(rest, br_if(rest, i32.le_u(gg, 1)), j.set(1), next(!flags.wrongPower), loop(blk, v.set(toDomain(v128.load(src))), w.products(p, q), next(true), br_if(blk, i32.lt_u(j.tee(i32.add(j, 1)), gg)))),
        v.set(v128.xor(toDomain(v128.load(src1)), s)),
        p.set(p1),
        q.set(q1),
        w.products(p, q),
        src.set(i32.add(src1, i32.shl(gg, 4))),
        w.reduce(),
        s.set(i64x2.replace_lane(i64x2.splat(f.i64('c2')), 1, f.i64('c3'))),
        br_if(group, n.tee(i32.sub(n, gg))),
      ),
    ),
    v128.store(st, toDomain(s.get())),
  );
  return f;
}

// ---------------------------------------------------------------------------------------------
// The scalar targets (wasm, js): the same multiplication with holes and Montgomery reduction on
// i64 alone; a block is two i64 words, the bit reversal six mask-and-shift steps per word
// (BearSSL's rev64), GHASH's 16-byte reversal two byte swaps of words.

const K = (v: bigint) => i64.const(v, true);
/** x with the bit groups of width w (at masks m) swapped: ((x >> w) & m) | ((x & m) << w). */
const swapBits = (x: Val<'i64'>, w: number, m: bigint): Expr<'i64'> => i64.or(i64.and(i64.shr_u(x, BigInt(w)), K(m)), i64.shl(i64.and(x, K(m)), BigInt(w)));

/** The bytes of x reversed, in the local t (three statements). */
function bswap64(t: Local<'i64'>, x: Val<'i64'>): Stmt[] {
  return [t.set(swapBits(x, 8, 0x00ff00ff00ff00ffn)), t.set(swapBits(t, 16, 0x0000ffff0000ffffn)), t.set(i64.rotl(t, 32n))];
}

/** The bits of x reversed, in the local t. */
function rev64(t: Local<'i64'>, x: Val<'i64'>): Stmt[] {
  return [t.set(swapBits(x, 1, 0x5555555555555555n)), t.set(swapBits(t, 2, 0x3333333333333333n)), t.set(swapBits(t, 4, 0x0f0f0f0f0f0f0f0fn)), ...bswap64(t, t)];
}

/**
 * GHASH's 16-byte block at addr in POLYVAL's order: (lo, hi) = (bswap(hi word), bswap(lo word));
 * byteSlip (the negative control) swaps the two low bytes, as the SIMD reversal does.
 */
function domainWords(lo: Local<'i64'>, hi: Local<'i64'>, x0: Val<'i64'>, x1: Val<'i64'>, flags: Gf128Flags): Stmt[] {
  const slip = flags.byteSlip ? [lo.set(i64.or(i64.and(lo, K(~0xffffn)), i64.shl(i64.and(lo, 0xff), 8n), i64.and(i64.shr_u(lo, 8n), 0xff)))] : [];
  return [...bswap64(hi, x0), ...bswap64(lo, x1), ...slip];
}

/** Gf128Mul's scalar counterpart: the block in (v0, v1), the result in (r0, r1). */
class Gf128MulScalar {
  readonly v0: Local<'i64'>;
  readonly v1: Local<'i64'>;
  readonly r0: Local<'i64'>;
  readonly r1: Local<'i64'>;
  readonly pinAt: Local<'i32'>;

  constructor(
    readonly f: Func,
    readonly flags: Gf128Flags,
  ) {
    [this.v0, this.v1] = f.locals('i64', ['v0', 'v1']);
    f.locals('i64', ['a0', 'a1', 'a2', 'ar0', 'ar1', 'ar2', 'x0', 'x1', 'x2', 'x3', 'y0', 'y1', 'y2', 'y3']);
    f.locals('i64', ['L0', 'L1', 'L2', 'R0', 'R1', 'R2', 'c0', 'c1', 'c2', 'c3', 'r0', 'r1', 'pin']);
    this.pinAt = f.i32('pinAt');
    this.r0 = f.i64('r0');
    this.r1 = f.i64('r1');
  }

  zero(): Stmt[] {
    return ['L0', 'L1', 'L2', 'R0', 'R1', 'R2'].map((n) => this.f.i64(n).set(0));
  }

  /** One block's six products into the accumulators, for the table at p. */
  accumulate(p: Local<'i32'>): Stmt[] {
    const f = this.f;
    const [a0, a1, a2, ar0, ar1, ar2] = ['a0', 'a1', 'a2', 'ar0', 'ar1', 'ar2'].map((n) => f.i64(n));
    const pin = f.i64('pin');
    const out: Stmt[] = [a0.set(this.v0), a1.set(this.v1), a2.set(i64.xor(a0, a1)), ...rev64(ar0, a0), ...rev64(ar1, a1), ar2.set(i64.xor(ar0, ar1))];
    const words: [Local<'i64'>, string][] = [
      [a0, 'L0'],
      [a1, 'L1'],
      [a2, 'L2'],
      [ar0, 'R0'],
      [ar1, 'R1'],
      [ar2, 'R2'],
    ];
    words.forEach(([w, acc], k) => {
      const [code, value] = clmulLo64(f, w, f.i64(acc), p, k * 32);
      out.push(...code, pin.set(value), i64.store(this.pinAt, pin, 48));
    });
    return out;
  }

  reduce(): Stmt[] {
    const f = this.f;
    const [R0, R1, R2] = ['R0', 'R1', 'R2'].map((n) => f.i64(n));
    return [
      comment('high halves: rev64 of the accumulated reversed products, shifted right by one'),
      ...[R0, R1, R2].flatMap((r) => [...rev64(r, r), r.set(i64.shr_u(r, 1n))]),
      ...recombineReduce(f, this.flags),
      this.r0.set(f.i64('c2')),
      this.r1.set(f.i64('c3')),
    ];
  }
}

/** ctmul64 on i64 alone (the wasm target), as a technique of the scalar loops below. */
function ctmul64Technique(flags: Gf128Flags, prefix: string): ScalarTechnique {
  const table = new Func(`${prefix}table`, { x0: 'i64', x1: 'i64', dst: 'i32' });
  {
    const f = table,
      { x0, x1, dst } = f.p;
    const [w, r0, r1] = f.locals('i64', ['w', 'r0', 'r1']);
    f.emit(rev64(r0, x0), rev64(r1, x1));
    const parts: Expr<'i64'>[] = [x0.get(), x1.get(), i64.xor(x0, x1), r0.get(), r1.get(), i64.xor(r0, r1)];
    parts.forEach((e, k) =>
      f.emit(
        w.set(e),
        M.map((_, i) => i64.store(dst, i64.and(w, mask(i)), k * 32 + 8 * i)),
      ),
    );
  }

  // the reduction of the six accumulators, a function of its own: inline in mul and the block
  // loops it took their printed JavaScript past V8's 60 KiB bytecode limit for optimisation
  const acc = ['L0', 'L1', 'L2', 'R0', 'R1', 'R2'] as const;
  const red = new Func(`${prefix}reduce`, { L0: 'i64', L1: 'i64', L2: 'i64', R0: 'i64', R1: 'i64', R2: 'i64' }, { results: ['i64', 'i64'] });
  {
    const g = new Gf128MulScalar(red, flags);
    red.emit(g.reduce(), g.r0.get(), g.r1.get());
  }
  const bind = (f: Func): ScalarMul => {
    const g = new Gf128MulScalar(f, flags);
    return {
      v0: g.v0,
      v1: g.v1,
      setup: (slot) => [g.pinAt.set(slot)],
      zero: () => g.zero(),
      accumulate: (p) => g.accumulate(p),
      reduceInto: (r0, r1) => setMany(call(red, ...acc.map((n) => f.i64(n))), [r0, r1]),
    };
  };
  return { table, helpers: [red], bind };
}

/**
 * The scalar targets' functions around a multiplication technique: ctmul64 for wasm (i64.mul is
 * one instruction), ctmul32 (gf128_ctmul32.ts) for js (where every Math.imul counts).
 */
function gf128FunctionsScalar(flags: Gf128Flags, prefix: string): Gf128Functions {
  const pub = { public: 'all' as const };
  const tech = target() === 'js' ? ctmul32Technique(prefix, ([c0, c1, c2, c3]) => [...foldStep(c0, c1, c2, !!flags.dropReductionTerm), ...foldStep(c1, c2, c3, false)]) : ctmul64Technique(flags, prefix);
  const { table } = tech;

  const mul = new Func(`${prefix}mul`, { m0: 'i64', m1: 'i64', p: 'i32' }, { results: ['i64', 'i64'] });
  {
    const f = mul,
      { m0, m1, p } = f.p;
    const g = tech.bind(f);
    const [r0, r1] = f.locals('i64', ['r0', 'r1']);
    f.emit(g.setup(i32.sub(p, GF128_TABLE_OFFSET)), g.zero(), g.v0.set(m0), g.v1.set(m1), g.accumulate(p), g.reduceInto(r0, r1), r0.get(), r1.get());
  }

  const init = new Func(`${prefix}gf128_init`, { slot: 'i32', ghash: 'i32' }, { export: true, ...pub });
  {
    const f = init,
      { slot, ghash } = f.p;
    const [h0, h1, m, t] = f.locals('i64', ['h0', 'h1', 'm', 't']);
    f.emit(
      h0.set(i64.load(slot, 0)),
      h1.set(i64.load(slot, 8)),
      if_(ghash, [
        comment('GHASH key: H_polyval = mulX(rev16(H)); mulX masks the reduction, no branch on the key'),
        ...domainWords(m, t, h0, h1, flags),
        h0.set(m),
        h1.set(t),
        m.set(i64.sub(0, i64.shr_u(h1, 63n))),
        h1.set(i64.xor(i64.or(i64.shl(h1, 1n), i64.shr_u(h0, 63n)), i64.and(m, K(0xc200000000000000n)))),
        h0.set(i64.xor(i64.shl(h0, 1n), i64.and(m, 1))),
      ]),
      i64.store(slot, h0, 0),
      i64.store(slot, h1, 8),
      call(table, h0, h1, i32.add(slot, GF128_TABLE_OFFSET)),
    );
  }

  const powers = new Func(`${prefix}gf128_powers`, { slot: 'i32' }, { export: true, ...pub });
  {
    const f = powers,
      { slot } = f.p;
    const [x0, x1] = f.locals('i64', ['x0', 'x1']);
    const k = f.i32('k');
    const next = label('next');
    f.emit(
      x0.set(i64.load(slot, 0)),
      x1.set(i64.load(slot, 8)),
      k.set(1),
      loop(
        next,
        comment('H_{k+1} = dot(H_k, H_1)'),
        setMany(call(mul, x0, x1, i32.add(slot, GF128_TABLE_OFFSET)), [x0, x1]),
        call(table, x0, x1, i32.add(i32.add(slot, i32.mul(k, GF128_TABLE_SIZE)), GF128_TABLE_OFFSET)),
        br_if(next, i32.lt_u(k.tee(i32.add(k, 1)), GF128_MAX_POWERS)),
      ),
    );
  }

  const blocks = (name: string, ghash: boolean): Func => {
    const f = new Func(name, { slot: 'i32', st: 'i32', src: 'i32', n: 'i32', maxg: 'i32' }, { export: true, ...pub });
    const { slot, st, src, n, maxg } = f.p;
    const [s0, s1, t0, t1] = f.locals('i64', ['s0', 's1', 't0', 't1']);
    const [gg, j, p] = f.locals('i32', ['g', 'j', 'p']);
    const g = tech.bind(f);
    // (lo, hi) = the 16 bytes at addr in the POLYVAL domain
    const load = (lo: Local<'i64'>, hi: Local<'i64'>, addr: Val<'i32'>): Stmt[] => (ghash ? [t0.set(i64.load(addr, 0)), t1.set(i64.load(addr, 8)), ...domainWords(lo, hi, t0, t1, flags)] : [lo.set(i64.load(addr, 0)), hi.set(i64.load(addr, 8))]);
    const [done, group, blk] = [label('done'), label('group'), label('block')];
    f.emit(
      g.setup(slot),
      comment(`state S in the POLYVAL domain${ghash ? ' (stored in GHASH byte order)' : ''}`),
      load(s0, s1, st),
      block(
        done,
        br_if(done, i32.eqz(n)),
        loop(
          group,
          comment('g = min(n, maxg) blocks share one reduction; block j uses H_{g-j+1}'),
          gg.set(select(n, maxg, i32.lt_u(n, maxg))),
          flags.tailLate ? [if_(i32.lt_u(gg, maxg), [src.set(i32.add(src, 16))])] : [],
          g.zero(),
          p.set(i32.add(i32.add(slot, i32.mul(gg, GF128_TABLE_SIZE)), GF128_TABLE_OFFSET - GF128_TABLE_SIZE)),
          j.set(0),
          loop(
            blk,
            comment('the state enters with the first block of the group, then is zero'),
            load(g.v0, g.v1, src),
            g.v0.set(i64.xor(g.v0, s0)),
            g.v1.set(i64.xor(g.v1, s1)),
            s0.set(0),
            s1.set(0),
            g.accumulate(p),
            src.set(i32.add(src, 16)),
            flags.wrongPower ? p.set(i32.sub(p, i32.mul(GF128_TABLE_SIZE, i32.ne(j, 0)))) : p.set(i32.sub(p, GF128_TABLE_SIZE)),
            br_if(blk, i32.lt_u(j.tee(i32.add(j, 1)), gg)),
          ),
          g.reduceInto(s0, s1),
          br_if(group, n.tee(i32.sub(n, gg))),
        ),
      ),
      ghash ? [...domainWords(t0, t1, s0, s1, flags), i64.store(st, t0, 0), i64.store(st, t1, 8)] : [i64.store(st, s0, 0), i64.store(st, s1, 8)],
    );
    return f;
  };
  const polyval = blocks(`${prefix}polyval_blocks`, false);
  const ghash = blocks(`${prefix}ghash_blocks`, true);
  return { functions: [table, ...tech.helpers, mul, init, powers, polyval, ghash], init, powers, polyval, ghash, exports: [init, powers, polyval, ghash] };
}

// Poly1305 (RFC 8439 §2.5) in radix 2^26 on 64-bit integer multiplies, several blocks per step
// with precomputed powers of r.
//
// Representation: h (below 2^130 + ε) as five 26-bit limbs in i64 locals. A product h·r mod
// 2^130 − 5 is 25 i64.mul (a limb product landing at 2^(26·(i+j)), i + j ≥ 5, is folded down
// with s_j = 5·r_j), summed in 64 bits, then one partial carry chain. Bounds: limbs below 2^27.1
// before a multiply and 5·r_j below 2^28.4, so a product is below 2^55.5 and a sum of twenty
// (four blocks) below 2^60.
//
// Multi-block: h' = (h + m1)·r^4 + m2·r^3 + m3·r^2 + m4·r, with r^2 … r^8 computed once per
// key; eight blocks run r^8 … r^5 here and the other four in SIMD lanes (poly1305_simd128.ts).
// The accumulator and the powers stay in locals across the loop.
//
// Why constant time: only add, mul, shift, and, or on key, message and accumulator; branches and
// addresses depend on pointers and block counts; the final reduction chooses h or h − p by a mask
// from a sign bit, and the + s carry is an unsigned compare turned into a number.
//
// Cost: 25 multiplies and ~40 other operations per block (~1.8 GB/s on the probe).
//
// State layout at p (bytes; limbs as u32): 0 h0…h4; 32 + 32(k−1) r^k (k = 1…8); 288 s; 304 the
// lane tables of poly1305_simd128.ts (144 bytes). The glue owns buffering and the padding of a
// final partial block: this kernel sees whole blocks, the 2^128 bit added or not (hibit).

import { Func, type Local, type Stmt, type Val, block, br, br_if, call, comment, i32, i64, if_, label, loop, target, v128 } from './builder/index.js';
import { PolySimd, buildLaneTables } from './poly1305_simd128.js';

export const POLY_STATE_SIZE = 448;
const POLY_R = [1, 2, 3, 4, 5, 6, 7, 8].map((k) => 32 * k); // offsets of r^1 … r^8
export const POLY_S = 288;
const POLY_V = 304;

export interface PolyFlags {
  /** the four-block step applies the powers in the wrong order (m1·r, …, m4·r^4) */
  powersReversed?: boolean;
  /** the final reduction's h + 5 − 2^130 drops the carry out of its lowest limb */
  finalCarryLost?: boolean;
}

const M26 = () => i64.const(0x3ffffff, true);

/**
 * The Poly1305 arithmetic inside one function f: its i64 locals (declared when created: the
 * accumulator h, the products d, the block m, and the powers r^k for k in ks with 5·r^k), and
 * the code of its steps. The state pointer is f's local p.
 */
export class Poly {
  readonly h: Local<'i64'>[];
  readonly d: Local<'i64'>[];
  readonly m: Local<'i64'>[];
  readonly pc: Local<'i64'>;
  readonly mt: Local<'i64'>[];
  readonly #f: Func;

  constructor(f: Func, ks: number[]) {
    const five = (p: string) => [0, 1, 2, 3, 4].map((i) => f.i64(`${p}${i}`));
    this.#f = f;
    this.h = five('h');
    this.d = five('d');
    this.pc = f.i64('pc');
    this.m = five('m');
    this.mt = [f.i64('mt0'), f.i64('mt1')];
    for (const k of ks) {
      for (let i = 0; i < 5; i++) f.i64(`r${k}_${i}`);
      for (let i = 1; i < 5; i++) f.i64(`s${k}_${i}`);
    }
  }

  get #p(): Local<'i32'> {
    return this.#f.i32('p');
  }

  /** r^k's limb t (t < 5), or 5·r^k's limb t + 5 for t < 0 */
  #r(k: number, t: number): Local<'i64'> {
    return this.#f.i64(t >= 0 ? `r${k}_${t}` : `s${k}_${t + 5}`);
  }

  /** Load h from the state at p. */
  loadH(): Stmt[] {
    return this.h.map((h, i) => h.set(i64.load32_u(this.#p, 4 * i)));
  }

  /** Load the powers r^k (k in ks) and their 5·r^k limbs from the state at p. */
  loadR(ks: number[]): Stmt[] {
    return ks.flatMap((k) => [...[0, 1, 2, 3, 4].map((i) => this.#r(k, i).set(i64.load32_u(this.#p, POLY_R[k - 1] + 4 * i))), ...[1, 2, 3, 4].map((i) => this.#r(k, i - 5).set(i64.mul(this.#r(k, i), 5)))]);
  }

  /** Store h back to the state at p. */
  store(): Stmt[] {
    return this.h.map((h, i) => i64.store32(this.#p, h, 4 * i));
  }

  /** The 26-bit limbs of the block at (addr + off) into m, with the 2^128 bit from `hib`. */
  loadBlock(addr: Local<'i32'>, off: number, hib: Val<'i64'>): Stmt[] {
    const [mt0, mt1] = this.mt;
    const m = this.m;
    return [
      mt0.set(i64.load(addr, off)),
      mt1.set(i64.load(addr, off + 8)),
      m[0].set(i64.and(mt0, M26())),
      m[1].set(i64.and(i64.shr_u(mt0, 26), M26())),
      m[2].set(i64.and(i64.or(i64.shr_u(mt0, 52), i64.shl(mt1, 12)), M26())),
      m[3].set(i64.and(i64.shr_u(mt1, 14), M26())),
      m[4].set(i64.or(i64.shr_u(mt1, 40), hib)),
    ];
  }

  /** d_i (+)= x · r^k: 25 products, the ones that land above 2^130 folded with 5·r. */
  mulInto(x: Local<'i64'>[], k: number, first: boolean): Stmt[] {
    return this.d.map((d, i) => {
      const terms = x.map((xj, j) => i64.mul(xj, this.#r(k, i - j)));
      return d.set(first ? i64.add(terms[0], terms[1], ...terms.slice(2)) : i64.add(d, terms[0], ...terms.slice(1)));
    });
  }

  /** h = (h + m)·… : m += h */
  #addH(): Stmt[] {
    return this.m.map((m, i) => m.set(i64.add(m, this.h[i])));
  }

  /** Partial carry d → h (h1 may exceed 2^26 slightly; every other limb is below 2^26). */
  carry(): Stmt[] {
    const { d, h, pc } = this;
    const out: Stmt[] = [];
    for (let i = 0; i < 4; i++) out.push(d[i + 1].set(i64.add(i64.shr_u(d[i], 26), d[i + 1])), h[i].set(i64.and(d[i], M26())));
    out.push(pc.set(i64.shr_u(d[4], 26)), h[4].set(i64.and(d[4], M26())), h[0].set(i64.add(h[0], i64.mul(pc, 5))), h[1].set(i64.add(h[1], i64.shr_u(h[0], 26))), h[0].set(i64.and(h[0], M26())));
    return out;
  }

  /** One block at (addr + off): h = (h + m)·r. */
  step1(addr: Local<'i32'>, off: number, hib: Val<'i64'>): Stmt[] {
    return [...this.loadBlock(addr, off, hib), ...this.#addH(), ...this.mulInto(this.m, 1, true), ...this.carry()];
  }

  /** Four blocks at (addr + off) into d: (h + m1)·r^ks[0] + m2·r^ks[1] + m3·r^ks[2] + m4·r^ks[3]. */
  #products4(addr: Local<'i32'>, off: number, hib: Val<'i64'>, ks: number[], flags: PolyFlags, pin?: (j: number) => Stmt[]): Stmt[] {
    const order = flags.powersReversed ? [...ks].reverse() : ks;
    const out: Stmt[] = [];
    for (let j = 0; j < 4; j++) {
      out.push(...this.loadBlock(addr, off + 16 * j, hib));
      if (j === 0) out.push(...this.#addH());
      out.push(...this.mulInto(this.m, order[j], j === 0));
      if (pin) out.push(...pin(j));
    }
    return out;
  }

  /**
   * Four blocks at (addr + off): h = (h + m1)·r^4 + m2·r^3 + m3·r^2 + m4·r; `pin(j)`, when
   * given, is emitted after block j's products (a store that keeps the next block's loads after
   * them: src/kernels/chacha20_simd128.ts).
   */
  step4(addr: Local<'i32'>, off: number, hib: Val<'i64'>, flags: PolyFlags = {}, pin?: (j: number) => Stmt[]): Stmt[] {
    return [...this.#products4(addr, off, hib, [4, 3, 2, 1], flags, pin), ...this.carry()];
  }

  /** Eight blocks at (addr + off): the scalar half with r^8…r^5, the SIMD half with r^4…r, one carry. */
  step8(simd: PolySimd, addr: Local<'i32'>, off: number, hib: Val<'i64'>, flags: PolyFlags = {}): Stmt[] {
    return [...this.#products4(addr, off, hib, [8, 7, 6, 5], flags), ...simd.quad(addr, off + 64, this.d), ...this.carry()];
  }
}

/** `while (n >= k) { step; src += 16k; n -= k }`, for $poly1305_blocks. */
function stepLoop(name: string, n: Local<'i32'>, src: Local<'i32'>, k: number, step: Stmt[]): Stmt {
  const [done, lp] = [label(`${name}_done`), label(name)];
  return block(done, loop(lp, br_if(done, i32.lt_u(n, k)), step, src.set(i32.add(src, 16 * k)), n.set(i32.sub(n, k)), br(lp)));
}

export interface PolyFunctions {
  init: Func;
  powers: Func;
  blocks: Func;
  finish: Func;
  /** in module order */
  functions: Func[];
}

/**
 * The module-level Poly1305 functions: $poly1305_init(p, key), $poly1305_powers(p),
 * $poly1305_blocks(p, src, n, maxg, hibit), $poly1305_finish(p, out), and the internal
 * $poly1305_mul(p, a, b, out) that multiplies the r-limb vectors at offsets a and b.
 */
export function polyFunctions(flags: PolyFlags = {}): PolyFunctions {
  const pub = { export: true, public: 'all' } as const;
  const init = new Func('poly1305_init', { p: 'i32', key: 'i32' }, pub);
  {
    const { p, key } = init.p;
    const [t0, t1] = init.locals('i64', ['t0', 't1']);
    init.emit(
      comment('r = clamp(key[0..16]) as five 26-bit limbs, s = key[16..32], h = 0'),
      t0.set(i64.and(i64.load(key, 0), i64.const(0x0ffffffc0fffffffn, true))),
      t1.set(i64.and(i64.load(key, 8), i64.const(0x0ffffffc0ffffffcn, true))),
      i64.store32(p, i64.and(t0, M26()), POLY_R[0]),
      i64.store32(p, i64.and(i64.shr_u(t0, 26), M26()), POLY_R[0] + 4),
      i64.store32(p, i64.and(i64.or(i64.shr_u(t0, 52), i64.shl(t1, 12)), M26()), POLY_R[0] + 8),
      i64.store32(p, i64.and(i64.shr_u(t1, 14), M26()), POLY_R[0] + 12),
      i64.store32(p, i64.shr_u(t1, 40), POLY_R[0] + 16),
      i64.store(p, i64.load(key, 16), POLY_S),
      i64.store(p, i64.load(key, 24), POLY_S + 8),
      ...(target() === 'simd' ? [v128.store(p, v128.zero(), 0)] : [i64.store(p, 0, 0), i64.store(p, 0, 8)]),
      i32.store(p, 0, 16),
    );
  }

  // out-limbs = (limbs at p+a) · (limbs at p+b), using the single-block multiply with h := a, r^1 := b
  const mul = new Func('poly1305_mul', { p: 'i32', a: 'i32', b: 'i32', out: 'i32' });
  {
    const { p, a, b, out } = mul.p;
    const P = new Poly(mul, [1]);
    mul.emit(
      P.m.map((m, i) => m.set(i64.load32_u(i32.add(p, a), 4 * i))),
      [0, 1, 2, 3, 4].map((i) => mul.i64(`r1_${i}`).set(i64.load32_u(i32.add(p, b), 4 * i))),
      [1, 2, 3, 4].map((i) => mul.i64(`s1_${i}`).set(i64.mul(mul.i64(`r1_${i}`), 5))),
      P.mulInto(P.m, 1, true),
      P.carry(),
      P.h.map((h, i) => i64.store32(i32.add(p, out), h, 4 * i)),
    );
  }

  const powers = new Func('poly1305_powers', { p: 'i32' }, pub);
  powers.emit(
    comment('r^k = r^(k-1)·r for k = 2…8, then the lane tables (r^4, r^3, r^2, r) and 5× for the SIMD half'),
    [2, 3, 4, 5, 6, 7, 8].map((k) => call(mul, powers.p.p, POLY_R[k - 2], POLY_R[0], POLY_R[k - 1])),
    target() === 'simd' ? buildLaneTables(powers.p.p, POLY_R, POLY_V, !!flags.powersReversed) : [],
  );

  const blocks = new Func('poly1305_blocks', { p: 'i32', src: 'i32', n: 'i32', maxg: 'i32', hibit: 'i32' }, pub);
  {
    const { p, src, n, maxg, hibit } = blocks.p;
    const hib = blocks.i64('hib');
    // the eight-block step needs the SIMD half: scalar targets start at four
    const simd = target() === 'simd';
    const P = new Poly(blocks, simd ? [1, 2, 3, 4, 5, 6, 7, 8] : [1, 2, 3, 4]);
    const S = simd ? new PolySimd(blocks) : undefined;
    const [done, one] = [label('one_done'), label('one')];
    blocks.emit(
      hib.set(i64.shl(i64.extend_i32_u(hibit), 24)),
      P.loadH(),
      P.loadR([1]),
      S ? if_(i32.ge_u(maxg, 8), [...P.loadR([5, 6, 7, 8]), ...S.loadLaneTables(p, POLY_V, hibit), stepLoop('eight', n, src, 8, P.step8(S, src, 0, hib, flags))]) : [],
      if_(i32.ge_u(maxg, 4), [...P.loadR([2, 3, 4]), stepLoop('four', n, src, 4, P.step4(src, 0, hib, flags))]),
      block(done, loop(one, br_if(done, i32.eqz(n)), P.step1(src, 0, hib), src.set(i32.add(src, 16)), n.set(i32.sub(n, 1)), br(one))),
      P.store(),
    );
  }

  // Final reduction: full carry (twice, so that every limb is below 2^26 when h < p), then
  // g = h + 5 − 2^130; take g when it did not go negative (h ≥ p), by mask; then + s mod 2^128.
  const finish = new Func('poly1305_finish', { p: 'i32', out: 'i32' }, pub);
  {
    const { p, out } = finish.p;
    const P = new Poly(finish, [1]);
    const { h, d, pc, m } = P;
    const [mt0, mt1] = P.mt;
    const carryStep = (i: number) => [pc.set(i64.shr_u(h[i], 26)), h[i].set(i64.and(h[i], M26())), h[i + 1].set(i64.add(h[i + 1], pc))];
    const fc: Stmt[] = [];
    for (let i = 0; i < 4; i++) fc.push(...carryStep(i));
    fc.push(pc.set(i64.shr_u(h[4], 26)), h[4].set(i64.and(h[4], M26())), h[0].set(i64.add(h[0], i64.mul(pc, 5))));
    for (let i = 0; i < 4; i++) fc.push(...carryStep(i));
    // g = h + 5 with carries, g4 −= 2^26
    fc.push(d[0].set(i64.add(h[0], 5)));
    for (let i = 0; i < 4; i++) {
      const lose = i === 0 && !!flags.finalCarryLost;
      fc.push(d[i + 1].set(lose ? h[i + 1].get() : i64.add(h[i + 1], i64.shr_u(d[i], 26))), d[i].set(i64.and(d[i], M26())));
    }
    fc.push(d[4].set(i64.sub(d[4], i64.const(0x4000000, true))));
    // mask = all ones when g4 ≥ 0 (h ≥ p): (g4 >> 63) − 1
    fc.push(pc.set(i64.sub(i64.shr_u(d[4], 63), 1)));
    for (let i = 0; i < 5; i++) fc.push(h[i].set(i64.or(i64.and(d[i], pc), i64.and(h[i], i64.xor(pc, -1)))));
    fc.push(h[4].set(i64.and(h[4], M26())));
    // pack into two 64-bit words (mod 2^128) and add s
    fc.push(
      mt0.set(i64.or(h[0], i64.shl(h[1], 26), i64.shl(h[2], 52))),
      mt1.set(i64.or(i64.shr_u(h[2], 12), i64.shl(h[3], 14), i64.shl(h[4], 40))),
      m[0].set(i64.add(mt0, i64.load(p, POLY_S))),
      m[1].set(i64.add(i64.add(mt1, i64.load(p, POLY_S + 8)), i64.extend_i32_u(i64.lt_u(m[0], mt0)))),
      i64.store(out, m[0], 0),
      i64.store(out, m[1], 8),
    );
    finish.emit(P.loadH(), fc);
  }
  return { init, powers, blocks, finish, functions: [init, mul, powers, blocks, finish] };
}

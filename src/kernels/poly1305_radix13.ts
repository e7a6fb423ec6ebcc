// Poly1305 (RFC 8439 §2.5) in radix 2^13 on 32-bit integer multiplies: the `js` target's
// Poly1305, where a 64-bit product costs a dozen 32-bit operations but Math.imul is one.
//
// Representation: h and r as ten 13-bit limbs in i32 locals (10 · 13 = 130 bits). A product
// (h + m)·r mod 2^130 − 5 is 100 i32.mul: limb j of h + m times limb i − j of r, the products
// that land above 2^130 folded down with 5·r. Bounds: h limbs below 2^13 + 2^9.4 after the
// partial carry, so h + m limbs below 2^14.1; r limbs below 2^13 (5·r below 2^15.4), so a
// product is below 2^29.5 and a half column of five plus the carry (below 2^20) below 2^31.8:
// every sum fits an unsigned 32-bit word, read with shr_u.
//
// One block per step: the powers of r buy nothing here (the multiplies are the cost, not their
// latency), and a small loop body is what a JavaScript JIT optimises; poly1305_powers is a no-op.
//
// Why constant time: only add, mul, shift, and, or on key, message and accumulator; branches and
// addresses depend on pointers and block counts; the final reduction chooses h or h − p by a mask
// from a sign bit, and the + s carries are shifts of 16-bit sums.
//
// Cost: 100 multiplies and ~150 other operations per 16-byte block.
//
// State layout at p (bytes): 0 h0…h9 (i32), 40 r0…r9 (i32), 288 s (16 bytes, POLY_S).

import { Func, type Local, type Stmt, type Val, block, br, br_if, comment, i32, label, loop } from './builder/index.js';
import { POLY_S, type PolyFlags, type PolyFunctions } from './poly1305_radix26.js';

const H = 0;
const R = 40;
const M13 = 0x1fff;

/** The ten 13-bit limbs of the 128-bit little-endian value in words w0…w3 (bits 13k … 13k + 12). */
function limbs13(w: Local<'i32'>[]): Val<'i32'>[] {
  return Array.from({ length: 10 }, (_, k) => {
    const o = 13 * k,
      i = o >> 5,
      s = o & 31;
    const lo = s ? i32.shr_u(w[i], s) : w[i].get();
    const v = s + 13 > 32 && i + 1 < 4 ? i32.or(lo, i32.shl(w[i + 1], 32 - s)) : lo;
    return k === 9 ? v : i32.and(v, M13);
  });
}

/** The arithmetic of one function: h, r, 5·r, the block m and the column sums d. */
class Poly13 {
  readonly h: Local<'i32'>[];
  readonly r: Local<'i32'>[];
  readonly s: Local<'i32'>[];
  readonly m: Local<'i32'>[];
  readonly d: Local<'i32'>[];
  readonly w: Local<'i32'>[];
  readonly c: Local<'i32'>;

  constructor(readonly f: Func) {
    const ten = (p: string) => Array.from({ length: 10 }, (_, i) => f.i32(`${p}${i}`));
    this.h = ten('h');
    this.r = ten('r');
    this.s = ten('s');
    this.m = ten('m');
    this.d = ten('d');
    this.w = [0, 1, 2, 3].map((i) => f.i32(`w${i}`));
    this.c = f.i32('c');
  }

  load(p: Local<'i32'>, withR: boolean): Stmt[] {
    return [...this.h.map((h, i) => h.set(i32.load(p, H + 4 * i))), ...(withR ? [...this.r.map((r, i) => r.set(i32.load(p, R + 4 * i))), ...this.s.map((s, i) => s.set(i32.mul(this.r[i], 5)))] : [])];
  }

  store(p: Local<'i32'>): Stmt[] {
    return this.h.map((h, i) => i32.store(p, h, H + 4 * i));
  }

  /** h = (h + m)·r mod 2^130 − 5, partially carried; m from the block at src (hib: the 2^128 bit as 1 << 11). */
  step(src: Local<'i32'>, hib: Local<'i32'>): Stmt[] {
    const { h, r, s, m, d, w, c } = this;
    const out: Stmt[] = [...w.map((x, i) => x.set(i32.load(src, 4 * i)))];
    limbs13(w).forEach((v, k) => out.push(m[k].set(i32.add(h[k], k === 9 ? i32.or(v, hib) : v))));
    // column i in two halves of five products, the carry taken out after each half so that
    // no sum exceeds 32 bits unsigned; the carry runs on into column i + 1
    out.push(c.set(0));
    for (let i = 0; i < 10; i++) {
      const terms = m.map((mj, j) => i32.mul(mj, j <= i ? r[i - j] : s[i - j + 10]));
      out.push(d[i].set(i32.add(c, terms[0], ...terms.slice(1, 5))), c.set(i32.shr_u(d[i], 13)), d[i].set(i32.add(i32.and(d[i], M13), terms[5], ...terms.slice(6))), c.set(i32.add(c, i32.shr_u(d[i], 13))), h[i].set(i32.and(d[i], M13)));
    }
    out.push(h[0].set(i32.add(h[0], i32.mul(c, 5))), h[1].set(i32.add(h[1], i32.shr_u(h[0], 13))), h[0].set(i32.and(h[0], M13)));
    return out;
  }
}

export function polyFunctions13(flags: PolyFlags = {}): PolyFunctions {
  const pub = { export: true, public: 'all' } as const;

  const init = new Func('poly1305_init', { p: 'i32', key: 'i32' }, pub);
  {
    const { p, key } = init.p;
    const w = [0, 1, 2, 3].map((i) => init.i32(`w${i}`));
    const clamp = [0x0fffffff, 0x0ffffffc, 0x0ffffffc, 0x0ffffffc];
    init.emit(
      comment('r = clamp(key[0..16]) as ten 13-bit limbs, s = key[16..32], h = 0'),
      w.map((x, i) => x.set(i32.and(i32.load(key, 4 * i), clamp[i]))),
      limbs13(w).map((v, k) => i32.store(p, v, R + 4 * k)),
      [0, 4, 8, 12].map((o) => i32.store(p, i32.load(key, 16 + o), POLY_S + o)),
      Array.from({ length: 10 }, (_, i) => i32.store(p, 0, H + 4 * i)),
    );
  }

  const powers = new Func('poly1305_powers', { p: 'i32' }, pub);
  powers.emit(comment('radix 2^13: one block per step, no powers of r to compute'));

  const blocks = new Func('poly1305_blocks', { p: 'i32', src: 'i32', n: 'i32', maxg: 'i32', hibit: 'i32' }, pub);
  {
    const { p, src, n, hibit } = blocks.p;
    const hib = blocks.i32('hib');
    const P = new Poly13(blocks);
    const [done, one] = [label('one_done'), label('one')];
    blocks.emit(hib.set(i32.shl(hibit, 11)), P.load(p, true), block(done, loop(one, br_if(done, i32.eqz(n)), P.step(src, hib), src.set(i32.add(src, 16)), n.set(i32.sub(n, 1)), br(one))), P.store(p));
  }

  // Final reduction: full carry (twice), g = h + 5 − 2^130, take g when it did not go negative
  // (h ≥ p) by mask, then h + s mod 2^128 in 16-bit pieces.
  const finish = new Func('poly1305_finish', { p: 'i32', out: 'i32' }, pub);
  {
    const { p, out } = finish.p;
    const P = new Poly13(finish);
    const { h, d: g, c } = P;
    const fc: Stmt[] = [];
    const carry = () => {
      for (let i = 0; i < 9; i++) fc.push(h[i + 1].set(i32.add(h[i + 1], i32.shr_u(h[i], 13))), h[i].set(i32.and(h[i], M13)));
      fc.push(c.set(i32.shr_u(h[9], 13)), h[9].set(i32.and(h[9], M13)), h[0].set(i32.add(h[0], i32.mul(c, 5))));
    };
    carry();
    carry();
    fc.push(h[1].set(i32.add(h[1], i32.shr_u(h[0], 13))), h[0].set(i32.and(h[0], M13)));
    fc.push(g[0].set(i32.add(h[0], 5)));
    for (let i = 0; i < 9; i++) {
      const lose = i === 0 && !!flags.finalCarryLost;
      fc.push(g[i + 1].set(lose ? h[i + 1].get() : i32.add(h[i + 1], i32.shr_u(g[i], 13))), g[i].set(i32.and(g[i], M13)));
    }
    fc.push(g[9].set(i32.sub(g[9], 1 << 13)));
    // mask = all ones when g9 ≥ 0 (h ≥ p): (g9 >>> 31) − 1
    fc.push(c.set(i32.sub(i32.shr_u(g[9], 31), 1)));
    for (let i = 0; i < 10; i++) fc.push(h[i].set(i32.or(i32.and(g[i], c), i32.and(h[i], i32.xor(c, -1)))));
    // h as eight 16-bit pieces (bits 16k … 16k + 15), + s with the carries, stored
    const piece = (k: number): Val<'i32'> => {
      const parts: Val<'i32'>[] = [];
      for (let i = 0; i < 10; i++) {
        const lo = 13 * i,
          hi = lo + 13;
        if (hi <= 16 * k || lo >= 16 * k + 16) continue;
        const sh = lo - 16 * k;
        parts.push(sh >= 0 ? i32.shl(h[i], sh) : i32.shr_u(h[i], -sh));
      }
      return i32.and(parts.length > 1 ? i32.or(parts[0], parts[1], ...parts.slice(2)) : parts[0], 0xffff);
    };
    const sum = finish.i32('sum');
    fc.push(c.set(0));
    for (let k = 0; k < 8; k++) {
      const sk = i32.and(i32.shr_u(i32.load(p, POLY_S + 4 * (k >> 1)), 16 * (k & 1)), 0xffff);
      fc.push(sum.set(i32.add(piece(k), sk, c)), c.set(i32.shr_u(sum, 16)), i32.store8(out, sum, 2 * k), i32.store8(out, i32.shr_u(sum, 8), 2 * k + 1));
    }
    finish.emit(P.load(p, false), fc);
  }
  return { init, powers, blocks, finish, functions: [init, powers, blocks, finish] };
}

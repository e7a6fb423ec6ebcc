// Scalar recoding for the constant-time multiplications: the big-endian scalar into signed
// digits d_i ∈ [−2^(w−1), 2^(w−1)] in radix 2^w, least significant first, by arithmetic on
// the scalar's bits — the carry is a shift of a difference, never a branch — so every digit is
// computed, and later used, the same way whatever the scalar.

import { Func, i32, i64, target } from './builder/index.js';
import type { FieldGen } from './fe_mont29.js';

/**
 * recode<w>(dst, k): the scalar at k (fn.bytes bytes, big-endian) → `count` signed digits
 * (i64) at dst; requires k < 2^bits(n). Each digit: v = window + carry;
 * carry = (2^(w−1) − v) >>> 63 (1 when v > 2^(w−1)); d = v − carry·2^w.
 */
export function recodeFunc(fn: FieldGen, w: number, count: number): Func {
  const f = new Func(`recode${w}`, { dst: 'i32', k: 'i32' });
  const { dst, k } = f.p;
  if (target() === 'js') return recodeJs(f, fn, w, count);
  const [v, c] = f.locals('i64', ['v', 'c']);
  const Ls = fn.bytes;
  f.emit(c.set(0));
  for (let t = 0; t < count; t++) {
    const lo = w * t,
      hi = lo + w;
    const parts = [];
    for (let bi = Math.floor(lo / 8); bi * 8 < hi && bi < Ls; bi++) {
      const byte = i64.load8_u(k, Ls - 1 - bi);
      const sh = 8 * bi - lo;
      parts.push(sh >= 0 ? (sh ? i64.shl(byte, sh) : byte) : i64.shr_u(byte, -sh));
    }
    const win = parts.length
      ? i64.and(
          parts.reduce((x, y) => i64.or(x, y)),
          (1 << w) - 1,
        )
      : i64.const(0);
    f.emit(v.set(i64.add(win, c)), c.set(i64.shr_u(i64.sub(1 << (w - 1), v), 63)), i64.store(dst, i64.sub(v, i64.shl(c, w)), 8 * t));
  }
  return f;
}

/** The same digits on i32 for the js target (an i64 is two numbers there); each stored as an
 * i64, its sign in the high word. */
function recodeJs(f: Func, fn: FieldGen, w: number, count: number): Func {
  const [dst, k] = [f.i32('dst'), f.i32('k')];
  const [v, c, d] = f.locals('i32', ['v', 'c', 'd']);
  const Ls = fn.bytes;
  f.emit(c.set(0));
  for (let t = 0; t < count; t++) {
    const lo = w * t,
      hi = lo + w;
    const parts = [];
    for (let bi = Math.floor(lo / 8); bi * 8 < hi && bi < Ls; bi++) {
      const byte = i32.load8_u(k, Ls - 1 - bi);
      const sh = 8 * bi - lo;
      parts.push(sh >= 0 ? (sh ? i32.shl(byte, sh) : byte) : i32.shr_u(byte, -sh));
    }
    const win = parts.length
      ? i32.and(
          parts.reduce((x, y) => i32.or(x, y)),
          (1 << w) - 1,
        )
      : i32.const(0);
    f.emit(v.set(i32.add(win, c)), c.set(i32.shr_u(i32.sub(1 << (w - 1), v), 31)), d.set(i32.sub(v, i32.shl(c, w))), i32.store(dst, d, 8 * t), i32.store(dst, i32.shr_s(d, 31), 8 * t + 4));
  }
  return f;
}

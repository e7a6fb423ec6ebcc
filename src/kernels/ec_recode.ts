// Scalar recoding for the constant-time multiplications: the big-endian scalar into signed
// digits d_i ∈ [−2^(w−1), 2^(w−1)] in radix 2^w, least significant first, by arithmetic on
// the scalar's bits — the carry is a shift of a difference, never a branch — so every digit is
// computed, and later used, the same way whatever the scalar.

import { type Expr, Func, type Local, i32, i64, target } from './builder/index.js';
import type { FieldGen } from './fe_mont29.js';

/**
 * recode<w>(dst, k): the scalar at k (fn.bytes bytes, big-endian) → `count` signed digits
 * (i64) at dst; requires k < 2^bits(n). Each digit: v = window + carry;
 * carry = (2^(w−1) − v) >>> 63 (1 when v > 2^(w−1)); d = v − carry·2^w. On the js target the
 * same arithmetic runs on i32 (an i64 is two numbers there; the shift is 31) and each digit is
 * stored as an i64, its sign in the high word.
 */
export function recodeFunc(fn: FieldGen, w: number, count: number): Func {
  const f = new Func(`recode${w}`, { dst: 'i32', k: 'i32' });
  const { dst, k } = f.p;
  const js = target() === 'js';
  const I = js ? (i32 as unknown as typeof i64) : i64;
  const [v, c] = f.locals(js ? 'i32' : 'i64', ['v', 'c']) as unknown as Local<'i64'>[];
  const d = js ? f.i32('d') : undefined;
  const Ls = fn.bytes;
  f.emit(c.set(0));
  for (let t = 0; t < count; t++) {
    const lo = w * t,
      hi = lo + w;
    const parts = [];
    for (let bi = Math.floor(lo / 8); bi * 8 < hi && bi < Ls; bi++) {
      const byte = I.load8_u(k, Ls - 1 - bi);
      const sh = 8 * bi - lo;
      parts.push(sh >= 0 ? (sh ? I.shl(byte, sh) : byte) : I.shr_u(byte, -sh));
    }
    const win = parts.length
      ? I.and(
          parts.reduce((x, y) => I.or(x, y)),
          (1 << w) - 1,
        )
      : I.const(0);
    const digit = I.sub(v, I.shl(c, w));
    f.emit(v.set(I.add(win, c)), c.set(I.shr_u(I.sub(1 << (w - 1), v), js ? 31 : 63)));
    f.emit(d ? [d.set(digit as unknown as Expr<'i32'>), i32.store(dst, d, 8 * t), i32.store(dst, i32.shr_s(d, 31), 8 * t + 4)] : i64.store(dst, digit, 8 * t));
  }
  return f;
}

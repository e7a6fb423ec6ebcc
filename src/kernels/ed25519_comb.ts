// Fixed-base scalar multiplication on edwards25519, s·B, by a comb of signed radix-16 digits:
// s = Σ e_i·16^i with e_i ∈ [−8, 8) (e_63 ∈ [0, 8]), and a table of 32 rows, row k holding
// j·256^k·B for j = 1 … 8 in niels form; then
//   s·B = 16·Σ_(i odd) e_i·16^(i−1)·B + Σ_(i even) e_i·16^i·B,
// 64 additions of a table entry (7M each), 4 doublings (the first three without T), and 64
// lookups of 8 entries. The table (32 KB, public: it depends only on B) is built on first use
// into an engine slot.
//
// Why constant time: the digits come from the scalar's nibbles by arithmetic (the carry is a
// shift of a sum); a lookup reads all 8 entries of its row and keeps the wanted one under a mask
// made from the digit (|e| = j), the identity (1, 1, 0) when e = 0; a negative digit's negation
// (swap y + x and y − x, negate 2d·x·y) is computed always and kept by a mask. Rows, entries and
// loop counters are public.
//
// Negative-control flag (tests only): wrongEntry (entry 6 of every row holds 5·256^k·B).

import { Func, type Local, type Stmt, br_if, call, i32, i64, i64x2, label, loop, memory, simdAllowed, v128 } from './builder/index.js';
import type { Fe25519 } from './fe25519_radix25.js';
import { BASE, FE, Fx, type GroupFunctions, NT2D, PT, T, X, Y, YMX, YPX, Z } from './ed25519_group.js';

/** bytes of a table entry (a niels point, padded to a multiple of 16) and of the table */
export const ENTRY = 128;
const ROWS = 32;
export const TABLE_BYTES = ROWS * 8 * ENTRY;

export interface CombFunctions {
  baseTable: Func;
  recode: Func;
  lookup: Func;
  mulBase: Func;
  setBase: Func;
  ws: Map<Func, number>;
}

const at = (p: Local<'i32'>, off: number) => (off ? i32.add(p, off) : p.get());

export function combFunctions(fe: Fe25519, g: GroupFunctions, flags: { wrongEntry?: boolean } = {}): CombFunctions {
  fe.addConst('bx', BASE.x);
  fe.addConst('by', BASE.y);
  fe.addConst('bt', BASE.t);
  const ws = new Map<Func, number>();
  const wsOf = (f: Func) => ws.get(f) ?? g.ws.get(f) ?? 0;

  // r ← B (extended)
  const setBase = new Func('pt_set_base', { r: 'i32' });
  setBase.emit(call(fe.setc('bx'), at(setBase.p.r, X)), call(fe.setc('by'), at(setBase.p.r, Y)), call(fe.setc('one'), at(setBase.p.r, Z)), call(fe.setc('bt'), at(setBase.p.r, T)));

  // base_table(tab, ws): row k, entry j − 1 = j·256^k·B (niels, tight), k = 0 … 31, j = 1 … 8
  const baseTable = new Func('base_table', { tab: 'i32', ws: 'i32' });
  {
    const { tab, ws: w } = baseTable.p;
    const [P, Q, C] = [0, PT, 2 * PT];
    const fx = new Fx(fe, w, 3 * PT); // temporaries after the three points
    const zi = fx.tmp(),
      xa = fx.tmp(),
      ya = fx.tmp(),
      xy = fx.tmp();
    const rest = fx.rest;
    const [row, k, i] = [baseTable.i32('row'), baseTable.i32('k'), baseTable.i32('i')];
    const Pp = baseTable.i32('pp'),
      Qp = baseTable.i32('qp'),
      Cp = baseTable.i32('cp');
    const entry = (j: number): Stmt[] => {
      const e = (off: number) => i32.add(row, (j - 1) * ENTRY + off);
      return [
        call(fe.inv, zi.at(), at(Qp, Z), rest),
        call(fe.mul, xa.at(), at(Qp, X), zi.at()),
        call(fe.mul, ya.at(), at(Qp, Y), zi.at()),
        call(fe.add, e(YPX), ya.at(), xa.at()),
        call(fe.carry, e(YPX), e(YPX)),
        call(fe.sub, e(YMX), ya.at(), xa.at()),
        call(fe.carry, e(YMX), e(YMX)),
        call(fe.mul, xy.at(), xa.at(), ya.at()),
        call(fe.setc('d2'), e(NT2D)),
        call(fe.mul, e(NT2D), e(NT2D), xy.at()),
      ];
    };
    const code: Stmt[] = [Pp.set(at(w, P)), Qp.set(at(w, Q)), Cp.set(at(w, C)), call(setBase, Pp), row.set(tab), k.set(0)];
    const body: Stmt[] = [memory.copy(Qp, Pp, PT), call(g.toCached, Cp, Pp, rest)];
    for (let j = 1; j <= 8; j++) {
      // the negative control stores 5·B_k as entry 6 (the sum for entry 6 happens after it)
      if (flags.wrongEntry && j === 6)
        body.push(...entry(j), call(g.add, Qp, Qp, Cp, rest)); // stores 5·B_k
      else body.push(...(j > 1 ? [call(g.add, Qp, Qp, Cp, rest)] : []), ...entry(j));
    }
    const lp = label('row'),
      dl = label('dbl');
    body.push(i.set(8), loop(dl, call(g.dbl, Pp, Pp, rest), i.set(i32.sub(i, 1)), br_if(dl, i)));
    body.push(row.set(i32.add(row, 8 * ENTRY)), k.set(i32.add(k, 1)));
    code.push(loop(lp, ...body, br_if(lp, i32.lt_u(k, ROWS))));
    baseTable.doc.push(`tab = the comb's table: row k, entry j − 1 = j·256^k·B in niels form (y + x, y − x, 2d·x·y), ${TABLE_BYTES} bytes.`);
    baseTable.emit(code);
    const callee = Math.max(fe.invWorkspace, wsOf(g.add), wsOf(g.dbl), wsOf(g.toCached));
    ws.set(baseTable, 3 * PT + fx.used + callee);
  }

  // recode16(dst, s): 64 signed digits (i32) of the 32-byte little-endian s < 2^255
  const recode = new Func('recode16', { dst: 'i32', s: 'i32' });
  {
    const { dst, s } = recode.p;
    const [v, c] = [recode.i32('v'), recode.i32('c')];
    const code: Stmt[] = [c.set(0)];
    for (let t = 0; t < 64; t++) {
      const nib = t % 2 === 0 ? i32.and(i32.load8_u(s, t >> 1), 15) : i32.shr_u(i32.load8_u(s, t >> 1), 4);
      if (t === 63) {
        code.push(i32.store(dst, i32.add(nib, c), 4 * t));
        continue;
      }
      code.push(v.set(i32.add(nib, c)), c.set(i32.shr_s(i32.add(v, 8), 4)), i32.store(dst, i32.sub(v, i32.shl(c, 4)), 4 * t));
    }
    recode.doc.push('dst = the 64 digits e_i ∈ [−8, 8) (e_63 ∈ [0, 8]) with s = Σ e_i·16^i, s < 2^255, by a carry from each sum.');
    recode.emit(code);
  }

  // comb_lookup(dst, row, e, ws): dst = e·(row's point) in niels form, constant time
  const lookup = new Func('comb_lookup', { dst: 'i32', row: 'i32', e: 'i32', ws: 'i32' });
  {
    const { dst, row, e, ws: w } = lookup.p;
    const [s, a, m] = [lookup.i32('s'), lookup.i32('a'), lookup.i64('m')];
    // the entry accumulates in locals: v128 on SIMD128, i64 words on the scalar targets (one of
    // xv, xw is empty)
    const simd = simdAllowed();
    const vm = simd ? lookup.v128('vm') : undefined;
    const xv = simd ? Array.from({ length: ENTRY / 16 }, (_, c) => lookup.v128(`x${c}`)) : [];
    /** all ones when |e| = j, else zero (j = 0: a − 1 is negative only for a = 0) */
    const maskOf = (j: number) => i64.extend_i32_s(i32.shr_s(i32.sub(i32.xor(a, j), 1), 31));
    const code: Stmt[] = [s.set(i32.shr_s(e, 31)), a.set(i32.sub(i32.xor(e, s), s))];
    if (vm) {
      code.push(
        // the identity (1, 1, 0) in niels form, for e = 0
        call(fe.setc('one'), at(dst, YPX)),
        call(fe.setc('one'), at(dst, YMX)),
        call(fe.setc('zero'), at(dst, NT2D)),
        ...xv.map((xc, c) => xc.set(v128.load(dst, 16 * c))),
      );
      for (let j = 1; j <= 8; j++) {
        code.push(m.set(maskOf(j)), vm.set(i64x2.splat(m)), ...xv.map((xc, c) => xc.set(v128.bitselect(v128.load(row, (j - 1) * ENTRY + 16 * c), xc, vm))));
      }
      code.push(...xv.map((xc, c) => v128.store(dst, xc, 16 * c)));
      // e < 0: swap y + x and y − x, negate 2d·x·y, under the mask s
      code.push(m.set(i64.extend_i32_s(s)), call(fe.cswap, at(dst, YPX), at(dst, YMX), m), call(fe.neg, w, at(dst, NT2D)), call(fe.cmov, at(dst, NT2D), w, m));
    } else {
      // the scalar targets: word by word, one accumulator and the nine masks live (sixteen
      // accumulators across the eight entries spilled: the lookup was a fifth of a comb on wasm);
      // exactly one mask is all ones (m0: e = 0, the identity (1, 1, 0), whose only nonzero
      // words are the first of y + x and of y − x, both 1), so a word is the OR of each
      // candidate under its mask; the 120 bytes of a niels point, not the entry's padding. The
      // negation of e < 0 in the same pass: word c of y + x and of y − x swapped under the mask
      // s, and each 32-bit limb of 2d·x·y replaced by its negation under s.
      const masks = Array.from({ length: 9 }, (_, j) => lookup.i64(`m${j}`));
      const [x, y, t] = [lookup.i64('x'), lookup.i64('y'), lookup.i64('t')];
      const [lo, hi] = [lookup.i32('lo'), lookup.i32('hi')];
      const word = (c: number) => {
        let v = i64.and(i64.load(row, 8 * c), masks[1]);
        for (let j = 2; j <= 8; j++) v = i64.or(v, i64.and(i64.load(row, (j - 1) * ENTRY + 8 * c), masks[j]));
        return c === YPX / 8 || c === YMX / 8 ? i64.or(v, i64.and(masks[0], 1)) : v;
      };
      const negUnder = (v: Local<'i32'>) => i32.xor(v, i32.and(i32.xor(v, i32.sub(0, v)), s));
      code.push(...masks.map((mj, j) => mj.set(maskOf(j))), m.set(i64.extend_i32_s(s)));
      for (let c = 0; c < FE / 8; c++) {
        code.push(x.set(word(YPX / 8 + c)), y.set(word(YMX / 8 + c)), t.set(i64.and(i64.xor(x, y), m)));
        code.push(i64.store(dst, i64.xor(x, t), YPX + 8 * c), i64.store(dst, i64.xor(y, t), YMX + 8 * c));
      }
      for (let c = 0; c < FE / 8; c++) {
        code.push(x.set(word(NT2D / 8 + c)), lo.set(i32.wrap_i64(x)), hi.set(i32.wrap_i64(i64.shr_u(x, 32))));
        code.push(i32.store(dst, negUnder(lo), NT2D + 8 * c), i32.store(dst, negUnder(hi), NT2D + 8 * c + 4));
      }
    }
    lookup.doc.push('dst = e·P for the row of P, 2P, …, 8P (niels) and a digit e ∈ [−8, 8]: every entry read, the wanted one kept by a mask.');
    lookup.emit(code);
    ws.set(lookup, FE);
  }

  // ed_mul_base(r, s, tab, ws): r = s·B (extended), s < 2^255
  const mulBase = new Func('ed_mul_base', { r: 'i32', s: 'i32', tab: 'i32', ws: 'i32' });
  {
    const { r, s, tab, ws: w } = mulBase.p;
    const DIG = 0,
      N = 256,
      REST = N + ENTRY;
    const [k, rowp, dg] = [mulBase.i32('k'), mulBase.i32('rowp'), mulBase.i32('dg')];
    const rest = at(w, REST);
    const pass = (odd: boolean): Stmt[] => {
      const lp = label(odd ? 'odd' : 'even');
      return [
        k.set(0),
        rowp.set(tab),
        dg.set(at(w, DIG + (odd ? 4 : 0))),
        loop(lp, call(lookup, at(w, N), rowp, i32.load(dg), rest), call(g.madd, r, r, at(w, N), rest), rowp.set(i32.add(rowp, 8 * ENTRY)), dg.set(i32.add(dg, 8)), k.set(i32.add(k, 1)), br_if(lp, i32.lt_u(k, ROWS))),
      ];
    };
    mulBase.emit(call(recode, at(w, DIG), s), call(g.identity, r), ...pass(true), ...Array.from({ length: 3 }, () => call(g.dblXyz, r, r, rest)), call(g.dbl, r, r, rest), ...pass(false));
    mulBase.doc.push('r = s·B for the 32-byte little-endian s < 2^255: 64 lookups and additions of niels points, 4 doublings.');
    ws.set(mulBase, REST + Math.max(wsOf(lookup), wsOf(g.madd), wsOf(g.dbl), wsOf(g.dblXyz)));
  }
  return { baseTable, recode, lookup, mulBase, setBase, ws };
}

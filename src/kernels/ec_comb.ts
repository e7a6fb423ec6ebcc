// Fixed-base scalar multiplication, k·G, by a comb of signed digits in radix 2^5: positions
// i = 0 … P−1 hold j·2^(5·S·i)·G for j = 1 … 16 as affine points (two coordinates, i32 limbs),
// and k·G = Σ_s 2^(5·s) Σ_i d_(iS+s)·T_i costs (S − 1)·5 doublings and D mixed additions. S is
// the least spacing that keeps the table within 32 KB. The table is built on first use
// (base_table) into an engine slot, never at import time; it depends only on G (public).
//
// Why constant time: the lookup reads every entry of a position and keeps the wanted one by
// masks, as in ec_window.ts; a zero digit selects nothing and its (meaningless) sum is
// discarded by a masked move, so every digit costs the same.

import { Func, type Local, type Stmt, br, br_if, call, i32, i64, i64x2, if_, label, loop, memory, ret, target, v128 } from './builder/index.js';
import { type EcContext, at, round16 } from './ec_context.js';
import type { GroupFunctions } from './ec_group.js';
import { conditionalNegate, digitLines, lookupLocals, scanTable } from './ec_window.js';

/** Fixed-base comb: digit width and the table size bound. */
export const COMB_WINDOW = 5;
const COMB_MAX_BYTES = 32 * 1024;

/** The comb's shape: digits, entries per position, affine entry bytes, spacing, positions. */
export function combShape(ctx: EcContext, nbits: number) {
  const Db = Math.ceil((nbits + 1) / COMB_WINDOW);
  const Eb = 1 << (COMB_WINDOW - 1); // entries 1 … 2^(wb−1)
  const ESa = round16(2 * ctx.L * 4); // affine entry: 2L i32 limbs, padded
  let S = 1;
  while (Math.ceil(Db / S) * Eb * ESa > COMB_MAX_BYTES) S++;
  const P = Math.ceil(Db / S);
  return { Db, Eb, ESa, S, P, tableBytes: P * Eb * ESa };
}

/**
 * lookup_aff(dst, tab, dp, ws): dst ← sign(d)·tab[|d| − 1] for |d| ≥ 1 (affine entries of ESa
 * bytes holding i32 limbs, widened to i64 limbs: X at dst, Y at dst + FE; writes up to 2·ESa
 * bytes). d = 0 selects nothing (all zero); the caller discards that sum.
 */
export function combLookup(ctx: EcContext, shape: ReturnType<typeof combShape>): Func {
  const f = new Func('lookup_aff', { dst: 'i32', tab: 'i32', dp: 'i32', ws: 'i32' });
  const dst = f.p.dst;
  lookupLocals(f, shape.Eb);
  f.emit(
    digitLines(f),
    scanTable(
      f,
      shape.Eb,
      shape.ESa,
      1,
      false,
      (ci, v) =>
        v.type === 'v128'
          ? [v128.store(dst, i64x2.extend_low_i32x4_u(v as Local<'v128'>), 32 * ci), v128.store(dst, i64x2.extend_high_i32x4_u(v as Local<'v128'>), 32 * ci + 16)]
          : [
              // two i32 limbs per i64 chunk (the scalar targets)
              i64.store(dst, i64.extend_i32_u(i32.wrap_i64(v as Local<'i64'>)), 16 * ci),
              i64.store(dst, i64.shr_u(v as Local<'i64'>, 32), 16 * ci + 8),
            ],
      shape.ESa,
      // js: the i32 limb at word offset off to the limb at 2·off (its low word: the js field
      // reads no high word, fe_mont29.ts)
      (off, x) => [i32.store(i32.add(dst, i32.shl(off, 1)), x)],
    ),
    conditionalNegate(ctx, f),
  );
  ctx.ws.need(f, ctx.FE);
  return f;
}

/** base_table(tab, ws) and ec_mul_base(r, k, tab, ws). */
export function combFunctions(ctx: EcContext, g: GroupFunctions, recode: Func, lookupAff: Func, shape: ReturnType<typeof combShape>): { baseTable: Func; ecMulBase: Func } {
  const { fp, FE, PT, PTS, L, twist } = ctx;
  const { Db, Eb, ESa, S, P } = shape;

  // base_table(tab, ws): for each position i, entries j·B_i (j = 1 … Eb), B_0 = G,
  // B_(i+1) = 2^(wb·S)·B_i; batch-normalised to affine (one inversion per position).
  const baseTable = new Func('base_table', { tab: 'i32', ws: 'i32' });
  {
    const f = baseTable,
      { tab, ws } = f.p;
    const [i, t, n] = f.locals('i32', ['i', 't', 'n', ...(target() === 'js' ? ['o'] : [])]);
    const ENT = 0,
      PRE = ENT + Eb * PTS,
      B = PRE + Eb * FE,
      INV = B + PTS,
      T1 = INV + FE,
      KID = T1 + FE;
    const w = (off: number) => at(ws, off);
    const ent = (j: number) => w(ENT + (j - 1) * PTS); // entry j, 1-based
    const pre = (j: number) => w(PRE + (j - 1) * FE);
    const [pos, dbl] = [label('pos'), label('dbl')];
    const body: Stmt[] = [memory.copy(ent(1), w(B), PT)];
    for (let j = 2; j <= Eb; j++) body.push(j % 2 === 0 ? call(g.ptDbl, ent(j), ent(j / 2), w(KID)) : call(g.ptAdd, ent(j), ent(j - 1), ent(1), w(KID)));
    // prefix products of Z, one inversion, then back-substitution
    body.push(memory.copy(pre(1), w(ENT + 2 * FE), FE));
    for (let j = 2; j <= Eb; j++) body.push(call(fp.mul, pre(j), pre(j - 1), w(ENT + (j - 1) * PTS + 2 * FE)));
    body.push(call(fp.inv, w(INV), pre(Eb), w(KID)));
    for (let j = Eb; j >= 1; j--) {
      if (j > 1)
        body.push(call(fp.mul, w(T1), w(INV), pre(j - 1)), call(fp.mul, w(INV), w(INV), w(ENT + (j - 1) * PTS + 2 * FE))); // 1/Z_j
      else body.push(memory.copy(w(T1), w(INV), FE));
      body.push(call(fp.mul, ent(j), ent(j), w(T1)), call(fp.mul, w(ENT + (j - 1) * PTS + FE), w(ENT + (j - 1) * PTS + FE), w(T1)));
      if (target() === 'js') {
        // js: a loop over the limbs (o: 4·l), X then Y; unrolled it was 190 KB of JavaScript
        const o = f.i32('o');
        const lp = label('limbs');
        const from = (off: number) => i32.load(i32.add(w(ENT + (j - 1) * PTS + off), i32.shl(o, 1)));
        body.push(o.set(0), loop(lp, i32.store(i32.add(t, o), from(0), (j - 1) * ESa), i32.store(i32.add(t, o), from(FE), (j - 1) * ESa + 4 * L), o.set(i32.add(o, 4)), br_if(lp, i32.lt_u(o, 4 * L))));
      } else
        for (let l = 0; l < 2 * L; l++) {
          const src = ENT + (j - 1) * PTS + (l < L ? 8 * l : FE + 8 * (l - L));
          body.push(i64.store32(t, i64.load(w(src)), (j - 1) * ESa + 4 * l));
        }
    }
    f.emit(
      call(fp.setc(twist !== undefined ? 'tgx' : 'gx'), w(B)),
      call(fp.setc(twist !== undefined ? 'tgy' : 'gy'), w(B + FE)),
      call(fp.setc('one'), w(B + 2 * FE)),
      i.set(P),
      t.set(tab),
      loop(pos, body, t.set(i32.add(t, Eb * ESa)), i.set(i32.sub(i, 1)), if_(i32.eqz(i), [ret()]), n.set(COMB_WINDOW * S), loop(dbl, call(g.ptDbl, w(B), w(B), w(KID)), n.set(i32.sub(n, 1)), br_if(dbl, n)), br(pos)),
    );
    ctx.ws.need(f, KID, [g.ptAdd, g.ptDbl, fp.inv]);
  }

  // ec_mul_base(r, k, tab, ws)
  const ecMulBase = new Func('ec_mul_base', { r: 'i32', k: 'i32', tab: 'i32', ws: 'i32' });
  {
    const f = ecMulBase,
      { r, k, tab, ws } = f.p;
    const d = f.i64('d');
    const DIG = 0,
      ACC = round16(8 * Db),
      T = ACC + PTS,
      NEW = T + 2 * ESa,
      KID2 = NEW + PTS;
    const w = (off: number) => at(ws, off);
    f.emit(call(recode, w(DIG), k), call(g.ptIdentity, w(ACC)));
    for (let s = S - 1; s >= 0; s--) {
      if (s < S - 1) for (let q = 0; q < COMB_WINDOW; q++) f.emit(call(g.ptDbl, w(ACC), w(ACC), w(KID2)));
      for (let i = 0; i < P; i++) {
        const t = i * S + s;
        if (t >= Db) continue;
        f.emit(
          call(lookupAff, w(T), at(tab, i * Eb * ESa), w(DIG + 8 * t), w(KID2)),
          call(g.ptMadd, w(NEW), w(ACC), w(T), w(KID2)),
          // keep the sum unless the digit is 0
          d.set(i64.load(ws, 8 * t)),
          call(g.ptCmov, w(ACC), w(NEW), i64.shr_s(i64.or(d, i64.sub(0, d)), 63)),
        );
      }
    }
    f.emit(memory.copy(r, w(ACC), PT));
    ctx.ws.need(f, KID2, [g.ptMadd, g.ptDbl, lookupAff]);
  }
  return { baseTable, ecMulBase };
}

// Variable-base scalar multiplication, k·P: a fixed window of signed digits in radix 2^5
// (D = ⌈(bits(n) + 1)/5⌉ digits), a table of 0·P … 16·P in projective form (8 doublings and 7
// additions), then D − 1 rounds of five doublings and one addition. P-256: 255 doublings, 51
// additions and 52 lookups of 17 entries.
//
// Why constant time: every digit is used the same way; a table lookup reads every entry and
// keeps the wanted one with a mask ((|d| ⊕ j) − 1) >> 63, 16 bytes at a time (v128.and /
// v128.or); the negation for a negative digit is computed always and kept by a mask; the loop
// counter and every address are public.

import { type Expr, Func, type Local, type Stmt, br_if, call, i32, i64, i64x2, if_, label, loop, memory, target, v128 } from './builder/index.js';
import { type EcContext, at, round16 } from './ec_context.js';
import type { GroupFunctions } from './ec_group.js';

/** Variable-base window width. */
export const WINDOW = 5;

/** The lookup's locals in f: the digit d, its sign s, the mask vector, one mask per entry, 12
 * chunks (v128 on the simd target; on the scalar ones no mask vector and i64 chunks). */
function lookupLocals(f: Func, entries: number): void {
  const simd = target() === 'simd';
  f.locals('i64', ['d', 's']);
  if (target() === 'js') {
    f.locals(
      'i64',
      Array.from({ length: entries }, (_, e) => `m${e}`),
    );
    f.locals('i32', ['off', 'xw', ...Array.from({ length: entries }, (_, e) => `n${e}`)]);
    return;
  }
  if (simd) f.v128('vm');
  f.locals(
    'i64',
    Array.from({ length: entries }, (_, e) => `m${e}`),
  );
  f.locals(
    simd ? 'v128' : 'i64',
    Array.from({ length: 12 }, (_, i) => `x${i}`),
  );
}

/** Bytes per chunk of a table scan: a v128 on the simd target, an i64 on the scalar ones. */
export const chunkBytes = () => (target() === 'simd' ? 16 : 8);

/** |d| and the sign mask of the digit at dp. */
function digitLines(f: Func): Stmt[] {
  const [d, s, dp] = [f.i64('d'), f.i64('s'), f.i32('dp')];
  return [d.set(i64.load(dp)), s.set(i64.shr_s(d, 63)), d.set(i64.sub(i64.xor(d, s), s))];
}

/**
 * OR of (entry_e & mask_e) over all entries of the table at tab, a chunk at a time (16 bytes on
 * the simd target, 8 on the scalar ones: chunkBytes(); twelve chunks per pass); each chunk's
 * result to `store` (a v128 local, or an i64 one on the scalar targets). Entry e holds digit
 * e + firstIndex.
 */
export function scanTable(
  f: Func,
  entries: number,
  entryBytes: number,
  firstIndex: number,
  swap12: boolean,
  store: (chunk: number, v: Local<'v128'> | Local<'i64'>) => Stmt[],
  scanBytes: number,
  storeAt: (off: Local<'i32'>, v: Local<'i32'>) => Stmt[],
): Stmt[] {
  const simd = target() === 'simd';
  const CB = chunkBytes();
  const [d, tab] = [f.i64('d'), f.i32('tab')];
  const m = (e: number) => f.i64(`m${e}`);
  const out: Stmt[] = [];
  for (let e = 0; e < entries; e++) {
    let j = e + firstIndex;
    if (swap12 && (j === 1 || j === 2)) j = 3 - j;
    out.push(m(e).set(i64.shr_s(i64.sub(i64.xor(d, j), 1), 63)));
  }
  if (target() === 'js') {
    // js: a loop over 32-bit words (public offset `off`), every entry's word masked and ORed;
    // unrolled over the chunks as on wasm, the lookup was 300 KB of JavaScript that V8 does
    // not optimise, and an i64 is two numbers there anyway. storeAt writes word `off`.
    const [off, x] = [f.i32('off'), f.i32('xw')];
    const n = (e: number) => f.i32(`n${e}`);
    const words = label('words');
    for (let e = 0; e < entries; e++) out.push(n(e).set(i32.wrap_i64(m(e))));
    const word = (e: number) => i32.and(i32.load(i32.add(tab, off), e * entryBytes), n(e));
    out.push(
      off.set(0),
      loop(words, x.set(Array.from({ length: entries - 1 }, (_, e) => e + 1).reduce((acc, e) => i32.or(acc, word(e)), word(0))), storeAt(off, x), off.set(i32.add(off, 4)), br_if(words, i32.lt_u(off, Math.ceil(scanBytes / 4) * 4))),
    );
    return out;
  }
  const chunks = Math.ceil(scanBytes / CB);
  const GROUP = 12;
  for (let g = 0; g < chunks; g += GROUP) {
    const cs = Array.from({ length: Math.min(GROUP, chunks - g) }, (_, i) => g + i);
    if (simd) {
      const vm = f.v128('vm');
      const x = (i: number) => f.v128(`x${i}`);
      for (let e = 0; e < entries; e++) {
        out.push(vm.set(i64x2.splat(m(e))));
        for (const ci of cs) {
          const ld = v128.and(v128.load(tab, e * entryBytes + 16 * ci), vm);
          out.push(x(ci - g).set(e === 0 ? ld : v128.or(x(ci - g), ld)));
        }
      }
      for (const ci of cs) out.push(...store(ci, x(ci - g)));
    } else {
      const x = (i: number) => f.i64(`x${i}`);
      for (let e = 0; e < entries; e++) {
        for (const ci of cs) {
          const ld = i64.and(i64.load(tab, e * entryBytes + 8 * ci), m(e));
          out.push(x(ci - g).set(e === 0 ? ld : i64.or(x(ci - g), ld)));
        }
      }
      for (const ci of cs) out.push(...store(ci, x(ci - g)));
    }
  }
  return out;
}

/** lookup's tail: dst's Y negated when the digit is negative (s all ones). */
export function conditionalNegate(ctx: EcContext, f: Func): Stmt[] {
  const [dst, ws] = [f.i32('dst'), f.i32('ws')];
  return [call(ctx.fp.neg, ws, at(dst, ctx.FE)), call(ctx.fp.cmov, at(dst, ctx.FE), ws, f.i64('s'))];
}

/**
 * lookup(dst, tab, dp, ws): dst ← sign(d)·tab[|d|] (projective entries of PTS bytes: the entry
 * stride is PT rounded to 16, so that every chunk load stays inside its entry's stride), and
 * ec_mul(r, k, pt, ws): r ← k·pt.
 */
export function windowFunctions(ctx: EcContext, g: GroupFunctions, recode: Func, digits: number): { lookup: Func; ecMul: Func } {
  const { fp, FE, PT, PTS, twist, flags } = ctx;
  const E = (1 << (WINDOW - 1)) + 1; // entries 0 … 2^(w−1)
  const D = digits;
  const lookup = new Func('lookup', { dst: 'i32', tab: 'i32', dp: 'i32', ws: 'i32' });
  lookupLocals(lookup, E);
  lookup.emit(
    digitLines(lookup),
    scanTable(
      lookup,
      E,
      PTS,
      0,
      !!flags.wrongLookup,
      (ci, v) => [v.type === 'v128' ? v128.store(lookup.p.dst, v as Local<'v128'>, 16 * ci) : i64.store(lookup.p.dst, v as Local<'i64'>, 8 * ci)],
      PTS,
      (off, x) => [i32.store(i32.add(lookup.p.dst, off), x)],
    ),
    conditionalNegate(ctx, lookup),
  );
  ctx.ws.need(lookup, FE);

  const ecMul = new Func('ec_mul', { r: 'i32', k: 'i32', pt: 'i32', ws: 'i32' });
  const { r, k, pt, ws } = ecMul.p;
  const dp = ecMul.i32('dp');
  const DIG = 0,
    TAB = round16(8 * D),
    ACC = TAB + E * PTS,
    TMP = ACC + PTS,
    KID = TMP + PTS;
  const w = (off: number): Expr<'i32'> => at(ws, off);
  const win = label('win');
  const addDigit: Stmt[] = [call(lookup, w(TMP), w(TAB), dp, w(KID)), call(g.ptAdd, w(ACC), w(ACC), w(TMP), w(KID))];
  ecMul.emit(
    call(recode, w(DIG), k),
    call(g.ptIdentity, w(TAB)),
    twist !== undefined ? [call(fp.mulc('tz2'), w(TAB + PTS), pt), call(fp.mulc('tz3'), w(TAB + PTS + FE), at(pt, FE)), memory.copy(w(TAB + PTS + 2 * FE), at(pt, 2 * FE), FE)] : [memory.copy(w(TAB + PTS), pt, PT)],
    Array.from({ length: E - 2 }, (_, i) => i + 2).map((j) => (j % 2 === 0 ? call(g.ptDbl, w(TAB + j * PTS), w(TAB + (j / 2) * PTS), w(KID)) : call(g.ptAdd, w(TAB + j * PTS), w(TAB + (j - 1) * PTS), w(TAB + PTS), w(KID)))),
    call(lookup, w(ACC), w(TAB), w(DIG + 8 * (D - 1)), w(KID)),
    dp.set(w(DIG + 8 * (D - 2))),
    loop(
      win,
      Array.from({ length: WINDOW }, () => call(g.ptDbl, w(ACC), w(ACC), w(KID))),
      flags.skipZeroDigits ? [if_(i64.ne(i64.load(dp), 0), addDigit)] : addDigit,
      dp.set(i32.sub(dp, 8)),
      br_if(win, i32.ge_s(dp, ws)),
    ),
    memory.copy(r, w(ACC), PT),
  );
  ctx.ws.need(ecMul, KID, [g.ptAdd, g.ptDbl, lookup]);
  return { lookup, ecMul };
}

export { lookupLocals, digitLines };

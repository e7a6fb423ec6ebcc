// The fixed-base comb of ed25519_comb.ts with its additions on pairs of field elements
// (fe25519_pair_simd128.ts, SIMD128 only): the same signed radix-16 digits, rows, passes and
// doublings, but the accumulator is held as two pairs, (X, Y) and (T, Z), and a table entry as
// (y − x, y + x) and (2d·x·y, 2). The mixed addition of an entry (7M on single elements) is then
// four pair products:
//   (A, B) = (Y − X, Y + X)·(y − x, y + x)      (C, D) = (T, Z)·(2d·x·y, 2)
//   E = B − A, F = D − C, G = D + C, H = B + A
//   (X3, Y3) = (E, G)·(F, H)                    (T3, Z3) = (E, F)·(H, G)
// Hisil–Wong–Carter–Dawson's formula for a = −1, Z2 = 1, with D = 2·Z1 taken from the product
// beside C, so that every operand of a product is tight or one sum or difference (plus 2p) of
// two tight values: the pair field's "loose" bound, which its generator proves the products
// accept. The four doublings between the passes run on single elements (ed25519_group.ts),
// with the point converted there and back (canonical bytes in between: the single field's limbs
// are signed, the pair field's unsigned).
//
// The table: base_table builds ed25519_comb.ts's (niels entries of 128 bytes) and converts it in
// place into entries of 160 bytes, last entry first, so that no entry is overwritten before it
// is read (entry i's new bytes start at 160·i ≥ 128·i, past every entry below i).
//
// Why constant time: the lookup reads all 8 entries of a row and keeps one by masks made from
// the digit, the identity ((1, 1), (0, 2)) for digit 0; a negative digit's entry, (y + x, y − x)
// and (2p − 2d·x·y, 2), is computed always and kept by a mask. Rows, entries, loop counters and
// the conversions' addresses are public; everything else is straight-line SIMD integer code.

import { type Expr, Func, type Local, type Stmt, br_if, call, i32, i32x4, i64, i64x2, i8x16, label, loop, v128 } from './builder/index.js';
import type { CombFunctions } from './ed25519_comb.js';
import { ENTRY } from './ed25519_comb.js';
import { FE, type GroupFunctions, NT2D, PT, T, X, Y, YMX, YPX, Z } from './ed25519_group.js';
import type { Fe25519 } from './fe25519_radix25.js';
import { type FePair25519, PAIR, TWO_P_LIMBS } from './fe25519_pair_simd128.js';

/** bytes of a pair entry: (y − x, y + x), then (2d·x·y, 2) */
export const PAIR_ENTRY = 2 * PAIR;
const ROWS = 32;
export const PAIR_TABLE_BYTES = ROWS * 8 * PAIR_ENTRY;
/** a pair point: (X, Y), then (T, Z) */
const PP = 2 * PAIR;

const at = (p: Local<'i32'>, off: number) => (off ? i32.add(p, off) : p.get());
const lanes32 = (l: number[]) => l.flatMap((x) => [4 * x, 4 * x + 1, 4 * x + 2, 4 * x + 3]);
/** 2p in vector m of a pair (both lanes) */
const twoP = (m: number) => v128.i32x4([TWO_P_LIMBS[2 * m], TWO_P_LIMBS[2 * m], TWO_P_LIMBS[2 * m + 1], TWO_P_LIMBS[2 * m + 1]]);
/** lanes x (i32 lanes 0 and 2) of a pair vector */
const XMASK = () => v128.i32x4([-1, 0, -1, 0]);

export interface PairCombFunctions {
  /** base_table(tab, ws): the single table built and converted to pair entries in place */
  baseTable: Func;
  lookup: Func;
  madd: Func;
  /** ed_mul_base_pair(r, s, tab, ws): r = s·B as a single extended point (ed25519_group.ts's layout) */
  mulBase: Func;
  ws: Map<Func, number>;
}

export function pairCombFunctions(fe: Fe25519, fp: FePair25519, g: GroupFunctions, comb: CombFunctions): PairCombFunctions {
  fe.addConst('two', 2n);
  const ws = new Map<Func, number>();
  const wsOf = (f: Func) => ws.get(f) ?? g.ws.get(f) ?? comb.ws.get(f) ?? 0;

  /** dst (pair) ← (a, b), from single elements made canonical (tmp: 32 bytes, then two elements) */
  const joinCanonical = (dst: Expr32, a: Expr32, b: Expr32, tmp: Local<'i32'>): Stmt[] => [
    call(fe.toBytes, tmp, a),
    call(fe.fromBytes, at(tmp, 32), tmp),
    call(fe.toBytes, tmp, b),
    call(fe.fromBytes, at(tmp, 32 + FE), tmp),
    call(fp.join, dst, at(tmp, 32), at(tmp, 32 + FE)),
  ];
  const CONV = 32 + 2 * FE;

  // base_table_pair(tab, ws): the single table, then entry i (i = 255 … 0) converted in place
  const baseTable = new Func('base_table_pair', { tab: 'i32', ws: 'i32' });
  {
    const { tab, ws: w } = baseTable.p;
    const [i, src, dst] = [baseTable.i32('i'), baseTable.i32('src'), baseTable.i32('dst')];
    // the entry's two pairs at w (read whole before dst is written), then the conversion's bytes
    // and elements, and the constant 2
    const E1 = 0,
      E2 = PAIR;
    const tmp = baseTable.i32('tmp');
    const lp = label('conv');
    baseTable.emit(
      call(comb.baseTable, tab, w),
      tmp.set(at(w, 2 * PAIR)),
      i.set(ROWS * 8),
      loop(
        lp,
        i.set(i32.sub(i, 1)),
        src.set(i32.add(tab, i32.mul(i, ENTRY))),
        dst.set(i32.add(tab, i32.mul(i, PAIR_ENTRY))),
        ...joinCanonical(at(w, E1), i32.add(src, YMX), i32.add(src, YPX), tmp),
        call(fe.setc('two'), at(tmp, 32 + 2 * FE)),
        ...joinCanonical(at(w, E2), i32.add(src, NT2D), at(tmp, 32 + 2 * FE), tmp),
        ...Array.from({ length: PAIR / 16 }, (_, c) => v128.store(dst, v128.load(w, E1 + 16 * c), 16 * c)),
        ...Array.from({ length: PAIR / 16 }, (_, c) => v128.store(dst, v128.load(w, E2 + 16 * c), PAIR + 16 * c)),
        br_if(lp, i),
      ),
    );
    baseTable.doc.push(`tab = the comb's table in pair entries: row k, entry j − 1 = ((y − x, y + x), (2d·x·y, 2)) of j·256^k·B, ${PAIR_TABLE_BYTES} bytes.`);
    ws.set(baseTable, Math.max(wsOf(comb.baseTable), 2 * PAIR + CONV + FE));
  }

  // comb_lookup_pair(dst, row, e): dst = the pair entry of e·(row's point), constant time
  const lookup = new Func('comb_lookup_pair', { dst: 'i32', row: 'i32', e: 'i32' });
  {
    const { dst, row, e } = lookup.p;
    const [s, a] = [lookup.i32('s'), lookup.i32('a')];
    const vm = lookup.v128('vm');
    const xv = Array.from({ length: PAIR_ENTRY / 16 }, (_, c) => lookup.v128(`x${c}`));
    const code: Stmt[] = [
      s.set(i32.shr_s(e, 31)),
      a.set(i32.sub(i32.xor(e, s), s)),
      // the identity: ((1, 1), (0, 2)) in limb 0, zero elsewhere
      ...xv.map((xc, c) => xc.set(c === 0 ? v128.i32x4([1, 1, 0, 0]) : c === PAIR / 16 ? v128.i32x4([0, 2, 0, 0]) : v128.i32x4([0, 0, 0, 0]))),
    ];
    for (let j = 1; j <= 8; j++) {
      code.push(vm.set(i64x2.splat(i64.extend_i32_s(i32.shr_s(i32.sub(i32.xor(a, j), 1), 31)))));
      code.push(...xv.map((xc, c) => xc.set(v128.bitselect(v128.load(row, (j - 1) * PAIR_ENTRY + 16 * c), xc, vm))));
    }
    // e < 0: (y + x, y − x) by a lane swap, 2p − 2d·x·y in lane x of the second pair, under s
    code.push(vm.set(i32x4.splat(s)));
    xv.forEach((xc, c) => {
      const neg = c < PAIR / 16 ? i8x16.shuffle(xc, xc, lanes32([1, 0, 3, 2])) : v128.bitselect(i32x4.sub(twoP(c - PAIR / 16), xc), xc, XMASK());
      code.push(v128.store(dst, v128.bitselect(neg, xc, vm), 16 * c));
    });
    lookup.doc.push('dst = the pair entry of e·P for the row of P … 8P and a digit e ∈ [−8, 8]: every entry read, the wanted one kept by a mask.');
    lookup.emit(code);
  }

  // pt_madd_pair(r, q, ws): r ← r + q, r a pair point, q a pair entry
  const madd = new Func('pt_madd_pair', { r: 'i32', q: 'i32', ws: 'i32' });
  {
    const { r, q, ws: w } = madd.p;
    const [U, AB, CD, EG, FH] = [0, PAIR, 2 * PAIR, 3 * PAIR, 4 * PAIR];
    const [ab, cd, sab, scd, eg, fh] = ['ab', 'cd', 'sab', 'scd', 'eg', 'fh'].map((n) => madd.v128(n));
    const swap = (v: Local<'v128'>) => i8x16.shuffle(v, v, lanes32([1, 0, 3, 2]));
    const code: Stmt[] = [call(fp.combine('y-x', 'x+y'), at(w, U), r), call(fp.mul, at(w, AB), at(w, U), q), call(fp.mul, at(w, CD), at(r, PAIR), at(q, PAIR))];
    for (let m = 0; m < 5; m++) {
      code.push(ab.set(v128.load(w, AB + 16 * m)), cd.set(v128.load(w, CD + 16 * m)), sab.set(swap(ab)), scd.set(swap(cd)));
      // (E, G) = (B − A + 2p, D + C); (F, H) = (D − C + 2p, B + A)
      code.push(eg.set(v128.bitselect(i32x4.add(i32x4.sub(sab, ab), twoP(m)), i32x4.add(cd, scd), XMASK())));
      code.push(fh.set(v128.bitselect(i32x4.add(i32x4.sub(scd, cd), twoP(m)), i32x4.add(ab, sab), XMASK())));
      code.push(v128.store(w, eg, EG + 16 * m), v128.store(w, fh, FH + 16 * m));
      // (E, F) and (H, G) over U and AB (no longer read)
      code.push(v128.store(w, i8x16.shuffle(eg, fh, lanes32([0, 4, 2, 6])), U + 16 * m), v128.store(w, i8x16.shuffle(fh, eg, lanes32([1, 5, 3, 7])), AB + 16 * m));
    }
    code.push(call(fp.mul, r, at(w, EG), at(w, FH)), call(fp.mul, at(r, PAIR), at(w, U), at(w, AB)));
    madd.doc.push('r ← r + q for the pair point r = ((X, Y), (T, Z)) and the pair entry q = ((y − x, y + x), (2d·x·y, 2)): four pair products.');
    madd.emit(code);
    ws.set(madd, 5 * PAIR);
  }

  // ed_mul_base_pair(r, s, tab, ws): r = s·B (single extended point), s < 2^255
  const mulBase = new Func('ed_mul_base_pair', { r: 'i32', s: 'i32', tab: 'i32', ws: 'i32' });
  {
    const { r, s, tab, ws: w } = mulBase.p;
    const DIG = 0,
      ACC = 256,
      N = ACC + PP,
      REST = N + PAIR_ENTRY;
    const [k, rowp, dg] = [mulBase.i32('k'), mulBase.i32('rowp'), mulBase.i32('dg')];
    const rest = at(w, REST);
    const tmp = mulBase.i32('tmp');
    const pass = (odd: boolean): Stmt[] => {
      const lp = label(odd ? 'odd' : 'even');
      return [
        k.set(0),
        rowp.set(tab),
        dg.set(at(w, DIG + (odd ? 4 : 0))),
        loop(lp, call(lookup, at(w, N), rowp, i32.load(dg)), call(madd, at(w, ACC), at(w, N), rest), rowp.set(i32.add(rowp, 8 * PAIR_ENTRY)), dg.set(i32.add(dg, 8)), k.set(i32.add(k, 1)), br_if(lp, i32.lt_u(k, ROWS))),
      ];
    };
    const toSingle: Stmt[] = [call(fp.lane(0), at(r, X), at(w, ACC)), call(fp.lane(1), at(r, Y), at(w, ACC)), call(fp.lane(0), at(r, T), at(w, ACC + PAIR)), call(fp.lane(1), at(r, Z), at(w, ACC + PAIR))];
    const identity: Stmt[] = Array.from({ length: PP / 16 }, (_, c) => v128.store(w, c % (PAIR / 16) === 0 ? v128.i32x4([0, 1, 0, 0]) : v128.i32x4([0, 0, 0, 0]), ACC + 16 * c));
    mulBase.emit(
      call(comb.recode, at(w, DIG), s),
      ...identity,
      ...pass(true),
      ...toSingle,
      ...Array.from({ length: 3 }, () => call(g.dblXyz, r, r, rest)),
      call(g.dbl, r, r, rest),
      tmp.set(rest),
      ...joinCanonical(at(w, ACC), at(r, X), at(r, Y), tmp),
      ...joinCanonical(at(w, ACC + PAIR), at(r, T), at(r, Z), tmp),
      ...pass(false),
      ...toSingle,
    );
    mulBase.doc.push('r = s·B for the 32-byte little-endian s < 2^255: 64 lookups and pair additions (four pair products each), 4 doublings on single elements.');
    ws.set(mulBase, REST + Math.max(wsOf(madd), wsOf(g.dbl), wsOf(g.dblXyz), CONV));
  }
  // the point layout this file converts to and from
  if (PT !== 160 || X !== 0 || Y !== 40 || Z !== 80 || T !== 120) throw new Error('ed25519 pair comb: unexpected point layout');
  return { baseTable, lookup, madd, mulBase, ws };
}

type Expr32 = Expr<'i32'>;

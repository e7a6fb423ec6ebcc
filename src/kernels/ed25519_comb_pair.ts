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
// accept. The four doublings between the passes are pair doublings too (ed25519_group_pair.ts);
// the result is converted to a single extended point at the end.
//
// The table: base_table builds ed25519_comb.ts's (niels entries of 128 bytes) and converts it in
// place into entries of 160 bytes, last entry first, so that no entry is overwritten before it
// is read (entry i's new bytes start at 160·i ≥ 128·i, past every entry below i).
//
// Why constant time: the lookup reads all 8 entries of a row and keeps one by masks made from
// the digit, the identity ((1, 1), (0, 2)) for digit 0; a negative digit's entry, (y + x, y − x)
// and (2p − 2d·x·y, 2), is computed always and kept by a mask. Rows, entries, loop counters and
// the conversions' addresses are public; everything else is straight-line SIMD integer code.

import { Func, type Local, type Stmt, br_if, call, i32, i32x4, i64, i64x2, label, loop, v128 } from './builder/index.js';
import { JOIN_WS, PAIR_ENTRY, type PairGroupFunctions, joinSingles, negatedEntryVector, pairIdentity, pairToSingle } from './ed25519_group_pair.js';
import type { CombFunctions } from './ed25519_comb.js';
import { ENTRY } from './ed25519_comb.js';
import { FE, NT2D, YMX, YPX } from './ed25519_group.js';
import type { Fe25519 } from './fe25519_radix25.js';
import { type FePair25519, PAIR } from './fe25519_pair_simd128.js';

const ROWS = 32;
export const PAIR_TABLE_BYTES = ROWS * 8 * PAIR_ENTRY;

const at = (p: Local<'i32'>, off: number) => (off ? i32.add(p, off) : p.get());

export interface PairCombFunctions {
  /** base_table(tab, ws): the single table built and converted to pair entries in place */
  baseTable: Func;
  lookup: Func;
  /** ed_mul_base_pair(r, s, tab, ws): r = s·B as a single extended point (ed25519_group.ts's layout) */
  mulBase: Func;
  ws: Map<Func, number>;
}

export function pairCombFunctions(fe: Fe25519, fp: FePair25519, gp: PairGroupFunctions, comb: CombFunctions): PairCombFunctions {
  fe.addConst('two', 2n);
  const ws = new Map<Func, number>();

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
        ...joinSingles(fe, fp, at(w, E1), i32.add(src, YMX), i32.add(src, YPX), tmp),
        call(fe.setc('two'), at(tmp, 32 + 2 * FE)),
        ...joinSingles(fe, fp, at(w, E2), i32.add(src, NT2D), at(tmp, 32 + 2 * FE), tmp),
        ...Array.from({ length: PAIR / 16 }, (_, c) => v128.store(dst, v128.load(w, E1 + 16 * c), 16 * c)),
        ...Array.from({ length: PAIR / 16 }, (_, c) => v128.store(dst, v128.load(w, E2 + 16 * c), PAIR + 16 * c)),
        br_if(lp, i),
      ),
    );
    baseTable.doc.push(`tab = the comb's table in pair entries: row k, entry j − 1 = ((y − x, y + x), (2d·x·y, 2)) of j·256^k·B, ${PAIR_TABLE_BYTES} bytes.`);
    ws.set(baseTable, Math.max(comb.ws.get(comb.baseTable)!, 2 * PAIR + JOIN_WS + FE));
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
      code.push(v128.store(dst, v128.bitselect(negatedEntryVector(c, xc), xc, vm), 16 * c));
    });
    lookup.doc.push('dst = the pair entry of e·P for the row of P … 8P and a digit e ∈ [−8, 8]: every entry read, the wanted one kept by a mask.');
    lookup.emit(code);
  }

  // ed_mul_base_pair(r, s, tab, ws): r = s·B (single extended point), s < 2^255
  const mulBase = new Func('ed_mul_base_pair', { r: 'i32', s: 'i32', tab: 'i32', ws: 'i32' });
  {
    const { r, s, tab, ws: w } = mulBase.p;
    const DIG = 0,
      ACC = 256,
      N = ACC + 2 * PAIR,
      REST = N + PAIR_ENTRY;
    const [k, rowp, dg] = [mulBase.i32('k'), mulBase.i32('rowp'), mulBase.i32('dg')];
    const rest = at(w, REST);
    const pass = (odd: boolean): Stmt[] => {
      const lp = label(odd ? 'odd' : 'even');
      return [
        k.set(0),
        rowp.set(tab),
        dg.set(at(w, DIG + (odd ? 4 : 0))),
        loop(lp, call(lookup, at(w, N), rowp, i32.load(dg)), call(gp.add, at(w, ACC), at(w, N), rest), rowp.set(i32.add(rowp, 8 * PAIR_ENTRY)), dg.set(i32.add(dg, 8)), k.set(i32.add(k, 1)), br_if(lp, i32.lt_u(k, ROWS))),
      ];
    };
    mulBase.emit(call(comb.recode, at(w, DIG), s), ...pairIdentity(w, ACC), ...pass(true), ...Array.from({ length: 4 }, () => call(gp.dbl, at(w, ACC), rest)), ...pass(false), ...pairToSingle(fp, r, at(w, ACC)));
    mulBase.doc.push('r = s·B for the 32-byte little-endian s < 2^255: 64 lookups and pair additions (four pair products each), 4 pair doublings.');
    ws.set(mulBase, REST + Math.max(gp.ws.get(gp.add)!, gp.ws.get(gp.dbl)!));
  }
  return { baseTable, lookup, mulBase, ws };
}

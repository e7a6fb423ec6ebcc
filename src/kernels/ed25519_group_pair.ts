// The group of edwards25519 (ed25519_group.ts's formulas, a = −1) on pairs of field elements
// (fe25519_pair_simd128.ts, SIMD128 only), for the comb (ed25519_comb_pair.ts) and verification
// (ed25519_verify_pair.ts). A pair point is ((X, Y), (T, Z)), 160 bytes; a pair entry, the
// addend of an addition, ((Y − X, Y + X), (2d·T, 2·Z)), 160 bytes (a niels point: Z = 1).
//
// Addition (add-2008-hwcd-3), four pair products:
//   (A, B) = (Y1 − X1, Y1 + X1)·(Y2 − X2, Y2 + X2)    (C, D) = (T1, Z1)·(2d·T2, 2·Z2)
//   E = B − A, F = D − C, G = D + C, H = B + A
//   (X3, Y3) = (E, G)·(F, H)                          (T3, Z3) = (E, F)·(H, G)
// Doubling (dbl-2008-hwcd), two pair squares, one pair carry and two pair products:
//   (A, B) = (X, Y)²    (Z², S) = (Z, X + Y)²
//   E = A + B − S, F = 2Z² + A − B (carried together), G = A − B, H = A + B
//   then (X3, Y3, T3, Z3) as in the addition.
// Bounds: the pair field's products take "loose" operands, each limb up to a tight limb plus 2p
// (or twice a tight one). Every operand here is tight, a product's output, or one sum or
// difference (plus 2p) of two tight values; the two that sum more (E and F of a doubling) are
// carried first. The entries' (Y − X, Y + X) are loose, their (2d·T, 2·Z) tight (a product).
// The sums between the products act on both lanes at once: a lane swap (i8x16.shuffle), a sum
// or difference, and a select of lane x (i32 lanes 0, 2) from one and lane y from the other.
//
// Why constant time: straight-line SIMD integer code; no branch, address or division on data.

import { type Expr, Func, type Local, type Stmt, call, i32, i32x4, i8x16, v128 } from './builder/index.js';
import { type FePair25519, PAIR, TWO_P_LIMBS } from './fe25519_pair_simd128.js';
import { modInv } from './fe_limbs.js';
import { FE25519, type Fe25519, P25519 } from './fe25519_radix25.js';
import { T, X, Y, Z } from './ed25519_group.js';

/** bytes of a pair point ((X, Y), (T, Z)) and of a pair entry ((Y − X, Y + X), (2d·T, 2·Z)) */
export const PAIR_PT = 2 * PAIR,
  PAIR_ENTRY = 2 * PAIR;

const at = (p: Local<'i32'>, off: number): Expr<'i32'> => (off ? i32.add(p, off) : p.get());
export const lanes32 = (l: number[]) => l.flatMap((x) => [4 * x, 4 * x + 1, 4 * x + 2, 4 * x + 3]);
/** 2p in vector m of a pair (both lanes) */
export const twoP = (m: number) => v128.i32x4([TWO_P_LIMBS[2 * m], TWO_P_LIMBS[2 * m], TWO_P_LIMBS[2 * m + 1], TWO_P_LIMBS[2 * m + 1]]);
/** lane x (i32 lanes 0 and 2) of a pair vector */
export const XMASK = () => v128.i32x4([-1, 0, -1, 0]);
const swap = (v: Local<'v128'>) => i8x16.shuffle(v, v, lanes32([1, 0, 3, 2]));

const BITS = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? 26 : 25));
const POS = Array.from({ length: 10 }, (_, i) => 25 * i + Math.ceil(i / 2));
/** the canonical limbs of v < p */
const limbsOf = (v: bigint) => POS.map((p, i) => Number((v >> BigInt(p)) & ((1n << BigInt(BITS[i])) - 1n)));
const D2 = (2n * ((((-121665n * modInv(121666n, P25519)) % P25519) + P25519) % P25519)) % P25519;

/** work space of joinSingles: 32 bytes, then two single elements */
export const JOIN_WS = 32 + 2 * FE25519;

/**
 * dst (a pair) ← (a, b) from single elements, each made canonical through bytes first: the
 * single field's limbs are signed, the pair field's unsigned. tmp: JOIN_WS bytes.
 */
export function joinSingles(fe: Fe25519, fp: FePair25519, dst: Expr<'i32'>, a: Expr<'i32'>, b: Expr<'i32'>, tmp: Local<'i32'>): Stmt[] {
  return [call(fe.toBytes, tmp, a), call(fe.fromBytes, at(tmp, 32), tmp), call(fe.toBytes, tmp, b), call(fe.fromBytes, at(tmp, 32 + FE25519), tmp), call(fp.join, dst, at(tmp, 32), at(tmp, 32 + FE25519))];
}

/** The single extended point r (ed25519_group.ts's layout) of the pair point at pp (non-negative tight limbs). */
export function pairToSingle(fp: FePair25519, r: Local<'i32'>, pp: Expr<'i32'>): Stmt[] {
  return [call(fp.lane(0), at(r, X), pp), call(fp.lane(1), at(r, Y), pp), call(fp.lane(0), at(r, T), i32.add(pp, PAIR)), call(fp.lane(1), at(r, Z), i32.add(pp, PAIR))];
}

/** The pair identity ((0, 1), (0, 1)) at p. */
export function pairIdentity(p: Local<'i32'>, off: number): Stmt[] {
  return Array.from({ length: PAIR_PT / 16 }, (_, c) => v128.store(p, c % (PAIR / 16) === 0 ? v128.i32x4([0, 1, 0, 0]) : v128.i32x4([0, 0, 0, 0]), off + 16 * c));
}

/**
 * Vector c of the entry of −P, given vector c of the entry of P: in the first pair (Y + X, Y − X)
 * by a lane swap, in the second 2p − 2d·T in lane x (2·Z kept).
 */
export function negatedEntryVector(c: number, v: Local<'v128'>): Expr<'v128'> {
  return c < PAIR / 16 ? swap(v) : v128.bitselect(i32x4.sub(twoP(c - PAIR / 16), v), v, XMASK());
}

export interface PairGroupFunctions {
  /** pt_add_pair(r, q, ws): r ← r + q (r a pair point, q a pair entry) */
  add: Func;
  /** pt_dbl_pair(r, ws): r ← 2r */
  dbl: Func;
  /** pt_entry_pair(e, p, ws): e = the pair entry of the pair point p */
  entry: Func;
  /** pt_neg_entry_pair(e): e ← the entry of the negated point (Y − X and Y + X swapped, 2p − 2d·T) */
  negEntry: Func;
  ws: Map<Func, number>;
}

export function pairGroupFunctions(fp: FePair25519): PairGroupFunctions {
  const ws = new Map<Func, number>();

  const add = new Func('pt_add_pair', { r: 'i32', q: 'i32', ws: 'i32' });
  {
    const { r, q, ws: w } = add.p;
    const [U, AB, CD, EG, FH] = [0, PAIR, 2 * PAIR, 3 * PAIR, 4 * PAIR];
    const [ab, cd, sab, scd, eg, fh] = ['ab', 'cd', 'sab', 'scd', 'eg', 'fh'].map((n) => add.v128(n));
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
    add.doc.push('r ← r + q for the pair point r = ((X, Y), (T, Z)) and the pair entry q = ((Y − X, Y + X), (2d·T, 2·Z)): four pair products.');
    add.emit(code);
    ws.set(add, 5 * PAIR);
  }

  const dbl = new Func('pt_dbl_pair', { r: 'i32', ws: 'i32' });
  {
    const { r, ws: w } = dbl.p;
    const [S1, W, S2, EF, GH, EG, FH] = [0, PAIR, 2 * PAIR, 3 * PAIR, 4 * PAIR, 5 * PAIR, 6 * PAIR];
    const [xy, tz, ab, zs, sab, szs, ef, gh] = ['xy', 'tz', 'ab', 'zs', 'sab', 'szs', 'ef', 'gh'].map((n) => dbl.v128(n));
    const code: Stmt[] = [call(fp.sqr, at(w, S1), r)];
    // (Z, X + Y): lane x from (T, Z) swapped, lane y from (X, Y) plus its swap
    for (let m = 0; m < 5; m++) {
      code.push(xy.set(v128.load(r, 16 * m)), tz.set(v128.load(r, PAIR + 16 * m)));
      code.push(v128.store(w, v128.bitselect(swap(tz), i32x4.add(xy, swap(xy)), XMASK()), W + 16 * m));
    }
    code.push(call(fp.sqr, at(w, S2), at(w, W)));
    for (let m = 0; m < 5; m++) {
      code.push(ab.set(v128.load(w, S1 + 16 * m)), zs.set(v128.load(w, S2 + 16 * m)), sab.set(swap(ab)), szs.set(swap(zs)));
      // (E, F) = (A + B + 2p − S, 2Z² + A − B + 2p), carried next; (G, H) = (A − B + 2p, A + B)
      const e = i32x4.sub(i32x4.add(i32x4.add(ab, sab), twoP(m)), szs);
      const f = i32x4.add(i32x4.add(i32x4.add(szs, szs), i32x4.sub(sab, ab)), twoP(m));
      code.push(ef.set(v128.bitselect(e, f, XMASK())), v128.store(w, ef, EF + 16 * m));
      code.push(gh.set(v128.bitselect(i32x4.add(i32x4.sub(ab, sab), twoP(m)), i32x4.add(ab, sab), XMASK())), v128.store(w, gh, GH + 16 * m));
    }
    code.push(call(fp.carry, at(w, EF), at(w, EF)));
    for (let m = 0; m < 5; m++) {
      code.push(ef.set(v128.load(w, EF + 16 * m)), gh.set(v128.load(w, GH + 16 * m)));
      // (E, G), (F, H), and (H, G) over GH
      code.push(v128.store(w, i8x16.shuffle(ef, gh, lanes32([0, 4, 2, 6])), EG + 16 * m), v128.store(w, i8x16.shuffle(ef, gh, lanes32([1, 5, 3, 7])), FH + 16 * m), v128.store(w, swap(gh), GH + 16 * m));
    }
    code.push(call(fp.mul, r, at(w, EG), at(w, FH)), call(fp.mul, at(r, PAIR), at(w, EF), at(w, GH)));
    dbl.doc.push('r ← 2r for the pair point r = ((X, Y), (T, Z)): two pair squares, one pair carry, two pair products (dbl-2008-hwcd, a = −1).');
    dbl.emit(code);
    ws.set(dbl, 7 * PAIR);
  }

  const entry = new Func('pt_entry_pair', { e: 'i32', p: 'i32', ws: 'i32' });
  {
    const { e, p: P, ws: w } = entry.p;
    const k2 = limbsOf(D2);
    // the constant pair (2d, 2) at w
    const code: Stmt[] = Array.from({ length: 5 }, (_, m) => v128.store(w, v128.i32x4([k2[2 * m], m === 0 ? 2 : 0, k2[2 * m + 1], 0]), 16 * m));
    code.push(call(fp.combine('y-x', 'x+y'), e, P), call(fp.mul, at(e, PAIR), at(P, PAIR), w));
    entry.doc.push('e = ((Y − X, Y + X), (2d·T, 2·Z)) of the pair point p: one pair product.');
    entry.emit(code);
    ws.set(entry, PAIR);
  }

  const negEntry = new Func('pt_neg_entry_pair', { e: 'i32' });
  {
    const { e } = negEntry.p;
    const v = negEntry.v128('v');
    const code: Stmt[] = [];
    for (let c = 0; c < PAIR_ENTRY / 16; c++) {
      code.push(v.set(v128.load(e, 16 * c)));
      code.push(v128.store(e, negatedEntryVector(c, v), 16 * c));
    }
    negEntry.doc.push('e ← the entry of −P for the pair entry e of P: (Y + X, Y − X) by a lane swap, 2p − 2d·T in lane x of the second pair.');
    negEntry.emit(code);
  }
  return { add, dbl, entry, negEntry, ws };
}

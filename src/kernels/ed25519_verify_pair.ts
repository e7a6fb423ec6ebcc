// Ed25519 verification (ed25519_verify.ts) with its chain of doublings and additions on pairs of
// field elements (ed25519_group_pair.ts, SIMD128 only), VARIABLE TIME on public inputs like the
// single-element form, and declared so in src/ct/vartime.ts under the same export name.
//
// The same algorithm: A decoded (strictly, or leniently with zip215), S < L, then
// Q = [S]B + [k](−A) over the width-8 NAF of S and the width-5 NAF of k that the glue wrote at dg,
// an addition for each nonzero digit. What changes is the representation: Q is a pair point,
// a doubling is two pair squares, a pair carry and two pair products (4S + 4M on single
// elements), an addition four pair products (7M or 8M). The tables hold pair entries,
// ((Y − X, Y + X), (2d·T, 2·Z)) of 160 bytes: otab the odd multiples B, 3B, …, 127B (10 KB,
// built once by base_odd_table, on pairs too, with no inversion: an entry need not be affine),
// and 1·(−A), 3·(−A), …, 15·(−A) per call. −A enters the pairs through canonical bytes (the
// decoder's limbs are signed); Q leaves them by lanes into a single point for the final
// comparison (the encoding of Q against R, or ZIP 215's [8](Q − R) = O), as before.
//
// Negative-control flag (tests only): skipSCheck (S ≥ L accepted: malleable signatures).

import { type Expr, Func, type Local, type Stmt, br_if, call, callv, i32, if_, label, loop, memory, ret } from './builder/index.js';
import type { CombFunctions } from './ed25519_comb.js';
import { FE, type GroupFunctions, PT, T, X, Y, Z } from './ed25519_group.js';
import { JOIN_WS, PAIR_ENTRY, PAIR_PT, type PairGroupFunctions, joinSingles, pairIdentity, pairToSingle } from './ed25519_group_pair.js';
import type { ScalarFunctions } from './ed25519_scalar.js';
import { W_K, W_S, negatePoint, topDigit, verifyEnd } from './ed25519_verify.js';
import type { Fe25519 } from './fe25519_radix25.js';
import { type FePair25519, PAIR } from './fe25519_pair_simd128.js';

const at = (p: Local<'i32'>, off: number): Expr<'i32'> => (off ? i32.add(p, off) : p.get());

const ODD_ENTRIES = 1 << (W_S - 2);
/** bytes of the table of odd multiples of B in pair entries */
export const ODD_TABLE_BYTES_PAIR = ODD_ENTRIES * PAIR_ENTRY;
const A_ENTRIES = 1 << (W_K - 2);

export function verifyPairFunction(fe: Fe25519, fp: FePair25519, g: GroupFunctions, gp: PairGroupFunctions, comb: CombFunctions, sc: ScalarFunctions, flags: { skipSCheck?: boolean } = {}): { verify: Func; oddTable: Func; ws: number; oddWs: number } {
  const f = new Func('ed25519_verify', { sig: 'i32', pk: 'i32', dg: 'i32', otab: 'i32', ws: 'i32', zip215: 'i32' }, { results: ['i32'] });
  const { sig, pk, dg, otab, ws, zip215 } = f.p;
  const A = 0,
    TABA = PT,
    QP = TABA + A_ENTRIES * PAIR_ENTRY,
    DP = QP + PAIR_PT,
    D2E = DP + PAIR_PT,
    E = D2E + PAIR_ENTRY,
    QS = E + PAIR_ENTRY,
    ENC = QS + PT,
    R = ENC + 32,
    REST = R + PT;
  const W = (o: number) => at(ws, o);
  const rest = W(REST);
  // e1, e2, j and ent depend on the digits (secret to the checker); the loop counters i, n must not share them
  const [i, n, e1, e2, j, ent] = [f.i32('i'), f.i32('n'), f.i32('e1'), f.i32('e2'), f.i32('j'), f.i32('ent')];
  const [Ap, Ep, Rp, Qs, tmp] = [f.i32('ap'), f.i32('ep'), f.i32('rp'), f.i32('qs'), f.i32('tmp')];

  /**
   * Q ← Q + (the odd digit e's entry, (|e| − 1)/2 from base, negated for e < 0). Only this
   * function reads at the digit-chosen address, into its own copy at Ep: the shared pair code
   * gets Ep, a public pointer, so no other export's callees see an address that depends on a digit.
   */
  const addDigit = (e: Local<'i32'>, base: Expr<'i32'>): Stmt =>
    if_(e, [
      j.set(i32.shr_u(i32.sub(i32.sub(i32.xor(e, i32.shr_s(e, 31)), i32.shr_s(e, 31)), 1), 1)),
      ent.set(i32.add(base, i32.mul(j, PAIR_ENTRY))),
      memory.copy(Ep, ent, PAIR_ENTRY),
      if_(i32.lt_s(e, 0), [call(gp.negEntry, Ep)]),
      call(gp.add, W(QP), Ep, rest),
    ]);

  const lp = label('digits'),
    tl = label('tab');
  f.emit(
    Ap.set(W(A)),
    Ep.set(W(E)),
    Rp.set(W(R)),
    Qs.set(W(QS)),
    tmp.set(rest),
    // the key first, so that a key that is not a point is reported whatever the signature
    if_(i32.eqz(callv('i32', g.decode, Ap, pk, rest, i32.eqz(zip215))), [ret(i32.const(2))]),
    ...(flags.skipSCheck ? [] : [if_(i32.eqz(callv('i32', sc.ltL, i32.add(sig, 32), rest)), [ret(i32.const(0))])]),
    ...negatePoint(fe, Ap),
    // −A on pairs; 1·(−A), 3·(−A), …, 15·(−A) as entries, with 2·(−A)'s entry at D2E
    ...joinSingles(fe, fp, W(DP), at(Ap, X), at(Ap, Y), tmp),
    ...joinSingles(fe, fp, W(DP + PAIR), at(Ap, T), at(Ap, Z), tmp),
    call(gp.entry, W(TABA), W(DP), rest),
    memory.copy(W(QP), W(DP), PAIR_PT),
    call(gp.dbl, W(DP), rest),
    call(gp.entry, W(D2E), W(DP), rest),
    n.set(1),
    loop(tl, call(gp.add, W(QP), W(D2E), rest), call(gp.entry, i32.add(W(TABA), i32.mul(n, PAIR_ENTRY)), W(QP), rest), n.set(i32.add(n, 1)), br_if(tl, i32.lt_u(n, A_ENTRIES))),
    // the highest position with a nonzero digit (none: Q stays the identity)
    ...pairIdentity(ws, QP),
    ...topDigit(i, dg),
    if_(i32.ge_s(i, 0), [loop(lp, e1.set(i32.load8_s(i32.add(dg, i))), e2.set(i32.load8_s(i32.add(dg, i32.add(i, 256)))), call(gp.dbl, W(QP), rest), addDigit(e1, otab.get()), addDigit(e2, W(TABA)), br_if(lp, i32.ge_s(i.tee(i32.sub(i, 1)), 0)))]),
    ...pairToSingle(fp, Qs, W(QP)),
    ...verifyEnd(fe, g, { sig, zip215, q: Qs, rp: Rp, ep: Ep, enc: W(ENC), rest }),
  );
  f.doc.push(
    'VARIABLE TIME (public inputs only; src/ct/vartime.ts): → 1 if (R, S) at sig is a valid signature for the public key',
    'at pk, given the width-8 NAF of S at dg and the width-5 NAF of k = SHA-512(R ‖ A ‖ M) mod L at dg + 256 (RFC 8032',
    '5.1.7; zip215: the ZIP-215 rules), 0 if not, 2 if pk is not a point. otab: the odd multiples of B in pair entries (base_odd_table).',
  );
  const callee = Math.max(...[g.decode, g.add, g.dbl, g.toCached, g.encodeVt].map((h) => g.ws.get(h) ?? 0), ...[gp.add, gp.dbl, gp.entry].map((h) => gp.ws.get(h) ?? 0), JOIN_WS, sc.ws, fe.testWorkspace);

  // base_odd_table(otab, ws): entry m = the pair entry of (2m + 1)·B, m = 0 … ODD_ENTRIES − 1
  const oddTable = new Func('base_odd_table', { otab: 'i32', ws: 'i32' });
  let oddWs: number;
  {
    const { otab: o, ws: w } = oddTable.p;
    const [B1, P, D, DE, REST2] = [0, PT, PT + PAIR_PT, PT + 2 * PAIR_PT, PT + 3 * PAIR_PT];
    const [Bp, t, row, m] = [oddTable.i32('bp'), oddTable.i32('t'), oddTable.i32('row'), oddTable.i32('m')];
    const r2 = at(w, REST2);
    const ol = label('odd');
    oddTable.emit(
      Bp.set(at(w, B1)),
      t.set(r2),
      call(comb.setBase, Bp),
      ...joinSingles(fe, fp, at(w, P), at(Bp, X), at(Bp, Y), t),
      ...joinSingles(fe, fp, at(w, P + PAIR), at(Bp, T), at(Bp, Z), t),
      memory.copy(at(w, D), at(w, P), PAIR_PT),
      call(gp.dbl, at(w, D), r2),
      call(gp.entry, at(w, DE), at(w, D), r2),
      row.set(o),
      m.set(0),
      loop(ol, call(gp.entry, row, at(w, P), r2), call(gp.add, at(w, P), at(w, DE), r2), row.set(i32.add(row, PAIR_ENTRY)), m.set(i32.add(m, 1)), br_if(ol, i32.lt_u(m, ODD_ENTRIES))),
    );
    oddTable.doc.push(`otab = the pair entries of B, 3B, 5B, …, ${2 * ODD_ENTRIES - 1}B, ${ODD_TABLE_BYTES_PAIR} bytes: verification's table.`);
    oddWs = REST2 + Math.max(JOIN_WS, ...[gp.add, gp.dbl, gp.entry].map((h) => gp.ws.get(h) ?? 0));
  }
  if (FE !== 40) throw new Error('ed25519 pair verification: unexpected element size');
  return { verify: f, oddTable, ws: REST + callee, oddWs };
}

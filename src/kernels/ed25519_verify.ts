// Ed25519 verification (RFC 8032 section 5.1.7), VARIABLE TIME: its inputs — the signature, the
// public key and k = SHA-512(R ‖ A ‖ M) mod L — are public, and src/ct/vartime.ts declares the
// export ed25519_verify variable-time (the checker accepts its branches and digit-indexed table
// reads only because no other export reaches this code).
//
// ed25519_verify(sig, pk, dg, otab, ws, zip215) → 1 valid, 0 invalid, 2 the public key is not a
// point: A decoded (strictly, or leniently with zip215), S < L (canonical), then
// Q = [S]B + [k](−A) by one chain of doublings (Straus) over the width-w NAFs of S (w = 8) and k
// (w = 5) that the glue wrote at dg (256 signed bytes each): an addition for each nonzero digit,
// about 28 for S from otab's odd multiples B, 3B, …, 127B (niels, built once by base_odd_table)
// and 42 for k from 1·(−A), 3·(−A), …, 15·(−A) (cached, built per call); a doubling followed by
// another skips T. Strict (RFC 8032): the encoding of Q must equal the signature's R byte for
// byte, which refuses non-canonical R. ZIP-215: R decoded leniently and [8](Q − R) must be the
// identity (the cofactored equation).
//
// Negative-control flag (tests only): skipSCheck (S ≥ L accepted: malleable signatures).

import { type Expr, Func, type Local, type Stmt, br_if, call, callv, i32, i64, if_, label, loop, memory, ret } from './builder/index.js';
import type { Fe25519 } from './fe25519_radix25.js';
import { CACHED, CT2D, FE, Fx, type GroupFunctions, NT2D, PT, T, X, Y, YMX, YPX, Z } from './ed25519_group.js';
import { type CombFunctions, ENTRY } from './ed25519_comb.js';
import type { ScalarFunctions } from './ed25519_scalar.js';

const at = (p: Local<'i32'>, off: number): Expr<'i32'> => (off ? i32.add(p, off) : p.get());

/** width of the NAF of S (odd multiples of B up to 2^(W_S−1) − 1 in otab) and of k (of −A, per call) */
export const W_S = 8,
  W_K = 5;
/** entries of the odd-multiples table of B, and its bytes (niels entries as in the comb) */
const ODD_ENTRIES = 1 << (W_S - 2);
export const ODD_TABLE_BYTES = ODD_ENTRIES * ENTRY;
const A_ENTRIES = 1 << (W_K - 2);

/**
 * i ← the highest position below 256 with a nonzero digit of S (at dg) or k (at dg + 256), −1
 * when there is none: the start of the doubling chain (shared with ed25519_verify_pair.ts).
 */
export function topDigit(i: Local<'i32'>, dg: Local<'i32'>): Stmt[] {
  const top = label('top');
  return [i.set(256), loop(top, i.set(i32.sub(i, 1)), br_if(top, i32.and(i32.ge_s(i, 0), i32.eqz(i32.or(i32.load8_s(i32.add(dg, i)), i32.load8_s(i32.add(dg, i32.add(i, 256))))))))];
}

/**
 * The end of a verification, with Q = [S]B + [k](−A) as a single extended point at q: strict,
 * the encoding of Q (into enc) must equal R byte for byte; ZIP 215, R decoded leniently (into
 * rp, its cached negation at ep) and [8](Q − R) must be the identity. The function's value.
 */
export function verifyEnd(fe: Fe25519, g: GroupFunctions, a: { sig: Local<'i32'>; zip215: Local<'i32'>; q: Local<'i32'>; rp: Local<'i32'>; ep: Local<'i32'>; enc: Expr<'i32'>; rest: Expr<'i32'> }): Stmt[] {
  const { sig, zip215, q, rp, ep, enc, rest } = a;
  return [
    if_(i32.eqz(zip215), [
      call(g.encodeVt, enc, q, rest),
      ret(i64.eqz(i64.or(i64.or(i64.xor(i64.load(enc, 0), i64.load(sig, 0)), i64.xor(i64.load(enc, 8), i64.load(sig, 8))), i64.or(i64.xor(i64.load(enc, 16), i64.load(sig, 16)), i64.xor(i64.load(enc, 24), i64.load(sig, 24)))))),
    ]),
    // ZIP-215: [8](Q − R) = O
    if_(i32.eqz(callv('i32', g.decode, rp, sig, rest, i32.const(0))), [ret(i32.const(0))]),
    ...negatePoint(fe, rp),
    call(g.toCached, ep, rp, rest),
    call(g.add, q, q, ep, rest),
    ...Array.from({ length: 3 }, () => call(g.dbl, q, q, rest)),
    i32.and(callv('i32', fe.isZero, at(q, X), rest), callv('i32', fe.eq, at(q, Y), at(q, Z), rest)),
  ];
}

/** p ← −p in place for a single extended point (X and T negated) */
export function negatePoint(fe: Fe25519, p: Local<'i32'>): Stmt[] {
  return [call(fe.neg, at(p, X), at(p, X)), call(fe.neg, at(p, T), at(p, T))];
}

export function verifyFunction(fe: Fe25519, g: GroupFunctions, comb: CombFunctions, sc: ScalarFunctions, flags: { skipSCheck?: boolean } = {}): { verify: Func; oddTable: Func; ws: number; oddWs: number } {
  const f = new Func('ed25519_verify', { sig: 'i32', pk: 'i32', dg: 'i32', otab: 'i32', ws: 'i32', zip215: 'i32' }, { results: ['i32'] });
  const { sig, pk, dg, otab, ws, zip215 } = f.p;
  const A = 0,
    TABA = PT,
    D2 = TABA + A_ENTRIES * CACHED,
    Q = D2 + CACHED,
    E = Q + PT,
    ENC = E + CACHED,
    R = ENC + 32,
    REST = R + PT;
  const W = (o: number) => at(ws, o);
  const rest = W(REST);
  // e1, e2, j and ent depend on the digits (secret to the checker); the loop counters i, n must not share them
  const [i, n, e1, e2, j, ent] = [f.i32('i'), f.i32('n'), f.i32('e1'), f.i32('e2'), f.i32('j'), f.i32('ent')];
  const [Ap, Qp, Ep, Rp] = [f.i32('ap'), f.i32('qp'), f.i32('ep'), f.i32('rp')];

  const negate = (p: Local<'i32'>): Stmt[] => negatePoint(fe, p);
  /**
   * Ep ← the entry at ent, or its negation (y + x and y − x swapped, 2d·t negated). Only this
   * function's own copies read at the digit-chosen address: the shared group code gets Ep, a
   * public pointer, so no other export's callees see an address that depends on a digit.
   */
  const copyEntry = (e: Local<'i32'>, bytes: number, t2d: number): Stmt[] => [
    memory.copy(Ep, ent, bytes),
    if_(i32.lt_s(e, 0), [memory.copy(at(Ep, YPX), at(ent, YMX), FE), memory.copy(at(Ep, YMX), at(ent, YPX), FE), call(fe.neg, at(Ep, t2d), at(Ep, t2d))]),
  ];
  /** the addition of the odd digit e's entry ((|e| − 1)/2 at stride `size` from base) */
  const addDigit = (e: Local<'i32'>, base: Expr<'i32'> | Local<'i32'>, size: number, t2d: number, add: Func): Stmt =>
    if_(e, [j.set(i32.shr_u(i32.sub(i32.sub(i32.xor(e, i32.shr_s(e, 31)), i32.shr_s(e, 31)), 1), 1)), ent.set(i32.add(base, i32.mul(j, size))), ...copyEntry(e, size, t2d), call(add, Qp, Qp, Ep, rest)]);

  const lp = label('digits'),
    tl = label('tab');
  f.emit(
    Ap.set(W(A)),
    Qp.set(W(Q)),
    Ep.set(W(E)),
    Rp.set(W(R)),
    // the key first, so that a key that is not a point is reported whatever the signature
    if_(i32.eqz(callv('i32', g.decode, Ap, pk, rest, i32.eqz(zip215))), [ret(i32.const(2))]),
    ...(flags.skipSCheck ? [] : [if_(i32.eqz(callv('i32', sc.ltL, i32.add(sig, 32), rest)), [ret(i32.const(0))])]),
    ...negate(Ap),
    // 1·(−A), 3·(−A), …, 15·(−A), cached; D2 = 2·(−A)
    call(g.toCached, W(TABA), Ap, rest),
    call(g.dbl, Qp, Ap, rest),
    call(g.toCached, W(D2), Qp, rest),
    memory.copy(Qp, Ap, PT),
    n.set(1),
    loop(tl, call(g.add, Qp, Qp, W(D2), rest), call(g.toCached, i32.add(W(TABA), i32.mul(n, CACHED)), Qp, rest), n.set(i32.add(n, 1)), br_if(tl, i32.lt_u(n, A_ENTRIES))),
    // the highest position with a nonzero digit (none: Q stays the identity)
    call(g.identity, Qp),
    ...topDigit(i, dg),
    if_(i32.ge_s(i, 0), [
      loop(
        lp,
        e1.set(i32.load8_s(i32.add(dg, i))),
        e2.set(i32.load8_s(i32.add(dg, i32.add(i, 256)))),
        // T is needed by an addition here, and by ZIP 215's after the last step
        if_(i32.or(i32.or(e1, e2), i32.eqz(i)), [call(g.dbl, Qp, Qp, rest)], [call(g.dblXyz, Qp, Qp, rest)]),
        addDigit(e1, otab, ENTRY, NT2D, g.madd),
        addDigit(e2, W(TABA), CACHED, CT2D, g.add),
        br_if(lp, i32.ge_s(i.tee(i32.sub(i, 1)), 0)),
      ),
    ]),
    ...verifyEnd(fe, g, { sig, zip215, q: Qp, rp: Rp, ep: Ep, enc: W(ENC), rest }),
  );
  f.doc.push(
    'VARIABLE TIME (public inputs only; src/ct/vartime.ts): → 1 if (R, S) at sig is a valid signature for the public key',
    'at pk, given the width-8 NAF of S at dg and the width-5 NAF of k = SHA-512(R ‖ A ‖ M) mod L at dg + 256 (RFC 8032',
    '5.1.7; zip215: the ZIP-215 rules), 0 if not, 2 if pk is not a point. otab: the odd multiples of B (base_odd_table).',
  );
  const callee = Math.max(...[g.decode, g.add, g.madd, g.dbl, g.dblXyz, g.toCached, g.encodeVt].map((h) => g.ws.get(h) ?? 0), sc.ws, fe.testWorkspace);

  // base_odd_table(otab, ws): entry m = (2m + 1)·B in niels form, m = 0 … ODD_ENTRIES − 1
  const oddTable = new Func('base_odd_table', { otab: 'i32', ws: 'i32' });
  {
    const { otab: o, ws: w } = oddTable.p;
    const [P, D, C] = [0, PT, 2 * PT];
    const fx = new Fx(fe, w, 3 * PT);
    const zi = fx.tmp(),
      xa = fx.tmp(),
      ya = fx.tmp(),
      xy = fx.tmp();
    const [Pp, Cp, row, m] = [oddTable.i32('pp'), oddTable.i32('cp'), oddTable.i32('row'), oddTable.i32('m')];
    const e = (off: number) => i32.add(row, off);
    const ol = label('odd');
    oddTable.emit(
      Pp.set(at(w, P)),
      Cp.set(at(w, C)),
      row.set(o),
      m.set(0),
      call(comb.setBase, Pp),
      call(g.dbl, at(w, D), Pp, fx.rest),
      call(g.toCached, Cp, at(w, D), fx.rest),
      loop(
        ol,
        call(fe.inv, zi.at(), at(Pp, Z), fx.rest),
        call(fe.mul, xa.at(), at(Pp, X), zi.at()),
        call(fe.mul, ya.at(), at(Pp, Y), zi.at()),
        call(fe.add, e(YPX), ya.at(), xa.at()),
        call(fe.carry, e(YPX), e(YPX)),
        call(fe.sub, e(YMX), ya.at(), xa.at()),
        call(fe.carry, e(YMX), e(YMX)),
        call(fe.mul, xy.at(), xa.at(), ya.at()),
        call(fe.setc('d2'), e(NT2D)),
        call(fe.mul, e(NT2D), e(NT2D), xy.at()),
        call(g.add, Pp, Pp, Cp, fx.rest),
        row.set(i32.add(row, ENTRY)),
        m.set(i32.add(m, 1)),
        br_if(ol, i32.lt_u(m, ODD_ENTRIES)),
      ),
    );
    oddTable.doc.push(`otab = B, 3B, 5B, …, ${2 * ODD_ENTRIES - 1}B in niels form (y + x, y − x, 2d·x·y), ${ODD_TABLE_BYTES} bytes: verification's table.`);
  }
  const oddWs = 3 * PT + 4 * FE + Math.max(fe.invWorkspace, g.ws.get(g.add) ?? 0, g.ws.get(g.dbl) ?? 0, g.ws.get(g.toCached) ?? 0);
  return { verify: f, oddTable, ws: REST + callee, oddWs };
}

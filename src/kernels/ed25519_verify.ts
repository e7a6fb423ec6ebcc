// Ed25519 verification (RFC 8032 section 5.1.7), VARIABLE TIME: its inputs — the signature, the
// public key and k = SHA-512(R ‖ A ‖ M) mod L — are public, and src/ct/vartime.ts declares the
// export ed25519_verify variable-time (the checker accepts its branches and digit-indexed table
// reads only because no other export reaches this code).
//
// ed25519_verify(sig, pk, k, tab, ws, zip215) → 1 valid, 0 invalid, 2 the public key is not a
// point: A decoded (strictly, or leniently with zip215), S < L (canonical), then
// Q = [S]B + [k](−A) by a joint double-and-add over signed radix-16 digits (Straus: 252
// doublings, an addition for each nonzero digit of either scalar, from the comb's first row
// 1·B … 8·B and a table of 1·(−A) … 8·(−A)). Strict (RFC 8032): the encoding of Q must equal
// the signature's R byte for byte, which refuses non-canonical R. ZIP-215: R decoded leniently
// and [8](Q − R) must be the identity (the cofactored equation).
//
// Negative-control flag (tests only): skipSCheck (S ≥ L accepted: malleable signatures).

import { type Expr, Func, type Local, type Stmt, br_if, call, callv, i32, i64, if_, label, loop, memory, ret } from './builder/index.js';
import type { Fe25519 } from './fe25519_radix25.js';
import { CACHED, CT2D, FE, type GroupFunctions, NT2D, PT, T, X, Y, YMX, YPX, Z } from './ed25519_group.js';
import { type CombFunctions, ENTRY } from './ed25519_comb.js';
import type { ScalarFunctions } from './ed25519_scalar.js';

const at = (p: Local<'i32'>, off: number): Expr<'i32'> => (off ? i32.add(p, off) : p.get());

export function verifyFunction(fe: Fe25519, g: GroupFunctions, comb: CombFunctions, sc: ScalarFunctions, flags: { skipSCheck?: boolean } = {}): { verify: Func; ws: number } {
  const f = new Func('ed25519_verify', { sig: 'i32', pk: 'i32', k: 'i32', tab: 'i32', ws: 'i32', zip215: 'i32' }, { results: ['i32'] });
  const { sig, pk, k, tab, ws, zip215 } = f.p;
  const A = 0, TABA = PT, DS = TABA + 8 * CACHED, DK = DS + 256, Q = DK + 256, E = Q + PT, ENC = E + CACHED, R = ENC + 32, REST = R + PT;
  const W = (o: number) => at(ws, o);
  const rest = W(REST);
  // j, e and ent depend on the digits (secret to the checker); the loop counters i, n must not share them
  const [i, n, j, e, ent] = [f.i32('i'), f.i32('n'), f.i32('j'), f.i32('e'), f.i32('ent')];
  const [Ap, Qp, Ep, Rp] = [f.i32('ap'), f.i32('qp'), f.i32('ep'), f.i32('rp')];

  /** q = −p in place for an extended point (X, T negated) */
  const negate = (p: Local<'i32'>): Stmt[] => [call(fe.neg, at(p, X), at(p, X)), call(fe.neg, at(p, T), at(p, T))];
  /**
   * Ep ← the entry at ent, or its negation (y + x and y − x swapped, 2d·t negated). Only this
   * function's own copies read at the digit-chosen address: the shared group code gets Ep, a
   * public pointer, so no other export's callees see an address that depends on a digit.
   */
  const copyEntry = (bytes: number, t2d: number): Stmt[] => [
    memory.copy(Ep, ent, bytes),
    if_(i32.lt_s(e, 0), [
      memory.copy(at(Ep, YPX), at(ent, YMX), FE),
      memory.copy(at(Ep, YMX), at(ent, YPX), FE),
      call(fe.neg, at(Ep, t2d), at(Ep, t2d)),
    ]),
  ];
  /** the addition of digit e's entry (|e| − 1 at stride `size` from base) */
  const addDigit = (base: Expr<'i32'> | Local<'i32'>, size: number, t2d: number, add: Func): Stmt =>
    if_(e, [
      j.set(i32.sub(i32.xor(e, i32.shr_s(e, 31)), i32.shr_s(e, 31))),
      ent.set(i32.add(base, i32.mul(i32.sub(j, 1), size))),
      ...copyEntry(size, t2d),
      call(add, Qp, Qp, Ep, rest),
    ]);

  const lp = label('digits'), tl = label('tab');
  f.emit(
    Ap.set(W(A)), Qp.set(W(Q)), Ep.set(W(E)), Rp.set(W(R)),
    // the key first, so that a key that is not a point is reported whatever the signature
    if_(i32.eqz(callv('i32', g.decode, Ap, pk, rest, i32.eqz(zip215))), [ret(i32.const(2))]),
    ...(flags.skipSCheck ? [] : [if_(i32.eqz(callv('i32', sc.ltL, i32.add(sig, 32), rest)), [ret(i32.const(0))])]),
    ...negate(Ap),
    // 1·(−A) … 8·(−A), cached
    call(g.toCached, W(TABA), Ap, rest),
    memory.copy(Qp, Ap, PT),
    n.set(1),
    loop(tl,
      call(g.add, Qp, Qp, W(TABA), rest),
      call(g.toCached, i32.add(W(TABA), i32.mul(n, CACHED)), Qp, rest),
      n.set(i32.add(n, 1)),
      br_if(tl, i32.lt_u(n, 8)),
    ),
    call(comb.recode, W(DS), i32.add(sig, 32)),
    call(comb.recode, W(DK), k),
    call(g.identity, Qp),
    i.set(63),
    loop(lp,
      if_(i32.ne(i, 63), Array.from({ length: 4 }, () => call(g.dbl, Qp, Qp, rest))),
      e.set(i32.load(i32.add(W(DS), i32.shl(i, 2)))),
      addDigit(tab, ENTRY, NT2D, g.madd),
      e.set(i32.load(i32.add(W(DK), i32.shl(i, 2)))),
      addDigit(W(TABA), CACHED, CT2D, g.add),
      br_if(lp, i32.ge_s(i.tee(i32.sub(i, 1)), 0)),
    ),
    if_(i32.eqz(zip215), [
      call(g.encode, W(ENC), Qp, rest),
      ret(i64.eqz(i64.or(
        i64.or(i64.xor(i64.load(W(ENC), 0), i64.load(sig, 0)), i64.xor(i64.load(W(ENC), 8), i64.load(sig, 8))),
        i64.or(i64.xor(i64.load(W(ENC), 16), i64.load(sig, 16)), i64.xor(i64.load(W(ENC), 24), i64.load(sig, 24))),
      ))),
    ]),
    // ZIP-215: [8](Q − R) = O
    if_(i32.eqz(callv('i32', g.decode, Rp, sig, rest, i32.const(0))), [ret(i32.const(0))]),
    ...negate(Rp),
    call(g.toCached, Ep, Rp, rest),
    call(g.add, Qp, Qp, Ep, rest),
    ...Array.from({ length: 3 }, () => call(g.dbl, Qp, Qp, rest)),
    i32.and(callv('i32', fe.isZero, at(Qp, X), rest), callv('i32', fe.eq, at(Qp, Y), at(Qp, Z), rest)),
  );
  f.doc.push(
    'VARIABLE TIME (public inputs only; src/ct/vartime.ts): → 1 if (R, S) at sig is a valid signature for the public key',
    'at pk and k = SHA-512(R ‖ A ‖ M) mod L at k (RFC 8032 5.1.7; zip215: the ZIP-215 rules), 0 if not, 2 if pk is not a point.',
  );
  const callee = Math.max(...[g.decode, g.add, g.madd, g.dbl, g.toCached, g.encode].map((h) => g.ws.get(h) ?? 0), sc.ws, fe.testWorkspace);
  return { verify: f, ws: REST + callee };
}

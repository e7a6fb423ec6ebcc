// The group of edwards25519 (RFC 8032 section 5.1: −x² + y² = 1 + d·x²·y² over p = 2^255 − 19)
// in extended coordinates (X : Y : Z : T), x = X/Z, y = Y/Z, x·y = T/Z, on fe25519_radix25.ts's
// field: the formulas of Hisil, Wong, Carter and Dawson ("Twisted Edwards curves revisited",
// 2008) for a = −1 — doubling 4S + 4M, addition of a cached point 9M, of an affine "niels" point
// (y + x, y − x, 2d·x·y) 7M; complete on edwards25519 (a square, d not), so every input, the
// identity included, takes the same sequence of field operations.
//
// Decoding (RFC 8032 section 5.1.3) computes x = u·v³·(u·v⁷)^((p−5)/8) and chooses between x,
// x·√−1 and failure by masks, never by a branch: the strict form refuses y ≥ p and x = 0 with the
// sign bit set, the lenient form (ZIP-215) reduces y and takes −0 as 0.
//
// Why constant time: straight-line field code; choices by masks (cmov); loop counters (the
// squarings of the exponentiation) public.
//
// Bounds: a stored coordinate is tight (a product's output) unless marked; Fx tracks how many
// tight values each temporary sums (the products accept LOOSE = 3) and carries before a product
// when an operand would exceed it. Layout: a point is X, Y, Z, T (160 bytes); a cached point
// y + x, y − x, Z, 2d·T (160); a niels point y + x, y − x, 2d·x·y (120, padded to 128 in tables).

import { type Expr, Func, type Local, type Stmt, br_if, call, callv, i32, i64, label, loop, memory } from './builder/index.js';
import { type Fe25519, LOOSE, P25519 } from './fe25519_radix25.js';
import { modInv, powMod } from './fe_limbs.js';

const p = P25519;
const D = ((-121665n * modInv(121666n, p)) % p) + p;
const SQRT_M1 = powMod(2n, (p - 1n) / 4n, p);
const BY = (4n * modInv(5n, p)) % p;
/** the base point's x: the even root of (y² − 1)/(d·y² + 1) */
const BX = (() => {
  const u = (BY * BY - 1n + p) % p,
    v = (D * BY * BY + 1n) % p;
  const x2 = (u * modInv(v, p)) % p;
  let x = powMod(x2, (p + 3n) / 8n, p);
  if ((x * x - x2) % p !== 0n) x = (x * SQRT_M1) % p;
  return x & 1n ? p - x : x;
})();

export const FE = 40;
/** byte offsets of the coordinates: extended (X Y Z T), cached (ypx ymx Z t2d), niels (ypx ymx t2d, 120 bytes) */
export const PT = 160,
  CACHED = 160;
export const X = 0,
  Y = 40,
  Z = 80,
  T = 120;
export const YPX = 0,
  YMX = 40,
  CZ = 80,
  CT2D = 120,
  NT2D = 80;

/** A field element in memory: where it is and how many tight values it sums (its bound). */
export interface Fv {
  at: () => Expr<'i32'>;
  k: number;
}

const at = (p: Local<'i32'>, off: number): Expr<'i32'> => (off ? i32.add(p, off) : p.get());
export const fv = (p: Local<'i32'>, off: number, k = 1): Fv => ({ at: () => at(p, off), k });

/**
 * out ← the 32-byte encoding (RFC 8032 section 5.1.2) of the point with coordinates X and Y,
 * given zi = 1/Z: y = Y·zi, bit 255 the low bit of x = X·zi (into xa and ya, or new temporaries).
 */
export function encodeWith(x: Fx, px: Fv, py: Fv, zi: Fv, out: Local<'i32'>, xa = x.tmp(), ya = x.tmp()): void {
  x.mul(px, zi, xa);
  x.mul(py, zi, ya);
  x.stmt(call(x.fe.toBytes, out, ya.at()), i32.store8(out, i32.or(i32.load8_u(out, 31), i32.shl(callv('i32', x.fe.isNegative, xa.at(), x.rest), 7)), 31));
}

/**
 * A formula inside one function: temporaries of 40 bytes in the work space from `base`, field
 * operations by call, and the bound bookkeeping (carry inserted before a product whose operand
 * sums more than LOOSE tight values).
 */
export class Fx {
  readonly code: Stmt[] = [];
  #next: number;
  readonly #start: number;
  constructor(
    readonly fe: Fe25519,
    readonly ws: Local<'i32'>,
    base = 0,
  ) {
    this.#next = this.#start = base;
  }
  /** bytes of work space used so far from base */
  get used(): number {
    return this.#next - this.#start;
  }
  /** the work space after this formula's temporaries (for the callees) */
  get rest(): Expr<'i32'> {
    return at(this.ws, this.#next);
  }
  tmp(k = 1): Fv {
    const off = this.#next;
    this.#next += FE;
    return fv(this.ws, off, k);
  }
  #emit(...s: Stmt[]): void {
    this.code.push(...s);
  }
  add(a: Fv, b: Fv, dst = this.tmp()): Fv {
    this.#emit(call(this.fe.add, dst.at(), a.at(), b.at()));
    return { at: dst.at, k: a.k + b.k };
  }
  sub(a: Fv, b: Fv, dst = this.tmp()): Fv {
    this.#emit(call(this.fe.sub, dst.at(), a.at(), b.at()));
    return { at: dst.at, k: a.k + b.k };
  }
  /** [a + b, a − b] in one pass over the limbs */
  addSub(a: Fv, b: Fv, sum = this.tmp(), diff = this.tmp()): [Fv, Fv] {
    this.#emit(call(this.fe.addSub, sum.at(), diff.at(), a.at(), b.at()));
    return [
      { at: sum.at, k: a.k + b.k },
      { at: diff.at, k: a.k + b.k },
    ];
  }
  neg(a: Fv, dst = this.tmp()): Fv {
    this.#emit(call(this.fe.neg, dst.at(), a.at()));
    return { at: dst.at, k: a.k };
  }
  carry(a: Fv, dst = this.tmp()): Fv {
    this.#emit(call(this.fe.carry, dst.at(), a.at()));
    return { at: dst.at, k: 1 };
  }
  #operand(a: Fv): Fv {
    return a.k <= Number(LOOSE) ? a : this.carry(a);
  }
  mul(a: Fv, b: Fv, dst = this.tmp()): Fv {
    const [x, y] = [this.#operand(a), this.#operand(b)];
    this.#emit(call(this.fe.mul, dst.at(), x.at(), y.at()));
    return { at: dst.at, k: 1 };
  }
  sqr(a: Fv, dst = this.tmp()): Fv {
    const x = this.#operand(a);
    this.#emit(call(this.fe.sqr, dst.at(), x.at()));
    return { at: dst.at, k: 1 };
  }
  /** dst ← the value of a, tight (a copy, or a carry when a is loose) */
  tight(a: Fv, dst: Fv): void {
    if (a.k === 1) this.#emit(memory.copy(dst.at(), a.at(), FE));
    else this.carry(a, dst);
  }
  /** the named constant of the field into a temporary */
  const(name: string): Fv {
    const t = this.tmp();
    this.#emit(call(this.fe.setc(name), t.at()));
    return t;
  }
  stmt(...s: Stmt[]): void {
    this.#emit(...s);
  }
}

export interface GroupFunctions {
  dbl: Func;
  /** the doubling without T (for a doubling followed by another) */
  dblXyz: Func;
  madd: Func;
  add: Func;
  toCached: Func;
  identity: Func;
  encode: Func;
  /** encode with the variable-time inversion (verification only) */
  encodeVt: Func;
  decode: Func;
  pow22523: Func;
  /** bytes of work space each needs, callees included */
  ws: Map<Func, number>;
}

/** The group law and the encodings, on the field fe (whose constants it adds). */
export function groupFunctions(fe: Fe25519): GroupFunctions {
  fe.addConst('d', D);
  fe.addConst('d2', 2n * D);
  fe.addConst('sqrtm1', SQRT_M1);
  const ws = new Map<Func, number>();
  const fieldWs = Math.max(fe.invWorkspace, fe.testWorkspace);

  // r ← 2p: dbl-2008-hwcd with every intermediate negated (a = −1):
  // A = X², B = Y², C = 2Z², H = A + B, E = H − (X + Y)², G = A − B, F = G + C;
  // X3 = E·F, Y3 = G·H, T3 = E·H, Z3 = F·G (T3 left out when the next operation is a doubling,
  // which reads X, Y, Z only: verification's chain)
  const dblLike = (name: string, withT: boolean): Func => {
    const f = new Func(name, { r: 'i32', p: 'i32', ws: 'i32' });
    const { r, p: P, ws: w } = f.p;
    const x = new Fx(fe, w);
    const [X1, Y1, Z1] = [fv(P, X), fv(P, Y), fv(P, Z)];
    const A = x.sqr(X1),
      B = x.sqr(Y1),
      C0 = x.sqr(Z1);
    const C = x.add(C0, C0);
    const H = x.add(A, B);
    const S = x.sqr(x.add(X1, Y1));
    const E = x.sub(H, S);
    const G = x.carry(x.sub(A, B));
    const F = x.add(G, C);
    x.mul(E, F, fv(r, X));
    x.mul(G, H, fv(r, Y));
    if (withT) x.mul(E, H, fv(r, T));
    x.mul(F, G, fv(r, Z));
    f.doc.push(withT ? 'r = 2p (extended coordinates; r may be p): 4S + 4M and one carry (dbl-2008-hwcd, a = −1).' : 'r = 2p in X, Y, Z only (T of r not written: the next operation must be a doubling): 4S + 3M.');
    f.emit(x.code);
    ws.set(f, x.used);
    return f;
  };
  const dbl = dblLike('pt_dbl', true);
  const dblXyz = dblLike('pt_dbl_xyz', false);

  // r ← p + q, q cached (y + x, y − x, Z, 2d·T) or niels (Z = 1): add-2008-hwcd-3
  const addLike = (name: string, niels: boolean): Func => {
    const f = new Func(name, { r: 'i32', p: 'i32', q: 'i32', ws: 'i32' });
    const { r, p: P, q, ws: w } = f.p;
    const x = new Fx(fe, w);
    const [X1, Y1, Z1, T1] = [fv(P, X), fv(P, Y), fv(P, Z), fv(P, T)];
    const ypx = fv(q, YPX, niels ? 1 : 2),
      ymx = fv(q, YMX, niels ? 1 : 2),
      t2d = fv(q, niels ? NT2D : CT2D);
    const [YpX, YmX] = x.addSub(Y1, X1);
    const A = x.mul(YmX, ymx);
    const B = x.mul(YpX, ypx);
    const C = x.mul(T1, t2d);
    const Dz = niels ? Z1 : x.mul(Z1, fv(q, CZ));
    const D2 = x.add(Dz, Dz);
    const [H, E] = x.addSub(B, A);
    const [G, F] = x.addSub(D2, C);
    x.mul(E, F, fv(r, X));
    x.mul(G, H, fv(r, Y));
    x.mul(E, H, fv(r, T));
    x.mul(F, G, fv(r, Z));
    f.doc.push(niels ? 'r = p + q for q in niels form (y + x, y − x, 2d·x·y; r may be p): 7M (madd-2008-hwcd-3).' : 'r = p + q for q cached (Y + X, Y − X, Z, 2d·T; r may be p): 8M (add-2008-hwcd-3).');
    f.emit(x.code);
    ws.set(f, x.used);
    return f;
  };
  const madd = addLike('pt_madd', true);
  const add = addLike('pt_add', false);

  // c ← cached(p) = (Y + X, Y − X, Z, 2d·T); ypx, ymx loose (two tight values)
  const toCached = new Func('pt_to_cached', { c: 'i32', p: 'i32', ws: 'i32' });
  {
    const { c, p: P, ws: w } = toCached.p;
    const x = new Fx(fe, w);
    x.add(fv(P, Y), fv(P, X), fv(c, YPX));
    x.sub(fv(P, Y), fv(P, X), fv(c, YMX));
    x.stmt(memory.copy(at(c, CZ), at(P, Z), FE));
    x.mul(fv(P, T), x.const('d2'), fv(c, CT2D));
    toCached.doc.push('c = (Y + X, Y − X, Z, 2d·T) of the extended point p (the first two loose).');
    toCached.emit(x.code);
    ws.set(toCached, x.used);
  }

  const identity = new Func('pt_identity', { r: 'i32' });
  identity.emit(call(fe.setc('zero'), identity.p.r), call(fe.setc('one'), at(identity.p.r, Y)), call(fe.setc('one'), at(identity.p.r, Z)), call(fe.setc('zero'), at(identity.p.r, T)));

  // z^(2^252 − 3) = z^((p − 5)/8), the addition chain of ref10's pow22523
  const pow22523 = new Func('fe_pow22523', { r: 'i32', z: 'i32', ws: 'i32' });
  {
    const { r, z, ws: w } = pow22523.p;
    const x = new Fx(fe, w);
    const i = pow22523.i32('i');
    const sqrN = (a: Fv, n: number): void => {
      if (n < 4) {
        for (let k = 0; k < n; k++) x.sqr(a, a);
        return;
      }
      const lp = label('sq');
      x.stmt(i.set(n), loop(lp, call(fe.sqr, a.at(), a.at()), i.set(i32.sub(i, 1)), br_if(lp, i)));
    };
    const t0 = x.tmp(),
      t1 = x.tmp(),
      t2 = x.tmp();
    const Zv = fv(z, 0);
    x.sqr(Zv, t0); //                      z^2
    x.sqr(t0, t1);
    sqrN(t1, 1); //          z^8
    x.mul(Zv, t1, t1); //                   z^9
    x.mul(t0, t1, t0); //                   z^11
    x.sqr(t0, t0); //                       z^22
    x.mul(t1, t0, t0); //                   z^(2^5 − 1)
    // t0 = z^(2^5 − 1); build 2^10 − 1, 2^20 − 1, 2^40 − 1, 2^50 − 1, 2^100 − 1, 2^200 − 1, 2^250 − 1
    const step = (src: Fv, n: number, mulBy: Fv, dst: Fv) => {
      if (dst !== src) x.stmt(memory.copy(dst.at(), src.at(), FE));
      sqrN(dst, n);
      x.mul(dst, mulBy, dst);
    };
    step(t0, 5, t0, t1); //  t1 = 2^10 − 1
    step(t1, 10, t1, t2); // t2 = 2^20 − 1
    const t3 = x.tmp();
    step(t2, 20, t2, t3); // t3 = 2^40 − 1
    step(t3, 10, t1, t3); // t3 = 2^50 − 1
    step(t3, 50, t3, t1); // t1 = 2^100 − 1
    const t4 = x.tmp();
    step(t1, 100, t1, t4); // t4 = 2^200 − 1
    step(t4, 50, t3, t4); //  t4 = 2^250 − 1
    sqrN(t4, 2); //           2^252 − 4
    x.mul(t4, Zv, fv(r, 0)); // 2^252 − 3
    pow22523.doc.push('r = z^(2^252 − 3) = z^((p − 5)/8): 251 squarings and 11 products (a fixed chain).');
    pow22523.emit(x.code);
    ws.set(pow22523, x.used);
  }

  // out ← encode(p): y = Y/Z with the sign of x = X/Z in bit 255 (the variable-time inversion
  // for verification's public result, pt_encode_vt)
  const encodeLike = (name: string, vt: boolean): Func => {
    const f = new Func(name, { out: 'i32', p: 'i32', ws: 'i32' });
    const { out, p: P, ws: w } = f.p;
    const x = new Fx(fe, w);
    const zi = x.tmp(),
      xa = x.tmp(),
      ya = x.tmp();
    x.stmt(call(vt ? fe.invVt : fe.inv, zi.at(), at(P, Z), x.rest));
    encodeWith(x, fv(P, X), fv(P, Y), zi, out, xa, ya);
    f.doc.push(`out = the 32-byte encoding of p (RFC 8032 section 5.1.2): y = Y/Z, bit 255 the low bit of x = X/Z${vt ? ' (VARIABLE-TIME inversion: public points only)' : ''}.`);
    f.emit(x.code);
    ws.set(f, x.used + fieldWs);
    return f;
  };
  const encode = encodeLike('pt_encode', false);
  const encodeVt = encodeLike('pt_encode_vt', true);

  // decode(p, src, ws, strict) → 1 and p = the point, or 0 (p then meaningless)
  const decode = new Func('pt_decode', { p: 'i32', src: 'i32', ws: 'i32', strict: 'i32' }, { results: ['i32'] });
  {
    const { p: P, src, ws: w, strict } = decode.p;
    const x = new Fx(fe, w);
    const [ok, sign, m1, m2, mk] = [decode.i32('ok'), decode.i32('sign'), decode.i32('m1'), decode.i32('m2'), decode.i64('mk')];
    const Yv = fv(P, Y),
      Xv = fv(P, X);
    x.stmt(call(fe.fromBytes, Yv.at(), src), sign.set(i32.shr_u(i32.load8_u(src, 31), 7)));
    const one = x.const('one');
    const y2 = x.sqr(Yv);
    const u = x.sub(y2, one);
    const v = x.add(x.mul(y2, x.const('d')), one);
    const v3 = x.mul(x.sqr(v), v);
    const uv7 = x.mul(u, x.mul(x.sqr(v3), v));
    const t = x.tmp();
    x.stmt(call(pow22523, t.at(), uv7.at(), x.rest));
    const xr = x.mul(x.mul(u, v3), t, Xv); // candidate root
    const vx2 = x.mul(v, x.sqr(xr));
    const nu = x.neg(u);
    // m1: v·x² = u (x is a root); m2: v·x² = −u (x·√−1 is)
    x.stmt(m1.set(callv('i32', fe.eq, vx2.at(), u.at(), x.rest)), m2.set(callv('i32', fe.eq, vx2.at(), nu.at(), x.rest)));
    const xi = x.mul(xr, x.const('sqrtm1'));
    x.stmt(call(fe.cmov, Xv.at(), xi.at(), i64.sub(0, i64.extend_i32_u(i32.and(m2, i32.eqz(m1))))));
    const xz = decode.i32('xz');
    x.stmt(
      xz.set(callv('i32', fe.isZero, Xv.at(), x.rest)),
      // strict: y canonical, and not x = 0 with the sign bit set (RFC 8032 5.1.3 steps 1 and 4)
      ok.set(i32.and(i32.or(m1, m2), i32.or(i32.eqz(strict), i32.and(callv('i32', fe.bytesCanonical, src), i32.eqz(i32.and(xz, sign)))))),
      // the sign: negate x when its low bit differs from the sign bit
      mk.set(i64.sub(0, i64.extend_i32_u(i32.xor(callv('i32', fe.isNegative, Xv.at(), x.rest), sign)))),
    );
    const nx = x.neg(Xv);
    x.stmt(call(fe.cmov, Xv.at(), nx.at(), mk));
    x.stmt(call(fe.setc('one'), at(P, Z)));
    x.mul(Xv, Yv, fv(P, T));
    x.stmt(ok.get());
    decode.doc.push('→ 1 and p = the point encoded at src (RFC 8032 section 5.1.3), or 0; strict: y ≥ p and x = 0 with the sign', 'bit set are refused (ZIP-215 takes them: y mod p, −0 = 0). Choices by masks: no branch on the encoding.');
    decode.emit(x.code);
    ws.set(decode, x.used + Math.max(fieldWs, ws.get(pow22523)!));
  }
  return { dbl, dblXyz, madd, add, toCached, identity, encode, encodeVt, decode, pow22523, ws };
}

/** The base point B's affine coordinates and x·y (for its setter). */
export const BASE = { x: BX, y: BY, t: (BX * BY) % p };

// The edges of a curve module: projective points to affine coordinates and bytes, bytes to
// points (with the curve equation checked, or y recovered from x), the scalar range check, and
// the ECDH and public-key entry points that join them to the multiplications.
//
// Why constant time: straight-line field code (the inversion is constant-time safegcd, the
// square root a fixed chain); results that depend on secrets (the identity flag, a root's
// parity) are computed as values and chosen by masks, never branched on.

import { Func, call, i32, i64, if_, callv } from './builder/index.js';
import { type EcContext, at } from './ec_context.js';

export interface EncodingFunctions {
  toAffine: Func;
  rhs: Func;
  pointFromBytes: Func;
  checkPoint: Func;
  decompress: Func;
  scalarOk: Func;
  ecdh: Func;
  pubkey: Func;
}

export function encodingFunctions(ctx: EcContext, ecMul: Func, ecMulBase: Func): EncodingFunctions {
  const { fp, fn, FE, PTS, twist, shape } = ctx;
  const Lb = fp.bytes;

  // to_affine(outx, outy, pt, ws, wanty) → 1 unless pt is the identity; writes x (and y when
  // wanty) as big-endian bytes
  const toAffine = new Func('to_affine', { outx: 'i32', outy: 'i32', pt: 'i32', ws: 'i32', wanty: 'i32' }, { results: ['i32'] });
  {
    const { outx, outy, pt, ws, wanty } = toAffine.p;
    const ZI = 0,
      T = FE,
      KID = 2 * FE;
    const w = (o: number) => at(ws, o);
    toAffine.emit(
      call(fp.inv, w(ZI), at(pt, 2 * FE), w(KID)),
      // on the twisted curve (see ec_rcb_window.ts): 1/Z·Z⁻² for x, 1/Z·Z⁻³ for y
      twist !== undefined ? [call(fp.mulc('tzi2'), w(T), w(ZI)), call(fp.mulc('tzi3'), w(ZI), w(ZI)), call(fp.mul, w(T), pt, w(T))] : [call(fp.mul, w(T), pt, w(ZI))],
      call(fp.toBytes, outx, w(T)),
      if_(wanty, [call(fp.mul, w(T), at(pt, FE), w(ZI)), call(fp.toBytes, outy, w(T))]),
      i32.eqz(callv('i32', fp.isZero, at(pt, 2 * FE))),
    );
    ctx.ws.need(toAffine, KID, [fp.inv]);
  }
  // rhs(r, x, ws): x³ + ax + b
  const rhs = new Func('rhs', { r: 'i32', x: 'i32', ws: 'i32' });
  {
    const { r, x, ws } = rhs.p;
    rhs.emit(call(fp.sqr, r, x), call(fp.mul, r, r, x));
    if (shape === 'a=-3') rhs.emit(call(fp.add, ws, x, x), call(fp.add, ws, ws, x), call(fp.sub, r, r, ws));
    else if (shape === 'generic') rhs.emit(call(fp.mulc('a'), ws, x), call(fp.add, r, r, ws));
    rhs.emit(call(fp.setc('b'), ws), call(fp.add, r, r, ws));
    ctx.ws.need(rhs, FE);
  }
  // point_from_bytes(pt, xy) → projective point from x ‖ y (big-endian), Z = 1; no checks
  const pointFromBytes = new Func('point_from_bytes', { pt: 'i32', xy: 'i32' });
  {
    const { pt, xy } = pointFromBytes.p;
    pointFromBytes.emit(call(fp.fromBytes, pt, xy), call(fp.fromBytes, at(pt, FE), at(xy, Lb)), call(fp.setc('one'), at(pt, 2 * FE)));
  }
  // check_point(xy, ws) → 1 iff x < p, y < p and y² = x³ + ax + b
  const checkPoint = new Func('check_point', { xy: 'i32', ws: 'i32' }, { results: ['i32'] });
  {
    const { xy, ws } = checkPoint.p;
    const X = 0,
      Y = FE,
      R = 2 * FE,
      KID = 3 * FE;
    const w = (o: number) => at(ws, o);
    checkPoint.emit(
      call(fp.fromBytes, w(X), xy),
      call(fp.fromBytes, w(Y), at(xy, Lb)),
      call(rhs, w(R), w(X), w(KID)),
      call(fp.sqr, w(Y), w(Y)),
      i32.and(i32.and(callv('i32', fp.bytesLt, xy), callv('i32', fp.bytesLt, at(xy, Lb))), callv('i32', fp.eq, w(Y), w(R))),
    );
    ctx.ws.need(checkPoint, KID, [rhs]);
  }
  // decompress(outy, x, odd, ws) → 1 iff x < p and x³ + ax + b is a square; outy ← the root
  // whose parity is odd's
  const decompress = new Func('decompress', { outy: 'i32', x: 'i32', odd: 'i32', ws: 'i32' }, { results: ['i32'] });
  {
    const { outy, x, odd, ws } = decompress.p;
    const ok = decompress.i32('ok');
    const X = 0,
      R = FE,
      Y = 2 * FE,
      NY = 3 * FE,
      KID = 4 * FE;
    const w = (o: number) => at(ws, o);
    decompress.emit(
      call(fp.fromBytes, w(X), x),
      call(rhs, w(R), w(X), w(KID)),
      ok.set(i32.and(callv('i32', fp.bytesLt, x), callv('i32', fp.sqrt, w(Y), w(R), w(KID)))),
      call(fp.toBytes, outy, w(Y)),
      call(fp.neg, w(NY), w(Y)),
      call(fp.cmov, w(Y), w(NY), i64.sub(0, i64.extend_i32_u(i32.and(i32.xor(i32.load8_u(outy, Lb - 1), odd), 1)))),
      call(fp.toBytes, outy, w(Y)),
      ok.get(),
    );
    ctx.ws.need(decompress, KID, [rhs, fp.sqrt]);
  }
  // scalar_ok(k) → 1 iff 1 ≤ k < n
  const scalarOk = new Func('scalar_ok', { k: 'i32' }, { results: ['i32'] });
  scalarOk.emit(i32.and(callv('i32', fn.bytesLt, scalarOk.p.k), callv('i32', fn.bytesNonzero, scalarOk.p.k)));
  // ecdh(out, k, xy, ws) → 1 unless k·Q is the identity; out ← x(k·Q). k must satisfy
  // scalar_ok and xy check_point (the glue checks both first).
  const ecdh = new Func('ecdh', { out: 'i32', k: 'i32', xy: 'i32', ws: 'i32' }, { results: ['i32'] });
  {
    const { out, k, xy, ws } = ecdh.p;
    const Q = 0,
      R = PTS,
      KID = 2 * PTS;
    const w = (o: number) => at(ws, o);
    ecdh.emit(call(pointFromBytes, w(Q), xy), call(ecMul, w(R), k, w(Q), w(KID)), call(toAffine, out, out, w(R), w(KID), 0));
    ctx.ws.need(ecdh, KID, [ecMul, toAffine]);
  }
  // pubkey(out, k, tab, ws) → 1 unless k·G is the identity; out ← x ‖ y of k·G
  const pubkey = new Func('pubkey', { out: 'i32', k: 'i32', tab: 'i32', ws: 'i32' }, { results: ['i32'] });
  {
    const { out, k, tab, ws } = pubkey.p;
    const R = 0,
      KID = PTS;
    pubkey.emit(call(ecMulBase, at(ws, R), k, tab, at(ws, KID)), call(toAffine, out, i32.add(out, Lb), at(ws, R), at(ws, KID), 1));
    ctx.ws.need(pubkey, KID, [ecMulBase, toAffine]);
  }
  return { toAffine, rhs, pointFromBytes, checkPoint, decompress, scalarOk, ecdh, pubkey };
}

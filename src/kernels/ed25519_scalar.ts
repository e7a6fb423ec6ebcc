// Arithmetic modulo the order L = 2^252 + 27742317777372353535851937790883648493 of edwards25519's
// base point (RFC 8032 section 5.1), on fe_mont29.ts's Montgomery multiplication (9 limbs of 29
// bits; L is dense, so the reduction multiplies): what signing and verification need on the
// little-endian scalars of RFC 8032 — a 64-byte hash reduced mod L, S = (r + k·s) mod L, and the
// test S < L (canonical S, section 5.1.7).
//
// A 64-byte value h = lo + 2^256·hi is reduced as lo·R + (hi·R)·(2^256 mod L) (one product by a
// constant); inputs are byte-reversed into fe_mont29's big-endian form and outputs back.
//
// Why constant time: fe_mont29's straight-line field code; the byte reversals move by position.

import { Func, type Local, type Stmt, call, callv, i32 } from './builder/index.js';
import { FieldGen, productFunctions } from './fe_mont29.js';
import { carryChainFunctions } from './fe_ops.js';

const L = (1n << 252n) + 27742317777372353535851937790883648493n;

/** dst[i] ← src[31 − i] for i < 32 (little-endian ↔ big-endian) */
function reverseLines(dst: Local<'i32'>, src: Local<'i32'>): Stmt[] {
  return Array.from({ length: 32 }, (_, i) => i32.store8(dst, i32.load8_u(src, 31 - i), i));
}

export interface ScalarFunctions {
  sc: FieldGen;
  /** sc_reduce512(out, src, ws): out = the 64 little-endian bytes at src, mod L, 32 bytes */
  reduce: Func;
  /** sc_muladd(out, k, s, r, ws): out = (k·s + r) mod L, 32-byte little-endian operands */
  muladd: Func;
  /** sc_lt_l(src, ws) → 1 iff the 32 little-endian bytes at src are below L */
  ltL: Func;
  functions: Func[];
  /** work space of each of the three */
  ws: number;
}

export function scalarFunctions(flags: { skipReduceHigh?: boolean } = {}): ScalarFunctions {
  const sc = new FieldGen('sc', L, {});
  sc.addConst({ name: 'c256', value: (1n << 256n) % L }, true);
  const FEs = sc.FE; // 72 bytes
  const BE = 0,
    A = 32,
    B = 32 + FEs,
    C = 32 + 2 * FEs;
  const ws = 32 + 3 * FEs;

  const reduce = new Func('sc_reduce512', { out: 'i32', src: 'i32', ws: 'i32' });
  {
    const { out, src, ws: w } = reduce.p;
    const hiP = reduce.i32('hi');
    reduce.doc.push('out = (lo + 2^256·hi) mod L for the 64 little-endian bytes lo ‖ hi at src: lo·R + (hi·R)·(2^256 mod L), canonical.');
    const at = (o: number) => i32.add(w, o);
    reduce.emit(
      hiP.set(i32.add(src, 32)),
      reverseLines(w, src),
      call(sc.fromBytes, at(A), at(BE)),
      reverseLines(w, hiP),
      call(sc.fromBytes, at(B), at(BE)),
      ...(flags.skipReduceHigh ? [] : [call(sc.mulc('c256'), at(B), at(B)), call(sc.add, at(A), at(A), at(B))]),
      call(sc.toBytes, at(BE), at(A)),
      reverseLines(out, w),
    );
  }

  const muladd = new Func('sc_muladd', { out: 'i32', k: 'i32', s: 'i32', r: 'i32', ws: 'i32' });
  {
    const { out, k, s, r, ws: w } = muladd.p;
    const at = (o: number) => i32.add(w, o);
    muladd.doc.push('out = (k·s + r) mod L for 32-byte little-endian k, s, r (any values below 2^256), canonical.');
    muladd.emit(
      reverseLines(w, k),
      call(sc.fromBytes, at(A), at(BE)),
      reverseLines(w, s),
      call(sc.fromBytes, at(B), at(BE)),
      reverseLines(w, r),
      call(sc.fromBytes, at(C), at(BE)),
      call(sc.mul, at(A), at(A), at(B)),
      call(sc.add, at(A), at(A), at(C)),
      call(sc.toBytes, at(BE), at(A)),
      reverseLines(out, w),
    );
  }

  const ltL = new Func('sc_lt_l', { src: 'i32', ws: 'i32' }, { results: ['i32'] });
  ltL.doc.push('→ 1 iff the 32 little-endian bytes at src are a value below L (RFC 8032 section 5.1.7: S canonical).');
  ltL.emit(reverseLines(ltL.p.ws, ltL.p.src), callv('i32', sc.bytesLt, ltL.p.ws));

  return { sc, reduce, muladd, ltL, functions: [...productFunctions(sc), ...carryChainFunctions(sc), reduce, muladd, ltL], ws };
}

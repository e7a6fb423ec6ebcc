// X25519 (RFC 7748 section 5): the Montgomery ladder on the x-coordinate of Curve25519, in a
// module of its own (an application using X25519 carries no Ed25519 code).
//
// x25519(out, k, u, ws) → 1, or 0 when the result is all zero (a small-order u; the glue
// rejects it): the scalar k clamped (bits 0–2 cleared, bit 254 set, bit 255 cleared), u with
// bit 255 masked, 255 ladder steps from bit 254 down, each a conditional swap by a mask from the
// bit (swap ← swap ⊕ k_t) and RFC 7748's step, then x2·z2⁻¹ as 32 little-endian bytes.
//
// The step on pairs (fe25519_pair_simd128.ts; W2 = (x2, z2), W3 = (x3, z3)): two pair squares
// and three pair products where the scalar ladder has five products and four squares:
//   (A, B) = (x2 + z2, x2 − z2)        (D, C) = (x3 − z3, x3 + z3)
//   (AA, BB) = (A², B²)                 (DA, CB) = (D·A, C·B)
//   (x3, t) = ((DA + CB)², (DA − CB)²)  W3 = (x3·1, t·x1)
//   (AA, E), E = AA − BB; (BB, F), F = AA + a24·E   W2 = (AA·BB, E·F)
// field: 'radix25' builds the scalar ladder on fe25519_radix25.ts instead (no SIMD): the
// default on the scalar targets, whose modules are x25519_wasm and x25519_js. Its step is
// ladder_in (the conditional swap and A, B, C, D in one pass: the swapped values are never
// stored), four squares and five products, add_sub for DA ± CB, and sub_mul_add for
// E = AA − BB beside AA + a24·E.
//
// Why constant time: the loop counter and the addresses are public (the scalar byte read is at
// k + t/8 for the public t); the bit only makes masks; the swaps are xors under the mask; the
// field code is straight-line; the inversion is constant-time safegcd.
//
// Cost: 255 steps of 5 pair operations (the scalar form: 5M + 4S, ladder_in, add_sub and
// sub_mul_add) and one inversion; the measurements behind the field, the pairing and the
// scalar step: docs/kernels/x25519.md.
// Negative-control flags (tests only): skipSwapAt (the conditional swap before step t left
// out), noClamp (the scalar used as given), dropCarry (a carry lost in the field's products).

import { type Expr, Func, type GeneratedKernel, type Local, Module, type Stmt, br_if, call, i32, i64, kernel, label, loop, memory, simdAllowed } from './builder/index.js';
import { Fe25519, clamp25519 } from './fe25519_radix25.js';
import { FePair25519, PAIR } from './fe25519_pair_simd128.js';

export interface X25519Flags {
  /** the conditional swap before ladder step t (254 … 0) is left out */
  skipSwapAt?: number;
  /** the scalar is not clamped */
  noClamp?: boolean;
  /** the carry from limb 4 into limb 5 lost in the products (both fields) */
  dropCarry?: boolean;
  /** the ladder on pairs (SIMD128, the default on the simd target) or on single elements (the default on the scalar targets) */
  field?: 'pair' | 'radix25';
}

export interface X25519Layout {
  /** bytes of the work space x25519 needs */
  wsSize: number;
}

const at = (p: Local<'i32'>, off: number): Expr<'i32'> => (off ? i32.add(p, off) : p.get());

/** Work-space offsets: the clamped scalar first, then each named slot of the given size. */
function slots<N extends string>(groups: [readonly N[], number][]): { off: Record<N, number>; own: number } {
  const off = {} as Record<N, number>;
  let o = 32;
  for (const [names, size] of groups)
    for (const n of names) {
      off[n] = o;
      o += size;
    }
  return { off, own: o };
}

/**
 * The scalar ladder's first part of a step, with the step's conditional swap: from x2, z2, x3, z3
 * (four adjacent elements at p, tight), swapped as pairs when mask is all ones, the limbwise
 * A = x2 + z2, B = x2 − z2, C = x3 + z3, D = x3 − z3 (four adjacent elements at o, loose). The
 * swapped values are not written back: the rest of the step overwrites all four, so this is
 * RFC 7748's cswap followed by its sums, with one call and no stores of the swap.
 */
function ladderIn(fe: Fe25519): Func {
  const g = new Func('ladder_in', { o: 'i32', p: 'i32', mask: 'i64' });
  const { o, p, mask } = g.p;
  const [m, x2, z2, x3, z3, t] = [g.i32('m'), g.i32('x2'), g.i32('z2'), g.i32('x3'), g.i32('z3'), g.i32('t')];
  const FE = fe.FE;
  const code: Stmt[] = [m.set(i32.wrap_i64(mask))];
  for (let i = 0; i < FE; i += 4) {
    code.push(
      x2.set(i32.load(p, i)),
      z2.set(i32.load(p, FE + i)),
      x3.set(i32.load(p, 2 * FE + i)),
      z3.set(i32.load(p, 3 * FE + i)),
      t.set(i32.and(i32.xor(x2, x3), m)),
      x2.set(i32.xor(x2, t)),
      x3.set(i32.xor(x3, t)),
      t.set(i32.and(i32.xor(z2, z3), m)),
      z2.set(i32.xor(z2, t)),
      z3.set(i32.xor(z3, t)),
      i32.store(o, i32.add(x2, z2), i),
      i32.store(o, i32.sub(x2, z2), FE + i),
      i32.store(o, i32.add(x3, z3), 2 * FE + i),
      i32.store(o, i32.sub(x3, z3), 3 * FE + i),
    );
  }
  g.doc.push('(A, B, C, D) = (x2 + z2, x2 − z2, x3 + z3, x3 − z3) after (x2, z2) ↔ (x3, z3) under mask; limbwise, no carry.');
  g.emit(code);
  return g;
}

/** The x25519 module. */
export function generateX25519(flags: X25519Flags = {}): GeneratedKernel & { layout: X25519Layout } {
  const fe = new Fe25519('fe', { dropCarry: flags.dropCarry });
  const pair = (flags.field ?? (simdAllowed() ? 'pair' : 'radix25')) === 'pair';
  const fp = new FePair25519('fp', { dropCarry: flags.dropCarry });
  const f = new Func('x25519', { out: 'i32', k: 'i32', u: 'i32', ws: 'i32' }, { results: ['i32'] });
  const { out, k, u, ws } = f.p;
  const pairNames = ['W2', 'W3', 'X1', 'AB', 'DC', 'Y1', 'Y2', 'Y3', 'T', 'BF'] as const;
  const singleNames = ['x1', 'one', 'zero', 'x2', 'z2', 'x3', 'z3', 'A', 'B', 'C', 'D', 'AA', 'BB', 'DA', 'CB', 'E', 'S', 'T'] as const;
  const { off, own } = slots<(typeof pairNames)[number] | (typeof singleNames)[number]>(
    pair
      ? [
          [pairNames, PAIR],
          [singleNames.slice(0, 5), fe.FE],
        ]
      : [[singleNames, fe.FE]],
  );
  const W = (n: keyof typeof off) => at(ws, off[n]);
  // the scalar ladder's ladder_in reads x2, z2, x3, z3 and writes A, B, C, D, each four adjacent
  if (!pair && (['z2', 'x3', 'z3'] as const).some((n, i) => off[n] !== off.x2 + (i + 1) * fe.FE)) throw new Error('x25519: x2, z2, x3, z3 must be adjacent');
  if (!pair && (['B', 'C', 'D'] as const).some((n, i) => off[n] !== off.A + (i + 1) * fe.FE)) throw new Error('x25519: A, B, C, D must be adjacent');
  const sub = f.i32('sub'); // the callees' work space
  const [t, bit, swap, mask] = [f.i32('t'), f.i64('bit'), f.i64('swap'), f.i64('mask')];
  const swapOf = (m: typeof mask): Stmt[] => (pair ? [call(fp.cswap, W('W2'), W('W3'), m)] : [call(fe.cswap, W('x2'), W('x3'), m), call(fe.cswap, W('z2'), W('z3'), m)]);
  const stepIn = pair ? undefined : ladderIn(fe);
  const step: Stmt[] = pair
    ? [
        call(fp.combine('x+y', 'x-y'), W('AB'), W('W2')),
        call(fp.combine('x-y', 'x+y'), W('DC'), W('W3')),
        call(fp.sqr, W('Y1'), W('AB')),
        call(fp.mul, W('Y2'), W('DC'), W('AB')),
        call(fp.combine('x+y', 'x-y'), W('T'), W('Y2')),
        call(fp.sqr, W('Y3'), W('T')),
        call(fp.mul, W('W3'), W('Y3'), W('X1')),
        call(fp.combine('x', 'x-y'), W('T'), W('Y1')),
        call(fp.linA24(121665), W('BF'), W('T'), W('Y1')),
        call(fp.mul, W('W2'), W('T'), W('BF')),
      ]
    : [
        call(stepIn!, W('A'), W('x2'), mask),
        call(fe.sqr, W('AA'), W('A')),
        call(fe.sqr, W('BB'), W('B')),
        call(fe.mul, W('DA'), W('D'), W('A')),
        call(fe.mul, W('CB'), W('C'), W('B')),
        call(fe.addSub, W('S'), W('T'), W('DA'), W('CB')),
        call(fe.sqr, W('x3'), W('S')),
        call(fe.sqr, W('S'), W('T')),
        call(fe.mul, W('z3'), W('S'), W('x1')),
        call(fe.mul, W('x2'), W('AA'), W('BB')),
        call(fe.subMulAdd(121665), W('E'), W('S'), W('AA'), W('BB')),
        call(fe.mul, W('z2'), W('E'), W('S')),
      ];
  const init: Stmt[] = pair
    ? [call(fp.join, W('W2'), W('one'), W('zero')), call(fp.join, W('W3'), W('x1'), W('one')), call(fp.join, W('X1'), W('one'), W('x1'))]
    : [call(fe.setc('one'), W('x2')), call(fe.setc('zero'), W('z2')), memory.copy(W('x3'), W('x1'), fe.FE), call(fe.setc('one'), W('z3'))];
  const skip = flags.skipSwapAt;
  const lp = label('ladder');
  f.emit(
    sub.set(at(ws, own)),
    memory.copy(ws, k, 32),
    ...(flags.noClamp ? [] : clamp25519(ws)),
    call(fe.fromBytes, W('x1'), u),
    call(fe.setc('one'), W('one')),
    call(fe.setc('zero'), W('zero')),
    ...init,
    swap.set(0),
    t.set(254),
    loop(
      lp,
      bit.set(i64.and(i64.shr_u(i64.extend_i32_u(i32.load8_u(i32.add(ws, i32.shr_u(t, 3)))), i64.extend_i32_u(i32.and(t, 7))), 1)),
      swap.set(i64.xor(swap, bit)),
      mask.set(i64.sub(0, swap)),
      ...(skip === undefined ? [] : [mask.set(i64.and(mask, i64.extend_i32_s(i32.sub(0, i32.ne(t, skip)))))]),
      ...(pair ? swapOf(mask) : []), // the scalar step swaps in step_in
      swap.set(bit),
      ...step,
      br_if(lp, i32.ge_s(t.tee(i32.sub(t, 1)), 0)),
    ),
    mask.set(i64.sub(0, swap)),
    ...swapOf(mask),
    // out = x2 / z2, canonical little-endian; the result: out is not all zero
    ...(pair ? [call(fp.lane(0), W('x2'), W('W2')), call(fp.lane(1), W('z2'), W('W2'))] : []),
    call(fe.inv, W('z2'), W('z2'), sub),
    call(fe.mul, W('x2'), W('x2'), W('z2')),
    call(fe.toBytes, out, W('x2')),
    i64.ne(i64.or(i64.or(i64.load(out, 0), i64.load(out, 8)), i64.or(i64.load(out, 16), i64.load(out, 24))), 0),
  );
  const wsSize = Math.ceil((own + fe.invWorkspace) / 16) * 16;
  const m = new Module('x25519').memory(2);
  m.global('WS_SIZE', 'i32', wsSize);
  m.add(fe.functions(), fp.functions(), ...(stepIn ? [stepIn] : []), f);
  m.exportFunc('x25519', f, [0, 1, 2, 3]);
  m.header.push(`X25519 (RFC 7748): the Montgomery ladder on ${pair ? 'pairs of field elements (fe25519_pair_simd128.ts)' : 'single field elements (fe25519_radix25.ts)'}.`, `layout ${JSON.stringify({ wsSize })}`);
  return { ...kernel(m), layout: { wsSize } as X25519Layout & Record<string, unknown> };
}

// The arithmetic modulo 2^255 − 19 of fe25519_radix25.ts (single elements) and
// fe25519_pair_simd128.ts (pairs), each function of a test module holding both, against BigInt:
// edge values (0, 1, p − 1, p, 2^255 − 1, limbs at their bounds, values with bit 255 set),
// random values, loose inputs (sums and differences) into the products, canonical encoding,
// the canonical-encoding test, inversion; and the negative control (a carry dropped) caught.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Func, Module, kernel } from '../src/kernels/builder/index.js';
import { compileKernel } from '../src/kernels/build.js';
import { Fe25519, LOOSE, P25519, limbs25519 } from '../src/kernels/fe25519_radix25.js';
import { FePair25519, PAIR } from '../src/kernels/fe25519_pair_simd128.js';
import { checkModule, formatViolation } from '../src/ct/check.js';
import { Rng } from './support/rng.js';

const P = P25519;
const mod = (a: bigint) => ((a % P) + P) % P;
const POS = [0, 26, 51, 77, 102, 128, 153, 179, 204, 230];

interface Fx {
  memory: WebAssembly.Memory;
  [name: string]: ((...a: (number | bigint)[]) => number) | WebAssembly.Memory;
}

async function build(flags: { dropCarry?: boolean; schoolbook?: boolean } = {}): Promise<{ x: Fx; bytes: Uint8Array }> {
  const fe = new Fe25519('fe', flags);
  const fp = new FePair25519('fp', flags);
  const handles: Func[] = [
    fe.mul,
    fe.sqr,
    fe.add,
    fe.sub,
    fe.neg,
    fe.carry,
    fe.subMulAdd(121665),
    fe.addSub,
    fe.cswap,
    fe.cmov,
    fe.fromBytes,
    fe.toBytes,
    fe.bytesCanonical,
    fe.isZero,
    fe.eq,
    fe.isNegative,
    fe.inv,
    fe.invVt,
    fe.setc('one'),
    fp.mul,
    fp.sqr,
    fp.combine('x+y', 'x-y'),
    fp.combine('x-y', 'x+y'),
    fp.combine('x', 'x-y'),
    fp.linA24(121665),
    fp.cswap,
    fp.join,
    fp.lane(0),
    fp.lane(1),
  ];
  const m = new Module('fe25519_test').memory(2);
  m.add(fe.functions(), fp.functions());
  for (const h of handles)
    m.exportFunc(
      h.name,
      h,
      h.params.map((_, i) => i),
    );
  const bytes = await compileKernel(kernel(m));
  return { x: new WebAssembly.Instance(new WebAssembly.Module(bytes as BufferSource), {}).exports as unknown as Fx, bytes };
}

const A = 1024,
  B = 1200,
  R = 1400,
  WS = 2048,
  BYTES = 3000;

class View {
  constructor(readonly x: Fx) {}
  get dv() {
    return new DataView((this.x.memory as WebAssembly.Memory).buffer);
  }
  call(name: string, ...a: (number | bigint)[]): number {
    return (this.x[name] as (...a: (number | bigint)[]) => number)(...a);
  }
  /** limbs (signed i32) → value, not reduced */
  get(ptr: number): bigint {
    let v = 0n;
    for (let i = 0; i < 10; i++) v += BigInt(this.dv.getInt32(ptr + 4 * i, true)) << BigInt(POS[i]);
    return v;
  }
  set(ptr: number, v: bigint): void {
    limbs25519(v).forEach((l, i) => this.dv.setInt32(ptr + 4 * i, Number(l), true));
  }
  setLimbs(ptr: number, l: bigint[]): void {
    l.forEach((v, i) => this.dv.setInt32(ptr + 4 * i, Number(v), true));
  }
  limbs(ptr: number): number[] {
    return Array.from({ length: 10 }, (_, i) => this.dv.getInt32(ptr + 4 * i, true));
  }
  bytesIn(ptr: number, v: bigint): void {
    for (let i = 0; i < 32; i++) this.dv.setUint8(ptr + i, Number((v >> BigInt(8 * i)) & 0xffn));
  }
  bytesOut(ptr: number): bigint {
    let v = 0n;
    for (let i = 31; i >= 0; i--) v = (v << 8n) | BigInt(this.dv.getUint8(ptr + i));
    return v;
  }
  setPair(ptr: number, a: bigint, b: bigint): void {
    const la = limbs25519(a),
      lb = limbs25519(b);
    for (let i = 0; i < 10; i++) {
      this.dv.setUint32(ptr + 8 * i, Number(la[i]), true);
      this.dv.setUint32(ptr + 8 * i + 4, Number(lb[i]), true);
    }
  }
  getPair(ptr: number, lane: 0 | 1): bigint {
    let v = 0n;
    for (let i = 0; i < 10; i++) v += BigInt(this.dv.getUint32(ptr + 8 * i + 4 * lane, true)) << BigInt(POS[i]);
    return v;
  }
}

function values(rng: Rng): bigint[] {
  const edge = [0n, 1n, 2n, 19n, P - 1n, P - 2n, (P + 1n) / 2n, (1n << 254n) - 1n, (1n << 255n) - 20n, (1n << 128n) - 1n, 1n << 200n];
  const rand = Array.from({ length: 40 }, () => {
    let v = 0n;
    for (const b of rng.bytes(32)) v = (v << 8n) | BigInt(b);
    return mod(v);
  });
  return [...edge.map(mod), ...rand];
}

/** The whole suite on a build; returns the failures (empty: all agree with BigInt). */
function suite(x: Fx, seed: number): string[] {
  const f = new View(x);
  const rng = new Rng(seed);
  const fails: string[] = [];
  const eq = (what: string, got: bigint, want: bigint) => {
    if (mod(got) !== mod(want)) fails.push(`${what}: ${mod(got)} ≠ ${mod(want)}`);
  };
  const vs = values(rng);
  for (let i = 0; i < vs.length; i++) {
    const a = vs[i],
      b = vs[(i * 7 + 3) % vs.length],
      c = vs[(i * 13 + 5) % vs.length];
    f.set(A, a);
    f.set(B, b);
    f.call('fe_mul', R, A, B);
    eq(`mul ${a}·${b}`, f.get(R), a * b);
    f.call('fe_sqr', R, A);
    eq(`sqr ${a}`, f.get(R), a * a);
    f.call('fe_sub_mul_add121665', R, R + 40, A, B);
    eq(`sub_mul_add e ${a} − ${b}`, f.get(R), a - b);
    eq(`sub_mul_add r ${a} + 121665(${a} − ${b})`, f.get(R + 40), a + 121665n * (a - b));
    f.call('fe_add_sub', R, R + 40, A, B);
    eq(`add_sub s ${a} + ${b}`, f.get(R), a + b);
    eq(`add_sub d ${a} − ${b}`, f.get(R + 40), a - b);
    // loose operands: (a + b)·(a − b) and (a − b)², the widest the products accept
    f.call('fe_add', R, A, B);
    f.call('fe_sub', R + 40, A, B);
    f.call('fe_mul', R + 80, R, R + 40);
    eq(`(a+b)(a−b) for ${a}, ${b}`, f.get(R + 80), (a + b) * (a - b));
    f.call('fe_sqr', R + 80, R + 40);
    eq(`(a−b)² for ${a}, ${b}`, f.get(R + 80), (a - b) * (a - b));
    // three tight values summed (LOOSE = 3, what the Ed25519 formulas feed the products)
    f.set(R + 120, c);
    f.call('fe_add', R + 160, R, R + 120);
    f.call('fe_sub', R + 200, R + 40, R + 120);
    f.call('fe_mul', R + 80, R + 160, R + 200);
    eq(`(a+b+c)(a−b−c) for ${a}, ${b}, ${c}`, f.get(R + 80), (a + b + c) * (a - b - c));
    f.call('fe_sqr', R + 80, R + 200);
    eq(`(a−b−c)² for ${a}, ${b}, ${c}`, f.get(R + 80), (a - b - c) * (a - b - c));
    f.call('fe_to_bytes', BYTES, R + 200);
    if (f.bytesOut(BYTES) !== mod(a - b - c)) fails.push(`to_bytes ${a} − ${b} − ${c}`);
    f.call('fe_neg', R, A);
    eq(`neg ${a}`, f.get(R), -a);
    f.call('fe_carry', R + 80, R + 40);
    eq(`carry ${a} − ${b}`, f.get(R + 80), a - b);
    // canonical bytes, from a loose value
    f.call('fe_to_bytes', BYTES, R + 40);
    if (f.bytesOut(BYTES) !== mod(a - b)) fails.push(`to_bytes ${a} − ${b}`);
    f.call('fe_to_bytes', BYTES, A);
    if (f.bytesOut(BYTES) !== a) fails.push(`to_bytes ${a}`);
    if (f.call('fe_is_zero', R + 40, WS) !== (a === b ? 1 : 0)) fails.push(`is_zero ${a} − ${b}`);
    if (f.call('fe_eq', A, B, WS) !== (a === b ? 1 : 0)) fails.push(`eq ${a}, ${b}`);
    if (f.call('fe_is_negative', A, WS) !== Number(a & 1n)) fails.push(`is_negative ${a}`);
    f.call('fe_inv', R, A, WS);
    eq(`inv ${a}`, f.get(R) * (a === 0n ? 0n : a), a === 0n ? 0n : 1n);
    f.call('fe_inv_vt', R, A, WS);
    eq(`inv_vt ${a}`, f.get(R) * (a === 0n ? 0n : a), a === 0n ? 0n : 1n);
    // pairs
    f.setPair(A, a, b);
    f.setPair(B, c, a);
    f.call('fp_mul', R, A, B);
    eq(`pair mul x ${a}·${c}`, f.getPair(R, 0), a * c);
    eq(`pair mul y ${b}·${a}`, f.getPair(R, 1), b * a);
    f.call('fp_sqr', R, A);
    eq(`pair sqr x ${a}`, f.getPair(R, 0), a * a);
    eq(`pair sqr y ${b}`, f.getPair(R, 1), b * b);
    f.call('fp_comb_xpy_xmy', R, A);
    eq(`comb x+y`, f.getPair(R, 0), a + b);
    eq(`comb x−y`, f.getPair(R, 1), a - b);
    f.call('fp_comb_xmy_xpy', R, A);
    eq(`comb2 x−y`, f.getPair(R, 0), a - b);
    eq(`comb2 x+y`, f.getPair(R, 1), a + b);
    f.call('fp_comb_x_xmy', R, A);
    eq(`comb3 x`, f.getPair(R, 0), a);
    eq(`comb3 x−y`, f.getPair(R, 1), a - b);
    // the loose combinations into the products
    f.call('fp_comb_xpy_xmy', R + 100, A);
    f.call('fp_comb_xmy_xpy', R + 200, B);
    f.call('fp_mul', R, R + 100, R + 200);
    eq('loose pair mul x', f.getPair(R, 0), (a + b) * (c - a));
    eq('loose pair mul y', f.getPair(R, 1), (a - b) * (c + a));
    f.call('fp_sqr', R, R + 100);
    eq('loose pair sqr y', f.getPair(R, 1), (a - b) * (a - b));
    f.call('fp_comb_x_xmy', R + 100, A);
    f.call('fp_lin_121665', R, R + 100, A);
    eq('lin x', f.getPair(R, 0), b);
    eq('lin y', f.getPair(R, 1), a + 121665n * (a - b));
    f.set(R + 300, a);
    f.set(R + 340, b);
    f.call('fp_join', R, R + 300, R + 340);
    eq('join x', f.getPair(R, 0), a);
    eq('join y', f.getPair(R, 1), b);
    f.call('fp_lane1', R + 300, A);
    eq('lane1', f.get(R + 300), b);
    f.call('fp_lane0', R + 300, B);
    eq('lane0', f.get(R + 300), c);
  }
  // bytes: bit 255 ignored; canonical iff below p
  for (const v of [0n, 1n, P - 1n, P, P + 1n, (1n << 255n) - 1n, (1n << 255n) + 5n, (1n << 256n) - 1n, (1n << 255n) - 19n - 256n]) {
    f.bytesIn(BYTES, v);
    f.call('fe_from_bytes', A, BYTES);
    eq(`from_bytes ${v}`, f.get(A), v & ((1n << 255n) - 1n));
    if (f.call('fe_bytes_canonical', BYTES) !== ((v & ((1n << 255n) - 1n)) < P ? 1 : 0)) fails.push(`bytes_canonical ${v}`);
  }
  // products of limbs at the loose extremes (the widest inputs the products accept), in sign
  // patterns of a few kinds
  const looseMax = new Fe25519('bounds').loose.map(([, hi]) => hi);
  const patterns: ((i: number) => bigint)[] = [() => 1n, () => -1n, (i) => (i % 2 ? -1n : 1n), (i) => (i < 5 ? 1n : -1n), (i) => ((i * 7) % 3 ? 1n : -1n)];
  for (const [pi, sa] of patterns.entries())
    for (const [qi, sb] of patterns.entries()) {
      const la = Array.from({ length: 10 }, (_, i) => sa(i) * looseMax[i]);
      const lb = Array.from({ length: 10 }, (_, i) => sb(i) * looseMax[i]);
      f.setLimbs(A, la);
      f.setLimbs(B, lb);
      const [va, vb] = [f.get(A), f.get(B)];
      f.call('fe_mul', R, A, B);
      eq(`mul of loose extremes, patterns ${pi}·${qi}`, f.get(R), va * vb);
      if (qi === 0) {
        f.call('fe_sqr', R, A);
        eq(`sqr of loose extremes, pattern ${pi}`, f.get(R), va * va);
      }
    }
  // limbs at their extremes (tight bounds, negative limbs 1 and 5) through to_bytes
  for (const limbs of [
    [67108863, 33554431, 67108863, 33554431, 67108863, 33554431, 67108863, 33554431, 67108863, 33554431],
    [0, -1712, 0, 0, 0, -1712, 0, 0, 0, 0],
    [1, -1712, 0, 0, 0, -1712, 0, 0, 0, 33554431],
  ]) {
    f.setLimbs(A, limbs.map(BigInt));
    f.call('fe_to_bytes', BYTES, A);
    if (f.bytesOut(BYTES) !== mod(f.get(A))) fails.push(`to_bytes of limbs ${limbs}`);
  }
  // conditional swap and move
  f.set(A, 5n);
  f.set(B, 7n);
  f.call('fe_cswap', A, B, 0n);
  if (f.get(A) !== 5n) fails.push('cswap 0');
  f.call('fe_cswap', A, B, -1n);
  if (f.get(A) !== 7n || f.get(B) !== 5n) fails.push('cswap −1');
  f.call('fe_cmov', A, B, -1n);
  if (f.get(A) !== 5n) fails.push('cmov −1');
  f.setPair(A, 1n, 2n);
  f.setPair(B, 3n, 4n);
  f.call('fp_cswap', A, B, -1n);
  if (f.getPair(A, 0) !== 3n || f.getPair(B, 1) !== 2n) fails.push('pair cswap');
  return fails;
}

test('fe25519 single elements and pairs agree with BigInt on edge, random and loose values', async () => {
  const { x, bytes } = await build();
  assert.deepEqual(suite(x, 1), []);
  // the schoolbook products (the js target's) on the same suite
  assert.deepEqual(suite((await build({ schoolbook: true })).x, 3), []);
  const report = checkModule('fe25519_test', bytes);
  assert.deepEqual(
    report.violations.map(formatViolation).filter((v) => !v.includes('inv_vt')),
    [],
    'only the variable-time inversion may branch',
  );
});

test('negative control: a carry dropped in the products is caught', async () => {
  for (const schoolbook of [false, true]) {
    const { x } = await build({ dropCarry: true, schoolbook });
    const fails = suite(x, 2);
    assert.ok(fails.some((f) => f.startsWith('mul')) && fails.some((f) => f.startsWith('pair mul')), fails.slice(0, 3).join('; '));
  }
});

test('the generator proves its bounds: tight and loose limbs, every column below 2^63', () => {
  const fe = new Fe25519('fe');
  // Loose = a sum or difference of three tight values: |f_i| ≤ 3·2^26 (even i), 3·2^25 (odd i),
  // up to a few units of carry slack. Column 9 of a product sums ten terms f_i·g_(9−i), each an
  // even and an odd limb (no factor 2, no ×19 fold): |h9| ≤ 10·(3·2^26)·(3·2^25) = 90·2^51. Its
  // carry c9 = ⌊h9/2^25⌋ ≥ −90·2^26 enters limb 0 times 19, so the last carry c0 into limb 1 is
  // at least −1710 (plus one for the slack): the most negative a tight limb can be. Every other
  // carry that lands after a limb's mask is smaller. The upper bounds stay below 2^b + 2^12.
  assert.equal(LOOSE, 3n);
  const neg = 10n * (3n * 3n) * 19n; // 1710
  assert.ok(
    fe.tight.every(([lo, hi], i) => lo >= -(neg + 2n) && hi < (1n << BigInt(i % 2 ? 25 : 26)) + 4096n),
    JSON.stringify(fe.tight.map((t) => t.map(String))),
  );
  // the bound is attained up to the slack: limb 1 does go that negative (the analysis is not loose by 2×)
  assert.ok(fe.tight[1][0] <= -neg, String(fe.tight[1][0]));
  // loose: three times the tight magnitude, either sign
  fe.loose.forEach(([lo, hi], i) => {
    const m = fe.tight[i][1] > -fe.tight[i][0] ? fe.tight[i][1] : -fe.tight[i][0];
    assert.deepEqual([lo, hi], [-3n * m, 3n * m]);
  });
  assert.equal(PAIR, 80);
  assert.equal(fe.FE, 40);
});

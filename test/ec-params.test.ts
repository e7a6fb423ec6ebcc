// The curve parameters (src/curves/params.ts) and the formula programs (src/kernels/ec_formulas.ts):
// p and n prime, G on the curve of order n, OpenSSL's generator for the private key 1; every
// formula program, run on BigInt, equals the affine group law, with its reduction plan.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { CURVES } from '../src/curves/params.js';
import { FORMULAS, allocateSlots, curveShape, fuseProducts, parseFormula, reads, type Step } from '../src/kernels/ec_formulas.js';
import { planReductions } from '../src/kernels/ec_rcb_window.js';
import { type Affine, type Proj, add, bigToBytes, encodePoint, generator, mod, mul, negate, onCurve, powMod, toAffine, toProj } from '../src/ref/ec.js';

function isProbablePrime(n: bigint): boolean {
  if (n < 2n) return false;
  for (const p of [2n, 3n, 5n, 7n, 11n, 13n]) if (n % p === 0n) return n === p;
  let d = n - 1n,
    s = 0;
  while ((d & 1n) === 0n) {
    d >>= 1n;
    s++;
  }
  for (const a of [2n, 3n, 5n, 7n, 11n, 13n, 17n, 19n, 23n, 29n, 31n, 37n]) {
    let x = powMod(a, d, n);
    if (x === 1n || x === n - 1n) continue;
    let comp = true;
    for (let r = 1; r < s; r++) {
      x = (x * x) % n;
      if (x === n - 1n) {
        comp = false;
        break;
      }
    }
    if (comp) return false;
  }
  return true;
}

for (const c of Object.values(CURVES)) {
  test(`${c.name}: parameters (primes, generator on the curve, order n, OpenSSL's G)`, () => {
    assert.ok(isProbablePrime(c.p), 'p prime');
    assert.ok(isProbablePrime(c.n), 'n prime');
    const G = generator(c);
    assert.ok(onCurve(c, G));
    assert.equal(mul(c, c.n, G), null);
    assert.equal(c.h, 1n);
    const ecdh = crypto.createECDH(c.openssl);
    ecdh.setPrivateKey(Buffer.from(bigToBytes(1n, Math.ceil(c.n.toString(2).length / 8))));
    assert.deepEqual(new Uint8Array(ecdh.getPublicKey()), encodePoint(c, G));
  });
}

function run(c: (typeof CURVES)[keyof typeof CURVES], steps: Step[], P: Proj, Q: Proj | Affine): Proj {
  const v: Record<string, bigint> = { X1: P.X, Y1: P.Y, Z1: P.Z, a: c.a, b: c.b, b3: 3n * c.b };
  if (Q !== null && 'X' in Q) Object.assign(v, { X2: Q.X, Y2: Q.Y, Z2: Q.Z });
  else if (Q !== null) Object.assign(v, { X2: Q.x, Y2: Q.y });
  const m = (x: bigint) => mod(x, c.p);
  for (const s of steps) {
    for (const r of reads(s)) assert.notEqual(v[r], undefined, `reads ${r} before it is written`);
    const x = v[s.x];
    if (s.op === 'mulc') v[s.d] = m(v[s.c] * x);
    else if (s.op === 'mul2') v[s.d] = m(x * v[s.y] + (s.neg ? -1n : 1n) * v[s.u] * v[s.v]);
    else {
      const y = v[s.y];
      assert.notEqual(y, undefined, `reads ${s.y} before it is written`);
      v[s.d] = m(s.op === 'mul' ? x * y : s.op === 'add' ? x + y : x - y);
    }
  }
  return { X: v.X3, Y: v.Y3, Z: v.Z3 };
}

for (const c of Object.values(CURVES)) {
  test(`${c.name}: formula programs (${curveShape(c.p, c.a)}) equal the affine group law; reduction plan valid`, () => {
    const F = FORMULAS[curveShape(c.p, c.a)];
    const G = generator(c);
    const pts: Affine[] = [null, G, negate(c, G), mul(c, 2n, G), mul(c, c.n - 1n, G), mul(c, 99991n, G)];
    const scale = (P: Proj, s: bigint): Proj => ({ X: mod(P.X * s, c.p), Y: mod(P.Y * s, c.p), Z: mod(P.Z * s, c.p) });
    const same = (a: Affine, b: Affine) => assert.deepEqual(a, b);
    // the programs as written, and as compiled for 8–9 limbs (fuseProducts: single assignment,
    // sums of two products fused): the same projective results
    for (const prep of [(t: string) => parseFormula(t), (t: string) => fuseProducts(parseFormula(t))]) {
      for (const A of pts) {
        same(toAffine(c, run(c, prep(F.double), scale(toProj(A), 7n), null)), add(c, A, A));
        for (const B of pts) {
          const r = run(c, prep(F.add), scale(toProj(A), 3n), scale(toProj(B), 5n));
          same(toAffine(c, r), add(c, A, B));
          assert.deepEqual(run(c, parseFormula(F.add), scale(toProj(A), 3n), scale(toProj(B), 5n)), r);
          if (B !== null) same(toAffine(c, run(c, prep(F.mixedAdd), scale(toProj(A), 3n), B)), add(c, A, B));
        }
      }
    }
    // fusion found the sums of products (three in each addition), and no slot holds two live values
    for (const text of [F.add, F.mixedAdd, F.double]) {
      const fused = fuseProducts(parseFormula(text));
      assert.ok(fused.filter((s) => s.op === 'mul2').length >= (text === F.double ? 1 : 3));
      const { slot } = allocateSlots(fused);
      const live = new Map<number, string>();
      const last = new Map<string, number>();
      fused.forEach((s, i) => reads(s).forEach((r) => last.set(r, i)));
      fused.forEach((s, i) => {
        for (const [k, v] of [...live]) if ((last.get(v) ?? -1) < i) live.delete(k);
        const k = slot.get(s.d)!;
        const held = live.get(k);
        assert.ok(held === undefined || (last.get(held) ?? -1) <= i, `${s.d} overwrites ${held} while it is live`);
        live.set(k, s.d);
      });
      planReductions(fused, 32);
    }
    // the plan: every lazy sum only feeds products within the bound, outputs reduced
    for (const text of [F.add, F.mixedAdd, F.double]) {
      const steps = parseFormula(text);
      const plan = planReductions(steps, 32);
      assert.equal(plan.length, steps.length);
      assert.ok(
        plan.some((p) => p.lazy),
        'some sums are left unreduced',
      );
    }
  });
}

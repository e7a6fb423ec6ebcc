// Scalar multiplication (variable base and the fixed-base comb) and the group law of every
// curve kernel against the BigInt reference; the reference's projective formulas against its
// affine group law; the deliberately broken variants (a wrong coefficient in the addition
// formula, a lookup that picks the wrong entry, a fused difference of products with its sign
// slipped) must fail the suite.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scalarSuite, scalars } from './support/ec-scalar-suite.js';
import { CURVE_NAMES, brokenKernel, controlHere, kernelOf, perBackend } from './support/ec-curves.js';
import { CURVES } from '../src/curves/params.js';
import { testBackend } from './support/backends.js';
import { type EcFlags, generateEc } from '../src/kernels/ec_rcb_window.js';
import { printJsModule, withTarget } from '../src/kernels/builder/index.js';
import { generator, mul, mulProj, onCurve } from '../src/ref/ec.js';

// random scalars per curve, and every STRIDE-th of all (structured and random; 3 is coprime to
// the four base points' cycle): fewer on the scalar backends (test/backends.test.ts)
const RANDOM = perBackend(30, 6);
const STRIDE = perBackend(1, 3);

for (const name of CURVE_NAMES) {
  test(`${name}: k·G and k·P equal the reference for structured and random scalars${STRIDE > 1 ? ` (every ${STRIDE}${STRIDE === 3 ? 'rd' : 'th'})` : ''}; group law on special points`, () => {
    const { total, failures } = scalarSuite(kernelOf(name), RANDOM, STRIDE);
    assert.ok(total >= RANDOM / STRIDE, `only ${total} checks for ${RANDOM} random scalars and the structured ones`);
    assert.deepEqual(failures.slice(0, 3), [], `${failures.length} of ${total} checks failed`);
    console.log(`# ${name}: ${total} checks, 0 failures`);
  });
}

test('reference: projective double-and-add equals the affine group law (every curve, 12 scalars)', () => {
  for (const name of CURVE_NAMES) {
    const c = CURVES[name];
    const G = generator(c);
    for (const k of scalars(c.n, 0, 1).slice(0, 12)) {
      const a = mul(c, k, G),
        b = mulProj(c, k, G);
      assert.equal(a?.x, b?.x, `${name} k=${k}`);
      assert.equal(a?.y, b?.y, `${name} k=${k}`);
      assert.ok(onCurve(c, a));
    }
  }
});

const broken = [
  ['a wrong coefficient in the addition formula', { wrongCoefficient: true }],
  ['a table lookup that picks the wrong entry', { wrongLookup: true }],
  ['a fused difference of two products computed as their sum', { fusedSignSlip: true }],
] as const;

for (const [i, [what, flags]] of broken.entries()) {
  if ('fusedSignSlip' in flags && testBackend() === 'js') {
    // the js modules fuse no products (12-bit limbs: P-256 has 22, above ec_group.ts's
    // FUSE_MAX_LIMBS), so this flag has nothing to break there: the broken build is the shipped one
    test('on js, the fused-products control has nothing to break: P-256 printed with the flag is the shipped module', () => {
      const print = (f: EcFlags) => printJsModule(withTarget('js', () => generateEc(CURVES.p256, f)).ir!);
      assert.equal(print(flags), print({}));
    });
    continue;
  }
  for (const name of ['p256', 'secp256k1', 'brainpoolP256r1'] as const) {
    if (!controlHere(i, name)) continue; // on wasm: P-256 only (support/ec-curves.ts)
    test(`negative control (${name}): ${what} fails the scalar suite`, async () => {
      const { failures } = scalarSuite(await brokenKernel(name, flags), 4, 3);
      assert.ok(failures.length > 0, `broken kernel (${what}) passed the scalar suite`);
    });
  }
}

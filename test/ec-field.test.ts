// Field arithmetic of every curve kernel, mod p and mod n, against BigInt: at least 10,000
// cases per modulus (0, 1, m − 1, values at 2^k and limb boundaries, random values, operands in
// redundant form); and the field's deliberately broken variants, which the suite must reject.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldSuite } from './support/ec-field-suite.js';
import { CURVE_NAMES, LIMB_BITS, brokenKernel, controlHere, kernelOf, perBackend } from './support/ec-curves.js';
import { testBackend } from './support/backends.js';

// the scalar backends (test/backends.test.ts) run every STRIDE-th pair (coprime to the suite's
// 10, 40 and 3: inversions, square roots and +3m operands keep their share)
const STRIDE = perBackend(1, 11);

for (const name of CURVE_NAMES) {
  for (const which of ['fp', 'fn'] as const) {
    test(`${name} ${which === 'fp' ? 'mod p' : 'mod n'}: kernel equals BigInt over 10,000 operand pairs${STRIDE > 1 ? ` (every ${STRIDE}th)` : ''}`, () => {
      const { total, failures } = fieldSuite(kernelOf(name), which, 10_000, STRIDE, LIMB_BITS);
      assert.ok(total >= 10_000 / STRIDE, `only ${total} checks for ${10_000 / STRIDE} pairs`);
      assert.deepEqual(failures.slice(0, 5), [], `${failures.length} of ${total} checks failed`);
      console.log(`# ${name} ${which}: ${total} checks, 0 failures`);
    });
  }
}

const broken = [
  ['a carry dropped in the multiplication', { dropCarry: true }],
  ['the final subtraction of the addition skipped', { skipCorrection: true }],
] as const;

for (const [i, [what, flags]] of broken.entries()) {
  for (const name of ['p256', 'brainpoolP384r1'] as const) {
    if (!controlHere(i, name)) continue; // on wasm: P-256 only (support/ec-curves.ts)
    test(`negative control (${name}): ${what} fails the field suite`, async () => {
      const { failures } = fieldSuite(await brokenKernel(name, flags), 'fp', 2000, 5, LIMB_BITS);
      assert.ok(failures.length > 0, `broken kernel (${what}) passed the field suite`);
    });
  }
}

// on js the widest fields multiply in a loop (src/kernels/fe_mont29.ts: rolledProduct), on wasm
// their a·b columns come from Karatsuba (KARATSUBA_FROM_LIMBS); P-256 is unrolled schoolbook on both
if (testBackend() !== 'simd') {
  const how = testBackend() === 'js' ? 'a rolled product on js' : 'Karatsuba columns on wasm';
  test(`negative control (brainpoolP384r1, ${how}): a carry dropped fails the field suite`, async () => {
    const { failures } = fieldSuite(await brokenKernel('brainpoolP384r1', { dropCarry: true }), 'fp', 2000, 5, LIMB_BITS);
    assert.ok(failures.length > 0, 'broken kernel (a carry dropped) passed the field suite');
  });
}

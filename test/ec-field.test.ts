// Field arithmetic of every curve kernel, mod p and mod n, against BigInt: at least 10,000
// cases per modulus (0, 1, m − 1, values at 2^k and limb boundaries, random values, operands in
// redundant form); and the field's deliberately broken variants, which the suite must reject.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldSuite } from './support/ec-field-suite.js';
import { CURVE_NAMES, kernelOf } from './support/ec-curves.js';
import { CURVES } from '../src/curves/params.js';
import { generateEc } from '../src/kernels/ec_rcb_window.js';
import { compileKernel } from '../src/kernels/build.js';
import { ecKernelFrom } from '../src/ec/kernel.js';

for (const name of CURVE_NAMES) {
  for (const which of ['fp', 'fn'] as const) {
    test(`${name} ${which === 'fp' ? 'mod p' : 'mod n'}: kernel equals BigInt over 10,000 operand pairs`, () => {
      const { total, failures } = fieldSuite(kernelOf(name), which, 10_000);
      assert.ok(total >= 10_000, `only ${total} checks for 10,000 pairs`);
      assert.deepEqual(failures.slice(0, 5), [], `${failures.length} of ${total} checks failed`);
      console.log(`# ${name} ${which}: ${total} checks, 0 failures`);
    });
  }
}

const broken = [
  ['a carry dropped in the multiplication', { dropCarry: true }],
  ['the final subtraction of the addition skipped', { skipCorrection: true }],
] as const;

for (const [what, flags] of broken) {
  for (const name of ['p256', 'brainpoolP384r1'] as const) {
    test(`negative control (${name}): ${what} fails the field suite`, async () => {
      const bytes = await compileKernel(generateEc(CURVES[name], flags));
      const e = ecKernelFrom(CURVES[name], `broken-${name}-${Object.keys(flags)[0]}`, bytes);
      const { failures } = fieldSuite(e, 'fp', 2000, 5);
      assert.ok(failures.length > 0, `broken kernel (${what}) passed the field suite`);
    });
  }
}

// GHASH and POLYVAL: the shipped kernel against the references over the structured suite;
// the generator's deliberately broken variants must fail it; API errors and wiping.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cases, suite } from './support/gf128-suite.js';
import { GF128_SLOT_SIZE, generateGf128, type Gf128Flags } from '../src/kernels/gf128_ctmul64.js';
import type { Gf128Exports } from '../src/engine/wasm/gf128.contract.js';
import { kernelFor, testBackend } from './support/backends.js';
import { compileKernel } from '../src/kernels/build.js';
import { gf128KernelFrom, UniversalHash } from '../src/mac/universal-hash.js';
import { ghash, polyval } from '../src/mac/index.js';
import { StateError } from '../src/errors.js';
import { getKernel } from '../src/engine/kernel.js';
import * as gf128Module from '../src/engine/wasm/gf128.js';

test('structured differential suite: kernel equals the bit-serial references', () => {
  const all = cases();
  assert.ok(all.length >= 3000, `only ${all.length} cases`);
  const keys = new Set(all.map((c) => c.desc.split(' ')[1]));
  assert.ok(keys.size >= 40, `only ${keys.size} keys`);
  const { total, failures } = suite();
  assert.equal(total, all.length);
  assert.deepEqual(failures.slice(0, 5), [], `${failures.length} of ${total} cases failed`);
  console.log(`# gf128 differential: ${total} cases, 0 failures`);
});

const broken: [string, Gf128Flags][] = [
  ['a reduction term dropped', { dropReductionTerm: true }],
  ['the tail started one block late', { tailLate: true }],
  ['a wrong power of H inside a group', { wrongPower: true }],
  ['a byte-order slip', { byteSlip: true }],
];

// on the backend under test (CTKIT_BACKEND): the js target has a multiplication of its own
// (gf128_ctmul32.ts) inside the same loops, so its broken variants are built for js
const B = testBackend();
for (const [what, flags] of broken) {
  test(`negative control (${B}): ${what} fails the differential suite`, async () => {
    const name = `gf128-broken-${Object.keys(flags)[0]}`;
    const kernel = B === 'simd' ? gf128KernelFrom(name, await compileKernel(generateGf128(flags))) : await kernelFor<Gf128Exports>(B, name, () => generateGf128(flags), GF128_SLOT_SIZE);
    const { failures } = suite(kernel, 3);
    assert.ok(failures.length > 0, `broken kernel (${what}) passed the whole suite`);
    // the cases with powers always computed run the eight-block loop (i16x8 on simd), which must catch it too
    const withPowers = suite(kernel, 3, (c) => c.powers === 'always');
    assert.ok(withPowers.failures.length > 0, `broken kernel (${what}) passed every case of the eight-block loop`);
  });
}

test('the generator without flags reproduces the shipped binary', async () => {
  const bytes = await compileKernel(generateGf128());
  assert.deepEqual(bytes, gf128Module.bytes());
});

test('typed errors: key length, types, use after digest', () => {
  for (const n of [0, 15, 17, 32]) {
    assert.throws(
      () => ghash(new Uint8Array(n), new Uint8Array(0)),
      (e: unknown) => e instanceof RangeError && /key must be 16 bytes long, got/.test(e.message),
    );
    assert.throws(() => polyval.create(new Uint8Array(n)), RangeError);
  }
  assert.throws(() => ghash('0123456789abcdef' as unknown as Uint8Array, new Uint8Array(0)), TypeError);
  assert.throws(() => ghash(new Uint8Array(16), [1, 2, 3] as unknown as Uint8Array), TypeError);
  const h = ghash.create(new Uint8Array(16));
  h.update(new Uint8Array(5));
  h.digest();
  assert.throws(() => h.update(new Uint8Array(1)), StateError);
  assert.throws(() => h.digest(), StateError);
});

test('slots are wiped and returned: digest, dispose', () => {
  const k = getKernel<any>(gf128Module, 4096);
  const before = k.slotsInUse;
  const key = new Uint8Array(16).fill(0xa5);
  const h = new UniversalHash('polyval', key, { powers: 'always' });
  h.update(new Uint8Array(4096).fill(1));
  assert.equal(k.slotsInUse, before + 1);
  h.digest();
  assert.equal(k.slotsInUse, before);
  // the freed slot's bytes are zero (the next allocation reuses it)
  const slot = k.allocSlot();
  assert.ok(
    k.u8.subarray(slot, slot + 4096).every((b) => b === 0),
    'slot not wiped',
  );
  k.freeSlot(slot);
  const h2 = ghash.create(key);
  h2.dispose();
  h2.dispose();
  assert.equal(k.slotsInUse, before);
});

test('large input streams through bounded scratch (memory stays small)', () => {
  const k = getKernel<any>(gf128Module, 4096);
  const chunk = new Uint8Array(1 << 20).fill(7);
  const h = ghash.create(new Uint8Array(16).fill(3));
  for (let i = 0; i < 32; i++) h.update(chunk); // 32 MiB
  h.digest();
  assert.ok(k.u8.buffer.byteLength <= 1 << 20, `memory grew to ${k.u8.buffer.byteLength}`);
});

// Safegcd modular inversion (src/kernels/fe_safegcd.ts): both variants against BigInt for every
// curve's p and n, the constant-time checker on the constant-time variant, and negative controls
// (deliberately broken generators) that the equality tests must catch.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { CURVES } from '../src/curves/params.js';
import { limbsFor, modInv, toLimbs } from '../src/kernels/fe_mont29.js';
import { safegcdFunction, type SafegcdOptions } from '../src/kernels/fe_safegcd.js';
import { compileKernel } from '../src/kernels/build.js';
import { checkModule, formatViolation } from '../src/ct/check.js';

interface Inv {
  inv(x: bigint): bigint;
  bytes: Uint8Array;
}

async function build(m: bigint, opts: SafegcdOptions): Promise<Inv> {
  const { wat, workspace } = safegcdFunction('inv', m, opts);
  const text = `(module (memory (export "memory") 1)\n${wat}\n  (export "inv" (func $inv)))`;
  const bytes = await compileKernel({ name: 'safegcd_test', wat: text, publicParams: { inv: [0, 1, 2] } });
  const inst = new WebAssembly.Instance(new WebAssembly.Module(bytes as BufferSource), {});
  const mem = inst.exports.memory as WebAssembly.Memory;
  const fn = inst.exports.inv as (r: number, a: number, ws: number) => void;
  const L = limbsFor(m);
  const A = 64,
    R = 1024,
    WS = 2048;
  assert.ok(WS + workspace < 65536);
  return {
    bytes,
    inv(x: bigint): bigint {
      const v = new BigInt64Array(mem.buffer);
      toLimbs(x, L).forEach((l, j) => {
        v[A / 8 + j] = l;
        v[R / 8 + j] = -1n;
      });
      v[R / 8 + L] = 0x5a5an;
      v[A / 8 + L] = 0x5a5an;
      v[WS / 8] = 0x5a5an;
      fn(R, A, WS);
      assert.equal(v[R / 8 + L], 0x5a5an, 'wrote past the L output limbs');
      assert.equal(v[WS / 8], 0x5a5an, 'used workspace it did not declare');
      toLimbs(x, L).forEach((l, j) => assert.equal(v[A / 8 + j], l, 'input modified'));
      let out = 0n;
      for (let j = L - 1; j >= 0; j--) {
        const l = v[R / 8 + j];
        assert.ok(l >= 0n && l < 1n << 29n, 'output limb out of range');
        out = (out << 29n) | l;
      }
      // in place: $r = $a
      fn(A, A, WS);
      let inPlace = 0n;
      for (let j = L - 1; j >= 0; j--) inPlace = (inPlace << 29n) | v[A / 8 + j];
      assert.equal(v[A / 8 + L], 0x5a5an, 'wrote past the L output limbs (in place)');
      assert.equal(inPlace, out, 'in-place result differs');
      return out;
    },
  };
}

function rand(m: bigint): bigint {
  const bytes = Math.ceil(m.toString(2).length / 8) + 8;
  return BigInt('0x' + randomBytes(bytes).toString('hex')) % m;
}

/** Edge inputs: small values, m − small, powers of two, runs of ones and zeros. */
function edgeInputs(m: bigint): bigint[] {
  const bits = m.toString(2).length;
  const xs = [0n, 1n, 2n, 3n, m - 1n, m - 2n, m - 3n, (m - 1n) / 2n, (m + 1n) / 2n];
  for (let k = 1; k < bits; k += 7) xs.push(1n << BigInt(k));
  xs.push(1n << BigInt(bits - 1));
  for (let k = 1; k <= bits; k += 29) xs.push((1n << BigInt(k)) - 1n); // runs of ones
  for (let k = 30; k < bits; k += 61) xs.push((1n << BigInt(k)) + 1n); // long run of zeros
  for (let k = 0; k < bits; k += 53) xs.push(((1n << BigInt(bits - 1)) - 1n) ^ ((1n << BigInt(k)) - 1n));
  xs.push(BigInt('0x' + 'f0'.repeat(Math.ceil(bits / 8))) % m);
  xs.push(BigInt('0x' + '00ff'.repeat(Math.ceil(bits / 16))) % m);
  return xs.map((x) => ((x % m) + m) % m);
}

const moduli: [string, bigint][] = [];
for (const [name, c] of Object.entries(CURVES)) moduli.push([`${name} p`, c.p], [`${name} n`, c.n]);

const expected = (x: bigint, m: bigint) => (x === 0n ? 0n : modInv(x, m));

for (const constantTime of [false, true]) {
  const variant = constantTime ? 'constant time' : 'variable time';
  for (const [name, m] of moduli) {
    test(`safegcd ${variant}: ${name}`, async () => {
      const k = await build(m, { constantTime });
      for (const x of edgeInputs(m)) assert.equal(k.inv(x), expected(x, m), `x = 0x${x.toString(16)}`);
      for (let i = 0; i < 300; i++) {
        const x = rand(m);
        assert.equal(k.inv(x), expected(x, m), `x = 0x${x.toString(16)}`);
      }
    });
  }
}

test('safegcd constant time: the checker reports no violation (every modulus)', async () => {
  for (const [name, m] of moduli) {
    const { bytes } = await build(m, { constantTime: true });
    const rep = checkModule('safegcd', bytes, []);
    assert.equal(rep.violations.length, 0, `${name}:\n${rep.violations.map(formatViolation).join('\n')}`);
    assert.equal(rep.functions, 1);
  }
});

test('safegcd variable time: the checker does flag it (branches on data)', async () => {
  const { bytes } = await build(CURVES.p256.p, { constantTime: false });
  const rep = checkModule('safegcd', bytes, []);
  assert.ok(rep.violations.some((v) => v.rule === 'branch'));
});

async function catches(m: bigint, opts: SafegcdOptions): Promise<boolean> {
  const k = await build(m, opts);
  for (const x of [...edgeInputs(m), ...Array.from({ length: 50 }, () => rand(m))]) {
    if (k.inv(x) !== expected(x, m)) return true;
  }
  return false;
}

test('negative controls: broken generators are caught by the equality tests', async () => {
  for (const m of [CURVES.p256.p, CURVES.brainpoolP512r1.n]) {
    assert.ok(await catches(m, { constantTime: true, broken: 'dropTerm' }), 'CT dropTerm not caught');
    assert.ok(await catches(m, { constantTime: false, broken: 'dropTerm' }), 'VT dropTerm not caught');
    assert.ok(await catches(m, { constantTime: true, broken: 'halfSteps' }), 'CT halfSteps not caught');
  }
});

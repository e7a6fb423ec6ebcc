// AES-GCM-SIV through the keyed objects: RFC 8452 Appendix C (with the C.3 counter-wrap cases),
// every Wycheproof case, differential cases against the reference built from src/ref/,
// tampering, deliberately broken kernels that the suite must reject, API errors and wiping.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aesKernel, aesKernelFrom } from '../src/aead/aes-gcm.js';
import { AesGcmSiv, aesGcmSiv } from '../src/aead/aes-gcm-siv.js';
import { StateError } from '../src/errors.js';
import { compileKernel } from '../src/kernels/build.js';
import { type AesGcmFlags, generateAesGcm } from '../src/kernels/aes_gcm.js';
import { AES_SLOT } from '../src/kernels/aes_layout.js';
import { SLOTS_PTR } from '../src/engine/kernel.js';
import { DIFF_SIV_CASES, cases, suite } from './support/aes-suite.js';
import { Rng, hex } from './support/rng.js';
import { assertTamperingRejected } from './support/tamper.js';
import { kernelFor, testBackend } from './support/backends.js';
import type { AesExports } from '../src/engine/wasm/aes.contract.js';

test('AES-GCM-SIV: RFC 8452 Appendix C (selection, including both C.3 counter-wrap cases)', () => {
  const { total, failures } = suite('siv', ['kat']);
  assert.ok(total >= 8);
  assert.deepEqual(failures, []);
});

test('AES-GCM-SIV: every case of Wycheproof aes_gcm_siv_test.json, result honoured (includes all 50 of RFC 8452 Appendix C)', () => {
  const all = cases('siv', 'wycheproof');
  assert.equal(all.filter((c) => c.desc.includes('RFC 8452')).length, 50);
  assert.ok(
    all.some((c) => c.desc.includes('RFC 8452') && hex(c.sealed).endsWith('ffffffff000000000000000000000000')),
    'C.3 counter-wrap vectors present',
  );
  const { total, failures } = suite('siv', ['wycheproof']);
  assert.equal(total, 202);
  assert.deepEqual(failures, []);
  const valid = all.filter((c) => c.valid).length;
  console.log(`# wycheproof aes_gcm_siv_test.json: ${total} cases (${valid} valid, ${total - valid} invalid), 0 failures`);
});

test(`AES-GCM-SIV: ${DIFF_SIV_CASES}+ differential cases against the reference from src/ref`, () => {
  const all = cases('siv', 'differential');
  assert.ok(all.length >= DIFF_SIV_CASES, `only ${all.length} cases`);
  for (const kl of [16, 32]) assert.ok(all.some((c) => c.key.length === kl));
  for (let r = 0; r < 16; r++)
    assert.ok(
      all.some((c) => c.pt.length % 16 === r && c.pt.length > 16),
      `plaintext remainder ${r}`,
    );
  for (const n of [127, 128, 129, 1023, 1024, 1025])
    assert.ok(
      all.some((c) => c.pt.length === n),
      `plaintext ${n}`,
    );
  const { total, failures } = suite('siv', ['differential']);
  assert.equal(total, all.length, 'every case ran');
  assert.deepEqual(failures.slice(0, 5), [], `${failures.length} of ${total} failed`);
  console.log(`# aes-gcm-siv differential vs src/ref: ${total} cases, 0 failures`);
});

test('AES-GCM-SIV tampering: every flipped bit of tag, ciphertext, nonce and AAD is rejected, output wiped', () => {
  const rng = new Rng(0x1f83d9ab);
  for (const kl of [16, 32]) {
    const key = rng.bytes(kl),
      nonce = rng.bytes(12),
      pt = rng.bytes(21),
      aad = rng.bytes(13);
    const a = aesGcmSiv(key);
    assertTamperingRejected(a, nonce, pt, aad);
    a.dispose();
  }
});

const broken: [string, AesGcmFlags][] = [
  ["SIV's nonce XOR skipped", { sivSkipNonceXor: true }],
  ['a wrong round constant in the key schedule', { wrongRcon: true }],
];

// on the backend under test (CTKIT_BACKEND)
const B = testBackend();
for (const [what, flags] of broken) {
  test(`negative control (${B}): ${what} fails the AES-GCM-SIV suite`, async () => {
    const name = `aes-broken-siv-${Object.keys(flags)[0]}`;
    const kernel = B === 'simd' ? aesKernelFrom(name, await compileKernel(generateAesGcm(flags))) : await kernelFor<AesExports>(B, name, () => generateAesGcm(flags), AES_SLOT.size);
    const { failures } = suite('siv', ['kat', 'wycheproof', 'differential'], kernel, 1);
    assert.ok(failures.length > 0, `broken kernel (${what}) passed the whole suite`);
    console.log(`# caught: ${failures[0].slice(0, 120)}`);
  });
}

test('AES-GCM-SIV API: lengths, types, state', () => {
  for (const n of [0, 15, 17, 24, 31, 33]) {
    assert.throws(
      () => aesGcmSiv(new Uint8Array(n)),
      (e: unknown) => e instanceof RangeError && /^key must be 16 or 32 bytes long, got/.test(e.message),
    );
  }
  const a = aesGcmSiv(new Uint8Array(32));
  for (const n of [0, 1, 8, 11, 13, 16]) {
    assert.throws(
      () => a.seal(new Uint8Array(n), new Uint8Array(1)),
      (e: unknown) => e instanceof RangeError && /^nonce must be 12 bytes long, got/.test(e.message),
    );
    assert.throws(() => a.open(new Uint8Array(n), new Uint8Array(17)), RangeError);
  }
  assert.throws(() => a.seal(new Uint8Array(12), null as unknown as Uint8Array), TypeError);
  class Huge extends Uint8Array {
    override get length(): number {
      return 2 ** 36 + 1;
    }
  }
  assert.throws(
    () => a.seal(new Uint8Array(12), new Huge(1)),
    (e: unknown) => e instanceof RangeError && /plaintext must be at most 2\^36 bytes/.test(e.message),
  );
  assert.throws(
    () => a.seal(new Uint8Array(12), new Uint8Array(1), new Huge(1)),
    (e: unknown) => e instanceof RangeError && /aad must be at most 2\^36 bytes/.test(e.message),
  );
  a.dispose();
  assert.throws(() => a.seal(new Uint8Array(12), new Uint8Array(1)), StateError);
});

test('AES-GCM-SIV in place; per-nonce keys, IO and scratch wiped after each call; slots returned', () => {
  const k = aesKernel();
  const before = k.slotsInUse;
  const rng = new Rng(0x5be0cd19);
  const a = new AesGcmSiv(rng.bytes(32));
  assert.equal(k.slotsInUse, before + 1);
  for (const n of [0, 5, 100, 2000, 70000]) {
    const nonce = rng.bytes(12),
      pt = rng.bytes(n),
      aad = rng.bytes(7);
    const expected = a.seal(nonce, pt, aad);
    const buf = new Uint8Array(n + 16);
    buf.set(pt);
    assert.equal(hex(a.seal(nonce, buf.subarray(0, n), aad, buf)), hex(expected));
    assert.equal(hex(a.open(nonce, buf, aad, buf.subarray(0, n))), hex(pt));
    assert.ok(
      k.u8.subarray(0, 4096 + 65536).every((b) => b === 0),
      'IO area or scratch not wiped',
    );
    // the per-nonce keys region of every slot (GCM slots never use it) is zero between calls
    for (let s = SLOTS_PTR; s + AES_SLOT.size <= k.u8.length; s += AES_SLOT.size) {
      assert.ok(
        k.u8.subarray(s + AES_SLOT.sivRk, s + AES_SLOT.size).every((b) => b === 0),
        'per-nonce keys not wiped',
      );
    }
  }
  assert.equal(k.slotsInUse, before + 1);
  a.dispose();
  assert.equal(k.slotsInUse, before);
  const slot = k.allocSlot();
  assert.ok(
    k.u8.subarray(slot, slot + AES_SLOT.size).every((b) => b === 0),
    'slot not wiped',
  );
  k.freeSlot(slot);
});

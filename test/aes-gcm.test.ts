// AES and AES-GCM: the kernel against FIPS 197 and the reference AES; AES-GCM through the keyed
// objects against the GCM specification's test cases, every Wycheproof case, and OpenSSL
// (node:crypto) over the length classes; tampering; deliberately broken kernels that the suite
// must reject; API errors, in-place use, wiping and bounded memory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AesGcm, aesGcm, aesKernel, aesKernelFrom, expandAesKey } from '../src/aead/aes-gcm.js';
import { StateError } from '../src/errors.js';
import { compileKernel } from '../src/kernels/build.js';
import { type AesGcmFlags, generateAesGcm } from '../src/kernels/aes_gcm.js';
import { AES_IO, AES_SLOT } from '../src/kernels/aes_layout.js';
import * as aesModule from '../src/engine/wasm/aes.js';
import { SCRATCH_PTR } from '../src/engine/kernel.js';
import { aesEncryptBlockRef } from '../src/ref/aes.js';
import { FIPS197_CIPHER } from './support/aes-vectors.js';
import { DIFF_GCM_CASES, GCM_NONCE_LENGTHS, GCM_TAG_LENGTHS, LENGTHS, cases, checkInPlace, suite } from './support/aes-suite.js';
import { Rng, hex, unhex } from './support/rng.js';
import { assertTamperingRejected } from './support/tamper.js';
import { kernelFor, testBackend } from './support/backends.js';
import type { AesExports } from '../src/engine/wasm/aes.contract.js';

test('the generator without flags reproduces the shipped binary', async () => {
  assert.deepEqual(await compileKernel(generateAesGcm()), aesModule.bytes());
});

/** Encrypt blocks with the kernel's ECB entry (the multi-block path and its padded last group). */
function ecb(key: Uint8Array, blocks: Uint8Array): Uint8Array {
  const k = aesKernel();
  const slot = k.allocSlot();
  try {
    const nr = expandAesKey(k, slot + AES_SLOT.rk, key);
    k.u8.set(blocks, SCRATCH_PTR);
    k.exports.aes_ecb(slot + AES_SLOT.rk, nr, SCRATCH_PTR, SCRATCH_PTR, blocks.length / 16);
    return k.u8.slice(SCRATCH_PTR, SCRATCH_PTR + blocks.length);
  } finally {
    k.wipe(SCRATCH_PTR, blocks.length);
    k.freeSlot(slot);
  }
}

test('AES kernel: FIPS 197 Appendices B and C', () => {
  for (const v of FIPS197_CIPHER) assert.equal(hex(ecb(unhex(v.key), unhex(v.pt))), v.ct, v.source);
});

test('AES kernel: random keys of every size against the reference, 1 to 17 blocks per call', () => {
  const rng = new Rng(0xbb67ae85);
  let blocks = 0;
  for (const kl of [16, 24, 32]) {
    for (let n = 1; n <= 17; n++) {
      const key = rng.bytes(kl);
      const pt = rng.bytes(16 * n);
      const got = ecb(key, pt);
      for (let b = 0; b < n; b++) {
        assert.equal(hex(got.subarray(16 * b, 16 * b + 16)), hex(aesEncryptBlockRef(key, pt.subarray(16 * b, 16 * b + 16))), `key ${kl}, ${n} blocks, block ${b}`);
        blocks++;
      }
    }
  }
  // special keys: all-zero and all-ones
  for (const key of [new Uint8Array(32), new Uint8Array(32).fill(0xff), new Uint8Array(16).fill(0xff)]) {
    const pt = rng.bytes(48);
    const got = ecb(key, pt);
    for (let b = 0; b < 3; b++) assert.equal(hex(got.subarray(16 * b, 16 * b + 16)), hex(aesEncryptBlockRef(key, pt.subarray(16 * b, 16 * b + 16))));
  }
  console.log(`# aes kernel: ${blocks} random blocks equal the reference`);
});

test('AES key expansion wipes its scratch and the raw key', () => {
  const k = aesKernel();
  const slot = k.allocSlot();
  expandAesKey(k, slot + AES_SLOT.rk, new Uint8Array(32).fill(0x77));
  assert.ok(
    k.u8.subarray(AES_IO.keys, AES_IO.keys + 32).every((b) => b === 0),
    'raw key left in the IO area',
  );
  assert.ok(
    k.u8.subarray(AES_IO.tmp, AES_IO.tmp + 240).every((b) => b === 0),
    'byte-wise key schedule left in the IO area',
  );
  k.freeSlot(slot);
});

test('AES-GCM: the GCM specification test cases 1-18', () => {
  const { total, failures } = suite('gcm', ['kat']);
  assert.equal(total, 18);
  assert.deepEqual(failures, []);
});

test('AES-GCM: every case of Wycheproof aes_gcm_test.json, result honoured', () => {
  const all = cases('gcm', 'wycheproof');
  const { total, failures } = suite('gcm', ['wycheproof']);
  assert.equal(total, 316);
  assert.deepEqual(failures, []);
  const valid = all.filter((c) => c.valid).length;
  console.log(`# wycheproof aes_gcm_test.json: ${total} cases (${valid} valid, ${total - valid} invalid), 0 failures`);
});

test(`AES-GCM: ${DIFF_GCM_CASES}+ differential cases against OpenSSL (node:crypto)`, () => {
  const all = cases('gcm', 'differential');
  assert.ok(all.length >= DIFF_GCM_CASES, `only ${all.length} cases`);
  // coverage of the classes the issue names
  for (const kl of [16, 24, 32])
    assert.ok(
      all.some((c) => c.key.length === kl),
      `key ${kl}`,
    );
  for (const nl of GCM_NONCE_LENGTHS)
    assert.ok(
      all.some((c) => c.nonce.length === nl),
      `nonce ${nl}`,
    );
  for (const tl of GCM_TAG_LENGTHS)
    assert.ok(
      all.some((c) => c.tagLength === tl),
      `tag ${tl}`,
    );
  for (let r = 0; r < 16; r++) {
    assert.ok(
      all.some((c) => c.pt.length % 16 === r && c.pt.length > 16),
      `plaintext remainder ${r}`,
    );
    assert.ok(
      all.some((c) => c.aad.length % 16 === r && c.aad.length > 16),
      `aad remainder ${r}`,
    );
  }
  for (const n of [127, 128, 129, 255, 256, 257, 1023, 1024, 1025])
    assert.ok(
      all.some((c) => c.pt.length === n),
      `plaintext ${n}`,
    );
  assert.ok(LENGTHS.includes(0) && LENGTHS.includes(1100));
  const { total, failures } = suite('gcm', ['differential']);
  assert.equal(total, all.length, 'every case ran');
  assert.deepEqual(failures.slice(0, 5), [], `${failures.length} of ${total} failed`);
  console.log(`# aes-gcm differential vs node:crypto: ${total} cases, 0 failures`);
});

test('AES-GCM tampering: every flipped bit of tag, ciphertext, nonce and AAD is rejected, output wiped', () => {
  const rng = new Rng(0x3c6ef372);
  for (const [kl, nl, tl] of [
    [16, 12, 16],
    [32, 12, 12],
    [24, 7, 8],
    [16, 16, 4],
  ] as const) {
    const key = rng.bytes(kl),
      nonce = rng.bytes(nl),
      pt = rng.bytes(21),
      aad = rng.bytes(13);
    const a = aesGcm(key, { tagLength: tl });
    assertTamperingRejected(a, nonce, pt, aad);
    a.dispose();
  }
});

const broken: [string, AesGcmFlags][] = [
  ['a wrong round constant in the key schedule', { wrongRcon: true }],
  ['a counter that carries into the nonce', { counterCarry: true }],
  ['the length block with len(A) and len(C) swapped', { swapLengths: true }],
];

// on the backend under test (CTKIT_BACKEND)
const B = testBackend();
for (const [what, flags] of broken) {
  test(`negative control (${B}): ${what} fails the AES-GCM suite`, async () => {
    const name = `aes-broken-${Object.keys(flags)[0]}`;
    const kernel = B === 'simd' ? aesKernelFrom(name, await compileKernel(generateAesGcm(flags))) : await kernelFor<AesExports>(B, name, () => generateAesGcm(flags), AES_SLOT.size);
    const { failures } = suite('gcm', ['kat', 'wycheproof', 'differential'], kernel, 1);
    assert.ok(failures.length > 0, `broken kernel (${what}) passed the whole suite`);
    console.log(`# caught: ${failures[0].slice(0, 120)}`);
  });
}

test('AES-GCM API: lengths, types, tag lengths, state', () => {
  for (const n of [0, 15, 17, 20, 31, 33]) {
    assert.throws(
      () => aesGcm(new Uint8Array(n)),
      (e: unknown) => e instanceof RangeError && /^key must be 16, 24 or 32 bytes long, got/.test(e.message),
    );
  }
  assert.throws(() => aesGcm('k' as unknown as Uint8Array), TypeError);
  for (const t of [0, 1, 3, 5, 9, 11, 17, 32, 12.5]) {
    assert.throws(
      () => aesGcm(new Uint8Array(16), { tagLength: t }),
      (e: unknown) => e instanceof RangeError && /tagLength must be 4, 8, 12, 13, 14, 15 or 16/.test(e.message),
    );
  }
  const a = aesGcm(new Uint8Array(16));
  assert.equal(a.tagLength, 16);
  assert.equal(a.keyLength, 16);
  assert.throws(
    () => a.seal(new Uint8Array(0), new Uint8Array(1)),
    (e: unknown) => e instanceof RangeError && /nonce must be at least 1 byte/.test(e.message),
  );
  assert.throws(() => a.open(new Uint8Array(0), new Uint8Array(16)), RangeError);
  assert.throws(() => a.seal(new Uint8Array(12), [1] as unknown as Uint8Array), TypeError);
  assert.throws(() => a.seal(new Uint8Array(12), new Uint8Array(1), 'x' as unknown as Uint8Array), TypeError);
  assert.throws(
    () => a.seal(new Uint8Array(12), new Uint8Array(4), undefined, new Uint8Array(19)),
    (e: unknown) => e instanceof RangeError && /output must be at least 20 bytes/.test(e.message),
  );
  // the plaintext limit of SP 800-38D, without allocating 64 GiB
  class Huge extends Uint8Array {
    override get length(): number {
      return 2 ** 36 - 31;
    }
  }
  assert.throws(
    () => a.seal(new Uint8Array(12), new Huge(1)),
    (e: unknown) => e instanceof RangeError && /plaintext must be at most 2\^36 - 32 bytes/.test(e.message),
  );
  a.dispose();
  a.dispose();
  assert.throws(() => a.seal(new Uint8Array(12), new Uint8Array(1)), StateError);
  assert.throws(() => a.open(new Uint8Array(12), new Uint8Array(16)), StateError);
});

test('AES-GCM in place, views at offsets, a reused key object', () => {
  const rng = new Rng(0xa54ff53a);
  const key = rng.bytes(32),
    nonce = rng.bytes(12),
    aad = rng.bytes(13);
  const a = aesGcm(key);
  checkInPlace(a, rng, nonce, aad, [0, 1, 16, 239, 1400, 70000]);
  a.dispose();
});

test('AES-GCM: slots and scratch are wiped; memory stays bounded for large inputs', () => {
  const k = aesKernel();
  const before = k.slotsInUse;
  const a = new AesGcm(new Uint8Array(16).fill(9));
  assert.equal(k.slotsInUse, before + 1);
  // larger than the memory bound below (smaller on the scalar backends: CI time)
  const big = new Uint8Array(B === 'simd' ? 8 << 20 : 5 << 18).fill(3);
  const sealed = a.seal(new Uint8Array(12), big);
  assert.equal(a.open(new Uint8Array(12), sealed).length, big.length);
  assert.ok(k.u8.buffer.byteLength <= 1 << 20, `memory grew to ${k.u8.buffer.byteLength}`);
  assert.ok(
    k.u8.subarray(0, 4096 + 65536).every((b) => b === 0),
    'IO area or scratch not wiped',
  );
  a.dispose();
  assert.equal(k.slotsInUse, before);
  const slot = k.allocSlot();
  assert.ok(
    k.u8.subarray(slot, slot + AES_SLOT.size).every((b) => b === 0),
    'slot not wiped',
  );
  k.freeSlot(slot);
});

// SM4 and SM4-GCM: the kernel against GB/T 32907-2016 (one block, and the 1,000,000-fold
// iteration run inside WebAssembly), SM4 ECB and CTR against OpenSSL (node:crypto), SM4-GCM
// through the keyed object against RFC 8998, every Wycheproof case and the reference built from
// src/ref/; tampering; deliberately broken kernels that the suites must reject; API errors,
// in-place use, wiping and bounded memory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import wabtInit from 'wabt';
import { Sm4, Sm4Gcm, sm4Gcm, sm4Kernel, sm4KernelFrom } from '../src/aead/sm4-gcm.js';
import { sm4Gcm as sm4GcmFromIndex } from '../src/index.js';
import { AuthenticationError, StateError } from '../src/errors.js';
import { compileKernel } from '../src/kernels/build.js';
import { type Sm4GcmFlags, generateSm4Gcm } from '../src/kernels/sm4_gcm.js';
import { SM4_RK, SM4_SLOT } from '../src/kernels/sm4_layout.js';
import * as sm4Module from '../src/engine/wasm/sm4.js';
import { SCRATCH_PTR } from '../src/engine/kernel.js';
import { SM4_SBOX, sm4DecryptBlockRef, sm4EncryptBlockRef, sm4ExpandKeyRef, sm4GcmOpenRef, sm4GcmSealRef } from '../src/ref/sm4.js';
import { CTR_CASES, DIFF_GCM_CASES, ECB_CASES, GBT_EXAMPLE, GCM_NONCE_LENGTHS, GCM_TAG_LENGTHS, RFC8998_GCM, cipherSuite, cipherSuiteCases, gcmCases, gcmSuite } from './support/sm4-suite.js';
import { LENGTHS, checkInPlace } from './support/aes-suite.js';
import { Rng, hex, unhex } from './support/rng.js';
import { assertTamperingRejected } from './support/tamper.js';
import { kernelFor, testBackend } from './support/backends.js';
import type { Sm4Exports } from '../src/engine/wasm/sm4.contract.js';

test('the generator without flags reproduces the shipped binary', async () => {
  assert.deepEqual(await compileKernel(generateSm4Gcm()), sm4Module.bytes());
});

test('reference SM4: GB/T 32907-2016 example 1, its round keys, decryption', () => {
  const key = unhex(GBT_EXAMPLE.key);
  assert.equal(hex(sm4EncryptBlockRef(key, unhex(GBT_EXAMPLE.pt))), GBT_EXAMPLE.ct);
  assert.equal(hex(sm4DecryptBlockRef(key, unhex(GBT_EXAMPLE.ct))), GBT_EXAMPLE.pt);
  // the standard's worked example lists the round keys
  const rk = sm4ExpandKeyRef(key).map((w) => w.toString(16).padStart(8, '0'));
  assert.deepEqual(rk.slice(0, 8), ['f12186f9', '41662b61', '5a6ab19a', '7ba92077', '367360f4', '776a0c61', 'b6bb89b3', '24763151']);
  assert.equal(rk[31], '9124a012');
});

test('the S-box table is A·inv(A·x ⊕ 0xD3) ⊕ 0xD3 in GF(2^8)/(x^8+x^7+x^6+x^5+x^4+x^2+1) (what the kernel computes)', () => {
  const mul = (a: number, b: number) => {
    let r = 0;
    for (let i = 0; i < 8; i++) {
      if (b & 1) r ^= a;
      b >>= 1;
      a <<= 1;
      if (a & 0x100) a ^= 0x1f5;
    }
    return r;
  };
  const inv = (x: number) => (x === 0 ? 0 : [...Array(256).keys()].find((b) => mul(x, b) === 1)!);
  const parity = (v: number) => [...Array(8).keys()].reduce((p, i) => p ^ ((v >> i) & 1), 0);
  const A = (x: number) => [...Array(8).keys()].reduce((o, i) => o | (parity(((0xa7 << i) | (0xa7 >> (8 - i))) & 0xff & x) << i), 0);
  for (let x = 0; x < 256; x++) assert.equal(A(inv(A(x) ^ 0xd3)) ^ 0xd3, SM4_SBOX[x], `S(${x})`);
});

test('SM4 kernel: GB/T 32907-2016 example 1, and example 2 (1,000,000 encryptions; on js 1,000 against the reference) iterated from WebAssembly', async () => {
  const s = new Sm4(unhex(GBT_EXAMPLE.key));
  assert.equal(hex(s.encrypt(unhex(GBT_EXAMPLE.pt))), GBT_EXAMPLE.ct);
  assert.equal(hex(s.decrypt(unhex(GBT_EXAMPLE.ct))), GBT_EXAMPLE.pt);
  s.dispose();
  // A driver module imports the shipped kernel's sm4_ecb and calls it a million times on one
  // block in place: the loop runs in WebAssembly, the block never leaves the kernel's memory.
  const wabt = await wabtInit();
  const mod = wabt.parseWat(
    'iterate.wat',
    `(module
    (import "sm4" "ecb" (func $ecb (param i32 i32 i32 i32)))
    (func (export "iterate") (param $rk i32) (param $buf i32) (param $count i32)
      (loop $l
        (call $ecb (local.get $rk) (local.get $buf) (local.get $buf) (i32.const 1))
        (local.set $count (i32.sub (local.get $count) (i32.const 1)))
        (br_if $l (local.get $count)))))`,
  );
  const driverBytes = new Uint8Array(mod.toBinary({}).buffer);
  mod.destroy();
  const k = sm4Kernel();
  const slot = k.allocSlot();
  const rk = slot + SM4_SLOT.rk;
  try {
    k.u8.set(unhex(GBT_EXAMPLE.key), rk + SM4_RK.key);
    k.exports.sm4_expand(rk);
    const driver = new WebAssembly.Instance(new WebAssembly.Module(driverBytes as BufferSource), { sm4: { ecb: k.exports.sm4_ecb } });
    k.u8.set(unhex(GBT_EXAMPLE.pt), SCRATCH_PTR);
    // the js backend (a JavaScript function called from the driver) iterates 1,000 times against
    // the reference iterated as often: a million calls there would take minutes
    const count = B === 'js' ? 1000 : 1_000_000;
    let expected = GBT_EXAMPLE.ct1e6;
    if (count !== 1_000_000) {
      let x = unhex(GBT_EXAMPLE.pt);
      for (let i = 0; i < count; i++) x = sm4EncryptBlockRef(unhex(GBT_EXAMPLE.key), x);
      expected = hex(x);
    }
    const t0 = performance.now();
    (driver.exports as { iterate(rk: number, buf: number, count: number): void }).iterate(rk, SCRATCH_PTR, count);
    const ms = performance.now() - t0;
    assert.equal(hex(k.u8.slice(SCRATCH_PTR, SCRATCH_PTR + 16)), expected);
    console.log(`# ${count} SM4 encryptions in the kernel (${B}): ${ms.toFixed(0)} ms`);
  } finally {
    k.wipe(SCRATCH_PTR, 16);
    k.freeSlot(slot);
  }
});

test('SM4 key expansion zeroes the raw key it read', () => {
  const k = sm4Kernel();
  const slot = k.allocSlot();
  const rk = slot + SM4_SLOT.rk;
  k.u8.set(new Uint8Array(16).fill(0x77), rk + SM4_RK.key);
  k.exports.sm4_expand(rk);
  assert.ok(
    k.u8.subarray(rk + SM4_RK.key, rk + SM4_RK.key + 16).every((b) => b === 0),
    'raw key left in the slot',
  );
  k.freeSlot(slot);
});

test(`SM4 ECB (${ECB_CASES}+ cases, both directions) and CTR (${CTR_CASES}+ cases) against OpenSSL sm4-ecb / sm4-ctr`, () => {
  const all = cipherSuiteCases();
  const ecb = all.filter((c) => c.mode === 'ecb'),
    ctr = all.filter((c) => c.mode === 'ctr');
  assert.ok(ecb.length >= ECB_CASES && ctr.length >= CTR_CASES, `only ${ecb.length} ECB and ${ctr.length} CTR cases`);
  // every pass size of the kernel and the main loop, every tail remainder, counter wraps
  for (let n = 1; n <= 17; n++)
    assert.ok(
      ecb.some((c) => c.data.length === 16 * n),
      `ecb ${n} blocks`,
    );
  for (let r = 0; r < 16; r++)
    assert.ok(
      ctr.some((c) => c.data.length % 16 === r && c.data.length > 256),
      `ctr remainder ${r}`,
    );
  assert.ok(
    ctr.some((c) => c.iv!.every((b) => b === 0xff) && c.data.length > 16),
    'a 128-bit counter wrap',
  );
  assert.ok(
    ctr.some((c) => c.data.length > 65536),
    'across the scratch window',
  );
  const { total, failures } = cipherSuite();
  assert.equal(total, all.length, 'every case ran');
  assert.deepEqual(failures.slice(0, 5), [], `${failures.length} of ${total} failed`);
  console.log(`# sm4 vs node:crypto: ${ecb.length} ECB cases (encrypt and decrypt), ${ctr.length} CTR cases, 0 failures`);
});

test('SM4-GCM: RFC 8998 Appendix A.1 (and the reference agrees)', () => {
  const v = RFC8998_GCM;
  const r = sm4GcmSealRef(unhex(v.key), unhex(v.nonce), unhex(v.pt), unhex(v.aad));
  assert.equal(hex(r.ciphertext), v.ct);
  assert.equal(hex(r.tag), v.tag);
  assert.equal(hex(sm4GcmOpenRef(unhex(v.key), unhex(v.nonce), unhex(v.ct + v.tag).subarray(0, 64), unhex(v.aad), unhex(v.tag))!), v.pt);
  const { total, failures } = gcmSuite(['kat']);
  assert.equal(total, 1);
  assert.deepEqual(failures, []);
});

test('SM4-GCM: every case of Wycheproof sm4_gcm_test.json, result honoured', () => {
  const all = gcmCases('wycheproof');
  const { total, failures } = gcmSuite(['wycheproof']);
  assert.equal(total, 104);
  assert.deepEqual(failures, []);
  const valid = all.filter((c) => c.valid).length;
  console.log(`# wycheproof sm4_gcm_test.json: ${total} cases (${valid} valid, ${total - valid} invalid), 0 failures`);
});

test(`SM4-GCM: ${DIFF_GCM_CASES}+ differential cases against the reference built from src/ref`, () => {
  const all = gcmCases('differential');
  assert.ok(all.length >= DIFF_GCM_CASES, `only ${all.length} cases`);
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
  for (const n of [0, 1, 15, 16, 17, 255, 256, 257, 1023, 1024, 1025, 1100])
    assert.ok(
      all.some((c) => c.pt.length === n),
      `plaintext ${n}`,
    );
  assert.ok(LENGTHS.length > 100);
  const { total, failures } = gcmSuite(['differential']);
  assert.equal(total, all.length, 'every case ran');
  assert.deepEqual(failures.slice(0, 5), [], `${failures.length} of ${total} failed`);
  console.log(`# sm4-gcm differential vs src/ref: ${total} cases, 0 failures`);
});

test('SM4-GCM tampering: every flipped bit of tag, ciphertext, nonce and AAD is rejected, output wiped', () => {
  const rng = new Rng(0x6a09e667);
  for (const [nl, tl, n] of [
    [12, 16, 21],
    [12, 12, 40],
    [7, 8, 3],
    [16, 4, 0],
  ] as const) {
    const key = rng.bytes(16),
      nonce = rng.bytes(nl),
      pt = rng.bytes(n),
      aad = rng.bytes(13);
    const a = sm4Gcm(key, { tagLength: tl });
    assertTamperingRejected(a, nonce, pt, aad);
    a.dispose();
  }
});

const broken: [string, Sm4GcmFlags][] = [
  ['a wrong constant (CK_5) in the key schedule', { wrongCk: true }],
  ['a rotation off by one in the linear layer (<<< 3 for <<< 2)', { rotOffByOne: true }],
  ["the last round's reversal skipped", { skipReversal: true }],
];

// on the backend under test (CTKIT_BACKEND)
const B = testBackend();
for (const [what, flags] of broken) {
  test(`negative control (${B}): ${what} fails the SM4 and SM4-GCM suites`, async () => {
    const name = `sm4-broken-${Object.keys(flags)[0]}`;
    const kernel = B === 'simd' ? sm4KernelFrom(name, await compileKernel(generateSm4Gcm(flags))) : await kernelFor<Sm4Exports>(B, name, () => generateSm4Gcm(flags), SM4_SLOT.size);
    const cipher = cipherSuite(kernel, 1);
    assert.ok(cipher.failures.length > 0, `broken kernel (${what}) passed the ECB/CTR suite`);
    const gcm = gcmSuite(['kat', 'wycheproof', 'differential'], kernel, 1);
    assert.ok(gcm.failures.length > 0, `broken kernel (${what}) passed the SM4-GCM suite`);
    console.log(`# caught: ${cipher.failures[0].slice(0, 100)} | ${gcm.failures[0].slice(0, 100)}`);
  });
}

test('SM4-GCM API: lengths, types, tag lengths, state; exported from ctkit', () => {
  assert.equal(sm4GcmFromIndex, sm4Gcm);
  for (const n of [0, 15, 17, 24, 32]) {
    assert.throws(
      () => sm4Gcm(new Uint8Array(n)),
      (e: unknown) => e instanceof RangeError && /^key must be 16 bytes long, got/.test(e.message),
    );
  }
  assert.throws(() => sm4Gcm('k' as unknown as Uint8Array), TypeError);
  for (const t of [0, 1, 3, 5, 9, 11, 17, 32, 12.5]) {
    assert.throws(
      () => sm4Gcm(new Uint8Array(16), { tagLength: t }),
      (e: unknown) => e instanceof RangeError && /tagLength must be 4, 8, 12, 13, 14, 15 or 16/.test(e.message),
    );
  }
  const a = sm4Gcm(new Uint8Array(16), { tagLength: 12 });
  assert.equal(a.tagLength, 12);
  assert.equal(a.keyLength, 16);
  assert.equal(a.nonceLength, 12);
  assert.throws(
    () => a.seal(new Uint8Array(0), new Uint8Array(1)),
    (e: unknown) => e instanceof RangeError && /nonce must be at least 1 byte/.test(e.message),
  );
  assert.throws(() => a.open(new Uint8Array(0), new Uint8Array(16)), RangeError);
  assert.throws(() => a.seal(new Uint8Array(12), [1] as unknown as Uint8Array), TypeError);
  assert.throws(() => a.seal(new Uint8Array(12), new Uint8Array(1), 'x' as unknown as Uint8Array), TypeError);
  assert.throws(
    () => a.seal(new Uint8Array(12), new Uint8Array(4), undefined, new Uint8Array(15)),
    (e: unknown) => e instanceof RangeError && /output must be at least 16 bytes/.test(e.message),
  );
  assert.throws(() => a.open(new Uint8Array(12), new Uint8Array(11)), AuthenticationError);
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
  // the raw cipher
  const s = new Sm4(new Uint8Array(16));
  assert.throws(() => s.encrypt(new Uint8Array(15)), RangeError);
  assert.throws(() => s.ctr(new Uint8Array(12), new Uint8Array(1)), RangeError);
  s.dispose();
  assert.throws(() => s.encrypt(new Uint8Array(16)), StateError);
});

test('SM4-GCM in place, views at offsets, a reused key object', () => {
  const rng = new Rng(0xbb67ae85);
  const key = rng.bytes(16),
    nonce = rng.bytes(12),
    aad = rng.bytes(13);
  const a = sm4Gcm(key);
  checkInPlace(a, rng, nonce, aad, [0, 1, 16, 239, 1400, 70000]);
  a.dispose();
});

test('SM4-GCM: slots and scratch are wiped; memory stays bounded for large inputs', () => {
  const k = sm4Kernel();
  const before = k.slotsInUse;
  const a = new Sm4Gcm(new Uint8Array(16).fill(9));
  assert.equal(k.slotsInUse, before + 1);
  // larger than the memory bound below (smaller on the scalar backends: CI time)
  const big = new Uint8Array(B === 'simd' ? 8 << 20 : 5 << 18).fill(3);
  const sealed = a.seal(new Uint8Array(12), big);
  assert.equal(a.open(new Uint8Array(12), sealed).length, big.length);
  const s = new Sm4(new Uint8Array(16).fill(5));
  s.ctr(new Uint8Array(16), big.subarray(0, 100001));
  s.encrypt(big.subarray(0, 100000 - (100000 % 16)));
  s.dispose();
  assert.ok(k.u8.buffer.byteLength <= 1 << 20, `memory grew to ${k.u8.buffer.byteLength}`);
  assert.ok(
    k.u8.subarray(0, 4096 + 65536).every((b) => b === 0),
    'IO area or scratch not wiped',
  );
  a.dispose();
  assert.equal(k.slotsInUse, before);
  const slot = k.allocSlot();
  assert.ok(
    k.u8.subarray(slot, slot + SM4_SLOT.size).every((b) => b === 0),
    'slot not wiped',
  );
  k.freeSlot(slot);
});

// SHA-224/256/384/512 and HMAC: FIPS 180-4 known answers, every length 0..300 and long messages
// against OpenSSL (node:crypto), splits at every offset of a block, RFC 4231, Wycheproof when
// present, the FIPS reference model, deliberately broken kernels that the suite must reject,
// the constant-time check, typed errors and wiping.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { sha224, sha256, sha384, sha512, hmac, Hmac, Sha2, type Hash } from '../src/hash/index.js';
import * as root from '../src/index.js';
import { SLOT_SIZE, sha2Family, sha2KernelFrom, type Sha2Exports } from '../src/hash/sha2.js';
import { kernelFor, testBackend } from './support/backends.js';
import { SHA2_IO_GLUE_END, SHA2_K256_PTR, SHA2_WORK_PTR, generateSha2, type Sha2Flags } from '../src/kernels/sha2_vsched.js';
import { compileKernel } from '../src/kernels/build.js';
import { getKernel, IO_PTR, SCRATCH_PTR, SCRATCH_SIZE } from '../src/engine/kernel.js';
import * as sha2Module from '../src/engine/wasm/sha2.js';
import { checkModule, formatViolation } from '../src/ct/check.js';
import { H224, H256, H384, H512, K256, K512, hmacRef, refHashes } from '../src/ref/sha2.js';
import { BLOCK, NAMES, keyLengths, suite, type HashName } from './support/sha2-suite.js';
import { Rng, hex, unhex } from './support/rng.js';

const shipped = { sha224, sha256, sha384, sha512 };
const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);

test('differential suite: FIPS 180-4 examples, every length 0..300, HMAC keys, splits, long messages — all equal OpenSSL', () => {
  const { total, failures, counts } = suite(shipped);
  assert.deepEqual(failures.slice(0, 5), [], `${failures.length} of ${total} cases failed`);
  assert.ok(counts.length >= 4 * 301 * 2 && counts.hmac >= 4 * 6 * 301 * 2, JSON.stringify(counts));
  // the other groups the name claims ran too (FIPS 180-4 examples incl. a × 10^6, splits, long messages)
  assert.ok(counts['fips-kat'] >= 16 && counts.split >= 2000 && counts.long >= 7 * 4 * 5, JSON.stringify(counts));
  console.log(
    `# sha2 differential: ${total} cases, 0 failures (${Object.entries(counts)
      .map(([g, n]) => `${g} ${n}`)
      .join(', ')})`,
  );
});

// RFC 4231 section 4: HMAC-SHA-224/256/384/512 test cases 1-7 (case 5 truncated to 128 bits).
const aa131 = 'aa'.repeat(131);
const RFC4231: { key: string; data: string; tags: [string, string, string, string]; truncate?: number }[] = [
  {
    key: '0b'.repeat(20),
    data: hex(ascii('Hi There')),
    tags: [
      '896fb1128abbdf196832107cd49df33f47b4b1169912ba4f53684b22',
      'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
      'afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59cfaea9ea9076ede7f4af152e8b2fa9cb6',
      '87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854',
    ],
  },
  {
    key: hex(ascii('Jefe')),
    data: hex(ascii('what do ya want for nothing?')),
    tags: [
      'a30e01098bc6dbbf45690f3a7e9e6d0f8bbea2a39e6148008fd05e44',
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
      'af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649',
      '164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737',
    ],
  },
  {
    key: 'aa'.repeat(20),
    data: 'dd'.repeat(50),
    tags: [
      '7fb3cb3588c6c1f6ffa9694d7d6ad2649365b0c1f65d69d1ec8333ea',
      '773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe',
      '88062608d3e6ad8a0aa2ace014c8a86f0aa635d947ac9febe83ef4e55966144b2a5ab39dc13814b94e3ab6e101a34f27',
      'fa73b0089d56a284efb0f0756c890be9b1b5dbdd8ee81a3655f83e33b2279d39bf3e848279a722c806b485a47e67c807b946a337bee8942674278859e13292fb',
    ],
  },
  {
    key: '0102030405060708090a0b0c0d0e0f10111213141516171819',
    data: 'cd'.repeat(50),
    tags: [
      '6c11506874013cac6a2abc1bb382627cec6a90d86efc012de7afec5a',
      '82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b',
      '3e8a69b7783c25851933ab6290af6ca77a9981480850009cc5577c6e1f573b4e6801dd23c4a7d679ccf8a386c674cffb',
      'b0ba465637458c6990e5a8c5f61d4af7e576d97ff94b872de76f8050361ee3dba91ca5c11aa25eb4d679275cc5788063a5f19741120c4f2de2adebeb10a298dd',
    ],
  },
  {
    key: '0c'.repeat(20),
    data: hex(ascii('Test With Truncation')),
    truncate: 16,
    tags: ['0e2aea68a90c8d37c988bcdb9fca6fa8', 'a3b6167473100ee06e0c796c2955552b', '3abf34c3503b2a23a46efc619baef897', '415fad6271580a531d4179bc891d87a6'],
  },
  {
    key: aa131,
    data: hex(ascii('Test Using Larger Than Block-Size Key - Hash Key First')),
    tags: [
      '95e9a0db962095adaebe9b2d6f0dbce2d499f112f2d2b7273fa6870e',
      '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
      '4ece084485813e9088d2c63a041bc5b44f9ef1012a2b588f3cd11f05033ac4c60c2ef6ab4030fe8296248df163f44952',
      '80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f3526b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598',
    ],
  },
  {
    key: aa131,
    data: hex(ascii('This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.')),
    tags: [
      '3a854166ac5d9f023f54d517d0b39dbd946770db9c2b95c9f6f565d1',
      '9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2',
      '6617178e941f020d351e2f254e8fd32c602420feb0b8fb9adccebb82461e99c5a678cc31e799176d3860e6110c46523e',
      'e37b6a775dc87dbaa4dfa9f96e5e3ffddebd71f8867289865df5a32d20cdc944b6022cac3c4982b10d5eeb55c3e4de15134676fb6de0446065c97440fa8c6a58',
    ],
  },
];

test('RFC 4231 test cases 1-7, one-shot and incremental', () => {
  let n = 0;
  RFC4231.forEach((tc, i) => {
    const key = unhex(tc.key);
    const data = unhex(tc.data);
    NAMES.forEach((name, j) => {
      const cut = (t: Uint8Array) => hex(t.subarray(0, tc.truncate ?? t.length));
      assert.equal(cut(hmac(shipped[name], key, data)), tc.tags[j], `case ${i + 1} hmac-${name}`);
      assert.equal(cut(hmac.create(shipped[name], key).update(data.subarray(0, 5)).update(data.subarray(5)).digest()), tc.tags[j]);
      n += 2;
    });
  });
  assert.equal(n, 7 * NAMES.length * 2, 'all seven RFC 4231 cases, every hash, one-shot and incremental');
  console.log(`# RFC 4231: ${n} tags`);
});

test('reference model: constants computed from their definition; agrees with OpenSSL and the kernel', () => {
  // FIPS 180-4 4.2.2 / 4.2.3 / 5.3: first and last entries as printed in the standard
  assert.deepEqual([K256[0], K256[63]], [0x428a2f98, 0xc67178f2]);
  assert.deepEqual([K512[0], K512[79]], [0x428a2f98d728ae22n, 0x6c44198c4a475817n]);
  assert.deepEqual([H224[0], H256[0], H384[7], H512[7]], [0xc1059ed8, 0x6a09e667, 0x47b5481dbefa4fa4n, 0x5be0cd19137e2179n]);
  const rng = new Rng(0x1f83d9ab);
  let n = 0;
  for (const name of NAMES) {
    const B = BLOCK[name];
    // every length class around one and two blocks (the BigInt model is slow: not all 0..300)
    for (const len of [0, 1, 3, B - 9, B - 8, B - 1, B, B + 1, 2 * B - 9, 2 * B - 8, 2 * B, 2 * B + 7, 300]) {
      const m = rng.bytes(len);
      const want = createHash(name).update(m).digest('hex');
      assert.equal(hex(refHashes[name](m)), want, `ref ${name} len=${len}`);
      assert.equal(hex(shipped[name](m)), want);
      n++;
    }
    for (const kl of keyLengths(B)) {
      const key = rng.bytes(kl);
      const m = rng.bytes(kl + 3);
      const want = createHmac(name, key).update(m).digest('hex');
      assert.equal(hex(hmacRef(refHashes[name], key, m)), want, `ref hmac-${name} key=${kl}`);
      assert.equal(hex(hmac(shipped[name], key, m)), want);
      n++;
    }
  }
  console.log(`# reference model: ${n} cases`);
});

// Each flag breaks both families; the suite must catch each in SHA-256 and in SHA-512.
const broken: [string, Sha2Flags][] = [
  ['a wrong round constant (K_20, one bit)', { wrongConstant: true }],
  ['a rotation off by one (Σ1)', { rotationOff: true }],
  ['the length field of the padding one byte early', { lengthSlip: true }],
  ['the message schedule reading W_t-6 for W_t-7', { scheduleSlip: true }],
];

// on the backend under test (CTKIT_BACKEND)
const B = testBackend();
for (const [what, flags] of broken) {
  test(`negative control (${B}): ${what} fails the suite for SHA-256 and for SHA-512`, async () => {
    const name = `sha2-broken-${Object.keys(flags)[0]}`;
    const kernel = B === 'simd' ? sha2KernelFrom(name, await compileKernel(generateSha2(flags))) : await kernelFor<Sha2Exports>(B, name, () => generateSha2(flags), SLOT_SIZE);
    const family = sha2Family(() => kernel);
    for (const names of [['sha256'], ['sha512']] as HashName[][]) {
      const { failures } = suite(family, { names, maxFailures: 1, long: false });
      assert.ok(failures.length > 0, `broken kernel (${what}) passed the whole ${names[0]} suite`);
    }
    // HMAC over the broken hash is caught too (it runs on the same kernel)
    const key = new Uint8Array(20).fill(0x0b);
    assert.notEqual(hex(hmac(family.sha256, key, ascii('Hi There'))), RFC4231[0].tags[1]);
  });
}

test('the generator reproduces the shipped binary; the variants kept for measurement agree', async () => {
  assert.deepEqual(await compileKernel(generateSha2()), sha2Module.bytes());
  for (const options of [{ schedule: 'scalar', sigma: 'nested' }, { rolled: false }] as const) {
    const kernel = sha2KernelFrom(`sha2-${JSON.stringify(options)}`, await compileKernel(generateSha2({}, options)));
    const { failures } = suite(
      sha2Family(() => kernel),
      { long: false, maxFailures: 3 },
    );
    assert.deepEqual(failures, [], JSON.stringify(options));
  }
});

test('constant time: the checker passes sha2 with message, key and state secret (only pointers, lengths, variant public)', () => {
  const r = checkModule('sha2', sha2Module.bytes());
  assert.deepEqual(r.violations.map(formatViolation), []);
  assert.equal(r.functions, 7);
  assert.deepEqual(r.exempt, []);
  // every parameter is a pointer, a count, a length or the variant; no key or state passes by value
  assert.deepEqual(generateSha2().publicParams, {
    sha2_init: [0, 1],
    sha256_blocks: [0, 1, 2],
    sha512_blocks: [0, 1, 2],
    sha256_last: [0, 1, 2, 3, 4],
    sha512_last: [0, 1, 2, 3, 4],
    sha2_hmac_init: [0, 1, 2, 3],
    sha2_hmac: [0, 1, 2, 3, 4],
  });
});

test('API: lengths and names on hashes and instances, root exports, hmac of a foreign hash is a TypeError', () => {
  const expect: [Hash, string, number, number][] = [
    [sha224, 'SHA-224', 64, 28],
    [sha256, 'SHA-256', 64, 32],
    [sha384, 'SHA-384', 128, 48],
    [sha512, 'SHA-512', 128, 64],
  ];
  for (const [h, algorithm, blockLen, outputLen] of expect) {
    assert.deepEqual([h.algorithm, h.blockLen, h.outputLen], [algorithm, blockLen, outputLen]);
    const c = h.create();
    assert.ok(c instanceof Sha2);
    assert.deepEqual([c.algorithm, c.blockLen, c.outputLen], [algorithm, blockLen, outputLen]);
    assert.equal(c.digest().length, outputLen);
    const m = hmac.create(h, new Uint8Array(3));
    assert.ok(m instanceof Hmac);
    assert.deepEqual([m.algorithm, m.blockLen, m.outputLen], [algorithm, blockLen, outputLen]);
    m.dispose();
  }
  assert.equal(root.sha256, sha256);
  assert.equal(root.hmac, hmac);
  const foreign = Object.assign((m: Uint8Array) => createHash('sha256').update(m).digest(), { create: () => null, blockLen: 64, outputLen: 32 });
  assert.throws(
    () => hmac(foreign as unknown as Hash, new Uint8Array(1), new Uint8Array(1)),
    (e: unknown) => e instanceof TypeError && /hash must be one of ctkit/.test(e.message),
  );
  assert.throws(() => hmac.create('sha256' as unknown as Hash, new Uint8Array(1)), TypeError);
});

test('typed errors: wrong types, use after digest or dispose', () => {
  assert.throws(
    () => sha256('abc' as unknown as Uint8Array),
    (e: unknown) => e instanceof TypeError && /msg must be a Uint8Array/.test(e.message),
  );
  assert.throws(
    () => sha512.create().update([1, 2] as unknown as Uint8Array),
    (e: unknown) => e instanceof TypeError && /data must be a Uint8Array/.test(e.message),
  );
  assert.throws(
    () => hmac(sha256, 'key' as unknown as Uint8Array, new Uint8Array(0)),
    (e: unknown) => e instanceof TypeError && /key must be a Uint8Array/.test(e.message),
  );
  assert.throws(() => hmac(sha256, new Uint8Array(0), null as unknown as Uint8Array), TypeError);
  const h = sha384.create().update(new Uint8Array(5));
  h.digest();
  assert.throws(
    () => h.update(new Uint8Array(1)),
    (e: unknown) => e instanceof root.StateError && /SHA-384: update\(\) after digest/.test(e.message),
  );
  assert.throws(() => h.digest(), root.StateError);
  const m = hmac.create(sha224, new Uint8Array(8));
  m.dispose();
  m.dispose();
  assert.throws(() => m.update(new Uint8Array(1)), root.StateError);
  assert.throws(() => m.digest(), root.StateError);
});

test('wiping: slots returned and zeroed; IO area, scratch and the work area zero after every call', () => {
  const k = getKernel<Sha2Exports>(sha2Module, SLOT_SIZE);
  const zero = (from: number, to: number) => k.u8.subarray(from, to).every((b) => b === 0);
  const clean = (what: string) => {
    assert.ok(zero(IO_PTR, SHA2_IO_GLUE_END), `${what}: IO area not wiped`);
    assert.ok(zero(SHA2_WORK_PTR, IO_PTR + 4096), `${what}: kernel work area not wiped`);
    assert.ok(zero(SCRATCH_PTR, SCRATCH_PTR + SCRATCH_SIZE), `${what}: scratch not wiped`);
  };
  const key = new Uint8Array(200).fill(0xa5);
  const msg = new Uint8Array(100_000).fill(0x3c);
  sha256(msg);
  clean('sha256 one-shot');
  sha512(msg.subarray(0, 111));
  clean('sha512 one-shot');
  hmac(sha384, key, msg);
  clean('hmac one-shot, long key');
  const before = k.slotsInUse;
  const h = sha512.create().update(msg.subarray(0, 1000));
  const m = hmac.create(sha256, key.subarray(0, 70)).update(msg.subarray(0, 77));
  clean('create + update');
  assert.equal(k.slotsInUse, before + 2);
  h.digest();
  m.digest();
  clean('digest');
  assert.equal(k.slotsInUse, before);
  const slot = k.allocSlot();
  assert.ok(zero(slot, slot + SLOT_SIZE), 'slot not wiped');
  k.freeSlot(slot);
  // the kernel's constants survive every wipe
  assert.equal(new DataView(k.u8.buffer).getUint32(SHA2_K256_PTR, true), 0x428a2f98);
});

test('large input streams through bounded scratch (memory stays small)', () => {
  const k = getKernel<Sha2Exports>(sha2Module, SLOT_SIZE);
  const chunk = new Uint8Array(1 << 20).fill(7);
  const h = sha256.create();
  const m = hmac.create(sha512, new Uint8Array(32));
  for (let i = 0; i < 32; i++) {
    h.update(chunk); // 32 MiB
    m.update(chunk);
  }
  const ref = createHash('sha256');
  for (let i = 0; i < 32; i++) ref.update(chunk);
  assert.equal(hex(h.digest()), ref.digest('hex'));
  m.digest();
  assert.ok(k.u8.buffer.byteLength <= 1 << 20, `memory grew to ${k.u8.buffer.byteLength}`);
});

// Ed25519 (RFC 8032): the section 7.1 vectors, every Wycheproof ed25519 case, OpenSSL
// (node:crypto) and @noble/curves both ways (signatures byte for byte, verification of each
// other's signatures, tampered signatures refused), the ZIP 215 edge cases (every pair of the 14
// encodings of small-order points as A and R, a torsion component in R or A, non-canonical S),
// deliberately broken kernels (S not reduced, a wrong comb entry, a lost carry, a hash reduced
// without its high half) that the suite must reject, typed errors, the constant-time checker, and
// wiping (nothing of the seed, h, s, the prefix or r in either module after a call).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ed25519 as nobleEd } from '@noble/curves/ed25519.js';
import { type Ed25519, ed25519 } from '../src/ec/index.js';
import * as root from '../src/index.js';
import { ed25519Kernel, makeEd25519 } from '../src/ec/ed25519.js';
import { CtkitRangeError, CtkitTypeError, InvalidKeyError, StateError } from '../src/errors.js';
import { type Kernel, SLOTS_PTR } from '../src/engine/kernel.js';
import * as edModule from '../src/engine/wasm/ed25519.js';
import * as sha2Module from '../src/engine/wasm/sha2.js';
import { sha2Family, sha2KernelFrom } from '../src/hash/sha2.js';
import { type Ed25519Flags, generateEd25519 } from '../src/kernels/ed25519_module.js';
import { checkModule, formatViolation } from '../src/ct/check.js';
import { varTime } from '../src/ct/vartime.js';
import { findWindows } from './support/teeth.js';
import { Rng, hex, unhex } from './support/rng.js';
import { controlSource, testBackend } from './support/backends.js';

// on the js backend the curves' JavaScript is opt-in (src/ec/js/): x25519 brings ed25519's too
if (testBackend() === 'js') await import('../src/ec/js/x25519.js');

const repoRoot = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const wycheproof = JSON.parse(readFileSync(path.join(repoRoot, 'test', 'vectors', 'wycheproof', 'testvectors_v1', 'ed25519_test.json'), 'utf8')) as {
  numberOfTests: number;
  testGroups: { publicKey: { pk: string }; tests: { tcId: number; msg: string; sig: string; result: 'valid' | 'invalid'; flags: string[] }[] }[];
};

/** the order of the base point (RFC 8032 section 5.1) */
const L = (1n << 252n) + 27742317777372353535851937790883648493n;
const le = (b: Uint8Array): bigint => b.reduceRight((v, x) => (v << 8n) | BigInt(x), 0n);
const toLe = (v: bigint, n = 32): Uint8Array => Uint8Array.from({ length: n }, (_, i) => Number((v >> BigInt(8 * i)) & 0xffn));
const cat = (...p: Uint8Array[]): Uint8Array => Uint8Array.from(p.flatMap((x) => [...x]));
const sha512 = (...p: Uint8Array[]): Uint8Array =>
  new Uint8Array(
    crypto
      .createHash('sha512')
      .update(cat(...p))
      .digest(),
  );
const utf8 = (s: string) => new TextEncoder().encode(s);

// RFC 8032 section 7.1 (secret key, public key, message, signature)
const RFC8032: [string, string, string, string, string][] = [
  [
    'TEST 1',
    '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    '',
    'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  ],
  [
    'TEST 2',
    '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    '72',
    '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  ],
  [
    'TEST 3',
    'c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7',
    'fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025',
    'af82',
    '6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a',
  ],
  [
    'TEST 1024',
    'f5e5767cf153319517630f226876b86c8160cc583bc013744c6bf255f5cc0ee5',
    '278117fc144c72340f67d0f2316e8386ceffbf2b2428c9c51fef7c597f1d426e',
    '08b8b2b733424243760fe426a4b54908632110a66c2f6591eabd3345e3e4eb98fa6e264bf09efe12ee50f8f54e9f77b1e355f6c50544e23fb1433ddf73be84d879de7c0046dc4996d9e773f4bc9efe5738829adb26c81b37c93a1b270b20329d' +
      '658675fc6ea534e0810a4432826bf58c941efb65d57a338bbd2e26640f89ffbc1a858efcb8550ee3a5e1998bd177e93a7363c344fe6b199ee5d02e82d522c4feba15452f80288a821a579116ec6dad2b3b310da903401aa62100ab5d1a36553e' +
      '06203b33890cc9b832f79ef80560ccb9a39ce767967ed628c6ad573cb116dbefefd75499da96bd68a8a97b928a8bbc103b6621fcde2beca1231d206be6cd9ec7aff6f6c94fcd7204ed3455c68c83f4a41da4af2b74ef5c53f1d8ac70bdcb7ed1' +
      '85ce81bd84359d44254d95629e9855a94a7c1958d1f8ada5d0532ed8a5aa3fb2d17ba70eb6248e594e1a2297acbbb39d502f1a8c6eb6f1ce22b3de1a1f40cc24554119a831a9aad6079cad88425de6bde1a9187ebb6092cf67bf2b13fd65f270' +
      '88d78b7e883c8759d2c4f5c65adb7553878ad575f9fad878e80a0c9ba63bcbcc2732e69485bbc9c90bfbd62481d9089beccf80cfe2df16a2cf65bd92dd597b0707e0917af48bbb75fed413d238f5555a7a569d80c3414a8d0859dc65a46128ba' +
      'b27af87a71314f318c782b23ebfe808b82b0ce26401d2e22f04d83d1255dc51addd3b75a2b1ae0784504df543af8969be3ea7082ff7fc9888c144da2af58429ec96031dbcad3dad9af0dcbaaaf268cb8fcffead94f3c7ca495e056a9b47acdb7' +
      '51fb73e666c6c655ade8297297d07ad1ba5e43f1bca32301651339e22904cc8c42f58c30c04aafdb038dda0847dd988dcda6f3bfd15c4b4c4525004aa06eeff8ca61783aacec57fb3d1f92b0fe2fd1a85f6724517b65e614ad6808d6f6ee34df' +
      'f7310fdc82aebfd904b01e1dc54b2927094b2db68d6f903b68401adebf5a7e08d78ff4ef5d63653a65040cf9bfd4aca7984a74d37145986780fc0b16ac451649de6188a7dbdf191f64b5fc5e2ab47b57f7f7276cd419c17a3ca8e1b939ae49e4' +
      '88acba6b965610b5480109c8b17b80e1b7b750dfc7598d5d5011fd2dcc5600a32ef5b52a1ecc820e308aa342721aac0943bf6686b64b2579376504ccc493d97e6aed3fb0f9cd71a43dd497f01f17c0e2cb3797aa2a2f256656168e6c496afc5f' +
      'b93246f6b1116398a346f1a641f3b041e989f7914f90cc2c7fff357876e506b50d334ba77c225bc307ba537152f3f1610e4eafe595f6d9d90d11faa933a15ef1369546868a7f3a45a96768d40fd9d03412c091c6315cf4fde7cb68606937380d' +
      'b2eaaa707b4c4185c32eddcdd306705e4dc1ffc872eeee475a64dfac86aba41c0618983f8741c5ef68d3a101e8a3b8cac60c905c15fc910840b94c00a0b9d0',
    '0aab4c900501b3e24d7cdf4663326a3a87df5e4843b2cbdb67cbf6e460fec350aa5371b1508f9f4528ecea23c436d94b5e8fcd4f681e30a6ac00a9704a188a03',
  ],
  [
    'TEST SHA(abc)',
    '833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42',
    'ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf',
    'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
    'dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704',
  ],
];

/**
 * The 14 encodings of points of small order (ZIP 215's test set): 8 canonical — the identity,
 * (0, −1), the two points of order 4 and the four of order 8 — and 6 non-canonical: y = 1 and
 * y = −1 with the sign bit set (x = 0), y = p + 1 (≡ 1) and y = p (≡ 0) with either sign bit.
 */
const SMALL_ORDER = [
  '0100000000000000000000000000000000000000000000000000000000000000',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0000000000000000000000000000000000000000000000000000000000000080',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85',
  '0100000000000000000000000000000000000000000000000000000000000080',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff',
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff',
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff',
];
const CANONICAL_SMALL = 8;

const PKCS8_PREFIX = unhex('302e020100300506032b657004220420');
const SPKI_PREFIX = unhex('302a300506032b6570032100');
const node = {
  privateKey: (seed: Uint8Array) => crypto.createPrivateKey({ key: Buffer.from(cat(PKCS8_PREFIX, seed)), format: 'der', type: 'pkcs8' }),
  publicKey: (pk: Uint8Array) => crypto.createPublicKey({ key: Buffer.from(cat(SPKI_PREFIX, pk)), format: 'der', type: 'spki' }),
  getPublicKey: (seed: Uint8Array) => new Uint8Array((crypto.createPublicKey(node.privateKey(seed)).export({ format: 'der', type: 'spki' }) as Buffer).subarray(12)),
  sign: (msg: Uint8Array, seed: Uint8Array) => new Uint8Array(crypto.sign(null, msg, node.privateKey(seed))),
  verify: (sig: Uint8Array, msg: Uint8Array, pk: Uint8Array) => crypto.verify(null, msg, node.publicKey(pk), sig),
};

/** S + L: the same scalar mod L, not reduced (malleability, RFC 8032 section 5.1.7 / 8.4) */
const unreduced = (sig: Uint8Array, times = 1n): Uint8Array => cat(sig.subarray(0, 32), toLe(le(sig.subarray(32)) + times * L));

/** Runs the known-answer, Wycheproof and differential suite on an Ed25519 object; returns the failures. */
function suite(impl: Ed25519, seed: number, randomCases = 24): string[] {
  const fails: string[] = [];
  const attempt = (what: string, f: () => void) => {
    try {
      f();
    } catch (e) {
      fails.push(`${what}: threw ${(e as Error).message}`);
    }
  };
  const check = (what: string, got: boolean, want: boolean) => {
    if (got !== want) fails.push(`${what}: ${got}, expected ${want}`);
  };
  for (const [name, sk, pk, msg, sig] of RFC8032) {
    attempt(name, () => {
      const m = unhex(msg);
      if (hex(impl.getPublicKey(unhex(sk))) !== pk) fails.push(`${name}: public key`);
      if (hex(impl.sign(m, unhex(sk))) !== sig) fails.push(`${name}: signature`);
      check(`${name}: verify`, impl.verify(unhex(sig), m, unhex(pk)), true);
      check(`${name}: verify (zip215)`, impl.verify(unhex(sig), m, unhex(pk), { zip215: true }), true);
      check(`${name}: verify, message changed`, impl.verify(unhex(sig), cat(m, Uint8Array.of(0)), unhex(pk)), false);
      for (const t of [1n, 2n, 8n]) {
        check(`${name}: S + ${t}L`, impl.verify(unreduced(unhex(sig), t), m, unhex(pk)), false);
        check(`${name}: S + ${t}L (zip215)`, impl.verify(unreduced(unhex(sig), t), m, unhex(pk), { zip215: true }), false);
      }
    });
  }
  for (const g of wycheproof.testGroups) {
    for (const t of g.tests) {
      const what = `Wycheproof #${t.tcId} (${t.flags.join(', ')})`;
      const sig = unhex(t.sig);
      if (sig.length !== 64) {
        // a signature of the wrong length is a CtkitRangeError, never true
        try {
          impl.verify(sig, unhex(t.msg), unhex(g.publicKey.pk));
          fails.push(`${what}: no error for a ${sig.length}-byte signature`);
        } catch (e) {
          if (!(e instanceof CtkitRangeError) || t.result !== 'invalid') fails.push(`${what}: ${e}`);
        }
        continue;
      }
      attempt(what, () => check(what, impl.verify(sig, unhex(t.msg), unhex(g.publicKey.pk)), t.result === 'valid'));
    }
  }
  const rng = new Rng(seed);
  for (let i = 0; i < randomCases; i++) {
    attempt(`random #${i}`, () => {
      const sk = rng.bytes(32),
        msg = rng.bytes([0, 1, 31, 32, 33, 64, 111, 112, 127, 128, 129, 1000, 1024, 1025, 3000][i % 15] + (i >> 4));
      const pk = impl.getPublicKey(sk);
      if (hex(pk) !== hex(node.getPublicKey(sk))) fails.push(`random #${i}: public key ≠ OpenSSL's`);
      const sig = impl.sign(msg, sk);
      if (hex(sig) !== hex(node.sign(msg, sk))) fails.push(`random #${i}: signature ≠ OpenSSL's`);
      check(`random #${i}: verify`, impl.verify(sig, msg, pk), true);
      check(`random #${i}: verify (zip215)`, impl.verify(sig, msg, pk, { zip215: true }), true);
      const bad = sig.slice();
      bad[rng.int(64)] ^= 1 << rng.int(8);
      check(`random #${i}: a flipped bit`, impl.verify(bad, msg, pk), false);
      check(`random #${i}: a flipped bit (zip215)`, impl.verify(bad, msg, pk, { zip215: true }), false);
      check(`random #${i}: S + L`, impl.verify(unreduced(sig), msg, pk), false);
    });
  }
  return fails;
}

test('RFC 8032 section 7.1, every Wycheproof case, OpenSSL on random keys and messages', () => {
  assert.equal(
    wycheproof.testGroups.reduce((n, g) => n + g.tests.length, 0),
    wycheproof.numberOfTests,
  );
  assert.deepEqual(suite(ed25519, 8032, 96), []);
  assert.equal(root.ed25519, ed25519);
});

test('OpenSSL (node:crypto) and @noble/curves both ways: signatures byte for byte, each verifies the other', () => {
  const rng = new Rng(25519);
  for (let i = 0; i < 24; i++) {
    const sk = i % 3 ? rng.bytes(32) : ed25519.generatePrivateKey();
    const msg = rng.bytes(i * 13);
    const pk = ed25519.getPublicKey(sk);
    assert.equal(hex(pk), hex(nobleEd.getPublicKey(sk)), `#${i}: public key (noble)`);
    const sig = ed25519.sign(msg, sk);
    assert.equal(hex(sig), hex(nobleEd.sign(msg, sk)), `#${i}: signature (noble)`);
    assert.ok(node.verify(sig, msg, pk), `#${i}: OpenSSL verifies ours`);
    assert.ok(nobleEd.verify(sig, msg, pk, { zip215: false }), `#${i}: noble (strict) verifies ours`);
    const theirs = node.sign(msg, sk);
    assert.ok(ed25519.verify(theirs, msg, pk), `#${i}: we verify OpenSSL's`);
    // tampered: a bit of R, of S, of the message, another key
    const j = rng.int(64),
      b = 1 << rng.int(8);
    const bad = theirs.slice();
    bad[j] ^= b;
    for (const zip215 of [false, true]) {
      assert.equal(ed25519.verify(bad, msg, pk, { zip215 }), false, `#${i}: byte ${j} flipped, zip215 ${zip215}`);
      assert.equal(nobleEd.verify(bad, msg, pk, { zip215 }), false);
      if (msg.length) {
        const m2 = msg.slice();
        m2[rng.int(msg.length)] ^= 1;
        assert.equal(ed25519.verify(theirs, m2, pk, { zip215 }), false, `#${i}: message changed`);
      }
      assert.equal(ed25519.verify(theirs, msg, nobleEd.getPublicKey(rng.bytes(32)), { zip215 }), false, `#${i}: another key`);
    }
    assert.equal(node.verify(bad, msg, pk), false);
  }
  // generatePrivateKey: random seeds
  assert.equal(new Set(Array.from({ length: 16 }, () => hex(ed25519.generatePrivateKey()))).size, 16);
});

test('signingKey: the RFC 8032 vectors and OpenSSL signatures, many messages on one key; dispose', () => {
  for (const [name, seed, pk, msg, sig] of RFC8032) {
    const key = ed25519.signingKey(unhex(seed));
    assert.equal(hex(key.publicKey), pk, `${name}: public key`);
    assert.equal(hex(key.sign(unhex(msg))), sig, `${name}: signature`);
    key.dispose();
  }
  const rng = new Rng(0x5167);
  for (let i = 0; i < 6; i++) {
    const seed = rng.bytes(32);
    const kept = seed.slice();
    const pk = nobleEd.getPublicKey(kept);
    const key = ed25519.signingKey(seed);
    seed.fill(0); // the key holds what it derived, not the caller's buffer
    assert.equal(hex(key.publicKey), hex(pk), `#${i}: public key (noble)`);
    key.publicKey[0] ^= 1; // a copy: changing it reaches neither the next read nor the A that signing hashes
    assert.equal(hex(key.publicKey), hex(pk));
    for (const n of [0, 1, 64, 1024, 1025, 5000]) {
      const msg = rng.bytes(n);
      const sig = key.sign(msg);
      assert.equal(hex(sig), hex(node.sign(msg, kept)), `#${i}, ${n} bytes: OpenSSL's signature`);
      assert.equal(hex(sig), hex(ed25519.sign(msg, kept)), `#${i}, ${n} bytes: sign(msg, seed)`);
      assert.ok(ed25519.verify(sig, msg, pk));
    }
    key.dispose();
    key.dispose(); // idempotent
    assert.throws(
      () => key.sign(Uint8Array.of(1)),
      (e: unknown) => e instanceof StateError && /used after dispose/.test((e as Error).message),
    );
  }
  // typed errors, as sign's
  assert.throws(() => ed25519.signingKey(new Uint8Array(31)), CtkitRangeError);
  assert.throws(() => ed25519.signingKey('k'.repeat(32) as never), CtkitTypeError);
  const key = ed25519.signingKey(new Uint8Array(32));
  assert.throws(() => key.sign('m' as never), CtkitTypeError);
  key.dispose();
});

test('the combs a signature costs: sign(msg, seed) one ed25519_base2 call (A and R), a signing key one ed25519_base (R)', () => {
  const ed = makeEd25519({ name: 'ed25519_combs', bytes: () => edModule.bytes() }, true);
  const kern = ed25519Kernel(ed);
  const calls: string[] = [];
  const real = kern.exports;
  const counted = { ...real };
  for (const name of ['ed25519_base', 'ed25519_base2', 'x25519_base'] as const) {
    const f = real[name] as (...a: number[]) => void;
    (counted as Record<string, unknown>)[name] = (...a: number[]) => {
      calls.push(name);
      f(...a);
    };
  }
  Object.defineProperty(kern, 'exports', { value: counted });
  const rng = new Rng(0xc0b5);
  for (let i = 0; i < 3; i++) {
    const seed = rng.bytes(32);
    const msg = rng.bytes(40 * i);
    calls.length = 0;
    const sig = ed.sign(msg, seed);
    assert.deepEqual(calls, ['ed25519_base2'], `#${i}: sign(msg, seed)`);
    assert.equal(hex(sig), hex(node.sign(msg, seed)), `#${i}: OpenSSL's signature`);
    calls.length = 0;
    const key = ed.signingKey(seed);
    assert.deepEqual(calls, ['ed25519_base'], `#${i}: signingKey derives A`);
    calls.length = 0;
    assert.equal(hex(key.sign(msg)), hex(sig), `#${i}: the signing key's signature`);
    assert.deepEqual(calls, ['ed25519_base'], `#${i}: the signing key computes R alone`);
    key.dispose();
  }
});

test('ZIP 215: every small-order A and R (canonical or not) with S = 0; strict mode as OpenSSL on canonical keys', () => {
  const msg = utf8('Zcash');
  // the set is what it says: small order, the first eight canonical (noble as the judge)
  for (const [i, e] of SMALL_ORDER.entries()) {
    assert.ok(nobleEd.Point.fromBytes(unhex(e), true).isSmallOrder(), `encoding ${i} has small order`);
    assert.equal(
      (() => {
        try {
          nobleEd.Point.fromBytes(unhex(e), false);
          return true;
        } catch {
          return false;
        }
      })(),
      i < CANONICAL_SMALL,
      `encoding ${i} canonical`,
    );
  }
  let strictTrue = 0;
  for (const [ia, A] of SMALL_ORDER.entries()) {
    for (const [ir, R] of SMALL_ORDER.entries()) {
      const sig = cat(unhex(R), new Uint8Array(32));
      const what = `A #${ia}, R #${ir}`;
      // [8]([0]B − R − [k]A) = O for any small-order R and A: ZIP 215 accepts every pair
      assert.equal(ed25519.verify(sig, msg, unhex(A), { zip215: true }), true, `${what} (zip215)`);
      assert.equal(nobleEd.verify(sig, msg, unhex(A), { zip215: true }), true, `${what} (noble zip215)`);
      if (ia < CANONICAL_SMALL) {
        // strict: A decodes; R must equal encode(−[k]A) byte for byte, as OpenSSL compares it
        const want = node.verify(sig, msg, unhex(A));
        assert.equal(ed25519.verify(sig, msg, unhex(A)), want, `${what} (strict, as OpenSSL)`);
        if (ir >= CANONICAL_SMALL) assert.equal(want, false, `${what}: a non-canonical R never matches`);
        if (want) strictTrue++;
      } else {
        // RFC 8032 5.1.3 refuses these encodings (OpenSSL 3.0 takes some of them)
        assert.throws(() => ed25519.verify(sig, msg, unhex(A)), InvalidKeyError, what);
      }
    }
  }
  assert.ok(strictTrue > 0 && strictTrue < 64, `strict accepted ${strictTrue} of the canonical pairs`);
});

test('ZIP 215: a torsion component in R or A passes the cofactored equation only; S must be canonical', () => {
  const rng = new Rng(215);
  const B = nobleEd.Point.BASE;
  const torsion = nobleEd.Point.fromBytes(unhex(SMALL_ORDER[4])); // order 8
  for (let i = 0; i < 8; i++) {
    const seed = rng.bytes(32),
      msg = rng.bytes(20 + i);
    const h = sha512(seed);
    const s0 = h.slice(0, 32);
    s0[0] &= 248;
    s0[31] = (s0[31] & 127) | 64;
    const a = le(s0);
    const A = B.multiply(a % L);
    const r = le(sha512(rng.bytes(64))) % L;
    // R' = [r]B + T: k = H(R' ‖ A ‖ M), S = r + k·a; then [S]B − [k]A = [r]B ≠ R' but [8]([S]B − R' − [k]A) = [8](−T) = O
    const Rt = B.multiply(r).add(torsion).toBytes();
    const k = le(sha512(Rt, A.toBytes(), msg)) % L;
    const sigT = cat(Rt, toLe((r + k * a) % L));
    assert.equal(ed25519.verify(sigT, msg, A.toBytes()), false, `#${i}: R + T (strict)`);
    assert.equal(node.verify(sigT, msg, A.toBytes()), false, `#${i}: R + T (OpenSSL)`);
    assert.equal(ed25519.verify(sigT, msg, A.toBytes(), { zip215: true }), true, `#${i}: R + T (zip215)`);
    assert.equal(nobleEd.verify(sigT, msg, A.toBytes(), { zip215: true }), true, `#${i}: R + T (noble zip215)`);
    // A' = A + T, signed with a: [S]B − [k]A' = R − [k]T, the identity's multiple only when 8 | k
    const At = A.add(torsion).toBytes();
    const R = B.multiply(r).toBytes();
    const k2 = le(sha512(R, At, msg)) % L;
    const sigA = cat(R, toLe((r + k2 * a) % L));
    assert.equal(ed25519.verify(sigA, msg, At), k2 % 8n === 0n, `#${i}: A + T (strict)`);
    assert.equal(node.verify(sigA, msg, At), k2 % 8n === 0n, `#${i}: A + T (OpenSSL)`);
    assert.equal(ed25519.verify(sigA, msg, At, { zip215: true }), true, `#${i}: A + T (zip215)`);
    // non-canonical S refused by both rules
    assert.equal(ed25519.verify(unreduced(sigT), msg, A.toBytes(), { zip215: true }), false, `#${i}: S + L (zip215)`);
    assert.equal(ed25519.verify(unreduced(sigA), msg, At, { zip215: true }), false, `#${i}: S + L, A + T (zip215)`);
  }
});

test('negative controls: S not reduced, a wrong comb entry, a lost carry, a half-reduced hash are caught', async () => {
  const controls: [string, Ed25519Flags, RegExp][] = [
    ['S ≥ L accepted', { skipSCheck: true }, /S \+ (1|2|8)L|Wycheproof/],
    ['entry 6 of each comb row holds 5·256^k·B', { wrongEntry: true }, /signature|public key/],
    ['a carry lost in the field products', { dropCarry: true }, /./],
    ['the high half of a 64-byte hash dropped', { skipReduceHigh: true }, /signature/],
  ];
  for (const [name, flags, expected] of controls) {
    const broken = makeEd25519(await controlSource(`ed25519_broken_${Object.keys(flags).join('_')}`, () => generateEd25519(flags)), true);
    const fails = suite(broken, 99, 4);
    assert.ok(fails.length > 0, `${name}: the suite did not notice`);
    assert.ok(
      fails.some((f) => expected.test(f)),
      `${name}: ${fails.slice(0, 3).join('; ')}`,
    );
  }
});

test('typed errors: lengths, types, options, a public key that is not a point', () => {
  const sk = new Uint8Array(32).fill(3),
    pk = ed25519.getPublicKey(sk),
    sig = ed25519.sign(Uint8Array.of(1), sk);
  assert.throws(() => ed25519.getPublicKey(new Uint8Array(31)), CtkitRangeError);
  assert.throws(() => ed25519.getPublicKey(new Uint8Array(64)), /privateKey must be 32 bytes long, got 64/);
  assert.throws(() => ed25519.getPublicKey([1, 2] as unknown as Uint8Array), CtkitTypeError);
  assert.throws(() => ed25519.sign('hi' as unknown as Uint8Array, sk), CtkitTypeError);
  assert.throws(() => ed25519.sign(Uint8Array.of(1), new Uint8Array(33)), CtkitRangeError);
  assert.throws(() => ed25519.verify(sig.subarray(0, 63), Uint8Array.of(1), pk), /signature must be 64 bytes long, got 63/);
  assert.throws(() => ed25519.verify(sig, Uint8Array.of(1), new Uint8Array(31)), CtkitRangeError);
  assert.throws(() => ed25519.verify(sig, null as unknown as Uint8Array, pk), CtkitTypeError);
  assert.throws(() => ed25519.verify(sig, Uint8Array.of(1), pk, 'zip215' as never), CtkitTypeError);
  assert.throws(() => ed25519.verify(sig, Uint8Array.of(1), pk, { zip215: 1 as unknown as boolean }), /zip215 must be a boolean/);
  // y = 2 gives no point (x² = 3/(4d + 1) is not a square); y = p is not canonical; 2^255 − 1 neither
  const notPoint = toLe(2n);
  assert.equal(nobleEd.verify(sig, Uint8Array.of(1), notPoint), false);
  for (const zip215 of [false, true]) {
    // whatever the signature (S ≥ L too): the key is looked at first
    for (const s of [sig, unreduced(sig)]) assert.throws(() => ed25519.verify(s, Uint8Array.of(1), notPoint, { zip215 }), InvalidKeyError);
  }
  assert.throws(() => ed25519.verify(sig, Uint8Array.of(1), unhex(SMALL_ORDER[12])), /not the canonical encoding/);
  assert.equal(ed25519.verify(sig, Uint8Array.of(1), unhex(SMALL_ORDER[12]), { zip215: true }), false);
  assert.throws(() => ed25519.importPublicKey(notPoint, 'raw'), InvalidKeyError);
  assert.equal(ed25519.verify(sig, Uint8Array.of(1), pk, {}), true);
  assert.equal(ed25519.verify(sig, Uint8Array.of(1), pk, { zip215: undefined }), true);
  assert.equal(ed25519.privateKeyBytes + ed25519.publicKeyBytes + ed25519.signatureBytes, 128);
});

test('constant-time checker: the shipped module is clean but for ed25519_verify, declared variable time', () => {
  const report = checkModule(
    'ed25519',
    edModule.bytes(),
    varTime.filter((d) => d.module === 'ed25519'),
  );
  assert.deepEqual(report.violations.map(formatViolation), []);
  // without the declaration the checker does find the verifier's branches, and only there and in
  // the variable-time inversion that only the verifier calls (pt_encode_vt)
  const bare = checkModule('ed25519', edModule.bytes(), []);
  assert.ok(bare.violations.length > 0);
  assert.deepEqual([...new Set(bare.violations.map((v) => v.func))].sort(), ['ed25519_verify', 'fe_inv_vt_raw']);
  assert.deepEqual(
    varTime.filter((d) => d.module === 'ed25519').map((d) => d.func),
    ['ed25519_verify'],
  );
});

// ---- wiping ---------------------------------------------------------------------------------

/**
 * A kernel instance and its memory before first use: outside `owned`, every byte must come back
 * to it. `owned` is public data the module keeps (its tables), which must stay exactly as
 * `tables` (a copy from SLOTS_PTR, taken after a call on a public key) holds it. The search for
 * secrets' 4-byte windows then skips `owned`: 40 KiB of table bytes match some window of a
 * random key by chance in about 0.15 % of keys, while a secret written there changes a byte.
 */
function watch(k: Kernel<unknown>, tables = new Uint8Array(0)) {
  const base = k.u8.slice();
  return (what: string, secrets: Record<string, Uint8Array>, owned: [number, number][] = []) => {
    const u8 = k.u8;
    for (let i = 0; i < u8.length; i++) {
      const want = i < base.length ? base[i] : 0;
      if (u8[i] !== want && !owned.some(([a, b]) => i >= a && i < b)) assert.fail(`${what}: byte ${i} is ${u8[i]}, not ${want}`);
    }
    for (const [a, b] of owned) {
      for (let i = a; i < b; i++) {
        const want = tables[i - SLOTS_PTR] ?? 0;
        if (u8[i] !== want) assert.fail(`${what}: table byte ${i} is ${u8[i]}, not ${want}`);
      }
    }
    assert.deepEqual(findWindows(k, secrets, owned), [], `${what}: key-derived bytes in memory`);
  };
}

test('wiping: nothing of the seed, h, s, the prefix, r or R’s digest (plain, ctx, ph) in the ed25519 or the sha2 module after a call', () => {
  const sk2 = sha2KernelFrom('ed25519-wipe-sha2', sha2Module.bytes());
  const ed = makeEd25519({ name: 'ed25519_wipe', bytes: () => edModule.bytes() }, true, sha2Family(() => sk2).sha512);
  const k = ed25519Kernel(ed);
  // the tables (the comb's and verification's): one slot of public data (multiples of B), as a
  // call with a public key (seed 0) leaves them
  const table = (): [number, number][] => [[SLOTS_PTR, SLOTS_PTR + k.slotsInUse * k.slotSize]];
  ed.verify(ed.sign(Uint8Array.of(1), new Uint8Array(32)), Uint8Array.of(1), ed.getPublicKey(new Uint8Array(32)));
  const tables = k.u8.slice(SLOTS_PTR, table()[0][1]);
  assert.ok(tables.some((b) => b !== 0));
  const [checkEd, checkSha] = [watch(k, tables), watch(sk2)];
  // positive controls: one byte left in scratch is found; one table byte changed is found
  k.u8[4096 + 999] = 1;
  assert.throws(() => checkEd('control', {}), /byte 5095 is 1/);
  k.u8[4096 + 999] = 0;
  k.u8[SLOTS_PTR + 777] ^= 1;
  assert.throws(() => checkEd('control', {}, table()), new RegExp(`table byte ${SLOTS_PTR + 777} is`));
  k.u8[SLOTS_PTR + 777] ^= 1;
  const rng = new Rng(0xed);
  for (let i = 0; i < 6; i++) {
    const seed = i ? rng.bytes(32) : ed.generatePrivateKey();
    const msg = rng.bytes([0, 50, 1024, 1025, 4000, 70000][i]); // short ones hashed from a joined copy, long ones incrementally
    const h = sha512(seed);
    const s = h.slice(0, 32);
    s[0] &= 248;
    s[31] = (s[31] & 127) | 64;
    const rDigest = sha512(h.subarray(32), msg);
    const r = toLe(le(rDigest) % L);
    const secrets = { seed, h, s, r, 'r digest': rDigest };
    const pk = ed.getPublicKey(seed);
    checkEd('getPublicKey', secrets, table());
    checkSha('getPublicKey (sha2)', secrets);
    const sig = ed.sign(msg, seed);
    assert.equal(hex(sig), hex(node.sign(msg, seed)));
    checkEd('sign', secrets, table());
    checkSha('sign (sha2)', secrets);
    const key = ed.signingKey(seed);
    checkEd('signingKey', secrets, table());
    checkSha('signingKey (sha2)', secrets);
    assert.equal(hex(key.sign(msg)), hex(sig));
    checkEd('signingKey.sign', secrets, table());
    checkSha('signingKey.sign (sha2)', secrets);
    key.dispose();
    assert.ok(ed.verify(sig, msg, pk));
    // Ed25519ctx and Ed25519ph: r's digest has dom2 in front (and PH(M) for ph); neither it nor r stays behind
    const context = rng.bytes(1 + i * 50);
    const dom2 = (ph: number) => cat(utf8('SigEd25519 no Ed25519 collisions'), Uint8Array.of(ph, context.length), context);
    for (const [name, o, dom, m] of [
      ['ctx', { context }, dom2(0), msg],
      ['ph', { context, prehash: true }, dom2(1), sha512(msg)],
    ] as const) {
      const rd = sha512(dom, h.subarray(32), m);
      const more = { ...secrets, [`r digest (${name})`]: rd, [`r (${name})`]: toLe(le(rd) % L) };
      const vs = ed.sign(msg, seed, o);
      assert.ok(ed.verify(vs, msg, pk, o));
      checkEd(`sign (${name})`, more, table());
      checkSha(`sign (${name}, sha2)`, more);
      const vk = ed.signingKey(seed);
      assert.equal(hex(vk.sign(msg, o)), hex(vs));
      vk.dispose();
      checkEd(`signingKey.sign (${name})`, more, table());
      checkSha(`signingKey.sign (${name}, sha2)`, more);
    }
    for (const f of ['raw', 'pkcs8-der', 'pkcs8-pem', 'jwk'] as const) {
      ed.importPrivateKey(ed.exportPrivateKey(seed, f, { publicKey: true }) as never, f);
      checkEd(`export/import ${f}`, secrets, table());
      checkSha(`export/import ${f} (sha2)`, secrets);
    }
  }
  // the table slot holds only public data: the same bytes on an instance that never saw these keys
  const other = makeEd25519({ name: 'ed25519_wipe_b', bytes: () => edModule.bytes() }, true);
  const otherSeed = new Uint8Array(32);
  assert.ok(other.verify(other.sign(Uint8Array.of(1), otherSeed), Uint8Array.of(1), other.getPublicKey(otherSeed)));
  const ok = ed25519Kernel(other);
  const [from, to] = table()[0];
  assert.equal(ok.slotsInUse, 1);
  assert.ok(Buffer.from(ok.u8.subarray(from, to)).equals(Buffer.from(k.u8.subarray(from, to))), 'the table differs between two instances');
});

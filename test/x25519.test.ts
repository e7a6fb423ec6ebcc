// X25519 (RFC 7748): the section 5.2 vectors and the 1,000-iteration ladder vector, the section
// 6.1 exchange, every Wycheproof x25519 case, the reference model over structured and random
// inputs, OpenSSL (node:crypto) and @noble/curves both ways, deliberately broken kernels (a ladder
// swap skipped, no clamping, a carry lost) that the suite must reject, the scalar ladder
// (field 'radix25') passing the same suite, typed errors, and wiping.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { x25519 as nobleX25519 } from '@noble/curves/ed25519.js';
import { x25519, type X25519 } from '../src/ec/index.js';
import * as root from '../src/index.js';
import { makeX25519 } from '../src/ec/x25519.js';
import { ed25519Kernel, makeEd25519, x25519BaseVia } from '../src/ec/ed25519.js';
import { ed25519 } from '../src/ec/index.js';
import { type Ed25519Flags, generateEd25519 } from '../src/kernels/ed25519_module.js';
import { CtkitRangeError, CtkitTypeError, InvalidKeyError } from '../src/errors.js';
import { IO_PTR, SCRATCH_PTR, getKernel } from '../src/engine/kernel.js';
import * as x25519Module from '../src/engine/wasm/x25519.js';
import type { X25519Exports } from '../src/engine/wasm/x25519.contract.js';
import { compileKernel } from '../src/kernels/build.js';
import { type X25519Flags, generateX25519 } from '../src/kernels/x25519_ladder.js';
import { checkModule, formatViolation } from '../src/ct/check.js';
import { P, encodeLittleEndian, x25519Ref } from '../src/ref/x25519.js';
import { Rng, hex, unhex } from './support/rng.js';
import { controlSource, testBackend } from './support/backends.js';

// on the js backend the curves' JavaScript is opt-in (src/ec/js/): x25519 brings ed25519's too
if (testBackend() === 'js') await import('../src/ec/js/x25519.js');

const repoRoot = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const wycheproof = JSON.parse(readFileSync(path.join(repoRoot, 'test', 'vectors', 'wycheproof', 'testvectors_v1', 'x25519_test.json'), 'utf8')) as {
  numberOfTests: number;
  testGroups: { tests: { tcId: number; public: string; private: string; shared: string; result: string; flags: string[] }[] }[];
};

// RFC 7748 section 5.2
const RFC_VECTORS = [
  ['a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4', 'e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c', 'c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552'],
  ['4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d', 'e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493', '95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957'],
];
const ITERATED = { 1: '422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079', 1000: '684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51' };
// RFC 7748 section 6.1
const ALICE = { sk: '77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a', pk: '8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a' };
const BOB = { sk: '5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb', pk: 'de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f' };
const SHARED = '4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742';

/** u-coordinates that stress the edges: 0, 1, small order points, p − 1, p, p + 1, 2^255 − 1, bit 255 set. */
function edgeUs(): Uint8Array[] {
  const vals = [
    0n,
    1n,
    2n,
    9n,
    P - 1n,
    P,
    P + 1n,
    (1n << 255n) - 1n,
    (1n << 255n) - 20n,
    // points of order 8 (u of the small subgroup, from the Wycheproof notes and RFC 7748's errata)
    0xe0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800n,
    0x57119fd0dd4e22d8868e1c58c45c44045bef839c55b1d0b1248c50a3bc959c5fn,
  ];
  const out = vals.map((v) => encodeLittleEndian(v));
  for (const v of vals.slice(0, 4)) {
    const b = encodeLittleEndian(v);
    b[31] |= 0x80;
    out.push(b);
  }
  return out;
}

/** Runs the whole known-answer and differential suite on an X25519 object; returns the failures. */
function suite(impl: X25519, seed: number, randomCases = 64): string[] {
  const fails: string[] = [];
  const expect = (what: string, got: () => Uint8Array, want: string) => {
    try {
      const g = hex(got());
      if (g !== want) fails.push(`${what}: ${g} ≠ ${want}`);
    } catch (e) {
      fails.push(`${what}: threw ${(e as Error).message}`);
    }
  };
  for (const [i, [k, u, r]] of RFC_VECTORS.entries()) expect(`RFC 7748 5.2 #${i + 1}`, () => impl.ecdh(unhex(k), unhex(u)), r);
  let k = encodeLittleEndian(9n),
    u = encodeLittleEndian(9n);
  for (let i = 1; i <= 20; i++) [k, u] = [impl.ecdh(k, u), k];
  expect(
    'RFC 7748 5.2 iterated 20 times (against the reference)',
    () => k,
    (() => {
      let rk = encodeLittleEndian(9n),
        ru = encodeLittleEndian(9n);
      for (let i = 1; i <= 20; i++) [rk, ru] = [x25519Ref(rk, ru), rk];
      return hex(rk);
    })(),
  );
  expect('RFC 7748 6.1 Alice public', () => impl.getPublicKey(unhex(ALICE.sk)), ALICE.pk);
  expect('RFC 7748 6.1 Bob public', () => impl.getPublicKey(unhex(BOB.sk)), BOB.pk);
  expect('RFC 7748 6.1 shared (Alice)', () => impl.ecdh(unhex(ALICE.sk), unhex(BOB.pk)), SHARED);
  const rng = new Rng(seed);
  for (const eu of edgeUs()) {
    const sk = rng.bytes(32);
    const want = hex(x25519Ref(sk, eu));
    if (/^0+$/.test(want)) {
      try {
        impl.ecdh(sk, eu);
        fails.push(`edge u ${hex(eu)}: no error for a zero shared secret`);
      } catch (e) {
        if (!(e instanceof InvalidKeyError)) fails.push(`edge u ${hex(eu)}: ${e}`);
      }
    } else expect(`edge u ${hex(eu)}`, () => impl.ecdh(sk, eu), want);
  }
  for (let i = 0; i < randomCases; i++) {
    const sk = rng.bytes(32),
      pk = rng.bytes(32);
    expect(`random #${i}`, () => impl.ecdh(sk, pk), hex(x25519Ref(sk, pk)));
  }
  return fails;
}

test('RFC 7748: section 5.2 vectors, the ladder iterated 1 and 1,000 times, section 6.1', () => {
  for (const [k, u, r] of RFC_VECTORS) assert.equal(hex(x25519.ecdh(unhex(k), unhex(u))), r);
  let k: Uint8Array = encodeLittleEndian(9n),
    u: Uint8Array = encodeLittleEndian(9n);
  for (let i = 1; i <= 1000; i++) {
    [k, u] = [x25519.ecdh(k, u), k];
    if (i === 1) assert.equal(hex(k), ITERATED[1], 'after 1 iteration');
  }
  assert.equal(hex(k), ITERATED[1000], 'after 1,000 iterations');
  assert.equal(hex(x25519.getPublicKey(unhex(ALICE.sk))), ALICE.pk);
  assert.equal(hex(x25519.getPublicKey(unhex(BOB.sk))), BOB.pk);
  assert.equal(hex(x25519.ecdh(unhex(ALICE.sk), unhex(BOB.pk))), SHARED);
  assert.equal(hex(x25519.ecdh(unhex(BOB.sk), unhex(ALICE.pk))), SHARED);
  // the reference model agrees with the RFC (it is what the differential cases trust)
  for (const [kk, uu, r] of RFC_VECTORS) assert.equal(hex(x25519Ref(unhex(kk), unhex(uu))), r);
});

test('Wycheproof x25519_test.json: every case (an all-zero shared secret is an InvalidKeyError)', () => {
  let n = 0,
    zero = 0;
  for (const g of wycheproof.testGroups) {
    for (const t of g.tests) {
      n++;
      const what = `tcId ${t.tcId} (${t.flags.join(', ')}, ${t.result})`;
      assert.ok(t.result === 'valid' || t.result === 'acceptable', `${what}: unexpected result`);
      if (/^0+$/.test(t.shared)) {
        // acceptable cases (ZeroSharedSecret): RFC 7748 section 6.1 lets us refuse; we do
        assert.equal(t.result, 'acceptable', what);
        assert.throws(() => x25519.ecdh(unhex(t.private), unhex(t.public)), InvalidKeyError, what);
        zero++;
      } else {
        assert.equal(hex(x25519.ecdh(unhex(t.private), unhex(t.public))), t.shared, what);
      }
    }
  }
  assert.equal(n, wycheproof.numberOfTests);
  assert.ok(zero > 0 && n === 518, `${n} cases, ${zero} with a zero shared secret`);
});

test('the reference model over structured and random inputs, the shipped and the scalar ladder', async () => {
  assert.deepEqual(suite(x25519, 7748, 200), []);
  const bytes = await scalarBytes();
  const scalar = makeX25519({ name: 'x25519_scalar', bytes: () => bytes }, true);
  assert.deepEqual(suite(scalar, 7749, 100), [], 'the scalar ladder (field radix25)');
});

let scalarCache: Uint8Array | undefined;
async function scalarBytes(): Promise<Uint8Array> {
  return (scalarCache ??= await compileKernel(generateX25519({ field: 'radix25' })));
}

const nodeX25519 = {
  publicKey: (sk: Uint8Array) => {
    const key = crypto.createPrivateKey({ key: { kty: 'OKP', crv: 'X25519', d: Buffer.from(sk).toString('base64url'), x: '' }, format: 'jwk' });
    return new Uint8Array(Buffer.from(crypto.createPublicKey(key).export({ format: 'jwk' }).x!, 'base64url'));
  },
  ecdh: (sk: Uint8Array, pk: Uint8Array) => {
    const priv = crypto.createPrivateKey({ key: { kty: 'OKP', crv: 'X25519', d: Buffer.from(sk).toString('base64url'), x: '' }, format: 'jwk' });
    const pub = crypto.createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: Buffer.from(pk).toString('base64url') }, format: 'jwk' });
    return new Uint8Array(crypto.diffieHellman({ privateKey: priv, publicKey: pub }));
  },
};

test('OpenSSL (node:crypto) and @noble/curves agree, both ways', () => {
  const rng = new Rng(25519);
  for (let i = 0; i < 64; i++) {
    const a = i % 2 ? x25519.generatePrivateKey() : rng.bytes(32);
    const b = rng.bytes(32);
    const pa = x25519.getPublicKey(a),
      pb = x25519.getPublicKey(b);
    assert.equal(hex(pa), hex(nodeX25519.publicKey(a)), `public key #${i} (node)`);
    assert.equal(hex(pa), hex(nobleX25519.getPublicKey(a)), `public key #${i} (noble)`);
    const s = hex(x25519.ecdh(a, pb));
    assert.equal(s, hex(x25519.ecdh(b, pa)), `#${i} symmetric`);
    assert.equal(s, hex(nodeX25519.ecdh(a, nodeX25519.publicKey(b))), `#${i} node with node's public key`);
    assert.equal(s, hex(nodeX25519.ecdh(b, pa)), `#${i} node with ours`);
    assert.equal(s, hex(nobleX25519.getSharedSecret(a, pb)), `#${i} noble`);
  }
  // generatePrivateKey is clamped and random
  const ks = new Set(Array.from({ length: 16 }, () => hex(x25519.generatePrivateKey())));
  assert.equal(ks.size, 16);
  for (const k of ks) {
    const b = unhex(k);
    assert.equal(b[0] & 7, 0);
    assert.equal(b[31] & 0xc0, 0x40);
  }
});

test('negative controls: a skipped ladder swap, a missing clamp and a lost carry are caught', async () => {
  const controls: [string, X25519Flags][] = [
    ['swap skipped at step 200', { skipSwapAt: 200 }],
    ['swap skipped at step 3', { skipSwapAt: 3 }],
    ['no clamping', { noClamp: true }],
    ['carry lost (the default field: pairs on simd, single elements otherwise)', { dropCarry: true }],
    ['carry lost (scalar field)', { field: 'radix25', dropCarry: true }],
  ];
  // the pair field is SIMD128's: on the scalar backends the lost carry is the scalar field's
  for (const [name, flags] of controls.filter(([, f]) => testBackend() === 'simd' || f.field !== 'radix25')) {
    const broken = makeX25519(await controlSource(`x25519_broken_${name.replace(/\W+/g, '_')}`, () => generateX25519(flags)), true);
    const fails = suite(broken, 99);
    assert.ok(fails.length > 0, `${name}: the suite did not notice`);
  }
});

test('typed errors; an all-zero shared secret is refused', () => {
  const k = new Uint8Array(32).fill(1);
  assert.throws(() => x25519.getPublicKey(new Uint8Array(31)), CtkitRangeError);
  assert.throws(() => x25519.getPublicKey([1, 2] as unknown as Uint8Array), CtkitTypeError);
  assert.throws(() => x25519.ecdh(k, new Uint8Array(33)), /peerPublicKey must be 32 bytes long, got 33/);
  assert.throws(() => x25519.ecdh(k, 'u' as unknown as Uint8Array), CtkitTypeError);
  assert.throws(() => x25519.ecdh(k, new Uint8Array(32)), InvalidKeyError);
  assert.throws(() => x25519.ecdh(k, encodeLittleEndian(1n)), /all zero/);
  assert.equal(root.x25519, x25519);
});

test('no key-derived bytes stay in the IO area, the work space or anywhere in kernel memory', async () => {
  const kern = getKernel<X25519Exports>(x25519Module, 0);
  const ws = kern.exports.WS_SIZE.value as number;
  const rng = new Rng(1);
  for (let i = 0; i < 8; i++) {
    const sk = x25519.generatePrivateKey(),
      peer = x25519.getPublicKey(rng.bytes(32));
    const pk = x25519.getPublicKey(sk);
    const shared = x25519.ecdh(sk, peer);
    const mem = kern.u8;
    assert.ok(
      mem.subarray(IO_PTR, IO_PTR + 4096).every((b) => b === 0),
      'IO area wiped',
    );
    assert.ok(
      mem.subarray(SCRATCH_PTR, SCRATCH_PTR + ws).every((b) => b === 0),
      'work space wiped',
    );
    const find = (needle: Uint8Array) => Buffer.from(mem.buffer, mem.byteOffset, mem.length).indexOf(Buffer.from(needle.subarray(0, 12))) >= 0;
    assert.ok(!find(sk.subarray(4)) && !find(shared) && !find(pk), 'key, public key and secret gone');
  }
});

test('getPublicKey runs on the Ed25519 comb: equal to the ladder, noble and OpenSSL; broken combs caught; memory wiped', async () => {
  const ladder = makeX25519(x25519Module, true);
  const rng = new Rng(0xc0b);
  // edge keys: all zero and all one bits (clamping decides), each bit the clamp touches, then random
  const keys = [new Uint8Array(32), new Uint8Array(32).fill(0xff), Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? 7 : i === 31 ? 0x80 : 0)), unhex(ALICE.sk), unhex(BOB.sk)];
  for (let i = 0; i < 40; i++) keys.push(rng.bytes(32));
  for (const [i, sk] of keys.entries()) {
    const want = hex(nobleX25519.getPublicKey(sk));
    assert.equal(hex(x25519.getPublicKey(sk)), want, `key #${i}: comb vs noble`);
    assert.equal(hex(ladder.getPublicKey(sk)), want, `key #${i}: ladder vs noble`);
  }
  for (let i = 0; i < 8; i++) {
    const sk = rng.bytes(32);
    const node = crypto.createPublicKey(crypto.createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b656e04220420', 'hex'), sk]), format: 'der', type: 'pkcs8' }));
    const raw = node.export({ format: 'der', type: 'spki' }).subarray(12);
    assert.equal(hex(x25519.getPublicKey(sk)), hex(raw), `OpenSSL #${i}`);
  }
  // negative controls: the comb and the field broken in the Ed25519 module show in X25519 keys
  const controls: [string, Ed25519Flags][] = [
    ['entry 6 of each comb row wrong', { wrongEntry: true }],
    ['a carry lost in the field products', { dropCarry: true }],
  ];
  for (const [name, flags] of controls) {
    const broken = makeEd25519(await controlSource(`ed25519_x_${name}`, () => generateEd25519(flags)), true);
    const x = makeX25519(x25519Module, true, (sk) => x25519BaseVia(broken, sk));
    const wrong = keys.filter((sk) => hex(x.getPublicKey(sk)) !== hex(nobleX25519.getPublicKey(sk))).length;
    assert.ok(wrong > 0, `${name}: not noticed`);
  }
  // wiping: the ed25519 module holds nothing of the key (the table slot is public multiples of B)
  const ek = ed25519Kernel(ed25519);
  const ws = ek.exports.WS_SIZE.value as number;
  for (let i = 0; i < 6; i++) {
    const sk = rng.bytes(32);
    const pk = x25519.getPublicKey(sk);
    const clamped = sk.slice();
    clamped[0] &= 248;
    clamped[31] = (clamped[31] & 127) | 64;
    const mem = ek.u8;
    assert.ok(
      mem.subarray(IO_PTR, IO_PTR + 4096).every((b) => b === 0),
      'ed25519 IO area wiped',
    );
    assert.ok(
      mem.subarray(SCRATCH_PTR, SCRATCH_PTR + ws).every((b) => b === 0),
      'ed25519 work space wiped',
    );
    const find = (needle: Uint8Array) => Buffer.from(mem.buffer, mem.byteOffset, mem.length).indexOf(Buffer.from(needle.subarray(4, 16))) >= 0;
    assert.ok(!find(sk) && !find(clamped) && !find(pk), `#${i}: key, clamped key or public key left in the ed25519 module`);
  }
  assert.throws(() => x25519BaseVia({} as never, new Uint8Array(32)), /not an Ed25519 object/);
});

test('constant-time checker: the shipped module and the scalar ladder are clean', async () => {
  for (const [name, bytes] of [
    ['x25519', x25519Module.bytes()],
    ['x25519 (scalar)', await scalarBytes()],
  ] as const) {
    const report = checkModule(name, bytes);
    assert.deepEqual(report.violations.map(formatViolation), [], name);
  }
});

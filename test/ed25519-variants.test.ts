// Ed25519ctx and Ed25519ph (RFC 8032 section 5.1) through ed25519's options { context, prehash }:
// the vectors of sections 7.2 and 7.3, @noble/curves' ed25519ctx and ed25519ph both ways on
// random keys, contexts (1–255 bytes, empty for ph) and messages (short and above the one-call
// hashing length), signatures that must not verify under another scheme or context, and the
// typed errors for each bad option. Plain Ed25519 keeps its own suite (ed25519.test.ts).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { ed25519ctx as nobleCtx, ed25519ph as noblePh } from '@noble/curves/ed25519.js';
import { type Ed25519Options, ed25519 } from '../src/ec/index.js';
import { CtkitRangeError, CtkitTypeError } from '../src/errors.js';
import { Rng, hex, unhex } from './support/rng.js';

// RFC 8032 section 7.2 (Ed25519ctx): secret key, public key, message, context, signature
const CTX: [string, string, string, string, string][] = [
  [
    '0305334e381af78f141cb666f6199f57bc3495335a256a95bd2a55bf546663f6',
    'dfc9425e4f968f7f0c29f0259cf5f9aed6851c2bb4ad8bfb860cfee0ab248292',
    'f726936d19c800494e3fdaff20b276a8',
    '666f6f',
    '55a4cc2f70a54e04288c5f4cd1e45a7bb520b36292911876cada7323198dd87a8b36950b95130022907a7fb7c4e9b2d5f6cca685a587b4b21f4b888e4e7edb0d',
  ],
  [
    '0305334e381af78f141cb666f6199f57bc3495335a256a95bd2a55bf546663f6',
    'dfc9425e4f968f7f0c29f0259cf5f9aed6851c2bb4ad8bfb860cfee0ab248292',
    'f726936d19c800494e3fdaff20b276a8',
    '626172',
    'fc60d5872fc46b3aa69f8b5b4351d5808f92bcc044606db097abab6dbcb1aee3216c48e8b3b66431b5b186d1d28f8ee15a5ca2df6668346291c2043d4eb3e90d',
  ],
  [
    '0305334e381af78f141cb666f6199f57bc3495335a256a95bd2a55bf546663f6',
    'dfc9425e4f968f7f0c29f0259cf5f9aed6851c2bb4ad8bfb860cfee0ab248292',
    '508e9e6882b979fea900f62adceaca35',
    '666f6f',
    '8b70c1cc8310e1de20ac53ce28ae6e7207f33c3295e03bb5c0732a1d20dc64908922a8b052cf99b7c4fe107a5abb5b2c4085ae75890d02df26269d8945f84b0b',
  ],
  [
    'ab9c2853ce297ddab85c993b3ae14bcad39b2c682beabc27d6d4eb20711d6560',
    '0f1d1274943b91415889152e893d80e93275a1fc0b65fd71b4b0dda10ad7d772',
    'f726936d19c800494e3fdaff20b276a8',
    '666f6f',
    '21655b5f1aa965996b3f97b3c849eafba922a0a62992f73b3d1b73106a84ad85e9b86a7b6005ea868337ff2d20a7f5fbd4cd10b0be49a68da2b2e0dc0ad8960f',
  ],
];

// RFC 8032 section 7.3 (Ed25519ph, empty context): secret key, public key, message, signature
const PH: [string, string, string, string] = [
  '833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42',
  'ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf',
  '616263',
  '98a70222f0b8121aa9d30f813d683f809e462b469c7ff87639499bb94e6dae4131f85042463c2a355a2003d062adf5aaa10b8c61e636062aaad11c2a26083406',
];

/** sign through both entry points (one-shot and a prepared key), which must agree */
function signBoth(msg: Uint8Array, sk: Uint8Array, o: Ed25519Options): Uint8Array {
  const one = ed25519.sign(msg, sk, o);
  const key = ed25519.signingKey(sk);
  try {
    assert.equal(hex(key.sign(msg, o)), hex(one), 'signingKey().sign and sign agree');
  } finally {
    key.dispose();
  }
  return one;
}

test('RFC 8032 section 7.2 (Ed25519ctx) and 7.3 (Ed25519ph): signatures byte for byte, each verifies', () => {
  for (const [sk, pk, msg, ctx, sig] of CTX) {
    const o = { context: unhex(ctx) };
    assert.equal(hex(ed25519.getPublicKey(unhex(sk))), pk);
    assert.equal(hex(signBoth(unhex(msg), unhex(sk), o)), sig, `ctx ${ctx}, msg ${msg}`);
    assert.equal(ed25519.verify(unhex(sig), unhex(msg), unhex(pk), o), true);
    // the same signature under plain Ed25519, Ed25519ph or another context: refused
    assert.equal(ed25519.verify(unhex(sig), unhex(msg), unhex(pk)), false, 'as plain Ed25519');
    assert.equal(ed25519.verify(unhex(sig), unhex(msg), unhex(pk), { ...o, prehash: true }), false, 'as Ed25519ph');
    assert.equal(ed25519.verify(unhex(sig), unhex(msg), unhex(pk), { context: unhex(ctx === '666f6f' ? '626172' : '666f6f') }), false, 'another context');
    assert.equal(ed25519.verify(unhex(sig), unhex(msg), unhex(pk), { ...o, zip215: true }), true, 'ZIP 215 rules with a context');
  }
  const [sk, pk, msg, sig] = PH;
  for (const o of [{ prehash: true }, { prehash: true, context: new Uint8Array(0) }]) {
    assert.equal(hex(signBoth(unhex(msg), unhex(sk), o)), sig);
    assert.equal(ed25519.verify(unhex(sig), unhex(msg), unhex(pk), o), true);
  }
  assert.equal(ed25519.verify(unhex(sig), unhex(msg), unhex(pk)), false, 'Ed25519ph signature as plain Ed25519');
  assert.equal(ed25519.verify(unhex(sig), unhex(msg), unhex(pk), { prehash: true, context: Uint8Array.of(0) }), false, 'another context');
  // plain Ed25519 over SHA-512(M) is section 7.1's TEST SHA(abc), not Ed25519ph: dom2 tells them apart
  const digest = new Uint8Array(crypto.createHash('sha512').update(unhex(msg)).digest());
  assert.equal(ed25519.verify(unhex(sig), digest, unhex(pk)), false, 'without dom2');
  assert.equal(hex(ed25519.sign(digest, unhex(sk))), 'dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704');
});

test('@noble/curves ed25519ctx and ed25519ph both ways: random keys, contexts and messages', () => {
  const rng = new Rng(8032);
  // message lengths around the one-call hashing limit (1024 bytes) too
  const lengths = [0, 1, 31, 64, 200, 1024, 1025, 3000];
  for (let i = 0; i < 48; i++) {
    const sk = rng.bytes(32);
    const pk = ed25519.getPublicKey(sk);
    const msg = rng.bytes(lengths[i % lengths.length]);
    const ph = i % 2 === 1;
    // context lengths: 1 and 255 (the limits), random otherwise; Ed25519ph also without one
    const n = i % 6 === 0 ? 255 : i % 6 === 2 ? 1 : ph && i % 6 === 3 ? 0 : 1 + rng.int(255);
    const context = rng.bytes(n);
    const o: Ed25519Options = ph ? { prehash: true, context } : { context };
    const peer = ph ? noblePh : nobleCtx;
    const ours = signBoth(msg, sk, o);
    assert.equal(hex(ours), hex(peer.sign(msg, sk, { context })), `#${i}: ${ph ? 'ph' : 'ctx'}, context ${n} bytes, msg ${msg.length} bytes`);
    assert.equal(peer.verify(ours, msg, pk, { context }), true);
    assert.equal(ed25519.verify(ours, msg, pk, o), true);
    // tampered: a bit of the signature, of the message, of the context
    const bad = ours.slice();
    bad[rng.int(64)] ^= 1 << rng.int(8);
    assert.equal(ed25519.verify(bad, msg, pk, o), false, `#${i}: signature bit`);
    if (msg.length > 0) {
      const m2 = msg.slice();
      m2[rng.int(m2.length)] ^= 1;
      assert.equal(ed25519.verify(ours, m2, pk, o), false, `#${i}: message bit`);
    }
    if (n > 0) {
      const c2 = context.slice();
      c2[rng.int(n)] ^= 0x80;
      assert.equal(ed25519.verify(ours, msg, pk, { ...o, context: c2 }), false, `#${i}: context bit`);
    }
    assert.equal(ed25519.verify(ours, msg, pk, { ...o, prehash: !ph, context: n === 0 ? Uint8Array.of(0) : context }), false, `#${i}: the other scheme`);
  }
});

test('typed errors: a context too long, an empty Ed25519ctx context, options of the wrong type', () => {
  const sk = new Uint8Array(32).fill(7);
  const pk = ed25519.getPublicKey(sk);
  const msg = Uint8Array.of(1, 2, 3);
  const sig = ed25519.sign(msg, sk, { context: Uint8Array.of(1) });
  const key = ed25519.signingKey(sk);
  const calls: [string, (o: Ed25519Options) => unknown][] = [
    ['sign', (o) => ed25519.sign(msg, sk, o)],
    ['signingKey().sign', (o) => key.sign(msg, o)],
    ['verify', (o) => ed25519.verify(sig, msg, pk, o)],
  ];
  for (const [name, f] of calls) {
    assert.throws(
      () => f({ context: new Uint8Array(256) }),
      (e: Error) => e instanceof CtkitRangeError && /at most 255 bytes .*got 256/.test(e.message),
      `${name}: 256 bytes`,
    );
    assert.throws(() => f({ context: new Uint8Array(256), prehash: true }), CtkitRangeError, `${name}: 256 bytes, ph`);
    assert.throws(
      () => f({ context: new Uint8Array(0) }),
      (e: Error) => e instanceof CtkitRangeError && /1 to 255 bytes for Ed25519ctx/.test(e.message),
      `${name}: empty ctx`,
    );
    assert.throws(() => f({ context: new Uint8Array(0), prehash: false }), CtkitRangeError, `${name}: empty ctx, prehash false`);
    assert.throws(() => f({ context: 'foo' as unknown as Uint8Array }), CtkitTypeError, `${name}: a string context`);
    assert.throws(
      () => f({ prehash: 1 as unknown as boolean }),
      (e: Error) => e instanceof CtkitTypeError && /prehash must be a boolean/.test(e.message),
      `${name}: prehash 1`,
    );
    assert.throws(() => f('ctx' as never), CtkitTypeError, `${name}: options a string`);
    // the limits themselves are accepted
    assert.doesNotThrow(() => f({ context: new Uint8Array(255) }));
    assert.doesNotThrow(() => f({ context: new Uint8Array(255), prehash: true }));
  }
  key.dispose();
  // prehash: false and no context is plain Ed25519
  assert.equal(hex(ed25519.sign(msg, sk, { prehash: false })), hex(ed25519.sign(msg, sk)));
  assert.equal(hex(ed25519.sign(msg, sk, {})), hex(ed25519.sign(msg, sk)));
});

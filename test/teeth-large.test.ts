// Large messages (issue 18): the streamed path above the 64 KiB scratch window, for every AEAD.
//
// 1. The tamper and wipe property at lengths below, at and above every boundary of the glue —
//    the largest text that fits one kernel call with the AAD, the scratch window, two windows —
//    with a flipped bit of the ciphertext, the tag, the nonce or the AAD: open() throws
//    AuthenticationError, the caller's output is all zero, and the module's IO area and scratch
//    are all zero (no plaintext left behind). Each flip runs either in place (output = the
//    sealed buffer) or into a separate buffer, alternately, so both modes see every target and
//    every chunk. At 70,000 bytes (two chunks) every bit of tag, nonce and AAD is flipped and
//    128 + edge positions of the ciphertext; at the boundary lengths one bit per byte of tag,
//    nonce and AAD and 16 + edge ciphertext positions (see ctFlips in support/teeth.ts for why
//    these positions cover what the glue can get wrong).
//    Kills: a ChaCha20-Poly1305 open whose streamed tag check is cut to its first byte; a failed
//    ChaCha20-Poly1305 / AES-GCM-SIV streamed open that leaves plaintext in the output.
// 2. AES-GCM and SM4-GCM above 64 KiB with nonces that are not 12 bytes and short AADs, against
//    OpenSSL / the reference model (J0 hashes the nonce through scratch first; the AAD's zero
//    padding then covers nonce bytes left there).
// 3. One-shot GHASH / POLYVAL above 64 KiB with a length that is not a multiple of 16: the
//    partial block of the last chunk is zero-padded although scratch still holds the previous
//    chunk. Expected values from the reference field arithmetic (src/ref), by a shortcut that
//    keeps them cheap: the data is zero after its first three blocks up to the tail, so the state
//    after the first chunk is the three blocks' hash times H^(4096 − 3).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCipheriv } from 'node:crypto';
import type { Aead } from '../src/aead/types.js';
import { aesGcm, sm4Gcm } from '../src/aead/index.js';
import { AuthenticationError } from '../src/errors.js';
import { ghash, polyval } from '../src/mac/index.js';
import { getKernel } from '../src/engine/kernel.js';
import * as gf128Module from '../src/engine/wasm/gf128.js';
import { ghashRef } from '../src/ref/ghash.js';
import { polyvalRef } from '../src/ref/polyval.js';
import { sm4GcmSealRef } from '../src/ref/sm4.js';
import { AEADS, type AeadCase, type Flip, W, assertIoScratchZero, expectedHash, flips, pad16 } from './support/teeth.js';
import { Rng, hex } from './support/rng.js';

const rng = new Rng(0x7ee7);
const AAD = 13;

function tampered(sealed: Uint8Array, nonce: Uint8Array, aad: Uint8Array, n: number, f: Flip): { s: Uint8Array; nonce: Uint8Array; aad: Uint8Array } {
  const flip = (v: Uint8Array, bit: number) => {
    const t = v.slice();
    t[bit >> 3] ^= 1 << (bit & 7);
    return t;
  };
  switch (f.target) {
    case 'ct':
      return { s: flip(sealed, f.bit), nonce, aad };
    case 'tag':
      return { s: flip(sealed, 8 * n + f.bit), nonce, aad };
    case 'nonce':
      return { s: sealed.slice(), nonce: flip(nonce, f.bit), aad };
    case 'aad':
      return { s: sealed.slice(), nonce, aad: flip(aad, f.bit) };
  }
}

/** Runs every flip against `a`; returns how many were rejected with everything wiped. */
function assertTamperProperty(c: AeadCase, a: Aead, n: number, full: boolean): number {
  const key = `${c.name} n=${n}`;
  const nonce = rng.bytes(c.nonceLength);
  const aad = rng.bytes(AAD);
  const pt = rng.bytes(n);
  const sealed = a.seal(nonce, pt, aad);
  assert.equal(sealed.length, n + 16, key);
  const k = c.kernel();
  const all = flips(n, 16, c.nonceLength, AAD, full);
  let rejected = 0;
  for (const [i, f] of all.entries()) {
    const t = tampered(sealed, nonce, aad, n, f);
    const inPlace = i % 2 === 1;
    const out = inPlace ? t.s.subarray(0, n) : new Uint8Array(n).fill(0xee);
    const what = `${key}: ${f.target} bit ${f.bit} flipped, ${inPlace ? 'in place' : 'separate output'}`;
    assert.throws(() => a.open(t.nonce, t.s, t.aad, out), AuthenticationError, what);
    if (!out.every((b) => b === 0)) assert.fail(`${what}: the output is not all zero after the failure`);
    assertIoScratchZero(k, what);
    rejected++;
  }
  // the untampered message still opens, in both modes
  assert.equal(hex(a.open(nonce, sealed, aad)), hex(pt), `${key}: untampered`);
  const buf = sealed.slice();
  assert.equal(hex(a.open(nonce, buf, aad, buf.subarray(0, n))), hex(pt), `${key}: untampered in place`);
  assertIoScratchZero(k, `${key}: after a good open`);
  return rejected;
}

for (const c of AEADS) {
  test(`${c.name}: every bit of tag, nonce and AAD and a spread over the ciphertext of a 70,000-byte message, in place and separate: rejected, output and scratch zero`, () => {
    const key = rng.bytes(c.keyLength);
    const a = c.make(key);
    // seal equals OpenSSL where it has the algorithm (the family suites hold the others to src/ref)
    if (c.fastRef) {
      const nonce = rng.bytes(c.nonceLength),
        aad = rng.bytes(AAD),
        pt = rng.bytes(70_000);
      assert.equal(hex(a.seal(nonce, pt, aad)), hex(c.sealRef(key, nonce, pt, aad)), `${c.name}: seal`);
    }
    const rejected = assertTamperProperty(c, a, 70_000, true);
    assert.ok(rejected >= 128 + 8 * (16 + c.nonceLength + AAD), `${c.name}: ${rejected} flips`);
    a.dispose();
  });

  const F = c.fitsOnce(AAD);
  const lengths = [...new Set([F - 1, F, F + 1, W - 1, W, W + 1, 2 * W - 1, 2 * W, 2 * W + 1])].sort((x, y) => x - y);
  test(`${c.name}: lengths ${lengths.join(', ')} (the one-call fit, the window, two windows): tampering rejected, output and scratch zero`, () => {
    const key = rng.bytes(c.keyLength);
    const a = c.make(key);
    for (const n of lengths) assertTamperProperty(c, a, n, false);
    a.dispose();
  });
}

test('AES-GCM above 64 KiB: nonces of 1, 8, 13, 16 and 60 bytes with AADs of 0, 1, 5, 15, 16 and 17 bytes equal OpenSSL', () => {
  for (const kl of [16, 32]) {
    const key = rng.bytes(kl);
    const a = aesGcm(key);
    for (const nl of [1, 8, 13, 16, 60]) {
      for (const al of [0, 1, 5, 15, 16, 17]) {
        for (const n of [W - 16, W + 1, 2 * W + 5]) {
          const nonce = rng.bytes(nl),
            aad = rng.bytes(al),
            pt = rng.bytes(n);
          const c = createCipheriv(`aes-${kl * 8}-gcm` as 'aes-128-gcm', key, nonce);
          c.setAAD(aad);
          const expected = Buffer.concat([c.update(pt), c.final(), c.getAuthTag()]);
          const what = `aes-${kl * 8}-gcm nonce ${nl} aad ${al} n ${n}`;
          const sealed = a.seal(nonce, pt, aad);
          assert.equal(hex(sealed), expected.toString('hex'), what);
          assert.equal(hex(a.open(nonce, expected, aad)), hex(pt), `${what}: open`);
        }
      }
    }
    a.dispose();
  }
});

test('SM4-GCM above 64 KiB: a 16-byte and a 5-byte nonce with a 3-byte AAD equal the reference model', () => {
  const key = rng.bytes(16);
  const a = sm4Gcm(key);
  for (const nl of [16, 5]) {
    const nonce = rng.bytes(nl),
      aad = rng.bytes(3),
      pt = rng.bytes(W + 33);
    const r = sm4GcmSealRef(key, nonce, pt, aad);
    const sealed = a.seal(nonce, pt, aad);
    assert.equal(hex(sealed.subarray(pt.length)), hex(r.tag), `sm4-gcm nonce ${nl}: tag`);
    assert.equal(hex(sealed.subarray(0, pt.length)), hex(r.ciphertext), `sm4-gcm nonce ${nl}: ciphertext`);
  }
  a.dispose();
});

test('the expected-value shortcut agrees with the plain reference on a short input', () => {
  const h = rng.bytes(16),
    head = rng.bytes(48),
    tail = rng.bytes(21);
  for (const kind of ['ghash', 'polyval'] as const) {
    const data = new Uint8Array(48 + 16 * 13 + 21);
    data.set(head);
    data.set(tail, 48 + 16 * 13);
    const plain = kind === 'ghash' ? ghashRef(h, data) : polyvalRef(h, data);
    assert.equal(hex(expectedHash(kind, h, head, 13, tail)), hex(plain), kind);
  }
});

test('one-shot GHASH and POLYVAL above 64 KiB with lengths 64 KiB + 1, 5, 15, 17, 33, 47: the last chunk is zero-padded', () => {
  const k = getKernel<unknown>(gf128Module, 4096);
  for (const r of [1, 5, 15, 17, 33, 47]) {
    const h = rng.bytes(16);
    const head = rng.bytes(48);
    const tail = rng.bytes(r);
    const data = new Uint8Array(W + r);
    data.set(head);
    data.set(tail, W);
    // non-zero bytes where the padding of the tail lands in scratch: the head's 3 blocks
    assert.ok(pad16(r) <= 48);
    for (const kind of ['ghash', 'polyval'] as const) {
      const got = (kind === 'ghash' ? ghash : polyval)(h, data);
      assert.equal(hex(got), hex(expectedHash(kind, h, head, W / 16 - 3, tail)), `${kind} of ${W} + ${r} bytes`);
      // incremental, in pieces that straddle the window, gives the same value
      const inc = (kind === 'ghash' ? ghash : polyval).create(h);
      inc
        .update(data.subarray(0, 1000))
        .update(data.subarray(1000, W + 3))
        .update(data.subarray(W + 3));
      assert.equal(hex(inc.digest()), hex(got), `${kind} incremental`);
      assertIoScratchZero(k, `${kind} one-shot`);
    }
  }
});

// The reference models in src/ref/ (AES, GCM, GCM-SIV) against the known answers of their
// standards, so that the kernels are later held against a reference that is itself checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aesEncryptBlockRef, aesExpandKeyRef, sbox } from '../src/ref/aes.js';
import { gcmOpenRef, gcmSealRef } from '../src/ref/gcm.js';
import { gcmSivOpenRef, gcmSivSealRef, sivDeriveKeysRef } from '../src/ref/gcm-siv.js';
import { FIPS197_CIPHER, FIPS197_EXPANSION, GCM_SPEC, RFC8452 } from './support/aes-vectors.js';
import { hex, unhex } from './support/rng.js';

test('S-box from its definition: FIPS 197 Table 4 spot values and a permutation', () => {
  const s = sbox();
  assert.equal(s[0x00], 0x63);
  assert.equal(s[0x53], 0xed); // FIPS 197 section 5.1.1 example
  assert.equal(s[0xff], 0x16);
  assert.equal(new Set(s).size, 256);
});

test('reference key expansion: FIPS 197 Appendix A', () => {
  for (const v of FIPS197_EXPANSION) {
    const rks = aesExpandKeyRef(unhex(v.key));
    assert.equal(hex(rks[1]), v.round1, v.source);
    assert.equal(hex(rks[rks.length - 1]), v.last, v.source);
  }
});

test('reference cipher: FIPS 197 Appendices B and C', () => {
  for (const v of FIPS197_CIPHER) assert.equal(hex(aesEncryptBlockRef(unhex(v.key), unhex(v.pt))), v.ct, v.source);
});

test('reference GCM: the GCM specification test cases 1-18', () => {
  for (const v of GCM_SPEC) {
    const { ciphertext, tag } = gcmSealRef(unhex(v.key), unhex(v.nonce), unhex(v.pt), unhex(v.aad));
    assert.equal(hex(ciphertext), v.ct, v.source);
    assert.equal(hex(tag), v.tag, v.source);
    assert.equal(hex(gcmOpenRef(unhex(v.key), unhex(v.nonce), unhex(v.ct), unhex(v.aad), unhex(v.tag))!), v.pt, v.source);
    const bad = unhex(v.tag);
    bad[0] ^= 1;
    assert.equal(gcmOpenRef(unhex(v.key), unhex(v.nonce), unhex(v.ct), unhex(v.aad), bad), null, v.source);
  }
});

test('reference GCM-SIV: RFC 8452 Appendix C (selection, with C.3 counter wrap) and key derivation', () => {
  const d = sivDeriveKeysRef(unhex('01000000000000000000000000000000'), unhex('030000000000000000000000'));
  assert.equal(hex(d.authKey), 'd9b360279694941ac5dbc6987ada7377');
  assert.equal(hex(d.encKey), '4004a0dcd862f2a57360219d2d44ef6c');
  for (const v of RFC8452) {
    const { ciphertext, tag } = gcmSivSealRef(unhex(v.key), unhex(v.nonce), unhex(v.pt), unhex(v.aad));
    assert.equal(hex(ciphertext), v.ct, v.source);
    assert.equal(hex(tag), v.tag, v.source);
    assert.equal(hex(gcmSivOpenRef(unhex(v.key), unhex(v.nonce), unhex(v.ct), unhex(v.aad), unhex(v.tag))!), v.pt, v.source);
    const bad = unhex(v.tag);
    bad[15] ^= 0x80;
    assert.equal(gcmSivOpenRef(unhex(v.key), unhex(v.nonce), unhex(v.ct), unhex(v.aad), bad), null, v.source);
  }
});

// A Node.js Buffer's slice() is a view: the models once "copied" the tag (GCM-SIV's counter
// block), the initial counter and blocks that way, and wrote into the caller's Buffer: a valid
// GCM-SIV message whose tag's top bit was clear then failed to open. The RFC vectors, as Buffers.
test('reference models take Buffers as they take Uint8Arrays, and leave their inputs alone', () => {
  let clear = 0;
  for (const v of RFC8452) {
    const args = [v.key, v.nonce, v.ct, v.aad, v.tag].map((h) => Buffer.from(h, 'hex'));
    const before = args.map((b) => b.toString('hex'));
    assert.equal(hex(gcmSivOpenRef(args[0], args[1], args[2], args[3], args[4])!), v.pt, v.source);
    const sealArgs = [v.key, v.nonce, v.pt, v.aad].map((h) => Buffer.from(h, 'hex'));
    assert.equal(hex(gcmSivSealRef(sealArgs[0], sealArgs[1], sealArgs[2], sealArgs[3]).tag), v.tag, v.source);
    assert.deepEqual(
      args.map((b) => b.toString('hex')),
      before,
      v.source,
    );
    if ((args[4][15] & 0x80) === 0) clear++;
  }
  assert.ok(clear > 0, 'no vector has a tag with its top bit clear');
  for (const v of GCM_SPEC) {
    const args = [v.key, v.nonce, v.ct, v.aad, v.tag].map((h) => Buffer.from(h, 'hex'));
    const before = args.map((b) => b.toString('hex'));
    assert.equal(hex(gcmOpenRef(args[0], args[1], args[2], args[3], args[4])!), v.pt);
    assert.deepEqual(
      args.map((b) => b.toString('hex')),
      before,
    );
  }
  const block = Buffer.from(FIPS197_CIPHER[0].pt, 'hex');
  assert.equal(hex(aesEncryptBlockRef(Buffer.from(FIPS197_CIPHER[0].key, 'hex'), block)), FIPS197_CIPHER[0].ct);
  assert.equal(block.toString('hex'), FIPS197_CIPHER[0].pt);
});

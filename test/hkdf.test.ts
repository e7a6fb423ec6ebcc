// HKDF (RFC 5869): the appendix A test cases for SHA-256, HKDF-SHA-256/384/512 against OpenSSL
// (node:crypto hkdfSync) and the reference model over structured lengths, extract and expand
// apart, the 255·HashLen limit, typed errors, and no key material left in the sha2 kernel.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, hkdfSync } from 'node:crypto';
import { hkdf, sha224, sha256, sha384, sha512, type Hash } from '../src/hash/index.js';
import * as root from '../src/index.js';
import { CtkitRangeError, CtkitTypeError } from '../src/errors.js';
import { getKernel, IO_PTR, SCRATCH_PTR, SCRATCH_SIZE } from '../src/engine/kernel.js';
import * as sha2Module from '../src/engine/wasm/sha2.js';
import { SLOT_SIZE, type Sha2Exports } from '../src/hash/sha2.js';
import { hkdfExpandRef, hkdfExtractRef, hkdfRef } from '../src/ref/hkdf.js';
import { refHashes } from '../src/ref/sha2.js';
import { Rng, hex, unhex } from './support/rng.js';

// RFC 5869 appendix A, test cases 1-3 (SHA-256). Cases 4-7 use SHA-1, which ctkit does not have.
const RFC5869 = [
  {
    ikm: '0b'.repeat(22),
    salt: '000102030405060708090a0b0c',
    info: 'f0f1f2f3f4f5f6f7f8f9',
    L: 42,
    prk: '077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5',
    okm: '3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865',
  },
  {
    ikm: Array.from({ length: 80 }, (_, i) => i.toString(16).padStart(2, '0')).join(''),
    salt: Array.from({ length: 80 }, (_, i) => (0x60 + i).toString(16).padStart(2, '0')).join(''),
    info: Array.from({ length: 80 }, (_, i) => (0xb0 + i).toString(16).padStart(2, '0')).join(''),
    L: 82,
    prk: '06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244',
    okm: 'b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87',
  },
  {
    ikm: '0b'.repeat(22),
    salt: '',
    info: '',
    L: 42,
    prk: '19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04',
    okm: '8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8',
  },
];

const HASHES: [string, Hash, 'sha224' | 'sha256' | 'sha384' | 'sha512'][] = [
  ['sha224', sha224, 'sha224'],
  ['sha256', sha256, 'sha256'],
  ['sha384', sha384, 'sha384'],
  ['sha512', sha512, 'sha512'],
];

test('RFC 5869 appendix A.1-A.3 (HKDF-SHA-256): PRK and OKM', () => {
  for (const [i, v] of RFC5869.entries()) {
    const [ikm, salt, info] = [unhex(v.ikm), unhex(v.salt), unhex(v.info)];
    assert.equal(hex(hkdf.extract(sha256, ikm, salt)), v.prk, `A.${i + 1} PRK`);
    assert.equal(hex(hkdf.expand(sha256, unhex(v.prk), info, v.L)), v.okm, `A.${i + 1} OKM (expand)`);
    assert.equal(hex(hkdf(sha256, ikm, salt, info, v.L)), v.okm, `A.${i + 1} OKM (hkdf)`);
    // the reference model agrees (it is what the differential cases below trust)
    assert.equal(hex(hkdfRef(refHashes.sha256, ikm, salt, info, v.L)), v.okm, `A.${i + 1} reference`);
  }
  // A.3 has a zero-length salt; an absent salt is HashLen zeros, which HMAC treats the same
  assert.equal(hex(hkdf(sha256, unhex(RFC5869[2].ikm), undefined, undefined, 42)), RFC5869[2].okm);
});

test('HKDF-SHA-224/256/384/512 equal OpenSSL and the reference: every length class up to 255·HashLen', () => {
  const rng = new Rng(5869);
  let n = 0;
  for (const [name, hash, ref] of HASHES) {
    const H = hash.outputLen;
    const lengths = [0, 1, H - 1, H, H + 1, 2 * H, 2 * H + 1, 3 * H - 1, 100, 254 * H + 1, 255 * H];
    for (const L of lengths) {
      for (const [il, sl, nl] of [
        [0, 0, 0],
        [1, 1, 1],
        [22, 13, 10],
        [80, 80, 80],
        [200, 300, 500],
        [16, 129, 255],
      ]) {
        const ikm = rng.bytes(il),
          salt = rng.bytes(sl),
          info = rng.bytes(nl);
        const got = hkdf(hash, ikm, salt, info, L);
        const want = new Uint8Array(hkdfSync(name, ikm, salt, info, L));
        assert.equal(hex(got), hex(want), `${name} L=${L} ikm ${il} salt ${sl} info ${nl}`);
        if (L <= 4 * H) assert.equal(hex(got), hex(hkdfRef(refHashes[ref], ikm, salt, info, L)), `${name} L=${L}: reference`);
        n++;
      }
    }
    // extract and expand apart, against HMAC in OpenSSL and the reference
    const ikm = rng.bytes(33),
      salt = rng.bytes(7),
      info = rng.bytes(5);
    const prk = hkdf.extract(hash, ikm, salt);
    assert.equal(hex(prk), createHmac(name, salt).update(ikm).digest('hex'), `${name} extract`);
    assert.equal(hex(prk), hex(hkdfExtractRef(refHashes[ref], ikm, salt)), `${name} extract: reference`);
    assert.equal(hex(hkdf.extract(hash, ikm)), hex(hkdfExtractRef(refHashes[ref], ikm)), `${name} extract without salt`);
    assert.equal(hex(hkdf.expand(hash, prk, info, 3 * H + 5)), hex(hkdfExpandRef(refHashes[ref], prk, info, 3 * H + 5)), `${name} expand`);
    // a long PRK (longer than the block: HMAC hashes it first)
    const longPrk = rng.bytes(300);
    assert.equal(hex(hkdf.expand(hash, longPrk, info, 2 * H)), hex(hkdfExpandRef(refHashes[ref], longPrk, info, 2 * H)), `${name} expand, long PRK`);
  }
  console.log(`# hkdf differential: ${n} cases against node:crypto`);
});

test('the length limit and typed errors', () => {
  const ikm = new Uint8Array(16);
  for (const [, hash] of HASHES) {
    const max = 255 * hash.outputLen;
    assert.equal(hkdf(hash, ikm, undefined, undefined, max).length, max);
    assert.equal(hkdf.expand(hash, ikm, undefined, max).length, max);
    for (const bad of [max + 1, -1, 1.5, Number.NaN, Infinity]) {
      assert.throws(() => hkdf(hash, ikm, undefined, undefined, bad), CtkitRangeError, `hkdf length ${bad}`);
      assert.throws(() => hkdf.expand(hash, ikm, undefined, bad), CtkitRangeError, `expand length ${bad}`);
    }
    assert.throws(() => hkdf(hash, ikm, undefined, undefined, max + 1), new RegExp(`0 to ${max}`));
  }
  assert.throws(() => hkdf(sha256, ikm, undefined, undefined, '32' as unknown as number), CtkitTypeError);
  assert.throws(() => hkdf.expand(sha256, ikm, undefined, undefined as unknown as number), CtkitTypeError);
  assert.throws(() => hkdf(sha256, 'ikm' as unknown as Uint8Array, undefined, undefined, 32), /ikm must be a Uint8Array/);
  assert.throws(() => hkdf(sha256, ikm, [1] as unknown as Uint8Array, undefined, 32), /salt must be a Uint8Array/);
  assert.throws(() => hkdf(sha256, ikm, undefined, 'x' as unknown as Uint8Array, 32), /info must be a Uint8Array/);
  assert.throws(() => hkdf.expand(sha256, null as unknown as Uint8Array, undefined, 32), /prk must be a Uint8Array/);
  assert.throws(() => hkdf((() => new Uint8Array(32)) as unknown as Hash, ikm, undefined, undefined, 32), CtkitTypeError);
  assert.equal(root.hkdf, hkdf, 'exported from the package root');
});

test('no key material stays in the sha2 kernel or in the buffers after a call', () => {
  const k = getKernel<Sha2Exports>(sha2Module, SLOT_SIZE);
  const rng = new Rng(17);
  for (const [, hash] of HASHES) {
    const ikm = rng.bytes(40),
      salt = rng.bytes(20),
      info = rng.bytes(30);
    const okm = hkdf(hash, ikm, salt, info, 3 * hash.outputLen);
    const prk = hkdf.extract(hash, ikm, salt);
    const mem = k.u8;
    const contains = (needle: Uint8Array) => {
      const n = needle.subarray(0, 16);
      outer: for (let i = 0; i + n.length <= mem.length; i++) {
        for (let j = 0; j < n.length; j++) if (mem[i + j] !== n[j]) continue outer;
        return true;
      }
      return false;
    };
    assert.ok(!contains(prk), 'the PRK is not left in kernel memory');
    for (let off = 0; off < okm.length; off += hash.outputLen) assert.ok(!contains(okm.subarray(off)), `T(${off / hash.outputLen + 1}) not left in kernel memory`);
    assert.ok(
      mem.subarray(IO_PTR, IO_PTR + 256).every((b) => b === 0),
      'IO area wiped',
    );
    assert.ok(
      mem.subarray(SCRATCH_PTR, SCRATCH_PTR + SCRATCH_SIZE).every((b) => b === 0),
      'scratch wiped',
    );
  }
});

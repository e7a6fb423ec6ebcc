// The branch-free base64/base64url of src/ec/der.ts (private keys pass through it in PEM and
// JWK) against Node's Buffer, and its rejection of every character outside the alphabet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { base64, base64url, unbase64, unbase64url } from '../src/ec/der.js';
import { EncodingError } from '../src/errors.js';
import { Rng } from './support/rng.js';

test('encode and decode equal Buffer for every length 0…300', () => {
  const rng = new Rng(64);
  for (let n = 0; n <= 300; n++) {
    const b = rng.bytes(n);
    assert.equal(base64(b), Buffer.from(b).toString('base64'), `base64 n=${n}`);
    assert.equal(base64url(b), Buffer.from(b).toString('base64url'), `base64url n=${n}`);
    assert.deepEqual(unbase64(Buffer.from(b).toString('base64'), 't'), b);
    assert.deepEqual(unbase64url(Buffer.from(b).toString('base64url'), 't'), b);
  }
  // every 6-bit value in every position
  const all = Uint8Array.from(
    { length: 48 },
    (_, i) =>
      [
        0x00, 0x10, 0x83, 0x10, 0x51, 0x87, 0x20, 0x92, 0x8b, 0x30, 0xd3, 0x8f, 0x41, 0x14, 0x93, 0x51, 0x55, 0x97, 0x61, 0x96, 0x9b, 0x71, 0xd7, 0x9f, 0x82, 0x18, 0xa3, 0x92, 0x59, 0xa7, 0xa2, 0x9a, 0xab, 0xb2, 0xdb, 0xaf, 0xc3, 0x1c, 0xb3, 0xd3,
        0x5d, 0xb7, 0xe3, 0x9e, 0xbb, 0xf3, 0xdf, 0xbf,
      ][i],
  );
  assert.equal(base64(all), 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/');
  assert.equal(base64url(all), 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_');
});

test('every character outside the alphabet is rejected with its position', () => {
  for (let c = 0; c < 384; c++) {
    const ch = String.fromCharCode(c);
    for (const url of [false, true]) {
      const ok = url ? /^[A-Za-z0-9_-]$/.test(ch) : /^[A-Za-z0-9+/]$/.test(ch);
      const s = 'QUI' + ch;
      if (ch === '=') {
        // padding: base64 takes it at the end, base64url refuses it
        if (url) assert.throws(() => unbase64url(s, 't'), /must not be padded/);
        else assert.deepEqual(unbase64(s, 't'), Uint8Array.of(0x41, 0x42));
        continue;
      }
      if (ok) assert.doesNotThrow(() => (url ? unbase64url : unbase64)(s, 't'), `${c} should decode`);
      else
        assert.throws(
          () => (url ? unbase64url : unbase64)(s, 't'),
          (e: unknown) => e instanceof EncodingError && /character at position 3/.test(e.message),
          `${c} should be rejected`,
        );
    }
  }
});

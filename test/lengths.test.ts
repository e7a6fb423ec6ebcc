// Length arithmetic at and above 2^31 without allocating: the predicates that choose between the
// one-call and the streamed paths, the padded lengths, and BlockBuffer's split into whole blocks,
// at every length from 2^31 − 16 to 2^31 + 16 and from 2^32 − 16 to 2^32 + 1 (where the 32-bit
// operators wrap), against BigInt arithmetic. test/aead-2gib.test.ts seals such messages.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blocks16, pad16, whole16 } from '../src/util/length.js';
import { gcmFitsOnce } from '../src/aead/gcm-mode.js';
import { chachaFitsOnce, macBlocks } from '../src/aead/chacha20-poly1305.js';
import { sivHashedBytes, sivUsesPowers, SIV_POWERS_THRESHOLD } from '../src/aead/aes-gcm-siv.js';
import { BlockBuffer } from '../src/util/block-buffer.js';
import { SCRATCH_SIZE } from '../src/engine/kernel.js';

const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
const BIG = [...range(2 ** 31 - 16, 2 ** 31 + 16), ...range(2 ** 32 - 16, 2 ** 32 + 1)];
const SMALL = [0, 1, 13, 15, 16, 17, 1000];

const bPad = (n: number) => Number(((BigInt(n) + 15n) / 16n) * 16n);
const bBlocks = (n: number) => Number((BigInt(n) + 15n) / 16n);
const bWhole = (n: number) => Number((BigInt(n) / 16n) * 16n);

test('pad16, blocks16 and whole16 are exact from 2^31 − 16 to 2^32 + 1 (and at 2^36, 2^38, 2^53 − 16)', () => {
  for (const n of [...BIG, ...SMALL, 2 ** 36 - 32, 2 ** 36, 2 ** 38 - 64, 2 ** 38 - 63, 2 ** 53 - 16]) {
    assert.equal(pad16(n), bPad(n), `pad16(${n})`);
    assert.equal(blocks16(n), bBlocks(n), `blocks16(${n})`);
    assert.equal(whole16(n), bWhole(n), `whole16(${n})`);
  }
});

test('GCM: a text or AAD of 2^31 − 16 … 2^32 + 1 bytes never takes the one-call path', () => {
  for (const big of BIG) {
    for (const small of SMALL) {
      assert.equal(gcmFitsOnce(big, small), false, `text ${big}, aad ${small}`);
      assert.equal(gcmFitsOnce(small, big), false, `text ${small}, aad ${big}`);
    }
    assert.equal(gcmFitsOnce(big, big), false);
  }
  // and the boundary itself: text and AAD padded to blocks fill the 64 KiB window exactly
  assert.equal(gcmFitsOnce(SCRATCH_SIZE - 16, 16), true);
  assert.equal(gcmFitsOnce(SCRATCH_SIZE - 16, 17), false);
  assert.equal(gcmFitsOnce(SCRATCH_SIZE - 31, 13), true);
  assert.equal(gcmFitsOnce(SCRATCH_SIZE - 15, 13), false);
  assert.equal(gcmFitsOnce(SCRATCH_SIZE, 0), true);
  assert.equal(gcmFitsOnce(SCRATCH_SIZE + 1, 0), false);
});

test('ChaCha20-Poly1305: MAC block counts and the one-call fit from 2^31 − 16 to 2^32 + 1', () => {
  for (const big of BIG) {
    for (const small of SMALL) {
      assert.equal(macBlocks(small, big), bBlocks(small) + bBlocks(big) + 1, `aad ${small}, text ${big}`);
      assert.equal(macBlocks(big, small), bBlocks(big) + bBlocks(small) + 1, `aad ${big}, text ${small}`);
      assert.equal(chachaFitsOnce(small, big), false, `aad ${small}, text ${big}`);
      assert.equal(chachaFitsOnce(big, small), false, `aad ${big}, text ${small}`);
    }
  }
  assert.equal(chachaFitsOnce(0, SCRATCH_SIZE - 16), true);
  assert.equal(chachaFitsOnce(0, SCRATCH_SIZE - 15), false);
  assert.equal(chachaFitsOnce(13, SCRATCH_SIZE - 32), true);
  assert.equal(chachaFitsOnce(13, SCRATCH_SIZE - 31), false);
});

test('AES-GCM-SIV: bytes hashed and the powers decision from 2^31 − 16 to 2^32 + 1', () => {
  for (const big of BIG) {
    for (const small of SMALL) {
      assert.equal(sivHashedBytes(small, big), bPad(small) + bPad(big) + 16);
      assert.equal(sivHashedBytes(big, small), bPad(big) + bPad(small) + 16);
      assert.equal(sivUsesPowers(small, big), true);
      assert.equal(sivUsesPowers(big, small), true);
    }
  }
  assert.equal(sivUsesPowers(0, SIV_POWERS_THRESHOLD - 16), true);
  assert.equal(sivUsesPowers(0, SIV_POWERS_THRESHOLD - 32), false);
});

/** A stand-in for a Uint8Array of `length` bytes: subarray() views are descriptors, except short ones. */
function fakeBytes(length: number, start = 0): Uint8Array {
  return {
    length,
    subarray(a = 0, b = length) {
      const end = Math.min(b, length);
      return end - a <= 16 ? new Uint8Array(end - a).fill(0x5a) : fakeBytes(end - a, start + a);
    },
    start,
  } as unknown as Uint8Array;
}

test('BlockBuffer passes every whole block of a 2^31 − 16 … 2^32 + 1-byte update on and keeps the tail', () => {
  for (const n of BIG) {
    for (const buffered of [0, 5]) {
      const b = new BlockBuffer();
      if (buffered) b.feed(new Uint8Array(buffered), () => assert.fail('no whole block yet'));
      const seen: number[] = [];
      b.feed(fakeBytes(n), (whole) => seen.push(whole.length));
      const first = buffered ? 16 - buffered : 0; // completes the buffered block
      const expected = [...(buffered ? [16] : []), ...(bWhole(n - first) > 0 ? [bWhole(n - first)] : [])];
      assert.deepEqual(seen, expected, `n=${n} buffered=${buffered}`);
      assert.equal(b.length, (n - first) % 16, `n=${n} buffered=${buffered}: the partial block`);
    }
  }
});

// Messages longer than 2^31 bytes (slow: ~40 s, ~4.5 GiB of memory). A message of 2^31 + 17
// bytes seals with AES-128-GCM and ChaCha20-Poly1305 exactly as OpenSSL (node:crypto) does.
// Before, AES-GCM took the one-call path for it (a 32-bit
// rounding wrapped to a negative length): an engine RangeError, or — once the module memory had
// grown past 2 GiB, as it has here — the message copied over every key slot, so that other key
// objects then encrypted under the caller's bytes. Both modules are grown past 2 GiB first, and
// key objects made before the big calls must still give OpenSSL's answers afterwards.
// test/lengths.test.ts covers the length arithmetic itself, up to 2^32 + 1, without allocating.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCipheriv } from 'node:crypto';
import { aesGcm, aesGcmSiv, chacha20Poly1305 } from '../src/aead/index.js';
import { aesKernel } from '../src/aead/aes-gcm.js';
import { chachaKernel } from '../src/mac/poly1305.js';
import { Rng } from './support/rng.js';

const N = 2 ** 31 + 17;
const STEP = 2 ** 26;
const rng = new Rng(0x2_31);

function grow(exports: unknown, bytes: number): void {
  const memory = (exports as { memory: WebAssembly.Memory }).memory;
  const pages = Math.ceil((bytes - memory.buffer.byteLength) / 65536);
  if (pages > 0) memory.grow(pages);
}

/** A message whose bytes repeat with an odd period (1 MiB + 7), so no two 64 KiB chunks agree. */
function message(n: number): Uint8Array {
  const m = new Uint8Array(n);
  const period = 2 ** 20 + 7;
  m.set(rng.bytes(period));
  for (let have = period; have < n; have *= 2) m.copyWithin(have, 0, Math.min(have, n - have));
  return m;
}

function sameAsOpenSSL(cipher: 'aes-128-gcm' | 'chacha20-poly1305', key: Uint8Array, nonce: Uint8Array, msg: Uint8Array, sealed: Uint8Array): void {
  const c = createCipheriv(cipher as 'aes-128-gcm', key, nonce, { authTagLength: 16 });
  let at = 0;
  for (let off = 0; off < msg.length; off += STEP) {
    const part = c.update(msg.subarray(off, Math.min(off + STEP, msg.length)));
    if (Buffer.compare(part, sealed.subarray(at, at + part.length)) !== 0) assert.fail(`${cipher}: ciphertext differs from OpenSSL's in bytes ${at} … ${at + part.length}`);
    at += part.length;
  }
  const rest = c.final();
  assert.equal(rest.length, 0);
  assert.equal(at, msg.length);
  assert.equal(Buffer.from(sealed.subarray(msg.length)).toString('hex'), c.getAuthTag().toString('hex'), `${cipher}: tag`);
}

function openssl(cipher: 'aes-128-gcm' | 'chacha20-poly1305', key: Uint8Array, nonce: Uint8Array, msg: Uint8Array): string {
  const c = createCipheriv(cipher as 'aes-128-gcm', key, nonce, { authTagLength: 16 });
  return Buffer.concat([c.update(msg), c.final(), c.getAuthTag()]).toString('hex');
}

test(`a ${N}-byte message seals with AES-GCM and ChaCha20-Poly1305 as OpenSSL does; other keys unharmed`, { timeout: 180_000 }, () => {
  grow(aesKernel().exports, N + 2 ** 24);
  grow(chachaKernel().exports, N + 2 ** 24);

  // bystanders, keyed before the big calls
  const small = rng.bytes(100);
  const nonce = rng.bytes(12);
  const kA = rng.bytes(16),
    kS = rng.bytes(32),
    kC = rng.bytes(32);
  const a = aesGcm(kA),
    s = aesGcmSiv(kS),
    c = chacha20Poly1305(kC);
  const sivBefore = Buffer.from(s.seal(nonce, small)).toString('hex');

  const msg = message(N);
  const out = new Uint8Array(N + 16);
  const key = rng.bytes(32);
  const bigNonce = rng.bytes(12);

  const g = aesGcm(key.subarray(0, 16));
  assert.equal(g.seal(bigNonce, msg, undefined, out).length, N + 16);
  g.dispose();
  sameAsOpenSSL('aes-128-gcm', key.subarray(0, 16), bigNonce, msg, out);

  const cc = chacha20Poly1305(key);
  cc.seal(bigNonce, msg, undefined, out);
  sameAsOpenSSL('chacha20-poly1305', key, bigNonce, msg, out);
  cc.dispose();

  assert.equal(Buffer.from(a.seal(nonce, small)).toString('hex'), openssl('aes-128-gcm', kA, nonce, small), 'an AES-GCM key made before');
  assert.equal(Buffer.from(c.seal(nonce, small)).toString('hex'), openssl('chacha20-poly1305', kC, nonce, small), 'a ChaCha20-Poly1305 key made before');
  assert.equal(Buffer.from(s.seal(nonce, small)).toString('hex'), sivBefore, 'an AES-GCM-SIV key made before');
  a.dispose();
  s.dispose();
  c.dispose();
});

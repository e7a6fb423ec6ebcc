// A Node.js Buffer's `slice()` is a view, not a copy: where the library copied a caller's key
// with `.slice()`, a Buffer key was aliased, so wiping the caller's Buffer changed the library's
// key and the library's wipe (dispose) zeroed the caller's Buffer. Every such copy is copyBytes().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCipheriv, createECDH } from 'node:crypto';
import { aesGcm, chacha20Poly1305 } from '../src/aead/index.js';
import { p256, x25519 } from '../src/ec/index.js';
import { copyBytes } from '../src/util/check.js';

const fill = (n: number, v: number) => Buffer.alloc(n, v);

test('copyBytes copies a Buffer (slice() would not)', () => {
  const b = fill(8, 7);
  const c = copyBytes(b);
  b.fill(0);
  assert.deepEqual([...c], new Array(8).fill(7));
  assert.ok(!(c instanceof Buffer));
});

test("a disposed AEAD key object leaves the caller's Buffer key alone", () => {
  for (const make of [() => aesGcm, () => chacha20Poly1305]) {
    const key = fill(32, 0x42);
    const a = make()(key);
    a.dispose();
    assert.deepEqual([...key], new Array(32).fill(0x42), "dispose wiped the caller's key");
  }
});

test("wiping the caller's Buffer key after construction does not change the key in use", () => {
  const key = fill(32, 0x11),
    nonce = fill(12, 3),
    msg = fill(40, 9);
  const c = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 });
  const want = Buffer.concat([c.update(msg), c.final(), c.getAuthTag()]);
  const a = chacha20Poly1305(key);
  key.fill(0);
  assert.deepEqual(Buffer.from(a.seal(nonce, msg)), want);
  a.dispose();
});

test('imported private keys and exported raw keys do not alias a Buffer argument', () => {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  // getPrivateKey drops leading zero bytes (31 bytes for one key in 256): left-pad to 32
  const got = ecdh.getPrivateKey();
  const raw = Buffer.alloc(32);
  got.copy(raw, 32 - got.length);
  const want = Buffer.from(raw);
  const sk = p256.importPrivateKey(raw, 'raw');
  raw.fill(0);
  assert.deepEqual(Buffer.from(sk), want);
  const xsk = Buffer.from(x25519.generatePrivateKey());
  const xwant = Buffer.from(xsk);
  const imported = x25519.importPrivateKey(xsk, 'raw');
  xsk.fill(0);
  assert.deepEqual(Buffer.from(imported), xwant);
});

test('signing with a Buffer private key leaves it intact', () => {
  const sk = Buffer.from(p256.generatePrivateKey());
  const want = Buffer.from(sk);
  p256.sign(new Uint8Array(32).fill(1), sk);
  assert.deepEqual(sk, want, "sign wiped the caller's key");
});

test('a stream batch whose Buffer output lies below its Buffer input seals as from a separate buffer', async () => {
  const { ALGORITHMS } = await import('../src/stream/index.js');
  const { newStreamParams } = await import('../src/stream/sealer.js');
  const { sealBatch } = await import('../src/stream/segments.js');
  const info = ALGORITHMS.find((a) => a.name === 'chacha20-poly1305')!;
  const { params } = newStreamParams(info, { segmentSize: 64 });
  const aead = chacha20Poly1305(fill(32, 5));
  const plain = Buffer.from(Array.from({ length: 200 }, (_, i) => i));
  const want = Buffer.from(sealBatch(aead, params, new Uint8Array(plain), 0, true));
  const buf = Buffer.alloc(1024);
  plain.copy(buf, 40);
  // output at offset 8, input at 40 in the same Buffer: the input must be copied first
  const got = sealBatch(aead, params, buf.subarray(40, 240), 0, true, buf.subarray(8));
  assert.deepEqual(Buffer.from(got), want);
  aead.dispose();
});

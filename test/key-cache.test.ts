// Keys that are never disposed: `aesGcm(key).seal(nonce, msg)` in a synchronous loop must not
// grow WebAssembly memory (a loop never lets a FinalizationRegistry run, and memory never
// shrinks). Expanded keys live in a bounded cache of CACHE_SLOTS slots per module; a key whose
// slot was reclaimed expands again on its next use; the one-shot functions
// (`aesGcm.seal(key, nonce, msg, aad?)`, …) leave no expanded key behind. Expected bytes come
// from the reference models (src/ref), not from the code under test. Timing is bench/forget.ts.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aesGcm, aesGcmSiv, sm4Gcm, chacha20Poly1305, xchacha20Poly1305, type Aead } from '../src/aead/index.js';
import { aesKernel } from '../src/aead/aes-gcm.js';
import { sm4Kernel } from '../src/aead/sm4-gcm.js';
import { chachaKernel } from '../src/mac/poly1305.js';
import { CACHE_SLOTS, SCRATCH_PTR, SLOTS_PTR, type Kernel } from '../src/engine/kernel.js';
import { StateError } from '../src/errors.js';
import { gcmSealRef } from '../src/ref/gcm.js';
import { gcmSivSealRef } from '../src/ref/gcm-siv.js';
import { sm4GcmSealRef } from '../src/ref/sm4.js';
import { chacha20Poly1305SealRef, xchacha20Poly1305SealRef } from '../src/ref/chacha20-poly1305.js';
import { Rng, hex } from './support/rng.js';

interface Family {
  name: string;
  keyLength: number;
  nonceLength: number;
  make(key: Uint8Array): Aead;
  oneShot: { seal(key: Uint8Array, nonce: Uint8Array, pt: Uint8Array, aad?: Uint8Array): Uint8Array; open(key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array, aad?: Uint8Array): Uint8Array };
  ref(key: Uint8Array, nonce: Uint8Array, pt: Uint8Array, aad: Uint8Array): Uint8Array;
  kernel(): Kernel<unknown>;
}

const joined = (r: { ciphertext: Uint8Array; tag: Uint8Array }) => new Uint8Array([...r.ciphertext, ...r.tag]);
const FAMILIES: Family[] = [
  { name: 'aes-128-gcm', keyLength: 16, nonceLength: 12, make: (k) => aesGcm(k), oneShot: aesGcm, ref: (k, n, p, a) => joined(gcmSealRef(k, n, p, a)), kernel: aesKernel },
  { name: 'aes-192-gcm', keyLength: 24, nonceLength: 12, make: (k) => aesGcm(k), oneShot: aesGcm, ref: (k, n, p, a) => joined(gcmSealRef(k, n, p, a)), kernel: aesKernel },
  { name: 'aes-256-gcm', keyLength: 32, nonceLength: 12, make: (k) => aesGcm(k), oneShot: aesGcm, ref: (k, n, p, a) => joined(gcmSealRef(k, n, p, a)), kernel: aesKernel },
  { name: 'aes-128-gcm-siv', keyLength: 16, nonceLength: 12, make: (k) => aesGcmSiv(k), oneShot: aesGcmSiv, ref: (k, n, p, a) => joined(gcmSivSealRef(k, n, p, a)), kernel: aesKernel },
  { name: 'aes-256-gcm-siv', keyLength: 32, nonceLength: 12, make: (k) => aesGcmSiv(k), oneShot: aesGcmSiv, ref: (k, n, p, a) => joined(gcmSivSealRef(k, n, p, a)), kernel: aesKernel },
  { name: 'sm4-gcm', keyLength: 16, nonceLength: 12, make: (k) => sm4Gcm(k), oneShot: sm4Gcm, ref: (k, n, p, a) => joined(sm4GcmSealRef(k, n, p, a)), kernel: sm4Kernel },
  { name: 'chacha20-poly1305', keyLength: 32, nonceLength: 12, make: (k) => chacha20Poly1305(k), oneShot: chacha20Poly1305, ref: chacha20Poly1305SealRef, kernel: chachaKernel },
  { name: 'xchacha20-poly1305', keyLength: 32, nonceLength: 24, make: (k) => xchacha20Poly1305(k), oneShot: xchacha20Poly1305, ref: xchacha20Poly1305SealRef, kernel: chachaKernel },
];

const rng = new Rng(0xcac4e);
const MSG = rng.bytes(64);
const AAD = rng.bytes(13);
const isZero = (b: Uint8Array) => b.every((x) => x === 0);

// first, while no key object of these modules is alive: the one-shot functions leave nothing
test('one-shot seal and open give the reference bytes and leave no key material in the module memory', () => {
  for (const f of FAMILIES) {
    const key = rng.bytes(f.keyLength),
      nonce = rng.bytes(f.nonceLength);
    const expected = f.ref(key, nonce, MSG, AAD);
    const sealed = f.oneShot.seal(key, nonce, MSG, AAD);
    assert.equal(hex(sealed), hex(expected), `${f.name} seal`);
    assert.equal(hex(f.oneShot.open(key, nonce, sealed, AAD)), hex(MSG), `${f.name} open`);
    const u8 = f.kernel().u8;
    assert.ok(isZero(u8.subarray(0, SCRATCH_PTR + 65536)), `${f.name}: IO area or scratch not wiped`);
    assert.ok(isZero(u8.subarray(SLOTS_PTR)), `${f.name}: an expanded key is left in a slot`);
    assert.equal(f.kernel().cachedKeys, 0, f.name);
  }
});

test('5,000 create-use-forget cycles per AEAD keep module memory within the key cache', () => {
  for (const f of FAMILIES) {
    const k = f.kernel();
    const before = k.u8.buffer.byteLength;
    const key = rng.bytes(f.keyLength),
      nonce = rng.bytes(f.nonceLength);
    const check = new Set([0, 1, 999, 4999]);
    for (let i = 0; i < 5000; i++) {
      key[0] = i;
      key[1] = i >> 8;
      const sealed = f.make(key).seal(nonce, MSG, AAD); // never disposed
      if (check.has(i)) assert.equal(hex(sealed), hex(f.ref(key, nonce, MSG, AAD)), `${f.name} cycle ${i}`);
    }
    const grown = k.u8.buffer.byteLength - before;
    assert.ok(grown <= CACHE_SLOTS * k.slotSize, `${f.name}: module memory grew by ${grown} bytes over 5,000 undisposed keys`);
    assert.ok(k.cachedKeys <= CACHE_SLOTS, `${f.name}: ${k.cachedKeys} keys cached`);
  }
});

test('more live keys than cache slots: every key still seals correctly after its slot was reclaimed', () => {
  for (const f of FAMILIES) {
    const n = CACHE_SLOTS + 40;
    const keys = Array.from({ length: n }, () => rng.bytes(f.keyLength));
    const nonce = rng.bytes(f.nonceLength);
    const objects = keys.map((key) => f.make(key));
    // twice round the ring (each use past the first CACHE_SLOTS reclaims the oldest slot), and
    // once with a stride, so that keys are reclaimed and expanded again in another order
    const order = [...keys.keys(), ...keys.keys(), ...keys.map((_, i) => (i * 7) % n)];
    for (const i of order) {
      const pt = MSG.subarray(0, 16 + (i % 48));
      const sealed = objects[i]!.seal(nonce, pt);
      if (i % 5 === 0) assert.equal(hex(sealed), hex(f.ref(keys[i]!, nonce, pt, new Uint8Array(0))), `${f.name} key ${i}`);
      assert.equal(hex(objects[i]!.open(nonce, sealed)), hex(pt), `${f.name} key ${i} open`);
    }
    for (const o of objects) o.dispose();
  }
});

test('dispose() returns the key slot, wipes it, and the object then refuses to work', () => {
  for (const f of FAMILIES) {
    const k = f.kernel();
    const a = f.make(rng.bytes(f.keyLength));
    const nonce = rng.bytes(f.nonceLength);
    a.seal(nonce, MSG);
    const cached = k.cachedKeys;
    a.dispose();
    a.dispose(); // idempotent
    assert.ok(k.cachedKeys <= cached, f.name);
    const slot = k.allocSlot(); // the slot just freed, if the AEAD had one
    assert.ok(isZero(k.u8.subarray(slot, slot + k.slotSize)), `${f.name}: slot not wiped`);
    k.freeSlot(slot);
    assert.throws(() => a.seal(nonce, MSG), StateError, f.name);
    assert.throws(() => a.open(nonce, new Uint8Array(80)), StateError, f.name);
  }
});

test('a reclaimed slot is wiped before its next key: AES-256-GCM keys evicted by AES-128-GCM-SIV keys leave nothing', () => {
  const k = aesKernel();
  const nonce = rng.bytes(12);
  const gcms = Array.from({ length: CACHE_SLOTS }, () => aesGcm(rng.bytes(32)));
  for (const a of gcms) a.seal(nonce, MSG);
  const sivs = Array.from({ length: CACHE_SLOTS }, () => aesGcmSiv(rng.bytes(16)));
  for (const a of sivs) a.seal(nonce, MSG);
  // AES-128-GCM-SIV writes only its key-generating key's 11 round keys (AES_SLOT.rk = 2048); the
  // GCM keys' H tables below them and their last four round keys above must be gone
  const u8 = k.u8;
  for (let slot = SLOTS_PTR; slot + k.slotSize <= u8.length; slot += k.slotSize) {
    assert.ok(isZero(u8.subarray(slot, slot + 2048)), `slot at ${slot}: GHASH tables of an evicted key`);
    assert.ok(isZero(u8.subarray(slot + 2048 + 11 * 128, slot + k.slotSize)), `slot at ${slot}: round keys of an evicted key`);
  }
  for (const a of sivs) a.dispose();
  // the GCM keys expand again on use, then leave nothing when disposed
  for (const a of gcms) a.seal(nonce, MSG);
  for (const a of gcms) a.dispose();
  assert.ok(isZero(k.u8.subarray(SLOTS_PTR)), 'an expanded key is left in a slot');
});

// Limits (issue 18).
//
// 1. Tag lengths: every length 0 … 17 (and a few non-integers) for AES-128/192/256-GCM and
//    SM4-GCM. The ones SP 800-38D allows (4, 8, 12 … 16) seal the same bytes as OpenSSL (AES) or
//    the reference model (SM4), on the one-call and the streamed path, open again, and refuse a
//    flipped last tag byte and a tag one byte short; every other length is a CtkitRangeError.
// 2. Window boundaries: every length check that picks between the one-call path and streaming,
//    and every chunk loop, on both sides of its boundary: the largest input that fits one call
//    and the next ones up (the padded sizes jump by 16), for AADs that leave the text a whole
//    window, a few blocks or none. Each module runs on a fresh instance whose first key slot —
//    the 16 bytes right after the scratch window — belongs to a neighbouring key object: after
//    every call its slot bytes must be unchanged and, at the end, it must still compute the
//    right value. A fit check that let a message run 16 bytes past the window (`<= W + 16`)
//    would write the message's padding into that slot and wipe it afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { type AesGcm, aesGcm } from '../src/aead/aes-gcm.js';
import { type Sm4Gcm, sm4Gcm } from '../src/aead/sm4-gcm.js';
import { gf128KernelFrom, hashOneShot } from '../src/mac/universal-hash.js';
import { CHUNK, sha2Family, sha2KernelFrom } from '../src/hash/sha2.js';
import { hmac } from '../src/hash/hmac.js';
import { type Kernel, SLOTS_PTR } from '../src/engine/kernel.js';
import * as gf128Module from '../src/engine/wasm/gf128.js';
import * as sha2Module from '../src/engine/wasm/sha2.js';
import { AuthenticationError } from '../src/errors.js';
import { sm4GcmSealRef } from '../src/ref/sm4.js';
import { poly1305Ref } from '../src/ref/poly1305.js';
import { chacha20Ref } from '../src/ref/chacha20.js';
import { AEADS, W, expectedHash, opensslSeal, pad16 } from './support/teeth.js';
import { Rng, hex } from './support/rng.js';
import { aesGcmSivWith, chacha20With, poly1305OneShotWith, poly1305With, universalHashWith } from '../src/internal.js';

const rng = new Rng(0x11a175);

// ---- tag lengths ------------------------------------------------------------------------------

const ALLOWED = new Set([4, 8, 12, 13, 14, 15, 16]);

test('GCM and SM4-GCM: every tag length 0 … 17; the allowed ones equal OpenSSL / the model on both paths, the others are RangeError', () => {
  const ciphers: [string, number, (key: Uint8Array, t: unknown) => AesGcm | Sm4Gcm, (key: Uint8Array, n: Uint8Array, p: Uint8Array, a: Uint8Array, t: number) => Uint8Array][] = [
    ['aes-128-gcm', 16, (k, t) => aesGcm(k, { tagLength: t as number }), (k, n, p, a, t) => opensslSeal('aes-128-gcm', k, n, p, a, t)],
    ['aes-192-gcm', 24, (k, t) => aesGcm(k, { tagLength: t as number }), (k, n, p, a, t) => opensslSeal('aes-192-gcm', k, n, p, a, t)],
    ['aes-256-gcm', 32, (k, t) => aesGcm(k, { tagLength: t as number }), (k, n, p, a, t) => opensslSeal('aes-256-gcm', k, n, p, a, t)],
    [
      'sm4-gcm',
      16,
      (k, t) => sm4Gcm(k, { tagLength: t as number }),
      (k, n, p, a, t) => {
        const r = sm4GcmSealRef(k, n, p, a, t);
        return new Uint8Array([...r.ciphertext, ...r.tag]);
      },
    ],
  ];
  for (const [name, kl, make, ref] of ciphers) {
    const key = rng.bytes(kl);
    for (let t = 0; t <= 17; t++) {
      if (!ALLOWED.has(t)) {
        assert.throws(
          () => make(key, t),
          (e: unknown) => e instanceof RangeError && /tagLength must be 4, 8, 12, 13, 14, 15 or 16 bytes, got/.test((e as Error).message),
          `${name} tag ${t}`,
        );
        continue;
      }
      const a = make(key, t);
      assert.equal(a.tagLength, t);
      // the one-call path (short), and the streamed path (above the window; the model is slow, so SM4 streams once)
      const lengths = name === 'sm4-gcm' ? (t === 12 ? [37, W + 3] : [37]) : [0, 37, W + 3];
      for (const n of lengths) {
        const nonce = rng.bytes(12),
          aad = rng.bytes(9),
          pt = rng.bytes(n);
        const what = `${name} tag ${t} n ${n}`;
        const sealed = a.seal(nonce, pt, aad);
        assert.equal(sealed.length, n + t, what);
        assert.equal(hex(sealed), hex(ref(key, nonce, pt, aad, t)), what);
        assert.equal(hex(a.open(nonce, sealed, aad)), hex(pt), `${what}: open`);
        const bad = sealed.slice();
        bad[bad.length - 1] ^= 0x10;
        assert.throws(() => a.open(nonce, bad, aad), AuthenticationError, `${what}: last tag byte flipped`);
        assert.throws(() => a.open(nonce, sealed.subarray(0, sealed.length - 1), aad), AuthenticationError, `${what}: tag one byte short`);
      }
      a.dispose();
    }
    for (const t of [4.5, Number.NaN, -4, Infinity, '16']) {
      assert.throws(() => make(key, t), RangeError, `${name} tag ${String(t)}`);
    }
  }
});

// ---- window boundaries ------------------------------------------------------------------------

/** Lengths on both sides of a boundary at `fit` (the largest length that takes the short path). */
const around = (fit: number): number[] => [...new Set([fit - 16, fit - 15, fit - 1, fit, fit + 1, fit + 15, fit + 16, fit + 17].filter((n) => n >= 0))];

/** Snapshots the neighbour's slot (the first slot, right after scratch) and checks it later. */
function guard(k: Kernel<unknown>, what: string): (after: string) => void {
  const before = k.u8.slice(SLOTS_PTR, SLOTS_PTR + k.slotSize);
  assert.ok(
    before.some((b) => b !== 0),
    `${what}: the neighbour's slot holds nothing to guard`,
  );
  return (after) => {
    const now = k.u8.subarray(SLOTS_PTR, SLOTS_PTR + k.slotSize);
    for (let i = 0; i < before.length; i++) {
      if (now[i] !== before[i]) assert.fail(`${what}, ${after}: the neighbouring key's slot changed at byte ${i}`);
    }
  };
}

const GCM_AADS = [0, 1, 13, 16, 17, 4096, W - 32, W - 16, W - 15, W, W + 1];

for (const c of AEADS.filter((x) => x.name === 'aes-128-gcm' || x.name === 'aes-256-gcm' || x.name === 'sm4-gcm')) {
  test(`${c.name}: text and AAD around the one-call fit (AAD ${GCM_AADS.join(', ')}): OpenSSL/model bytes, the first key slot untouched`, () => {
    const k = c.fresh(`teeth-limits-${c.name}`);
    const nKey = rng.bytes(c.keyLength);
    const neighbour = c.make(nKey, k);
    const nNonce = rng.bytes(12),
      nPt = rng.bytes(100);
    const nSealed = neighbour.seal(nNonce, nPt);
    const check = guard(k, c.name);
    const key = rng.bytes(c.keyLength);
    const a = c.make(key, k);
    const slow = !c.fastRef;
    for (const al of GCM_AADS) {
      const fit = Math.max(0, W - pad16(al));
      for (const n of around(fit)) {
        const nonce = rng.bytes(12),
          aad = rng.bytes(al),
          pt = rng.bytes(n);
        const what = `aad ${al} n ${n}`;
        const sealed = a.seal(nonce, pt, aad);
        check(`${what} seal`);
        // the model is slow: SM4 is held to it at a few points, the round trip everywhere
        if (!slow || (al === 13 && (n === fit || n === fit + 1))) assert.equal(hex(sealed), hex(c.sealRef(key, nonce, pt, aad)), what);
        assert.equal(hex(a.open(nonce, sealed, aad)), hex(pt), `${what} open`);
        check(`${what} open`);
        const bad = sealed.slice();
        bad[bad.length - 1] ^= 1;
        assert.throws(() => a.open(nonce, bad, aad), AuthenticationError);
        check(`${what} failed open`);
      }
    }
    assert.equal(hex(neighbour.seal(nNonce, nPt)), hex(nSealed), 'the neighbouring key still seals as before');
    assert.equal(hex(nSealed), hex(c.sealRef(nKey, nNonce, nPt, new Uint8Array(0))), 'and that is the reference');
    a.dispose();
    neighbour.dispose();
  });
}

test('aes-gcm-siv: text and AAD around the window (n, AAD ∈ W − 16 … W + 17): round trips, the first key slot (an AES-GCM key) untouched', () => {
  const c = AEADS.find((x) => x.name === 'aes-256-gcm-siv')!;
  const k = c.fresh('teeth-limits-siv');
  // the neighbour is an AES-GCM key: its H sits in the slot's first bytes (a GCM-SIV key's
  // first 2 KiB stay zero between calls, so an overflow that is wiped again would not show there)
  const g = AEADS.find((x) => x.name === 'aes-256-gcm')!;
  const nKey = rng.bytes(32);
  const neighbour = g.make(nKey, k);
  const nNonce = rng.bytes(12),
    nPt = rng.bytes(50);
  const nSealed = neighbour.seal(nNonce, nPt);
  const check = guard(k, 'aes-256-gcm-siv');
  const key = rng.bytes(32);
  const a = aesGcmSivWith({ kernel: k }, key);
  for (const [n, al] of [...around(W).map((n) => [n, 13]), ...around(W).map((al) => [5, al]), [W, W], [W + 1, W + 1]] as [number, number][]) {
    const nonce = rng.bytes(12),
      aad = rng.bytes(al),
      pt = rng.bytes(n);
    const what = `n ${n} aad ${al}`;
    const sealed = a.seal(nonce, pt, aad);
    check(`${what} seal`);
    assert.equal(hex(a.open(nonce, sealed, aad)), hex(pt), what);
    check(`${what} open`);
    const bad = sealed.slice();
    bad[3] ^= 1;
    assert.throws(() => a.open(nonce, bad, aad), AuthenticationError);
    check(`${what} failed open`);
  }
  // the two sides of the text's boundary against the model once (it is slow)
  for (const n of [W, W + 1]) {
    const nonce = rng.bytes(12),
      pt = rng.bytes(n),
      aad = rng.bytes(3);
    assert.equal(hex(a.seal(nonce, pt, aad)), hex(c.sealRef(key, nonce, pt, aad)), `model n ${n}`);
  }
  assert.equal(hex(neighbour.seal(nNonce, nPt)), hex(nSealed));
  assert.equal(hex(nSealed), hex(g.sealRef(nKey, nNonce, nPt, new Uint8Array(0))));
  a.dispose();
  neighbour.dispose();
});

for (const c of AEADS.filter((x) => x.name === 'chacha20-poly1305' || x.name === 'xchacha20-poly1305')) {
  test(`${c.name}: text and AAD around the one-call fit; Poly1305 and ChaCha20 around the window: the first key slot untouched`, () => {
    const k = c.fresh(`teeth-limits-${c.name}`);
    // the neighbour: an incremental Poly1305 holding its key and state in the first slot
    const pKey = rng.bytes(32),
      pMsg = rng.bytes(70);
    const neighbour = poly1305With({ kernel: k }, pKey);
    neighbour.update(pMsg.subarray(0, 37)); // 2 blocks absorbed, 5 bytes buffered
    const check = guard(k, c.name);
    const key = rng.bytes(32);
    const a = c.make(key, k);
    for (const al of [0, 1, 13, 16, 17, W - 48, W - 32, W - 16, W]) {
      const fit = Math.max(0, W - 16 - pad16(al));
      for (const n of around(fit)) {
        const nonce = rng.bytes(c.nonceLength),
          aad = rng.bytes(al),
          pt = rng.bytes(n);
        const what = `aad ${al} n ${n}`;
        const sealed = a.seal(nonce, pt, aad);
        check(`${what} seal`);
        if (c.fastRef || (al === 13 && n === fit + 1)) assert.equal(hex(sealed), hex(c.sealRef(key, nonce, pt, aad)), what);
        assert.equal(hex(a.open(nonce, sealed, aad)), hex(pt), `${what} open`);
        check(`${what} open`);
        const bad = sealed.slice();
        bad[bad.length - 1] ^= 1;
        assert.throws(() => a.open(nonce, bad, aad), AuthenticationError);
        check(`${what} failed open`);
      }
    }
    // the MAC's and the raw stream's chunk loops
    for (const n of around(W)) {
      const pk = rng.bytes(32),
        msg = rng.bytes(n);
      assert.equal(hex(poly1305OneShotWith({ kernel: k }, pk, msg)), hex(poly1305Ref(pk, msg)), `poly1305 one-shot ${n}`);
      check(`poly1305 one-shot ${n}`);
      const inc = poly1305With({ kernel: k }, pk);
      inc.update(msg.subarray(0, 7)).update(msg.subarray(7));
      assert.equal(hex(inc.digest()), hex(poly1305Ref(pk, msg)), `poly1305 incremental ${n}`);
      check(`poly1305 incremental ${n}`);
      const nonce = rng.bytes(12);
      assert.equal(hex(chacha20With({ kernel: k }, key, nonce, msg, 1)), hex(chacha20Ref(key, nonce, msg, 1)), `chacha20 ${n}`);
      check(`chacha20 ${n}`);
    }
    neighbour.update(pMsg.subarray(37));
    assert.equal(hex(neighbour.digest()), hex(poly1305Ref(pKey, pMsg)), 'the neighbouring Poly1305 still gives the right tag');
    a.dispose();
  });
}

test('GHASH / POLYVAL: one-shot and incremental around the window (W − 16 … W + 17, 2W): reference values, the first key slot untouched', () => {
  const k = gf128KernelFrom('teeth-limits-gf128', gf128Module.bytes());
  const hKey = rng.bytes(16),
    hMsg = rng.bytes(600);
  const neighbour = universalHashWith({ kernel: k }, 'ghash', hKey);
  neighbour.update(hMsg.subarray(0, 520)); // past the powers threshold: powers and tables written
  const check = guard(k, 'gf128');
  for (const n of [...around(W), 2 * W, 2 * W + 1]) {
    const h = rng.bytes(16),
      head = rng.bytes(48),
      tail = rng.bytes(n % 16 === 0 ? 16 : n % 16);
    const data = new Uint8Array(n);
    data.set(head);
    data.set(tail, n - tail.length);
    for (const kind of ['ghash', 'polyval'] as const) {
      const expected = hex(expectedHash(kind, h, head, (n - tail.length) / 16 - 3, tail));
      assert.equal(hex(hashOneShot(kind, h, data, k)), expected, `${kind} one-shot ${n}`);
      check(`${kind} one-shot ${n}`);
      const inc = universalHashWith({ kernel: k }, kind, h);
      inc.update(data.subarray(0, 5)).update(data.subarray(5));
      assert.equal(hex(inc.digest()), expected, `${kind} incremental ${n}`);
      check(`${kind} incremental ${n}`);
    }
  }
  neighbour.update(hMsg.subarray(520));
  const expected = expectedHash('ghash', hKey, hMsg.subarray(0, 48), 0, hMsg.subarray(48));
  assert.equal(hex(neighbour.digest()), hex(expected), 'the neighbouring GHASH still gives the right value');
});

test('SHA-2 and HMAC: one-shot and incremental around the chunk (CHUNK − 1 … CHUNK + 17, W ± 1): OpenSSL values, the first slot untouched', () => {
  const k = sha2KernelFrom('teeth-limits-sha2', sha2Module.bytes());
  const { sha256, sha512 } = sha2Family(() => k);
  const nMsg = rng.bytes(300);
  const neighbour = sha256.create().update(nMsg.subarray(0, 100));
  const check = guard(k, 'sha2');
  for (const n of [...around(CHUNK), ...around(W - 128), ...around(W)]) {
    const msg = rng.bytes(n),
      key = rng.bytes(n % 3 === 0 ? 200 : 20);
    for (const [name, h] of [
      ['sha256', sha256],
      ['sha512', sha512],
    ] as const) {
      assert.equal(hex(h(msg)), createHash(name).update(msg).digest('hex'), `${name} ${n}`);
      check(`${name} ${n}`);
      assert.equal(hex(h.create().update(msg.subarray(0, 3)).update(msg.subarray(3)).digest()), createHash(name).update(msg).digest('hex'), `${name} incremental ${n}`);
      check(`${name} incremental ${n}`);
      assert.equal(hex(hmac(h, key, msg)), createHmac(name, key).update(msg).digest('hex'), `hmac-${name} ${n}`);
      check(`hmac-${name} ${n}`);
      assert.equal(hex(hmac.create(h, key).update(msg).digest()), createHmac(name, key).update(msg).digest('hex'), `hmac-${name} incremental ${n}`);
      check(`hmac-${name} incremental ${n}`);
    }
  }
  assert.equal(hex(neighbour.update(nMsg.subarray(100)).digest()), createHash('sha256').update(nMsg).digest('hex'), 'the neighbouring hash still gives the right value');
});

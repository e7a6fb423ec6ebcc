// Wiping (issue 18): after every call that touches a key, a module's memory holds nothing of it
// outside the slots that live key objects own — not in the IO area, not in scratch, not in a
// freed slot — checked two ways, with random keys (a constant key hid a one-byte slot leak):
//   1. structurally: each module runs on a fresh instance whose memory was snapshot before its
//      first use; every byte outside the slots of live objects (and outside public tables) must
//      be back to that snapshot (zero, or the module's own constants), so even one byte left
//      over fails;
//   2. by content: every 4-byte window of the key and of values derived from it that the test
//      computes independently (src/ref: AES and SM4 round keys, H = E(K, 0^128) and its
//      POLYVAL-domain form and powers, GCM-SIV's per-nonce keys, the ChaCha20 one-time Poly1305
//      key and XChaCha20 subkey, HMAC's K0 ⊕ ipad / opad, HKDF's PRK, an ECDH secret, an ECDSA
//      nonce) is searched for in the whole memory (outside the object's own slot while it lives;
//      a raw AES or SM4 key, the byte-wise schedule and GCM-SIV's per-nonce keys everywhere).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aesGcm, aesKernel, aesKernelFrom } from '../src/aead/aes-gcm.js';
import { aesGcmSiv } from '../src/aead/aes-gcm-siv.js';
import { Sm4, sm4Gcm, sm4Kernel, sm4KernelFrom } from '../src/aead/sm4-gcm.js';
import { chacha20Poly1305, xchacha20Poly1305 } from '../src/aead/chacha20-poly1305.js';
import { chachaKernel, chachaKernelFrom } from '../src/mac/poly1305.js';
import { gf128KernelFrom, hashOneShot } from '../src/mac/universal-hash.js';
import { sha2Family, sha2KernelFrom } from '../src/hash/sha2.js';
import { hmac } from '../src/hash/hmac.js';
import { hkdf } from '../src/hash/hkdf.js';
import { makeCurve } from '../src/ec/curve.js';
import { withEcdsa } from '../src/ec/ecdsa.js';
import { CURVES } from '../src/curves/params.js';
import { type Kernel, SLOTS_PTR } from '../src/engine/kernel.js';
import * as aesModule from '../src/engine/wasm/aes.js';
import * as sm4Module from '../src/engine/wasm/sm4.js';
import * as chachaModule from '../src/engine/wasm/chacha.js';
import * as gf128Module from '../src/engine/wasm/gf128.js';
import * as sha2Module from '../src/engine/wasm/sha2.js';
import * as p256Module from '../src/engine/wasm/ec_p256.js';
import * as p384Module from '../src/engine/wasm/ec_p384.js';
import { curveKernel } from '../src/ec/curve.js';
import { AuthenticationError } from '../src/errors.js';
import { aesEncryptBlockRef, aesExpandKeyRef } from '../src/ref/aes.js';
import { sivDeriveKeysRef } from '../src/ref/gcm-siv.js';
import { sm4EncryptBlockRef, sm4ExpandKeyRef } from '../src/ref/sm4.js';
import { poly1305KeyGen } from '../src/ref/chacha20-poly1305.js';
import { chacha20Block, hchacha20Ref } from '../src/ref/chacha20.js';
import { dotRef, mulXPolyval } from '../src/ref/polyval.js';
import { hkdfExtractRef } from '../src/ref/hkdf.js';
import { refHashes } from '../src/ref/sha2.js';
import { bigToBytes, bytesToBig, generator, mul, type RefCurve } from '../src/ref/ec.js';
import { W, findWindows } from './support/teeth.js';
import { RFC6979 } from './support/ecdsa-rfc6979.js';
import { Rng, unhex } from './support/rng.js';
import { aesGcmSivWith, aesGcmWith, chacha20Poly1305With, chacha20With, poly1305OneShotWith, poly1305With, sm4GcmWith, universalHashWith, xchacha20With } from '../src/internal.js';

const rng = new Rng(0x51bead);
const cat = (...p: Uint8Array[]) => Uint8Array.from(p.flatMap((x) => [...x]));
const rev = (b: Uint8Array) => b.slice().reverse();

/** A fresh kernel instance and the snapshot of its memory before its first use. */
class Watched {
  readonly base: Uint8Array;
  constructor(readonly k: Kernel<any>) {
    this.base = k.u8.slice();
  }
  /**
   * Every byte outside `owned` equals the snapshot (zero where the memory has grown); and no
   * window of `secrets` is anywhere outside `skip` (by default `owned`).
   */
  check(what: string, secrets: Record<string, Uint8Array>, owned: [number, number][] = [], everywhere: Record<string, Uint8Array> = {}): void {
    const u8 = this.k.u8;
    const mem = Buffer.from(u8.buffer, u8.byteOffset, u8.length);
    const base = Buffer.alloc(u8.length);
    base.set(this.base.subarray(0, Math.min(u8.length, this.base.length)));
    // fast path: the ranges outside `owned` compared natively
    const cuts = [0, ...owned.flat().sort((a, b) => a - b), u8.length];
    let same = true;
    for (let j = 0; j < cuts.length; j += 2) same &&= mem.subarray(cuts[j], cuts[j + 1]).equals(base.subarray(cuts[j], cuts[j + 1]));
    for (let i = 0; !same && i < u8.length; i++) {
      const want = i < this.base.length ? this.base[i] : 0;
      if (u8[i] !== want && !owned.some(([a, b]) => i >= a && i < b)) {
        assert.fail(`${what}: byte ${i} is ${u8[i]}, not ${want} (${i < 4096 ? 'IO area' : i < SLOTS_PTR ? 'scratch' : `slot ${Math.floor((i - SLOTS_PTR) / this.k.slotSize)}`})`);
      }
    }
    const found = [...findWindows(this.k, secrets, owned), ...findWindows(this.k, everywhere)];
    assert.deepEqual(found, [], `${what}: key-derived bytes in memory`);
  }
}

const sharedAes = new Watched(aesKernel());
const sharedSm4 = new Watched(sm4Kernel());
const sharedChacha = new Watched(chachaKernel());

const slot = (k: Kernel<unknown>, i: number): [number, number] => [SLOTS_PTR + i * k.slotSize, SLOTS_PTR + (i + 1) * k.slotSize];

test('positive controls: the checks find one byte left in scratch or a free slot, and a key window inside a live slot', () => {
  const w = new Watched(gf128KernelFrom('teeth-wipe-control', gf128Module.bytes()));
  const key = rng.bytes(16);
  const s = w.k.allocSlot();
  w.k.u8[4096 + 777] = 1;
  assert.throws(() => w.check('control', {}), /byte 4873 is 1, not 0 \(scratch\)/);
  w.k.u8[4096 + 777] = 0;
  w.k.u8[s + 4095] = 9;
  assert.throws(() => w.check('control', {}), /slot 0/);
  w.k.u8.set(key.subarray(5, 9), s + 100);
  assert.throws(() => w.check('control', { key }, [slot(w.k, 0)], { key }), /key\[5\.\.9\) at 69732/);
  w.k.freeSlot(s);
  w.check('control wiped', { key });
});

// ---- GHASH / POLYVAL -------------------------------------------------------------------------

/** H in the kernel's POLYVAL domain (RFC 8452 Appendix A for GHASH) and its powers H^2…H^8 as dot products. */
function gfSecrets(kind: 'ghash' | 'polyval', h: Uint8Array): Record<string, Uint8Array> {
  const hp = kind === 'ghash' ? mulXPolyval(rev(h)) : h;
  const out: Record<string, Uint8Array> = { h, 'h reversed': rev(h), 'h (polyval domain)': hp };
  let p = hp;
  for (let i = 2; i <= 8; i++) {
    p = dotRef(p, hp);
    out[`h^${i}`] = p;
    out[`h^${i} reversed`] = rev(p);
  }
  return out;
}

test('GHASH / POLYVAL: one-shot with and without powers, incremental (digest, dispose, live): nothing of H outside the live slot', () => {
  const w = new Watched(gf128KernelFrom('teeth-wipe-gf128', gf128Module.bytes()));
  for (const kind of ['ghash', 'polyval'] as const) {
    for (const n of [0, 15, 100, 511, 512, 600, W + 17]) {
      const h = rng.bytes(16);
      hashOneShot(kind, h, rng.bytes(n), w.k);
      w.check(`${kind} one-shot ${n} bytes (${n >= 512 ? 'powers' : 'no powers'})`, gfSecrets(kind, h));
    }
    for (const powers of ['auto', 'always', 'never'] as const) {
      for (const end of ['digest', 'dispose'] as const) {
        const h = rng.bytes(16);
        const u = universalHashWith({ kernel: w.k }, kind, h, { powers });
        w.check(`${kind} ${powers} constructed`, gfSecrets(kind, h), [slot(w.k, 0)]);
        u.update(rng.bytes(37)).update(rng.bytes(700));
        w.check(`${kind} ${powers} live`, gfSecrets(kind, h), [slot(w.k, 0)]);
        if (end === 'digest') u.digest();
        else u.dispose();
        w.check(`${kind} ${powers} after ${end}`, gfSecrets(kind, h));
      }
    }
  }
});

// ---- Poly1305, ChaCha20, the ChaCha AEADs ------------------------------------------------------

function polySecrets(key: Uint8Array): Record<string, Uint8Array> {
  const r = key.slice(0, 16);
  for (const i of [3, 7, 11, 15]) r[i] &= 15;
  for (const i of [4, 8, 12]) r[i] &= 252;
  return { key, 'r clamped': r, s: key.slice(16) };
}

test('Poly1305 one-shot (with and without powers) and incremental; ChaCha20, XChaCha20, both AEADs: nothing of a key outside a live slot', () => {
  const w = new Watched(chachaKernelFrom('teeth-wipe-chacha', chachaModule.bytes()));
  for (const n of [0, 5, 100, 767, 768, 1000, W + 9]) {
    for (const powers of ['auto', 'always', 'never'] as const) {
      const key = rng.bytes(32);
      poly1305OneShotWith({ kernel: w.k }, key, rng.bytes(n), { powers });
      w.check(`poly1305 one-shot ${n} ${powers}`, polySecrets(key));
    }
  }
  for (const powers of ['auto', 'always', 'never'] as const) {
    for (const end of ['digest', 'dispose'] as const) {
      const key = rng.bytes(32);
      const p = poly1305With({ kernel: w.k }, key, { powers });
      w.check(`poly1305 ${powers} constructed`, polySecrets(key), [slot(w.k, 0)]);
      p.update(rng.bytes(21)).update(rng.bytes(1000));
      w.check(`poly1305 ${powers} live`, polySecrets(key), [slot(w.k, 0)]);
      if (end === 'digest') p.digest();
      else p.dispose();
      w.check(`poly1305 ${powers} after ${end}`, polySecrets(key));
    }
  }
  for (const n of [0, 64, 1000, W + 100]) {
    const key = rng.bytes(32),
      nonce = rng.bytes(12),
      xnonce = rng.bytes(24);
    chacha20With({ kernel: w.k }, key, nonce, rng.bytes(n), 7);
    w.check(`chacha20 ${n}`, { key, 'block 7': chacha20Block(key, 7, nonce) });
    xchacha20With({ kernel: w.k }, key, xnonce, rng.bytes(n), 0);
    const sub = hchacha20Ref(key, xnonce.subarray(0, 16));
    w.check(`xchacha20 ${n}`, { key, subkey: sub });
  }
  for (const x of [false, true]) {
    for (const n of [0, 100, W - 100, W + 100]) {
      const key = rng.bytes(32),
        nonce = rng.bytes(x ? 24 : 12),
        aad = rng.bytes(13);
      const a = chacha20Poly1305With({ kernel: w.k }, key, x);
      const sub = x ? hchacha20Ref(key, nonce.subarray(0, 16)) : key;
      const n12 = x ? cat(new Uint8Array(4), nonce.subarray(16)) : nonce;
      const secrets = { key, subkey: sub, otk: poly1305KeyGen(sub, n12), ...polySecrets(poly1305KeyGen(sub, n12)) };
      const sealed = a.seal(nonce, rng.bytes(n), aad);
      w.check(`${a.algorithm} ${n} seal`, secrets);
      a.open(nonce, sealed, aad);
      w.check(`${a.algorithm} ${n} open`, secrets);
      sealed[0] ^= 1;
      assert.throws(() => a.open(nonce, sealed, aad, new Uint8Array(n)), AuthenticationError);
      w.check(`${a.algorithm} ${n} failed open`, secrets);
      a.dispose();
    }
  }
});

test('the one-shot AEAD functions (every AEAD) leave the shared modules as they were: no cached key, nothing of the key', () => {
  // the shared instances, snapshot before this file's first use of them (the other tests here
  // run on fresh instances)
  for (const [name, f, kl, nl, w] of [
    ['chacha20-poly1305', chacha20Poly1305, 32, 12, sharedChacha],
    ['xchacha20-poly1305', xchacha20Poly1305, 32, 24, sharedChacha],
    ['aes-128-gcm', aesGcm, 16, 12, sharedAes],
    ['aes-256-gcm', aesGcm, 32, 12, sharedAes],
    ['aes-256-gcm-siv', aesGcmSiv, 32, 12, sharedAes],
    ['sm4-gcm', sm4Gcm, 16, 12, sharedSm4],
  ] as const) {
    for (const n of [40, W + 40]) {
      const key = rng.bytes(kl),
        nonce = rng.bytes(nl);
      const secrets = name.startsWith('aes') ? { key, ...aesSecrets(key).slot, ...aesSecrets(key).everywhere } : name === 'sm4-gcm' ? { key, ...sm4Secrets(key).slot } : { key };
      const sealed = f.seal(key, nonce, rng.bytes(n));
      w.check(`${name}.seal ${n}`, secrets);
      f.open(key, nonce, sealed);
      w.check(`${name}.open ${n}`, secrets);
      sealed[5] ^= 1;
      assert.throws(() => f.open(key, nonce, sealed), AuthenticationError);
      w.check(`${name}.open ${n} failed`, secrets);
      assert.equal(w.k.cachedKeys, 0, name);
    }
  }
});

// ---- AES-GCM, AES-GCM-SIV, SM4-GCM ------------------------------------------------------------

function aesSecrets(key: Uint8Array): { slot: Record<string, Uint8Array>; everywhere: Record<string, Uint8Array> } {
  const h = aesEncryptBlockRef(key, new Uint8Array(16));
  return { slot: { ...gfSecrets('ghash', h) }, everywhere: { key, 'round keys (bytes)': cat(...aesExpandKeyRef(key)) } };
}

test('AES-GCM (128, 192, 256) and AES-GCM-SIV (128, 256) objects and one-shot functions: nothing of a key outside its slot, the raw key nowhere', () => {
  const w = new Watched(aesKernelFrom('teeth-wipe-aes', aesModule.bytes()));
  for (const kl of [16, 24, 32]) {
    for (const n of [0, 33, W - 16, W + 33]) {
      for (const nl of [12, 7]) {
        const key = rng.bytes(kl),
          nonce = rng.bytes(nl),
          aad = rng.bytes(5);
        const s = aesSecrets(key);
        const a = aesGcmWith({ kernel: w.k }, key);
        w.check(`aes-${kl * 8}-gcm constructed`, s.slot, [slot(w.k, 0)], s.everywhere);
        const sealed = a.seal(nonce, rng.bytes(n), aad);
        // E(K, J0) masks the tag: for a 12-byte nonce J0 = nonce ‖ 0^31 ‖ 1
        const ek: Record<string, Uint8Array> = nl === 12 ? { 'E(K, J0)': aesEncryptBlockRef(key, cat(nonce, Uint8Array.of(0, 0, 0, 1))) } : {};
        const live = [slot(w.k, 0)] as [number, number][];
        w.check(`aes-${kl * 8}-gcm ${n} nonce ${nl} seal`, { ...s.slot, ...ek }, live, s.everywhere);
        a.open(nonce, sealed, aad);
        w.check(`aes-${kl * 8}-gcm ${n} open`, { ...s.slot, ...ek }, live, s.everywhere);
        sealed[sealed.length - 1] ^= 1;
        assert.throws(() => a.open(nonce, sealed, aad), AuthenticationError);
        w.check(`aes-${kl * 8}-gcm ${n} failed open`, { ...s.slot, ...ek }, live, s.everywhere);
        a.dispose();
        w.check(`aes-${kl * 8}-gcm ${n} disposed`, { ...s.slot, ...ek, ...s.everywhere });
      }
    }
  }
  for (const kl of [16, 32]) {
    for (const n of [0, 33, 1000, W, W + 33]) {
      const key = rng.bytes(kl),
        nonce = rng.bytes(12),
        aad = rng.bytes(20);
      const s = aesSecrets(key);
      const { authKey, encKey } = sivDeriveKeysRef(key, nonce);
      const perNonce = { authKey, encKey, 'encKey round keys': cat(...aesExpandKeyRef(encKey)), ...gfSecrets('polyval', authKey) };
      const a = aesGcmSivWith({ kernel: w.k }, key);
      const live = [slot(w.k, 0)] as [number, number][];
      w.check(`aes-${kl * 8}-gcm-siv constructed`, {}, live, s.everywhere);
      const sealed = a.seal(nonce, rng.bytes(n), aad);
      w.check(`aes-${kl * 8}-gcm-siv ${n} seal`, {}, live, { ...s.everywhere, ...perNonce });
      a.open(nonce, sealed, aad);
      w.check(`aes-${kl * 8}-gcm-siv ${n} open`, {}, live, { ...s.everywhere, ...perNonce });
      sealed[2] ^= 1;
      assert.throws(() => a.open(nonce, sealed, aad), AuthenticationError);
      w.check(`aes-${kl * 8}-gcm-siv ${n} failed open`, {}, live, { ...s.everywhere, ...perNonce });
      a.dispose();
      w.check(`aes-${kl * 8}-gcm-siv ${n} disposed`, { ...s.everywhere, ...perNonce });
    }
  }
});

function sm4Secrets(key: Uint8Array): { slot: Record<string, Uint8Array>; everywhere: Record<string, Uint8Array> } {
  const rk = sm4ExpandKeyRef(key);
  const be = new Uint8Array(4 * 32),
    le = new Uint8Array(4 * 32);
  rk.forEach((w, i) => {
    new DataView(be.buffer).setUint32(4 * i, w, false);
    new DataView(le.buffer).setUint32(4 * i, w, true);
  });
  const h = sm4EncryptBlockRef(key, new Uint8Array(16));
  return { slot: { 'round keys (BE)': be, 'round keys (LE)': le, ...gfSecrets('ghash', h) }, everywhere: { key } };
}

test('SM4-GCM objects, the SM4 block cipher (ECB, CTR): nothing of a key outside its slot, the raw key nowhere', () => {
  const w = new Watched(sm4KernelFrom('teeth-wipe-sm4', sm4Module.bytes()));
  for (const n of [0, 33, W - 16, W + 33]) {
    for (const nl of [12, 9]) {
      const key = rng.bytes(16),
        nonce = rng.bytes(nl),
        aad = rng.bytes(5);
      const s = sm4Secrets(key);
      const ek: Record<string, Uint8Array> = nl === 12 ? { 'E(K, J0)': sm4EncryptBlockRef(key, cat(nonce, Uint8Array.of(0, 0, 0, 1))) } : {};
      const a = sm4GcmWith({ kernel: w.k }, key);
      const live = [slot(w.k, 0)] as [number, number][];
      w.check('sm4-gcm constructed', s.slot, live, s.everywhere);
      const sealed = a.seal(nonce, rng.bytes(n), aad);
      w.check(`sm4-gcm ${n} seal`, { ...s.slot, ...ek }, live, s.everywhere);
      a.open(nonce, sealed, aad);
      w.check(`sm4-gcm ${n} open`, { ...s.slot, ...ek }, live, s.everywhere);
      sealed[0] ^= 1;
      assert.throws(() => a.open(nonce, sealed, aad), AuthenticationError);
      w.check(`sm4-gcm ${n} failed open`, { ...s.slot, ...ek }, live, s.everywhere);
      a.dispose();
      w.check(`sm4-gcm ${n} disposed`, { ...s.slot, ...ek, ...s.everywhere });
    }
  }
  const key = rng.bytes(16);
  const s = sm4Secrets(key);
  const c = new Sm4(key, { kernel: w.k });
  c.encrypt(rng.bytes(W + 32));
  c.decrypt(rng.bytes(64));
  c.ctr(rng.bytes(16), rng.bytes(1000));
  w.check('sm4 ecb/ctr live', s.slot, [slot(w.k, 0)], s.everywhere);
  c.dispose();
  w.check('sm4 disposed', { ...s.slot, ...s.everywhere });
});

// ---- SHA-2: HMAC and HKDF -----------------------------------------------------------------------

test('HMAC one-shot and incremental (short and long keys and messages), HKDF: nothing of a key or PRK left', () => {
  const w = new Watched(sha2KernelFrom('teeth-wipe-sha2', sha2Module.bytes()));
  const fam = sha2Family(() => w.k);
  for (const [name, h, B] of [
    ['sha256', fam.sha256, 64],
    ['sha512', fam.sha512, 128],
  ] as const) {
    for (const kl of [16, B, B + 1, 300]) {
      for (const n of [0, 10, 1000, W + 10]) {
        const key = rng.bytes(kl),
          msg = rng.bytes(n);
        const k0 = new Uint8Array(B);
        k0.set(kl > B ? refHashes[name](key) : key);
        const secrets = { key, K0: k0, 'K0 ^ ipad': k0.map((b) => b ^ 0x36), 'K0 ^ opad': k0.map((b) => b ^ 0x5c) };
        hmac(h, key, msg);
        w.check(`hmac-${name} key ${kl} msg ${n}`, secrets);
        const o0 = hmac.create(h, key);
        w.check(`hmac-${name} created`, secrets, [slot(w.k, 0)]);
        const o = o0.update(msg.subarray(0, 3));
        w.check(`hmac-${name} incremental live`, secrets, [slot(w.k, 0)]);
        o.update(msg.subarray(3)).digest();
        w.check(`hmac-${name} incremental digest`, secrets);
        hmac.create(h, key).update(msg).dispose();
        w.check(`hmac-${name} incremental dispose`, secrets);
      }
    }
    const ikm = rng.bytes(40),
      salt = rng.bytes(20),
      info = rng.bytes(10);
    const prk = hkdfExtractRef(refHashes[name], ikm, salt);
    const okm = hkdf(h, ikm, salt, info, 100);
    w.check(`hkdf-${name}`, { ikm, prk, okm });
    hkdf.expand(h, prk, info, 50);
    w.check(`hkdf-${name} expand`, { prk, okm: okm.subarray(0, 50) });
  }
});

// ---- elliptic curves ----------------------------------------------------------------------------

function refCurve(p: (typeof CURVES)['p256']): RefCurve {
  return p as unknown as RefCurve;
}

for (const [cname, mod] of [
  ['p256', p256Module],
  ['p384', p384Module],
] as const) {
  test(`${cname}: generatePrivateKey, isValidPrivateKey, public keys, ECDH, sign, key formats, scalarField: nothing of a private key or a secret left`, () => {
    const params = CURVES[cname];
    const sw = new Watched(sha2KernelFrom(`teeth-wipe-sha2-${cname}`, sha2Module.bytes()));
    const sha = sha2Family(() => sw.k);
    const curve = withEcdsa(makeCurve(params, { name: `teeth-wipe-${cname}`, bytes: () => mod.bytes() }), cname === 'p256' ? sha.sha256 : sha.sha384);
    const e = curveKernel(curve);
    const w = new Watched(e.k);
    const L = curve.privateKeyBytes;
    const tables = (): [number, number][] => [[SLOTS_PTR, SLOTS_PTR + e.k.slotsInUse * e.k.slotSize]];
    const skSecrets = (sk: Uint8Array) => ({ sk, 'sk little-endian': rev(sk) });
    // generatePrivateKey before anything else: no table yet, so the whole memory is the snapshot's
    for (let i = 0; i < 5; i++) {
      const sk = curve.generatePrivateKey();
      w.check('generatePrivateKey', skSecrets(sk));
      assert.equal(e.k.slotsInUse, 0);
      assert.ok(curve.isValidPrivateKey(sk));
      w.check('isValidPrivateKey (valid)', skSecrets(sk));
    }
    for (const bad of [new Uint8Array(L), new Uint8Array(L).fill(0xff), bigToBytes(params.n, L), rng.bytes(L - 1)]) {
      assert.equal(curve.isValidPrivateKey(bad), false);
      w.check('isValidPrivateKey (invalid)', skSecrets(bad.length === L ? bad : new Uint8Array(L)));
    }
    const G = generator(refCurve(params));
    for (let i = 0; i < 3; i++) {
      const sk = curve.generatePrivateKey();
      const peerSk = curve.generatePrivateKey();
      const peer = curve.getPublicKey(peerSk);
      w.check('getPublicKey', skSecrets(peerSk), tables());
      const shared = curve.ecdh(sk, peer);
      const ref = mul(refCurve(params), (bytesToBig(sk) * bytesToBig(peerSk)) % params.n, G)!;
      assert.equal(bytesToBig(shared), ref.x);
      w.check('ecdh', { ...skSecrets(sk), ...skSecrets(peerSk), shared, 'shared little-endian': rev(shared) }, tables());
      curve.getPublicKey(sk, { compressed: true });
      for (const f of ['raw', 'pkcs8-der', 'pkcs8-pem', 'sec1-der', 'sec1-pem', 'jwk'] as const) {
        const x = curve.exportPrivateKey(sk, f);
        curve.importPrivateKey(x as never, f);
        w.check(`export/import ${f}`, skSecrets(sk), tables());
      }
      const sig = curve.sign(rng.bytes(50), sk);
      curve.sign(rng.bytes(50), sk, { extraEntropy: true, format: 'p1363' });
      w.check('sign', skSecrets(sk), tables());
      sw.check('sign: the sha2 module (HMAC-DRBG)', skSecrets(sk));
      assert.equal(typeof curve.verify(sig, rng.bytes(5), curve.getPublicKey(sk)), 'boolean');
      const sf = curve.scalarField;
      sf.inv(sk);
      sf.mul(sk, peerSk);
      sf.mulAdd(sk, peerSk, sk);
      sf.neg(sk);
      w.check('scalarField', skSecrets(sk), tables());
    }
    // the public tables are the same whatever keys were used: built again on another fresh instance
    const other = withEcdsa(makeCurve(params, { name: `teeth-wipe-${cname}-b`, bytes: () => mod.bytes() }), cname === 'p256' ? sha.sha256 : sha.sha384);
    const sk = other.generatePrivateKey();
    other.getPublicKey(sk);
    other.verify(other.sign(Uint8Array.of(1), sk), Uint8Array.of(1), other.getPublicKey(sk));
    const ok = curveKernel(other).k;
    assert.equal(ok.slotsInUse, e.k.slotsInUse);
    const [from, to] = tables()[0];
    assert.ok(Buffer.from(ok.u8.subarray(from, to)).equals(Buffer.from(e.k.u8.subarray(from, to))), 'the table slots differ between two instances');
    // RFC 6979: the nonce of a known signature is nowhere after signing
    const rfc = RFC6979.find((c) => c.curve === cname)!;
    const x = unhex(rfc.x);
    const c6979 = rfc.cases.find((c) => c.hash === (cname === 'p256' ? 'SHA-256' : 'SHA-384') && c.msg === 'sample')!;
    const sig = curve.sign(new TextEncoder().encode('sample'), x, { format: 'p1363' });
    assert.equal(Buffer.from(sig.subarray(0, L)).toString('hex'), c6979.r.toLowerCase());
    const k = unhex(c6979.k);
    w.check('sign (RFC 6979 nonce)', { ...skSecrets(x), k, 'k little-endian': rev(k) }, tables());
    sw.check('sign (RFC 6979 nonce): the sha2 module', { ...skSecrets(x), k });
  });
}

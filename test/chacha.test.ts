// ChaCha20, HChaCha20, XChaCha20, Poly1305, ChaCha20-Poly1305, XChaCha20-Poly1305: known answers
// (RFC 8439, XChaCha draft), every Wycheproof case, the differential suite against OpenSSL and
// the BigInt reference, XChaCha20-Poly1305 against libsodium, the API's errors, buffers and
// wiping, and negative controls (broken kernels and glue) that the suite must catch.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sodium from 'libsodium-wrappers';
import { xchacha20 as nobleXChaCha20 } from '@noble/ciphers/chacha.js';
import * as V from './support/chacha-vectors.js';
import { opensslSeal, runSuite } from './support/chacha-suite.js';
import { Rng, hex, unhex } from './support/rng.js';
import { chacha20, xchacha20, hchacha20, chacha20Poly1305, xchacha20Poly1305, ChaCha20Poly1305 } from '../src/aead/index.js';
import { poly1305, Poly1305, chachaKernel, chachaKernelFrom, CHACHA_SLOT_SIZE, IO } from '../src/mac/poly1305.js';
import { AuthenticationError, StateError } from '../src/errors.js';
import { chacha20Block, chacha20Ref, hchacha20Ref, quarterRound, xchacha20Ref } from '../src/ref/chacha20.js';
import { poly1305Ref } from '../src/ref/poly1305.js';
import { chacha20Poly1305SealRef, poly1305KeyGen, xchacha20Poly1305SealRef } from '../src/ref/chacha20-poly1305.js';
import { generateChacha, KS_PTR, ST, POLY, PIN, CHACHA_POLY_STATE_SIZE, type ChachaFlags } from '../src/kernels/chacha20_simd128.js';
import { compileKernel } from '../src/kernels/build.js';
import * as chachaModule from '../src/engine/wasm/chacha.js';
import { assertTamperingRejected } from './support/tamper.js';
import { kernelFor, testBackend } from './support/backends.js';
import type { ChachaExports } from '../src/engine/wasm/chacha.contract.js';
import { ARENA } from '../src/engine/kernel.js';
import { spied } from './support/spy.js';
import { chacha20Poly1305With } from '../src/internal.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const wycheproof = join(root, 'test', 'vectors', 'wycheproof', 'testvectors_v1');

test('reference models reproduce the RFC 8439 and XChaCha known answers', () => {
  const s = V.QUARTER_ROUND.input.slice();
  quarterRound(s, 0, 1, 2, 3);
  assert.deepEqual(s, V.QUARTER_ROUND.output);
  for (const v of V.BLOCKS) assert.equal(hex(chacha20Block(unhex(v.key), v.counter, unhex(v.nonce))), v.block, v.name);
  for (const v of V.STREAMS) assert.equal(hex(chacha20Ref(unhex(v.key), unhex(v.nonce), unhex(v.plaintext), v.counter)), v.ciphertext, v.name);
  for (const v of V.MACS) assert.equal(hex(poly1305Ref(unhex(v.key), unhex(v.msg))), v.tag, v.name);
  for (const v of V.KEYGENS) assert.equal(hex(poly1305KeyGen(unhex(v.key), unhex(v.nonce))), v.otk, v.name);
  for (const v of V.AEADS) assert.equal(hex(chacha20Poly1305SealRef(unhex(v.key), unhex(v.nonce), unhex(v.plaintext), unhex(v.aad))), v.sealed, v.name);
  assert.equal(hex(hchacha20Ref(unhex(V.HCHACHA.key), unhex(V.HCHACHA.nonce))), V.HCHACHA.subkey);
  assert.equal(hex(xchacha20Poly1305SealRef(unhex(V.XAEAD.key), unhex(V.XAEAD.nonce), unhex(V.XAEAD.plaintext), unhex(V.XAEAD.aad))), V.XAEAD.sealed);
});

test('RFC 8439 §2 and Appendix A known answers: block function, keystream, Poly1305, key generation, AEAD', () => {
  for (const v of V.BLOCKS) assert.equal(hex(chacha20(unhex(v.key), unhex(v.nonce), new Uint8Array(64), v.counter)), v.block, v.name);
  for (const v of V.STREAMS) {
    assert.equal(hex(chacha20(unhex(v.key), unhex(v.nonce), unhex(v.plaintext), v.counter)), v.ciphertext, v.name);
    assert.equal(hex(chacha20(unhex(v.key), unhex(v.nonce), unhex(v.ciphertext), v.counter)), v.plaintext, v.name);
  }
  for (const v of V.MACS) {
    assert.equal(hex(poly1305(unhex(v.key), unhex(v.msg))), v.tag, v.name);
    for (const powers of ['always', 'never'] as const) {
      const h = new Poly1305(unhex(v.key), { powers });
      const msg = unhex(v.msg);
      h.update(msg.subarray(0, 7)).update(msg.subarray(7));
      assert.equal(hex(h.digest()), v.tag, `${v.name} incremental powers=${powers}`);
    }
  }
  // key generation: the one-time key is block 0; through the AEAD it shows as the tag of an
  // empty message (checked against the reference), and directly as keystream
  for (const v of V.KEYGENS) assert.equal(hex(chacha20(unhex(v.key), unhex(v.nonce), new Uint8Array(32), 0)), v.otk, v.name);
  for (const v of V.AEADS) {
    const a = chacha20Poly1305(unhex(v.key));
    assert.equal(hex(a.seal(unhex(v.nonce), unhex(v.plaintext), unhex(v.aad))), v.sealed, `${v.name} seal`);
    assert.equal(hex(a.open(unhex(v.nonce), unhex(v.sealed), unhex(v.aad))), v.plaintext, `${v.name} open`);
    a.dispose();
  }
});

test('XChaCha draft known answers: HChaCha20 (§2.2.1), AEAD_XChaCha20_Poly1305 (A.3.1); raw XChaCha20 vs noble', () => {
  assert.equal(hex(hchacha20(unhex(V.HCHACHA.key), unhex(V.HCHACHA.nonce))), V.HCHACHA.subkey);
  const a = xchacha20Poly1305(unhex(V.XAEAD.key));
  assert.equal(hex(a.seal(unhex(V.XAEAD.nonce), unhex(V.XAEAD.plaintext), unhex(V.XAEAD.aad))), V.XAEAD.sealed);
  assert.equal(hex(a.open(unhex(V.XAEAD.nonce), unhex(V.XAEAD.sealed), unhex(V.XAEAD.aad))), V.XAEAD.plaintext);
  a.dispose();
  // the raw XChaCha20 stream against the reference and against @noble/ciphers (an independent
  // implementation; libsodium-wrappers' standard build exports no raw XChaCha20)
  const rng = new Rng(7);
  for (let i = 0; i < 300; i++) {
    const n = i < 150 ? i : rng.int(2101);
    const key = rng.bytes(32);
    const nonce = rng.bytes(24);
    const data = rng.bytes(n);
    const counter = i % 2 ? rng.int(1000) : 0;
    const got = hex(xchacha20(key, nonce, data, counter));
    assert.equal(got, hex(nobleXChaCha20(key, nonce, data, undefined, counter)), `xchacha20 vs noble n=${n} counter=${counter}`);
    if (i % 10 === 0) assert.equal(got, hex(xchacha20Ref(key, nonce, data, counter)), `xchacha20 vs reference n=${n}`);
  }
});

interface WycheproofAead {
  testGroups: { ivSize: number; keySize: number; tagSize: number; tests: { tcId: number; key: string; iv: string; aad: string; msg: string; ct: string; tag: string; result: string; flags: string[] }[] }[];
}

function loadWycheproof(file: string): WycheproofAead {
  const path = join(wycheproof, file);
  assert.ok(existsSync(path), `Wycheproof vectors missing: ${path} (vendored in test/vectors/wycheproof)`);
  return JSON.parse(readFileSync(path, 'utf8')) as WycheproofAead;
}

for (const [file, extended, expectedCount] of [
  ['chacha20_poly1305_test.json', false, 325],
  ['xchacha20_poly1305_test.json', true, 315],
] as const) {
  test(`Wycheproof ${file}: every case, result honoured`, () => {
    const data = loadWycheproof(file);
    const nonceLength = extended ? 24 : 12;
    let count = 0;
    const counts: Record<string, number> = {};
    for (const g of data.testGroups) {
      for (const t of g.tests) {
        count++;
        counts[t.result] = (counts[t.result] ?? 0) + 1;
        const [key, iv, aad, msg, ct, tag] = [t.key, t.iv, t.aad, t.msg, t.ct, t.tag].map(unhex);
        const id = `tcId ${t.tcId} (${t.result}; ${t.flags.join(', ')})`;
        if (key.length !== 32) {
          assert.equal(t.result, 'invalid', id);
          assert.throws(() => new ChaCha20Poly1305(key, extended), RangeError, id);
          continue;
        }
        const a = new ChaCha20Poly1305(key, extended);
        try {
          if (iv.length !== nonceLength) {
            assert.equal(t.result, 'invalid', id);
            assert.throws(
              () => a.seal(iv, msg, aad),
              (e: unknown) => e instanceof RangeError && /nonce/.test(e.message),
              id,
            );
            assert.throws(() => a.open(iv, new Uint8Array([...ct, ...tag]), aad), RangeError, id);
            continue;
          }
          const sealed = new Uint8Array([...ct, ...tag]);
          if (t.result === 'valid') {
            assert.equal(hex(a.seal(iv, msg, aad)), hex(sealed), `${id} seal`);
            assert.equal(hex(a.open(iv, sealed, aad)), hex(msg), `${id} open`);
          } else {
            const out = new Uint8Array(ct.length).fill(0xaa);
            assert.throws(() => a.open(iv, sealed, aad, out), AuthenticationError, id);
            assert.ok(
              out.every((b) => b === 0),
              `${id}: output not wiped`,
            );
          }
        } finally {
          a.dispose();
        }
      }
    }
    assert.equal(count, expectedCount);
    console.log(
      `# wycheproof ${file}: ${count} cases (${Object.entries(counts)
        .map(([k, v]) => `${v} ${k}`)
        .join(', ')})`,
    );
  });
}

test('differential suite: ChaCha20-Poly1305 and ChaCha20 vs OpenSSL, Poly1305 vs the BigInt reference', () => {
  const r = runSuite();
  assert.deepEqual(r.failures.slice(0, 5), [], `${r.failures.length} cases failed`);
  assert.ok(r.aead >= 2000, `only ${r.aead} AEAD cases`);
  assert.ok(r.stream >= 700, `only ${r.stream} ChaCha20 cases`);
  assert.ok(r.poly >= 1000, `only ${r.poly} Poly1305 cases`);
  console.log(`# chacha differential: ${r.aead} AEAD cases vs OpenSSL, ${r.stream} ChaCha20 cases vs OpenSSL, ${r.poly} Poly1305 cases vs BigInt reference, 0 failures`);
});

test('XChaCha20-Poly1305 against libsodium over random cases', async () => {
  await sodium.ready;
  const rng = new Rng(0x58436861);
  let cases = 0;
  for (let i = 0; i < 400; i++) {
    const n = i < 150 ? i : rng.int(2101);
    const key = rng.bytes(32);
    const nonce = rng.bytes(24);
    const aad = rng.bytes(rng.int(50));
    const pt = rng.bytes(n);
    const expected = sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(pt, aad, null, nonce, key);
    const a = xchacha20Poly1305(key);
    assert.equal(hex(a.seal(nonce, pt, aad)), hex(expected), `seal n=${n}`);
    assert.equal(hex(a.open(nonce, expected, aad)), hex(pt), `open n=${n}`);
    a.dispose();
    cases++;
  }
  console.log(`# xchacha20-poly1305 vs libsodium: ${cases} cases`);
});

const broken: [string, ChachaFlags][] = [
  ['a carry lost in the final reduction', { finalCarryLost: true }],
  ['powers of r applied in the wrong order', { powersReversed: true }],
  ['a counter that skips a block', { counterSkips: true }],
  ['the scalar one-block tail keyed with the next counter', { tailCounterOff: true }],
];

// on the backend under test (CTKIT_BACKEND): the js backend's Poly1305 has no powers of r to misorder
const B = testBackend();
for (const [what, flags] of broken.filter(([, f]) => !(B === 'js' && f.powersReversed))) {
  test(`negative control (${B}): ${what} fails the differential suite`, async () => {
    const name = `chacha-broken-${Object.keys(flags)[0]}`;
    const kernel = B === 'simd' ? chachaKernelFrom(name, await compileKernel(generateChacha(flags))) : await kernelFor<ChachaExports>(B, name, () => generateChacha(flags), CHACHA_SLOT_SIZE);
    const r = runSuite({ kernel, stride: 3 });
    assert.ok(r.failures.length > 0, `broken kernel (${what}) passed the whole suite`);
  });
}

test('negative control: the 0x01 pad byte of a partial block missing fails the differential suite', () => {
  const r = runSuite({ faults: { omitPadByte: true }, stride: 3 });
  assert.ok(r.failures.length > 0, 'glue without the pad byte passed the whole suite');
  assert.ok(
    r.failures.every((f) => f.startsWith('poly1305')),
    'only the MAC uses the pad byte',
  );
});

test('the generator without flags reproduces the shipped binary; layout constants agree', async () => {
  assert.deepEqual(await compileKernel(generateChacha()), chachaModule.bytes());
  assert.deepEqual([IO.ST, IO.KS, IO.POLY, IO.PIN], [ST, KS_PTR, POLY, PIN]);
  assert.ok(IO.PIN - IO.POLY >= CHACHA_POLY_STATE_SIZE && CHACHA_SLOT_SIZE >= CHACHA_POLY_STATE_SIZE);
  assert.ok(IO.PIN + 64 <= IO.END, 'the pinning stores land in the wiped IO area');
  assert.ok(IO.PAD >= IO.KS + 256 && IO.END <= 4096);
});

test('typed errors: key, nonce, counter, output lengths; types; use after dispose', () => {
  for (const n of [0, 16, 31, 33]) {
    assert.throws(
      () => chacha20Poly1305(new Uint8Array(n)),
      (e: unknown) => e instanceof RangeError && /^key must be 32 bytes long, got/.test(e.message),
    );
    assert.throws(() => xchacha20Poly1305(new Uint8Array(n)), RangeError);
    assert.throws(() => poly1305(new Uint8Array(n), new Uint8Array(0)), RangeError);
    assert.throws(() => chacha20(new Uint8Array(n), new Uint8Array(12), new Uint8Array(1)), RangeError);
  }
  const a = chacha20Poly1305(new Uint8Array(32));
  const x = xchacha20Poly1305(new Uint8Array(32));
  for (const n of [0, 8, 11, 13, 16, 24])
    assert.throws(
      () => a.seal(new Uint8Array(n), new Uint8Array(1)),
      (e: unknown) => e instanceof RangeError && /^nonce must be 12 bytes long, got/.test(e.message),
    );
  for (const n of [0, 12, 23, 25])
    assert.throws(
      () => x.open(new Uint8Array(n), new Uint8Array(20)),
      (e: unknown) => e instanceof RangeError && /^nonce must be 24 bytes long/.test(e.message),
    );
  assert.throws(() => a.seal('nonce' as unknown as Uint8Array, new Uint8Array(1)), TypeError);
  assert.throws(() => a.seal(new Uint8Array(12), [1, 2] as unknown as Uint8Array), TypeError);
  assert.throws(() => a.seal(new Uint8Array(12), new Uint8Array(1), {} as Uint8Array), TypeError);
  assert.throws(
    () => a.seal(new Uint8Array(12), new Uint8Array(10), undefined, new Uint8Array(25)),
    (e: unknown) => e instanceof RangeError && /^output must be at least 26 bytes/.test(e.message),
  );
  assert.throws(() => a.open(new Uint8Array(12), new Uint8Array(15)), AuthenticationError);
  assert.equal(a.keyLength, 32);
  assert.equal(a.nonceLength, 12);
  assert.equal(x.nonceLength, 24);
  assert.equal(a.tagLength, 16);
  a.dispose();
  a.dispose();
  assert.throws(() => a.seal(new Uint8Array(12), new Uint8Array(1)), StateError);
  assert.throws(() => a.open(new Uint8Array(12), new Uint8Array(17)), StateError);
  x.dispose();
  const h = poly1305.create(new Uint8Array(32));
  h.digest();
  assert.throws(() => h.update(new Uint8Array(1)), StateError);
  assert.throws(() => h.digest(), StateError);
  // counter: range, and exhaustion is an error, not a wrap
  const key = new Uint8Array(32);
  const nonce = new Uint8Array(12);
  for (const c of [-1, 1.5, 2 ** 32, NaN])
    assert.throws(
      () => chacha20(key, nonce, new Uint8Array(1), c),
      (e: unknown) => e instanceof RangeError && /^counter/.test(e.message),
    );
  assert.equal(chacha20(key, nonce, new Uint8Array(64), 2 ** 32 - 1).length, 64);
  assert.throws(
    () => chacha20(key, nonce, new Uint8Array(65), 2 ** 32 - 1),
    (e: unknown) => e instanceof RangeError && /exhausted/.test(e.message),
  );
  assert.throws(() => chacha20(key, nonce, new Uint8Array(64 * 5 + 1), 2 ** 32 - 5), /exhausted/);
  assert.throws(() => xchacha20(key, new Uint8Array(24), new Uint8Array(129), 2 ** 32 - 2), /exhausted/);
});

test('the message-length limit (2^38 − 64 bytes) is enforced', () => {
  class Huge extends Uint8Array {
    override get length(): number {
      return 2 ** 38 - 63;
    }
  }
  const a = chacha20Poly1305(new Uint8Array(32));
  assert.throws(
    () => a.seal(new Uint8Array(12), new Huge(1)),
    (e: unknown) => e instanceof RangeError && /^chacha20-poly1305: plaintext must be at most 2\^38 - 64 bytes/.test(e.message),
  );
  // and a sealed input whose text would be as long (the counter would wrap before its end)
  class HugeSealed extends Uint8Array {
    override get length(): number {
      return 2 ** 38 - 47;
    }
  }
  assert.throws(
    () => a.open(new Uint8Array(12), new HugeSealed(16)),
    (e: unknown) => e instanceof RangeError && e.message === `chacha20-poly1305: sealed must be at most 2^38 - 48 bytes long (RFC 8439), got ${2 ** 38 - 47}`,
  );
  a.dispose();
});

test('caller-supplied output buffers, in place, any view offset', () => {
  const rng = new Rng(99);
  for (const n of [0, 1, 15, 16, 100, 256, 257, 70000]) {
    const key = rng.bytes(32);
    const nonce = rng.bytes(12);
    const aad = rng.bytes(13);
    const a = chacha20Poly1305(key);
    const pt = rng.bytes(n);
    const expected = a.seal(nonce, pt, aad);
    // in place: plaintext at the start of a buffer with room for the tag
    const buf = new Uint8Array(n + 16 + 3).subarray(3);
    buf.set(pt);
    const sealed = a.seal(nonce, buf.subarray(0, n), aad, buf);
    assert.equal(sealed.buffer, buf.buffer);
    assert.equal(hex(sealed), hex(expected));
    const opened = a.open(nonce, buf, aad, buf);
    assert.equal(opened.byteOffset, buf.byteOffset);
    assert.equal(hex(opened), hex(pt));
    // a larger output: the returned view has the exact length
    const big = new Uint8Array(n + 40);
    assert.equal(a.seal(nonce, pt, aad, big).length, n + 16);
    // raw stream in place
    const s = pt.slice();
    chacha20(key, nonce, s, 1, s);
    assert.equal(hex(s), hex(expected.subarray(0, n)));
    a.dispose();
  }
});

test("tampering: every bit of a short message's tag, ciphertext, nonce and AAD is rejected, output wiped", () => {
  const rng = new Rng(5);
  for (const extended of [false, true]) {
    const key = rng.bytes(32);
    const nonce = rng.bytes(extended ? 24 : 12);
    const aad = rng.bytes(5);
    const a = new ChaCha20Poly1305(key, extended);
    assertTamperingRejected(a, nonce, rng.bytes(7), aad);
    a.dispose();
  }
});

test('slots are wiped and returned; IO area and scratch are wiped after each call', () => {
  const k = chachaKernel();
  const before = k.slotsInUse;
  const a = chacha20Poly1305(new Uint8Array(32).fill(0xa5)); // holds no slot: its key enters the IO area per call
  const h = poly1305.create(new Uint8Array(32).fill(0x5a));
  assert.equal(k.slotsInUse, before + 1);
  a.seal(new Uint8Array(12), new Uint8Array(1000).fill(1));
  a.open(new Uint8Array(12), a.seal(new Uint8Array(12), new Uint8Array(70000).fill(3))); // streamed: the fused passes
  h.update(new Uint8Array(1000).fill(2));
  const u8 = k.u8;
  assert.ok(
    u8.subarray(0, 4096 + 65536).every((b) => b === 0),
    'IO area or scratch not wiped',
  );
  a.dispose();
  h.digest();
  assert.equal(k.slotsInUse, before);
  const slot = k.allocSlot();
  assert.ok(
    k.u8.subarray(slot, slot + CHACHA_SLOT_SIZE).every((b) => b === 0),
    'slot not wiped',
  );
  k.freeSlot(slot);
});

test('large input streams through bounded scratch (memory stays small)', () => {
  const k = chachaKernel();
  const key = new Uint8Array(32).fill(3);
  const a = chacha20Poly1305(key);
  const pt = new Uint8Array(8 << 20).fill(7);
  const sealed = a.seal(new Uint8Array(12), pt);
  assert.equal(hex(sealed.subarray(-16)), hex(opensslSeal(key, new Uint8Array(12), pt, new Uint8Array(0)).subarray(-16)));
  assert.equal(hex(a.open(new Uint8Array(12), sealed).subarray(0, 64)), hex(pt.subarray(0, 64)));
  a.dispose();
  assert.ok(k.u8.buffer.byteLength <= 1 << 20, `memory grew to ${k.u8.buffer.byteLength}`);
});

test('in kernel memory (an Arena region): seal and open in place equal OpenSSL, use no scratch, and a bad tag wipes', () => {
  const rng = new Rng(0xa7e4a);
  const k = chachaKernel();
  const a = chacha20Poly1305(rng.bytes(32));
  const arena = a[ARENA]();
  if (k.backend === 'js') {
    // a JavaScript kernel's memory is replaced when it grows: no region is offered
    assert.equal(arena, undefined);
    a.dispose();
    return;
  }
  assert.ok(arena === k, 'the arena is the kernel the AEAD runs on');
  assert.equal((Object.create(a) as typeof a)[ARENA](), undefined, 'a wrapper has no kernel of its own');
  const cap = 300_000;
  const ptr = arena.allocRegion(cap);
  assert.equal(ptr % 64, 0);
  const gen = arena.generation;
  const exports = k.exports;
  try {
    const { calls } = spied(k, ['aead_seal', 'aead_open', 'aead_seal_all', 'aead_open_all']);
    for (const n of [0, 1, 15, 16, 17, 255, 256, 511, 767, 768, 769, 1000, 65535, 65536, 65537, 200_003]) {
      for (const at of [0, 3]) {
        const key = rng.bytes(32);
        const nonce = rng.bytes(12);
        const aad = rng.bytes(n % 3 === 0 ? 0 : 13);
        const pt = rng.bytes(n);
        const b = new ChaCha20Poly1305(key, false);
        const o = ptr + at;
        k.u8.set(pt, o);
        calls.length = 0;
        const sealed = b.seal(nonce, k.u8.subarray(o, o + n), aad, k.u8.subarray(o, o + n + 16));
        const what = `n ${n} at +${at}`;
        // one kernel call on the region itself (no layout in scratch, no copy)
        assert.deepEqual(
          calls.map(([f, args]) => [f, args[2], args[3], args[4]]),
          [['aead_seal', o, o, n]],
          what,
        );
        assert.equal(sealed.byteOffset, o);
        assert.equal(hex(sealed), hex(opensslSeal(key, nonce, pt, aad)), `${what}: sealed`);
        assert.ok(
          k.u8.subarray(4096, 4096 + 65536).every((x) => x === 0),
          `${what}: scratch used`,
        );
        calls.length = 0;
        const opened = b.open(nonce, k.u8.subarray(o, o + n + 16), aad, k.u8.subarray(o, o + n));
        assert.deepEqual(
          calls.map(([f, args]) => [f, args[2], args[3], args[4]]),
          [['aead_open', o, o, n]],
          what,
        );
        assert.equal(hex(opened), hex(pt), `${what}: opened`);
        // sealed again, one bit of ciphertext or tag flipped: rejected, no plaintext left there
        b.seal(nonce, k.u8.subarray(o, o + n), aad, k.u8.subarray(o, o + n + 16));
        k.u8[o + rng.int(n + 16)] ^= 1 << rng.int(8);
        assert.throws(() => b.open(nonce, k.u8.subarray(o, o + n + 16), aad, k.u8.subarray(o, o + n)), AuthenticationError, what);
        assert.ok(
          k.u8.subarray(o, o + n).every((x) => x === 0),
          `${what}: plaintext left after a failed open`,
        );
        assert.ok(
          k.u8.subarray(0, 4096).every((x) => x === 0),
          `${what}: IO area not wiped`,
        );
        b.dispose();
      }
    }
    // an input in the region with an output elsewhere at the same offset, and the other way
    // round: the copying path, which writes the output the caller gave
    {
      const key = rng.bytes(32);
      const nonce = rng.bytes(12);
      const pt = rng.bytes(3000);
      const want = hex(opensslSeal(key, nonce, pt, new Uint8Array(0)));
      const b = new ChaCha20Poly1305(key, false);
      k.u8.set(pt, ptr);
      const elsewhere = new Uint8Array(new ArrayBuffer(ptr + 4000), ptr, 3016);
      assert.equal(hex(b.seal(nonce, k.u8.subarray(ptr, ptr + 3000), new Uint8Array(0), elsewhere)), want, 'into a plain buffer');
      assert.equal(hex(elsewhere), want);
      assert.equal(hex(k.u8.subarray(ptr, ptr + 3000)), hex(pt), 'the region (the input) unchanged');
      const from = new Uint8Array(new ArrayBuffer(ptr + 4000), ptr, 3000);
      from.set(pt);
      k.u8.fill(0, ptr, ptr + 3016);
      assert.equal(hex(b.seal(nonce, from, new Uint8Array(0), k.u8.subarray(ptr, ptr + 3016))), want, 'from a plain buffer');
      assert.equal(hex(k.u8.subarray(ptr, ptr + 3016)), want);
      b.dispose();
    }
    // views of a region that do not start at the same byte take the copying path (still correct)
    const key = rng.bytes(32);
    const nonce = rng.bytes(12);
    const pt = rng.bytes(1000);
    const b = new ChaCha20Poly1305(key, false);
    k.u8.set(pt, ptr);
    calls.length = 0;
    const out = b.seal(nonce, k.u8.subarray(ptr, ptr + 1000), new Uint8Array(0), k.u8.subarray(ptr + 2000, ptr + 3016));
    assert.equal(hex(out), hex(opensslSeal(key, nonce, pt, new Uint8Array(0))));
    assert.deepEqual(
      calls.map(([f]) => f),
      ['aead_seal_all'],
    );
    b.dispose();
  } finally {
    (k as { exports: object }).exports = exports;
    arena.freeRegion(ptr, cap);
    a.dispose();
  }
  assert.ok(
    k.u8.subarray(ptr, ptr + cap).every((x) => x === 0),
    'a freed region is wiped',
  );
  assert.equal(arena.allocRegion(cap), ptr, 'a freed region is reused for its size');
  assert.equal(arena.generation, gen, 'the reuse did not grow the memory');
  arena.freeRegion(ptr, cap);
});

test('no Arena on a JavaScript kernel (its memory is replaced when it grows)', async () => {
  const js = await kernelFor<ChachaExports>('js', 'chacha-js-arena', () => generateChacha(), CHACHA_SLOT_SIZE);
  const a = chacha20Poly1305With({ kernel: js }, new Uint8Array(32), false);
  assert.equal(a[ARENA](), undefined);
  a.dispose();
});

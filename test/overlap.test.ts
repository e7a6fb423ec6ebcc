// Overlapping output buffers: every API that takes an `output` gives the same bytes whatever the
// output's position relative to its input in one ArrayBuffer — disjoint, in place, or shifted by
// ±1, ±15, ±16, ±64 KiB and ±(64 KiB + 1) — at lengths around every chunk boundary: the 64 KiB
// scratch window, the largest message whose AAD and text fit one kernel call, block sizes and the
// powers thresholds. Seal and open, every AEAD, the raw ChaCha20/XChaCha20 streams and SM4-CTR.
//
// Expected bytes come from OpenSSL (node:crypto) where it has the algorithm, otherwise from the
// same API with a disjoint output (which the family suites hold to the reference models); open()
// must give back the original plaintext. fast-check draws the lengths (seeded), every shift is
// run for every API.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCipheriv } from 'node:crypto';
import fc from 'fast-check';
import { aesGcm, aesGcmSiv, sm4Gcm, chacha20Poly1305, xchacha20Poly1305, chacha20, xchacha20, type Aead } from '../src/aead/index.js';
import { Sm4 } from '../src/aead/sm4-gcm.js';
import { Rng } from './support/rng.js';

const W = 65536; // the scratch window
const SHIFTS = ['disjoint', 0, 1, -1, 15, -15, 16, -16, W, -W, W + 1, -(W + 1)] as const;
type Shift = (typeof SHIFTS)[number];
const AADS = [0, 13, 16, 1000] as const;

const pad16 = (n: number) => Math.ceil(n / 16) * 16;

/** Lengths around every boundary of the glue, for an AAD of `a` bytes. */
function boundaries(a: number): number[] {
  return [
    0,
    1,
    15,
    16,
    17,
    63,
    64,
    65,
    255,
    256,
    511,
    512,
    768,
    4096,
    W - pad16(a), // GCM: the largest text that fits one call with this AAD
    W - 16 - pad16(a), // ChaCha20-Poly1305: AAD, text and the length block in one call
    W,
    2 * W,
    3 * W + 17,
  ];
}

const rng = new Rng(0x0e71a9);
const random = (n: number) => rng.bytes(n);
const PT = random(3 * W + 64);

/**
 * Places `input` at some offset of a fresh buffer and returns it with an output view of
 * `outLength` bytes `shift` bytes after it (before it when negative), or in its own buffer.
 */
function place(input: Uint8Array, outLength: number, shift: Shift): { src: Uint8Array; out: Uint8Array } {
  if (shift === 'disjoint') return { src: input.slice(), out: new Uint8Array(outLength) };
  const margin = 8;
  const srcAt = margin + Math.max(0, -shift);
  const outAt = srcAt + shift;
  const buf = new ArrayBuffer(Math.max(srcAt + input.length, outAt + outLength) + margin);
  const src = new Uint8Array(buf, srcAt, input.length);
  src.set(input);
  return { src, out: new Uint8Array(buf, outAt, outLength) };
}

interface AeadCase {
  name: string;
  make(): Aead;
  nonce: Uint8Array;
  /** OpenSSL's ciphertext ‖ tag, where node:crypto has the cipher */
  openssl?(pt: Uint8Array, aad: Uint8Array): Uint8Array;
}

const key32 = random(32);
const gcm = (bits: number): AeadCase => {
  const key = key32.subarray(0, bits / 8);
  const nonce = random(12);
  return {
    name: `aes-${bits}-gcm`,
    make: () => aesGcm(key),
    nonce,
    openssl(pt, aad) {
      const c = createCipheriv(`aes-${bits}-gcm` as 'aes-128-gcm', key, nonce);
      c.setAAD(aad);
      return new Uint8Array(Buffer.concat([c.update(pt), c.final(), c.getAuthTag()]));
    },
  };
};
const CHACHA_NONCE = random(12);
const AEADS: AeadCase[] = [
  gcm(128),
  gcm(192),
  gcm(256),
  { name: 'aes-128-gcm-siv', make: () => aesGcmSiv(key32.subarray(0, 16)), nonce: random(12) },
  { name: 'aes-256-gcm-siv', make: () => aesGcmSiv(key32), nonce: random(12) },
  { name: 'sm4-gcm', make: () => sm4Gcm(key32.subarray(16)), nonce: random(12) },
  {
    name: 'chacha20-poly1305',
    make: () => chacha20Poly1305(key32),
    nonce: CHACHA_NONCE,
    openssl(pt, aad) {
      const c = createCipheriv('chacha20-poly1305', key32, CHACHA_NONCE, { authTagLength: 16 });
      c.setAAD(aad, { plaintextLength: pt.length });
      return new Uint8Array(Buffer.concat([c.update(pt), c.final(), c.getAuthTag()]));
    },
  },
  { name: 'xchacha20-poly1305', make: () => xchacha20Poly1305(key32), nonce: random(24) },
];

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0;

const lengthArb = (a: number) => fc.tuple(fc.constantFrom(...boundaries(a)), fc.integer({ min: -1, max: 1 })).map(([b, d]) => Math.max(0, b + d));
const aeadInput = fc.constantFrom(...AADS).chain((a) => fc.tuple(fc.constant(a), lengthArb(a)));

for (const c of AEADS) {
  test(`${c.name}: seal and open give the same bytes for every overlap of output and input`, () => {
    const aead = c.make();
    try {
      for (const shift of SHIFTS) {
        fc.assert(
          fc.property(aeadInput, ([a, n]) => {
            const pt = PT.subarray(0, n);
            const aad = PT.subarray(PT.length - a);
            const expected = c.openssl ? c.openssl(pt, aad) : aead.seal(c.nonce, pt, aad);
            const s = place(pt, n + 16, shift);
            const sealed = aead.seal(c.nonce, s.src, aad, s.out);
            assert.equal(sealed.byteOffset, s.out.byteOffset);
            assert.ok(sameBytes(sealed, expected), `${c.name} seal: n=${n} aad=${a} shift=${shift}`);
            const o = place(expected, n, shift);
            const opened = aead.open(c.nonce, o.src, aad, o.out);
            assert.equal(opened.byteOffset, o.out.byteOffset);
            assert.ok(sameBytes(opened, pt), `${c.name} open: n=${n} aad=${a} shift=${shift}`);
          }),
          { seed: 0x5eed + SHIFTS.indexOf(shift), numRuns: 20 },
        );
      }
    } finally {
      aead.dispose();
    }
  });
}

// A Node.js Buffer's slice() is a view, not a copy: open() once took its "copy" of the tag that
// way, so with the output shifted onto the tag a valid Buffer failed to open (every AEAD on the
// streamed path, AES-GCM-SIV on every path). Buffers as input, output over the tag.
test('open of a Buffer with the output shifted onto its tag: every AEAD, one call and streamed', () => {
  for (const c of AEADS) {
    const aead = c.make();
    try {
      for (const n of [100, W + 100, 2 * W + 17]) {
        const pt = PT.subarray(0, n);
        const sealed = aead.seal(c.nonce, pt);
        for (const shift of [1, 15, 16]) {
          const buf = Buffer.alloc(n + 16 + shift);
          const src = buf.subarray(0, n + 16);
          src.set(sealed);
          const opened = aead.open(c.nonce, src, undefined, buf.subarray(shift, shift + n));
          assert.ok(sameBytes(opened, pt), `${c.name}: n=${n} shift=${shift}`);
        }
      }
    } finally {
      aead.dispose();
    }
  }
});

interface StreamCase {
  name: string;
  run(data: Uint8Array, counter: number, out?: Uint8Array): Uint8Array;
  openssl?(data: Uint8Array, counter: number): Uint8Array;
  counters: number[];
}

const sm4 = new Sm4(key32.subarray(0, 16));
const streamNonce = random(24);
const STREAMS: StreamCase[] = [
  {
    name: 'chacha20',
    run: (d, ctr, out) => chacha20(key32, streamNonce.subarray(0, 12), d, ctr, out),
    openssl(d, ctr) {
      const iv = new Uint8Array(16);
      new DataView(iv.buffer).setUint32(0, ctr, true);
      iv.set(streamNonce.subarray(0, 12), 4);
      return new Uint8Array(createCipheriv('chacha20', key32, iv).update(d));
    },
    counters: [0, 1, 7],
  },
  { name: 'xchacha20', run: (d, ctr, out) => xchacha20(key32, streamNonce, d, ctr, out), counters: [0, 5] },
  {
    name: 'sm4-ctr (internal)',
    run: (d, ctr, out) => sm4.ctr(ctrBlock(ctr), d, out),
    openssl: (d, ctr) => new Uint8Array(createCipheriv('sm4-ctr', key32.subarray(0, 16), ctrBlock(ctr)).update(d)),
    // 0xffffffff - 5: the low 32 bits of the counter wrap inside the data
    counters: [0, 0xfffffffa],
  },
];

function ctrBlock(low: number): Uint8Array {
  const b = streamNonce.slice(0, 16);
  new DataView(b.buffer).setUint32(12, low);
  return b;
}

for (const c of STREAMS) {
  test(`${c.name}: the same keystream XOR for every overlap of output and input`, () => {
    const arb = fc.tuple(lengthArb(0), fc.constantFrom(...c.counters));
    for (const shift of SHIFTS) {
      fc.assert(
        fc.property(arb, ([n, ctr]) => {
          const data = PT.subarray(0, n);
          const expected = c.openssl ? c.openssl(data, ctr) : c.run(data, ctr);
          const s = place(data, n, shift);
          const got = c.run(s.src, ctr, s.out);
          assert.equal(got.byteOffset, s.out.byteOffset);
          assert.ok(sameBytes(got, expected), `${c.name}: n=${n} counter=${ctr} shift=${shift}`);
        }),
        { seed: 0xc0ffee + SHIFTS.indexOf(shift), numRuns: 12 },
      );
    }
  });
}

test('an output larger than needed: only its first bytes are written, the rest is untouched', () => {
  for (const c of AEADS) {
    const aead = c.make();
    const n = 2 * W + 5;
    const pt = PT.subarray(0, n);
    const expected = aead.seal(c.nonce, pt);
    // in place, with 100 spare bytes after the sealed message that must keep their value
    const buf = new Uint8Array(n + 16 + 100).fill(0xa5);
    buf.set(pt);
    const sealed = aead.seal(c.nonce, buf.subarray(0, n), undefined, buf);
    assert.ok(sameBytes(sealed, expected), c.name);
    assert.ok(
      buf.subarray(n + 16).every((b) => b === 0xa5),
      `${c.name}: bytes past the output were written`,
    );
    aead.dispose();
  }
});

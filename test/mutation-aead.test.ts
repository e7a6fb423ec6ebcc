// src/aead directly (issue 18, mutation testing): the GCM glue's decisions that the values alone
// do not show — which path a message takes (one kernel call, or the streamed chunks), that the
// scratch window is wiped after a nonce or AAD longer than the window, that the mode does not
// depend on what an earlier call left in the IO area, that a message within the window reaches
// the caller only after its tag was checked, that a kernel failing part-way leaves the output
// zeroed, the limits and the exact errors — on spied kernel instances of their own, every
// value checked against OpenSSL (AES-GCM) or the reference model (SM4-GCM).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aesKernelFrom } from '../src/aead/aes-gcm.js';
import { Sm4, sm4KernelFrom } from '../src/aead/sm4-gcm.js';
import { chacha20, chachaCheckLimits, hchacha20, le64, xchacha20 } from '../src/aead/chacha20-poly1305.js';
import { SIV_POWERS_THRESHOLD, sivCheckLimits } from '../src/aead/aes-gcm-siv.js';
import { layout as AES_LAYOUT } from '../src/engine/wasm/aes.contract.js';
import { chachaKernel, IO as CHACHA_IO } from '../src/mac/poly1305.js';
import { chacha20Ref, xchachaSubkeyNonce } from '../src/ref/chacha20.js';
import { gcmCheckLimits, gcmFitsOnce } from '../src/aead/gcm-mode.js';
import type { Aead } from '../src/aead/types.js';
import * as aesModule from '../src/engine/wasm/aes.js';
import * as sm4Module from '../src/engine/wasm/sm4.js';
import { layout } from '../src/engine/wasm/gcm.contract.js';
import { type Kernel, SCRATCH_SIZE, SLOTS_PTR } from '../src/engine/kernel.js';
import { sm4GcmSealRef } from '../src/ref/sm4.js';
import { gcmSealRef } from '../src/ref/gcm.js';
import { AuthenticationError, CtkitRangeError, CtkitTypeError, StateError } from '../src/errors.js';
import { aesGcmWith, sm4GcmWith } from '../src/internal.js';
import { Rng } from './support/rng.js';
import { count, spied } from './support/spy.js';
import { AEADS, assertIoScratchZero, opensslSeal, zeroRange } from './support/teeth.js';

const rng = new Rng(0x1a);
const W = SCRATCH_SIZE;
const GCM_CALLS = ['gcm_oneshot', 'gcm_seal_x', 'gcm_open_x', 'gcm_finish', 'gcm_lengths', 'gf_ghash_blocks'];

interface GcmCase {
  name: string;
  /** a keyed object on a spied fresh instance of the module */
  make(key: Uint8Array): { aead: Aead; k: Kernel<any>; calls: [string, number[]][] };
  /** ciphertext ‖ tag from OpenSSL or the reference model */
  sealRef(key: Uint8Array, nonce: Uint8Array, pt: Uint8Array, aad: Uint8Array): Uint8Array;
}

let serial = 0;
const cat = (a: Uint8Array, b: Uint8Array): Uint8Array => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};

const CASES: GcmCase[] = [
  {
    name: 'aes-128-gcm',
    make(key) {
      const { k, calls } = spied(aesKernelFrom(`mutation-aead-aes-${serial++}`, aesModule.bytes()), GCM_CALLS);
      return { aead: aesGcmWith({ kernel: k }, key), k, calls };
    },
    // OpenSSL takes IVs up to 128 bytes (ERR_CRYPTO_INVALID_IV above); longer ones go to the reference model
    sealRef: (key, nonce, pt, aad) => {
      if (nonce.length <= 128) return opensslSeal('aes-128-gcm', key, nonce, pt, aad);
      const r = gcmSealRef(key, nonce, pt, aad);
      return cat(r.ciphertext, r.tag);
    },
  },
  {
    name: 'sm4-gcm',
    make(key) {
      const { k, calls } = spied(sm4KernelFrom(`mutation-aead-sm4-${serial++}`, sm4Module.bytes()), GCM_CALLS);
      return { aead: sm4GcmWith({ kernel: k }, key), k, calls };
    },
    sealRef: (key, nonce, pt, aad) => {
      const r = sm4GcmSealRef(key, nonce, pt, aad);
      return cat(r.ciphertext, r.tag);
    },
  },
];

test('GCM: a message that fits the window with its AAD is one gcm_oneshot call, a longer one streams; both as the reference', () => {
  for (const c of CASES) {
    const key = rng.bytes(16);
    const { aead, calls } = c.make(key);
    for (const [n, a] of [
      [0, 0],
      [16, 13],
      [W - 32, 32],
      [W - 32, 33],
      [W, 0],
      [W, 1],
      [W + 1, 0],
      [100, W],
    ] as const) {
      const once = gcmFitsOnce(n, a);
      const nonce = rng.bytes(12);
      const pt = rng.bytes(n);
      const aad = rng.bytes(a);
      const ref = c.sealRef(key, nonce, pt, aad);
      calls.length = 0;
      assert.deepEqual(aead.seal(nonce, pt, aad), ref, `${c.name} seal ${n}/${a}`);
      assert.equal(count(calls, 'gcm_oneshot'), once ? 1 : 0, `${c.name} seal ${n}/${a}: one call`);
      assert.equal(count(calls, 'gcm_seal_x'), once ? 0 : Math.max(1, Math.ceil(n / W)), `${c.name} seal ${n}/${a}: chunks`);
      calls.length = 0;
      assert.deepEqual(aead.open(nonce, ref, aad), pt, `${c.name} open ${n}/${a}`);
      assert.equal(count(calls, 'gcm_oneshot'), once ? 1 : 0, `${c.name} open ${n}/${a}: one call`);
      assert.equal(count(calls, 'gcm_open_x'), once ? 0 : Math.max(1, Math.ceil(n / W)), `${c.name} open ${n}/${a}: chunks`);
    }
    aead.dispose();
  }
});

test('GCM: a nonce or an AAD longer than the window leaves the IO area and the whole scratch window zero', () => {
  for (const c of CASES) {
    const key = rng.bytes(16);
    const { aead, k } = c.make(key);
    // a last chunk shorter than the first: the bytes the first chunk left beyond it must be wiped too
    for (const [nl, n, a] of [
      [W + 4464, 16, 0],
      [W + 4464, 0, 16],
      [2 * W + 20, 16, 0],
      [12, 16, W + 4464],
      [12, 0, W + 100],
      [20, 16, W + 4464],
      [W + 4464, 16, W + 100],
    ] as const) {
      const nonce = rng.bytes(nl);
      const pt = rng.bytes(n);
      const aad = rng.bytes(a);
      const ref = c.sealRef(key, nonce, pt, aad);
      assert.deepEqual(aead.seal(nonce, pt, aad), ref, `${c.name} seal ${nl}/${n}/${a}`);
      assertIoScratchZero(k, `${c.name} seal nonce ${nl}, text ${n}, aad ${a}`);
      assert.deepEqual(aead.open(nonce, ref, aad), pt, `${c.name} open ${nl}/${n}/${a}`);
      assertIoScratchZero(k, `${c.name} open nonce ${nl}, text ${n}, aad ${a}`);
    }
    aead.dispose();
  }
});

test('GCM: the counter block and the hash state do not depend on what the IO area held before the call', () => {
  for (const c of CASES) {
    const key = rng.bytes(16);
    const { aead, k } = c.make(key);
    for (const [nl, n, a] of [
      [12, 40, 8],
      [13, 40, 8],
      [12, W + 40, 8],
      [8, W + 40, W + 8],
    ] as const) {
      const nonce = rng.bytes(nl);
      const pt = rng.bytes(n);
      const aad = rng.bytes(a);
      const ref = c.sealRef(key, nonce, pt, aad);
      const dirty = () => k.u8.set(rng.bytes(layout.IO.tag), 0); // the counter block and the hash state, up to the tag
      dirty();
      assert.deepEqual(aead.seal(nonce, pt, aad), ref, `${c.name} seal ${nl}/${n}/${a} over a dirty IO area`);
      dirty();
      assert.deepEqual(aead.open(nonce, ref, aad), pt, `${c.name} open ${nl}/${n}/${a} over a dirty IO area`);
    }
    aead.dispose();
  }
});

test('GCM open: a text within the window reaches the output only after the tag check (streamed AAD too); a longer one chunk by chunk', () => {
  for (const c of CASES) {
    const key = rng.bytes(16);
    const { aead, k } = c.make(key);
    for (const [n, a] of [
      [40, 8],
      [40, W],
      [W, 1],
      [W - 16, 32],
      [W + 40, 0],
    ] as const) {
      const nonce = rng.bytes(12);
      const pt = rng.bytes(n);
      const aad = rng.bytes(a);
      const sealed = c.sealRef(key, nonce, pt, aad);
      const out = new Uint8Array(n);
      let zeroAtFinish: boolean | undefined;
      const ex = k.exports as Record<string, (...args: unknown[]) => unknown>;
      const finish = ex.gcm_finish;
      const oneshot = ex.gcm_oneshot;
      ex.gcm_finish = (...args) => {
        zeroAtFinish = out.every((b) => b === 0);
        return finish(...args);
      };
      ex.gcm_oneshot = (...args) => {
        const r = oneshot(...args);
        zeroAtFinish = out.every((b) => b === 0);
        return r;
      };
      try {
        assert.deepEqual(aead.open(nonce, sealed, aad, out), pt, `${c.name} ${n}/${a}`);
      } finally {
        ex.gcm_finish = finish;
        ex.gcm_oneshot = oneshot;
      }
      assert.equal(zeroAtFinish, n <= W, `${c.name} ${n}/${a}: output written before the tag (${zeroAtFinish})`);
    }
    aead.dispose();
  }
});

test('GCM open: a kernel that fails part-way leaves the output zero and the error its own', () => {
  for (const c of CASES) {
    const key = rng.bytes(16);
    const { aead, k } = c.make(key);
    const n = 2 * W + 100;
    const nonce = rng.bytes(12);
    const pt = rng.bytes(n);
    const sealed = c.sealRef(key, nonce, pt, new Uint8Array(0));
    const ex = k.exports as Record<string, (...args: unknown[]) => unknown>;
    for (const [fn, at] of [
      ['gcm_open_x', 2],
      ['gcm_open_x', 3],
      ['gcm_finish', 1],
    ] as const) {
      const real = ex[fn];
      let calls = 0;
      ex[fn] = (...args) => {
        if (++calls === at) throw new Error('kernel stand-in failed');
        return real(...args);
      };
      const out = new Uint8Array(n);
      try {
        assert.throws(() => aead.open(nonce, sealed, undefined, out), { message: 'kernel stand-in failed' }, `${c.name} ${fn} #${at}`);
      } finally {
        ex[fn] = real;
      }
      assert.ok(
        out.every((b) => b === 0),
        `${c.name}: ${fn} failing at call ${at} left plaintext in the output`,
      );
      assertIoScratchZero(k, `${c.name}: ${fn} failing at call ${at}`);
    }
    // and the object still works
    assert.deepEqual(aead.open(nonce, sealed), pt);
    aead.dispose();
  }
});

test('GCM: the limits of SP 800-38D at their boundaries, with their messages', () => {
  const max = 2 ** 36 - 32;
  for (const what of ['plaintext', 'sealed'] as const) {
    gcmCheckLimits('aes-128-gcm', max, 0, what);
    assert.throws(() => gcmCheckLimits('aes-128-gcm', max + 1, 0, what), {
      name: CtkitRangeError.name,
      message: `aes-128-gcm: ${what} must be at most 2^36 - 32 bytes long (SP 800-38D), got ${max + 1}`,
    });
  }
  // 2^64 − 1 bits is 2^61 − 1 bytes, which a double rounds to 2^61: the next double above is refused
  gcmCheckLimits('sm4-gcm', 0, 2 ** 61, 'plaintext');
  gcmCheckLimits('sm4-gcm', 0, 2 ** 61 - 1, 'plaintext');
  assert.throws(() => gcmCheckLimits('sm4-gcm', 0, 2 ** 61 + 2 ** 9, 'plaintext'), {
    name: CtkitRangeError.name,
    message: `sm4-gcm: aad must be at most 2^61 - 1 bytes long, got ${2 ** 61 + 2 ** 9}`,
  });
});

test('GCM: the errors of a failed and a short open name the algorithm and what was wrong', () => {
  for (const c of CASES) {
    const key = rng.bytes(16);
    const { aead } = c.make(key);
    const nonce = rng.bytes(12);
    for (const n of [0, 40, W + 40]) {
      const sealed = c.sealRef(key, nonce, rng.bytes(n), new Uint8Array(0));
      sealed[sealed.length - 1] ^= 1;
      assert.throws(() => aead.open(nonce, sealed), {
        name: AuthenticationError.name,
        message: `${c.name}: authentication failed, the tag does not match`,
      });
    }
    assert.throws(() => aead.open(nonce, new Uint8Array(15)), {
      name: AuthenticationError.name,
      message: `${c.name}: sealed input is shorter than the 16-byte tag`,
    });
    aead.dispose();
  }
});

test('ChaCha20, XChaCha20, HChaCha20, SM4: each argument error names the argument', () => {
  const b = (n: number) => new Uint8Array(n);
  const cases: [string, (args: unknown[]) => unknown, unknown[], number, string, number][] = [
    // label, call, valid arguments, index of the argument to break, its name, its wrong length
    ['chacha20', (a) => chacha20(...(a as [Uint8Array, Uint8Array, Uint8Array])), [b(32), b(12), b(5)], 0, 'key', 31],
    ['chacha20', (a) => chacha20(...(a as [Uint8Array, Uint8Array, Uint8Array])), [b(32), b(12), b(5)], 1, 'nonce', 24],
    ['xchacha20', (a) => xchacha20(...(a as [Uint8Array, Uint8Array, Uint8Array])), [b(32), b(24), b(5)], 0, 'key', 16],
    ['xchacha20', (a) => xchacha20(...(a as [Uint8Array, Uint8Array, Uint8Array])), [b(32), b(24), b(5)], 1, 'nonce', 12],
    ['hchacha20', (a) => hchacha20(...(a as [Uint8Array, Uint8Array])), [b(32), b(16)], 0, 'key', 33],
    ['hchacha20', (a) => hchacha20(...(a as [Uint8Array, Uint8Array])), [b(32), b(16)], 1, 'nonce', 12],
    ['Sm4', (a) => new Sm4(a[0] as Uint8Array), [b(16)], 0, 'key', 32],
    ['Sm4.ctr', (a) => new Sm4(b(16)).ctr(...(a as [Uint8Array, Uint8Array])), [b(16), b(5)], 0, 'iv', 12],
  ];
  for (const [label, call, valid, i, name, wrong] of cases) {
    call(valid); // the valid arguments pass
    const typed = [...valid];
    typed[i] = 'x';
    assert.throws(() => call(typed), { name: CtkitTypeError.name, message: `${name} must be a Uint8Array, got string` }, `${label} ${name} type`);
    const short = [...valid];
    short[i] = b(wrong);
    assert.throws(() => call(short), { name: CtkitRangeError.name, message: new RegExp(`^${name} must be \\d+ bytes long, got ${wrong}$`) }, `${label} ${name} length`);
  }
  for (const call of [(d: unknown) => chacha20(b(32), b(12), d as Uint8Array), (d: unknown) => new Sm4(b(16)).ctr(b(16), d as Uint8Array), (d: unknown) => new Sm4(b(16)).encrypt(d as Uint8Array)]) {
    assert.throws(() => call('x'), { name: CtkitTypeError.name, message: 'data must be a Uint8Array, got string' });
  }
  assert.throws(() => new Sm4(b(16)).decrypt(b(17)), { name: CtkitRangeError.name, message: 'data must be a whole number of 16-byte blocks, got 17 bytes' });
});

test('AES-GCM-SIV and ChaCha20-Poly1305 open: a kernel that fails part-way leaves the output zero; the errors name the algorithm', () => {
  for (const [name, fns] of [
    ['aes-128-gcm-siv', ['siv_open_s', 'siv_open_x']],
    ['chacha20-poly1305', ['aead_open']],
  ] as const) {
    const c = AEADS.find((a) => a.name === name)!;
    const { k } = spied(c.fresh(`mutation-aead-fail-${serial++}`), [...fns]); // a writable copy of the exports
    const key = rng.bytes(c.keyLength);
    const aead = c.make(key, k);
    const nonce = rng.bytes(c.nonceLength);
    const n = W + 100; // two chunks: the first reaches the output before the second call
    const pt = rng.bytes(n);
    const sealed = c.sealRef(key, nonce, pt, new Uint8Array(0));
    const ex = k.exports as Record<string, (...args: unknown[]) => unknown>;
    const real = fns.map((f) => ex[f]);
    let calls = 0;
    fns.forEach((f, i) => {
      ex[f] = (...args) => {
        if (++calls === 2) throw new Error('kernel stand-in failed');
        return real[i](...args);
      };
    });
    const out = new Uint8Array(n);
    try {
      assert.throws(() => aead.open(nonce, sealed, undefined, out), { message: 'kernel stand-in failed' }, name);
    } finally {
      fns.forEach((f, i) => (ex[f] = real[i]));
    }
    assert.equal(calls, 2, `${name}: the stand-in was not reached`);
    assert.ok(
      out.every((b) => b === 0),
      `${name}: a kernel failing at the second chunk left plaintext in the output`,
    );
    assertIoScratchZero(k, name);
    assert.deepEqual(aead.open(nonce, sealed), pt, `${name}: works after the failure`);
    for (const len of [0, 40, W + 40]) {
      const s = c.sealRef(key, nonce, rng.bytes(len), new Uint8Array(0));
      s[0] ^= 1;
      assert.throws(() => aead.open(nonce, s), { name: AuthenticationError.name, message: `${name}: authentication failed, the tag does not match` });
    }
    assert.throws(() => aead.open(nonce, new Uint8Array(15)), { name: AuthenticationError.name, message: `${name}: sealed input is shorter than the 16-byte tag` });
    aead.dispose();
    if (name === 'chacha20-poly1305') assert.throws(() => aead.open(nonce, sealed), { name: StateError.name, message: `${name}: used after dispose()` });
  }
});

// ---- AES-GCM-SIV and ChaCha20-Poly1305: paths, wipes and limits ------------------------------

const blocks16 = (n: number) => Math.ceil(n / 16);
const siv128 = AEADS.find((a) => a.name === 'aes-128-gcm-siv')!;

test('AES-GCM-SIV: the POLYVAL key gets its powers from SIV_POWERS_THRESHOLD hashed bytes on; with them every group is eight blocks and open is stitched', () => {
  const { k, calls } = spied(siv128.fresh(`mutation-aead-siv-${serial++}`), ['gf_gf128_powers', 'gf_polyval_blocks', 'siv_open_s', 'siv_open_x', 'siv_tag']);
  const key = rng.bytes(16);
  const aead = siv128.make(key, k);
  const ex = k.exports as Record<string, (...args: unknown[]) => unknown>;
  // hashed bytes: the padded AAD, the padded text and the length block (RFC 8452 section 4)
  for (const [n, a] of [
    [0, 0],
    [736, 0], // 736 + 16 = 752 hashed bytes: below
    [737, 0], // 752 + 16 = 768: from here on
    [0, 752],
    [0, 736],
    [1, 736],
    [W, 0],
    [W + 1, 0],
    [100, W + 3],
  ] as const) {
    const powers = 16 * (blocks16(a) + blocks16(n) + 1) >= SIV_POWERS_THRESHOLD;
    const nonce = rng.bytes(12);
    const pt = rng.bytes(n);
    const aad = rng.bytes(a);
    const ref = siv128.sealRef(key, nonce, pt, aad);
    const label = `${n}/${a} (${powers ? 'powers' : 'no powers'})`;
    calls.length = 0;
    assert.deepEqual(aead.seal(nonce, pt, aad), ref, `seal ${label}`);
    assert.equal(count(calls, 'gf_gf128_powers'), powers ? 1 : 0, `seal ${label}: powers computed`);
    const groups = calls.filter(([f]) => f === 'gf_polyval_blocks').map(([, args]) => args[4]);
    assert.deepEqual(
      groups,
      groups.map(() => (powers ? 8 : 1)),
      `seal ${label}: group sizes`,
    );
    // open: the output stays untouched until the tag was checked when the text fits the window
    const out = new Uint8Array(n);
    let zeroAtTag: boolean | undefined;
    const tagFn = ex.siv_tag;
    ex.siv_tag = (...args) => {
      zeroAtTag = out.every((b) => b === 0);
      return tagFn(...args);
    };
    calls.length = 0;
    try {
      assert.deepEqual(aead.open(nonce, ref, aad, out), pt, `open ${label}`);
    } finally {
      ex.siv_tag = tagFn;
    }
    const chunks = Math.ceil(n / W);
    assert.equal(count(calls, 'gf_gf128_powers'), powers ? 1 : 0, `open ${label}: powers computed`);
    assert.equal(count(calls, 'siv_open_s'), powers ? chunks : 0, `open ${label}: stitched chunks`);
    assert.equal(count(calls, 'siv_open_x'), powers ? 0 : chunks, `open ${label}: plain chunks`);
    assert.equal(zeroAtTag, n <= W, `open ${label}: output written before the tag check (${zeroAtTag})`);
  }
  aead.dispose();
});

test('AES-GCM-SIV: every call leaves the key slot as the key setup left it (per-nonce keys, their H and its powers wiped)', () => {
  for (const c of AEADS.filter((a) => a.name.endsWith('-gcm-siv'))) {
    const k = c.fresh(`mutation-aead-siv-slot-${serial++}`);
    const key = rng.bytes(c.keyLength);
    const aead = c.make(key, k);
    aead.seal(rng.bytes(12), rng.bytes(5)); // the key setup, and a first message's per-nonce keys (to be wiped)
    const before = k.u8.slice(SLOTS_PTR);
    for (const [n, a] of [
      [5, 0],
      [2000, 0],
      [40, 3],
      [W + 70, 20],
      [0, 900],
    ] as const) {
      const nonce = rng.bytes(12);
      const pt = rng.bytes(n);
      const aad = rng.bytes(a);
      const sealed = aead.seal(nonce, pt, aad);
      const after = k.u8.subarray(SLOTS_PTR, SLOTS_PTR + before.length);
      assert.ok(Buffer.from(after).equals(before), `${c.name} seal ${n}/${a}: the slot changed (per-nonce keys left behind)`);
      assertIoScratchZero(k, `${c.name} seal ${n}/${a}`);
      assert.deepEqual(aead.open(nonce, sealed, aad), pt);
      assert.ok(Buffer.from(k.u8.subarray(SLOTS_PTR, SLOTS_PTR + before.length)).equals(before), `${c.name} open ${n}/${a}: the slot changed`);
      assertIoScratchZero(k, `${c.name} open ${n}/${a}`);
      sealed[sealed.length - 1] ^= 1;
      assert.throws(() => aead.open(nonce, sealed, aad), AuthenticationError);
      assert.ok(Buffer.from(k.u8.subarray(SLOTS_PTR, SLOTS_PTR + before.length)).equals(before), `${c.name} failed open ${n}/${a}: the slot changed`);
    }
    aead.dispose();
  }
});

test('ChaCha20-Poly1305: the one-call path while the MAC input fits the window, else streamed; the powers of r from POWERS_MIN_BLOCKS blocks on', () => {
  for (const c of AEADS.filter((a) => a.name.includes('chacha20-poly1305'))) {
    const { k, calls } = spied(c.fresh(`mutation-aead-chacha-${serial++}`), ['aead_seal_all', 'aead_open_all', 'aead_init', 'poly1305_powers']);
    const key = rng.bytes(32);
    const aead = c.make(key, k);
    const ex = k.exports as Record<string, (...args: unknown[]) => unknown>;
    // the chunk kernels record their group size, and whether the key was still in the IO area
    const chunkCalls: { fn: string; maxg: unknown; keyInIo: boolean }[] = [];
    for (const fn of ['aead_seal', 'aead_open']) {
      const real = ex[fn];
      ex[fn] = (...args) => {
        chunkCalls.push({ fn, maxg: args[5], keyInIo: !zeroRange(k, CHACHA_IO.KEY, CHACHA_IO.KEY + 32) });
        return real(...args);
      };
    }
    for (const [n, a] of [
      [0, 0],
      [736, 0],
      [737, 0],
      [0, 736],
      [0, 737],
      [W - 16, 0],
      [W - 15, 0],
      [W - 32, 16],
      [W - 32, 17],
      [W + 1, 0],
      [2 * W + 5, 3],
      [10, W],
    ] as const) {
      const blocks = blocks16(a) + blocks16(n) + 1; // padded AAD, padded text, lengths
      const once = 16 * blocks <= W;
      const maxg = blocks >= 48 ? 8 : 1;
      const chunks = Math.ceil(n / W);
      const nonce = rng.bytes(c.nonceLength);
      const pt = rng.bytes(n);
      const aad = rng.bytes(a);
      const ref = c.sealRef(key, nonce, pt, aad);
      const label = `${c.name} ${n}/${a}`;
      for (const side of ['seal', 'open'] as const) {
        calls.length = 0;
        chunkCalls.length = 0;
        if (side === 'seal') assert.deepEqual(aead.seal(nonce, pt, aad), ref, `seal ${label}`);
        else assert.deepEqual(aead.open(nonce, ref, aad), pt, `open ${label}`);
        const all = calls.filter(([f]) => f === `aead_${side}_all`);
        assert.equal(all.length, once ? 1 : 0, `${side} ${label}: one call`);
        if (once) assert.equal(all[0][1][6], maxg, `${side} ${label}: the one call's group size`);
        assert.equal(count(calls, 'aead_init'), once ? 0 : 1, `${side} ${label}: streamed`);
        assert.equal(count(calls, 'poly1305_powers'), !once && maxg === 8 ? 1 : 0, `${side} ${label}: powers of r`);
        assert.deepEqual(
          chunkCalls,
          Array.from({ length: once ? 0 : chunks }, () => ({ fn: `aead_${side}`, maxg, keyInIo: false })),
          `${side} ${label}: chunk calls (group size, and the key wiped from the IO area after aead_init)`,
        );
        assert.ok(zeroRange(k, 0, k.u8.length), `${side} ${label}: the module's memory is not all zero after the call`);
      }
    }
    aead.dispose();
  }
});

test('AES-GCM-SIV and ChaCha20-Poly1305: the length limits at their boundaries, with their messages', () => {
  const siv = 2 ** 36;
  sivCheckLimits('aes-128-gcm-siv', siv, siv, 'plaintext');
  sivCheckLimits('aes-128-gcm-siv', siv, siv, 'sealed');
  assert.throws(() => sivCheckLimits('aes-128-gcm-siv', siv + 1, 0, 'plaintext'), {
    name: CtkitRangeError.name,
    message: `aes-128-gcm-siv: plaintext must be at most 2^36 bytes long (RFC 8452), got ${siv + 1}`,
  });
  assert.throws(() => sivCheckLimits('aes-256-gcm-siv', siv + 1, 0, 'sealed'), {
    name: CtkitRangeError.name,
    message: `aes-256-gcm-siv: sealed must be at most 2^36 + 16 bytes long (RFC 8452), got ${siv + 17}`,
  });
  for (const what of ['plaintext', 'sealed'] as const) {
    assert.throws(() => sivCheckLimits('aes-128-gcm-siv', 0, siv + 1, what), {
      name: CtkitRangeError.name,
      message: `aes-128-gcm-siv: aad must be at most 2^36 bytes long (RFC 8452), got ${siv + 1}`,
    });
  }
  const cc = 2 ** 38 - 64;
  chachaCheckLimits('chacha20-poly1305', cc, 'plaintext');
  chachaCheckLimits('chacha20-poly1305', cc, 'sealed');
  assert.throws(() => chachaCheckLimits('chacha20-poly1305', cc + 1, 'plaintext'), {
    name: CtkitRangeError.name,
    message: `chacha20-poly1305: plaintext must be at most 2^38 - 64 bytes long (RFC 8439), got ${cc + 1}`,
  });
  assert.throws(() => chachaCheckLimits('xchacha20-poly1305', cc + 1, 'sealed'), {
    name: CtkitRangeError.name,
    message: `xchacha20-poly1305: sealed must be at most 2^38 - 48 bytes long (RFC 8439), got ${cc + 17}`,
  });
});

test('every AEAD: its name and sizes, and each argument error names the argument', () => {
  for (const c of AEADS) {
    const aead = c.make(rng.bytes(c.keyLength));
    assert.equal(aead.algorithm, c.name);
    assert.equal(aead.keyLength, c.keyLength, `${c.name} keyLength`);
    assert.equal(aead.nonceLength, c.nonceLength, `${c.name} nonceLength`);
    assert.equal(aead.tagLength, 16, `${c.name} tagLength`);
    const nonce = rng.bytes(c.nonceLength);
    const sealed = aead.seal(nonce, rng.bytes(20), rng.bytes(3));
    const typeError = (name: string) => ({ name: CtkitTypeError.name, message: `${name} must be a Uint8Array, got string` });
    const x = 'x' as unknown as Uint8Array;
    assert.throws(() => aead.seal(x, sealed), typeError('nonce'), `${c.name} seal nonce`);
    assert.throws(() => aead.open(x, sealed), typeError('nonce'), `${c.name} open nonce`);
    assert.throws(() => aead.seal(nonce, x), typeError('plaintext'), `${c.name} plaintext`);
    assert.throws(() => aead.open(nonce, x), typeError('sealed'), `${c.name} sealed`);
    assert.throws(() => aead.seal(nonce, sealed, x), typeError('aad'), `${c.name} seal aad`);
    assert.throws(() => aead.open(nonce, sealed, x), typeError('aad'), `${c.name} open aad`);
    assert.throws(() => aead.seal(nonce, sealed, undefined, x), typeError('output'), `${c.name} seal output`);
    assert.throws(() => aead.open(nonce, sealed, undefined, x), typeError('output'), `${c.name} open output`);
    // GCM takes nonces of any length from 1 byte; AES-GCM-SIV and the ChaCha AEADs one length
    for (const call of c.name.endsWith('-gcm') ? [] : [() => aead.seal(nonce.subarray(1), sealed), () => aead.open(nonce.subarray(1), sealed)]) {
      assert.throws(call, { name: CtkitRangeError.name, message: `nonce must be ${c.nonceLength} bytes long, got ${c.nonceLength - 1}` }, `${c.name} nonce length`);
    }
    assert.throws(() => aead.seal(nonce, sealed, undefined, new Uint8Array(sealed.length + 15)), {
      name: CtkitRangeError.name,
      message: `output must be at least ${sealed.length + 16} bytes long, got ${sealed.length + 15}`,
    });
    aead.dispose();
  }
  const sm4 = new Sm4(rng.bytes(16));
  sm4.dispose();
  for (const call of [() => sm4.encrypt(new Uint8Array(16)), () => sm4.decrypt(new Uint8Array(16)), () => sm4.ctr(new Uint8Array(16), new Uint8Array(3))]) {
    assert.throws(call, { name: StateError.name, message: 'sm4: used after dispose()' });
  }
});

test('XChaCha20 and ChaCha20: the state block does not depend on what the IO area held before the call', () => {
  const k = chachaKernel();
  for (const n of [0, 1, 64, 200, W + 3]) {
    const key = rng.bytes(32);
    const data = rng.bytes(n);
    const dirty = () => k.u8.set(rng.bytes(CHACHA_IO.END), 0);
    const n24 = rng.bytes(24);
    const { subkey, nonce } = xchachaSubkeyNonce(key, n24);
    dirty();
    assert.deepEqual(xchacha20(key, n24, data, 3), chacha20Ref(subkey, nonce, data, 3), `xchacha20 ${n}`);
    assert.ok(zeroRange(k, 0, CHACHA_IO.END), `xchacha20 ${n}: the IO area is not wiped`);
    const n12 = rng.bytes(12);
    dirty();
    assert.deepEqual(chacha20(key, n12, data, 7), chacha20Ref(key, n12, data, 7), `chacha20 ${n}`);
    assert.ok(zeroRange(k, 0, CHACHA_IO.END), `chacha20 ${n}: the IO area is not wiped`);
  }
});

test('AES-GCM-SIV: the POLYVAL state and the counter block do not depend on what the IO area held before the call', () => {
  for (const c of AEADS.filter((a) => a.name.endsWith('-gcm-siv'))) {
    const k = c.fresh(`mutation-aead-siv-dirty-${serial++}`);
    const key = rng.bytes(c.keyLength);
    const aead = c.make(key, k);
    for (const [n, a] of [
      [40, 8],
      [0, 0],
      [2000, 30],
      [W + 40, 8],
    ] as const) {
      const nonce = rng.bytes(12);
      const pt = rng.bytes(n);
      const aad = rng.bytes(a);
      const ref = c.sealRef(key, nonce, pt, aad);
      const dirty = () => k.u8.set(rng.bytes(AES_LAYOUT.IO.keys), 0); // counter, mask, state, lengths, nonce, tag
      dirty();
      assert.deepEqual(aead.seal(nonce, pt, aad), ref, `${c.name} seal ${n}/${a} over a dirty IO area`);
      dirty();
      assert.deepEqual(aead.open(nonce, ref, aad), pt, `${c.name} open ${n}/${a} over a dirty IO area`);
    }
    aead.dispose();
  }
});

test('ChaCha20-Poly1305 lengths block: le64 writes every safe integer as 8 little-endian bytes', () => {
  const values = [0, 1, 255, 256, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 2 ** 38 - 64, 2 ** 53 - 1];
  for (let i = 0; i < 200; i++) values.push(rng.int(2 ** 21) * 2 ** 32 + rng.int(2 ** 32));
  for (const n of values) {
    const got = new Uint8Array(11).fill(0xaa);
    le64(got, 2, n);
    const want = new Uint8Array(11).fill(0xaa);
    new DataView(want.buffer).setBigUint64(2, BigInt(n), true);
    assert.deepEqual(got, want, `le64(${n})`);
  }
});

test('ChaCha20 and XChaCha20: an exhausted block counter is an error naming the function and the blocks', () => {
  const key = rng.bytes(32);
  chacha20(key, rng.bytes(12), new Uint8Array(64), 2 ** 32 - 1); // the last block is usable
  assert.throws(() => chacha20(key, rng.bytes(12), new Uint8Array(65), 2 ** 32 - 1), {
    name: CtkitRangeError.name,
    message: 'chacha20: the 32-bit block counter is exhausted: data needs 2 blocks from block 4294967295, the last block is 2^32 - 1',
  });
  assert.throws(() => xchacha20(key, rng.bytes(24), new Uint8Array(129), 2 ** 32 - 2), {
    name: CtkitRangeError.name,
    message: 'xchacha20: the 32-bit block counter is exhausted: data needs 3 blocks from block 4294967294, the last block is 2^32 - 1',
  });
});

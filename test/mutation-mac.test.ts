// src/mac directly (issue 18, mutation testing): the glue's decisions that the values alone do
// not show — when the powers of H (GHASH/POLYVAL) and of r (Poly1305) are computed (at the
// measured thresholds, once, or as the `powers` option says), that every block reaches the
// kernel with the group size that matches, the exact errors — on a spied kernel instance of its
// own, with every value checked against the reference models.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UniversalHash, gf128KernelFrom, hashOneShot } from '../src/mac/universal-hash.js';
import { Poly1305, chachaKernelFrom, POWERS_MIN_BLOCKS } from '../src/mac/poly1305.js';
import { ghash, polyval, poly1305 } from '../src/mac/index.js';
import * as gf128Module from '../src/engine/wasm/gf128.js';
import * as chachaModule from '../src/engine/wasm/chacha.js';
import { layout as gfLayout } from '../src/engine/wasm/gf128.contract.js';
import { SCRATCH_PTR, SCRATCH_SIZE } from '../src/engine/kernel.js';
import { ghashRef } from '../src/ref/ghash.js';
import { polyvalRef } from '../src/ref/polyval.js';
import { poly1305Ref } from '../src/ref/poly1305.js';
import { CtkitRangeError, CtkitTypeError, StateError } from '../src/errors.js';
import { Rng } from './support/rng.js';
import { count, spied } from './support/spy.js';
import { poly1305OneShotWith, poly1305With, universalHashWith } from '../src/internal.js';

const rng = new Rng(0x18);

let serial = 0;
const gf = () => spied(gf128KernelFrom(`mutation-mac-gf-${serial++}`, gf128Module.bytes()), ['gf128_powers', 'ghash_blocks', 'polyval_blocks']);
const cc = () => spied(chachaKernelFrom(`mutation-mac-cc-${serial++}`, chachaModule.bytes()), ['poly1305_powers', 'poly1305_blocks']);

test('GHASH / POLYVAL one-shot: the powers from 512 bytes on (not at 511), group size 8 with them, 1 without; every value as the reference', () => {
  for (const kind of ['ghash', 'polyval'] as const) {
    const ref = kind === 'ghash' ? ghashRef : polyvalRef;
    for (const [n, powers] of [
      [0, false],
      [15, false],
      [496, false],
      [511, false],
      [512, true],
      [513, true],
      [4096, true],
    ] as const) {
      const { k, calls } = gf();
      const key = rng.bytes(16);
      const data = rng.bytes(n);
      assert.deepEqual(hashOneShot(kind, key, data, k), ref(key, data), `${kind} ${n}`);
      assert.equal(count(calls, 'gf128_powers'), powers ? 1 : 0, `${kind} ${n}: powers`);
      const fn = kind === 'ghash' ? 'ghash_blocks' : 'polyval_blocks';
      const blocks = calls.filter(([c]) => c === fn);
      assert.equal(count(calls, kind === 'ghash' ? 'polyval_blocks' : 'ghash_blocks'), 0, `${kind}: the other hash ran`);
      assert.equal(
        blocks.reduce((s, [, a]) => s + a[3], 0),
        Math.ceil(n / 16),
        `${kind} ${n}: blocks`,
      );
      for (const [, a] of blocks) assert.equal(a[4], powers ? gfLayout.MAX_POWERS : 1, `${kind} ${n}: group size`);
      assert.equal(k.slotsInUse, 0);
    }
  }
});

test('GHASH / POLYVAL one-shot above the window: chunks of the window, a partial last block zero-padded; scratch wiped', () => {
  const { k, calls } = gf();
  const key = rng.bytes(16);
  for (const n of [SCRATCH_SIZE + 1, SCRATCH_SIZE + 17, 2 * SCRATCH_SIZE - 3]) {
    calls.length = 0;
    const data = rng.bytes(n);
    assert.deepEqual(hashOneShot('polyval', key, data, k), polyvalRef(key, data), `${n}`);
    assert.deepEqual(
      calls.filter(([c]) => c === 'polyval_blocks').map(([, a]) => a[3]),
      [SCRATCH_SIZE / 16, Math.ceil((n - SCRATCH_SIZE) / 16)],
    );
    assert.ok(
      k.u8.subarray(SCRATCH_PTR, SCRATCH_PTR + SCRATCH_SIZE).every((b) => b === 0),
      `${n}: scratch not wiped`,
    );
  }
});

test('UniversalHash: powers once the blocks seen reach 512 bytes (auto), at once (always), never (never); computed once', () => {
  for (const kind of ['ghash', 'polyval'] as const) {
    const ref = kind === 'ghash' ? ghashRef : polyvalRef;
    const fn = kind === 'ghash' ? 'ghash_blocks' : 'polyval_blocks';
    for (const policy of ['auto', 'always', 'never'] as const) {
      const { k, calls } = gf();
      const key = rng.bytes(16);
      const h = universalHashWith({ kernel: k }, kind, key, { powers: policy });
      const parts = [rng.bytes(496), rng.bytes(15), rng.bytes(1), rng.bytes(16), rng.bytes(100), rng.bytes(600)];
      const groups: number[] = [];
      for (const p of parts) {
        const before = calls.length;
        h.update(p);
        for (const [c, a] of calls.slice(before)) if (c === fn) groups.push(a[4]);
      }
      const out = h.digest();
      assert.deepEqual(out, ref(key, Uint8Array.from(parts.flatMap((p) => [...p]))), `${kind} ${policy}`);
      assert.equal(count(calls, 'gf128_powers'), policy === 'never' ? 0 : 1, `${kind} ${policy}: powers computed ${count(calls, 'gf128_powers')} times`);
      // blocks: 496 (31 blocks); 15 + 1 completes one (512 seen: powers under auto); 16; 100 → 96 + 4 buffered; 4 + 600 → 592 + 12; digest pads 12
      const want = policy === 'never' ? [1, 1, 1, 1, 1, 1] : policy === 'always' ? [8, 8, 8, 8, 8, 8] : [1, 8, 8, 8, 8, 8];
      assert.deepEqual(groups.slice(0, 5), want.slice(0, 5), `${kind} ${policy}: group sizes`);
      assert.equal(k.slotsInUse, 0);
    }
  }
});

test('UniversalHash: initialState, typed errors with their messages, dispose', () => {
  const key = rng.bytes(16);
  const s0 = rng.bytes(16);
  const data = rng.bytes(40);
  assert.deepEqual(new UniversalHash('ghash', key, { initialState: s0 }).update(data).digest(), ghashRef(key, data, s0));
  assert.deepEqual(new UniversalHash('polyval', key, { initialState: s0 }).update(data).digest(), polyvalRef(key, data, s0));
  assert.throws(
    () => new UniversalHash('ghash', key, { initialState: new Uint8Array(15) }),
    (e: unknown) => e instanceof CtkitRangeError && (e as Error).message === 'initialState must be 16 bytes long, got 15',
  );
  assert.throws(
    () => new UniversalHash('ghash', key, { initialState: [0] as unknown as Uint8Array }),
    (e: unknown) => e instanceof CtkitTypeError && /^initialState must be a Uint8Array/.test((e as Error).message),
  );
  assert.throws(
    () => ghash(new Uint8Array(15), data),
    (e: unknown) => e instanceof CtkitRangeError && (e as Error).message === 'key must be 16 bytes long, got 15',
  );
  assert.throws(
    () => polyval(key, 'x' as unknown as Uint8Array),
    (e: unknown) => e instanceof CtkitTypeError && /^data must be a Uint8Array/.test((e as Error).message),
  );
  for (const kind of ['ghash', 'polyval'] as const) {
    const h = new UniversalHash(kind, key);
    h.update(data).digest();
    assert.throws(
      () => h.update(data),
      (e: unknown) => e instanceof StateError && (e as Error).message === `${kind}: update() after digest()`,
    );
    assert.throws(
      () => h.digest(),
      (e: unknown) => e instanceof StateError && (e as Error).message === `${kind}: digest() called twice`,
    );
    h.dispose(); // idempotent
  }
  const { k } = gf();
  const d = universalHashWith({ kernel: k }, 'ghash', key, { powers: 'always' });
  d.update(rng.bytes(32));
  const slot = 69632; // the first slot
  d.dispose();
  d.dispose();
  assert.equal(k.slotsInUse, 0);
  assert.ok(
    k.u8.subarray(slot, slot + gfLayout.SLOT_SIZE).every((b) => b === 0),
    'dispose() with powers left bytes in the slot',
  );
  assert.equal(ghash.create(key).kind, 'ghash');
  assert.equal(polyval.create(key).kind, 'polyval');
});

test(`Poly1305 one-shot: the powers of r from ${POWERS_MIN_BLOCKS} whole blocks on, or as the option says; the partial block padded with 0x01`, () => {
  for (const [n, auto] of [
    [0, false],
    [1, false],
    [15, false],
    [16, false],
    [47 * 16 + 15, false],
    [48 * 16, true],
    [48 * 16 + 1, true],
    [200, false],
    [2000, true],
  ] as const) {
    for (const policy of ['auto', 'always', 'never'] as const) {
      const { k, calls } = cc();
      const key = rng.bytes(32);
      const msg = rng.bytes(n);
      assert.deepEqual(poly1305OneShotWith({ kernel: k }, key, msg, { powers: policy }), poly1305Ref(key, msg), `${n} ${policy}`);
      const powers = policy === 'always' || (policy === 'auto' && auto);
      assert.equal(count(calls, 'poly1305_powers'), powers ? 1 : 0, `${n} ${policy}: powers`);
      const blocks = calls.filter(([c]) => c === 'poly1305_blocks');
      assert.equal(
        blocks.reduce((s, [, a]) => s + a[2], 0),
        Math.ceil(n / 16),
        `${n}: blocks`,
      );
      for (const [, a] of blocks) {
        const partial = a[1] !== SCRATCH_PTR;
        assert.equal(a[3], partial ? 1 : powers ? 8 : 1, `${n} ${policy}: group size`);
        assert.equal(a[4], partial ? 0 : 1, `${n}: the 2^128 bit`);
      }
      assert.ok(
        k.u8.subarray(0, 1024).every((b) => b === 0),
        `${n}: IO area not wiped`,
      );
    }
  }
  assert.deepEqual(poly1305(new Uint8Array(32).fill(3), new Uint8Array(5)), poly1305Ref(new Uint8Array(32).fill(3), new Uint8Array(5)));
});

test('Poly1305 incremental: powers once 48 whole blocks were seen (auto), at once (always), never; once; errors and dispose', () => {
  for (const policy of ['auto', 'always', 'never'] as const) {
    const { k, calls } = cc();
    const key = rng.bytes(32);
    const p = poly1305With({ kernel: k }, key, { powers: policy });
    const parts = [rng.bytes(47 * 16), rng.bytes(7), rng.bytes(9), rng.bytes(33), rng.bytes(1000), rng.bytes(3)];
    const groups: number[] = [];
    for (const x of parts) {
      const before = calls.length;
      p.update(x);
      for (const [c, a] of calls.slice(before)) if (c === 'poly1305_blocks') groups.push(a[3]);
    }
    assert.deepEqual(p.digest(), poly1305Ref(key, Uint8Array.from(parts.flatMap((x) => [...x]))), policy);
    assert.equal(count(calls, 'poly1305_powers'), policy === 'never' ? 0 : 1, `${policy}: powers computed ${count(calls, 'poly1305_powers')} times`);
    // 47 blocks; 7 + 9 completes the 48th (powers under auto); 33 → 32 + 1; 1 + 15 completes one, 976 more, 9 + 3 buffered
    const want = policy === 'never' ? [1, 1, 1, 1, 1] : policy === 'always' ? [8, 8, 8, 8, 8] : [1, 8, 8, 8, 8];
    assert.deepEqual(groups, want, `${policy}: group sizes`);
    assert.throws(
      () => p.update(key),
      (e: unknown) => e instanceof StateError && (e as Error).message === 'poly1305: update() after digest()',
    );
    assert.throws(
      () => p.digest(),
      (e: unknown) => e instanceof StateError && (e as Error).message === 'poly1305: digest() called twice',
    );
    assert.equal(k.slotsInUse, 0);
    assert.ok(
      k.u8.subarray(0, 1024).every((b) => b === 0),
      `${policy}: IO area not wiped`,
    );
  }
  assert.throws(
    () => new Poly1305(new Uint8Array(16)),
    (e: unknown) => e instanceof CtkitRangeError && (e as Error).message === 'key must be 32 bytes long, got 16',
  );
  const d = poly1305.create(new Uint8Array(32));
  d.dispose();
  d.dispose();
});

test('every parameter named in its error; the default powers policy; a kernel that fails mid-message leaves scratch and IO wiped', () => {
  const key32 = rng.bytes(32);
  const key16 = rng.bytes(16);
  const named = (f: () => unknown, type: typeof CtkitTypeError | typeof CtkitRangeError, message: RegExp) => assert.throws(f, (e: unknown) => e instanceof type && message.test((e as Error).message), String(message));
  named(() => new Poly1305('k' as unknown as Uint8Array), CtkitTypeError, /^key must be a Uint8Array/);
  named(() => poly1305.create(key32).update('x' as unknown as Uint8Array), CtkitTypeError, /^data must be a Uint8Array/);
  named(() => poly1305('k' as unknown as Uint8Array, key16), CtkitTypeError, /^key must be a Uint8Array/);
  named(() => poly1305(new Uint8Array(31), key16), CtkitRangeError, /^key must be 32 bytes long, got 31$/);
  named(() => ghash('k' as unknown as Uint8Array, key16), CtkitTypeError, /^key must be a Uint8Array/);
  named(() => new UniversalHash('polyval', 'k' as unknown as Uint8Array), CtkitTypeError, /^key must be a Uint8Array/);
  named(() => new UniversalHash('ghash', new Uint8Array(17)), CtkitRangeError, /^key must be 16 bytes long, got 17$/);

  // no options: the measured threshold decides (48 whole blocks), as with powers: 'auto'
  for (const [n, powers] of [
    [47 * 16, 0],
    [48 * 16, 1],
  ] as const) {
    const { k, calls } = cc();
    const msg = rng.bytes(n);
    assert.deepEqual(poly1305OneShotWith({ kernel: k }, key32, msg), poly1305Ref(key32, msg));
    assert.equal(count(calls, 'poly1305_powers'), powers, `${n} bytes, no options: powers`);
  }

  // the kernel throws on the second window of a long message: that window's bytes sit in scratch
  const { k } = cc();
  const ex = k.exports as unknown as Record<string, (...a: number[]) => unknown>;
  const blocks = ex.poly1305_blocks;
  let n = 0;
  ex.poly1305_blocks = (...a: number[]) => {
    if (++n === 2) throw new Error('kernel failure');
    return blocks(...a);
  };
  const msg = rng.bytes(SCRATCH_SIZE + 4096).fill(0xa5);
  assert.throws(() => poly1305OneShotWith({ kernel: k }, key32, msg), /kernel failure/);
  assert.ok(
    k.u8.subarray(SCRATCH_PTR, SCRATCH_PTR + SCRATCH_SIZE).every((b) => b === 0),
    'scratch holds message bytes after a failure',
  );
  assert.ok(
    k.u8.subarray(0, 1024).every((b) => b === 0),
    'IO area (key, state) not wiped after a failure',
  );
});

// src/hash directly (issue 18, mutation testing): what the values alone do not show — the
// exact errors, the scratch window wiped when a message fails half-way through it, HKDF's
// length checks at their edges — and values against OpenSSL at the streaming boundaries
// (one chunk, a block more, a partial block buffered across chunks). Quick; runs first for
// every mutant of src/hash (scripts/mutation.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { hkdf, hmac, sha224, sha256, sha384, sha512, type Hash } from '../src/hash/index.js';
import { CHUNK, IO_USED, SLOT_SIZE, hashInfo, type Sha2Exports } from '../src/hash/sha2.js';
import { getKernel, IO_PTR, SCRATCH_PTR, SCRATCH_SIZE } from '../src/engine/kernel.js';
import * as sha2Module from '../src/engine/wasm/sha2.js';
import { CtkitRangeError, CtkitTypeError, StateError } from '../src/errors.js';
import { Rng, hex } from './support/rng.js';

const rng = new Rng(0x1812);
const HASHES: [Hash, string][] = [
  [sha224, 'sha224'],
  [sha256, 'sha256'],
  [sha384, 'sha384'],
  [sha512, 'sha512'],
];
const k = () => getKernel<Sha2Exports>(sha2Module, SLOT_SIZE);
const clean = (what: string) => {
  const u8 = k().u8;
  assert.ok(
    u8.subarray(IO_PTR, IO_PTR + IO_USED).every((b) => b === 0),
    `${what}: the IO area holds bytes`,
  );
  assert.ok(
    u8.subarray(SCRATCH_PTR, SCRATCH_PTR + SCRATCH_SIZE).every((b) => b === 0),
    `${what}: scratch holds bytes`,
  );
};
const message = (cls: new (...a: never[]) => Error, text: string) => (e: unknown) => e instanceof cls && (e as Error).message === text;

test('one-shot hash and HMAC at the chunk boundary and two chunks on: OpenSSL values, IO area and scratch wiped', () => {
  const key = rng.bytes(70);
  for (const n of [CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK - 1, 2 * CHUNK + 129]) {
    const msg = rng.bytes(n);
    for (const [h, name] of HASHES) {
      assert.equal(hex(h(msg)), createHash(name).update(msg).digest('hex'), `${name} ${n}`);
      clean(`${name} ${n}`);
      assert.equal(hex(hmac(h, key, msg)), createHmac(name, key).update(msg).digest('hex'), `hmac ${name} ${n}`);
      clean(`hmac ${name} ${n}`);
    }
  }
});

test('incremental: a partial block kept across calls, whole blocks above the window in one call; OpenSSL values', () => {
  const msg = rng.bytes(3 * SCRATCH_SIZE + 300);
  for (const [h, name] of HASHES) {
    for (const cuts of [[1, 200, 2 * SCRATCH_SIZE + 7], [63, 65, 127, 129], [SCRATCH_SIZE + 64, 1], [5]]) {
      const s = h.create();
      const m = hmac.create(h, msg.subarray(0, 150));
      let at = 0;
      for (const c of [...cuts, msg.length]) {
        const end = Math.min(c + at, msg.length);
        s.update(msg.subarray(at, end));
        m.update(msg.subarray(at, end));
        at = end;
      }
      assert.equal(hex(s.digest()), createHash(name).update(msg).digest('hex'), `${name} ${cuts}`);
      assert.equal(hex(m.digest()), createHmac(name, msg.subarray(0, 150)).update(msg).digest('hex'), `hmac ${name} ${cuts}`);
      clean(`${name} ${cuts}`);
    }
  }
});

test('one-shot HMAC whose message fails in its second chunk: the error passes through, scratch and the IO area are wiped', () => {
  class FailsLater extends Uint8Array {
    calls = 0;
    override subarray(begin?: number, end?: number): Uint8Array<ArrayBuffer> {
      if (++this.calls > 1) throw new Error('the second chunk cannot be read');
      return super.subarray(begin, end);
    }
  }
  for (const [h] of HASHES) {
    const bad = new FailsLater(CHUNK + 100).fill(0x77);
    assert.throws(() => hmac(h, rng.bytes(200), bad), /the second chunk cannot be read/);
    assert.equal(bad.calls, 2, 'the first chunk was read');
    clean(`${h.algorithm}: after the failed message`);
  }
});

test('typed errors, with their messages', () => {
  const notOurs = (() => new Uint8Array(32)) as unknown as Hash;
  assert.throws(() => hashInfo(notOurs), message(CtkitTypeError, "hash must be one of ctkit's sha224, sha256, sha384 or sha512"));
  assert.throws(() => hmac(notOurs, new Uint8Array(1), new Uint8Array(1)), CtkitTypeError);
  for (const [h] of HASHES) {
    const s = h.create();
    s.digest();
    assert.throws(() => s.update(new Uint8Array(1)), message(StateError, `${h.algorithm}: update() after digest() or dispose()`));
    assert.throws(() => s.digest(), message(StateError, `${h.algorithm}: digest() after digest() or dispose()`));
    const m = hmac.create(h, new Uint8Array(1));
    m.dispose();
    assert.throws(() => m.update(new Uint8Array(1)), message(StateError, `HMAC-${h.algorithm}: update() after digest() or dispose()`));
    assert.throws(() => m.digest(), message(StateError, `HMAC-${h.algorithm}: digest() after digest() or dispose()`));
    assert.throws(() => h.create().update('x' as unknown as Uint8Array), message(CtkitTypeError, 'data must be a Uint8Array, got string'));
    assert.throws(() => hmac.create(h, new Uint8Array(1)).update(7 as unknown as Uint8Array), message(CtkitTypeError, 'data must be a Uint8Array, got number'));
    assert.throws(() => hmac(h, new Uint8Array(1), 7 as unknown as Uint8Array), message(CtkitTypeError, 'msg must be a Uint8Array, got number'));
  }
});

test('HKDF: lengths 0, 1, HashLen ± 1, 255·HashLen equal OpenSSL; 255·HashLen + 1, fractions, NaN and non-numbers are refused by name', () => {
  for (const [h, name] of HASHES) {
    const n = h.outputLen;
    const ikm = rng.bytes(22),
      salt = rng.bytes(13),
      info = rng.bytes(10);
    for (const L of [0, 1, n - 1, n, n + 1, 2 * n + 3, 255 * n]) {
      const want = L === 0 ? '' : Buffer.from(hkdfSync(name, ikm, salt, info, L)).toString('hex');
      assert.equal(hex(hkdf(h, ikm, salt, info, L)), want, `${name} L=${L}`);
      const prk = hkdf.extract(h, ikm, salt);
      assert.equal(hex(hkdf.expand(h, prk, info, L)), want, `${name} expand L=${L}`);
    }
    // no salt: HashLen zero bytes; no info: empty
    assert.equal(hex(hkdf(h, ikm, undefined, undefined, n)), Buffer.from(hkdfSync(name, ikm, new Uint8Array(n), new Uint8Array(0), n)).toString('hex'));
    const max = 255 * n;
    for (const bad of [max + 1, -1, 0.5, Number.NaN]) {
      const text = `length must be an integer from 0 to ${max} (255 · HashLen for HKDF-${h.algorithm}), got ${bad}`;
      assert.throws(() => hkdf(h, ikm, salt, info, bad), message(CtkitRangeError, text), `${name} ${bad}`);
      assert.throws(() => hkdf.expand(h, ikm, info, bad), message(CtkitRangeError, text), `${name} expand ${bad}`);
    }
    assert.throws(() => hkdf(h, ikm, salt, info, '3' as unknown as number), message(CtkitTypeError, 'length must be a number, got string'));
    assert.throws(() => hkdf(h, ikm, 'salt' as unknown as Uint8Array, info, 3), message(CtkitTypeError, 'salt must be a Uint8Array, got string'));
    assert.throws(() => hkdf.extract(h, ikm, null as unknown as Uint8Array), message(CtkitTypeError, 'salt must be a Uint8Array, got null'));
    assert.throws(() => hkdf.extract(h, 'ikm' as unknown as Uint8Array), message(CtkitTypeError, 'ikm must be a Uint8Array, got string'));
    assert.throws(() => hkdf.expand(h, ikm, 5 as unknown as Uint8Array, 3), message(CtkitTypeError, 'info must be a Uint8Array, got number'));
    clean(`hkdf ${name}`);
  }
});

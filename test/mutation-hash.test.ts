// src/hash directly (issue 18, mutation testing): what the values alone do not show — the
// exact errors, the scratch window wiped when a message fails half-way through it, HKDF's
// length checks at their edges — and values against OpenSSL at the streaming boundaries
// (one chunk, a block more, a partial block buffered across chunks). Quick; runs first for
// every mutant of src/hash (scripts/mutation.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { hkdf, hmac, sha224, sha256, sha384, sha512, type Hash } from '../src/hash/index.js';
import { CHUNK, IO_USED, SLOT_SIZE, hashInfo, hi32, lo32, sha2Family, sha2KernelFrom, type Sha2Exports } from '../src/hash/sha2.js';
import { getKernel, IO_PTR, SCRATCH_PTR, SCRATCH_SIZE, SLOTS_PTR } from '../src/engine/kernel.js';
import * as sha2Module from '../src/engine/wasm/sha2.js';
import { CtkitRangeError, CtkitTypeError, StateError } from '../src/errors.js';
import { Rng, hex } from './support/rng.js';
import { count, spied } from './support/spy.js';

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
    assert.throws(() => hmac(h, 'k' as unknown as Uint8Array, new Uint8Array(1)), message(CtkitTypeError, 'key must be a Uint8Array, got string'));
    assert.throws(() => hmac.create(h, 'k' as unknown as Uint8Array), message(CtkitTypeError, 'key must be a Uint8Array, got string'));
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

let serial = 0;
/** The four hashes on a sha2 instance of their own, whose calls to `names` are recorded. */
const own = (names: string[]) => {
  const { k: kernel, calls } = spied(sha2KernelFrom(`mutation-hash-${serial++}`, sha2Module.bytes()), names);
  const fam = sha2Family(() => kernel);
  return { kernel, calls, hashes: [fam.sha224, fam.sha256, fam.sha384, fam.sha512] };
};

test('one-shot HMAC: a single kernel call (sha2_hmac) for messages up to CHUNK bytes, init and blocks above; OpenSSL values', () => {
  const { calls, hashes } = own(['sha2_hmac', 'sha2_hmac_init', 'sha256_blocks', 'sha512_blocks']);
  for (const h of hashes) {
    const name = h.algorithm.replace('-', '').toLowerCase();
    for (const [n, oneCall] of [
      [0, true],
      [1, true],
      [CHUNK - 1, true],
      [CHUNK, true],
      [CHUNK + 1, false],
    ] as const) {
      const key = rng.bytes(20),
        msg = rng.bytes(n);
      calls.length = 0;
      assert.equal(hex(hmac(h, key, msg)), createHmac(name, key).update(msg).digest('hex'), `${name} ${n}`);
      assert.equal(count(calls, 'sha2_hmac'), oneCall ? 1 : 0, `${name} ${n}: sha2_hmac calls`);
      assert.equal(count(calls, 'sha2_hmac_init'), oneCall ? 0 : 1, `${name} ${n}: sha2_hmac_init calls`);
      assert.equal(calls.length, oneCall ? 1 : 2, `${name} ${n}: every kernel call`);
    }
  }
});

test('the message length reaches the kernel as two 32-bit words: high and low against BigInt, up to 2^53 - 1', () => {
  for (const n of [0, 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 7, 3 * 2 ** 35 + 12345, 2 ** 40 + 3, Number.MAX_SAFE_INTEGER]) {
    const b = BigInt(n);
    assert.equal(hi32(n), Number(b >> 32n), `high word of ${n}`);
    assert.equal(lo32(n), Number(b & 0xffffffffn), `low word of ${n}`);
  }
  // and *_last gets them for the whole message (incremental: the buffered bytes counted too)
  const { calls, hashes } = own(['sha256_last', 'sha512_last']);
  for (const h of hashes) {
    const last = h.blockLen === 64 ? 'sha256_last' : 'sha512_last';
    for (const n of [0, 3, 200, CHUNK + 70]) {
      calls.length = 0;
      h(rng.bytes(n));
      const s = h.create();
      s.update(rng.bytes(n)).update(rng.bytes(5));
      s.digest();
      const got = calls.filter(([c]) => c === last).map(([, a]) => [a[3], a[4]]);
      assert.deepEqual(
        got,
        [
          [0, n],
          [0, n + 5],
        ],
        `${h.algorithm} ${n}`,
      );
    }
  }
});

test('one-shot calls above the window touch scratch only: an incremental hash in progress still gives the OpenSSL value', () => {
  const big = rng.bytes(16 * SCRATCH_SIZE + 33);
  for (const [h, name] of HASHES) {
    const head = rng.bytes(100),
      tail = rng.bytes(300);
    const s = h.create().update(head);
    const m = hmac.create(h, head).update(head);
    assert.equal(hex(h(big)), createHash(name).update(big).digest('hex'), name);
    assert.equal(hex(hmac(h, tail, big)), createHmac(name, tail).update(big).digest('hex'), `hmac ${name}`);
    assert.equal(hex(s.update(tail).digest()), createHash(name).update(head).update(tail).digest('hex'), `${name}: the one in progress`);
    assert.equal(hex(m.update(tail).digest()), createHmac(name, head).update(head).update(tail).digest('hex'), `hmac ${name}: the one in progress`);
  }
});

test('dispose() and digest() wipe the slot: on an instance of its own, nothing is left from SLOTS_PTR on', () => {
  const { kernel, hashes } = own([]);
  const slots = () => kernel.u8.subarray(SLOTS_PTR);
  for (const h of hashes) {
    for (const make of [() => h.create(), () => hmac.create(h, rng.bytes(40))]) {
      for (const end of ['dispose', 'digest'] as const) {
        const s = make().update(rng.bytes(h.blockLen + 9));
        assert.ok(
          slots().some((b) => b !== 0),
          `${h.algorithm} ${end}: the state is in a slot (control)`,
        );
        if (end === 'dispose') s.dispose();
        else s.digest();
        assert.ok(
          slots().every((b) => b === 0),
          `${h.algorithm}: ${end}() left bytes in the slot`,
        );
        assert.throws(() => s.update(new Uint8Array(1)), StateError);
        s.dispose(); // idempotent
      }
    }
  }
});

// The sealed-stream worker's message handling (src/stream/worker-body.ts), in-process: what it
// posts for each message, what it does to the buffers it gets, and its report on dispose — the
// parts a pool on real workers (test/stream-pool.test.ts) cannot see: the worker's copy of the
// key, plaintext left in a worker's buffer, a dispose that did not dispose. Batches are checked
// against the reference model of the format (src/ref/stream.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chacha20Poly1305 } from '../src/aead/index.js';
import type { Aead } from '../src/aead/types.js';
import type { AeadFactory } from '../src/stream/factories.js';
import { workerBody } from '../src/stream/worker-body.js';
import { refSealStream } from '../src/ref/stream.js';
import { Rng } from './support/rng.js';

const rng = new Rng(0x3017);
const S = 1000; // segment size
const ALG = 'chacha20-poly1305';

/** a handler and what it posted: [message, transfer list] */
function worker(load?: (algorithm: string) => Promise<AeadFactory | undefined>) {
  const posts: [any, Transferable[] | undefined][] = [];
  const handle = workerBody((m, t) => posts.push([m, t]), load);
  const last = () => posts[posts.length - 1];
  /** one batch (first 0, final) that must succeed: its result, which must be the transfer list */
  const batch = async (t: 'seal' | 'open', id: number, data: Uint8Array, msg: object): Promise<Uint8Array> => {
    await handle({ t, id, data, ...msg, first: 0, lastFinal: true });
    const [m, transfer] = last();
    assert.equal(m.t, 'done', m.message);
    assert.equal(m.id, id);
    assert.deepEqual(transfer, [m.data.buffer], 'the result buffer is transferred');
    return m.data;
  };
  return { posts, handle, last, batch };
}

const zero = (b: Uint8Array) => b.every((x) => x === 0);

/** a stream's parameters and the reference's sealed batch of all of `plain` (first 0, final) */
function fixture(plain: Uint8Array) {
  const key = rng.bytes(32);
  const prefix = rng.bytes(7);
  const sealed = refSealStream({ algorithm: ALG, key, prefix, segmentSize: S }, plain);
  const header = sealed.slice(0, 17);
  return { key, msg: { algorithm: ALG, prefix, aad: header, segmentSize: S }, body: sealed.slice(17) };
}

test('init: the key it was given is wiped, ready is posted; a batch before init fails with StateError', async () => {
  const w = worker();
  await w.handle({ t: 'seal', id: 7, data: rng.bytes(5), algorithm: ALG, prefix: rng.bytes(7), aad: rng.bytes(17), segmentSize: S, first: 0, lastFinal: true });
  assert.deepEqual(w.last()[0], { t: 'fail', id: 7, name: 'StateError', message: 'worker: no key', segment: undefined });
  const key = rng.bytes(32);
  await w.handle({ t: 'init', algorithm: ALG, key });
  assert.deepEqual(w.last()[0], { t: 'ready' });
  assert.ok(zero(key), 'the key it received is wiped');
});

test('seal: in place when the batch starts a buffer with room, else a new buffer and the plaintext wiped', async () => {
  const plain = rng.bytes(3 * S + 5);
  const f = fixture(plain);
  const w = worker();
  await w.handle({ t: 'init', algorithm: ALG, key: Uint8Array.from(f.key) });
  const seal = async (data: Uint8Array, id: number) => {
    const out = await w.batch('seal', id, data, f.msg);
    assert.deepEqual(out, f.body, 'the reference sealed batch');
    return out;
  };
  // room to spare, and room exactly
  for (const extra of [100, 0]) {
    const buf = new Uint8Array(f.body.length + extra);
    buf.set(plain);
    const out = await seal(buf.subarray(0, plain.length), 1);
    assert.equal(out.buffer, buf.buffer, `in place (${extra} bytes to spare)`);
    assert.equal(out.byteOffset, 0);
  }
  // not at the start of its buffer (room after it or not), or no room: a new buffer, the input wiped
  for (const [at, size] of [
    [10, f.body.length + 10],
    [10, plain.length + 10],
    [0, plain.length],
    [0, f.body.length - 1],
  ]) {
    const buf = new Uint8Array(size);
    const data = buf.subarray(at, at + plain.length);
    data.set(plain);
    const out = await seal(data, 2);
    assert.notEqual(out.buffer, buf.buffer, `at ${at} of ${size}: a new buffer`);
    assert.ok(zero(buf), `at ${at} of ${size}: the plaintext that came in is wiped`);
  }
  // a batch that cannot be sealed (not the last, not whole segments): fails, its plaintext wiped
  const bad = Uint8Array.from(plain);
  await w.handle({ t: 'seal', id: 3, data: bad, ...f.msg, first: 0, lastFinal: false });
  assert.deepEqual(w.last()[0], { t: 'fail', id: 3, name: 'RangeError', message: 'a batch that is not the last must hold whole segments', segment: undefined });
  assert.ok(zero(bad), 'the plaintext of a failed seal is wiped');
});

test('open: in place at the start of a buffer (an empty final segment too), else a new buffer; a failure names its segment', async () => {
  const plain = rng.bytes(2 * S + 17);
  const f = fixture(plain);
  const w = worker();
  await w.handle({ t: 'init', algorithm: ALG, key: Uint8Array.from(f.key) });
  const open = async (data: Uint8Array, expect: Uint8Array, msg = f.msg) => {
    const out = await w.batch('open', 4, data, msg);
    assert.deepEqual(out, expect);
    return out;
  };
  const own = Uint8Array.from(f.body);
  assert.equal((await open(own, plain)).buffer, own.buffer, 'in place');
  const big = new Uint8Array(f.body.length + 3);
  big.set(f.body, 3);
  const at3 = big.subarray(3);
  assert.notEqual((await open(at3, plain)).buffer, big.buffer, 'at offset 3: a new buffer');
  // an empty stream is one final segment of no plaintext: 0 bytes out, still in place
  const e = fixture(new Uint8Array(0));
  const tagOnly = Uint8Array.from(e.body);
  await w.handle({ t: 'init', algorithm: ALG, key: Uint8Array.from(e.key) });
  assert.equal((await open(tagOnly, new Uint8Array(0), e.msg)).buffer, tagOnly.buffer, 'an empty final segment: in place');
  // with the first key again: segment 1 damaged, in a batch apart from its buffer's start
  await w.handle({ t: 'init', algorithm: ALG, key: Uint8Array.from(f.key) });
  const damaged = new Uint8Array(f.body.length + 5);
  damaged.set(f.body, 5);
  damaged[5 + S + 16 + 40] ^= 1;
  const sent = damaged.slice();
  await w.handle({ t: 'open', id: 9, data: damaged.subarray(5), ...f.msg, first: 0, lastFinal: true });
  const [m] = w.last();
  assert.equal(m.t, 'fail');
  assert.equal(m.id, 9);
  assert.equal(m.name, 'SegmentAuthenticationError');
  assert.equal(m.segment, 1);
  assert.deepEqual(damaged, sent, 'a failed open leaves the sealed bytes it was sent as they were (only plaintext is wiped)');
});

test('dispose: wiped after a real key, or with no key; not wiped when the AEAD does not dispose or the key copy changed', async () => {
  const real = worker();
  await real.handle({ t: 'dispose' });
  assert.deepEqual(real.last()[0], { t: 'disposed', wiped: true }, 'no key yet: nothing to wipe');
  await real.handle({ t: 'init', algorithm: ALG, key: rng.bytes(32) });
  await real.handle({ t: 'dispose' });
  assert.deepEqual(real.last()[0], { t: 'disposed', wiped: true });
  await real.handle({ t: 'seal', id: 1, data: rng.bytes(3), algorithm: ALG, prefix: rng.bytes(7), aad: rng.bytes(17), segmentSize: S, first: 0, lastFinal: true });
  assert.equal(real.last()[0].message, 'worker: no key', 'after dispose the worker has no key');

  // stand-in AEADs around a real one: dispose() that does nothing; a seal after dispose() that
  // fails otherwise than with StateError; dispose() that writes into the key array it was given
  const around = (a: Aead, o: Partial<Pick<Aead, 'seal' | 'dispose'>>): Aead => ({
    algorithm: a.algorithm,
    keyLength: a.keyLength,
    nonceLength: a.nonceLength,
    tagLength: a.tagLength,
    seal: o.seal ?? ((n, p, ad, out) => a.seal(n, p, ad, out)),
    open: (n, c, ad, out) => a.open(n, c, ad, out),
    dispose: o.dispose ?? (() => a.dispose()),
  });
  const cases: [string, AeadFactory][] = [
    ['an AEAD that still seals after dispose()', (k) => around(chacha20Poly1305(k), { dispose: () => undefined })],
    [
      'a seal after dispose() that fails for another reason',
      (k) =>
        around(chacha20Poly1305(k), {
          seal: () => {
            throw new TypeError('not a StateError');
          },
        }),
    ],
    [
      'the key copy it received is no longer all zero',
      (k) => {
        const a = chacha20Poly1305(k);
        return around(a, {
          dispose: () => {
            a.dispose();
            k[5] = 1;
          },
        });
      },
    ],
  ];
  for (const [what, factory] of cases) {
    const w = worker(async () => factory);
    await w.handle({ t: 'init', algorithm: ALG, key: rng.bytes(32) });
    assert.deepEqual(w.last()[0], { t: 'ready' }, what);
    await w.handle({ t: 'dispose' });
    assert.deepEqual(w.last()[0], { t: 'disposed', wiped: false }, what);
  }
  // the same stand-in with a dispose() that works: wiped
  const fine = worker(async () => (k) => around(chacha20Poly1305(k), {}));
  await fine.handle({ t: 'init', algorithm: ALG, key: rng.bytes(32) });
  await fine.handle({ t: 'dispose' });
  assert.deepEqual(fine.last()[0], { t: 'disposed', wiped: true }, 'the stand-in itself');
});

test('init failures: an unknown algorithm, a factory that throws anything; the key is wiped each time', async () => {
  const w = worker();
  const key = rng.bytes(32);
  await w.handle({ t: 'init', algorithm: 'rot13', key });
  assert.deepEqual(w.last()[0], { t: 'fail', id: undefined, name: 'RangeError', message: 'unknown algorithm rot13', segment: undefined });
  assert.ok(zero(key));
  for (const [thrown, message] of [
    [undefined, 'undefined'],
    [null, 'null'],
    ['boom', 'boom'],
  ] as const) {
    const t = worker(async () => {
      throw thrown;
    });
    const k = rng.bytes(32);
    await t.handle({ t: 'init', algorithm: ALG, key: k });
    assert.deepEqual(t.last()[0], { t: 'fail', id: undefined, name: undefined, message, segment: undefined }, String(thrown));
    assert.ok(zero(k));
  }
});

// The web streams and async one-shot calls of ctkit/stream (src/stream/web.ts), rule by rule:
// each argument and option refusal with its type and whole message; the pacer's clock, its
// yields (counted through a stand-in setImmediate, the clock a stand-in performance.now, so no
// test depends on real time) and the fallbacks of yieldToEventLoop where a runtime has no
// setImmediate; how far ahead of the consumer the streams run (one chunk with nobody reading,
// a bounded number of pool batches in flight); the size of the batches they emit; the header
// chunk handed out as the consumer's own; and the wiping of held bytes on cancel and failure.
// The pool here is a stand-in BatchCipher whose batches the test settles by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chacha20Poly1305, type Aead } from '../src/aead/index.js';
import { CtkitTypeError, StateError } from '../src/errors.js';
import { type BatchCipher, SegmentAuthenticationError, StreamFormatError, createOpenStream, createSealStream, createSealer, openStreamAsync, sealStreamAsync, yieldToEventLoop } from '../src/stream/index.js';
import type { SegmentParams } from '../src/stream/segments.js';
import { Rng, cat, hex } from './support/rng.js';

const rng = new Rng(0x3eb5);
const key = rng.bytes(32);
const realSetImmediate = setImmediate;

/** Lets every queued microtask and nextTick run (a few turns of the event loop, no timers). */
async function settle(turns = 4): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((r) => realSetImmediate(r));
}

/** An assert.throws / rejects validator: exactly this class, this name and this whole message. */
const exact =
  (type: abstract new (...a: never[]) => Error, name: string, message: string) =>
  (e: unknown): true => {
    assert.ok(e instanceof Error, `not an Error: ${String(e)}`);
    assert.equal(e.constructor, type, `${e.constructor.name}: ${e.message}`);
    assert.equal(e.name, name);
    assert.equal(e.message, message);
    return true;
  };

async function chunksOf(rs: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const c of rs as unknown as AsyncIterable<Uint8Array>) out.push(c);
  return out;
}

async function readRest(r: ReadableStreamDefaultReader<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for (let x = await r.read(); !x.done; x = await r.read()) out.push(x.value);
  return out;
}

/** The writer of a stream whose readable side is read (and dropped) as it comes. */
function writerOf(ts: TransformStream<Uint8Array, Uint8Array>): WritableStreamDefaultWriter<Uint8Array> {
  chunksOf(ts.readable).catch(() => undefined);
  return ts.writable.getWriter();
}

const source = (chunks: Uint8Array[]): ReadableStream<Uint8Array> =>
  new ReadableStream<Uint8Array>({
    start(ctl) {
      for (const c of chunks) ctl.enqueue(c);
      ctl.close();
    },
  });

/** The sealed stream of the pieces, from the incremental sealer (the reference for the web forms here). */
function sealedByPush(aead: Aead, pieces: Uint8Array[], options: { segmentSize: number; noncePrefix: Uint8Array }): Uint8Array {
  const s = createSealer(aead, options);
  return cat([...pieces.flatMap((p) => s.push(p)), ...s.finish()]);
}

/** An AEAD that tells `seen` the buffer of every plaintext it seals and every sealed input it opens. */
function spyAead(inner: Aead, seen: Set<ArrayBufferLike>): Aead {
  return {
    algorithm: inner.algorithm,
    keyLength: inner.keyLength,
    nonceLength: inner.nonceLength,
    tagLength: inner.tagLength,
    seal: (n, p, x, o) => {
      seen.add(p.buffer);
      return inner.seal(n, p, x, o);
    },
    open: (n, c, x, o) => {
      seen.add(c.buffer);
      return inner.open(n, c, x, o);
    },
    dispose: () => inner.dispose(),
  };
}

interface Call {
  p: SegmentParams;
  data: Uint8Array;
  first: number;
  lastFinal: boolean;
  resolve: (b: Uint8Array) => void;
  reject: (e: unknown) => void;
}

/** A stand-in worker pool: each batch is recorded and settled by the test. */
function fakePool(concurrency: number): { cipher: BatchCipher; calls: Call[] } {
  const calls: Call[] = [];
  const batch = (p: SegmentParams, data: Uint8Array, first: number, lastFinal: boolean) => new Promise<Uint8Array>((resolve, reject) => void calls.push({ p, data, first, lastFinal, resolve, reject }));
  return { calls, cipher: { algorithm: 'chacha20-poly1305', concurrency, sealBatch: batch, openBatch: batch } };
}

type Descriptors = [string, PropertyDescriptor | undefined][];
function replaceGlobals(values: Record<string, unknown>): Descriptors {
  const saved: Descriptors = Object.keys(values).map((k) => [k, Object.getOwnPropertyDescriptor(globalThis, k)]);
  for (const [k, v] of Object.entries(values)) Object.defineProperty(globalThis, k, { value: v, configurable: true, writable: true });
  return saved;
}
function restoreGlobals(saved: Descriptors): void {
  for (const [k, d] of saved) {
    if (d) Object.defineProperty(globalThis, k, d);
    else delete (globalThis as Record<string, unknown>)[k];
  }
}

/**
 * Runs f on a stand-in clock: performance.now() advances `perf` ms a call (or there is no
 * performance object), Date.now() `date` ms a call. Returns how many times the pump yielded
 * (setImmediate calls; this file's own waits use the real one).
 */
async function clocked(clock: { perf: number | 'none'; date: number }, f: () => Promise<unknown>): Promise<number> {
  let yields = 0;
  let pt = 1000;
  let dt = 1e12;
  const perf = clock.perf;
  const saved = replaceGlobals({
    performance: perf === 'none' ? undefined : { now: () => (pt += perf) },
    setImmediate: (g: () => void) => {
      yields++;
      return realSetImmediate(g);
    },
  });
  const dateNow = Date.now;
  Date.now = () => (dt += clock.date);
  try {
    await f();
  } finally {
    Date.now = dateNow;
    restoreGlobals(saved);
  }
  return yields;
}

// ---- arguments and options ---------------------------------------------------------------------

test('arguments and options: each refusal with its error class and whole message', async () => {
  const aead = chacha20Poly1305(key);
  const notAead = 'aead must be a ctkit AEAD object (aesGcm(key), chacha20Poly1305(key), …)';
  // a function with a sealBatch method is not a batch cipher (nor an AEAD)
  const fn = Object.assign(() => undefined, fakePool(1).cipher);
  for (const make of [createSealStream, createOpenStream]) {
    for (const c of [null, fn]) assert.throws(() => make(c as never), exact(TypeError, 'TypeError', notAead));
    for (const y of ['5', null, true, -1, Number.NaN]) assert.throws(() => make(aead, { yieldEvery: y as never }), exact(RangeError, 'RangeError', 'yieldEvery must be a number of milliseconds ≥ 0'));
    for (const s of [null, {}, 'signal', { aborted: 0 }]) assert.throws(() => make(aead, { signal: s as never }), exact(TypeError, 'TypeError', 'signal must be an AbortSignal'));
    for (const p of [null, 5, 'f', {}]) assert.throws(() => make(aead, { onProgress: p as never }), exact(TypeError, 'TypeError', 'onProgress must be a function'));
    // the accepted forms
    make(aead, { yieldEvery: 0, signal: new AbortController().signal, onProgress: () => undefined });
  }
  for (const o of [null, 5, 'options']) {
    assert.throws(() => createOpenStream(aead, o as never), exact(TypeError, 'TypeError', 'options must be an object'));
    await assert.rejects(openStreamAsync(aead, new Uint8Array(40), o as never), exact(TypeError, 'TypeError', 'options must be an object'));
  }
  assert.throws(() => createOpenStream(aead, { aad: 'x' as never }), exact(CtkitTypeError, 'CtkitTypeError', 'aad must be a Uint8Array, got string'));
  await assert.rejects(openStreamAsync(aead, new Uint8Array(40), { aad: [1] as never }), exact(CtkitTypeError, 'CtkitTypeError', 'aad must be a Uint8Array, got Array'));
  await assert.rejects(sealStreamAsync(aead, 'x' as never), exact(CtkitTypeError, 'CtkitTypeError', 'data must be a Uint8Array, got string'));
  await assert.rejects(openStreamAsync(aead, [1] as never), exact(CtkitTypeError, 'CtkitTypeError', 'data must be a Uint8Array, got Array'));
  for (const make of [createSealStream, createOpenStream]) {
    await assert.rejects(writerOf(make(aead)).write('x' as never), exact(CtkitTypeError, 'CtkitTypeError', 'chunk must be a Uint8Array, got string'));
  }
  aead.dispose();
});

test('an open stream that ends before its header is complete: StreamFormatError, empty or truncated', async () => {
  const aead = chacha20Poly1305(key);
  const header = createSealer(aead, { segmentSize: 16 }).header;
  const empty = exact(StreamFormatError, 'StreamFormatError', 'empty input: not a ctkit sealed stream');
  const truncated = exact(StreamFormatError, 'StreamFormatError', 'truncated: the stream ends inside its header');
  await assert.rejects(openStreamAsync(aead, new Uint8Array(0)), empty);
  for (const n of [1, 10, header.length - 1]) await assert.rejects(openStreamAsync(aead, header.subarray(0, n)), truncated);
  await assert.rejects(writerOf(createOpenStream(aead)).close(), empty);
  const w = writerOf(createOpenStream(aead));
  await w.write(header.subarray(0, 12));
  await assert.rejects(w.close(), truncated);
  aead.dispose();
});

// ---- pacing ------------------------------------------------------------------------------------

test('the pacer times its work on performance.now(): no yield before yieldEvery ms of it, whatever Date.now() says', async () => {
  const aead = chacha20Poly1305(key);
  const data = rng.bytes((4 << 20) + 1); // two slices: two steps
  let sealed!: Uint8Array;
  assert.equal(
    await clocked({ perf: 0, date: 1000 }, async () => {
      sealed = await sealStreamAsync(aead, data, { yieldEvery: 5 });
    }),
    0,
  );
  assert.deepEqual(await openStreamAsync(aead, sealed), data);
  aead.dispose();
});

test('the pacer yields once exactly yieldEvery ms (default 16) have passed since the start or the last yield', async () => {
  const aead = chacha20Poly1305(key);
  const data = rng.bytes((4 << 20) + 1);
  assert.equal(await clocked({ perf: 16, date: 0 }, () => sealStreamAsync(aead, data)), 2);
  // 16 ms a step: the second step ends 32 ms after the start
  assert.equal(await clocked({ perf: 16, date: 0 }, () => sealStreamAsync(aead, data, { yieldEvery: 17 })), 1);
  assert.equal(await clocked({ perf: 16, date: 0 }, () => sealStreamAsync(aead, data, { yieldEvery: 33 })), 0);
  aead.dispose();
});

test('without a performance object the pacer times its work on Date.now()', async () => {
  const aead = chacha20Poly1305(key);
  const data = rng.bytes((4 << 20) + 1);
  assert.equal(await clocked({ perf: 'none', date: 100 }, () => sealStreamAsync(aead, data)), 2);
  aead.dispose();
});

test('empty input is no work: no yield, no progress (sealing nothing; opening a bare header)', async () => {
  const aead = chacha20Poly1305(key);
  const progress: number[] = [];
  const onProgress = (n: number) => void progress.push(n);
  const header = createSealer(aead, { segmentSize: 16 }).header;
  let sealed!: Uint8Array;
  assert.equal(
    await clocked({ perf: 16, date: 0 }, async () => {
      sealed = await sealStreamAsync(aead, new Uint8Array(0), { onProgress });
    }),
    0,
  );
  assert.deepEqual(await openStreamAsync(aead, sealed), new Uint8Array(0));
  assert.equal(
    await clocked({ perf: 16, date: 0 }, () =>
      assert.rejects(openStreamAsync(aead, header, { onProgress }), exact(SegmentAuthenticationError, 'SegmentAuthenticationError', 'truncated: segment 0 is shorter than its tag (the stream was cut, or is not a ctkit sealed stream)')),
    ),
    0,
  );
  assert.deepEqual(progress, []);
  aead.dispose();
});

test('yieldToEventLoop without setImmediate: setTimeout(0) without MessageChannel, else one channel, a message per yield, in order', async () => {
  const timers: [() => void, number | undefined][] = [];
  const saved = replaceGlobals({ setImmediate: undefined, MessageChannel: undefined, setTimeout: (f: () => void, ms?: number) => timers.push([f, ms]) });
  const ports: { onmessage: (() => void) | null }[] = [];
  const posted: unknown[] = [];
  try {
    let p: Promise<void>;
    try {
      p = yieldToEventLoop();
    } finally {
      restoreGlobals(saved.slice(2)); // setTimeout
    }
    assert.equal(timers.length, 1);
    assert.equal(timers[0][1], 0);
    let done = false;
    p.then(() => (done = true));
    await settle();
    assert.equal(done, false, 'resolved before its timer ran');
    timers[0][0]();
    await settle();
    assert.equal(done, true);
    // a MessageChannel (browsers): made once, kept; each yield posts one message and resolves on its delivery
    class FakeChannel {
      port1 = { onmessage: null as (() => void) | null };
      port2 = { postMessage: (m: unknown) => void posted.push(m) };
      constructor() {
        ports.push(this.port1);
      }
    }
    replaceGlobals({ MessageChannel: FakeChannel });
    const order: string[] = [];
    yieldToEventLoop().then(() => order.push('a'));
    yieldToEventLoop().then(() => order.push('b'));
    assert.equal(ports.length, 1, 'one channel');
    assert.deepEqual(posted, [0, 0]);
    await settle();
    assert.equal(order.join(), '');
    ports[0].onmessage!();
    await settle();
    assert.equal(order.join(), 'a');
    yieldToEventLoop().then(() => order.push('c'));
    assert.equal(ports.length, 1, 'the channel is reused');
    assert.deepEqual(posted, [0, 0, 0]);
    ports[0].onmessage!();
    ports[0].onmessage!();
    await settle();
    assert.equal(order.join(), 'a,b,c');
  } finally {
    restoreGlobals(saved);
  }
});

// ---- how far ahead the streams run ---------------------------------------------------------------

test('with nobody reading, a stream takes one chunk ahead and then waits (readable highWaterMark 1)', async () => {
  const aead = chacha20Poly1305(key);
  const progress: number[] = [];
  const ts = createSealStream(aead, { segmentSize: 16, onProgress: (n) => void progress.push(n) });
  const w = ts.writable.getWriter();
  const writes = [w.write(rng.bytes(40)), w.write(rng.bytes(40)), w.close()];
  await settle();
  assert.deepEqual(progress, [40]);
  const out = await chunksOf(ts.readable);
  await Promise.all(writes);
  assert.deepEqual(progress, [40, 80]);
  assert.equal(cat(out).length, 17 + 80 + 5 * 16);
  aead.dispose();
});

/** Feeds `chunks` through the stream of a stand-in pool; returns how many batches it sent before it waited for the first. */
async function inflightLimit(make: (c: BatchCipher) => TransformStream<Uint8Array, Uint8Array>, chunks: Uint8Array[]): Promise<{ waitedAt: number; calls: Call[]; out: Uint8Array[] }> {
  const { cipher, calls } = fakePool(2);
  const ts = make(cipher);
  const out = chunksOf(ts.readable);
  const w = ts.writable.getWriter();
  const writes = chunks.map((c) => w.write(c));
  let closed = false;
  const closing = w.close().then(() => (closed = true));
  await settle();
  const waitedAt = calls.length;
  for (let i = 0, turns = 0; !closed; turns++) {
    assert.ok(turns < 100, 'the stream does not finish');
    for (; i < calls.length; i++) calls[i].resolve(Uint8Array.of(i));
    await settle();
  }
  await Promise.all([...writes, closing]);
  return { waitedAt, calls, out: await out };
}

test('a pool stream keeps 4 batches per worker in flight, plus the one just sent, and releases results in order', async () => {
  const aead = chacha20Poly1305(key);
  const seal = await inflightLimit(
    (c) => createSealStream(c, { segmentSize: 16, yieldEvery: 0 }),
    Array.from({ length: 20 }, () => rng.bytes(16)),
  );
  assert.equal(seal.waitedAt, 2 * 4 + 1);
  assert.equal(seal.calls.length, 20);
  assert.deepEqual(
    seal.out.slice(1).map((b) => b[0]),
    seal.calls.map((_, i) => i),
  );
  const header = createSealer(aead, { segmentSize: 16 }).header;
  const open = await inflightLimit((c) => createOpenStream(c, { yieldEvery: 0 }), [header, ...Array.from({ length: 20 }, () => rng.bytes(32))]);
  assert.equal(open.waitedAt, 2 * 4 + 1);
  assert.equal(open.calls.length, 20);
  assert.deepEqual(
    open.calls.map((c) => [c.first, c.lastFinal, c.data.length]),
    open.calls.map((_, i) => [i, i === 19, 32]),
  );
  aead.dispose();
});

test('the streams emit a batch of whole segments per chunk (up to 4 MiB), not one chunk per segment', async () => {
  const aead = chacha20Poly1305(key);
  const noncePrefix = rng.bytes(7);
  const plain = rng.bytes(10_500);
  const sealed = await chunksOf(source([plain]).pipeThrough(createSealStream(aead, { segmentSize: 1000, noncePrefix })));
  assert.deepEqual(
    sealed.map((c) => c.length),
    [17, 10 * 1016, 516],
  );
  assert.equal(hex(cat(sealed)), hex(sealedByPush(aead, [plain], { segmentSize: 1000, noncePrefix })));
  const opened = await chunksOf(source([cat(sealed)]).pipeThrough(createOpenStream(aead)));
  assert.deepEqual(
    opened.map((c) => c.length),
    [10 * 1000, 500],
  );
  assert.deepEqual(cat(opened), plain);
  aead.dispose();
});

// ---- the header chunk belongs to the consumer ----------------------------------------------------

test('the header chunk is a copy: a consumer that wipes it changes none of the segments sealed after it', async () => {
  const aead = chacha20Poly1305(key);
  const options = { segmentSize: 16, noncePrefix: rng.bytes(7) };
  const [a, b] = [rng.bytes(10), rng.bytes(40)];
  const expected = sealedByPush(aead, [a, b], options);
  // emitted by the first write (an AEAD)
  const ts = createSealStream(aead, options);
  const w = ts.writable.getWriter();
  const r = ts.readable.getReader();
  const wa = w.write(a);
  const first = (await r.read()).value!;
  await wa;
  const header = first.slice();
  first.fill(0);
  const rest = readRest(r);
  await w.write(b);
  await w.close();
  assert.equal(hex(cat([header, ...(await rest)])), hex(expected));
  // emitted by flush, for a stream with no chunk (a pool that reads the parameters later)
  const { cipher, calls } = fakePool(1);
  const ts2 = createSealStream(cipher, options);
  const closing = ts2.writable.getWriter().close();
  const r2 = ts2.readable.getReader();
  const h2 = (await r2.read()).value!;
  assert.equal(hex(h2), hex(expected.subarray(0, 17)));
  h2.fill(0);
  assert.equal(calls.length, 1);
  assert.equal(hex(calls[0].p.aad), hex(expected.subarray(0, 17)));
  calls[0].resolve(new Uint8Array(16));
  assert.equal((await readRest(r2)).length, 1);
  await closing;
  aead.dispose();
});

// ---- cancel and failure wipe what is held --------------------------------------------------------

test('cancelling the readable side wipes the bytes held back: the plaintext of a seal stream, the sealed bytes of an open stream', async () => {
  const aead = chacha20Poly1305(key);
  // seal: the framer's hold buffer is what the AEAD sees when a held segment completes
  const seen = new Set<ArrayBufferLike>();
  const ts = createSealStream(spyAead(aead, seen), { segmentSize: 16 });
  const w = ts.writable.getWriter();
  const r = ts.readable.getReader();
  const a = new Uint8Array(10).fill(0xa1);
  const b = new Uint8Array(20).fill(0xb2);
  const wa = w.write(a);
  await r.read(); // the header
  await wa;
  const wb = w.write(b);
  await r.read(); // segment 0: a and 6 bytes of b, sealed from the hold buffer
  await wb;
  const held = [...seen].filter((x) => x !== a.buffer && x !== b.buffer).map((x) => new Uint8Array(x));
  assert.equal(held.length, 1);
  assert.equal(hex(held[0]), 'b2'.repeat(16), 'the last 14 bytes of b are held (and 2 of its earlier ones)');
  await r.cancel(new Error('stop'));
  assert.equal(hex(held[0]), '00'.repeat(16));
  // open
  const sealed = sealedByPush(aead, [rng.bytes(100)], { segmentSize: 16, noncePrefix: rng.bytes(7) });
  const seen2 = new Set<ArrayBufferLike>();
  const ts2 = createOpenStream(spyAead(aead, seen2));
  const w2 = ts2.writable.getWriter();
  const r2 = ts2.readable.getReader();
  const c1 = sealed.slice(0, 17 + 20);
  const c2 = sealed.slice(17 + 20, 17 + 60);
  const writes = [w2.write(c1), w2.write(c2)];
  assert.equal((await r2.read()).value!.length, 16); // segment 0, opened from the hold buffer
  await Promise.all(writes);
  const held2 = [...seen2].filter((x) => x !== c1.buffer && x !== c2.buffer).map((x) => new Uint8Array(x));
  assert.equal(held2.length, 1);
  assert.ok(held2[0].some((x) => x !== 0));
  await r2.cancel(new Error('stop'));
  assert.equal(hex(held2[0]), '00'.repeat(32));
  aead.dispose();
});

test('an abort during a write rejects that write and wipes the plaintext held back', async () => {
  const aead = chacha20Poly1305(key);
  const seen = new Set<ArrayBufferLike>();
  const ac = new AbortController();
  const reason = new Error('stop here');
  const ts = createSealStream(spyAead(aead, seen), { segmentSize: 16, signal: ac.signal, onProgress: (n) => n >= 30 && ac.abort(reason) });
  const w = ts.writable.getWriter();
  const r = ts.readable.getReader();
  const a = new Uint8Array(10).fill(0xa1);
  const b = new Uint8Array(20).fill(0xb2);
  const wa = w.write(a);
  await r.read();
  await wa;
  const next = r.read();
  await assert.rejects(w.write(b), (e) => e === reason);
  assert.equal((await next).value!.length, 32, 'segment 0 went out before the abort');
  const held = [...seen].filter((x) => x !== a.buffer && x !== b.buffer).map((x) => new Uint8Array(x));
  assert.equal(held.length, 1);
  assert.equal(hex(held[0]), '00'.repeat(16));
  aead.dispose();
});

test('an AEAD that fails in a write fails the call, with its own error', async () => {
  const aead = chacha20Poly1305(key);
  const failure = new Error('the AEAD failed');
  let calls = 0;
  const once: Aead = {
    ...spyAead(aead, new Set()),
    seal: (n, p, x, o) => {
      if (calls++ === 0) throw failure;
      return aead.seal(n, p, x, o);
    },
  };
  await assert.rejects(sealStreamAsync(once, rng.bytes(100), { segmentSize: 16 }), (e) => e === failure);
  aead.dispose();
});

test('a pool batch that fails: the batches still in flight are wiped when they arrive, never released', async () => {
  const { cipher, calls } = fakePool(2);
  const aead = chacha20Poly1305(key);
  const header = createSealer(aead, { segmentSize: 16 }).header;
  const done = openStreamAsync(cipher, cat([header, rng.bytes(2 * 32 + 20)]), { yieldEvery: 0 });
  await settle();
  assert.deepEqual(
    calls.map((c) => [c.first, c.lastFinal, c.data.length]),
    [
      [0, false, 64],
      [2, true, 20],
    ],
  );
  const failure = new SegmentAuthenticationError(1);
  calls[0].reject(failure);
  await assert.rejects(done, (e) => e === failure);
  const late = new Uint8Array(4).fill(0x5a);
  calls[1].resolve(late);
  await settle();
  assert.equal(hex(late), '00000000');
  aead.dispose();
});

// Four ways plaintext used to stay held after a stream had failed or been cancelled: the
// refusals at the top of a write (an abort seen between writes, a chunk that is not bytes) ran
// before the write's wipe-on-failure, and a write waiting between two slices of a large chunk
// went on filling the hold after a cancel had wiped it.

/** A 16-byte-segment seal stream that has taken 30 bytes (one segment sealed, 14 held); its hold and a third step's outcome. */
async function holdAfterThird(third: (w: WritableStreamDefaultWriter<Uint8Array>, ac: AbortController) => Promise<unknown>): Promise<{ hold: string; error: unknown }> {
  const seen = new Set<ArrayBufferLike>();
  const ac = new AbortController();
  const ts = createSealStream(spyAead(chacha20Poly1305(key), seen), { segmentSize: 16, signal: ac.signal });
  const w = ts.writable.getWriter();
  const r = ts.readable.getReader();
  const a = new Uint8Array(10).fill(0xa1),
    b = new Uint8Array(20).fill(0xb2);
  const wa = w.write(a);
  await r.read();
  await wa;
  const wb = w.write(b);
  await r.read();
  await wb;
  const held = [...seen].map((x) => new Uint8Array(x)).find((x) => x.buffer !== a.buffer && x.buffer !== b.buffer);
  assert.ok(held, 'the hold was seen');
  assert.ok(
    held.some((x) => x !== 0),
    'the hold holds plaintext before the third step',
  );
  let error: unknown;
  await third(w, ac).catch((e) => (error = e));
  await settle();
  return { hold: hex(held), error };
}

test('an abort seen at the start of a write rejects it with the reason and wipes the plaintext held back', async () => {
  const reason = new Error('stop');
  const { hold, error } = await holdAfterThird((w, ac) => {
    ac.abort(reason);
    return w.write(new Uint8Array(5));
  });
  assert.equal(error, reason);
  assert.equal(hold, '00'.repeat(16));
});

test('a chunk that is not bytes rejects the write with CtkitTypeError and wipes the plaintext held back', async () => {
  const { hold, error } = await holdAfterThird((w) => w.write('x' as never));
  assert.ok(exact(CtkitTypeError, 'CtkitTypeError', 'chunk must be a Uint8Array, got string')(error));
  assert.equal(hold, '00'.repeat(16));
});

test('an open stream on a pool aborted between writes wipes the plaintext of the batches still in flight when they arrive', async () => {
  const calls: ((b: Uint8Array) => void)[] = [];
  const batch = () => new Promise<Uint8Array>((resolve) => void calls.push(resolve));
  const pool: BatchCipher = { algorithm: 'chacha20-poly1305', concurrency: 2, sealBatch: batch, openBatch: batch };
  const ac = new AbortController();
  const ts = createOpenStream(pool, { signal: ac.signal, yieldEvery: 0 });
  ts.readable.pipeTo(new WritableStream()).catch(() => undefined);
  const w = ts.writable.getWriter();
  await w.write(createSealer(chacha20Poly1305(key), { segmentSize: 16 }).header);
  for (let i = 0; i < 4; i++) await w.write(new Uint8Array(32).fill(1));
  assert.ok(calls.length >= 2, `batches in flight: ${calls.length}`);
  const reason = new Error('stop');
  ac.abort(reason);
  await assert.rejects(w.write(new Uint8Array(32)), (e) => e === reason);
  const plain = calls.map(() => new Uint8Array(16).fill(0x5a));
  calls.forEach((resolve, i) => resolve(plain[i]));
  await settle();
  assert.deepEqual(
    plain.map(hex),
    plain.map(() => '00'.repeat(16)),
  );
});

test('a readable cancelled while a write waits between two slices stops that write: nothing of the chunk is held after the wipe', async () => {
  const seen = new Set<ArrayBufferLike>();
  let r!: ReadableStreamDefaultReader<Uint8Array>;
  let cancelled = false;
  const ts = createSealStream(spyAead(chacha20Poly1305(key), seen), {
    segmentSize: 16,
    yieldEvery: 1,
    onProgress: (n) => {
      if (!cancelled && n > 1000) {
        cancelled = true;
        void r.cancel(new Error('stop'));
      }
    },
  });
  const w = ts.writable.getWriter();
  r = ts.readable.getReader();
  const a = new Uint8Array(10).fill(0xa1),
    b = new Uint8Array(20).fill(0xb2);
  const wa = w.write(a);
  await r.read();
  await wa;
  const wb = w.write(b);
  await r.read();
  await wb;
  const held = [...seen].map((x) => new Uint8Array(x)).find((x) => x.buffer !== a.buffer && x.buffer !== b.buffer);
  assert.ok(held, 'the hold was seen');
  assert.ok(
    held.some((x) => x !== 0),
    'the hold holds plaintext before the large write',
  );
  // a chunk of two slices (4 MiB + 10 bytes): the cancel comes during the first slice's step
  const pending = r.read();
  let error: unknown;
  await w.write(new Uint8Array((4 << 20) + 10).fill(0xc3)).catch((e) => (error = e));
  await pending.catch(() => undefined);
  await settle();
  assert.ok(cancelled, 'the readable was cancelled');
  assert.ok(exact(StateError, 'StateError', 'seal stream: cancelled')(error));
  assert.equal(hex(held), '00'.repeat(16));
});

test('an open stream cancelled while a write waits between two slices stops that write with StateError', async () => {
  // a sealed stream of 6 MiB, written to the open stream as one chunk (two slices)
  const sealed = await sealStreamAsync(chacha20Poly1305(key), new Uint8Array(6 << 20).fill(0x5e), { segmentSize: 65536 });
  let r!: ReadableStreamDefaultReader<Uint8Array>;
  let cancelled = false;
  const ts = createOpenStream(chacha20Poly1305(key), {
    yieldEvery: 1,
    onProgress: (n) => {
      if (!cancelled && n > 1000) {
        cancelled = true;
        void r.cancel(new Error('stop'));
      }
    },
  });
  const w = ts.writable.getWriter();
  r = ts.readable.getReader();
  const pending = r.read();
  let error: unknown;
  await w.write(sealed).catch((e) => (error = e));
  await pending.catch(() => undefined);
  await settle();
  assert.ok(cancelled, 'the readable was cancelled');
  assert.ok(exact(StateError, 'StateError', 'open stream: cancelled')(error));
});

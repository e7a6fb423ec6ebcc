// The worker pool of ctkit/stream on Node.js worker_threads: byte-identical output to one
// thread, in-order release, the key sent once per worker and wiped there on dispose.
// (test/stream-browser.test.ts runs the same pool on Web Workers in headless Chromium.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { aesGcm, chacha20Poly1305 } from '../src/aead/index.js';
import { AuthenticationError, StateError } from '../src/errors.js';
import { createOpenStream, createSealStream, createSealer, createWorkerPool, nodeWorkers, openStreamAsync, sealStreamAsync, SegmentAuthenticationError, type WorkerLike } from '../src/stream/index.js';
import { Rng, hex } from './support/rng.js';
import { workerPreload as preload } from './support/stryker-child.js';

const rng = new Rng(0x9001);
const spawnCounting = (posted: unknown[][]) => {
  const base = nodeWorkers(Worker as never, { preload });
  return (url: URL): WorkerLike => {
    const w = base(url);
    const log: unknown[] = [];
    posted.push(log);
    return {
      ...w,
      postMessage: (m: unknown, t?: Transferable[]) => {
        log.push(m);
        w.postMessage(m, t);
      },
    };
  };
};

async function collect(rs: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const c of rs as unknown as AsyncIterable<Uint8Array>) parts.push(c);
  return new Uint8Array(Buffer.concat(parts));
}
const source = (data: Uint8Array, piece: number) =>
  new ReadableStream<Uint8Array>({
    start(ctl) {
      for (let o = 0; o < data.length; o += piece) ctl.enqueue(data.slice(o, o + piece));
      ctl.close();
    },
  });

test('pool output is byte for byte the single-thread output; opening in parallel; damage is AuthenticationError', async () => {
  const key = rng.bytes(32);
  const posted: unknown[][] = [];
  const pool = await createWorkerPool({ algorithm: 'chacha20-poly1305', key, workers: 3, spawn: spawnCounting(posted) });
  assert.equal(pool.size, 3);
  const aead = chacha20Poly1305(key);
  try {
    for (const [n, S] of [
      [0, 65536],
      [1, 65536],
      [65536, 65536],
      [(13 << 20) + 5, 65536],
      [100_000, 1000],
      [70_000, 7],
    ] as const) {
      const prefix = rng.bytes(7);
      const plain = rng.bytes(n);
      const one = createSealer(aead, { noncePrefix: prefix, segmentSize: S });
      const expected = new Uint8Array(Buffer.concat([...one.push(plain), ...one.finish()]));
      const viaPool = await collect(source(plain, 1_000_003).pipeThrough(createSealStream(pool, { noncePrefix: prefix, segmentSize: S })));
      assert.equal(hex(viaPool), hex(expected), `n=${n} S=${S}`);
      assert.deepEqual(await collect(source(expected, 777_777).pipeThrough(createOpenStream(pool))), plain, `open n=${n}`);
      assert.deepEqual(await openStreamAsync(pool, await sealStreamAsync(pool, plain, { segmentSize: S })), plain);
    }
    const plain = rng.bytes(9 << 20);
    const sealed = await sealStreamAsync(pool, plain);
    const bad = sealed.slice();
    bad[6 << 20] ^= 1;
    const out: Uint8Array[] = [];
    await assert.rejects(
      source(bad, 1 << 20)
        .pipeThrough(createOpenStream(pool))
        .pipeTo(new WritableStream({ write: (c) => void out.push(c) })),
      (e: Error) => e instanceof SegmentAuthenticationError && e.segment === Math.floor(((6 << 20) - 17) / 65552),
    );
    // released before the failure: whole segments of the plaintext, from the start
    const got = Buffer.concat(out);
    assert.ok(got.length < 6 << 20 && got.length % 65536 === 0);
    assert.ok(got.equals(Buffer.from(plain.subarray(0, got.length))));
    await assert.rejects(openStreamAsync(pool, sealed.subarray(0, sealed.length - 1)), AuthenticationError);
    // a stream of another algorithm
    const aes = aesGcm(key);
    await assert.rejects(openStreamAsync(pool, await sealStreamAsync(aes, plain.subarray(0, 100))), /sealed with aes-256-gcm/);
    aes.dispose();
  } finally {
    aead.dispose();
    assert.equal(await pool.dispose(), true, 'every worker confirms its key is wiped');
  }
  // the key went to each worker exactly once, and nothing else carried it
  for (const log of posted) {
    const inits = log.filter((m) => (m as { t: string }).t === 'init');
    assert.equal(inits.length, 1);
    assert.ok(log.filter((m) => (m as { t: string }).t !== 'init').every((m) => !('key' in (m as object))));
  }
  assert.deepEqual(
    key.some((b) => b !== 0),
    true,
    "the caller's key array is left alone",
  );
  await assert.rejects(sealStreamAsync(pool, new Uint8Array(10)), StateError);
});

test('pool arguments: typed errors; no Web Worker in Node without spawn', async () => {
  await assert.rejects(createWorkerPool({ algorithm: 'rot13', key: new Uint8Array(32) }), RangeError);
  await assert.rejects(createWorkerPool({ algorithm: 'chacha20-poly1305', key: new Uint8Array(31) }), RangeError);
  await assert.rejects(createWorkerPool({ algorithm: 'chacha20-poly1305', key: new Uint8Array(32), workers: 0 }), RangeError);
  await assert.rejects(createWorkerPool({ algorithm: 'chacha20-poly1305', key: new Uint8Array(32) }), /no Web Worker; pass spawn/);
});

test('the caller may wipe its key as soon as createWorkerPool returns: the workers still get it', async () => {
  const key = rng.bytes(32);
  const expected = rng.bytes(200_000);
  const aead = chacha20Poly1305(key);
  const sealed = await sealStreamAsync(aead, expected);
  aead.dispose();
  const starting = createWorkerPool({ algorithm: 'chacha20-poly1305', key, workers: 2, spawn: nodeWorkers(Worker as never, { preload }) });
  key.fill(0); // before any worker has started
  const pool = await starting;
  try {
    assert.deepEqual(await openStreamAsync(pool, sealed), expected);
  } finally {
    assert.equal(await pool.dispose(), true);
  }
});

/** A stand-in worker that loads, takes the key and disposes at once (no thread): for the pool's own checks. */
const fakeSpawn = (count: { n: number }) => (): WorkerLike => {
  count.n++;
  let listener: ((e: { data: unknown }) => void) | undefined;
  const send = (data: unknown) => setTimeout(() => listener?.({ data }), 0);
  return {
    postMessage: (m: unknown) => {
      const t = (m as { t: string }).t;
      if (t === 'init') send({ t: 'ready' });
      if (t === 'dispose') send({ t: 'disposed', wiped: true });
    },
    addEventListener: ((type: string, f: (e: { data: unknown }) => void) => {
      if (type === 'message') {
        listener = f;
        send({ t: 'loaded' });
      }
    }) as WorkerLike['addEventListener'],
    terminate: () => undefined,
  };
};

test('pool options: each check with its message; the worker count and its default', async () => {
  const key = new Uint8Array(32);
  const count = { n: 0 };
  const spawn = fakeSpawn(count);
  const rejects = (o: unknown, type: ErrorConstructor, message: string) => assert.rejects(createWorkerPool(o as never), (e: Error) => e instanceof type && e.message === message, message);
  for (const o of [null, undefined, 5, 'options']) await rejects(o, TypeError, 'options must be an object');
  for (const k of [[1, 2], new ArrayBuffer(32), undefined]) await rejects({ algorithm: 'chacha20-poly1305', key: k, spawn }, TypeError, 'key must be a Uint8Array');
  await rejects({ algorithm: 'chacha20-poly1305', key: new Uint8Array(31), spawn }, RangeError, 'a chacha20-poly1305 key must be 32 bytes long, got 31');
  await rejects({ algorithm: 'sm4-gcm', key, spawn }, RangeError, 'a sm4-gcm key must be 16 bytes long, got 32');
  for (const w of [0, -1, 257, 1.5, Number.NaN, '2']) await rejects({ algorithm: 'chacha20-poly1305', key, workers: w, spawn }, RangeError, `workers must be an integer from 1 to 256, got ${String(w)}`);
  assert.equal(count.n, 0, 'no worker started for a refused call');
  for (const w of [1, 256]) {
    const pool = await createWorkerPool({ algorithm: 'chacha20-poly1305', key, workers: w, spawn });
    assert.equal(pool.concurrency, w);
    assert.equal(await pool.dispose(), true);
  }
  // without `workers`: navigator.hardwareConcurrency when it is a positive number, else 2
  const had = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
  try {
    for (const [hc, expected] of [
      [3, 3],
      [1, 1],
      [0, 2],
      [undefined, 2],
    ] as const) {
      Object.defineProperty(globalThis, 'navigator', { value: hc === undefined ? {} : { hardwareConcurrency: hc }, configurable: true, writable: true });
      const pool = await createWorkerPool({ algorithm: 'chacha20-poly1305', key, spawn });
      assert.equal(pool.concurrency, expected, `hardwareConcurrency ${hc}`);
      await pool.dispose();
    }
  } finally {
    if (had) Object.defineProperty(globalThis, 'navigator', had);
    else delete (globalThis as { navigator?: unknown }).navigator;
  }
});

// The worker pool's side of its protocol, without threads: stand-in workers (and a stand-in
// node:worker_threads Worker) answer as a test tells them, so each reply the pool can get — a
// failed job with or without its segment, a worker that fails or dies with or without a job, a
// dispose that is not confirmed — is checked with the error's class and whole message; and the
// choice of worker, the key copy's wipe, the default spawn and the worker module's URL. Then the
// batch functions' own errors (segments.ts): a batch of partial segments, a truncated batch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import ts from 'typescript';
import { chacha20Poly1305 } from '../src/aead/index.js';
import { AuthenticationError, StateError } from '../src/errors.js';
import { ALGORITHMS, createSealer, createWorkerPool, nodeWorkers, SegmentAuthenticationError, type WorkerLike, type WorkerPool } from '../src/stream/index.js';
import { prefixLength } from '../src/stream/format.js';
import { newStreamParams } from '../src/stream/sealer.js';
import { openBatch, sealBatch, type SegmentParams } from '../src/stream/segments.js';
import { Rng, cat, hex } from './support/rng.js';

const rng = new Rng(0x9001c);
const CHACHA = ALGORITHMS.find((a) => a.name === 'chacha20-poly1305')!;
const AES = ALGORITHMS.find((a) => a.name === 'aes-256-gcm')!;
const later = (f: () => void) => void setImmediate(f);

type Msg = Record<string, any>;

interface FakeOptions {
  /** answer seal / open with 'done' (the input back), or leave them to the test */
  jobs?: 'echo' | 'hold';
  /** answer dispose with { t: 'disposed', wiped } (the default: true), or leave it to the test */
  wiped?: unknown;
  disposeHeld?: boolean;
  /** move transferred buffers as postMessage does (structuredClone), detaching them here */
  transfer?: boolean;
}

/** A stand-in stream worker: 'loaded' once listened to, 'ready' after init; the rest as told. */
class FakeWorker implements WorkerLike {
  readonly posted: Msg[] = [];
  terminated = 0;
  readonly #onMessage: ((e: { data: unknown }) => void)[] = [];
  readonly #onError: ((e: unknown) => void)[] = [];
  constructor(readonly o: FakeOptions = {}) {}

  addEventListener(type: 'message' | 'error', f: (e: any) => void): void {
    if (type === 'message') {
      this.#onMessage.push(f);
      later(() => this.emit({ t: 'loaded' }));
    } else this.#onError.push(f);
  }

  postMessage(m: Msg, transfer?: Transferable[]): void {
    const msg = this.o.transfer ? (structuredClone(m, { transfer: transfer as Transferable[] }) as Msg) : m;
    this.posted.push(msg);
    if (msg.t === 'init') later(() => this.emit({ t: 'ready' }));
    if (msg.t === 'dispose' && !this.o.disposeHeld) later(() => this.emit({ t: 'disposed', wiped: 'wiped' in this.o ? this.o.wiped : true }));
    if ((msg.t === 'seal' || msg.t === 'open') && this.o.jobs !== 'hold') later(() => this.emit({ t: 'done', id: msg.id, data: msg.data }));
  }

  terminate(): void {
    this.terminated++;
  }

  /** a message from the worker, delivered now */
  emit(data: Msg): void {
    for (const f of this.#onMessage) f({ data });
  }

  /** an 'error' event, delivered now */
  error(e: unknown): void {
    for (const f of this.#onError) f(e);
  }

  /** the batches this worker was given */
  jobs(): Msg[] {
    return this.posted.filter((m) => m.t === 'seal' || m.t === 'open');
  }
}

function fakes(o: FakeOptions = {}): { spawn: () => FakeWorker; workers: FakeWorker[] } {
  const workers: FakeWorker[] = [];
  return {
    workers,
    spawn: () => {
      const w = new FakeWorker(o);
      workers.push(w);
      return w;
    },
  };
}

async function fakePool(n: number, o: FakeOptions = {}): Promise<{ pool: WorkerPool; workers: FakeWorker[] }> {
  const { spawn, workers } = fakes(o);
  const pool = await createWorkerPool({ algorithm: CHACHA.name, key: new Uint8Array(32).fill(7), workers: n, spawn });
  return { pool, workers };
}

type Outcome = { value: unknown } | { error: unknown } | 'pending';
/** How `p` stands once everything already under way has run (no timer: one turn of the event loop). */
async function outcome(p: Promise<unknown>): Promise<Outcome> {
  let o: Outcome = 'pending';
  p.then(
    (value) => {
      o = { value };
    },
    (error) => {
      o = { error };
    },
  );
  await new Promise((r) => setImmediate(r));
  return o;
}

/** "Class: message" of a rejection, "resolved" or "pending" otherwise. */
function failure(o: Outcome): string {
  if (o === 'pending') return 'pending';
  if (!('error' in o)) return 'resolved';
  const e = o.error as Error;
  return `${e.constructor.name}: ${e.message}`;
}

/** the error's class exactly (not a subclass) and its whole message */
function isExactly(e: unknown, type: abstract new (...a: never[]) => Error, message: string): boolean {
  return e instanceof Error && e.constructor === type && e.message === message;
}

const params = (alg = CHACHA, segmentSize = 1000): SegmentParams => newStreamParams(alg, { segmentSize }).params;

test('a worker that cannot start fails the pool with its message or its error event; every worker is stopped', async () => {
  // a 'fail' without a job id: the worker never got going (its module did not load)
  {
    const { spawn, workers } = fakes();
    const starting = createWorkerPool({ algorithm: CHACHA.name, key: new Uint8Array(32), workers: 3, spawn });
    workers[1].emit({ t: 'fail', name: 'Error', message: 'cannot load the AEAD module' });
    assert.equal(failure(await outcome(starting)), 'Error: cannot load the AEAD module');
    assert.deepEqual(
      workers.map((w) => w.terminated),
      [1, 1, 1],
    );
  }
  // an 'error' event, whatever it carries (an Error, an ErrorEvent's message, anything else)
  for (const [event, message] of [
    [new Error('boom'), 'stream worker failed: boom'],
    [{ message: 'Uncaught SyntaxError: Unexpected token' }, 'stream worker failed: Uncaught SyntaxError: Unexpected token'],
    ['a string', 'stream worker failed: a string'],
    [{}, 'stream worker failed: [object Object]'],
    [undefined, 'stream worker failed: undefined'],
    [null, 'stream worker failed: null'],
  ] as const) {
    const { spawn, workers } = fakes();
    const starting = createWorkerPool({ algorithm: CHACHA.name, key: new Uint8Array(32), workers: 2, spawn });
    workers[0].error(event);
    assert.equal(failure(await outcome(starting)), `Error: ${message}`);
    assert.deepEqual(
      workers.map((w) => w.terminated),
      [1, 1],
    );
  }
  // spawn itself throws for the third worker: the two started are stopped
  {
    const { spawn, workers } = fakes();
    let n = 0;
    const starting = createWorkerPool({
      algorithm: CHACHA.name,
      key: new Uint8Array(32),
      workers: 4,
      spawn: () => {
        if (++n === 3) throw new RangeError('no more threads');
        return spawn();
      },
    });
    assert.equal(failure(await outcome(starting)), 'RangeError: no more threads');
    assert.deepEqual(
      workers.map((w) => w.terminated),
      [1, 1],
    );
  }
});

test("a job's 'fail' reply: the error the worker named, for that job alone", async () => {
  const { pool, workers } = await fakePool(1, { jobs: 'hold' });
  const p = params();
  const jobs = [0, 1, 2, 3, 4].map((i) => pool.openBatch(p, new Uint8Array(1016), i, false));
  const ids = workers[0].jobs().map((m) => m.id);
  assert.equal(new Set(ids).size, 5);
  workers[0].emit({ t: 'fail', id: ids[0], name: 'AuthenticationError', message: 'authentication failed: the tag does not match' });
  workers[0].emit({ t: 'fail', id: ids[1], name: 'RangeError', message: 'segmentSize must be an integer' });
  workers[0].emit({ t: 'fail', id: ids[2], name: 'SegmentAuthenticationError', message: 'truncated: segment 9 is shorter than its tag', segment: 9 });
  workers[0].emit({ t: 'fail', id: ids[3], name: 'SegmentAuthenticationError', segment: 0 });
  const [a, b, c, d, e] = await Promise.all(jobs.map(outcome));
  assert.ok(a !== 'pending' && 'error' in a && isExactly(a.error, AuthenticationError, 'authentication failed: the tag does not match'), failure(a));
  assert.ok(b !== 'pending' && 'error' in b && isExactly(b.error, Error, 'segmentSize must be an integer'), failure(b));
  // a failed segment: SegmentAuthenticationError naming it, with the worker's message (the
  // standard one when the reply has none)
  for (const [o, segment, message] of [
    [c, 9, 'truncated: segment 9 is shorter than its tag'],
    [d, 0, 'segment 0 failed authentication: the stream is damaged, truncated, reordered, spliced or extended, or the key is wrong'],
  ] as const) {
    assert.ok(o !== 'pending' && 'error' in o, failure(o));
    const err = o.error as SegmentAuthenticationError;
    assert.equal(err.constructor, SegmentAuthenticationError);
    assert.equal(err.segment, segment);
    assert.equal(err.message, message);
  }
  // the fifth job still runs, and finishes
  assert.equal(e, 'pending');
  const out = new Uint8Array(3).fill(9);
  workers[0].emit({ t: 'done', id: ids[4], data: out });
  assert.deepEqual(await outcome(jobs[4]), { value: out });
  // a reply for a job that is not (or no longer) there changes nothing
  workers[0].emit({ t: 'fail', id: ids[0], message: 'late' });
  workers[0].emit({ t: 'done', id: 12345, data: out });
  assert.equal(await pool.dispose(), true);
});

test('a worker that dies fails its own jobs with its error; the other workers go on', async () => {
  const { pool, workers } = await fakePool(2, { jobs: 'hold' });
  const p = params();
  const jobs = [0, 1, 2, 3].map((i) => pool.sealBatch(p, new Uint8Array(1000), i, false));
  assert.deepEqual(
    workers.map((w) => w.jobs().length),
    [2, 2],
  );
  const of0 = workers[0].jobs().map((m) => jobs[m.first]);
  const of1 = workers[1].jobs().map((m) => jobs[m.first]);
  // one crashes (an 'error' event): its two jobs fail with it, the other's stay
  workers[0].error(new Error('worker ran out of memory'));
  assert.deepEqual((await Promise.all([...of0, ...of1].map(outcome))).map(failure), ['Error: stream worker failed: worker ran out of memory', 'Error: stream worker failed: worker ran out of memory', 'pending', 'pending']);
  // the other one reports a failure outside any job (no id): its jobs fail with that
  workers[1].emit({ t: 'fail', name: 'StateError', message: 'worker: no key' });
  assert.deepEqual((await Promise.all(of1.map(outcome))).map(failure), ['Error: worker: no key', 'Error: worker: no key']);
});

test('dispose(): true only when every worker confirms its key is wiped; once; then every call is refused', async () => {
  // one worker does not confirm (wiped false, or anything but true): false
  for (const wiped of [false, 1, 'true', undefined]) {
    const { spawn, workers } = fakes();
    const pool = await createWorkerPool({ algorithm: CHACHA.name, key: new Uint8Array(32), workers: 3, spawn });
    workers[2].o.wiped = wiped;
    assert.equal(await pool.dispose(), false, `wiped: ${String(wiped)}`);
    assert.deepEqual(
      workers.map((w) => w.terminated),
      [1, 1, 1],
    );
  }
  // a worker that dies while disposing: false, and every worker is stopped
  {
    const { pool, workers } = await fakePool(2, { disposeHeld: true });
    const disposing = pool.dispose();
    workers[0].emit({ t: 'disposed', wiped: true });
    workers[1].error(new Error('gone'));
    assert.deepEqual(await outcome(disposing), { value: false });
    assert.deepEqual(
      workers.map((w) => w.terminated),
      [1, 1],
    );
  }
  {
    const { pool, workers } = await fakePool(2, { disposeHeld: true });
    const disposing = pool.dispose();
    workers[1].emit({ t: 'disposed', wiped: true });
    workers[0].emit({ t: 'fail', message: 'worker: dispose failed' });
    assert.deepEqual(await outcome(disposing), { value: false });
  }
  // all confirm: true; a second dispose() is true at once, and asks the workers nothing
  const { pool, workers } = await fakePool(2);
  assert.equal(await pool.dispose(), true);
  assert.equal(await pool.dispose(), true);
  assert.deepEqual(
    workers.map((w) => [w.posted.filter((m) => m.t === 'dispose').length, w.terminated]),
    [
      [1, 1],
      [1, 1],
    ],
  );
  const p = params();
  for (const run of [() => pool.sealBatch(p, new Uint8Array(10), 0, true), () => pool.openBatch(p, new Uint8Array(26), 0, true)]) {
    await assert.rejects(run(), (e: Error) => isExactly(e, StateError, 'worker pool: used after dispose()'));
  }
  assert.deepEqual(
    workers.map((w) => w.jobs().length),
    [0, 0],
  );
});

test("the pool's own copy of the key is wiped once every worker has the key; the caller's is left alone", async () => {
  const key = new Uint8Array(32).fill(0x5c);
  const { spawn, workers } = fakes();
  const pool = await createWorkerPool({ algorithm: CHACHA.name, key, workers: 2, spawn });
  for (const w of workers) {
    const inits = w.posted.filter((m) => m.t === 'init');
    assert.equal(inits.length, 1);
    assert.equal(inits[0].algorithm, CHACHA.name);
    assert.deepEqual(inits[0].key, key);
    assert.notEqual(inits[0].key, key, 'each worker gets a copy');
  }
  // a worker that announced itself again would now get only zeros: the pool kept no key
  workers[0].emit({ t: 'loaded' });
  const again = workers[0].posted.filter((m) => m.t === 'init')[1];
  assert.deepEqual(again.key, new Uint8Array(32));
  assert.deepEqual(key, new Uint8Array(32).fill(0x5c));
  assert.equal(await pool.dispose(), true);
});

test('each batch goes to the least busy worker, round robin among equals', async () => {
  const { pool, workers } = await fakePool(3, { jobs: 'hold' });
  const p = params();
  const taken: number[] = [];
  const submit = () => {
    const before = workers.map((w) => w.jobs().length);
    void pool.sealBatch(p, new Uint8Array(1000), 0, false).catch(() => undefined);
    taken.push(workers.findIndex((w, i) => w.jobs().length > before[i]));
  };
  // four batches: one to each worker in turn, then the first again (all equally busy)
  for (let i = 0; i < 4; i++) submit();
  assert.deepEqual(taken, [0, 1, 2, 0]);
  // the third worker finishes its batch: it is the least busy, though the second is next in turn
  const j = workers[2].jobs()[0];
  workers[2].emit({ t: 'done', id: j.id, data: new Uint8Array(0) });
  submit();
  // then the second (one batch, the others two), then the third (its turn, all equal)
  submit();
  submit();
  assert.deepEqual(taken, [0, 1, 2, 0, 2, 1, 2]);
  assert.deepEqual(
    workers.map((w) => w.jobs().length),
    [2, 2, 3],
  );
  await pool.dispose();
});

test("a batch with another algorithm's parameters is refused before it reaches a worker", async () => {
  const { pool, workers } = await fakePool(2);
  const p = params(AES);
  await assert.rejects(pool.sealBatch(p, new Uint8Array(100), 0, true), (e: Error) => isExactly(e, RangeError, 'the pool holds a chacha20-poly1305 key, not aes-256-gcm'));
  await assert.rejects(pool.openBatch(p, new Uint8Array(116), 0, true), (e: Error) => isExactly(e, RangeError, 'the pool holds a chacha20-poly1305 key, not aes-256-gcm'));
  assert.deepEqual(
    workers.map((w) => w.jobs().length),
    [0, 0],
  );
  assert.equal(await pool.dispose(), true);
});

test("an empty batch is copied to the worker: the caller's empty buffer is not moved (detached)", async () => {
  const { pool, workers } = await fakePool(1, { transfer: true });
  const p = params();
  const empty = new Uint8Array(0);
  assert.deepEqual(await pool.sealBatch(p, empty, 0, true), new Uint8Array(0));
  assert.doesNotThrow(() => new Uint8Array(empty.buffer), 'the empty buffer is still attached');
  // (a batch at the start of a buffer that is not empty does move, as stream-batches.test.ts checks)
  const data = new Uint8Array(10).fill(1);
  await pool.sealBatch(p, data, 0, true);
  assert.equal(data.buffer.byteLength, 0);
  assert.equal(workers[0].jobs().length, 2);
  assert.equal(await pool.dispose(), true);
});

test("without spawn: new Worker(url, { type: 'module' }) on the worker module", async () => {
  const seen: [URL, object][] = [];
  const g = globalThis as { Worker?: unknown };
  const had = Object.getOwnPropertyDescriptor(g, 'Worker');
  g.Worker = class extends FakeWorker {
    constructor(url: URL, options: object) {
      super();
      seen.push([url, options]);
    }
  };
  try {
    const pool = await createWorkerPool({ algorithm: CHACHA.name, key: new Uint8Array(32), workers: 2 });
    assert.equal(await pool.dispose(), true);
  } finally {
    if (had) Object.defineProperty(g, 'Worker', had);
    else delete g.Worker;
  }
  assert.equal(seen.length, 2);
  for (const [url, options] of seen) {
    assert.equal(url.href, new URL('../src/stream/worker.ts', import.meta.url).href);
    assert.deepEqual(options, { type: 'module' });
  }
});

test('compiled to JavaScript, the pool starts its workers on worker.js beside it', async () => {
  // pool.ts as tsc emits it, in a directory of its own (its imports pointed at the sources)
  const source = new URL('../src/stream/pool.ts', import.meta.url);
  const js = ts
    .transpileModule(readFileSync(source, 'utf8'), { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } })
    .outputText.replace(/from '(\.{1,2}\/[^']+)\.js'/g, (_, path: string) => `from '${new URL(`${path}.ts`, source).href}'`);
  const dir = mkdtempSync(join(tmpdir(), 'ctkit-pool-js-'));
  try {
    const file = join(dir, 'pool.mjs');
    writeFileSync(file, js);
    const compiled = (await import(pathToFileURL(file).href)) as typeof import('../src/stream/pool.js');
    const urls: string[] = [];
    const { spawn } = fakes();
    const pool = await compiled.createWorkerPool({
      algorithm: CHACHA.name,
      key: new Uint8Array(32),
      workers: 1,
      spawn: (url) => {
        urls.push(url.href);
        return spawn();
      },
    });
    assert.equal(await pool.dispose(), true);
    assert.deepEqual(urls, [pathToFileURL(join(dir, 'worker.js')).href]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("nodeWorkers: a worker_threads Worker's messages and 'error' events reach the pool", async () => {
  const made: StandInNodeWorker[] = [];
  class StandInNodeWorker {
    readonly on_: Record<string, ((x: unknown) => void)[]> = {};
    terminated = 0;
    constructor(
      readonly code: string,
      readonly options: object,
    ) {
      made.push(this);
      later(() => this.fire('message', { t: 'loaded' }));
    }
    on(event: string, f: (x: unknown) => void): void {
      this.on_[event] ??= [];
      this.on_[event].push(f);
    }
    fire(event: string, x: unknown): void {
      for (const f of this.on_[event] ?? []) f(x);
    }
    postMessage(m: Msg): void {
      if (m.t === 'init') later(() => this.fire('message', { t: 'ready' }));
      if (m.t === 'dispose') later(() => this.fire('message', { t: 'disposed', wiped: true }));
    }
    terminate(): void {
      this.terminated++;
    }
  }
  const spawn = nodeWorkers(StandInNodeWorker, { preload: 'file:///loader.mjs' });
  const pool = await createWorkerPool({ algorithm: CHACHA.name, key: new Uint8Array(32), workers: 1, spawn });
  assert.deepEqual(made[0].options, { eval: true, workerData: { url: new URL('../src/stream/worker.ts', import.meta.url).href, preload: 'file:///loader.mjs' } });
  assert.equal(await pool.dispose(), true);
  assert.equal(made[0].terminated, 1);
  // an 'error' event of the thread (an uncaught exception in it)
  const starting = createWorkerPool({ algorithm: CHACHA.name, key: new Uint8Array(32), workers: 1, spawn });
  made[1].fire('error', new TypeError('x is not a function'));
  assert.equal(failure(await outcome(starting)), 'Error: stream worker failed: x is not a function');
  assert.equal(made[1].terminated, 1);
});

test('nodeWorkers on worker_threads: a worker module that does not load fails the pool with its own message', async () => {
  const base = nodeWorkers(Worker as never);
  const broken = new URL(`data:text/javascript,${encodeURIComponent("throw new Error('no stream worker here')")}`);
  await assert.rejects(createWorkerPool({ algorithm: CHACHA.name, key: new Uint8Array(32), workers: 1, spawn: () => base(broken) }), (e: Error) => isExactly(e, Error, 'no stream worker here'));
});

test('the default worker count: navigator.hardwareConcurrency only when it is positive', async () => {
  const { spawn } = fakes();
  const had = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
  try {
    for (const [hc, expected] of [
      [-1, 2],
      [Number.NaN, 2],
      [5, 5],
    ] as const) {
      Object.defineProperty(globalThis, 'navigator', { value: { hardwareConcurrency: hc }, configurable: true, writable: true });
      const pool = await createWorkerPool({ algorithm: CHACHA.name, key: new Uint8Array(32), spawn });
      assert.equal(pool.concurrency, expected, `hardwareConcurrency ${hc}`);
      await pool.dispose();
    }
  } finally {
    if (had) Object.defineProperty(globalThis, 'navigator', had);
    else delete (globalThis as { navigator?: unknown }).navigator;
  }
});

test('sealBatch: a batch that is not the last must hold whole segments', () => {
  const aead = chacha20Poly1305(rng.bytes(32));
  const p = params(CHACHA, 16);
  for (const n of [1, 15, 17, 33])
    assert.throws(
      () => sealBatch(aead, p, new Uint8Array(n), 0, false),
      (e: Error) => isExactly(e, RangeError, 'a batch that is not the last must hold whole segments'),
      `n=${n}`,
    );
  assert.equal(sealBatch(aead, p, new Uint8Array(32), 0, false).length, 64);
  aead.dispose();
});

test('openBatch: a batch cut inside a segment names the segment that is short, whole', () => {
  const aead = chacha20Poly1305(rng.bytes(32));
  const S = 16;
  const p = params(CHACHA, S);
  const unit = S + 16;
  const first = 3;
  const plain = rng.bytes(3 * S);
  const whole = sealBatch(aead, p, plain, first, false); // three sealed segments, not final
  const truncated = (at: number) => `truncated: segment ${at} is shorter than its tag (the stream was cut, or is not a ctkit sealed stream)`;
  for (const [what, sealed, lastFinal, at] of [
    ['final, empty', new Uint8Array(0), true, 3],
    ['final, 1 byte', whole.subarray(0, 1), true, 3],
    ['final, 2 segments and 5 bytes', whole.subarray(0, 2 * unit + 5), true, 5],
    ['final, 1 segment and 15 bytes', whole.subarray(0, unit + 15), true, 4],
    ['not final, 2 segments and 20 bytes', whole.subarray(0, 2 * unit + 20), false, 5],
    ['not final, 1 byte', whole.subarray(0, 1), false, 3],
  ] as const) {
    assert.throws(
      () => openBatch(aead, p, sealed, first, lastFinal),
      (e: Error) => isExactly(e, SegmentAuthenticationError, truncated(at)) && (e as SegmentAuthenticationError).segment === at,
      what,
    );
  }
  // whole segments open (not final); a final one of just a tag is an empty last segment
  assert.deepEqual(openBatch(aead, p, whole, first, false), plain);
  const empty = sealBatch(aead, p, new Uint8Array(0), first, true);
  assert.equal(empty.length, 16);
  assert.deepEqual(openBatch(aead, p, empty, first, true), new Uint8Array(0));
  aead.dispose();
});

test('after a worker crashed: new batches are refused, dispose() answers false at once and stops every worker, and says so again', async () => {
  const { pool, workers } = await fakePool(2, { jobs: 'hold' });
  const p = params();
  workers[0].error(new Error('worker ran out of memory'));
  workers[0].error(new Error('a second error')); // the first crash is the one named
  await later2();
  // the crashed worker would never answer: no job goes to any worker
  await assert.rejects(pool.sealBatch(p, new Uint8Array(1000), 0, false), (e: Error) => isExactly(e, StateError, 'worker pool: a worker failed earlier (stream worker failed: worker ran out of memory); dispose() it and create another'));
  assert.deepEqual(
    workers.map((w) => w.jobs().length),
    [0, 0],
  );
  // dispose: the living worker is asked, the crashed one is not; false (a key not confirmed wiped)
  assert.deepEqual(await outcome(pool.dispose()), { value: false });
  assert.deepEqual(
    workers.map((w) => [w.posted.filter((m) => m.t === 'dispose').length, w.terminated]),
    [
      [0, 1],
      [1, 1],
    ],
  );
  // a second call gets the first one's answer, and asks nobody again
  assert.equal(await pool.dispose(), false);
  assert.deepEqual(
    workers.map((w) => w.posted.filter((m) => m.t === 'dispose').length),
    [0, 1],
  );
});

test('a batch whose buffer was already transferred away is a rejected promise, not a throw', async () => {
  const { pool } = await fakePool(1, { jobs: 'hold' });
  const buf = new ArrayBuffer(1000);
  const view = new Uint8Array(buf, 0, 1000);
  structuredClone(buf, { transfer: [buf] }); // detaches buf under the view
  let promise: Promise<Uint8Array> | undefined;
  assert.doesNotThrow(() => {
    promise = pool.sealBatch(params(), view, 0, true);
  });
  await assert.rejects(promise!, TypeError);
  await pool.dispose();
});

test("a sealer's header is its own array: wiping it after push() changes none of the later segments", () => {
  const key = new Uint8Array(32).fill(3);
  const msg = new Uint8Array(40).map((_, i) => i);
  const prefix = new Uint8Array(prefixLength(CHACHA)).fill(1);
  const sealOnce = (wipe: boolean) => {
    const s = createSealer(chacha20Poly1305(key), { segmentSize: 16, noncePrefix: prefix });
    const out = s.push(msg.subarray(0, 20));
    if (wipe) s.header.fill(0);
    return hex(cat([...out, ...s.push(msg.subarray(20)), ...s.finish()]));
  };
  assert.equal(sealOnce(true), sealOnce(false));
});

/** two turns of the event loop */
const later2 = () => new Promise<void>((r) => later(() => later(r)));

test('a worker that reports a failure outside any job is still alive: it takes batches and is asked to wipe its key', async () => {
  const { pool, workers } = await fakePool(2, { jobs: 'hold' });
  workers[0].emit({ t: 'fail', name: 'StateError', message: 'worker: no key' });
  await later2();
  const p = params();
  const jobs = [0, 1].map((i) => pool.sealBatch(p, new Uint8Array(1000), i, false));
  assert.deepEqual(
    workers.map((w) => w.jobs().length),
    [1, 1],
  );
  assert.deepEqual(await outcome(jobs[0]), 'pending');
  assert.equal(await pool.dispose(), true);
  assert.deepEqual(
    workers.map((w) => [w.posted.filter((m) => m.t === 'dispose').length, w.terminated]),
    [
      [1, 1],
      [1, 1],
    ],
  );
});

test('segment sizes: 2^24 is the largest accepted, 2^24 + 1 is refused with its whole message', () => {
  const aead = chacha20Poly1305(new Uint8Array(32));
  assert.equal(createSealer(aead, { segmentSize: 1 << 24 }).header.length > 0, true);
  assert.throws(
    () => createSealer(aead, { segmentSize: (1 << 24) + 1 }),
    (e: Error) => isExactly(e, RangeError, `segmentSize must be an integer from 1 to ${1 << 24}, got ${(1 << 24) + 1}`),
  );
});

test('sealBatch: a final batch of several segments flags only its last one final (as the sealer does)', () => {
  const key = new Uint8Array(32).fill(5);
  const plain = new Uint8Array(2500).map((_, i) => i * 7);
  const p = params();
  const s = createSealer(chacha20Poly1305(key), { segmentSize: 1000, noncePrefix: p.prefix });
  const expected = hex(cat([...s.push(plain), ...s.finish()].slice(1))); // the segments after the header
  const q: SegmentParams = { ...p, aad: newStreamParamsFor(p.prefix).params.aad };
  assert.equal(hex(sealBatch(chacha20Poly1305(key), q, plain, 0, true)), expected);
});

test('sealBatch into an output below its input in one buffer seals from a copy, and wipes that copy', () => {
  const seen = new Set<ArrayBufferLike>();
  const inner = chacha20Poly1305(new Uint8Array(32).fill(9));
  const aead = { ...inner, seal: (n: Uint8Array, pt: Uint8Array, aad?: Uint8Array, o?: Uint8Array) => (seen.add(pt.buffer), inner.seal(n, pt, aad, o)) } as typeof inner;
  const buf = new Uint8Array(3000);
  const plain = buf.subarray(100, 2100).fill(0x77);
  sealBatch(aead, params(), plain, 0, true, buf.subarray(0));
  const copies = [...seen].filter((b) => b !== buf.buffer).map((b) => new Uint8Array(b));
  assert.equal(copies.length, 1, 'sealed from one copy');
  assert.ok(
    copies[0].every((x) => x === 0),
    'the copy is wiped',
  );
});

test("openBatch: an AEAD's own error (not an authentication failure) passes through as it is", () => {
  const aead = chacha20Poly1305(new Uint8Array(32));
  const p = params();
  const sealed = sealBatch(aead, p, new Uint8Array(10), 0, true);
  aead.dispose();
  assert.throws(
    () => openBatch(aead, p, sealed, 0, true),
    (e: Error) => e.constructor === StateError,
  );
});

test("a segment's 'fail' reply whose message is not a string gets the standard message", async () => {
  const { pool, workers } = await fakePool(1, { jobs: 'hold' });
  const job = pool.openBatch(params(), new Uint8Array(1016), 3, false);
  workers[0].emit({ t: 'fail', id: workers[0].jobs()[0].id, name: 'SegmentAuthenticationError', message: 42, segment: 3 });
  const o = await outcome(job);
  assert.ok(o !== 'pending' && 'error' in o, failure(o));
  assert.equal((o.error as Error).message, 'segment 3 failed authentication: the stream is damaged, truncated, reordered, spliced or extended, or the key is wrong');
  await pool.dispose();
});

const newStreamParamsFor = (prefix: Uint8Array) => newStreamParams(CHACHA, { segmentSize: 1000, noncePrefix: prefix });

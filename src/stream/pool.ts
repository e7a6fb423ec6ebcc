// A pool of workers that seal and open batches of segments in parallel (segments are
// independent), for createSealStream / createOpenStream and the CLI's --jobs. The same code runs
// on Web Workers (browsers, Deno, Bun: the default) and on Node.js worker_threads, through
// `spawn: nodeWorkers(Worker)` with the Worker class the caller imports from node:worker_threads
// (this file imports nothing from Node). The output is byte for byte what one thread writes.
//
// The key reaches each worker once, at creation (structured clone; the caller's copy is not
// touched, the workers wipe theirs after expanding it) and is wiped there on dispose().
// Batches travel as transferred buffers and are sealed or opened in place when their buffer has
// room (sealBatch / openBatch in segments.ts): the buffer that went out comes back holding the
// result, so a caller that reuses it (the CLI) allocates nothing per batch. (A fresh 4 MiB
// buffer costs more than the copy into it: its pages fault in zero-filled, the collector unmaps
// them.)

import { AuthenticationError, StateError } from '../errors.js';
import { copyBytes } from '../util/check.js';
import { streamAlgorithm } from './sealer.js';
import { SegmentAuthenticationError, type SegmentParams } from './segments.js';
import type { BatchCipher } from './web.js';

/** The part of the Web Worker interface the pool uses. */
export interface WorkerLike {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  // biome-ignore lint/suspicious/noExplicitAny: a message from a worker is untyped until #message reads its tag
  addEventListener(type: 'message', listener: (e: { data: any }) => void): void;
  addEventListener(type: 'error', listener: (e: unknown) => void): void;
  terminate(): unknown;
}

export interface WorkerPoolOptions {
  /** the format-1 algorithm of the key ('chacha20-poly1305', 'aes-256-gcm', …) */
  algorithm: string;
  /** the raw key (keyLength bytes); copied at once: the pool does not keep or wipe the caller's array */
  key: Uint8Array;
  /** number of workers (default: navigator.hardwareConcurrency, else 2) */
  workers?: number;
  /** how to start a worker on the module at `url` (default: new Worker(url, { type: 'module' })) */
  spawn?: (url: URL) => WorkerLike;
}

// the compiled module beside this one; from the TypeScript sources (tests, tsx) the .ts file
const WORKER_URL = import.meta.url.endsWith('.ts') ? new URL('./worker.ts', import.meta.url) : new URL('./worker.js', import.meta.url);

/**
 * A spawn function for Node.js: pass the Worker class of node:worker_threads. The worker runs a
 * two-line bootstrap that maps worker_threads' parentPort onto postMessage / onmessage, then
 * imports the same worker module as a browser does.
 */
export function nodeWorkers(NodeWorker: new (code: string, options: object) => NodeWorkerLike, options: NodeWorkersOptions = {}): (url: URL) => WorkerLike {
  const bootstrap = [
    "const { parentPort, workerData } = require('node:worker_threads');",
    'globalThis.postMessage = (m, t) => parentPort.postMessage(m, t);',
    "parentPort.on('message', (data) => globalThis.onmessage && globalThis.onmessage({ data }));",
    'Promise.resolve(workerData.preload && import(workerData.preload).then((m) => m.register && m.register()))',
    '  .then(() => import(workerData.url))',
    "  .catch((e) => parentPort.postMessage({ t: 'fail', message: String((e && e.message) || e) }));",
  ].join('\n');
  return (url) => {
    const w = new NodeWorker(bootstrap, { eval: true, workerData: { url: url.href, preload: options.preload } });
    return {
      postMessage: (m, t) => w.postMessage(m, t),
      // biome-ignore lint/suspicious/noExplicitAny: a message from a worker is untyped until #message reads its tag
      addEventListener: (type: 'message' | 'error', f: (e: any) => void) => {
        if (type === 'message') w.on('message', (data: unknown) => f({ data }));
        else w.on('error', f);
      },
      terminate: () => w.terminate(),
    };
  };
}

export interface NodeWorkersOptions {
  /**
   * A module each worker imports first, calling its register() export if it has one: a loader
   * for running from TypeScript sources (tsx's 'tsx/esm/api'); not needed with the compiled package.
   */
  preload?: string;
}

/** The part of node:worker_threads' Worker that nodeWorkers uses. */
export interface NodeWorkerLike {
  postMessage(m: unknown, transfer?: readonly unknown[]): void;
  // biome-ignore lint/suspicious/noExplicitAny: node:worker_threads passes messages and errors untyped
  on(event: string, f: (x: any) => void): unknown;
  terminate(): unknown;
}

interface Job {
  resolve(b: Uint8Array): void;
  reject(e: Error): void;
}

class Member {
  readonly jobs = new Map<number, Job>();
  ready: Promise<void>;
  #onReady!: () => void;
  #onFail!: (e: Error) => void;
  #disposed: ((wiped: boolean) => void) | undefined;
  /** set when the worker's thread died (an 'error' event): it takes no more jobs and answers no dispose */
  failed: Error | undefined;
  constructor(
    readonly w: WorkerLike,
    algorithm: string,
    key: Uint8Array,
  ) {
    this.ready = new Promise<void>((res, rej) => {
      this.#onReady = res;
      this.#onFail = rej;
    });
    w.addEventListener('message', (e) => this.#message(e.data, algorithm, key));
    w.addEventListener('error', (e) => {
      const err = new Error(`stream worker failed: ${(e as { message?: string })?.message ?? String(e)}`);
      this.failed ??= err;
      this.#crash(err);
    });
  }

  // biome-ignore lint/suspicious/noExplicitAny: the worker protocol is checked field by field (m.t) below
  #message(m: any, algorithm: string, key: Uint8Array): void {
    switch (m.t) {
      case 'loaded':
        // the key goes out once, now (a copy: the caller's array stays the caller's)
        this.w.postMessage({ t: 'init', algorithm, key: copyBytes(key) });
        return;
      case 'ready':
        this.#onReady();
        return;
      case 'done': {
        const j = this.jobs.get(m.id);
        this.jobs.delete(m.id);
        j?.resolve(m.data);
        return;
      }
      case 'fail': {
        let err: Error;
        // a segment's failure keeps the worker's message (a truncated segment says so)
        if (m.segment !== undefined) err = new SegmentAuthenticationError(m.segment, typeof m.message === 'string' ? m.message : undefined);
        else if (m.name === 'AuthenticationError') err = new AuthenticationError(m.message);
        else err = new Error(m.message);
        if (m.id === undefined) {
          this.#crash(err);
          return;
        }
        const j = this.jobs.get(m.id);
        this.jobs.delete(m.id);
        j?.reject(err);
        return;
      }
      case 'disposed':
        this.#disposed?.(m.wiped === true);
        return;
    }
  }

  /** fails every job of this worker (and its start, and a dispose in progress) with e */
  #crash(e: Error): void {
    this.#onFail(e);
    for (const j of this.jobs.values()) j.reject(e);
    this.jobs.clear();
    this.#disposed?.(false);
  }

  dispose(): Promise<boolean> {
    // a crashed worker never answers: its key cannot be confirmed wiped
    if (this.failed) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      this.#disposed = resolve;
      this.w.postMessage({ t: 'dispose' });
    });
  }
}

/** A pool of stream workers holding one key. Use it where an AEAD object goes in createSealStream / createOpenStream. */
export class WorkerPool implements BatchCipher {
  readonly algorithm: string;
  readonly size: number;
  readonly #members: Member[];
  #next = 0;
  #id = 0;
  #disposed: Promise<boolean> | undefined;

  private constructor(algorithm: string, members: Member[]) {
    this.algorithm = algorithm;
    this.size = members.length;
    this.#members = members;
  }

  get concurrency(): number {
    return this.size;
  }

  /** Starts the workers and hands each the key; resolves when all are ready. */
  static async create(o: WorkerPoolOptions): Promise<WorkerPool> {
    if (o === null || typeof o !== 'object') throw new TypeError('options must be an object');
    const alg = streamAlgorithm(String(o.algorithm));
    if (!(o.key instanceof Uint8Array)) throw new TypeError('key must be a Uint8Array');
    if (o.key.length !== alg.keyLength) throw new RangeError(`a ${alg.name} key must be ${alg.keyLength} bytes long, got ${o.key.length}`);
    const hc = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency;
    const n = o.workers ?? (hc && hc > 0 ? hc : 2);
    if (!Number.isInteger(n) || n < 1 || n > 256) throw new RangeError(`workers must be an integer from 1 to 256, got ${String(n)}`);
    let spawn = o.spawn;
    if (spawn === undefined) {
      const W = (globalThis as { Worker?: new (url: URL, o: object) => WorkerLike }).Worker;
      if (typeof W !== 'function') throw new TypeError('this runtime has no Web Worker; pass spawn (Node.js: nodeWorkers(Worker) with Worker from node:worker_threads)');
      spawn = (url) => new W(url, { type: 'module' });
    }
    // a copy of the key until every worker has its own: the caller may wipe its array as soon
    // as this call returns, while the workers are still starting
    const key = copyBytes(o.key);
    const members: Member[] = [];
    try {
      for (let i = 0; i < n; i++) members.push(new Member(spawn(WORKER_URL), alg.name, key));
      await Promise.all(members.map((m) => m.ready));
    } catch (e) {
      for (const m of members) m.w.terminate();
      throw e;
    } finally {
      key.fill(0);
    }
    return new WorkerPool(alg.name, members);
  }

  // async: every refusal, a detached input included, is a rejected promise, never a throw
  async #run(t: 'seal' | 'open', p: SegmentParams, data: Uint8Array, first: number, lastFinal: boolean): Promise<Uint8Array> {
    if (this.#disposed) throw new StateError('worker pool: used after dispose()');
    if (p.alg.name !== this.algorithm) throw new RangeError(`the pool holds a ${this.algorithm} key, not ${p.alg.name}`);
    // a worker that crashed would never answer: the pool takes no more work
    const failed = this.#members.find((m) => m.failed)?.failed;
    if (failed) throw new StateError(`worker pool: a worker failed earlier (${failed.message}); dispose() it and create another`);
    // the least busy worker, round robin among equals
    let best = this.#members[this.#next];
    for (let i = 1; i < this.size; i++) {
      const m = this.#members[(this.#next + i) % this.size];
      if (m.jobs.size < best.jobs.size) best = m;
    }
    this.#next = (this.#members.indexOf(best) + 1) % this.size;
    const id = this.#id++;
    // the input moves to the worker: its own buffer when it starts that buffer (the caller gave
    // it up: BatchCipher), else a copy of just the view (a clone would copy the whole buffer)
    const own = data.byteOffset === 0 && data.buffer instanceof ArrayBuffer && data.buffer.byteLength > 0;
    const input = own ? data : new Uint8Array(data);
    return new Promise<Uint8Array>((resolve, reject) => {
      best.jobs.set(id, { resolve, reject });
      best.w.postMessage({ t, id, data: input, algorithm: p.alg.name, prefix: p.prefix, aad: p.aad, segmentSize: p.segmentSize, first, lastFinal }, [input.buffer as ArrayBuffer]);
    });
  }

  /**
   * Seals a batch on the least busy worker. `plain` moves there: when it starts at offset 0 of
   * its buffer, that whole buffer is transferred (detached here), and the batch is sealed in it
   * when it has room for the tags (the result is then a view of that buffer, back); otherwise
   * the view is copied. Either way the plaintext that went out is overwritten or wiped there.
   */
  sealBatch(p: SegmentParams, plain: Uint8Array, first: number, lastFinal: boolean): Promise<Uint8Array> {
    return this.#run('seal', p, plain, first, lastFinal);
  }

  /** Opens a batch on the least busy worker; `sealed` moves there as `plain` does for sealBatch. */
  openBatch(p: SegmentParams, sealed: Uint8Array, first: number, lastFinal: boolean): Promise<Uint8Array> {
    return this.#run('open', p, sealed, first, lastFinal);
  }

  /**
   * Wipes the key in every worker and stops them. Resolves to true when every worker confirmed
   * that its expanded key is disposed and the copy it received is zero.
   */
  dispose(): Promise<boolean> {
    // once: a second call gets the first one's answer
    this.#disposed ??= (async () => {
      const confirmed = await Promise.all(this.#members.map((m) => m.dispose()));
      for (const m of this.#members) m.w.terminate();
      return confirmed.every(Boolean);
    })();
    return this.#disposed;
  }
}

/** Starts a worker pool (see WorkerPoolOptions). */
export function createWorkerPool(options: WorkerPoolOptions): Promise<WorkerPool> {
  return WorkerPool.create(options);
}

// The sealed stream as WHATWG streams and as async one-shot calls, on one AEAD object (this
// thread) or on a worker pool (segments sealed in parallel, output in order, byte for byte the
// same).
//
//   await file.stream().pipeThrough(createSealStream(aead)).pipeTo(writable);
//   stream.pipeline(Readable.fromWeb(src.pipeThrough(createOpenStream(aead))), out)   // Node
//
// Backpressure: a transform handles one chunk at a time, in slices of at most BATCH_BYTES, and
// the TransformStream calls it only when its readable side has room, so memory stays bounded by
// a few batches whatever the stream's length (with a pool: 4 batches per worker in flight).
// Long pumps yield to the event loop every `yieldEvery` milliseconds (default 16), stop with
// `signal`, and report progress (input bytes consumed) through `onProgress`.

import type { Aead } from '../aead/types.js';
import { StateError } from '../errors.js';
import { checkBytes, copyBytes } from '../util/check.js';
import { type AlgorithmInfo, StreamFormatError } from './format.js';
import { Framer, type SegmentParams, openBatch, sealBatch, sealedLength } from './segments.js';
import { BATCH_BYTES, HeaderReader, type OpenerOptions, type SealerOptions, checkAead, newStreamParams, streamAlgorithm } from './sealer.js';

/** Seals and opens batches elsewhere (a worker pool); results in any order, each one awaited. */
export interface BatchCipher {
  /** the format-1 algorithm name of the key the cipher holds */
  readonly algorithm: string;
  /** how many batches to keep in flight */
  readonly concurrency: number;
  /** May take ownership of (transfer, detach) `plain`. */
  sealBatch(p: SegmentParams, plain: Uint8Array, first: number, lastFinal: boolean): Promise<Uint8Array>;
  /** May take ownership of `sealed`. Rejects with SegmentAuthenticationError; nothing of a failed batch comes back. */
  openBatch(p: SegmentParams, sealed: Uint8Array, first: number, lastFinal: boolean): Promise<Uint8Array>;
}

export interface PumpOptions {
  /** stop: the stream errors with signal.reason, held plaintext is wiped */
  signal?: AbortSignal;
  /** called with the number of input bytes consumed so far */
  onProgress?: (bytes: number) => void;
  /** yield to the event loop after this many milliseconds of work (default 16; 0: never) */
  yieldEvery?: number;
}

export type SealStreamOptions = SealerOptions & PumpOptions;
export type OpenStreamOptions = OpenerOptions & PumpOptions;

function isBatchCipher(x: unknown): x is BatchCipher {
  return x !== null && typeof x === 'object' && typeof (x as BatchCipher).sealBatch === 'function';
}

// ---- yielding ------------------------------------------------------------------------------

let channel: MessageChannel | undefined;
const waiting: (() => void)[] = [];
type Immediate = (f: () => void) => unknown;

/**
 * A macrotask: lets rendering, input events and timers run. Browsers: a MessageChannel message
 * (a task, without setTimeout's 4 ms clamp). Node.js, Deno, Bun: setImmediate where the runtime
 * has it, since Node delivers a port's messages posted while it drains them in the same turn
 * (a chain of yields through a port would never let timers run).
 */
export function yieldToEventLoop(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: Immediate }).setImmediate;
  if (typeof immediate === 'function') return new Promise((r) => void immediate(r));
  if (typeof MessageChannel !== 'function') return new Promise((r) => setTimeout(r, 0));
  if (!channel) {
    channel = new MessageChannel();
    channel.port1.onmessage = () => waiting.shift()?.();
  }
  return new Promise((r) => {
    waiting.push(r);
    channel!.port2.postMessage(0);
  });
}

const now = (): number => (typeof performance === 'object' ? performance.now() : Date.now());

class Pacer {
  readonly #every: number;
  readonly #signal: AbortSignal | undefined;
  readonly #progress: ((n: number) => void) | undefined;
  #since = now();
  done = 0;
  constructor(o: PumpOptions) {
    if (o.yieldEvery !== undefined && !(typeof o.yieldEvery === 'number' && o.yieldEvery >= 0)) throw new RangeError('yieldEvery must be a number of milliseconds ≥ 0');
    if (o.signal !== undefined && (o.signal === null || typeof o.signal.aborted !== 'boolean')) throw new TypeError('signal must be an AbortSignal');
    if (o.onProgress !== undefined && typeof o.onProgress !== 'function') throw new TypeError('onProgress must be a function');
    this.#every = o.yieldEvery ?? 16;
    this.#signal = o.signal;
    this.#progress = o.onProgress;
  }
  check(): void {
    this.#signal?.throwIfAborted();
  }
  async step(bytes: number): Promise<void> {
    this.done += bytes;
    if (bytes > 0) this.#progress?.(this.done);
    if (this.#every > 0 && now() - this.#since >= this.#every) {
      await yieldToEventLoop();
      this.#since = now();
    }
    this.check();
  }
}

// ---- pumps: one direction of one stream ----------------------------------------------------------

/** Batches in flight per worker (each up to BATCH_BYTES): enough read-ahead that no worker waits. */
const INFLIGHT_PER_WORKER = 4;

type Emit = (b: Uint8Array) => void;

/** Marks a promise that is awaited later, in order: its rejection is not "unhandled" meanwhile. */
function handled<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

/** Sealing or opening, chunk by chunk, on an AEAD or a pool; the shared engine of every async form. */
interface Pump {
  write(chunk: Uint8Array, emit: Emit): Promise<void>;
  close(emit: Emit): Promise<void>;
  /** wipes what is held (after an error or an abort) */
  cancel(): void;
}

class SealPump implements Pump {
  readonly #aead: Aead | undefined;
  readonly #pool: BatchCipher | undefined;
  readonly #header: Uint8Array;
  readonly #params: SegmentParams;
  readonly #framer: Framer;
  readonly #pace: Pacer;
  readonly #inflight: Promise<Uint8Array>[] = [];
  #index = 0;
  #headerOut = false;
  /** cancelled: a write waiting in its loop stops */
  #dead = false;

  constructor(cipher: Aead | BatchCipher, o: SealStreamOptions) {
    let alg: AlgorithmInfo;
    if (isBatchCipher(cipher)) {
      alg = streamAlgorithm(cipher.algorithm);
      this.#pool = cipher;
    } else {
      alg = checkAead(cipher);
      this.#aead = cipher;
    }
    const { header, params } = newStreamParams(alg, o);
    this.#header = header;
    this.#params = params;
    this.#framer = new Framer(params.segmentSize, Math.max(1, Math.floor(BATCH_BYTES / params.segmentSize)));
    this.#pace = new Pacer(o);
  }

  get header(): Uint8Array {
    return this.#header;
  }

  #batch(batch: Uint8Array, lastFinal: boolean, emit: Emit): void {
    const first = this.#index;
    this.#index += lastFinal ? 0 : batch.length / this.#params.segmentSize;
    if (this.#aead) emit(sealBatch(this.#aead, this.#params, batch, first, lastFinal));
    else {
      // a copy of its own that moves to the worker, with room for the tags: sealed in place there
      const copy = new Uint8Array(sealedLength(batch.length, this.#params, lastFinal));
      copy.set(batch);
      this.#inflight.push(handled(this.#pool!.sealBatch(this.#params, copy.subarray(0, batch.length), first, lastFinal)));
    }
  }

  async #drain(emit: Emit, keep: number): Promise<void> {
    while (this.#inflight.length > keep) emit(await this.#inflight.shift()!);
  }

  async write(chunk: Uint8Array, emit: Emit): Promise<void> {
    const limit = this.#pool ? Math.max(1, this.#pool.concurrency) * INFLIGHT_PER_WORKER : 0;
    // every failure, a bad chunk or an abort between writes included, wipes what is held back
    try {
      checkBytes('chunk', chunk);
      this.#pace.check();
      if (!this.#headerOut) {
        emit(this.#header.slice());
        this.#headerOut = true;
      }
      for (let off = 0; off < chunk.length; off += BATCH_BYTES) {
        const slice = chunk.subarray(off, Math.min(chunk.length, off + BATCH_BYTES));
        this.#framer.push(slice, (b) => this.#batch(b, false, emit));
        await this.#drain(emit, limit);
        await this.#pace.step(slice.length);
        // cancelled while this write waited: the held plaintext is wiped, take no more of it
        if (this.#dead) throw new StateError('seal stream: cancelled');
      }
    } catch (e) {
      this.cancel();
      throw e;
    }
  }

  async close(emit: Emit): Promise<void> {
    try {
      this.#pace.check();
      if (!this.#headerOut) {
        emit(this.#header.slice());
        this.#headerOut = true;
      }
      this.#batch(this.#framer.rest(), true, emit);
      this.#framer.clear();
      await this.#drain(emit, 0);
    } catch (e) {
      this.cancel();
      throw e;
    }
  }

  cancel(): void {
    this.#dead = true;
    this.#framer.clear();
    for (const p of this.#inflight.splice(0)) p.catch(() => undefined);
  }
}

class OpenPump implements Pump {
  readonly #aead: Aead | undefined;
  readonly #pool: BatchCipher | undefined;
  readonly #reader: HeaderReader;
  readonly #pace: Pacer;
  readonly #inflight: Promise<Uint8Array>[] = [];
  #params: SegmentParams | undefined;
  #framer: Framer | undefined;
  #index = 0;
  /** cancelled: a write waiting in its loop stops */
  #dead = false;

  constructor(cipher: Aead | BatchCipher, o: OpenStreamOptions) {
    if (o === null || typeof o !== 'object') throw new TypeError('options must be an object');
    let alg: AlgorithmInfo;
    if (isBatchCipher(cipher)) {
      alg = streamAlgorithm(cipher.algorithm);
      this.#pool = cipher;
    } else {
      alg = checkAead(cipher);
      this.#aead = cipher;
    }
    if (o.aad !== undefined) checkBytes('aad', o.aad);
    this.#reader = new HeaderReader(alg, o.aad && copyBytes(o.aad));
    this.#pace = new Pacer(o);
  }

  #batch(batch: Uint8Array, lastFinal: boolean, emit: Emit): void {
    const first = this.#index;
    this.#index += lastFinal ? 0 : batch.length / this.#framer!.unit;
    if (this.#aead) emit(openBatch(this.#aead, this.#params!, batch, first, lastFinal));
    else this.#inflight.push(handled(this.#pool!.openBatch(this.#params!, copyBytes(batch), first, lastFinal))); // a copy that moves to the worker
  }

  async #drain(emit: Emit, keep: number): Promise<void> {
    while (this.#inflight.length > keep) emit(await this.#inflight.shift()!);
  }

  async write(chunk: Uint8Array, emit: Emit): Promise<void> {
    const limit = this.#pool ? Math.max(1, this.#pool.concurrency) * INFLIGHT_PER_WORKER : 0;
    // every failure, a bad chunk or an abort between writes included, wipes what is in flight
    try {
      checkBytes('chunk', chunk);
      this.#pace.check();
      let c = chunk;
      if (!this.#params) {
        const h = this.#reader.feed(c);
        if (!h) return;
        this.#params = h.params;
        const unit = h.params.segmentSize + h.params.alg.tagLength;
        this.#framer = new Framer(unit, Math.max(1, Math.floor(BATCH_BYTES / unit)));
        c = h.rest;
      }
      for (let off = 0; off < c.length; off += BATCH_BYTES) {
        const slice = c.subarray(off, Math.min(c.length, off + BATCH_BYTES));
        this.#framer!.push(slice, (b) => this.#batch(b, false, emit));
        await this.#drain(emit, limit);
        await this.#pace.step(slice.length);
        if (this.#dead) throw new StateError('open stream: cancelled');
      }
    } catch (e) {
      this.cancel();
      throw e;
    }
  }

  async close(emit: Emit): Promise<void> {
    try {
      this.#pace.check();
      if (!this.#params) {
        throw new StreamFormatError(this.#reader.started ? 'truncated: the stream ends inside its header' : 'empty input: not a ctkit sealed stream');
      }
      this.#batch(this.#framer!.rest(), true, emit);
      this.#framer!.clear();
      await this.#drain(emit, 0);
    } catch (e) {
      this.cancel();
      throw e;
    }
  }

  cancel(): void {
    this.#dead = true;
    this.#framer?.clear();
    // batches in flight that authenticate later are wiped, never released
    for (const p of this.#inflight.splice(0))
      p.then(
        (b) => b.fill(0),
        () => undefined,
      );
  }
}

function transformOf(pump: Pump): TransformStream<Uint8Array, Uint8Array> {
  return new TransformStream<Uint8Array, Uint8Array>(
    {
      transform: (chunk, ctl) => pump.write(chunk, (b) => ctl.enqueue(b)),
      flush: (ctl) => pump.close((b) => ctl.enqueue(b)),
      // @ts-expect-error: `cancel` is in the Streams standard (2023) but not yet in every lib.dom
      cancel: () => pump.cancel(),
    },
    { highWaterMark: 1 },
    { highWaterMark: 1 },
  );
}

/**
 * A TransformStream that seals plaintext bytes into a format-1 sealed stream, on `cipher`: an
 * AEAD object (aesGcm(key), chacha20Poly1305(key), …, 16-byte tags) or a worker pool.
 */
export function createSealStream(cipher: Aead | BatchCipher, options: SealStreamOptions = {}): TransformStream<Uint8Array, Uint8Array> {
  return transformOf(new SealPump(cipher, options));
}

/**
 * A TransformStream that opens a format-1 sealed stream. A segment's plaintext is enqueued only
 * after that segment authenticated; the stream errors with AuthenticationError on any damage,
 * truncation, reordering, duplication, splicing or appended data, and releases nothing of the
 * failed segment (a consumer that must not act on a prefix waits for the stream to close).
 */
export function createOpenStream(cipher: Aead | BatchCipher, options: OpenStreamOptions = {}): TransformStream<Uint8Array, Uint8Array> {
  return transformOf(new OpenPump(cipher, options));
}

async function runPump(pump: Pump, data: Uint8Array): Promise<Uint8Array> {
  checkBytes('data', data);
  const parts: Uint8Array[] = [];
  let total = 0;
  const emit = (b: Uint8Array) => {
    parts.push(b);
    total += b.length;
  };
  try {
    await pump.write(data, emit);
    await pump.close(emit);
  } catch (e) {
    for (const p of parts) p.fill(0);
    throw e;
  }
  const out = new Uint8Array(total);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
    p.fill(0);
  }
  return out;
}

/** The whole sealed stream of `data`, yielding to the event loop as it goes (see PumpOptions). */
export async function sealStreamAsync(cipher: Aead | BatchCipher, data: Uint8Array, options: SealStreamOptions = {}): Promise<Uint8Array> {
  return runPump(new SealPump(cipher, options), data);
}

/** The plaintext of a whole sealed stream, or AuthenticationError; yields as it goes. */
export async function openStreamAsync(cipher: Aead | BatchCipher, sealed: Uint8Array, options: OpenStreamOptions = {}): Promise<Uint8Array> {
  return runPump(new OpenPump(cipher, options), sealed);
}

// `ctkit keygen --aead`, `ctkit seal`, `ctkit open`: symmetric key files, and the sealed-file
// format of ctkit/stream (format 1, docs/stream-format.md) over files, stdin and stdout.
//
// The file path runs ctkit/stream's batches (sealBatch / openBatch) on whole reads: each read is
// CHUNK bytes of segments, read ahead in libuv's thread pool while the one before is sealed or
// opened, and goes out in one write. With --jobs N, this thread and N − 1 pool workers share the
// batches (the output is byte for byte the same): this thread starts at once, the workers join
// when they have started, and this thread takes a batch whenever the workers have enough in
// flight. Each batch is sealed or opened in place in its read buffer, on this thread or in a
// worker (the buffer moves there and comes back with the result), and a buffer once written is
// read into again: nothing is allocated per batch (a fresh 4 MiB buffer costs more than the copy
// into it), concatenated or held back. A read that is followed by more data holds only
// segments that are not the last; the last read ends with the final one.
//
// What `open` promises: with -o, the file appears only when every segment authenticated (it is
// written under a temporary name and renamed). To stdout, plaintext goes out a batch at a time,
// each batch only after all of its segments authenticated (the last segment alone: a stream cut
// after segment i releases segments up to i − 1); a stream that is damaged or cut short later
// is exit status 1 with a message saying how many authenticated bytes were already written, so
// a consumer that must not act on a prefix checks the exit status (or uses -o).

import { availableParallelism } from 'node:os';
import type { Aead } from '../aead/types.js';
import { AuthenticationError } from '../errors.js';
import { ALGORITHMS, type AlgorithmInfo, HEADER_FIXED, StreamFormatError, algorithmById, algorithmByName, headerLength } from '../stream/format.js';
import { loadAeadFactory } from '../stream/factories.js';
import { HeaderReader, newStreamParams } from '../stream/sealer.js';
import { SegmentAuthenticationError, type SegmentParams, openBatch, sealBatch } from '../stream/segments.js';
import type { BatchCipher } from '../stream/web.js';
import { copyBytes } from '../util/check.js';
import { Failure, FileError, UsageError } from './errors.js';
import { Input, type Output, Progress, createSecretFile, openOutput, reason } from './io.js';
import { parseAeadKeyFile } from './aead-key-file.js';
import { promises as fsp } from 'node:fs';

/** Bytes of plaintext per read, per batch and per write: 64 segments of 64 KiB (at least one segment). */
export const CHUNK = 4 << 20;
/** Batches in flight per pool worker: enough that no worker waits for the next while this thread seals one. */
const INFLIGHT_PER_WORKER = 2;
/** Results held beyond the workers' batches (this thread's, waiting for an older one from a worker). */
const RESULTS_AHEAD = 2;
/** Reads queued beyond the batch at hand (the next one also says whether this one is the last). */
const READ_AHEAD = 2;
/** Writes queued before the next batch waits for the oldest. */
const WRITES_QUEUED = 2;

const b64url = (b: Uint8Array) => Buffer.from(b).toString('base64url');
const algNames = () => ALGORITHMS.map((a) => a.name).join(', ');

/** A symmetric key file: a JWK (RFC 7517) octet key naming its algorithm. */
interface KeyFile {
  alg: AlgorithmInfo;
  key: Uint8Array;
}

export async function keygenAead(algName: string, out: string): Promise<void> {
  const alg = algorithmByName(algName);
  if (!alg) throw new UsageError(`unknown AEAD '${algName}' (choose one of ${algNames()})`);
  const key = crypto.getRandomValues(new Uint8Array(alg.keyLength));
  const jwk = { kty: 'oct', alg: alg.name, k: b64url(key), key_ops: ['encrypt', 'decrypt'] };
  try {
    await createSecretFile(out, JSON.stringify(jwk) + '\n');
  } finally {
    key.fill(0);
  }
}

async function readKeyFile(path: string): Promise<KeyFile> {
  let buf: Uint8Array;
  try {
    buf = await fsp.readFile(path);
  } catch (e) {
    throw new FileError(`cannot read key file ${path}: ${reason(e)}`);
  }
  // keys.ts: the JSON's structure scanned, "k" from the file's bytes to der.ts's strict
  // constant-time base64url (no JSON.parse, no JavaScript string of the key), then wiped
  try {
    return parseAeadKeyFile(buf, path);
  } finally {
    buf.fill(0);
  }
}

async function makeAead(alg: AlgorithmInfo, key: Uint8Array): Promise<Aead> {
  const factory = await loadAeadFactory(alg.name);
  if (!factory) throw new Failure(`${alg.name} is not available in this build of ctkit`);
  return factory(key);
}

/** --jobs: a number of workers, or undefined (automatic). */
export function parseJobs(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(v) || Number(v) > 256) throw new UsageError(`--jobs takes a number of workers from 1 to 256, got '${v}'`);
  return Number(v);
}

/** Inputs smaller than this are sealed on this thread unless --jobs says otherwise: starting workers costs more. */
export const WORKERS_FROM = 16 << 20;

/** Without --jobs: every core, except for a file known to be small. */
export function autoJobs(size: number | undefined): number {
  if (size !== undefined && size < WORKERS_FROM) return 1;
  return Math.max(1, availableParallelism());
}

/** Where batches are sealed or opened: this thread's AEAD, and with --jobs N > 1 a pool of N − 1 workers. */
export interface Ciphers {
  readonly aead: Aead;
  /** the workers once they have all started (undefined until then, and with --jobs 1); throws if they could not start */
  pool(): BatchCipher | undefined;
}

export interface Cipher {
  cipher: Ciphers;
  dispose(): Promise<void>;
}

/**
 * An AEAD object on this thread and, for jobs > 1, jobs − 1 workers holding the key, started in
 * the background (this thread does not wait for them). Wipes `key`.
 */
export async function makeCipher(alg: AlgorithmInfo, key: Uint8Array, jobs: number): Promise<Cipher> {
  let aead: Aead;
  try {
    aead = await makeAead(alg, key);
  } catch (e) {
    key.fill(0);
    throw e;
  }
  if (jobs <= 1) {
    key.fill(0);
    return { cipher: { aead, pool: () => undefined }, dispose: async () => aead.dispose() };
  }
  let ready: BatchCipher | undefined;
  let failed: { error: unknown } | undefined;
  // the pool copies the key when it is created; this copy lives only until then
  const copy = copyBytes(key); // not slice(): a view on a Buffer
  key.fill(0);
  const starting = import('./workers.js').then(({ createNodeWorkerPool }) => createNodeWorkerPool(alg.name, copy, jobs - 1)).finally(() => copy.fill(0));
  starting.then(
    (p) => void (ready = p),
    (error) => void (failed = { error }),
  );
  const pool = () => {
    if (failed) throw failed.error;
    return ready;
  };
  const dispose = async () => {
    aead.dispose();
    const p = await starting.catch(() => undefined);
    await p?.dispose();
  };
  return { cipher: { aead, pool }, dispose };
}

/** Buffers of one capacity (a batch and its tags), reused; what they held is wiped by wipe() at the end. */
class Buffers {
  readonly #free: Uint8Array[] = [];
  constructor(readonly capacity: number) {}
  take(): Uint8Array {
    return this.#free.pop() ?? new Uint8Array(this.capacity);
  }
  /** b's whole buffer is free again (a view of it, or a buffer that came back from a worker); one too small is wiped and dropped. */
  give(b: Uint8Array): void {
    if (b.buffer.byteLength < this.capacity || !(b.buffer instanceof ArrayBuffer)) return void b.fill(0);
    this.#free.push(b.byteOffset === 0 && b.length === b.buffer.byteLength ? b : new Uint8Array(b.buffer));
  }
  wipe(): void {
    for (const b of this.#free) b.fill(0);
  }
}

interface Chunk {
  buf: Uint8Array;
  n: number;
}

/** A batch's result to be written in its turn; settled once it can be written (or has failed). */
interface Result {
  promise: Promise<Uint8Array>;
  settled: boolean;
}

function result(promise: Promise<Uint8Array>): Result {
  const r: Result = { promise, settled: false };
  promise.then(
    () => void (r.settled = true),
    () => void (r.settled = true),
  );
  return r;
}

/**
 * Seals (or opens) everything `input` has left into `out`, after the header: reads of `units`
 * whole units (plaintext segments, or sealed segments), each known not to be the last once the
 * next read has returned data; results written in order.
 */
export async function pipeline(dir: 'seal' | 'open', input: Pick<Input, 'readFull' | 'bytesRead'> & { readonly size?: number }, out: Output, cipher: Ciphers, p: SegmentParams, progress: Progress): Promise<void> {
  const S = p.segmentSize;
  const T = p.alg.tagLength;
  const unit = dir === 'seal' ? S : S + T;
  // a file known to be smaller than a batch gets buffers of its size (a few 4 MiB buffers to
  // zero at the end cost more than sealing a small file); one that grows meanwhile is still read
  // whole, in more batches
  const left = input.size === undefined ? Number.POSITIVE_INFINITY : Math.max(0, input.size - input.bytesRead);
  const units = Math.max(1, Math.min(Math.floor(CHUNK / S), Math.ceil(left / unit)));
  const R = units * unit; // bytes per read
  const bufs = new Buffers(units * (S + T));
  const aead = cipher.aead;

  // reads, one after the other (one file position), queued ahead
  let chain: Promise<unknown> = Promise.resolve();
  const reads: Promise<Chunk>[] = [];
  const readNext = () => {
    const buf = bufs.take();
    const r = chain
      .then(() => input.readFull(buf, 0, R))
      .then(
        (n) => ({ buf, n }),
        (e) => {
          buf.fill(0);
          throw e;
        },
      );
    chain = r;
    r.catch(() => undefined);
    reads.push(r);
  };
  // writes, one after the other, each buffer reused once it is written
  let wchain: Promise<void> = Promise.resolve();
  const writes: Promise<void>[] = [];
  const write = async (b: Uint8Array) => {
    const w = wchain.then(() => out.write([b])).finally(() => bufs.give(b));
    wchain = w;
    w.catch(() => undefined);
    writes.push(w);
    while (writes.length > WRITES_QUEUED) await writes.shift();
  };
  // results in order, this thread's and the workers' (a failed batch: a rejection in its place,
  // so what authenticated before it still goes out first)
  const results: Result[] = [];
  /** Writes the results that are ready, in order, and waits for the oldest while more than `keep` are left. */
  const drain = async (keep: number) => {
    while (results.length > keep || (results.length > 0 && results[0].settled)) await write(await results.shift()!.promise);
  };
  let atPool = 0; // batches sent to the workers and not back yet
  let index = 0;
  /** Seals or opens `data`, a view at the start of a buffer of ours, in place; its result goes out. */
  const batch = async (data: Uint8Array, final: boolean) => {
    const first = index;
    index += final ? 0 : data.length / unit;
    const pool = cipher.pool();
    const limit = pool ? Math.max(1, pool.concurrency) * INFLIGHT_PER_WORKER : 0;
    if (pool && atPool < limit) {
      // the buffer moves to a worker and comes back with the result in it
      atPool++;
      const r = dir === 'seal' ? pool.sealBatch(p, data, first, final) : pool.openBatch(p, data, first, final);
      results.push(result(r.finally(() => atPool--)));
      await drain(limit + RESULTS_AHEAD);
      return;
    }
    // this thread: there are no workers (yet), or they have enough in flight
    const room = new Uint8Array(data.buffer, 0, bufs.capacity);
    try {
      results.push(result(Promise.resolve(dir === 'seal' ? sealBatch(aead, p, data, first, final, room) : openBatch(aead, p, data, first, final, room))));
    } catch (e) {
      bufs.give(room);
      results.push(result(Promise.reject(e)));
      await drain(0);
    }
    if (!pool) return drain(0);
    // workers' results and finished reads arrive as events: let them in before the next batch
    await new Promise<void>((resolve) => setImmediate(resolve));
    await drain(limit + RESULTS_AHEAD);
  };

  try {
    for (let i = 0; i <= READ_AHEAD; i++) readNext();
    for (;;) {
      const cur = await reads.shift()!;
      readNext();
      let last: boolean;
      try {
        last = cur.n < R || (await reads[0]).n === 0;
      } catch (e) {
        bufs.give(cur.buf);
        throw e;
      }
      if (!last) {
        await batch(cur.buf.subarray(0, cur.n), false);
      } else {
        // whole units but the last, then the last alone as the final segment (the framing of
        // ctkit/stream: a full last unit is the final one; opening releases the ones before it)
        const split = cur.n > 0 ? Math.floor((cur.n - 1) / unit) * unit : 0;
        // the final unit gets a buffer of its own first: the batch before it may move to a worker
        const tail = bufs.take();
        tail.set(cur.buf.subarray(split, cur.n));
        try {
          if (split > 0) await batch(cur.buf.subarray(0, split), false);
          else bufs.give(cur.buf);
        } catch (e) {
          bufs.give(tail);
          throw e;
        }
        await batch(tail.subarray(0, cur.n - split), true);
        break;
      }
      progress.update(input.bytesRead);
    }
    await drain(0);
    while (writes.length) await writes.shift();
    progress.update(input.bytesRead);
  } catch (e) {
    // what authenticated before the failure goes out, in order, before the error is reported;
    // results still to come are wiped when they arrive
    for (const r of results.splice(0))
      void r.promise.then(
        (b) => b.fill(0),
        () => undefined,
      );
    await wchain.catch(() => undefined);
    throw e;
  } finally {
    // reads still running (past the end, or after an error): their buffers come back to be wiped
    for (const r of await Promise.allSettled(reads.splice(0))) if (r.status === 'fulfilled') bufs.give(r.value.buf);
    bufs.wipe();
  }
}

/** Reads the header of a sealed input: the parameters, or a StreamFormatError. */
async function readHeader(input: Input, alg: AlgorithmInfo): Promise<SegmentParams> {
  const hb = new Uint8Array(HEADER_FIXED + 32);
  const reader = new HeaderReader(alg, undefined);
  const n = await input.readFull(hb, 0, HEADER_FIXED);
  let h = reader.feed(hb.subarray(0, n));
  if (!h && n === HEADER_FIXED) {
    // feed() checked the fixed part: the id names an algorithm
    const len = headerLength(algorithmById(hb[5])!);
    const m = await input.readFull(hb, HEADER_FIXED, len - HEADER_FIXED);
    h = reader.feed(hb.subarray(HEADER_FIXED, HEADER_FIXED + m));
  }
  if (!h) throw new StreamFormatError(n > 0 ? 'truncated: the stream ends inside its header' : 'empty input: not a ctkit sealed stream');
  return h.params;
}

export interface SealOptions {
  keyPath: string;
  alg?: string;
  input?: string;
  output?: string;
  force?: boolean;
  /** workers; undefined: automatic */
  jobs?: number;
}

export async function sealFile(o: SealOptions): Promise<void> {
  const kf = await readKeyFile(o.keyPath);
  try {
    if (o.alg !== undefined && o.alg !== kf.alg.name) {
      if (!algorithmByName(o.alg)) throw new UsageError(`unknown AEAD '${o.alg}' (choose one of ${algNames()})`);
      throw new UsageError(`the key in ${o.keyPath} is for ${kf.alg.name}, not ${o.alg}`);
    }
  } catch (e) {
    kf.key.fill(0);
    throw e;
  }
  const input = await Input.open(o.input).catch((e) => {
    kf.key.fill(0);
    throw e;
  });
  let out: Output | undefined;
  let c: Cipher | undefined;
  const progress = new Progress(input.size, 'sealing');
  try {
    out = await openOutput(o.output, { force: o.force, binary: true });
    c = await makeCipher(kf.alg, kf.key, o.jobs ?? autoJobs(input.size));
    const { header, params } = newStreamParams(kf.alg);
    await out.write([header]);
    await pipeline('seal', input, out, c.cipher, params, progress);
    await out.commit();
  } catch (e) {
    await out?.abort();
    throw e;
  } finally {
    kf.key.fill(0);
    progress.end();
    await input.close();
    await c?.dispose();
  }
}

export interface OpenOptions {
  keyPath: string;
  input?: string;
  output?: string;
  force?: boolean;
  jobs?: number;
}

export async function openFile(o: OpenOptions): Promise<void> {
  const kf = await readKeyFile(o.keyPath);
  const input = await Input.open(o.input).catch((e) => {
    kf.key.fill(0);
    throw e;
  });
  let out: Output | undefined;
  let c: Cipher | undefined;
  const progress = new Progress(input.size, 'opening');
  try {
    out = await openOutput(o.output, { force: o.force });
    c = await makeCipher(kf.alg, kf.key, o.jobs ?? autoJobs(input.size));
    const params = await readHeader(input, kf.alg);
    await pipeline('open', input, out, c.cipher, params, progress);
    await out.commit();
  } catch (e) {
    await out?.abort();
    if (e instanceof AuthenticationError) {
      const already = out?.streaming && out.written > 0 ? `; ${out.written} bytes of authenticated plaintext before it were already written to stdout` : '; nothing was written';
      if (e instanceof SegmentAuthenticationError && !/^truncated/.test(e.message)) {
        throw new Failure(`segment ${e.segment} failed authentication: the file is damaged, truncated, reordered or spliced, or the key is wrong${already}`);
      }
      throw new Failure(`${e.message.replace(/stream/g, 'file')}${already}`);
    }
    throw e;
  } finally {
    kf.key.fill(0);
    progress.end();
    await input.close();
    await c?.dispose();
  }
}

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
import { SegmentAuthenticationError, type SegmentParams, openBatch, openSpaced, sealBatch, sealSpaced } from '../stream/segments.js';
import { ARENA, type Arena } from '../engine/kernel.js';
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

/**
 * Regions of kernel memory (an Arena) of one capacity, all made at the start so that the memory
 * does not grow while reads into them are in flight; take() returns -1 when none is free (the
 * batch then takes a plain buffer).
 */
class Regions {
  readonly #free: number[] = [];
  readonly #all: number[] = [];
  readonly generation: number;
  constructor(
    readonly arena: Arena,
    readonly capacity: number,
    count: number,
  ) {
    for (let i = 0; i < count; i++) this.#all.push(arena.allocRegion(capacity));
    this.#free.push(...this.#all);
    this.generation = arena.generation;
  }
  take(): number {
    return this.#free.pop() ?? -1;
  }
  /** The region is free again; what it held is wiped by free() at the end (as Buffers). */
  give(ptr: number): void {
    this.#free.push(ptr);
  }
  /** The region's bytes; throws if the memory grew since the regions were made (a read in flight may have been lost). */
  view(ptr: number): Uint8Array {
    if (this.arena.generation !== this.generation) throw new Failure('internal error: kernel memory grew during the file path');
    return this.arena.u8.subarray(ptr, ptr + this.capacity);
  }
  /** Wipes and frees them all (every one must have been given back). */
  free(): void {
    for (const ptr of this.#all) this.arena.freeRegion(ptr, this.capacity);
    this.#free.length = this.#all.length = 0;
  }
}

/** A read's data: in a plain buffer (`buf`), or in a region of kernel memory (`region` ≥ 0). */
interface Chunk {
  buf: Uint8Array | undefined;
  region: number;
  n: number;
}

/** A batch's result to be written in its turn; settled once it can be written (or has failed). */
interface Result {
  promise: Promise<Written>;
  settled: boolean;
}

/** What a batch gives to write: the bytes, and what to do once they are written. */
interface Written {
  chunks: Uint8Array[];
  release(): void;
}

function result(promise: Promise<Written>): Result {
  const r: Result = { promise, settled: false };
  promise.then(
    () => void (r.settled = true),
    () => void (r.settled = true),
  );
  return r;
}

/** A Written for bytes that live in a plain buffer of `bufs` (wiped: given back). */
const plainWritten = (bufs: Buffers, b: Uint8Array): Written => ({ chunks: [b], release: () => bufs.give(b) });

/** Regions for a pipeline: reads ahead, the batch at hand, and writes queued. */
const REGIONS = READ_AHEAD + 1 + WRITES_QUEUED + 2;

/**
 * Seals (or opens) everything `input` has left into `out`, after the header: reads of `units`
 * whole units (plaintext segments, or sealed segments), each known not to be the last once the
 * next read has returned data; results written in order.
 *
 * The batches this thread takes run in kernel memory when the AEAD offers it (ARENA, on
 * WebAssembly): a seal's read lands with room for each segment's tag (sealSpaced), an open's
 * plaintext is written from where it was opened (openSpaced), so no byte is copied between the
 * read and the write. Batches for the workers are plain buffers, which move to them.
 */
export async function pipeline(
  dir: 'seal' | 'open',
  input: Pick<Input, 'readFull' | 'bytesRead'> & Partial<Pick<Input, 'readFullInto'>> & { readonly size?: number },
  out: Output,
  cipher: Ciphers,
  p: SegmentParams,
  progress: Progress,
): Promise<void> {
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
  const arena = (aead as Partial<Record<typeof ARENA, () => Arena | undefined>>)[ARENA]?.();
  const regions = arena ? new Regions(arena, units * (S + T), REGIONS) : undefined;

  let atPool = 0; // batches sent to the workers and not back yet
  /** The workers' batch limit now (0: no workers yet); throws if they could not start. */
  const poolLimit = () => {
    const pool = cipher.pool();
    return pool ? Math.max(1, pool.concurrency) * INFLIGHT_PER_WORKER : 0;
  };

  /** Fills the views in order (fewer bytes only at the input's end). */
  const readInto = async (views: Uint8Array[]): Promise<number> => {
    if (input.readFullInto) return input.readFullInto(views);
    let got = 0;
    for (const v of views) {
      const n = await input.readFull(v);
      got += n;
      if (n < v.length) break;
    }
    return got;
  };
  // reads, one after the other (one file position), queued ahead: into a region when the AEAD
  // has kernel memory (a batch for the workers is copied out of it: a copy on this thread costs
  // a tenth of sealing it here), else a plain buffer
  let chain: Promise<unknown> = Promise.resolve();
  const reads: Promise<Chunk>[] = [];
  let plainAhead = 0; // reads into plain buffers, for the workers, not yet batched
  const readNext = () => {
    const region = regions && atPool + plainAhead >= poolLimit() ? regions.take() : -1;
    const buf = region < 0 ? bufs.take() : undefined;
    if (buf) plainAhead++;
    const into = (): Promise<number> => {
      if (buf) return input.readFull(buf, 0, R);
      const v = regions!.view(region);
      // sealing: each segment's plaintext with room for its tag after it
      if (dir === 'seal') return readInto(Array.from({ length: units }, (_, i) => v.subarray(i * (S + T), i * (S + T) + S)));
      return input.readFull(v, 0, R);
    };
    const r = chain.then(into).then(
      (n): Chunk => ({ buf, region, n }),
      (e) => {
        release({ buf, region, n: 0 });
        throw e;
      },
    );
    chain = r;
    r.catch(() => undefined);
    reads.push(r);
  };
  /** A region's chunk moved to a plain buffer, contiguous (a seal's segments gathered), for the workers. */
  const toPlain = (c: Chunk): Chunk => {
    const buf = bufs.take();
    const v = regions!.view(c.region);
    if (dir === 'open') buf.set(v.subarray(0, c.n));
    else for (let o = 0, i = 0; o < c.n; o += S, i++) buf.set(v.subarray(i * (S + T), i * (S + T) + Math.min(S, c.n - o)), o);
    regions!.give(c.region);
    return { buf, region: -1, n: c.n };
  };
  /** A chunk's buffer is free again. */
  const release = (c: Chunk) => {
    if (c.buf) bufs.give(c.buf);
    else regions!.give(c.region);
  };
  // writes, one after the other, each buffer reused once it is written
  let wchain: Promise<void> = Promise.resolve();
  const writes: Promise<void>[] = [];
  const write = async (w: Written) => {
    const done = wchain.then(() => out.write(w.chunks)).finally(() => w.release());
    wchain = done;
    done.catch(() => undefined);
    writes.push(done);
    while (writes.length > WRITES_QUEUED) await writes.shift();
  };
  // results in order, this thread's and the workers' (a failed batch: a rejection in its place,
  // so what authenticated before it still goes out first)
  const results: Result[] = [];
  /** Writes the results that are ready, in order, and waits for the oldest while more than `keep` are left. */
  const drain = async (keep: number) => {
    while (results.length > keep || (results.length > 0 && results[0].settled)) await write(await results.shift()!.promise);
  };
  /** After a batch on this thread: with no workers (limit 0), everything out; else let the workers' results and finished reads in (they arrive as events) before the next batch. */
  const afterThisThread = async (limit: number) => {
    if (limit === 0) return drain(0);
    await new Promise<void>((resolve) => setImmediate(resolve));
    await drain(limit + RESULTS_AHEAD);
  };
  let index = 0;
  /** A batch of this thread in a region: `n` bytes read there; sealed or opened in place, then written from there. */
  const regionBatch = async (region: number, n: number, final: boolean) => {
    const first = index;
    index += final ? 0 : n / unit;
    const v = regions!.view(region);
    // opening the final read: the units before the last one are a batch of their own, released
    // even when the final one fails (the framing of ctkit/stream, as for a plain buffer)
    const split = dir === 'open' && final && n > 0 ? Math.floor((n - 1) / unit) * unit : 0;
    // the region is given back once every result in it is written
    let owners = 0;
    const own = (chunks: Uint8Array[]): Written => {
      owners++;
      return { chunks, release: () => void (--owners === 0 && regions!.give(region)) };
    };
    try {
      if (dir === 'seal') results.push(result(Promise.resolve(own([sealSpaced(aead, p, v, n, first, final)]))));
      else {
        if (split > 0) results.push(result(Promise.resolve(own(openSpaced(aead, p, v.subarray(0, split), first, false)))));
        results.push(result(Promise.resolve(own(openSpaced(aead, p, v.subarray(split, n), first + split / unit, final)))));
      }
    } catch (e) {
      if (owners === 0) regions!.give(region);
      results.push(result(Promise.reject(e)));
      await drain(0);
    }
    await afterThisThread(poolLimit());
  };
  /** Seals or opens `data`, a view at the start of a plain buffer of ours, in place; its result goes out. */
  const batch = async (data: Uint8Array, final: boolean) => {
    const first = index;
    index += final ? 0 : data.length / unit;
    const pool = cipher.pool();
    const limit = pool ? Math.max(1, pool.concurrency) * INFLIGHT_PER_WORKER : 0;
    if (pool && atPool < limit) {
      // the buffer moves to a worker and comes back with the result in it
      atPool++;
      const r = dir === 'seal' ? pool.sealBatch(p, data, first, final) : pool.openBatch(p, data, first, final);
      results.push(result(r.then((b) => plainWritten(bufs, b)).finally(() => atPool--)));
      await drain(limit + RESULTS_AHEAD);
      return;
    }
    // this thread: there are no workers (yet), or they have enough in flight
    const room = new Uint8Array(data.buffer, 0, bufs.capacity);
    try {
      const b = dir === 'seal' ? sealBatch(aead, p, data, first, final, room) : openBatch(aead, p, data, first, final, room);
      results.push(result(Promise.resolve(plainWritten(bufs, b))));
    } catch (e) {
      bufs.give(room);
      results.push(result(Promise.reject(e)));
      await drain(0);
    }
    await afterThisThread(limit);
  };

  try {
    for (let i = 0; i <= READ_AHEAD; i++) readNext();
    for (;;) {
      let cur = await reads.shift()!;
      if (cur.buf) plainAhead--;
      readNext();
      let last: boolean;
      try {
        last = cur.n < R || (await reads[0]).n === 0;
      } catch (e) {
        release(cur);
        throw e;
      }
      if (cur.region >= 0 && !last && atPool < poolLimit()) cur = toPlain(cur);
      if (cur.region >= 0) {
        // a region: this thread, the final segment in place too
        await regionBatch(cur.region, cur.n, last);
        if (last) break;
      } else if (!last) {
        await batch(cur.buf!.subarray(0, cur.n), false);
      } else {
        const buf = cur.buf!;
        // whole units but the last, then the last alone as the final segment (the framing of
        // ctkit/stream: a full last unit is the final one; opening releases the ones before it)
        const split = cur.n > 0 ? Math.floor((cur.n - 1) / unit) * unit : 0;
        // the final unit gets a buffer of its own first: the batch before it may move to a worker
        const tail = bufs.take();
        tail.set(buf.subarray(split, cur.n));
        try {
          if (split > 0) await batch(buf.subarray(0, split), false);
          else bufs.give(buf);
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
        (w) => {
          for (const c of w.chunks) c.fill(0);
          w.release();
        },
        () => undefined,
      );
    await wchain.catch(() => undefined);
    throw e;
  } finally {
    // reads still running (past the end, or after an error): their buffers come back to be wiped
    for (const r of await Promise.allSettled(reads.splice(0))) if (r.status === 'fulfilled') release(r.value);
    bufs.wipe();
    regions?.free();
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

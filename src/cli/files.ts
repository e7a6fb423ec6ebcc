// `ctkit keygen --aead`, `ctkit seal`, `ctkit open`: symmetric key files, and the sealed-file
// format of ctkit/stream (format 1, docs/stream-format.md) over files, stdin and stdout.
//
// The file path is the library's stream pump fed with large reads: CHUNK bytes per read into two
// buffers used in turn, so the next read runs (in libuv's thread pool) while this one is sealed
// or opened, and each batch goes out in one write. With --jobs N > 1 the segments are sealed and
// opened on a pool of N workers, and the output is byte for byte the same.
//
// What `open` promises: with -o, the file appears only when every segment authenticated (it is
// written under a temporary name and renamed). To stdout, plaintext goes out a batch at a time,
// each batch only after all of its segments authenticated; a stream that is damaged or cut short
// later is exit status 1 with a message saying how many authenticated bytes were already written,
// so a consumer that must not act on a prefix checks the exit status (or uses -o).

import { availableParallelism } from 'node:os';
import type { Aead } from '../aead/types.js';
import { unbase64url } from '../ec/der.js';
import { AuthenticationError } from '../errors.js';
import { ALGORITHMS, type AlgorithmInfo, algorithmByName } from '../stream/format.js';
import { SegmentAuthenticationError } from '../stream/segments.js';
import { type BatchCipher, type Pump, createOpenPump, createSealPump } from '../stream/web.js';
import { Failure, FileError, UsageError } from './errors.js';
import { Input, type Output, Progress, createSecretFile, openOutput, reason } from './io.js';
import { promises as fsp } from 'node:fs';

/** Bytes per read: 64 segments of 64 KiB. */
export const CHUNK = 4 << 20;

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
  let text: string;
  try {
    text = await fsp.readFile(path, 'utf8');
  } catch (e) {
    throw new FileError(`cannot read key file ${path}: ${reason(e)}`);
  }
  let jwk: { kty?: unknown; alg?: unknown; k?: unknown };
  try {
    jwk = JSON.parse(text);
  } catch {
    throw new Failure(`invalid key: ${path} is not a ctkit key file (expected a JSON Web Key from \`ctkit keygen --aead\`)`);
  }
  if (jwk === null || typeof jwk !== 'object' || jwk.kty !== 'oct' || typeof jwk.k !== 'string' || typeof jwk.alg !== 'string') {
    throw new Failure(`invalid key: ${path} is not a symmetric key file (need "kty": "oct", "alg" and "k")`);
  }
  const alg = algorithmByName(jwk.alg);
  if (!alg) throw new Failure(`invalid key: ${path} names the unknown algorithm '${jwk.alg}' (ctkit has ${algNames()})`);
  // the library's strict base64url: Buffer's decoder would also take unused bits that are not
  // zero (one key, several files) and stray padding
  let key: Uint8Array;
  try {
    key = unbase64url(jwk.k, `in ${path}, "k"`);
  } catch (e) {
    throw new Failure(`invalid key: ${(e as Error).message}`);
  }
  if (key.length !== alg.keyLength) {
    key.fill(0);
    throw new Failure(`invalid key: a ${alg.name} key is ${alg.keyLength} bytes, the one in ${path} is ${key.length}`);
  }
  return { alg, key };
}

async function makeAead(alg: AlgorithmInfo, key: Uint8Array): Promise<Aead> {
  const mod = (await import('../aead/index.js')) as unknown as Record<string, unknown>;
  const factory = mod[alg.factory] as ((key: Uint8Array) => Aead) | undefined;
  if (typeof factory !== 'function') throw new Failure(`${alg.name} is not available in this build of ctkit`);
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
function autoJobs(size: number | undefined): number {
  if (size !== undefined && size < WORKERS_FROM) return 1;
  return Math.max(1, availableParallelism());
}

interface Cipher {
  cipher: Aead | BatchCipher;
  dispose(): Promise<void>;
}

/** jobs = 1: an AEAD object on this thread; more: a worker pool holding the key. Wipes `key`. */
async function makeCipher(alg: AlgorithmInfo, key: Uint8Array, jobs: number): Promise<Cipher> {
  try {
    if (jobs > 1) {
      const { createNodeWorkerPool } = await import('./workers.js');
      const pool = await createNodeWorkerPool(alg.name, key, jobs);
      return { cipher: pool, dispose: async () => { await pool.dispose(); } };
    }
    const aead = await makeAead(alg, key);
    return { cipher: aead, dispose: async () => aead.dispose() };
  } finally {
    key.fill(0);
  }
}

/** Feeds `input` through `pump` into `out`: two read buffers in turn, one write per read. */
async function run(input: Input, pump: Pump, out: Output, progress: Progress): Promise<void> {
  let cur = Buffer.allocUnsafeSlow(CHUNK);
  let next = Buffer.allocUnsafeSlow(CHUNK);
  const pending: Uint8Array[] = [];
  const emit = (b: Uint8Array) => {
    pending.push(b);
  };
  const flush = async () => {
    if (pending.length) await out.write(pending.splice(0));
  };
  try {
    let n = await input.readFull(cur);
    while (n > 0) {
      const ahead = n === CHUNK ? input.readFull(next) : Promise.resolve(0);
      try {
        await pump.write(cur.subarray(0, n), emit);
        await flush();
      } catch (e) {
        await ahead.catch(() => undefined);
        throw e;
      }
      progress.update(input.bytesRead);
      n = await ahead;
      [cur, next] = [next, cur];
    }
    await pump.close(emit);
    await flush();
  } catch (e) {
    pump.cancel();
    // what the pump emitted is complete (opening: authenticated) output; it goes out in order
    // before the error is reported, whatever the number of workers
    await flush().catch(() => undefined);
    for (const p of pending) p.fill(0);
    throw e;
  } finally {
    cur.fill(0);
    next.fill(0);
  }
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
    out = await openOutput(o.output, { force: o.force, binary: true, command: 'seal' });
    c = await makeCipher(kf.alg, kf.key, o.jobs ?? autoJobs(input.size));
    await run(input, createSealPump(c.cipher, { yieldEvery: 0 }), out, progress);
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
    out = await openOutput(o.output, { force: o.force, command: 'open' });
    c = await makeCipher(kf.alg, kf.key, o.jobs ?? autoJobs(input.size));
    await run(input, createOpenPump(c.cipher, { yieldEvery: 0 }), out, progress);
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

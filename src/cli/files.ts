// `ctkit keygen --aead`, `ctkit seal`, `ctkit open`: symmetric key files and the segmented
// sealed-file format of stream-format.ts, in constant memory.

import { promises as fsp } from 'node:fs';
import type { Aead } from '../aead/types.js';
import { AuthenticationError } from '../errors.js';
import { UsageError, Failure } from './errors.js';
import { AtomicOutput, ChunkReader, Progress, createSecretFile, inputSize, openInput, writeAll } from './io.js';
import {
  ALGORITHMS,
  FormatError,
  HEADER_FIXED,
  SEGMENT_SIZE,
  algorithmByName,
  encodeHeader,
  parseHeaderStart,
  prefixLength,
  segmentNonce,
  type AlgorithmInfo,
} from './stream-format.js';

const b64url = (b: Uint8Array) => Buffer.from(b).toString('base64url');

/** A symmetric key file: a JWK (RFC 7517) octet key naming its algorithm. */
interface KeyFile {
  alg: AlgorithmInfo;
  key: Uint8Array;
}

export async function keygenAead(algName: string, out: string): Promise<void> {
  const alg = algorithmByName(algName);
  if (!alg) throw new UsageError(`unknown AEAD '${algName}' (choose one of ${ALGORITHMS.map((a) => a.name).join(', ')})`);
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
    throw new UsageError(`cannot read key file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let jwk: { kty?: unknown; alg?: unknown; k?: unknown };
  try {
    jwk = JSON.parse(text);
  } catch {
    throw new UsageError(`${path} is not a ctkit key file (expected a JSON Web Key from \`ctkit keygen --aead\`)`);
  }
  if (jwk.kty !== 'oct' || typeof jwk.k !== 'string' || typeof jwk.alg !== 'string') {
    throw new UsageError(`${path} is not a symmetric key file (need "kty": "oct", "alg" and "k")`);
  }
  const alg = algorithmByName(jwk.alg);
  if (!alg) throw new UsageError(`${path}: unknown algorithm '${jwk.alg}'`);
  if (!/^[A-Za-z0-9_-]*$/.test(jwk.k)) throw new UsageError(`${path}: "k" is not base64url`);
  const key = new Uint8Array(Buffer.from(jwk.k, 'base64url'));
  if (key.length !== alg.keyLength) throw new UsageError(`${path}: a ${alg.name} key must be ${alg.keyLength} bytes, this one is ${key.length}`);
  return { alg, key };
}

async function makeAead(alg: AlgorithmInfo, key: Uint8Array): Promise<Aead> {
  const mod = (await import('../aead/index.js')) as unknown as Record<string, unknown>;
  const factory = mod[alg.factory] as ((key: Uint8Array) => Aead) | undefined;
  if (typeof factory !== 'function') throw new UsageError(`${alg.name} is not available in this build of ctkit`);
  return factory(key);
}

export interface SealOptions {
  keyPath: string;
  alg?: string;
  input?: string;
  output?: string;
}

export async function sealFile(o: SealOptions): Promise<void> {
  const kf = await readKeyFile(o.keyPath);
  if (o.alg !== undefined && o.alg !== kf.alg.name) {
    if (!algorithmByName(o.alg)) throw new UsageError(`unknown AEAD '${o.alg}' (choose one of ${ALGORITHMS.map((a) => a.name).join(', ')})`);
    throw new UsageError(`the key in ${o.keyPath} is for ${kf.alg.name}, not ${o.alg}`);
  }
  const alg = kf.alg;
  const aead = await makeAead(alg, kf.key);
  kf.key.fill(0);
  const reader = new ChunkReader(openInput(o.input));
  const toStdout = o.output === undefined || o.output === '-';
  const out = toStdout ? undefined : await AtomicOutput.create(o.output);
  const progress = new Progress(await inputSize(o.input), 'sealing');
  try {
    const prefix = crypto.getRandomValues(new Uint8Array(prefixLength(alg)));
    const header = encodeHeader(alg, prefix);
    const put = async (b: Uint8Array) => (out ? out.write(b) : writeAll(process.stdout, b));
    await put(header);
    let seg = await reader.read(SEGMENT_SIZE);
    for (let i = 0; ; i++) {
      const next = seg.length === SEGMENT_SIZE ? await reader.read(SEGMENT_SIZE) : new Uint8Array(0);
      const final = next.length === 0;
      await put(aead.seal(segmentNonce(alg, prefix, i, final), seg, header));
      seg.fill(0);
      progress.update(reader.bytesRead);
      if (final) break;
      seg = next;
    }
    await out?.commit();
  } catch (e) {
    await out?.abort();
    throw e;
  } finally {
    progress.end();
    aead.dispose();
  }
}

export interface OpenOptions {
  keyPath: string;
  input?: string;
  output?: string;
}

export async function openFile(o: OpenOptions): Promise<void> {
  const kf = await readKeyFile(o.keyPath);
  const reader = new ChunkReader(openInput(o.input));
  let aead: Aead | undefined;
  let out: AtomicOutput | undefined;
  const progress = new Progress(await inputSize(o.input), 'opening');
  try {
    const start = await reader.read(HEADER_FIXED);
    let parsed;
    try {
      parsed = parseHeaderStart(start);
    } catch (e) {
      if (e instanceof FormatError) throw new Failure(e.message);
      throw e;
    }
    const { alg, segmentSize } = parsed;
    if (alg.id !== kf.alg.id) throw new Failure(`the file was sealed with ${alg.name}, but the key in ${o.keyPath} is for ${kf.alg.name}`);
    const prefix = await reader.read(prefixLength(alg));
    if (prefix.length !== prefixLength(alg)) throw new Failure('truncated header');
    const header = new Uint8Array(start.length + prefix.length);
    header.set(start);
    header.set(prefix, start.length);
    aead = await makeAead(alg, kf.key);
    kf.key.fill(0);
    out = await AtomicOutput.create(o.output);
    const sealedSize = segmentSize + alg.tagLength;
    let cur = await reader.read(sealedSize);
    if (cur.length < alg.tagLength) throw new Failure('truncated: no complete segment after the header');
    for (let i = 0; ; i++) {
      const next = cur.length === sealedSize ? await reader.read(sealedSize) : new Uint8Array(0);
      const final = next.length === 0;
      let plain: Uint8Array;
      try {
        plain = aead.open(segmentNonce(alg, prefix, i, final), cur, header);
      } catch (e) {
        if (e instanceof AuthenticationError) {
          throw new Failure(`segment ${i} failed authentication: the file is damaged, truncated, reordered or spliced, or the key is wrong; nothing was written`);
        }
        throw e;
      }
      await out.write(plain);
      plain.fill(0);
      progress.update(reader.bytesRead);
      if (final) break;
      if (next.length < alg.tagLength) throw new Failure(`truncated: segment ${i + 1} is shorter than a tag`);
      cur = next;
    }
    await out.commit();
  } catch (e) {
    await out?.abort();
    throw e;
  } finally {
    progress.end();
    aead?.dispose();
  }
}

// Batches of segments sealed and opened in place (the CLI's path, and the pool workers'): the
// same bytes as the format-1 model whether the output is the input's own buffer, above it or
// below it; a failed batch opened in place leaves no plaintext in the buffer; and the pool moves
// a view at the start of its buffer to the worker (sealed there in place, the result back in
// that buffer) while it copies any other view and leaves the caller's buffer alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { aesGcm, chacha20Poly1305, xchacha20Poly1305, type Aead } from '../src/aead/index.js';
import { ALGORITHMS, createWorkerPool, nodeWorkers } from '../src/stream/index.js';
import { newStreamParams } from '../src/stream/sealer.js';
import { SegmentAuthenticationError, type SegmentParams, openBatch, openSpaced, sealBatch, sealSpaced } from '../src/stream/segments.js';
import { ARENA, type Arena } from '../src/engine/kernel.js';
import { refSealStream } from '../src/ref/stream.js';
import { StateError } from '../src/errors.js';
import { Rng, hex } from './support/rng.js';
import { workerPreload } from './support/stryker-child.js';

const rng = new Rng(0xba7c4);
const FACTORIES: Record<string, (k: Uint8Array) => Aead> = {
  'chacha20-poly1305': chacha20Poly1305,
  'xchacha20-poly1305': xchacha20Poly1305,
  'aes-256-gcm': aesGcm,
};
const T = 16;

/** Copies `data` into a fresh buffer at offset `at`, with `room` bytes of buffer after its start. */
function placed(data: Uint8Array, at: number, room: number): Uint8Array {
  const buf = new Uint8Array(at + room + 8).fill(0xa5);
  buf.set(data, at);
  return buf.subarray(at, at + data.length);
}

/** Each shape of stream the batch tests cut: 3 AEADs × 3 segment sizes × 5 lengths, with the model's sealed body. */
function forEachShape(f: (c: { alg: string; S: number; k: number; rest: number; key: Uint8Array; aead: Aead; params: SegmentParams; plain: Uint8Array; body: Uint8Array }) => void): void {
  for (const alg of Object.keys(FACTORIES)) {
    const info = ALGORITHMS.find((a) => a.name === alg)!;
    for (const S of [16, 1000, 65536]) {
      const key = rng.bytes(32);
      const prefix = rng.bytes(info.nonceLength - 5);
      const aead = FACTORIES[alg](key);
      const { header, params } = newStreamParams(info, { segmentSize: S, noncePrefix: prefix });
      for (const [k, rest] of [
        [0, 0],
        [0, 1],
        [1, S],
        [3, S - 1],
        [4, 1],
      ] as const) {
        const plain = rng.bytes(k * S + rest);
        const body = refSealStream({ algorithm: alg, key, prefix, segmentSize: S }, plain).subarray(header.length);
        f({ alg, S, k, rest, key, aead, params, plain, body });
      }
      aead.dispose();
    }
  }
}

test('sealBatch / openBatch in place, above and below the input equal the model (3 AEADs, 3 segment sizes)', () => {
  const bad: string[] = [];
  forEachShape(({ S, k, rest, aead, params, plain, body, alg }) => {
    // batch A: the first k segments (not final); batch B: the rest, final (as a stream ends)
    const a = plain.subarray(0, k * S);
    const b = plain.subarray(k * S);
    const sealedA = body.subarray(0, k * (S + T));
    const sealedB = body.subarray(k * (S + T));
    for (const shift of [0, 3, 16, 40, -3, -40]) {
      const what = `${alg} S=${S} k=${k} rest=${rest} shift=${shift}`;
      for (const [part, first, final, expected] of [
        [a, 0, false, sealedA],
        [b, k, true, sealedB],
      ] as const) {
        if (!final && part.length === 0) continue;
        // seal: the output starts `shift` bytes after the input in the same buffer
        const at = 64;
        const src = placed(part, at, expected.length + 64);
        const out = new Uint8Array(src.buffer, at + shift, expected.length);
        const got = sealBatch(aead, params, src, first, final, out);
        if (hex(got) !== hex(expected)) bad.push(`${what} ${final ? 'B' : 'A'}: sealed bytes differ`);
        // open: the plaintext lands `shift` bytes after the sealed input
        const src2 = placed(expected, at, expected.length + 64);
        const out2 = new Uint8Array(src2.buffer, at + shift, part.length);
        const back = openBatch(aead, params, src2, first, final, out2);
        if (hex(back) !== hex(part)) bad.push(`${what} ${final ? 'B' : 'A'}: opened bytes differ`);
      }
    }
  });
  assert.deepEqual(bad, []);
});

/** A ChaCha20-Poly1305 stream of four 4 KiB segments (the last 100 bytes) sealed by the model, to damage. */
function fourSegments() {
  const info = ALGORITHMS.find((a) => a.name === 'chacha20-poly1305')!;
  const key = rng.bytes(32);
  const aead = chacha20Poly1305(key);
  const S = 4096;
  const { header, params } = newStreamParams(info, { segmentSize: S });
  const plain = rng.bytes(3 * S + 100);
  const sealed = refSealStream({ algorithm: info.name, key, prefix: header.subarray(10), segmentSize: S }, plain).subarray(header.length);
  return { aead, S, params, plain, sealed };
}

test('a batch that fails opening in place leaves none of its plaintext in the buffer', () => {
  const { aead, S, params, plain, sealed } = fourSegments();
  for (const damaged of [0, 2, 3]) {
    const buf = new Uint8Array(sealed.length);
    buf.set(sealed);
    buf[damaged * (S + T) + 7] ^= 1;
    assert.throws(
      () => openBatch(aead, params, buf, 0, true, buf),
      (e: unknown) => e instanceof SegmentAuthenticationError && e.segment === damaged,
    );
    // where the plaintext would have been: zeros; after it, the sealed bytes not yet overwritten
    assert.ok(
      buf.subarray(0, plain.length).every((x) => x === 0),
      `segment ${damaged}: plaintext left in the buffer`,
    );
    assert.deepEqual(buf.subarray(plain.length), sealed.subarray(plain.length));
  }
  aead.dispose();
});

test('sealSpaced / openSpaced (segments with room for their tags) equal the model, in plain and kernel memory', () => {
  const bad: string[] = [];
  forEachShape(({ S, k, rest, aead, params, plain, body, alg }) => {
    const arena = (aead as Partial<Record<typeof ARENA, () => Arena | undefined>>)[ARENA]?.();
    // batch A: the first k segments (not final), from segment 0; batch B: the rest, final;
    // batch C: the whole stream as one final batch
    for (const [part, first, final, expected] of [
      [plain.subarray(0, k * S), 0, false, body.subarray(0, k * (S + T))],
      [plain.subarray(k * S), k, true, body.subarray(k * (S + T))],
      [plain, 0, true, body],
    ] as const) {
      if (!final && part.length === 0) continue;
      const cap = expected.length + 40;
      const region = arena?.allocRegion(cap);
      for (const where of ['plain', 'kernel'] as const) {
        if (where === 'kernel' && region === undefined) continue; // (no kernel memory: the js backend, AES-GCM)
        const what = `${alg} S=${S} k=${k} rest=${rest} ${part === plain ? 'C' : final ? 'B' : 'A'} in ${where} memory`;
        const buf = where === 'plain' ? new Uint8Array(cap).fill(0xa5) : arena!.u8.subarray(region!, region! + cap).fill(0xa5);
        // the plaintext laid out segment by segment, S + T apart
        for (let o = 0, i = 0; o < part.length; o += S, i++) buf.set(part.subarray(o, Math.min(part.length, o + S)), i * (S + T));
        const sealed = sealSpaced(aead, params, buf, part.length, first, final);
        if (sealed.buffer !== buf.buffer || sealed.byteOffset !== buf.byteOffset) bad.push(`${what}: not in place`);
        if (hex(sealed) !== hex(expected)) bad.push(`${what}: sealed bytes differ`);
        if (buf[expected.length] !== 0xa5) bad.push(`${what}: wrote past the batch`);
        const pieces = openSpaced(aead, params, buf.subarray(0, expected.length), first, final);
        if (pieces.some((p, i) => p.buffer !== buf.buffer || p.byteOffset !== buf.byteOffset + i * (S + T))) bad.push(`${what}: a piece is not where its segment was`);
        if (hex(Buffer.concat(pieces)) !== hex(part)) bad.push(`${what}: opened bytes differ`);
      }
      if (region !== undefined) arena!.freeRegion(region, cap);
    }
  });
  assert.deepEqual(bad, []);
  const info = ALGORITHMS.find((a) => a.name === 'chacha20-poly1305')!;
  const aead = chacha20Poly1305(rng.bytes(32));
  const { params } = newStreamParams(info, { segmentSize: 1000 });
  assert.equal(sealSpaced(aead, params, new Uint8Array(2 * 1016), 2000, 0, false).length, 2032, 'a buffer just long enough');
  assert.equal(sealSpaced(aead, params, new Uint8Array(2 * 1016 + 500), 2000, 0, false).length, 2032, 'a longer one: the batch');
  assert.throws(() => sealSpaced(aead, params, new Uint8Array(2 * 1016 - 1), 2000, 0, false), /^RangeError: the buffer is too short for the batch$/, 'a buffer one byte short');
  assert.throws(() => sealSpaced(aead, params, new Uint8Array(4000), 1999, 0, false), /^RangeError: a batch that is not the last must hold whole segments$/);
  // an error that is not an authentication failure stays what it is (the batch still wiped)
  const sealed = sealSpaced(aead, params, new Uint8Array(2 * 1016), 2000, 0, false).slice();
  aead.dispose();
  assert.throws(() => openSpaced(aead, params, sealed, 0, false), StateError);
  assert.ok(
    sealed.every((x) => x === 0),
    'wiped',
  );
});

test('openSpaced: a failing segment wipes the whole batch, names the segment; truncation is named', () => {
  const { aead, S, params, sealed } = fourSegments();
  for (const damaged of [0, 2, 3]) {
    const buf = Uint8Array.from(sealed);
    buf[damaged * (S + T) + 7] ^= 1;
    assert.throws(
      () => openSpaced(aead, params, buf, 0, true),
      (e: unknown) => e instanceof SegmentAuthenticationError && e.segment === damaged,
    );
    assert.ok(
      buf.every((x) => x === 0),
      `segment ${damaged}: bytes left in the batch`,
    );
  }
  // a final segment shorter than its tag: truncated, named after the segments before it
  assert.throws(
    () => openSpaced(aead, params, Uint8Array.from(sealed.subarray(0, 2 * (S + T) + 15)), 5, true),
    (e: unknown) => e instanceof SegmentAuthenticationError && e.segment === 7 && /^truncated: segment 7 /.test((e as Error).message),
    'truncated',
  );
  // not final and not whole segments
  assert.throws(
    () => openSpaced(aead, params, Uint8Array.from(sealed.subarray(0, S + T + 1)), 0, false),
    (e: unknown) => e instanceof SegmentAuthenticationError && /^truncated/.test((e as Error).message),
  );
  aead.dispose();
});

test('the pool moves a view at the start of its buffer and seals it in place; other views are copied', async () => {
  const key = rng.bytes(32);
  const info = ALGORITHMS.find((a) => a.name === 'chacha20-poly1305')!;
  const aead = chacha20Poly1305(key);
  const pool = await createWorkerPool({ algorithm: info.name, key, workers: 2, spawn: nodeWorkers(Worker as never, { preload: workerPreload }) });
  try {
    const S = 65536;
    const { params } = newStreamParams(info, { segmentSize: S });
    const plain = rng.bytes(5 * S);
    const expected = sealBatch(aead, params, plain, 7, false);
    // at the start of a buffer with room for the tags: moved, sealed in place, back in that buffer
    const buf = new Uint8Array(expected.length + 100);
    buf.set(plain);
    const got = await pool.sealBatch(params, buf.subarray(0, plain.length), 7, false);
    assert.equal(buf.byteLength, 0, 'the buffer moved to the worker');
    assert.equal(hex(got), hex(expected));
    assert.equal(got.byteOffset, 0);
    assert.equal(got.buffer.byteLength, expected.length + 100, 'the result came back in the buffer that went out');
    const opened = await pool.openBatch(params, got, 7, false);
    assert.equal(hex(opened), hex(plain));
    assert.equal(opened.buffer.byteLength, expected.length + 100, 'opened in place too');
    // a view inside a buffer: copied, the caller's bytes untouched
    const big = new Uint8Array(plain.length + 10);
    big.set(plain, 10);
    const view = big.subarray(10);
    const got2 = await pool.sealBatch(params, view, 7, false);
    assert.equal(big.byteLength, plain.length + 10, 'a view not at the start is not moved');
    assert.equal(hex(view), hex(plain));
    assert.equal(hex(got2), hex(expected));
    // no room for the tags: sealed into a new buffer, the same bytes
    const tight = plain.slice();
    assert.equal(hex(await pool.sealBatch(params, tight, 7, false)), hex(expected));
  } finally {
    aead.dispose();
    assert.equal(await pool.dispose(), true);
  }
});

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
import { SegmentAuthenticationError, openBatch, sealBatch } from '../src/stream/segments.js';
import { refSealStream } from '../src/ref/stream.js';
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

test('sealBatch / openBatch in place, above and below the input equal the model (3 AEADs, 3 segment sizes)', () => {
  const bad: string[] = [];
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
      }
      aead.dispose();
    }
  }
  assert.deepEqual(bad, []);
});

test('a batch that fails opening in place leaves none of its plaintext in the buffer', () => {
  const info = ALGORITHMS.find((a) => a.name === 'chacha20-poly1305')!;
  const key = rng.bytes(32);
  const aead = chacha20Poly1305(key);
  const S = 4096;
  const { header, params } = newStreamParams(info, { segmentSize: S });
  const plain = rng.bytes(3 * S + 100);
  const sealed = refSealStream({ algorithm: info.name, key, prefix: header.subarray(10), segmentSize: S }, plain).subarray(header.length);
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

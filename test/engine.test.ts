// The engine: asynchronous compilation for browser main threads, synchronous use in workers,
// and the built package (dist/) importing without Node.js-only APIs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { ready } from '../src/engine/kernel.js';
import { ghash, polyval } from '../src/mac/index.js';
import { ghashRef } from '../src/ref/ghash.js';
import { polyvalRef } from '../src/ref/polyval.js';
import { hex, Rng } from './support/rng.js';

test('ready() compiles the registered modules and the API works after it', async () => {
  await ready();
  await ready(); // idempotent
  const rng = new Rng(7);
  const key = rng.bytes(16);
  const data = rng.bytes(100);
  assert.equal(hex(ghash(key, data)), hex(ghashRef(key, data)));
});

test('kernels instantiate synchronously inside a worker thread', async () => {
  const w = new Worker(new URL('./support/worker-entry.mjs', import.meta.url));
  const msg = await new Promise((resolve, reject) => {
    w.once('message', resolve);
    w.once('error', reject);
  });
  await w.terminate();
  assert.ok(Array.isArray(msg), `worker failed: ${String(msg)}`);
  assert.equal(hex(Uint8Array.from(msg as number[])), hex(polyval(new Uint8Array(16).fill(9), new Uint8Array(48).fill(5))));
  // and both equal the reference model (not only the main thread's kernel)
  assert.equal(hex(Uint8Array.from(msg as number[])), hex(polyvalRef(new Uint8Array(16).fill(9), new Uint8Array(48).fill(5))));
});

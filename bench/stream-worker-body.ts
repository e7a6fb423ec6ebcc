// The async side of bench/stream.ts, in a worker: runs one job per message and wakes the
// benchmark thread through a shared flag (the harness times synchronous operations).
import { parentPort, Worker } from 'node:worker_threads';
import { chacha20Poly1305 } from '../src/aead/index.js';
import { createSealStream, createWorkerPool, nodeWorkers, type WorkerPool } from '../src/stream/index.js';
import { bytes } from './inputs.js';

const N = 256 << 20;
const data = bytes(N, 0x5eed);
const aead = chacha20Poly1305(bytes(32, 3));
const nonce = bytes(12, 4);
let pool: WorkerPool | undefined;

async function job(kind: string): Promise<number> {
  if (kind === 'oneshot') return aead.seal(nonce, data).length;
  let seen = 0;
  const src = new ReadableStream<Uint8Array>({
    start(ctl) {
      for (let o = 0; o < N; o += 1 << 20) ctl.enqueue(data.subarray(o, o + (1 << 20)));
      ctl.close();
    },
  });
  if (kind === 'pool' && !pool) {
    pool = await createWorkerPool({ algorithm: 'chacha20-poly1305', key: bytes(32, 3), workers: 2, spawn: nodeWorkers(Worker as never, { preload: import.meta.resolve('tsx/esm/api') }) });
  }
  await src.pipeThrough(createSealStream(kind === 'pool' ? pool! : aead, { yieldEvery: 0 })).pipeTo(new WritableStream({ write: (c) => void (seen += c.length) }));
  return seen;
}

parentPort!.on('message', async (m: { kind: string; flag: Int32Array }) => {
  let r = -1;
  try {
    r = await job(m.kind);
  } catch (e) {
    console.error(e);
  }
  Atomics.store(m.flag, 1, r > 0 ? 1 : 2);
  Atomics.store(m.flag, 0, 1);
  Atomics.notify(m.flag, 0);
});
parentPort!.postMessage('ready');

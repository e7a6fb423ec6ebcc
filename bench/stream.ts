// ctkit/stream beside one-shot sealing: `chacha20-poly1305/stream-seal/256MiB`
//
//   createSealStream             a ReadableStream of 256 MiB in memory (1 MiB chunks) piped through
//                                createSealStream(aead) into a counting WritableStream
//   createSealStream, 2 workers  the same through a worker pool of 2
//   one-shot seal                aead.seal(nonce, the same 256 MiB) once (not a stream: the bound)
//
// The streams are asynchronous and the harness times synchronous operations, so each job runs
// in a worker thread while the benchmark thread blocks on a shared flag (Atomics.wait). The CPU
// time of each job (all threads of the process, pool workers included) goes to stderr at the end.
import { Worker } from 'node:worker_threads';
import type { Family, Setup } from './harness.js';
import { witnessCpu } from './witness.js';

let worker: Worker | undefined;
const flag = new Int32Array(new SharedArrayBuffer(8));

async function start(): Promise<Worker> {
  if (worker) return worker;
  const w = new Worker(new URL('./stream-worker.mjs', import.meta.url));
  await new Promise<void>((resolve, reject) => {
    w.once('message', () => resolve());
    w.once('error', reject);
  });
  w.unref();
  return (worker = w);
}

function job(kind: string): Setup {
  return async () => {
    const w = await start();
    return () => {
      Atomics.store(flag, 0, 0);
      w.postMessage({ kind, flag });
      Atomics.wait(flag, 0, 0);
      if (Atomics.load(flag, 1) !== 1) throw new Error(`stream job ${kind} failed`);
      return flag[1];
    };
  };
}

const family: Family = {
  title: 'Streams: 256 MiB through createSealStream beside one-shot seal',
  cases: [
    {
      name: 'chacha20-poly1305/stream-seal/256MiB',
      bytes: 256 << 20,
      impls: { createSealStream: job('stream'), 'createSealStream, 2 workers': job('pool'), 'one-shot seal': job('oneshot') },
    },
  ],
};
// CPU time beside the wall-clock medians (the jobs run in the worker; this thread waits)
witnessCpu('Streams', family.cases);
export default family;

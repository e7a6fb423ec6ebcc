// The CLI's worker pool: ctkit/stream's pool on Node.js worker_threads. Run from the TypeScript
// sources (a clone, tests), each worker first registers tsx; the compiled CLI needs nothing.
import { Worker } from 'node:worker_threads';
import { createWorkerPool, nodeWorkers, type WorkerPool } from '../stream/pool.js';

const fromSource = import.meta.url.endsWith('.ts');

export function createNodeWorkerPool(algorithm: string, key: Uint8Array, workers: number): Promise<WorkerPool> {
  const preload = fromSource ? import.meta.resolve('tsx/esm/api') : undefined;
  return createWorkerPool({ algorithm, key, workers, spawn: nodeWorkers(Worker as never, { preload }) });
}

// A sealed-stream worker: a Web Worker, or a Node.js worker_threads worker through the bootstrap
// in pool.ts, which gives it the same globalThis.postMessage / onmessage. The handling of its
// messages is worker-body.ts; this module wires it to the worker's global scope and says that
// it has loaded ({ t: 'loaded' }), upon which the pool sends the key.

import { workerBody } from './worker-body.js';

interface Scope {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  // biome-ignore lint/suspicious/noExplicitAny: a message from the pool is untyped until its tag is read
  onmessage: ((e: { data: any }) => void) | null;
}
const scope = globalThis as unknown as Scope;

const handle = workerBody((m, t) => scope.postMessage(m, t));
scope.onmessage = (e) => void handle(e.data);
scope.postMessage({ t: 'loaded' });

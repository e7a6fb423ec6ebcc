// Runs in a worker thread (test/engine.test.ts): synchronous instantiation inside a worker.
import { parentPort } from 'node:worker_threads';
import { polyval } from '../../src/mac/index.js';

parentPort!.postMessage(Array.from(polyval(new Uint8Array(16).fill(9), new Uint8Array(48).fill(5))));

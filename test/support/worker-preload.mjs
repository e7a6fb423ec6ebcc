// Preloaded (nodeWorkers' `preload`: `workerPreload` of stryker-child.ts) into each stream worker
// a test starts. It registers tsx, so the worker can import the TypeScript sources. In Stryker's
// dry run (`npm run test:mutation`) it also
// writes the mutants the worker has reached to where the test process collects them, before each
// message the worker posts: a worker is terminated, not exited, so it gets no 'exit' to write them
// on, and every path of the worker module ends in a postMessage.
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { register as tsx } from 'tsx/esm/api';

export function register() {
  tsx();
  const dir = process.env.CTKIT_STRYKER_COVERAGE;
  const post = globalThis.postMessage;
  if (!dir || typeof post !== 'function') return;
  const file = join(dir, `${process.pid}-${threadId}.json`);
  globalThis.postMessage = (m, t) => {
    const ns = globalThis[process.env.STRYKER_NAMESPACE || '__stryker__'];
    if (ns?.mutantCoverage) {
      // whole files only: the test process may read the directory while this worker is killed
      writeFileSync(`${file}.part`, JSON.stringify(ns.mutantCoverage));
      renameSync(`${file}.part`, file);
    }
    post(m, t);
  };
}

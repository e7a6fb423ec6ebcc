// `ctkit bench`: runs the repository's benchmark harness (bench/run.ts) in a child process.
// The harness and its peers are development files, present in a clone after `npm install`.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { UsageError, Failure } from './errors.js';

/** Runs the harness (`script`: bench/run.ts, or a stand-in in the tests) with `args`; its exit status 2 is a usage error. */
export async function runBench(args: string[], script = fileURLToPath(new URL('../../bench/run.ts', import.meta.url))): Promise<void> {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  if (!existsSync(script)) throw new UsageError('bench needs a clone of the ctkit repository (bench/ is not in this installation)');
  try {
    createRequire(import.meta.url).resolve('tsx'); // only to fail early with a clear message
  } catch {
    throw new UsageError('bench needs the dev dependencies: run `npm install` in the clone first');
  }
  const code = await new Promise<number>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: root, stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (c, sig) => resolve(c ?? (sig ? 1 : 0)));
  });
  if (code === 2) throw new UsageError('the benchmark rejected its arguments (see above)');
  if (code !== 0) throw new Failure(`the benchmark exited with status ${code}`);
}

// Stryker's coverage through child processes, for `npm run test:mutation` (scripts/mutation.ts).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Node arguments for a child process that runs ctkit's code (a CLI command). In its dry run, Stryker
 * learns which test files reach each mutant from the mutants this process reached; the CLI's
 * code runs in child processes, out of its sight. So in that run each child gets
 * stryker-child.cjs (beside this file), which writes the child's mutants to a directory on exit, and
 * this process adds them to its own before Stryker's hook (an earlier 'exit' listener) reports.
 * In the mutant runs the children need nothing: they inherit the active mutant's variable.
 * Worker threads that run the stream worker write theirs to the same directory (workerPreload).
 */
export const strykerChildArgs: string[] = (() => {
  if (process.env.STRYKER_DRY_RUN !== 'true') return [];
  const dir = mkdtempSync(join(tmpdir(), 'ctkit-stryker-'));
  process.env.CTKIT_STRYKER_COVERAGE = dir;
  process.prependListener('exit', () => {
    const g = globalThis as unknown as Record<string, { mutantCoverage?: { static: Record<string, number>; perTest: Record<string, Record<string, number>> } }>;
    const ns = (g[process.env.STRYKER_NAMESPACE ?? '__stryker__'] ??= {});
    const into = (ns.mutantCoverage ??= { static: {}, perTest: {} }).static;
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
      const c = JSON.parse(readFileSync(join(dir, f), 'utf8')) as NonNullable<(typeof ns)['mutantCoverage']>;
      for (const hits of [c.static, ...Object.values(c.perTest)]) for (const [id, n] of Object.entries(hits)) into[id] = (into[id] ?? 0) + n;
    }
    rmSync(dir, { recursive: true, force: true });
  });
  return ['-r', fileURLToPath(new URL('./stryker-child.cjs', import.meta.url))];
})();

/**
 * The `preload` for nodeWorkers() in a test: registers tsx in the worker and, in Stryker's dry
 * run, carries the worker's coverage back as strykerChildArgs does for a child process.
 */
export const workerPreload = new URL('./worker-preload.mjs', import.meta.url).href;

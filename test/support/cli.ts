// Running the ctkit command the way the CLI tests need it: from the TypeScript sources as they
// are now, never through bin/ctkit.js or dist/ (which may be stale or absent in a clone).
//
// The sources are bundled once per test process with esbuild (a dev dependency; ~0.3 s) into
// a private directory laid out like the repository (src/cli/main.js, the worker module beside
// it, package.json two levels up for --version), so each run of the command starts in tens of
// milliseconds instead of the ~1 s that tsx's loader costs per process. CTKIT_TEST_MAIN runs
// another checkout's src/cli/main.ts through tsx instead (to show a test fails there).
import { spawn, spawnSync, type SpawnOptions, type SpawnSyncOptions } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { strykerChildArgs } from './stryker-child.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
export const TSX = import.meta.resolve('tsx');

function bundle(): string {
  const out = mkdtempSync(join(tmpdir(), 'ctkit-cli-bundle-'));
  process.on('exit', () => rmSync(out, { recursive: true, force: true }));
  mkdirSync(join(out, 'src', 'cli'), { recursive: true });
  copyFileSync(join(repo, 'package.json'), join(out, 'package.json'));
  const common = { bundle: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'error', write: true } as const;
  // the CLI, with its dynamically imported modules inlined; the pool finds ./worker.js beside it
  buildSync({ ...common, entryPoints: [join(repo, 'src/cli/main.ts')], outfile: join(out, 'src/cli/main.js'), external: ['esbuild', 'tsx'] });
  buildSync({ ...common, entryPoints: [join(repo, 'src/stream/worker.ts')], outfile: join(out, 'src/cli/worker.js') });
  return join(out, 'src/cli/main.js');
}

/** The entry point the tests run. */
export const MAIN = process.env.CTKIT_TEST_MAIN ?? bundle();

/** argv (after the node binary) that runs `ctkit <args>` from this checkout's TypeScript sources through tsx */
export const ctkitSourceArgv = (args: string[]): string[] => [...strykerChildArgs, '--import', TSX, join(repo, 'src/cli/main.ts'), ...args];

/** argv (after the node binary) that runs `ctkit <args>` */
export const ctkitArgv = (args: string[]): string[] => [...strykerChildArgs, ...(process.env.CTKIT_TEST_MAIN ? ['--import', TSX, MAIN] : [MAIN]), ...args];

export function ctkitSync(args: string[], o: SpawnSyncOptions = {}) {
  const r = spawnSync(process.execPath, ctkitArgv(args), { maxBuffer: 256 << 20, ...o });
  return { status: r.status, signal: r.signal, stdout: r.stdout as Buffer, stderr: String(r.stderr) };
}

/** A command's status and output, as spawnSync gives them, without blocking: commands run side by side. */
export function spawnAsync(cmd: string, args: string[], o: { cwd?: string; input?: Uint8Array; env?: NodeJS.ProcessEnv } = {}): Promise<{ status: number | null; signal: NodeJS.Signals | null; stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const c = spawn(cmd, args, { cwd: o.cwd, env: o.env });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    c.stdout!.on('data', (b: Buffer) => out.push(b));
    c.stderr!.on('data', (b: Buffer) => err.push(b));
    c.on('error', reject);
    c.on('close', (status, signal) => resolve({ status, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString() }));
    c.stdin!.on('error', () => undefined); // a command that exits before reading all of its input
    c.stdin!.end(o.input);
  });
}

/** ctkitSync's result, without blocking. */
export const ctkitAsync = (args: string[], o: { cwd?: string; input?: Uint8Array; env?: NodeJS.ProcessEnv } = {}) => spawnAsync(process.execPath, ctkitArgv(args), o);

export function ctkitSpawn(args: string[], o: SpawnOptions = {}) {
  return spawn(process.execPath, ctkitArgv(args), o);
}

/** A directory holding an executable `ctkit` script, for running commands as printed (PATH=dir:…). */
export function ctkitShim(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ctkit-bin-'));
  const f = join(dir, 'ctkit');
  writeFileSync(
    f,
    `#!/bin/sh\nexec "${process.execPath}" ${ctkitArgv([])
      .map((a) => `"${a}"`)
      .join(' ')} "$@"\n`,
  );
  chmodSync(f, 0o755);
  return dir;
}

// Running `ctkit age` beside the real `age` 1.x (/usr/bin/age, Debian package `age`) for
// test/cli-age.test.ts and test/cli-age-controls.test.ts: the two tools synchronously and
// asynchronously, identities made by each, and one malformed-file case checked against ctkit.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pLimit from 'p-limit';
import type { Case, Key } from './age-writer.js';
import { loadKey } from './age-writer.js';
import { ctkitArgv, spawnAsync } from './cli.js';
import { scratch } from './scratch.js';

/** The CLI under test: the bundle of the sources (support/cli.ts), or a mutant bundle's main.js. */
export type Main = string | undefined;
export interface Run {
  status: number | null;
  stdout: Buffer;
  stderr: string;
}
interface CtkitOptions {
  main?: Main;
  input?: Uint8Array;
  cwd?: string;
  /** environment variables beside this process's (CTKIT_BACKEND) */
  env?: Record<string, string>;
}

/**
 * `ctkit age` from stdin (size unknown) would start a worker per core, as for a large file: the
 * tests say --jobs 1 unless they test the workers (a worker's start-up is most of a small run).
 */
const oneJob = (args: string[]) => (args[0] === 'age' && !args.includes('--jobs') ? [...args, '--jobs', '1'] : args);
const argvOf = (args: string[], main: Main) => (main ? [main, ...oneJob(args)] : ctkitArgv(oneJob(args)));

export function ctkit(args: string[], o: CtkitOptions = {}): Run {
  const r = spawnSync(process.execPath, argvOf(args, o.main), { input: o.input, cwd: o.cwd, maxBuffer: 64 << 20, env: o.env && { ...process.env, ...o.env } });
  return { status: r.status, stdout: r.stdout, stderr: String(r.stderr) };
}
export function age(args: string[], input?: Uint8Array): Run {
  const r = spawnSync('age', args, { input, maxBuffer: 64 << 20 });
  return { status: r.status, stdout: r.stdout, stderr: String(r.stderr) };
}
// the same, asynchronously: the tests run several at once (a run is mostly start-up, not CPU)
export const ctkitA = (args: string[], o: CtkitOptions = {}): Promise<Run> => spawnAsync(process.execPath, argvOf(args, o.main), { input: o.input, cwd: o.cwd });
export const ageA = (args: string[], input?: Uint8Array): Promise<Run> => spawnAsync('age', args, { input });

/** f over items, `n` at a time */
export async function inParallel<T>(items: readonly T[], f: (t: T) => Promise<void>, n = 4): Promise<void> {
  const limit = pLimit(n);
  await Promise.all(items.map((t) => limit(() => f(t))));
}
export const ok = (r: Run, what: string) => assert.equal(r.status, 0, `${what}: exit ${r.status}: ${r.stderr}`);

/** A scratch directory named `name`, identities made in it by either tool, and checkCase(). */
export function ageScratch(name: string) {
  const ageVersion = spawnSync('age', ['--version'], { encoding: 'utf8' });
  if (ageVersion.status !== 0) throw new Error('`age` is not installed (apt-get install -y age): these tests need the real age');
  const s = scratch(name);
  const keyDir = s.fresh();
  return {
    ...s,
    /** an identity made by age-keygen */
    ageKeygen(file: string): Key {
      const path = join(keyDir, file);
      const r = spawnSync('age-keygen', ['-o', path], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      return loadKey(path);
    },
    /** an identity made by ctkit age-keygen */
    ctkitKeygen(file: string): Key {
      const path = join(keyDir, file);
      ok(ctkit(['age-keygen', '-o', path]), 'ctkit age-keygen');
      return loadKey(path);
    },
    /** Decrypting `c` with -o: ctkit says why in one line, exit 1, and leaves no file (or decrypts an accepted case). */
    async checkCase(c: Case, id: Key, main?: Main): Promise<void> {
      const dir = s.fresh();
      const f = join(dir, 'in.age');
      writeFileSync(f, c.file);
      const r = await ctkitA(['age', '-d', '-i', (c.id ?? id).file, '-o', join(dir, 'out'), f], { main });
      if (c.accept) {
        assert.equal(r.status, 0, `${c.name}: ctkit refused a well-formed file: ${r.stderr}`);
        assert.ok(readFileSync(join(dir, 'out')).equals(c.accept), `${c.name}: plaintext`);
        return;
      }
      assert.equal(r.status, 1, `${c.name}: exit ${r.status}, stderr ${r.stderr}`);
      assert.match(r.stderr, /^ctkit age: [^\n]+\n$/, `${c.name}: one line`);
      assert.match(r.stderr, c.why, c.name);
      assert.deepEqual(s.ls(dir), ['in.age'], `${c.name}: a file was left behind`);
      assert.equal(r.stdout.length, 0, `${c.name}: output on stdout`);
    },
  };
}

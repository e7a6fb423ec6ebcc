// `npm run bench -- --base <git-ref>`: compares this checkout (head, uncommitted changes included)
// with another revision (base). The base is checked out as a temporary `git worktree` under
// os.tmpdir() that shares this checkout's node_modules; both trees then run
// `npx tsx bench/run.ts <filter> --json --impl ctkit` as child processes, alternately, for several
// copies, and the fastest median per case across copies is compared.

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareTable, environment, type Side } from './format.js';

export interface BaseOptions {
  ref: string;
  filter: string | undefined;
  impls: string[];
  /** `--time` to pass on to the children, if given. */
  time: string | undefined;
  copies: number;
  json: boolean;
}

interface Row {
  case: string;
  impl: string;
  ns: number;
}

const HEAD_DIR = path.resolve(fileURLToPath(new URL('..', import.meta.url)));

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** Runs bench/run.ts in `dir` with --json; resolves to its rows, or rejects with why not. */
function runChild(dir: string, opts: BaseOptions): Promise<Row[]> {
  const args = ['tsx', 'bench/run.ts', ...(opts.filter !== undefined ? [opts.filter] : []), '--json'];
  for (const impl of opts.impls) args.push('--impl', impl);
  if (opts.time !== undefined) args.push('--time', opts.time);
  return new Promise((resolve, reject) => {
    const child = spawn('npx', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const lines = err
        .trim()
        .split('\n')
        .map((l) => l.trim());
      const tail = [...lines].reverse().find((l) => /^(\w*Error\b|bench:)/.test(l)) ?? lines.at(-1) ?? '';
      if (err.trim()) process.stderr.write(err.replace(/^(?=.)/gm, '    '));
      if (code !== 0) return reject(new Error(`exited with ${signal ?? code}${tail ? `: ${tail}` : ''}`));
      try {
        const rows: unknown = JSON.parse(out);
        if (!Array.isArray(rows)) throw new Error('not an array');
        resolve(rows.filter((r): r is Row => typeof r?.case === 'string' && typeof r?.impl === 'string' && typeof r?.ns === 'number'));
      } catch (e) {
        reject(new Error(`printed no JSON rows (${e instanceof Error ? e.message : String(e)})`));
      }
    });
  });
}

/** A side accumulating the fastest median per case across copies. */
function side(label: string): Side & { errors: string[] } {
  return { label, ns: new Map(), errors: [] };
}

export async function compareWithBase(opts: BaseOptions): Promise<number> {
  const root = git(HEAD_DIR, 'rev-parse', '--show-toplevel');
  let sha: string;
  try {
    sha = git(root, 'rev-parse', '--verify', '--quiet', `${opts.ref}^{commit}`);
  } catch {
    throw new Error(`--base ${opts.ref}: not a commit in this repository`);
  }
  const short = sha.slice(0, 10);
  const headSha = git(root, 'rev-parse', '--short=10', 'HEAD');
  const dirty = git(root, 'status', '--porcelain') !== '';

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ctkit-bench-base-'));
  const tree = path.join(tmp, 'tree');
  let cleaned = false;
  const cleanup = (): void => {
    if (cleaned) return;
    cleaned = true;
    try {
      git(root, 'worktree', 'remove', '--force', tree);
    } catch {
      // not added, or already gone: fall through to removing the directory
    }
    fs.rmSync(tmp, { recursive: true, force: true });
    try {
      git(root, 'worktree', 'prune');
    } catch {
      // nothing to prune
    }
  };
  const onSignal = (sig: NodeJS.Signals): void => {
    cleanup();
    process.kill(process.pid, sig);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const base = side('Base');
  const head = side('Head');
  try {
    git(root, 'worktree', 'add', '--detach', '--quiet', tree, sha);
    const modules = path.join(root, 'node_modules');
    if (fs.existsSync(modules)) fs.symlinkSync(modules, path.join(tree, 'node_modules'), 'dir');
    if (!fs.existsSync(path.join(tree, 'bench', 'run.ts'))) base.unavailable = `no bench/run.ts at ${opts.ref}`;

    const only = opts.impls.length === 1;
    const take = (s: typeof base, rows: Row[]): void => {
      for (const r of rows) {
        if (!opts.impls.includes(r.impl) || !Number.isFinite(r.ns)) continue;
        const key = only ? r.case : `${r.case} [${r.impl}]`;
        s.ns.set(key, Math.min(r.ns, s.ns.get(key) ?? Infinity));
      }
    };
    for (let copy = 0; copy < opts.copies; copy++) {
      const order: [typeof base, string][] = [
        [base, tree],
        [head, root],
      ];
      if (copy % 2 === 1) order.reverse();
      for (const [s, dir] of order) {
        if (s.unavailable) continue;
        console.error(`bench --base: copy ${copy + 1}/${opts.copies}, ${s.label.toLowerCase()}…`);
        try {
          take(s, await runChild(dir, opts));
        } catch (e) {
          s.errors.push(e instanceof Error ? e.message : String(e));
        }
      }
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    cleanup();
  }

  for (const s of [base, head]) {
    if (!s.unavailable && s.ns.size === 0) {
      s.unavailable = s.errors.length ? `bench failed: ${s.errors[0]}` : 'no matching cases';
    }
    s.unavailable = s.unavailable?.replaceAll('|', '\\|');
  }

  if (opts.json) {
    const names = [...new Set([...head.ns.keys(), ...base.ns.keys()])];
    const rows = names.map((c) => ({ case: c, base: base.ns.get(c) ?? null, head: head.ns.get(c) ?? null }));
    console.log(`[\n${rows.map((r) => JSON.stringify(r)).join(',\n')}\n]`);
  } else {
    console.log(`${environment()}\n`);
    console.log(`Base: ${opts.ref} (${short}) · Head: this checkout (${headSha}${dirty ? ' + uncommitted changes' : ''}) · ` + `impl ${opts.impls.join(', ')} · fastest of ${opts.copies} ${opts.copies === 1 ? 'copy' : 'copies'}\n`);
    console.log(compareTable(base, head));
    for (const s of [base, head]) {
      if (s.errors.length && s.ns.size > 0) console.log(`\n${s.label}: ${s.errors.length} copies failed: ${s.errors[0]}`);
    }
  }
  return head.ns.size === 0 ? 1 : 0;
}

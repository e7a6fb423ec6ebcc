// Mutation testing of the glue with Stryker (issue 18): `npm run test:mutation [-- <folder>…]`.
//
// Stryker's TAP runner runs node:test files through tsx, one process per test file, with every
// mutant of a folder compiled in (mutation switching) and one switched on per run; the TypeScript
// checker drops mutants that do not type-check before any test runs. Each folder of the glue has
// the test files that exercise it (FOLDERS below); coverage per test file then picks, for each
// mutant, only the files that reach it, and the first failing file ends its run.
//
// Every survivor (a mutant no test killed, or one no test reached) must be listed in
// test/mutation-equivalents.json with the reason it cannot be observed; the run fails on a
// survivor that is not listed, and on a listed one that is no longer a survivor (stale). An
// entry matches a survivor by file, mutator, the original source text and the replacement; its
// line only tells identical-looking mutants of one file apart (the nearest wins), so the list
// survives edits elsewhere in the file.
//
// Output, per folder: reports/mutation/<folder>.json (Stryker's JSON report, the mutation-testing
// report schema) and reports/mutation/<folder>.md; reports/mutation/summary.md has one row per
// folder of the last run. Not part of `npm test`: on 2 cores a folder takes from minutes
// (src/util 5, src/mac 7, src/hash 9) to hours (src/stream 75 min, src/ec 2½ h, src/cli 4 h;
// those two run as --files parts of up to about 1½ h each), the whole glue about 9½ hours.
//
// Options: --files <glob> (mutate only these files of the folder; stale entries are then judged
// only for them; the part is kept in reports/mutation/<folder>.parts.json, and once the parts
// cover every file of the folder, each with the source it has now, they are the folder's report
// and its row in the summary: src/cli's tests are too slow for one sitting; the first part is the
// folder's last whole report, so after a change only the files it touched need to run again),
// --again (with or without --files: run again only the survivors of the folder's results so far
// that no entry lists, and keep the rest of those results: after a test was written to kill them;
// the files must not have changed since), --incremental (reuse the previous run's results for
// unchanged code and tests),
// --tests <a,b> (a survey: only these test files, by name without test/ and .test.ts; prints the
// survivors no list names, writes reports/mutation/<folder>.survey.json and nothing else: to find
// with the quick in-process tests what the slow ones would spend hours on, before the real run),
// --head (run on a copy of the committed HEAD instead of the working tree: on a tree shared
// with others' work in progress), --no-check (without the TypeScript checker: quicker to start,
// but mutants that do not compile then run as tests), --concurrency <n> (default 1), --list
// (print the folders, their files and their test files), --recheck (no run: the last report of
// each folder against the current list, e.g. after editing it).

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { minimatch } from 'minimatch';

const repo = join(fileURLToPath(new URL('.', import.meta.url)), '..');
/** where Stryker runs: the working tree, or (--head) a copy of HEAD */
let root = repo;
const reportDir = join(repo, 'reports', 'mutation');
const equivalentsFile = () => join(root, 'test', 'mutation-equivalents.json');

interface Folder {
  /** the committed .ts files under this folder are mutated (work in progress of others is not) … */
  dir: string;
  /** … except those matching this */
  exclude?: RegExp;
  /** and these files from elsewhere (code that only this folder's tests reach) */
  extra?: string[];
  /** test files that exercise them, fastest and most pointed first (a killed mutant stops at its first failing file) */
  tests: string[];
  /**
   * For a file whose mutants these tests alone are to kill, the subset of `tests` (by name) that
   * runs for it: a mutant that survives runs every covering file of the run, so the slow files
   * (processes, the real age) stay out of the parts that do not need them. A run (or part) runs
   * the folder's tests that some mutated file names; a file without an entry names them all.
   */
  testsFor?: Record<string, string[]>;
}

const t = (...names: string[]) => names.map((n) => `test/${n}.test.ts`);

/** The glue, folder by folder, and the tests that reach it. Kernels and generated modules are not mutated. */
export const FOLDERS: Record<string, Folder> = {
  'src/util': {
    dir: 'src/util',
    exclude: /^src\/util\/json-ct\.ts$/, // read only by the CLI's key files: mutated with src/cli
    tests: t('mutation-util', 'lengths', 'overlap', 'api-errors', 'key-cache', 'teeth-engine'),
  },
  'src/hash': {
    dir: 'src/hash',
    tests: t('mutation-hash', 'hkdf', 'api-errors', 'error-names', 'teeth-limits', 'sha2', 'teeth-wipe'),
  },
  'src/mac': {
    dir: 'src/mac',
    tests: t('mutation-mac', 'gf128-kat', 'api-errors', 'error-names', 'teeth-limits', 'teeth-wipe', 'gf128', 'chacha'),
  },
  'src/aead': {
    dir: 'src/aead',
    tests: t('api-errors', 'lengths', 'overlap', 'mutation-aead', 'aes-gcm', 'aes-gcm-siv', 'chacha', 'sm4', 'teeth-limits', 'teeth-large', 'teeth-wipe', 'key-cache'),
  },
  'src/ec': {
    dir: 'src/ec',
    // the differential suites against OpenSSL last: a survivor runs every file that reaches it
    tests: t(
      'mutation-ec',
      'der-base64',
      'ec-keys',
      'okp',
      'ed25519-variants',
      'ec-params',
      'ct-der',
      'error-names',
      'api-errors',
      'teeth-base64',
      'mutation-okp-base64',
      'ed25519',
      'x25519',
      'ecdsa-wycheproof',
      'ec-wycheproof',
      'ecdsa',
      'ec-field',
      'ec-scalar',
      'teeth-wipe',
      'ec-js',
      'ecdsa-openssl',
      'ec-openssl',
    ),
  },
  'src/engine': {
    dir: 'src/engine',
    exclude: /^src\/engine\/wasm\//, // generated by src/kernels/gen.ts
    tests: t('engine', 'teeth-engine', 'mutation-engine', 'key-cache', 'backends', 'teeth-wipe', 'teeth-limits'),
  },
  // the commands run in child processes; test/support/stryker-child.ts carries their coverage
  // back to the test file that ran them, so coverage per test applies here too. Each module has
  // an in-process test file (cli-main, cli-key-parse and cli-keygen, cli-age-format, cli-sign,
  // cli-seal, cli-io, json-ct, bech32): those and the other quick files are what its part runs;
  // the files that spawn the command (cli, cli-files, cli-age: 20–30 s each) run only for what
  // only a process shows (the entry point, signals, stdin, worker threads); cli-keys (the CLI
  // beside the openssl tool, 50 s) is in npm test only: cli-keygen holds keys.ts to OpenSSL
  // in-process.
  'src/cli': {
    dir: 'src/cli',
    extra: ['src/util/json-ct.ts'],
    tests: t(
      'bech32',
      'json-ct',
      'cli-help',
      'cli-main',
      'cli-key-parse',
      'cli-keygen',
      'cli-age-format',
      'cli-sign',
      'ct-cli-keys',
      'cli-seal',
      'cli-io',
      'mutation-cli',
      'teeth-base64',
      'mutation-cli-base64',
      'ct-check',
      'cli-files',
      'cli',
      'cli-age',
    ),
    testsFor: {
      'src/util/json-ct.ts': ['json-ct', 'cli-main', 'cli-keygen', 'cli-sign', 'ct-cli-keys', 'cli-seal', 'teeth-base64', 'mutation-cli-base64'],
      'src/cli/keys.ts': ['cli-main', 'cli-key-parse', 'cli-keygen', 'cli-sign', 'ct-cli-keys', 'teeth-base64', 'mutation-cli-base64'],
      'src/cli/aead-key-file.ts': ['cli-main', 'ct-cli-keys', 'cli-seal', 'teeth-base64', 'mutation-cli-base64'],
      'src/cli/sign.ts': ['cli-main', 'cli-sign'],
      'src/cli/bech32.ts': ['bech32', 'cli-age-format'],
      'src/cli/run.ts': ['cli-help', 'cli-main'],
      'src/cli/commands.ts': ['cli-help', 'cli-main'],
      'src/cli/bench.ts': ['cli-main'],
      'src/cli/info.ts': ['cli-main'],
      'src/cli/age-command.ts': ['cli-help', 'cli-main'],
      'src/cli/errors.ts': ['cli-main', 'mutation-cli'],
      'src/cli/age.ts': ['cli-main', 'cli-age-format', 'cli-age'],
      'src/cli/files.ts': ['cli-main', 'cli-seal', 'cli-io', 'mutation-cli', 'cli-files'],
      'src/cli/io.ts': ['cli-main', 'cli-seal', 'cli-io', 'cli-age-format', 'cli-files'],
      'src/cli/ct-check.ts': ['ct-check', 'cli-help', 'cli-main'],
      'src/cli/workers.ts': ['mutation-cli', 'cli-files'],
      'src/cli/main.ts': ['cli'],
    },
  },
  // the stream code runs in the test process, except worker.ts, which runs in worker threads: in
  // the dry run test/support/worker-preload.mjs carries their coverage back to the test file that
  // started them (as stryker-child does for the CLI's processes); in a mutant run a worker reads
  // the active mutant from the environment it inherits from the test process
  'src/stream': {
    dir: 'src/stream',
    tests: t('stream-worker', 'stream-spec', 'stream-batches', 'stream', 'teeth-stream', 'stream-pool', 'stream-pool-checks', 'stream-sealer-checks', 'stream-web-checks'),
  },
};

export interface Equivalent {
  file: string;
  line: number;
  mutator: string;
  original: string;
  replacement: string;
  reason: string;
}

export interface Survivor {
  file: string;
  line: number;
  column: number;
  mutator: string;
  original: string;
  replacement: string;
  status: string;
}

// The mutation-testing report schema (what Stryker's JSON reporter writes): 1-based lines and columns.
interface ReportMutant {
  id: string;
  mutatorName: string;
  replacement?: string;
  location: { start: { line: number; column: number }; end: { line: number; column: number } };
  status: string;
  coveredBy?: string[];
  killedBy?: string[];
  static?: boolean;
}
interface Report {
  files: Record<string, { source: string; mutants: ReportMutant[] }>;
}

/** The source text a mutant replaces (its location in the report's copy of the file). */
export function originalText(source: string, loc: ReportMutant['location']): string {
  const lines = source.split('\n');
  const offset = (p: { line: number; column: number }) => {
    let o = 0;
    for (let i = 0; i < p.line - 1; i++) o += lines[i].length + 1;
    return o + p.column - 1;
  };
  return source.slice(offset(loc.start), offset(loc.end));
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
const key = (m: { file: string; mutator: string; original: string; replacement: string }) => JSON.stringify([m.file, m.mutator, oneLine(m.original), oneLine(m.replacement)]);

/**
 * Pairs survivors with listed equivalents: same file, mutator, original and replacement (white
 * space folded), nearest line first. Returns the survivors nobody listed and the entries that
 * match no survivor.
 */
export function matchEquivalents(survivors: Survivor[], listed: Equivalent[]): { unlisted: Survivor[]; stale: Equivalent[]; matched: number } {
  const byKey = new Map<string, Equivalent[]>();
  for (const e of listed) {
    const k = key(e);
    byKey.set(k, [...(byKey.get(k) ?? []), e]);
  }
  const unlisted: Survivor[] = [];
  let matched = 0;
  for (const s of survivors) {
    const candidates = byKey.get(key(s)) ?? [];
    if (candidates.length === 0) {
      unlisted.push(s);
      continue;
    }
    let best = 0;
    for (let i = 1; i < candidates.length; i++) {
      if (Math.abs(candidates[i].line - s.line) < Math.abs(candidates[best].line - s.line)) best = i;
    }
    candidates.splice(best, 1);
    matched++;
  }
  return { unlisted, stale: [...byKey.values()].flat(), matched };
}

export function readEquivalents(): Equivalent[] {
  const json = JSON.parse(readFileSync(equivalentsFile(), 'utf8')) as { equivalents: Equivalent[] };
  for (const e of json.equivalents) {
    for (const f of ['file', 'mutator', 'original', 'replacement', 'reason'] as const) {
      if (typeof e[f] !== 'string') throw new Error(`test/mutation-equivalents.json: an entry without "${f}": ${JSON.stringify(e)}`);
    }
    if (typeof e.line !== 'number') throw new Error(`test/mutation-equivalents.json: an entry without "line": ${JSON.stringify(e)}`);
    if (e.reason.trim().length < 20) throw new Error(`test/mutation-equivalents.json: ${e.file}:${e.line}: say why it cannot be observed`);
  }
  return json.equivalents;
}

interface Counts {
  total: number;
  Killed: number;
  Timeout: number;
  Survived: number;
  NoCoverage: number;
  CompileError: number;
  RuntimeError: number;
  Ignored: number;
}

function count(mutants: ReportMutant[]): Counts {
  const c: Counts = { total: 0, Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0, CompileError: 0, RuntimeError: 0, Ignored: 0 };
  for (const m of mutants) {
    c.total++;
    if (m.status in c) c[m.status as keyof Counts]++;
  }
  return c;
}

/** Stryker's mutation score: detected (killed, timed out) over valid (detected and survivors). */
const score = (c: Counts) => {
  const valid = c.Killed + c.Timeout + c.Survived + c.NoCoverage;
  return valid === 0 ? 100 : (100 * (c.Killed + c.Timeout)) / valid;
};

const slug = (folder: string) => folder.replace(/^src\//, '').replace(/[\\/]/g, '-');

/** One --files run that contributes to a folder's assembled report. */
interface PartRun {
  command: string;
  commit: string;
  seconds: number;
  files: string[];
  /** an --again run: it re-ran some mutants of its files, so it does not supersede the runs before it */
  again?: boolean;
}
interface Parts {
  report: Report;
  runs: PartRun[];
  /** files a whole run found no mutant in (re-exports, types), with their source then */
  empty?: Record<string, string>;
}

/**
 * A folder too slow for one sitting (src/cli: its tests run the commands in child processes) is
 * run in parts with --files. Each part's files replace the same files of the parts so far; a
 * file whose source has changed since its part ran (current(path) differs from the report's copy)
 * is dropped, so every result kept is for the code as it is now. Runs that no longer contribute a
 * file are dropped too.
 */
export function mergeParts(parts: Parts | undefined, part: Report, run: PartRun, current: (path: string) => string | undefined, named: string[] = []): Parts {
  const files: Report['files'] = {};
  for (const [path, f] of Object.entries(parts?.report.files ?? {})) if (current(path) === f.source) files[path] = f;
  for (const [path, f] of Object.entries(part.files)) files[path] = f;
  const empty = emptyAfter(parts, files, current);
  // a file the part's glob named that has no mutant (a re-export, a one-line curve object): covered as it is
  for (const path of named) if (!(path in files) && current(path) !== undefined) empty[path] = current(path)!;
  return { report: { ...part, files }, runs: runsAfter(parts, run, files), empty };
}

/** The runs that still contribute a file (an --again run supersedes none of the runs before it). */
function runsAfter(parts: Parts | undefined, run: PartRun, files: Report['files']): PartRun[] {
  return [...(parts?.runs ?? []), run].map((r, i, all) => ({ ...r, files: r.files.filter((p) => p in files && !all.slice(i + 1).some((later) => !later.again && later.files.includes(p))) })).filter((r) => r.files.length > 0);
}

const emptyAfter = (parts: Parts | undefined, files: Report['files'], current: (path: string) => string | undefined) => Object.fromEntries(Object.entries(parts?.empty ?? {}).filter(([path, source]) => !(path in files) && current(path) === source));

const sameMutant = (a: ReportMutant, b: ReportMutant) => a.mutatorName === b.mutatorName && (a.replacement ?? '') === (b.replacement ?? '') && JSON.stringify(a.location) === JSON.stringify(b.location);

/**
 * An --again run re-ran some mutants of files whose source has not changed since their results
 * (after a test was added to kill them): each of its mutants replaces the same mutant (location,
 * mutator, replacement) of the report so far, and the rest of the file's results stand. A file
 * that changed since, or a mutant the report does not have, is an error: run the file again.
 */
export function mergeAgain(parts: Parts, part: Report, run: PartRun, current: (path: string) => string | undefined): Parts {
  const files: Report['files'] = {};
  for (const [path, f] of Object.entries(parts.report.files)) if (current(path) === f.source) files[path] = f;
  for (const [path, f] of Object.entries(part.files)) {
    const before = files[path];
    if (!before || before.source !== f.source) throw new Error(`--again: ${path} has changed since its last results; run it with --files`);
    const mutants = before.mutants.map((m) => ({ ...m }));
    for (const m of f.mutants) {
      const i = mutants.findIndex((x) => sameMutant(x, m));
      if (i < 0) throw new Error(`--again: ${path}:${m.location.start.line}: ${m.mutatorName} → ${m.replacement} is not in the last results; run the file with --files`);
      mutants[i] = { ...m, id: mutants[i].id };
    }
    files[path] = { source: f.source, mutants };
  }
  return { report: { ...parts.report, files }, runs: runsAfter(parts, run, files), empty: emptyAfter(parts, files, current) };
}

/** Stryker's mutation ranges (1-based lines, 0-based columns) that cover exactly these survivors. */
export const rangesOf = (survivors: { file: string; location: ReportMutant['location'] }[]) => survivors.map(({ file, location: { start, end } }) => `${file}:${start.line}:${start.column - 1}-${end.line}:${end.column - 1}`);

interface FolderResult {
  folder: string;
  counts: Counts;
  listed: number;
  unlisted: Survivor[];
  stale: Equivalent[];
  seconds: number;
  command: string;
}

function survivorsOf(report: Report, statuses = ['Survived', 'NoCoverage']): Survivor[] {
  const out: Survivor[] = [];
  for (const [path, f] of Object.entries(report.files)) {
    const file = relative(root, join(root, path)).replace(/\\/g, '/');
    for (const m of f.mutants) {
      if (!statuses.includes(m.status)) continue;
      out.push({
        file,
        line: m.location.start.line,
        column: m.location.start.column,
        mutator: m.mutatorName,
        original: originalText(f.source, m.location),
        replacement: m.replacement ?? '',
        status: m.status,
      });
    }
  }
  return out.sort((a, b) => (a.file === b.file ? a.line - b.line || a.column - b.column : a.file < b.file ? -1 : 1));
}

const clip = (s: string, n = 60) => {
  const o = oneLine(s);
  return o.length > n ? `${o.slice(0, n - 1)}…` : o;
};
const md = (s: string) => `\`${clip(s).replace(/`/g, "'").replace(/\|/g, '\\|')}\``;

function writeFolderMarkdown(r: FolderResult, report: Report, name: string): void {
  const rows: string[] = [];
  for (const [path, f] of Object.entries(report.files).sort()) {
    const c = count(f.mutants);
    rows.push(`| ${path} | ${c.total} | ${c.Killed} | ${c.Timeout} | ${c.Survived} | ${c.NoCoverage} | ${c.CompileError} | ${c.RuntimeError} | ${score(c).toFixed(1)} % |`);
  }
  const c = r.counts;
  const lines = [
    `# Mutation testing: ${r.folder}`,
    '',
    `\`${r.command}\` — ${(r.seconds / 60).toFixed(1)} min, ${new Date().toISOString()}`,
    '',
    `Score ${score(c).toFixed(1)} % (${c.Killed + c.Timeout} detected of ${c.Killed + c.Timeout + c.Survived + c.NoCoverage} valid mutants; ${c.CompileError} rejected by the type checker, ${c.RuntimeError} runtime errors); ${r.listed} survivors listed as equivalent, ${r.unlisted.length} unlisted, ${r.stale.length} stale entries.`,
    '',
    '| file | mutants | killed | timeout | survived | no coverage | compile error | runtime error | score |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
  ];
  if (r.unlisted.length > 0) {
    lines.push('## Survivors not listed in test/mutation-equivalents.json', '', '| where | mutator | original | replacement | status |', '| --- | --- | --- | --- | --- |');
    for (const s of r.unlisted) lines.push(`| ${s.file}:${s.line}:${s.column} | ${s.mutator} | ${md(s.original)} | ${md(s.replacement)} | ${s.status} |`);
    lines.push('');
  }
  if (r.stale.length > 0) {
    lines.push('## Stale entries (no longer survivors)', '');
    for (const e of r.stale) lines.push(`- ${e.file}:${e.line} ${e.mutator} ${md(e.original)} → ${md(e.replacement)}`);
    lines.push('');
  }
  writeFileSync(join(reportDir, `${name}.md`), lines.join('\n'));
}

/** summary.md: the last result of every folder run so far (kept in summary.json between runs). */
function writeSummary(latest: FolderResult[]): void {
  const kept = join(reportDir, 'summary.json');
  const byFolder = new Map<string, FolderResult>();
  if (existsSync(kept)) for (const r of JSON.parse(readFileSync(kept, 'utf8')) as FolderResult[]) byFolder.set(r.folder, r);
  for (const r of latest) byFolder.set(r.folder, r);
  const results = Object.keys(FOLDERS).flatMap((f) => (byFolder.has(f) ? [byFolder.get(f)!] : []));
  writeFileSync(kept, JSON.stringify(results, null, 1));
  const lines = [
    '# Mutation testing summary',
    '',
    '| folder | mutants | killed | timeout | survived | no coverage | compile error | score | listed | unlisted | stale | minutes |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of results) {
    const c = r.counts;
    lines.push(`| ${r.folder} | ${c.total} | ${c.Killed} | ${c.Timeout} | ${c.Survived} | ${c.NoCoverage} | ${c.CompileError} | ${score(c).toFixed(1)} % | ${r.listed} | ${r.unlisted.length} | ${r.stale.length} | ${(r.seconds / 60).toFixed(1)} |`);
  }
  // the glue as one: every folder's counts added (a score over all its mutants, not a mean of scores)
  const all = count([]);
  for (const r of results) for (const k of Object.keys(all) as (keyof Counts)[]) all[k] += r.counts[k];
  const sum = (f: (r: FolderResult) => number) => results.reduce((t, r) => t + f(r), 0);
  const missing = Object.keys(FOLDERS).filter((f) => !byFolder.has(f));
  lines.push(
    `| **the glue${missing.length ? `, ${results.length} of ${Object.keys(FOLDERS).length} folders` : ''}** | ${all.total} | ${all.Killed} | ${all.Timeout} | ${all.Survived} | ${all.NoCoverage} | ${all.CompileError} | **${score(all).toFixed(1)} %** | ${sum((r) => r.listed)} | ${sum((r) => r.unlisted.length)} | ${sum((r) => r.stale.length)} | ${(sum((r) => r.seconds) / 60).toFixed(1)} |`,
  );
  if (missing.length) lines.push('', `No report yet: ${missing.join(', ')}.`);
  lines.push('', 'Commands:', '', ...results.map((r) => `- \`${r.command}\``));
  writeFileSync(join(reportDir, 'summary.md'), lines.join('\n') + '\n');
}

/** The folder's last whole report as the first part: a --files run then re-runs only the files it names. */
function lastWhole(folder: string): Parts | undefined {
  const file = join(reportDir, `${slug(folder)}.json`);
  const kept = join(reportDir, 'summary.json');
  if (!existsSync(file) || !existsSync(kept)) return undefined;
  const r = (JSON.parse(readFileSync(kept, 'utf8')) as FolderResult[]).find((x) => x.folder === folder);
  if (!r) return undefined;
  const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
  const empty = Object.fromEntries(tracked(FOLDERS[folder]).flatMap((p) => (p in report.files || !existsSync(join(root, p)) ? [] : [[p, readFileSync(join(root, p), 'utf8')]])));
  return { report, runs: [{ command: r.command, commit: 'an earlier run', seconds: r.seconds, files: Object.keys(report.files) }], empty };
}

const headCommit = () => execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();

/** The folder's test files that the files mutated by this run (all, or those `files` matches) name. */
export function testsOf(f: Folder, files: string | undefined): string[] {
  if (!f.testsFor) return f.tests;
  const mutated = tracked(f).filter((p) => files === undefined || minimatch(p, files));
  const named = new Set<string>();
  for (const p of mutated) for (const n of f.testsFor[p] ?? f.tests.map((x) => x.slice('test/'.length, -'.test.ts'.length))) named.add(`test/${n}.test.ts`);
  return f.tests.filter((x) => named.has(x));
}

/** The committed TypeScript files of a folder, less its exclusions. */
function tracked(f: Folder): string[] {
  const git = root === repo ? ['ls-files', '-z', '--', f.dir] : ['ls-tree', '-r', '-z', '--name-only', 'HEAD', '--', f.dir];
  const out = execFileSync('git', git, { cwd: repo, encoding: 'utf8' });
  return [...out.split('\0').filter((p) => p.endsWith('.ts') && !(f.exclude?.test(p) ?? false)), ...(f.extra ?? [])];
}

function strykerOptions(folder: string, f: Folder, opts: { files?: string; ranges?: string[]; incremental: boolean; concurrency: number; check: boolean; survey?: boolean }) {
  const s = slug(folder);
  return {
    mutate: opts.ranges ?? (opts.files ? [opts.files] : tracked(f)),
    testRunner: 'tap',
    checkers: opts.check ? ['typescript'] : [],
    tsconfigFile: 'tsconfig.mutation.json', // src only: a test that does not compile (others' work in progress) must not stop it
    typescriptChecker: { prioritizePerformanceOverAccuracy: true },
    plugins: ['@stryker-mutator/tap-runner', '@stryker-mutator/typescript-checker'],
    tap: {
      testFiles: f.tests.filter((p) => existsSync(join(root, p))),
      nodeArgs: ['--import', 'tsx', '--test-reporter=tap', '-r', '{{hookFile}}', '{{testFile}}'],
      forceBail: true,
    },
    coverageAnalysis: 'perTest',
    concurrency: opts.concurrency,
    reporters: ['json', 'progress-append-only'],
    // a partial run (--files) does not replace the folder's report
    jsonReporter: { fileName: join(reportDir, `${s}${opts.survey ? '.survey' : opts.ranges ? '.again' : opts.files ? '.files' : ''}.json`) },
    incremental: opts.incremental,
    incrementalFile: join(reportDir, `${s}.incremental.json`),
    tempDirName: '.stryker-tmp',
    cleanTempDir: true,
    // the sandbox needs the sources, the tests and their vectors, and the configuration; not the rest
    // (test/stream-spec.test.ts reads the specification's vectors from docs/stream-format.md,
    // cli-help compares the help with docs/cli.md, cli-main runs bench/run.ts)
    ignorePatterns: ['/dist', '/reports', '/docs', '!/docs/stream-format.md', '!/docs/cli.md', '/ci', '/scratch-*', '/.bench-base', '*.log', '*.tgz'],
    timeoutMS: 10000,
    dryRunTimeoutMinutes: 30, // src/cli's and src/ec's test files take several minutes (Stryker's default is 5)
    logLevel: 'info',
    fileLogLevel: 'off',
  };
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const flag = (name: string) => {
    const i = args.indexOf(name);
    if (i < 0) return undefined;
    const v = args[i + 1];
    args.splice(i, 2);
    return v;
  };
  const files = flag('--files');
  const only = flag('--tests');
  const concurrency = Number(flag('--concurrency') ?? '1');
  const incremental = args.includes('--incremental');
  const again = args.includes('--again');
  const head = args.includes('--head');
  const check = !args.includes('--no-check');
  const recheck = args.includes('--recheck');
  const list = args.includes('--list');
  const folders = args.filter((a) => !a.startsWith('--')).map((a) => a.replace(/\/+$/, ''));
  if (list) {
    for (const [k, f] of Object.entries(FOLDERS)) console.log(`${k}: ${tracked(f).join(' ')}\n  ${f.tests.join(' ')}`);
    return 0;
  }
  for (const f of folders) if (!(f in FOLDERS)) throw new Error(`unknown folder ${f} (one of ${Object.keys(FOLDERS).join(', ')})`);
  try {
    setPriority(10); // a guest on a shared machine
  } catch {}
  mkdirSync(reportDir, { recursive: true });
  /** the commit the runs start from (HEAD may move while they run) */
  const startCommit = headCommit();
  if (head) {
    // a copy of the committed tree, with the working tree's node_modules
    root = mkdtempSync(join(tmpdir(), 'ctkit-mutation-'));
    execFileSync('bash', ['-c', `git archive HEAD | tar -x -C '${root}'`], { cwd: repo, stdio: 'inherit' });
    symlinkSync(join(repo, 'node_modules'), join(root, 'node_modules'), 'dir');
    const copy = root;
    process.on('exit', () => rmSync(copy, { recursive: true, force: true }));
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => process.exit(130));
    process.chdir(root);
    console.log(`on a copy of HEAD (${startCommit}) in ${root}`);
  }
  const equivalents = readEquivalents();
  const { Stryker } = await import('@stryker-mutator/core');
  const results: FolderResult[] = [];
  for (const folder of folders.length > 0 ? folders : Object.keys(FOLDERS)) {
    // --tests: the folder's files against only these test files, a survey (see the header)
    const f = only ? { ...FOLDERS[folder], tests: t(...only.split(',')) } : { ...FOLDERS[folder], tests: testsOf(FOLDERS[folder], files) };
    const started = Date.now();
    const command = `npm run test:mutation -- ${folder}${files ? ` --files ${files}` : ''}${again ? ' --again' : ''}${incremental ? ' --incremental' : ''}${head ? ' --head' : ''}${check ? '' : ' --no-check'}`;
    const partsFile = join(reportDir, `${slug(folder)}.parts.json`);
    const partsBefore = () => (existsSync(partsFile) ? (JSON.parse(readFileSync(partsFile, 'utf8')) as Parts) : lastWhole(folder));
    // --again: only the survivors of the folder's results so far (of the files --files names)
    // that no entry lists, e.g. after a test was written to kill them
    let targets: { file: string; location: ReportMutant['location'] }[] | undefined;
    if (again) {
      const before = partsBefore();
      if (!before) throw new Error(`--again: ${folder} has no results yet`);
      const unlisted = matchEquivalents(survivorsOf(before.report), equivalents).unlisted.filter((u) => files === undefined || minimatch(u.file, files));
      targets = unlisted.map((u) => {
        const m = before.report.files[u.file].mutants.find((x) => x.location.start.line === u.line && x.location.start.column === u.column && x.mutatorName === u.mutator && (x.replacement ?? '') === u.replacement);
        if (!m) throw new Error(`--again: ${u.file}:${u.line}: survivor not found`);
        return { file: u.file, location: m.location };
      });
      console.log(`${folder}: ${targets.length} unlisted survivors to run again`);
      if (targets.length === 0) continue;
    }
    console.log(`\n=== ${folder}: ${f.tests.join(' ')}`);
    const options = strykerOptions(folder, f, { files, ranges: targets && rangesOf(targets), incremental: incremental && !only && !again, concurrency, check, survey: only !== undefined });
    if (recheck && !existsSync(options.jsonReporter.fileName)) continue;
    if (!recheck) {
      // Stryker takes the options as a plain object; its types are looser than this literal's
      await new Stryker(options as unknown as ConstructorParameters<typeof Stryker>[0]).runMutationTest();
    }
    const reportText = readFileSync(options.jsonReporter.fileName, 'utf8');
    let report = JSON.parse(reportText) as Report;
    // an --incremental part: Stryker's report also holds its baseline's results for the files the
    // glob did not name (reused, judged on their code and tests then); only the named files are
    // this part's results, and the others' parts stand
    if (files && !again) report = { ...report, files: Object.fromEntries(Object.entries(report.files).filter(([p]) => minimatch(p, files))) };
    if (only) {
      // a survey: the mutants these tests leave alive and no list names; nothing else is written
      const left = matchEquivalents(survivorsOf(report), equivalents).unlisted;
      console.log(`${folder} against ${f.tests.join(' ')}: ${left.length} unlisted survivors, ${((Date.now() - started) / 60000).toFixed(1)} min → ${options.jsonReporter.fileName}`);
      for (const s of left) console.log(`  ${s.status} ${s.file}:${s.line}:${s.column} ${s.mutator} ${clip(s.original)} → ${clip(s.replacement)}`);
      continue;
    }
    // Stryker only warns when the glob matches nothing (then runs every test for no mutant)
    if (files && !again && Object.keys(report.files).length === 0) {
      throw new Error(`${folder}: --files '${files}' mutated no file (braces around a single pattern, {src/x/{a,b}.ts}, match nothing: write src/x/{a,b}.ts)`);
    }
    // the baseline of a later --incremental run (Stryker writes it itself only in incremental runs)
    if (!files && !again) writeFileSync(options.incrementalFile, reportText);
    // a whole run supersedes the parts before it (the next part starts from this report)
    if (!files && !again && !recheck) rmSync(partsFile, { force: true });
    // a part (--files): merged into the folder's parts; once they cover every file of the folder
    // with its current source, they are the folder's report
    const runFile = options.jsonReporter.fileName.replace(/\.json$/, '.run.json');
    const commit = head ? startCommit : `the working tree on ${startCommit}`;
    const partial = files !== undefined || again;
    if (targets) {
      const ran = Object.entries(report.files).flatMap(([file, x]) => x.mutants.map((m) => ({ ...m, file })));
      for (const t of targets) if (!ran.some((m) => m.file === t.file && JSON.stringify(m.location) === JSON.stringify(t.location))) throw new Error(`--again: ${t.file}:${t.location.start.line} did not run`);
    }
    if (partial && !recheck) writeFileSync(runFile, JSON.stringify({ command, commit, seconds: (Date.now() - started) / 1000, ...(again ? { again: true } : {}) }));
    let assembled: PartRun[] | undefined;
    if (partial && existsSync(runFile)) {
      const before = partsBefore();
      const run: PartRun = { ...(JSON.parse(readFileSync(runFile, 'utf8')) as Omit<PartRun, 'files'>), files: Object.keys(report.files) };
      const current = (p: string) => (existsSync(join(root, p)) ? readFileSync(join(root, p), 'utf8') : undefined);
      const named = files ? tracked(f).filter((p) => minimatch(p, files)) : [];
      const parts = run.again && before ? mergeAgain(before, report, run, current) : mergeParts(before, report, run, current, named);
      writeFileSync(partsFile, JSON.stringify(parts));
      const missing = tracked(f).filter((p) => !(p in parts.report.files) && !(p in (parts.empty ?? {})));
      if (missing.length === 0) {
        report = parts.report;
        assembled = parts.runs;
        writeFileSync(join(reportDir, `${slug(folder)}.json`), JSON.stringify(report));
      } else console.log(`${folder}: parts cover ${tracked(f).length - missing.length} of ${tracked(f).length} files; still to run: ${missing.join(' ')}`);
    }
    const whole = !partial || assembled !== undefined;
    const mutated = new Set(Object.keys(report.files));
    const survivors = survivorsOf(report);
    const mine = equivalents.filter((e) => mutated.has(e.file) || (whole && tracked(f).includes(e.file)));
    const first = matchEquivalents(survivors, mine);
    const { unlisted } = first;
    // A listed equivalent that timed out: no test can detect it, so the machine was slow (another
    // run beside this one), not the mutant caught. It counts as a survivor, not as a detection,
    // and its entry is not stale.
    const second = matchEquivalents(survivorsOf(report, ['Timeout']), first.stale);
    const stale = second.stale;
    const slow = second.matched;
    const matched = first.matched + slow;
    const counts = count(Object.values(report.files).flatMap((x) => x.mutants));
    counts.Timeout -= slow;
    counts.Survived += slow;
    const previous = recheck && existsSync(join(reportDir, 'summary.json')) ? (JSON.parse(readFileSync(join(reportDir, 'summary.json'), 'utf8')) as FolderResult[]).find((x) => x.folder === folder) : undefined;
    const r: FolderResult = {
      folder,
      counts,
      listed: matched,
      unlisted,
      stale,
      seconds: assembled ? assembled.reduce((a, x) => a + x.seconds, 0) : previous ? previous.seconds : (Date.now() - started) / 1000,
      command: assembled ? assembled.map((x) => `${x.command} (at ${x.commit})`).join('; ') : previous ? previous.command : command,
    };
    results.push(r);
    const name = `${slug(folder)}${whole ? '' : '.files'}`;
    writeFolderMarkdown(r, report, name);
    if (whole) writeSummary(results);
    console.log(
      `${folder}: score ${score(r.counts).toFixed(1)} %, ${r.listed} listed (${slow} of them timed out: counted as survivors), ${unlisted.length} unlisted, ${stale.length} stale, ${(r.seconds / 60).toFixed(1)} min → reports/mutation/${name}.md`,
    );
    for (const s of unlisted) console.log(`  unlisted ${s.status} ${s.file}:${s.line}:${s.column} ${s.mutator} ${clip(s.original)} → ${clip(s.replacement)}`);
    for (const e of stale) console.log(`  stale ${e.file}:${e.line} ${e.mutator} ${clip(e.original)} → ${clip(e.replacement)}`);
  }
  const bad = results.some((r) => r.unlisted.length > 0 || r.stale.length > 0);
  if (bad) console.log('\nFAIL: every survivor must be killed by a test or listed (with its reason) in test/mutation-equivalents.json, and no entry may be stale.');
  return bad ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().then(
    (code) => process.exit(code),
    (e) => {
      console.error(e);
      process.exit(2);
    },
  );
}

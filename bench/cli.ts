// `ctkit seal` and `ctkit open` of a 1 GiB file, stdout to /dev/null, beside `age` (the file
// encryption tool with the same construction: ChaCha20-Poly1305, 64 KiB segments, STREAM) and
// beside the kernel's own throughput on the same machine in the same run:
//
//   <alg>/cli-seal/1GiB, <alg>/cli-open/1GiB   one run of the command per operation
//     ctkit --jobs 1     the CLI on this thread
//     ctkit              the CLI with its default --jobs (every core)
//     age                `age -r <recipient>` / `age -d -i <identity>` (chacha20-poly1305 rows;
//                        skipped with a message when age is not installed)
//     ctkit age          `ctkit age -r` / `ctkit age -d -i` on the same recipient and age file
//                        (default --jobs, and --jobs 1)
//     kernel 1MiB×1024   in this process: aead.seal / aead.open of 1 MiB, 1024 times (the
//                        encrypt/1048576 row's work for 1 GiB), the bound the CLI is held to
//     kernel, 1 process  the same loop in one child process of the compiled package (start-up
//                        and import included, as for the CLI)
//     kernel, N processes  the GiB split between N such processes at once, N the number of
//                        cores: what this machine gives for the work spread over every core,
//                        with nothing shared; its ratio to the row above is the most the
//                        default --jobs can gain over --jobs 1 here
//
// The CLI runs compiled, as the package ships it: tsc's dist/ built once per run into the work
// directory (no tsx in the measured process). The 1 GiB input and its sealed forms (about 4 GiB in all)
// are made in a fresh directory under $TMPDIR, removed when the run ends or is interrupted
// (SIGINT, SIGTERM, SIGHUP); CTKIT_BENCH_CLI_DIR=<dir> makes and keeps them there instead, for
// the next run. Each command runs CTKIT_BENCH_CLI_RUNS times (default 3) after one untimed run.
//
// The machine may be shared: besides the table, the run prints to stderr the CPU time (user+sys)
// per operation of each row, median (bench/witness.ts: the command's, from /proc/self/stat; this
// process's for the kernel rows), and the load average when each case started and ended.

import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { aesGcm, chacha20Poly1305, type Aead } from '../src/aead/index.js';
import type { Case, Family, Setup } from './harness.js';
import { bytes } from './inputs.js';
import { witnessCpu } from './witness.js';

const GiB = 1 << 30;
const RUNS = Math.max(1, Number(process.env.CTKIT_BENCH_CLI_RUNS ?? 3) || 3);
const repo = fileURLToPath(new URL('../', import.meta.url));
const keptDir = process.env.CTKIT_BENCH_CLI_DIR;
let work = '';

/** The directory of this run's files: made at the first row, removed at exit and on a signal. */
function workDir(): string {
  if (work) return work;
  if (keptDir) {
    mkdirSync(keptDir, { recursive: true });
    return (work = keptDir);
  }
  const dir = mkdtempSync(join(tmpdir(), 'ctkit-bench-cli-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  process.on('exit', remove);
  janitor(dir);
  for (const sig of SIGNALS) {
    process.on(sig, () => {
      remove();
      interrupted(sig);
    });
  }
  return (work = dir);
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * A detached process that removes `dir` once this one is gone however it ended: its stdin is a
 * pipe from here, closed by the kernel when this process exits or is killed. (Blocked in
 * spawnSync, this process cannot answer a signal, and tsx, which runs it, sends SIGKILL to a
 * child that does not report a SIGINT within 60 ms.)
 */
function janitor(dir: string): void {
  const code = `process.stdin.resume(); process.stdin.on('close', () => require('node:fs').rmSync(${JSON.stringify(dir)}, { recursive: true, force: true }));`;
  const j = spawn(process.execPath, ['-e', code], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
  j.unref();
  (j.stdin as unknown as { unref(): void }).unref();
}

/** Ends this process by `sig` (its default action: the parent sees the signal), the files gone. */
function interrupted(sig: NodeJS.Signals): never {
  if (!keptDir && work) rmSync(work, { recursive: true, force: true });
  for (const s of SIGNALS) process.removeAllListeners(s);
  process.kill(process.pid, sig);
  process.exit(130);
}

/**
 * The CLI as the package ships it: the sources compiled by tsc (the `build` script's two
 * configurations) into <work>/cli/dist, one module per file, with bin/ctkit.js and package.json
 * beside it. (A single esbuild bundle would time something else: it inlines the dynamic imports,
 * so every command would load every kernel module, 3 MB, about 0.1 s per process and per worker.)
 */
function buildCli(): string {
  const out = join(workDir(), 'cli');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(join(out, 'bin'), { recursive: true });
  copyFileSync(join(repo, 'package.json'), join(out, 'package.json'));
  copyFileSync(join(repo, 'bin/ctkit.js'), join(out, 'bin/ctkit.js'));
  const tsc = join(repo, 'node_modules/typescript/bin/tsc');
  for (const config of ['tsconfig.build.json', 'tsconfig.cli.json']) run(process.execPath, [tsc, '-p', join(repo, config), '--outDir', join(out, 'dist')]);
  return join(out, 'bin/ctkit.js');
}

/** Runs a command to the end (a command killed by the user's interrupt ends the benchmark too). */
function run(cmd: string, args: string[], stdout: 'ignore' | number = 'ignore'): void {
  const r = spawnSync(cmd, args, { stdio: ['ignore', stdout, 'pipe'] });
  if (r.signal === 'SIGINT' || r.signal === 'SIGTERM' || r.signal === 'SIGHUP') interrupted(r.signal);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status} ${r.signal ?? ''} ${String(r.stderr).trim()}`);
}

const hasAge = spawnSync('age', ['--version']).status === 0;
const ALGS = ['chacha20-poly1305', 'aes-256-gcm'] as const;
let plainPath = '';
const keyFile = (alg: string) => join(work, `${alg}.key`);
const sealedPath = (alg: string) => join(work, `plain-1GiB.${alg}.ctk`);
let ageKey = '';
let agePath = '';
let main = '';
let ageRecipient = '';
let loopPath = '';

/** The kernel loop of the process rows: `node kernel-loop.mjs <alg> seal|open <MiB>`, on the compiled package. */
const loopSource = (aeadIndex: string) => `const { aesGcm, chacha20Poly1305 } = await import(${JSON.stringify(aeadIndex)});
const [alg, op, mib] = process.argv.slice(2);
const aead = (alg === 'aes-256-gcm' ? aesGcm : chacha20Poly1305)(new Uint8Array(32).fill(7));
const nonce = new Uint8Array(12).fill(9);
const msg = new Uint8Array(1 << 20).fill(11);
const sealed = aead.seal(nonce, msg);
const out = new Uint8Array(op === 'open' ? msg.length : sealed.length);
for (let i = 0; i < Number(mib); i++) {
  if (op === 'open') aead.open(nonce, sealed, undefined, out);
  else aead.seal(nonce, msg, undefined, out);
}
`;

/** Builds the CLI and makes the files, once, when a row of this family first runs (not at import). */
function prepare(): void {
  if (main) return;
  main = buildCli();
  loopPath = join(work, 'kernel-loop.mjs');
  writeFileSync(loopPath, loopSource(pathToFileURL(join(work, 'cli/dist/aead/index.js')).href));
  plainPath = join(work, 'plain-1GiB');
  ageKey = join(work, 'age.key');
  agePath = join(work, 'plain-1GiB.age');
  if (!hasAge) console.error('bench cli: `age` is not installed (apt-get install -y age): the age rows are skipped');
  if (!existsSync(plainPath) || statSync(plainPath).size !== GiB) {
    const fd = openSync(plainPath, 'w');
    const block = bytes(1 << 20, 0x51f15eed);
    for (let i = 0; i < 1024; i++) {
      block[0] = i; // not the same MiB over and over
      writeSync(fd, block);
    }
    closeSync(fd);
  }
  for (const alg of ALGS) {
    if (!existsSync(keyFile(alg))) run(process.execPath, [main, 'keygen', '--aead', alg, '-o', keyFile(alg)]);
    rmSync(sealedPath(alg), { force: true });
    run(process.execPath, [main, 'seal', '-k', keyFile(alg), plainPath, '-o', sealedPath(alg)]);
  }
  if (hasAge) {
    if (!existsSync(ageKey)) run('age-keygen', ['-o', ageKey]);
    ageRecipient = /age1[0-9a-z]+/.exec(readFileSync(ageKey, 'utf8'))![0];
    rmSync(agePath, { force: true });
    run('age', ['-r', ageRecipient, '-o', agePath, plainPath]);
  }
}

const devNull = openSync('/dev/null', 'w');
const cli =
  (args: () => string[]): Setup =>
  () => {
    prepare();
    const a = args();
    return () => run(process.execPath, [main, ...a], devNull);
  };

/** The kernel's encrypt/1 MiB (or decrypt) work for 1 GiB, in this process. */
function kernel(alg: string, open: boolean): Setup {
  return () => {
    const aead: Aead = (alg === 'aes-256-gcm' ? aesGcm : chacha20Poly1305)(bytes(32, 7));
    const nonce = bytes(12, 9);
    const msg = bytes(1 << 20, 11);
    const sealed = aead.seal(nonce, msg);
    const out = new Uint8Array(open ? msg.length : sealed.length);
    return () => {
      for (let i = 0; i < 1024; i++) {
        if (open) aead.open(nonce, sealed, undefined, out);
        else aead.seal(nonce, msg, undefined, out);
      }
      return out;
    };
  };
}

/**
 * The kernel loop in `procs` child processes at once (the compiled package's AEAD), 1024 / procs
 * MiB each; sh waits for them all, so their CPU time reaches the witness.
 */
function kernelProcesses(alg: string, open: boolean, procs: number): Setup {
  return () => {
    prepare();
    const each = String(Math.ceil(1024 / procs));
    const sh = 'p=""; i=0; while [ $i -lt "$1" ]; do "$2" "$3" "$4" "$5" "$6" & p="$p $!"; i=$((i + 1)); done; s=0; for q in $p; do wait "$q" || s=1; done; exit $s';
    return () => run('sh', ['-c', sh, 'sh', String(procs), process.execPath, loopPath, alg, open ? 'open' : 'seal', each]);
  };
}
const cores = Math.max(1, availableParallelism());

const cases: Case[] = [];
for (const alg of ALGS) {
  const seal: Case = {
    name: `${alg}/cli-seal/1GiB`,
    bytes: GiB,
    impls: {
      'ctkit --jobs 1': cli(() => ['seal', '-k', keyFile(alg), plainPath, '--jobs', '1']),
      ctkit: cli(() => ['seal', '-k', keyFile(alg), plainPath]),
      'kernel 1MiB×1024': kernel(alg, false),
      'kernel, 1 process': kernelProcesses(alg, false, 1),
      [`kernel, ${cores} processes`]: kernelProcesses(alg, false, cores),
    },
  };
  const open: Case = {
    name: `${alg}/cli-open/1GiB`,
    bytes: GiB,
    impls: {
      'ctkit --jobs 1': cli(() => ['open', '-k', keyFile(alg), sealedPath(alg), '--jobs', '1']),
      ctkit: cli(() => ['open', '-k', keyFile(alg), sealedPath(alg)]),
      'kernel 1MiB×1024': kernel(alg, true),
      'kernel, 1 process': kernelProcesses(alg, true, 1),
      [`kernel, ${cores} processes`]: kernelProcesses(alg, true, cores),
    },
  };
  if (hasAge && alg === 'chacha20-poly1305') {
    seal.impls.age = () => {
      prepare();
      return () => run('age', ['-r', ageRecipient, plainPath], devNull);
    };
    open.impls.age = () => {
      prepare();
      return () => run('age', ['-d', '-i', ageKey, agePath], devNull);
    };
    // `ctkit age` (the age format, issue 17): the same recipient, the same age file
    seal.impls['ctkit age'] = cli(() => ['age', '-r', ageRecipient, plainPath]);
    seal.impls['ctkit age --jobs 1'] = cli(() => ['age', '-r', ageRecipient, plainPath, '--jobs', '1']);
    open.impls['ctkit age'] = cli(() => ['age', '-d', '-i', ageKey, agePath]);
    open.impls['ctkit age --jobs 1'] = cli(() => ['age', '-d', '-i', ageKey, agePath, '--jobs', '1']);
  }
  cases.push(seal, open);
}

// every row: RUNS timed runs (after an untimed one), its CPU time witnessed
for (const c of cases) c.minRuns = RUNS;
witnessCpu('CLI', cases);

const family: Family = { title: 'CLI: seal and open a 1 GiB file to /dev/null', cases };
export default family;

// The package as a consumer gets it (issue 12, points 9 and 13): build, `npm pack`, install the
// tarball into a fresh directory outside the repository, and there run one smoke program of
// every family (ci/consumer/smoke.mjs) under Node (ESM and require), Deno, Bun and headless
// Chromium (main thread and a Worker, bundled by esbuild, served from 127.0.0.1), run the
// installed `ctkit` command, and type-check a TypeScript consumer against the packed .d.ts under
// moduleResolution node16 and bundler. Expected values come from OpenSSL, Wycheproof and the
// RFCs (test/smoke/cases.ts); the signatures each runtime makes are verified with OpenSSL here.
//
// Run by `npm run test:package` (.ci/run runs it after `npm test`); not part of `npm test`,
// whose glob is test/*.test.ts. Needs the dev dependencies (deno, bun, puppeteer-core, esbuild,
// typescript) and /usr/bin/chromium (or $CHROMIUM); a missing one fails, nothing is skipped.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createECDH, createPrivateKey, createPublicKey, verify } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { makeCases, type Cases } from './cases.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const consumerSrc = join(repo, 'ci', 'consumer');
const work = mkdtempSync(join(tmpdir(), 'ctkit-package-'));
const consumer = join(work, 'consumer');
const bin = (name: string): string => join(repo, 'node_modules', '.bin', name);
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const TIMEOUT = 180_000;

interface Check {
  name: string;
  ok: boolean;
  detail?: string;
}
interface SmokeResult {
  checks: Check[];
  signatures: Record<string, { der: string; p1363: string }>;
  error?: string;
}
interface PackFile {
  path: string;
  size: number;
}
interface Pack {
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: PackFile[];
}

let cases: Cases;
let pack: Pack;
const results = new Map<string, SmokeResult>();

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { cwd, env: { ...process.env, NO_COLOR: '1', ...env }, encoding: 'utf8', timeout: TIMEOUT, maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function mustRun(cmd: string, args: string[], cwd: string): string {
  const r = run(cmd, args, cwd);
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} exited ${r.status}\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`);
  return r.stdout;
}

before(() => {
  // a fresh build (the build script starts by removing dist/), then the tarball exactly as npm makes it
  mustRun('npm', ['run', 'build'], repo);
  const out = mustRun('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], repo);
  pack = (JSON.parse(out) as Pack[])[0];
  cases = makeCases();

  mkdirSync(consumer);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'ctkit-consumer', private: true, type: 'module' }, null, 2));
  for (const f of readdirSync(consumerSrc)) copyFileSync(join(consumerSrc, f), join(consumer, f));
  writeFileSync(join(consumer, 'cases.mjs'), `export default ${JSON.stringify(cases)};\n`);
  writeFileSync(join(consumer, 'cases.cjs'), `module.exports = ${JSON.stringify(cases)};\n`);
  mustRun('npm', ['install', '--no-audit', '--no-fund', join(work, pack.filename)], consumer);
});

after(() => rmSync(work, { recursive: true, force: true }));

/** Every check passed, all curves signed, and OpenSSL verifies each signature the runtime made. */
function assertSmoke(runtime: string, r: SmokeResult): void {
  assert.equal(r.error, undefined, `${runtime}: ${r.error}`);
  const failed = r.checks.filter((c) => !c.ok);
  assert.deepEqual(failed, [], `${runtime}: ${failed.length} of ${r.checks.length} checks failed`);
  assert.ok(r.checks.length >= 200, `${runtime}: only ${r.checks.length} checks ran`);
  for (const c of cases.ec) {
    const sig = r.signatures[c.curve];
    assert.ok(sig, `${runtime}: no ${c.curve} signature`);
    const key = createPublicKey({ key: Buffer.from(c.spkiDer, 'hex'), format: 'der', type: 'spki' });
    const msg = Buffer.from(c.msg, 'hex');
    assert.ok(verify(c.hash, msg, { key, dsaEncoding: 'der' }, Buffer.from(sig.der, 'hex')), `${runtime}: OpenSSL rejects ctkit's ${c.curve} DER signature`);
    assert.ok(verify(c.hash, msg, { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(sig.p1363, 'hex')), `${runtime}: OpenSSL rejects ctkit's ${c.curve} P1363 signature`);
  }
  results.set(runtime, r);
  console.log(`# ${runtime}: ${r.checks.length} checks passed, ${cases.ec.length * 2} signatures verified by OpenSSL`);
}

function smokeLine(runtime: string, r: { status: number | null; stdout: string; stderr: string }): SmokeResult {
  assert.equal(r.status, 0, `${runtime} exited ${r.status}\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`);
  const line = r.stdout.split('\n').find((l) => l.startsWith('CTKIT-SMOKE '));
  assert.ok(line, `${runtime} printed no result\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`);
  return JSON.parse(line.slice('CTKIT-SMOKE '.length)) as SmokeResult;
}

test('npm pack ships dist/, bin/ctkit.js, README, LICENSE and package.json, nothing of src/', () => {
  const paths = pack.files.map((f) => f.path).sort();
  const top = new Set(['LICENSE', 'README.md', 'bin/ctkit.js', 'package.json']);
  const stray = paths.filter((p) => !top.has(p) && !p.startsWith('dist/'));
  assert.deepEqual(stray, [], 'files outside dist/ and the four top-level files');
  for (const p of top) assert.ok(paths.includes(p), `${p} is not packed`);
  // no generator, kernel text, reference model, test or source map: of src/kernels only the
  // constants-only layout files that the AES and SM4 glue import (dist/ct is the checker behind
  // the `ctkit ct-check` command, so it ships)
  const bad = paths.filter((p) => /\.wat$|\.ts$(?<!\.d\.ts)|\.map$|\.test\./.test(p) || p.startsWith('dist/ref/') || (p.startsWith('dist/kernels/') && !/^dist\/kernels\/\w+_layout\.(js|d\.ts)$/.test(p)));
  assert.deepEqual(bad, [], 'generators, .wat, sources or maps in the tarball');
  // every exports target and the bin are in the tarball
  const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { exports: Record<string, string | Record<string, string>>; bin: Record<string, string>; license: string };
  // a pattern export (./ec/js/*: one file per curve with an opt-in js backend) covers each of
  // its sources in src/, built and packed
  const optIn = readdirSync(join(repo, 'src', 'ec', 'js')).map((f) => f.replace(/\.ts$/, ''));
  assert.ok(optIn.length >= 5, `src/ec/js has ${optIn.join(', ')}`);
  for (const [sub, target] of Object.entries(manifest.exports)) {
    for (const file of typeof target === 'string' ? [target] : Object.values(target)) {
      const each = file.includes('*') ? optIn.map((name) => file.replace('*', name)) : [file];
      for (const f of each) assert.ok(paths.includes(f.replace(/^\.\//, '')), `exports["${sub}"] → ${f} is not packed`);
    }
  }
  for (const file of Object.values(manifest.bin)) assert.ok(paths.includes(file.replace(/^\.\//, '')), `bin ${file} is not packed`);
  assert.equal(manifest.license, 'MIT');
  assert.match(readFileSync(join(repo, 'LICENSE'), 'utf8'), /^MIT License\n\nCopyright \(c\) \d{4} ctkit contributors\n/);
  // the command runs dist/ only, never the TypeScript sources through a consumer's tsx
  const binText = readFileSync(join(repo, 'bin', 'ctkit.js'), 'utf8');
  assert.doesNotMatch(binText, /['"]tsx|\.\.\/src\//);
  assert.match(binText, /\.\.\/dist\/cli\/main\.js/);
  // a ceiling above today's size (12.5 MB unpacked, 2.0 MB packed: the scalar wasm and js
  // backends, 6.9 MB of it the opt-in JavaScript of the eight curves, X25519 and Ed25519), so that
  // sources or kernel text (the .wat alone is about 10 MB) slipping back in fails
  assert.ok(pack.unpackedSize < 14_000_000, `unpacked ${pack.unpackedSize} bytes`);
  console.log(`# npm pack: ${pack.filename} ${pack.size} bytes packed, ${pack.unpackedSize} unpacked, ${pack.entryCount} files`);
});

test('the installed ctkit command runs from dist/: keygen, seal, open, a tampered file fails, ct-check', () => {
  const ctkit = join(consumer, 'node_modules', '.bin', 'ctkit');
  assert.ok(!existsSync(join(consumer, 'node_modules', 'tsx')), 'the consumer has no tsx');
  assert.ok(!existsSync(join(consumer, 'node_modules', 'ctkit', 'src')), 'the installed package has no src/');
  assert.match(mustRun(ctkit, ['--version'], consumer), /0\.\d+\.\d+/);
  // the constant-time checker ships (dist/ct) for this command and runs on the shipped modules
  assert.match(mustRun(ctkit, ['ct-check', '--shipped', 'chacha', '--summary'], consumer), /chacha: \d+ functions checked, 0 violations/);
  const msg = Buffer.from(cases.hash[0].msg.repeat(400), 'hex'); // 80,000 bytes: two segments
  writeFileSync(join(consumer, 'msg.bin'), msg);
  mustRun(ctkit, ['keygen', '--aead', 'chacha20-poly1305', '-o', 'secret.key'], consumer);
  mustRun(ctkit, ['seal', '--key', 'secret.key', 'msg.bin', '-o', 'msg.ctk'], consumer);
  mustRun(ctkit, ['open', '--key', 'secret.key', 'msg.ctk', '-o', 'msg.out'], consumer);
  assert.ok(readFileSync(join(consumer, 'msg.out')).equals(msg), 'open(seal(msg)) = msg');
  const sealed = readFileSync(join(consumer, 'msg.ctk'));
  sealed[sealed.length - 1] ^= 1;
  writeFileSync(join(consumer, 'bad.ctk'), sealed);
  const r = run(ctkit, ['open', '--key', 'secret.key', 'bad.ctk', '-o', 'bad.out'], consumer);
  assert.equal(r.status, 1, `open of a tampered file: exit ${r.status}, ${r.stderr}`);
  assert.ok(!existsSync(join(consumer, 'bad.out')), 'no output for a tampered file');
});

test('negative control: the smoke fails on a wrong expected value of each family, OpenSSL on a wrong signature', async () => {
  const load = (entry: string): Promise<Record<string, unknown>> => import(pathToFileURL(join(consumer, 'node_modules', 'ctkit', 'dist', entry)).href);
  const m = { root: await load('index.js'), aead: await load('aead/index.js'), mac: await load('mac/index.js'), hash: await load('hash/index.js'), ec: await load('ec/index.js') };
  const { smoke } = (await import(pathToFileURL(join(consumer, 'smoke.mjs')).href)) as { smoke: (m: unknown, c: Cases) => Promise<SmokeResult> };
  const bad = structuredClone(cases);
  const flipHex = (s: string): string => s.slice(0, -1) + (s.endsWith('0') ? '1' : '0');
  bad.aead[0].sealed = flipHex(bad.aead[0].sealed);
  bad.stream[0].out = flipHex(bad.stream[0].out);
  bad.mac[0].tag = flipHex(bad.mac[0].tag);
  bad.hash[1].digest = flipHex(bad.hash[1].digest);
  bad.ec[0].shared = flipHex(bad.ec[0].shared);
  bad.ec[1].pkcs8Der = flipHex(bad.ec[1].pkcs8Der);
  bad.ec[2].sigP1363 = bad.ec[2].sigP1363.slice(0, 10) + flipHex(bad.ec[2].sigP1363.slice(10, 12)) + bad.ec[2].sigP1363.slice(12);
  const r = await smoke(m, bad);
  const failed = r.checks
    .filter((c) => !c.ok)
    .map((c) => c.name)
    .sort();
  // a check that throws ends its block (the block's ': runs' check fails instead of the rest)
  assert.deepEqual(
    failed,
    [
      `${bad.aead[0].name}: runs`, // open of the altered sealed message throws AuthenticationError
      `${bad.aead[0].name}: seal = OpenSSL`,
      `${bad.ec[2].curve} verify(OpenSSL P1363 signature)`,
      `${bad.stream[0].name} = OpenSSL`,
      `${bad.mac[0].name} create().update()×2.digest()`,
      `${bad.mac[0].name} one-shot = ${bad.mac[0].source}`,
      `${bad.ec[1].curve}: runs`, // the altered PKCS#8 (its public key) is refused
      `${bad.ec[0].curve} ecdh(a, B) = OpenSSL`,
      `${bad.ec[0].curve} ecdh(b, compressed A) = OpenSSL`,
      `${bad.hash[1].name} = OpenSSL`,
      `${bad.hash[1].name} create().update()×2.digest() = OpenSSL`,
    ].sort(),
  );
  // and a flipped bit of a good signature fails the OpenSSL check of assertSmoke
  const good = await smoke(m, cases);
  const sig = Buffer.from(good.signatures.p256.der, 'hex');
  sig[sig.length - 2] ^= 1;
  const key = createPublicKey({ key: Buffer.from(cases.ec[0].spkiDer, 'hex'), format: 'der', type: 'spki' });
  assert.equal(verify('sha256', Buffer.from(cases.ec[0].msg, 'hex'), { key, dsaEncoding: 'der' }, sig), false);
});

test('without WebAssembly, ctkit/ec/js/p256 gives P-256 its js backend; without that import, the typed error names it', () => {
  const sk = Buffer.alloc(32, 7);
  const e = createECDH('prime256v1');
  e.setPrivateKey(sk);
  const body = (optIn: boolean) =>
    `delete globalThis.WebAssembly; const { p256, backend } = await import('ctkit');${optIn ? " await import('ctkit/ec/js/p256');" : ''}
     try { console.log(backend(), Buffer.from(p256.getPublicKey(new Uint8Array(32).fill(7))).toString('hex')); } catch (e) { console.log(e.name, e.message); }`;
  const withJs = run(process.execPath, ['--input-type=module', '-e', body(true)], consumer);
  assert.equal(withJs.stdout.trim(), `js ${e.getPublicKey('hex')}`, withJs.stderr);
  const without = run(process.execPath, ['--input-type=module', '-e', body(false)], consumer);
  assert.equal(without.stdout.trim(), "CtkitError kernel module 'ec_p256' has no js backend: import 'ctkit/ec/js/p256' to provide it (without WebAssembly, the curves' JavaScript is opt-in)");
});

test('without WebAssembly, ctkit/ec/js/x25519 gives X25519 (and Ed25519) their js backend, equal to OpenSSL', () => {
  const seed = Buffer.alloc(32, 7);
  const okp = (prefix: string) => createPrivateKey({ key: Buffer.concat([Buffer.from(prefix, 'hex'), seed]), format: 'der', type: 'pkcs8' });
  const raw = (k: ReturnType<typeof createPrivateKey>) => createPublicKey(k).export({ format: 'der', type: 'spki' }).subarray(12).toString('hex');
  const body = `delete globalThis.WebAssembly; const { x25519, ed25519, backend } = await import('ctkit'); await import('ctkit/ec/js/x25519');
     const s = new Uint8Array(32).fill(7), hex = (b) => Buffer.from(b).toString('hex');
     console.log(backend(), hex(x25519.getPublicKey(s)), hex(ed25519.getPublicKey(s)));`;
  const r = run(process.execPath, ['--input-type=module', '-e', body], consumer);
  assert.equal(r.stdout.trim(), `js ${raw(okp('302e020100300506032b656e04220420'))} ${raw(okp('302e020100300506032b657004220420'))}`, r.stderr);
});

test('Node.js, ES module consumer (import)', () => {
  assertSmoke('node-esm', smokeLine('node-esm', run(process.execPath, ['run-esm.mjs'], consumer)));
});

test('Node.js, CommonJS consumer (require of the ES module package, Node >= 20.19)', (t) => {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 20 || (major === 20 && minor < 19)) {
    t.skip(`require(esm) needs Node >= 20.19; this is ${process.version}`);
    return;
  }
  assertSmoke('node-require', smokeLine('node-require', run(process.execPath, ['run-cjs.cjs'], consumer)));
});

test('Deno', () => {
  const deno = bin('deno');
  assert.ok(existsSync(deno), `${deno} is missing: run npm ci (deno is a pinned dev dependency)`);
  const version = mustRun(deno, ['--version'], consumer).split('\n')[0];
  const r = run(deno, ['run', '--quiet', '--no-prompt', 'run-esm.mjs'], consumer, { DENO_DIR: join(work, 'deno-cache'), DENO_NO_UPDATE_CHECK: '1' });
  assertSmoke(`deno (${version})`, smokeLine('deno', r));
});

test('Bun', () => {
  const bun = bin('bun');
  assert.ok(existsSync(bun), `${bun} is missing: run npm ci (bun is a pinned dev dependency)`);
  const version = mustRun(bun, ['--version'], consumer).trim();
  const r = run(bun, ['--no-install', 'run-esm.mjs'], consumer, { BUN_INSTALL_CACHE_DIR: join(work, 'bun-cache') });
  assertSmoke(`bun ${version}`, smokeLine('bun', r));
});

test('headless Chromium: main thread (esbuild bundle) and a Worker (minified esbuild bundle)', async () => {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install chromium (.ci/run does), or set CHROMIUM`);
  const www = join(consumer, 'www');
  const { build } = await import('esbuild');
  // the main-thread bundle as a plain build, the worker's minified as a production build would be
  await build({ absWorkingDir: consumer, entryPoints: ['browser.mjs'], bundle: true, format: 'esm', platform: 'browser', outdir: www, logLevel: 'error' });
  await build({ absWorkingDir: consumer, entryPoints: ['worker.mjs'], bundle: true, format: 'esm', platform: 'browser', minify: true, outdir: www, logLevel: 'error' });
  copyFileSync(join(consumer, 'index.html'), join(www, 'index.html'));

  const types: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };
  const server: Server = createServer((req, res) => {
    const name = new URL(req.url ?? '/', 'http://127.0.0.1').pathname.slice(1) || 'index.html';
    const file = join(www, name);
    if (!/^[\w.-]+$/.test(name) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': types[extname(name)] ?? 'application/octet-stream', 'cache-control': 'no-store' }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;

  const { default: puppeteer } = await import('puppeteer-core');
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    pipe: true,
    userDataDir: mkdtempSync(join(work, 'chromium-profile-')),
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    timeout: 60_000,
  });
  try {
    const version = await browser.version();
    const page = await browser.newPage();
    const log: string[] = [];
    page.on('console', (m) => log.push(`console.${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => log.push(`pageerror: ${String(e)}`));
    await page.goto(`http://127.0.0.1:${port}/index.html`, { waitUntil: 'load', timeout: 60_000 });
    const within = <T>(p: Promise<T>, what: string): Promise<T> => Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: no result in 120 s\n${log.join('\n')}`)), 120_000))]);
    const main = await within(page.evaluate('window.ctkitSmoke') as Promise<SmokeResult>, 'main thread');
    assert.ok(main, `the page set no window.ctkitSmoke\n${log.join('\n')}`);
    assertSmoke(`chromium main thread (${version})`, main);
    const worker = await within(page.evaluate('runWorker()') as Promise<SmokeResult>, 'worker');
    assertSmoke(`chromium worker (${version}, minified bundle)`, worker);
  } finally {
    await browser.close();
    await new Promise((resolve) => server.close(resolve));
  }
});

for (const resolution of ['node16', 'bundler']) {
  test(`TypeScript consumer type-checks against the packed .d.ts (moduleResolution ${resolution})`, () => {
    const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
    const r = run(process.execPath, [tsc, '-p', `tsconfig.${resolution}.json`], consumer);
    assert.equal(r.status, 0, `tsc (moduleResolution ${resolution}):\n${r.stdout}${r.stderr}`);
  });
}

test('every runtime ran the same checks and made the same (deterministic, RFC 6979) signatures', () => {
  // compares the runtimes whose smoke passed (each runtime's own test fails for the others)
  const runs = [...results.entries()];
  assert.ok(runs.length >= 2, `only ${runs.map(([k]) => k).join(', ')} produced results`);
  const [first, ref] = runs[0];
  for (const [name, r] of runs.slice(1)) {
    assert.deepEqual(
      r.checks.map((c) => c.name),
      ref.checks.map((c) => c.name),
      `${name} ran other checks than ${first}`,
    );
    assert.deepEqual(r.signatures, ref.signatures, `${name} signed differently from ${first}`);
  }
});

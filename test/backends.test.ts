// The three backends (src/engine/backend.ts): every family with scalar and JavaScript variants
// runs its whole test file — known answers, Wycheproof, the differential suites against OpenSSL
// and the references, and the negative controls built for that backend — with
// CTKIT_BACKEND=wasm and =js; a Node.js without globalThis.WebAssembly picks js, one whose
// WebAssembly refuses SIMD picks wasm; the JavaScript kernels' IR, assembled, passes the
// constant-time checker, and their printed source passes check_js.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { tmpdir } from 'node:os';
import { build } from 'esbuild';
import { kernels } from '../src/kernels/registry.js';
import { EC_MODULES } from '../src/kernels/ec_rcb_window.js';
import { withTarget } from '../src/kernels/builder/index.js';
import { checkJs } from '../src/kernels/builder/check_js.js';
import { compileKernel } from '../src/kernels/build.js';
import { checkModule, formatViolation } from '../src/ct/check.js';
import { backend, brainpoolP384r1, ed25519, p256, setBackend, x25519 } from '../src/index.js';
import { curveKernel } from '../src/ec/curve.js';
import { ed25519Kernel } from '../src/ec/ed25519.js';
import { getKernel } from '../src/engine/kernel.js';
import * as x25519Module from '../src/engine/wasm/x25519.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The family test files of the modules that have all three backends. */
const FAMILY_TESTS: Record<string, string[]> = {
  gf128: ['test/gf128.test.ts', 'test/gf128-kat.test.ts'],
  chacha: ['test/chacha.test.ts'],
  sha2: ['test/sha2.test.ts'],
  aes: ['test/aes-gcm.test.ts', 'test/aes-gcm-siv.test.ts'],
  sm4: ['test/sm4.test.ts'],
  // X25519 on the scalar ladder (radix 2^25.5), Ed25519 and X25519's public keys on the scalar comb
  x25519: ['test/x25519.test.ts'],
  ed25519: ['test/ed25519.test.ts'],
  // every curve module: the field and scalar suites, Wycheproof ECDH and ECDSA, the OpenSSL
  // differentials, ECDSA's known answers and the key formats, each with its negative controls
  // (smaller counts on wasm and js: perBackend() in test/support/ec-curves.ts)
  ...Object.fromEntries(
    EC_MODULES.map((m) => [
      m.name,
      ['test/ec-field.test.ts', 'test/ec-scalar.test.ts', 'test/ec-wycheproof.test.ts', 'test/ecdsa-wycheproof.test.ts', 'test/ec-openssl.test.ts', 'test/ecdsa-openssl.test.ts', 'test/ecdsa.test.ts', 'test/ec-keys.test.ts'],
    ]),
  ),
};

/** The modules with a variant for backend b (the curves' js is opt-in: test/support/ec-curves.ts imports it on js). */
const withTarget_ = (b: 'wasm' | 'js') => kernels.filter((k) => k.targets?.includes(b));

test('every module with a wasm or js variant has its family tests run on them here', () => {
  assert.ok(withTarget_('js').length >= 2);
  for (const k of withTarget_('wasm')) assert.ok(FAMILY_TESTS[k.name], `no family test file listed for ${k.name}`);
  for (const k of withTarget_('js')) assert.ok(FAMILY_TESTS[k.name], `no family test file listed for ${k.name}`);
});

for (const b of ['wasm', 'js'] as const) {
  for (const file of [...new Set(withTarget_(b).flatMap((k) => FAMILY_TESTS[k.name] ?? []))]) {
    test(`${file} passes on the ${b} backend`, () => {
      const env: NodeJS.ProcessEnv = { ...process.env, CTKIT_BACKEND: b };
      delete env.NODE_TEST_CONTEXT; // a test file of its own, not a subtest of this one
      const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', file], { cwd: root, env, encoding: 'utf8', maxBuffer: 64 << 20 });
      const out = r.stdout + r.stderr;
      assert.equal(
        r.status,
        0,
        `${file} on ${b}:\n${out
          .split('\n')
          .filter((l) => /^not ok|error|Error/.test(l))
          .slice(0, 20)
          .join('\n')}`,
      );
      assert.match(out, /^# fail 0$/m);
      assert.doesNotMatch(out, /^# pass 0$/m);
    });
  }
}

// the library bundled to plain JavaScript (tsx itself needs WebAssembly), once
let bundled: Promise<string> | undefined;
function bundle(): Promise<string> {
  bundled ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ctkit-backends-'));
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    const out = join(dir, 'ctkit.mjs');
    await build({ entryPoints: [join(root, 'src/index.ts')], bundle: true, format: 'esm', platform: 'neutral', outfile: out, logLevel: 'silent' });
    return out;
  })();
  return bundled;
}

/** Runs a module script in a fresh Node.js after `prelude`, the bundle imported as ctkit; its stdout. */
async function run(prelude: string, body: string): Promise<string> {
  const code = `${prelude}\nconst ctkit = await import(${JSON.stringify(pathToFileURL(await bundle()).href)});\n${body}`;
  const env = { ...process.env };
  delete env.CTKIT_BACKEND;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: root, env, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

// the same message through ctkit and through OpenSSL (node:crypto), in the child process
const SAME = `
const { createCipheriv, createHash } = await import('node:crypto');
const key = new Uint8Array(32).map((_, i) => i), nonce = new Uint8Array(12).fill(7), msg = new TextEncoder().encode('the quick brown fox '.repeat(20));
const c = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 });
const want = Buffer.concat([c.update(msg), c.final(), c.getAuthTag()]).toString('hex');
const got = Buffer.from(ctkit.chacha20Poly1305(key).seal(nonce, msg)).toString('hex');
const h = Buffer.from(ctkit.sha512(msg)).toString('hex') === createHash('sha512').update(msg).digest('hex');
console.log(ctkit.backend(), got === want && h ? 'same' : 'DIFFERENT');`;

test("a Node.js without globalThis.WebAssembly picks js, and its results are OpenSSL's", async () => {
  assert.equal(await run('delete globalThis.WebAssembly;', SAME), 'js same');
});

test("a WebAssembly that refuses SIMD128 picks wasm, and its results are OpenSSL's", async () => {
  assert.equal(await run('WebAssembly.validate = () => false;', SAME), 'wasm same');
});

test('a WebAssembly that refuses to compile (a CSP without wasm-unsafe-eval) picks js', async () => {
  const refuse = `WebAssembly.Module = function () { throw new WebAssembly.CompileError('refused by CSP'); };`;
  assert.equal(await run(refuse, SAME), 'js same');
});

test('setBackend applies to the shared curve, X25519 and Ed25519 objects after their first use', async () => {
  const before = backend();
  const sk = new Uint8Array(32).fill(9);
  const msg = Uint8Array.of(1, 2, 3);
  try {
    setBackend('simd');
    const want = [p256.getPublicKey(sk), x25519.getPublicKey(sk), x25519.ecdh(sk, x25519.getPublicKey(sk.map((b) => b ^ 1))), ed25519.sign(msg, sk)].map((b) => Buffer.from(b).toString('hex'));
    assert.equal(curveKernel(p256).k.backend, 'simd');
    setBackend('wasm');
    const got = [p256.getPublicKey(sk), x25519.getPublicKey(sk), x25519.ecdh(sk, x25519.getPublicKey(sk.map((b) => b ^ 1))), ed25519.sign(msg, sk)].map((b) => Buffer.from(b).toString('hex'));
    assert.deepEqual(got, want);
    assert.equal(curveKernel(p256).k.backend, 'wasm');
    assert.equal(ed25519Kernel(ed25519).backend, 'wasm');
    assert.equal(getKernel(x25519Module, 0).backend, 'wasm');
    // a curve's js variant is opt-in: without its import, a typed error that names the import,
    // not a silent SIMD run; with it, the same results
    setBackend('js');
    assert.throws(() => p256.getPublicKey(sk), { name: 'CtkitError', message: "kernel module 'ec_p256' has no js backend: import 'ctkit/ec/js/p256' to provide it (without WebAssembly, the curves' JavaScript is opt-in)" });
    await import('../src/ec/js/p256.js');
    assert.equal(Buffer.from(p256.getPublicKey(sk)).toString('hex'), want[0]);
    assert.equal(curveKernel(p256).k.backend, 'js');
    // so does the widest dense curve, on rolled products (src/kernels/fe_mont29.ts: rolledProduct)
    const bp = new Uint8Array(48).fill(9);
    assert.throws(() => brainpoolP384r1.getPublicKey(bp), {
      name: 'CtkitError',
      message: "kernel module 'ec_brainpoolp384r1' has no js backend: import 'ctkit/ec/js/brainpoolP384r1' to provide it (without WebAssembly, the curves' JavaScript is opt-in)",
    });
    await import('../src/ec/js/brainpoolP384r1.js');
    const bpJs = brainpoolP384r1.getPublicKey(bp);
    setBackend('wasm');
    assert.deepEqual(bpJs, brainpoolP384r1.getPublicKey(bp));
  } finally {
    setBackend(before);
  }
});

test('CTKIT_BACKEND and setBackend override the probe; a bad name is a typed error', () => {
  const before = backend();
  try {
    setBackend('js');
    assert.equal(backend(), 'js');
    setBackend('wasm');
    assert.equal(backend(), 'wasm');
    assert.throws(() => setBackend('avx' as never), { name: 'CtkitRangeError', message: /setBackend: backend must be one of simd, wasm, js/ });
  } finally {
    setBackend(before);
  }
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `const c = await import(${JSON.stringify(join(root, 'src/index.ts'))}); console.log(c.backend());`], {
    cwd: root,
    env: { ...process.env, CTKIT_BACKEND: 'wasm' },
    encoding: 'utf8',
  });
  assert.equal(r.stdout.trim(), 'wasm');
  const bad = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `const c = await import(${JSON.stringify(join(root, 'src/index.ts'))}); c.backend();`], {
    cwd: root,
    env: { ...process.env, CTKIT_BACKEND: 'neon' },
    encoding: 'utf8',
  });
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /CtkitRangeError: CTKIT_BACKEND: backend must be one of simd, wasm, js/);
});

for (const k of withTarget_('js')) {
  test(`${k.name}_js: its IR assembled passes the checker, its printed source passes check_js`, async () => {
    const bytes = await compileKernel(withTarget('js', () => k.generate()));
    const report = checkModule(`${k.name}_js`, bytes);
    assert.deepEqual(report.violations.map(formatViolation), []);
    const src = readFileSync(join(root, 'src/engine/wasm', `${k.name}_js.ts`), 'utf8');
    assert.deepEqual(checkJs(src), []);
    // no BigInt inside the kernel functions (only an export's i64 parameters convert)
    const bodies = src
      .split(/^ {2}function f_/m)
      .slice(1)
      .map((b) => b.slice(0, b.search(/^ {2}\}$/m)));
    assert.ok(bodies.length > 3 && bodies.every((b) => !/BigInt|bigint/.test(b)));
  });
}

// `ctkit ct-check` on modules that are not ctkit's: a hand-written third-party-style library (no
// ctkit.ct section, its own export names) with a constant-time compare, an early-exit compare,
// an S-box lookup and a verify/sign pair sharing a variable-time inversion; a compiler-built
// module from a dev dependency (@chainsafe/as-chacha20poly1305, AssemblyScript); ctkit's shipped
// modules extracted to files; usage errors; exit statuses through the command's entry point.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { ctCheck, parsePublic, type CtCheckArgs } from '../src/cli/ct-check.js';
import { UsageError } from '../src/cli/errors.js';
import { shipped } from '../src/engine/wasm/all.js';
import { wat } from './support/ct-wat.js';
import { rejectsWith, throwsWith } from './support/scratch.js';
import { strykerChildArgs } from './support/stryker-child.js';

const MAIN = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url)); // the sources, as `npm run ct` runs them
const dir = mkdtempSync(join(tmpdir(), 'ctkit-ctcheck-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

async function run(a: Partial<CtCheckArgs>): Promise<{ code: number; out: string[] }> {
  const out: string[] = [];
  const code = await ctCheck({ files: [], public: [], vartime: [], helpers: [], shipped: false, json: false, ...a }, (l) => out.push(...l.split('\n')));
  return { code, out };
}

// A library as someone else would write it: pointers and lengths as parameters, no ctkit section.
const LIB = wat(`(module
  (memory (export "mem") 1)
  (global $sbox i32 (i32.const 1024))
  ;; OR-accumulated compare: constant time
  (func (export "ct_equal") (param $a i32) (param $b i32) (param $n i32) (result i32) (local $i i32) (local $acc i32)
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $acc (i32.or (local.get $acc) (i32.xor
        (i32.load8_u (i32.add (local.get $a) (local.get $i))) (i32.load8_u (i32.add (local.get $b) (local.get $i))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (i32.shr_u (i32.sub (local.get $acc) (i32.const 1)) (i32.const 31)))
  ;; early-exit compare: leaks the position of the first difference
  (func (export "memcmp_fast") (param $a i32) (param $b i32) (param $n i32) (result i32) (local $i i32)
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (if (i32.ne (i32.load8_u (i32.add (local.get $a) (local.get $i))) (i32.load8_u (i32.add (local.get $b) (local.get $i))))
        (then (return (i32.const 0))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (i32.const 1))
  ;; table S-box: the address follows the data
  (func (export "sub_bytes") (param $p i32) (param $n i32) (local $i i32)
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (i32.store8 (i32.add (local.get $p) (local.get $i))
        (i32.load8_u (i32.add (global.get $sbox) (i32.load8_u (i32.add (local.get $p) (local.get $i))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next))))
  ;; variable-time inversion (binary extended Euclid stand-in): branches on the value
  (func $inv_vt (param $x i64) (result i64) (local $r i64)
    (local.set $r (i64.const 1))
    (block $done (loop $next
      (br_if $done (i64.le_u (local.get $x) (i64.const 1)))
      (if (i64.eqz (i64.and (local.get $x) (i64.const 1)))
        (then (local.set $x (i64.shr_u (local.get $x) (i64.const 1))))
        (else (local.set $x (i64.sub (local.get $x) (i64.const 1))) (local.set $r (i64.add (local.get $r) (local.get $r)))))
      (br $next)))
    (local.get $r))
  (func (export "verify") (param $sig i32) (result i32)
    (i64.eqz (call $inv_vt (i64.load (local.get $sig)))))
  (func $nonce_inverse (param $k i32) (i64.store (local.get $k) (call $inv_vt (i64.load (local.get $k)))))
  (func (export "sign") (param $k i32) (call $nonce_inverse (local.get $k))))`);
const LIB_PUBLIC = ['ct_equal=0,1,2', 'memcmp_fast=0,1,2', 'sub_bytes=0,1', 'verify=0', 'sign=0'];
const libFile = join(dir, 'libthirdparty.wasm');
writeFileSync(libFile, LIB);

test('the report in detail: names, plurals, helpers, the summary form, the failing count', async () => {
  // the module's name is the file's without its last .wasm
  const renamed = join(dir, 'lib.wasm-copy.wasm');
  writeFileSync(renamed, LIB);
  const r = await run({ files: [renamed], public: LIB_PUBLIC, vartime: ['verify'], helpers: ['nonce_inverse'] });
  assert.equal(r.code, 1);
  assert.match(r.out[0], /^lib\.wasm-copy: \d+ functions checked, 1 exempt, 2 violations$/);
  assert.ok(r.out.includes('  variable-time helper nonce_inverse (covers inv_vt): declared a public-input helper on the command line (--helper)'), r.out.join('\n'));
  // one violation: singular
  const one = join(dir, 'one.wasm');
  writeFileSync(one, wat(`(module (func (export "f") (param $s i32) (result i32) (if (result i32) (local.get $s) (then (i32.const 1)) (else (i32.const 0)))))`));
  const o = await run({ files: [one], public: ['f='] });
  assert.equal(o.out[0], 'one: 1 functions checked, 1 violation');
  // --summary: one line per function, its rules counted, the first offset and the path of a violation that has one
  const s = await run({ files: [libFile], public: LIB_PUBLIC, summary: true });
  assert.equal(s.code, 1);
  const sum = s.out.slice(1).filter((l) => l.startsWith('  ') && !l.startsWith('  variable-time'));
  assert.ok(
    sum.some((l) => /^ {2}inv_vt: 2 branch, first @0x[0-9a-f]+ \(path: verify → inv_vt\)$/.test(l)),
    sum.join('\n'),
  );
  assert.ok(
    sum.some((l) => /^ {2}memcmp_fast: 1 branch, first @0x[0-9a-f]+$/.test(l)),
    sum.join('\n'),
  );
  // a call-graph violation's path is the violation itself: not repeated after the summary
  const sv = await run({ files: [libFile], public: LIB_PUBLIC, vartime: ['verify'], summary: true });
  assert.ok(
    sv.out.some((l) => /^ {2}sign: 1 callgraph, first @0x[0-9a-f]+$/.test(l)),
    sv.out.join('\n'),
  );
  // two rules in one function, counted apart in the summary
  const two = join(dir, 'two.wasm');
  writeFileSync(two, wat(`(module (memory 1) (func (export "t") (param $s i32) (result i32) (if (result i32) (local.get $s) (then (i32.load (local.get $s))) (else (i32.const 0)))))`));
  const t = await run({ files: [two], summary: true });
  assert.match(t.out.join('\n'), /^ {2}t: 1 branch, 1 address, first @0x[0-9a-f]+$/m);
  // without a ctkit.ct section, the exports counted as undeclared: those with parameters (imports re-exported too), not those given --public
  const counted = join(dir, 'counted.wasm');
  writeFileSync(
    counted,
    wat(`(module (import "env" "f" (func $f (param i32))) (export "f" (func $f))
      (func (export "g") (param i32)) (func (export "h")) (func (export "k") (param i64)))`),
  );
  const c = await run({ files: [counted], public: ['k=0'] });
  assert.equal(c.out[1], '  (no ctkit.ct section: 2 export(s) with parameters and no --public taken with every parameter secret)');
  // a --vartime export that reaches no variable-time code says so
  const nothing = await run({ files: [libFile], public: LIB_PUBLIC, vartime: ['verify', 'ct_equal'] });
  assert.ok(nothing.out.includes('  variable-time export ct_equal (no variable-time code found under it): declared variable-time on the command line (--vartime)'), nothing.out.join('\n'));
  // a --vartime export that covers two functions names both
  const both = join(dir, 'both.wasm');
  writeFileSync(
    both,
    wat(`(module
      (func $first (param $s i32) (result i32) (if (result i32) (local.get $s) (then (i32.const 1)) (else (i32.const 0))))
      (func $second (param $s i32) (result i32) (if (result i32) (local.get $s) (then (i32.const 2)) (else (i32.const 0))))
      (func (export "v") (param $s i32) (result i32) (i32.add (call $first (local.get $s)) (call $second (local.get $s)))))`),
  );
  const b = await run({ files: [both], vartime: ['v'] });
  assert.equal(b.code, 0, b.out.join('\n'));
  assert.ok(b.out.includes('  variable-time export v (covers first, second): declared variable-time on the command line (--vartime)'), b.out.join('\n'));
  // several modules: the count of failing ones
  const many = await run({ shipped: true, files: ['sha2', 'gf128'] });
  assert.equal(many.code, 0);
  assert.equal(many.out.at(-1), '2 module(s) checked, 0 failing');
  // one of two failing (a declaration naming an export that only gf128 has): exit 1
  const mixed = await run({ shipped: true, files: ['sha2', 'gf128'], vartime: ['ghash_blocks'] });
  assert.equal(mixed.code, 1, mixed.out.join('\n'));
  assert.match(mixed.out[0], /^sha2: \d+ functions checked, 1 violation$/);
  assert.ok(
    mixed.out.some((l) => /^gf128: \d+ functions checked, 0 violations$/.test(l)),
    mixed.out.join('\n'),
  );
  assert.equal(mixed.out.at(-1), '2 module(s) checked, 1 failing');
  for (const [a, want] of [
    ['=1', /^--public takes <export>=<i,j,…>/],
    ['f=a,b', /^--public f=a,b: parameter indices are non-negative integers \(got 'a', 'b'\)$/],
  ] as const) {
    throwsWith(() => parsePublic(a), UsageError, want, a);
  }
  await rejectsWith(run({ files: [join(dir, 'missing.wasm')] }), UsageError, `cannot read ${join(dir, 'missing.wasm')}: ENOENT`);
});

test('a third-party library: each leak reported with function, offset, rule and the call path', async () => {
  const { code, out } = await run({ files: [libFile], public: LIB_PUBLIC, vartime: ['verify'] });
  assert.equal(code, 1);
  const text = out.join('\n');
  assert.match(out[0], /^libthirdparty: 7 functions checked, 5 violations$/);
  const v = out.filter((l) => l.startsWith('  libthirdparty: '));
  assert.equal(v.length, 5, text);
  assert.match(text, /func memcmp_fast \(#\d\) @0x[0-9a-f]+: secret value reaches if condition \[branch\]/);
  assert.match(text, /func sub_bytes \(#\d\) @0x[0-9a-f]+: secret value reaches i32\.load8_u address \[address\]/);
  assert.equal(v.filter((l) => /func inv_vt .*\[branch\] \(path: sign → nonce_inverse → inv_vt\)$/.test(l)).length, 2, text);
  assert.match(text, /func sign \(#\d\) @0x[0-9a-f]+: reaches variable-time inv_vt \(2 violations: branch; exempt only on paths from verify\), and sign is not declared variable-time: sign → nonce_inverse → inv_vt \[callgraph\]/);
  assert.ok(!/ct_equal/.test(v.join('\n')), 'the constant-time compare is clean');
  assert.match(text, /variable-time export verify \(covers inv_vt\): declared variable-time on the command line/);
  // every line names an offset that is an instruction of the module
  for (const l of v) assert.match(l, / @0x[0-9a-f]+: /);
});

test('without --vartime, verify is a violation too; without --public every parameter is secret (and said so)', async () => {
  const noVt = await run({ files: [libFile], public: LIB_PUBLIC });
  assert.ok(
    noVt.out.some((l) => /func inv_vt .*\(path: verify → inv_vt\)/.test(l)),
    noVt.out.join('\n'),
  );
  const noPub = await run({ files: [libFile], vartime: ['verify'] });
  assert.equal(noPub.code, 1);
  assert.match(noPub.out[1], /no ctkit\.ct section: 5 export\(s\) with parameters and no --public taken with every parameter secret/);
  assert.ok(
    noPub.out.some((l) => /func ct_equal .*address/.test(l)),
    'secret pointers make even the good compare fail',
  );
});

test('a clean module: exit 0; --json gives the report', async () => {
  const clean = join(dir, 'clean.wasm');
  writeFileSync(
    clean,
    wat(`(module (memory 1) (func (export "xor") (param $p i32) (param $k i64)
    (i64.store (local.get $p) (i64.xor (i64.load (local.get $p)) (local.get $k)))))`),
  );
  const r = await run({ files: [clean], public: ['xor=0'] });
  assert.deepEqual(r, { code: 0, out: ['clean: 1 functions checked, 0 violations'] });
  const j = await run({ files: [libFile], public: LIB_PUBLIC, vartime: ['verify'], json: true });
  const rep = JSON.parse(j.out.join('\n'));
  assert.equal(rep[0].module, 'libthirdparty');
  assert.deepEqual(rep[0].violations.map((v: { rule: string }) => v.rule).sort(), ['address', 'branch', 'branch', 'branch', 'callgraph']);
  assert.deepEqual(rep[0].violations.find((v: { rule: string }) => v.rule === 'callgraph').path, ['sign', 'nonce_inverse', 'inv_vt']);
});

test('a compiler-built module from a dev dependency (AssemblyScript ChaCha20-Poly1305): a report, not a crash', async () => {
  // resolved as a package (not ../node_modules: a mutation-testing sandbox has none beside it)
  const file = createRequire(import.meta.url).resolve('@chainsafe/as-chacha20poly1305/build/optimized.wasm');
  const r = await run({ files: [file], summary: true });
  assert.equal(r.code, 1);
  assert.match(r.out[0], /^optimized: 33 functions checked, \d+ violations$/);
  // AssemblyScript keeps buffer pointers in linear memory (all secret to the checker), so loads
  // through them are address violations; the entry points are named in the paths
  const lines = r.out.slice(2);
  assert.ok(lines.length > 5 && lines.every((l) => /^ {2}\S+: (\d+ [a-z_]+(, )?)+, first @0x[0-9a-f]+/.test(l)), r.out.join('\n'));
  for (const entry of ['chacha20StreamXORUpdate', 'poly1305Init', 'poly1305Update'])
    assert.ok(
      r.out.some((l) => l.includes(`(path: ${entry} → `)),
      entry,
    );
});

test("ctkit's shipped modules: clean with --shipped; a curve module as a file needs its declarations", async () => {
  const all = await run({ shipped: true });
  assert.equal(all.code, 0, all.out.join('\n'));
  assert.match(all.out.at(-1)!, new RegExp(`^${Object.keys(shipped).length} module\\(s\\) checked, 0 failing$`));
  const file = join(dir, 'ec_p256.wasm');
  writeFileSync(file, shipped.ec_p256());
  const bare = await run({ files: [file] });
  assert.equal(bare.code, 1);
  // its ctkit.ct section makes every export declared: no line about undeclared ones
  assert.ok(!bare.out.some((l) => /no ctkit\.ct section/.test(l)), bare.out.slice(0, 3).join('\n'));
  assert.ok(bare.out.some((l) => /func ecdsa_verify .*\[branch\]/.test(l)));
  const declared = await run({ files: [file], vartime: ['ecdsa_verify'], helpers: ['ecdsa_gtable'] });
  assert.equal(declared.code, 0, declared.out.join('\n'));
  assert.match(declared.out[0], /^ec_p256: 86 functions checked, 6 exempt, 0 violations$/);
});

test('a valid module the checker cannot decode (legacy exception handling): exit 1, said so, and in --json', async () => {
  // (func (try (do))): WebAssembly.validate takes it (V8's exception handling); ctkit's decoder has no opcode 0x06
  const bytes = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 4, 1, 0x60, 0, 0, 3, 2, 1, 0, 10, 7, 1, 5, 0, 0x06, 0x40, 0x0b, 0x0b]);
  assert.ok(WebAssembly.validate(bytes), 'this engine validates the module (the test needs one that does)');
  const eh = join(dir, 'eh.wasm');
  writeFileSync(eh, bytes);
  const r = await run({ files: [eh] });
  assert.equal(r.code, 1);
  assert.deepEqual(r.out, ['eh: cannot be checked: wasm decode error @0x17: unknown opcode 0x6']);
  const j = await run({ files: [eh], json: true });
  assert.equal(j.code, 1);
  assert.deepEqual(JSON.parse(j.out.join('\n')), [{ module: 'eh', error: 'wasm decode error @0x17: unknown opcode 0x6' }]);
});

test('usage errors', async () => {
  const usage = async (a: Partial<CtCheckArgs>, re: RegExp) => assert.rejects(run(a), (e: unknown) => e instanceof UsageError && re.test(e.message));
  await usage({}, /needs a module file/);
  await usage({ files: [libFile, libFile] }, /one module file/);
  await usage({ files: [join(dir, 'missing.wasm')] }, /cannot read .*missing\.wasm: ENOENT/);
  const txt = join(dir, 'notwasm.wasm');
  writeFileSync(txt, 'hello');
  await usage({ files: [txt] }, /not a valid WebAssembly module/);
  await usage({ files: [libFile], public: ['sign'] }, /--public takes <export>=<i,j,…>/);
  await usage({ files: [libFile], public: ['sign=a'] }, /non-negative integers/);
  await usage({ files: [libFile], public: ['sign=0', 'sign=1'] }, /given twice/);
  await usage({ shipped: true, files: ['nope'] }, /no shipped module named nope/);
  await usage({ shipped: true, files: ['gf128', 'nope', 'nada'] }, /^no shipped module named nope, nada \(have: gf128, gf128_wasm, chacha, chacha_wasm, /);
  assert.deepEqual(parsePublic('a=b=1, 2'), ['a=b', [1, 2]]);
  assert.deepEqual(parsePublic('f='), ['f', []]);
  assert.deepEqual(parsePublic('f= \t'), ['f', []], 'white space alone: no index');
  assert.deepEqual(parsePublic('f=0,12,345,6789'), ['f', [0, 12, 345, 6789]]);
  for (const bad of ['1x', 'x1', '12345', '-1', '1.5']) {
    throwsWith(() => parsePublic(`f=${bad}`), UsageError, `--public f=${bad}: parameter indices are non-negative integers (got '${bad}')`, bad);
  }
});

test('the ctkit command: exit 1 with violations, 0 clean, 2 for usage errors', () => {
  const ctkit = (args: string[]) => {
    const r = spawnSync(process.execPath, [...strykerChildArgs, '--import', 'tsx', MAIN, 'ct-check', ...args], { encoding: 'utf8' });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const bad = ctkit([libFile, ...LIB_PUBLIC.flatMap((p) => ['--public', p]), '--vartime', 'verify']);
  assert.equal(bad.status, 1, bad.stderr);
  assert.match(bad.stdout, /sign → nonce_inverse → inv_vt \[callgraph\]/);
  assert.match(bad.stderr, /ctkit ct-check: constant-time violations found/);
  const good = ctkit(['--shipped', 'sha2', 'gf128']);
  assert.equal(good.status, 0, good.stderr);
  assert.match(good.stdout, /^sha2: 7 functions checked, 0 violations$/m);
  // the command's flags reach the check: --summary, --json, and --helper as often as it is given
  const pub = LIB_PUBLIC.flatMap((p) => ['--public', p]);
  const summary = ctkit([libFile, ...pub, '--summary']);
  assert.equal(summary.status, 1, summary.stderr);
  assert.match(summary.stdout, /^ {2}memcmp_fast: 1 branch, first @0x[0-9a-f]+$/m);
  const json = ctkit(['--shipped', 'sha2', '--json']);
  assert.equal(json.status, 0, json.stderr);
  const parsed = JSON.parse(json.stdout) as { module: string; violations: unknown[] }[];
  assert.deepEqual(
    parsed.map((r) => [r.module, r.violations.length]),
    [['sha2', 0]],
  );
  const helpers = ctkit([libFile, ...pub, '--vartime', 'verify', '--helper', 'nonce_inverse', '--helper', 'inv_vt']);
  assert.match(helpers.stdout, /^ {2}variable-time helper nonce_inverse \(/m, helpers.stderr);
  assert.match(helpers.stdout, /^ {2}variable-time helper inv_vt \(/m, helpers.stderr);
  const usage = ctkit([libFile, '--public', 'nope']);
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /--public takes/);
  assert.equal(readFileSync(libFile).length, LIB.length); // the module file is only read
});

// Constant-time checker, variable-time code: exemption follows the call graph from the exports,
// never a function's name. The negative control of the issue that introduced this: the shipped
// ec_p256 with ecdsa_sign inverting k by the variable-time fn_inv_vt and to_affine inverting Z by
// fp_inv_vt (the classic key-recovery leak, invisible to every functional test since the results
// are the same) must be flagged with the paths; the shipped modules stay clean.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { checkModule, formatViolation, type Report } from '../src/ct/check.js';
import { decode } from '../src/ct/decode.js';
import { CT_SECTION, withCtSection } from '../src/ct/section.js';
import { varTime } from '../src/ct/vartime.js';
import { shipped } from '../src/engine/wasm/all.js';
import { keepFunctionNames } from '../src/kernels/strip_names.js';
import { check, expectClean, lines, mod, wat, wabt } from './support/ct-wat.js';

const EC = ['ec_p256', 'ec_p224', 'ec_brainpoolp256r1', 'ec_p384', 'ec_p521', 'ec_secp256k1', 'ec_brainpoolp384r1', 'ec_brainpoolp512r1'];
const VT_FUNCS = ['ecdsa_verify', 'ecdsa_jadd_vt', 'ecdsa_jmadd_vt', 'ecdsa_wnaf', 'fn_inv_vt_raw', 'fp_inv_vt_raw'];

const paths = (r: Report) =>
  r.violations
    .filter((v) => v.rule === 'callgraph')
    .map((v) => v.path!.join(' → '))
    .sort();

test('shipped curve modules: clean; verification and the G-table builder cover exactly the variable-time functions', () => {
  assert.deepEqual(
    EC.filter((n) => !(n in shipped)),
    [],
    'a curve module is missing from shipped',
  );
  for (const name of EC) {
    const r = checkModule(name, shipped[name]());
    assert.deepEqual(r.violations.map(formatViolation), [], name);
    assert.deepEqual(r.exempt.map((x) => x.func).sort(), [...VT_FUNCS].sort(), name);
    const byDecl = Object.fromEntries(r.declared.map((d) => [`${d.kind} ${d.func}`, [...d.covers].sort()]));
    assert.deepEqual(byDecl, { 'export ecdsa_verify': [...VT_FUNCS].sort(), 'helper ecdsa_gtable': ['ecdsa_jadd_vt'] }, name);
  }
  // each curve module, its scalar wasm module and its js module's IR (src/ct/vartime.ts; the js
  // modules' IR: test/backends.test.ts); ed25519 and its scalar module: test/ed25519.test.ts, its
  // js module's IR: test/backends.test.ts
  assert.deepEqual([...new Set(varTime.map((d) => d.module))].sort(), [...EC.flatMap((m) => [m, `${m}_wasm`, `${m}_js`]), 'ed25519', 'ed25519_wasm', 'ed25519_js'].sort());
});

// ---- the patched ec_p256 ---------------------------------------------------------------------

const P256_WAT = readFileSync(new URL('../src/kernels/generated/ec_p256.wat', import.meta.url), 'utf8');
const P256 = shipped.ec_p256();
const ctSectionBytes = (() => {
  const sec = decode(P256).customs.find((c) => c.name === CT_SECTION)!;
  return P256.subarray(sec.offset); // the last section, as build.ts appends it
})();

function assemble(text: string): Uint8Array {
  const m = wabt.parseWat('ec_p256.wat', text, { simd: true, multi_value: true, bulk_memory: true, mutable_globals: true, sign_extension: true, sat_float_to_int: true });
  try {
    m.validate();
    const body = keepFunctionNames(new Uint8Array(m.toBinary({ log: false, write_debug_names: true }).buffer));
    const out = new Uint8Array(body.length + ctSectionBytes.length);
    out.set(body);
    out.set(ctSectionBytes, body.length);
    return out;
  } finally {
    m.destroy();
  }
}

/** The committed WAT with the calls of `from` in function `fn` (at least one) calling `to` instead. */
function patch(text: string, fn: string, from: string, to: string): string {
  const start = text.indexOf(`\n  (func $${fn} `);
  const end = text.indexOf('\n  (func ', start + 1);
  assert.ok(start > 0 && end > start, `no function ${fn}`);
  const body = text.slice(start, end);
  const call = new RegExp(`\\(call \\$${from}(?=[\\s)])`, 'g'); // however the printer breaks the lines
  assert.ok(call.test(body), `${fn} has no call of ${from}`);
  return text.slice(0, start) + body.replace(call, `(call $${to}`) + text.slice(end);
}

test('the committed ec_p256.wat assembles to the shipped bytes (so the patched modules below differ only by the patch)', () => {
  assert.deepEqual(assemble(P256_WAT), P256);
});

test('ecdsa_sign inverting k by fn_inv_vt: flagged, with the path ecdsa_sign → fn_inv_vt → fn_inv_vt_raw', () => {
  const r = checkModule('ec_p256', assemble(patch(P256_WAT, 'ecdsa_sign', 'fn_inv', 'fn_inv_vt')));
  assert.deepEqual(paths(r), ['ecdsa_sign → fn_inv_vt → fn_inv_vt_raw'], lines(r));
  const raw = r.violations.filter((v) => v.rule !== 'callgraph');
  assert.ok(raw.length > 0 && raw.every((v) => v.func === 'fn_inv_vt_raw' && ['branch', 'bitcount'].includes(v.rule)), lines(r));
  assert.ok(raw.every((v) => v.path?.join(' → ') === 'ecdsa_sign → fn_inv_vt → fn_inv_vt_raw'));
  const cg = r.violations.find((v) => v.rule === 'callgraph')!;
  assert.equal(cg.func, 'ecdsa_sign');
  assert.match(
    formatViolation(cg),
    /^ec_p256: func ecdsa_sign \(#\d+\) @0x[0-9a-f]+: reaches variable-time fn_inv_vt_raw \(\d+ violations: branch(, bitcount)?; exempt only on paths from ecdsa_verify\), and ecdsa_sign is not declared variable-time: ecdsa_sign → fn_inv_vt → fn_inv_vt_raw \[callgraph\]$/,
  );
  // the offset is the call in ecdsa_sign that starts the path
  const m = decode(assemble(patch(P256_WAT, 'ecdsa_sign', 'fn_inv', 'fn_inv_vt')));
  const call = m.codes[cg.index! - m.importedFuncs].body.find((i) => i.offset === cg.offset);
  assert.equal(call?.name, 'call');
  assert.equal(m.names.get(call!.index!), 'fn_inv_vt');
});

test('to_affine inverting Z by fp_inv_vt: flagged from every export that converts to affine', () => {
  const r = checkModule('ec_p256', assemble(patch(P256_WAT, 'to_affine', 'fp_inv', 'fp_inv_vt')));
  const p = paths(r);
  for (const want of ['to_affine → fp_inv_vt → fp_inv_vt_raw', 'ecdsa_sign → to_affine → fp_inv_vt → fp_inv_vt_raw', 'ecdh → to_affine → fp_inv_vt → fp_inv_vt_raw', 'pubkey → to_affine → fp_inv_vt → fp_inv_vt_raw'])
    assert.ok(p.includes(want), `missing ${want} in\n${p.join('\n')}`);
  assert.ok(
    p.every((x) => x.endsWith('→ fp_inv_vt → fp_inv_vt_raw')),
    p.join('\n'),
  );
  assert.ok(r.violations.some((v) => v.func === 'fp_inv_vt_raw' && v.rule === 'branch'));
});

test('both patches at once (the reviewed attack): flagged; unpatched the same assembly is clean', () => {
  const both = patch(patch(P256_WAT, 'ecdsa_sign', 'fn_inv', 'fn_inv_vt'), 'to_affine', 'fp_inv', 'fp_inv_vt');
  const r = checkModule('ec_p256', assemble(both));
  assert.ok(paths(r).includes('ecdsa_sign → fn_inv_vt → fn_inv_vt_raw'));
  assert.ok(paths(r).includes('ecdsa_sign → to_affine → fp_inv_vt → fp_inv_vt_raw'));
  assert.deepEqual(checkModule('ec_p256', assemble(P256_WAT)).violations, []);
});

test('the G-table builder calling the variable-time addition: clean only while it is declared a public-input helper', () => {
  const noHelper = varTime.filter((d) => !(d.module === 'ec_p256' && d.kind === 'helper'));
  const r = checkModule('ec_p256', P256, noHelper);
  assert.deepEqual(paths(r), ['ecdsa_gtable → ecdsa_jadd_vt'], lines(r));
});

// ---- small modules -----------------------------------------------------------------------------

const VT = `(func $vt (param $p i32) (if (i32.load (local.get $p)) (then nop)))`;
const VT_DECL = { vartime: { verify: 'public inputs only' } };

test('a variable-time function reached only from the declared export: exempt, listed under it', () => {
  const { report } = expectClean(
    `${VT} (func (export "verify") (param $p i32) (call $vt (local.get $p)))
    (func (export "sign") (param $p i32) (i32.store (local.get $p) (i32.const 1)))`,
    { verify: [0], sign: [0] },
    VT_DECL,
  );
  assert.deepEqual(report.exempt, [{ func: 'vt', reason: 'public inputs only', via: ['verify'] }]);
  assert.deepEqual(report.declared, [{ func: 'verify', kind: 'export', reason: 'public inputs only', covers: ['vt'] }]);
});

test('the same function also reached from another export: its violation and a callgraph violation naming the path', () => {
  const { report } = check(
    `${VT} (func (export "verify") (param $p i32) (call $vt (local.get $p)))
    (func $mid (param $p i32) (call $vt (local.get $p)))
    (func (export "sign") (param $p i32) (call $mid (local.get $p)))`,
    { verify: [0], sign: [0] },
    VT_DECL,
  );
  assert.deepEqual(
    report.violations.map((v) => [v.rule, v.func, v.path?.join(' → ')]),
    [
      ['branch', 'vt', 'sign → mid → vt'],
      ['callgraph', 'sign', 'sign → mid → vt'],
    ],
    lines(report),
  );
  assert.deepEqual(report.exempt, []);
});

test('declared in the ctkit.ct section or in the options: the same result', () => {
  const text = `${VT} (func (export "verify") (param $p i32) (call $vt (local.get $p)))`;
  expectClean(text, { verify: [0] }, VT_DECL);
  expectClean(text, { verify: [0] }, { decls: [{ module: 't', kind: 'export', func: 'verify', reason: 'public' }] });
  assert.deepEqual(
    check(text, { verify: [0] }).report.violations.map((v) => v.rule),
    ['branch'],
  );
});

test('entry points that are not exports: a table entry and the start function reaching variable-time code are flagged', () => {
  const viaTable = check(
    `${VT} (func (export "verify") (param $p i32) (call $vt (local.get $p)))
    (type $t (func (param i32))) (table 1 funcref) (elem (i32.const 0) $w)
    (func $w (param $p i32) (call $vt (i32.const 0)))
    (func (export "run") (call_indirect (type $t) (i32.const 8) (i32.const 0)))`,
    { verify: [0], run: [] },
    VT_DECL,
  ).report;
  assert.deepEqual(paths(viaTable), ['(table) w → vt'], lines(viaTable));
  const viaStart = check(
    `${VT} (func (export "verify") (param $p i32) (call $vt (local.get $p)))
    (func $init (call $vt (i32.const 0))) (start $init)`,
    { verify: [0] },
    VT_DECL,
  ).report;
  assert.deepEqual(paths(viaStart), ['(start) init → vt'], lines(viaStart));
});

test('one function under two export names, one of them not declared variable-time: flagged', () => {
  const { report } = check(`(func $v (export "verify") (export "verify_fast") (param $p i32) (if (i32.load (local.get $p)) (then nop)))`, { verify: [0], verify_fast: [0] }, VT_DECL);
  assert.deepEqual(report.violations.map((v) => v.rule).sort(), ['branch', 'callgraph'], lines(report));
});

test('a public-input helper: its variable-time callees are exempt whoever calls it; without the declaration they are not', () => {
  const text = `${VT} (func $table (param $p i32) (call $vt (local.get $p)))
    (func (export "keygen") (param $p i32) (call $table (local.get $p)))`;
  const { report } = expectClean(text, { keygen: [0] }, { helpers: { table: 'multiples of a constant' } });
  assert.deepEqual(report.exempt, [{ func: 'vt', reason: 'multiples of a constant', via: ['table'] }]);
  assert.deepEqual(
    check(text, { keygen: [0] }).report.violations.map((v) => [v.rule, v.path?.join(' → ')]),
    [['branch', 'keygen → table → vt']],
  );
  // a helper that names no function is a declaration violation
  assert.deepEqual(
    check(text, { keygen: [0] }, { helpers: { nope: 'x' } }).report.violations.map((v) => v.rule),
    ['declaration', 'branch'],
  );
});

test('taint still flows out of variable-time code: a secret it stores in a global reaches a branch in a constant-time export', () => {
  const { report } = check(
    `(global $g (mut i32) (i32.const 0))
    (func (export "verify") (param $s i32) (global.set $g (local.get $s)) (if (local.get $s) (then nop)))
    (func (export "sign") (if (global.get $g) (then nop)))`,
    { verify: [], sign: [] },
    VT_DECL,
  );
  assert.deepEqual(
    report.violations.map((v) => [v.rule, v.func]),
    [['branch', 'sign']],
    lines(report),
  );
});

test('code reached from no entry point is still checked', () => {
  const { report } = check(`${VT} (func (export "f"))`, { f: [] });
  assert.deepEqual(
    report.violations.map((v) => [v.rule, v.func, v.path]),
    [['branch', 'vt', undefined]],
  );
});

test('a variable-time declaration naming an export of another kind or a missing one is a declaration violation', () => {
  const bytes = withCtSection(wat(mod(`(func (export "f"))`)), { f: [] }, { memory: 'x', g: 'y' });
  const r = checkModule('t', bytes, []);
  assert.deepEqual(
    r.violations.map((v) => v.rule),
    ['declaration', 'declaration'],
    lines(r),
  );
});

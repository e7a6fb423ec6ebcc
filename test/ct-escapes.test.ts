// Constant-time checker: escapes found by review, each closed with a negative control the
// checker must flag (and, beside it, the harmless form it must still accept).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expectClean, expectOnly } from './support/ct-wat.js';

// ---- atomics: the time a wait takes follows its expected value and timeout; a notify's count
// decides how many waiters wake ---------------------------------------------------------------

const shared = { shared: true };

test('flags atomic: memory.atomic.wait32 with a secret expected value', () => {
  expectOnly(
    `(func (export "f") (param $p i32) (param $s i32) (result i32)
    (memory.atomic.wait32 (local.get $p) (local.get $s) (i64.const 1000)))`,
    { f: [0] },
    'atomic',
    1,
    shared,
  );
});

test('flags atomic: memory.atomic.wait64 with a secret timeout', () => {
  expectOnly(
    `(func (export "f") (param $p i32) (param $s i64) (result i32)
    (memory.atomic.wait64 (local.get $p) (i64.const 0) (local.get $s)))`,
    { f: [0] },
    'atomic',
    1,
    shared,
  );
});

test('flags atomic: memory.atomic.wait64 with an expected value loaded from memory', () => {
  expectOnly(
    `(func (export "f") (param $p i32) (result i32)
    (memory.atomic.wait64 (local.get $p) (i64.load offset=8 (local.get $p)) (i64.const -1)))`,
    { f: [0] },
    'atomic',
    1,
    shared,
  );
});

test('flags atomic: memory.atomic.notify with a secret count', () => {
  expectOnly(
    `(func (export "f") (param $p i32) (param $s i32) (result i32)
    (memory.atomic.notify (local.get $p) (i32.and (local.get $s) (i32.const 3))))`,
    { f: [0] },
    'atomic',
    1,
    shared,
  );
});

test('accepts atomics with public operands, secret values stored and exchanged atomically', () => {
  expectClean(
    `(func (export "f") (param $p i32) (param $n i32) (param $s i32) (result i32)
    (i32.atomic.store (local.get $p) (local.get $s))
    (drop (i32.atomic.rmw.xor offset=4 (local.get $p) (local.get $s)))
    (drop (i32.atomic.rmw.cmpxchg offset=8 (local.get $p) (local.get $s) (local.get $s)))
    (drop (memory.atomic.notify (local.get $p) (local.get $n)))
    (memory.atomic.wait32 (local.get $p) (local.get $n) (i64.const -1)))`,
    { f: [0, 1] },
    shared,
  );
});

// ---- tables: a secret function reference stored in a table makes the target of a call_indirect
// at a public index secret ---------------------------------------------------------------------

const FUNCS = `(type $t (func (result i32)))
  (func $a (result i32) (i32.const 1)) (func $b (result i32) (i32.const 2))
  (elem declare func $a $b)`;

test('flags call_indirect: table.set of a secret reference, then a call at a public index', () => {
  expectOnly(
    `${FUNCS} (table $tab 2 funcref)
    (func (export "f") (param $r funcref) (result i32)
      (table.set $tab (i32.const 0) (local.get $r))
      (call_indirect $tab (type $t) (i32.const 0)))`,
    { f: [] },
    'call_indirect',
    1,
  );
});

test('flags call_indirect: table.fill with a secret reference (set in one export, called in another)', () => {
  expectOnly(
    `${FUNCS} (table $tab 4 funcref)
    (func (export "put") (param $r funcref) (table.fill $tab (i32.const 0) (local.get $r) (i32.const 4)))
    (func (export "call") (result i32) (call_indirect $tab (type $t) (i32.const 3)))`,
    { put: [], call: [] },
    'call_indirect',
    1,
  );
});

test('flags call_indirect: table.grow with a secret initial reference', () => {
  expectOnly(
    `${FUNCS} (table $tab 0 funcref)
    (func (export "f") (param $r funcref) (result i32)
      (drop (table.grow $tab (local.get $r) (i32.const 1)))
      (call_indirect $tab (type $t) (i32.const 0)))`,
    { f: [] },
    'call_indirect',
    1,
  );
});

test('flags call_indirect: a secret reference copied by table.copy into the table called through', () => {
  expectOnly(
    `${FUNCS} (table $src 1 funcref) (table $dst 1 funcref)
    (func (export "f") (param $r funcref) (result i32)
      (table.set $src (i32.const 0) (local.get $r))
      (table.copy $dst $src (i32.const 0) (i32.const 0) (i32.const 1))
      (call_indirect $dst (type $t) (i32.const 0)))`,
    { f: [] },
    'call_indirect',
    1,
  );
});

test('flags call_indirect: a reference read from a table (secret) stored back, a secret reference from a global', () => {
  expectOnly(
    `${FUNCS} (table $tab 2 funcref) (elem (table $tab) (i32.const 0) func $a $b)
    (func (export "f") (result i32)
      (table.set $tab (i32.const 1) (table.get $tab (i32.const 0)))
      (call_indirect $tab (type $t) (i32.const 1)))`,
    { f: [] },
    'call_indirect',
    1,
  );
  expectOnly(
    `${FUNCS} (table $tab 1 funcref) (global $g (mut funcref) (ref.null func))
    (func (export "put") (param $r funcref) (global.set $g (local.get $r)))
    (func (export "f") (result i32)
      (table.set $tab (i32.const 0) (global.get $g))
      (call_indirect $tab (type $t) (i32.const 0)))`,
    { put: [], f: [] },
    'call_indirect',
    1,
  );
});

test('flags call_indirect: a table the host can write (exported or imported)', () => {
  expectOnly(
    `${FUNCS} (table $tab (export "table") 2 funcref) (elem (table $tab) (i32.const 0) func $a $b)
    (func (export "f") (result i32) (call_indirect $tab (type $t) (i32.const 1)))`,
    { f: [] },
    'call_indirect',
    1,
  );
  expectOnly(
    `(import "env" "table" (table $tab 2 funcref)) (type $t (func (result i32)))
    (func (export "f") (result i32) (call_indirect $tab (type $t) (i32.const 1)))`,
    { f: [] },
    'call_indirect',
    1,
  );
});

test('accepts call_indirect at a public index into a table of constant references (segments, ref.func)', () => {
  expectClean(
    `${FUNCS} (table $tab 3 funcref) (elem (table $tab) (i32.const 0) func $a $b)
    (func (export "f") (param $i i32) (result i32)
      (table.set $tab (i32.const 2) (ref.func $a))
      (drop (table.grow $tab (ref.null func) (i32.const 1)))
      (call_indirect $tab (type $t) (local.get $i)))`,
    { f: [0] },
  );
});

// ---- bit counts: V8 lowers clz/ctz/popcnt to bsr/bsf (+ a branch for zero) or a software
// popcount on CPUs without LZCNT/BMI1/POPCNT, so they are sinks outside variable-time code ---------

for (const op of ['i32.clz', 'i32.ctz', 'i32.popcnt']) {
  test(`flags bitcount: ${op} of a secret`, () => {
    expectOnly(`(func (export "f") (param $s i32) (result i32) (${op} (local.get $s)))`, { f: [] }, 'bitcount', 1);
  });
}
for (const op of ['i64.clz', 'i64.ctz', 'i64.popcnt']) {
  test(`flags bitcount: ${op} of a value loaded from memory`, () => {
    expectOnly(`(func (export "f") (param $p i32) (result i64) (${op} (i64.load (local.get $p))))`, { f: [0] }, 'bitcount', 1);
  });
}

test('flags bitcount: i8x16.popcnt of a secret vector', () => {
  expectOnly(`(func (export "f") (param $p i32) (result v128) (i8x16.popcnt (v128.load (local.get $p))))`, { f: [0] }, 'bitcount', 1);
});

test('accepts bit counts of public values, and of secrets inside variable-time code reached only from its export', () => {
  expectClean(
    `(func (export "f") (param $n i32) (param $m i64) (result i64)
    (i64.add (i64.extend_i32_u (i32.add (i32.clz (local.get $n)) (i32.popcnt (local.get $n)))) (i64.ctz (local.get $m))))`,
    { f: [0, 1] },
  );
  expectClean(
    `(func $vt (param $s i64) (result i64) (i64.ctz (local.get $s)))
    (func (export "verify") (param $s i64) (result i64) (call $vt (local.get $s)))`,
    { verify: [] },
    { vartime: { verify: 'public inputs' } },
  );
});

// ---- the host: a secret passed to an imported function leaves the checked code (its timing,
// and what it does with the value, are the host's) -------------------------------------------------

test('flags import: a secret argument of an imported function (direct and tail call)', () => {
  const { report } = expectOnly(
    `(import "env" "log" (func $log (param i32 i32)))
    (func (export "f") (param $p i32) (param $s i32)
      (call $log (local.get $p) (i32.const 0))
      (call $log (local.get $p) (i32.load (local.get $p))))
    (func (export "g") (param $s i32) (return_call $log (i32.const 0) (local.get $s)))`,
    { f: [0], g: [] },
    'import',
    2,
  );
  assert.match(report.violations[0].detail, /secret value reaches an argument of imported env\.log/);
});

// ---- flows that were already tracked, kept as regression controls: multi-value results, values
// carried by br_table, tail calls, if-without-else parameters, loops re-entered by br_table ---------

test('flags branch: a secret in the second result of a multi-value function (the public first result stays public)', () => {
  const two = `(func $two (param $p i32) (param $s i32) (result i32 i32) (local.get $p) (local.get $s))`;
  expectOnly(
    `${two} (func (export "f") (param $p i32) (param $s i32) (local $a i32) (local $b i32)
    (call $two (local.get $p) (local.get $s)) (local.set $b) (local.set $a)
    (if (local.get $b) (then nop)))`,
    { f: [0] },
    'branch',
    1,
  );
  expectClean(
    `${two} (func (export "f") (param $p i32) (param $s i32) (local $a i32) (local $b i32)
    (call $two (local.get $p) (local.get $s)) (local.set $b) (local.set $a)
    (if (local.get $a) (then nop)))`,
    { f: [0] },
  );
});

test('flags branch: a secret carried by br_table into a block result', () => {
  expectOnly(
    `(func (export "f") (param $p i32) (param $s i32)
    (if (block $out (result i32) (block $in (result i32) (br_table $in $out (local.get $s) (local.get $p))) (drop) (i32.const 0))
      (then nop)))`,
    { f: [0] },
    'branch',
    1,
  );
});

test('flags branch: a secret returned through return_call and through return in a multi-value block', () => {
  expectOnly(
    `(func $id (param $x i32) (result i32) (local.get $x))
    (func $tail (param $s i32) (result i32) (return_call $id (local.get $s)))
    (func (export "f") (param $s i32) (if (call $tail (local.get $s)) (then nop)))`,
    { f: [] },
    'branch',
    1,
  );
  expectOnly(
    `(func $early (param $p i32) (param $s i32) (result i32 i32)
      (block (br_if 0 (local.get $p)) (return (i32.const 0) (local.get $s)))
      (i32.const 0) (i32.const 0))
    (func (export "f") (param $p i32) (param $s i32)
      (call $early (local.get $p) (local.get $s)) (drop) (drop)
      (call $early (local.get $p) (local.get $s)) (if (then nop)) (drop))`,
    { f: [0] },
    'branch',
    1,
  );
});

test('flags branch: a secret block parameter passed through an if without else; a secret sent back to a loop by br_table', () => {
  expectOnly(
    `(func (export "f") (param $p i32) (param $s i32) (result i32)
    (local.get $s) (local.get $p) (if (param i32) (result i32) (then (drop) (i32.const 0)))
    (if (result i32) (then (i32.const 1)) (else (i32.const 2))))`,
    { f: [0] },
    'branch',
    1,
  );
  expectOnly(
    `(func (export "f") (param $p i32) (param $s i32)
    (i32.const 0)
    (loop $l (param i32)
      (if (then nop))
      (local.get $s) (local.get $p) (br_table $l $l)))`,
    { f: [0] },
    'branch',
    1,
  );
});

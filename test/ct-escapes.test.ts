// Constant-time checker: escapes found by review, each closed with a negative control the
// checker must flag (and, beside it, the harmless form it must still accept).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expectClean, expectOnly } from './support/ct-wat.js';

// ---- atomics: the time a wait takes follows its expected value and timeout; a notify's count
// decides how many waiters wake ---------------------------------------------------------------

const shared = { shared: true };

test('flags atomic: memory.atomic.wait32 with a secret expected value', () => {
  expectOnly(`(func (export "f") (param $p i32) (param $s i32) (result i32)
    (memory.atomic.wait32 (local.get $p) (local.get $s) (i64.const 1000)))`, { f: [0] }, 'atomic', 1, shared);
});

test('flags atomic: memory.atomic.wait64 with a secret timeout', () => {
  expectOnly(`(func (export "f") (param $p i32) (param $s i64) (result i32)
    (memory.atomic.wait64 (local.get $p) (i64.const 0) (local.get $s)))`, { f: [0] }, 'atomic', 1, shared);
});

test('flags atomic: memory.atomic.wait64 with an expected value loaded from memory', () => {
  expectOnly(`(func (export "f") (param $p i32) (result i32)
    (memory.atomic.wait64 (local.get $p) (i64.load offset=8 (local.get $p)) (i64.const -1)))`, { f: [0] }, 'atomic', 1, shared);
});

test('flags atomic: memory.atomic.notify with a secret count', () => {
  expectOnly(`(func (export "f") (param $p i32) (param $s i32) (result i32)
    (memory.atomic.notify (local.get $p) (i32.and (local.get $s) (i32.const 3))))`, { f: [0] }, 'atomic', 1, shared);
});

test('accepts atomics with public operands, secret values stored and exchanged atomically', () => {
  expectClean(`(func (export "f") (param $p i32) (param $n i32) (param $s i32) (result i32)
    (i32.atomic.store (local.get $p) (local.get $s))
    (drop (i32.atomic.rmw.xor offset=4 (local.get $p) (local.get $s)))
    (drop (i32.atomic.rmw.cmpxchg offset=8 (local.get $p) (local.get $s) (local.get $s)))
    (drop (memory.atomic.notify (local.get $p) (local.get $n)))
    (memory.atomic.wait32 (local.get $p) (local.get $n) (i64.const -1)))`, { f: [0, 1] }, shared);
});

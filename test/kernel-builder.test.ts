// The kernel builder (src/kernels/builder): typed operands, locals owned by one function,
// branches inside their blocks, calls to functions of the module, and the printer's layout.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Func, Module, block, br, br_if, call, comment, i32, i64, i64x2, if_, kernel, label, loop, printModule, setMany, v128 } from '../src/kernels/builder/index.js';
import { compileKernel } from '../src/kernels/build.js';

test('operands are type-checked when the tree is built', () => {
  const f = new Func('f', { a: 'i32', b: 'i64' });
  assert.throws(() => i64.add(f.p.a as never, f.p.b), /operand 1 is i32, expected i64/);
  assert.throws(() => v128.xor(1 as never, v128.zero()), /must be v128, not a number/);
  assert.throws(() => i32.add(f.p.a, 1.5), /not an integer/);
  assert.equal(i64.add(f.p.b, 1n, 2).type, 'i64');
  assert.equal(i64.lt_u(f.p.b, 0).type, 'i32');
});

test('locals are declared by use, one name one type', () => {
  const f = new Func('f', { p: 'i32' });
  const x = f.i64('x');
  assert.equal(f.i64('x'), x);
  assert.equal(f.i32('p'), f.p.p);
  assert.throws(() => f.i32('x'), /\$x is i64, not i32/);
  assert.throws(() => f.local('i32', '9bad'), /not a valid identifier/);
  assert.deepEqual(
    f.declared.map((l) => l.name),
    ['x'],
  );
});

test('a local of another function, a stray branch and an unknown callee are refused', () => {
  const g = new Func('g', {});
  const h = new Func('h', {});
  const other = new Func('other', {});
  const y = other.i32('y');
  g.emit(y.set(1));
  assert.throws(() => printModule(new Module('m').add(g)), /local \$y belongs to other/);
  const out = label('out');
  h.emit(br(out));
  assert.throws(() => printModule(new Module('m').add(h)), /branch to \$out outside its block/);
  const k = new Func('k', {});
  k.emit(call(other));
  assert.throws(() => printModule(new Module('m').add(k)), /calls \$other, which is not in the module/);
  assert.throws(() => call(new Func('two', { a: 'i32', b: 'i32' }), 1), /1 arguments, expected 2/);
});

test('the printed module assembles, runs, and wraps long lines at their operands', async () => {
  const pair = new Func('pair', { a: 'i64' }, { results: ['i64', 'i64'] });
  pair.emit(i64.add(pair.p.a, 1), i64.mul(pair.p.a, 3));
  const f = new Func('sum', { n: 'i32' }, { export: true, results: ['i64'], public: ['n'] });
  const [acc, x, y] = f.locals('i64', ['acc', 'x', 'y']);
  const i = f.i32('i');
  const [done, next] = [label('done'), label('next')];
  f.emit(
    comment('acc = Σ (i + 1)·(3i) for i < n, the long way round'),
    acc.set(0),
    block(
      done,
      br_if(done, i32.eqz(f.p.n)),
      loop(
        next,
        setMany(call(pair, i64.extend_i32_u(i)), [x, y]),
        acc.set(i64.add(acc, i64.mul(x, y), i64.and(i64x2.extract_lane(i64x2.splat(0), 0), i64.const(0x0123456789abcdefn, true)))),
        if_(i32.eq(i, 1000), [br(done)]),
        br_if(next, i32.lt_u(i.tee(i32.add(i, 1)), f.p.n)),
      ),
    ),
    acc.get(),
  );
  const m = new Module('t').memory(1).add(pair, f);
  const k = kernel(m);
  assert.deepEqual(k.publicParams, { sum: [0] });
  assert.ok(
    k.wat.split('\n').every((l) => l.length <= 130),
    'a line is far beyond the width',
  );
  assert.match(k.wat, /\(local\.set \$acc\n\s+\(i64\.add/);
  const inst = await WebAssembly.instantiate(new WebAssembly.Module((await compileKernel(k)) as Uint8Array<ArrayBuffer>));
  const sum = (inst.exports as { sum: (n: number) => bigint }).sum;
  let want = 0n;
  for (let j = 0n; j < 10n; j++) want += (j + 1n) * 3n * j;
  assert.equal(sum(10), want);
  assert.equal(sum(0), 0n);
});

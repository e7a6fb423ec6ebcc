// The JavaScript printer and check_js.ts with variable-time declarations (src/ct/vartime.ts, as
// the checker reads them): a function that only a declared variable-time export reaches may
// branch on and index by its (public) data; a function shared with a constant-time export stays
// checked; an undeclared module is refused; the printed source carries its declarations and
// check_js exempts by the source's own call graph. Also: the printer leaves out functions no
// export reaches, and prints i64.ctz as WebAssembly computes it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Func, Module, block, br_if, call, i32, i64, if_, kernel, label, printJsModule } from '../src/kernels/builder/index.js';
import { checkJs, varTimeExempt } from '../src/kernels/builder/check_js.js';
import { compileKernel } from '../src/kernels/build.js';
import { checkModule } from '../src/ct/check.js';
import { loadJsModule } from './support/backends.js';

/**
 * shared(p): a constant-time product used by both exports; walk(p): branches on memory and
 * reads at a data-chosen address (variable time); vt_export(p) calls walk and shared;
 * ct_export(p) calls shared only; dead() is called by nothing.
 */
function build(opts: { sharedBranches?: boolean } = {}): Module {
  const shared = new Func('shared', { p: 'i32' });
  {
    const x = shared.i64('x');
    shared.emit(x.set(i64.load(shared.p.p, 0)), opts.sharedBranches ? if_(i64.eqz(x), [x.set(1)]) : [], i64.store(shared.p.p, i64.mul(x, x), 8));
  }
  const walk = new Func('walk', { p: 'i32' }, { results: ['i32'] });
  {
    const [n, a] = walk.locals('i32', ['n', 'a']);
    const done = label('done'),
      again = label('again');
    walk.emit(n.set(i32.wrap_i64(i64.ctz(i64.load(walk.p.p, 16)))), block(done, br_if(done, i32.eqz(n)), a.set(i32.add(walk.p.p, i32.and(n, 8)))), block(again, br_if(again, i64.eqz(i64.load(a, 0))), n.set(i32.add(n, 100))), n.get());
  }
  const vt = new Func('vt_export', { p: 'i32' }, { export: true, public: ['p'], results: ['i32'] });
  vt.emit(call(shared, vt.p.p), call(walk, vt.p.p));
  const ct = new Func('ct_export', { p: 'i32' }, { export: true, public: ['p'] });
  ct.emit(call(shared, ct.p.p));
  const dead = new Func('dead', { p: 'i32' });
  dead.emit(i64.store(dead.p.p, 7, 0));
  return new Module('vtmod').memory(1).add(shared, walk, dead, vt, ct);
}

const decls = { exports: ['vt_export'], helpers: [] };

test('without a declaration a module that branches on memory is refused; with one it prints and passes check_js', () => {
  assert.throws(() => printJsModule(build(), { varTime: { exports: [], helpers: [] } }), /walk: secret branch condition/);
  const src = printJsModule(build(), { varTime: decls });
  assert.match(src, /^\/\/ ctkit variable-time declarations \(src\/ct\/vartime\.ts\): exports vt_export; helpers -$/m);
  assert.deepEqual([...varTimeExempt(src)].sort(), ['f_vt_export', 'f_walk']);
  assert.deepEqual(checkJs(src), []);
  // the dead function is not printed (tsc's noUnusedLocals; nothing could call it)
  assert.doesNotMatch(src, /f_dead/);
  // the declaration line removed, check_js flags the variable-time function (its memory reads
  // flow into the public names the printer gave it)
  const bare = src
    .split('\n')
    .filter((l) => !l.startsWith('// ctkit variable-time'))
    .join('\n');
  assert.ok(
    checkJs(bare).some((v) => v.func === 'f_walk' && v.rule === 'flow'),
    JSON.stringify(checkJs(bare).slice(0, 3)),
  );
  assert.ok(checkJs(bare).every((v) => v.func === 'f_walk' || v.func === 'f_vt_export'));
});

test('a function shared with a constant-time export stays checked under the declaration', () => {
  assert.throws(() => printJsModule(build({ sharedBranches: true }), { varTime: decls }), /shared: secret branch condition/);
  // and the binary checker agrees on the same module
  return compileKernel(kernel(build({ sharedBranches: true }))).then((bytes) => {
    const r = checkModule('vtmod', bytes, [{ module: 'vtmod', kind: 'export', func: 'vt_export', reason: 'test' }]);
    assert.ok(r.violations.some((v) => v.func === 'shared'));
    assert.ok(!r.violations.some((v) => v.func === 'walk'));
  });
});

test('check_js: a constant-time export calling the variable-time function un-exempts it', () => {
  const src = printJsModule(build(), { varTime: decls });
  // ct_export now also calls f_walk: walk is reached from a constant-time export
  const patched = src.replace(/(function f_ct_export\(p_p: number\): void \{\n)/, '$1    f_walk(p_p);\n');
  assert.notEqual(patched, src);
  assert.ok(!varTimeExempt(patched).has('f_walk'));
  assert.ok(checkJs(patched).some((v) => v.func === 'f_walk'));
});

test('the printed variable-time code computes what the WebAssembly does (i64.ctz, branches, data-chosen address)', async () => {
  const bytes = await compileKernel(kernel(build()));
  const wasm = new WebAssembly.Instance(new WebAssembly.Module(bytes as BufferSource), {}).exports as { memory: WebAssembly.Memory; vt_export(p: number): number };
  const js = ((await loadJsModule(printJsModule(build(), { varTime: decls }))) as () => { memory: { buffer: ArrayBuffer }; vt_export(p: number): number })();
  const words = [0n, 1n, 2n, 8n, 1n << 31n, 1n << 32n, 1n << 40n, 1n << 63n, 0x123456789abcdef0n, 0xffffffffffffffffn];
  for (const w16 of words) {
    for (const w8 of [0n, 5n]) {
      for (const [mem, run] of [
        [wasm.memory.buffer, wasm.vt_export],
        [js.memory.buffer, js.vt_export],
      ] as const) {
        const dv = new DataView(mem);
        dv.setBigUint64(0, 3n, true);
        dv.setBigUint64(8, w8, true);
        dv.setBigUint64(16, w16, true);
        void run;
      }
      const a = wasm.vt_export(0),
        b = js.vt_export(0);
      assert.equal(b, a, `word ${w16.toString(16)}, ${w8}`);
      assert.equal(new DataView(js.memory.buffer).getBigUint64(8, true), new DataView(wasm.memory.buffer).getBigUint64(8, true));
    }
  }
});

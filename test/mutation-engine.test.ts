// Tests for src/engine that kill the survivors of its mutation run (issue 18; scripts/mutation.ts
// src/engine) where teeth-engine.test.ts left them: behaviour no other suite observes directly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Kernel, SLOTS_PTR, ready, registerModule } from '../src/engine/kernel.js';
import { tinyModule } from './support/tiny-module.js';
import { CtkitError, CtkitRangeError } from '../src/errors.js';

const PAGE = 65536;
let serial = 0;
const tiny = (pages: number, slotSize: number) => new Kernel<{ memory: WebAssembly.Memory }>({ name: `mutation-engine-${serial++}`, bytes: () => tinyModule(pages) }, slotSize);

test('Kernel.u8 is a live view after the memory grew by other means than allocSlot (its detached view is replaced)', () => {
  const k = tiny(2, 64);
  const before = k.u8;
  assert.equal(before.length, 2 * PAGE);
  k.exports.memory.grow(1); // detaches `before`
  assert.equal(before.byteLength, 0);
  const after = k.u8;
  assert.equal(after.length, 3 * PAGE, 'u8 still the detached view of the old memory');
  after[3 * PAGE - 1] = 9;
  assert.equal(new Uint8Array(k.exports.memory.buffer)[3 * PAGE - 1], 9);
  assert.equal(k.u8, after, 'a live view is kept, not made again on every access');
  // slots still come from SLOTS_PTR, and the memory grown outside is not counted twice
  assert.equal(k.allocSlot(), SLOTS_PTR);
  assert.equal(k.u8.length, 3 * PAGE);
});

// src/engine/backend.ts in this process: the probe against stand-ins for WebAssembly, and the
// environment and setBackend paths on fresh instances of the module (each import with its own
// query string is a module of its own, with no backend chosen yet), so no test depends on the
// order of the others or on what this process chose first.
type BackendModule = typeof import('../src/engine/backend.js');
let fresh = 0;
const freshBackend = async (): Promise<BackendModule> => import(new URL(`../src/engine/backend.ts?fresh=${fresh++}`, import.meta.url).href);

const G = globalThis as { WebAssembly?: unknown; Deno?: unknown };
const realWasm = globalThis.WebAssembly;
/** Run f with globalThis.WebAssembly replaced by w (undefined: removed), restoring it after. */
async function withWasm<T>(w: unknown, f: () => T | Promise<T>): Promise<T> {
  G.WebAssembly = w;
  try {
    return await f();
  } finally {
    G.WebAssembly = realWasm;
  }
}
const noSimd = () => ({ ...Object.fromEntries(Object.getOwnPropertyNames(realWasm).map((n) => [n, (realWasm as unknown as Record<string, unknown>)[n]])), validate: () => false });

/** A constructor that throws, as WebAssembly.Module does when a CSP refuses compilation (an arrow function would fail `new` for another reason). */
const refused = (why: string) =>
  class {
    constructor(..._: unknown[]) {
      throw new Error(why);
    }
  };

const fails = (): never => {
  throw new Error('validate');
};

test('probeBackend: js without a usable WebAssembly, wasm without SIMD128 (or its validation throwing), else simd', async () => {
  const { probeBackend } = await freshBackend();
  assert.equal(probeBackend(), 'simd');
  const W = realWasm as unknown as Record<string, unknown>;
  const cases: [string, unknown, string][] = [
    ['removed', undefined, 'js'],
    ['null', null, 'js'],
    ['not an object', () => undefined, 'js'],
    ['no Module', { ...noSimd(), Module: undefined }, 'js'],
    ['no Instance', { ...noSimd(), Instance: undefined }, 'js'],
    ['compilation refused', { ...noSimd(), Module: refused('CSP') }, 'js'],
    ['instantiation refused', { ...noSimd(), Instance: refused('CSP') }, 'js'],
    ['SIMD refused', noSimd(), 'wasm'],
    ['no validate', { ...noSimd(), validate: undefined }, 'wasm'],
    ['validate throws', { ...noSimd(), validate: fails }, 'wasm'],
    ['validate says yes', { ...noSimd(), validate: W.validate }, 'simd'],
  ];
  for (const [what, w, want] of cases) assert.equal(await withWasm(w, probeBackend), want, what);
});

test('setBackend: a bad name is a CtkitRangeError naming the choices; a backend the engine cannot run is a CtkitError', async () => {
  const m = await freshBackend();
  for (const bad of ['avx', '', 'SIMD', 7, undefined, null]) {
    assert.throws(
      () => m.setBackend(bad as never),
      (e: unknown) => e instanceof CtkitRangeError && (e as Error).message === 'setBackend: backend must be one of simd, wasm, js',
      String(bad),
    );
  }
  await withWasm(noSimd(), () => {
    assert.throws(
      () => m.setBackend('simd'),
      (e: unknown) => e instanceof CtkitError && !(e instanceof CtkitRangeError) && (e as Error).message === 'setBackend: this engine cannot run the simd backend (it can run wasm)',
    );
    m.setBackend('wasm');
    assert.equal(m.backend(), 'wasm');
    m.setBackend('js');
    assert.equal(m.backend(), 'js');
  });
  await withWasm(undefined, () => {
    assert.throws(() => m.setBackend('wasm'), { message: 'setBackend: this engine cannot run the wasm backend (it can run js)' });
    assert.throws(() => m.setBackend('simd'), { message: 'setBackend: this engine cannot run the simd backend (it can run js)' });
    m.setBackend('js');
  });
  m.setBackend('simd');
  assert.equal(m.backend(), 'simd');
});

/** Run f with process.env.CTKIT_BACKEND set to v (undefined: unset), restoring it after. */
async function withEnv<T>(v: string | undefined, f: () => T | Promise<T>): Promise<T> {
  const old = process.env.CTKIT_BACKEND;
  if (v === undefined) delete process.env.CTKIT_BACKEND;
  else process.env.CTKIT_BACKEND = v;
  try {
    return await f();
  } finally {
    if (old === undefined) delete process.env.CTKIT_BACKEND;
    else process.env.CTKIT_BACKEND = old;
  }
}

test('backend(): CTKIT_BACKEND on the first call, else the probe; then fixed until setBackend', async () => {
  await withEnv(undefined, async () => {
    const m = await freshBackend();
    assert.equal(await withWasm(noSimd(), m.backend), 'wasm', 'the probe chose, not a default');
    assert.equal(m.backend(), 'wasm', 'chosen once: a later probe does not change it');
  });
  await withEnv('', async () => assert.equal((await freshBackend()).backend(), 'simd', 'an empty CTKIT_BACKEND is unset'));
  await withEnv('js', async () => {
    const m = await freshBackend();
    assert.equal(m.backend(), 'js');
    process.env.CTKIT_BACKEND = 'wasm';
    assert.equal(m.backend(), 'js', 'the environment is read on the first call only');
    m.setBackend('wasm');
    assert.equal(m.backend(), 'wasm');
  });
  await withEnv('neon', async () => {
    const m = await freshBackend();
    assert.throws(m.backend, (e: unknown) => e instanceof CtkitRangeError && (e as Error).message === 'CTKIT_BACKEND: backend must be one of simd, wasm, js');
  });
  // a backend the engine cannot run: a typed error every time, nothing chosen; the probe once the variable is gone
  await withEnv('simd', async () => {
    const m = await freshBackend();
    await withWasm(noSimd(), () => {
      for (let i = 0; i < 2; i++) {
        assert.throws(m.backend, (e: unknown) => e instanceof CtkitError && (e as Error).message === 'CTKIT_BACKEND=simd: this engine cannot run the simd backend (it can run wasm)');
      }
      delete process.env.CTKIT_BACKEND;
      assert.equal(m.backend(), 'wasm');
    });
  });
  await withEnv('wasm', async () => {
    const m = await freshBackend();
    await withWasm(undefined, () => assert.throws(m.backend, { message: 'CTKIT_BACKEND=wasm: this engine cannot run the wasm backend (it can run js)' }));
  });
});

test('backend() under Deno: CTKIT_BACKEND only where the env permission is granted, without a prompt', async () => {
  const asked: unknown[] = [];
  const deno = (state: string | undefined, value: string | undefined) => ({
    permissions: state === undefined ? undefined : { querySync: (d: unknown) => (asked.push(d), { state }) },
    env: { get: (n: string) => (n === 'CTKIT_BACKEND' ? value : 'other') },
  });
  await withEnv('js', async () => {
    try {
      G.Deno = deno('granted', 'wasm');
      assert.equal((await freshBackend()).backend(), 'wasm', "Deno's environment, not process.env");
      assert.deepEqual(asked, [{ name: 'env', variable: 'CTKIT_BACKEND' }]);
      for (const state of ['prompt', 'denied']) {
        G.Deno = deno(state, 'wasm');
        assert.equal((await freshBackend()).backend(), 'simd', state);
      }
      G.Deno = deno(undefined, 'wasm'); // no permissions API: not read
      assert.equal((await freshBackend()).backend(), 'simd');
      G.Deno = {
        permissions: {
          querySync: () => {
            throw new Error('no');
          },
        },
      };
      assert.equal((await freshBackend()).backend(), 'simd', 'a throwing permissions API means no environment');
    } finally {
      delete G.Deno;
    }
  });
});

test('a source without the variant a backend needs is a CtkitError naming the module and the backend', () => {
  for (const b of ['wasm', 'js'] as const) {
    assert.throws(
      () => new Kernel({ name: `mutation-engine-no-${b}`, bytes: () => tinyModule(2), backend: b }, 64),
      (e: unknown) => e instanceof CtkitError && (e as Error).message === `kernel module 'mutation-engine-no-${b}' has no ${b} backend`,
    );
  }
});

/** A source on backend b whose bytes for that backend count their calls (compilations). */
function counted(name: string, b: 'simd' | 'wasm' | 'js', pages: number) {
  const calls = { simd: 0, wasm: 0, js: 0 };
  const src = {
    name,
    backend: b,
    bytes: () => (calls.simd++, tinyModule(pages)),
    variants: { wasm: () => (calls.wasm++, tinyModule(pages)), js: () => (calls.js++, { memory: new WebAssembly.Memory({ initial: pages }) }) },
  };
  return { src, calls };
}

test('ready() compiles each registered module once per backend, skips js, and later instances reuse what it compiled', async () => {
  const simd = counted('mutation-engine-ready', 'simd', 2);
  const wasm = counted('mutation-engine-ready', 'wasm', 3); // the same name on another backend: a module of its own
  const js = counted('mutation-engine-ready-js', 'js', 2);
  // registered by name: the wasm source replaces the simd one, whose compiled module stays
  registerModule(simd.src);
  registerModule(js.src);
  await ready();
  registerModule(wasm.src);
  await ready();
  assert.deepEqual(simd.calls, { simd: 1, wasm: 0, js: 0 }, 'ready() did not compile the simd bytes');
  assert.deepEqual(wasm.calls, { simd: 0, wasm: 1, js: 0 }, 'ready() did not compile the wasm bytes under their own key');
  assert.deepEqual(js.calls, { simd: 0, wasm: 0, js: 0 }, 'ready() touched a js module');
  await ready();
  assert.equal(simd.calls.simd + wasm.calls.wasm, 2, 'a second ready() compiled again');
  const k1 = new Kernel(simd.src, 64);
  const k2 = new Kernel(wasm.src, 64);
  assert.equal(simd.calls.simd + wasm.calls.wasm, 2, 'an instance after ready() compiled again');
  assert.equal(k1.u8.length, 2 * PAGE);
  assert.equal(k2.u8.length, 3 * PAGE, 'the wasm instance got the simd module');
  assert.equal(new Kernel(js.src, 64).backend, 'js');
  assert.equal(js.calls.js, 1);
});

test("a test source's bare bytes are not cached: a later module of the same name compiles its own", () => {
  const name = 'mutation-engine-bare';
  assert.equal(new Kernel({ name, bytes: () => tinyModule(1) }, 64).u8.length, PAGE);
  const later = counted(name, 'simd', 3);
  assert.equal(new Kernel(later.src, 64).u8.length, 3 * PAGE);
  assert.equal(later.calls.simd, 1);
});

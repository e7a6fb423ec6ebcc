// Kernels of one backend built from a generator with test flags (negative controls): scalar
// WebAssembly bytes, or the printed JavaScript loaded as a module, as a Kernel pinned to that
// backend, to run through the same glue as the shipped one.

import { transform } from 'esbuild';
import { type GeneratedKernel, printJsModule, withTarget } from '../../src/kernels/builder/index.js';
import { checkJs } from '../../src/kernels/builder/check_js.js';
import { compileKernel } from '../../src/kernels/build.js';
import { JsMemory } from '../../src/engine/js-memory.js';
import { Kernel, type ModuleSource } from '../../src/engine/kernel.js';
import type { Backend } from '../../src/engine/backend.js';

/** The printed module's instance (types stripped by esbuild, JsMemory passed in). */
export async function loadJsModule(src: string): Promise<unknown> {
  const { code } = await transform(src.replace(/^import .*$/gm, ''), { loader: 'ts', format: 'esm' });
  (globalThis as { __ctkitJsMemory?: unknown }).__ctkitJsMemory = JsMemory;
  const mod = await import('data:text/javascript,' + encodeURIComponent(`const JsMemory = globalThis.__ctkitJsMemory;\n${code}`));
  return mod.instantiate;
}

/** A module source of backend b ('wasm' or 'js') from generate(), run under that target, pinned to b. */
export async function sourceFor(b: Exclude<Backend, 'simd'>, name: string, generate: () => GeneratedKernel): Promise<ModuleSource> {
  const g = withTarget(b, generate);
  if (b === 'wasm') {
    const bytes = await compileKernel(g);
    return { name, bytes: () => bytes, variants: { wasm: () => bytes }, backend: 'wasm' };
  }
  const src = printJsModule(g.ir!);
  const bad = checkJs(src);
  if (bad.length) throw new Error(`${name}: check_js: ${bad.map((v) => v.text).join('; ')}`);
  const instantiate = (await loadJsModule(src)) as () => unknown;
  return { name, bytes: () => new Uint8Array(0), variants: { js: instantiate }, backend: 'js' };
}

/**
 * A broken build (a negative control) for the backend under test (CTKIT_BACKEND): on simd the
 * module's bytes, else sourceFor's (on js, printed JavaScript). Each needs a name of its own:
 * the engine keeps a compiled wasm module per name.
 */
export async function controlSource(name: string, generate: () => GeneratedKernel): Promise<ModuleSource> {
  const b = testBackend();
  if (b !== 'simd') return sourceFor(b, name, generate);
  const bytes = await compileKernel(generate());
  return { name, bytes: () => bytes };
}

/** A kernel of backend b ('wasm' or 'js') from generate(), run under that target. */
export async function kernelFor<E>(b: Exclude<Backend, 'simd'>, name: string, generate: () => GeneratedKernel, slotSize: number): Promise<Kernel<E>> {
  return new Kernel<E>(await sourceFor(b, name, generate), slotSize);
}

/** The backend this test process runs the library on (CTKIT_BACKEND; test/backends.test.ts sets it). */
export function testBackend(): Backend {
  const b = process.env.CTKIT_BACKEND;
  return b === 'wasm' || b === 'js' ? b : 'simd';
}

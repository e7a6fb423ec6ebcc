// Which backend runs the kernels: `simd` (WebAssembly with SIMD128), `wasm` (scalar WebAssembly)
// or `js` (the same kernels printed as JavaScript, for engines without WebAssembly — React
// Native's Hermes — or pages whose CSP refuses to compile it). Every kernel module is generated
// for all three from one generator (src/kernels/builder/target.ts).
//
// On first use a probe picks the fastest that works: `simd` if a module with a v128 instruction
// validates, else `wasm` if a scalar module compiles and instantiates, else `js`. The environment
// variable CTKIT_BACKEND=simd|wasm|js (where the runtime has an environment: Node.js, Bun, Deno
// with --allow-env) and setBackend(name) override the probe; backend() says which one runs.
//
// Thresholds. No backend is faster than simd at any input size measured: the glue, its copies
// and the call cost are the same for all three, and SIMD's four-block passes already fall back
// to one scalar block inside the SIMD module for short inputs (chacha: up to 64 bytes). Medians
// per call, one run, AMD EPYC 2 vCPU, Node.js 20.20.2, a niced mutation run on the same cores;
// `npx tsx bench/run.ts '^(chacha20-poly1305|aes-128-gcm|sm4-gcm)/tls-seal/' --backends
// simd,wasm,js --impl ctkit --impl 'ctkit (wasm)' --impl 'ctkit (js)'` (every TLS size 15–1400,
// four shown):
//
//   case                              simd      wasm      js
//   chacha20-poly1305/tls-seal/15     1.18 µs   1.57 µs   2.43 µs
//   chacha20-poly1305/tls-seal/63     1.70 µs   2.17 µs   3.15 µs
//   chacha20-poly1305/tls-seal/239    2.23 µs   2.96 µs   4.37 µs
//   chacha20-poly1305/tls-seal/1400   4.18 µs   6.00 µs   10.1 µs
//   aes-128-gcm/tls-seal/15           0.98 µs   2.22 µs   7.08 µs
//   aes-128-gcm/tls-seal/239          3.25 µs   5.46 µs   23.0 µs
//   sm4-gcm/tls-seal/15               1.10 µs   3.03 µs   9.29 µs
//   sm4-gcm/tls-seal/239              3.10 µs   5.15 µs   22.9 µs
//
// so the dispatch is per backend, not per size (a size threshold would also need every key
// expanded in two instances' memories).

import { CtkitError, CtkitRangeError } from '../errors.js';

export type Backend = 'simd' | 'wasm' | 'js';
const BACKENDS: readonly Backend[] = ['simd', 'wasm', 'js'];

// (module (func (result v128) (v128.const i64x2 0 0)))
const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 22, 1, 20, 0, 253, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 11]);
// (module (func))
const SCALAR_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 10, 4, 1, 2, 0, 11]);

let chosen: Backend | undefined;

/** What this engine can run: simd, wasm or js (the probe alone, without the overrides). */
export function probeBackend(): Backend {
  // no WebAssembly, no Module or Instance, a compilation refused (a CSP without
  // wasm-unsafe-eval): each throws here
  const W = (globalThis as { WebAssembly?: unknown }).WebAssembly as typeof WebAssembly;
  try {
    new W.Instance(new W.Module(SCALAR_PROBE as BufferSource), {});
  } catch {
    return 'js';
  }
  try {
    return W.validate(SIMD_PROBE as BufferSource) ? 'simd' : 'wasm';
  } catch {
    return 'wasm';
  }
}

/** CTKIT_BACKEND from the environment, where there is one and reading it needs no prompt. */
function fromEnvironment(): string | undefined {
  // biome-ignore lint/suspicious/noExplicitAny: Deno's namespace is probed, not typed (no Deno types in the build)
  const g = globalThis as { Deno?: any; process?: { env?: Record<string, string | undefined> } };
  try {
    if (g.Deno) {
      // a permission query never prompts; without the API it throws, and there is no environment
      const st = g.Deno.permissions.querySync({ name: 'env', variable: 'CTKIT_BACKEND' });
      return st.state === 'granted' ? g.Deno.env.get('CTKIT_BACKEND') : undefined;
    }
    return g.process?.env?.CTKIT_BACKEND || undefined;
  } catch {
    return undefined;
  }
}

function check(name: unknown, where: string): Backend {
  if (typeof name !== 'string' || !(BACKENDS as readonly string[]).includes(name)) {
    throw new CtkitRangeError(`${where}: backend must be one of ${BACKENDS.join(', ')}`);
  }
  return name as Backend;
}

/** Whether this engine can run backend b (js always; wasm needs WebAssembly; simd also SIMD128). */
function canRun(b: Backend): boolean {
  const have = probeBackend();
  return b === 'js' || have === 'simd' || (b === 'wasm' && have === 'wasm');
}

/** The backend in use (chosen on the first call: CTKIT_BACKEND, else the probe). */
export function backend(): Backend {
  if (chosen === undefined) {
    const env = fromEnvironment();
    chosen = env === undefined ? probeBackend() : check(env, 'CTKIT_BACKEND');
    if (!canRun(chosen)) {
      const b = chosen;
      chosen = undefined;
      throw new CtkitError(`CTKIT_BACKEND=${b}: this engine cannot run the ${b} backend (it can run ${probeBackend()})`);
    }
  }
  return chosen;
}

/**
 * Use backend `name` from now on: kernels instantiated after this call run on it (keys made
 * before keep the instance they were expanded in). Throws when the engine cannot run it.
 */
export function setBackend(name: Backend): void {
  const b = check(name, 'setBackend');
  if (!canRun(b)) throw new CtkitError(`setBackend: this engine cannot run the ${b} backend (it can run ${probeBackend()})`);
  chosen = b;
}

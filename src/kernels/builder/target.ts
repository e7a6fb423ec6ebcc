// The generator target: which backend a generator writes for. `simd` is the SIMD128 module;
// `wasm` is scalar WebAssembly (no v128 value, so no SIMD instruction: the builder refuses one
// when it is built, which makes "scalar" mechanical); `js` is the same scalar IR, printed as
// JavaScript by print_js.ts. A generator reads `target()` where it chooses a technique per
// backend; gen.ts runs each generator once per target with `withTarget`.

export type Target = 'simd' | 'wasm' | 'js';

let current: Target = 'simd';

/** The target the generator being run writes for. */
export function target(): Target {
  return current;
}

/** Whether v128 values are allowed (the SIMD128 target only). */
export function simdAllowed(): boolean {
  return current === 'simd';
}

/** Runs fn with the generator target t (restored afterwards, also on an exception). */
export function withTarget<R>(t: Target, fn: () => R): R {
  const was = current;
  current = t;
  try {
    return fn();
  } finally {
    current = was;
  }
}

/** Throws unless v128 is allowed: `what` names the SIMD instruction or local refused. */
export function requireSimd(what: string): void {
  if (current !== 'simd') throw new Error(`target ${current}: ${what} is a SIMD128 instruction (v128), refused outside the simd target`);
}

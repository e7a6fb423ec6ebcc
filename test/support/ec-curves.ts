// Every curve's parameters with its shipped kernel module, for the curve tests; broken builds
// (negative controls) for the backend under test (CTKIT_BACKEND, test/backends.test.ts).
import * as ec_p256 from '../../src/engine/wasm/ec_p256.js';
import * as ec_p224 from '../../src/engine/wasm/ec_p224.js';
import * as ec_brainpoolp256r1 from '../../src/engine/wasm/ec_brainpoolp256r1.js';
import * as ec_p384 from '../../src/engine/wasm/ec_p384.js';
import * as ec_p521 from '../../src/engine/wasm/ec_p521.js';
import * as ec_secp256k1 from '../../src/engine/wasm/ec_secp256k1.js';
import * as ec_brainpoolp384r1 from '../../src/engine/wasm/ec_brainpoolp384r1.js';
import * as ec_brainpoolp512r1 from '../../src/engine/wasm/ec_brainpoolp512r1.js';
import { CURVES, type CurveName } from '../../src/curves/params.js';
import { EcKernel, ecKernel } from '../../src/ec/kernel.js';
import { Kernel, type ModuleSource } from '../../src/engine/kernel.js';
import type { EcExports } from '../../src/engine/wasm/ec.contract.js';
import { type EcFlags, generateEc } from '../../src/kernels/ec_rcb_window.js';
import { controlSource, testBackend } from './backends.js';

export const MODULES: Record<CurveName, ModuleSource> = {
  p256: ec_p256,
  p224: ec_p224,
  brainpoolP256r1: ec_brainpoolp256r1,
  p384: ec_p384,
  p521: ec_p521,
  secp256k1: ec_secp256k1,
  brainpoolP384r1: ec_brainpoolp384r1,
  brainpoolP512r1: ec_brainpoolp512r1,
};

/** The curves the family tests run: every curve, on every backend (on js since the rolled products). */
export const CURVE_NAMES = Object.keys(CURVES) as CurveName[];

// on js, the opt-in imports of every curve, as an application would write them
if (testBackend() === 'js') await Promise.all(CURVE_NAMES.map((n) => import(`../../src/ec/js/${n}.js`)));

/** The field's limb width on the backend under test (src/kernels/fe_mont29.ts: 12 bits in i32 on js). */
export const LIMB_BITS = testBackend() === 'js' ? 12 : 29;

export function kernelOf(name: CurveName): EcKernel {
  return ecKernel(CURVES[name], MODULES[name]);
}

/** A broken build of a curve module (negative controls) for the backend under test, as a module source. */
export function brokenSource(name: CurveName, flags: EcFlags, label: string): Promise<ModuleSource> {
  return controlSource(label, () => generateEc(CURVES[name], flags));
}

/** A broken build of a curve module as an EcKernel of its own, on the backend under test. */
export async function brokenKernel(name: CurveName, flags: EcFlags): Promise<EcKernel> {
  const src = await brokenSource(name, flags, `broken-${name}-${Object.keys(flags)[0]}`);
  return new EcKernel(CURVES[name], new Kernel<EcExports>(src, (testBackend() === 'js' ? 3 : 1) * 32 * 1024)); // as src/ec/kernel.ts's slotFor
}

/** n on the simd backend, else the count for the scalar backends, wasm and js (slower; CI time). */
export const perBackend = (simd: number, wasm: number): number => (testBackend() === 'simd' ? simd : wasm);

/**
 * Whether negative control number `i` (of a file's list) on curve `name` runs on the backend
 * under test (each broken build is generated for it: CI time): all of them on simd; on wasm
 * and js every control on P-256.
 */
export const controlHere = (_i: number, name: CurveName): boolean => testBackend() === 'simd' || name === 'p256';

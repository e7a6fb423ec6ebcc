// Every curve's parameters with its shipped kernel module, for the curve tests.
import * as ec_p256 from '../../src/engine/wasm/ec_p256.js';
import * as ec_p224 from '../../src/engine/wasm/ec_p224.js';
import * as ec_brainpoolp256r1 from '../../src/engine/wasm/ec_brainpoolp256r1.js';
import * as ec_p384 from '../../src/engine/wasm/ec_p384.js';
import * as ec_p521 from '../../src/engine/wasm/ec_p521.js';
import * as ec_secp256k1 from '../../src/engine/wasm/ec_secp256k1.js';
import * as ec_brainpoolp384r1 from '../../src/engine/wasm/ec_brainpoolp384r1.js';
import * as ec_brainpoolp512r1 from '../../src/engine/wasm/ec_brainpoolp512r1.js';
import { CURVES, type CurveName } from '../../src/curves/params.js';
import { ecKernel, type EcKernel } from '../../src/ec/kernel.js';
import type { ModuleSource } from '../../src/engine/kernel.js';

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

export const CURVE_NAMES = Object.keys(CURVES) as CurveName[];

export function kernelOf(name: CurveName): EcKernel {
  return ecKernel(CURVES[name], MODULES[name]);
}

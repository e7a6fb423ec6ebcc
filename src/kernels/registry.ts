// Every shipped kernel module and the generator that writes it.
import { generateAesGcm } from './aes_gcm.js';
import { generateChacha } from './chacha20_simd128.js';
import { EC_MODULES } from './ec_rcb_window.js';
import { generateGf128 } from './gf128_ctmul64.js';
import { generateSha2 } from './sha2_vsched.js';
import { generateSm4Gcm } from './sm4_gcm.js';
import type { GeneratedKernel } from './builder/index.js';

export interface KernelEntry {
  /** module name */
  name: string;
  /** the generator file, for the header of the generated files */
  source: string;
  /** the generator call, as written in the generated files' header */
  call: string;
  generate: () => GeneratedKernel;
}

export const kernels: KernelEntry[] = [
  { name: 'gf128', source: 'src/kernels/gf128_ctmul64.ts', call: 'generateGf128()', generate: () => generateGf128() },
  { name: 'chacha', source: 'src/kernels/chacha20_simd128.ts', call: 'generateChacha()', generate: () => generateChacha() },
  { name: 'sha2', source: 'src/kernels/sha2_vsched.ts', call: 'generateSha2()', generate: () => generateSha2() },
  { name: 'aes', source: 'src/kernels/aes_gcm.ts', call: 'generateAesGcm()', generate: () => generateAesGcm() },
  { name: 'sm4', source: 'src/kernels/sm4_gcm.ts', call: 'generateSm4Gcm()', generate: () => generateSm4Gcm() },
  ...EC_MODULES, // ec_p256, ec_p224, …: one module per curve
];

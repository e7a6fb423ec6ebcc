// Every shipped kernel module and the generator that writes it.
import { generateAesGcm } from './aes_gcm.js';
import { generateChacha } from './chacha20_simd128.js';
import { EC_MODULES } from './ec_rcb_window.js';
import { generateGf128 } from './gf128_ctmul64.js';
import { generateSha2 } from './sha2_vsched.js';
import { generateSm4Gcm } from './sm4_gcm.js';
import { generateX25519 } from './x25519_ladder.js';
import { generateEd25519 } from './ed25519_module.js';
import type { GeneratedKernel } from './builder/index.js';
import { AES_IO, AES_SLOT } from './aes_layout.js';
import { CHACHA_POLY_STATE_SIZE, FUSED_MIN, KS_PTR, PIN, POLY, ST } from './chacha20_simd128.js';
import { GF128_MAX_POWERS, GF128_SLOT_SIZE, GF128_STATE_OFFSET, GF128_TABLE_OFFSET, GF128_TABLE_SIZE, GF128_W16_OFFSET, GF128_W16_PIN, GF128_W16_SIZE } from './gf128_ctmul64.js';
import { SHA2_IO_GLUE_END, SHA2_K256_PTR, SHA2_K512_PTR, SHA2_PAD_PTR, SHA2_WORK_PTR } from './sha2_vsched.js';
import { SM4_GCM_BLOCKS, SM4_RK, SM4_SLOT } from './sm4_layout.js';

const GF128_LAYOUT = {
  SLOT_SIZE: GF128_SLOT_SIZE,
  STATE_OFFSET: GF128_STATE_OFFSET,
  TABLE_OFFSET: GF128_TABLE_OFFSET,
  TABLE_SIZE: GF128_TABLE_SIZE,
  MAX_POWERS: GF128_MAX_POWERS,
  W16_OFFSET: GF128_W16_OFFSET,
  W16_SIZE: GF128_W16_SIZE,
  W16_PIN: GF128_W16_PIN,
};

export interface KernelEntry {
  /** module name */
  name: string;
  /** the generator file, for the header of the generated files */
  source: string;
  /** the generator call, as written in the generated files' header */
  call: string;
  /** the memory layout the module shares with its glue (written to its contract) */
  layout?: Record<string, unknown>;
  /** the other backends the generator writes (src/kernels/builder/target.ts): <name>_wasm, <name>_js */
  targets?: readonly ('wasm' | 'js')[];
  /**
   * a target written but not imported by <name>.ts: the import that provides it (a curve's
   * JavaScript is hundreds of KB, so only an application that needs it carries it)
   */
  optIn?: { readonly js: string };
  generate: () => GeneratedKernel;
}

export const kernels: KernelEntry[] = [
  { name: 'gf128', source: 'src/kernels/gf128_ctmul64.ts', call: 'generateGf128()', layout: GF128_LAYOUT, targets: ['wasm', 'js'], generate: () => generateGf128() },
  { name: 'chacha', source: 'src/kernels/chacha20_simd128.ts', call: 'generateChacha()', layout: { ST, KS_PTR, POLY, PIN, FUSED_MIN, POLY_STATE_SIZE: CHACHA_POLY_STATE_SIZE }, targets: ['wasm', 'js'], generate: () => generateChacha() },
  {
    name: 'sha2',
    source: 'src/kernels/sha2_vsched.ts',
    call: 'generateSha2()',
    targets: ['wasm', 'js'],
    layout: { K256_PTR: SHA2_K256_PTR, K512_PTR: SHA2_K512_PTR, WORK_PTR: SHA2_WORK_PTR, PAD_PTR: SHA2_PAD_PTR, IO_GLUE_END: SHA2_IO_GLUE_END },
    generate: () => generateSha2(),
  },
  { name: 'aes', source: 'src/kernels/aes_gcm.ts', call: 'generateAesGcm()', layout: { IO: AES_IO, SLOT: AES_SLOT, GF128: GF128_LAYOUT }, targets: ['wasm', 'js'], generate: () => generateAesGcm() },
  { name: 'sm4', source: 'src/kernels/sm4_gcm.ts', call: 'generateSm4Gcm()', layout: { IO: AES_IO, RK: SM4_RK, SLOT: SM4_SLOT, GCM_BLOCKS: SM4_GCM_BLOCKS, GF128: GF128_LAYOUT }, targets: ['wasm', 'js'], generate: () => generateSm4Gcm() },
  ...EC_MODULES, // ec_p256, ec_p224, …: one module per curve
  { name: 'x25519', source: 'src/kernels/x25519_ladder.ts', call: 'generateX25519()', targets: ['wasm', 'js'], optIn: { js: 'ctkit/ec/js/x25519' }, generate: () => generateX25519() },
  { name: 'ed25519', source: 'src/kernels/ed25519_module.ts', call: 'generateEd25519()', targets: ['wasm', 'js'], optIn: { js: 'ctkit/ec/js/ed25519' }, generate: () => generateEd25519() },
];

// Turns a generator's WAT into the shipped binary: wabt's text-to-binary translation (no
// optimiser: the binary is the text, instruction for instruction), then the `ctkit.ct` custom
// section that declares each export's public parameters for the constant-time checker.

import wabtInit from 'wabt';
import { withCtSection } from '../ct/section.js';
import type { GeneratedKernel } from './builder/index.js';

type Wabt = Awaited<ReturnType<typeof wabtInit>>;
let wabtPromise: Promise<Wabt> | undefined;

export async function compileKernel(k: GeneratedKernel): Promise<Uint8Array> {
  wabtPromise ??= wabtInit();
  const wabt = await wabtPromise;
  const mod = wabt.parseWat(`${k.name}.wat`, k.wat, { simd: true, multi_value: true, bulk_memory: true, mutable_globals: true, sign_extension: true, sat_float_to_int: true });
  try {
    mod.validate();
    const { buffer } = mod.toBinary({ log: false, write_debug_names: true });
    return withCtSection(new Uint8Array(buffer), k.publicParams);
  } finally {
    mod.destroy();
  }
}

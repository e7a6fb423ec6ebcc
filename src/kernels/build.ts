// Turns a generator's WAT into the shipped binary: wabt's text-to-binary translation (no
// optimiser: the binary is the text, instruction for instruction), then the `ctkit.ct` custom
// section that declares each export's public parameters for the constant-time checker. Of the
// debug names only the function names are kept (strip_names.ts); `localNames` keeps them all.

import wabtInit from 'wabt';
import { withCtSection } from '../ct/section.js';
import type { GeneratedKernel } from './builder/index.js';
import { keepFunctionNames } from './strip_names.js';

type Wabt = Awaited<ReturnType<typeof wabtInit>>;
let wabtPromise: Promise<Wabt> | undefined;

export async function compileKernel(k: GeneratedKernel, opts: { localNames?: boolean } = {}): Promise<Uint8Array> {
  wabtPromise ??= wabtInit();
  const wabt = await wabtPromise;
  const mod = wabt.parseWat(`${k.name}.wat`, k.wat, { simd: true, multi_value: true, bulk_memory: true, mutable_globals: true, sign_extension: true, sat_float_to_int: true });
  try {
    mod.validate();
    const { buffer } = mod.toBinary({ log: false, write_debug_names: true });
    const bytes = new Uint8Array(buffer);
    return withCtSection(opts.localNames ? bytes : keepFunctionNames(bytes), k.publicParams);
  } finally {
    mod.destroy();
  }
}

// The kernel builder: typed WebAssembly expressions (ir.ts, ops.ts), functions and modules
// (func.ts), and the printer (print.ts) whose text build.ts assembles with wabt. A thin layer:
// one expression is one instruction, in the order written; nothing is optimised or reordered.

import type { Module } from './func.js';
import { printModule } from './print.js';
import type { ValType } from './ir.js';
import type { Target } from './target.js';

export * from './ir.js';
export * from './ops.js';
export * from './func.js';
export * from './target.js';
export { printJsModule } from './print_js.js';
export { printModule, printFunc } from './print.js';

/** A generated module: its text, and what build.ts and gen.ts need beside it. */
export interface GeneratedKernel {
  /** module name: src/kernels/generated/<name>.wat, src/engine/wasm/<name>.ts */
  name: string;
  /** the whole module as WAT text */
  wat: string;
  /** exported function name -> indices of its public parameters */
  publicParams: Record<string, number[]>;
  /** every export's parameters and results (builder modules only) */
  signatures?: { name: string; params: [string, ValType][]; results: ValType[] }[];
  /** the exported globals (i32 constants), by name */
  globals?: Record<string, number | bigint>;
  /** the module's memory layout: the constants its glue shares with it */
  layout?: Record<string, unknown>;
  /** the generator target (target.ts) */
  target?: Target;
  /** the module's IR (for the JavaScript printer) */
  ir?: Module;
}

/** The module as a GeneratedKernel. */
export function kernel(m: Module): GeneratedKernel {
  const globals = Object.fromEntries(m.globals.map((g) => [g.exportName, g.value]));
  return { name: m.name, wat: printModule(m), publicParams: m.publicParams(), signatures: m.signatures(), globals, target: m.target, ir: m };
}

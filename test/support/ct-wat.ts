// Small WebAssembly modules for the constant-time checker's tests: WAT assembled by wabt with
// every feature the decoder knows (threads for the atomics), names kept for the reports.
import wabtInit from 'wabt';
import { checkModule, formatViolation, type CheckOptions, type Report, type Rule } from '../../src/ct/check.js';
import { withCtSection } from '../../src/ct/section.js';
import type { VarTimeDecl } from '../../src/ct/vartime.js';
import assert from 'node:assert/strict';

export const wabt = await wabtInit();
export const features = {
  simd: true,
  bulk_memory: true,
  reference_types: true,
  multi_value: true,
  sat_float_to_int: true,
  sign_extension: true,
  mutable_globals: true,
  tail_call: true,
  threads: true,
};

export function wat(text: string, validate = true): Uint8Array {
  const mod = wabt.parseWat('test.wat', text, features);
  try {
    mod.resolveNames();
    if (validate) mod.validate();
    return new Uint8Array(mod.toBinary({ write_debug_names: true }).buffer);
  } finally {
    mod.destroy();
  }
}

/** A module around `funcs` with an exported memory (`shared`: a shared one, for the atomics). */
export const mod = (funcs: string, shared = false) => `(module ${funcs} (memory (export "memory") 1${shared ? ' 1 shared' : ''}))`; // after funcs: imports come first

export interface CaseDecls {
  vartime?: Record<string, string>;
  helpers?: Record<string, string>;
  decls?: VarTimeDecl[];
  options?: CheckOptions;
  shared?: boolean;
}

export function check(text: string, pub: Record<string, number[]>, d: CaseDecls = {}): { report: Report; bytes: Uint8Array } {
  // wabt.js's validator rejects shared memories whatever the features; checkModule validates
  // every module with the engine's WebAssembly.validate anyway
  const bytes = withCtSection(wat(mod(text, d.shared), !d.shared), pub, d.vartime, d.helpers);
  return { report: checkModule('t', bytes, d.decls ?? [], d.options), bytes };
}

export const lines = (r: Report) => r.violations.map(formatViolation).join('\n');

/** Asserts that the only rule violated is `rule` (and how often, when given). */
export function expectOnly(text: string, pub: Record<string, number[]>, rule: Rule, count?: number, d: CaseDecls = {}) {
  const { report, bytes } = check(text, pub, d);
  const all = lines(report);
  assert.ok(report.violations.length > 0, `expected a ${rule} violation, got none`);
  assert.deepEqual([...new Set(report.violations.map((v) => v.rule))], [rule], all);
  if (count !== undefined) assert.equal(report.violations.length, count, all);
  return { report, bytes };
}

export function expectClean(text: string, pub: Record<string, number[]>, d: CaseDecls = {}) {
  const { report, bytes } = check(text, pub, d);
  assert.deepEqual(report.violations.map(formatViolation), []);
  return { report, bytes };
}

// `npm run ct [-- --module <name>]`: checks every shipped WebAssembly module for constant-time
// violations (see check.ts), prints each violation and the variable-time declarations, and
// exits 1 if any module has a violation or cannot be checked.

import { shipped } from '../engine/wasm/all.js';
import { checkModule, formatViolation } from './check.js';

const args = process.argv.slice(2);
const at = args.indexOf('--module');
const only = at >= 0 ? args[at + 1] : undefined;
if (at >= 0 && !only) {
  console.error('usage: tsx src/ct/run.ts [--module <name>]');
  process.exit(2);
}

const names = Object.keys(shipped).filter((n) => only === undefined || n === only);
if (only !== undefined && names.length === 0) {
  console.error(`ct: no shipped module named "${only}" (have: ${Object.keys(shipped).join(', ') || 'none'})`);
  process.exit(1);
}

let failed = 0;
for (const name of names) {
  try {
    const r = checkModule(name, shipped[name]());
    const exempt = r.exempt.length ? `, ${r.exempt.length} exempt` : '';
    console.log(`${name}: ${r.functions} functions checked${exempt}, ${r.violations.length} violations`);
    for (const v of r.violations) console.log(`  ${formatViolation(v)}`);
    for (const d of r.declared) console.log(`  variable-time ${d.kind} ${d.func} (covers ${d.covers.join(', ') || 'nothing'}): ${d.reason}`);
    if (r.violations.length) failed++;
  } catch (e) {
    console.log(`${name}: cannot be checked: ${(e as Error).message}`);
    failed++;
  }
}
console.log(`\n${names.length} module(s) checked, ${failed} failing`);
process.exitCode = failed ? 1 : 0;

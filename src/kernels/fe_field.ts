// The functions of one prime field, in the order a curve module carries them: the products
// (fe_mont29.ts), the carry chains and conversions (fe_ops.ts), and the inversions — safegcd
// on the canonical value (fe_safegcd.ts), then the Montgomery factors restored by a product
// with R³ ((aR)⁻¹ = a⁻¹R⁻¹; mont(a⁻¹R⁻¹, R³) = a⁻¹R). inv is constant time; inv_vt, for public
// data only (ECDSA verification), is the variable-time variant. Measured against the Fermat
// addition chain they replace (µs per call, see fe_safegcd.ts): P-256 p 3.9 → 1.25,
// brainpoolP256r1 p 7.6 → 1.25, brainpoolP512r1 n 42.5 → 4.2. On the js target (12-bit
// limbs in i32, fe_mont29.ts) inversion is that chain, a^(m−2) (fe_pow.ts): safegcd's 62-bit
// steps would run there on i64 emulated in 32-bit halves.

import { type Func, call, i32 } from './builder/index.js';
import { type FieldGen, productFunctions } from './fe_mont29.js';
import { carryChainFunctions } from './fe_ops.js';
import { safegcdFunction } from './fe_safegcd.js';
import { powLines } from './fe_pow.js';

/** Every function of the field fg (writes the bodies of its handles). */
export function fieldFunctions(fg: FieldGen): Func[] {
  const out = [...productFunctions(fg), ...carryChainFunctions(fg)];
  const kinds: [Func, boolean][] = [[fg.inv, true], ...(fg.varTimeInv ? [[fg.invVt, false] as [Func, boolean]] : [])];
  for (const [f, constantTime] of kinds) {
    if (fg.T === 'i32') {
      // js: a^(m−2), the same chain for inv and inv_vt (fg.invWorkspace has its table)
      f.emit(powLines(fg, f, fg.m - 2n, f.i32('r'), f.i32('a'), f.i32('ws')));
      out.push(f);
      continue;
    }
    const sg = safegcdFunction(`${f.name}_raw`, fg.m, { constantTime });
    if (fg.FE + sg.workspace > fg.invWorkspace) throw new Error(`${fg.pre}: ${f.name} needs more work space than invWorkspace`);
    const { r, a, ws } = { r: f.i32('r'), a: f.i32('a'), ws: f.i32('ws') };
    f.emit(call(fg.canon, ws, a), call(sg.func, r, ws, i32.add(ws, fg.FE)), call(fg.mulc('r3'), r, r));
    out.push(sg.func, f);
  }
  return out;
}

// What the generators of one curve module share: the curve, its two fields, the sizes of an
// element and of a point, the negative-control flags, and the work-space accounting. Every
// function takes ws, a pointer to scratch memory it may use (its own temporaries first, its
// callees' after); the module's exported global WS_SIZE bounds the whole call tree.

import { type Func, type Local, i32 } from './builder/index.js';
import type { CurveParams } from '../curves/params.js';
import type { CurveShape } from './ec_formulas.js';
import type { FieldFlags, FieldGen } from './fe_mont29.js';

export interface EcFlags extends FieldFlags {
  /** the addition formula's first tripling computes 4× instead of 3× */
  wrongCoefficient?: boolean;
  /** the variable-base lookup swaps the masks of entries 1 and 2 */
  wrongLookup?: boolean;
  /** timing control (npm run ct:timing): ec_mul skips the lookup and addition of a zero digit
   * (a branch on the scalar; same results) */
  skipZeroDigits?: boolean;
  /** the signing nonce is "inverted" as k^(p−2) in the mod-n field (Fermat with the wrong
   * modulus), so s is wrong */
  nonceInvModP?: boolean;
}

/** Bytes of work space per function: its own, plus the most any callee needs. */
export class WorkSpace {
  readonly #need = new Map<Func, number>();

  /** f needs `own` bytes and then its callees' (whose needs must be known already). */
  need(f: Func, own: number, children: Func[] = []): number {
    const kids = children.map((k) => {
      const v = this.#need.get(k);
      if (v === undefined) throw new Error(`work space of $${k.name} unknown`);
      return v;
    });
    this.#need.set(f, own + Math.max(0, ...kids));
    return own;
  }

  /** The bound for the whole module. */
  max(): number {
    return Math.max(...this.#need.values());
  }
}

export interface EcContext {
  c: CurveParams;
  fp: FieldGen;
  fn: FieldGen;
  /** the curve's shape (a = −3, a = 0, generic) */
  shape: CurveShape;
  /** the shape the scalar multiplications run on (a = −3 on a Brainpool curve's twist) */
  gshape: CurveShape;
  /** Z of the isomorphism to the a = −3 curve, when the scalar multiplications run there */
  twist: bigint | undefined;
  L: number;
  /** bytes of a field element */
  FE: number;
  /** bytes of a projective point (three coordinates) */
  PT: number;
  /** PT rounded up to 16 (a table stride) */
  PTS: number;
  flags: EcFlags;
  ws: WorkSpace;
}

/** The address p + off (just p for off 0). */
export const at = (p: Local<'i32'>, off: number) => (off ? i32.add(p, off) : p.get());

/** x rounded up to a multiple of 16 (v128 alignment). */
export const round16 = (x: number) => Math.ceil(x / 16) * 16;

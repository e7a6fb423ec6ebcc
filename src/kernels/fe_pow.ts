// Exponentiation in a field by a public exponent, and the square root built on it. The
// exponent is fixed when the module is generated, so the sequence of squarings and products is
// too: a sliding-window addition chain over the odd powers a, a^3, …, a^31, runs of squarings
// as counted loops. Constant time by construction (the chain depends only on the exponent);
// the Tonelli–Shanks loop runs a fixed number of iterations and chooses by masks.

import { type Func, type Local, type Stmt, block, br, br_if, call, comment, i32, i64, label, loop, memory } from './builder/index.js';
import type { FieldGen } from './fe_mont29.js';
import { POW_TABLE, POW_WINDOW, powMod } from './fe_limbs.js';

/** The work space (bytes) that powLines needs (sqrt; the negative control's inversion). */
export const powWorkspace = (fg: FieldGen) => (POW_TABLE + 1) * fg.FE;

/** The work space (bytes) that sqrt needs. */
export const sqrtWorkspace = (fg: FieldGen) => powWorkspace(fg) + 7 * fg.FE;

/** ws + off (just ws for off 0). */
const at = (ws: Local<'i32'>, off: number) => (off ? i32.add(ws, off) : ws.get());

/**
 * Statements computing r ← a^e (e public) in f with calls to the field's sqr and mul; the work
 * space at ws holds the odd powers a^1 … a^(2·POW_TABLE − 1) and a². r may alias a. Runs of
 * squarings become counted loops (public counter in f's local i).
 */
export function powLines(fg: FieldGen, f: Func, e: bigint, r: Local<'i32'>, a: Local<'i32'>, ws: Local<'i32'>): Stmt[] {
  if (e <= 0n) throw new Error('powLines: exponent must be positive');
  const FE = fg.FE;
  const i = f.i32('i');
  const tab = (k: number) => at(ws, k * FE); // a^(2k+1)
  const sq = () => at(ws, POW_TABLE * FE);
  const out: Stmt[] = [memory.copy(tab(0), a, FE), call(fg.sqr, sq(), a)];
  for (let k = 1; k < POW_TABLE; k++) out.push(call(fg.mul, tab(k), tab(k - 1), sq()));
  const bits = e.toString(2);
  let started = false;
  let pendingSq = 0;
  const flushSq = () => {
    if (pendingSq >= 4) {
      const lp = label('sq');
      out.push(i.set(pendingSq), loop(lp, call(fg.sqr, r, r), i.set(i32.sub(i, 1)), br_if(lp, i)));
    } else {
      for (let k = 0; k < pendingSq; k++) out.push(call(fg.sqr, r, r));
    }
    pendingSq = 0;
  };
  let k = 0;
  while (k < bits.length) {
    if (bits[k] === '0') {
      pendingSq++;
      k++;
      continue;
    }
    let j = Math.min(k + POW_WINDOW, bits.length) - 1;
    while (bits[j] === '0') j--;
    const val = parseInt(bits.slice(k, j + 1), 2);
    if (started) {
      pendingSq += j - k + 1;
      flushSq();
      out.push(call(fg.mul, r, r, tab((val - 1) / 2)));
    } else {
      out.push(memory.copy(r, tab((val - 1) / 2), FE));
      started = true;
    }
    k = j + 1;
  }
  flushSq();
  return out;
}

/**
 * sqrt(r, a, ws) → 1 if a is a square (r² = a), else 0 (r is then meaningless). r may alias a.
 * p ≡ 3 (mod 4): r = a^((p+1)/4). Otherwise the constant-time Tonelli–Shanks of RFC 9380,
 * Appendix I.4: the same squarings and multiplications whatever a is, the choices by masks.
 * Adds the constant it needs to the field: call it before fe_field.ts writes the constants.
 */
export function sqrtFunction(fg: FieldGen): Func {
  const m = fg.m,
    FE = fg.FE;
  const f = fg.sqrt;
  const { r, a, ws } = { r: f.i32('r'), a: f.i32('a'), ws: f.i32('ws') };
  const [pw, pa] = f.locals('i32', ['pw', 'pa', 'i', 'k', 'j']);
  const [k, j] = [f.i32('k'), f.i32('j')];
  const mask = f.i64('mask');
  const base = powWorkspace(fg);
  const slot = (s: number) => () => at(ws, base + s * FE);
  const [A, Z, T, B, C, TMP, SQ] = [0, 1, 2, 3, 4, 5, 6].map(slot);
  f.emit(memory.copy(A(), a, FE));
  if (m % 4n === 3n) {
    f.emit(pw.set(A()), powLines(fg, f, (m + 1n) / 4n, r, pw, ws));
  } else {
    let s = 0,
      q = m - 1n;
    while ((q & 1n) === 0n) {
      q >>= 1n;
      s++;
    }
    let c4 = 2n;
    while (powMod(c4, (m - 1n) / 2n, m) !== m - 1n) c4++;
    fg.addConst({ name: 'ts_c5', value: powMod(c4, q, m) });
    const [outer, jd, jl] = [label('outer'), label('jd'), label('jl')];
    f.emit(
      pw.set(Z()),
      pa.set(A()),
      powLines(fg, f, (q - 1n) / 2n, pw, pa, ws),
      call(fg.sqr, T(), Z()),
      call(fg.mul, T(), T(), A()),
      call(fg.mul, Z(), Z(), A()),
      memory.copy(B(), T(), FE),
      call(fg.setc('ts_c5'), C()),
      k.set(s),
      loop(
        outer,
        j.set(i32.sub(k, 2)),
        block(jd, loop(jl, br_if(jd, i32.eqz(j)), call(fg.sqr, B(), B()), j.set(i32.sub(j, 1)), br(jl))),
        comment('mask: all ones when b ≠ 1 (then z ← z·c and t ← t·c²)'),
        mask.set(i64.sub(i64.extend_i32_u(call(fg.eqOne, B()) as never), 1)),
        call(fg.mul, TMP(), Z(), C()),
        call(fg.cmov, Z(), TMP(), mask),
        call(fg.sqr, C(), C()),
        call(fg.mul, TMP(), T(), C()),
        call(fg.cmov, T(), TMP(), mask),
        memory.copy(B(), T(), FE),
        k.set(i32.sub(k, 1)),
        br_if(outer, i32.ge_u(k, 2)),
      ),
      memory.copy(r, Z(), FE),
    );
  }
  f.emit(call(fg.sqr, SQ(), r), call(fg.eq, SQ(), A()));
  return f;
}

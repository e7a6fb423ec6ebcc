// One WebAssembly module per curve: the field kernels mod p and mod n (fe_mont29.ts), the group
// law by complete projective formulas (Renes–Costello–Batina, ec_formulas.ts), a fixed-window
// signed-digit variable-base scalar multiplication, a fixed-base multiplication with a lazily
// built comb table, and the ECDH / public-key / validation entry points. One module per curve so
// that an application using P-256 carries no P-521 code (and the per-curve code is specialised:
// the modulus's digits, the curve's a and b are immediates).
//
// Why constant time:
//   - the field code is straight-line on i64 values (see fe_mont29.ts);
//   - the formulas are complete, so doubling, adding the identity or adding P to −P need no
//     special case: the sequence of field operations is the same for every input;
//   - the scalar is recoded into signed digits d_i ∈ [−2^(w−1), 2^(w−1)] by arithmetic on the
//     scalar's bits (carry by shift, no branch); every digit is used the same way;
//   - a table lookup reads every entry and keeps the wanted one with a mask
//     ((|d| ⊕ j) − 1) >> 63, 16 bytes at a time (v128.and / v128.or); the negation for a
//     negative digit is computed always and kept by a mask;
//   - loop counters and every memory address are public (pointers, constants); the digits and
//     coordinates live in linear memory, which the checker treats as secret.
//
// Variable base, k·P: digits in radix 2^w (w = 5: D = ⌈(bits(n)+1)/5⌉ digits), table of
// 0·P … 16·P in projective form (built with 8 doublings and 7 additions), then D − 1 rounds of
// w doublings and one addition. P-256: 255 doublings + 51 additions + 52 lookups of 17 entries.
//
// Fixed base, k·G: a comb of the signed digits in radix 2^wb: positions i = 0 … P−1 hold
// j·2^(wb·S·i)·G for j = 1 … 2^(wb−1) as affine points (two coordinates, i32 limbs); then
// k·G = Σ_s 2^(wb·s) Σ_i d_(iS+s)·T_i, evaluated with (S−1)·wb doublings and D mixed additions.
// S is the least spacing that keeps the table within 32 KB. The table is built on first use
// (base_table) into an engine slot, never at import time; it depends only on G (public).
//
// Measured and not taken (--no-liftoff, separate processes, min of runs): the additions and
// subtractions of the formulas written inline instead of called: P-256 ECDH 149 → 150 µs,
// brainpoolP256r1 213 → 208 µs, for a module of 118 KB instead of 66. The field product is the
// cost: a P-256 doubling is 8M + 3S + 2m_b ≈ 310 of its 410 ns.
//
// Brainpool (generic a): the scalar multiplications run on the isomorphic a = −3 curve (see
// scalarTwist; 13 products per doubling and 14 per addition instead of 16 and 17). First
// measured on brainpoolP256r1 alone (217 → 212 µs) and not taken; taken once measured on
// brainpoolP512r1, where a product by a constant runs entirely on the scalar multiplier (no
// SIMD products) and costs more than a general product: pt_dbl 2.59 → 2.03 µs, pt_add 2.68 →
// 1.82 µs, ECDSA sign 509 → 409 µs; brainpoolP256r1 ECDH 215 → 206 µs, public key 50.1 → 48.0
// µs (bench --base, 3 copies).
//
// Lazy reduction (up to 12 limbs: P-224, P-256, secp256k1, brainpoolP256r1): each formula is
// put in single-assignment form and every sum or difference of two products, x·y ± u·v, is
// computed with one Montgomery reduction (fuseProducts in ec_formulas.ts; fp_mulw/mulwn and
// fp_mul2w in fe_mont29.ts): three per addition, two per doubling. For a dense modulus a
// reduction costs L² + L multiplies, as much as the product; for P-256 it is shifts and adds.
// Measured (bench --base): brainpoolP256r1 pt_double 523 → 496 ns, pt_add 593 → 563 ns, ECDH
// 185 → 181 µs; P-256 pt_double 382 → 379 ns, pt_add 469 → 458 ns, ECDH 140 → 144 µs (noise
// band). A single function with all four operands in locals was slower (P-256 pt_double +4%,
// brainpoolP256r1 +6%: 36 operand locals spill).
//
// Work space: every function takes $ws, a pointer to scratch memory it may use (its own
// temporaries first, callees' after); the exported global WS_SIZE bounds the whole tree.
// The glue wipes what was used after each call that handled a secret.
//
// Negative-control flags (tests only): those of the field (dropCarry, skipCorrection) and
//   wrongCoefficient  the addition formula's first tripling computes 4× instead of 3×;
//   wrongLookup       the variable-base lookup swaps the masks of entries 1 and 2;
//   skipZeroDigits    timing control (npm run ct:timing): ec_mul skips the lookup and addition
//                     of a zero digit (a branch on the scalar; same results).

import { CURVES, type CurveParams } from '../ec/params.js';
import { FORMULAS, allocateSlots, curveShape, fuseProducts, parseFormula, withWrongCoefficient, type CurveShape, type Step } from './ec_formulas.js';
import { FieldGen, cmovLines, modInv, type FieldFlags } from './fe_mont29.js';
import { ecdsaFunctions, planBounds, twistToAm3, type EcdsaFlags } from './ecdsa_straus_wnaf.js';
import { type GeneratedKernel, at, bitLength, call, get, locals, round16, set } from './wat.js';

export interface EcFlags extends FieldFlags, EcdsaFlags {
  wrongCoefficient?: boolean;
  wrongLookup?: boolean;
  skipZeroDigits?: boolean;
}

/** Variable-base window width. */
const WINDOW = 5;
/** Fixed-base comb: digit width and the table size bound. */
const COMB_WINDOW = 5;
const COMB_MAX_BYTES = 32 * 1024;
/** Sums of two products fused into one reduction (fuseProducts) up to this many limbs: beyond,
 * a column of 2L products and L reduction terms could overflow an i64 (5L·2^57 < 2^63). */
const FUSE_MAX_LIMBS = 12;

export interface EcLayout {
  FE: number;
  fieldBytes: number;
  scalarBytes: number;
  window: number;
  digits: number;
  combWindow: number;
  combSpacing: number;
  combPositions: number;
  tableBytes: number;
  wsSize: number;
}

export function ecModuleName(c: CurveParams): string {
  return `ec_${c.name.toLowerCase()}`;
}

interface Func {
  name: string;
  params: [string, 'i32' | 'i64'][];
  result?: 'i32';
  locals?: string;
  body: string[];
  export?: boolean;
}

/**
 * Z when the scalar multiplications of curve c run on its a = −3 isomorphic curve
 * ((x, y) ↦ (Z²x, Z³y)): projective points inside the module (pt_add, pt_dbl, ec_mul's result)
 * are then on that curve; to_affine maps back. Undefined when they run on c itself.
 */
export function scalarTwist(c: CurveParams): bigint | undefined {
  return curveShape(c.p, c.a) === 'generic' ? twistToAm3(c.p, c.a) : undefined;
}

export function generateEc(c: CurveParams, flags: EcFlags = {}): GeneratedKernel & { layout: EcLayout } {
  const fp = new FieldGen('fp', c.p, flags);
  const fn = new FieldGen('fn', c.n, {});
  if (fp.L !== fn.L) throw new Error(`${c.name}: p and n need different limb counts`);
  const L = fp.L, FE = fp.FE, PT = 3 * FE;
  const shape = curveShape(c.p, c.a);
  // products by these constants are generated only where a formula (or rhs) uses them
  fp.addConst({ name: 'b', value: c.b });
  fp.addConst({ name: 'b3', value: 3n * c.b });
  fp.addConst({ name: 'a', value: c.a });
  fp.addConst({ name: 'gx', value: c.gx });
  fp.addConst({ name: 'gy', value: c.gy });
  // Generic a (the Brainpool curves): the scalar multiplications run on the isomorphic curve
  // y² = x³ − 3x + b·Z⁶ ((x, y) ↦ (Z²x, Z³y), a·Z⁴ = −3; RFC 5639's brainpoolPxxxt1), whose
  // a = −3 formulas need no product by a: 13 products per doubling and 14 per addition instead
  // of 16 and 17. ec_mul maps its input point there, base_table builds from the mapped G, and
  // to_affine maps back (x·Z⁻², y·Z⁻³); everything else (point checks, decompression) stays on
  // the curve itself.
  const twist = scalarTwist(c);
  const gshape: CurveShape = twist === undefined ? shape : 'a=-3';
  if (twist !== undefined) {
    const z2 = (twist * twist) % c.p, z3 = (z2 * twist) % c.p;
    const zi = modInv(twist, c.p);
    const zi2 = (zi * zi) % c.p, zi3 = (zi2 * zi) % c.p;
    fp.addConst({ name: 'tz2', value: z2 }, true);
    fp.addConst({ name: 'tz3', value: z3 }, true);
    fp.addConst({ name: 'tzi2', value: zi2 }, true);
    fp.addConst({ name: 'tzi3', value: zi3 }, true);
    fp.addConst({ name: 'tgx', value: (c.gx * z2) % c.p });
    fp.addConst({ name: 'tgy', value: (c.gy * z3) % c.p });
    fp.addConst({ name: 'tb', value: (c.b * z3 * z3) % c.p });
  }
  const sqrtFn = fp.sqrtFunction(); // may add a constant: before fp.functions()

  const nbits = bitLength(c.n);
  const D = Math.ceil((nbits + 1) / WINDOW);
  const E = (1 << (WINDOW - 1)) + 1; // entries 0 … 2^(w−1)
  const Db = Math.ceil((nbits + 1) / COMB_WINDOW);
  const Eb = 1 << (COMB_WINDOW - 1); // entries 1 … 2^(wb−1)
  const ESa = round16(2 * L * 4); // affine entry: 2L i32 limbs, padded
  let S = 1;
  while (Math.ceil(Db / S) * Eb * ESa > COMB_MAX_BYTES) S++;
  const P = Math.ceil(Db / S);
  const tableBytes = P * Eb * ESa;

  const funcs: Func[] = [];
  const wsNeed = new Map<string, number>();
  const need = (name: string, own: number, children: string[] = []) => {
    const kids = children.map((k) => {
      const v = wsNeed.get(k);
      if (v === undefined) throw new Error(`work space of ${k} unknown`);
      return v;
    });
    wsNeed.set(name, own + Math.max(0, ...kids));
    return own;
  };
  wsNeed.set('fp_inv', fp.invWorkspace);
  wsNeed.set('fn_inv', fn.invWorkspace);
  wsNeed.set('fp_sqrt', fp.sqrtWorkspace);

  // ---- group law: compile the straight-line formulas into field calls ----------------------
  const formulas = FORMULAS[gshape];
  const fuse = L <= FUSE_MAX_LIMBS;
  const compile = (name: string, source: Step[], mixed: boolean): Func => {
    const steps = fuse ? fuseProducts(source) : source;
    // fused programs are in single-assignment form and get slots by liveness; the programs as
    // written keep X3 Y3 Z3 in slots 0–2 and t0…t5 in 3–8
    const { slot, count } = fuse ? allocateSlots(steps)
      : { slot: new Map([...['X3', 'Y3', 'Z3'], ...Array.from({ length: 6 }, (_, i) => `t${i}`)].map((v, i) => [v, i])), count: 9 };
    // the unreduced columns of a fused sum's second product (2L − 1 i64 ≤ 2·FE), after the slots
    const WIDE = at('ws', count * FE);
    const loc = (v: string): string => {
      const m = /^([XYZ])([12])$/.exec(v);
      if (m) {
        if (m[2] === '2' && mixed && m[1] === 'Z') throw new Error('mixed formula reads Z2');
        return at(m[2] === '1' ? 'p' : 'q', 'XYZ'.indexOf(m[1]) * FE);
      }
      const k = slot.get(v);
      if (k === undefined) throw new Error(`formula variable ${v} read before it is written`);
      return at('ws', k * FE);
    };
    const plan = planReductions(steps, Number(fp.R / c.p));
    const body = steps.map((s, i) => {
      switch (s.op) {
        case 'mul': return s.x === s.y ? call('fp_sqr', loc(s.d), loc(s.x)) : call('fp_mul', loc(s.d), loc(s.x), loc(s.y));
        case 'mul2':
          fp.fused.add(s.neg ? 'mulwn' : 'mulw').add('mul2w');
          return [call(s.neg ? 'fp_mulwn' : 'fp_mulw', WIDE, loc(s.u), loc(s.v)), call('fp_mul2w', loc(s.d), loc(s.x), loc(s.y), WIDE)].join('\n    ');
        case 'add': return call(plan[i].lazy ? 'fp_add_lazy' : 'fp_add', loc(s.d), loc(s.x), loc(s.y));
        case 'sub': {
          const k = plan[i].k;
          if (k) fp.lazySubs.add(k);
          return call(k ? `fp_sub_lazy_${k}` : 'fp_sub', loc(s.d), loc(s.x), loc(s.y));
        }
        case 'mulc': {
          const k = twist !== undefined ? ({ b: 'tb' } as Record<string, string>)[s.c] : s.c;
          if (k === undefined) throw new Error(`twisted formula uses ${s.c}`);
          fp.mulConsts.add(k);
          return call(`fp_mulc_${k}`, loc(s.d), loc(s.x));
        }
      }
    });
    body.unshift(`;; ${steps.map((s, i) => (s.op === 'add' || s.op === 'sub') && plan[i].lazy ? `${s.d}~` : '').filter(Boolean).join(' ')} lazy`);
    body.push(`(memory.copy ${get('r')} ${get('ws')} (i32.const ${PT}))`);
    need(name, (count + (fuse ? 2 : 0)) * FE);
    const params: Func['params'] = name === 'pt_dbl' ? [['r', 'i32'], ['p', 'i32'], ['ws', 'i32']] : [['r', 'i32'], ['p', 'i32'], ['q', 'i32'], ['ws', 'i32']];
    return { name, params, body, export: name !== 'pt_madd' };
  };
  let addSteps = parseFormula(formulas.add);
  let maddSteps = parseFormula(formulas.mixedAdd);
  if (flags.wrongCoefficient) {
    addSteps = withWrongCoefficient(addSteps);
    maddSteps = withWrongCoefficient(maddSteps);
  }
  funcs.push(compile('pt_add', addSteps, false));
  funcs.push(compile('pt_madd', maddSteps, true));
  funcs.push(compile('pt_dbl', parseFormula(formulas.double), false));

  // pt_cmov(r, a, mask): r ← mask ? a : r for a whole projective point
  funcs.push({ name: 'pt_cmov', params: [['r', 'i32'], ['a', 'i32'], ['mask', 'i64']], locals: '(local $v v128)', body: cmovLines('r', 'a', 'mask', 3 * L) });
  // pt_identity(r): (0 : 1 : 0)
  funcs.push({
    name: 'pt_identity', params: [['r', 'i32']],
    body: [`(memory.fill ${get('r')} (i32.const 0) (i32.const ${PT}))`, call('fp_set_one', at('r', FE))],
  });

  // ---- scalar recoding ------------------------------------------------------------------------
  // recode(dst, k): the scalar (big-endian, scalarBytes) → D signed digits (i64) in radix 2^w,
  // least significant first; requires k < 2^bits(n). Each digit: v = window + carry;
  // carry = (2^(w−1) − v) >>> 63 (1 when v > 2^(w−1)); d = v − carry·2^w.
  const recode = (w: number, count: number): Func => {
    const Ls = fn.bytes;
    const body: string[] = [set('c', '(i64.const 0)')];
    for (let t = 0; t < count; t++) {
      const lo = w * t, hi = lo + w;
      const parts: string[] = [];
      for (let bi = Math.floor(lo / 8); bi * 8 < hi && bi < Ls; bi++) {
        const byte = `(i64.load8_u offset=${Ls - 1 - bi} ${get('k')})`;
        const sh = 8 * bi - lo;
        parts.push(sh >= 0 ? (sh ? `(i64.shl ${byte} (i64.const ${sh}))` : byte) : `(i64.shr_u ${byte} (i64.const ${-sh}))`);
      }
      const v = parts.length ? `(i64.and ${parts.reduce((x, y) => `(i64.or ${x} ${y})`)} (i64.const ${(1 << w) - 1}))` : '(i64.const 0)';
      body.push(
        set('v', `(i64.add ${v} ${get('c')})`),
        set('c', `(i64.shr_u (i64.sub (i64.const ${1 << (w - 1)}) ${get('v')}) (i64.const 63))`),
        `(i64.store offset=${8 * t} ${get('dst')} (i64.sub ${get('v')} (i64.shl ${get('c')} (i64.const ${w}))))`,
      );
    }
    return { name: `recode${w}`, params: [['dst', 'i32'], ['k', 'i32']], locals: '(local $v i64) (local $c i64)', body };
  };
  funcs.push(recode(WINDOW, D));
  if (COMB_WINDOW !== WINDOW || Db !== D) funcs.push(recode(COMB_WINDOW, Db));

  // ---- table lookups --------------------------------------------------------------------------
  // |d| and the sign mask of the digit at dp
  const digitLines = [
    set('d', `(i64.load ${get('dp')})`),
    set('s', `(i64.shr_s ${get('d')} (i64.const 63))`),
    set('d', `(i64.sub (i64.xor ${get('d')} ${get('s')}) ${get('s')})`),
  ];
  // OR of (entry_e & mask_e) over all entries, 16 bytes at a time; chunk results to `store`.
  const scan = (entries: number, entryBytes: number, firstIndex: number, swap12: boolean,
    store: (chunk: number, v: string) => string[], chunkBytes: number): string[] => {
    const out: string[] = [];
    for (let e = 0; e < entries; e++) {
      let j = e + firstIndex;
      if (swap12 && (j === 1 || j === 2)) j = 3 - j;
      out.push(set(`m${e}`, `(i64.shr_s (i64.sub (i64.xor ${get('d')} (i64.const ${j})) (i64.const 1)) (i64.const 63))`));
    }
    const chunks = Math.ceil(chunkBytes / 16);
    const GROUP = 12;
    for (let g = 0; g < chunks; g += GROUP) {
      const cs = Array.from({ length: Math.min(GROUP, chunks - g) }, (_, i) => g + i);
      for (let e = 0; e < entries; e++) {
        out.push(set('vm', `(i64x2.splat ${get(`m${e}`)})`));
        for (const ci of cs) {
          const ld = `(v128.and (v128.load offset=${e * entryBytes + 16 * ci} ${get('tab')}) ${get('vm')})`;
          out.push(set(`x${ci - g}`, e === 0 ? ld : `(v128.or ${get(`x${ci - g}`)} ${ld})`));
        }
      }
      for (const ci of cs) out.push(...store(ci, get(`x${ci - g}`)));
    }
    return out;
  };
  const lookupLocals = (entries: number) =>
    ['(local $d i64) (local $s i64) (local $vm v128)',
      locals('i64', Array.from({ length: entries }, (_, e) => `m${e}`)),
      locals('v128', Array.from({ length: 12 }, (_, i) => `x${i}`))].join(' ');
  // lookup(dst, tab, dp, ws): dst ← sign(d)·tab[|d|] (projective entries of PT bytes; the
  // entry stride is PT rounded to 16 so that every chunk load stays inside its entry's stride)
  const PTS = round16(PT);
  funcs.push({
    name: 'lookup', params: [['dst', 'i32'], ['tab', 'i32'], ['dp', 'i32'], ['ws', 'i32']],
    locals: lookupLocals(E),
    body: [
      ...digitLines,
      ...scan(E, PTS, 0, !!flags.wrongLookup, (ci, v) => [`(v128.store offset=${16 * ci} ${get('dst')} ${v})`], PTS),
      call('fp_neg', get('ws'), at('dst', FE)),
      call('fp_cmov', at('dst', FE), get('ws'), get('s')),
    ],
  });
  need('lookup', FE);
  // lookup_aff(dst, tab, dp, ws): dst ← sign(d)·tab[|d| − 1] for |d| ≥ 1 (affine entries of
  // ESa bytes holding i32 limbs, widened to i64 limbs: X at dst, Y at dst + FE; writes up to
  // 2·ESa bytes). d = 0 selects nothing (all zero); the caller discards that sum.
  funcs.push({
    name: 'lookup_aff', params: [['dst', 'i32'], ['tab', 'i32'], ['dp', 'i32'], ['ws', 'i32']],
    locals: lookupLocals(Eb),
    body: [
      ...digitLines,
      ...scan(Eb, ESa, 1, false, (ci, v) => [
        `(v128.store offset=${32 * ci} ${get('dst')} (i64x2.extend_low_i32x4_u ${v}))`,
        `(v128.store offset=${32 * ci + 16} ${get('dst')} (i64x2.extend_high_i32x4_u ${v}))`,
      ], ESa),
      call('fp_neg', get('ws'), at('dst', FE)),
      call('fp_cmov', at('dst', FE), get('ws'), get('s')),
    ],
  });
  need('lookup_aff', FE);

  // ---- variable-base multiplication: ec_mul(r, k, pt, ws) --------------------------------------
  {
    const DIG = 0, TAB = round16(8 * D), ACC = TAB + E * PTS, TMP = ACC + PTS, KID = TMP + PTS;
    const body: string[] = [
      call(`recode${WINDOW}`, at('ws', DIG), get('k')),
      call('pt_identity', at('ws', TAB)),
      ...(twist !== undefined
        ? [call('fp_mulc_tz2', at('ws', TAB + PTS), get('pt')), call('fp_mulc_tz3', at('ws', TAB + PTS + FE), at('pt', FE)),
            `(memory.copy ${at('ws', TAB + PTS + 2 * FE)} ${at('pt', 2 * FE)} (i32.const ${FE}))`]
        : [`(memory.copy ${at('ws', TAB + PTS)} ${get('pt')} (i32.const ${PT}))`]),
    ];
    for (let j = 2; j < E; j++) {
      body.push(j % 2 === 0
        ? call('pt_dbl', at('ws', TAB + j * PTS), at('ws', TAB + (j / 2) * PTS), at('ws', KID))
        : call('pt_add', at('ws', TAB + j * PTS), at('ws', TAB + (j - 1) * PTS), at('ws', TAB + PTS), at('ws', KID)));
    }
    body.push(
      call('lookup', at('ws', ACC), at('ws', TAB), at('ws', DIG + 8 * (D - 1)), at('ws', KID)),
      set('dp', at('ws', DIG + 8 * (D - 2))),
      '(loop $win',
      ...Array.from({ length: WINDOW }, () => '  ' + call('pt_dbl', at('ws', ACC), at('ws', ACC), at('ws', KID))),
      ...(flags.skipZeroDigits ? [`  (if (i64.ne (i64.load ${get('dp')}) (i64.const 0)) (then`] : []),
      '  ' + call('lookup', at('ws', TMP), at('ws', TAB), get('dp'), at('ws', KID)),
      '  ' + call('pt_add', at('ws', ACC), at('ws', ACC), at('ws', TMP), at('ws', KID)),
      ...(flags.skipZeroDigits ? ['  ))'] : []),
      `  ${set('dp', `(i32.sub ${get('dp')} (i32.const 8))`)}`,
      `  (br_if $win (i32.ge_s ${get('dp')} ${get('ws')})))`,
      `(memory.copy ${get('r')} ${at('ws', ACC)} (i32.const ${PT}))`,
    );
    need('ec_mul', KID, ['pt_add', 'pt_dbl', 'lookup']);
    funcs.push({ name: 'ec_mul', params: [['r', 'i32'], ['k', 'i32'], ['pt', 'i32'], ['ws', 'i32']], locals: '(local $dp i32)', body, export: true });
  }

  // ---- fixed base: the comb table and ec_mul_base(r, k, tab, ws) --------------------------------
  {
    // base_table(tab, ws): for each position i, entries j·B_i (j = 1 … Eb), B_0 = G,
    // B_(i+1) = 2^(wb·S)·B_i; batch-normalised to affine (one inversion per position).
    const ENT = 0, PRE = ENT + Eb * PTS, B = PRE + Eb * FE, INV = B + PTS, T1 = INV + FE, KID = T1 + FE;
    const ent = (j: number) => at('ws', ENT + (j - 1) * PTS); // entry j, 1-based
    const pre = (j: number) => at('ws', PRE + (j - 1) * FE);
    const body: string[] = [
      call(twist !== undefined ? 'fp_set_tgx' : 'fp_set_gx', at('ws', B)), call(twist !== undefined ? 'fp_set_tgy' : 'fp_set_gy', at('ws', B + FE)), call('fp_set_one', at('ws', B + 2 * FE)),
      set('i', `(i32.const ${P})`),
      set('t', get('tab')),
      '(loop $pos',
      `  (memory.copy ${ent(1)} ${at('ws', B)} (i32.const ${PT}))`,
    ];
    for (let j = 2; j <= Eb; j++) {
      body.push('  ' + (j % 2 === 0 ? call('pt_dbl', ent(j), ent(j / 2), at('ws', KID)) : call('pt_add', ent(j), ent(j - 1), ent(1), at('ws', KID))));
    }
    // prefix products of Z, one inversion, then back-substitution
    body.push(`  (memory.copy ${pre(1)} ${at('ws', ENT + 2 * FE)} (i32.const ${FE}))`);
    for (let j = 2; j <= Eb; j++) body.push('  ' + call('fp_mul', pre(j), pre(j - 1), at('ws', ENT + (j - 1) * PTS + 2 * FE)));
    body.push('  ' + call('fp_inv', at('ws', INV), pre(Eb), at('ws', KID)));
    for (let j = Eb; j >= 1; j--) {
      const z = at('ws', ENT + (j - 1) * PTS + 2 * FE);
      if (j > 1) {
        body.push('  ' + call('fp_mul', at('ws', T1), at('ws', INV), pre(j - 1))); // 1/Z_j
        body.push('  ' + call('fp_mul', at('ws', INV), at('ws', INV), z));
      } else {
        body.push(`  (memory.copy ${at('ws', T1)} ${at('ws', INV)} (i32.const ${FE}))`);
      }
      body.push('  ' + call('fp_mul', ent(j), ent(j), at('ws', T1)));
      body.push('  ' + call('fp_mul', at('ws', ENT + (j - 1) * PTS + FE), at('ws', ENT + (j - 1) * PTS + FE), at('ws', T1)));
      for (let l = 0; l < 2 * L; l++) {
        const src = ENT + (j - 1) * PTS + (l < L ? 8 * l : FE + 8 * (l - L));
        body.push(`  (i64.store32 offset=${(j - 1) * ESa + 4 * l} ${get('t')} (i64.load ${at('ws', src)}))`);
      }
    }
    body.push(
      `  ${set('t', `(i32.add ${get('t')} (i32.const ${Eb * ESa}))`)}`,
      `  ${set('i', `(i32.sub ${get('i')} (i32.const 1))`)}`,
      `  (if (${'i32.eqz'} ${get('i')}) (then (return)))`,
      `  ${set('n', `(i32.const ${COMB_WINDOW * S})`)}`,
      `  (loop $dbl ${call('pt_dbl', at('ws', B), at('ws', B), at('ws', KID))} ${set('n', `(i32.sub ${get('n')} (i32.const 1))`)} (br_if $dbl ${get('n')}))`,
      '  (br $pos))',
    );
    need('base_table', KID, ['pt_add', 'pt_dbl', 'fp_inv']);
    funcs.push({ name: 'base_table', params: [['tab', 'i32'], ['ws', 'i32']], locals: '(local $i i32) (local $t i32) (local $n i32)', body, export: true });

    // ec_mul_base(r, k, tab, ws)
    const DIG = 0, ACC = round16(8 * Db), T = ACC + PTS, NEW = T + 2 * ESa, KID2 = NEW + PTS;
    const mb: string[] = [call(`recode${COMB_WINDOW}`, at('ws', DIG), get('k')), call('pt_identity', at('ws', ACC))];
    for (let s = S - 1; s >= 0; s--) {
      if (s < S - 1) for (let q = 0; q < COMB_WINDOW; q++) mb.push(call('pt_dbl', at('ws', ACC), at('ws', ACC), at('ws', KID2)));
      for (let i = 0; i < P; i++) {
        const t = i * S + s;
        if (t >= Db) continue;
        mb.push(
          call('lookup_aff', at('ws', T), at('tab', i * Eb * ESa), at('ws', DIG + 8 * t), at('ws', KID2)),
          call('pt_madd', at('ws', NEW), at('ws', ACC), at('ws', T), at('ws', KID2)),
          // keep the sum unless the digit is 0
          set('d', `(i64.load offset=${8 * t} ${get('ws')})`),
          call('pt_cmov', at('ws', ACC), at('ws', NEW), `(i64.shr_s (i64.or ${get('d')} (i64.sub (i64.const 0) ${get('d')})) (i64.const 63))`),
        );
      }
    }
    mb.push(`(memory.copy ${get('r')} ${at('ws', ACC)} (i32.const ${PT}))`);
    need('ec_mul_base', KID2, ['pt_madd', 'pt_dbl', 'lookup_aff']);
    funcs.push({ name: 'ec_mul_base', params: [['r', 'i32'], ['k', 'i32'], ['tab', 'i32'], ['ws', 'i32']], locals: '(local $d i64)', body: mb, export: true });
  }

  // ---- conversions and entry points ----------------------------------------------------------
  // to_affine(outx, outy, pt, ws, wanty) → 1 unless pt is the identity; writes x (and y when
  // wanty) as big-endian bytes
  {
    const ZI = 0, T = FE, KID = 2 * FE;
    funcs.push({
      name: 'to_affine', params: [['outx', 'i32'], ['outy', 'i32'], ['pt', 'i32'], ['ws', 'i32'], ['wanty', 'i32']], result: 'i32', export: true,
      body: [
        call('fp_inv', at('ws', ZI), at('pt', 2 * FE), at('ws', KID)),
        // on the twisted curve (see above): 1/Z·Z⁻² for x, 1/Z·Z⁻³ for y
        ...(twist !== undefined ? [call('fp_mulc_tzi2', at('ws', T), at('ws', ZI)), call('fp_mulc_tzi3', at('ws', ZI), at('ws', ZI)),
          call('fp_mul', at('ws', T), get('pt'), at('ws', T))] : [call('fp_mul', at('ws', T), get('pt'), at('ws', ZI))]),
        call('fp_to_bytes', get('outx'), at('ws', T)),
        `(if ${get('wanty')} (then ${call('fp_mul', at('ws', T), at('pt', FE), at('ws', ZI))} ${call('fp_to_bytes', get('outy'), at('ws', T))}))`,
        `(i32.eqz ${call('fp_is_zero', at('pt', 2 * FE))})`,
      ],
    });
    need('to_affine', KID, ['fp_inv']);
  }
  // rhs(r, x, ws): x³ + ax + b
  {
    const body = [call('fp_sqr', get('r'), get('x')), call('fp_mul', get('r'), get('r'), get('x'))];
    if (shape === 'a=-3') {
      body.push(call('fp_add', get('ws'), get('x'), get('x')), call('fp_add', get('ws'), get('ws'), get('x')), call('fp_sub', get('r'), get('r'), get('ws')));
    } else if (shape === 'generic') {
      fp.mulConsts.add('a');
      body.push(call('fp_mulc_a', get('ws'), get('x')), call('fp_add', get('r'), get('r'), get('ws')));
    }
    body.push(call('fp_set_b', get('ws')), call('fp_add', get('r'), get('r'), get('ws')));
    funcs.push({ name: 'rhs', params: [['r', 'i32'], ['x', 'i32'], ['ws', 'i32']], body });
    need('rhs', FE);
  }
  const Lb = fp.bytes;
  // point_from_bytes(pt, xy) → projective point from x ‖ y (big-endian), Z = 1; no checks
  funcs.push({
    name: 'point_from_bytes', params: [['pt', 'i32'], ['xy', 'i32']], export: true,
    body: [call('fp_from_bytes', get('pt'), get('xy')), call('fp_from_bytes', at('pt', FE), at('xy', Lb)), call('fp_set_one', at('pt', 2 * FE))],
  });
  // check_point(xy, ws) → 1 iff x < p, y < p and y² = x³ + ax + b
  {
    const X = 0, Y = FE, R = 2 * FE, KID = 3 * FE;
    funcs.push({
      name: 'check_point', params: [['xy', 'i32'], ['ws', 'i32']], result: 'i32', export: true,
      body: [
        call('fp_from_bytes', at('ws', X), get('xy')),
        call('fp_from_bytes', at('ws', Y), at('xy', Lb)),
        call('rhs', at('ws', R), at('ws', X), at('ws', KID)),
        call('fp_sqr', at('ws', Y), at('ws', Y)),
        `(i32.and (i32.and ${call('fp_bytes_lt', get('xy'))} ${call('fp_bytes_lt', at('xy', Lb))}) ${call('fp_eq', at('ws', Y), at('ws', R))})`,
      ],
    });
    need('check_point', KID, ['rhs']);
  }
  // decompress(outy, x, odd, ws) → 1 iff x < p and x³ + ax + b is a square; outy ← the root
  // whose parity is odd's
  {
    const X = 0, R = FE, Y = 2 * FE, NY = 3 * FE, KID = 4 * FE;
    funcs.push({
      name: 'decompress', params: [['outy', 'i32'], ['x', 'i32'], ['odd', 'i32'], ['ws', 'i32']], result: 'i32', export: true,
      locals: '(local $ok i32)',
      body: [
        call('fp_from_bytes', at('ws', X), get('x')),
        call('rhs', at('ws', R), at('ws', X), at('ws', KID)),
        set('ok', `(i32.and ${call('fp_bytes_lt', get('x'))} ${call('fp_sqrt', at('ws', Y), at('ws', R), at('ws', KID))})`),
        call('fp_to_bytes', get('outy'), at('ws', Y)),
        call('fp_neg', at('ws', NY), at('ws', Y)),
        call('fp_cmov', at('ws', Y), at('ws', NY),
          `(i64.sub (i64.const 0) (i64.extend_i32_u (i32.and (i32.xor (i32.load8_u offset=${Lb - 1} ${get('outy')}) ${get('odd')}) (i32.const 1))))`),
        call('fp_to_bytes', get('outy'), at('ws', Y)),
        get('ok'),
      ],
    });
    need('decompress', KID, ['rhs', 'fp_sqrt']);
  }
  // scalar_ok(k) → 1 iff 1 ≤ k < n
  funcs.push({ name: 'scalar_ok', params: [['k', 'i32']], result: 'i32', export: true, body: [`(i32.and ${call('fn_bytes_lt', get('k'))} ${call('fn_bytes_nonzero', get('k'))})`] });
  // ecdh(out, k, xy, ws) → 1 unless k·Q is the identity; out ← x(k·Q). k must satisfy
  // scalar_ok and xy check_point (the glue checks both first).
  {
    const Q = 0, R = PTS, KID = 2 * PTS;
    funcs.push({
      name: 'ecdh', params: [['out', 'i32'], ['k', 'i32'], ['xy', 'i32'], ['ws', 'i32']], result: 'i32', export: true,
      body: [
        call('point_from_bytes', at('ws', Q), get('xy')),
        call('ec_mul', at('ws', R), get('k'), at('ws', Q), at('ws', KID)),
        call('to_affine', get('out'), get('out'), at('ws', R), at('ws', KID), '(i32.const 0)'),
      ],
    });
    need('ecdh', KID, ['ec_mul', 'to_affine']);
  }
  // pubkey(out, k, tab, ws) → 1 unless k·G is the identity; out ← x ‖ y of k·G
  {
    const R = 0, KID = PTS;
    funcs.push({
      name: 'pubkey', params: [['out', 'i32'], ['k', 'i32'], ['tab', 'i32'], ['ws', 'i32']], result: 'i32', export: true,
      body: [
        call('ec_mul_base', at('ws', R), get('k'), get('tab'), at('ws', KID)),
        call('to_affine', get('out'), `(i32.add ${get('out')} (i32.const ${Lb}))`, at('ws', R), at('ws', KID), '(i32.const 1)'),
      ],
    });
    need('pubkey', KID, ['ec_mul_base', 'to_affine']);
  }
  // ECDSA signing and verification (src/kernels/ecdsa_straus_wnaf.ts)
  funcs.push(...ecdsaFunctions({ c, fp, fn, shape, PTS, flags, need }));

  const wsSize = round16(Math.max(...wsNeed.values()));
  if (wsSize > 65536) throw new Error(`${c.name}: work space ${wsSize} exceeds scratch`);

  // ---- the module -----------------------------------------------------------------------------
  const fieldExports: [string, [string, 'i32'][], boolean][] = [
    ['mul', [['r', 'i32'], ['a', 'i32'], ['b', 'i32']], false],
    ['sqr', [['r', 'i32'], ['a', 'i32']], false],
    ['add', [['r', 'i32'], ['a', 'i32'], ['b', 'i32']], false],
    ['sub', [['r', 'i32'], ['a', 'i32'], ['b', 'i32']], false],
    ['neg', [['r', 'i32'], ['a', 'i32']], false],
    ['canon', [['r', 'i32'], ['a', 'i32']], false],
    ['inv', [['r', 'i32'], ['a', 'i32'], ['ws', 'i32']], false],
    ['from_bytes', [['r', 'i32'], ['src', 'i32']], false],
    ['to_bytes', [['dst', 'i32'], ['a', 'i32']], false],
    ['bytes_lt', [['src', 'i32']], true],
    ['eq', [['a', 'i32'], ['b', 'i32']], true],
    ['is_zero', [['a', 'i32']], true],
    ['set_one', [['r', 'i32']], false],
  ];
  const exportsList: { name: string; internal: string; params: string[] }[] = [];
  for (const f of [fp, fn]) {
    for (const [name, params] of fieldExports) exportsList.push({ name: `${f.pre}_${name}`, internal: f.fn(name), params: params.map((p) => p[0]) });
  }
  exportsList.push({ name: 'fp_sqrt', internal: '$fp_sqrt', params: ['r', 'a', 'ws'] });
  for (const f of funcs) if (f.export) exportsList.push({ name: f.name, internal: `$${f.name}`, params: f.params.map((p) => p[0]) });

  const text = (f: Func) => {
    const ps = f.params.map(([n, t]) => `(param $${n} ${t})`).join(' ');
    return `(func $${f.name} ${ps}${f.result ? ` (result ${f.result})` : ''}${f.locals ? ' ' + f.locals : ''}\n  ${f.body.join('\n  ')})`;
  };
  const layout: EcLayout = {
    FE, fieldBytes: Lb, scalarBytes: fn.bytes, window: WINDOW, digits: D, combWindow: COMB_WINDOW,
    combSpacing: S, combPositions: P, tableBytes, wsSize,
  };
  const name = ecModuleName(c);
  const wat = [
    `;; GENERATED by src/kernels/ec_rcb_window.ts for ${c.name} (${shape}) — do not edit.`,
    `;; p: ${fp.L} limbs of 29 bits, digits ${fp.digits.join(' ')}, -p^-1 mod 2^29 = ${fp.qinv}`,
    `;; n: ${fn.L} limbs, -n^-1 mod 2^29 = ${fn.qinv}`,
    `;; layout ${JSON.stringify(layout)}`,
    `(module`,
    `  (memory (export "memory") 2)`,
    ...Object.entries({ FE, FIELD_BYTES: Lb, SCALAR_BYTES: fn.bytes, WS_SIZE: wsSize, TABLE_BYTES: tableBytes })
      .map(([k, v]) => `  (global (export "${k}") i32 (i32.const ${v}))`),
    ...[...fp.functions(), sqrtFn, ...fn.functions(), ...funcs.map(text)].map((t) => '  ' + t.replace(/\n/g, '\n  ')),
    ...exportsList.map((e) => `  (export "${e.name}" (func ${e.internal}))`),
    `)`,
    ``,
  ].join('\n');
  const publicParams: Record<string, number[]> = {};
  for (const e of exportsList) publicParams[e.name] = e.params.map((_, i) => i);
  return { name, wat, publicParams, layout };
}

/**
 * Which additions and subtractions of a formula may skip their reduction. Every value carries
 * a bound k (value < k·p). A product of operands with bounds ka·kb ≤ R/p comes out below 2p
 * (see fe_mont29.ts), so a sum that only feeds products need not be reduced: its carries are
 * propagated (limbs stay 29-bit) and its bound is ka + kb (a − b + kb·p for a difference,
 * bound ka + kb). A reduced addition needs ka + kb ≤ 4 and a reduced subtraction ka, kb ≤ 2;
 * both give bound 2, and so must the outputs X3, Y3, Z3. Start with everything lazy and reduce
 * the producer of any operand that breaks a rule, until nothing does.
 */
export function planReductions(steps: Step[], rOverP: number): { lazy: boolean; k: number }[] {
  // planBounds (ecdsa_straus_wnaf.ts) with every point coordinate reduced: bound 2 in and out
  const plan = planBounds(steps, rOverP, 2, new Set());
  if (!plan) throw new Error('planReductions: no plan keeps every bound');
  return plan;
}

/** Every curve module, for the registry. */
export const EC_MODULES = Object.values(CURVES).map((c) => ({
  name: ecModuleName(c),
  source: 'src/kernels/ec_rcb_window.ts',
  generate: () => generateEc(c),
}));

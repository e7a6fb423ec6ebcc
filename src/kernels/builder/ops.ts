// The operations, one function per WebAssembly instruction, grouped by type as in the text
// format: `i64.mul(a, b)` is `(i64.mul a b)`. Operands are checked for their type (by
// TypeScript, and again at generation time); i32 and i64 operands may be plain numbers
// (constants). The associative operations (add, mul, and, or, xor) take two or more operands
// and fold them left to right: `i64.xor(a, b, c)` is `(i64.xor (i64.xor a b) c)`.

import { type Callee, type Code, Expr, Label, Local, type Stmt, type Type, type Val, type ValType, i64Text, make, operand } from './ir.js';

type V<T extends ValType> = Val<T>;

function fold<T extends ValType>(t: T, op: string) {
  return (a: V<T>, b: V<T>, ...rest: V<T>[]): Expr<T> => {
    let e = make<T>(t, op, '', [t, t], [a, b]);
    for (const r of rest) e = make<T>(t, op, '', [t, t], [e, r]);
    return e;
  };
}
const bin =
  <T extends ValType, R extends ValType = T>(t: T, op: string, r?: R) =>
  (a: V<T>, b: V<T>): Expr<R> =>
    make<R>((r ?? t) as R, op, '', [t, t], [a, b]);
const un =
  <T extends ValType, R extends ValType>(t: T, op: string, r: R) =>
  (a: V<T>): Expr<R> =>
    make<R>(r, op, '', [t], [a]);
const memarg = (offset: number) => (offset ? `offset=${offset}` : '');
const load =
  <R extends ValType>(r: R, op: string) =>
  (addr: V<'i32'>, offset = 0): Expr<R> =>
    make<R>(r, op, memarg(offset), ['i32'], [addr]);
const store =
  <T extends ValType>(t: T, op: string) =>
  (addr: V<'i32'>, value: V<T>, offset = 0): Stmt =>
    make('void', op, memarg(offset), ['i32', t], [addr, value]);

const intOps = <T extends 'i32' | 'i64'>(t: T) => ({
  add: fold(t, `${t}.add`),
  mul: fold(t, `${t}.mul`),
  and: fold(t, `${t}.and`),
  or: fold(t, `${t}.or`),
  xor: fold(t, `${t}.xor`),
  sub: bin(t, `${t}.sub`),
  shl: bin(t, `${t}.shl`),
  shr_u: bin(t, `${t}.shr_u`),
  shr_s: bin(t, `${t}.shr_s`),
  rotl: bin(t, `${t}.rotl`),
  rotr: bin(t, `${t}.rotr`),
  eq: bin(t, `${t}.eq`, 'i32'),
  ne: bin(t, `${t}.ne`, 'i32'),
  lt_u: bin(t, `${t}.lt_u`, 'i32'),
  lt_s: bin(t, `${t}.lt_s`, 'i32'),
  le_u: bin(t, `${t}.le_u`, 'i32'),
  le_s: bin(t, `${t}.le_s`, 'i32'),
  gt_u: bin(t, `${t}.gt_u`, 'i32'),
  gt_s: bin(t, `${t}.gt_s`, 'i32'),
  ge_u: bin(t, `${t}.ge_u`, 'i32'),
  ge_s: bin(t, `${t}.ge_s`, 'i32'),
  eqz: un(t, `${t}.eqz`, 'i32'),
  ctz: un(t, `${t}.ctz`, t),
  clz: un(t, `${t}.clz`, t),
  load: load(t, `${t}.load`),
  load8_u: load(t, `${t}.load8_u`),
  load8_s: load(t, `${t}.load8_s`),
  store: store(t, `${t}.store`),
  store8: store(t, `${t}.store8`),
});

export const i32 = {
  ...intOps('i32'),
  /** i32.const, printed in decimal or (hex) as unsigned hex */
  const: (v: number, hex = false): Expr<'i32'> => new Expr('i32', 'op', 'i32.const', hex ? '0x' + (v >>> 0).toString(16) : String(v | 0), []),
  wrap_i64: un('i64', 'i32.wrap_i64', 'i32'),
};

export const i64 = {
  ...intOps('i64'),
  /** i64.const, printed in decimal or (hex) as unsigned hex */
  const: (v: bigint | number, hex = false): Expr<'i64'> => new Expr('i64', 'op', 'i64.const', i64Text(BigInt(v), hex), []),
  extend_i32_u: un('i32', 'i64.extend_i32_u', 'i64'),
  extend_i32_s: un('i32', 'i64.extend_i32_s', 'i64'),
  extend32_s: un('i64', 'i64.extend32_s', 'i64'),
  load32_u: load('i64', 'i64.load32_u'),
  load32_s: load('i64', 'i64.load32_s'),
  store32: store('i64', 'i64.store32'),
};

const vconst = (shape: string, lanes: readonly (number | bigint | string)[], n: number): Expr<'v128'> => {
  if (lanes.length !== n) throw new Error(`v128.const ${shape}: ${lanes.length} lanes, expected ${n}`);
  return new Expr('v128', 'op', 'v128.const', `${shape} ${lanes.join(' ')}`, []);
};

export const v128 = {
  /** v128.const from 16 bytes (printed as i8x16, each byte 0…255) */
  bytes: (b: readonly number[]): Expr<'v128'> =>
    vconst(
      'i8x16',
      b.map((x) => String(x & 0xff)),
      16,
    ),
  i8x16: (l: readonly number[]) => vconst('i8x16', l, 16),
  i16x8: (l: readonly (number | string)[]) => vconst('i16x8', l, 8),
  i32x4: (l: readonly (number | string)[]) => vconst('i32x4', l, 4),
  i64x2: (l: readonly (number | bigint | string)[]) => vconst('i64x2', l, 2),
  zero: (): Expr<'v128'> => vconst('i64x2', [0, 0], 2),
  and: fold('v128', 'v128.and'),
  or: fold('v128', 'v128.or'),
  xor: fold('v128', 'v128.xor'),
  andnot: bin('v128', 'v128.andnot'),
  not: un('v128', 'v128.not', 'v128'),
  /** bitselect(a, b, m): the bits of a where m is 1, of b where it is 0 */
  bitselect: (a: V<'v128'>, b: V<'v128'>, m: V<'v128'>): Expr<'v128'> => make('v128', 'v128.bitselect', '', ['v128', 'v128', 'v128'], [a, b, m]),
  load: load('v128', 'v128.load'),
  load32_splat: load('v128', 'v128.load32_splat'),
  load64_splat: load('v128', 'v128.load64_splat'),
  load64_zero: load('v128', 'v128.load64_zero'),
  store: store('v128', 'v128.store'),
};

const shift =
  (op: string) =>
  (a: V<'v128'>, n: V<'i32'>): Expr<'v128'> =>
    make('v128', op, '', ['v128', 'i32'], [a, n]);
const lane =
  <R extends ValType>(r: R, op: string) =>
  (a: V<'v128'>, l: number): Expr<R> =>
    make(r, op, String(l), ['v128'], [a]);
const replace =
  <T extends ValType>(t: T, op: string) =>
  (a: V<'v128'>, l: number, x: V<T>): Expr<'v128'> =>
    make('v128', op, String(l), ['v128', t], [a, x]);
const vbin = (op: string) => bin('v128', op);

export const i8x16 = {
  /** swizzle(a, idx): lane i of the result is a[idx[i]] (0 for an index ≥ 16) */
  swizzle: vbin('i8x16.swizzle'),
  /** shuffle(a, b, lanes): lane i is byte lanes[i] of a ‖ b */
  shuffle: (a: V<'v128'>, b: V<'v128'>, lanes: readonly number[] | string): Expr<'v128'> => {
    const l = typeof lanes === 'string' ? lanes.trim().split(/\s+/).map(Number) : lanes;
    if (l.length !== 16 || l.some((x) => !(x >= 0 && x < 32))) throw new Error('i8x16.shuffle: need 16 lanes in [0, 32)');
    return make('v128', 'i8x16.shuffle', l.join(' '), ['v128', 'v128'], [a, b]);
  },
  add: vbin('i8x16.add'),
  shl: shift('i8x16.shl'),
  shr_u: shift('i8x16.shr_u'),
  shr_s: shift('i8x16.shr_s'),
  splat: un('i32', 'i8x16.splat', 'v128'),
};

export const i16x8 = {
  mul: vbin('i16x8.mul'),
  add: vbin('i16x8.add'),
  shl: shift('i16x8.shl'),
  shr_u: shift('i16x8.shr_u'),
  extract_lane_u: lane('i32', 'i16x8.extract_lane_u'),
  splat: un('i32', 'i16x8.splat', 'v128'),
};

export const i32x4 = {
  add: vbin('i32x4.add'),
  sub: vbin('i32x4.sub'),
  shl: shift('i32x4.shl'),
  shr_u: shift('i32x4.shr_u'),
  splat: un('i32', 'i32x4.splat', 'v128'),
  extract_lane: lane('i32', 'i32x4.extract_lane'),
  replace_lane: replace('i32', 'i32x4.replace_lane'),
};

export const i64x2 = {
  add: fold('v128', 'i64x2.add'),
  shl: shift('i64x2.shl'),
  shr_u: shift('i64x2.shr_u'),
  splat: un('i64', 'i64x2.splat', 'v128'),
  extract_lane: lane('i64', 'i64x2.extract_lane'),
  replace_lane: replace('i64', 'i64x2.replace_lane'),
  extmul_low_i32x4_u: vbin('i64x2.extmul_low_i32x4_u'),
  extmul_high_i32x4_u: vbin('i64x2.extmul_high_i32x4_u'),
  extmul_low_i32x4_s: vbin('i64x2.extmul_low_i32x4_s'),
  extmul_high_i32x4_s: vbin('i64x2.extmul_high_i32x4_s'),
  extend_low_i32x4_u: un('v128', 'i64x2.extend_low_i32x4_u', 'v128'),
  extend_high_i32x4_u: un('v128', 'i64x2.extend_high_i32x4_u', 'v128'),
};

export const memory = {
  fill: (dst: V<'i32'>, value: V<'i32'>, n: V<'i32'>): Stmt => make('void', 'memory.fill', '', ['i32', 'i32', 'i32'], [dst, value, n]),
  copy: (dst: V<'i32'>, src: V<'i32'>, n: V<'i32'>): Stmt => make('void', 'memory.copy', '', ['i32', 'i32', 'i32'], [dst, src, n]),
};

/** select(a, b, c): a when c ≠ 0, else b (i32 and i64 only: on v128 V8 emits a branch). */
export function select<T extends 'i32' | 'i64'>(a: V<T>, b: V<T>, c: V<'i32'>): Expr<T> {
  const typed = [a, b].find((x): x is Expr<T> | Local<T> => x instanceof Expr || x instanceof Local);
  const t = (typed ? typed.type : typeof a === 'bigint' || typeof b === 'bigint' ? 'i64' : 'i32') as T;
  return make<T>(t, 'select', '', [t, t, 'i32'], [a, b, c]);
}

export function drop(e: Expr): Stmt {
  if (e.type === 'void' || e.type === 'multi') throw new Error('drop: needs one value');
  return new Expr('void', 'op', 'drop', '', [e]);
}

/** call f(args…): its result (one value), nothing, or several values ('multi'). */
export function call(f: Callee, ...args: V<ValType>[]): Expr {
  const r: Type = f.results.length === 0 ? 'void' : f.results.length === 1 ? f.results[0] : 'multi';
  if (args.length !== f.paramTypes.length) throw new Error(`call $${f.name}: ${args.length} arguments, expected ${f.paramTypes.length}`);
  return new Expr(
    r,
    'op',
    'call',
    `$${f.name}`,
    args.map((a, i) => operand(`call $${f.name}`, f.paramTypes[i], a, i)),
    f,
  );
}

/** The same, for a callee known to return one value of type T. */
export function callv<T extends ValType>(t: T, f: Callee, ...args: V<ValType>[]): Expr<T> {
  const e = call(f, ...args);
  if (e.type !== t) throw new Error(`call $${f.name}: returns ${f.results.join(' ') || 'nothing'}, not ${t}`);
  return e as Expr<T>;
}

/** Pops the values of a preceding multi-value expression into locals (last result first). */
export function setMany(e: Expr<'multi'> | Expr, into: readonly Local[]): Stmt[] {
  if (e.type !== 'multi' || !(e.ref && 'results' in e.ref) || e.ref.results.length !== into.length) throw new Error('setMany: needs a call with as many results');
  const res = (e.ref as Callee).results;
  into.forEach((l, i) => {
    if (l.type !== res[i]) throw new Error(`setMany: result ${i + 1} is ${res[i]}, local $${l.name} is ${l.type}`);
  });
  return [e, ...[...into].reverse().map((l) => new Expr('void', 'op', 'local.set', `$${l.name}`, [], l))];
}

// ---- control ---------------------------------------------------------------------------------

const flat = (code: readonly (Stmt | Code)[]): Stmt[] => code.flatMap((s) => (s instanceof Expr ? [s] : [...s]));

/** block $label … end (no result). */
export function block(label: Label | undefined, ...body: (Stmt | Code)[]): Stmt {
  return new Expr('void', 'block', 'block', '', [], label, flat(body));
}

/** loop $label … end (no result; a branch to the label starts the next iteration). */
export function loop(label: Label | undefined, ...body: (Stmt | Code)[]): Stmt {
  return new Expr('void', 'loop', 'loop', '', [], label, flat(body));
}

/** if cond then … [else …] end, without a result. */
export function if_(cond: V<'i32'>, then: Code, orelse?: Code): Stmt {
  return new Expr('void', 'if', 'if', '', [operand('if', 'i32', cond, 0)], undefined, then, orelse);
}

/** if (result t) cond then … else … end: the value of the branch taken. */
export function ifv<T extends ValType>(t: T, cond: V<'i32'>, then: Code, orelse: Code): Expr<T> {
  return new Expr(t, 'if', 'if', `(result ${t})`, [operand('if', 'i32', cond, 0)], undefined, then, orelse);
}

export function br(label: Label): Stmt {
  return new Expr('void', 'op', 'br', `$${label.name}`, [], label);
}

export function br_if(label: Label, cond: V<'i32'>): Stmt {
  return new Expr('void', 'op', 'br_if', `$${label.name}`, [operand('br_if', 'i32', cond, 0)], label);
}

/** return, with the function's result values. */
export function ret(...values: Expr[]): Stmt {
  return new Expr('void', 'op', 'return', '', values);
}

/** A fresh label (names need not be unique across a function, only meaningful to readers). */
export const label = (name: string) => new Label(name);

// The typed expression tree of the kernel builder: values of the three WebAssembly value types
// (i32, i64, v128), locals, labels and statements. A generator builds trees of `Expr` with the
// operation functions of ops.ts; func.ts gathers them into functions and modules and print.ts
// writes the text that wabt assembles. The tree is the instruction sequence itself — an
// operand list is evaluated left to right, then the operation — so the printed text is exactly
// what runs (no optimiser, no reordering).

import { requireSimd, simdAllowed } from './target.js';

export type ValType = 'i32' | 'i64' | 'v128';
/** What an expression leaves on the stack: one value, nothing, or several (a call). */
export type Type = ValType | 'void' | 'multi';

const NAME = /^[A-Za-z_][A-Za-z0-9_.]*$/;

/** A WebAssembly identifier (without the `$`), checked. */
export function checkName(what: string, name: string): string {
  if (!NAME.test(name)) throw new Error(`${what} name "${name}" is not a valid identifier`);
  return name;
}

/** The owner of locals: a function (func.ts). */
export interface LocalScope {
  readonly name: string;
}

/** A local variable or parameter of one function, typed. Use it wherever a value is expected. */
export class Local<T extends ValType = ValType> {
  /** @internal use Func.local */
  constructor(
    readonly scope: LocalScope,
    readonly name: string,
    readonly type: T,
  ) {
    if (type === 'v128' && !simdAllowed()) requireSimd(`the v128 local $${name} of ${scope.name}`);
  }

  get(): Expr<T> {
    return new Expr(this.type, 'op', 'local.get', `$${this.name}`, [], this);
  }

  set(v: Val<T>): Stmt {
    return new Expr('void', 'op', 'local.set', `$${this.name}`, [operand(`local.set $${this.name}`, this.type, v, 0)], this);
  }

  tee(v: Val<T>): Expr<T> {
    return new Expr(this.type, 'op', 'local.tee', `$${this.name}`, [operand(`local.tee $${this.name}`, this.type, v, 0)], this);
  }
}

/** A branch target (block, loop or if). */
export class Label {
  constructor(readonly name: string) {
    checkName('label', name);
  }
}

/** A function as a call target: its name, parameter and result types (func.ts implements it). */
export interface Callee {
  readonly name: string;
  readonly paramTypes: readonly ValType[];
  readonly results: readonly ValType[];
}

export type Kind = 'op' | 'block' | 'loop' | 'if' | 'comment';

/**
 * One node of the tree. For `op`: the instruction `op` with its immediates `imm` (text, e.g.
 * "offset=8"), after its operands `args`. For block/loop/if: `body` (and `orelse`), `label`,
 * the result type in `type`; an `if`'s condition is args[0]. A comment is a `;;` line.
 */
export class Expr<T extends Type = Type> {
  /** @internal use the operation functions */
  constructor(
    readonly type: T,
    readonly kind: Kind,
    readonly op: string,
    readonly imm: string,
    readonly args: readonly Expr[],
    readonly ref?: Local | Callee | Label,
    readonly body?: readonly Stmt[],
    readonly orelse?: readonly Stmt[],
  ) {
    // the target switch: outside the simd target no expression makes or takes a v128
    if (!simdAllowed() && (type === 'v128' || args.some((a) => a.type === 'v128'))) requireSimd(op === 'local.get' || op === 'local.set' || op === 'local.tee' ? `${op} ${imm}` : op);
  }
}

/** A statement: anything at the top of a body (a void expression, a control structure, a
 * comment, or a value left on the stack for the function's result or the next instruction). */
export type Stmt = Expr;
export type Code = readonly Stmt[];

/** A value of type T: an expression, a local (read), or for i32/i64 a JavaScript number (a
 * constant; for i64 also a bigint). */
export type Val<T extends ValType> = Expr<T> | Local<T> | (T extends 'i32' ? number : never) | (T extends 'i64' ? number | bigint : never);

/** Formats an i64 constant: decimal, or unsigned hex. */
export function i64Text(v: bigint, hex = false): string {
  if (hex) return '0x' + BigInt.asUintN(64, v).toString(16);
  return BigInt.asIntN(64, v) === v || BigInt.asUintN(64, v) === v ? v.toString() : String(BigInt.asIntN(64, v));
}

/** The expression for operand `i` of `what`, checked to have type `t`. */
export function operand<T extends ValType>(what: string, t: T, v: Val<T>, i: number): Expr<T> {
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) throw new Error(`${what}: operand ${i + 1} is not an integer (${v})`);
    if (t === 'i32') return new Expr(t, 'op', 'i32.const', String(v | 0), []) as Expr<T>;
    if (t === 'i64') return new Expr(t, 'op', 'i64.const', i64Text(BigInt(v)), []) as Expr<T>;
    throw new Error(`${what}: operand ${i + 1} must be ${t}, not a number`);
  }
  if (typeof v === 'bigint') {
    if (t !== 'i64') throw new Error(`${what}: operand ${i + 1} must be ${t}, not a bigint`);
    return new Expr(t, 'op', 'i64.const', i64Text(v), []) as Expr<T>;
  }
  const e = v instanceof Local ? v.get() : (v as Expr);
  if (e.type !== t) throw new Error(`${what}: operand ${i + 1} is ${e.type}, expected ${t}`);
  return e as Expr<T>;
}

/** The operation `op` (with immediates `imm`) on operands of the given types, result `type`. */
export function make<R extends Type>(type: R, op: string, imm: string, types: readonly ValType[], vals: readonly Val<ValType>[]): Expr<R> {
  if (vals.length !== types.length) throw new Error(`${op}: ${vals.length} operands, expected ${types.length}`);
  return new Expr(
    type,
    'op',
    op,
    imm,
    vals.map((v, i) => operand(op, types[i], v, i)),
  );
}

/** A `;;` comment line among the statements (no effect on the binary). */
export function comment(text: string): Stmt {
  if (/[\n\r]/.test(text)) throw new Error('comment: one line only');
  return new Expr('void', 'comment', '', text, []);
}

// Functions and modules of the kernel builder. A function owns its parameters and locals
// (declared on first use, in that order: the order of the binary's local indices) and a list of
// statements; a module owns its functions (in definition order), memory, data, globals and
// exports, and prints itself (print.ts) as the WAT text that build.ts assembles.

import { type Callee, type Code, Expr, Local, type LocalScope, type Stmt, type ValType, checkName } from './ir.js';
import { type Target, target } from './target.js';

export type Params = Record<string, ValType>;

export interface FuncOptions<P extends Params> {
  results?: readonly ValType[];
  /** exported under this name (true: the function's own name), inline in its header */
  export?: string | true;
  /** for an exported function: its public parameters (default: none, i.e. all secret) */
  public?: 'all' | readonly (keyof P & string)[];
  /** comment lines printed above the function */
  doc?: readonly string[];
}

export class Func<P extends Params = Params> implements Callee, LocalScope {
  readonly name: string;
  /** the parameters by name */
  readonly p: { readonly [K in keyof P]: Local<P[K]> };
  readonly paramTypes: readonly ValType[];
  readonly params: readonly Local[];
  readonly results: readonly ValType[];
  readonly exportName?: string;
  /** indices of the public parameters (exported functions) */
  readonly publicParams: readonly number[];
  /** comment lines printed above the function (a generator may add to them) */
  readonly doc: string[];
  readonly #all = new Map<string, Local>();
  readonly #locals: Local[] = [];
  readonly #body: Stmt[] = [];

  constructor(name: string, params: P, opts: FuncOptions<P> = {}) {
    this.name = checkName('function', name);
    const ps: Local[] = [];
    const p: Record<string, Local> = {};
    for (const [n, t] of Object.entries(params)) {
      const l = new Local(this, checkName('parameter', n), t);
      ps.push(l);
      p[n] = l;
      this.#all.set(n, l);
    }
    this.p = p as Func<P>['p'];
    this.params = ps;
    this.paramTypes = ps.map((l) => l.type);
    this.results = opts.results ?? [];
    this.exportName = opts.export === true ? name : opts.export;
    const pub = opts.public === 'all' ? ps.map((l) => l.name) : (opts.public ?? []);
    this.publicParams = pub
      .map((n) => {
        const i = ps.findIndex((l) => l.name === n);
        if (i < 0) throw new Error(`${name}: public parameter ${n} is not a parameter`);
        return i;
      })
      .sort((a, b) => a - b);
    this.doc = [...(opts.doc ?? [])];
  }

  /** The local `name` of type t, declared here on first use (same name, same local). */
  local<T extends ValType>(t: T, name: string): Local<T> {
    const had = this.#all.get(name);
    if (had) {
      if (had.type !== t) throw new Error(`${this.name}: $${name} is ${had.type}, not ${t}`);
      return had as Local<T>;
    }
    const l = new Local(this, checkName('local', name), t);
    this.#all.set(name, l);
    this.#locals.push(l);
    return l;
  }

  i32(name: string): Local<'i32'> {
    return this.local('i32', name);
  }

  i64(name: string): Local<'i64'> {
    return this.local('i64', name);
  }

  v128(name: string): Local<'v128'> {
    return this.local('v128', name);
  }

  /** The existing local or parameter `name` of type t (a generation error if there is none). */
  get<T extends ValType>(t: T, name: string): Local<T> {
    const had = this.#all.get(name);
    if (!had) throw new Error(`${this.name}: no local or parameter $${name}`);
    if (had.type !== t) throw new Error(`${this.name}: $${name} is ${had.type}, not ${t}`);
    return had as Local<T>;
  }

  /** Several locals of one type, declared in order. */
  locals<T extends ValType>(t: T, names: readonly string[]): Local<T>[] {
    return names.map((n) => this.local(t, n));
  }

  /** Whether `name` is a parameter or a declared local. */
  has(name: string): boolean {
    return this.#all.has(name);
  }

  /** The locals declared so far (without the parameters), in declaration order. */
  get declared(): readonly Local[] {
    return this.#locals;
  }

  /** Appends statements to the body. */
  emit(...code: (Stmt | Code)[]): this {
    for (const s of code) {
      if (s instanceof Expr) this.#body.push(s);
      else this.#body.push(...s);
    }
    return this;
  }

  get body(): readonly Stmt[] {
    return this.#body;
  }
}

export interface Global {
  exportName: string;
  type: 'i32' | 'i64';
  value: number | bigint;
}

export class Module {
  /** comment lines above `(module` */
  readonly header: string[] = [];
  readonly funcs: Func[] = [];
  readonly data: { offset: number; bytes: readonly number[] }[] = [];
  readonly globals: Global[] = [];
  /** exports listed after the functions: (export "name" (func $f)) */
  readonly exports: { name: string; func: Func; publicParams: readonly number[] }[] = [];
  memoryPages = 1;
  memoryExport: string | undefined = 'memory';
  /** the generator target the module was built for (target.ts) */
  readonly target: Target = target();

  constructor(readonly name: string) {}

  memory(pages: number, exportName: string | undefined = 'memory'): this {
    this.memoryPages = pages;
    this.memoryExport = exportName;
    return this;
  }

  /** An active data segment at a constant offset. */
  dataSegment(offset: number, bytes: readonly number[]): this {
    this.data.push({ offset, bytes });
    return this;
  }

  global(exportName: string, type: 'i32' | 'i64', value: number | bigint): this {
    this.globals.push({ exportName, type, value });
    return this;
  }

  /** Adds functions, in definition order. */
  add(...fns: (Func | readonly Func[])[]): this {
    for (const f of fns) {
      for (const g of Array.isArray(f) ? f : [f as Func]) {
        if (this.funcs.some((h) => h.name === g.name)) throw new Error(`module ${this.name}: two functions named $${g.name}`);
        this.funcs.push(g);
      }
    }
    return this;
  }

  /** An export listed after the functions; publicParams as parameter indices. */
  exportFunc(name: string, func: Func, publicParams: readonly number[]): this {
    this.exports.push({ name, func, publicParams });
    return this;
  }

  /** Export name → indices of its public parameters (the ctkit.ct section). */
  publicParams(): Record<string, number[]> {
    const out: Record<string, number[]> = {};
    for (const f of this.funcs) if (f.exportName) out[f.exportName] = [...f.publicParams];
    for (const e of this.exports) out[e.name] = [...e.publicParams];
    return out;
  }

  /** Every export's signature, for the generated contract. */
  signatures(): { name: string; params: [string, ValType][]; results: ValType[] }[] {
    const sig = (name: string, f: Func) => ({
      name,
      params: f.params.map((l) => [l.name, l.type] as [string, ValType]),
      results: [...f.results],
    });
    return [...this.funcs.filter((f) => !!f.exportName).map((f) => sig(f.exportName!, f)), ...this.exports.map((e) => sig(e.name, e.func))];
  }
}

// The JavaScript printer of the kernel builder: a scalar module (target `js`, no v128) as a
// TypeScript module whose functions are the IR's, statement for statement, with the same
// control flow (block: a labelled block, loop: a labelled `for (;;)`, br/br_if: break/continue)
// and the same addresses (linear memory is a Uint8Array M and a DataView DV over one
// ArrayBuffer). Integer arithmetic is 32-bit: an i32 is a JavaScript number kept in int32 range
// (`| 0`, `Math.imul`, `>>>`), an i64 a pair of them (high, low), its operations written out on
// the halves (carries, products and comparisons without a branch). No BigInt on any path but
// an export's i64 parameters (public lengths).
//
// Secrets. taint.ts marks every local, temporary and result secret or public with the
// checker's rules; the printer names each variable by it (s_… secret, p_… public) and writes
// comparisons, equality and selection on secret values as arithmetic on sign bits (no boolean,
// no branch), while public loop tests and pointers use JavaScript's comparisons. check_js.ts
// then checks the printed source on its own: no secret name or memory read in a condition, an
// index or an address; no comparison operator, ternary or short-circuit outside a condition; no
// secret flowing into a public name. What a JIT does with the arithmetic is not ours to check
// (README: what JavaScript cannot promise).

import { type Callee, type Expr, Label, type Local, type Stmt, type ValType } from './ir.js';
import { Func, type Module } from './func.js';
import { type Taint, type VarTimeNames, analyse } from './taint.js';
import { varTime } from '../../ct/vartime.js';

/** A printed i32: an expression in int32 range. */
interface J32 {
  t: 'i32';
  c: string;
  sec: boolean;
  /** a JavaScript boolean (a public comparison): usable as a condition, else converted */
  bool?: boolean;
}
/** A printed i64: its two halves as variables or constants. */
interface J64 {
  t: 'i64';
  h: string;
  l: string;
  sec: boolean;
}
type J = J32 | J64;

const ident = (name: string) => name.replace(/\./g, '$');
const SIMPLE = /^(-?\d+|[A-Za-z_$][\w$]*)$/;
const c32 = (v: number): string => {
  const x = v | 0;
  return x < 0 ? `(${x})` : String(x);
};
const isZero = (s: string) => s === '0';

function split64(v: bigint): [number, number] {
  const u = BigInt.asUintN(64, v);
  return [Number(BigInt.asIntN(32, u >> 32n)), Number(BigInt.asIntN(32, u))];
}

class FnPrinter {
  readonly out: string[] = [];
  readonly temps: string[] = [];
  #n = 0;
  #ind = '  ';
  readonly labels: { label: Label; kind: 'block' | 'loop' }[] = [];
  /** values left by statements (setMany, the function's trailing results) */
  readonly stack: J[] = [];

  constructor(
    readonly f: Func,
    readonly taint: Taint,
    readonly fnName: (c: Callee) => string,
  ) {}

  name(l: Local): string {
    return `${this.taint.local(l) ? 's' : 'p'}_${ident(l.name)}`;
  }

  line(s: string): void {
    this.out.push(this.#ind + s);
  }

  readonly #temps = new Set<string>();

  temp(sec: boolean): string {
    const t = `${sec ? 's' : 'p'}_$${this.#n++}`; // `$`: no local's name can start so
    this.temps.push(t);
    this.#temps.add(t);
    return t;
  }

  /** The value as an i32 expression held in a variable (when not already simple). */
  hold32(v: J32): J32 {
    if (SIMPLE.test(v.c) || /^\(-\d+\)$/.test(v.c)) return v;
    const t = this.temp(v.sec);
    this.line(`${t} = ${v.c};`);
    return { t: 'i32', c: t, sec: v.sec };
  }

  /** The value with both halves in variables or constants (for an operation that reads a half twice). */
  hold64(v: J64): J64 {
    return this.set64(v.h, v.l, v.sec);
  }

  /** An i64 result whose halves are expressions read once (bitwise operations): no temporaries. */
  lazy64(h: string, l: string, sec: boolean): J64 {
    return { t: 'i64', h: SIMPLE.test(h) ? h : `(${h})`, l: SIMPLE.test(l) ? l : `(${l})`, sec };
  }

  /** An i64 result from expressions for its halves, into fresh temporaries. */
  set64(h: string, l: string, sec: boolean): J64 {
    const hs = SIMPLE.test(h),
      ls = SIMPLE.test(l);
    if (hs && ls) return { t: 'i64', h, l, sec };
    const th = hs ? h : this.temp(sec);
    const tl = ls ? l : this.temp(sec);
    // the low half first: the high half's expression may read the operands' low halves, never th
    if (!ls) this.line(`${tl} = ${l};`);
    if (!hs) this.line(`${th} = ${h};`);
    return { t: 'i64', h: th, l: tl, sec };
  }

  // ---- statements ------------------------------------------------------------------------

  body(code: readonly Stmt[]): void {
    for (const s of code) this.stmt(s);
  }

  stmt(s: Stmt): void {
    if (s.kind === 'comment') {
      this.line(`// ${s.imm}`);
      return;
    }
    if (s.kind === 'block' || s.kind === 'loop') {
      const lab = s.ref instanceof Label ? s.ref : new Label('anon');
      const jsLab = `L${this.labels.length}_${ident(lab.name)}`;
      this.labels.push({ label: lab, kind: s.kind });
      this.line(s.kind === 'block' ? `${jsLab}: {` : `${jsLab}: for (;;) {`);
      this.#ind += '  ';
      this.body(s.body!);
      if (s.kind === 'loop') this.line(`break;`);
      this.#ind = this.#ind.slice(2);
      this.line('}');
      this.labels.pop();
      return;
    }
    if (s.kind === 'if' && s.type === 'void') {
      const c = this.cond(s.args[0]);
      this.line(`if (${c}) {`);
      this.#ind += '  ';
      this.body(s.body!);
      this.#ind = this.#ind.slice(2);
      if (s.orelse?.length) {
        this.line('} else {');
        this.#ind += '  ';
        this.body(s.orelse);
        this.#ind = this.#ind.slice(2);
      }
      this.line('}');
      return;
    }
    switch (s.op) {
      case 'local.set': {
        const l = s.ref as Local;
        const v = s.args.length ? this.ex(s.args[0]) : this.stack.pop()!;
        this.assign(l, v);
        return;
      }
      case 'br':
        this.line(`${this.jump(s.ref as Label)};`);
        return;
      case 'br_if': {
        const c = this.cond(s.args[0]);
        this.line(`if (${c}) ${this.jump(s.ref as Label)};`);
        return;
      }
      case 'return': {
        const vals = s.args.map((a) => this.ex(a));
        this.ret(vals);
        return;
      }
      case 'drop': {
        const v = this.ex(s.args[0]);
        if (v.t === 'i32' && !SIMPLE.test(v.c)) this.line(`${this.temp(v.sec)} = ${v.c};`);
        return;
      }
    }
    if (s.type === 'void') {
      const code = this.effect(s);
      if (code) this.line(`${code};`);
      return;
    }
    // a value left for a later arg-less local.set or as the function's result
    if (s.type === 'multi') {
      const callee = s.ref as Func;
      const call = this.callCode(s);
      this.line(`${call};`);
      const sec = this.calleeSecret(callee);
      callee.results.forEach((t, i) => {
        const g = `${sec ? 's' : 'p'}_$R${i}`;
        if (t === 'i32') this.stack.push(this.hold32({ t: 'i32', c: g, sec }));
        else {
          const th = this.temp(sec),
            tl = this.temp(sec);
          this.line(`${tl} = ${g}_l; ${th} = ${g}_h;`);
          this.stack.push({ t: 'i64', h: th, l: tl, sec });
        }
      });
      return;
    }
    const v = this.ex(s);
    this.stack.push(v.t === 'i32' ? this.hold32(v) : this.hold64(v));
  }

  assign(l: Local, v: J): void {
    const n = this.name(l);
    if (v.t === 'i32') this.line(`${n} = ${v.c};`);
    else {
      // the high half is written first: a low half that reads it is computed before
      if (new RegExp(`\\b${n.replace(/\$/g, '\\$')}_h\\b`).test(v.l)) {
        const t = this.temp(v.sec);
        this.line(`${t} = ${v.l};`);
        v = { ...v, l: t };
      }
      this.line(`${n}_h = ${v.h}; ${n}_l = ${v.l};`);
    }
  }

  jump(lab: Label): string {
    for (let i = this.labels.length - 1; i >= 0; i--) {
      const e = this.labels[i];
      if (e.label === lab) return `${e.kind === 'loop' ? 'continue' : 'break'} L${i}_${ident(lab.name)}`;
    }
    throw new Error(`${this.f.name}: branch to $${lab.name} outside its block`);
  }

  ret(vals: J[]): void {
    const f = this.f;
    if (f.results.length === 0) {
      this.line('return;');
      return;
    }
    if (vals.length !== f.results.length) throw new Error(`${f.name}: returns ${vals.length} values, expected ${f.results.length}`);
    const sec = this.taint.result(f);
    const pre = sec ? 's' : 'p';
    if (f.results.length === 1) {
      const v = vals[0];
      if (v.t === 'i32') this.line(`return ${v.c};`);
      else this.line(`${pre}_$H = ${v.h}; return ${v.l};`);
      return;
    }
    vals.forEach((v, i) => {
      if (v.t === 'i32') this.line(`${pre}_$R${i} = ${v.c};`);
      else this.line(`${pre}_$R${i}_h = ${v.h}; ${pre}_$R${i}_l = ${v.l};`);
    });
    this.line('return;');
  }

  calleeSecret(c: Callee): boolean {
    return c instanceof Func ? this.taint.result(c) : true;
  }

  /** A condition (public by the taint rules; checked): a JavaScript boolean-ish expression. */
  cond(e: Expr): string {
    const v = this.exRaw(e) as J32;
    return v.c;
  }

  /** A void operation with effects (stores, calls, memory.fill/copy), as a statement. */
  effect(e: Expr): string {
    const op = e.op;
    if (op === 'call') return this.callCode(e);
    if (op === 'memory.fill') {
      const [d, v, n] = this.args32(e.args);
      const dd = this.hold32(d);
      return `M.fill(${v.c}, ${dd.c}, ${dd.c} + ${n.c})`;
    }
    if (op === 'memory.copy') {
      const [d, s, n] = this.args32(e.args);
      const ss = this.hold32(s);
      return `M.copyWithin(${d.c}, ${ss.c}, ${ss.c} + ${n.c})`;
    }
    if (/\.store/.test(op)) {
      const off = e.imm ? Number(e.imm.replace('offset=', '')) : 0;
      const ops = this.operands(e.args);
      const a = ops[0] as J32;
      const addr = off ? `${a.c} + ${off}` : a.c;
      const v = ops[1];
      if (op === 'i32.store') return `DV.setInt32(${addr}, ${(v as J32).c}, true)`;
      if (op === 'i32.store8') return `M[${addr}] = ${(v as J32).c}`;
      const w = v as J64;
      if (op === 'i64.store') {
        const ah = this.hold32(a);
        const base = off ? `${ah.c} + ${off}` : ah.c;
        return `DV.setInt32(${base}, ${w.l}, true); DV.setInt32(${base} + 4, ${w.h}, true)`;
      }
      if (op === 'i64.store32') return `DV.setInt32(${addr}, ${w.l}, true)`;
      if (op === 'i64.store8') return `M[${addr}] = ${w.l}`;
    }
    throw new Error(`JS printer: ${this.f.name}: unsupported statement ${op}`);
  }

  callCode(e: Expr): string {
    const c = e.ref as Callee;
    const args = this.operands(e.args).flatMap((a) => (a.t === 'i32' ? [a.c] : [a.h, a.l]));
    return `${this.fnName(c)}(${args.join(', ')})`;
  }

  // ---- expressions -----------------------------------------------------------------------

  /** Whether evaluating e may write memory or a local, or emits statements (so an operand
   * evaluated before it must be held in a variable first to keep the order). */
  #ordered(e: Expr): boolean {
    if (e.type === 'i64' && !(e.op === 'local.get' || e.op === 'i64.const')) return true;
    if (e.op === 'call' || e.op === 'local.tee' || e.kind !== 'op') return true;
    return e.args.some((a) => this.#ordered(a));
  }

  /** The operands, in order; an operand followed by one with effects is held in a variable. */
  operands(args: readonly Expr[]): J[] {
    const out: J[] = [];
    for (let i = 0; i < args.length; i++) {
      let v = this.ex(args[i]);
      if (args.slice(i + 1).some((a) => this.#ordered(a))) v = this.pin(v);
      out.push(v);
    }
    return out;
  }

  /** The value in temporaries (a local's current value copied), unless it is constant. */
  pin(v: J): J {
    const fixed = (c: string) => /^\(?-?\d+\)?$/.test(c) || this.#temps.has(c);
    const copy = (c: string) => {
      if (fixed(c)) return c;
      const t = this.temp(v.sec);
      this.line(`${t} = ${c};`);
      return t;
    };
    if (v.t === 'i32') return v.bool ? v : { ...v, c: copy(v.c) };
    return { ...v, l: copy(v.l), h: copy(v.h) };
  }

  args32(args: readonly Expr[]): J32[] {
    return this.operands(args) as J32[];
  }

  /** The value of e as a number (a public comparison's boolean held as 0 or 1). */
  ex(e: Expr): J {
    const v = this.exRaw(e);
    if (v.t === 'i32' && v.bool) {
      const t = this.temp(false);
      this.line(`${t} = +${v.c};`);
      return { t: 'i32', c: t, sec: false };
    }
    return v;
  }

  exRaw(e: Expr): J {
    if (e.kind === 'if') return this.ifValue(e);
    if (e.kind !== 'op') throw new Error(`JS printer: ${this.f.name}: ${e.kind} as a value`);
    const op = e.op;
    const sec = this.taint.expr(e);
    switch (op) {
      case 'i32.const':
        return { t: 'i32', c: c32(Number(e.imm)), sec: false };
      case 'i64.const': {
        const [h, l] = split64(BigInt(e.imm));
        return { t: 'i64', h: c32(h).replace(/[()]/g, ''), l: c32(l).replace(/[()]/g, ''), sec: false };
      }
      case 'local.get': {
        const l = e.ref as Local;
        const n = this.name(l);
        return l.type === 'i64' ? { t: 'i64', h: `${n}_h`, l: `${n}_l`, sec } : { t: 'i32', c: n, sec };
      }
      case 'local.tee': {
        const l = e.ref as Local;
        const v = this.ex(e.args[0]);
        const n = this.name(l);
        if (v.t === 'i32') return { t: 'i32', c: `(${n} = ${v.c})`, sec };
        this.assign(l, v);
        return { t: 'i64', h: `${n}_h`, l: `${n}_l`, sec };
      }
      case 'call': {
        const c = e.ref as Callee;
        const code = this.callCode(e);
        const csec = this.calleeSecret(c);
        if (e.type === 'i32') return this.hold32({ t: 'i32', c: code, sec: csec });
        if (e.type === 'i64') {
          const tl = this.temp(csec),
            th = this.temp(csec);
          this.line(`${tl} = ${code}; ${th} = ${csec ? 's' : 'p'}_$H;`);
          return { t: 'i64', h: th, l: tl, sec: csec };
        }
        throw new Error(`JS printer: ${this.f.name}: call $${c.name} as a value of type ${e.type}`);
      }
      case 'select': {
        // the mask line below reads c before the result expression evaluates a and b: a and b are
        // held before c when either has effects (a tee, a call), so that a, b, c run in order
        const held = this.#ordered(e.args[1]) || this.#ordered(e.args[2]);
        const a = held ? this.pin(this.ex(e.args[0])) : this.ex(e.args[0]);
        const b = held ? this.pin(this.ex(e.args[1])) : this.ex(e.args[1]);
        const cc = this.ex(e.args[2]) as J32;
        // m = all ones when c ≠ 0: the sign of c | −c
        const m = this.temp(cc.sec);
        this.line(`${m} = (${cc.c} | ((0 - ${cc.c}) | 0)) >> 31;`);
        if (a.t === 'i32') return { t: 'i32', c: `((${(a as J32).c} & ${m}) | (${(b as J32).c} & ~${m}))`, sec };
        const [x, y] = [a as J64, b as J64];
        return this.set64(`(${x.h} & ${m}) | (${y.h} & ~${m})`, `(${x.l} & ${m}) | (${y.l} & ~${m})`, sec);
      }
    }
    if (/\.load/.test(op)) return this.load(e, sec);
    const ops = this.operands(e.args);
    if (op.startsWith('i32.') || op === 'i64.eqz' || /^i64\.(eq|ne|[lg][te]_[su])$/.test(op)) return this.op32(op, ops, sec);
    return this.op64(op, ops, sec);
  }

  ifValue(e: Expr): J {
    const c = this.cond(e.args[0]);
    const sec = this.taint.expr(e);
    const t = e.type as ValType;
    const th = this.temp(sec),
      tl = t === 'i64' ? this.temp(sec) : '';
    const branch = (code: readonly Stmt[]) => {
      const depth = this.stack.length;
      this.#ind += '  ';
      this.body(code);
      const v = this.stack.pop()!;
      if (this.stack.length !== depth) throw new Error(`JS printer: ${this.f.name}: an if-value branch leaves ${this.stack.length - depth + 1} values`);
      if (v.t === 'i32') this.line(`${th} = ${v.c};`);
      else this.line(`${tl} = ${v.l}; ${th} = ${v.h};`);
      this.#ind = this.#ind.slice(2);
    };
    this.line(`if (${c}) {`);
    branch(e.body!);
    this.line('} else {');
    branch(e.orelse ?? []);
    this.line('}');
    return t === 'i32' ? { t: 'i32', c: th, sec } : { t: 'i64', h: th, l: tl, sec };
  }

  load(e: Expr, sec: boolean): J {
    const off = e.imm ? Number(e.imm.replace('offset=', '')) : 0;
    const a = this.ex(e.args[0]) as J32;
    const at = (k: number) => (off + k ? `${a.c} + ${off + k}` : a.c);
    switch (e.op) {
      case 'i32.load':
        return { t: 'i32', c: `DV.getInt32(${at(0)}, true)`, sec };
      case 'i32.load8_u':
        return { t: 'i32', c: `M[${at(0)}]`, sec };
      case 'i32.load8_s':
        return { t: 'i32', c: `((M[${at(0)}] << 24) >> 24)`, sec };
      case 'i64.load8_u':
        return this.set64('0', `M[${at(0)}]`, sec);
      case 'i64.load32_u':
        return this.set64('0', `DV.getInt32(${at(0)}, true)`, sec);
      case 'i64.load32_s': {
        const l = this.set64('0', `DV.getInt32(${at(0)}, true)`, sec).l;
        return this.set64(`${l} >> 31`, l, sec);
      }
      case 'i64.load': {
        const ah = this.hold32(a);
        const at2 = (k: number) => (off + k ? `${ah.c} + ${off + k}` : ah.c);
        return this.set64(`DV.getInt32(${at2(4)}, true)`, `DV.getInt32(${at2(0)}, true)`, sec);
      }
    }
    throw new Error(`JS printer: ${this.f.name}: unsupported load ${e.op}`);
  }

  // ---- 32-bit helpers (on expressions; a and b are evaluated once each) --------------------

  /** lt_u on held values: the borrow of a − b, without a comparison. */
  static ltu(a: string, b: string): string {
    return `(((~${a} & ${b}) | (~(${a} ^ ${b}) & ((${a} - ${b}) | 0))) >>> 31)`;
  }

  static lts(a: string, b: string): string {
    return `(((((${a} - ${b}) | 0) ^ ((${a} ^ ${b}) & (((${a} - ${b}) | 0) ^ ${a}))) >>> 31))`;
  }

  /** 1 when x ≠ 0 (x held), without a comparison. */
  static nz(x: string): string {
    return `((${x} | ((0 - ${x}) | 0)) >>> 31)`;
  }

  op32(op: string, ops: J[], sec: boolean): J32 {
    const r = (c: string): J32 => ({ t: 'i32', c, sec });
    const bl = (c: string): J32 => ({ t: 'i32', c, sec: false, bool: true });
    const b = bl;
    const [a, b2] = ops as J32[];
    const name = op.slice(4);
    if (op.startsWith('i64.')) {
      // i64 comparisons: on the halves
      const [x, y] = (ops as J64[]).map((o) => this.hold64(o));
      if (name === 'eqz') return sec ? r(`(${FnPrinter.nz(this.hold32(r(`(${x.h} | ${x.l})`)).c)} ^ 1)`) : b(`((${x.h} | ${x.l}) === 0)`);
      if (!sec) {
        const u = (s: string) => `(${s} >>> 0)`;
        const hi = name.endsWith('_s') ? [x.h, y.h] : [u(x.h), u(y.h)];
        const [lo1, lo2] = [u(x.l), u(y.l)];
        const cmp = { eq: '===', ne: '!==', lt: '<', le: '<=', gt: '>', ge: '>=' }[name.slice(0, 2)]!;
        if (name === 'eq') return b(`(${x.h} === ${y.h} && ${x.l} === ${y.l})`);
        if (name === 'ne') return b(`(${x.h} !== ${y.h} || ${x.l} !== ${y.l})`);
        const strict = cmp.charAt(0);
        return b(`(${hi[0]} ${strict} ${hi[1]} || (${x.h} === ${y.h} && ${lo1} ${cmp} ${lo2}))`);
      }
      const eqh = this.hold32(r(`(${FnPrinter.nz(this.hold32(r(`(${x.h} ^ ${y.h})`)).c)} ^ 1)`)).c;
      if (name === 'eq' || name === 'ne') {
        const z = this.hold32(r(`((${x.h} ^ ${y.h}) | (${x.l} ^ ${y.l}))`)).c;
        return r(name === 'eq' ? `(${FnPrinter.nz(z)} ^ 1)` : FnPrinter.nz(z));
      }
      // lt(x, y) = lt(xh, yh) | (xh == yh & ltu(xl, yl)); the others by swapping and negating
      const lt = (p: J64, q: J64) => {
        const hiLt = name.endsWith('_s') ? FnPrinter.lts(p.h, q.h) : FnPrinter.ltu(p.h, q.h);
        return `(${hiLt} | (${eqh} & ${FnPrinter.ltu(p.l, q.l)}))`;
      };
      const k = name.slice(0, 2);
      if (k === 'lt') return r(lt(x, y));
      if (k === 'gt') return r(lt(y, x));
      if (k === 'le') return r(`(${lt(y, x)} ^ 1)`);
      return r(`(${lt(x, y)} ^ 1)`);
    }
    switch (name) {
      case 'add':
        return r(`((${a.c} + ${b2.c}) | 0)`);
      case 'sub':
        return r(`((${a.c} - ${b2.c}) | 0)`);
      case 'mul':
        return r(`Math.imul(${a.c}, ${b2.c})`);
      case 'and':
        return r(`(${a.c} & ${b2.c})`);
      case 'or':
        return r(`(${a.c} | ${b2.c})`);
      case 'xor':
        return r(`(${a.c} ^ ${b2.c})`);
      case 'shl':
        return r(`(${a.c} << ${b2.c})`);
      case 'shr_s':
        return r(`(${a.c} >> ${b2.c})`);
      case 'shr_u':
        return r(`((${a.c} >>> ${b2.c}) | 0)`);
      case 'rotl':
      case 'rotr': {
        const x = this.hold32(a),
          k = this.hold32(b2);
        const [p, q] = name === 'rotl' ? ['<<', '>>>'] : ['>>>', '<<'];
        if (/^\d+$/.test(k.c)) {
          const n = Number(k.c) & 31;
          return n === 0 ? x : r(`((${x.c} ${p} ${n}) | (${x.c} ${q} ${32 - n}))`);
        }
        return r(`((${x.c} ${p} (${k.c} & 31)) | (${x.c} ${q} ((0 - ${k.c}) & 31)))`);
      }
      case 'wrap_i64':
        return r((ops[0] as J64).l);
      case 'clz':
        return r(`Math.clz32(${a.c})`);
      case 'ctz': {
        const x = this.hold32(a);
        return r(`(${x.c} === 0 ? 32 : 31 - Math.clz32(${x.c} & -${x.c}))`);
      }
    }
    if (!sec) {
      const u = (s: string) => `(${s} >>> 0)`;
      switch (name) {
        case 'eqz':
          return b(`(${a.c} === 0)`);
        case 'eq':
          return b(`(${a.c} === ${b2.c})`);
        case 'ne':
          return b(`(${a.c} !== ${b2.c})`);
        case 'lt_u':
          return b(`(${u(a.c)} < ${u(b2.c)})`);
        case 'le_u':
          return b(`(${u(a.c)} <= ${u(b2.c)})`);
        case 'gt_u':
          return b(`(${u(a.c)} > ${u(b2.c)})`);
        case 'ge_u':
          return b(`(${u(a.c)} >= ${u(b2.c)})`);
        case 'lt_s':
          return b(`(${a.c} < ${b2.c})`);
        case 'le_s':
          return b(`(${a.c} <= ${b2.c})`);
        case 'gt_s':
          return b(`(${a.c} > ${b2.c})`);
        case 'ge_s':
          return b(`(${a.c} >= ${b2.c})`);
      }
    } else {
      const x = this.hold32(a);
      if (name === 'eqz') return r(`(${FnPrinter.nz(x.c)} ^ 1)`);
      const y = this.hold32(b2);
      switch (name) {
        case 'eq':
          return r(`(${FnPrinter.nz(this.hold32(r(`(${x.c} ^ ${y.c})`)).c)} ^ 1)`);
        case 'ne':
          return r(FnPrinter.nz(this.hold32(r(`(${x.c} ^ ${y.c})`)).c));
        case 'lt_u':
          return r(FnPrinter.ltu(x.c, y.c));
        case 'gt_u':
          return r(FnPrinter.ltu(y.c, x.c));
        case 'le_u':
          return r(`(${FnPrinter.ltu(y.c, x.c)} ^ 1)`);
        case 'ge_u':
          return r(`(${FnPrinter.ltu(x.c, y.c)} ^ 1)`);
        case 'lt_s':
          return r(FnPrinter.lts(x.c, y.c));
        case 'gt_s':
          return r(FnPrinter.lts(y.c, x.c));
        case 'le_s':
          return r(`(${FnPrinter.lts(y.c, x.c)} ^ 1)`);
        case 'ge_s':
          return r(`(${FnPrinter.lts(x.c, y.c)} ^ 1)`);
      }
    }
    throw new Error(`JS printer: ${this.f.name}: unsupported ${op}`);
  }

  op64(op: string, ops: J[], sec: boolean): J64 {
    const name = op.slice(4);
    if (name === 'extend_i32_u') return this.set64('0', (ops[0] as J32).c, sec);
    if (name === 'extend_i32_s') {
      const x = this.hold32(ops[0] as J32);
      return this.set64(`${x.c} >> 31`, x.c, sec);
    }
    const [x0, y0] = ops as J64[];
    switch (name) {
      case 'and':
        return this.lazy64(isZero(x0.h) || isZero(y0.h) ? '0' : `${x0.h} & ${y0.h}`, `${x0.l} & ${y0.l}`, sec);
      case 'or':
        return this.lazy64(isZero(x0.h) ? y0.h : isZero(y0.h) ? x0.h : `${x0.h} | ${y0.h}`, `${x0.l} | ${y0.l}`, sec);
      case 'xor':
        return this.lazy64(isZero(x0.h) ? y0.h : isZero(y0.h) ? x0.h : `${x0.h} ^ ${y0.h}`, `${x0.l} ^ ${y0.l}`, sec);
    }
    // the other operations read a half more than once: both operands held
    const [x, y] = [this.hold64(x0), y0 ? this.hold64(y0) : y0];
    switch (name) {
      case 'extend32_s':
        return this.set64(`${x.l} >> 31`, x.l, sec);
      case 'add': {
        const l = this.temp(sec);
        this.line(`${l} = (${x.l} + ${y.l}) | 0;`);
        // carry out of the low halves: the top bit of (a & b) | ((a | b) & ~sum)
        const carry = `(((${x.l} & ${y.l}) | ((${x.l} | ${y.l}) & ~${l})) >>> 31)`;
        const hs = [x.h, y.h].filter((s) => !isZero(s));
        return this.set64(`(${[...hs, carry].join(' + ')}) | 0`, l, sec);
      }
      case 'sub': {
        const l = this.temp(sec);
        this.line(`${l} = (${x.l} - ${y.l}) | 0;`);
        const borrow = `(((~${x.l} & ${y.l}) | (~(${x.l} ^ ${y.l}) & ${l})) >>> 31)`;
        return this.set64(`(${x.h} - ${y.h} - ${borrow}) | 0`, l, sec);
      }
      case 'mul':
        return this.mul64(x, y, sec);
      case 'ctz': // public operands only (taint.ts refuses a secret bit count)
        return this.set64('0', `(${x.l} !== 0 ? 31 - Math.clz32(${x.l} & -${x.l}) : ${x.h} !== 0 ? 63 - Math.clz32(${x.h} & -${x.h}) : 64)`, sec);
      case 'shl':
      case 'shr_u':
      case 'shr_s':
      case 'rotl':
      case 'rotr':
        return this.shift64(name, x, y, sec);
    }
    throw new Error(`JS printer: ${this.f.name}: unsupported ${op}`);
  }

  /** The low 64 bits of x·y: the 32×32→64 product of the low halves (16-bit pieces) plus the
   * cross products' low halves into the high half. */
  mul64(x: J64, y: J64, sec: boolean): J64 {
    const t = () => this.temp(sec);
    const [a, b] = [x.l, y.l];
    const [a0, a1, b0, b1, p, w1, w2] = [t(), t(), t(), t(), t(), t(), t()];
    this.line(`${a0} = ${a} & 65535; ${a1} = ${a} >>> 16; ${b0} = ${b} & 65535; ${b1} = ${b} >>> 16;`);
    this.line(`${p} = Math.imul(${a0}, ${b0}); ${w1} = (Math.imul(${a1}, ${b0}) + (${p} >>> 16)) | 0; ${w2} = (Math.imul(${a0}, ${b1}) + (${w1} & 65535)) | 0;`);
    const terms = [`Math.imul(${a1}, ${b1})`, `(${w1} >>> 16)`, `(${w2} >>> 16)`];
    if (!isZero(y.h)) terms.push(`Math.imul(${a}, ${y.h})`);
    if (!isZero(x.h)) terms.push(`Math.imul(${x.h}, ${b})`);
    return this.set64(`(${terms.join(' + ')}) | 0`, `Math.imul(${a}, ${b})`, sec);
  }

  shift64(name: string, x: J64, k: J64, sec: boolean): J64 {
    if (/^\d+$/.test(k.l) && isZero(k.h)) return this.shiftConst(name, x, Number(k.l) & 63, sec);
    // a shift by a variable count (public or secret): both halves computed, chosen by masks
    const n = this.temp(sec),
      big = this.temp(sec);
    this.line(`${n} = ${k.l} & 31; ${big} = (0 - ((${k.l} >>> 5) & 1)) | 0;`);
    const t = () => this.temp(sec);
    if (name === 'rotl' || name === 'rotr') {
      // rotating by 32 swaps the halves; then a rotation by n < 32 of the pair
      const [h, l] = [t(), t()];
      this.line(`${h} = (${x.h} & ~${big}) | (${x.l} & ${big}); ${l} = (${x.l} & ~${big}) | (${x.h} & ${big});`);
      const m = t();
      this.line(`${m} = (0 - ((${n} | ((0 - ${n}) | 0)) >>> 31)) | 0;`); // all ones when n ≠ 0
      if (name === 'rotl') return this.set64(`(${h} << ${n}) | ((${l} >>> ((32 - ${n}) & 31)) & ${m})`, `(${l} << ${n}) | ((${h} >>> ((32 - ${n}) & 31)) & ${m})`, sec);
      return this.set64(`(${h} >>> ${n}) | ((${l} << ((32 - ${n}) & 31)) & ${m})`, `(${l} >>> ${n}) | ((${h} << ((32 - ${n}) & 31)) & ${m})`, sec);
    }
    const [sh, sl] = [t(), t()];
    if (name === 'shl') {
      this.line(`${sl} = ${x.l} << ${n}; ${sh} = (${x.h} << ${n}) | ((${x.l} >>> 1) >>> (31 - ${n}));`);
      return this.set64(`(${sh} & ~${big}) | (${sl} & ${big})`, `${sl} & ~${big}`, sec);
    }
    const fill = name === 'shr_s' ? `(${x.h} >> 31)` : '0';
    this.line(`${sh} = (${x.h} ${name === 'shr_s' ? '>>' : '>>>'} ${n}) | 0; ${sl} = (${x.l} >>> ${n}) | ((${x.h} << 1) << (31 - ${n}));`);
    return this.set64(`(${sh} & ~${big}) | (${fill} & ${big})`, `(${sl} & ~${big}) | (${sh} & ${big})`, sec);
  }

  shiftConst(name: string, x: J64, n: number, sec: boolean): J64 {
    if (n === 0) return x;
    if (name === 'rotl' || name === 'rotr') {
      const k = name === 'rotl' ? n : 64 - n;
      // rotl by k: (x << k) | (x >>> (64 − k))
      if (k === 32) return { t: 'i64', h: x.l, l: x.h, sec };
      const [p, q] = k < 32 ? [x.h, x.l] : [x.l, x.h];
      const m = k & 31;
      return this.set64(`(${p} << ${m}) | (${q} >>> ${32 - m})`, `(${q} << ${m}) | (${p} >>> ${32 - m})`, sec);
    }
    if (name === 'shl') {
      if (n >= 32) return this.set64(n === 32 ? x.l : `${x.l} << ${n - 32}`, '0', sec);
      return this.set64(isZero(x.h) ? `${x.l} >>> ${32 - n}` : `(${x.h} << ${n}) | (${x.l} >>> ${32 - n})`, `${x.l} << ${n}`, sec);
    }
    const sgn = name === 'shr_s';
    if (n >= 32) {
      const l = n === 32 ? x.h : `${x.h} ${sgn ? '>>' : '>>>'} ${n - 32}`;
      return this.set64(sgn ? `${x.h} >> 31` : '0', sgn || n > 32 ? `(${l}) | 0` : l, sec);
    }
    return this.set64(isZero(x.h) ? '0' : `${x.h} ${sgn ? '>>' : '>>>'} ${n}`, isZero(x.h) ? `${x.l} >>> ${n}` : `(${x.l} >>> ${n}) | (${x.h} << ${32 - n})`, sec);
  }
}

export interface JsModuleOptions {
  /** the TypeScript type of the instance (the contract's exports interface), if any */
  exportsType?: string;
  /** import line for that type */
  typeImport?: string;
  /** the variable-time declarations (default: src/ct/vartime.ts's for the module's name) */
  varTime?: VarTimeNames;
}

/** The marker line of the printed source that carries its variable-time declarations (check_js.ts reads it). */
export const VARTIME_MARK = '// ctkit variable-time declarations (src/ct/vartime.ts):';

/** src/ct/vartime.ts's declarations for the module `name`. */
export function varTimeOf(name: string): VarTimeNames {
  const ds = varTime.filter((d) => d.module === name);
  return { exports: ds.filter((d) => d.kind === 'export').map((d) => d.func), helpers: ds.filter((d) => d.kind === 'helper').map((d) => d.func) };
}

/**
 * The module as TypeScript source: `instantiate()` returns its exports (functions with the
 * WebAssembly signature, i64 parameters as BigInt) and `memory` ({ buffer, grow }).
 */
export function printJsModule(m: Module, opts: JsModuleOptions = {}): string {
  const vt = opts.varTime ?? varTimeOf(m.name);
  const taint = analyse(m, vt);
  if (taint.violations.length) throw new Error(`JS printer: module ${m.name} is not constant-time:\n  ${taint.violations.join('\n  ')}`);
  const defined = m.funcs;
  // only what the exports reach: a function nothing calls is dead code (and an unused local to tsc)
  const live = new Set<Func>([...defined.filter((f) => f.exportName), ...m.exports.map((e) => e.func as Func)]);
  const calls = (e: Expr): void => {
    if (e.op === 'call' && e.ref instanceof Func && !live.has(e.ref)) {
      live.add(e.ref);
      e.ref.body.forEach(calls);
    }
    e.args.forEach(calls);
    e.body?.forEach(calls);
    e.orelse?.forEach(calls);
  };
  [...live].forEach((f) => f.body.forEach(calls));
  const funcs = defined.filter((f) => live.has(f));
  const fnName = (c: Callee) => `f_${ident(c.name)}`;
  const lines: string[] = [];
  lines.push(...m.header.map((h) => `// ${h}`.trimEnd()));
  if (vt.exports.length || vt.helpers.length) {
    // the functions only these reach handle public data only (taint.ts, check_js.ts)
    lines.push(`${VARTIME_MARK} exports ${vt.exports.join(' ') || '-'}; helpers ${vt.helpers.join(' ') || '-'}`);
  }
  if (opts.typeImport) lines.push(opts.typeImport);
  lines.push(`import { JsMemory } from '../js-memory.js';`, '');
  lines.push(`/** A fresh instance: its own memory (${m.memoryPages} pages) and functions. */`);
  lines.push(`export function instantiate()${opts.exportsType ? `: ${opts.exportsType}` : ''} {`);
  const views: string[] = []; // M and DV, where some function reads them (filled in below)
  const viewsAt = lines.length;
  for (const d of m.data) lines.push(`  M.set([${d.bytes.join(',')}], ${d.offset});`);
  // the result registers of functions returning i64 or several values, by taint
  const regs = new Set<string>();
  for (const f of funcs) {
    const pre = taint.result(f) ? 's' : 'p';
    if (f.results.length === 1 && f.results[0] === 'i64') regs.add(`${pre}_$H`);
    if (f.results.length > 1) f.results.forEach((t, i) => (t === 'i64' ? [`${pre}_$R${i}_h`, `${pre}_$R${i}_l`] : [`${pre}_$R${i}`]).forEach((r) => regs.add(r)));
  }
  if (regs.size) lines.push(`  let ${[...regs].map((r) => `${r} = 0`).join(', ')};`);
  const all: string[] = lines.slice(viewsAt); // what reads M or DV: data segments, function bodies
  for (const f of funcs) {
    const p = new FnPrinter(f, taint, fnName);
    p.body(f.body);
    if (p.stack.length) {
      p.ret(p.stack.splice(0));
    }
    const params = f.params.flatMap((l) => (l.type === 'i64' ? [`${p.name(l)}_h`, `${p.name(l)}_l`] : [p.name(l)]));
    const ret = f.results.length === 1 && f.results[0] !== 'i64' ? 'number' : f.results.length === 1 ? 'number' : 'void';
    lines.push('', ...f.doc.map((d) => `  // ${d}`));
    lines.push(`  function ${fnName(f)}(${params.map((x) => `${x}: number`).join(', ')}): ${ret} {`);
    // tsc's noUnusedLocals / noUnusedParameters: a local the body never names is not declared; a
    // parameter or local that it only assigns to is read once by `void` (no effect)
    const body = p.out.join('\n');
    const declared = [...f.declared.flatMap((l) => (l.type === 'i64' ? [`${p.name(l)}_h`, `${p.name(l)}_l`] : [p.name(l)])), ...p.temps];
    const used = identifiers(body);
    const vars = declared.filter((v) => used.mentioned.has(v));
    for (let i = 0; i < vars.length; i += 12)
      lines.push(
        `    let ${vars
          .slice(i, i + 12)
          .map((v) => `${v} = 0`)
          .join(', ')};`,
      );
    for (const v of [...params, ...vars]) if (!used.read.has(v)) lines.push(`    void ${v};`);
    lines.push(...p.out.map((l) => '  ' + l));
    all.push(body);
    lines.push('  }');
  }
  const text = all.join('\n');
  for (const [v, make] of [
    ['M', 'new Uint8Array'],
    ['DV', 'new DataView'],
  ])
    if (mentions(text, v)) views.push(v, make);
  const setViews = views.length ? ` ${views.flatMap((v, i) => (i % 2 ? [] : [`${v} = ${views[i + 1]}(b);`])).join(' ')} ` : ' ';
  lines.splice(viewsAt, 0, `  const memory = new JsMemory(${m.memoryPages}, (${views.length ? 'b' : '_b'}) => {${setViews}});`, ...views.flatMap((v, i) => (i % 2 ? [] : [`  let ${v} = ${views[i + 1]}(memory.buffer);`])));
  // exports: the WebAssembly signatures (i64 as BigInt at the boundary)
  const exp: string[] = [];
  const exportOf = (name: string, f: Func) => {
    const pure = f.params.every((l) => l.type === 'i32') && !(f.results.length === 1 && f.results[0] === 'i64') && f.results.length <= 1;
    if (pure) return `    ${name}: ${fnName(f)},`;
    if (f.results.length > 1) throw new Error(`JS printer: export ${name} returns several values`);
    const ps = f.params.map((l, i) => `a${i}: ${l.type === 'i64' ? 'bigint' : 'number'}`);
    const args = f.params.flatMap((l, i) => (l.type === 'i64' ? [`hi64(a${i})`, `lo64(a${i})`] : [`a${i}`]));
    const call = `${fnName(f)}(${args.join(', ')})`;
    if (f.results[0] === 'i64') {
      const pre = taint.result(f) ? 's' : 'p';
      return `    ${name}: (${ps.join(', ')}): bigint => { const l = ${call}; return (BigInt(${pre}_$H) << BigInt(32)) | BigInt(l >>> 0); },`;
    }
    return `    ${name}: (${ps.join(', ')}) => ${call},`;
  };
  for (const f of funcs) if (f.exportName) exp.push(exportOf(f.exportName, f));
  for (const e of m.exports) exp.push(exportOf(e.name, e.func as Func));
  for (const g of m.globals) exp.push(`    ${g.exportName}: { value: ${g.value} },`);
  lines.push('', '  return {', '    memory,', ...exp, '  };', '}', '');
  if (exp.some((l) => l.includes('hi64('))) {
    lines.push(
      '/** The high / low 32 bits of an i64 argument (a public length), as int32. */',
      'function hi64(x: bigint): number {',
      '  return Number(BigInt.asIntN(32, x >> BigInt(32)));',
      '}',
      '',
      'function lo64(x: bigint): number {',
      '  return Number(BigInt.asIntN(32, x));',
      '}',
      '',
    );
  }
  return lines.join('\n');
}

const named = (v: string) => `(?<![\\w$])${v.replace(/\$/g, '\\$')}(?![\\w$])`;
/** Whether the text names variable v. */
const mentions = (text: string, v: string) => new RegExp(named(v)).test(text);

/**
 * The identifiers a text names, and those it reads (names other than as the target of a plain
 * assignment `v =`, not `v ==`), in one pass (a regular expression per variable over a
 * function of thousands of them was quadratic: minutes for the P-521 module).
 */
function identifiers(text: string): { mentioned: Set<string>; read: Set<string> } {
  const mentioned = new Set<string>(),
    read = new Set<string>();
  for (const m of text.matchAll(/[\w$]+/g)) {
    const v = m[0];
    mentioned.add(v);
    if (read.has(v)) continue;
    let j = m.index! + v.length;
    while (j < text.length && /\s/.test(text[j])) j++;
    if (!(text[j] === '=' && text[j + 1] !== '=')) read.add(v);
  }
  return { mentioned, read };
}

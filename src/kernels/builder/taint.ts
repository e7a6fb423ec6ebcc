// Which values of a builder module are secret: the constant-time checker's analysis
// (src/ct/check.ts) over the typed IR instead of the binary, for the JavaScript printer. The
// rules are the checker's: an exported function's parameters are secret unless declared
// public, all of memory is secret, constants are public, an operation's result is secret iff an
// operand is; locals are flow-insensitive (secret if anything secret is ever written to them),
// calls context-insensitive (a parameter is secret if any call site passes a secret, a result
// if any returned value is), iterated to a fixpoint over the module. A secret value reaching a
// branch or loop condition, a select condition, an address, a length of memory.fill/copy, a
// divider or a bit count is a violation, as in the checker: the printer refuses such a module.
//
// Variable-time declarations (src/ct/vartime.ts) as the checker reads them: the functions that
// no call path from another export reaches, except through a declared helper, handle public
// data only; in them every value is public (so they may branch on their data), and they report
// no violation.

import type { Expr, Local, Stmt } from './ir.js';
import { Func, type Module } from './func.js';

export interface Taint {
  /** whether local or parameter l holds secrets */
  local(l: Local): boolean;
  /** whether function f's results are secret */
  result(f: Func): boolean;
  /** whether the value of e (in its function) is secret */
  expr(e: Expr): boolean;
  /** rule violations ("function: what"), empty for a module the printer may print */
  violations: string[];
}

const isLoad = (op: string) => /\.load/.test(op);
const isStore = (op: string) => /\.store/.test(op);

/** Variable-time declarations of a module: exports (by export name) whose callers pass public
 * data only, and helpers (by function name) that handle public data only, whoever calls them. */
export interface VarTimeNames {
  exports: readonly string[];
  helpers: readonly string[];
}

/** The functions of m's call graph that only variable-time exports reach, or only through helpers. */
export function varTimeFunctions(m: Module, vt: VarTimeNames): Set<Func> {
  const funcs = m.funcs;
  const helpers = new Set(funcs.filter((f) => vt.helpers.includes(f.name) || (f.exportName !== undefined && vt.helpers.includes(f.exportName))));
  for (const e of m.exports) if (vt.helpers.includes(e.name)) helpers.add(e.func);
  const roots: Func[] = [];
  for (const f of funcs) if (f.exportName && !vt.exports.includes(f.exportName)) roots.push(f);
  for (const e of m.exports) if (!vt.exports.includes(e.name)) roots.push(e.func);
  const callees = (f: Func): Func[] => {
    const out: Func[] = [];
    const walk = (e: Expr) => {
      if (e.op === 'call' && e.ref instanceof Func) out.push(e.ref);
      for (const a of e.args) walk(a);
      for (const x of e.body ?? []) walk(x);
      for (const x of e.orelse ?? []) walk(x);
    };
    for (const s of f.body) walk(s);
    return out;
  };
  const reached = new Set<Func>();
  const queue = roots.filter((f) => !helpers.has(f));
  for (const f of queue) reached.add(f);
  while (queue.length) {
    for (const g of callees(queue.pop()!)) {
      if (!reached.has(g) && !helpers.has(g)) {
        reached.add(g);
        queue.push(g);
      }
    }
  }
  return new Set(funcs.filter((f) => !reached.has(f)));
}

export function analyse(m: Module, vt: VarTimeNames = { exports: [], helpers: [] }): Taint {
  const funcs = m.funcs;
  const exported = new Map<Func, readonly number[]>();
  for (const f of funcs) if (f.exportName) exported.set(f, f.publicParams);
  for (const e of m.exports) exported.set(e.func, e.publicParams);
  // with no declaration, no function is exempt (an unexported function no export reaches is
  // dead code, and keeps the default rules)
  const exempt = vt.exports.length || vt.helpers.length ? varTimeFunctions(m, vt) : new Set<Func>();
  for (const f of exempt) exported.delete(f);

  const secretLocal = new Set<Local>();
  const secretResult = new Set<Func>();
  for (const [f, pub] of exported)
    f.params.forEach((l, i) => {
      if (!pub.includes(i)) secretLocal.add(l);
    });

  let changed = true;
  const mark = (l: Local) => {
    if (!secretLocal.has(l)) {
      secretLocal.add(l);
      changed = true;
    }
  };
  const markResult = (f: Func) => {
    if (!secretResult.has(f)) {
      secretResult.add(f);
      changed = true;
    }
  };

  // the value taint of e (and, for the statements inside it, their effects on the state)
  const val = (e: Expr, f: Func): boolean => {
    if (e.kind === 'comment' || exempt.has(f)) return false;
    if (e.kind === 'block' || e.kind === 'loop') {
      body(e.body!, f);
      return false;
    }
    if (e.kind === 'if') {
      val(e.args[0], f);
      const a = body(e.body!, f);
      const b = e.orelse ? body(e.orelse, f) : false;
      return a || b;
    }
    const args = e.args.map((a) => val(a, f));
    const any = args.some(Boolean);
    const r = e.ref;
    switch (e.op) {
      case 'local.get':
        return secretLocal.has(r as Local);
      case 'local.set':
      case 'local.tee':
        if (args.length && args[0]) mark(r as Local);
        return e.op === 'local.tee' ? secretLocal.has(r as Local) : false;
      case 'call': {
        if (r instanceof Func) {
          r.params.forEach((l, i) => {
            if (args[i]) mark(l);
          });
          return secretResult.has(r);
        }
        return true; // a raw function: its results are unknown, so secret
      }
      case 'return':
        if (any) markResult(f);
        return false;
      case 'i32.const':
      case 'i64.const':
        return false;
      default:
        if (isLoad(e.op)) return true;
        return any;
    }
  };
  // a statement list: pushes value statements on a virtual stack (popped by arg-less local.set,
  // i.e. setMany); returns the taint of what it leaves
  const body = (code: readonly Stmt[], f: Func): boolean => {
    const stack: boolean[] = [];
    for (const s of code) {
      if (s.op === 'local.set' && s.args.length === 0) {
        if (stack.pop()) mark(s.ref as Local);
        continue;
      }
      const t = val(s, f);
      if (s.type === 'multi' && s.ref instanceof Func) for (let i = 0; i < s.ref.results.length; i++) stack.push(t);
      else if (s.type !== 'void') stack.push(t);
    }
    return stack.some(Boolean);
  };
  while (changed) {
    changed = false;
    for (const f of funcs) if (body(f.body, f) && f.results.length) markResult(f);
  }

  // violations, with the final taint
  const violations: string[] = [];
  const owner = new Map<Expr, Func>();
  const own = (e: Expr, f: Func): void => {
    owner.set(e, f);
    for (const a of e.args) own(a, f);
    for (const x of e.body ?? []) own(x, f);
    for (const x of e.orelse ?? []) own(x, f);
  };
  for (const f of exempt) for (const s of f.body) own(s, f);
  const expr = (e: Expr): boolean => {
    if (owner.has(e)) return false; // in a variable-time function: public
    if (e.kind === 'op') {
      if (e.op === 'local.get' || e.op === 'local.tee') return secretLocal.has(e.ref as Local);
      if (e.op === 'call') return e.ref instanceof Func ? secretResult.has(e.ref) : true;
      if (e.op === 'i32.const' || e.op === 'i64.const') return false;
      if (isLoad(e.op)) return true;
      return e.args.some(expr);
    }
    if (e.kind === 'if') return [...(e.body ?? []), ...(e.orelse ?? [])].some((s) => s.type !== 'void' && expr(s));
    return false;
  };
  const check = (e: Expr, f: Func): void => {
    const v = (what: string) => violations.push(`${f.name}: ${what} (${e.op})`);
    if (e.kind === 'if' && expr(e.args[0])) v('secret branch condition');
    if (e.op === 'br_if' && expr(e.args[0])) v('secret branch condition');
    if (e.op === 'select' && expr(e.args[2])) v('secret select condition');
    if ((isLoad(e.op) || isStore(e.op)) && expr(e.args[0])) v('secret address');
    if ((e.op === 'memory.fill' && (expr(e.args[0]) || expr(e.args[2]))) || (e.op === 'memory.copy' && e.args.some(expr))) v('secret address or length');
    if (/\.(div|rem)_[su]$/.test(e.op) && e.args.some(expr)) v('secret operand of a division');
    if (/\.(clz|ctz|popcnt)$/.test(e.op) && expr(e.args[0])) v('secret operand of a bit count');
    for (const a of e.args) check(a, f);
    for (const s of e.body ?? []) check(s, f);
    for (const s of e.orelse ?? []) check(s, f);
  };
  for (const f of funcs) if (!exempt.has(f)) for (const s of f.body) check(s, f);

  return {
    local: (l) => secretLocal.has(l),
    result: (f) => secretResult.has(f),
    expr,
    violations,
  };
}

// The one printer of the kernel builder: WAT in folded form, one statement per line (a longer
// expression broken over lines, one operand per line), control structures indented. It also
// checks what the text format would leave to the assembler's error messages: every local a
// function reads or writes is its own, every branch targets an enclosing label, every callee is
// a function of the module.

import { type Expr, Label, Local, type Stmt } from './ir.js';
import type { Func, Module } from './func.js';

/** Lines longer than this are broken at their operands. */
const WIDTH = 120;

interface Ctx {
  func: Func;
  labels: Label[];
  callees: ReadonlySet<Func>;
}

function check(e: Expr, c: Ctx): void {
  const r = e.ref;
  if (r instanceof Local) {
    if (r.scope !== c.func) throw new Error(`${c.func.name}: local $${r.name} belongs to ${r.scope.name}`);
  } else if (r instanceof Label) {
    if (e.kind === 'op' && !c.labels.includes(r)) throw new Error(`${c.func.name}: branch to $${r.name} outside its block`);
  } else if (r && e.op === 'call' && !c.callees.has(r as Func)) {
    throw new Error(`${c.func.name}: calls $${r.name}, which is not in the module`);
  }
}

/** One line, or undefined when e cannot be printed on one line (it holds a comment). */
function flat(e: Expr, c: Ctx): string | undefined {
  check(e, c);
  if (e.kind === 'comment') return undefined;
  const imm = e.imm ? ' ' + e.imm : '';
  const args: string[] = [];
  for (const a of e.args) {
    const s = flat(a, c);
    if (s === undefined) return undefined;
    args.push(' ' + s);
  }
  if (e.kind === 'op') return `(${e.op}${imm}${args.join('')})`;
  const lab = e.ref instanceof Label ? ` $${e.ref.name}` : '';
  const seq = (body: readonly Stmt[]) => {
    const out: string[] = [];
    for (const s of body) {
      const t = flat(s, c);
      if (t === undefined) return undefined;
      out.push(' ' + t);
    }
    return out.join('');
  };
  if (e.kind === 'if') {
    const then = seq(e.body!);
    const orelse = e.orelse ? seq(e.orelse) : '';
    if (then === undefined || orelse === undefined) return undefined;
    return `(if${imm}${args.join('')} (then${then})${e.orelse ? ` (else${orelse})` : ''})`;
  }
  if (e.ref instanceof Label) c.labels.push(e.ref);
  const body = seq(e.body!);
  if (e.ref instanceof Label) c.labels.pop();
  return body === undefined ? undefined : `(${e.kind}${lab}${body})`;
}

function lines(e: Expr, ind: string, c: Ctx, out: string[]): void {
  if (e.kind === 'comment') {
    out.push(`${ind};; ${e.imm}`.trimEnd());
    return;
  }
  const small = e.kind === 'op' || (e.body!.length + (e.orelse?.length ?? 0) <= 1 && !(e.kind === 'if' && e.orelse));
  if (small) {
    const one = flat(e, c);
    if (one !== undefined && ind.length + one.length <= WIDTH) {
      out.push(ind + one);
      return;
    }
  }
  check(e, c);
  const imm = e.imm ? ' ' + e.imm : '';
  const inner = ind + '  ';
  if (e.kind === 'op') {
    out.push(`${ind}(${e.op}${imm}`);
    for (const a of e.args) lines(a, inner, c, out);
    out[out.length - 1] += ')';
    return;
  }
  if (e.kind === 'if') {
    const cond = flat(e.args[0], c) ?? '(…)';
    out.push(`${ind}(if${imm} ${cond} (then`);
    for (const s of e.body!) lines(s, inner, c, out);
    if (e.orelse) {
      out.push(`${ind}) (else`);
      for (const s of e.orelse) lines(s, inner, c, out);
    }
    out.push(`${ind}))`);
    return;
  }
  const lab = e.ref instanceof Label ? ` $${e.ref.name}` : '';
  if (e.ref instanceof Label) c.labels.push(e.ref);
  out.push(`${ind}(${e.kind}${lab}`);
  for (const s of e.body!) lines(s, inner, c, out);
  out.push(`${ind})`);
  if (e.ref instanceof Label) c.labels.pop();
}

/** Space-separated items on lines of at most WIDTH characters. */
function wrap(items: string[], ind: string, first: string): string[] {
  const out: string[] = [];
  let cur = first;
  for (const it of items) {
    if (cur.length > ind.length && cur.length + 1 + it.length > WIDTH) {
      out.push(cur);
      cur = ind + it;
    } else cur += (cur.length > ind.length || cur !== ind ? ' ' : '') + it;
  }
  if (cur.trim()) out.push(cur);
  return out;
}

/** A comment, broken at spaces to fit WIDTH (continuation lines indented). */
function commentLines(text: string, ind: string): string[] {
  const out: string[] = [];
  let cur = `${ind};;`;
  for (const word of text.split(' ')) {
    if (cur.length + 1 + word.length > WIDTH && cur.length > ind.length + 4) {
      out.push(cur);
      cur = `${ind};;  `;
    }
    cur += ' ' + word;
  }
  out.push(cur.trimEnd());
  return out;
}

export function printFunc(f: Func, ind: string, callees: ReadonlySet<Func>): string[] {
  const out: string[] = f.doc.flatMap((d) => commentLines(d, ind));
  const head = [`(func $${f.name}`, ...(f.exportName ? [`(export "${f.exportName}")`] : []), ...f.params.map((l) => `(param $${l.name} ${l.type})`), ...(f.results.length ? [`(result ${f.results.join(' ')})`] : [])];
  out.push(...wrap(head.slice(1), ind + '    ', ind + head[0]));
  const inner = ind + '  ';
  if (f.declared.length)
    out.push(
      ...wrap(
        f.declared.map((l) => `(local $${l.name} ${l.type})`),
        inner,
        inner,
      ),
    );
  const c: Ctx = { func: f, labels: [], callees };
  for (const s of f.body) lines(s, inner, c, out);
  out.push(`${ind})`);
  return out;
}

export function printModule(m: Module): string {
  const callees = new Set<Func>(m.funcs.concat(m.exports.map((e) => e.func)));
  const out: string[] = m.header.map((h) => `;; ${h}`.trimEnd());
  out.push('(module');
  out.push(`  (memory${m.memoryExport ? ` (export "${m.memoryExport}")` : ''} ${m.memoryPages})`);
  for (const d of m.data) {
    // 16 bytes per line: a segment's strings are concatenated
    const hex = (b: number) => '\\' + (b & 0xff).toString(16).padStart(2, '0');
    out.push(`  (data (i32.const ${d.offset})`);
    for (let i = 0; i < d.bytes.length; i += 16)
      out.push(
        `    "${d.bytes
          .slice(i, i + 16)
          .map(hex)
          .join('')}"`,
      );
    out[out.length - 1] += ')';
  }
  for (const g of m.globals) out.push(`  (global (export "${g.exportName}") ${g.type} (${g.type}.const ${g.value}))`);
  for (const f of m.funcs) out.push(...printFunc(f, '  ', callees));
  for (const e of m.exports) out.push(`  (export "${e.name}" (func $${e.func.name}))`);
  out.push(')', '');
  return out.join('\n');
}

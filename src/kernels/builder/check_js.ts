// The check over a JavaScript kernel as printed (print_js.ts), on its own: it reads the source,
// not the IR. The printer names every variable by its taint (s_… secret, p_… public) and writes
// one statement per line inside each `function f_…`; this check re-derives what is secret from
// those names and from memory reads (M[…], DV.get…: all of memory is secret), and fails on
//   - a condition (`if (…)`) that holds a secret name or a memory read: a branch or early exit
//     (return, break, continue) on a secret;
//   - an address (the index of M[…], the first argument of DV.get/set, the ranges of M.fill and
//     M.copyWithin) that holds a secret or a memory read;
//   - a comparison, equality, `!`, `?:`, `&&`, `||`, `/` or `%` in a statement that touches a
//     secret (the JIT may branch on a boolean; secrets are compared with arithmetic);
//   - a secret flowing into a public name: an assignment, an argument for a public parameter, or
//     a call of a function whose return value is secret assigned to a public name;
//   - a call of anything but Math.imul, the module's own functions and the memory's methods in
//     a statement that touches a secret.
// Variable-time declarations, as the printer writes them at the top (VARTIME_MARK: exports
// whose callers pass public data, helpers that handle public data), exempt the functions that
// no other export reaches in the source's own call graph, except through a helper — the
// checker's rule (src/ct/check.ts); varTimeExempt() lists them.

import { VARTIME_MARK } from './print_js.js';

export interface JsViolation {
  func: string;
  line: number;
  rule: 'branch' | 'address' | 'compare' | 'flow' | 'call';
  text: string;
}

const SECRET = /\bs_[\w$]+/;
const MEMREAD = /\bM\[|\bDV\.get/;

/** The text inside the bracket that opens at s[i] ('(' or '['), and the index after it. */
function inside(s: string, i: number): [string, number] {
  const open = s[i],
    close = open === '(' ? ')' : ']';
  let depth = 0;
  for (let j = i; j < s.length; j++) {
    if (s[j] === open) depth++;
    else if (s[j] === close && --depth === 0) return [s.slice(i + 1, j), j + 1];
  }
  throw new Error(`unbalanced ${open} in: ${s}`);
}

/** Top-level comma-separated parts. */
function splitArgs(s: string): string[] {
  const out: string[] = [];
  let depth = 0,
    start = 0;
  for (let j = 0; j < s.length; j++) {
    const c = s[j];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      out.push(s.slice(start, j));
      start = j + 1;
    }
  }
  out.push(s.slice(start));
  return out.map((x) => x.trim());
}

/** Top-level statements of a line (split at ';' outside brackets). */
function statements(line: string): string[] {
  const out: string[] = [];
  let depth = 0,
    start = 0;
  for (let j = 0; j < line.length; j++) {
    const c = line[j];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === ';' && depth === 0) {
      out.push(line.slice(start, j));
      start = j + 1;
    }
  }
  out.push(line.slice(start));
  return out.map((x) => x.trim()).filter(Boolean);
}

interface Fn {
  name: string;
  params: string[];
  body: { text: string; line: number }[];
}

function functions(src: string): Fn[] {
  const lines = src.split('\n');
  const out: Fn[] = [];
  let cur: Fn | undefined;
  lines.forEach((l, i) => {
    const m = /^ {2}function (f_[\w$]+)\(([^)]*)\)/.exec(l);
    if (m) {
      cur = {
        name: m[1],
        params: m[2]
          .split(',')
          .map((p) => p.split(':')[0].trim())
          .filter(Boolean),
        body: [],
      };
      out.push(cur);
      return;
    }
    if (cur && /^ {2}\}$/.test(l)) {
      cur = undefined;
      return;
    }
    if (cur) {
      const t = l.trim();
      if (t && !t.startsWith('//')) cur.body.push({ text: t, line: i + 1 });
    }
  });
  return out;
}

const MARK = VARTIME_MARK; // the printer's line (print_js.ts)

/** The functions (f_…) that the source's variable-time declarations exempt (see the header). */
export function varTimeExempt(src: string): Set<string> {
  const mark = src.split('\n').find((l) => l.startsWith(MARK));
  if (!mark) return new Set();
  const m = /exports (\S.*?); helpers (\S.*)$/.exec(mark.slice(MARK.length));
  if (!m) throw new Error(`check_js: malformed declaration line: ${mark}`);
  const names = (x: string) => (x === '-' ? [] : x.trim().split(/\s+/));
  const [vtExports, helperNames] = [names(m[1]), names(m[2])];
  const fns = functions(src);
  // the exports block: `name: f_x,` or `name: (…) => … f_x(…) …,`
  const exportsOf = new Map<string, string>();
  const at = src.lastIndexOf('\n  return {');
  for (const l of at < 0 ? [] : src.slice(at).split('\n')) {
    const e = /^ {4}([\w$]+): .*?\b(f_[\w$]+)\b/.exec(l);
    if (e) exportsOf.set(e[1], e[2]);
  }
  const helpers = new Set(helperNames.map((h) => exportsOf.get(h) ?? `f_${h.replace(/\./g, '$')}`));
  const calls = new Map(fns.map((f) => [f.name, new Set(f.body.flatMap((b) => [...b.text.matchAll(/\b(f_[\w$]+)\(/g)].map((x) => x[1])))]));
  const queue = [...exportsOf].filter(([n, f]) => !vtExports.includes(n) && !helpers.has(f)).map(([, f]) => f);
  const reached = new Set(queue);
  while (queue.length) {
    for (const g of calls.get(queue.pop()!) ?? [])
      if (!reached.has(g) && !helpers.has(g)) {
        reached.add(g);
        queue.push(g);
      }
  }
  return new Set(fns.map((f) => f.name).filter((n) => !reached.has(n)));
}

export function checkJs(src: string): JsViolation[] {
  const exempt = varTimeExempt(src);
  const fns = functions(src).filter((f) => !exempt.has(f.name));
  const byName = new Map(fns.map((f) => [f.name, f]));
  // functions whose return value is secret: a return of a secret or a memory read, or of a call of one
  const secretReturn = new Set<string>();
  const isSecret = (e: string): boolean => SECRET.test(e) || MEMREAD.test(e) || [...e.matchAll(/\b(f_[\w$]+)\(/g)].some((m) => secretReturn.has(m[1]));
  for (let changed = true; changed; ) {
    changed = false;
    for (const f of fns) {
      if (secretReturn.has(f.name)) continue;
      if (f.body.some((b) => statements(b.text).some((s) => /^return\b/.test(s) && isSecret(s.slice(6))))) {
        secretReturn.add(f.name);
        changed = true;
      }
    }
  }

  const out: JsViolation[] = [];
  for (const f of fns) {
    for (const { text, line } of f.body) {
      const v = (rule: JsViolation['rule']) => out.push({ func: f.name, line, rule, text });
      // conditions
      for (const m of text.matchAll(/\bif \(/g)) {
        const [cond] = inside(text, m.index! + 3);
        if (isSecret(cond)) v('branch');
      }
      // addresses
      for (const m of text.matchAll(/\bM\[/g)) {
        const [idx] = inside(text, m.index! + 1);
        if (isSecret(idx)) v('address');
      }
      for (const m of text.matchAll(/\bDV\.(get|set)\w+\(/g)) {
        const [args] = inside(text, m.index! + m[0].length - 1);
        if (isSecret(splitArgs(args)[0])) v('address');
      }
      for (const m of text.matchAll(/\bM\.(fill|copyWithin)\(/g)) {
        const [args] = inside(text, m.index! + m[0].length - 1);
        const a = splitArgs(args);
        if ((m[1] === 'fill' ? a.slice(1) : a).some(isSecret)) v('address');
      }
      for (const s of statements(text)) {
        const body = s.replace(/^if \(.*?\) (break|continue)\b.*$/, '');
        if (!isSecret(body)) continue;
        // comparisons and short circuits, once the shifts and arrows are gone
        const ops = body.replace(/>>>=?|>>=?|<<=?|=>/g, ' ').replace(/[!=]==?|[<>]=?|&&|\|\||\?|!|\/|%/g, (x) => `\u0000${x}`);
        if (ops.includes('\u0000')) v('compare');
        // calls other than the arithmetic, the module's own functions and memory's methods
        for (const m of body.matchAll(/([\w$.]+)\(/g)) {
          const callee = m[1];
          if (!/^(Math\.imul|f_[\w$]+|DV\.(get|set)Int32|M\.(fill|copyWithin))$/.test(callee) && callee !== 'if') v('call');
        }
        // a secret into a public name
        const asg = /^(p_[\w$]+) = (.*)$/.exec(s);
        if (asg && isSecret(asg[2])) v('flow');
        // a secret argument for a public parameter
        for (const m of s.matchAll(/\b(f_[\w$]+)\(/g)) {
          const callee = byName.get(m[1]);
          if (!callee) continue;
          const [args] = inside(s, m.index! + m[0].length - 1);
          splitArgs(args).forEach((a, i) => {
            if (callee.params[i]?.startsWith('p_') && isSecret(a)) v('flow');
          });
        }
      }
    }
  }
  return out;
}

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
  const open = s[i], close = open === '(' ? ')' : ']';
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
  let depth = 0, start = 0;
  for (let j = 0; j < s.length; j++) {
    const c = s[j];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === ',' && depth === 0) { out.push(s.slice(start, j)); start = j + 1; }
  }
  out.push(s.slice(start));
  return out.map((x) => x.trim());
}

/** Top-level statements of a line (split at ';' outside brackets). */
function statements(line: string): string[] {
  const out: string[] = [];
  let depth = 0, start = 0;
  for (let j = 0; j < line.length; j++) {
    const c = line[j];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === ';' && depth === 0) { out.push(line.slice(start, j)); start = j + 1; }
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
      cur = { name: m[1], params: m[2].split(',').map((p) => p.split(':')[0].trim()).filter(Boolean), body: [] };
      out.push(cur);
      return;
    }
    if (cur && /^ {2}\}$/.test(l)) { cur = undefined; return; }
    if (cur) {
      const t = l.trim();
      if (t && !t.startsWith('//')) cur.body.push({ text: t, line: i + 1 });
    }
  });
  return out;
}

export function checkJs(src: string): JsViolation[] {
  const fns = functions(src);
  const byName = new Map(fns.map((f) => [f.name, f]));
  // functions whose return value is secret: a return of a secret or a memory read, or of a call of one
  const secretReturn = new Set<string>();
  const isSecret = (e: string): boolean => SECRET.test(e) || MEMREAD.test(e) || [...e.matchAll(/\b(f_[\w$]+)\(/g)].some((m) => secretReturn.has(m[1]));
  for (let changed = true; changed;) {
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
          splitArgs(args).forEach((a, i) => { if (callee.params[i]?.startsWith('p_') && isSecret(a)) v('flow'); });
        }
      }
    }
  }
  return out;
}

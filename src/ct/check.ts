// Constant-time checker over the final WebAssembly binary (the bytes that run).
//
// Rules. Every exported function declares its public parameters (the `ctkit.ct` custom section,
// section.ts, or the caller's options); all other parameters and ALL of linear memory are
// secret. A secret value must never reach:
//   branch         the condition of `if`, `br_if`, or the index of `br_table`;
//   select         the condition of `select` (untyped or typed);
//   address        the address of any memory access (scalar, v128, lane, splat/extend/zero
//                  loads, atomics), the address/length operands of memory.fill/copy/init, the
//                  memory.grow delta, or a table index/length (table.get/set/fill/copy/init/grow);
//   divrem         either operand of i32/i64 div_s, div_u, rem_s, rem_u;
//   float          any input of a floating-point instruction (f32/f64/f32x4/f64x2 arithmetic,
//                  comparison, conversion, reinterpret, lane op), so a float loaded from
//                  memory, being secret, may be moved but not used;
//   bitcount       the operand of i32/i64 clz, ctz, popcnt and i8x16.popcnt (V8 lowers some of
//                  them to a bit scan plus a branch on CPUs without LZCNT/BMI1/POPCNT);
//   atomic         the expected value or the timeout of memory.atomic.wait32/64, the count of
//                  memory.atomic.notify (the time a wait takes, or whom a notify wakes, follows them);
//   call_indirect  the table index of call_indirect / return_call_indirect, or a table whose
//                  contents may be secret: a secret reference stored by table.set/fill/grow or
//                  copied from such a table, or a table imported or exported (the host may
//                  write it);
//   import         an argument of a call to an imported function (the host's timing is not
//                  checked here);
//   callgraph      a function with a violation is reached from an export not declared
//                  variable-time (below): the violation names the call path;
//   declaration    every exported function has a declaration; declarations name existing
//                  exports and in-range parameters; variable-time declarations name existing
//                  functions.
// Allowed on secrets: integer and SIMD integer arithmetic including i64.mul, shifts and
// rotations, i8x16.swizzle (register-only pshufb), v128.bitselect, stores of secret values.
//
// Variable-time code. An export may be declared variable-time (its callers pass only public
// data, e.g. signature verification) and a function may be declared a public-input helper (it
// handles only public data whoever calls it). Exemption follows the call graph, never a name: a
// violation in function F is accepted only when no call path reaches F from a constant-time
// entry point — an export not declared variable-time, the start function, or a function in a
// table or named by ref.func (callable from anywhere) — except through a helper. If F is reached
// both from a variable-time export and from a constant-time entry point, each such entry point
// gets a `callgraph` violation naming the shortest path, besides F's own violations (which
// carry that path too). Code reached from no entry point at all is checked like any other.
//
// Analysis: taint, one bit per value.
//   - Operand stack simulated with a taint bit per value; block/loop/if results and values
//     carried by br/br_if/br_table/return join into their label; loop labels carry back into
//     the loop's parameters (recorded per loop and iterated).
//   - Locals: flow-insensitive. A local is secret if it is a secret parameter or any
//     local.set/local.tee ever writes a secret to it; iterated to a fixpoint per function.
//   - Globals: the same, module-wide. Imported mutable and exported mutable globals are secret
//     (the host may write them); immutable imports and constant initialisers are public.
//   - Tables: one taint bit per table for its contents (see call_indirect above).
//   - Calls, context-insensitive: a parameter is secret if declared secret (exports), if any call
//     site passes a secret, or if the function is address-taken (table, ref.func: callable from
//     anywhere). A result is secret if any value returned or falling through is secret.
//     Results of imported functions and of call_indirect are secret. Whole-module fixpoint.
//   - Constants, memory.size and table.size are public; every value loaded from memory or a
//     table is secret; every other instruction's results are secret iff an operand is.
//   - Unreachable code (after br, br_table, return, unreachable): values popped from below the
//     block's base are public (the polymorphic stack has no real values); the code is still
//     checked. Such code never runs, so this loses nothing.
//   - Variable-time functions are analysed like all others (the taint they pass on counts);
//     only the reporting of their own violations depends on the call graph.
// Why it is sound: every flow of a secret into a value is over-approximated (taint only grows,
// joins are unions, locals/globals/params/tables ignore program order, memory is always
// secret), and implicit flows need no tracking because a branch on a secret is itself a
// violation. So if no rule fires, no secret reaches a branch, address, divider, FPU, bit count,
// wait/notify, indirect call or the host from code that a constant-time entry point can reach.
// Our kernels are straight-line code with public loop counters and pointers, so this coarse
// analysis accepts them without annotations beyond the public parameters.

import { decode, type BlockType, type Instr, type Module } from './decode.js';
import { CT_SECTION, parseCtPayload } from './section.js';
import { varTime, type VarTimeDecl } from './vartime.js';

export type Rule = 'branch' | 'select' | 'address' | 'divrem' | 'float' | 'bitcount' | 'atomic' | 'call_indirect' | 'import' | 'callgraph' | 'declaration';

export interface Violation {
  module: string;
  func: string;
  offset: number; // byte offset in the module of the offending instruction (or section entry)
  rule: Rule;
  detail: string;
  index?: number; // function index, when the violation belongs to a function
  path?: string[]; // call path from a constant-time entry point to `func` (or, for callgraph, to the variable-time function)
}

export interface Report {
  module: string;
  violations: Violation[];
  /** functions whose violations are exempt: reached only from variable-time exports or through helpers */
  exempt: { func: string; reason: string; via: string[] }[];
  /** the variable-time declarations in force (from the options and the ctkit.ct section), each with the functions with violations it reaches */
  declared: { func: string; kind: 'export' | 'helper'; reason: string; covers: string[] }[];
  functions: number; // defined functions checked (exempt ones not counted)
}

export interface CheckOptions {
  /** public-parameter declarations replacing (per export) those of the ctkit.ct section */
  public?: Record<string, number[]>;
  /** true (default): an export without a public-parameter declaration is a violation; false: all its parameters are secret */
  requireDeclarations?: boolean;
}

export function formatViolation(v: Violation): string {
  const where = v.index === undefined ? v.func : `func ${v.func} (#${v.index})`;
  const path = v.path && v.rule !== 'callgraph' ? ` (path: ${v.path.join(' → ')})` : '';
  return `${v.module}: ${where} @0x${v.offset.toString(16)}: ${v.detail} [${v.rule}]${path}`;
}

const isDivRem = (name: string) => /^i(32|64)\.(div|rem)_[su]$/.test(name);
const isFloat = (name: string) => (/^f(32|64)/.test(name) ? !/\.(load|store|const)$/.test(name) : /_f(32|64)/.test(name));
const isBitCount = (name: string) => /^i(32|64)\.(clz|ctz|popcnt)$/.test(name) || name === 'i8x16.popcnt';

interface Frame {
  kind: 'block' | 'loop' | 'if' | 'else' | 'func';
  height: number; // operand stack height at entry (after the block parameters were popped)
  params: boolean[]; // taint of the block parameters
  results: number;
  label: boolean[]; // block/if/func: join of values branched to the end; loop: recorded loop parameters
  dead: boolean; // in unreachable code
}

interface Edge {
  to: number;
  offset: number;
}

export function checkModule(name: string, bytes: Uint8Array, decls: readonly VarTimeDecl[] = varTime, options: CheckOptions = {}): Report {
  if (typeof WebAssembly !== 'undefined' && !WebAssembly.validate(bytes.slice())) {
    throw new Error(`${name}: not a valid WebAssembly module`);
  }
  const m: Module = decode(bytes);
  const imp = m.importedFuncs,
    nf = m.funcTypes.length;
  const type = (f: number) => m.types[m.funcTypes[f]];

  const exportNames = new Map<number, string[]>();
  for (const e of m.exports) if (e.kind === 'func') exportNames.set(e.index, [...(exportNames.get(e.index) ?? []), e.name]);
  const funcName = (f: number) => exportNames.get(f)?.[0] ?? m.names.get(f) ?? `func[${f}]`;
  const importName = (f: number) => {
    const im = m.imports.filter((x) => x.kind === 'func')[f];
    return im ? `${im.module}.${im.name}` : `func[${f}]`;
  };

  const violations: Violation[] = [];
  const inFunc = (f: number, offset: number, rule: Rule, detail: string): Violation => ({ module: name, func: funcName(f), index: f, offset, rule, detail });
  const inModule = (offset: number, detail: string) => violations.push({ module: name, func: '(module)', offset, rule: 'declaration', detail });

  // --- declarations ---
  const declared = new Map<string, Set<number>>(); // export name -> public parameter indices
  const vtDecls: { func: string; kind: 'export' | 'helper'; reason: string; offset: number }[] = decls.filter((d) => d.module === name).map((d) => ({ func: d.func, kind: d.kind, reason: d.reason, offset: 0 }));
  const sections = m.customs.filter((c) => c.name === CT_SECTION);
  const publicDecls: [string, unknown[], number][] = [];
  if (sections.length > 1) inModule(sections[1].offset, `more than one ${CT_SECTION} section`);
  if (sections.length > 0) {
    const parsed = parseCtPayload(sections[0].payload);
    if (typeof parsed === 'string') inModule(sections[0].offset, parsed);
    else {
      for (const [exp, idx] of parsed.public) if (!options.public || !(exp in options.public)) publicDecls.push([exp, idx, sections[0].offset]);
      for (const [func, reason] of parsed.vartime) vtDecls.push({ func, kind: 'export', reason, offset: sections[0].offset });
      for (const [func, reason] of parsed.helpers) vtDecls.push({ func, kind: 'helper', reason, offset: sections[0].offset });
    }
  }
  for (const [exp, idx] of Object.entries(options.public ?? {})) publicDecls.push([exp, idx, 0]);
  for (const [exp, idx, offset] of publicDecls) {
    const e = m.exports.find((x) => x.kind === 'func' && x.name === exp);
    if (!e) {
      inModule(offset, `${CT_SECTION} declares "${exp}", which is not an exported function`);
      continue;
    }
    const n = type(e.index).params.length;
    const ok = (i: unknown): i is number => Number.isInteger(i) && (i as number) >= 0 && (i as number) < n;
    const bad = idx.filter((i) => !ok(i));
    if (bad.length) {
      violations.push(inFunc(e.index, offset, 'declaration', `${CT_SECTION} declares parameter ${bad.map((i) => JSON.stringify(i)).join(', ')} of "${exp}" public, but it has ${n} parameter(s)`));
    }
    declared.set(exp, new Set(idx.filter(ok)));
  }
  if (options.requireDeclarations ?? true) {
    for (const e of m.exports) {
      if (e.kind === 'func' && !declared.has(e.name)) {
        violations.push(inFunc(e.index, e.offset, 'declaration', `exported function "${e.name}" has no public-parameter declaration (${CT_SECTION} section)`));
      }
    }
  }

  // --- variable-time declarations: exports by export name; helpers by any name of a defined function ---
  const vtExportNames = new Map<string, string>(); // export name -> reason
  const helpers = new Map<number, string>(); // function -> reason
  const declLabel = new Map<number, string>(); // function -> declaration name
  for (const d of vtDecls) {
    if (d.kind === 'export') {
      const e = m.exports.find((x) => x.kind === 'func' && x.name === d.func);
      if (!e || e.index < imp) inModule(d.offset, `variable-time declaration names "${d.func}", which is not an exported function of this module`);
      else {
        vtExportNames.set(d.func, d.reason);
        declLabel.set(e.index, d.func);
      }
    } else {
      let found = false;
      for (let f = imp; f < nf; f++) {
        if ([...(exportNames.get(f) ?? []), m.names.get(f), `func[${f}]`].includes(d.func)) {
          helpers.set(f, d.reason);
          declLabel.set(f, d.func);
          found = true;
        }
      }
      if (!found) inModule(d.offset, `public-input helper declaration names "${d.func}", which is not a function of this module`);
    }
  }

  // --- initial taint ---
  const paramSecret = m.funcTypes.map((_, f) => type(f).params.map(() => false));
  const resultSecret = m.funcTypes.map((_, f) => type(f).results.map(() => f < imp)); // host results are secret
  for (const e of m.exports) {
    if (e.kind !== 'func') continue;
    paramSecret[e.index].forEach((_, i) => {
      if (!declared.get(e.name)?.has(i)) paramSecret[e.index][i] = true;
    });
  }
  const addressTaken = new Set<number>();
  const refFuncs = (code: Instr[]) => {
    for (const i of code) if (i.name === 'ref.func') addressTaken.add(i.index!);
  };
  for (const el of m.elements) {
    el.funcs.forEach((f) => addressTaken.add(f));
    el.exprs.forEach(refFuncs);
  }
  m.globals.forEach((g) => refFuncs(g.init));
  m.codes.forEach((c) => refFuncs(c.body));
  for (const f of addressTaken) paramSecret[f].fill(true);

  const globalSecret = m.globalTypes.map((g, i) => i < m.importedGlobals && g.mutable);
  for (const e of m.exports) if (e.kind === 'global' && m.globalTypes[e.index].mutable) globalSecret[e.index] = true;
  m.globals.forEach((g, k) => {
    if (g.init.some((i) => i.name === 'global.get' && globalSecret[i.index!])) globalSecret[m.importedGlobals + k] = true;
  });

  // Table contents: element segments are constants (ref.func, ref.null, immutable globals), so a
  // table starts public unless the host can write it.
  const importedTables = m.imports.filter((x) => x.kind === 'table').length;
  const tableSecret = [...Array(importedTables).fill(true), ...m.tables.map(() => false)];
  for (const e of m.exports) if (e.kind === 'table') tableSecret[e.index] = true;

  // --- whole-module fixpoint ---
  let changed = true;
  let found: Violation[][] = [];
  while (changed) {
    changed = false;
    found = [];
    for (let f = imp; f < nf; f++) found[f] = analyse(f);
  }

  // --- call graph: who may reach each function's violations ---
  const edges: Edge[][] = m.funcTypes.map(() => []);
  for (let f = imp; f < nf; f++) {
    for (const i of m.codes[f - imp].body) {
      if ((i.name === 'call' || i.name === 'return_call') && i.index! >= imp) edges[f].push({ to: i.index!, offset: i.offset });
    }
  }
  /** Breadth-first from `roots`, never entering helpers unless `intoHelpers`; parent links give shortest paths. */
  const bfs = (roots: number[], intoHelpers: boolean) => {
    const parent = new Map<number, { from: number; offset: number } | null>();
    const queue: number[] = [];
    for (const r of roots)
      if (!parent.has(r) && (intoHelpers || !helpers.has(r))) {
        parent.set(r, null);
        queue.push(r);
      }
    while (queue.length) {
      const f = queue.shift()!;
      for (const e of edges[f]) {
        if (parent.has(e.to) || (!intoHelpers && helpers.has(e.to))) continue;
        parent.set(e.to, { from: f, offset: e.offset });
        queue.push(e.to);
      }
    }
    return parent;
  };
  const pathTo = (parent: ReturnType<typeof bfs>, f: number): { path: number[]; firstCall: number | undefined } => {
    const path = [f];
    let firstCall: number | undefined;
    for (let p = parent.get(f); p; p = parent.get(p.from)) {
      path.unshift(p.from);
      firstCall = p.offset;
    }
    return { path, firstCall };
  };

  // Constant-time entry points, with the name a path starts from.
  const ctRoots = new Map<number, string>();
  for (const e of m.exports) {
    if (e.kind === 'func' && e.index >= imp && !vtExportNames.has(e.name) && !helpers.has(e.index)) ctRoots.set(e.index, e.name);
  }
  if (m.start !== null && m.start >= imp && !ctRoots.has(m.start)) ctRoots.set(m.start, `(start) ${funcName(m.start)}`);
  for (const f of addressTaken) if (f >= imp && !ctRoots.has(f)) ctRoots.set(f, `(table) ${funcName(f)}`);
  const vtRoots = new Map<number, string>(); // variable-time export or helper -> declaration name
  for (const e of m.exports) if (e.kind === 'func' && e.index >= imp && vtExportNames.has(e.name)) vtRoots.set(e.index, e.name);
  for (const f of helpers.keys()) vtRoots.set(f, declLabel.get(f)!);

  const ctReach = bfs([...ctRoots.keys()], false);
  const coveredBy = new Map<number, Set<number>>(); // function -> variable-time roots that reach it
  for (const r of vtRoots.keys()) for (const f of bfs([r], true).keys()) coveredBy.set(f, (coveredBy.get(f) ?? new Set()).add(r));
  const perRoot = new Map<number, ReturnType<typeof bfs>>();
  const rootReach = (r: number) => perRoot.get(r) ?? perRoot.set(r, bfs([r], false)).get(r)!;
  /** a path's names: its entry point as an entry point ("(table) f", "(start) f", the export name), then function names */
  const names = (path: number[]) => path.map((g, i) => (i === 0 && ctRoots.has(g) ? ctRoots.get(g)! : funcName(g)));

  const exempt: Report['exempt'] = [];
  const covers = new Map<number, string[]>();
  const inFunctions: Violation[] = [];
  for (let f = imp; f < nf; f++) {
    const v = found[f];
    if (!v.length) continue;
    const cov = coveredBy.get(f);
    for (const r of cov ?? []) covers.set(r, [...(covers.get(r) ?? []), funcName(f)]);
    if (ctReach.has(f)) {
      const { path } = pathTo(ctReach, f);
      for (const x of v) inFunctions.push(path.length > 1 ? { ...x, path: names(path) } : x);
      if (cov) {
        const exemptUnder = [...cov].map((r) => vtRoots.get(r)!).join(', ');
        for (const r of ctRoots.keys()) {
          const reach = rootReach(r);
          if (!reach.has(f)) continue;
          const { path: p, firstCall } = pathTo(reach, f);
          const pathNames = names(p);
          inFunctions.push({
            ...inFunc(
              r,
              firstCall ?? v[0].offset,
              'callgraph',
              `reaches variable-time ${funcName(f)} (${v.length} violation${v.length > 1 ? 's' : ''}: ${[...new Set(v.map((x) => x.rule))].join(', ')}; ` +
                `exempt only on paths from ${exemptUnder}), and ${ctRoots.get(r)} is not declared variable-time: ${pathNames.join(' → ')}`,
            ),
            func: ctRoots.get(r)!,
            path: pathNames,
          });
        }
      }
    } else if (cov) {
      const via = [...cov].map((r) => vtRoots.get(r)!);
      exempt.push({ func: funcName(f), reason: [...cov].map((r) => (helpers.get(r) ?? vtExportNames.get(vtRoots.get(r)!))!).join('; '), via });
    } else {
      inFunctions.push(...v); // reached from no entry point at all: reported all the same
    }
  }
  inFunctions.sort((a, b) => a.offset - b.offset || a.func.localeCompare(b.func));
  violations.push(...inFunctions);

  const declaredOut: Report['declared'] = [...vtRoots].map(([f, label]) => ({
    func: label,
    kind: helpers.has(f) ? 'helper' : 'export',
    reason: (helpers.get(f) ?? vtExportNames.get(label))!,
    covers: covers.get(f) ?? [],
  }));
  return { module: name, violations, exempt, declared: declaredOut, functions: nf - imp - exempt.length };

  /** One function, to its local fixpoint; returns its violations under the current module state. */
  function analyse(f: number): Violation[] {
    const code = m.codes[f - imp];
    const locals = [...paramSecret[f], ...code.locals.map(() => false)];
    const loops = new Map<number, boolean[]>(); // loop offset -> taint carried back to its parameters
    for (;;) {
      const out: Violation[] = [];
      if (!simulate(f, code.body, locals, loops, out)) return out;
    }
  }

  /** One pass over a body. Returns true if a local or loop parameter became secret (run again). */
  function simulate(f: number, body: Instr[], locals: boolean[], loops: Map<number, boolean[]>, out: Violation[]): boolean {
    let grew = false;
    let at: Instr = body[0];
    const stack: boolean[] = [];
    const results = type(f).results.length;
    const frames: Frame[] = [{ kind: 'func', height: 0, params: [], results, label: Array(results).fill(false), dead: false }];
    const top = () => frames[frames.length - 1];

    const pop = (): boolean => {
      if (stack.length > top().height) return stack.pop()!;
      if (top().dead) return false;
      throw new Error(`${name}: operand stack underflow @0x${at.offset.toString(16)}`);
    };
    const popN = (n: number): boolean[] => {
      const v: boolean[] = Array(n);
      for (let k = n - 1; k >= 0; k--) v[k] = pop();
      return v;
    };
    const joinInto = (dst: boolean[], src: boolean[]): boolean => {
      let g = false;
      src.forEach((v, k) => {
        if (v && !dst[k]) {
          dst[k] = true;
          g = true;
        }
      });
      return g;
    };
    const check = (rule: Rule, what: string, ...vals: boolean[]) => {
      if (vals.some(Boolean)) out.push(inFunc(f, at.offset, rule, `secret value reaches ${what}`));
    };
    const taintTable = (t: number, v: boolean) => {
      if (v && !tableSecret[t]) {
        tableSecret[t] = true;
        changed = true;
      }
    };
    const branch = (depth: number) => {
      const fr = frames[frames.length - 1 - depth];
      const vals = popN(fr.kind === 'loop' ? fr.params.length : fr.results);
      stack.push(...vals);
      if (joinInto(fr.label, vals) && fr.kind === 'loop') grew = true;
    };
    const unreachable = () => {
      top().dead = true;
      stack.length = top().height;
    };
    const balanced = (fr: Frame) => {
      // a valid module leaves exactly the results: else our arity table is wrong
      if (!fr.dead && stack.length !== fr.height) {
        throw new Error(`${name}: operand stack mismatch @0x${at.offset.toString(16)} (checker bug)`);
      }
    };
    const arity = (bt: BlockType): [number, number] => (bt === null ? [0, 0] : typeof bt === 'number' ? [m.types[bt].params.length, m.types[bt].results.length] : [0, 1]);

    for (const i of body) {
      at = i;
      switch (i.name) {
        case 'block':
        case 'loop':
        case 'if': {
          const [np, nr] = arity(i.blockType!);
          if (i.name === 'if') check('branch', 'if condition', pop());
          let params = popN(np);
          let label: boolean[] = Array(nr).fill(false);
          if (i.name === 'loop') {
            label = loops.get(i.offset) ?? Array(np).fill(false);
            loops.set(i.offset, label);
            params = params.map((v, k) => v || label[k]);
          }
          frames.push({ kind: i.name, height: stack.length, params, results: nr, label, dead: false });
          stack.push(...params);
          break;
        }
        case 'else': {
          const fr = top();
          joinInto(fr.label, popN(fr.results));
          balanced(fr);
          stack.length = fr.height;
          stack.push(...fr.params);
          fr.kind = 'else';
          fr.dead = false;
          break;
        }
        case 'end': {
          const fr = top();
          let res = popN(fr.results);
          balanced(fr);
          if (fr.kind !== 'loop') res = res.map((v, k) => v || fr.label[k]);
          if (fr.kind === 'if') res = res.map((v, k) => v || fr.params[k]); // no else: parameters pass through
          frames.pop();
          stack.length = fr.height;
          if (fr.kind === 'func') {
            if (joinInto(resultSecret[f], res)) changed = true;
          } else stack.push(...res);
          break;
        }
        case 'br':
          branch(i.index!);
          unreachable();
          break;
        case 'br_if':
          check('branch', 'br_if condition', pop());
          branch(i.index!);
          break;
        case 'br_table':
          check('branch', 'br_table index', pop());
          i.labels!.forEach(branch);
          unreachable();
          break;
        case 'return':
          branch(frames.length - 1);
          unreachable();
          break;
        case 'unreachable':
          unreachable();
          break;
        case 'call':
        case 'return_call': {
          const g = i.index!;
          const args = popN(type(g).params.length);
          if (g < imp) check('import', `an argument of imported ${importName(g)}`, ...args);
          else if (joinInto(paramSecret[g], args)) changed = true;
          stack.push(...resultSecret[g]);
          if (i.name === 'return_call') {
            branch(frames.length - 1);
            unreachable();
          }
          break;
        }
        case 'call_indirect':
        case 'return_call_indirect': {
          const t = m.types[i.index!];
          check('call_indirect', `${i.name} table index`, pop());
          if (tableSecret[i.index2!]) {
            out.push(inFunc(f, i.offset, 'call_indirect', `${i.name} through table ${i.index2}, whose contents may be secret (a secret reference stored, or a table the host can write)`));
          }
          popN(t.params.length); // callees are address-taken: their parameters are already secret
          stack.push(...t.results.map(() => true));
          if (i.name === 'return_call_indirect') {
            branch(frames.length - 1);
            unreachable();
          }
          break;
        }
        case 'local.get':
          stack.push(locals[i.index!]);
          break;
        case 'local.set':
        case 'local.tee': {
          const v = pop();
          if (v && !locals[i.index!]) {
            locals[i.index!] = true;
            grew = true;
          }
          if (i.name === 'local.tee') stack.push(v);
          break;
        }
        case 'global.get':
          stack.push(globalSecret[i.index!]);
          break;
        case 'global.set':
          if (pop() && !globalSecret[i.index!]) {
            globalSecret[i.index!] = true;
            changed = true;
          }
          break;
        default: {
          // Fixed-arity instructions; v[0] is the deepest operand.
          const v = popN(i.op.pop),
            n = i.name;
          let res = v.some(Boolean);
          if (i.memarg) {
            check('address', `${n} address`, v[0]);
            if (n === 'memory.atomic.wait32' || n === 'memory.atomic.wait64') check('atomic', `${n} expected value or timeout`, v[1], v[2]);
            else if (n === 'memory.atomic.notify') check('atomic', `${n} count`, v[1]);
            res = true;
          } else if (n === 'memory.fill') check('address', 'memory.fill address/length', v[0], v[2]);
          else if (n === 'memory.copy' || n === 'memory.init') check('address', `${n} address/length`, ...v);
          else if (n === 'memory.grow') check('address', 'memory.grow delta', v[0]);
          else if (n === 'table.get') {
            check('address', 'table.get index', v[0]);
            res = true;
          } else if (n === 'table.set') {
            check('address', 'table.set index', v[0]);
            taintTable(i.index!, v[1]);
          } else if (n === 'table.fill') {
            check('address', 'table.fill index/length', v[0], v[2]);
            taintTable(i.index!, v[1]);
          } else if (n === 'table.grow') {
            check('address', 'table.grow delta', v[1]);
            taintTable(i.index!, v[0]);
            res = v[1];
          } else if (n === 'table.copy') {
            check('address', `${n} index/length`, ...v);
            taintTable(i.index!, tableSecret[i.index2!]);
          } else if (n === 'table.init') check('address', `${n} index/length`, ...v);
          else if (n === 'select') check('select', 'select condition', v[2]);
          else if (isDivRem(n)) check('divrem', `${n} operand`, ...v);
          else if (isFloat(n)) check('float', `${n} operand`, ...v);
          else if (isBitCount(n)) check('bitcount', `${n} operand`, ...v);
          for (let k = 0; k < i.op.push; k++) stack.push(res);
        }
      }
    }
    return grew;
  }
}

// Constant-time checker over the final WebAssembly binary (the bytes that run).
//
// Rules. Every exported function declares its public parameters in the `ctkit.ct` custom section
// (see section.ts); all other parameters and ALL of linear memory are secret. A secret value
// must never reach:
//   branch         the condition of `if`, `br_if`, or the index of `br_table`;
//   select         the condition of `select` (untyped or typed);
//   address        the address of any memory access (scalar, v128, lane, splat/extend/zero
//                  loads, atomics), the address/length operands of memory.fill/copy/init, the
//                  memory.grow delta, or a table index/length (table.get/set/fill/copy/init/grow);
//   divrem         either operand of i32/i64 div_s, div_u, rem_s, rem_u;
//   float          any input of a floating-point instruction (f32/f64/f32x4/f64x2 arithmetic,
//                  comparison, conversion, reinterpret, lane op), so a float loaded from
//                  memory, being secret, may be moved but not used;
//   call_indirect  the table index of call_indirect / return_call_indirect;
//   declaration    every exported function has a declaration; declarations name existing
//                  exports and in-range parameters; exemptions name existing functions.
// Allowed on secrets: integer and SIMD integer arithmetic including i64.mul, shifts and
// rotations, i8x16.swizzle (register-only pshufb), v128.bitselect, stores of secret values.
//
// Analysis: taint, one bit per value.
//   - Operand stack simulated with a taint bit per value; block/loop/if results and values
//     carried by br/br_if/br_table/return join into their label; loop labels carry back into
//     the loop's parameters (recorded per loop and iterated).
//   - Locals: flow-insensitive. A local is secret if it is a secret parameter or any
//     local.set/local.tee ever writes a secret to it; iterated to a fixpoint per function.
//   - Globals: the same, module-wide. Imported mutable and exported mutable globals are secret
//     (the host may write them); immutable imports and constant initialisers are public.
//   - Calls, context-insensitive: a parameter is secret if declared secret (exports), if any call
//     site passes a secret, or if the function is address-taken (table, ref.func: callable from
//     anywhere). A result is secret if any value returned or falling through is secret.
//     Results of imported functions and of call_indirect are secret. Whole-module fixpoint.
//   - Constants, memory.size and table.size are public; every value loaded from memory or a
//     table is secret; every other instruction's results are secret iff an operand is.
//   - Unreachable code (after br, br_table, return, unreachable): values popped from below the
//     block's base are public (the polymorphic stack has no real values); the code is still
//     checked. Such code never runs, so this loses nothing.
// Why it is sound: every flow of a secret into a value is over-approximated (taint only grows,
// joins are unions, locals/globals/params ignore program order, memory is always secret), and
// implicit flows need no tracking because a branch on a secret is itself a violation. So if no
// rule fires, no secret reaches a branch, address, divider, FPU or indirect call. Our kernels
// are straight-line code with public loop counters and pointers, so this coarse analysis
// accepts them without annotations beyond the public parameters.
//
// Functions on the variable-time list (vartime.ts) are analysed for the taint they propagate
// but their violations are not reported; the report lists them with their reasons.

import { decode, type BlockType, type Instr, type Module } from './decode.js';
import { CT_SECTION, parseCtPayload } from './section.js';
import { varTime } from './vartime.js';

export type Rule = 'branch' | 'select' | 'address' | 'divrem' | 'float' | 'call_indirect' | 'declaration';

export interface Violation {
  module: string;
  func: string;
  offset: number;   // byte offset in the module of the offending instruction (or section entry)
  rule: Rule;
  detail: string;
  index?: number;   // function index, when the violation belongs to a function
}

export interface Report {
  module: string;
  violations: Violation[];
  exempt: { func: string; reason: string }[];
  functions: number;  // defined functions checked (exempt ones not counted)
}

export interface Exemption { module: string; func: string; reason: string }

export function formatViolation(v: Violation): string {
  const where = v.index === undefined ? v.func : `func ${v.func} (#${v.index})`;
  return `${v.module}: ${where} @0x${v.offset.toString(16)}: ${v.detail} [${v.rule}]`;
}

const isDivRem = (name: string) => /^i(32|64)\.(div|rem)_[su]$/.test(name);
const isFloat = (name: string) =>
  /^f(32|64)/.test(name) ? !/\.(load|store|const)$/.test(name) : /_f(32|64)/.test(name);

interface Frame {
  kind: 'block' | 'loop' | 'if' | 'else' | 'func';
  height: number;       // operand stack height at entry (after the block parameters were popped)
  params: boolean[];    // taint of the block parameters
  results: number;
  label: boolean[];     // block/if/func: join of values branched to the end; loop: recorded loop parameters
  dead: boolean;        // in unreachable code
}

export function checkModule(name: string, bytes: Uint8Array, exemptions: readonly Exemption[] = varTime): Report {
  if (typeof WebAssembly !== 'undefined' && !WebAssembly.validate(bytes.slice())) {
    throw new Error(`${name}: not a valid WebAssembly module`);
  }
  const m: Module = decode(bytes);
  const imp = m.importedFuncs, nf = m.funcTypes.length;
  const type = (f: number) => m.types[m.funcTypes[f]];

  const exportNames = new Map<number, string[]>();
  for (const e of m.exports) if (e.kind === 'func') exportNames.set(e.index, [...(exportNames.get(e.index) ?? []), e.name]);
  const funcName = (f: number) => exportNames.get(f)?.[0] ?? m.names.get(f) ?? `func[${f}]`;

  const violations: Violation[] = [];
  const inFunc = (f: number, offset: number, rule: Rule, detail: string): Violation =>
    ({ module: name, func: funcName(f), index: f, offset, rule, detail });
  const inModule = (offset: number, detail: string) =>
    violations.push({ module: name, func: '(module)', offset, rule: 'declaration', detail });

  // --- declarations ---
  const declared = new Map<string, Set<number>>(); // export name -> public parameter indices
  const sections = m.customs.filter((c) => c.name === CT_SECTION);
  if (sections.length > 1) inModule(sections[1].offset, `more than one ${CT_SECTION} section`);
  if (sections.length > 0) {
    const parsed = parseCtPayload(sections[0].payload);
    if (typeof parsed === 'string') inModule(sections[0].offset, parsed);
    else {
      for (const [exp, idx] of parsed) {
        const e = m.exports.find((x) => x.kind === 'func' && x.name === exp);
        if (!e) {
          inModule(sections[0].offset, `${CT_SECTION} declares "${exp}", which is not an exported function`);
          continue;
        }
        const n = type(e.index).params.length;
        const ok = (i: unknown): i is number => Number.isInteger(i) && (i as number) >= 0 && (i as number) < n;
        const bad = idx.filter((i) => !ok(i));
        if (bad.length) {
          violations.push(inFunc(e.index, sections[0].offset, 'declaration',
            `${CT_SECTION} declares parameter ${bad.map((i) => JSON.stringify(i)).join(', ')} of "${exp}" public, but it has ${n} parameter(s)`));
        }
        declared.set(exp, new Set(idx.filter(ok)));
      }
    }
  }
  for (const e of m.exports) {
    if (e.kind === 'func' && !declared.has(e.name)) {
      violations.push(inFunc(e.index, e.offset, 'declaration',
        `exported function "${e.name}" has no public-parameter declaration (${CT_SECTION} section)`));
    }
  }

  // --- exemptions ---
  const exempt = new Map<number, string>();
  const listed: { func: string; reason: string }[] = [];
  for (const x of exemptions.filter((x) => x.module === name)) {
    let found = false;
    for (let f = imp; f < nf; f++) {
      if ([...(exportNames.get(f) ?? []), m.names.get(f), `func[${f}]`].includes(x.func)) {
        exempt.set(f, x.reason);
        found = true;
      }
    }
    if (found) listed.push({ func: x.func, reason: x.reason });
    else inModule(0, `variable-time exemption names "${x.func}", which is not a function of this module`);
  }

  // --- initial taint ---
  const paramSecret = m.funcTypes.map((_, f) => type(f).params.map(() => false));
  const resultSecret = m.funcTypes.map((_, f) => type(f).results.map(() => f < imp)); // host results are secret
  for (const e of m.exports) {
    if (e.kind !== 'func') continue;
    paramSecret[e.index].forEach((_, i) => { if (!declared.get(e.name)?.has(i)) paramSecret[e.index][i] = true; });
  }
  const addressTaken = new Set<number>();
  const refFuncs = (code: Instr[]) => { for (const i of code) if (i.name === 'ref.func') addressTaken.add(i.index!); };
  for (const el of m.elements) { el.funcs.forEach((f) => addressTaken.add(f)); el.exprs.forEach(refFuncs); }
  m.globals.forEach((g) => refFuncs(g.init));
  m.codes.forEach((c) => refFuncs(c.body));
  for (const f of addressTaken) paramSecret[f].fill(true);

  const globalSecret = m.globalTypes.map((g, i) => i < m.importedGlobals && g.mutable);
  for (const e of m.exports) if (e.kind === 'global' && m.globalTypes[e.index].mutable) globalSecret[e.index] = true;
  m.globals.forEach((g, k) => {
    if (g.init.some((i) => i.name === 'global.get' && globalSecret[i.index!])) globalSecret[m.importedGlobals + k] = true;
  });

  // --- whole-module fixpoint ---
  let changed = true;
  let found: Violation[] = [];
  while (changed) {
    changed = false;
    found = [];
    for (let f = imp; f < nf; f++) {
      const v = analyse(f);
      if (!exempt.has(f)) found.push(...v);
    }
  }
  found.sort((a, b) => a.offset - b.offset);
  violations.push(...found);
  return { module: name, violations, exempt: listed, functions: nf - imp - exempt.size };

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
      src.forEach((v, k) => { if (v && !dst[k]) { dst[k] = true; g = true; } });
      return g;
    };
    const check = (rule: Rule, what: string, ...vals: boolean[]) => {
      if (vals.some(Boolean)) out.push(inFunc(f, at.offset, rule, `secret value reaches ${what}`));
    };
    const branch = (depth: number) => {
      const fr = frames[frames.length - 1 - depth];
      const vals = popN(fr.kind === 'loop' ? fr.params.length : fr.results);
      stack.push(...vals);
      if (joinInto(fr.label, vals) && fr.kind === 'loop') grew = true;
    };
    const unreachable = () => { top().dead = true; stack.length = top().height; };
    const balanced = (fr: Frame) => { // a valid module leaves exactly the results: else our arity table is wrong
      if (!fr.dead && stack.length !== fr.height) {
        throw new Error(`${name}: operand stack mismatch @0x${at.offset.toString(16)} (checker bug)`);
      }
    };
    const arity = (bt: BlockType): [number, number] =>
      bt === null ? [0, 0] : typeof bt === 'number' ? [m.types[bt].params.length, m.types[bt].results.length] : [0, 1];

    for (const i of body) {
      at = i;
      switch (i.name) {
        case 'block': case 'loop': case 'if': {
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
          if (fr.kind === 'func') { if (joinInto(resultSecret[f], res)) changed = true; }
          else stack.push(...res);
          break;
        }
        case 'br': branch(i.index!); unreachable(); break;
        case 'br_if': check('branch', 'br_if condition', pop()); branch(i.index!); break;
        case 'br_table': check('branch', 'br_table index', pop()); i.labels!.forEach(branch); unreachable(); break;
        case 'return': branch(frames.length - 1); unreachable(); break;
        case 'unreachable': unreachable(); break;
        case 'call': case 'return_call': {
          const g = i.index!;
          if (joinInto(paramSecret[g], popN(type(g).params.length)) && g >= imp) changed = true;
          stack.push(...resultSecret[g]);
          if (i.name === 'return_call') { branch(frames.length - 1); unreachable(); }
          break;
        }
        case 'call_indirect': case 'return_call_indirect': {
          const t = m.types[i.index!];
          check('call_indirect', `${i.name} table index`, pop());
          popN(t.params.length); // callees are address-taken: their parameters are already secret
          stack.push(...t.results.map(() => true));
          if (i.name === 'return_call_indirect') { branch(frames.length - 1); unreachable(); }
          break;
        }
        case 'local.get': stack.push(locals[i.index!]); break;
        case 'local.set': case 'local.tee': {
          const v = pop();
          if (v && !locals[i.index!]) { locals[i.index!] = true; grew = true; }
          if (i.name === 'local.tee') stack.push(v);
          break;
        }
        case 'global.get': stack.push(globalSecret[i.index!]); break;
        case 'global.set': if (pop() && !globalSecret[i.index!]) { globalSecret[i.index!] = true; changed = true; } break;
        default: {
          // Fixed-arity instructions; v[0] is the deepest operand.
          const v = popN(i.op.pop), n = i.name;
          let res = v.some(Boolean);
          if (i.memarg) { check('address', `${n} address`, v[0]); res = true; }
          else if (n === 'memory.fill') check('address', 'memory.fill address/length', v[0], v[2]);
          else if (n === 'memory.copy' || n === 'memory.init') check('address', `${n} address/length`, ...v);
          else if (n === 'memory.grow') check('address', 'memory.grow delta', v[0]);
          else if (n === 'table.get') { check('address', 'table.get index', v[0]); res = true; }
          else if (n === 'table.set') check('address', 'table.set index', v[0]);
          else if (n === 'table.fill') check('address', 'table.fill index/length', v[0], v[2]);
          else if (n === 'table.copy' || n === 'table.init') check('address', `${n} index/length`, ...v);
          else if (n === 'table.grow') check('address', 'table.grow delta', v[1]);
          else if (n === 'select') check('select', 'select condition', v[2]);
          else if (isDivRem(n)) check('divrem', `${n} operand`, ...v);
          else if (isFloat(n)) check('float', `${n} operand`, ...v);
          for (let k = 0; k < i.op.push; k++) stack.push(res);
        }
      }
    }
    return grew;
  }
}

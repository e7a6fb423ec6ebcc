// `ctkit ct-check`: the constant-time checker (src/ct/check.ts) on any WebAssembly binary, or
// with --shipped on ctkit's own modules with their declarations (src/ct/vartime.ts); `npm run ct`
// is `ctkit ct-check --shipped`. Prints one line per violation (module, function, offset, rule,
// and the call path for code reached from a constant-time entry point) and the variable-time
// declarations with what they cover. Exit status 1 when a module has a violation or cannot be
// checked, 0 when every module is clean, 2 for a usage error (bad option, unreadable file, not
// WebAssembly).

import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import { Failure, UsageError } from './errors.js';
import type { Report } from '../ct/check.js';
import type { VarTimeDecl } from '../ct/vartime.js';

export interface CtCheckArgs {
  files: string[];
  public: string[]; // "<export>=<i,j,…>"
  vartime: string[]; // export names
  helpers: string[]; // function names
  shipped: boolean;
  json: boolean;
  summary?: boolean; // one line per function instead of one per violation
}

/** "<export>=<i,j,…>" → [export, indices]; the export name may itself contain '='. */
export function parsePublic(arg: string): [string, number[]] {
  const at = arg.lastIndexOf('=');
  if (at <= 0) throw new UsageError(`--public takes <export>=<i,j,…> (parameter indices from 0, possibly none), got '${arg}'`);
  const list = arg.slice(at + 1).trim();
  const idx = list === '' ? [] : list.split(',').map((s) => s.trim());
  const bad = idx.filter((s) => !/^\d{1,4}$/.test(s));
  if (bad.length) throw new UsageError(`--public ${arg}: parameter indices are non-negative integers (got ${bad.map((s) => `'${s}'`).join(', ')})`);
  return [arg.slice(0, at), idx.map(Number)];
}

interface Checked {
  name: string;
  report?: Report;
  error?: string;
  undeclared?: number;
}

/**
 * Runs the checker as the command does, writing the report through `out`. Returns the exit
 * status (0 clean, 1 a violation or a module that cannot be checked); throws UsageError.
 */
export async function ctCheck(a: CtCheckArgs, out: (line: string) => void): Promise<number> {
  const { checkModule, formatViolation } = await import('../ct/check.js');
  const { CT_SECTION } = await import('../ct/section.js');
  const { decode } = await import('../ct/decode.js');
  const publicDecl: Record<string, number[]> = {};
  for (const p of a.public) {
    const [name, idx] = parsePublic(p);
    if (name in publicDecl) throw new UsageError(`--public ${name} given twice`);
    publicDecl[name] = idx;
  }

  const jobs: { name: string; bytes: Uint8Array; decls: VarTimeDecl[]; strict: boolean }[] = [];
  const cli = (name: string): VarTimeDecl[] => [
    ...a.vartime.map((func): VarTimeDecl => ({ module: name, kind: 'export', func, reason: 'declared variable-time on the command line (--vartime)' })),
    ...a.helpers.map((func): VarTimeDecl => ({ module: name, kind: 'helper', func, reason: 'declared a public-input helper on the command line (--helper)' })),
  ];
  if (a.shipped) {
    const { shipped } = await import('../engine/wasm/all.js');
    const { varTime } = await import('../ct/vartime.js');
    const unknown = a.files.filter((n) => !(n in shipped));
    if (unknown.length) throw new UsageError(`no shipped module named ${unknown.join(', ')} (have: ${Object.keys(shipped).join(', ')})`);
    for (const name of a.files.length ? a.files : Object.keys(shipped)) {
      jobs.push({ name, bytes: shipped[name](), decls: [...varTime, ...cli(name)], strict: true });
    }
  } else {
    if (a.files.length !== 1) throw new UsageError(a.files.length ? 'ct-check takes one module file (or --shipped [names…])' : 'ct-check needs a module file (or --shipped)');
    const file = a.files[0];
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = new Uint8Array(readFileSync(file));
    } catch (e) {
      throw new UsageError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    if (!WebAssembly.validate(bytes)) throw new UsageError(`${file} is not a valid WebAssembly module`);
    const name = basename(file).replace(/\.wasm$/, '');
    jobs.push({ name, bytes, decls: cli(name), strict: false });
  }

  const results: Checked[] = [];
  for (const j of jobs) {
    try {
      const m = decode(j.bytes);
      // A module that carries a ctkit.ct section claims to declare every export: a missing
      // declaration is then a violation. Without one, exports not given --public have every
      // parameter secret (the safe reading), and the report says how many.
      const strict = j.strict || m.customs.some((c) => c.name === CT_SECTION);
      // (funcTypes has the type of every function, imported ones too)
      const undeclared = strict ? undefined : m.exports.filter((e) => e.kind === 'func' && !(e.name in publicDecl) && m.types[m.funcTypes[e.index]].params.length > 0).length;
      const report = checkModule(j.name, j.bytes, j.decls, { public: publicDecl, requireDeclarations: strict });
      results.push({ name: j.name, report, undeclared });
    } catch (e) {
      results.push({ name: j.name, error: (e as Error).message });
    }
  }

  if (a.json) {
    out(
      JSON.stringify(
        results.map((r) => (r.report ? { module: r.name, functions: r.report.functions, violations: r.report.violations, exempt: r.report.exempt, declared: r.report.declared } : { module: r.name, error: r.error })),
        null,
        2,
      ),
    );
  } else {
    for (const r of results) {
      if (!r.report) {
        out(`${r.name}: cannot be checked: ${r.error}`);
        continue;
      }
      const rep = r.report;
      const exempt = rep.exempt.length ? `, ${rep.exempt.length} exempt` : '';
      out(`${r.name}: ${rep.functions} functions checked${exempt}, ${rep.violations.length} violation${rep.violations.length === 1 ? '' : 's'}`);
      if (r.undeclared) out(`  (no ${CT_SECTION} section: ${r.undeclared} export(s) with parameters and no --public taken with every parameter secret)`);
      if (a.summary) {
        const byFunc = new Map<string, typeof rep.violations>();
        for (const v of rep.violations) byFunc.set(v.func, [...(byFunc.get(v.func) ?? []), v]);
        for (const [func, vs] of byFunc) {
          const rules = new Map<string, number>();
          for (const v of vs) rules.set(v.rule, (rules.get(v.rule) ?? 0) + 1);
          const path = vs.find((v) => v.path && v.rule !== 'callgraph')?.path;
          out(`  ${func}: ${[...rules].map(([r, n]) => `${n} ${r}`).join(', ')}, first @0x${vs[0].offset.toString(16)}${path ? ` (path: ${path.join(' → ')})` : ''}`);
        }
      } else {
        for (const v of rep.violations) out(`  ${formatViolation(v)}`);
      }
      for (const d of rep.declared) {
        out(`  variable-time ${d.kind} ${d.func}${d.covers.length ? ` (covers ${d.covers.join(', ')})` : ' (no variable-time code found under it)'}: ${d.reason}`);
      }
    }
    const failing = results.filter((r) => !r.report || r.report.violations.length).length;
    if (results.length > 1) out(`\n${results.length} module(s) checked, ${failing} failing`);
  }
  return results.some((r) => !r.report || r.report.violations.length) ? 1 : 0;
}

export const ctCheckCommand = {
  summary: 'check a WebAssembly module for constant-time violations (secret-dependent branches, addresses, …)',
  usage: 'ctkit ct-check <module.wasm> [--public <export>=<i,j,…>]… [--vartime <export>]… [--helper <func>]… [--summary | --json] | --shipped [name…]',
  details: [
    '  module.wasm                  any WebAssembly binary; its ctkit.ct section, when present, declares',
    "                               each export's public parameters (and variable-time exports)",
    '  --public <export>=<i,j,…>    parameters of <export> that are public (pointers, lengths, counts),',
    '                               from 0; every other parameter and all of linear memory are secret.',
    "                               Replaces the section's declaration for that export. Exports not",
    '                               declared have every parameter secret.',
    '  --vartime <export>           an export whose callers pass only public data (signature verification):',
    '                               variable-time code reached ONLY from such exports is exempt; a path',
    '                               from any other export into it is a violation naming the path',
    '  --helper <func>              a function (export or name-section name) that handles only public',
    '                               data whoever calls it (a table of multiples of a fixed point)',
    "  --shipped [name…]            check ctkit's own modules with their declarations (npm run ct)",
    '  --summary                    one line per function (counts per rule) instead of one per violation',
    '  --json                       print the reports as JSON',
    '',
    'A secret must never reach a branch or select condition, a memory or table address, a divider, a',
    'floating-point operation, clz/ctz/popcnt, a wait/notify operand, an indirect call (its index or a',
    'table holding a secret reference) or an imported function. Rules: README, "The constant-time checker".',
    'Exit status: 0 clean, 1 a violation (or a module the checker cannot decode), 2 usage error.',
    '',
    'examples:',
    '  ctkit ct-check kernel.wasm --public seal=0,1,2 --public open=0,1,2',
    '  ctkit ct-check ec.wasm --vartime verify',
    '  ctkit ct-check --shipped ec_p256',
  ].join('\n'),
  options: {
    public: { type: 'string', multiple: true },
    vartime: { type: 'string', multiple: true },
    helper: { type: 'string', multiple: true },
    shipped: { type: 'boolean' },
    json: { type: 'boolean' },
    summary: { type: 'boolean' },
  } satisfies NonNullable<ParseArgsConfig['options']>,
  maxPositionals: 64,
  async run(v: Record<string, string | boolean | string[] | undefined>, p: string[]): Promise<void> {
    const code = await ctCheck(
      {
        files: p,
        public: (v.public as string[] | undefined) ?? [],
        vartime: (v.vartime as string[] | undefined) ?? [],
        helpers: (v.helper as string[] | undefined) ?? [],
        shipped: v.shipped === true,
        json: v.json === true,
        summary: v.summary === true,
      },
      (line) => process.stdout.write(line + '\n'),
    );
    if (code !== 0) throw new Failure('constant-time violations found (see above)');
  },
};

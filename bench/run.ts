// npm run bench [filter] [--json] [--impl name]… [--time ms] [--backends simd,wasm,js] [--base <git-ref> [--copies N]]
//
// Runs the benchmark families below and prints a markdown table per family (or, with --json,
// only `[{ "case", "impl", "ns" }]`, median ns per operation). With --base, compares this checkout
// against another revision instead (see base.ts). See bench/README.md.

import { parseArgs } from 'node:util';
import { compareWithBase } from './base.js';
import { environment, familyTable } from './format.js';
import { caseMatcher, measureCase, type Family, type Result } from './harness.js';

/** Benchmark families: adding one is one line here. */
const FAMILIES: Record<string, () => Promise<{ default: Family }>> = {
  mac: () => import('./mac.js'),
  hash: () => import('./hash.js'),
  chacha: () => import('./chacha.js'),
  aes: () => import('./aead-aes.js'),
  sm4: () => import('./aead-sm4.js'),
  ec: () => import('./ec.js'),
  cli: () => import('./cli.js'),
  stream: () => import('./stream.js'),
};

const USAGE = `usage: npm run bench -- [filter] [--json] [--impl name]... [--time ms] [--backends simd,wasm,js] [--base <git-ref>] [--copies N]`;

function parse() {
  return parseArgs({
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      impl: { type: 'string', multiple: true },
      time: { type: 'string' },
      base: { type: 'string' },
      copies: { type: 'string' },
      backends: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}

function positiveNumber(s: string | undefined, flag: string, fallback: number): number {
  if (s === undefined) return fallback;
  const x = Number(s);
  if (!(x > 0)) throw new Error(`${flag} wants a positive number, got ${JSON.stringify(s)}`);
  return x;
}

async function main(): Promise<number> {
  const { values: opts, positionals } = parse();
  if (opts.help) {
    console.log(USAGE);
    return 0;
  }
  if (positionals.length > 1) throw new Error(`one filter at most\n${USAGE}`);
  const filter = positionals[0];
  const timeMs = positiveNumber(opts.time, '--time', 300);

  if (opts.base !== undefined) {
    return compareWithBase({
      ref: opts.base,
      filter,
      impls: opts.impl ?? ['ctkit'],
      time: opts.time,
      copies: Math.round(positiveNumber(opts.copies, '--copies', 3)),
      json: opts.json,
    });
  }

  const backends = (opts.backends ?? 'simd,wasm,js').split(',').map((b) => b.trim());
  for (const b of backends) if (b !== 'simd' && b !== 'wasm' && b !== 'js') throw new Error(`--backends: ${b} is not simd, wasm or js\n${USAGE}`);
  const matches = caseMatcher(filter);
  const all: Result[] = [];
  let failed = 0;
  if (!opts.json) console.log(`${environment()}\n`);
  for (const [name, load] of Object.entries(FAMILIES)) {
    let family: Family;
    try {
      family = (await load()).default;
    } catch (e) {
      failed++;
      console.error(`bench: skipping family ${name}: ${e instanceof Error ? e.message : String(e)}`);
      continue;
    }
    const cases = family.cases.filter((c) => matches(c.name));
    if (cases.length === 0) continue;
    const results: Result[] = [];
    for (const c of cases) {
      if (!opts.json && process.stderr.isTTY) process.stderr.write(`\r\x1b[K  ${c.name} …`);
      results.push(...(await measureCase(c, { timeMs, backends: backends as ('simd' | 'wasm' | 'js')[] }, opts.impl)));
    }
    if (!opts.json && process.stderr.isTTY) process.stderr.write('\r\x1b[K');
    for (const r of results) if (r.error !== undefined) console.error(`bench: ${r.case} ${r.impl}: ${r.error}`);
    if (!opts.json) console.log(`${familyTable(family.title, results)}\n`);
    all.push(...results);
  }

  if (opts.json) {
    const rows = all.filter((r) => r.error === undefined).map((r) => ({ case: r.case, impl: r.impl, ns: r.ns }));
    console.log(`[\n${rows.map((r) => JSON.stringify(r)).join(',\n')}\n]`);
  } else if (all.length === 0) {
    console.log(`No case matches ${JSON.stringify(filter ?? '')}.`);
  }
  return failed > 0 && all.length === 0 ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    console.error(`bench: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 2;
  },
);

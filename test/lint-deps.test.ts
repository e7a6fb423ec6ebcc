// The layer rules of .dependency-cruiser.cjs have teeth: a throw-away tree with one deliberate
// violation of each rule (and the permitted neighbours of each: the CLI and gen.ts using node:,
// the API importing the generated contracts, a generator importing src/curves/) is cruised with
// the project's own config, and exactly the planted violations must come back, each under its
// rule's name. `npm run lint:deps` runs the same config over the real src/ and must find none.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

const FILES: Record<string, string> = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }),
  // allowed
  'src/engine/wasm/aes.contract.ts': 'export const N = 1;\n',
  'src/aead/ok.ts': "import { N } from '../engine/wasm/aes.contract.js';\nexport const M = N;\n",
  'src/curves/params.ts': 'export const P = 1n;\n',
  'src/kernels/ok.ts': "import { P } from '../curves/params.js';\nexport const Q = P;\n",
  'src/kernels/gen.ts': "import { readFileSync } from 'node:fs';\nexport const R = readFileSync;\n",
  'src/cli/ok.ts': "import { readFileSync } from 'node:fs';\nexport const S = readFileSync;\n",
  // one violation each
  'src/kernels/k.ts': 'export const K = 1;\n',
  'src/aead/bad.ts': "import { K } from '../kernels/k.js';\nexport const A = K;\n", // api-not-kernels
  'src/mac/m.ts': 'export const MM = 1;\n',
  'src/kernels/bad-api.ts': "import { MM } from '../mac/m.js';\nexport const B = MM;\n", // kernels-not-api
  'src/kernels/k2.ts': 'export const K2 = 1;\n',
  'src/ref/bad.ts': "import { K2 } from '../kernels/k2.js';\nexport const C = K2;\n", // ref-not-kernels
  'src/ref/r.ts': 'export const RR = 1;\n',
  'src/kernels/bad-ref.ts': "import { RR } from '../ref/r.js';\nexport const D = RR;\n", // kernels-not-ref
  'src/util/bad.ts': "import { readFileSync } from 'node:fs';\nexport const E = readFileSync;\n", // library-not-node
  'src/hash/cyc-a.ts': "import { G } from './cyc-b.js';\nexport const F = () => G;\n", // no-cycles
  'src/hash/cyc-b.ts': "import { F } from './cyc-a.js';\nexport const G = () => F;\n",
  'src/stream/bad.ts': "import { X } from './missing.js';\nexport const H = X;\n", // not-to-unresolvable
};

const EXPECTED = [
  'api-not-kernels src/aead/bad.ts -> src/kernels/k.ts',
  'kernels-not-api src/kernels/bad-api.ts -> src/mac/m.ts',
  'kernels-not-ref src/kernels/bad-ref.ts -> src/ref/r.ts',
  'library-not-node src/util/bad.ts -> fs',
  'no-cycles src/hash/cyc-a.ts -> src/hash/cyc-b.ts',
  'not-to-unresolvable src/stream/bad.ts -> ./missing.js',
  'ref-not-kernels src/ref/bad.ts -> src/kernels/k2.ts',
];

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

test('every dependency-cruiser rule catches its planted violation, and only that', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ctkit-depcruise-'));
  try {
    for (const [path, text] of Object.entries(FILES)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const r = spawnSync(process.execPath, [CLI, '--config', CONFIG, '--output-type', 'json', 'src'], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.stderr, '');
    const violations = (JSON.parse(r.stdout) as { summary: { violations: Violation[] } }).summary.violations;
    const got = violations.map((v) => `${v.rule.name} ${v.from} -> ${v.to}`).sort();
    assert.deepEqual(got, EXPECTED);
    // every rule of the config is exercised
    const rules = new Set(EXPECTED.map((e) => e.split(' ')[0]));
    const cfg = spawnSync(process.execPath, ['-e', `process.stdout.write(JSON.stringify(require(${JSON.stringify(CONFIG)}).forbidden.map((r) => r.name)))`], { encoding: 'utf8' });
    assert.deepEqual([...rules].sort(), (JSON.parse(cfg.stdout) as string[]).sort());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

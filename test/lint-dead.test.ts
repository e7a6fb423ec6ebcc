// The dead-code rules of knip.jsonc have teeth: a throw-away tree, checked by knip with the
// project's own knip.jsonc, holds one export nobody uses, one export only its own file uses (a
// named part of the file's interface, which the config allows), one used from another file and
// one unused dependency; exactly the dead export and the dependency must come back.
// `npm run lint:dead` runs the same config over the real tree and must find nothing.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'node_modules', 'knip', 'bin', 'knip.js');

const FILES: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'planted', version: '0.0.0', type: 'module', dependencies: { 'left-pad': '1.3.0' } }),
  'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }),
  'src/index.ts': "import { used } from './a.js';\nexport const api = used + 1;\n",
  'src/a.ts': 'export const used = 1;\nexport const inFile = 2;\nexport const dead = 3;\nexport const twice = inFile * 2;\n',
};

interface KnipIssue {
  file: string;
  dependencies: { name: string }[];
  exports: { name: string }[];
}

test('knip with the project config reports the planted dead export and dependency, and only those', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ctkit-knip-'));
  try {
    for (const [p, text] of Object.entries(FILES)) {
      mkdirSync(dirname(join(dir, p)), { recursive: true });
      writeFileSync(join(dir, p), text);
    }
    copyFileSync(join(ROOT, 'knip.jsonc'), join(dir, 'knip.jsonc'));
    const r = spawnSync(process.execPath, [CLI, '--directory', dir, '--reporter', 'json', '--no-progress', '--no-exit-code'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const issues = (JSON.parse(r.stdout) as { issues: KnipIssue[] }).issues;
    const found = issues.flatMap((i) => [...i.exports.map((e) => `export ${i.file} ${e.name}`), ...i.dependencies.map((d) => `dependency ${i.file} ${d.name}`)]).sort();
    // `twice` is unused too: a dead export that reads another is still dead
    assert.deepEqual(found, ['dependency package.json left-pad', 'export src/a.ts dead', 'export src/a.ts twice']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// scripts/mutation.ts assembles a folder's report from --files runs (src/cli is run in parts):
// a later part replaces the same files, a file whose source changed since its part is dropped,
// and a run that no longer contributes a file is dropped with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { FOLDERS, mergeAgain, mergeParts, rangesOf, testsOf } from '../scripts/mutation.js';

const mutant = (id: string, status: string) => ({ id, mutatorName: 'BooleanLiteral', replacement: 'false', location: { start: { line: 1, column: 1 }, end: { line: 1, column: 5 } }, status });
const report = (files: Record<string, [string, string]>) => ({
  files: Object.fromEntries(Object.entries(files).map(([p, [source, status]]) => [p, { source, mutants: [mutant(p, status)] }])),
});
const run = (command: string, files: string[]) => ({ command, commit: 'abc1234', seconds: 60, files });

test('parts: later files replace earlier ones; changed sources and runs without files are dropped', () => {
  const sources: Record<string, string> = { 'a.ts': 'true', 'b.ts': 'true', 'c.ts': 'true' };
  const current = (p: string) => sources[p];
  const one = mergeParts(undefined, report({ 'a.ts': ['true', 'Survived'], 'b.ts': ['true', 'Killed'] }), run('first', ['a.ts', 'b.ts']), current);
  assert.deepEqual(Object.keys(one.report.files).sort(), ['a.ts', 'b.ts']);
  assert.deepEqual(
    one.runs.map((r) => r.command),
    ['first'],
  );

  // a second part re-runs a.ts (now killed) and adds c.ts; the first run keeps only b.ts
  const two = mergeParts(one, report({ 'a.ts': ['true', 'Killed'], 'c.ts': ['true', 'Killed'] }), run('second', ['a.ts', 'c.ts']), current);
  assert.equal(two.report.files['a.ts'].mutants[0].status, 'Killed');
  assert.deepEqual(Object.keys(two.report.files).sort(), ['a.ts', 'b.ts', 'c.ts']);
  assert.deepEqual(
    two.runs.map((r) => [r.command, r.files]),
    [
      ['first', ['b.ts']],
      ['second', ['a.ts', 'c.ts']],
    ],
  );

  // b.ts changes: its old result no longer stands, and the first run goes with it
  sources['b.ts'] = 'false';
  const three = mergeParts(two, report({ 'c.ts': ['true', 'Killed'] }), run('third', ['c.ts']), current);
  assert.deepEqual(Object.keys(three.report.files).sort(), ['a.ts', 'c.ts']);
  assert.deepEqual(
    three.runs.map((r) => [r.command, r.files]),
    [
      ['second', ['a.ts']],
      ['third', ['c.ts']],
    ],
  );

  // a deleted file is dropped as well
  delete sources['a.ts'];
  const four = mergeParts(three, report({ 'c.ts': ['true', 'Killed'] }), run('fourth', ['c.ts']), current);
  assert.deepEqual(Object.keys(four.report.files), ['c.ts']);
  assert.deepEqual(
    four.runs.map((r) => r.command),
    ['fourth'],
  );
});

test('parts: a file a whole run found no mutant in stays covered while its source is the same', () => {
  const sources: Record<string, string> = { 'a.ts': 'true', 'index.ts': "export * from './a.js';" };
  const current = (p: string) => sources[p];
  const whole = { report: report({ 'a.ts': ['true', 'Killed'] }), runs: [run('whole', ['a.ts'])], empty: { 'index.ts': sources['index.ts'] } };
  const one = mergeParts(whole, report({ 'a.ts': ['true', 'Killed'] }), run('part', ['a.ts']), current);
  assert.deepEqual(one.empty, { 'index.ts': sources['index.ts'] });
  sources['index.ts'] = "export * from './b.js';";
  const two = mergeParts(one, report({ 'a.ts': ['true', 'Killed'] }), run('part', ['a.ts']), current);
  assert.deepEqual(two.empty, {});
  // a part whose glob named index.ts, where it found no mutant, covers it as it is now
  const three = mergeParts(two, report({ 'a.ts': ['true', 'Killed'] }), run('part', ['a.ts']), current, ['a.ts', 'index.ts']);
  assert.deepEqual(three.empty, { 'index.ts': "export * from './b.js';" });
});

test('again: re-run mutants replace the same mutants and nothing else; the runs before still count', () => {
  const at = (line: number, status: string, replacement = 'false') => ({ id: `${line}${replacement}`, mutatorName: 'BooleanLiteral', replacement, location: { start: { line, column: 3 }, end: { line, column: 7 } }, status });
  const source = 'x\n  true\n  true\n';
  const current = () => source;
  const before = { report: { files: { 'a.ts': { source, mutants: [at(2, 'Survived'), at(2, 'Killed', '!true'), at(3, 'Survived')] } } }, runs: [run('whole', ['a.ts'])] };
  const after = mergeAgain(before, { files: { 'a.ts': { source, mutants: [{ ...at(3, 'Killed'), id: '99' }] } } }, { ...run('again', ['a.ts']), again: true }, current);
  assert.deepEqual(
    after.report.files['a.ts'].mutants.map((m) => [m.id, m.status]),
    [
      ['2false', 'Survived'],
      ['2!true', 'Killed'],
      ['3false', 'Killed'],
    ],
  );
  assert.deepEqual(
    after.runs.map((r) => [r.command, r.files]),
    [
      ['whole', ['a.ts']],
      ['again', ['a.ts']],
    ],
  );
  assert.equal(before.report.files['a.ts'].mutants[2].status, 'Survived', 'the results before are not changed in place');
  // a mutant the results do not have, or a file that changed since: run the file instead
  assert.throws(() => mergeAgain(before, { files: { 'a.ts': { source, mutants: [at(1, 'Killed')] } } }, { ...run('again', ['a.ts']), again: true }, current), /not in the last results/);
  assert.throws(() => mergeAgain(before, { files: { 'a.ts': { source: 'y', mutants: [at(3, 'Killed')] } } }, { ...run('again', ['a.ts']), again: true }, () => 'y'), /has changed/);
  // Stryker's ranges: 1-based lines, 0-based columns (the report's columns are 1-based)
  assert.deepEqual(rangesOf([{ file: 'a.ts', location: { start: { line: 3, column: 3 }, end: { line: 3, column: 7 } } }]), ['a.ts:3:2-3:6']);
});

test('testsFor: each file a folder names is one of its files, each test one of its tests; a part runs what its files name', () => {
  for (const [name, f] of Object.entries(FOLDERS)) {
    const all = testsOf(f, undefined);
    assert.deepEqual(all, f.tests, `${name}: a whole run runs every test its files name`);
    for (const [file, tests] of Object.entries(f.testsFor ?? {})) {
      assert.ok(file.startsWith(`${f.dir}/`) || (f.extra ?? []).includes(file), `${name}: ${file} is not in the folder`);
      assert.ok(existsSync(new URL(`../${file}`, import.meta.url)), `${name}: ${file} does not exist`);
      for (const t of tests) assert.ok(f.tests.includes(`test/${t}.test.ts`), `${name}: ${file} names ${t}, not one of the folder's tests`);
    }
  }
  const cli = FOLDERS['src/cli'];
  // in the folder's order, the union of the files' lists
  assert.deepEqual(testsOf(cli, 'src/cli/{run,bench}.ts'), ['test/cli-help.test.ts', 'test/cli-main.test.ts']);
  assert.deepEqual(testsOf(cli, 'src/cli/sign.ts'), ['test/cli-main.test.ts', 'test/cli-sign.test.ts']);
  assert.deepEqual(testsOf(cli, 'src/cli/nothing.ts'), []);
  // a folder without testsFor runs all its tests for any part
  assert.deepEqual(testsOf(FOLDERS['src/hash'], 'src/hash/hmac.ts'), FOLDERS['src/hash'].tests);
});

// Loaded (`-r`) into each ctkit command a CLI test runs during Stryker's dry run (see
// test/support/cli.ts): on exit, the mutants this process reached are written where the test
// process collects them, so coverage per test file sees the code that runs in the command.
'use strict';
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

process.on('exit', () => {
  const ns = globalThis[process.env.STRYKER_NAMESPACE || '__stryker__'];
  const dir = process.env.CTKIT_STRYKER_COVERAGE;
  if (ns && ns.mutantCoverage && dir) writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify(ns.mutantCoverage));
});

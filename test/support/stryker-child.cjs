// Loaded (`-r`) into each ctkit command a CLI test runs during Stryker's dry run (see
// test/support/cli.ts): on exit, the mutants this process reached are written where the test
// process collects them, so coverage per test file sees the code that runs in the command.
// A command that ends by re-raising a signal at itself (src/cli/io.ts, after removing its
// temporary files) never reaches 'exit': its coverage is written just before that kill.
'use strict';
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

function writeCoverage() {
  const ns = globalThis[process.env.STRYKER_NAMESPACE || '__stryker__'];
  const dir = process.env.CTKIT_STRYKER_COVERAGE;
  if (ns && ns.mutantCoverage && dir) writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify(ns.mutantCoverage));
}
process.on('exit', writeCoverage);
const kill = process.kill.bind(process);
process.kill = (pid, signal) => {
  if (pid === process.pid) writeCoverage();
  return kill(pid, signal);
};

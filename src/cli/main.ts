// ctkit — the command-line tool (src/cli/run.ts has the dispatch and the exit statuses). One
// line on stderr says what was wrong.

import { main, report } from './run.js';

// anything that escapes (a stream error event, a worker crash) is still one line, not a trace
process.on('uncaughtException', (e) => {
  process.exitCode = report(e, process.argv[2], undefined);
  process.exit();
});
const code = await main(process.argv.slice(2));
process.exitCode = code;

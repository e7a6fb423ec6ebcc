// Preloaded (`-r`) into a ctkit command by test/cli.test.ts: an exception that escapes every
// handler of the command (as a stream's error event or a worker's crash would), thrown from a
// timer once the command is waiting for input. src/cli/main.ts must report it in one line.
'use strict';
setTimeout(() => {
  throw new Error('escaped\n  from a timer');
}, 300);

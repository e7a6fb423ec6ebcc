// ctkit — the command-line tool. Exit status: 0 success; 1 a failure: authentication or
// verification, a damaged sealed file, an invalid key; 2 a usage error or a file that cannot be
// read or written (or would be overwritten). One line on stderr says what was wrong.

import { parseArgs } from 'node:util';
import { UsageError, Failure, FileError } from './errors.js';
import { installCleanup } from './io.js';
import { COMMANDS, VERSION, commandHelp, mainHelp } from './commands.js';
import { EncodingError, InvalidKeyError } from '../errors.js';

export async function main(argv: string[]): Promise<number> {
  installCleanup();
  const [cmd, ...rest] = argv;
  if (cmd === undefined) {
    process.stderr.write(mainHelp() + '\n');
    return 2;
  }
  if (cmd === '--help' || cmd === '-h' || cmd === 'help') {
    const topic = cmd === 'help' ? rest[0] : undefined;
    if (topic && COMMANDS[topic]) console.log(commandHelp(COMMANDS[topic]));
    else console.log(mainHelp());
    return 0;
  }
  if (cmd === '--version' || cmd === '-V') {
    console.log(VERSION);
    return 0;
  }
  const c = COMMANDS[cmd];
  try {
    if (!c) throw new UsageError(`unknown command '${cmd}' (commands: ${Object.keys(COMMANDS).join(', ')})`);
    if (rest.includes('--help') || rest.includes('-h')) {
      console.log(commandHelp(c));
      return 0;
    }
    let parsed: ReturnType<typeof parseArgs>;
    try {
      parsed = parseArgs({ args: rest, options: c.options, allowPositionals: true, strict: true });
    } catch (e) {
      throw new UsageError((e as Error).message.split('\n')[0]);
    }
    if (parsed.positionals.length > c.maxPositionals) {
      throw new UsageError(`too many arguments: ${parsed.positionals.slice(c.maxPositionals).join(' ')}`);
    }
    await c.run(parsed.values as Record<string, string | boolean | string[] | undefined>, parsed.positionals);
    return 0;
  } catch (caught) {
    return report(caught, c ? cmd : undefined, c?.usage);
  }
}

/** One line on stderr and the exit status for an error. */
function report(caught: unknown, cmd: string | undefined, usage: string | undefined): number {
  const prefix = cmd ? `ctkit ${cmd}: ` : 'ctkit: ';
  let e = caught;
  if (e instanceof EncodingError || e instanceof InvalidKeyError) e = new Failure(`invalid key: ${e.message}`);
  const line = (m: string) => m.replace(/\s*\n\s*/g, ' ');
  if (e instanceof UsageError) {
    process.stderr.write(`${prefix}${line(e.message)}; usage: ${usage ?? 'ctkit <command> [options]'} (ctkit ${cmd ? cmd + ' ' : ''}--help)\n`);
    return 2;
  }
  if (e instanceof FileError) {
    process.stderr.write(`${prefix}${line(e.message)}\n`);
    return 2;
  }
  if (e instanceof Failure) {
    process.stderr.write(`${prefix}${line(e.message)}\n`);
    return 1;
  }
  const err = e as NodeJS.ErrnoException;
  // the reader of stdout went away (`ctkit open f | head`): quiet, as a shell reports SIGPIPE
  if (err && err.code === 'EPIPE') return 141;
  process.stderr.write(`${prefix}${line(err?.message ?? String(e))}\n`);
  return 1;
}

// anything that escapes (a stream error event, a worker crash) is still one line, not a trace
process.on('uncaughtException', (e) => {
  process.exitCode = report(e, process.argv[2], undefined);
  process.exit();
});
const code = await main(process.argv.slice(2));
process.exitCode = code;

// The ctkit command's dispatch: argv to a command, and every error to one line on stderr and
// an exit status (0 success; 1 a failure: authentication or verification, a damaged sealed
// file, an invalid key; 2 a usage error or a file that cannot be read or written, or would be
// overwritten). main.ts runs it; the tests call it in-process.

import { parseArgs } from 'node:util';
import { UsageError, Failure, FileError } from './errors.js';
import { installCleanup } from './io.js';
import { COMMANDS, VERSION, commandHelp, commandNamed, mainHelp } from './commands.js';
import { EncodingError, InvalidKeyError } from '../errors.js';
import { backend } from '../engine/backend.js';

export async function main(argv: string[]): Promise<number> {
  installCleanup();
  const [cmd, ...rest] = argv;
  if (cmd === undefined) {
    process.stderr.write(mainHelp() + '\n');
    return 2;
  }
  if (cmd === '--help' || cmd === '-h' || cmd === 'help') {
    const topic = cmd === 'help' ? commandNamed(rest[0]) : undefined;
    console.log(topic ? commandHelp(topic) : mainHelp());
    return 0;
  }
  if (cmd === '--version' || cmd === '-V') {
    console.log(VERSION);
    return 0;
  }
  const c = commandNamed(cmd);
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
      throw new UsageError((e as Error).message); // report() makes it one line
    }
    if (parsed.positionals.length > c.maxPositionals) {
      throw new UsageError(`too many arguments: ${parsed.positionals.slice(c.maxPositionals).join(' ')}`);
    }
    if (backend() === 'js') await import('../ec/js/all.js'); // every curve's opt-in JavaScript
    await c.run(parsed.values as Record<string, string | boolean | string[] | undefined>, parsed.positionals);
    return 0;
  } catch (caught) {
    return report(caught, c ? cmd : undefined, c?.usage);
  }
}

/** One line on stderr and the exit status for an error. */
export function report(caught: unknown, cmd: string | undefined, usage: string | undefined): number {
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
  const err = e as NodeJS.ErrnoException;
  // the reader of stdout went away (`ctkit open f | head`): quiet, as a shell reports SIGPIPE
  if (err?.code === 'EPIPE') return 141;
  // a Failure, and anything else (a bug, a system error): exit 1 with its message
  process.stderr.write(`${prefix}${line(err?.message ?? String(e))}\n`);
  return 1;
}

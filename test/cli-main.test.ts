// The ctkit command's dispatch and exit statuses (src/cli/run.ts) in-process: help and version,
// unknown commands and options, too many arguments, and each kind of error as one line on stderr
// with its exit status (0, 1 a failure, 2 a usage or file error, 141 a closed stdout). The same
// command lines as processes are in test/cli.test.ts; this file is the quick one, so that under
// `npm run test:mutation -- src/cli` a mutant of run.ts fails here first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMMANDS, VERSION, commandHelp, mainHelp } from '../src/cli/commands.js';
import { Failure, FileError, UsageError } from '../src/cli/errors.js';
import { main, report } from '../src/cli/run.js';
import { EncodingError, InvalidKeyError } from '../src/errors.js';
import { cliOutput } from './support/stdout.js';

const dir = mkdtempSync(join(tmpdir(), 'ctkit-main-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const names = Object.keys(COMMANDS).join(', ');

async function run(argv: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let status = -1;
  const out = await cliOutput(async () => {
    status = await main(argv);
  });
  return { status, ...out };
}

test('help and version: exit 0, on stdout', async () => {
  // Object.prototype's names are not commands (they once reached 'c.run is not a function')
  for (const argv of [['--help'], ['-h'], ['help'], ['help', 'nope'], ['help', 'constructor'], ['help', '__proto__']]) assert.deepEqual(await run(argv), { status: 0, stdout: `${mainHelp()}\n`, stderr: '' }, argv.join(' '));
  for (const argv of [
    ['help', 'seal'],
    ['seal', '--help'],
    ['seal', '-h'],
    ['seal', '-k', 'x', '--help'],
    ['seal', '--bogus', '-h'],
  ]) {
    assert.deepEqual(await run(argv), { status: 0, stdout: `${commandHelp(COMMANDS.seal)}\n`, stderr: '' }, argv.join(' '));
  }
  for (const argv of [['--version'], ['-V']]) assert.deepEqual(await run(argv), { status: 0, stdout: `${VERSION}\n`, stderr: '' }, argv.join(' '));
  // no command at all: the command list, as a request for help, but exit 2
  assert.deepEqual(await run([]), { status: 2, stdout: '', stderr: `${mainHelp()}\n` });
});

test('usage errors: exit 2, one line with the usage and where the help is', async () => {
  assert.deepEqual(await run(['frobnicate']), {
    status: 2,
    stdout: '',
    stderr: `ctkit: unknown command 'frobnicate' (commands: ${names}); usage: ctkit <command> [options] (ctkit --help)\n`,
  });
  for (const word of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    for (const argv of [[word], [word, '-h']]) {
      assert.deepEqual(await run(argv), { status: 2, stdout: '', stderr: `ctkit: unknown command '${word}' (commands: ${names}); usage: ctkit <command> [options] (ctkit --help)\n` }, argv.join(' '));
    }
  }
  const usage = (cmd: string, m: string) => `ctkit ${cmd}: ${m}; usage: ${COMMANDS[cmd].usage} (ctkit ${cmd} --help)\n`;
  // node:util's parseArgs words its own errors: its first line, then the usage
  const bogus = await run(['seal', '--bogus']);
  assert.equal(bogus.status, 2);
  assert.ok(bogus.stderr.startsWith("ctkit seal: Unknown option '--bogus'") && bogus.stderr.endsWith(`; usage: ${COMMANDS.seal.usage} (ctkit seal --help)\n`), bogus.stderr);
  assert.equal(bogus.stderr.split('\n').length, 2);
  assert.deepEqual(await run(['open', '-k', 'k', 'a', 'b', 'c']), { status: 2, stdout: '', stderr: usage('open', 'too many arguments: b c') });
  assert.deepEqual(await run(['seal']), { status: 2, stdout: '', stderr: usage('seal', 'seal needs --key <keyfile>') });
  assert.deepEqual(await run(['seal', '-k']), { status: 2, stdout: '', stderr: usage('seal', "Option '-k, --key <value>' argument missing") });
});

test('file errors exit 2, failures exit 1, each one line naming the command', async () => {
  const missing = join(dir, 'nope.key');
  assert.deepEqual(await run(['pubkey', missing]), { status: 2, stdout: '', stderr: `ctkit pubkey: cannot read public key ${missing}: no such file (ENOENT)\n` });
  const junk = join(dir, 'junk.pem');
  writeFileSync(junk, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
  assert.deepEqual(await run(['pubkey', junk]), {
    status: 1,
    stdout: '',
    stderr: `ctkit pubkey: invalid key: public key ${junk}: PEM block CERTIFICATE is not a key (expected PUBLIC KEY, PRIVATE KEY or EC PRIVATE KEY)\n`,
  });
});

test('report: each kind of error to its exit status and one line, the library key errors as "invalid key"', async () => {
  const cases: [unknown, string | undefined, number, string][] = [
    [new UsageError('bad\n  thing'), 'seal', 2, 'ctkit seal: bad thing; usage: U (ctkit seal --help)\n'],
    [new UsageError('bad'), undefined, 2, 'ctkit: bad; usage: U (ctkit --help)\n'],
    [new FileError('cannot read x'), 'open', 2, 'ctkit open: cannot read x\n'],
    [new Failure('no\nway'), 'verify', 1, 'ctkit verify: no way\n'],
    [new EncodingError('not base64'), 'pubkey', 1, 'ctkit pubkey: invalid key: not base64\n'],
    [new InvalidKeyError('off the curve'), 'ecdh', 1, 'ctkit ecdh: invalid key: off the curve\n'],
    [new TypeError('boom'), 'info', 1, 'ctkit info: boom\n'],
    ['a string', 'info', 1, 'ctkit info: a string\n'],
    [Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }), 'open', 141, ''],
  ];
  for (const [e, cmd, status, stderr] of cases) {
    let got = -1;
    const out = await cliOutput(async () => {
      got = report(e, cmd, 'U');
    });
    assert.deepEqual({ status: got, ...out }, { status, stdout: '', stderr }, String(e));
  }
  // without a usage: the generic one
  const out = await cliOutput(async () => void report(new UsageError('x'), 'seal', undefined));
  assert.equal(out.stderr, 'ctkit seal: x; usage: ctkit <command> [options] (ctkit seal --help)\n');
});

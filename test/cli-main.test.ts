// The ctkit command's dispatch and exit statuses (src/cli/run.ts) in-process: help and version,
// unknown commands and options, too many arguments, and each kind of error as one line on stderr
// with its exit status (0, 1 a failure, 2 a usage or file error, 141 a closed stdout). The same
// command lines as processes are in test/cli.test.ts; this file is the quick one, so that under
// `npm run test:mutation -- src/cli` a mutant of run.ts fails here first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, verify as osslVerify } from 'node:crypto';
import { copyFileSync, existsSync, fstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { COMMANDS, VERSION, benchArgs, commandHelp, mainHelp } from '../src/cli/commands.js';
import { Failure, FileError, UsageError } from '../src/cli/errors.js';
import { runBench } from '../src/cli/bench.js';
import { main, report } from '../src/cli/run.js';
import { EncodingError, InvalidKeyError } from '../src/errors.js';
import { cliOutput } from './support/stdout.js';
import { ctkitSourceArgv } from './support/cli.js';
import { spawnSync } from 'node:child_process';

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
  // Object.prototype's names are not commands (they once reached 'c.run is not a function');
  // only `help` takes a topic
  for (const argv of [['--help'], ['-h'], ['help'], ['help', 'nope'], ['help', 'constructor'], ['help', '__proto__'], ['--help', 'seal'], ['-h', 'seal']])
    assert.deepEqual(await run(argv), { status: 0, stdout: `${mainHelp()}\n`, stderr: '' }, argv.join(' '));
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
    [undefined, 'info', 1, 'ctkit info: undefined\n'],
    [null, 'info', 1, 'ctkit info: null\n'],
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

test('every command takes its options to what it runs, and refuses the combinations it does not take', async () => {
  const f = (name: string) => join(dir, name);
  const ok = async (argv: string[]) => {
    const r = await run(argv);
    assert.equal(r.status, 0, `${argv.join(' ')}: ${r.stderr}`);
    return r;
  };
  const usage = async (argv: string[], message: string) => {
    const r = await run(argv);
    assert.equal(r.status, 2, argv.join(' '));
    assert.ok(r.stderr.startsWith(`ctkit ${argv[0]}: ${message}; usage: `), `${argv.join(' ')}: ${r.stderr}`);
  };
  // keygen
  await usage(['keygen'], 'keygen needs --aead <alg> or --curve <name>');
  await usage(['keygen', '--aead', 'chacha20-poly1305', '--curve', 'p256', '-o', f('x')], 'keygen takes --aead or --curve, not both');
  await usage(['keygen', '--aead', 'chacha20-poly1305', '--format', 'jwk', '-o', f('x')], '--format applies to --curve keys only');
  await usage(['keygen', '--aead', 'chacha20-poly1305'], 'keygen --aead needs -o <keyfile>');
  await ok(['keygen', '--aead', 'aes-256-gcm', '-o', f('aes.key')]);
  assert.equal(JSON.parse(readFileSync(f('aes.key'), 'utf8')).alg, 'aes-256-gcm');
  await ok(['keygen', '--curve', 'p384', '--format', 'sec1', '--out', f('p384.pem')]);
  assert.equal(createPrivateKey(readFileSync(f('p384.pem'))).asymmetricKeyDetails?.namedCurve, 'secp384r1');
  assert.ok(readFileSync(f('p384.pem'), 'utf8').startsWith('-----BEGIN EC PRIVATE KEY-----'));
  assert.match((await ok(['keygen', '--curve', 'p256'])).stdout, /^-----BEGIN PRIVATE KEY-----\n/);
  assert.equal(existsSync(f('x')), false);
  // pubkey: the file, --format, --curve and -o reach it
  await usage(['pubkey'], 'pubkey needs a key file');
  const spki = createPublicKey(createPrivateKey(readFileSync(f('p384.pem')))).export({ format: 'der', type: 'spki' });
  const point = spki.subarray(spki.length - 97).toString('hex');
  await ok(['pubkey', f('p384.pem'), '--format', 'raw', '-o', f('p384.raw')]);
  assert.equal(readFileSync(f('p384.raw'), 'utf8'), `${point}\n`);
  writeFileSync(f('p384.hex'), `${point}\n`);
  assert.equal((await ok(['pubkey', f('p384.hex'), '--curve', 'p384', '--format', 'raw'])).stdout, `${point}\n`);
  // ecdh: --key, --peer, --curve and -o
  await usage(['ecdh', '--peer', f('p384.hex')], 'ecdh needs --key <private key>');
  await usage(['ecdh', '-k', f('p384.pem')], 'ecdh needs --peer <public key>');
  await ok(['ecdh', '-k', f('p384.pem'), '--peer', f('p384.hex'), '--curve', 'p384', '-o', f('secret')]);
  assert.equal(readFileSync(f('secret')).length, 48);
  assert.equal((await ok(['ecdh', '--key', f('p384.pem'), '--peer', f('p384.hex'), '--curve', 'p384'])).stdout, `${readFileSync(f('secret')).toString('hex')}\n`);
  // seal and open: -k, -a, -o, -f, -j and the input
  writeFileSync(f('plain'), 'attack at dawn');
  await usage(['seal', f('plain')], 'seal needs --key <keyfile>');
  await usage(['open', f('plain')], 'open needs --key <keyfile>');
  await usage(['seal', '-k', f('aes.key'), '-a', 'chacha20-poly1305', f('plain')], `the key in ${f('aes.key')} is for aes-256-gcm, not chacha20-poly1305`);
  await usage(['seal', '-k', f('aes.key'), '-j', '0', f('plain')], "--jobs takes a number of workers from 1 to 256, got '0'");
  await usage(['open', '-k', f('aes.key'), '--jobs', 'x', f('plain')], "--jobs takes a number of workers from 1 to 256, got 'x'");
  await ok(['seal', '--key', f('aes.key'), '--alg', 'aes-256-gcm', '--jobs', '1', f('plain'), '--out', f('sealed')]);
  writeFileSync(f('exists'), 'keep');
  assert.equal((await run(['open', '-k', f('aes.key'), f('sealed'), '-o', f('exists')])).status, 2);
  assert.equal(readFileSync(f('exists'), 'utf8'), 'keep');
  await ok(['open', '-k', f('aes.key'), '-j', '1', f('sealed'), '-o', f('exists'), '-f']);
  assert.equal(readFileSync(f('exists'), 'utf8'), 'attack at dawn');
  assert.equal((await ok(['open', '--key', f('aes.key'), f('sealed')])).stdout, 'attack at dawn');
  assert.equal((await run(['seal', '-k', f('aes.key'), f('plain'), '-o', f('exists')])).status, 2);
  assert.equal(readFileSync(f('exists'), 'utf8'), 'attack at dawn');
  await ok(['seal', '-k', f('aes.key'), f('plain'), '-o', f('exists'), '--force']);
  assert.equal((await ok(['open', '-k', f('aes.key'), f('exists')])).stdout, 'attack at dawn');
  // age and age-keygen
  await usage(['age', '-e', '-d', '-i', f('id')], '-e and -d do not go together');
  await usage(['age', '-d', '-r', 'age1x', '-i', f('id')], '-r and -R are for encryption; -d decrypts with -i');
  await usage(['age', '-d', '-R', f('r'), '-i', f('id')], '-r and -R are for encryption; -d decrypts with -i');
  await usage(['age', '-d', '-a', '-i', f('id')], '-a is for encryption (armored input is detected when decrypting)');
  await usage(['age', '-i', f('id'), f('plain')], '-i is for decryption (-d); encrypt with -r or -R');
  await usage(['age-keygen', '-y', '-o', f('y')], '-y prints to stdout; it takes no -o');
  await usage(['age-keygen', '-y'], '-y needs the identity file');
  await usage(['age-keygen', f('a'), '-o', f('b')], `too many arguments: ${f('a')}`);
  const made = await ok(['age-keygen', '--output', f('id')]);
  assert.match(made.stderr, /^Public key: age1\S+\n$/);
  const recipient = made.stderr.slice('Public key: '.length).trim();
  assert.equal((await ok(['age-keygen', '-y', f('id')])).stdout, `${recipient}\n`);
  writeFileSync(f('r'), `${recipient}\n`);
  await ok(['age', '-r', recipient, '-a', '-j', '1', '-o', f('plain.asc'), f('plain')]);
  assert.ok(readFileSync(f('plain.asc'), 'utf8').startsWith('-----BEGIN AGE ENCRYPTED FILE-----\n'));
  await ok(['age', '--encrypt', '-R', f('r'), '--output', f('plain.age'), f('plain')]);
  assert.ok(readFileSync(f('plain.age'), 'latin1').startsWith('age-encryption.org/v1\n'));
  writeFileSync(f('exists'), 'keep');
  assert.equal((await run(['age', '-d', '-i', f('id'), '-o', f('exists'), f('plain.asc')])).status, 2);
  assert.equal((await run(['age', '-r', recipient, '-o', f('exists'), f('plain')])).status, 2);
  assert.equal(readFileSync(f('exists'), 'utf8'), 'keep');
  await ok(['age', '-d', '-i', f('id'), '-o', f('exists'), '-f', '--jobs', '1', f('plain.asc')]);
  assert.equal(readFileSync(f('exists'), 'utf8'), 'attack at dawn');
  assert.equal((await ok(['age', '--decrypt', '--identity', f('id'), f('plain.age')])).stdout, 'attack at dawn');
  // repeated -r and -i: every recipient gets a stanza, every identity is tried
  const second = (await ok(['age-keygen', '-o', f('id2')])).stderr.slice('Public key: '.length).trim();
  await ok(['age', '-r', second, '--recipient', recipient, '-o', f('two.age'), f('plain')]);
  assert.equal((readFileSync(f('two.age'), 'latin1').match(/\n-> X25519 /g) ?? []).length, 2);
  for (const id of ['id', 'id2']) assert.equal((await ok(['age', '-d', '-i', f(id), f('two.age')])).stdout, 'attack at dawn');
  assert.equal((await ok(['age', '-d', '-i', f('id2'), '-i', f('id'), f('plain.age')])).stdout, 'attack at dawn');
  // sign and verify: --key, --format, --hash, -o; --pub, --sig
  await usage(['sign', f('plain')], 'sign needs --key <private key>');
  await usage(['verify', '--sig', f('sig'), f('plain')], 'verify needs --pub <public key>');
  await usage(['verify', '--pub', f('p384.pem'), f('plain')], 'verify needs --sig <signature file>');
  await ok(['sign', '-k', f('p384.pem'), '--format', 'p1363', '--hash', 'sha256', '-o', f('sig'), f('plain')]);
  assert.equal(statSync(f('sig')).size, 96);
  const pub = createPublicKey(createPrivateKey(readFileSync(f('p384.pem'))));
  assert.ok(osslVerify('sha256', readFileSync(f('plain')), { key: pub, dsaEncoding: 'ieee-p1363' }, readFileSync(f('sig'))));
  assert.equal((await ok(['verify', '--pub', f('p384.pem'), '--sig', f('sig'), '--format', 'p1363', '--hash', 'sha256', f('plain')])).stdout, 'Verified OK\n');
  assert.equal((await run(['verify', '--pub', f('p384.pem'), '--sig', f('sig'), '--format', 'p1363', f('plain')])).status, 1, 'the default hash');
  // info
  const text = (await ok(['info'])).stdout;
  const info = text.split('\n');
  assert.equal(info.length, 5, text);
  assert.equal(info[0], `ctkit: ${VERSION}`);
  assert.match(info[1], /^backend: (simd|wasm|js)$/);
  assert.match(info[2], /^probe: (simd|wasm|js)$/);
  assert.equal(info[3], `runtime: Node.js ${process.versions.node}`);
  assert.equal(info[4], '', 'one line each, the last one ended');
  // CTKIT_BACKEND set: said beside the backend
  const env = process.env.CTKIT_BACKEND;
  process.env.CTKIT_BACKEND = info[1].slice('backend: '.length);
  try {
    assert.equal((await ok(['info'])).stdout.split('\n')[1], `${info[1]} (CTKIT_BACKEND)`);
  } finally {
    if (env === undefined) delete process.env.CTKIT_BACKEND;
    else process.env.CTKIT_BACKEND = env;
  }
});

test('bench: the filter, --all, --json, --base, --time, --copies and --impl as the harness takes them', async () => {
  const headline = benchArgs({}, []);
  assert.equal(headline.length, 1);
  assert.match('ghash/64', new RegExp(headline[0]));
  assert.match('ecdsa_p256_verify', new RegExp(headline[0]));
  assert.doesNotMatch('ghash/65', new RegExp(headline[0]));
  assert.deepEqual(benchArgs({ all: true }, []), []);
  assert.deepEqual(benchArgs({}, ['x25519']), ['x25519']);
  assert.deepEqual(benchArgs({ json: true, base: 'HEAD~1', time: '50', copies: '2', impl: ['ctkit', 'node'] }, ['sha']), ['sha', '--json', '--base', 'HEAD~1', '--time', '50', '--copies', '2', '--impl', 'ctkit', '--impl', 'node']);
  assert.deepEqual(benchArgs({ json: false }, ['sha']), ['sha']);
  assert.throws(
    () => benchArgs({ all: true }, ['x']),
    (e: Error) => e instanceof UsageError && e.message === 'bench takes a filter or --all, not both',
  );
  // --impl repeats
  assert.deepEqual(parseArgs({ args: ['--impl', 'a', '--impl', 'b'], options: COMMANDS.bench.options, allowPositionals: true }).values.impl, ['a', 'b']);
  // the real harness, through the command: it refuses --time soon (exit 2)
  const real = await run(['bench', 'x', '--time', 'soon']);
  assert.deepEqual(real, { status: 2, stdout: '', stderr: `ctkit bench: the benchmark rejected its arguments (see above); usage: ${COMMANDS.bench.usage} (ctkit bench --help)\n` });
  // a stand-in harness: it exits with the status it is given when it runs in the repository's
  // root with this process's stdout (8 and 9 otherwise); 2 is a usage error, another a failure
  const harness = join(dir, 'harness.mjs');
  writeFileSync(
    harness,
    "import { fstatSync, realpathSync } from 'node:fs';\n" +
      'const s = fstatSync(1);\n' +
      "if (s.dev + ':' + s.ino !== process.env.CTKIT_TEST_STDOUT) process.exit(8);\n" +
      'if (realpathSync(process.cwd()) !== process.env.CTKIT_TEST_ROOT) process.exit(9);\n' +
      'process.exit(Number(process.argv[2]));\n',
  );
  const fd1 = fstatSync(1);
  process.env.CTKIT_TEST_STDOUT = `${fd1.dev}:${fd1.ino}`;
  process.env.CTKIT_TEST_ROOT = realpathSync(fileURLToPath(new URL('../', import.meta.url)));
  const cwd = process.cwd();
  process.chdir(dir); // the harness runs in the repository's root wherever ctkit is run
  try {
    await runBench(['0'], harness);
    await assert.rejects(runBench(['2'], harness), (e: Error) => e instanceof UsageError && e.message === 'the benchmark rejected its arguments (see above)');
    await assert.rejects(runBench(['3'], harness), (e: Error) => e instanceof Failure && e.message === 'the benchmark exited with status 3');
  } finally {
    process.chdir(cwd);
    delete process.env.CTKIT_TEST_STDOUT;
    delete process.env.CTKIT_TEST_ROOT;
  }
  await assert.rejects(runBench([], join(dir, 'nope.ts')), (e: Error) => e instanceof UsageError && e.message === 'bench needs a clone of the ctkit repository (bench/ is not in this installation)');
  // without the dev dependencies (a copy of bench.ts where no node_modules is above it)
  const bare = mkdtempSync(join(tmpdir(), 'ctkit-bare-'));
  try {
    mkdirSync(join(bare, 'cli'));
    for (const m of ['bench', 'errors']) copyFileSync(fileURLToPath(new URL(`../src/cli/${m}.ts`, import.meta.url)), join(bare, 'cli', `${m}.ts`));
    const copy = (await import(pathToFileURL(join(bare, 'cli', 'bench.ts')).href)) as typeof import('../src/cli/bench.js');
    await assert.rejects(copy.runBench([], harness), (e: Error) => e.name === 'UsageError' && e.message === 'bench needs the dev dependencies: run `npm install` in the clone first');
  } finally {
    rmSync(bare, { recursive: true, force: true });
  }
});

test("on the js backend a command first loads every curve's opt-in JavaScript", () => {
  // a process of its own: in this one, a mutant that imports the opt-in on the wrong backend
  // would have imported it already, in the simd runs above
  const key = join(dir, 'js-p521.pem');
  const r = spawnSync(process.execPath, ctkitSourceArgv(['keygen', '--curve', 'p521', '-o', key]), { encoding: 'utf8', env: { ...process.env, CTKIT_BACKEND: 'js' } });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(createPrivateKey(readFileSync(key)).asymmetricKeyDetails?.namedCurve, 'secp521r1');
});

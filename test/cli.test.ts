// The ctkit command as a user runs it: keygen, seal, open round trips for every algorithm and
// the segment-boundary sizes; every kind of tampering gives exit status 1, a clear message and no
// output file; usage errors give exit status 2 and one line with the usage; files sealed by
// ctkit 0.1 still open; --jobs N writes the same bytes as one thread.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import pLimit from 'p-limit';
import { mkdtempSync, readFileSync, writeFileSync, existsSync, statSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ALGORITHMS, SEGMENT_SIZE, headerLength, algorithmByName } from '../src/stream/format.js';
import { Rng } from './support/rng.js';
import { ctkitArgv, ctkitAsync, ctkitSync } from './support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'ctkit-cli-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

const ctkit = (args: string[], input?: Uint8Array) => ctkitSync(args, { cwd: dir, input });
const ctkitA = (args: string[], input?: Uint8Array) => ctkitAsync(args, { cwd: dir, input });

const rng = new Rng(0xc11);
const keys = new Map<string, string>();
function keyFor(alg: string): string {
  let k = keys.get(alg);
  if (!k) {
    k = join(dir, `${alg}.key`);
    const r = ctkit(['keygen', '--aead', alg, '-o', k]);
    assert.equal(r.status, 0, r.stderr);
    keys.set(alg, k);
  }
  return k;
}

const TAG = 16;

test('keygen writes a 0600 JWK and refuses to overwrite', () => {
  const k = keyFor('chacha20-poly1305');
  assert.equal(statSync(k).mode & 0o777, 0o600);
  const jwk = JSON.parse(readFileSync(k, 'utf8'));
  assert.equal(jwk.kty, 'oct');
  assert.equal(Buffer.from(jwk.k, 'base64url').length, 32);
  const again = ctkit(['keygen', '--aead', 'chacha20-poly1305', '-o', k]);
  assert.equal(again.status, 2);
  assert.match(again.stderr, /already exists/);
  assert.equal(again.stderr.split('\n').length, 2, 'one line');
});

// the algorithms side by side (each command is a child process)
describe('round trips', { concurrency: true }, () => {
  for (const alg of ALGORITHMS) {
    test(`round trips for ${alg.name}: sizes 0, 1, S-1, S, S+1, 2S+7`, async () => {
      const key = keyFor(alg.name);
      for (const n of [0, 1, SEGMENT_SIZE - 1, SEGMENT_SIZE, SEGMENT_SIZE + 1, 2 * SEGMENT_SIZE + 7]) {
        const plain = rng.bytes(n);
        const inPath = join(dir, `p-${alg.id}-${n}`);
        writeFileSync(inPath, plain);
        const s = await ctkitA(['seal', '-k', key, inPath, '-o', inPath + '.ctk']);
        assert.equal(s.status, 0, `seal ${alg.name} ${n}: ${s.stderr}`);
        const sealed = readFileSync(inPath + '.ctk');
        const segments = Math.max(1, Math.ceil(n / SEGMENT_SIZE)); // a full last segment is the final one
        assert.equal(sealed.length, headerLength(alg) + n + segments * alg.tagLength, `sealed size for ${n}`);
        const o = await ctkitA(['open', '-k', key, inPath + '.ctk', '-o', inPath + '.out']);
        assert.equal(o.status, 0, `open ${alg.name} ${n}: ${o.stderr}`);
        assert.deepEqual(new Uint8Array(readFileSync(inPath + '.out')), plain);
      }
    });
  }
});

test('several MiB through stdin and stdout', () => {
  const key = keyFor('aes-256-gcm');
  const plain = rng.bytes(5 * 1024 * 1024 + 123);
  const s = ctkit(['seal', '--key', key], plain);
  assert.equal(s.status, 0, s.stderr);
  const o = ctkit(['open', '--key', key], s.stdout);
  assert.equal(o.status, 0, o.stderr);
  assert.equal(o.stdout.length, plain.length);
  assert.ok(Buffer.from(plain).equals(o.stdout));
});

// --- tampering: a three-segment file, every kind of damage -------------------------------------
const alg = algorithmByName('chacha20-poly1305')!;
const H = headerLength(alg);
const SEG = SEGMENT_SIZE + TAG;

function sealedFile(name: string, n: number): { path: string; bytes: Buffer } {
  const key = keyFor(alg.name);
  const p = join(dir, name);
  writeFileSync(p, rng.bytes(n));
  const r = ctkit(['seal', '-k', key, p, '-o', p + '.ctk']);
  assert.equal(r.status, 0, r.stderr);
  return { path: p + '.ctk', bytes: readFileSync(p + '.ctk') };
}

/** Opens `bytes` (a damaged file) in a directory of its own, so that cases can run side by side. */
async function assertRejected(what: string, bytes: Uint8Array, toStdout = false, authenticated = 0): Promise<void> {
  const key = keyFor(alg.name);
  const d = mkdtempSync(join(dir, 'tampered-'));
  const p = join(d, what.replace(/\W+/g, '-'));
  writeFileSync(p, bytes);
  const out = p + '.out';
  const r = toStdout ? await ctkitA(['open', '-k', key, p]) : await ctkitA(['open', '-k', key, p, '-o', out]);
  assert.equal(r.status, 1, `${what}: exit ${r.status}, stderr ${r.stderr}`);
  assert.equal(r.stderr.trim().split('\n').length, 1, `${what}: one line on stderr, got ${JSON.stringify(r.stderr)}`);
  assert.match(r.stderr, /^ctkit open: /);
  assert.ok(!existsSync(out), `${what}: output file left behind`);
  assert.deepEqual(readdirSync(d), [p.slice(d.length + 1)], `${what}: a temporary file was left behind`);
  if (!toStdout) assert.equal(r.stdout.length, 0, `${what}: plaintext on stdout`);
  // to stdout only whole segments that authenticated go out, and the message says how much
  else {
    assert.equal(r.stdout.length, authenticated, `${what}: ${r.stdout.length} bytes on stdout`);
    if (authenticated) assert.match(r.stderr, new RegExp(`${authenticated} bytes of authenticated plaintext`));
  }
}

test('tampering: header, every segment, tags, truncation, removal, duplication, swap, splice', async () => {
  // the cases run four at a time, each in a directory of its own
  const limit = pLimit(4);
  const pending: Promise<void>[] = [];
  const rejected = (...a: Parameters<typeof assertRejected>) => void pending.push(limit(() => assertRejected(...a)));
  const n = 2 * SEGMENT_SIZE + 1000; // segments of S, S, 1000 bytes
  const { bytes } = sealedFile('three', n);
  assert.equal(bytes.length, H + 2 * SEG + 1000 + TAG);
  const flip = (i: number) => {
    const b = Buffer.from(bytes);
    b[i] ^= 1;
    return b;
  };
  // header: every byte
  for (let i = 0; i < H; i++) rejected(`header byte ${i}`, flip(i));
  // a byte in each segment's ciphertext and in each tag
  for (const [s, len] of [
    [0, SEGMENT_SIZE],
    [1, SEGMENT_SIZE],
    [2, 1000],
  ] as const) {
    const base = H + s * SEG;
    rejected(`segment ${s} first byte`, flip(base));
    rejected(`segment ${s} middle byte`, flip(base + (len >> 1)));
    rejected(`segment ${s} tag`, flip(base + len + TAG - 1));
  }
  // truncation at several offsets
  for (const cut of [0, 3, H - 1, H, H + 1, H + TAG - 1, H + SEG - 1, H + SEG, H + SEG + 1, H + 2 * SEG, bytes.length - 1]) {
    rejected(`truncated at ${cut}`, bytes.subarray(0, cut));
  }
  // appended data after the final segment
  rejected('appended byte', Buffer.concat([bytes, Buffer.from([0])]));
  const seg = (i: number) => bytes.subarray(H + i * SEG, Math.min(bytes.length, H + (i + 1) * SEG));
  const hdr = bytes.subarray(0, H);
  rejected('segment 1 removed', Buffer.concat([hdr, seg(0), seg(2)]));
  rejected('segment 0 duplicated', Buffer.concat([hdr, seg(0), seg(0), seg(1), seg(2)]));
  rejected('segments 0 and 1 swapped', Buffer.concat([hdr, seg(1), seg(0), seg(2)]));
  rejected('last segment removed', Buffer.concat([hdr, seg(0), seg(1)]));
  // splicing: the same key, another file
  const other = sealedFile('other', n).bytes;
  const oseg = (i: number) => other.subarray(H + i * SEG, Math.min(other.length, H + (i + 1) * SEG));
  rejected('spliced: segment 1 from another file', Buffer.concat([hdr, seg(0), oseg(1), seg(2)]));
  rejected("spliced: another file's header", Buffer.concat([other.subarray(0, H), seg(0), seg(1), seg(2)]));
  // to stdout: the segments that authenticated (0 and 1) went out before segment 2 failed; a
  // damaged segment 0 releases nothing
  rejected('segment 2 tag, to stdout', flip(bytes.length - 1), true, 2 * SEGMENT_SIZE);
  rejected('segment 0 byte, to stdout', flip(H + 5), true, 0);
  rejected('truncated after segment 1, to stdout', bytes.subarray(0, H + 2 * SEG), true, SEGMENT_SIZE);
  // every case ends before the test does; the first failure is the test's
  const failed = (await Promise.allSettled(pending)).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
});

test('wrong key and wrong algorithm are rejected', () => {
  const { bytes } = sealedFile('wk', 100);
  const other = join(dir, 'other-chacha.key');
  assert.equal(ctkit(['keygen', '--aead', 'chacha20-poly1305', '-o', other]).status, 0);
  const p = join(dir, 'wk.in');
  writeFileSync(p, bytes);
  const r = ctkit(['open', '-k', other, p, '-o', p + '.out']);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /failed authentication/);
  assert.ok(!existsSync(p + '.out'));
  const r2 = ctkit(['open', '-k', keyFor('aes-256-gcm'), p, '-o', p + '.out']);
  assert.equal(r2.status, 1);
  assert.match(r2.stderr, /sealed with chacha20-poly1305/);
  const r3 = ctkit(['open', '-k', keyFor('aes-256-gcm'), join(dir, 'wk'), '-o', p + '.out']);
  assert.equal(r3.status, 1);
  assert.match(r3.stderr, /not a ctkit sealed file/);
  // an invalid key file is a failure with its reason (exit 1), not a usage error
  writeFileSync(join(dir, 'bad.key'), '{"kty":"oct","alg":"chacha20-poly1305","k":"AAAA"}');
  const r4 = ctkit(['open', '-k', join(dir, 'bad.key'), p, '-o', p + '.out']);
  assert.equal(r4.status, 1, r4.stderr);
  assert.match(r4.stderr, /^ctkit open: invalid key: a chacha20-poly1305 key is 32 bytes, the one in .* is 3\n$/);
  writeFileSync(join(dir, 'notjson.key'), 'hello');
  const r5 = ctkit(['seal', '-k', join(dir, 'notjson.key'), p, '-o', p + '.x']);
  assert.equal(r5.status, 1, r5.stderr);
  assert.match(r5.stderr, /invalid key: .* is not a ctkit key file/);
});

test('usage errors: exit 2, one line with the usage; help and version exit 0', () => {
  const cases: [string[], RegExp][] = [
    [[], /usage: ctkit <command>/],
    [['frobnicate'], /unknown command 'frobnicate'/],
    [['seal'], /seal needs --key/],
    [['seal', '-k', 'missing.key', 'x'], /cannot read key file/],
    [['seal', '--bogus'], /Unknown option '--bogus'/],
    [['keygen', '--aead', 'rot13', '-o', 'k'], /unknown AEAD 'rot13'/],
    [['seal', '-k', keyFor('aes-256-gcm'), '-a', 'chacha20-poly1305'], /is for aes-256-gcm, not chacha20-poly1305/],
    [['open', '-k', keyFor('aes-256-gcm'), 'a', 'b'], /too many arguments/],
    [['seal', '-k', keyFor('aes-256-gcm'), '--jobs', '0'], /--jobs takes a number/],
    [['open', '-k', keyFor('aes-256-gcm'), '-j', 'many'], /--jobs takes a number/],
  ];
  for (const [args, re] of cases) {
    const r = ctkit(args);
    assert.equal(r.status, 2, `${args.join(' ')}: exit ${r.status}`);
    assert.match(r.stderr, re, args.join(' '));
    if (!/cannot read/.test(r.stderr)) assert.match(r.stderr, /usage: ctkit/, args.join(' '));
    // (ctkit alone prints the command list, as a request for help)
    if (args.length) assert.equal(r.stderr.split('\n').length, 2, `${args.join(' ')}: more than one line: ${JSON.stringify(r.stderr)}`);
    assert.equal(r.stdout.length, 0);
  }
  for (const args of [['--help'], ['seal', '--help'], ['help', 'open'], ['open', '-h']]) {
    const r = ctkit(args);
    assert.equal(r.status, 0, args.join(' '));
    assert.match(r.stdout.toString(), /usage: ctkit/);
  }
  const v = ctkit(['--version']);
  assert.equal(v.status, 0);
  assert.equal(v.stdout.toString().trim(), JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version);
  const h = ctkit(['seal', '--help']);
  assert.match(h.stdout.toString(), /examples:/);
});

test('progress bar on stderr only when stderr is a terminal', () => {
  const key = keyFor('chacha20-poly1305');
  const big = join(dir, 'big.bin');
  writeFileSync(big, rng.bytes(9 << 20));
  const quiet = ctkit(['seal', '-k', key, big, '-o', big + '.q.ctk']);
  assert.equal(quiet.status, 0, quiet.stderr);
  assert.equal(quiet.stderr, '', 'output on stderr when it is not a terminal');
  // `script` (util-linux) gives the command a pseudo-terminal
  const r = spawnSync(
    'script',
    [
      '-q',
      '-e',
      '-c',
      `"${process.execPath}" ${ctkitArgv(['seal', '-k', key, big, '-o', `${big}.t.ctk`])
        .map((a) => `"${a}"`)
        .join(' ')}`,
      '/dev/null',
    ],
    { cwd: dir },
  );
  assert.equal(r.status, 0, r.stderr.toString());
  assert.match(r.stdout.toString(), /sealing \[#+\s*\]\s+100%/);
});

test('an exception that escapes the command (from a timer): one line, exit 1, at once', async () => {
  const k = keyFor('chacha20-poly1305');
  const { spawn } = await import('node:child_process');
  const preload = new URL('./support/throw-later.cjs', import.meta.url).pathname;
  // seal from a pipe that stays open: only the escaped exception can end it
  const child = spawn(process.execPath, ['-r', preload, ...ctkitArgv(['seal', '-k', k, '--jobs', '1'])], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(timer);
  child.stdin.destroy();
  assert.equal(stderr, 'ctkit seal: escaped from a timer\n');
  assert.equal(code, 1);
});

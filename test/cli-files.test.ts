// The file edges of `ctkit seal` and `ctkit open` (issue 12 points 5-7): unreadable inputs,
// signals and a closed stdout mid-operation (real signals to a real child process), temporary
// files (mode 0600, never left behind, never in $TMPDIR), outputs that are never overwritten
// without --force, binary output refused on a terminal, missing output directories; and the
// files of ctkit 0.1 and --jobs on the command line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chacha20Poly1305 } from '../src/aead/index.js';
import type { Aead } from '../src/aead/types.js';
import { CHUNK, pipeline } from '../src/cli/files.js';
import { ARENA } from '../src/engine/kernel.js';
import { Progress } from '../src/cli/io.js';
import { ALGORITHMS } from '../src/stream/format.js';
import { newStreamParams } from '../src/stream/sealer.js';
import { openBatch, sealBatch } from '../src/stream/segments.js';
import type { BatchCipher } from '../src/stream/web.js';
import { createSealer, SegmentAuthenticationError } from '../src/stream/index.js';
import { refOpenStream } from '../src/ref/stream.js';
import { Rng } from './support/rng.js';
import { ctkitArgv, ctkitSpawn, ctkitSync } from './support/cli.js';
import { memoryInput, memoryOutput, withoutArena } from './support/file-path.js';

const root = mkdtempSync(join(tmpdir(), 'ctkit-files-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
const rng = new Rng(0xf11e);
let n = 0;
/** A fresh directory with a chacha20-poly1305 key file in it. */
function workdir(): { dir: string; key: string; tmp: string } {
  const dir = join(root, `w${n++}`);
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const key = join(dir, 'k.key');
  const r = ctkitSync(['keygen', '--aead', 'chacha20-poly1305', '-o', key]);
  assert.equal(r.status, 0, r.stderr);
  return { dir, key, tmp };
}
const ls = (d: string) => readdirSync(d).sort();
/** $TMPDIR's entries, less tsx's compile cache (tsx-<uid>), which the test runner's loader puts there */
const lsTmp = (d: string) => ls(d).filter((f) => !/^tsx-\d+$/.test(f));
const keyBytes = (path: string) => new Uint8Array(Buffer.from(JSON.parse(readFileSync(path, 'utf8')).k, 'base64url'));

test('a missing or unreadable input: exit 2, one line, no file created, nothing on stdout', () => {
  const { dir, key, tmp } = workdir();
  mkdirSync(join(dir, 'adir'));
  for (const cmd of ['seal', 'open']) {
    for (const [input, why] of [
      ['nope.bin', /no such file \(ENOENT\)/],
      ['adir', /is a directory/],
    ] as const) {
      for (const out of [['-o', 'out.bin'], []]) {
        const before = ls(dir);
        const r = ctkitSync([cmd, '-k', key, input, ...out], { cwd: dir, env: { ...process.env, TMPDIR: tmp } });
        const what = `${cmd} ${input} ${out.join(' ')}`;
        assert.equal(r.status, 2, `${what}: ${r.stderr}`);
        assert.match(r.stderr, new RegExp(`^ctkit ${cmd}: cannot read ${input}: `), what);
        assert.match(r.stderr, why, what);
        assert.equal(r.stderr.split('\n').length, 2, `${what}: one line, got ${JSON.stringify(r.stderr)}`);
        assert.equal(r.stdout.length, 0, `${what}: ${r.stdout.length} bytes on stdout`);
        assert.deepEqual(ls(dir), before, `${what}: a file was created`);
        assert.deepEqual(lsTmp(tmp), [], `${what}: something in $TMPDIR`);
      }
    }
  }
});

test('stdin (no input or -) that is a regular file: read through its descriptor, its size known; write-only, or a directory: refused', () => {
  const { dir, key } = workdir();
  const plain = rng.bytes(70000);
  writeFileSync(join(dir, 'in'), plain);
  const withStdin = (path: string, flags: string, args: string[]) => {
    const fd = openSync(path, flags);
    try {
      return spawnSync(process.execPath, ctkitArgv(args), { cwd: dir, stdio: [fd, 'pipe', 'pipe'], encoding: 'buffer' });
    } finally {
      closeSync(fd);
    }
  };
  const sealed = withStdin(join(dir, 'in'), 'r', ['seal', '-k', key, '-o', 'in.sealed']);
  assert.equal(sealed.status, 0, String(sealed.stderr));
  // '-' names stdin as well as no input at all
  const opened = withStdin(join(dir, 'in.sealed'), 'r', ['open', '-k', key, '-']);
  assert.equal(opened.status, 0, String(opened.stderr));
  assert.ok(opened.stdout.equals(plain), 'sealed from a file on stdin, opened from one');
  // a descriptor that cannot be read (opened for writing): the read's reason, naming stdin
  const wo = withStdin(join(dir, 'in'), 'r+', ['seal', '-k', key]);
  assert.equal(wo.status, 0, 'r+ reads: the control for the write-only case below');
  const bad = withStdin(join(dir, 'in'), 'a', ['seal', '-k', key, '-o', 'never']);
  assert.equal(bad.status, 2, String(bad.stderr));
  assert.equal(String(bad.stderr), 'ctkit seal: cannot read stdin: EBADF\n');
  // a device (not a regular file) is read as a stream: opened for writing, its read fails the same way
  const dev = withStdin('/dev/null', 'w', ['seal', '-k', key, '-o', 'never']);
  assert.equal(dev.status, 2, String(dev.stderr));
  assert.equal(String(dev.stderr), 'ctkit seal: cannot read stdin: EBADF\n');
  const d = withStdin(dir, 'r', ['seal', '-k', key, '-o', 'never']);
  assert.equal(d.status, 2, String(d.stderr));
  assert.equal(String(d.stderr), 'ctkit seal: cannot read stdin: is a directory\n');
  assert.deepEqual(ls(dir), ['in', 'in.sealed', 'k.key', 'tmp']);
});

function waitFor(cond: () => boolean, what: string, ms = 30000): Promise<void> {
  const until = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const poll = () => {
      if (cond()) return resolve();
      if (Date.now() > until) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(poll, 20);
    };
    poll();
  });
}

const exited = (c: ChildProcess) => new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => c.on('exit', (code, signal) => resolve({ code, signal })));

/** A sealed stream of `size` random bytes under the key file's key. */
function sealedBytes(key: string, size: number): { plain: Uint8Array; sealed: Uint8Array } {
  const aead = chacha20Poly1305(keyBytes(key));
  const s = createSealer(aead);
  const plain = rng.bytes(size);
  const parts = [...s.push(plain), ...s.finish()];
  aead.dispose();
  return { plain, sealed: Buffer.concat(parts) };
}

for (const cmd of ['seal', 'open'] as const) {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    test(`${cmd} -o: ${sig} mid-operation removes the temporary file (mode 0600 while it lived)`, async () => {
      const { dir, key, tmp } = workdir();
      const feed = cmd === 'seal' ? rng.bytes(9 << 20) : sealedBytes(key, 9 << 20).sealed;
      const child = ctkitSpawn([cmd, '-k', key, '-o', join(dir, 'out.bin'), '--jobs', '1'], { cwd: dir, env: { ...process.env, TMPDIR: tmp }, stdio: ['pipe', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (d) => (stderr += d));
      const done = exited(child);
      child.stdin!.on('error', () => undefined); // EPIPE once the child is gone
      // more than one read's worth, then the pipe stays open: the child waits for more input
      child.stdin!.write(feed);
      const temps = () => ls(dir).filter((f) => f.includes('.ctkit-tmp'));
      await waitFor(() => temps().length === 1 && statSync(join(dir, temps()[0])).size > 0, 'a temporary file with data in it');
      const t = join(dir, temps()[0]);
      assert.equal(statSync(t).mode & 0o777, 0o600, 'temporary file mode');
      assert.ok(temps()[0].startsWith('.out.bin.'), temps()[0]);
      child.kill(sig);
      const { code, signal } = await done;
      assert.equal(signal, sig, `exit ${code}, stderr ${stderr}`);
      assert.deepEqual(ls(dir), ['k.key', 'tmp'], 'files left behind');
      assert.deepEqual(lsTmp(tmp), []);
    });
  }
}

for (const cmd of ['seal', 'open'] as const) {
  test(`${cmd} to a stdout that closes (EPIPE): quiet exit 141, no temporary file anywhere`, async () => {
    const { dir, key, tmp } = workdir();
    const input = join(dir, 'in.bin');
    writeFileSync(input, cmd === 'seal' ? rng.bytes(24 << 20) : sealedBytes(key, 24 << 20).sealed);
    const child = ctkitSpawn([cmd, '-k', key, input, '--jobs', '1'], { cwd: dir, env: { ...process.env, TMPDIR: tmp }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const done = exited(child);
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
    assert.deepEqual(lsTmp(tmp), [], 'plaintext or ciphertext spooled to $TMPDIR');
    child.stdout!.destroy();
    const { code } = await done;
    assert.equal(code, 141, `stderr: ${stderr}`);
    assert.equal(stderr, '');
    assert.deepEqual(ls(dir), ['in.bin', 'k.key', 'tmp']);
    assert.deepEqual(lsTmp(tmp), []);
  });
}

test('open to stdout streams authenticated plaintext and never writes to $TMPDIR', async () => {
  const { dir, key, tmp } = workdir();
  const { plain, sealed } = sealedBytes(key, 12 << 20);
  const child = ctkitSpawn(['open', '-k', key, '--jobs', '1'], { cwd: dir, env: { ...process.env, TMPDIR: tmp }, stdio: ['pipe', 'pipe', 'pipe'] });
  const got: Buffer[] = [];
  let gotLen = 0;
  child.stdout!.on('data', (d: Buffer) => {
    got.push(d);
    gotLen += d.length;
  });
  const done = exited(child);
  child.stdin!.on('error', () => undefined);
  child.stdin!.write(sealed.subarray(0, 9 << 20));
  // plaintext arrives while the input is still open: nothing is spooled until the end
  await waitFor(() => gotLen > 0, 'plaintext on stdout before the end of the input');
  assert.deepEqual(lsTmp(tmp), []);
  assert.deepEqual(ls(dir), ['k.key', 'tmp']);
  child.stdin!.end(sealed.subarray(9 << 20));
  const { code } = await done;
  assert.equal(code, 0);
  assert.ok(Buffer.concat(got).equals(plain));
  assert.deepEqual(lsTmp(tmp), []);
});

test('-o never overwrites without --force; a missing directory, a directory as output; binary to a terminal', () => {
  const { dir, key } = workdir();
  const plain = join(dir, 'p.bin');
  writeFileSync(plain, rng.bytes(100_000));
  writeFileSync(join(dir, 'exists.ctk'), 'keep me');
  const r1 = ctkitSync(['seal', '-k', key, plain, '-o', 'exists.ctk'], { cwd: dir });
  assert.equal(r1.status, 2, r1.stderr);
  assert.equal(r1.stderr, 'ctkit seal: exists.ctk already exists; ctkit does not overwrite it without --force\n');
  assert.equal(readFileSync(join(dir, 'exists.ctk'), 'utf8'), 'keep me');
  const r2 = ctkitSync(['seal', '-k', key, plain, '-o', 'exists.ctk', '--force'], { cwd: dir });
  assert.equal(r2.status, 0, r2.stderr);
  assert.notEqual(readFileSync(join(dir, 'exists.ctk'), 'utf8'), 'keep me');
  writeFileSync(join(dir, 'plain.out'), 'keep me too');
  const r3 = ctkitSync(['open', '-k', key, 'exists.ctk', '-o', 'plain.out'], { cwd: dir });
  assert.equal(r3.status, 2, r3.stderr);
  assert.match(r3.stderr, /plain\.out already exists/);
  assert.equal(readFileSync(join(dir, 'plain.out'), 'utf8'), 'keep me too');
  assert.equal(ctkitSync(['open', '-k', key, 'exists.ctk', '-o', 'plain.out', '-f'], { cwd: dir }).status, 0);
  assert.deepEqual(readFileSync(join(dir, 'plain.out')), readFileSync(plain));
  // the final file has the usual mode for a new file (0666 less the umask), not the temporary 0600
  assert.equal(statSync(join(dir, 'plain.out')).mode & 0o777, 0o666 & ~process.umask());
  const r4 = ctkitSync(['seal', '-k', key, plain, '-o', 'no/such/dir/x.ctk'], { cwd: dir });
  assert.equal(r4.status, 2);
  assert.equal(r4.stderr, 'ctkit seal: cannot write no/such/dir/x.ctk: the directory no/such/dir does not exist\n');
  const r5 = ctkitSync(['open', '-k', key, 'exists.ctk', '-o', 'p.bin/x'], { cwd: dir });
  assert.equal(r5.status, 2);
  assert.match(r5.stderr, /p\.bin is not a directory/);
  mkdirSync(join(dir, 'sub'));
  const r6 = ctkitSync(['seal', '-k', key, plain, '-o', 'sub'], { cwd: dir });
  assert.equal(r6.status, 2);
  assert.match(r6.stderr, /cannot write sub: it is a directory/);
  assert.deepEqual(
    ls(dir).filter((f) => f.includes('ctkit-tmp')),
    [],
  );
  // `script` (util-linux) runs the command on a pseudo-terminal: seal refuses, open writes text
  const shell = (args: string[]) =>
    `"${process.execPath}" ${ctkitArgv(args)
      .map((a) => `"${a}"`)
      .join(' ')}`;
  const tty = spawnSync('script', ['-q', '-e', '-c', shell(['seal', '-k', key, plain]), '/dev/null'], { cwd: dir });
  assert.equal(tty.status, 2, tty.stdout.toString());
  assert.match(tty.stdout.toString(), /ctkit seal: refusing to write sealed \(binary\) data to a terminal; redirect stdout or use -o <file>/);
  assert.ok(tty.stdout.length < 300, 'binary data reached the terminal');
  writeFileSync(join(dir, 'hello.txt'), 'hello, terminal\n');
  assert.equal(ctkitSync(['seal', '-k', key, 'hello.txt', '-o', 'hello.ctk'], { cwd: dir }).status, 0);
  const tty2 = spawnSync('script', ['-q', '-e', '-c', shell(['open', '-k', key, 'hello.ctk']), '/dev/null'], { cwd: dir });
  assert.equal(tty2.status, 0);
  assert.match(tty2.stdout.toString(), /hello, terminal/);
});

test('files sealed by ctkit 0.1 open with the CLI; --jobs 2 and --jobs 1 give streams both open, the model agrees', () => {
  const fx = new URL('./fixtures/stream-format1/', import.meta.url);
  const plain = new Uint8Array(150000).map((_, i) => (31 * i + 7) & 255);
  for (const a of ['aes', 'chacha', 'xchacha']) {
    for (const jobs of ['1', '2']) {
      const r = ctkitSync(['open', '-k', new URL(`${a}.key`, fx).pathname, new URL(`plain.${a}.ctk`, fx).pathname, '--jobs', jobs]);
      assert.equal(r.status, 0, `${a} --jobs ${jobs}: ${r.stderr}`);
      assert.deepEqual(new Uint8Array(r.stdout), plain, `${a} --jobs ${jobs}`);
    }
  }
  const { dir, key } = workdir();
  const big = rng.bytes((5 << 20) + 12345);
  writeFileSync(join(dir, 'big'), big);
  for (const jobs of ['1', '2']) {
    const s = ctkitSync(['seal', '-k', key, 'big', '-o', `big.${jobs}.ctk`, '--jobs', jobs], { cwd: dir });
    assert.equal(s.status, 0, s.stderr);
    const sealed = new Uint8Array(readFileSync(join(dir, `big.${jobs}.ctk`)));
    assert.deepEqual(refOpenStream('chacha20-poly1305', keyBytes(key), sealed), big, `the model opens --jobs ${jobs}`);
    for (const oj of ['1', '2']) {
      const o = ctkitSync(['open', '-k', key, `big.${jobs}.ctk`, '--jobs', oj], { cwd: dir });
      assert.equal(o.status, 0, o.stderr);
      assert.ok(o.stdout.equals(Buffer.from(big)), `sealed --jobs ${jobs}, opened --jobs ${oj}`);
    }
  }
  // a damaged segment in the middle with --jobs 2: exit 1, the output file never appears
  const bad = readFileSync(join(dir, 'big.2.ctk'));
  bad[3 << 20] ^= 1;
  writeFileSync(join(dir, 'bad.ctk'), bad);
  const o = ctkitSync(['open', '-k', key, 'bad.ctk', '-o', 'bad.out', '--jobs', '2'], { cwd: dir });
  assert.equal(o.status, 1);
  assert.match(o.stderr, /^ctkit open: segment 47 failed authentication: .*nothing was written\n$/);
  assert.ok(!ls(dir).some((f) => f.startsWith('bad.out') || f.includes('ctkit-tmp')));
});

// ---- the pipeline of seal/open with this thread and workers sharing the batches ----------------

/** A BatchCipher that seals or opens in place like a pool worker, after delay() ms (results come back out of order). */
function slowPool(aead: Aead, concurrency: number, delay: () => number) {
  const stats = { batches: 0, inFlight: 0, maxInFlight: 0 };
  const later = <T>(f: () => T) => {
    stats.maxInFlight = Math.max(stats.maxInFlight, ++stats.inFlight);
    return new Promise<T>((resolve, reject) =>
      setTimeout(() => {
        stats.inFlight--;
        try {
          resolve(f());
        } catch (e) {
          reject(e);
        }
      }, delay()),
    );
  };
  const pool: BatchCipher = {
    algorithm: aead.algorithm,
    concurrency,
    sealBatch: (p, plain, first, final) => (stats.batches++, later(() => sealBatch(aead, p, plain, first, final, new Uint8Array(plain.buffer)))),
    openBatch: (p, sealed, first, final) => (stats.batches++, later(() => openBatch(aead, p, sealed, first, final, new Uint8Array(sealed.buffer)))),
  };
  return { pool, stats };
}

/** `n` bytes, different in every MiB (random bytes repeat only after 1 MiB). */
function tiled(n: number, seed: number): Uint8Array {
  const block = new Rng(seed).bytes(1 << 20);
  const out = new Uint8Array(n);
  for (let o = 0, i = 0; o < n; o += block.length, i++) {
    out.set(block.subarray(0, Math.min(block.length, n - o)), o);
    out[o] ^= i + 1;
  }
  return out;
}

test('seal/open pipeline, this thread and workers sharing batches: the bytes of one thread, released in order', async () => {
  const rng = new Rng(0x5ea1);
  const key = rng.bytes(32);
  const aead = chacha20Poly1305(key);
  const prefix = rng.bytes(7);
  const S = 65536;
  const perBatch = CHUNK; // 64 segments
  try {
    for (const size of [0, 1, perBatch, perBatch + 1, 9 * perBatch + 3 * S - 5]) {
      const plain = tiled(size, size);
      const one = createSealer(aead, { noncePrefix: prefix });
      const expected = Buffer.concat([...one.push(plain), ...one.finish()]);
      const H = one.header.length;
      const { params } = newStreamParams(ALGORITHMS[1], { noncePrefix: prefix });
      for (const readyAfter of [0, 3]) {
        // the workers join after `readyAfter` batches, as real ones do once they have started
        const { pool, stats } = slowPool(aead, 1, () => 5 + rng.int(10));
        let asked = 0;
        let here = 0; // segments sealed or opened on this thread
        // (with the AEAD's kernel memory: this thread's batches run in place there)
        const counting = Object.assign(Object.create(aead) as Aead, {
          seal: (...a: Parameters<Aead['seal']>) => (here++, aead.seal(...a)),
          open: (...a: Parameters<Aead['open']>) => (here++, aead.open(...a)),
          [ARENA]: () => aead[ARENA](),
        });
        const ciphers = { aead: counting, pool: () => (asked++ >= readyAfter ? pool : undefined) };
        const sealedOut = memoryOutput();
        await pipeline('seal', memoryInput(plain, { delay: () => rng.int(2) }), sealedOut, ciphers, params, new Progress(undefined, 'test'));
        const what = `size ${size}, workers after ${readyAfter}`;
        assert.ok(Buffer.concat(sealedOut.parts).equals(expected.subarray(H)), `${what}: sealed bytes differ from one thread's`);
        if (size > 8 * perBatch) assert.ok(stats.batches > 0 && here > 0, `${what}: both sides sealed (${stats.batches} batches in workers, ${here} segments here)`);
        assert.ok(stats.maxInFlight <= 2, `${what}: ${stats.maxInFlight} batches in flight in one worker`);
        const openedOut = memoryOutput();
        await pipeline('open', memoryInput(expected.subarray(H), { delay: () => rng.int(2) }), openedOut, ciphers, params, new Progress(undefined, 'test'));
        assert.ok(Buffer.concat(openedOut.parts).equals(plain), `${what}: opened bytes`);
      }
    }
    // a damaged segment: everything before its batch goes out, in order, and nothing after; the
    // workers take 50 ms a batch, so batches 2-4 fail on this thread with 0 and 1 still out there.
    // The last read holds three segments, the final one alone a batch of its own (the framing of
    // ctkit/stream): the two before it are released when only the final one fails. Once with the
    // AEAD's kernel memory (this thread's batches in regions), once without (plain buffers).
    const plain = tiled(9 * perBatch + 2 * S + 100, 7);
    const one = createSealer(aead, { noncePrefix: prefix });
    const sealed = Buffer.concat([...one.push(plain), ...one.finish()]).subarray(one.header.length);
    const { params } = newStreamParams(ALGORITHMS[1], { noncePrefix: prefix });
    const last = 9 * 64 + 2;
    const plainOnly = withoutArena(aead);
    for (const thisThread of [aead, plainOnly]) {
      for (const seg of [0, 63, 64 + 5, 128 + 5, 128 + 63, 192 + 5, 256 + 5, 320 + 5, 384 + 5, 448 + 5, 512 + 5, 576, last - 1, last]) {
        const bad = Buffer.from(sealed);
        bad[seg * (S + 16) + 5] ^= 0x10;
        const { pool, stats } = slowPool(aead, 1, () => 50);
        const out = memoryOutput();
        const what = `segment ${seg}${thisThread === aead ? '' : ', plain buffers'}`;
        await assert.rejects(
          pipeline('open', memoryInput(bad, { delay: () => rng.int(2) }), out, { aead: thisThread, pool: () => pool }, params, new Progress(undefined, 'test')),
          (e: Error) => e instanceof SegmentAuthenticationError && e.segment === seg,
          what,
        );
        const released = Buffer.concat(out.parts);
        const before = seg === last ? seg * S : Math.floor(seg / 64) * perBatch;
        assert.equal(released.length, before, `${what}: released ${released.length} bytes`);
        assert.ok(released.equals(plain.subarray(0, before)), `${what}: released bytes`);
        assert.ok(stats.maxInFlight <= 2, `${what}: ${stats.maxInFlight} batches in flight in one worker`);
      }
    }
    // cut short: nothing after the header, a piece of a tag, two segments and a piece of a third
    for (const thisThread of [aead, plainOnly]) {
      for (const [cut, seg] of [
        [0, 0],
        [5, 0],
        [2 * (S + 16) + 5, 2],
      ]) {
        const out = memoryOutput();
        const what = `cut at ${cut}${thisThread === aead ? '' : ', plain buffers'}`;
        await assert.rejects(
          pipeline('open', memoryInput(sealed.subarray(0, cut)), out, { aead: thisThread, pool: () => undefined }, params, new Progress(undefined, 'test')),
          (e: Error) => e instanceof SegmentAuthenticationError && e.segment === seg && e.message === `truncated: segment ${seg} is shorter than its tag (the stream was cut, or is not a ctkit sealed stream)`,
          what,
        );
        assert.ok(Buffer.concat(out.parts).equals(plain.subarray(0, seg * S)), `${what}: the segments before it released`);
      }
    }
  } finally {
    aead.dispose();
  }
});

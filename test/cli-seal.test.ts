// `ctkit keygen --aead`, `ctkit seal` and `ctkit open` (src/cli/files.ts, over src/cli/io.ts)
// in-process, against the stream format's reference model (src/ref/stream.ts): every algorithm at
// the segment-boundary sizes, to a file and to stdout; every kind of tampering refused with its
// reason and no output file; the key file, the input and the output refused with theirs.
// test/cli.test.ts and test/cli-files.test.ts run the same commands as processes (signals,
// terminals, --jobs); this file is the quick one, so that under `npm run test:mutation -- src/cli`
// a mutant of files.ts or io.ts fails here first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { promises as fsp, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Failure, FileError, UsageError } from '../src/cli/errors.js';
import { autoJobs, type Ciphers, keygenAead, makeCipher, openFile, parseJobs, pipeline, sealFile, WORKERS_FROM } from '../src/cli/files.js';
import { Progress } from '../src/cli/io.js';
import { newStreamParams } from '../src/stream/sealer.js';
import { openBatch, type SegmentParams } from '../src/stream/segments.js';
import type { BatchCipher } from '../src/stream/web.js';
import { refOpenStream, refSealStream } from '../src/ref/stream.js';
import { ALGORITHMS, algorithmByName, headerLength, SEGMENT_SIZE } from '../src/stream/format.js';
import { Rng } from './support/rng.js';
import { rejectsWith, scratch } from './support/scratch.js';
import { asTerminal, cliOutput, cliStdout } from './support/stdout.js';
import { recorded } from './support/spy.js';
import { memoryInput, memoryOutput, withoutArena } from './support/file-path.js';
import { chachaKernel } from '../src/mac/poly1305.js';
import { ARENA, type Arena } from '../src/engine/kernel.js';
import type { Aead } from '../src/aead/types.js';

const { fresh, ls } = scratch('seal');
const rng = new Rng(0x5ea1);
const TAG = 16;
const keyDir = fresh();
const keyOf = (path: string) => new Uint8Array(Buffer.from(JSON.parse(readFileSync(path, 'utf8')).k, 'base64url'));
let keys = 0;
const keyFile = async (alg: string) => {
  const f = join(keyDir, `${alg}.${keys++}.key`);
  await keygenAead(alg, f);
  return f;
};

const rejects = rejectsWith;

test('keygen --aead: a 0600 JWK of the algorithm with a fresh key, never overwritten; an unknown AEAD refused', async () => {
  const names = ALGORITHMS.map((a) => a.name).join(', ');
  for (const a of ALGORITHMS) {
    const f = await keyFile(a.name);
    assert.equal(statSync(f).mode & 0o777, 0o600);
    const text = readFileSync(f, 'utf8');
    assert.ok(text.endsWith('}\n'));
    const jwk = JSON.parse(text);
    assert.deepEqual(Object.keys(jwk), ['kty', 'alg', 'k', 'key_ops']);
    assert.deepEqual([jwk.kty, jwk.alg, jwk.key_ops], ['oct', a.name, ['encrypt', 'decrypt']]);
    assert.equal(Buffer.from(jwk.k, 'base64url').length, a.keyLength);
    assert.equal(Buffer.from(jwk.k, 'base64url').toString('base64url'), jwk.k, 'canonical base64url');
    assert.notEqual(JSON.parse(readFileSync(await keyFile(a.name), 'utf8')).k, jwk.k, 'the same key twice');
    await rejects(keygenAead(a.name, f), FileError, `${f} already exists; ctkit never overwrites a key`);
  }
  const f = join(fresh(), 'k');
  await rejects(keygenAead('rot13', f), UsageError, `unknown AEAD 'rot13' (choose one of ${names})`);
  assert.throws(() => statSync(f), /ENOENT/);
});

test('tampering: every header byte, each segment, truncation, removal, duplication, swap, splice, another key', async () => {
  const d = fresh();
  const a = ALGORITHMS.find((x) => x.name === 'chacha20-poly1305')!;
  const key = await keyFile(a.name);
  const H = headerLength(a);
  const SEG = SEGMENT_SIZE + TAG;
  const plain = rng.bytes(2 * SEGMENT_SIZE + 1000);
  const input = join(d, 'plain');
  writeFileSync(input, plain);
  const seal = async (name: string) => {
    await sealFile({ keyPath: key, input, output: join(d, name), jobs: 1 });
    return readFileSync(join(d, name));
  };
  const bytes = await seal('three.ctk');
  const other = await seal('other.ctk');
  const one = new Uint8Array(readFileSync(join(d, 'plain')).subarray(0, 100));
  writeFileSync(join(d, 'one'), one);
  await sealFile({ keyPath: key, input: join(d, 'one'), output: join(d, 'one.ctk'), jobs: 1 });
  const oneSeg = readFileSync(join(d, 'one.ctk'));
  const flip = (b: Buffer, i: number) => {
    const c = Buffer.from(b);
    c[i] ^= 1;
    return c;
  };
  const seg = (b: Buffer, i: number) => b.subarray(H + i * SEG, Math.min(b.length, H + (i + 1) * SEG));
  const cases: [string, Uint8Array, RegExp][] = [];
  for (let i = 0; i < H; i++) {
    cases.push([`header byte ${i}`, flip(bytes, i), /./]);
    cases.push([`one segment: header byte ${i}`, flip(oneSeg, i), /./]);
  }
  for (const [s, len] of [
    [0, SEGMENT_SIZE],
    [1, SEGMENT_SIZE],
    [2, 1000],
  ] as const) {
    for (const at of [0, len >> 1, len + TAG - 1]) cases.push([`segment ${s} byte ${at}`, flip(bytes, H + s * SEG + at), new RegExp(`^segment ${s} failed authentication: `)]);
  }
  for (const cut of [0, 3, H - 1, H, H + 1, H + TAG - 1, H + SEG - 1, H + SEG, H + SEG + 1, H + 2 * SEG, bytes.length - 1]) cases.push([`truncated at ${cut}`, bytes.subarray(0, cut), /./]);
  cases.push(['appended byte', Buffer.concat([bytes, Buffer.of(0)]), /./]);
  const hdr = bytes.subarray(0, H);
  cases.push(['segment 1 removed', Buffer.concat([hdr, seg(bytes, 0), seg(bytes, 2)]), /^segment 1 failed authentication/]);
  cases.push(['segment 0 duplicated', Buffer.concat([hdr, seg(bytes, 0), seg(bytes, 0), seg(bytes, 1), seg(bytes, 2)]), /^segment 1 failed authentication/]);
  cases.push(['segments 0 and 1 swapped', Buffer.concat([hdr, seg(bytes, 1), seg(bytes, 0), seg(bytes, 2)]), /^segment 0 failed authentication/]);
  cases.push(['last segment removed', Buffer.concat([hdr, seg(bytes, 0), seg(bytes, 1)]), /^segment 1 failed authentication/]);
  cases.push(['segment 1 from another file', Buffer.concat([hdr, seg(bytes, 0), seg(other, 1), seg(bytes, 2)]), /^segment 1 failed authentication/]);
  cases.push(["another file's header", Buffer.concat([other.subarray(0, H), seg(bytes, 0), seg(bytes, 1), seg(bytes, 2)]), /^segment 0 failed authentication/]);
  for (const [what, file, why] of cases) {
    const cd = fresh();
    writeFileSync(join(cd, 'in'), file);
    const run = openFile({ keyPath: key, input: join(cd, 'in'), output: join(cd, 'out'), jobs: 1 });
    // one open: its reason, and that nothing was written
    await assert.rejects(run, (e: Error) => {
      assert.ok(e instanceof Failure, `${what}: ${e.name}: ${e.message}`);
      assert.match(e.message, why, what);
      assert.match(e.message, /^[^\n]+; nothing was written$|not a ctkit sealed file|unsupported|sealed with|segment size/, `${what}: ${e.message}`);
      return true;
    });
    assert.deepEqual(ls(cd), ['in'], `${what}: a file was left behind`);
  }
  // specific messages
  const open = (b: Uint8Array, keyPath = key) => {
    const f = join(fresh(), 'in');
    writeFileSync(f, b);
    return openFile({ keyPath, input: f, output: `${f}.out`, jobs: 1 });
  };
  await rejects(open(new Uint8Array(0)), Failure, 'empty input: not a ctkit sealed file; nothing was written');
  await rejects(open(bytes.subarray(0, 3)), Failure, 'truncated: the file ends inside its header; nothing was written');
  await rejects(open(bytes.subarray(0, H + 2 * SEG)), Failure, /^segment 1 failed authentication: the file is damaged, truncated, reordered or spliced, or the key is wrong; nothing was written$/);
  await rejects(open(bytes, await keyFile(a.name)), Failure, /^segment 0 failed authentication: .*; nothing was written$/);
  await rejects(open(bytes, await keyFile('aes-256-gcm')), Failure, /sealed with chacha20-poly1305/);
  await rejects(open(Buffer.from('hello, world')), Failure, /not a ctkit sealed file/);

  // to stdout: the segments that authenticated went out, and the message counts them
  for (const [what, file, written] of [
    ['segment 2 tag', flip(bytes, bytes.length - 1), 2 * SEGMENT_SIZE],
    ['segment 0 byte', flip(bytes, H + 5), 0],
    ['truncated after segment 1', bytes.subarray(0, H + 2 * SEG), SEGMENT_SIZE],
  ] as const) {
    const f = join(fresh(), 'in');
    writeFileSync(f, file);
    let err: Error | undefined;
    const out = await cliStdout(() => openFile({ keyPath: key, input: f, jobs: 1 }).catch((e) => void (err = e)));
    assert.ok(err instanceof Failure, what);
    assert.ok(err.message.endsWith(written ? `; ${written} bytes of authenticated plaintext before it were already written to stdout` : '; nothing was written'), `${what}: ${err.message}`);
    assert.deepEqual(new Uint8Array(out), plain.subarray(0, written), what);
  }
});

test('key files, inputs and outputs refused with their reasons; nothing created, existing files kept', async () => {
  const d = fresh();
  const key = await keyFile('aes-256-gcm');
  const input = join(d, 'plain');
  writeFileSync(input, 'hello');
  const names = ALGORITHMS.map((a) => a.name).join(', ');
  await rejects(sealFile({ keyPath: key, alg: 'chacha20-poly1305', input, output: join(d, 'o') }), UsageError, `the key in ${key} is for aes-256-gcm, not chacha20-poly1305`);
  await rejects(sealFile({ keyPath: key, alg: 'rot13', input, output: join(d, 'o') }), UsageError, `unknown AEAD 'rot13' (choose one of ${names})`);
  await rejects(sealFile({ keyPath: join(d, 'nope.key'), input, output: join(d, 'o') }), FileError, `cannot read key file ${join(d, 'nope.key')}: no such file (ENOENT)`);
  await rejects(openFile({ keyPath: join(d, 'nope.key'), input, output: join(d, 'o') }), FileError, `cannot read key file ${join(d, 'nope.key')}: no such file (ENOENT)`);
  await rejects(sealFile({ keyPath: key, input: join(d, 'nope'), output: join(d, 'o') }), FileError, `cannot read ${join(d, 'nope')}: no such file (ENOENT)`);
  await rejects(openFile({ keyPath: key, input: join(d, 'nope'), output: join(d, 'o') }), FileError, `cannot read ${join(d, 'nope')}: no such file (ENOENT)`);
  await rejects(sealFile({ keyPath: key, input: d, output: join(d, 'o') }), FileError, `cannot read ${d}: is a directory`);
  const bad = join(d, 'bad.key');
  writeFileSync(bad, '{"kty":"oct","alg":"chacha20-poly1305","k":"AAAA"}');
  await rejects(sealFile({ keyPath: bad, input, output: join(d, 'o') }), Failure, `invalid key: a chacha20-poly1305 key is 32 bytes, the one in ${bad} is 3`);
  await rejects(openFile({ keyPath: bad, input, output: join(d, 'o') }), Failure, `invalid key: a chacha20-poly1305 key is 32 bytes, the one in ${bad} is 3`);
  // an existing output is kept without --force, replaced with it
  const exists = join(d, 'exists');
  writeFileSync(exists, 'keep');
  await rejects(sealFile({ keyPath: key, input, output: exists, jobs: 1 }), FileError, /already exists/);
  assert.equal(readFileSync(exists, 'utf8'), 'keep');
  await sealFile({ keyPath: key, input, output: exists, force: true, jobs: 1 });
  await rejects(openFile({ keyPath: key, input: exists, output: exists, jobs: 1 }), FileError, /already exists/);
  await openFile({ keyPath: key, input: exists, output: join(d, 'back'), jobs: 1 });
  assert.equal(readFileSync(join(d, 'back'), 'utf8'), 'hello');
  await rejects(sealFile({ keyPath: key, input, output: join(d, 'no', 'o'), jobs: 1 }), FileError, /does not exist/);
  assert.deepEqual(ls(d), ['back', 'bad.key', 'exists', 'plain']);
});

test('--jobs: 1 to 256 workers, in decimal; automatic: one thread below WORKERS_FROM, else every core', () => {
  assert.equal(parseJobs(undefined), undefined);
  for (const v of ['1', '2', '16', '256']) assert.equal(parseJobs(v), Number(v));
  for (const v of ['0', '257', '01', '1.5', '-1', 'x', '', ' 2', '1e2']) {
    assert.throws(
      () => parseJobs(v),
      (e: Error) => e instanceof UsageError && e.message === `--jobs takes a number of workers from 1 to 256, got '${v}'`,
      v,
    );
  }
  assert.equal(WORKERS_FROM, 16 << 20);
  assert.equal(autoJobs(0), 1);
  assert.equal(autoJobs(WORKERS_FROM - 1), 1);
  assert.equal(autoJobs(WORKERS_FROM), availableParallelism());
  assert.equal(autoJobs(undefined), availableParallelism());
});

test('seal → the model opens it; the model seals → open; every algorithm, around the segment size; to a file and to stdout', async () => {
  const d = fresh();
  for (const a of ALGORITHMS) {
    const key = await keyFile(a.name);
    for (const size of [0, 1, SEGMENT_SIZE, SEGMENT_SIZE + 1, 2 * SEGMENT_SIZE + 1000]) {
      const plain = rng.bytes(size);
      const input = join(d, `${a.name}.${size}`);
      writeFileSync(input, plain);
      const output = `${input}.ctk`;
      await sealFile({ keyPath: key, input, output, jobs: 1 });
      const sealed = new Uint8Array(readFileSync(output));
      const segments = Math.max(1, Math.ceil(size / SEGMENT_SIZE));
      assert.equal(sealed.length, headerLength(a) + size + segments * TAG, `${a.name} ${size}: length`);
      // the models of the GCM family are slow (bitwise GF(2^128)): they see one two-segment stream
      const model = size <= 1 || size === SEGMENT_SIZE + 1 || a.name.includes('chacha');
      if (model) assert.deepEqual(refOpenStream(a.name, keyOf(key), sealed), plain, `${a.name} ${size}: the model opens it`);
      // by name, and to stdout: another stream (a new nonce prefix) of the same plaintext
      // (the larger stdout streams are opened by ctkit below)
      const again = new Uint8Array(await cliStdout(() => sealFile({ keyPath: key, alg: a.name, input, jobs: 1 })));
      assert.equal(again.length, sealed.length);
      assert.notDeepEqual(again.subarray(0, headerLength(a)), sealed.subarray(0, headerLength(a)), 'two seals with one nonce prefix');
      if (size <= 1) assert.deepEqual(refOpenStream(a.name, keyOf(key), again), plain, `${a.name} ${size}: the model opens the stdout stream`);
      writeFileSync(`${input}.stdout.ctk`, again);
      // open: to a file and to stdout, of ctkit's stream and of the model's
      const modelFile = join(d, `${a.name}.${size}.model`);
      if (model) writeFileSync(modelFile, refSealStream({ algorithm: a.name, key: keyOf(key), prefix: rng.bytes(a.nonceLength - 5), segmentSize: SEGMENT_SIZE }, plain));
      for (const f of [output, ...(model ? [modelFile] : []), `${input}.stdout.ctk`]) {
        await openFile({ keyPath: key, input: f, output: `${f}.out`, jobs: 1 });
        assert.deepEqual(new Uint8Array(readFileSync(`${f}.out`)), plain, `${a.name} ${size}: open -o`);
        assert.deepEqual(new Uint8Array(await cliStdout(() => openFile({ keyPath: key, input: f, output: '-', jobs: 1 }))), plain, `${a.name} ${size}: open to stdout`);
      }
    }
  }
});

const zero = (b: Uint8Array) => b.every((x) => x === 0);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const CHACHA = algorithmByName('chacha20-poly1305')!;

test('wiped: the new key of keygen --aead, and the bytes of a key file once parsed', async () => {
  const d = fresh();
  const f = join(d, 'k.key');
  const random: unknown[][] = [];
  await recorded(crypto, 'getRandomValues', random, () => keygenAead('aes-256-gcm', f));
  assert.equal(random.length, 1);
  assert.ok(zero(random[0][0] as Uint8Array), 'the new key');
  assert.ok(!zero(keyOf(f)), 'the control: the file holds it');
  writeFileSync(join(d, 'p'), 'plain');
  const reads: unknown[][] = [];
  await recorded(fsp, 'readFile', reads, () => sealFile({ keyPath: f, input: join(d, 'p'), output: join(d, 'c'), jobs: 1 }));
  const mine = reads.filter((c) => c[0] === f);
  assert.equal(mine.length, 1);
  const bytes = (await mine[0][mine[0].length - 1]) as Uint8Array;
  assert.ok(bytes.length > 40 && zero(bytes), 'the key file as read');
});

test('a terminal: the progress bar says sealing or opening', async () => {
  const d = fresh();
  const key = await keyFile('chacha20-poly1305');
  writeFileSync(join(d, 'big'), rng.bytes(8 << 20)); // the smallest input with a progress bar
  await asTerminal({ stderr: true }, async () => {
    const s = await cliOutput(() => sealFile({ keyPath: key, input: join(d, 'big'), output: join(d, 'big.ctk'), jobs: 1 }));
    assert.match(s.stderr, /^\rsealing \[#*\s*\]/);
    assert.match(s.stderr, /100% \d+ MB\/s\n$/);
    const o = await cliOutput(() => openFile({ keyPath: key, input: join(d, 'big.ctk'), output: join(d, 'big.out'), jobs: 1 }));
    assert.match(o.stderr, /^\ropening \[#*\s*\]/);
  });
  assert.ok(readFileSync(join(d, 'big.out')).equals(readFileSync(join(d, 'big'))));
});

test('makeCipher: jobs − 1 workers started in the background beside this thread; a pool that cannot start is its error; jobs 1 has none', async () => {
  // each disposed however the test ends: live workers would keep the process running
  const started = await makeCipher(CHACHA, rng.bytes(32), 3);
  try {
    let pool: BatchCipher | undefined;
    for (let i = 0; i < 400 && !(pool = started.cipher.pool()); i++) await sleep(50);
    assert.ok(pool, 'the workers started');
    assert.equal(pool.concurrency, 2);
    assert.equal(pool.algorithm, 'chacha20-poly1305');
  } finally {
    await started.dispose();
  }
  // 300 jobs: 299 workers, more than a pool takes
  const refused = await makeCipher(CHACHA, rng.bytes(32), 300);
  try {
    let error: unknown;
    for (let i = 0; i < 400 && error === undefined; i++) {
      try {
        refused.cipher.pool();
      } catch (e) {
        error = e;
      }
      await sleep(10);
    }
    assert.ok(error instanceof RangeError && error.message === 'workers must be an integer from 1 to 256, got 299', String(error));
  } finally {
    await refused.dispose();
  }
  const one = await makeCipher(CHACHA, rng.bytes(32), 1);
  await sleep(100);
  assert.equal(one.cipher.pool(), undefined);
  await one.dispose();
});

const ids = new Map<ArrayBufferLike, number>();
/** Buffers (or regions of one kernel memory: views at different offsets) among `bufs`. */
const distinct = (bufs: Uint8Array[]) =>
  new Set(
    bufs.map((b) => {
      if (!ids.has(b.buffer)) ids.set(b.buffer, ids.size);
      return `${ids.get(b.buffer)}:${b.byteOffset}`;
    }),
  ).size;

for (const where of ['kernel memory', 'plain buffers'] as const) {
  test(`the file path (${where}): 40 batches through a few reused buffers, at most three writes queued, every buffer wiped at the end`, async () => {
    const S = 4096;
    const { params } = newStreamParams(CHACHA, { segmentSize: S });
    const c = await makeCipher(CHACHA, rng.bytes(32), 1);
    const cipher: Ciphers = where === 'kernel memory' ? c.cipher : { aead: withoutArena(c.cipher.aead), pool: () => undefined };
    const plain = rng.bytes(40 * S + 100);
    // an input that says it is one segment long: one segment per read and per batch
    const input = memoryInput(plain, { size: S });
    const out = memoryOutput({ delay: 2 });
    await pipeline('seal', input, out, cipher, params, new Progress(undefined, 'test'));
    const sealed = Buffer.concat(out.parts);
    assert.equal(out.given.length, 41);
    assert.ok(Buffer.from(openBatch(c.cipher.aead, params, sealed, 0, true)).equals(plain), 'the batches are the stream');
    assert.ok(out.maxPending <= 3, `${out.maxPending} writes in flight`);
    // (the reads ahead of the last one, past the end, are among them: wiped too)
    assert.ok(input.into.length > 41 && distinct(input.into) <= 7, `${distinct(input.into)} buffers for 41 batches`);
    // on WebAssembly, the batches ran in regions of the kernel's memory (read and written there)
    const wasm = where === 'kernel memory' && chachaKernel().backend !== 'js';
    const inKernel = (b: Uint8Array) => b.buffer === chachaKernel().u8.buffer;
    assert.equal(input.into.every(inKernel) && out.given.every(inKernel), wasm, 'batches in kernel memory');
    assert.ok(!input.into.some(inKernel) || wasm, 'plain buffers only');
    assert.ok(out.given.every(zero) && input.into.every(zero), 'every buffer wiped');
    // the way back, one sealed segment per read
    const back = memoryInput(sealed, { size: S + 16 });
    const pout = memoryOutput();
    await pipeline('open', back, pout, cipher, params, new Progress(undefined, 'test'));
    assert.ok(Buffer.concat(pout.parts).equals(plain));
    assert.ok(back.into.length > 41 && distinct(back.into) <= 7, `${distinct(back.into)} buffers for 41 batches`);
    assert.equal(back.into.every(inKernel) && pout.given.every(inKernel), wasm, 'batches in kernel memory');
    assert.ok(pout.given.every(zero) && back.into.every(zero), 'every buffer wiped');
    await c.dispose();
  });
}

test('the file path: a write that fails ends it with that error, on both paths, every buffer wiped', async () => {
  const S = 4096;
  const { params } = newStreamParams(CHACHA, { segmentSize: S });
  const c = await makeCipher(CHACHA, rng.bytes(32), 1);
  // three full batches of 1024 segments, then a last read of three segments and a piece
  const plain = rng.bytes(3 * (4 << 20) + 3 * S + 7);
  for (const cipher of [c.cipher, { aead: withoutArena(c.cipher.aead), pool: () => undefined }]) {
    // the writes of a run that does not fail (four: the last read is one batch in kernel memory; five: two on plain buffers)
    const whole = memoryOutput();
    await pipeline('seal', memoryInput(plain), whole, cipher, params, new Progress(undefined, 'test'));
    assert.ok(Buffer.concat(whole.parts).length === plain.length + (3 * 1024 + 4) * 16 && whole.given.length >= 4);
    for (let failAt = 1; failAt <= whole.given.length; failAt++) {
      let writes = 0;
      const out = memoryOutput();
      const write = out.write;
      out.write = async (chunks) => {
        if (++writes === failAt) throw new Error(`write ${writes} failed`);
        return write(chunks);
      };
      const input = memoryInput(plain);
      const what = `${cipher === c.cipher ? 'kernel memory' : 'plain buffers'}, write ${failAt}`;
      await assert.rejects(pipeline('seal', input, out, cipher, params, new Progress(undefined, 'test')), { message: `write ${failAt} failed` }, what);
      assert.equal(out.parts.length, failAt - 1, `${what}: the writes before it`);
      assert.ok(input.into.every(zero) && out.given.every(zero), `${what}: every buffer wiped`);
    }
  }
  await c.dispose();
});

test('the file path in kernel memory: if the memory grows meanwhile (a read in flight may be lost), it stops with an internal error', async () => {
  const S = 4096;
  const { params } = newStreamParams(CHACHA, { segmentSize: S });
  const c = await makeCipher(CHACHA, rng.bytes(32), 1);
  const real = (c.cipher.aead as unknown as Record<typeof ARENA, () => Arena | undefined>)[ARENA]();
  if (!real) {
    assert.equal(chachaKernel().backend, 'js', 'no kernel memory only on the js backend');
    await c.dispose();
    return;
  }
  let grown = 0;
  // the same kernel, whose generation moves once `grown` is set
  const arena: Arena = {
    get u8() {
      return real.u8;
    },
    get generation() {
      return real.generation + grown;
    },
    allocRegion: (b) => real.allocRegion(b),
    freeRegion: (p, b) => real.freeRegion(p, b),
  };
  const aead = c.cipher.aead;
  const wrapped = Object.assign(Object.create(aead) as Aead, { seal: aead.seal.bind(aead), open: aead.open.bind(aead), [ARENA]: () => arena });
  const plain = rng.bytes(10 * S);
  const input = memoryInput(plain, { size: S });
  const readFull = input.readFull;
  let reads = 0;
  input.readFull = async (...a) => {
    if (++reads === 4) grown = 1;
    return readFull(...a);
  };
  const out = memoryOutput();
  await rejectsWith(pipeline('seal', input, out, { aead: wrapped, pool: () => undefined }, params, new Progress(undefined, 'test')), Failure, 'internal error: kernel memory grew during the file path');
  assert.ok(out.parts.length <= 3, `${out.parts.length} batches went out`);
  await c.dispose();
});

test('the file path: workers that could not start stop it with their error, on every backend', async () => {
  const S = 4096;
  const { params } = newStreamParams(CHACHA, { segmentSize: S });
  const c = await makeCipher(CHACHA, rng.bytes(32), 1);
  for (const dir of ['seal', 'open'] as const) {
    let asked = 0;
    const failed = new Error('the worker could not start');
    const cipher = {
      aead: c.cipher.aead,
      pool: () => {
        if (++asked > 3) throw failed;
        return undefined;
      },
    };
    const out = memoryOutput();
    await assert.rejects(pipeline(dir, memoryInput(rng.bytes(20 * (S + 16)), { size: S }), out, cipher, params, new Progress(undefined, 'test')), (e) => e === failed, dir);
    assert.ok(out.parts.length < 20, `${dir}: ${out.parts.length} batches went out`);
  }
  await c.dispose();
});

test('the file path with workers: a failed batch stops the output there, and the results that arrive after it are wiped', async () => {
  const S = 4096;
  const { params } = newStreamParams(CHACHA, { segmentSize: S });
  const c = await makeCipher(CHACHA, rng.bytes(32), 1);
  const plain = rng.bytes(12 * S);
  const sealedOut = memoryOutput();
  await pipeline('seal', memoryInput(plain, { size: S }), sealedOut, c.cipher, params, new Progress(undefined, 'test'));
  const sealed = Buffer.concat(sealedOut.parts);
  sealed[(S + 16) * 1 + 5] ^= 1; // segment 1
  // a pool in this thread: batch 1 (the damaged one) answers last, the ones after it first
  const returned: Uint8Array[] = [];
  const pool: BatchCipher = {
    algorithm: CHACHA.name,
    concurrency: 2,
    sealBatch: () => Promise.reject(new Error('not used')),
    openBatch: async (p: SegmentParams, data: Uint8Array, first: number, final: boolean) => {
      await sleep(first === 1 ? 60 : 5);
      const r = openBatch(c.cipher.aead, p, data, first, final);
      returned.push(r);
      return r;
    },
  };
  const ciphers: Ciphers = { aead: c.cipher.aead, pool: () => pool };
  const input = memoryInput(sealed, { size: S + 16 });
  const out = memoryOutput();
  await rejectsWith(pipeline('open', input, out, ciphers, params, new Progress(undefined, 'test')), Error, /segment 1/);
  await sleep(100);
  assert.equal(Buffer.concat(out.parts).length, S, 'segment 0 only');
  assert.ok(returned.length >= 3, `${returned.length} batches came back`);
  // (the sealed batches stay in the read buffers: a real pool moves them away, and they are not secret)
  assert.ok(returned.every(zero), 'every plaintext that came back wiped');
  await c.dispose();
});

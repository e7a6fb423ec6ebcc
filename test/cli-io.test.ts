// src/cli/io.ts in-process: the file output (a 0600 temporary file beside the target, renamed
// into place with the mode a new file gets, never over a file that exists or appears meanwhile,
// nothing left behind on abort), the input reader, error reasons, and the progress bar (on
// stderr, only for a terminal and a large input, at most ten times a second). Signals and stdin
// are test/cli-files.test.ts's (a real child process); this file is the quick one, so that under
// `npm run test:mutation -- src/cli` a mutant of io.ts fails here first.
import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fsp, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FileError } from '../src/cli/errors.js';
import { createSecretFile, Input, installCleanup, openOutput, Progress, reason } from '../src/cli/io.js';
import { Rng } from './support/rng.js';
import { rejectsWith, scratch } from './support/scratch.js';
import { recorded, replaced } from './support/spy.js';
import { cliOutput, fromCli, takeFrom } from './support/stdout.js';

const { fresh, ls } = scratch('io');
const rng = new Rng(0x10);

const rejects = (f: Promise<unknown>, message: string | RegExp) => rejectsWith(f, FileError, message);

/** The file handles that the fs.promises.open calls recorded by `recorded` gave out (fd −1 once closed). */
const handlesOf = (opens: unknown[][]) => Promise.all(opens.map((call) => call.at(-1) as Promise<fsp.FileHandle>));

// first in this file: nothing before it has installed the handlers in this process
test('cleanup handlers: installed once however often asked; at exit they remove an unfinished output', async () => {
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const before = signals.map((s) => process.listenerCount(s));
  const exitBefore = process.listeners('exit');
  installCleanup();
  installCleanup();
  assert.deepEqual(
    signals.map((s) => process.listenerCount(s)),
    before.map((n) => n + 1),
    'one handler per signal',
  );
  const added = process.listeners('exit').filter((l) => !exitBefore.includes(l));
  assert.equal(added.length, 1, 'one exit handler');
  // what process.exit() runs: the temporary file of an output that was neither committed nor aborted goes
  const d = fresh();
  const out = await openOutput(join(d, 'out.bin'), {});
  await out.write([rng.bytes(1000)]);
  assert.equal(ls(d).length, 1);
  (added[0] as (code: number) => void)(1);
  assert.deepEqual(ls(d), []);
  await out.abort();
});

test('file output: a 0600 temporary beside the target while writing, then the target with the usual mode', async () => {
  const d = fresh();
  const target = join(d, 'out.bin');
  const out = await openOutput(target, {});
  assert.equal(out.streaming, false);
  const [tmp] = ls(d);
  assert.match(tmp, /^\.out\.bin\.[0-9a-f]{12}\.ctkit-tmp$/);
  assert.equal(statSync(join(d, tmp)).mode & 0o777, 0o600);
  const data = rng.bytes(100000);
  await out.write([data.subarray(0, 10), new Uint8Array(0), data.subarray(10, 70000)]);
  await out.write([]);
  await out.write([data.subarray(70000)]);
  assert.equal(out.written, 100000);
  assert.deepEqual(ls(d), [tmp], 'the target appears only on commit');
  await out.commit();
  assert.deepEqual(ls(d), ['out.bin']);
  assert.deepEqual(new Uint8Array(readFileSync(target)), data);
  assert.equal(statSync(target).mode & 0o777, 0o666 & ~process.umask());
  // abort after commit does nothing
  await out.abort();
  assert.deepEqual(ls(d), ['out.bin']);
});

test('file output: abort leaves nothing; an existing target is kept without force, replaced with it', async () => {
  const d = fresh();
  const target = join(d, 'out');
  const a = await openOutput(target, {});
  await a.write([rng.bytes(1000)]);
  await a.abort();
  await a.abort();
  assert.deepEqual(ls(d), []);
  writeFileSync(target, 'keep');
  await rejects(openOutput(target, {}), `${target} already exists; ctkit does not overwrite it without --force`);
  await rejects(openOutput(target, { force: false }), /already exists/);
  assert.deepEqual(ls(d), ['out']);
  const f = await openOutput(target, { force: true });
  assert.equal(readFileSync(target, 'utf8'), 'keep', 'replaced before commit');
  await f.write([Buffer.from('new')]);
  await f.commit();
  assert.equal(readFileSync(target, 'utf8'), 'new');
  assert.deepEqual(ls(d), ['out']);
});

test('file output: a target that appears while writing is not overwritten, and the output is discarded', async () => {
  const d = fresh();
  const target = join(d, 'out');
  const o = await openOutput(target, {});
  await o.write([Buffer.from('secret plaintext')]);
  writeFileSync(target, 'theirs');
  await rejects(o.commit(), `${target} appeared while ctkit was writing; not overwritten (the output was discarded)`);
  assert.deepEqual(ls(d), ['out']);
  assert.equal(readFileSync(target, 'utf8'), 'theirs');
});

test('file output: where it cannot be written, a FileError that says why, before any file exists', async () => {
  const d = fresh();
  await rejects(openOutput(join(d, 'no', 'out'), {}), `cannot write ${join(d, 'no', 'out')}: the directory ${join(d, 'no')} does not exist`);
  writeFileSync(join(d, 'file'), '');
  await rejects(openOutput(join(d, 'file', 'out'), {}), `cannot write ${join(d, 'file', 'out')}: ${join(d, 'file')} is not a directory`);
  mkdirSync(join(d, 'dir'));
  await rejects(openOutput(join(d, 'dir'), { force: true }), `cannot write ${join(d, 'dir')}: it is a directory`);
  assert.deepEqual(ls(d), ['dir', 'file']);
  assert.deepEqual(ls(join(d, 'dir')), []);
});

test('input: a file read in full in any pieces, its size known; a missing file or a directory refused', async () => {
  const d = fresh();
  const data = rng.bytes(70000);
  writeFileSync(join(d, 'in'), data);
  const opens: unknown[][] = [];
  let input: Input | undefined;
  await recorded(fsp, 'open', opens, async () => {
    input = await Input.open(join(d, 'in'));
  });
  assert.ok(input);
  assert.equal(input.size, 70000);
  assert.equal(input.name, join(d, 'in'));
  const buf = new Uint8Array(80000);
  assert.equal(await input.readFull(buf, 0, 1), 1);
  assert.equal(await input.readFull(buf, 1, 40000), 40000);
  assert.equal(input.bytesRead, 40001);
  assert.equal(await input.readFull(buf, 40001), 29999, 'fewer only at the end');
  assert.equal(await input.readFull(buf, 0), 0);
  assert.equal(input.bytesRead, 70000);
  assert.deepEqual(buf.subarray(0, 70000), data);
  await input.close();
  await input.close();
  assert.deepEqual(
    (await handlesOf(opens)).map((fh) => fh.fd),
    [-1],
    'closed',
  );
  await rejects(Input.open(join(d, 'nope')), `cannot read ${join(d, 'nope')}: no such file (ENOENT)`);
  await rejects(Input.open(d), `cannot read ${d}: is a directory`);
});

test('reason: the errno codes in words with the code, other errors as their message', () => {
  const err = (code: string) => Object.assign(new Error(`x ${code}`), { code });
  assert.equal(reason(err('ENOENT')), 'no such file (ENOENT)');
  assert.equal(reason(err('EACCES')), 'permission denied (EACCES)');
  assert.equal(reason(err('ENOSPC')), 'no space left on the device (ENOSPC)');
  assert.equal(reason(err('EPERM')), 'operation not permitted (EPERM)');
  assert.equal(reason(err('EISDIR')), 'is a directory (EISDIR)');
  assert.equal(reason(err('ENOTDIR')), 'a component of the path is not a directory (ENOTDIR)');
  assert.equal(reason(err('ELOOP')), 'too many symbolic links (ELOOP)');
  assert.equal(reason(err('ENAMETOOLONG')), 'name too long (ENAMETOOLONG)');
  assert.equal(reason(err('EROFS')), 'read-only file system (EROFS)');
  assert.equal(reason(err('EMFILE')), 'too many open files (EMFILE)');
  assert.equal(reason(err('EWHATEVER')), 'EWHATEVER');
  assert.equal(reason(new Error('plain')), 'plain');
  assert.equal(reason('a string'), 'a string');
  assert.equal(reason(Object.assign(new Error('m'), { code: 42 })), 'm');
});

test('progress: on stderr for a terminal and at least 8 MiB, at most every 100 ms, and the last update always', async () => {
  const tty = process.stderr.isTTY;
  mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
  try {
    const lines = async (f: () => void) => (await cliOutput(async () => f())).stderr;
    // not a terminal, or too small, or of unknown size: nothing
    process.stderr.isTTY = false;
    assert.equal(await lines(() => new Progress(1 << 30, 'sealing').update(1 << 29)), '');
    process.stderr.isTTY = true;
    for (const total of [undefined, (8 << 20) - 1]) {
      assert.equal(
        await lines(() => {
          const p = new Progress(total, 'sealing');
          p.update(1 << 20);
          p.end();
        }),
        '',
      );
    }
    const total = 8 << 20;
    const p = new Progress(total, 'opening');
    assert.equal(p.label, 'opening');
    mock.timers.tick(1000);
    assert.equal(await lines(() => p.update(total / 4)), `\ropening [########                      ]  25% 2 MB/s`);
    mock.timers.tick(99);
    assert.equal(await lines(() => p.update(total / 2)), '', 'within 100 ms of the last');
    mock.timers.tick(1);
    assert.equal(await lines(() => p.update(total / 2)), `\ropening [###############               ]  50% 4 MB/s`);
    assert.equal(await lines(() => p.update(total)), `\ropening [##############################] 100% 8 MB/s`, 'the end, however soon');
    assert.equal(await lines(() => p.update(2 * total)), `\ropening [##############################] 100% 15 MB/s`, 'never past 100 % (16.8 MB in 1.1 s)');
    assert.equal(await lines(() => p.end()), '\n');
  } finally {
    mock.timers.reset();
    process.stderr.isTTY = tty;
  }
});

// ---- faults the file system rarely gives, injected: node:fs's promises object (the one io.ts
// imports) and the FileHandle prototype wrapped for one call or one test --------------------

const errno = (code: string) => Object.assign(new Error(`injected ${code}`), { code });

const fileHandleProto = async (d: string) => {
  writeFileSync(join(d, '.probe'), '');
  const fh = await fsp.open(join(d, '.probe'));
  const proto = Object.getPrototypeOf(fh) as fsp.FileHandle;
  await fh.close();
  return proto;
};

test('file output without hard links: EPERM, ENOTSUP, EOPNOTSUPP and EXDEV from link() fall back to a checked rename; other errors do not', async () => {
  for (const code of ['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EXDEV']) {
    const d = fresh();
    const target = join(d, 'out');
    await replaced(
      fsp,
      'link',
      () => async () => Promise.reject(errno(code)),
      async () => {
        const o = await openOutput(target, {});
        await o.write([Buffer.from('by rename')]);
        await o.commit();
        assert.equal(readFileSync(target, 'utf8'), 'by rename', code);
        assert.deepEqual(ls(d), ['out'], code);
        // the target appearing before the rename: not overwritten, the output discarded
        const t2 = join(d, 'out2');
        const o2 = await openOutput(t2, {});
        await o2.write([Buffer.from('secret')]);
        writeFileSync(t2, 'theirs');
        await rejects(o2.commit(), `${t2} appeared while ctkit was writing; not overwritten`);
        assert.equal(readFileSync(t2, 'utf8'), 'theirs');
        assert.deepEqual(ls(d), ['out', 'out2'], code);
      },
    );
  }
  // any other error of link(): the reason, and nothing left
  const d = fresh();
  await replaced(
    fsp,
    'link',
    () => async () => Promise.reject(errno('EIO')),
    async () => {
      const o = await openOutput(join(d, 'out'), {});
      await o.write([Buffer.from('x')]);
      await rejects(o.commit(), `cannot write ${join(d, 'out')}: EIO`);
    },
  );
  assert.deepEqual(ls(d), []);
});

test('file output: a failing rename, write, open or directory check is a FileError with the reason; nothing is left', async () => {
  const d = fresh();
  await replaced(
    fsp,
    'rename',
    () => async () => Promise.reject(errno('EACCES')),
    async () => {
      const o = await openOutput(join(d, 'out'), { force: true });
      await o.write([Buffer.from('x')]);
      await rejects(o.commit(), `cannot write ${join(d, 'out')}: permission denied (EACCES)`);
    },
  );
  const proto = await fileHandleProto(d);
  await replaced(
    proto,
    'writev',
    () => async () => Promise.reject(errno('ENOSPC')),
    async () => {
      const o = await openOutput(join(d, 'out'), {});
      await rejects(o.write([Buffer.from('x')]), `cannot write ${join(d, 'out')}: no space left on the device (ENOSPC)`);
      await o.abort();
    },
  );
  await replaced(
    fsp,
    'open',
    () => async () => Promise.reject(errno('EMFILE')),
    async () => {
      await rejects(openOutput(join(d, 'out'), {}), `cannot write in ${d}: too many open files (EMFILE)`);
    },
  );
  await replaced(
    fsp,
    'stat',
    () => async () => Promise.reject(errno('ELOOP')),
    async () => {
      await rejects(openOutput(join(d, 'out'), {}), `cannot write ${join(d, 'out')}: too many symbolic links (ELOOP)`);
    },
  );
  assert.deepEqual(ls(d), ['.probe']);
});

test('file output: short writes continue after the bytes that went out, across and inside chunks', async () => {
  const d = fresh();
  const proto = await fileHandleProto(d);
  const chunks = [rng.bytes(5000), rng.bytes(1), rng.bytes(0), rng.bytes(12345)];
  // at most 777 bytes per call: every chunk boundary is met inside a call and between calls
  await replaced(
    proto,
    'writev',
    (orig) =>
      async function (this: fsp.FileHandle, list: NodeJS.ArrayBufferView[], pos?: number) {
        let left = 777;
        const cut: Uint8Array[] = [];
        for (const b of list as Uint8Array[]) {
          if (left === 0) break;
          cut.push(b.subarray(0, Math.min(left, b.length)));
          left -= cut[cut.length - 1].length;
        }
        return orig.call(this, cut, pos);
      } as typeof orig,
    async () => {
      const o = await openOutput(join(d, 'out'), {});
      await o.write(chunks);
      assert.equal(o.written, 17346);
      await o.commit();
    },
  );
  assert.deepEqual(new Uint8Array(readFileSync(join(d, 'out'))), new Uint8Array(Buffer.concat(chunks)));
});

test('input: readFullInto fills views in order (one readv each time, short ones continued), fewer bytes only at the end', async () => {
  const d = fresh();
  const data = rng.bytes(70000);
  writeFileSync(join(d, 'in'), data);
  const proto = await fileHandleProto(d);
  const lists: number[][] = [];
  await replaced(
    proto,
    'readv',
    (orig) =>
      async function (this: fsp.FileHandle, bufs: NodeJS.ArrayBufferView[], pos?: number) {
        lists.push(bufs.map((b) => b.byteLength));
        // at most 3000 bytes a call, ending inside a view or at its end
        const limited: Uint8Array[] = [];
        let room = 3000;
        for (const b of bufs) {
          if (room === 0) break;
          const v = new Uint8Array(b.buffer, b.byteOffset, Math.min(b.byteLength, room));
          limited.push(v);
          room -= v.length;
        }
        return orig.call(this, limited, pos);
      } as typeof orig,
    async () => {
      const input = await Input.open(join(d, 'in'));
      const buf = new Uint8Array(80000).fill(0xee);
      // only empty views: nothing to read, no call, and not the end of the input
      assert.equal(await input.readFullInto([buf.subarray(0, 0), buf.subarray(5, 5)]), 0);
      assert.equal(lists.length, 0, 'a readv for empty views');
      // views with gaps between them (a batch's segments with room for their tags), one empty
      const views = [buf.subarray(0, 2000), buf.subarray(2010, 2010), buf.subarray(2020, 6020), buf.subarray(6030, 46030)];
      assert.equal(await input.readFullInto(views), 46000);
      assert.equal(input.bytesRead, 46000);
      assert.deepEqual(Buffer.concat(views), Buffer.from(data.subarray(0, 46000)));
      assert.ok(buf.subarray(2000, 2020).every((x) => x === 0xee) && buf.subarray(6020, 6030).every((x) => x === 0xee), 'a gap was written');
      // the calls: every view not yet full, from where the last call stopped
      assert.deepEqual(lists.slice(0, 3), [[2000, 0, 4000, 40000], [3000, 40000], [40000]]);
      lists.length = 0;
      assert.equal(await input.readFullInto([buf.subarray(0, 20000), buf.subarray(30000, 40000)]), 24000, 'fewer only at the end');
      assert.deepEqual(buf.subarray(0, 20000), data.subarray(46000, 66000));
      assert.deepEqual(buf.subarray(30000, 34000), data.subarray(66000));
      assert.equal(input.bytesRead, 70000);
      assert.equal(await input.readFullInto([buf.subarray(0, 10)]), 0);
      assert.equal(await input.readFullInto([]), 0);
      await input.close();
    },
  );
  await replaced(
    proto,
    'readv',
    () => async () => Promise.reject(errno('EIO')),
    async () => {
      const input = await Input.open(join(d, 'in'));
      await rejects(input.readFullInto([new Uint8Array(4)]), `cannot read ${join(d, 'in')}: EIO`);
      await input.close();
    },
  );
});

test('input: a failing stat or read is a FileError naming the input and the reason', async () => {
  const d = fresh();
  writeFileSync(join(d, 'in'), 'data');
  const proto = await fileHandleProto(d);
  await replaced(
    proto,
    'stat',
    () => async () => Promise.reject(errno('EIO')),
    async () => {
      await rejects(Input.open(join(d, 'in')), `cannot read ${join(d, 'in')}: EIO`);
    },
  );
  await replaced(
    proto,
    'read',
    () => async () => Promise.reject(errno('EISDIR')),
    async () => {
      const input = await Input.open(join(d, 'in'));
      await rejects(input.readFull(new Uint8Array(4)), `cannot read ${join(d, 'in')}: is a directory (EISDIR)`);
      await input.close();
    },
  );
});

test('key files: created 0600, never over an existing file; a missing directory or another failure said so', async () => {
  const d = fresh();
  const opens: unknown[][] = [];
  await recorded(fsp, 'open', opens, () => createSecretFile(join(d, 'k'), 'secret'));
  assert.deepEqual(
    (await handlesOf(opens)).map((fh) => fh.fd),
    [-1],
    'the key file is closed',
  );
  assert.equal(statSync(join(d, 'k')).mode & 0o777, 0o600);
  await rejects(createSecretFile(join(d, 'k'), 'other'), `${join(d, 'k')} already exists; ctkit never overwrites a key`);
  assert.equal(readFileSync(join(d, 'k'), 'utf8'), 'secret');
  await rejects(createSecretFile(join(d, 'no', 'k'), 'x'), `cannot create ${join(d, 'no', 'k')}: the directory ${join(d, 'no')} does not exist`);
  await rejects(createSecretFile(join(d, 'k', 'k'), 'x'), `cannot create ${join(d, 'k', 'k')}: a component of the path is not a directory (ENOTDIR)`);
  assert.deepEqual(ls(d), ['k']);
});

test('stdout output: an error on stdout fails the writes and the commit after it; empty chunks are not written; commit waits for what is queued', async () => {
  const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
  // stdout's 'error' listeners of the outputs, taken off process.stdout: the test raises the event
  // itself (emitted on the real stdout, it would unpipe the test reporter writing there)
  const listeners: [string | symbol, (e: Error) => void][] = [];
  const openStdout = async () => {
    let out: Awaited<ReturnType<typeof openOutput>> | undefined;
    await replaced(
      process.stdout,
      'on',
      () =>
        function (this: NodeJS.WriteStream, event: string | symbol, listener: (e: Error) => void) {
          listeners.push([event, listener]);
          return this;
        } as typeof process.stdout.on,
      async () => {
        out = await openOutput('-', {});
      },
    );
    assert.deepEqual(
      listeners.map(([event]) => event),
      ['error'],
      'each stdout output listens for errors',
    );
    return { out: out!, raise: listeners.splice(0)[0][1] };
  };
  const held: ((e?: Error | null) => void)[] = [];
  const seen: Uint8Array[] = [];
  let mode: 'hold' | 'ok' | 'error event' = 'hold';
  let raise = (_e: Error) => {};
  const answer = (done: (e?: Error | null) => void, chunk: unknown) => {
    seen.push(chunk as Uint8Array);
    if (mode === 'hold') held.push(done);
    else if (mode === 'ok') process.nextTick(done);
    else {
      // the stream reports the error by its event while the write itself went out
      raise(epipe);
      process.nextTick(done);
    }
  };
  const tick = () => new Promise((resolve) => setImmediate(resolve));
  const a = rng.bytes(100);
  await takeFrom(
    process.stdout,
    fromCli,
    async () => {
      const first = await openStdout();
      const out = first.out;
      assert.equal(out.streaming, true);
      let wrote = false;
      const w = out.write([new Uint8Array(0), a, new Uint8Array(0)]).then(() => (wrote = true));
      await tick();
      assert.deepEqual(seen, [a], 'the data chunk only');
      assert.equal(wrote, false, 'write() waits for its chunk to go out');
      held.shift()!();
      await w;
      assert.equal(out.written, 100);
      // commit() resolves once what was queued before it has gone out
      let committed = false;
      const c = out.commit().then(() => (committed = true));
      await tick();
      assert.equal(seen.length, 2, 'commit asks stdout to tell when its queue is out');
      assert.equal(committed, false);
      held.shift()!();
      await c;
      // an error event on stdout: the next write fails with it before writing, and so does commit
      mode = 'ok';
      first.raise(epipe);
      await assert.rejects(out.write([rng.bytes(10)]), (e) => e === epipe);
      assert.equal(seen.length, 2, 'nothing written after the error');
      await assert.rejects(out.commit(), (e) => e === epipe);
      // an error reported while the last chunk was written: that write fails
      const second = await openStdout();
      raise = second.raise;
      mode = 'error event';
      await assert.rejects(second.out.write([rng.bytes(10)]), (e) => e === epipe);
    },
    answer,
  );
});

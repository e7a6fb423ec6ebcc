// Byte I/O for the CLI in constant memory: a reader that returns exactly n bytes (fewer only at
// end of input), writers that wait for the stream to drain, and the write-to-temporary-then-
// rename discipline for outputs that must not exist unless everything authenticated.

import { createReadStream, promises as fsp, constants as fsc } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { UsageError } from './errors.js';

export class ChunkReader {
  #it: AsyncIterator<Buffer>;
  #pending: Buffer[] = [];
  #pendingLen = 0;
  #eof = false;
  bytesRead = 0;

  constructor(stream: Readable) {
    this.#it = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  }

  /** Exactly n bytes, or fewer only when the input ends. */
  async read(n: number): Promise<Uint8Array> {
    while (this.#pendingLen < n && !this.#eof) {
      const r = await this.#it.next();
      if (r.done) this.#eof = true;
      else {
        this.#pending.push(r.value);
        this.#pendingLen += r.value.length;
      }
    }
    const all = this.#pending.length === 1 ? this.#pending[0] : Buffer.concat(this.#pending);
    const take = Math.min(n, all.length);
    const out = new Uint8Array(take);
    out.set(all.subarray(0, take));
    const rest = all.subarray(take);
    this.#pending = rest.length ? [rest] : [];
    this.#pendingLen = rest.length;
    this.bytesRead += take;
    return out;
  }
}

export function openInput(path: string | undefined): Readable {
  if (path === undefined || path === '-') return process.stdin;
  return createReadStream(path, { highWaterMark: 1 << 16 });
}

export async function inputSize(path: string | undefined): Promise<number | undefined> {
  if (path === undefined || path === '-') return undefined;
  try {
    return (await fsp.stat(path)).size;
  } catch {
    return undefined;
  }
}

export async function writeAll(w: Writable, b: Uint8Array): Promise<void> {
  if (b.length === 0) return;
  if (!w.write(b)) await new Promise<void>((resolve, reject) => {
    const onDrain = () => { w.off('error', onError); resolve(); };
    const onError = (e: Error) => { w.off('drain', onDrain); reject(e); };
    w.once('drain', onDrain);
    w.once('error', onError);
  });
}

/** A file written under a temporary name and renamed into place only by commit(). */
export class AtomicOutput {
  readonly tmpPath: string;
  #fh: fsp.FileHandle | undefined;
  #done = false;

  private constructor(readonly finalPath: string | undefined, tmpPath: string, fh: fsp.FileHandle) {
    this.tmpPath = tmpPath;
    this.#fh = fh;
  }

  /** Output to `path`, or (undefined / '-') to stdout after commit, spooled through a private temporary file. */
  static async create(path: string | undefined, mode = 0o644): Promise<AtomicOutput> {
    const toStdout = path === undefined || path === '-';
    const dir = toStdout ? tmpdir() : dirname(path);
    const name = toStdout ? 'ctkit-stdout' : basename(path);
    const tmp = join(dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
    const fh = await fsp.open(tmp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL, toStdout ? 0o600 : mode);
    return new AtomicOutput(toStdout ? undefined : path, tmp, fh);
  }

  async write(b: Uint8Array): Promise<void> {
    let off = 0;
    while (off < b.length) {
      const { bytesWritten } = await this.#fh!.write(b, off, b.length - off);
      off += bytesWritten;
    }
  }

  /** Make the output visible: rename into place, or copy to stdout and delete. */
  async commit(): Promise<void> {
    await this.#fh!.sync();
    await this.#fh!.close();
    this.#fh = undefined;
    if (this.finalPath !== undefined) {
      await fsp.rename(this.tmpPath, this.finalPath);
    } else {
      const rs = createReadStream(this.tmpPath, { highWaterMark: 1 << 16 });
      for await (const chunk of rs) await writeAll(process.stdout, chunk as Buffer);
      await fsp.unlink(this.tmpPath);
    }
    this.#done = true;
  }

  /** Remove the temporary file (after a failure). Never throws. */
  async abort(): Promise<void> {
    if (this.#done) return;
    this.#done = true;
    try {
      await this.#fh?.close();
    } catch {
      /* already closed */
    }
    await fsp.unlink(this.tmpPath).catch(() => undefined);
  }
}

/** A progress bar on stderr, only when stderr is a terminal and the size is known and large. */
export class Progress {
  #total: number | undefined;
  #on: boolean;
  #last = 0;
  #start = Date.now();
  constructor(total: number | undefined, label: string) {
    this.#total = total;
    this.#on = !!process.stderr.isTTY && total !== undefined && total >= 8 << 20;
    this.label = label;
  }
  readonly label: string;
  update(done: number): void {
    if (!this.#on || this.#total === undefined) return;
    const now = Date.now();
    if (now - this.#last < 100 && done < this.#total) return;
    this.#last = now;
    const frac = Math.min(1, done / this.#total);
    const width = 30;
    const filled = Math.round(frac * width);
    const mbs = done / 1e6 / Math.max(0.001, (now - this.#start) / 1000);
    process.stderr.write(`\r${this.label} [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${(frac * 100).toFixed(0).padStart(3)}% ${mbs.toFixed(0)} MB/s`);
  }
  end(): void {
    if (this.#on) process.stderr.write('\n');
  }
}

/** Creates `path` with mode 0600 and writes a secret (a key) into it; refuses an existing file. */
export async function createSecretFile(path: string, data: string | Uint8Array): Promise<void> {
  let fh;
  try {
    fh = await fsp.open(path, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL, 0o600);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EEXIST') throw new UsageError(`${path} already exists; ctkit never overwrites a key`);
    throw new UsageError(`cannot create ${path}: ${err.message}`);
  }
  try {
    await fh.writeFile(data);
    await fh.chmod(0o600);
  } finally {
    await fh.close();
  }
}

// Byte I/O for the CLI: inputs opened (and checked) before anything is written, large reads into
// caller buffers, outputs that never overwrite unless asked, and temporary files that do not
// outlive the process.
//
// Guarantees (issue 12 points 5-7):
// - an input that cannot be read is reported before any output exists: nothing on stdout, no file;
// - a file output is written under a temporary name (mode 0600, O_EXCL, in the target's directory)
//   and becomes visible only by commit(): link(2) when it must not overwrite (atomic: fails if the
//   target appeared meanwhile), rename(2) with --force;
// - every temporary file is removed on failure, on SIGINT, SIGTERM and SIGHUP (then the signal is
//   re-raised, so the parent sees it), on a closed stdout (EPIPE) and at any other exit;
//   only SIGKILL (or a power cut) can leave one behind, under a hidden name beside the target.
// - nothing is ever spooled to $TMPDIR.

import { constants as fsc, fstatSync, promises as fsp, read as fsRead, readv as fsReadv, type Stats, unlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { FileError } from './errors.js';

// ---- temporary files and signals -------------------------------------------------------------

const temps = new Set<string>();
let handlersInstalled = false;

function removeTempsSync(): void {
  for (const t of temps) {
    try {
      unlinkSync(t);
    } catch {
      /* already gone */
    }
  }
  temps.clear();
}

const SIGNALS: [NodeJS.Signals, number][] = [
  ['SIGINT', 2],
  ['SIGTERM', 15],
  ['SIGHUP', 1],
];

function onSignal(sig: NodeJS.Signals): void {
  removeTempsSync();
  for (const [s] of SIGNALS) process.removeAllListeners(s);
  // the default action now: the parent sees the process killed by this signal
  process.kill(process.pid, sig);
  // should the default action be blocked, exit as a shell would report it
  setTimeout(() => process.exit(128 + SIGNALS.find(([s]) => s === sig)![1]), 100).unref();
}

/** Installs the cleanup handlers once (the CLI calls this at start). */
export function installCleanup(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  for (const [s] of SIGNALS) process.on(s, onSignal);
  process.on('exit', removeTempsSync);
}

// ---- errors ----------------------------------------------------------------------------------

const REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory',
  ENOTDIR: 'a component of the path is not a directory',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'name too long',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EMFILE: 'too many open files',
};

export function reason(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (err && typeof err.code === 'string') return REASONS[err.code] ? `${REASONS[err.code]} (${err.code})` : err.code;
  return err instanceof Error ? err.message : String(e);
}

// ---- input -----------------------------------------------------------------------------------

/** An input file (or stdin), opened and checked; read() fills caller buffers. */
export class Input {
  readonly name: string;
  /** the size when the input is a regular file */
  readonly size: number | undefined;
  bytesRead = 0;
  #fd: number | undefined;
  #fh: fsp.FileHandle | undefined;
  #it: AsyncIterator<Buffer> | undefined;
  #left: Uint8Array | undefined;
  #eof = false;

  private constructor(name: string, size: number | undefined, src: { fd?: number; fh?: fsp.FileHandle; it?: AsyncIterator<Buffer> }) {
    this.name = name;
    this.size = size;
    this.#fd = src.fd;
    this.#fh = src.fh;
    this.#it = src.it;
  }

  /** Opens `path` (undefined or '-': stdin). A file that cannot be read is a FileError, before any output exists. */
  static async open(path: string | undefined): Promise<Input> {
    if (path === undefined || path === '-') {
      let st: Stats;
      try {
        st = fstatSync(0);
      } catch (e) {
        throw new FileError(`cannot read stdin: ${reason(e)}`);
      }
      if (st.isDirectory()) throw new FileError('cannot read stdin: is a directory');
      // a regular file on stdin is read like any file; pipes and terminals through the stream
      if (st.isFile()) return new Input('stdin', st.size, { fd: 0 });
      return new Input('stdin', undefined, { it: process.stdin[Symbol.asyncIterator]() as AsyncIterator<Buffer> });
    }
    let fh: fsp.FileHandle;
    try {
      fh = await fsp.open(path, fsc.O_RDONLY);
    } catch (e) {
      throw new FileError(`cannot read ${path}: ${reason(e)}`);
    }
    let st: Stats;
    try {
      st = await fh.stat();
    } catch (e) {
      await fh.close();
      throw new FileError(`cannot read ${path}: ${reason(e)}`);
    }
    if (st.isDirectory()) {
      await fh.close();
      throw new FileError(`cannot read ${path}: is a directory`);
    }
    return new Input(path, st.isFile() ? st.size : undefined, { fh });
  }

  /** Reads into buf[off, off + len) as far as the input goes: fewer than len bytes only at its end. */
  async readFull(buf: Uint8Array, off = 0, len = buf.length - off): Promise<number> {
    let got = 0;
    while (got < len && !this.#eof) {
      const n = await this.#readSome(buf, off + got, len - got);
      if (n === 0) this.#eof = true;
      got += n;
    }
    this.bytesRead += got;
    return got;
  }

  /** Reads into the views in order, as readFull: fewer bytes than they hold only at the input's end. A file is read by readv, one call for all of them. */
  async readFullInto(views: readonly Uint8Array[]): Promise<number> {
    let got = 0;
    let i = 0; // the view being filled, from byte `at`
    let at = 0;
    while (i < views.length && !this.#eof) {
      if (at === views[i].length) {
        i++;
        at = 0;
        continue;
      }
      const n = await this.#readvSome([views[i].subarray(at), ...views.slice(i + 1)]);
      if (n === 0) this.#eof = true;
      got += n;
      at += n;
      while (i < views.length && at >= views[i].length) at -= views[i++].length;
    }
    this.bytesRead += got;
    return got;
  }

  async #readvSome(list: Uint8Array[]): Promise<number> {
    try {
      if (this.#fh) return (await this.#fh.readv(list)).bytesRead;
      if (this.#fd !== undefined) {
        const fd = this.#fd;
        return await new Promise<number>((resolve, reject) => fsReadv(fd, list, (e, n) => (e ? reject(e) : resolve(n))));
      }
    } catch (e) {
      throw new FileError(`cannot read ${this.name}: ${reason(e)}`);
    }
    return this.#readSome(list[0], 0, list[0].length);
  }

  async #readSome(buf: Uint8Array, off: number, len: number): Promise<number> {
    try {
      if (this.#fh) return (await this.#fh.read(buf, off, len, null)).bytesRead;
      if (this.#fd !== undefined) {
        const fd = this.#fd;
        return await new Promise<number>((resolve, reject) => fsRead(fd, buf, off, len, null, (e, n) => (e ? reject(e) : resolve(n))));
      }
      if (!this.#left || this.#left.length === 0) {
        const r = await this.#it!.next();
        if (r.done) return 0;
        this.#left = r.value;
      }
      const take = Math.min(len, this.#left.length);
      buf.set(this.#left.subarray(0, take), off);
      this.#left = this.#left.subarray(take);
      return take;
    } catch (e) {
      throw new FileError(`cannot read ${this.name}: ${reason(e)}`);
    }
  }

  async close(): Promise<void> {
    await this.#fh?.close().catch(() => undefined);
    this.#fh = undefined;
  }
}

// ---- outputs ---------------------------------------------------------------------------------

export interface Output {
  /** Appends the chunks, in order; resolves once their buffers may be reused. */
  write(chunks: readonly Uint8Array[]): Promise<void>;
  /** Makes the output visible (a file: renamed into place). */
  commit(): Promise<void>;
  /** Removes what commit() would have shown (the temporary file). Never throws. */
  abort(): Promise<void>;
  /** true for stdout, where written bytes are out of our hands at once */
  readonly streaming: boolean;
  /** bytes written so far */
  readonly written: number;
}

export interface OutputOptions {
  /** replace an existing file */
  force?: boolean;
  /** the data is binary ciphertext: refuse a terminal */
  binary?: boolean;
}

/** The output `path` (undefined or '-': stdout), checked before any input is consumed. */
export async function openOutput(path: string | undefined, o: OutputOptions): Promise<Output> {
  if (path === undefined || path === '-') {
    if (o.binary && process.stdout.isTTY) {
      throw new FileError('refusing to write sealed (binary) data to a terminal; redirect stdout or use -o <file>');
    }
    return new StdoutOutput();
  }
  return FileOutput.create(path, !!o.force);
}

class StdoutOutput implements Output {
  readonly streaming = true;
  written = 0;
  #error: Error | undefined;
  readonly #onError = (e: Error) => {
    this.#error ??= e;
  };
  constructor() {
    process.stdout.on('error', this.#onError);
  }

  /** Resolves when every chunk has been handed to the system (its buffer may be reused). The chunks are queued at once, in order. */
  async write(chunks: readonly Uint8Array[]): Promise<void> {
    const out = process.stdout;
    if (this.#error) throw this.#error;
    const done: Promise<void>[] = [];
    for (const c of chunks) {
      if (c.length === 0) continue;
      this.written += c.length;
      done.push(new Promise<void>((resolve, reject) => void out.write(c, (e) => (e ? reject(this.#error ?? e) : resolve()))));
    }
    // every callback, before the buffers may be reused, then the first error
    for (const r of await Promise.allSettled(done)) if (r.status === 'rejected') throw r.reason;
    if (this.#error) throw this.#error;
  }

  async commit(): Promise<void> {
    // wait until everything queued has gone out (or failed)
    await new Promise<void>((resolve) => process.stdout.write(new Uint8Array(0), () => resolve()));
    if (this.#error) throw this.#error;
  }

  async abort(): Promise<void> {}
}

class FileOutput implements Output {
  readonly streaming = false;
  written = 0;
  #fh: fsp.FileHandle | undefined;

  private constructor(
    readonly path: string,
    readonly tmp: string,
    readonly force: boolean,
    fh: fsp.FileHandle,
  ) {
    this.#fh = fh;
  }

  static async create(path: string, force: boolean): Promise<FileOutput> {
    const dir = dirname(path);
    try {
      const d = await fsp.stat(dir);
      if (!d.isDirectory()) throw new FileError(`cannot write ${path}: ${dir} is not a directory`);
    } catch (e) {
      if (e instanceof FileError) throw e;
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new FileError(`cannot write ${path}: the directory ${dir} does not exist`);
      throw new FileError(`cannot write ${path}: ${reason(e)}`);
    }
    const existing = await fsp.lstat(path).catch(() => undefined);
    if (existing?.isDirectory()) throw new FileError(`cannot write ${path}: it is a directory`);
    if (existing && !force) throw new FileError(`${path} already exists; ctkit does not overwrite it without --force`);
    const tmp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.ctkit-tmp`);
    installCleanup();
    let fh: fsp.FileHandle;
    try {
      temps.add(tmp);
      fh = await fsp.open(tmp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL, 0o600);
    } catch (e) {
      temps.delete(tmp);
      throw new FileError(`cannot write in ${dir}: ${reason(e)}`);
    }
    return new FileOutput(path, tmp, force, fh);
  }

  async write(chunks: readonly Uint8Array[]): Promise<void> {
    let list = chunks;
    while (list.length) {
      let n: number;
      try {
        n = (await this.#fh!.writev(list as Uint8Array[])).bytesWritten;
      } catch (e) {
        throw new FileError(`cannot write ${this.path}: ${reason(e)}`);
      }
      this.written += n;
      // a short write (rare on files): continue after the bytes that went out
      while (list.length && n >= list[0].length) {
        n -= list[0].length;
        list = list.slice(1);
      }
      if (n > 0) list = [list[0].subarray(n), ...list.slice(1)];
    }
  }

  async commit(): Promise<void> {
    const fh = this.#fh!;
    try {
      // the mode a new file would get (0666 minus the umask); 0600 while it was temporary
      const umask = process.umask();
      await fh.chmod(0o666 & ~umask);
      await fh.datasync();
      await fh.close();
      this.#fh = undefined;
      if (this.force) await fsp.rename(this.tmp, this.path);
      else {
        try {
          await fsp.link(this.tmp, this.path); // fails if the target appeared meanwhile
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code;
          if (code === 'EEXIST') throw new FileError(`${this.path} appeared while ctkit was writing; not overwritten (the output was discarded)`);
          if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV') throw e;
          // a file system without hard links: check again, then rename
          if (await fsp.lstat(this.path).catch(() => undefined)) throw new FileError(`${this.path} appeared while ctkit was writing; not overwritten`);
          await fsp.rename(this.tmp, this.path);
        }
        await fsp.unlink(this.tmp).catch(() => undefined);
      }
      temps.delete(this.tmp);
    } catch (e) {
      await this.abort();
      if (e instanceof FileError) throw e;
      throw new FileError(`cannot write ${this.path}: ${reason(e)}`);
    }
  }

  /** Closes and removes the temporary file (after commit() there is none: nothing happens). */
  async abort(): Promise<void> {
    await this.#fh?.close().catch(() => undefined);
    this.#fh = undefined;
    await fsp.unlink(this.tmp).catch(() => undefined);
    temps.delete(this.tmp);
  }
}

// ---- progress --------------------------------------------------------------------------------

/** A progress bar on stderr, only when stderr is a terminal and the size is known and large. */
export class Progress {
  #total: number | undefined;
  #on: boolean;
  #last = 0;
  #start = Date.now();
  readonly label: string;
  constructor(total: number | undefined, label: string) {
    this.#total = total;
    this.#on = !!process.stderr.isTTY && total !== undefined && total >= 8 << 20;
    this.label = label;
  }
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

// ---- key files -------------------------------------------------------------------------------

/** Creates `path` with mode 0600 and writes a secret (a key) into it; refuses an existing file. */
export async function createSecretFile(path: string, data: string | Uint8Array): Promise<void> {
  const dir = dirname(path);
  let fh: fsp.FileHandle;
  try {
    fh = await fsp.open(path, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL, 0o600);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EEXIST') throw new FileError(`${path} already exists; ctkit never overwrites a key`);
    if (err.code === 'ENOENT') throw new FileError(`cannot create ${path}: the directory ${dir} does not exist`);
    throw new FileError(`cannot create ${path}: ${reason(e)}`);
  }
  try {
    await fh.writeFile(data);
    await fh.chmod(0o600);
  } finally {
    await fh.close();
  }
}

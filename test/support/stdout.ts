// In-process CLI tests: what a command writes to process.stdout (or stderr), taken off it.

/** Answers a write taken off a stream: calls its callback (error or not), now or later. */
export type Answer = (done: (e?: Error | null) => void, chunk: unknown) => void;

/**
 * Runs f with the chunks written to `stream` that `mine` recognises taken off and returned (bytes
 * copied: once the write's callback, if it has one, is called as if the chunk had gone out, the
 * writer may reuse its buffer); every other chunk (the test runner writes there too) passes through.
 * `answer` calls a write's callback: by default on the next tick, as if the chunk had gone out.
 */
export async function takeFrom(stream: NodeJS.WriteStream, mine: (chunk: unknown) => boolean, f: () => Promise<unknown>, answer: Answer = (done) => process.nextTick(done)): Promise<unknown[]> {
  const taken: unknown[] = [];
  const write = stream.write;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (mine(chunk)) {
      const done = rest.at(-1);
      const copy = chunk instanceof Uint8Array ? chunk.slice() : chunk;
      if (typeof done === 'function') answer(done as (e?: Error | null) => void, copy);
      return taken.push(copy) > 0;
    }
    return (write as (...a: unknown[]) => boolean).call(stream, chunk, ...rest);
  }) as typeof stream.write;
  try {
    await f();
  } finally {
    stream.write = write;
  }
  return taken;
}

/** takeFrom(process.stdout, …) */
export const takeFromStdout = (mine: (chunk: unknown) => boolean, f: () => Promise<unknown>) => takeFrom(process.stdout, mine, f);

/** a chunk written by code under src/cli (the test runner writes bytes to stdout too) */
export const fromCli = (c: unknown) => (typeof c === 'string' || c instanceof Uint8Array) && /[\\/]src[\\/]cli[\\/]/.test(new Error().stack ?? '');
const bytes = (chunks: unknown[]) => Buffer.concat(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : (c as Uint8Array))));

/** What code under src/cli writes to stdout while f runs, as bytes. */
export async function cliStdout(f: () => Promise<unknown>): Promise<Buffer> {
  return bytes(await takeFrom(process.stdout, fromCli, f));
}

/** What code under src/cli writes to stdout and to stderr while f runs, as text. */
export async function cliOutput(f: () => Promise<unknown>): Promise<{ stdout: string; stderr: string }> {
  let stdout: unknown[] = [];
  const stderr = await takeFrom(process.stderr, fromCli, async () => {
    stdout = await takeFrom(process.stdout, fromCli, f);
  });
  return { stdout: bytes(stdout).toString(), stderr: bytes(stderr).toString() };
}

/** Runs f with process.stdout.isTTY and process.stderr.isTTY as given. */
export async function asTerminal(tty: { stdout?: boolean; stderr?: boolean }, f: () => Promise<void>): Promise<void> {
  const saved = [process.stdout.isTTY, process.stderr.isTTY];
  process.stdout.isTTY = !!tty.stdout;
  process.stderr.isTTY = !!tty.stderr;
  try {
    await f();
  } finally {
    [process.stdout.isTTY, process.stderr.isTTY] = saved;
  }
}

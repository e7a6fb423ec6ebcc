// In-process CLI tests: what a command writes to process.stdout, taken off it.

/**
 * Runs f with the chunks written to stdout that `mine` recognises taken off and returned (bytes
 * copied: once the write's callback, if it has one, is called as if the chunk had gone out, the
 * writer may reuse its buffer); every other chunk (the test runner writes there too) passes through.
 */
export async function takeFromStdout(mine: (chunk: unknown) => boolean, f: () => Promise<void>): Promise<unknown[]> {
  const taken: unknown[] = [];
  const write = process.stdout.write;
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (mine(chunk)) {
      const done = rest.at(-1);
      if (typeof done === 'function') process.nextTick(done);
      return taken.push(chunk instanceof Uint8Array ? chunk.slice() : chunk) > 0;
    }
    return (write as (...a: unknown[]) => boolean).call(process.stdout, chunk, ...rest);
  }) as typeof process.stdout.write;
  try {
    await f();
  } finally {
    process.stdout.write = write;
  }
  return taken;
}

/** What code under src/cli writes to stdout while f runs, as bytes (the test runner's own writes pass through). */
export async function cliStdout(f: () => Promise<void>): Promise<Buffer> {
  const chunks = await takeFromStdout((c) => (typeof c === 'string' || c instanceof Uint8Array) && /[\\/]src[\\/]cli[\\/]/.test(new Error().stack ?? ''), f);
  return Buffer.concat(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : (c as Uint8Array))));
}

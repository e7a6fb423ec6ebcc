// In-process CLI tests: what a command writes to process.stdout, taken off it.

/**
 * Runs f with the chunks written to stdout that `mine` recognises taken off and returned; every
 * other chunk (the test runner writes there too) passes through.
 */
export async function takeFromStdout(mine: (chunk: unknown) => boolean, f: () => Promise<void>): Promise<unknown[]> {
  const taken: unknown[] = [];
  const write = process.stdout.write;
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (mine(chunk)) return taken.push(chunk) > 0;
    return (write as (...a: unknown[]) => boolean).call(process.stdout, chunk, ...rest);
  }) as typeof process.stdout.write;
  try {
    await f();
  } finally {
    process.stdout.write = write;
  }
  return taken;
}

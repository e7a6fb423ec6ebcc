// Argument checks shared by the public APIs. Lengths are public; these never look at contents.

export function checkBytes(name: string, v: unknown): asserts v is Uint8Array {
  if (!(v instanceof Uint8Array)) {
    throw new TypeError(`${name} must be a Uint8Array, got ${v === null ? 'null' : typeof v === 'object' ? (v as object).constructor?.name ?? 'object' : typeof v}`);
  }
}

export function checkLength(name: string, v: Uint8Array, allowed: readonly number[]): void {
  if (!allowed.includes(v.length)) {
    const list = allowed.length === 1 ? `${allowed[0]}` : `${allowed.slice(0, -1).join(', ')} or ${allowed[allowed.length - 1]}`;
    throw new RangeError(`${name} must be ${list} bytes long, got ${v.length}`);
  }
}

/** The caller's output buffer, at least `need` bytes (the view of its first `need`), or a new one. */
export function checkOutput(output: Uint8Array | undefined, need: number): Uint8Array {
  if (output === undefined) return new Uint8Array(need);
  checkBytes('output', output);
  if (output.length < need) throw new RangeError(`output must be at least ${need} bytes long, got ${output.length}`);
  return output.subarray(0, need);
}

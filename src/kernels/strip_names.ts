// The shipped binaries keep, of the `name` custom section wabt writes, only the function
// names (subsection 1): the constant-time checker reports and matches functions by them, and
// stack traces show them. The local names (subsection 2, over 90% of the section: 108 of 119 KB
// over all modules) are dropped; the committed WAT has them, and wabt rebuilds them from it.

function uleb(b: Uint8Array, p: number): [number, number] {
  let r = 0,
    s = 0,
    x: number;
  do {
    x = b[p++];
    r |= (x & 0x7f) << s;
    s += 7;
  } while (x & 0x80);
  return [r >>> 0, p];
}

function ulebBytes(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

/** The module with every subsection but the function names removed from its name section. */
export function keepFunctionNames(bytes: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [bytes.subarray(0, 8)];
  let p = 8;
  while (p < bytes.length) {
    const start = p;
    const id = bytes[p++];
    const [size, body] = uleb(bytes, p);
    const end = body + size;
    p = end;
    if (id !== 0) {
      parts.push(bytes.subarray(start, end));
      continue;
    }
    const [nameLen, q0] = uleb(bytes, body);
    const name = new TextDecoder().decode(bytes.subarray(q0, q0 + nameLen));
    if (name !== 'name') {
      parts.push(bytes.subarray(start, end));
      continue;
    }
    const kept: number[] = [...ulebBytes(nameLen), ...bytes.subarray(q0, q0 + nameLen)];
    for (let q = q0 + nameLen; q < end; ) {
      const sub = bytes[q];
      const [len, data] = uleb(bytes, q + 1);
      if (sub === 1) kept.push(...bytes.subarray(q, data + len));
      q = data + len;
    }
    parts.push(new Uint8Array([0, ...ulebBytes(kept.length), ...kept]));
  }
  const out = new Uint8Array(parts.reduce((n, x) => n + x.length, 0));
  let o = 0;
  for (const x of parts) {
    out.set(x, o);
    o += x.length;
  }
  return out;
}

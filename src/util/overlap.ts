// Output buffers that overlap their input. Every streamed pass in ctkit reads its input and
// writes its output front to back, one scratch-window chunk at a time, reading a whole chunk
// before writing it back. That order is safe when the output starts at or below the input: a
// write then lands only on input bytes already read. When the output starts above the input
// and the two overlap, a chunk's write would overwrite input not yet read; inPlaceSource()
// first moves the input to the output's position (a memmove inside the output's own bytes,
// no allocation) so that the pass runs in place. The positions are public; no data is looked at.

/**
 * The bytes a front-to-back pass from `src` into `out` (at least src.length bytes) must read:
 * `src` itself, or — when `out` starts above `src` in the same buffer and overlaps it — `src`'s
 * bytes moved to the start of `out`, as a view of `out`. Call it after every other input that
 * may share out's buffer (nonce, AAD, a tag) has been read.
 */
export function inPlaceSource(src: Uint8Array, out: Uint8Array): Uint8Array {
  const n = src.length;
  const s = src.byteOffset;
  const o = out.byteOffset;
  if (o <= s || o >= s + n || src.buffer !== out.buffer) return src;
  // [s, o + n) covers both; moving its first n bytes up by o - s writes only [o, o + n)
  new Uint8Array(out.buffer, s, o - s + n).copyWithin(o - s, 0, n);
  return out.subarray(0, n);
}

// Sealing and opening runs of consecutive segments (a "batch"), the unit of work that the
// incremental form, the web streams and the worker pool share; and the framer that cuts a byte
// stream into batches, always holding back the last whole segment until it is known whether
// more data follows (a full last segment is the final one).

import type { Aead } from '../aead/types.js';
import { AuthenticationError } from '../errors.js';
import { copyBytes } from '../util/check.js';
import { type AlgorithmInfo, segmentNonce } from './format.js';

/** What a batch needs besides its bytes: the key's AEAD, the stream's nonce prefix and AAD. */
export interface SegmentParams {
  readonly alg: AlgorithmInfo;
  readonly prefix: Uint8Array;
  /** every segment's associated data: the header (‖ the stream AAD) */
  readonly aad: Uint8Array;
  readonly segmentSize: number;
}

/** A failed segment: the stream is not authentic; no plaintext of this batch is released. */
export class SegmentAuthenticationError extends AuthenticationError {
  static override readonly errorName: string = 'SegmentAuthenticationError';
  readonly segment: number;
  constructor(segment: number, message?: string) {
    super(message ?? `segment ${segment} failed authentication: the stream is damaged, truncated, reordered, spliced or extended, or the key is wrong`);
    this.segment = segment;
  }
}

/** Number of segments a batch of `n` plaintext bytes has (the last one final or not). */
function sealedSegments(n: number, segmentSize: number, lastFinal: boolean): number {
  if (!lastFinal && n % segmentSize !== 0) throw new RangeError('a batch that is not the last must hold whole segments');
  return lastFinal ? Math.max(1, Math.ceil(n / segmentSize)) : n / segmentSize;
}

/** Sealed length of a batch of `n` plaintext bytes. */
export function sealedLength(n: number, p: SegmentParams, lastFinal: boolean): number {
  return n + sealedSegments(n, p.segmentSize, lastFinal) * p.alg.tagLength;
}

/** Opened length of a batch of `n` sealed bytes, or -1 when no such batch exists (a segment shorter than a tag). */
export function openedLength(n: number, p: SegmentParams, lastFinal: boolean): number {
  const unit = p.segmentSize + p.alg.tagLength;
  const whole = Math.floor(n / unit);
  const rest = n - whole * unit;
  if (!lastFinal) return rest === 0 ? whole * p.segmentSize : -1;
  if (rest === 0) return whole === 0 ? -1 : whole * p.segmentSize;
  if (rest < p.alg.tagLength) return -1;
  return whole * p.segmentSize + rest - p.alg.tagLength;
}

/** Do views a and b share bytes? */
function overlaps(a: Uint8Array, b: Uint8Array): boolean {
  return a.buffer === b.buffer && a.byteOffset < b.byteOffset + b.length && b.byteOffset < a.byteOffset + a.length;
}

/**
 * Seals the segments of `plain` (indexes first, first+1, …) into `out`: a buffer apart from
 * plain, or in place: plain's own bytes from its start on (out.byteOffset = plain.byteOffset,
 * room for the tags after it), which are then sealed from the last segment back to the first,
 * so each segment's output lands only on plaintext already sealed. Every plaintext byte is
 * overwritten by ciphertext.
 */
export function sealBatch(aead: Aead, p: SegmentParams, plain: Uint8Array, first: number, lastFinal: boolean, out?: Uint8Array): Uint8Array {
  const S = p.segmentSize;
  const T = p.alg.tagLength;
  const count = sealedSegments(plain.length, S, lastFinal);
  const total = plain.length + count * T;
  const dst = out ? out.subarray(0, total) : new Uint8Array(total);
  let src = plain;
  if (overlaps(dst, plain) && dst.byteOffset < plain.byteOffset) src = copyBytes(plain); // below: not in place
  const nonce = new Uint8Array(p.alg.nonceLength);
  for (let i = count - 1; i >= 0; i--) {
    const seg = src.subarray(i * S, Math.min(src.length, (i + 1) * S));
    segmentNonce(p.alg, p.prefix, first + i, lastFinal && i === count - 1, nonce);
    const o = i * (S + T);
    aead.seal(nonce, seg, p.aad, dst.subarray(o, o + seg.length + T));
  }
  if (src !== plain) src.fill(0);
  return dst;
}

/**
 * Opens the segments of `sealed` (indexes first, …) into `out`: a buffer apart from sealed, or in
 * place (out.byteOffset ≤ sealed.byteOffset in sealed's buffer: each segment's plaintext lands
 * only on sealed bytes already read). All or nothing: when any segment fails, every byte
 * written for this batch is wiped and SegmentAuthenticationError names it.
 */
export function openBatch(aead: Aead, p: SegmentParams, sealed: Uint8Array, first: number, lastFinal: boolean, out?: Uint8Array): Uint8Array {
  const S = p.segmentSize;
  const T = p.alg.tagLength;
  const unit = S + T;
  const n = openedLength(sealed.length, p, lastFinal);
  if (n < 0) {
    const at = first + Math.floor(sealed.length / unit);
    throw new SegmentAuthenticationError(at, `truncated: segment ${at} is shorter than its tag (the stream was cut, or is not a ctkit sealed stream)`);
  }
  const dst = out ? out.subarray(0, n) : new Uint8Array(n);
  if (overlaps(dst, sealed) && dst.byteOffset > sealed.byteOffset) sealed = copyBytes(sealed); // above: not in place
  const count = lastFinal ? Math.max(1, Math.ceil(sealed.length / unit)) : sealed.length / unit;
  const nonce = new Uint8Array(p.alg.nonceLength);
  let o = 0;
  let i = 0;
  try {
    for (; i < count; i++) {
      const seg = sealed.subarray(i * unit, Math.min(sealed.length, (i + 1) * unit));
      segmentNonce(p.alg, p.prefix, first + i, lastFinal && i === count - 1, nonce);
      aead.open(nonce, seg, p.aad, dst.subarray(o, o + seg.length - T));
      o += seg.length - T;
    }
  } catch (e) {
    dst.fill(0);
    if (e instanceof AuthenticationError) throw new SegmentAuthenticationError(first + i);
    throw e;
  }
  return dst;
}

/**
 * Seals a batch laid out with room for each tag, in place: segment i's plaintext at
 * buf[i·(S+T), i·(S+T) + S) (all segments full but the last), `n` plaintext bytes in all. Each
 * segment becomes its ciphertext and tag where it lies, so the sealed batch is the returned view
 * buf[0, sealedLength) with no byte moved: in kernel memory (an Arena region), the AEAD seals
 * it with no copy.
 */
export function sealSpaced(aead: Aead, p: SegmentParams, buf: Uint8Array, n: number, first: number, lastFinal: boolean): Uint8Array {
  const S = p.segmentSize;
  const T = p.alg.tagLength;
  const count = sealedSegments(n, S, lastFinal);
  const total = n + count * T;
  // all segments but the last are full, so the last one's tag ends at `total`
  if (buf.length < total) throw new RangeError('the buffer is too short for the batch');
  const nonce = new Uint8Array(p.alg.nonceLength);
  for (let i = 0; i < count; i++) {
    const len = Math.min(S, n - i * S);
    const o = i * (S + T);
    segmentNonce(p.alg, p.prefix, first + i, lastFinal && i === count - 1, nonce);
    aead.seal(nonce, buf.subarray(o, o + len), p.aad, buf.subarray(o, o + len + T));
  }
  return buf.subarray(0, total);
}

/**
 * Opens the sealed batch `sealed` in place: segment i's plaintext is left where its ciphertext
 * began, at i·(S+T), and the returned views are the plaintext pieces in order (no byte moved:
 * in kernel memory, the AEAD opens it with no copy). All or nothing, as openBatch: when a
 * segment fails, all of `sealed` is wiped and SegmentAuthenticationError names the segment.
 */
export function openSpaced(aead: Aead, p: SegmentParams, sealed: Uint8Array, first: number, lastFinal: boolean): Uint8Array[] {
  const S = p.segmentSize;
  const T = p.alg.tagLength;
  const unit = S + T;
  if (openedLength(sealed.length, p, lastFinal) < 0) {
    const at = first + Math.floor(sealed.length / unit);
    throw new SegmentAuthenticationError(at, `truncated: segment ${at} is shorter than its tag (the stream was cut, or is not a ctkit sealed stream)`);
  }
  const count = lastFinal ? Math.max(1, Math.ceil(sealed.length / unit)) : sealed.length / unit;
  const nonce = new Uint8Array(p.alg.nonceLength);
  const pieces: Uint8Array[] = [];
  let i = 0;
  try {
    for (; i < count; i++) {
      const o = i * unit;
      const seg = sealed.subarray(o, Math.min(sealed.length, o + unit));
      segmentNonce(p.alg, p.prefix, first + i, lastFinal && i === count - 1, nonce);
      pieces.push(aead.open(nonce, seg, p.aad, seg.subarray(0, seg.length - T)));
    }
  } catch (e) {
    sealed.fill(0);
    if (e instanceof AuthenticationError) throw new SegmentAuthenticationError(first + i);
    throw e;
  }
  return pieces;
}

/**
 * Cuts a byte stream into batches of whole units (a unit: a plaintext segment when sealing, a
 * sealed segment when opening) that are certainly not the stream's last: the last unit is held
 * back, in a buffer of our own, until more bytes arrive or the stream ends. Batches are views
 * (of the caller's chunk, or of the hold buffer) valid only until the next push(): a consumer
 * that keeps one copies it. Each input byte is copied at most once (into the hold buffer).
 */
export class Framer {
  readonly unit: number;
  readonly maxUnits: number;
  readonly #hold: Uint8Array;
  #held = 0;

  constructor(unit: number, maxUnits: number) {
    this.unit = unit;
    this.maxUnits = Math.max(1, maxUnits);
    this.#hold = new Uint8Array(unit);
  }

  get buffered(): number {
    return this.#held;
  }

  /** Calls emit(batch) for each batch that `chunk` completes, in order. */
  push(chunk: Uint8Array, emit: (batch: Uint8Array) => void): void {
    let c = chunk;
    if (c.length === 0) return;
    if (this.#held > 0) {
      const take = Math.min(this.unit - this.#held, c.length);
      this.#hold.set(c.subarray(0, take), this.#held);
      this.#held += take;
      c = c.subarray(take);
      if (c.length === 0) return; // the hold may be full, but nothing follows it yet
      emit(this.#hold); // a full unit and more after it
      this.#held = 0;
    }
    // c is not empty: its whole units but the last one that could be final
    while (c.length > this.unit) {
      const units = Math.min(this.maxUnits, Math.floor((c.length - 1) / this.unit));
      emit(c.subarray(0, units * this.unit));
      c = c.subarray(units * this.unit);
    }
    this.#hold.set(c, 0);
    this.#held = c.length;
  }

  /** What is left: the final batch (a view of the hold buffer, possibly empty). */
  rest(): Uint8Array {
    const r = this.#hold.subarray(0, this.#held);
    this.#held = 0;
    return r;
  }

  /** Wipes what is held. */
  clear(): void {
    this.#hold.fill(0);
    this.#held = 0;
  }
}

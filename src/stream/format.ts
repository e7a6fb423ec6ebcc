// The ctkit sealed-stream format, version 1 (docs/stream-format.md is the specification): a
// segmented AEAD stream after the STREAM construction of Hoang, Reyhanitabar, Rogaway and Vizár
// ("Online Authenticated-Encryption and its Nonce-Reuse Misuse-Resistance", CRYPTO 2015).
//
//   header = "CTK1" ‖ version 1 ‖ algorithm id ‖ segment size (u32 BE) ‖ nonce prefix (nonce length − 5)
//   segment i = AEAD.seal(nonce = prefix ‖ u32be(i) ‖ final flag, plaintext_i, aad = header [‖ stream aad])
//
// Every segment but the last holds exactly `segment size` plaintext bytes, the last 0 … segment
// size (an empty stream is one empty final segment). The stream AAD (an option of the library,
// not stored) is appended to the header in every segment's associated data; without it the
// associated data is the header alone, byte for byte what ctkit 0.1's CLI wrote.

import { AuthenticationError } from '../errors.js';

const MAGIC = Uint8Array.of(0x43, 0x54, 0x4b, 0x31); // "CTK1"
const VERSION = 1;
/** The CLI's segment size and the library's default. */
export const SEGMENT_SIZE = 65536;
/** The largest segment size a header may declare (16 MiB). */
export const MAX_SEGMENT_SIZE = 1 << 24;
/** Bytes of the header before the nonce prefix. */
export const HEADER_FIXED = 10;
/** At most 2^32 segments: the counter is 32 bits. */
const MAX_SEGMENTS = 2 ** 32;

export interface AlgorithmInfo {
  /** the id byte in the header */
  readonly id: number;
  /** the name, as an Aead object's `algorithm` */
  readonly name: string;
  readonly keyLength: number;
  readonly nonceLength: number;
  readonly tagLength: number;
}

export const ALGORITHMS: readonly AlgorithmInfo[] = [
  { id: 1, name: 'aes-256-gcm', keyLength: 32, nonceLength: 12, tagLength: 16 },
  { id: 2, name: 'chacha20-poly1305', keyLength: 32, nonceLength: 12, tagLength: 16 },
  { id: 3, name: 'xchacha20-poly1305', keyLength: 32, nonceLength: 24, tagLength: 16 },
  { id: 4, name: 'aes-256-gcm-siv', keyLength: 32, nonceLength: 12, tagLength: 16 },
  { id: 5, name: 'sm4-gcm', keyLength: 16, nonceLength: 12, tagLength: 16 },
];

export type AlgorithmName = 'aes-256-gcm' | 'chacha20-poly1305' | 'xchacha20-poly1305' | 'aes-256-gcm-siv' | 'sm4-gcm';

export function algorithmByName(name: string): AlgorithmInfo | undefined {
  return ALGORITHMS.find((a) => a.name === name);
}

export function algorithmById(id: number): AlgorithmInfo | undefined {
  return ALGORITHMS.find((a) => a.id === id);
}

export function prefixLength(alg: AlgorithmInfo): number {
  return alg.nonceLength - 5;
}

export function headerLength(alg: AlgorithmInfo): number {
  return HEADER_FIXED + prefixLength(alg);
}

/**
 * A sealed stream that is not in format 1, is damaged or cut before its first segment, or was
 * sealed with another algorithm. An AuthenticationError: the input is not an authentic stream.
 */
export class StreamFormatError extends AuthenticationError {
  static override readonly errorName: string = 'StreamFormatError';
}

export function checkSegmentSize(segmentSize: number): void {
  if (!Number.isInteger(segmentSize) || segmentSize < 1 || segmentSize > MAX_SEGMENT_SIZE) {
    throw new RangeError(`segmentSize must be an integer from 1 to ${MAX_SEGMENT_SIZE}, got ${String(segmentSize)}`);
  }
}

export function encodeHeader(alg: AlgorithmInfo, prefix: Uint8Array, segmentSize = SEGMENT_SIZE): Uint8Array {
  if (prefix.length !== prefixLength(alg)) throw new RangeError(`nonce prefix must be ${prefixLength(alg)} bytes, got ${prefix.length}`);
  checkSegmentSize(segmentSize);
  const h = new Uint8Array(headerLength(alg));
  h.set(MAGIC, 0);
  h[4] = VERSION;
  h[5] = alg.id;
  h[6] = segmentSize >>> 24;
  h[7] = (segmentSize >>> 16) & 0xff;
  h[8] = (segmentSize >>> 8) & 0xff;
  h[9] = segmentSize & 0xff;
  h.set(prefix, HEADER_FIXED);
  return h;
}

/** Parses the fixed part of a header: b is its first HEADER_FIXED bytes (the opener's buffer); the prefix follows. */
export function parseHeaderStart(b: Uint8Array): { alg: AlgorithmInfo; segmentSize: number } {
  if (MAGIC.some((m, i) => b[i] !== m)) throw new StreamFormatError('not a ctkit sealed stream (bad magic)');
  if (b[4] !== VERSION) throw new StreamFormatError(`unsupported format version ${b[4]} (this ctkit reads version ${VERSION})`);
  const alg = algorithmById(b[5]);
  if (!alg) throw new StreamFormatError(`unknown algorithm id ${b[5]} in the header`);
  const segmentSize = ((b[6] << 24) | (b[7] << 16) | (b[8] << 8) | b[9]) >>> 0;
  if (segmentSize < 1 || segmentSize > MAX_SEGMENT_SIZE) throw new StreamFormatError(`segment size ${segmentSize} in the header is out of range`);
  return { alg, segmentSize };
}

/** Writes the nonce of segment `index` into `out` (nonceLength bytes) and returns it. */
export function segmentNonce(alg: AlgorithmInfo, prefix: Uint8Array, index: number, final: boolean, out = new Uint8Array(alg.nonceLength)): Uint8Array {
  if (!Number.isInteger(index) || index < 0 || index >= MAX_SEGMENTS) throw new RangeError('segment counter exhausted (more than 2^32 segments)');
  const p = prefix.length;
  out.set(prefix, 0);
  out[p] = index >>> 24;
  out[p + 1] = (index >>> 16) & 0xff;
  out[p + 2] = (index >>> 8) & 0xff;
  out[p + 3] = index & 0xff;
  out[p + 4] = final ? 1 : 0;
  return out;
}

/**
 * The associated data of every segment: the header, then the stream AAD if there is one. Always
 * an array of its own: a caller that wipes the header it was handed (StreamSealer.header) must not
 * change what the later segments are sealed under.
 */
export function segmentAad(header: Uint8Array, aad: Uint8Array | undefined): Uint8Array {
  const out = new Uint8Array(header.length + (aad?.length ?? 0));
  out.set(header);
  if (aad) out.set(aad, header.length);
  return out;
}

// The ctkit sealed-file format, version 1: a segmented AEAD stream (the STREAM construction of
// Hoang, Reyhanitabar, Rogaway and Vizár, "Online Authenticated-Encryption and its
// Nonce-Reuse Misuse-Resistance", CRYPTO 2015), so that files of any size are sealed and opened
// in constant memory and every segment is authenticated before its plaintext is released.
//
//   header (HEADER_LENGTH + prefix bytes):
//     0   4  magic "CTK1"
//     4   1  format version = 1
//     5   1  algorithm id (ALGORITHMS below)
//     6   4  segment size in bytes, big-endian (plaintext bytes per full segment; 65536)
//     10  n  nonce prefix, random; n = nonce length − 5 (7 for 12-byte nonces, 19 for 24-byte)
//   segments: each sealed segment is ciphertext‖tag; every segment but the last holds exactly
//   `segment size` plaintext bytes; the last holds 0 … segment size bytes (an empty file is one
//   empty final segment).
//
//   nonce of segment i = prefix ‖ i as 4 bytes big-endian ‖ final flag (0x01 on the last
//   segment, 0x00 on every other)
//   associated data of every segment = the whole header
//
// What that detects: a changed header (every segment's AAD changes); a segment moved, swapped,
// duplicated or removed (its counter no longer matches its position); truncation at a segment
// boundary (the new last segment was sealed with flag 0, and is opened with flag 1); data
// appended after the last segment (the last segment was sealed with flag 1, and is opened with
// flag 0); segments spliced in from another file (another random prefix, and as a rule another
// key). At most 2^32 segments (256 TiB with 64 KiB segments).

export const MAGIC = [0x43, 0x54, 0x4b, 0x31]; // "CTK1"
export const VERSION = 1;
export const SEGMENT_SIZE = 65536;
export const HEADER_FIXED = 10;

export interface AlgorithmInfo {
  id: number;
  name: string;
  keyLength: number;
  nonceLength: number;
  tagLength: number;
  /** the factory's export name in ctkit/aead */
  factory: string;
}

export const ALGORITHMS: AlgorithmInfo[] = [
  { id: 1, name: 'aes-256-gcm', keyLength: 32, nonceLength: 12, tagLength: 16, factory: 'aesGcm' },
  { id: 2, name: 'chacha20-poly1305', keyLength: 32, nonceLength: 12, tagLength: 16, factory: 'chacha20Poly1305' },
  { id: 3, name: 'xchacha20-poly1305', keyLength: 32, nonceLength: 24, tagLength: 16, factory: 'xchacha20Poly1305' },
  { id: 4, name: 'aes-256-gcm-siv', keyLength: 32, nonceLength: 12, tagLength: 16, factory: 'aesGcmSiv' },
  { id: 5, name: 'sm4-gcm', keyLength: 16, nonceLength: 12, tagLength: 16, factory: 'sm4Gcm' },
];

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

export function encodeHeader(alg: AlgorithmInfo, prefix: Uint8Array, segmentSize = SEGMENT_SIZE): Uint8Array {
  if (prefix.length !== prefixLength(alg)) throw new RangeError(`nonce prefix must be ${prefixLength(alg)} bytes`);
  const h = new Uint8Array(headerLength(alg));
  h.set(MAGIC, 0);
  h[4] = VERSION;
  h[5] = alg.id;
  new DataView(h.buffer).setUint32(6, segmentSize);
  h.set(prefix, HEADER_FIXED);
  return h;
}

export class FormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FormatError';
  }
}

/** Parse the fixed part of a header (the first HEADER_FIXED bytes); the prefix follows. */
export function parseHeaderStart(b: Uint8Array): { alg: AlgorithmInfo; segmentSize: number } {
  if (b.length < HEADER_FIXED || MAGIC.some((m, i) => b[i] !== m)) throw new FormatError('not a ctkit sealed file (bad magic)');
  if (b[4] !== VERSION) throw new FormatError(`unsupported format version ${b[4]} (this ctkit reads version ${VERSION})`);
  const alg = algorithmById(b[5]);
  if (!alg) throw new FormatError(`unknown algorithm id ${b[5]} in header`);
  const segmentSize = new DataView(b.buffer, b.byteOffset, b.length).getUint32(6);
  if (segmentSize < 1 || segmentSize > 1 << 24) throw new FormatError(`segment size ${segmentSize} out of range`);
  return { alg, segmentSize };
}

/** The nonce of segment `index`. */
export function segmentNonce(alg: AlgorithmInfo, prefix: Uint8Array, index: number, final: boolean): Uint8Array {
  if (!Number.isInteger(index) || index < 0 || index > 0xffffffff) throw new RangeError('segment counter exhausted (more than 2^32 segments)');
  const n = new Uint8Array(alg.nonceLength);
  n.set(prefix, 0);
  new DataView(n.buffer).setUint32(prefix.length, index);
  n[alg.nonceLength - 1] = final ? 1 : 0;
  return n;
}

// Reference model of the ctkit sealed-stream format, version 1 (docs/stream-format.md), written
// from that specification on the reference AEADs of this folder: slow and obvious, the whole
// stream in memory, no code shared with src/stream. Tests and the document's test vectors only.
//
//   header    = "CTK1" ‖ 0x01 ‖ algorithm id ‖ uint32be(segment size) ‖ nonce prefix
//   segment i = AEAD-Seal(key, prefix ‖ uint32be(i) ‖ final_i, P_i, header ‖ stream AAD)
//   final_i   = 0x01 for the last segment, 0x00 for every other

import { chacha20Poly1305OpenRef, chacha20Poly1305SealRef, xchacha20Poly1305OpenRef, xchacha20Poly1305SealRef } from './chacha20-poly1305.js';
import { gcmOpenRef, gcmSealRef } from './gcm.js';
import { gcmSivOpenRef, gcmSivSealRef } from './gcm-siv.js';
import { sm4GcmOpenRef, sm4GcmSealRef } from './sm4.js';

interface RefAead {
  id: number;
  nonceLength: number;
  seal(key: Uint8Array, nonce: Uint8Array, p: Uint8Array, aad: Uint8Array): Uint8Array;
  /** undefined when the tag does not verify */
  open(key: Uint8Array, nonce: Uint8Array, c: Uint8Array, aad: Uint8Array): Uint8Array | undefined;
}

const joinTag = (r: { ciphertext: Uint8Array; tag: Uint8Array }): Uint8Array => cat(r.ciphertext, r.tag);
const splitTag = (c: Uint8Array): [Uint8Array, Uint8Array] => [c.subarray(0, c.length - 16), c.subarray(c.length - 16)];

const REF_STREAM_AEADS: Record<string, RefAead> = {
  'aes-256-gcm': {
    id: 1,
    nonceLength: 12,
    seal: (k, n, p, a) => joinTag(gcmSealRef(k, n, p, a)),
    open: (k, n, c, a) => gcmOpenRef(k, n, splitTag(c)[0], a, splitTag(c)[1]) ?? undefined,
  },
  'chacha20-poly1305': { id: 2, nonceLength: 12, seal: chacha20Poly1305SealRef, open: chacha20Poly1305OpenRef },
  'xchacha20-poly1305': { id: 3, nonceLength: 24, seal: xchacha20Poly1305SealRef, open: xchacha20Poly1305OpenRef },
  'aes-256-gcm-siv': {
    id: 4,
    nonceLength: 12,
    seal: (k, n, p, a) => joinTag(gcmSivSealRef(k, n, p, a)),
    open: (k, n, c, a) => gcmSivOpenRef(k, n, splitTag(c)[0], a, splitTag(c)[1]) ?? undefined,
  },
  'sm4-gcm': {
    id: 5,
    nonceLength: 12,
    seal: (k, n, p, a) => joinTag(sm4GcmSealRef(k, n, p, a)),
    open: (k, n, c, a) => sm4GcmOpenRef(k, n, splitTag(c)[0], a, splitTag(c)[1]) ?? undefined,
  },
};

function cat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function u32be(v: number): Uint8Array {
  return Uint8Array.of((v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255);
}

export interface RefStreamParams {
  algorithm: string;
  key: Uint8Array;
  /** nonce length − 5 bytes */
  prefix: Uint8Array;
  segmentSize: number;
  aad?: Uint8Array;
}

function refHeader(p: RefStreamParams): Uint8Array {
  const a = REF_STREAM_AEADS[p.algorithm];
  if (p.prefix.length !== a.nonceLength - 5) throw new Error('prefix length');
  return cat(Uint8Array.of(0x43, 0x54, 0x4b, 0x31, 1, a.id), u32be(p.segmentSize), p.prefix);
}

/** The plaintext cut into segments: full ones, then the last (possibly empty, possibly full). */
function refSegments(plaintext: Uint8Array, segmentSize: number): Uint8Array[] {
  const segs: Uint8Array[] = [];
  let off = 0;
  while (plaintext.length - off > segmentSize) {
    segs.push(plaintext.subarray(off, off + segmentSize));
    off += segmentSize;
  }
  segs.push(plaintext.subarray(off));
  return segs;
}

export function refSealStream(p: RefStreamParams, plaintext: Uint8Array): Uint8Array {
  const a = REF_STREAM_AEADS[p.algorithm];
  const header = refHeader(p);
  const aad = cat(header, p.aad ?? new Uint8Array(0));
  const segs = refSegments(plaintext, p.segmentSize);
  const out = [header];
  segs.forEach((s, i) => {
    const nonce = cat(p.prefix, u32be(i), Uint8Array.of(i === segs.length - 1 ? 1 : 0));
    out.push(a.seal(p.key, nonce, s, aad));
  });
  return cat(...out);
}

/** The plaintext, or undefined when anything about the stream is not authentic. */
export function refOpenStream(algorithm: string, key: Uint8Array, sealed: Uint8Array, streamAad: Uint8Array = new Uint8Array(0)): Uint8Array | undefined {
  const a = REF_STREAM_AEADS[algorithm];
  const hl = 10 + a.nonceLength - 5;
  if (sealed.length < hl) return undefined;
  const header = sealed.subarray(0, hl);
  if (header[0] !== 0x43 || header[1] !== 0x54 || header[2] !== 0x4b || header[3] !== 0x31 || header[4] !== 1 || header[5] !== a.id) return undefined;
  const segmentSize = ((header[6] << 24) | (header[7] << 16) | (header[8] << 8) | header[9]) >>> 0;
  if (segmentSize < 1 || segmentSize > 1 << 24) return undefined;
  const prefix = header.subarray(10);
  const aad = cat(header, streamAad);
  const body = sealed.subarray(hl);
  const unit = segmentSize + 16;
  const pieces: Uint8Array[] = [];
  let off = 0;
  while (body.length - off > unit) {
    pieces.push(body.subarray(off, off + unit));
    off += unit;
  }
  pieces.push(body.subarray(off));
  const out: Uint8Array[] = [];
  for (let i = 0; i < pieces.length; i++) {
    if (pieces[i].length < 16) return undefined;
    const nonce = cat(prefix, u32be(i), Uint8Array.of(i === pieces.length - 1 ? 1 : 0));
    const m = a.open(key, nonce, pieces[i], aad);
    if (m === undefined) return undefined;
    out.push(m);
  }
  return cat(...out);
}

// Reference Poly1305, written from RFC 8439, section 2.5 (the algorithm) and 2.5.1 (the clamp),
// with BigInt arithmetic modulo 2^130 − 5 exactly as the RFC's pseudo-code says:
//   r = clamp(le_bytes_to_num(key[0..15])), s = le_bytes_to_num(key[16..31]), a = 0;
//   for each 16-byte block (the last one possibly shorter): n = le(block ‖ 0x01);
//     a = ((a + n) · r) mod p;
//   tag = (a + s) mod 2^128, 16 bytes little-endian.
// Not constant time; a specification model for tests only. It imports no kernel.

export const P1305 = (1n << 130n) - 5n;

function leToBig(b: Uint8Array): bigint {
  let v = 0n;
  for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]);
  return v;
}

/** RFC 8439 §2.5.1: clear the top four bits of bytes 3, 7, 11, 15 and the low two bits of 4, 8, 12. */
function clampR(r16: Uint8Array): bigint {
  const r = r16.slice(0, 16);
  r[3] &= 15;
  r[7] &= 15;
  r[11] &= 15;
  r[15] &= 15;
  r[4] &= 252;
  r[8] &= 252;
  r[12] &= 252;
  return leToBig(r);
}

/** The accumulator after absorbing msg, starting from `a` (tests use it to reach edge states). */
function poly1305Accumulate(r: bigint, msg: Uint8Array, a = 0n): bigint {
  for (let i = 0; i < msg.length; i += 16) {
    const block = msg.subarray(i, Math.min(i + 16, msg.length));
    const n = leToBig(block) + (1n << BigInt(8 * block.length)); // the 0x01 byte after the block
    a = ((a + n) * r) % P1305;
  }
  return a;
}

/** The 16-byte tag for accumulator a and key half s: (a + s) mod 2^128, little-endian. */
function poly1305Tag(a: bigint, s: bigint): Uint8Array {
  let t = (a + s) & ((1n << 128n) - 1n);
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) {
    out[i] = Number(t & 0xffn);
    t >>= 8n;
  }
  return out;
}

/** RFC 8439 §2.5: Poly1305(key, msg) with a 32-byte one-time key. */
export function poly1305Ref(key: Uint8Array, msg: Uint8Array): Uint8Array {
  if (key.length !== 32) throw new RangeError('poly1305 ref: key 32 bytes');
  const r = clampR(key.subarray(0, 16));
  const s = leToBig(key.subarray(16, 32));
  return poly1305Tag(poly1305Accumulate(r, msg), s);
}

// Reference AES-GCM-SIV, written from RFC 8452, "AES-GCM-SIV: Nonce Misuse-Resistant
// Authenticated Encryption", section 4 (encryption) and section 5 (decryption):
//   - key derivation: for i = 0 … 3 (AES-128) or 0 … 5 (AES-256), the first 8 bytes of
//     AES(key_generating_key, LE32(i) ‖ nonce); the first two halves are the message
//     authentication key, the rest the message encryption key;
//   - S_s = POLYVAL(auth key, padded AAD ‖ padded plaintext ‖ LE64(bitlen AAD) ‖ LE64(bitlen P));
//     S_s[0..11] ^= nonce; S_s[15] &= 0x7f; tag = AES(enc key, S_s);
//   - the counter block is the tag with its last byte's top bit set; AES-CTR with the first 32
//     bits as a little-endian counter that wraps modulo 2^32;
//   - decryption: CTR first, then the expected tag over the plaintext, compared with the tag.
// Built only on the reference AES and reference POLYVAL; slow, obvious, not constant-time, for
// tests only. It imports no kernel.

import { aesEncryptWithSchedule, aesExpandKeyRef } from './aes.js';
import { polyvalRef } from './polyval.js';

function le64(v: bigint): Uint8Array {
  const out = new Uint8Array(8);
  for (let i = 0; i < 8; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

function pad16(x: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(x.length / 16) * 16);
  out.set(x);
  return out;
}

/** The per-nonce keys (RFC 8452 section 4, derive_keys). */
export function sivDeriveKeysRef(key: Uint8Array, nonce: Uint8Array): { authKey: Uint8Array; encKey: Uint8Array } {
  if (key.length !== 16 && key.length !== 32) throw new RangeError(`AES-GCM-SIV key must be 16 or 32 bytes, got ${key.length}`);
  if (nonce.length !== 12) throw new RangeError(`AES-GCM-SIV nonce must be 12 bytes, got ${nonce.length}`);
  const rks = aesExpandKeyRef(key);
  const halves: Uint8Array[] = [];
  for (let i = 0; i < (key.length === 16 ? 4 : 6); i++) {
    const block = new Uint8Array(16);
    block[0] = i; // LE32(i), i < 6
    block.set(nonce, 4);
    halves.push(aesEncryptWithSchedule(rks, block).subarray(0, 8));
  }
  const join = (hs: Uint8Array[]) => {
    const out = new Uint8Array(hs.length * 8);
    hs.forEach((h, k) => out.set(h, 8 * k));
    return out;
  };
  return { authKey: join(halves.slice(0, 2)), encKey: join(halves.slice(2)) };
}

/** AES-CTR with a 32-bit little-endian counter in the first four bytes (RFC 8452 section 4). */
function sivCtrRef(encRks: Uint8Array[], initialCounter: Uint8Array, x: Uint8Array): Uint8Array {
  const out = new Uint8Array(x.length);
  const cb = Uint8Array.from(initialCounter);
  for (let off = 0; off < x.length; off += 16) {
    const ks = aesEncryptWithSchedule(encRks, cb);
    for (let j = off; j < Math.min(off + 16, x.length); j++) out[j] = x[j] ^ ks[j - off];
    const c = (((cb[0] | (cb[1] << 8) | (cb[2] << 16) | (cb[3] << 24)) >>> 0) + 1) >>> 0;
    cb[0] = c & 0xff;
    cb[1] = (c >>> 8) & 0xff;
    cb[2] = (c >>> 16) & 0xff;
    cb[3] = c >>> 24;
  }
  return out;
}

function sivTag(authKey: Uint8Array, encRks: Uint8Array[], nonce: Uint8Array, p: Uint8Array, aad: Uint8Array): Uint8Array {
  const lengths = new Uint8Array(16);
  lengths.set(le64(BigInt(aad.length) * 8n), 0);
  lengths.set(le64(BigInt(p.length) * 8n), 8);
  const input = new Uint8Array(pad16(aad).length + pad16(p).length + 16);
  input.set(aad, 0);
  input.set(p, pad16(aad).length);
  input.set(lengths, input.length - 16);
  const s = polyvalRef(authKey, input);
  for (let i = 0; i < 12; i++) s[i] ^= nonce[i];
  s[15] &= 0x7f;
  return aesEncryptWithSchedule(encRks, s);
}

/** AES-GCM-SIV encryption: ciphertext and 16-byte tag (RFC 8452 section 4). */
export function gcmSivSealRef(key: Uint8Array, nonce: Uint8Array, p: Uint8Array, aad: Uint8Array): { ciphertext: Uint8Array; tag: Uint8Array } {
  const { authKey, encKey } = sivDeriveKeysRef(key, nonce);
  const encRks = aesExpandKeyRef(encKey);
  const tag = sivTag(authKey, encRks, nonce, p, aad);
  const cb = Uint8Array.from(tag);
  cb[15] |= 0x80;
  return { ciphertext: sivCtrRef(encRks, cb, p), tag };
}

/** AES-GCM-SIV decryption (RFC 8452 section 5): the plaintext, or null when the tag is wrong. */
export function gcmSivOpenRef(key: Uint8Array, nonce: Uint8Array, c: Uint8Array, aad: Uint8Array, tag: Uint8Array): Uint8Array | null {
  if (tag.length !== 16) throw new RangeError(`AES-GCM-SIV tag must be 16 bytes, got ${tag.length}`);
  const { authKey, encKey } = sivDeriveKeysRef(key, nonce);
  const encRks = aesExpandKeyRef(encKey);
  const cb = Uint8Array.from(tag);
  cb[15] |= 0x80;
  const p = sivCtrRef(encRks, cb, c);
  const expected = sivTag(authKey, encRks, nonce, p, aad);
  for (let i = 0; i < 16; i++) if (expected[i] !== tag[i]) return null;
  return p;
}

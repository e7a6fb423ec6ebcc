// Reference SM4, written from GB/T 32907-2016, "Information security technology — SM4 block
// cipher algorithm" (also ISO/IEC 18033-3:2010/Amd 1:2021; English text in
// draft-ribose-cfrg-sm4-10):
//   - section 6.2: the S-box Sbox (the table below), τ(A) = (Sbox(a0), Sbox(a1), Sbox(a2), Sbox(a3));
//   - section 6.2: L(B) = B ⊕ (B <<< 2) ⊕ (B <<< 10) ⊕ (B <<< 18) ⊕ (B <<< 24), T = L ∘ τ;
//   - section 7.1: the round function F(X0, X1, X2, X3, rk) = X0 ⊕ T(X1 ⊕ X2 ⊕ X3 ⊕ rk);
//   - section 7.1: encryption, 32 rounds X_{i+4} = F(X_i, …, rk_i), then the reversal
//     R(X32, X33, X34, X35) = (X35, X34, X33, X32);
//   - section 7.2: decryption, the same with the round keys in reverse order;
//   - section 7.3: key expansion, K_i = MK_i ⊕ FK_i, rk_i = K_{i+4} = K_i ⊕ T'(K_{i+1} ⊕ K_{i+2}
//     ⊕ K_{i+3} ⊕ CK_i), T' = L' ∘ τ with L'(B) = B ⊕ (B <<< 13) ⊕ (B <<< 23); the system
//     parameters FK and the fixed parameters CK_i = (ck_{i,0}, …, ck_{i,3}), ck_{i,j} = (4i + j)·7
//     mod 256.
// Words are big-endian: X0 is bytes 0–3 of the block. Slow and obvious: one round per loop
// step, an S-box lookup per byte. The lookup is indexed by data, so this is NOT constant time;
// it is a specification model for tests and imports no kernel.
//
// Also here: SM4 in counter mode with a 128-bit big-endian counter (what OpenSSL's `sm4-ctr`
// does) and SM4-GCM (RFC 8998: GCM of NIST SP 800-38D with SM4 as the block cipher), built on
// the reference GHASH and on the SP 800-38D helpers of the reference GCM.

import { inc32, j0Ref } from './gcm.js';
import { ghashRef } from './ghash.js';

/** The S-box of GB/T 32907-2016, Table 1 (row = high nibble, column = low nibble). */
// prettier-ignore
export const SM4_SBOX: readonly number[] = [
  0xd6, 0x90, 0xe9, 0xfe, 0xcc, 0xe1, 0x3d, 0xb7, 0x16, 0xb6, 0x14, 0xc2, 0x28, 0xfb, 0x2c, 0x05, 0x2b, 0x67, 0x9a, 0x76, 0x2a, 0xbe, 0x04, 0xc3, 0xaa, 0x44, 0x13, 0x26, 0x49, 0x86, 0x06, 0x99, 0x9c, 0x42, 0x50, 0xf4, 0x91, 0xef, 0x98, 0x7a, 0x33,
  0x54, 0x0b, 0x43, 0xed, 0xcf, 0xac, 0x62, 0xe4, 0xb3, 0x1c, 0xa9, 0xc9, 0x08, 0xe8, 0x95, 0x80, 0xdf, 0x94, 0xfa, 0x75, 0x8f, 0x3f, 0xa6, 0x47, 0x07, 0xa7, 0xfc, 0xf3, 0x73, 0x17, 0xba, 0x83, 0x59, 0x3c, 0x19, 0xe6, 0x85, 0x4f, 0xa8, 0x68, 0x6b,
  0x81, 0xb2, 0x71, 0x64, 0xda, 0x8b, 0xf8, 0xeb, 0x0f, 0x4b, 0x70, 0x56, 0x9d, 0x35, 0x1e, 0x24, 0x0e, 0x5e, 0x63, 0x58, 0xd1, 0xa2, 0x25, 0x22, 0x7c, 0x3b, 0x01, 0x21, 0x78, 0x87, 0xd4, 0x00, 0x46, 0x57, 0x9f, 0xd3, 0x27, 0x52, 0x4c, 0x36, 0x02,
  0xe7, 0xa0, 0xc4, 0xc8, 0x9e, 0xea, 0xbf, 0x8a, 0xd2, 0x40, 0xc7, 0x38, 0xb5, 0xa3, 0xf7, 0xf2, 0xce, 0xf9, 0x61, 0x15, 0xa1, 0xe0, 0xae, 0x5d, 0xa4, 0x9b, 0x34, 0x1a, 0x55, 0xad, 0x93, 0x32, 0x30, 0xf5, 0x8c, 0xb1, 0xe3, 0x1d, 0xf6, 0xe2, 0x2e,
  0x82, 0x66, 0xca, 0x60, 0xc0, 0x29, 0x23, 0xab, 0x0d, 0x53, 0x4e, 0x6f, 0xd5, 0xdb, 0x37, 0x45, 0xde, 0xfd, 0x8e, 0x2f, 0x03, 0xff, 0x6a, 0x72, 0x6d, 0x6c, 0x5b, 0x51, 0x8d, 0x1b, 0xaf, 0x92, 0xbb, 0xdd, 0xbc, 0x7f, 0x11, 0xd9, 0x5c, 0x41, 0x1f,
  0x10, 0x5a, 0xd8, 0x0a, 0xc1, 0x31, 0x88, 0xa5, 0xcd, 0x7b, 0xbd, 0x2d, 0x74, 0xd0, 0x12, 0xb8, 0xe5, 0xb4, 0xb0, 0x89, 0x69, 0x97, 0x4a, 0x0c, 0x96, 0x77, 0x7e, 0x65, 0xb9, 0xf1, 0x09, 0xc5, 0x6e, 0xc6, 0x84, 0x18, 0xf0, 0x7d, 0xec, 0x3a, 0xdc,
  0x4d, 0x20, 0x79, 0xee, 0x5f, 0x3e, 0xd7, 0xcb, 0x39, 0x48,
];

/** The system parameters FK0…FK3 (section 7.3). */
const SM4_FK: readonly number[] = [0xa3b1bac6, 0x56aa3350, 0x677d9197, 0xb27022dc];

/** CK_i, i = 0…31: the bytes ck_{i,j} = (4i + j)·7 mod 256, big-endian in the word (section 7.3). */
function sm4Ck(i: number): number {
  let w = 0;
  for (let j = 0; j < 4; j++) w = (w << 8) | (((4 * i + j) * 7) & 0xff);
  return w >>> 0;
}

const rotl = (x: number, n: number): number => ((x << n) | (x >>> (32 - n))) >>> 0;

/** τ: the S-box applied to each byte of a word. */
function tau(a: number): number {
  const s = SM4_SBOX;
  return ((s[a >>> 24] << 24) | (s[(a >>> 16) & 0xff] << 16) | (s[(a >>> 8) & 0xff] << 8) | s[a & 0xff]) >>> 0;
}

/** L, the linear transform of the round function. */
const sm4L = (b: number): number => (b ^ rotl(b, 2) ^ rotl(b, 10) ^ rotl(b, 18) ^ rotl(b, 24)) >>> 0;

/** L', the linear transform of the key expansion. */
const sm4Lk = (b: number): number => (b ^ rotl(b, 13) ^ rotl(b, 23)) >>> 0;

function words(block: Uint8Array): number[] {
  const w: number[] = [];
  for (let i = 0; i < 4; i++) w.push(((block[4 * i] << 24) | (block[4 * i + 1] << 16) | (block[4 * i + 2] << 8) | block[4 * i + 3]) >>> 0);
  return w;
}

function bytes(w: number[]): Uint8Array {
  const out = new Uint8Array(16);
  for (let i = 0; i < 4; i++) {
    out[4 * i] = w[i] >>> 24;
    out[4 * i + 1] = (w[i] >>> 16) & 0xff;
    out[4 * i + 2] = (w[i] >>> 8) & 0xff;
    out[4 * i + 3] = w[i] & 0xff;
  }
  return out;
}

/** Key expansion (section 7.3): the 32 round keys rk_0…rk_31 of a 16-byte key. */
export function sm4ExpandKeyRef(key: Uint8Array): number[] {
  if (key.length !== 16) throw new RangeError(`SM4 key must be 16 bytes, got ${key.length}`);
  const mk = words(key);
  const k = mk.map((m, i) => (m ^ SM4_FK[i]) >>> 0);
  const rk: number[] = [];
  for (let i = 0; i < 32; i++) {
    const next = (k[i] ^ sm4Lk(tau((k[i + 1] ^ k[i + 2] ^ k[i + 3] ^ sm4Ck(i)) >>> 0))) >>> 0;
    k.push(next);
    rk.push(next);
  }
  return rk;
}

/** The 32 rounds and the reversal (sections 7.1 and 7.2) with round keys in the order given. */
function sm4Rounds(rk: readonly number[], block: Uint8Array): Uint8Array {
  if (block.length !== 16) throw new RangeError(`block must be 16 bytes, got ${block.length}`);
  const x = words(block);
  for (let i = 0; i < 32; i++) x.push((x[i] ^ sm4L(tau((x[i + 1] ^ x[i + 2] ^ x[i + 3] ^ rk[i]) >>> 0))) >>> 0);
  return bytes([x[35], x[34], x[33], x[32]]);
}

/** Encryption of one block (section 7.1). */
export function sm4EncryptBlockRef(key: Uint8Array, block: Uint8Array): Uint8Array {
  return sm4Rounds(sm4ExpandKeyRef(key), block);
}

/** Decryption of one block (section 7.2): the round keys in reverse order. */
export function sm4DecryptBlockRef(key: Uint8Array, block: Uint8Array): Uint8Array {
  return sm4Rounds(sm4ExpandKeyRef(key).reverse(), block);
}

// ---- SM4-GCM (RFC 8998 section 3.1: SP 800-38D GCM with SM4 as CIPH_K) ----

/** GCTR_K(ICB, X) (SP 800-38D Algorithm 3) with SM4 and inc_32. */
function gctrSm4(rk: readonly number[], icb: Uint8Array, x: Uint8Array): Uint8Array {
  const y = new Uint8Array(x.length);
  let cb: Uint8Array = Uint8Array.from(icb);
  for (let off = 0; off < x.length; off += 16) {
    const ks = sm4Rounds(rk, cb);
    for (let j = off; j < Math.min(off + 16, x.length); j++) y[j] = x[j] ^ ks[j - off];
    cb = inc32(cb);
  }
  return y;
}

function len64(n: number): Uint8Array {
  const out = new Uint8Array(8);
  let bits = BigInt(n) * 8n;
  for (let i = 7; i >= 0; i--) {
    out[i] = Number(bits & 0xffn);
    bits >>= 8n;
  }
  return out;
}

function ghashInput(aad: Uint8Array, c: Uint8Array): Uint8Array {
  const pa = Math.ceil(aad.length / 16) * 16;
  const pc = Math.ceil(c.length / 16) * 16;
  const out = new Uint8Array(pa + pc + 16);
  out.set(aad, 0);
  out.set(c, pa);
  out.set(len64(aad.length), pa + pc);
  out.set(len64(c.length), pa + pc + 8);
  return out;
}

/** SM4-GCM authenticated encryption (SP 800-38D Algorithm 4, RFC 8998). */
export function sm4GcmSealRef(key: Uint8Array, iv: Uint8Array, p: Uint8Array, aad: Uint8Array, tagLength = 16): { ciphertext: Uint8Array; tag: Uint8Array } {
  if (iv.length === 0) throw new RangeError('GCM needs an IV of at least one byte');
  const rk = sm4ExpandKeyRef(key);
  const h = sm4Rounds(rk, new Uint8Array(16));
  const j0 = j0Ref(h, iv);
  const c = gctrSm4(rk, inc32(j0), p);
  const s = ghashRef(h, ghashInput(aad, c));
  return { ciphertext: c, tag: gctrSm4(rk, j0, s).subarray(0, tagLength) };
}

/** SM4-GCM authenticated decryption (SP 800-38D Algorithm 5): the plaintext, or null for FAIL. */
export function sm4GcmOpenRef(key: Uint8Array, iv: Uint8Array, c: Uint8Array, aad: Uint8Array, tag: Uint8Array): Uint8Array | null {
  if (iv.length === 0) throw new RangeError('GCM needs an IV of at least one byte');
  const rk = sm4ExpandKeyRef(key);
  const h = sm4Rounds(rk, new Uint8Array(16));
  const j0 = j0Ref(h, iv);
  const expected = gctrSm4(rk, j0, ghashRef(h, ghashInput(aad, c))).subarray(0, tag.length);
  let diff = 0;
  for (let i = 0; i < tag.length; i++) diff |= expected[i] ^ tag[i];
  return diff === 0 ? gctrSm4(rk, inc32(j0), c) : null;
}

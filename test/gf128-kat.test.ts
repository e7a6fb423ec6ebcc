// Known answers for GHASH and POLYVAL, taken from the standards (never computed by the code
// under test), held first against the reference models in src/ref/ and then against ctkit's
// public API (src/mac/index.ts).
//
// Sources:
//   [GCM]  D. McGrew, J. Viega, "The Galois/Counter Mode of Operation (GCM)", revised spec,
//          Appendix B, test cases 1–18: K, P, IV, H, Y_0, C, GHASH(H, A, C), T. The GHASH input
//          there is A ‖ pad ‖ C ‖ pad ‖ len(A)_64 ‖ len(C)_64.
//   [8452A] RFC 8452, Appendix A: the POLYVAL worked example, mulX_POLYVAL / mulX_GHASH examples
//          (mulX_POLYVAL(9c98…) as corrected by verified erratum 5854), and the GHASH⇄POLYVAL
//          worked example.
//   [8452C] RFC 8452, Appendix C.1 (AEAD_AES_128_GCM_SIV) and C.2 (AEAD_AES_256_GCM_SIV):
//          record authentication key, POLYVAL input (already padded) and POLYVAL result.
// Every vector's transcription is also checked against OpenSSL (node:crypto) where the standard
// lists enough to do so: the GCM cases' H, C and T, and the GCM-SIV record authentication keys.

import { type CipherGCMTypes, createCipheriv } from 'node:crypto';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { bytesToHex, hexToBytes } from '../src/ref/hex.js';
import { gfMulGcm, ghashRef } from '../src/ref/ghash.js';
import { dotRef, ghashViaPolyval, mulXPolyval, polyvalRef } from '../src/ref/polyval.js';
import { ghash, polyval } from '../src/mac/index.js';
import { Rng } from './support/rng.js';

/** Seeded, so that a failing property check can be reproduced (CONTRIBUTING: test/support/rng.ts). */
const rng = new Rng(0x6b4e7a31);

const h2b = hexToBytes;
const b2h = bytesToHex;

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

function zeroPad16(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(b.length / 16) * 16);
  out.set(b);
  return out;
}

function byteReverse(b: Uint8Array): Uint8Array {
  return b.slice().reverse();
}

// ---------------------------------------------------------------------------------------------
// [GCM] test cases 1–18
// ---------------------------------------------------------------------------------------------

interface GcmCase {
  n: number;
  key: string;
  iv: string;
  aad: string;
  plaintext: string;
  h: string;
  /** Y_0 (= J_0) */
  y0: string;
  c: string;
  ghash: string;
  tag: string;
}

const P64 = 'd9313225f88406e5a55909c5aff5269a' + '86a7a9531534f7da2e4c303d8a318a72' + '1c3c0c95956809532fcf0e2449a6b525' + 'b16aedf5aa0de657ba637b391aafd255';
const P60 = P64.slice(0, 120);
const A20 = 'feedfacedeadbeeffeedfacedeadbeefabaddad2';
const IV8 = 'cafebabefacedbad';
const IV12 = 'cafebabefacedbaddecaf888';
const IV60 = '9313225df88406e555909c5aff5269aa' + '6a7a9538534f7da1e4c303d2a318a728' + 'c3c0c95156809539fcf0e2429a6b5254' + '16aedbf5a0de6a57a637b39b';
const K128 = 'feffe9928665731c6d6a8f9467308308';
const K192 = K128 + 'feffe9928665731c';
const K256 = K128 + K128;
const Z12 = '000000000000000000000000';

const GCM_CASES: GcmCase[] = [
  // AES-128
  { n: 1, key: '00'.repeat(16), iv: Z12, aad: '', plaintext: '', h: '66e94bd4ef8a2c3b884cfa59ca342b2e', y0: '00000000000000000000000000000001', c: '', ghash: '00000000000000000000000000000000', tag: '58e2fccefa7e3061367f1d57a4e7455a' },
  {
    n: 2,
    key: '00'.repeat(16),
    iv: Z12,
    aad: '',
    plaintext: '00'.repeat(16),
    h: '66e94bd4ef8a2c3b884cfa59ca342b2e',
    y0: '00000000000000000000000000000001',
    c: '0388dace60b6a392f328c2b971b2fe78',
    ghash: 'f38cbb1ad69223dcc3457ae5b6b0f885',
    tag: 'ab6e47d42cec13bdf53a67b21257bddf',
  },
  {
    n: 3,
    key: K128,
    iv: IV12,
    aad: '',
    plaintext: P64,
    h: 'b83b533708bf535d0aa6e52980d53b78',
    y0: 'cafebabefacedbaddecaf88800000001',
    c: '42831ec2217774244b7221b784d0d49c' + 'e3aa212f2c02a4e035c17e2329aca12e' + '21d514b25466931c7d8f6a5aac84aa05' + '1ba30b396a0aac973d58e091473f5985',
    ghash: '7f1b32b81b820d02614f8895ac1d4eac',
    tag: '4d5c2af327cd64a62cf35abd2ba6fab4',
  },
  {
    n: 4,
    key: K128,
    iv: IV12,
    aad: A20,
    plaintext: P60,
    h: 'b83b533708bf535d0aa6e52980d53b78',
    y0: 'cafebabefacedbaddecaf88800000001',
    c: '42831ec2217774244b7221b784d0d49c' + 'e3aa212f2c02a4e035c17e2329aca12e' + '21d514b25466931c7d8f6a5aac84aa05' + '1ba30b396a0aac973d58e091',
    ghash: '698e57f70e6ecc7fd9463b7260a9ae5f',
    tag: '5bc94fbc3221a5db94fae95ae7121a47',
  },
  {
    n: 5,
    key: K128,
    iv: IV8,
    aad: A20,
    plaintext: P60,
    h: 'b83b533708bf535d0aa6e52980d53b78',
    y0: 'c43a83c4c4badec4354ca984db252f7d',
    c: '61353b4c2806934a777ff51fa22a4755' + '699b2a714fcdc6f83766e5f97b6c7423' + '73806900e49f24b22b097544d4896b42' + '4989b5e1ebac0f07c23f4598',
    ghash: 'df586bb4c249b92cb6922877e444d37b',
    tag: '3612d2e79e3b0785561be14aaca2fccb',
  },
  {
    n: 6,
    key: K128,
    iv: IV60,
    aad: A20,
    plaintext: P60,
    h: 'b83b533708bf535d0aa6e52980d53b78',
    y0: '3bab75780a31c059f83d2a44752f9864',
    c: '8ce24998625615b603a033aca13fb894' + 'be9112a5c3a211a8ba262a3cca7e2ca7' + '01e4a9a4fba43c90ccdcb281d48c7c6f' + 'd62875d2aca417034c34aee5',
    ghash: '1c5afe9760d3932f3c9a878aac3dc3de',
    tag: '619cc5aefffe0bfa462af43c1699d050',
  },
  // AES-192
  { n: 7, key: '00'.repeat(24), iv: Z12, aad: '', plaintext: '', h: 'aae06992acbf52a3e8f4a96ec9300bd7', y0: '00000000000000000000000000000001', c: '', ghash: '00000000000000000000000000000000', tag: 'cd33b28ac773f74ba00ed1f312572435' },
  {
    n: 8,
    key: '00'.repeat(24),
    iv: Z12,
    aad: '',
    plaintext: '00'.repeat(16),
    h: 'aae06992acbf52a3e8f4a96ec9300bd7',
    y0: '00000000000000000000000000000001',
    c: '98e7247c07f0fe411c267e4384b0f600',
    ghash: 'e2c63f0ac44ad0e02efa05ab6743d4ce',
    tag: '2ff58d80033927ab8ef4d4587514f0fb',
  },
  {
    n: 9,
    key: K192,
    iv: IV12,
    aad: '',
    plaintext: P64,
    h: '466923ec9ae682214f2c082badb39249',
    y0: 'cafebabefacedbaddecaf88800000001',
    c: '3980ca0b3c00e841eb06fac4872a2757' + '859e1ceaa6efd984628593b40ca1e19c' + '7d773d00c144c525ac619d18c84a3f47' + '18e2448b2fe324d9ccda2710acade256',
    ghash: '51110d40f6c8fff0eb1ae33445a889f0',
    tag: '9924a7c8587336bfb118024db8674a14',
  },
  {
    n: 10,
    key: K192,
    iv: IV12,
    aad: A20,
    plaintext: P60,
    h: '466923ec9ae682214f2c082badb39249',
    y0: 'cafebabefacedbaddecaf88800000001',
    c: '3980ca0b3c00e841eb06fac4872a2757' + '859e1ceaa6efd984628593b40ca1e19c' + '7d773d00c144c525ac619d18c84a3f47' + '18e2448b2fe324d9ccda2710',
    ghash: 'ed2ce3062e4a8ec06db8b4c490e8a268',
    tag: '2519498e80f1478f37ba55bd6d27618c',
  },
  {
    n: 11,
    key: K192,
    iv: IV8,
    aad: A20,
    plaintext: P60,
    h: '466923ec9ae682214f2c082badb39249',
    y0: 'a14378078d27258a6292737e1802ada5',
    c: '0f10f599ae14a154ed24b36e25324db8' + 'c566632ef2bbb34f8347280fc4507057' + 'fddc29df9a471f75c66541d4d4dad1c9' + 'e93a19a58e8b473fa0f062f7',
    ghash: '1e6a133806607858ee80eaf237064089',
    tag: '65dcc57fcf623a24094fcca40d3533f8',
  },
  {
    n: 12,
    key: K192,
    iv: IV60,
    aad: A20,
    plaintext: P60,
    h: '466923ec9ae682214f2c082badb39249',
    y0: '4505cdc367a054c5002820e96aebef27',
    c: 'd27e88681ce3243c4830165a8fdcf9ff' + '1de9a1d8e6b447ef6ef7b79828666e45' + '81e79012af34ddd9e2f037589b292db3' + 'e67c036745fa22e7e9b7373b',
    ghash: '82567fb0b4cc371801eadec005968e94',
    tag: 'dcf566ff291c25bbb8568fc3d376a6d9',
  },
  // AES-256
  { n: 13, key: '00'.repeat(32), iv: Z12, aad: '', plaintext: '', h: 'dc95c078a2408989ad48a21492842087', y0: '00000000000000000000000000000001', c: '', ghash: '00000000000000000000000000000000', tag: '530f8afbc74536b9a963b4f1c4cb738b' },
  {
    n: 14,
    key: '00'.repeat(32),
    iv: Z12,
    aad: '',
    plaintext: '00'.repeat(16),
    h: 'dc95c078a2408989ad48a21492842087',
    y0: '00000000000000000000000000000001',
    c: 'cea7403d4d606b6e074ec5d3baf39d18',
    ghash: '83de425c5edc5d498f382c441041ca92',
    tag: 'd0d1c8a799996bf0265b98b5d48ab919',
  },
  {
    n: 15,
    key: K256,
    iv: IV12,
    aad: '',
    plaintext: P64,
    h: 'acbef20579b4b8ebce889bac8732dad7',
    y0: 'cafebabefacedbaddecaf88800000001',
    c: '522dc1f099567d07f47f37a32a84427d' + '643a8cdcbfe5c0c97598a2bd2555d1aa' + '8cb08e48590dbb3da7b08b1056828838' + 'c5f61e6393ba7a0abcc9f662898015ad',
    ghash: '4db870d37cb75fcb46097c36230d1612',
    tag: 'b094dac5d93471bdec1a502270e3cc6c',
  },
  {
    n: 16,
    key: K256,
    iv: IV12,
    aad: A20,
    plaintext: P60,
    h: 'acbef20579b4b8ebce889bac8732dad7',
    y0: 'cafebabefacedbaddecaf88800000001',
    c: '522dc1f099567d07f47f37a32a84427d' + '643a8cdcbfe5c0c97598a2bd2555d1aa' + '8cb08e48590dbb3da7b08b1056828838' + 'c5f61e6393ba7a0abcc9f662',
    ghash: '8bd0c4d8aacd391e67cca447e8c38f65',
    tag: '76fc6ece0f4e1768cddf8853bb2d551b',
  },
  {
    n: 17,
    key: K256,
    iv: IV8,
    aad: A20,
    plaintext: P60,
    h: 'acbef20579b4b8ebce889bac8732dad7',
    y0: '0095df49dd90abe3e4d252475748f5d4',
    c: 'c3762df1ca787d32ae47c13bf19844cb' + 'af1ae14d0b976afac52ff7d79bba9de0' + 'feb582d33934a4f0954cc2363bc73f78' + '62ac430e64abe499f47c9b1f',
    ghash: '75a34288b8c68f811c52b2e9a2f97f63',
    tag: '3a337dbf46a792c45e454913fe2ea8f2',
  },
  {
    n: 18,
    key: K256,
    iv: IV60,
    aad: A20,
    plaintext: P60,
    h: 'acbef20579b4b8ebce889bac8732dad7',
    y0: '0cd953e2140a5976079f8e2406bc8eb4',
    c: '5a8def2f0c9e53f1f75d7853659e2a20' + 'eeb2b22aafde6419a058ab4f6f746bf4' + '0fc0c3b780f244452da3ebf1c5d82cde' + 'a2418997200ef82e44ae7e3f',
    ghash: 'd5ffcf6fc5ac4d69722187421a7f170b',
    tag: 'a44a8266ee1c8eb0c8b5d4cf5ae9f19a',
  },
];

/** The GHASH input of GCM: A ‖ pad ‖ C ‖ pad ‖ len(A)_64 ‖ len(C)_64 (lengths in bits). */
function gcmGhashInput(aad: Uint8Array, c: Uint8Array): Uint8Array {
  const lens = new Uint8Array(16);
  const view = new DataView(lens.buffer);
  view.setBigUint64(0, BigInt(aad.length) * 8n);
  view.setBigUint64(8, BigInt(c.length) * 8n);
  return concat(zeroPad16(aad), zeroPad16(c), lens);
}

function aesEcb(key: Uint8Array, block: Uint8Array): Uint8Array {
  const cipher = createCipheriv(`aes-${key.length * 8}-ecb`, key, null);
  cipher.setAutoPadding(false);
  return new Uint8Array(cipher.update(block));
}

function xor(a: Uint8Array, b: Uint8Array): Uint8Array {
  return a.map((x, i) => x ^ b[i]);
}

// ---------------------------------------------------------------------------------------------
// [8452A] RFC 8452 Appendix A
// ---------------------------------------------------------------------------------------------

const A_H = '25629347589242761d31f826ba4b757b';
const A_X1 = '4f4f95668c83dfb6401762bb2d01a262';
const A_X2 = 'd1a24ddd2721d006bbe45f20d3c9f362';
const A_POLYVAL = 'f7a3b47b846119fae5b7866cf5e5b77e'; // POLYVAL(H, X_1, X_2)
const A_GHASH = 'bd9b3997046731fb96251b91f9c99d7a'; // GHASH(H, X_1, X_2)
const A_MULX_GHASH_KEY = 'dcbaa5dd137c188ebb21492c23c9b112'; // mulX_GHASH(ByteReverse(H))
const A_MULX_POLYVAL_KEY = 'f6ea96744df0633aec8424b18e26c54a'; // mulX_POLYVAL(ByteReverse(H))
const A_MULX_POLYVAL: [string, string][] = [
  ['01000000000000000000000000000000', '02000000000000000000000000000000'],
  // Erratum 5854 (verified): the RFC as published printed …574ca5f2.
  ['9c98c04df9387ded828175a92ba652d8', '3931819bf271fada0503eb52574ca572'],
];
const A_MULX_GHASH: [string, string][] = [
  ['01000000000000000000000000000000', '00800000000000000000000000000000'],
  ['9c98c04df9387ded828175a92ba652d8', '4e4c6026fc9c3ef6c140bad495d3296c'],
];
/** x in GHASH's bit order: the block whose second bit from the left is set. */
const GCM_X = '40000000000000000000000000000000';
/** 1 in GHASH's bit order: the leftmost bit. */
const GCM_ONE = '80000000000000000000000000000000';
/**
 * The identity of dot: x^128 mod P = x^127 + x^126 + x^121 + 1, as a little-endian block:
 * bit 0 → byte 0 = 0x01; bits 121, 126, 127 → byte 15 bits 1, 6, 7 = 0xc2.
 */
const POLYVAL_ONE = '010000000000000000000000000000c2';

// ---------------------------------------------------------------------------------------------
// [8452C] RFC 8452 Appendix C
// ---------------------------------------------------------------------------------------------

interface SivCase {
  name: string;
  /** AES key and nonce: only to check the record authentication key against OpenSSL */
  key: string;
  nonce: string;
  aad: string;
  plaintext: string;
  authKey: string;
  /** POLYVAL input as listed (already padded, with the length block) */
  input: string;
  result: string;
}

const K1 = '01000000000000000000000000000000';
const N1 = '030000000000000000000000';
const AUTH1 = 'd9b360279694941ac5dbc6987ada7377';
const K2 = K1 + '00'.repeat(16);
const AUTH2 = 'b5d3c529dfafac43136d2d11be284d7f';
const B1 = '01000000000000000000000000000000';
const B2 = '02000000000000000000000000000000';
const B3 = '03000000000000000000000000000000';
const B4 = '04000000000000000000000000000000';
const B5 = '05000000000000000000000000000000';

const SIV_CASES: SivCase[] = [
  { name: 'C.1 PT 0, AAD 0', key: K1, nonce: N1, aad: '', plaintext: '', authKey: AUTH1, input: '00000000000000000000000000000000', result: '00000000000000000000000000000000' },
  { name: 'C.1 PT 8, AAD 0', key: K1, nonce: N1, aad: '', plaintext: '0100000000000000', authKey: AUTH1, input: B1 + '00000000000000004000000000000000', result: 'eb93b7740962c5e49d2a90a7dc5cec74' },
  { name: 'C.1 PT 12, AAD 0', key: K1, nonce: N1, aad: '', plaintext: '010000000000000000000000', authKey: AUTH1, input: B1 + '00000000000000006000000000000000', result: '48eb6c6c5a2dbe4a1dde508fee06361b' },
  { name: 'C.1 PT 16, AAD 0', key: K1, nonce: N1, aad: '', plaintext: B1, authKey: AUTH1, input: B1 + '00000000000000008000000000000000', result: '20806c26e3c1de019e111255708031d6' },
  { name: 'C.1 PT 32, AAD 0', key: K1, nonce: N1, aad: '', plaintext: B1 + B2, authKey: AUTH1, input: B1 + B2 + '00000000000000000001000000000000', result: 'ce6edc9a50b36d9a98986bbf6a261c3b' },
  { name: 'C.1 PT 48, AAD 0', key: K1, nonce: N1, aad: '', plaintext: B1 + B2 + B3, authKey: AUTH1, input: B1 + B2 + B3 + '00000000000000008001000000000000', result: '81388746bc22d26b2abc3dcb15754222' },
  { name: 'C.1 PT 64, AAD 0', key: K1, nonce: N1, aad: '', plaintext: B1 + B2 + B3 + B4, authKey: AUTH1, input: B1 + B2 + B3 + B4 + '00000000000000000002000000000000', result: '1e39b6d3344d348f6044f89935d1cf78' },
  { name: 'C.1 PT 8, AAD 1', key: K1, nonce: N1, aad: '01', plaintext: '0200000000000000', authKey: AUTH1, input: B1 + B2 + '08000000000000004000000000000000', result: 'b26781e7e2c1376f96bec195f3709b2a' },
  { name: 'C.1 PT 12, AAD 1', key: K1, nonce: N1, aad: '01', plaintext: '020000000000000000000000', authKey: AUTH1, input: B1 + B2 + '08000000000000006000000000000000', result: '111f5affb18e4cc1164a01bdc12a4145' },
  { name: 'C.1 PT 16, AAD 1', key: K1, nonce: N1, aad: '01', plaintext: B2, authKey: AUTH1, input: B1 + B2 + '08000000000000008000000000000000', result: '79745ab508622c8a958543675fac4688' },
  { name: 'C.1 PT 32, AAD 1', key: K1, nonce: N1, aad: '01', plaintext: B2 + B3, authKey: AUTH1, input: B1 + B2 + B3 + '08000000000000000001000000000000', result: '2ce7daaf7c89490822051255b12eca6b' },
  { name: 'C.1 PT 48, AAD 1', key: K1, nonce: N1, aad: '01', plaintext: B2 + B3 + B4, authKey: AUTH1, input: B1 + B2 + B3 + B4 + '08000000000000008001000000000000', result: '9ca987715d69c1786711dfcd22f830fc' },
  { name: 'C.1 PT 64, AAD 1', key: K1, nonce: N1, aad: '01', plaintext: B2 + B3 + B4 + B5, authKey: AUTH1, input: B1 + B2 + B3 + B4 + B5 + '08000000000000000002000000000000', result: 'ffcd05d5770f34ad9267f0a59994b15a' },
  { name: 'C.1 PT 4, AAD 12', key: K1, nonce: N1, aad: '010000000000000000000000', plaintext: '02000000', authKey: AUTH1, input: B1 + B2 + '60000000000000002000000000000000', result: 'f6ce9d3dcd68a2fd603c7ecc18fb9918' },
  { name: 'C.1 PT 20, AAD 18', key: K1, nonce: N1, aad: B1 + '0200', plaintext: B3 + '04000000', authKey: AUTH1, input: B1 + B2 + B3 + B4 + '9000000000000000a000000000000000', result: '4781d492cb8f926c504caa36f61008fe' },
  { name: 'C.1 PT 18, AAD 20', key: K1, nonce: N1, aad: B1 + '02000000', plaintext: B3 + '0400', authKey: AUTH1, input: B1 + B2 + B3 + B4 + 'a0000000000000009000000000000000', result: '75cbc23a1a10e348aeb8e384b5cc79fd' },
  {
    name: 'C.1 PT 0, AAD 0 (random key)',
    key: 'e66021d5eb8e4f4066d4adb9c33560e4',
    nonce: 'f46e44bb3da0015c94f70887',
    aad: '',
    plaintext: '',
    authKey: '036ee1fe2d7926af68898095e54e7b3c',
    input: '00000000000000000000000000000000',
    result: '00000000000000000000000000000000',
  },
  {
    name: 'C.1 PT 3, AAD 5',
    key: '36864200e0eaf5284d884a0e77d31646',
    nonce: 'bae8e37fc83441b16034566b',
    aad: '46bb91c3c5',
    plaintext: '7a806c',
    authKey: '3e28de1120b2981a0155795ca2812af6',
    input: '46bb91c3c50000000000000000000000' + '7a806c00000000000000000000000000' + '28000000000000001800000000000000',
    result: '43d9a745511dcfa21b96dd606f1d5720',
  },
  {
    name: 'C.1 PT 6, AAD 10',
    key: 'aedb64a6c590bc84d1a5e269e4b47801',
    nonce: 'afc0577e34699b9e671fdd4f',
    aad: 'fc880c94a95198874296',
    plaintext: 'bdc66f146545',
    authKey: '43b8de9cea62330d15cccfc84a33e8c8',
    input: 'fc880c94a95198874296000000000000' + 'bdc66f14654500000000000000000000' + '50000000000000003000000000000000',
    result: '26498e0d2b1ef004e808c458e8f2f515',
  },
  {
    name: 'C.1 PT 9, AAD 15',
    key: 'd5cc1fd161320b6920ce07787f86743b',
    nonce: '275d1ab32f6d1f0434d8848c',
    aad: '046787f3ea22c127aaf195d1894728',
    plaintext: '1177441f195495860f',
    authKey: '8a51df64d93eaf667c2c09bd454ce5c5',
    input: '046787f3ea22c127aaf195d189472800' + '1177441f195495860f00000000000000' + '78000000000000004800000000000000',
    result: '63a3451c0b23345ad02bba59956517cf',
  },
  {
    name: 'C.1 PT 12, AAD 20',
    key: 'b3fed1473c528b8426a582995929a149',
    nonce: '9e9ad8780c8d63d0ab4149c0',
    aad: 'c9882e5386fd9f92ec489c8fde2be2cf' + '97e74e93',
    plaintext: '9f572c614b4745914474e7c7',
    authKey: '22f50707a95dd416df069d670cb775e8',
    input: 'c9882e5386fd9f92ec489c8fde2be2cf' + '97e74e93000000000000000000000000' + '9f572c614b4745914474e7c700000000' + 'a0000000000000006000000000000000',
    result: '0cca0423fba9d77fe7e2e6963b08cdd0',
  },
  {
    name: 'C.1 PT 15, AAD 25',
    key: '2d4ed87da44102952ef94b02b805249b',
    nonce: 'ac80e6f61455bfac8308a2d4',
    aad: '2950a70d5a1db2316fd568378da107b5' + '2b0da55210cc1c1b0a',
    plaintext: '0d8c8451178082355c9e940fea2f58',
    authKey: '0b00a29a83e7e95b92e3a0783b29f140',
    input: '2950a70d5a1db2316fd568378da107b5' + '2b0da55210cc1c1b0a00000000000000' + '0d8c8451178082355c9e940fea2f5800' + 'c8000000000000007800000000000000',
    result: '1086ef25247aa41009bbc40871d9b350',
  },
  {
    name: 'C.1 PT 18, AAD 30',
    key: 'bde3b2f204d1e9f8b06bc47f9745b3d1',
    nonce: 'ae06556fb6aa7890bebc18fe',
    aad: '1860f762ebfbd08284e421702de0de18' + 'baa9c9596291b08466f37de21c7f',
    plaintext: '6b3db4da3d57aa94842b9803a96e07fb' + '6de7',
    authKey: '21c874a8bad3603d1c3e8784df5b3f9f',
    input: '1860f762ebfbd08284e421702de0de18' + 'baa9c9596291b08466f37de21c7f0000' + '6b3db4da3d57aa94842b9803a96e07fb' + '6de70000000000000000000000000000' + 'f0000000000000009000000000000000',
    result: '55462a5afa0da8d646481e049ef9c764',
  },
  {
    name: 'C.1 PT 21, AAD 35',
    key: 'f901cfe8a69615a93fdf7a98cad48179',
    nonce: '6245709fb18853f68d833640',
    aad: '7576f7028ec6eb5ea7e298342a94d4b2' + '02b370ef9768ec6561c4fe6b7e7296fa' + '859c21',
    plaintext: 'e42a3c02c25b64869e146d7b233987bd' + 'dfc240871d',
    authKey: '3724f55f1d22ac0ab830da0b6a995d74',
    input: '7576f7028ec6eb5ea7e298342a94d4b2' + '02b370ef9768ec6561c4fe6b7e7296fa' + '859c2100000000000000000000000000' + 'e42a3c02c25b64869e146d7b233987bd' + 'dfc240871d0000000000000000000000' + '1801000000000000a800000000000000',
    result: '4cbba090f03f7d1188ea55749fa6c7bd',
  },
  { name: 'C.2 PT 8, AAD 0', key: K2, nonce: N1, aad: '', plaintext: '0100000000000000', authKey: AUTH2, input: B1 + '00000000000000004000000000000000', result: '05230f62f0eac8aa14fe4d646b59cd41' },
  { name: 'C.2 PT 12, AAD 0', key: K2, nonce: N1, aad: '', plaintext: '010000000000000000000000', authKey: AUTH2, input: B1 + '00000000000000006000000000000000', result: '6d81a24732fd6d03ae5af544720a1c13' },
];

/** RFC 8452 section 4: POLYVAL input = AAD ‖ pad ‖ PT ‖ pad ‖ len(AAD)_64le ‖ len(PT)_64le (bits). */
function sivPolyvalInput(aad: Uint8Array, pt: Uint8Array): Uint8Array {
  const lens = new Uint8Array(16);
  const view = new DataView(lens.buffer);
  view.setBigUint64(0, BigInt(aad.length) * 8n, true);
  view.setBigUint64(8, BigInt(pt.length) * 8n, true);
  return concat(zeroPad16(aad), zeroPad16(pt), lens);
}

/** RFC 8452 section 4: the record authentication key is the first halves of AES_K(le32(0) ‖ N), AES_K(le32(1) ‖ N). */
function sivAuthKey(key: Uint8Array, nonce: Uint8Array): Uint8Array {
  const out = new Uint8Array(16);
  for (let i = 0; i < 2; i++) {
    const block = new Uint8Array(16);
    block[0] = i;
    block.set(nonce, 4);
    out.set(aesEcb(key, block).subarray(0, 8), 8 * i);
  }
  return out;
}

// =============================================================================================
// Transcription checks: each vector agrees with itself and with OpenSSL
// =============================================================================================

describe('vector transcription (node:crypto)', () => {
  for (const v of GCM_CASES) {
    it(`GCM test case ${v.n}: H, C and T agree with OpenSSL, T = E_K(Y_0) ⊕ GHASH`, () => {
      const key = h2b(v.key);
      const iv = h2b(v.iv);
      assert.equal(b2h(aesEcb(key, new Uint8Array(16))), v.h, 'H = E_K(0^128)');
      const cipher = createCipheriv(`aes-${key.length * 8}-gcm` as CipherGCMTypes, key, iv);
      cipher.setAAD(h2b(v.aad));
      const c = concat(new Uint8Array(cipher.update(h2b(v.plaintext))), new Uint8Array(cipher.final()));
      assert.equal(b2h(c), v.c, 'C');
      assert.equal(b2h(new Uint8Array(cipher.getAuthTag())), v.tag, 'T');
      if (iv.length === 12) assert.equal(v.y0, v.iv + '00000001', 'Y_0 = IV ‖ 0^31 ‖ 1');
      assert.equal(b2h(xor(aesEcb(key, h2b(v.y0)), h2b(v.ghash))), v.tag, 'T = E_K(Y_0) ⊕ GHASH(H, A, C)');
    });
  }
  for (const v of SIV_CASES) {
    it(`RFC 8452 ${v.name}: record authentication key and POLYVAL input`, () => {
      assert.equal(b2h(sivAuthKey(h2b(v.key), h2b(v.nonce))), v.authKey);
      assert.equal(b2h(sivPolyvalInput(h2b(v.aad), h2b(v.plaintext))), v.input);
    });
  }
  it('RFC 8452 Appendix C: at least 6 vectors, some with odd-length AAD and plaintext', () => {
    assert.ok(SIV_CASES.length >= 6);
    const odd = SIV_CASES.filter((v) => (v.aad.length / 2) % 2 === 1 && (v.plaintext.length / 2) % 2 === 1);
    assert.ok(odd.length >= 2, 'vectors with odd AAD and plaintext lengths');
  });
});

// =============================================================================================
// Reference models
// =============================================================================================

describe('ref GHASH (SP 800-38D) known answers', () => {
  for (const v of GCM_CASES) {
    it(`GCM test case ${v.n}: GHASH(H, A, C) = ${v.ghash}`, () => {
      const data = gcmGhashInput(h2b(v.aad), h2b(v.c));
      assert.equal(b2h(ghashRef(h2b(v.h), data)), v.ghash);
    });
  }

  it('GCM test case 2: X_1 = C • H = 5e2ec746917062882c85b0685353deb7', () => {
    const x1 = gfMulGcm(h2b('0388dace60b6a392f328c2b971b2fe78'), h2b('66e94bd4ef8a2c3b884cfa59ca342b2e'));
    assert.equal(b2h(x1), '5e2ec746917062882c85b0685353deb7');
  });

  it('RFC 8452 Appendix A: GHASH(H, X_1, X_2)', () => {
    assert.equal(b2h(ghashRef(h2b(A_H), h2b(A_X1 + A_X2))), A_GHASH);
  });

  it('RFC 8452 Appendix A: mulX_GHASH(v) = v • x', () => {
    for (const [input, output] of A_MULX_GHASH) {
      assert.equal(b2h(gfMulGcm(h2b(input), h2b(GCM_X))), output, input);
    }
    assert.equal(b2h(gfMulGcm(byteReverse(h2b(A_H)), h2b(GCM_X))), A_MULX_GHASH_KEY);
  });

  it('RFC 8452 Appendix A: POLYVAL through GHASH with key mulX_GHASH(ByteReverse(H))', () => {
    const got = ghashRef(h2b(A_MULX_GHASH_KEY), concat(byteReverse(h2b(A_X1)), byteReverse(h2b(A_X2))));
    assert.equal(b2h(byteReverse(got)), A_POLYVAL);
  });

  it('the block 80 00…00 (the polynomial 1) is the identity of •', () => {
    for (let i = 0; i < 20; i++) {
      const a = rng.bytes(16);
      assert.equal(b2h(gfMulGcm(a, h2b(GCM_ONE))), b2h(a));
      assert.equal(b2h(gfMulGcm(h2b(GCM_ONE), a)), b2h(a));
    }
  });

  it('• is commutative', () => {
    for (let i = 0; i < 50; i++) {
      const a = rng.bytes(16);
      const b = rng.bytes(16);
      assert.equal(b2h(gfMulGcm(a, b)), b2h(gfMulGcm(b, a)), `a=${b2h(a)} b=${b2h(b)}`);
    }
  });

  it('initialState continues a hash: GHASH(A ‖ B) = GHASH(B) from GHASH(A)', () => {
    const h = rng.bytes(16);
    const a = rng.bytes(48);
    const b = rng.bytes(37);
    assert.equal(b2h(ghashRef(h, b, ghashRef(h, a))), b2h(ghashRef(h, concat(a, b))));
  });

  it('a partial final block is zero-padded', () => {
    const h = rng.bytes(16);
    const d = rng.bytes(21);
    assert.equal(b2h(ghashRef(h, d)), b2h(ghashRef(h, zeroPad16(d))));
    assert.equal(b2h(ghashRef(h, new Uint8Array(0))), '00'.repeat(16));
  });
});

describe('ref POLYVAL (RFC 8452) known answers', () => {
  it('RFC 8452 Appendix A: POLYVAL(H, X_1, X_2)', () => {
    assert.equal(b2h(polyvalRef(h2b(A_H), h2b(A_X1 + A_X2))), A_POLYVAL);
  });

  it('RFC 8452 Appendix A: mulX_POLYVAL', () => {
    for (const [input, output] of A_MULX_POLYVAL) {
      assert.equal(b2h(mulXPolyval(h2b(input))), output, input);
    }
    assert.equal(b2h(mulXPolyval(byteReverse(h2b(A_H)))), A_MULX_POLYVAL_KEY);
  });

  it('RFC 8452 Appendix A: GHASH through POLYVAL with key mulX_POLYVAL(ByteReverse(H))', () => {
    assert.equal(b2h(ghashViaPolyval(h2b(A_H), h2b(A_X1 + A_X2))), A_GHASH);
    const got = polyvalRef(h2b(A_MULX_POLYVAL_KEY), concat(byteReverse(h2b(A_X1)), byteReverse(h2b(A_X2))));
    assert.equal(b2h(byteReverse(got)), A_GHASH);
  });

  for (const v of SIV_CASES) {
    it(`RFC 8452 ${v.name}: POLYVAL result = ${v.result}`, () => {
      assert.equal(b2h(polyvalRef(h2b(v.authKey), h2b(v.input))), v.result);
    });
  }

  it(`the identity of dot is x^128 mod P = ${POLYVAL_ONE}`, () => {
    // x^128 mod P, derived by multiplying 1 by x 128 times
    let one = h2b('01' + '00'.repeat(15));
    for (let i = 0; i < 128; i++) one = mulXPolyval(one);
    assert.equal(b2h(one), POLYVAL_ONE);
    for (let i = 0; i < 20; i++) {
      const a = rng.bytes(16);
      assert.equal(b2h(dotRef(a, h2b(POLYVAL_ONE))), b2h(a));
      assert.equal(b2h(dotRef(h2b(POLYVAL_ONE), a)), b2h(a));
      assert.equal(b2h(polyvalRef(h2b(POLYVAL_ONE), a)), b2h(a), 'POLYVAL with H = 1 of one block');
    }
  });

  it('dot is commutative', () => {
    for (let i = 0; i < 50; i++) {
      const a = rng.bytes(16);
      const b = rng.bytes(16);
      assert.equal(b2h(dotRef(a, b)), b2h(dotRef(b, a)), `a=${b2h(a)} b=${b2h(b)}`);
    }
  });

  it('initialState continues a hash: POLYVAL(A ‖ B) = POLYVAL(B) from POLYVAL(A)', () => {
    const h = rng.bytes(16);
    const a = rng.bytes(64);
    const b = rng.bytes(5);
    assert.equal(b2h(polyvalRef(h, b, polyvalRef(h, a))), b2h(polyvalRef(h, concat(a, b))));
  });

  it('a partial final block is zero-padded', () => {
    const h = rng.bytes(16);
    const d = rng.bytes(33);
    assert.equal(b2h(polyvalRef(h, d)), b2h(polyvalRef(h, zeroPad16(d))));
    assert.equal(b2h(polyvalRef(h, new Uint8Array(0))), '00'.repeat(16));
  });
});

describe('ref GHASH = ref GHASH via POLYVAL (RFC 8452 Appendix A)', () => {
  it('200 random (H, data) pairs, data lengths 0..100', () => {
    for (let i = 0; i < 200; i++) {
      const h = rng.bytes(16);
      const data = rng.bytes(rng.int(101));
      assert.equal(b2h(ghashViaPolyval(h, data)), b2h(ghashRef(h, data)), `H=${b2h(h)} data=${b2h(data)}`);
    }
  });
});

// =============================================================================================
// ctkit's public API (src/mac/index.ts)
// =============================================================================================

/** Split points for the incremental API: block-aligned, mid-block, empty pieces. */
function splits(len: number): number[][] {
  const cuts = new Set<string>();
  const out: number[][] = [];
  const add = (c: number[]) => {
    const v = c.filter((x) => x >= 0 && x <= len).sort((a, b) => a - b);
    const k = v.join(',');
    if (!cuts.has(k)) {
      cuts.add(k);
      out.push(v);
    }
  };
  add([]);
  add([0]);
  add([len]);
  add([16]);
  add([1, 17]);
  add([15, 16, 31]);
  add([Math.floor(len / 2)]);
  add([7, 7, 40]);
  return out;
}

function pieces(data: Uint8Array, cuts: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const c of cuts) {
    out.push(data.subarray(prev, c));
    prev = c;
  }
  out.push(data.subarray(prev));
  return out;
}

/** ghash / polyval of src/mac: a one-shot function with create() for the incremental API. */
interface UniversalHashFn {
  (key: Uint8Array, data: Uint8Array): Uint8Array;
  create(key: Uint8Array): { update(data: Uint8Array): unknown; digest(): Uint8Array };
}

/**
 * `want` from the one-shot call, from update() over the pieces of every split of splits(), and
 * from update() over the pieces of the standard's own split (`natural`, described by `naturalWhat`).
 */
function checkOneShotAndPieces(fn: UniversalHashFn, key: Uint8Array, data: Uint8Array, want: string, natural: number[], naturalWhat: string): void {
  assert.equal(b2h(fn(key, data)), want, 'one-shot');
  for (const cuts of splits(data.length)) {
    const st = fn.create(key);
    for (const p of pieces(data, cuts)) st.update(p);
    assert.equal(b2h(st.digest()), want, `update() pieces cut at [${cuts}]`);
  }
  const st = fn.create(key);
  const parts = pieces(data, natural);
  assert.equal(parts.length, natural.length + 1);
  for (const p of parts) st.update(p);
  assert.equal(b2h(st.digest()), want, naturalWhat);
}

describe('ctkit ghash known answers', () => {
  for (const v of GCM_CASES) {
    it(`GCM test case ${v.n}: one-shot and incremental`, () => {
      const data = gcmGhashInput(h2b(v.aad), h2b(v.c));
      // the natural GCM split: A ‖ pad, then C ‖ pad ‖ lengths
      const aLen = zeroPad16(h2b(v.aad)).length;
      checkOneShotAndPieces(ghash, h2b(v.h), data, v.ghash, [aLen], 'A ‖ pad, then C ‖ pad ‖ lengths');
    });
  }

  it('RFC 8452 Appendix A: GHASH(H, X_1, X_2)', () => {
    assert.equal(b2h(ghash(h2b(A_H), h2b(A_X1 + A_X2))), A_GHASH);
    assert.equal(b2h(ghash.create(h2b(A_H)).update(h2b(A_X1)).update(h2b(A_X2)).digest()), A_GHASH);
  });

  it('RFC 8452 Appendix A: POLYVAL through GHASH with key mulX_GHASH(ByteReverse(H))', () => {
    const got = ghash(h2b(A_MULX_GHASH_KEY), concat(byteReverse(h2b(A_X1)), byteReverse(h2b(A_X2))));
    assert.equal(b2h(byteReverse(got)), A_POLYVAL);
  });

  it('a partial final block is zero-padded (one-shot and incremental)', () => {
    const key = h2b(GCM_CASES[3].h);
    for (const len of [1, 15, 17, 20, 31, 33, 60]) {
      const d = rng.bytes(len);
      const want = b2h(ghashRef(key, d));
      assert.equal(b2h(ghash(key, d)), want, `one-shot, ${len} bytes`);
      const whole = len & ~15;
      const st = ghash.create(key).update(d.subarray(0, whole)).update(d.subarray(whole));
      assert.equal(b2h(st.digest()), want, `incremental, ${len} bytes`);
    }
  });
});

describe('ctkit polyval known answers', () => {
  it('RFC 8452 Appendix A: POLYVAL(H, X_1, X_2)', () => {
    assert.equal(b2h(polyval(h2b(A_H), h2b(A_X1 + A_X2))), A_POLYVAL);
    assert.equal(b2h(polyval.create(h2b(A_H)).update(h2b(A_X1)).update(h2b(A_X2)).digest()), A_POLYVAL);
  });

  it('RFC 8452 Appendix A: GHASH through POLYVAL with key mulX_POLYVAL(ByteReverse(H))', () => {
    const got = polyval(h2b(A_MULX_POLYVAL_KEY), concat(byteReverse(h2b(A_X1)), byteReverse(h2b(A_X2))));
    assert.equal(b2h(byteReverse(got)), A_GHASH);
  });

  for (const v of SIV_CASES) {
    it(`RFC 8452 ${v.name}: one-shot and incremental`, () => {
      // the natural GCM-SIV split: AAD ‖ pad, PT ‖ pad, lengths
      const aLen = zeroPad16(h2b(v.aad)).length;
      const pLen = zeroPad16(h2b(v.plaintext)).length;
      checkOneShotAndPieces(polyval, h2b(v.authKey), h2b(v.input), v.result, [aLen, aLen + pLen], 'AAD ‖ pad, PT ‖ pad, lengths');
    });
  }

  it('H = 1 (x^128 mod P) is the identity for one block', () => {
    const a = rng.bytes(16);
    assert.equal(b2h(polyval(h2b(POLYVAL_ONE), a)), b2h(a));
  });

  it('a partial final block is zero-padded (one-shot and incremental)', () => {
    const key = h2b(SIV_CASES[17].authKey);
    for (const len of [1, 3, 15, 17, 25, 35, 63]) {
      const d = rng.bytes(len);
      const want = b2h(polyvalRef(key, d));
      assert.equal(b2h(polyval(key, d)), want, `one-shot, ${len} bytes`);
      const whole = len & ~15;
      const st = polyval.create(key).update(d.subarray(0, whole)).update(d.subarray(whole));
      assert.equal(b2h(st.digest()), want, `incremental, ${len} bytes`);
    }
  });
});

// Inputs and expected values for the package smoke (ci/consumer/smoke.mjs), computed without
// ctkit: by OpenSSL through node:crypto at test time where it has the algorithm (AES-GCM,
// ChaCha20-Poly1305, ChaCha20, SHA-2, HMAC, every curve's keys, ECDH, encodings and ECDSA
// signatures; GHASH and Poly1305 from the GCM and ChaCha20-Poly1305 tags), and from the vendored
// Wycheproof files and the RFCs for what OpenSSL 3.0 lacks (AES-GCM-SIV, SM4-GCM,
// XChaCha20-Poly1305, HChaCha20, POLYVAL). Everything is hex so that the cases travel as JSON.

import { createCipheriv, createECDH, type CipherGCMTypes, createHash, createHmac, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** Deterministic bytes from a label (SHA-512 in counter mode); not secret, only reproducible. */
export function bytes(label: string, n: number): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; parts.length * 64 < n; i++) parts.push(createHash('sha512').update(`${label}/${i}`).digest());
  return Buffer.concat(parts).subarray(0, n);
}

interface AeadCase {
  name: string;
  fn: string;
  source: string;
  key: string;
  nonce: string;
  aad: string;
  pt: string;
  sealed: string;
}
interface StreamCase {
  name: string;
  fn: string;
  source: string;
  key: string;
  nonce: string;
  counter: number;
  data: string;
  out: string;
}
interface MacCase {
  name: string;
  fn: string;
  source: string;
  key: string;
  msg: string;
  tag: string;
}
interface HashCase {
  name: string;
  fn: string;
  msg: string;
  digest: string;
  hmacKey: string;
  hmac: string;
}
export interface EcCase {
  curve: string;
  opensslCurve: string;
  hash: string;
  skA: string;
  skB: string;
  pkA: string;
  pkAc: string;
  pkB: string;
  shared: string;
  pkcs8Der: string;
  pkcs8Pem: string;
  sec1Pem: string;
  spkiDer: string;
  spkiPem: string;
  jwk?: { kty: string; crv: string; x: string; y: string; d: string };
  msg: string;
  sigDer: string;
  sigP1363: string;
  p1363Bytes: number;
}
export interface Cases {
  aead: AeadCase[];
  stream: StreamCase[];
  hchacha20: { source: string; key: string; nonce: string; out: string };
  mac: MacCase[];
  hash: HashCase[];
  ec: EcCase[];
}

function gcm(bits: number, key: Buffer, iv: Buffer, aad: Buffer, pt: Buffer): Buffer {
  const c = createCipheriv(`aes-${bits}-gcm` as CipherGCMTypes, key, iv);
  c.setAAD(aad);
  return Buffer.concat([c.update(pt), c.final(), c.getAuthTag()]);
}

function chachaPoly(key: Buffer, nonce: Buffer, aad: Buffer, pt: Buffer): Buffer {
  const c = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 });
  c.setAAD(aad, { plaintextLength: pt.length });
  return Buffer.concat([c.update(pt), c.final(), c.getAuthTag()]);
}

/** OpenSSL's "chacha20": a 16-byte IV of the 32-bit little-endian block counter, then the nonce. */
function chacha20(key: Buffer, nonce: Buffer, counter: number, data: Buffer): Buffer {
  const iv = Buffer.alloc(16);
  iv.writeUInt32LE(counter, 0);
  nonce.copy(iv, 4);
  const c = createCipheriv('chacha20', key, iv);
  return Buffer.concat([c.update(data), c.final()]);
}

interface WycheproofAead {
  testGroups: { keySize: number; ivSize: number; tagSize: number; tests: { tcId: number; key: string; iv: string; aad: string; msg: string; ct: string; tag: string; result: string }[] }[];
}

/** The first valid case of a vendored Wycheproof AEAD file with a nonempty message and AAD. */
function wycheproof(file: string, keySize: number, ivSize: number): { tcId: number; key: string; iv: string; aad: string; msg: string; ct: string; tag: string } {
  const path = fileURLToPath(new URL(`../vectors/wycheproof/testvectors_v1/${file}`, import.meta.url));
  const data = JSON.parse(readFileSync(path, 'utf8')) as WycheproofAead;
  for (const g of data.testGroups) {
    if (g.keySize !== keySize || g.ivSize !== ivSize || g.tagSize !== 128) continue;
    const t = g.tests.find((x) => x.result === 'valid' && x.msg.length >= 32 && x.aad.length > 0);
    if (t) return t;
  }
  throw new Error(`${file}: no valid case with key ${keySize} bits, IV ${ivSize} bits, a message and AAD`);
}

function lengthBlock(aadBytes: number, ctBytes: number, littleEndian: boolean): Buffer {
  const b = Buffer.alloc(16);
  if (littleEndian) {
    b.writeBigUInt64LE(BigInt(aadBytes), 0);
    b.writeBigUInt64LE(BigInt(ctBytes), 8);
  } else {
    b.writeBigUInt64BE(BigInt(aadBytes) * 8n, 0);
    b.writeBigUInt64BE(BigInt(ctBytes) * 8n, 8);
  }
  return b;
}
const pad16 = (b: Buffer): Buffer => Buffer.concat([b, Buffer.alloc((16 - (b.length % 16)) % 16)]);

const CURVES: [name: string, openssl: string, oid: string, hash: string, jwk: boolean][] = [
  ['p256', 'prime256v1', '06082a8648ce3d030107', 'sha256', true],
  ['p224', 'secp224r1', '06052b81040021', 'sha224', false],
  ['brainpoolP256r1', 'brainpoolP256r1', '06092b2403030208010107', 'sha256', false],
  ['p384', 'secp384r1', '06052b81040022', 'sha384', true],
  ['p521', 'secp521r1', '06052b81040023', 'sha512', true],
  ['secp256k1', 'secp256k1', '06052b8104000a', 'sha256', true],
  ['brainpoolP384r1', 'brainpoolP384r1', '06092b240303020801010b', 'sha384', false],
  ['brainpoolP512r1', 'brainpoolP512r1', '06092b240303020801010d', 'sha512', false],
];
const SCALAR_BYTES: Record<string, number> = { p256: 32, p224: 28, brainpoolP256r1: 32, p384: 48, p521: 66, secp256k1: 32, brainpoolP384r1: 48, brainpoolP512r1: 64 };

function derLength(n: number): Buffer {
  return n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
}
const tlv = (tag: number, body: Buffer): Buffer => Buffer.concat([Buffer.from([tag]), derLength(body.length), body]);

/**
 * An OpenSSL key object for the scalar d: the SEC 1 ECPrivateKey (RFC 5915: version 1, d, the
 * named curve, the public key from OpenSSL's own point multiplication), parsed by OpenSSL, so
 * that every encoding below is OpenSSL's.
 */
function opensslKey(opensslCurve: string, oid: string, d: Buffer): { key: KeyObject; pub: Buffer; pubC: Buffer } {
  const e = createECDH(opensslCurve);
  e.setPrivateKey(d);
  const pub = e.getPublicKey();
  const sec1 = tlv(0x30, Buffer.concat([Buffer.from('020101', 'hex'), tlv(0x04, d), tlv(0xa0, Buffer.from(oid, 'hex')), tlv(0xa1, tlv(0x03, Buffer.concat([Buffer.from([0]), pub])))]));
  return { key: createPrivateKey({ key: sec1, format: 'der', type: 'sec1' }), pub, pubC: e.getPublicKey(null, 'compressed') };
}

/** A scalar in [1, n − 1] for every curve here: two leading bytes 00 01, then label bytes. */
function scalar(label: string, n: number): Buffer {
  const d = Buffer.from(bytes(label, n));
  d[0] = 0;
  d[1] = 1;
  return d;
}

export function makeCases(): Cases {
  const aead: AeadCase[] = [];
  for (const bits of [128, 192, 256]) {
    const key = bytes(`aes${bits}/key`, bits / 8),
      nonce = bytes(`aes${bits}/nonce`, 12),
      aad = bytes(`aes${bits}/aad`, 13),
      pt = bytes(`aes${bits}/pt`, 100);
    aead.push({ name: `aes-${bits}-gcm`, fn: 'aesGcm', source: 'OpenSSL', key: hex(key), nonce: hex(nonce), aad: hex(aad), pt: hex(pt), sealed: hex(gcm(bits, key, nonce, aad, pt)) });
  }
  {
    const key = bytes('aes/iv8/key', 16),
      nonce = bytes('aes/iv8/nonce', 8),
      aad = bytes('aes/iv8/aad', 20),
      pt = bytes('aes/iv8/pt', 33);
    aead.push({ name: 'aes-128-gcm, 8-byte nonce', fn: 'aesGcm', source: 'OpenSSL', key: hex(key), nonce: hex(nonce), aad: hex(aad), pt: hex(pt), sealed: hex(gcm(128, key, nonce, aad, pt)) });
    const k2 = bytes('aes/long/key', 32),
      n2 = bytes('aes/long/nonce', 12),
      a2 = bytes('aes/long/aad', 7),
      p2 = bytes('aes/long/pt', 70_001);
    aead.push({ name: 'aes-256-gcm, 70001 bytes', fn: 'aesGcm', source: 'OpenSSL', key: hex(k2), nonce: hex(n2), aad: hex(a2), pt: hex(p2), sealed: hex(gcm(256, k2, n2, a2, p2)) });
  }
  for (const n of [100, 70_001]) {
    const key = bytes(`chacha/${n}/key`, 32),
      nonce = bytes(`chacha/${n}/nonce`, 12),
      aad = bytes(`chacha/${n}/aad`, 13),
      pt = bytes(`chacha/${n}/pt`, n);
    aead.push({ name: `chacha20-poly1305, ${n} bytes`, fn: 'chacha20Poly1305', source: 'OpenSSL', key: hex(key), nonce: hex(nonce), aad: hex(aad), pt: hex(pt), sealed: hex(chachaPoly(key, nonce, aad, pt)) });
  }
  const fromWycheproof = (name: string, fn: string, file: string, keySize: number, ivSize: number): AeadCase => {
    const t = wycheproof(file, keySize, ivSize);
    return { name, fn, source: `Wycheproof ${file} tcId ${t.tcId}`, key: t.key, nonce: t.iv, aad: t.aad, pt: t.msg, sealed: t.ct + t.tag };
  };
  aead.push(fromWycheproof('xchacha20-poly1305', 'xchacha20Poly1305', 'xchacha20_poly1305_test.json', 256, 192));
  aead.push(fromWycheproof('aes-128-gcm-siv', 'aesGcmSiv', 'aes_gcm_siv_test.json', 128, 96));
  aead.push(fromWycheproof('aes-256-gcm-siv', 'aesGcmSiv', 'aes_gcm_siv_test.json', 256, 96));
  aead.push(fromWycheproof('sm4-gcm', 'sm4Gcm', 'sm4_gcm_test.json', 128, 96));

  const stream: StreamCase[] = [];
  {
    const key = bytes('chacha20/key', 32),
      nonce = bytes('chacha20/nonce', 12),
      data = bytes('chacha20/data', 300);
    stream.push({ name: 'chacha20, counter 1', fn: 'chacha20', source: 'OpenSSL', key: hex(key), nonce: hex(nonce), counter: 1, data: hex(data), out: hex(chacha20(key, nonce, 1, data)) });
    // XChaCha20-Poly1305 encrypts with XChaCha20 from block counter 1 (draft-irtf-cfrg-xchacha)
    const x = wycheproof('xchacha20_poly1305_test.json', 256, 192);
    stream.push({ name: 'xchacha20, counter 1', fn: 'xchacha20', source: `the ciphertext of Wycheproof xchacha20_poly1305 tcId ${x.tcId}`, key: x.key, nonce: x.iv, counter: 1, data: x.msg, out: x.ct });
  }
  // draft-irtf-cfrg-xchacha-03, section 2.2.1
  const hchacha20 = {
    source: 'draft-irtf-cfrg-xchacha 2.2.1',
    key: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
    nonce: '000000090000004a0000000031415927',
    out: '82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc',
  };

  const mac: MacCase[] = [];
  {
    // GHASH: an AES-128-GCM tag is E(K, J0) xor GHASH_H(A || C || [len(A)]64 || [len(C)]64) with
    // H = E(K, 0^128) (SP 800-38D 7.1); whole blocks of A and C need no padding.
    const key = bytes('ghash/key', 16),
      iv = bytes('ghash/iv', 12),
      a = bytes('ghash/aad', 32),
      p = bytes('ghash/pt', 64);
    const ecb = (block: Buffer): Buffer => createCipheriv('aes-128-ecb', key, null).setAutoPadding(false).update(block);
    const h = ecb(Buffer.alloc(16));
    const ej0 = ecb(Buffer.concat([iv, Buffer.from('00000001', 'hex')]));
    const sealed = gcm(128, key, iv, a, p);
    const c = sealed.subarray(0, 64),
      tag = sealed.subarray(64);
    const s = Buffer.from(tag.map((x, i) => x ^ ej0[i]));
    mac.push({ name: 'ghash', fn: 'ghash', source: 'an OpenSSL AES-GCM tag', key: hex(h), msg: hex(Buffer.concat([a, c, lengthBlock(32, 64, false)])), tag: hex(s) });
  }
  // POLYVAL: RFC 8452 Appendix A and the second vector of Appendix C.1
  mac.push({ name: 'polyval (RFC 8452 A)', fn: 'polyval', source: 'RFC 8452 Appendix A', key: '25629347589242761d31f826ba4b757b', msg: '4f4f95668c83dfb6401762bb2d01a262d1a24ddd2721d006bbe45f20d3c9f362', tag: 'f7a3b47b846119fae5b7866cf5e5b77e' });
  mac.push({ name: 'polyval (RFC 8452 C.1)', fn: 'polyval', source: 'RFC 8452 Appendix C.1', key: 'd9b360279694941ac5dbc6987ada7377', msg: '0100000000000000000000000000000000000000000000004000000000000000', tag: 'eb93b7740962c5e49d2a90a7dc5cec74' });
  {
    // Poly1305: a ChaCha20-Poly1305 tag is Poly1305 under the first 32 bytes of ChaCha20 block 0
    // over AAD || pad || C || pad || le64(len(AAD)) || le64(len(C)) (RFC 8439 2.8)
    const key = bytes('poly/key', 32),
      nonce = bytes('poly/nonce', 12),
      aad = bytes('poly/aad', 13),
      pt = bytes('poly/pt', 50);
    const sealed = chachaPoly(key, nonce, aad, pt);
    const otk = chacha20(key, nonce, 0, Buffer.alloc(32));
    const msg = Buffer.concat([pad16(aad), pad16(sealed.subarray(0, 50)), lengthBlock(13, 50, true)]);
    mac.push({ name: 'poly1305', fn: 'poly1305', source: 'an OpenSSL ChaCha20-Poly1305 tag', key: hex(otk), msg: hex(msg), tag: hex(sealed.subarray(50)) });
  }

  const hash: HashCase[] = ['sha224', 'sha256', 'sha384', 'sha512'].map((fn) => {
    const msg = bytes(`${fn}/msg`, 200),
      hmacKey = bytes(`${fn}/hmac`, 100);
    return { name: fn, fn, msg: hex(msg), digest: createHash(fn).update(msg).digest('hex'), hmacKey: hex(hmacKey), hmac: createHmac(fn, hmacKey).update(msg).digest('hex') };
  });

  const ec: EcCase[] = CURVES.map(([curve, opensslCurve, oid, hashName, jwk]) => {
    const n = SCALAR_BYTES[curve];
    const dA = scalar(`${curve}/a`, n),
      dB = scalar(`${curve}/b`, n);
    const A = opensslKey(opensslCurve, oid, dA),
      B = opensslKey(opensslCurve, oid, dB);
    const e = createECDH(opensslCurve);
    e.setPrivateKey(dA);
    const pubKey = createPublicKey(A.key);
    const msg = Buffer.from(`ctkit package smoke, ${curve}`);
    const sigP1363 = sign(hashName, msg, { key: A.key, dsaEncoding: 'ieee-p1363' });
    return {
      curve,
      opensslCurve,
      hash: hashName,
      skA: hex(dA),
      skB: hex(dB),
      pkA: hex(A.pub),
      pkAc: hex(A.pubC),
      pkB: hex(B.pub),
      shared: hex(e.computeSecret(B.pub)),
      pkcs8Der: hex(A.key.export({ type: 'pkcs8', format: 'der' })),
      pkcs8Pem: A.key.export({ type: 'pkcs8', format: 'pem' }) as string,
      sec1Pem: A.key.export({ type: 'sec1', format: 'pem' }) as string,
      spkiDer: hex(pubKey.export({ type: 'spki', format: 'der' })),
      spkiPem: pubKey.export({ type: 'spki', format: 'pem' }) as string,
      ...(jwk ? { jwk: A.key.export({ format: 'jwk' }) as EcCase['jwk'] } : {}),
      msg: hex(msg),
      sigDer: hex(sign(hashName, msg, { key: A.key, dsaEncoding: 'der' })),
      sigP1363: hex(sigP1363),
      p1363Bytes: sigP1363.length,
    };
  });

  return { aead, stream, hchacha20, mac, hash, ec };
}

// src/ec's key import directly (issue 18, mutation testing): every malformed PKCS#8, SEC 1, SPKI,
// JWK and SEC 1 point gets the error that names the structure, the field and the byte where it
// went wrong, and the allowed variations (attributes, parameters, a public key in the private
// key) import. The inputs are built here byte by byte (tlv below), not by the code under test;
// the valid keys come from OpenSSL through node:crypto.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createECDH, generateKeyPairSync, sign } from 'node:crypto';
import { ed25519, p256, x25519 } from '../src/ec/index.js';
import { bits2int, withEcdsa } from '../src/ec/ecdsa.js';
import { curveKernel, makeCurve } from '../src/ec/curve.js';
import { EcKernel } from '../src/ec/kernel.js';
import { type Ed25519, ed25519Kernel, makeEd25519 } from '../src/ec/ed25519.js';
import * as edModule from '../src/engine/wasm/ed25519.js';
import * as x25519Module from '../src/engine/wasm/x25519.js';
import type { X25519Exports } from '../src/engine/wasm/x25519.contract.js';
import { SLOTS_PTR, getKernel } from '../src/engine/kernel.js';
import { CURVES } from '../src/curves/params.js';
import * as p256Module from '../src/engine/wasm/ec_p256.js';
import { sha256 } from '../src/hash/index.js';
import { base64, base64url, DerReader, der, derInt, derOid, hex, pem, unbase64, unbase64url, unbase64urlBytes, unhex, unhexBytes, unpem } from '../src/ec/der.js';
import { CtkitRangeError, CtkitTypeError, EncodingError, InvalidKeyError } from '../src/errors.js';

/** One DER element: tag, a short or long definite length, the contents. */
function tlv(tag: number, ...parts: Uint8Array[]): Uint8Array {
  const body = Buffer.concat(parts);
  const n = body.length;
  const len = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return Buffer.concat([Uint8Array.of(tag, ...len), body]);
}
const b = (...v: number[]) => Uint8Array.from(v);
const INT = (v: number) => tlv(0x02, b(v));
const OID_EC = b(0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01); // 1.2.840.10045.2.1
const OID_P256 = b(0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07); // 1.2.840.10045.3.1.7
const OID_P384 = b(0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22); // 1.3.132.0.34

// a P-256 key pair from OpenSSL
const ecdh = createECDH('prime256v1');
ecdh.generateKeys();
const D = new Uint8Array(ecdh.getPrivateKey().length === 32 ? ecdh.getPrivateKey() : Buffer.concat([Buffer.alloc(32 - ecdh.getPrivateKey().length), ecdh.getPrivateKey()]));
const PUB = new Uint8Array(ecdh.getPublicKey()); // 04 ‖ x ‖ y
const other = createECDH('prime256v1');
other.generateKeys();
const OTHER_PUB = new Uint8Array(other.getPublicKey());
/** The Ed25519 encoding of y = p = 2^255 − 19: not canonical (y ≥ p), and y = 0 reduced */
const Y_EQUALS_P = b(0xed, ...new Array(30).fill(0xff), 0x7f);

const ecPrivateKey = (...fields: Uint8Array[]) => tlv(0x30, ...fields);
const goodEcPk = () => ecPrivateKey(INT(1), tlv(0x04, D), tlv(0xa0, OID_P256), tlv(0xa1, tlv(0x03, b(0), PUB)));
const algId = (...p: Uint8Array[]) => tlv(0x30, OID_EC, ...p);
const pkcs8 = (...fields: Uint8Array[]) => tlv(0x30, ...fields);

interface Bad {
  label: string;
  run: () => unknown;
  error: { name: string; message: string };
}
const enc = (message: string) => ({ name: EncodingError.name, message });
const inv = (message: string) => ({ name: InvalidKeyError.name, message });

test('P-256 PKCS#8, SEC 1 and SPKI: the valid variations import, as OpenSSL wrote them and rebuilt here', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' });
  const d = new Uint8Array(Buffer.from(jwk.d!, 'base64url'));
  assert.deepEqual(p256.importPrivateKey(privateKey.export({ type: 'pkcs8', format: 'der' }), 'pkcs8-der'), d);
  assert.deepEqual(p256.importPrivateKey(privateKey.export({ type: 'sec1', format: 'der' }), 'sec1-der'), d);
  const pub = Buffer.concat([b(4), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
  assert.deepEqual(p256.importPublicKey(publicKey.export({ type: 'spki', format: 'der' }), 'spki-der'), new Uint8Array(pub));
  // attributes ([0]) after the private key are allowed and carry nothing
  assert.deepEqual(p256.importPrivateKey(pkcs8(INT(0), algId(OID_P256), tlv(0x04, goodEcPk()), tlv(0xa0, tlv(0x30))), 'pkcs8-der'), D);
  // ECPrivateKey with and without its parameters and its public key
  for (const inner of [goodEcPk(), ecPrivateKey(INT(1), tlv(0x04, D)), ecPrivateKey(INT(1), tlv(0x04, D), tlv(0xa0, OID_P256)), ecPrivateKey(INT(1), tlv(0x04, D), tlv(0xa1, tlv(0x03, b(0), PUB)))]) {
    assert.deepEqual(p256.importPrivateKey(inner, 'sec1-der'), D);
    assert.deepEqual(p256.importPrivateKey(pkcs8(INT(0), algId(OID_P256), tlv(0x04, inner)), 'pkcs8-der'), D);
  }
});

test('P-256 PKCS#8: each malformed field is an error naming the structure, the field and the byte', () => {
  const W = 'PKCS#8 private key';
  const I = `${W} (ECPrivateKey)`;
  const imp = (bytes: Uint8Array) => () => p256.importPrivateKey(bytes, 'pkcs8-der');
  const wrap = (inner: Uint8Array) => imp(pkcs8(INT(0), algId(OID_P256), tlv(0x04, inner)));
  // offsets: a PrivateKeyInfo with a whole ECPrivateKey inside is over 127 bytes, so its length
  // takes two bytes (30 81 xx): its fields start at byte 3; AlgorithmIdentifier is 21 bytes
  const cases: Bad[] = [
    { label: 'not a SEQUENCE', run: imp(b(0x31, 0)), error: enc(`${W}: expected PrivateKeyInfo (SEQUENCE (0x30)), found tag (0x31) at byte 0`) },
    { label: 'no version', run: imp(pkcs8()), error: enc(`${W}: missing version (INTEGER (0x02)): the structure ends at byte 2`) },
    { label: 'version 1', run: imp(pkcs8(INT(1), algId(OID_P256), tlv(0x04, goodEcPk()))), error: enc(`${W}: version 1 is not supported (expected 0)`) },
    { label: 'no AlgorithmIdentifier', run: imp(pkcs8(INT(0), OID_EC)), error: enc(`${W}: expected AlgorithmIdentifier (SEQUENCE (0x30)), found OBJECT IDENTIFIER (0x06) at byte 5`) },
    { label: 'algorithm not an OID', run: imp(pkcs8(INT(0), tlv(0x30, INT(5)))), error: enc(`${W}: expected algorithm (OBJECT IDENTIFIER (0x06)), found INTEGER (0x02) at byte 7`) },
    { label: 'no curve parameters', run: imp(pkcs8(INT(0), algId(), tlv(0x04, goodEcPk()))), error: enc(`${W}: AlgorithmIdentifier without curve parameters`) },
    { label: 'NULL parameters', run: imp(pkcs8(INT(0), algId(b(0x05, 0)), tlv(0x04, goodEcPk()))), error: enc(`${W}: implicitly-CA curve parameters (NULL) are not supported`) },
    { label: 'explicit parameters', run: imp(pkcs8(INT(0), algId(tlv(0x30, INT(1))), tlv(0x04, goodEcPk()))), error: enc(`${W}: explicit curve parameters are not supported (only named curves)`) },
    { label: 'parameters not an OID', run: imp(pkcs8(INT(0), algId(INT(3)), tlv(0x04, goodEcPk()))), error: enc(`${W}: expected namedCurve (OBJECT IDENTIFIER (0x06)), found INTEGER (0x02) at byte 17`) },
    { label: 'another curve', run: imp(pkcs8(INT(0), algId(OID_P384), tlv(0x04, goodEcPk()))), error: inv(`${W}: the key is for the curve with OID 1.3.132.0.34, not p256 (1.2.840.10045.3.1.7)`) },
    { label: 'data after the parameters', run: imp(pkcs8(INT(0), algId(OID_P256, INT(0)), tlv(0x04, goodEcPk()))), error: enc(`${W}: unexpected data after the last element of AlgorithmIdentifier at byte 27`) },
    { label: 'no privateKey', run: imp(pkcs8(INT(0), algId(OID_P256))), error: enc(`${W}: missing privateKey (OCTET STRING (0x04)): the structure ends at byte 26`) },
    { label: 'attributes past the end', run: imp(pkcs8(INT(0), algId(OID_P256), tlv(0x04, goodEcPk()), b(0xa0, 5, 0))), error: enc(`${W}: attributes: length 5 runs past the end of its container at byte ${3 + 3 + 21 + 2 + goodEcPk().length}`) },
    {
      label: 'data after the attributes',
      run: imp(pkcs8(INT(0), algId(OID_P256), tlv(0x04, goodEcPk()), tlv(0xa0), INT(0))),
      error: enc(`${W}: unexpected data after the last element of PrivateKeyInfo at byte ${3 + 3 + 21 + 2 + goodEcPk().length + 2}`),
    },
    { label: 'inner not a SEQUENCE', run: wrap(tlv(0x04, D)), error: enc(`${I}: expected ECPrivateKey (SEQUENCE (0x30)), found OCTET STRING (0x04) at byte 0`) },
    { label: 'inner: data after it', run: wrap(Buffer.concat([goodEcPk(), b(0)])), error: enc(`${I}: unexpected data after the last element of ${I} at byte ${goodEcPk().length}`) },
    { label: 'inner: no version', run: wrap(ecPrivateKey()), error: enc(`${I}: missing version (INTEGER (0x02)): the structure ends at byte 2`) },
    { label: 'inner: version 2', run: wrap(ecPrivateKey(INT(2), tlv(0x04, D))), error: enc(`${I}: ECPrivateKey version 2, expected 1`) },
    { label: 'inner: no privateKey', run: wrap(ecPrivateKey(INT(1))), error: enc(`${I}: missing privateKey (OCTET STRING (0x04)): the structure ends at byte 5`) },
    { label: 'inner: parameters past the end', run: wrap(ecPrivateKey(INT(1), tlv(0x04, D), b(0xa0, 9, 0))), error: enc(`${I}: parameters: length 9 runs past the end of its container at byte 39`) },
    { label: 'inner: parameters not an OID', run: wrap(ecPrivateKey(INT(1), tlv(0x04, D), tlv(0xa0, INT(1)))), error: enc(`${I}: expected namedCurve (OBJECT IDENTIFIER (0x06)), found INTEGER (0x02) at byte 41`) },
    { label: 'inner: another curve', run: wrap(ecPrivateKey(INT(1), tlv(0x04, D), tlv(0xa0, OID_P384))), error: inv(`${I}: the key is for the curve with OID 1.3.132.0.34, not p256 (1.2.840.10045.3.1.7)`) },
    { label: 'inner: data after the parameters', run: wrap(ecPrivateKey(INT(1), tlv(0x04, D), tlv(0xa0, OID_P256, INT(0)))), error: enc(`${I}: unexpected data after the last element of parameters at byte 51`) },
    { label: 'inner: a 31-byte key', run: wrap(ecPrivateKey(INT(1), tlv(0x04, D.subarray(1)))), error: enc(`${I}: the private key is 31 bytes, p256 keys are 32 bytes`) },
    { label: 'inner: publicKey past the end', run: wrap(ecPrivateKey(INT(1), tlv(0x04, D), b(0xa1, 9, 0))), error: enc(`${I}: publicKey: length 9 runs past the end of its container at byte 39`) },
    { label: 'inner: publicKey not a BIT STRING', run: wrap(ecPrivateKey(INT(1), tlv(0x04, D), tlv(0xa1, tlv(0x04, PUB)))), error: enc(`${I}: expected publicKey (BIT STRING (0x03)), found OCTET STRING (0x04) at byte 41`) },
    { label: 'inner: data after the publicKey', run: wrap(ecPrivateKey(INT(1), tlv(0x04, D), tlv(0xa1, tlv(0x03, b(0), PUB), INT(0)))), error: enc(`${I}: unexpected data after the last element of publicKey at byte 109`) },
    { label: 'inner: data after the last field', run: wrap(ecPrivateKey(INT(1), tlv(0x04, D), INT(0))), error: enc(`${I}: unexpected data after the last element of ECPrivateKey at byte 39`) },
    { label: 'inner: a zero key', run: wrap(ecPrivateKey(INT(1), tlv(0x04, new Uint8Array(32)))), error: inv(`${I}: the private key is not a valid p256 private key (it must be in [1, n − 1])`) },
    {
      label: 'inner: a public key off the curve',
      run: wrap(
        ecPrivateKey(
          INT(1),
          tlv(0x04, D),
          tlv(
            0xa1,
            tlv(
              0x03,
              b(0),
              PUB.map((v, i) => (i === 64 ? v ^ 1 : v)),
            ),
          ),
        ),
      ),
      error: inv(`${I}: the public key is not a point of p256 (a coordinate is ≥ p or the point is off the curve)`),
    },
    { label: "inner: another key's public key", run: wrap(ecPrivateKey(INT(1), tlv(0x04, D), tlv(0xa1, tlv(0x03, b(0), OTHER_PUB)))), error: inv(`${I}: the public key does not belong to the private key`) },
  ];
  for (const c of cases) assert.throws(c.run, c.error, c.label);
  // SEC 1 DER and PEM name their own input
  assert.throws(() => p256.importPrivateKey(ecPrivateKey(INT(3)), 'sec1-der'), enc('SEC 1 private key: ECPrivateKey version 3, expected 1'));
  assert.throws(() => p256.importPrivateKey(`-----BEGIN EC PRIVATE KEY-----\n${Buffer.from(ecPrivateKey(INT(3))).toString('base64')}\n-----END EC PRIVATE KEY-----\n`, 'sec1-pem'), enc('SEC 1 private key: ECPrivateKey version 3, expected 1'));
  assert.throws(() => p256.importPrivateKey('-----BEGIN PUBLIC KEY-----\nAA==\n-----END PUBLIC KEY-----\n', 'sec1-pem'), enc('SEC 1 PEM: PEM label is "PUBLIC KEY", expected "EC PRIVATE KEY"'));
  assert.throws(() => p256.importPrivateKey('-----BEGIN PUBLIC KEY-----\nAA==\n-----END PUBLIC KEY-----\n', 'pkcs8-pem'), enc('PKCS#8 PEM: PEM label is "PUBLIC KEY", expected "PRIVATE KEY"'));
  for (const format of ['raw', 'pkcs8-der', 'sec1-der'] as const) {
    assert.throws(() => p256.importPrivateKey('x' as unknown as Uint8Array, format), { name: CtkitTypeError.name, message: 'data must be a Uint8Array, got string' }, format);
  }
  assert.throws(() => p256.importPrivateKey(new Uint8Array(32), 'raw'), inv('data is not a valid p256 private key (it must be in [1, n − 1])'));
});

test('P-256 SPKI and SEC 1 points: each malformed field or point is an error naming it', () => {
  const W = 'SubjectPublicKeyInfo';
  const spki =
    (...f: Uint8Array[]) =>
    () =>
      p256.importPublicKey(tlv(0x30, ...f), 'spki-der');
  assert.throws(spki(algId(OID_P256), tlv(0x04, PUB)), enc(`${W}: expected subjectPublicKey (BIT STRING (0x03)), found OCTET STRING (0x04) at byte 23`));
  assert.throws(spki(algId(OID_P256), tlv(0x03, b(0), PUB), INT(0)), enc(`${W}: unexpected data after the last element of ${W} at byte 91`));
  assert.throws(spki(algId(OID_P256), tlv(0x03, b(0), b(0))), inv(`${W}: the public key is the point at infinity`));
  assert.throws(() => p256.importPublicKey('x' as unknown as Uint8Array, 'spki-der'), { name: CtkitTypeError.name, message: 'data must be a Uint8Array, got string' });
  const raw = (pk: Uint8Array, what = 'data') => [() => p256.importPublicKey(pk, 'raw'), what] as const;
  const point = (prefix: number, n: number) => {
    const p = n === 65 ? PUB.slice() : PUB.slice(0, 33);
    p[0] = prefix;
    return p;
  };
  const cases: [Uint8Array, { name: string; message: string }][] = [
    [b(0), inv('data is the point at infinity')],
    [b(5), { name: CtkitRangeError.name, message: 'data must be 65 or 33 bytes long, got 1' }],
    [b(0, 0), { name: CtkitRangeError.name, message: 'data must be 65 or 33 bytes long, got 2' }],
    [point(0, 65), enc('data: a 65-byte point must start with 04 (uncompressed), not 0x00')],
    [point(5, 65), enc('data: a 65-byte point must start with 04 (uncompressed), not 0x05')],
    [point(6, 65), enc('data: a 65-byte point must start with 04 (uncompressed), not 0x06 (hybrid encoding is not supported)')],
    [point(7, 65), enc('data: a 65-byte point must start with 04 (uncompressed), not 0x07 (hybrid encoding is not supported)')],
    [point(0x0a, 65), enc('data: a 65-byte point must start with 04 (uncompressed), not 0x0a')],
    [point(0, 33), enc('data: a 33-byte point must start with 02 or 03 (compressed), not 0x00')],
    [point(4, 33), enc('data: a 33-byte point must start with 02 or 03 (compressed), not 0x04')],
    [point(0x0b, 33), enc('data: a 33-byte point must start with 02 or 03 (compressed), not 0x0b')],
  ];
  for (const [pk, error] of cases) {
    const [run] = raw(pk);
    assert.throws(run, error, `${pk.length} bytes from 0x${pk[0].toString(16)}`);
    assert.equal(p256.isValidPublicKey(pk), false);
  }
  // the other names a point goes by
  assert.throws(() => p256.ecdh(D, b(0)), inv('peerPublicKey is the point at infinity'));
  assert.throws(() => p256.compressPublicKey(b(0)), inv('publicKey is the point at infinity'));
  // compressed output of the export and of getPublicKey
  const compressed = Uint8Array.from([2 | (PUB[64] & 1), ...PUB.subarray(1, 33)]);
  assert.deepEqual(p256.getPublicKey(D, { compressed: true }), compressed);
  assert.deepEqual(p256.getPublicKey(D), PUB);
  assert.deepEqual(p256.exportPublicKey(PUB, 'raw', { compressed: true }), compressed);
  assert.deepEqual(p256.exportPublicKey(PUB, 'raw'), PUB);
  assert.deepEqual(p256.exportPublicKey(compressed, 'raw'), PUB);
  const spkiC = p256.exportPublicKey(PUB, 'spki-der', { compressed: true });
  assert.deepEqual(spkiC.subarray(spkiC.length - 33), compressed);
  assert.equal(spkiC.length, 2 + 21 + 2 + 1 + 33);
});

test('P-256 JWK: each missing or malformed member is an error naming it', () => {
  const x = Buffer.from(PUB.subarray(1, 33)).toString('base64url');
  const y = Buffer.from(PUB.subarray(33)).toString('base64url');
  const d = Buffer.from(D).toString('base64url');
  const priv = (j: unknown) => () => p256.importPrivateKey(j as never, 'jwk');
  const pub = (j: unknown) => () => p256.importPublicKey(j as never, 'jwk');
  assert.deepEqual(priv({ kty: 'EC', crv: 'P-256', x, y, d })(), D);
  assert.deepEqual(pub({ kty: 'EC', crv: 'P-256', x, y })(), PUB);
  for (const j of [null, 'x', 3]) {
    assert.throws(priv(j), { name: CtkitTypeError.name, message: 'JWK must be an object' });
    assert.throws(pub(j), { name: CtkitTypeError.name, message: 'JWK must be an object' });
  }
  assert.throws(pub({ kty: 'EC', crv: 'P-256', y }), enc('JWK: member "x" is missing or not a string'));
  assert.throws(pub({ kty: 'EC', crv: 'P-256', x, y: 5 }), enc('JWK: member "y" is missing or not a string'));
  assert.throws(pub({ kty: 'EC', crv: 'P-256', x: `${x.slice(0, -1)}=`, y }), enc('JWK "x": base64url must not be padded'));
  assert.throws(pub({ kty: 'EC', crv: 'P-256', x: Buffer.from(PUB.subarray(1, 32)).toString('base64url'), y }), enc('JWK: "x" is 31 bytes, expected 32'));
  const offCurve = Buffer.from(PUB.subarray(33).map((v, i) => (i === 31 ? v ^ 1 : v))).toString('base64url');
  assert.throws(pub({ kty: 'EC', crv: 'P-256', x, y: offCurve }), inv('JWK public key is not a point of p256 (a coordinate is ≥ p or the point is off the curve)'));
  assert.throws(priv({ kty: 'EC', crv: 'P-256', x, y }), enc('JWK: member "d" is missing (not a private key)'));
  assert.throws(priv({ kty: 'EC', crv: 'P-256', x, y, d: 7 }), enc('JWK: member "d" is missing or not a string'));
  assert.throws(priv({ kty: 'EC', crv: 'P-256', x, y, d: Buffer.alloc(32).toString('base64url') }), inv('JWK "d" is not a valid p256 private key (it must be in [1, n − 1])'));
  assert.throws(priv({ kty: 'EC', crv: 'P-256', x, y, d: `${d.slice(0, -1)}=` }), enc('JWK "d": base64url must not be padded'));
  const ox = Buffer.from(OTHER_PUB.subarray(1, 33)).toString('base64url');
  const oy = Buffer.from(OTHER_PUB.subarray(33)).toString('base64url');
  assert.throws(priv({ kty: 'EC', crv: 'P-256', x: ox, y: oy, d }), inv('JWK: x and y do not belong to d'));
});

// ---- der.ts: the DER reader, the encoders, hex, base64 and PEM ---------------------------------

test('DerReader: every framing error names the element and the byte; the limits of the length forms', () => {
  const T = 'T';
  const read =
    (bytes: Uint8Array, tag = 0x30) =>
    () =>
      new DerReader(bytes, T).read(tag, 'S');
  const cases: [Uint8Array, number, string][] = [
    [b(), 0x30, 'missing S (SEQUENCE (0x30)): the structure ends at byte 0'],
    [b(0x03, 0), 0x02, 'expected S (INTEGER (0x02)), found BIT STRING (0x03) at byte 0'],
    [b(0x04, 0), 0x03, 'expected S (BIT STRING (0x03)), found OCTET STRING (0x04) at byte 0'],
    [b(0x05, 0), 0x04, 'expected S (OCTET STRING (0x04)), found NULL (0x05) at byte 0'],
    [b(0x06, 0), 0x05, 'expected S (NULL (0x05)), found OBJECT IDENTIFIER (0x06) at byte 0'],
    [b(0xa0, 0), 0x06, 'expected S (OBJECT IDENTIFIER (0x06)), found [0] (0xa0) at byte 0'],
    [b(0xa1, 0), 0x30, 'expected S (SEQUENCE (0x30)), found [1] (0xa1) at byte 0'],
    [b(0x0c, 0), 0x30, 'expected S (SEQUENCE (0x30)), found tag (0x0c) at byte 0'],
    [b(0x1f, 0), 0x30, 'multi-byte tags are not used here at byte 0'],
    [b(0x3f, 0), 0x30, 'multi-byte tags are not used here at byte 0'],
    [b(0x30), 0x30, 'S: length missing at byte 1'],
    [b(0x30, 0x80), 0x30, 'S: indefinite length (BER, not DER) at byte 1'],
    [b(0x30, 0x84, 0, 0, 0, 1, 0), 0x30, 'S: length of 4 bytes is too long at byte 1'],
    [b(0x30, 0x82, 0x01), 0x30, 'S: length bytes truncated at byte 1'],
    [b(0x30, 0x81), 0x30, 'S: length bytes truncated at byte 1'],
    [b(0x30, 0x81, 0x80), 0x30, 'S: length 128 runs past the end of its container at byte 0'],
    [Buffer.concat([b(0x30, 0x81, 0x05), Buffer.alloc(5)]), 0x30, 'S: length not in its shortest form (BER, not DER) at byte 1'],
    [Buffer.concat([b(0x30, 0x82, 0x00, 0x90), Buffer.alloc(0x90)]), 0x30, 'S: length not in its shortest form (BER, not DER) at byte 1'],
    [b(0x30, 0x05, 1, 2), 0x30, 'S: length 5 runs past the end of its container at byte 0'],
  ];
  for (const [bytes, tag, message] of cases) assert.throws(read(bytes, tag), enc(`${T}: ${message}`), message);
  // the long forms at their lower limits, and a nested reader's byte numbers count from the input's start
  for (const n of [0x80, 0x100, 0x10000]) {
    const body = new Uint8Array(n).fill(7);
    const len = n === 0x80 ? [0x81, 0x80] : n === 0x100 ? [0x82, 1, 0] : [0x83, 1, 0, 0];
    assert.deepEqual(new DerReader(new Uint8Array(Buffer.concat([b(0x04, ...len), body])), T).octets('O'), body, `${n}-byte OCTET STRING`);
  }
  const nested = new DerReader(b(0x30, 0x03, 0x30, 0x01, 0x30), T).read(0x30, 'A').read(0x30, 'B');
  assert.throws(() => nested.read(0x30, 'C'), enc(`${T}: C: length missing at byte 5`));
  assert.equal(new DerReader(b(), T).peek(), -1);
  assert.equal(new DerReader(b(), T).done, true);
});

test('DerReader: small INTEGERs, BIT STRINGs and OBJECT IDENTIFIERs, valid and not', () => {
  const T = 'T';
  const int = (...v: number[]) => new DerReader(b(0x02, v.length, ...v), T).smallInt('v');
  for (const [v, want] of [
    [[0], 0],
    [[0x7f], 127],
    [[0x00, 0x80], 128],
    [[0x01, 0x00], 256],
    [[0x00, 0x80, 0x00, 0x00], 0x800000],
    [[0x7f, 0xff, 0xff, 0xff], 0x7fffffff],
  ] as const) {
    assert.equal(int(...v), want, `INTEGER ${v}`);
  }
  for (const [v, message] of [
    [[], 'v: INTEGER with no content bytes at byte 0'],
    [[0x00, 0x01], 'v: INTEGER not in its shortest form at byte 2'],
    [[0x00, 0x7f], 'v: INTEGER not in its shortest form at byte 2'],
    [[0xff, 0x80], 'v: INTEGER not in its shortest form at byte 2'],
    [[0xff, 0xff], 'v: INTEGER not in its shortest form at byte 2'],
    [[0x80], 'v: negative INTEGER at byte 2'],
    [[0xff, 0x7f], 'v: negative INTEGER at byte 2'],
    [[0x00, 0x80, 0x00, 0x00, 0x00], 'v: INTEGER too large at byte 2'],
  ] as const) {
    assert.throws(() => int(...v), enc(`${T}: ${message}`), message);
  }
  assert.deepEqual(new DerReader(b(0x03, 2, 0, 0xff), T).bits('k'), b(0xff));
  assert.throws(() => new DerReader(b(0x03, 0), T).bits('k'), enc(`${T}: k: BIT STRING without its unused-bits byte at byte 0`));
  assert.throws(() => new DerReader(b(0x03, 2, 1, 0xfe), T).bits('k'), enc(`${T}: k: BIT STRING with 1 unused bits (a key has a whole number of bytes) at byte 2`));
  const oid = (...v: number[]) => new DerReader(b(0x06, v.length, ...v), T).oid('o');
  for (const [v, want] of [
    [[0x05], '0.5'],
    [[0x27], '0.39'],
    [[0x28], '1.0'],
    [[0x4f], '1.39'],
    [[0x50], '2.0'],
    [[0x88, 0x37], '2.999'],
    [[0x2a, 0x03, 0x04], '1.2.3.4'],
    [[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07], '1.2.840.10045.3.1.7'],
    [[0x88, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00], `2.${2 ** 52 - 80}`], // 2^45 reached inside the sub-identifier
  ] as const) {
    assert.equal(oid(...v), want, `OID ${v}`);
  }
  for (const [v, message] of [
    [[], 'o: empty OBJECT IDENTIFIER at byte 0'],
    [[0x2a, 0x80, 0x01], 'o: OBJECT IDENTIFIER sub-identifier not in its shortest form at byte 3'],
    [[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f], 'o: OBJECT IDENTIFIER sub-identifier too large at byte 9'],
    [[0x2a, 0x81], 'o: OBJECT IDENTIFIER ends inside a sub-identifier at byte 3'],
  ] as const) {
    assert.throws(() => oid(...v), enc(`${T}: ${message}`), message);
  }
});

test('der, derInt and derOid: the shortest length forms and their limits', () => {
  for (const [n, head] of [
    [0, [0x04, 0x00]],
    [0x7f, [0x04, 0x7f]],
    [0x80, [0x04, 0x81, 0x80]],
    [0xff, [0x04, 0x81, 0xff]],
    [0x100, [0x04, 0x82, 0x01, 0x00]],
    [0xffff, [0x04, 0x82, 0xff, 0xff]],
    [0x10000, [0x04, 0x83, 0x01, 0x00, 0x00]],
  ] as const) {
    const body = new Uint8Array(n).fill(3);
    assert.deepEqual(der(0x04, body.subarray(0, n >> 1), body.subarray(n >> 1)), new Uint8Array(Buffer.concat([b(...head), body])), `length ${n}`);
  }
  assert.deepEqual(derInt(0), b(0x02, 1, 0));
  assert.deepEqual(derInt(127), b(0x02, 1, 0x7f));
  for (const v of [-1, 128]) assert.throws(() => derInt(v), { name: 'RangeError', message: 'derInt: small non-negative integers only' });
  assert.deepEqual(derOid('1.2.840.10045.3.1.7'), OID_P256);
  assert.deepEqual(derOid('2.999'), b(0x06, 2, 0x88, 0x37));
});

test('hex and base64: as Buffer encodes them, both cases and every alphabet edge in, each error with its position', () => {
  const r = new Uint8Array(5000).map((_, i) => (i * 167 + 13) & 0xff);
  assert.equal(hex(r), Buffer.from(r).toString('hex'));
  assert.equal(base64(r), Buffer.from(r).toString('base64'));
  assert.equal(base64url(r), Buffer.from(r).toString('base64url'));
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  for (const s of [Buffer.from(all).toString('hex'), Buffer.from(all).toString('hex').toUpperCase()]) {
    assert.deepEqual(unhex(s, 'W'), all);
    assert.deepEqual(unhexBytes(new TextEncoder().encode(s), 'W'), all);
  }
  assert.deepEqual(unbase64(Buffer.from(r).toString('base64'), 'W'), r);
  assert.deepEqual(unbase64url(Buffer.from(r).toString('base64url'), 'W'), r);
  assert.deepEqual(unbase64urlBytes(new TextEncoder().encode(Buffer.from(r).toString('base64url')), 'W'), r);
  assert.throws(() => unhex('abc', 'W'), enc('W: hex length is odd'));
  assert.throws(() => unhexBytes(b(0x61), 'W'), enc('W: hex length is odd'));
  for (const c of ['/', ':', '@', 'G', '`', 'g', ' ']) {
    assert.throws(() => unhex(`00a${c}`, 'W'), enc('W: invalid hex character at position 3'), `hex '${c}'`);
    assert.throws(() => unhexBytes(new TextEncoder().encode(`${c}0`), 'W'), enc('W: invalid hex character at position 0'), `hex bytes '${c}'`);
  }
  for (const c of ['@', '[', '`', '{', '/', ':', '.', '*', ',', '-', '_']) {
    // '-' and '_' are base64url's, '+' and '/' base64's
    if (c !== '-' && c !== '_') assert.throws(() => unbase64url(`AAA${c}`, 'W'), enc('W: invalid base64url character at position 3'), `base64url '${c}'`);
    if (c !== '/') assert.throws(() => unbase64(`AAA${c}`, 'W'), enc('W: invalid base64 character at position 3'), `base64 '${c}'`);
  }
  assert.throws(() => unbase64url('AAAAA', 'W'), enc('W: base64 length is impossible'));
  assert.throws(() => unbase64urlBytes(new TextEncoder().encode('AA=='), 'W'), enc('W: base64url must not be padded'));
  assert.throws(() => unbase64('AAA', 'W'), enc('W: base64 length is not a multiple of 4'));
  assert.deepEqual(unbase64('', 'W'), b());
  assert.deepEqual(unbase64url('', 'W'), b());
});

test('PEM: lines of 64, text as bytes, EC PARAMETERS before a private key, each error', () => {
  const d = new Uint8Array(100).map((_, i) => i);
  const body = Buffer.from(d).toString('base64');
  const want = `-----BEGIN X-----\n${body.slice(0, 64)}\n${body.slice(64, 128)}\n${body.slice(128)}\n-----END X-----\n`; // 136 characters
  assert.equal(pem('X', d), want);
  assert.deepEqual(unpem(new TextEncoder().encode(want), 'X', 'W'), d);
  assert.deepEqual(unpem(`\t ${want.replaceAll('\n', '\r\n')} \t\r\n`, 'X', 'W'), d);
  assert.throws(() => unpem(5 as unknown as string, 'X', 'W'), { name: 'TypeError', message: 'W must be a string or a Uint8Array of PEM text' });
  for (const [at, byte] of [
    [0, 0x80],
    [20, 0x1f],
    [20, 0x7f],
    [20, 0x00],
  ] as const) {
    const t = new TextEncoder().encode(want);
    t[at] = byte;
    assert.throws(() => unpem(t, 'X', 'W'), enc(`W: not PEM text (byte ${at} is not printable ASCII; DER goes with a -der format)`), `byte ${byte} at ${at}`);
  }
  // printable ASCII passes the text check and fails where PEM does
  const tilde = new TextEncoder().encode(want);
  tilde[20] = 0x7e;
  assert.throws(() => unpem(tilde, 'X', 'W'), enc('W: PEM line 2 is not base64'));
  assert.throws(() => unpem(want.replace('\n', '\n\n'), 'X', 'W'), enc('W: PEM line 2 is not base64')); // an empty line
  assert.throws(() => unpem(want.replace(body.slice(0, 64), `${body.slice(0, 32)}\r${body.slice(32, 64)}`), 'X', 'W'), enc('W: PEM line 2 is not base64')); // a CR without its LF
  // the position of a bad byte counts the tabs and CRs before it; the BEGIN line starts the text
  const lead = new TextEncoder().encode(`\t\r\n\t${want}`);
  lead[30] = 0x80;
  assert.throws(() => unpem(lead, 'X', 'W'), enc('W: not PEM text (byte 30 is not printable ASCII; DER goes with a -der format)'));
  assert.throws(() => unpem(`x${want}`, 'X', 'W'), enc('W: not PEM (no "-----BEGIN X-----" line)'));
  // every malformed body names a line (the fallback after the line loop is unreachable): short
  // bodies of base64, '=', LF, CR and two bad characters, all 7^1 … 7^5 of them
  const chars = ['A', 'B', '=', '\n', '\r', '*', '\t'];
  for (let n = 1, count = 7; n <= 5; n++, count *= 7) {
    for (let v = 0; v < count; v++) {
      let s = '';
      for (let i = 0, x = v; i < n; i++, x = Math.floor(x / 7)) s += chars[x % 7];
      try {
        unpem(`-----BEGIN X-----\n${s}-----END X-----`, 'X', 'W');
      } catch (e) {
        assert.equal((e as Error).name, 'EncodingError', `${JSON.stringify(s)}: ${(e as Error).message}`);
      }
    }
  }
  // a bad last line glued to the END line is found and named
  assert.throws(() => unpem(want.replace('\n-----END', '*-----END'), 'X', 'W'), enc('W: PEM line 4 is not base64'));
  // EC PARAMETERS (RFC 5480 namedCurve), as `openssl ecparam -genkey` writes it
  const params = (oid: Uint8Array) => `-----BEGIN EC PARAMETERS-----\n${Buffer.from(oid).toString('base64')}\n-----END EC PARAMETERS-----\n`;
  const sec1 = pem('EC PRIVATE KEY', goodEcPk());
  const p8 = pem('PRIVATE KEY', pkcs8(INT(0), algId(OID_P256), tlv(0x04, goodEcPk())));
  assert.deepEqual(p256.importPrivateKey(params(OID_P256) + sec1, 'sec1-pem'), D);
  assert.deepEqual(p256.importPrivateKey(new TextEncoder().encode(params(OID_P256) + p8), 'pkcs8-pem'), D);
  assert.throws(() => p256.importPrivateKey(params(OID_P256).replace('-----END EC PARAMETERS-----', '') + sec1, 'sec1-pem'), enc('SEC 1 PEM: the EC PARAMETERS block has no "-----END EC PARAMETERS-----" line'));
  assert.throws(() => p256.importPrivateKey(params(tlv(0x30, INT(1))) + sec1, 'sec1-pem'), enc('SEC 1 PEM: explicit curve parameters are not supported (only named curves)'));
  assert.throws(() => p256.importPrivateKey(params(OID_P384) + sec1, 'sec1-pem'), inv('SEC 1 PEM: the EC PARAMETERS block names the curve with OID 1.3.132.0.34, not 1.2.840.10045.3.1.7'));
  assert.throws(() => p256.importPrivateKey(params(Buffer.concat([OID_P256, INT(0)])) + p8, 'pkcs8-pem'), enc('PKCS#8 PEM (EC PARAMETERS): unexpected data after the last element of EC PARAMETERS at byte 10'));
  // errors inside the EC PARAMETERS block name it, and the field
  assert.throws(() => p256.importPrivateKey(params(OID_P256).replace('\n-----END', '*\n-----END') + sec1, 'sec1-pem'), enc('SEC 1 PEM (EC PARAMETERS): PEM line 2 is not base64'));
  assert.throws(() => p256.importPrivateKey(params(INT(0)) + sec1, 'sec1-pem'), enc('SEC 1 PEM (EC PARAMETERS): expected namedCurve (OBJECT IDENTIFIER (0x06)), found INTEGER (0x02) at byte 0'));
  // a public key's PEM takes no EC PARAMETERS block
  const spki = pem('PUBLIC KEY', tlv(0x30, algId(OID_P256), tlv(0x03, b(0), PUB)));
  assert.deepEqual(p256.importPublicKey(spki, 'spki-pem'), PUB);
  assert.throws(() => p256.importPublicKey(params(OID_P256) + spki, 'spki-pem'), enc('SubjectPublicKeyInfo PEM: PEM label is "EC PARAMETERS", expected "PUBLIC KEY"'));
});

// ---- okp.ts, ed25519.ts, x25519.ts: the key formats and argument names of X25519 and Ed25519 ----

test('X25519 and Ed25519 PKCS#8, SPKI and JWK: each malformed field is an error naming it', () => {
  for (const [name, curve, oidByte, otherOid] of [
    ['Ed25519', ed25519, 0x70, '1.3.101.110'],
    ['X25519', x25519, 0x6e, '1.3.101.112'],
  ] as const) {
    const { privateKey } = name === 'Ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('x25519');
    const jwk = privateKey.export({ format: 'jwk' });
    const d = new Uint8Array(Buffer.from(jwk.d!, 'base64url'));
    const x = new Uint8Array(Buffer.from(jwk.x!, 'base64url'));
    const oid = b(0x06, 0x03, 0x2b, 0x65, oidByte);
    const other = b(0x06, 0x03, 0x2b, 0x65, oidByte === 0x70 ? 0x6e : 0x70);
    const alg = tlv(0x30, oid); // 7 bytes
    const inner = tlv(0x04, tlv(0x04, d)); // 36 bytes
    const pk1 = tlv(0x81, b(0), x); // [1] IMPLICIT BIT STRING, 35 bytes
    const W = 'PKCS#8 private key';
    const p8 =
      (...f: Uint8Array[]) =>
      () =>
        curve.importPrivateKey(tlv(0x30, ...f), 'pkcs8-der');
    assert.deepEqual(p8(INT(0), alg, inner)(), d, `${name} v0`);
    assert.deepEqual(p8(INT(1), alg, inner, pk1)(), d, `${name} v1 with its public key`);
    assert.deepEqual(p8(INT(0), alg, inner, tlv(0xa0))(), d, `${name} with attributes`);
    const cases: [() => unknown, { name: string; message: string }][] = [
      [() => curve.importPrivateKey(b(0x31, 0), 'pkcs8-der'), enc(`${W}: expected OneAsymmetricKey (SEQUENCE (0x30)), found tag (0x31) at byte 0`)],
      [p8(), enc(`${W}: missing version (INTEGER (0x02)): the structure ends at byte 2`)],
      [p8(INT(2), alg, inner), enc(`${W}: version 2 is not supported (0 or 1)`)],
      [p8(INT(0), oid), enc(`${W}: expected AlgorithmIdentifier (SEQUENCE (0x30)), found OBJECT IDENTIFIER (0x06) at byte 5`)],
      [p8(INT(0), tlv(0x30, INT(1))), enc(`${W}: expected algorithm (OBJECT IDENTIFIER (0x06)), found INTEGER (0x02) at byte 7`)],
      [p8(INT(0), tlv(0x30, other), inner), inv(`${W}: the key is for the algorithm with OID ${otherOid}, not ${name} (${name === 'Ed25519' ? '1.3.101.112' : '1.3.101.110'})`)],
      [p8(INT(0), tlv(0x30, oid, b(0x05, 0)), inner), enc(`${W}: ${name}'s AlgorithmIdentifier must not have parameters (RFC 8410 section 3)`)],
      [p8(INT(0), alg), enc(`${W}: missing privateKey (OCTET STRING (0x04)): the structure ends at byte 12`)],
      [p8(INT(0), alg, tlv(0x04, INT(0))), enc(`${W} (CurvePrivateKey): expected CurvePrivateKey (OCTET STRING (0x04)), found INTEGER (0x02) at byte 0`)],
      [p8(INT(0), alg, tlv(0x04, tlv(0x04, d.subarray(1)))), enc(`${W}: the private key is 31 bytes, ${name} keys are 32`)],
      [p8(INT(0), alg, tlv(0x04, tlv(0x04, d), INT(0))), enc(`${W} (CurvePrivateKey): unexpected data after the last element of CurvePrivateKey at byte 34`)],
      [p8(INT(0), alg, inner, b(0xa0, 5, 0)), enc(`${W}: attributes: length 5 runs past the end of its container at byte 48`)],
      [p8(INT(0), alg, inner, pk1), enc(`${W}: a public key needs version 1 (OneAsymmetricKey)`)],
      [p8(INT(1), alg, inner, b(0x81, 40, 0)), enc(`${W}: publicKey: length 40 runs past the end of its container at byte 48`)],
      [p8(INT(1), alg, inner, tlv(0x81, x)), enc(`${W}: the public key must be a BIT STRING of 32 bytes`)],
      [p8(INT(1), alg, inner, tlv(0x81, b(1), x)), enc(`${W}: the public key must be a BIT STRING of 32 bytes`)],
      [p8(INT(1), alg, inner, tlv(0x81, b(0), x, b(0))), enc(`${W}: the public key must be a BIT STRING of 32 bytes`)],
      [
        p8(
          INT(1),
          alg,
          inner,
          tlv(
            0x81,
            b(0),
            x.map((v, i) => (i === 0 ? v ^ 1 : v)),
          ),
        ),
        inv(`${W}: the public key does not belong to the private key`),
      ],
      [p8(INT(0), alg, inner, INT(0)), enc(`${W}: unexpected data after the last element of OneAsymmetricKey at byte 48`)],
      [() => curve.importPrivateKey(pem('PUBLIC KEY', b(0x30, 0)), 'pkcs8-pem'), enc('PKCS#8 PEM: PEM label is "PUBLIC KEY", expected "PRIVATE KEY"')],
      [() => curve.importPrivateKey('x' as unknown as Uint8Array, 'pkcs8-der'), { name: CtkitTypeError.name, message: 'data must be a Uint8Array, got string' }],
      [() => curve.importPrivateKey('x' as unknown as Uint8Array, 'raw'), { name: CtkitTypeError.name, message: 'data must be a Uint8Array, got string' }],
      [() => curve.importPrivateKey(d.subarray(1), 'raw'), { name: CtkitRangeError.name, message: 'data must be 32 bytes long, got 31' }],
      [() => curve.importPrivateKey(d, 'x' as 'raw'), { name: CtkitRangeError.name, message: 'format must be one of raw, pkcs8-der, pkcs8-pem, jwk; got "x"' }],
      [() => curve.exportPrivateKey(d, 'x' as 'raw'), { name: CtkitRangeError.name, message: 'format must be one of raw, pkcs8-der, pkcs8-pem, jwk; got "x"' }],
      [() => curve.exportPrivateKey('x' as unknown as Uint8Array, 'raw'), { name: CtkitTypeError.name, message: 'privateKey must be a Uint8Array, got string' }],
    ];
    for (const [run, error] of cases) assert.throws(run, error, `${name}: ${error.message}`);

    const S = 'SubjectPublicKeyInfo';
    const spki =
      (...f: Uint8Array[]) =>
      () =>
        curve.importPublicKey(tlv(0x30, ...f), 'spki-der');
    assert.deepEqual(spki(alg, tlv(0x03, b(0), x))(), x);
    const pubCases: [() => unknown, { name: string; message: string }][] = [
      [spki(alg, tlv(0x04, x)), enc(`${S}: expected subjectPublicKey (BIT STRING (0x03)), found OCTET STRING (0x04) at byte 9`)],
      [spki(alg, tlv(0x03, b(0), x.subarray(1))), enc(`${S}: the public key is 31 bytes, ${name} keys are 32`)],
      [spki(alg, tlv(0x03, b(0), x), INT(0)), enc(`${S}: unexpected data after the last element of ${S} at byte 44`)],
      [spki(tlv(0x30, other), tlv(0x03, b(0), x)), inv(`${S}: the key is for the algorithm with OID ${otherOid}, not ${name} (${name === 'Ed25519' ? '1.3.101.112' : '1.3.101.110'})`)],
      [() => curve.importPublicKey(pem('PRIVATE KEY', b(0x30, 0)), 'spki-pem'), enc('SubjectPublicKeyInfo PEM: PEM label is "PRIVATE KEY", expected "PUBLIC KEY"')],
      [() => curve.importPublicKey('x' as unknown as Uint8Array, 'spki-der'), { name: CtkitTypeError.name, message: 'data must be a Uint8Array, got string' }],
      [() => curve.importPublicKey('x' as unknown as Uint8Array, 'raw'), { name: CtkitTypeError.name, message: 'data must be a Uint8Array, got string' }],
      [() => curve.importPublicKey(x, 'x' as 'raw'), { name: CtkitRangeError.name, message: 'format must be one of raw, spki-der, spki-pem, jwk; got "x"' }],
      [() => curve.exportPublicKey(x, 'x' as 'raw'), { name: CtkitRangeError.name, message: 'format must be one of raw, spki-der, spki-pem, jwk; got "x"' }],
      [() => curve.exportPublicKey('x' as unknown as Uint8Array, 'raw'), { name: CtkitTypeError.name, message: 'publicKey must be a Uint8Array, got string' }],
      [() => curve.getPublicKey('x' as unknown as Uint8Array), { name: CtkitTypeError.name, message: 'privateKey must be a Uint8Array, got string' }],
    ];
    for (const [run, error] of pubCases) assert.throws(run, error, `${name}: ${error.message}`);

    const xs = jwk.x!;
    const ds = jwk.d!;
    const priv = (j: unknown) => () => curve.importPrivateKey(j as never, 'jwk');
    const pubj = (j: unknown) => () => curve.importPublicKey(j as never, 'jwk');
    assert.deepEqual(priv({ kty: 'OKP', crv: name, x: xs, d: ds })(), d);
    assert.deepEqual(pubj({ kty: 'OKP', crv: name, x: xs })(), x);
    const short = Buffer.from(x.subarray(1)).toString('base64url');
    const jwkCases: [() => unknown, { name: string; message: string }][] = [
      [pubj(null), { name: CtkitTypeError.name, message: 'JWK must be an object' }],
      [priv('x'), { name: CtkitTypeError.name, message: 'JWK must be an object' }],
      [pubj({ kty: 'EC', crv: name, x: xs }), inv('JWK: kty is "EC", expected "OKP"')],
      [pubj({ kty: 'OKP', crv: 'P-256', x: xs }), inv(`JWK: crv is "P-256", expected "${name}"`)],
      [pubj({ kty: 'OKP', crv: name }), enc('JWK: member "x" is missing or not a string')],
      [pubj({ kty: 'OKP', crv: name, x: `${xs}=` }), enc('JWK "x": base64url must not be padded')],
      [pubj({ kty: 'OKP', crv: name, x: short }), enc('JWK "x" is 31 bytes, ' + name + ' keys are 32')],
      [priv({ kty: 'OKP', crv: name, x: xs }), enc('JWK: member "d" is missing (not a private key)')],
      [priv({ kty: 'OKP', crv: name, x: xs, d: 5 }), enc('JWK: member "d" is missing or not a string')],
      [priv({ kty: 'OKP', crv: name, x: xs, d: Buffer.from(d.subarray(1)).toString('base64url') }), enc(`JWK "d" is 31 bytes, ${name} keys are 32`)],
      [priv({ kty: 'OKP', crv: name, x: xs, d: Buffer.from(d.map((v, i) => (i === 5 ? v ^ 1 : v))).toString('base64url') }), inv('JWK: "x" does not belong to "d"')],
    ];
    for (const [run, error] of jwkCases) assert.throws(run, error, `${name}: ${error.message}`);
  }
  // an Ed25519 public key that is not a point's canonical encoding: y = p (Y_EQUALS_P)
  assert.throws(() => ed25519.importPublicKey(Y_EQUALS_P, 'raw'), inv('data is not the canonical encoding of an Ed25519 point'));
  assert.throws(() => ed25519.importPublicKey(tlv(0x30, tlv(0x30, b(0x06, 0x03, 0x2b, 0x65, 0x70)), tlv(0x03, b(0), Y_EQUALS_P)), 'spki-der'), inv('SubjectPublicKeyInfo: the public key is not the canonical encoding of an Ed25519 point'));
  assert.throws(() => ed25519.importPublicKey({ kty: 'OKP', crv: 'Ed25519', x: Buffer.from(Y_EQUALS_P).toString('base64url') }, 'jwk'), inv('JWK "x" is not the canonical encoding of an Ed25519 point'));
});

test('Ed25519 and X25519: each argument error names the argument', () => {
  const sk = new Uint8Array(32).fill(9);
  const pk = ed25519.getPublicKey(sk);
  const msg = b(1, 2, 3);
  const sig = ed25519.sign(msg, sk);
  const x = 'x' as unknown as Uint8Array;
  const type = (name: string) => ({ name: CtkitTypeError.name, message: `${name} must be a Uint8Array, got string` });
  assert.throws(() => ed25519.sign(x, sk), type('msg'));
  assert.throws(() => ed25519.sign(msg, x), type('privateKey'));
  assert.throws(() => ed25519.getPublicKey(x), type('privateKey'));
  assert.throws(() => ed25519.signingKey(x), type('privateKey'));
  assert.throws(() => ed25519.signingKey(sk).sign(x), type('msg'));
  assert.throws(() => ed25519.sign(msg, sk, { context: x }), type('options.context'));
  assert.throws(() => ed25519.verify(x, msg, pk), type('signature'));
  assert.throws(() => ed25519.verify(sig, x, pk), type('msg'));
  assert.throws(() => ed25519.verify(sig, msg, x), type('publicKey'));
  assert.throws(() => ed25519.verify(sig, msg, pk, { context: x }), type('options.context'));
  assert.throws(() => ed25519.verify(sig, msg, Y_EQUALS_P), inv('publicKey is not the canonical encoding of an Ed25519 point'));
  // ZIP-215 takes y = p (reduced, it is y = 0, a point): not canonical, still an encoding; an x that fits no point is none
  assert.equal(ed25519.verify(sig, msg, Y_EQUALS_P, { zip215: true }), false);
  const noPoint = b(2, ...new Array(31).fill(0)); // y = 2: (y² − 1)/(d·y² + 1) is not a square
  assert.throws(() => ed25519.verify(sig, msg, noPoint, { zip215: true }), inv('publicKey is not an encoding of an Ed25519 point'));
  assert.throws(() => ed25519.verify(sig, msg, noPoint), inv('publicKey is not the canonical encoding of an Ed25519 point'));
  assert.throws(() => x25519.getPublicKey(x), type('privateKey'));
  assert.throws(() => x25519.ecdh(x, sk), type('privateKey'));
  assert.throws(() => x25519.ecdh(sk, x), type('peerPublicKey'));
});

// ---- ecdsa.ts: the DER signature parser, bits2int, the signature encodings, the argument errors --

const N256 = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const big = (x: Uint8Array) => x.reduce((v, c) => (v << 8n) | BigInt(c), 0n);
const bytesOf = (v: bigint, len: number) => Uint8Array.from({ length: len }, (_, i) => Number((v >> BigInt(8 * (len - 1 - i))) & 0xffn));
/** DER INTEGER of a non-negative value, by X.690's rules written out here */
const derUintRef = (v: Uint8Array) => {
  let i = 0;
  while (i < v.length - 1 && v[i] === 0) i++;
  const body = v[i] >= 0x80 ? Buffer.concat([b(0), v.subarray(i)]) : v.subarray(i);
  return tlv(0x02, body);
};

test('ECDSA DER signatures: each malformed ECDSA-Sig-Value is an error naming r or s; well-formed out-of-range values are false', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const pub = new Uint8Array(Buffer.concat([b(4), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]));
  const msg = b(1, 2, 3);
  const sig = new Uint8Array(sign('sha256', msg, privateKey)); // DER, from OpenSSL
  assert.equal(p256.verify(sig, msg, pub), true);
  const W = 'signature (DER ECDSA-Sig-Value)';
  const v = (s: Uint8Array) => () => p256.verify(s, msg, pub);
  const one = tlv(0x02, b(1));
  for (const [s, message] of [
    [b(0x31, 0), `${W}: expected ECDSA-Sig-Value (SEQUENCE (0x30)), found tag (0x31) at byte 0`],
    [Buffer.concat([tlv(0x30, one, one), b(0)]), `${W}: unexpected data after the last element of ${W} at byte 8`],
    [tlv(0x30), `${W}: missing r (INTEGER (0x02)): the structure ends at byte 2`],
    [tlv(0x30, one), `${W}: missing s (INTEGER (0x02)): the structure ends at byte 5`],
    [tlv(0x30, one, one, one), `${W}: unexpected data after the last element of ECDSA-Sig-Value at byte 8`],
    [tlv(0x30, tlv(0x02), one), `${W}: r is an INTEGER with no content bytes`],
    [tlv(0x30, one, tlv(0x02)), `${W}: s is an INTEGER with no content bytes`],
    [tlv(0x30, tlv(0x02, b(0, 1)), one), `${W}: r is not in its shortest form (BER, not DER)`],
    [tlv(0x30, tlv(0x02, b(0, 0x7f)), one), `${W}: r is not in its shortest form (BER, not DER)`],
    [tlv(0x30, one, tlv(0x02, b(0xff, 0x80))), `${W}: s is not in its shortest form (BER, not DER)`],
    [tlv(0x30, one, tlv(0x02, b(0xff, 0xff))), `${W}: s is not in its shortest form (BER, not DER)`],
    [tlv(0x30, tlv(0x02, b(0x80)), one), `${W}: r is negative`],
    [tlv(0x30, one, tlv(0x02, b(0xff, 0x7f))), `${W}: s is negative`],
  ] as const) {
    assert.throws(v(s), enc(message), message);
  }
  // well-formed: the shortest forms of 128 and 0xff00…, a 33-byte positive INTEGER, r or s zero or ≥ n
  const [r, s] = (() => {
    const p = new DerReader(sig, 'T').read(0x30, 'S');
    const int = () => p.read(0x02, 'i').rest();
    return [int(), int()];
  })();
  for (const bad of [
    tlv(0x30, tlv(0x02, b(0, 0x80)), one),
    tlv(0x30, tlv(0x02, b(0x7f, 0xff)), one),
    tlv(0x30, tlv(0x02, b(0)), tlv(0x02, s)),
    tlv(0x30, tlv(0x02, r), tlv(0x02, b(0))),
    tlv(0x30, tlv(0x02, b(1, ...new Uint8Array(32))), tlv(0x02, s)), // 33 bytes, 2^256: longer than n
    tlv(0x30, derUintRef(bytesOf(N256, 32)), tlv(0x02, s)),
    tlv(0x30, tlv(0x02, r), derUintRef(bytesOf(N256, 32))),
  ]) {
    assert.equal(p256.verify(bad, msg, pub), false);
  }
  // r and s re-encoded by hand as they are: still valid
  assert.equal(p256.verify(tlv(0x30, tlv(0x02, r), tlv(0x02, s)), msg, pub), true);
  // P1363 and the options
  const rs = Buffer.concat([bytesOf(big(r), 32), bytesOf(big(s), 32)]);
  assert.equal(p256.verify(rs, msg, pub, { format: 'p1363' }), true);
  assert.throws(() => p256.verify(rs.subarray(1), msg, pub, { format: 'p1363' }), { name: CtkitRangeError.name, message: 'signature (P1363: r ‖ s) must be 64 bytes long, got 63' });
  assert.throws(() => p256.verify(rs, msg, pub, { format: 'x' as 'der' }), { name: CtkitRangeError.name, message: `format must be 'der' or 'p1363', got "x"` });
  assert.throws(() => p256.verify(rs, msg, pub, null as never), { name: CtkitTypeError.name, message: 'options must be an object' });
  assert.throws(() => p256.verify(rs, msg.subarray(1), pub, { prehashed: true }), { name: CtkitRangeError.name, message: 'msg (a prehashed digest) must be 32 bytes long, got 2' });
  const x = 'x' as unknown as Uint8Array;
  const type = (name: string) => ({ name: CtkitTypeError.name, message: `${name} must be a Uint8Array, got string` });
  assert.throws(() => p256.verify(x, msg, pub), type('signature'));
  assert.throws(() => p256.verify(sig, x, pub), type('msg'));
  assert.throws(() => p256.sign(x, D), type('msg'));
  assert.throws(() => p256.sign(msg, x), type('privateKey'));
  assert.throws(() => p256.sign(msg, D.subarray(1)), { name: CtkitRangeError.name, message: 'privateKey must be 32 bytes long, got 31' });
  assert.throws(() => p256.sign(msg, new Uint8Array(32)), inv('privateKey is not a valid p256 private key (it must be in [1, n − 1])'));
  assert.throws(() => p256.sign(msg, D, { extraEntropy: 5 as never }), { name: CtkitTypeError.name, message: 'extraEntropy must be a boolean or a Uint8Array' });
  // low S: a signature with s > n/2 is refused with lowS, its twin n − s accepted
  const high = big(s) > N256 >> 1n ? big(s) : N256 - big(s);
  const hi = Buffer.concat([bytesOf(big(r), 32), bytesOf(high, 32)]);
  const lo = Buffer.concat([bytesOf(big(r), 32), bytesOf(N256 - high, 32)]);
  assert.equal(p256.verify(hi, msg, pub, { format: 'p1363' }), true);
  assert.equal(p256.verify(hi, msg, pub, { format: 'p1363', lowS: true }), false);
  assert.equal(p256.verify(lo, msg, pub, { format: 'p1363', lowS: true }), true);
});

test('ECDSA: DER signatures are the minimal INTEGERs of the P1363 r and s (leading zero bytes included); lowS halves s', () => {
  let leadingZero = 0;
  for (let i = 0; i < 1500; i++) {
    const m = Uint8Array.of(i & 0xff, i >> 8, 7);
    const p1363 = p256.sign(m, D, { format: 'p1363' });
    const derSig = p256.sign(m, D);
    const r = p1363.subarray(0, 32);
    const s = p1363.subarray(32);
    if (r[0] === 0 || s[0] === 0) leadingZero++;
    assert.deepEqual(derSig, new Uint8Array(tlv(0x30, derUintRef(r), derUintRef(s))), `message ${i}`);
    const low = p256.sign(m, D, { format: 'p1363', lowS: true });
    const want = big(s) > N256 >> 1n ? N256 - big(s) : big(s);
    assert.deepEqual(low, new Uint8Array(Buffer.concat([r, bytesOf(want, 32)])), `lowS ${i}`);
  }
  assert.ok(leadingZero > 0, 'no r or s with a leading zero byte came up: the test did not reach that case');
});

test('bits2int (RFC 6979 section 2.3.2): the leftmost qlen bits, as len bytes, against BigInt', () => {
  const rng = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 73 + seed * 151 + 17) & 0xff);
  for (const qlen of [224, 255, 256, 257, 384, 521]) {
    const len = Math.ceil(qlen / 8);
    for (let n = 0; n <= 70; n++) {
      const in_ = rng(n, qlen + n);
      const shift = Math.max(0, 8 * n - qlen);
      const want = bytesOf(big(in_) >> BigInt(shift), len);
      assert.deepEqual(bits2int(in_, qlen, len), want, `qlen ${qlen}, ${n} bytes`);
    }
  }
});

test('EcKernel: a module whose layout would overrun the IO area or its table slot is refused at construction', () => {
  // stand-ins for a kernel instance: only the layout globals and the slot size are read
  const fake = (fieldBytes: number, FE: number, tableBytes: number) =>
    ({ exports: { FIELD_BYTES: { value: fieldBytes }, SCALAR_BYTES: { value: fieldBytes }, FE: { value: FE }, WS_SIZE: { value: 0 }, TABLE_BYTES: { value: tableBytes } }, slotSize: 32768 }) as never;
  // IO.OUT − IO.PT = 256 bytes hold an uncompressed point: 2·127 + 1 fits, 2·128 + 1 does not
  // and a field element at most IO.B − IO.A = 384 bytes
  new EcKernel(p256.params, fake(127, 384, 32768));
  assert.throws(() => new EcKernel(p256.params, fake(128, 256, 32768)), { name: 'Error', message: 'ec: IO layout too small' });
  assert.throws(() => new EcKernel(p256.params, fake(32, 385, 32768)), { name: 'Error', message: 'ec: IO layout too small' });
  assert.throws(() => new EcKernel(p256.params, fake(32, 40, 32769)), { name: 'Error', message: 'ec: fixed-base table larger than its slot' });
});

test('ScalarField: an operand of the wrong length or type is an error naming it', () => {
  const f = p256.scalarField;
  const ok = new Uint8Array(32).fill(1);
  const short = new Uint8Array(31);
  const range = { name: CtkitRangeError.name, message: 'scalar operand must be 32 bytes long, got 31' };
  const type = { name: CtkitTypeError.name, message: 'scalar operand must be a Uint8Array, got string' };
  for (const run of [() => f.mul(ok, short), () => f.add(short, ok), () => f.reduce(short), () => f.mulAdd(ok, ok, short), () => f.mulAdd(short, ok, ok)]) assert.throws(run, range);
  for (const run of [() => f.neg('x' as never), () => f.mulAdd(ok, 'x' as never, ok)]) assert.throws(run, type);
  // and the values, against BigInt
  const n = N256;
  const a = bytesOf(n - 5n, 32);
  const c = bytesOf(7n, 32);
  assert.deepEqual(f.mulAdd(a, a, c), bytesOf(((n - 5n) * (n - 5n) + 7n) % n, 32));
});

test('P-256: a key file whose public key shares x with the right one (−P) is refused; generated keys use every top bit', () => {
  // −P has the same x and y' = p − y: every x byte equal, so a byte-wise "any equal" check would pass it
  const P256_P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
  const neg = Buffer.concat([PUB.subarray(0, 33), bytesOf(P256_P - big(PUB.subarray(33)), 32)]);
  assert.equal(p256.isValidPublicKey(neg), true);
  const I = 'PKCS#8 private key (ECPrivateKey)';
  const withPub = (pub: Uint8Array) => pkcs8(INT(0), algId(OID_P256), tlv(0x04, ecPrivateKey(INT(1), tlv(0x04, D), tlv(0xa1, tlv(0x03, b(0), pub)))));
  assert.deepEqual(p256.importPrivateKey(withPub(PUB), 'pkcs8-der'), D);
  assert.throws(() => p256.importPrivateKey(withPub(neg), 'pkcs8-der'), inv(`${I}: the public key does not belong to the private key`));
  const x = Buffer.from(neg.subarray(1, 33)).toString('base64url');
  const y = Buffer.from(neg.subarray(33)).toString('base64url');
  assert.throws(() => p256.importPrivateKey({ kty: 'EC', crv: 'P-256', x, y, d: Buffer.from(D).toString('base64url') } as never, 'jwk'), inv('JWK: x and y do not belong to d'));
  // the top byte of a P-256 key is uniform in [0, 255] (n is just below 2^256): 64 keys show more than two values
  const tops = new Set(Array.from({ length: 64 }, () => p256.generatePrivateKey()[0]));
  assert.ok(tops.size > 2, `the top bytes of 64 generated keys took only ${tops.size} values`);
  assert.equal(p256.publicKeyBytes, 65);
  assert.equal(p256.compressedPublicKeyBytes, 33);
  assert.equal(p256.privateKeyBytes, 32);
});

test('P-256: bad formats, a non-curve, a broken random generator: each a typed error that says so', () => {
  const sk = p256.generatePrivateKey();
  const pub = p256.getPublicKey(sk);
  const fmt = (list: string) => ({ name: CtkitRangeError.name, message: `format must be one of ${list}; got "x"` });
  assert.throws(() => p256.exportPrivateKey(sk, 'x' as never), fmt('raw, pkcs8-der, pkcs8-pem, sec1-der, sec1-pem, jwk'));
  assert.throws(() => p256.exportPublicKey(pub, 'x' as never), fmt('raw, spki-der, spki-pem, jwk'));
  assert.throws(() => p256.importPublicKey(pub, 'x' as never), fmt('raw, spki-der, spki-pem, jwk'));
  assert.throws(() => curveKernel({ ...p256 }), { name: CtkitTypeError.name, message: "not one of ctkit's curve objects" });
  // a generator that returns only 0xff: every candidate is ≥ n, and after 256 of them the call gives up
  const real = globalThis.crypto.getRandomValues;
  let calls = 0;
  globalThis.crypto.getRandomValues = (<T extends ArrayBufferView | null>(a: T): T => {
    calls++;
    new Uint8Array(a!.buffer, a!.byteOffset, a!.byteLength).fill(0xff);
    return a;
  }) as typeof real;
  try {
    assert.throws(() => p256.generatePrivateKey(), { name: 'CtkitError', message: 'generatePrivateKey: the random generator returned 256 rejected candidates in a row' });
  } finally {
    globalThis.crypto.getRandomValues = real;
  }
  assert.equal(calls, 256);
});

test('EcKernel: k·G and k·Q for k = n are the identity: publicKey refuses, ecdh is undefined', () => {
  const e = curveKernel(p256);
  const n = bytesOf(N256, 32);
  assert.throws(() => e.publicKey(n), { name: 'Error', message: 'ec: k·G is the identity (k was not checked)' });
  assert.equal(e.ecdh(n, PUB.subarray(1)), undefined);
});

test('ECDSA: 1000 rejected nonces end the signing; a curve with unequal field and scalar lengths is refused', () => {
  const curve = withEcdsa(makeCurve(CURVES.p256, { name: 'mutation-ec-nonces', bytes: () => p256Module.bytes() }), sha256);
  const sk = curve.generatePrivateKey();
  const e = curveKernel(curve);
  const real = e.scalarOk;
  let calls = 0;
  e.scalarOk = (k: Uint8Array) => (calls++ === 0 ? real.call(e, k) : false); // the key passes, no nonce does
  try {
    assert.throws(() => curve.sign(Uint8Array.of(1), sk), { name: 'CtkitError', message: 'sign: 1000 nonce candidates rejected in a row' });
  } finally {
    e.scalarOk = real;
  }
  assert.equal(calls, 1001);
  assert.equal(curve.verify(curve.sign(Uint8Array.of(1), sk), Uint8Array.of(1), curve.getPublicKey(sk)), true);
  const odd = { ...p256, params: { ...p256.params, n: (1n << 200n) + 235n } };
  assert.throws(() => withEcdsa(odd, sha256), { name: 'Error', message: 'ecdsa: p256 has field and scalar encodings of different lengths' });
});

test('ECDSA: a verification table that would not fit its slot is refused before it is built', () => {
  const curve = withEcdsa(makeCurve(CURVES.p256, { name: 'mutation-ec-gtable', bytes: () => p256Module.bytes() }), sha256);
  const sk = curve.generatePrivateKey();
  const sig = curve.sign(Uint8Array.of(1), sk);
  const e = curveKernel(curve);
  const slotSize = e.k.slotSize;
  // the G table of ecdsa_verify takes 64 points of 3 field elements while it is built
  const inUse = e.k.slotsInUse;
  Object.defineProperty(e.k, 'slotSize', { value: 64 * 3 * e.FE - 1 });
  assert.throws(() => curve.verify(sig, Uint8Array.of(1), curve.getPublicKey(sk)), { name: 'Error', message: 'ecdsa: verification table larger than a slot' });
  Object.defineProperty(e.k, 'slotSize', { value: slotSize });
  assert.equal(e.k.slotsInUse, inUse, 'a slot was taken for the refused table');
  // exactly the size it needs is enough (this instance is not used after the test)
  Object.defineProperty(e.k, 'slotSize', { value: 64 * 3 * e.FE });
  assert.equal(curve.verify(sig, Uint8Array.of(1), curve.getPublicKey(sk)), true);
  Object.defineProperty(e.k, 'slotSize', { value: slotSize });
});

test('Ed25519: the shipped object runs on the shared instance; a fresh one keeps both tables inside its one slot', () => {
  assert.throws(() => ed25519Kernel({} as Ed25519), { name: 'TypeError', message: 'not an Ed25519 object' });
  const shared = ed25519Kernel(ed25519);
  assert.equal(shared, getKernel(edModule, shared.slotSize), 'the shipped Ed25519 has an instance of its own');
  // a fresh instance: its first verification builds the comb's table and the odd multiples'
  // table in its first slot; nothing else in memory may change (IO area and scratch are wiped)
  const ed = makeEd25519({ name: 'ed25519_mutation_ec', bytes: () => edModule.bytes() }, true);
  const e = ed25519Kernel(ed);
  assert.notEqual(e, shared);
  const before = e.u8.slice();
  const sk = Uint8Array.from({ length: 32 }, (_, i) => i);
  const msg = Uint8Array.of(1, 2, 3);
  assert.equal(ed.verify(ed25519.sign(msg, sk), msg, ed25519.getPublicKey(sk)), true);
  const after = e.u8;
  let lo = after.length,
    hi = -1;
  for (let i = 0; i < before.length; i++) {
    if (after[i] !== before[i]) {
      lo = Math.min(lo, i);
      hi = i;
    }
  }
  assert.equal(e.slotsInUse, 1);
  assert.ok(lo >= SLOTS_PTR && hi < SLOTS_PTR + e.slotSize, `bytes changed from ${lo} to ${hi}, outside the slot at ${SLOTS_PTR}`);
  assert.ok(hi >= SLOTS_PTR + (e.exports.TABLE_BYTES.value as number), 'the odd multiples were written after the comb table');
});

test('X25519: the shipped object runs its ladder on the shared instance (setBackend reaches it)', () => {
  const shared = getKernel<X25519Exports>(x25519Module, 0);
  const real = shared.exports;
  let calls = 0;
  const counting = { ...real, x25519: (...a: Parameters<X25519Exports['x25519']>) => (calls++, real.x25519(...a)) };
  (shared as { exports: X25519Exports }).exports = counting;
  try {
    const sk = x25519.generatePrivateKey();
    x25519.ecdh(sk, x25519.getPublicKey(x25519.generatePrivateKey()));
  } finally {
    (shared as { exports: X25519Exports }).exports = real;
  }
  assert.equal(calls, 1, 'ecdh ran the ladder on another instance');
});

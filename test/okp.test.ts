// Key formats of X25519 and Ed25519 (src/ec/okp.ts) against OpenSSL: keys made by
// `openssl genpkey -algorithm X25519 | ED25519` load as they are, and ctkit writes them back byte
// for byte (PKCS#8 DER and PEM, SPKI DER and PEM as `openssl pkey` prints them, JWK as node:crypto
// exports it); PKCS#8 version 1 with the public key laid out as RFC 8410 says, and RFC 8410's
// own example read (OpenSSL 3.0 reads neither); and every malformed or mismatched encoding is
// refused with a typed error.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { ed25519, x25519 } from '../src/ec/index.js';
import type { OkpFormats, OkpJwk } from '../src/ec/okp.js';
import { CtkitRangeError, CtkitTypeError, EncodingError, InvalidKeyError } from '../src/errors.js';
import { Rng, hex, unhex } from './support/rng.js';

interface Okp extends OkpFormats {
  getPublicKey(sk: Uint8Array): Uint8Array;
}

const ALGS: [string, Okp, string][] = [
  ['X25519', x25519, '1.3.101.110'],
  ['ED25519', ed25519, '1.3.101.112'],
];

const openssl = (args: string[], input?: string | Uint8Array): Buffer => execFileSync('openssl', args, { input, stdio: ['pipe', 'pipe', 'pipe'] });

for (const [alg, impl, oid] of ALGS) {
  test(`${alg}: keys from openssl genpkey load as they are and are written back byte for byte`, () => {
    for (let i = 0; i < 3; i++) {
      const pem = openssl(['genpkey', '-algorithm', alg]).toString();
      const der = new Uint8Array(openssl(['pkey', '-outform', 'DER'], pem));
      const spkiPem = openssl(['pkey', '-pubout'], pem).toString();
      const spkiDer = new Uint8Array(openssl(['pkey', '-pubout', '-outform', 'DER'], pem));
      const sk = impl.importPrivateKey(pem, 'pkcs8-pem');
      assert.equal(hex(impl.importPrivateKey(der, 'pkcs8-der')), hex(sk));
      assert.equal(hex(der.subarray(der.length - 32)), hex(sk), 'the raw key is the OCTET STRING inside');
      const pk = impl.getPublicKey(sk);
      assert.equal(hex(impl.importPublicKey(spkiPem, 'spki-pem')), hex(pk), 'OpenSSL derives the same public key');
      assert.equal(hex(impl.importPublicKey(spkiDer, 'spki-der')), hex(pk));
      assert.equal(impl.exportPrivateKey(sk, 'pkcs8-pem'), pem);
      assert.equal(hex(impl.exportPrivateKey(sk, 'pkcs8-der')), hex(der));
      assert.equal(impl.exportPublicKey(pk, 'spki-pem'), spkiPem);
      assert.equal(hex(impl.exportPublicKey(pk, 'spki-der')), hex(spkiDer));
      assert.equal(hex(impl.exportPrivateKey(sk, 'raw')), hex(sk));
      assert.equal(hex(impl.exportPublicKey(pk, 'raw')), hex(pk));
      // JWK as node:crypto (OpenSSL) writes it
      const nodeJwk = crypto.createPrivateKey(pem).export({ format: 'jwk' }) as OkpJwk;
      const jwk = impl.exportPrivateKey(sk, 'jwk');
      assert.deepEqual({ ...jwk }, { kty: nodeJwk.kty, crv: nodeJwk.crv, x: nodeJwk.x, d: nodeJwk.d });
      assert.deepEqual(impl.exportPublicKey(pk, 'jwk'), { kty: 'OKP', crv: nodeJwk.crv, x: nodeJwk.x });
      assert.equal(hex(impl.importPrivateKey(nodeJwk, 'jwk')), hex(sk));
      assert.equal(hex(impl.importPublicKey({ kty: 'OKP', crv: nodeJwk.crv, x: nodeJwk.x }, 'jwk')), hex(pk));
      // the OID written is the algorithm's (RFC 8410 section 3)
      assert.ok(
        openssl(['asn1parse', '-inform', 'DER'], der)
          .toString()
          .includes(alg === 'X25519' ? 'X25519' : 'ED25519'),
        oid,
      );
    }
  });

  test(`${alg}: PKCS#8 version 1 with the public key (RFC 8410 section 7); the public key must belong`, () => {
    const rng = new Rng(alg.length);
    const sk = rng.bytes(32);
    const pk = impl.getPublicKey(sk);
    const v1 = impl.exportPrivateKey(sk, 'pkcs8-der', { publicKey: true }) as Uint8Array;
    // OneAsymmetricKey { version 1, AlgorithmIdentifier, OCTET STRING { OCTET STRING sk }, [1] BIT STRING pk }
    const oidByte = oid.endsWith('110') ? 0x6e : 0x70;
    assert.equal(hex(v1), hex(Uint8Array.from([0x30, 0x51, 0x02, 0x01, 0x01, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, oidByte, 0x04, 0x22, 0x04, 0x20, ...sk, 0x81, 0x21, 0x00, ...pk])));
    assert.equal(hex(impl.importPrivateKey(v1, 'pkcs8-der')), hex(sk));
    const pem = impl.exportPrivateKey(sk, 'pkcs8-pem', { publicKey: true }) as string;
    assert.equal(hex(impl.importPrivateKey(pem, 'pkcs8-pem')), hex(sk));
    // another public key in it
    const wrong = v1.slice();
    wrong[wrong.length - 1] ^= 1;
    assert.throws(() => impl.importPrivateKey(wrong, 'pkcs8-der'), /does not belong/);
    // a public key in a version-0 structure
    const v0pk = v1.slice();
    v0pk[4] = 0;
    assert.throws(() => impl.importPrivateKey(v0pk, 'pkcs8-der'), /needs version 1/);
    // version 2 is not defined
    const v2 = v1.slice();
    v2[4] = 2;
    assert.throws(() => impl.importPrivateKey(v2, 'pkcs8-der'), /version 2/);
  });

  test(`${alg}: malformed encodings and the other algorithm's keys are typed errors`, () => {
    const [otherName, other] = ALGS.find(([n]) => n !== alg)!.slice(0, 2) as [string, Okp];
    const sk = new Uint8Array(32).fill(9);
    const pk = impl.getPublicKey(sk);
    const der = impl.exportPrivateKey(sk, 'pkcs8-der') as Uint8Array;
    const spki = impl.exportPublicKey(pk, 'spki-der') as Uint8Array;
    // the other algorithm's key: named by its OID
    assert.throws(
      () => impl.importPrivateKey(other.exportPrivateKey(sk, 'pkcs8-der'), 'pkcs8-der'),
      (e: unknown) => e instanceof InvalidKeyError && /OID 1\.3\.101\.11[02]/.test((e as Error).message),
    );
    assert.throws(() => impl.importPublicKey(other.exportPublicKey(other.getPublicKey(sk), 'spki-der'), 'spki-der'), InvalidKeyError);
    assert.throws(
      () => impl.importPrivateKey(other.exportPrivateKey(sk, 'jwk'), 'jwk'),
      (e: unknown) => e instanceof InvalidKeyError && (e as Error).message.includes(otherName === 'X25519' ? '"X25519"' : '"Ed25519"'),
    );
    // AlgorithmIdentifier with parameters (NULL): RFC 8410 says absent
    const withParams = Uint8Array.from([0x30, 0x30, 0x02, 0x01, 0x00, 0x30, 0x07, ...der.subarray(7, 12), 0x05, 0x00, ...der.subarray(12)]);
    assert.throws(() => impl.importPrivateKey(withParams, 'pkcs8-der'), /must not have parameters/);
    // truncated, trailing bytes, a 31-byte key, BER long-form length
    assert.throws(() => impl.importPrivateKey(der.subarray(0, der.length - 1), 'pkcs8-der'), EncodingError);
    assert.throws(() => impl.importPrivateKey(Uint8Array.from([...der, 0]), 'pkcs8-der'), EncodingError);
    const short = Uint8Array.from([0x30, 0x2d, ...der.subarray(2, 12), 0x04, 0x21, 0x04, 0x1f, ...der.subarray(16, 47)]);
    assert.throws(() => impl.importPrivateKey(short, 'pkcs8-der'), /31 bytes/);
    assert.throws(() => impl.importPublicKey(Uint8Array.from([0x30, 0x81, 0x2a, ...spki.subarray(2)]), 'spki-der'), EncodingError);
    assert.throws(() => impl.importPublicKey(spki.subarray(0, 40), 'spki-der'), EncodingError);
    // PEM with the wrong label, JWK with bad members
    assert.throws(() => impl.importPrivateKey(impl.exportPublicKey(pk, 'spki-pem'), 'pkcs8-pem'), EncodingError);
    const jwk = impl.exportPrivateKey(sk, 'jwk') as OkpJwk;
    assert.throws(() => impl.importPrivateKey({ ...jwk, kty: 'EC' } as never, 'jwk'), InvalidKeyError);
    assert.throws(() => impl.importPrivateKey({ ...jwk, d: undefined }, 'jwk'), /"d" is missing/);
    assert.throws(
      () => impl.importPrivateKey({ ...jwk, d: `${jwk.d!.slice(0, -1)}A` }, 'jwk'),
      (e: unknown) => e instanceof EncodingError || e instanceof InvalidKeyError,
    );
    assert.throws(() => impl.importPrivateKey({ ...jwk, x: impl.exportPublicKey(impl.getPublicKey(new Uint8Array(32).fill(8)), 'jwk').x }, 'jwk'), /does not belong/);
    assert.throws(() => impl.importPublicKey({ ...jwk, x: `${jwk.x}=` }, 'jwk'), EncodingError);
    assert.throws(() => impl.importPublicKey('not a key' as never, 'jwk'), CtkitTypeError);
    // formats and arguments
    assert.throws(() => impl.exportPrivateKey(sk, 'sec1-der' as never), CtkitRangeError);
    assert.throws(() => impl.importPublicKey(spki, 'pkcs8-der' as never), CtkitRangeError);
    assert.throws(() => impl.exportPrivateKey(new Uint8Array(31), 'raw'), CtkitRangeError);
    assert.throws(() => impl.exportPublicKey('ab' as never, 'raw'), CtkitTypeError);
  });
}

test('Ed25519: a public key that is not a point is refused by every public-key format; X25519 takes any 32 bytes', () => {
  const notPoint = Uint8Array.of(2, ...new Array<number>(31).fill(0)); // y = 2: x² = 3/(4d + 1) is not a square
  const nonCanonical = unhex('edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f'); // y = p
  const spki = (k: Uint8Array, oid: number) => Uint8Array.from([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, oid, 0x03, 0x21, 0x00, ...k]);
  for (const bad of [notPoint, nonCanonical]) {
    assert.throws(() => ed25519.importPublicKey(bad, 'raw'), InvalidKeyError);
    assert.throws(() => ed25519.importPublicKey(spki(bad, 0x70), 'spki-der'), InvalidKeyError);
    assert.throws(() => ed25519.importPublicKey({ kty: 'OKP', crv: 'Ed25519', x: Buffer.from(bad).toString('base64url') }, 'jwk'), InvalidKeyError);
    assert.throws(() => ed25519.exportPublicKey(bad, 'spki-der'), InvalidKeyError);
    assert.equal(hex(x25519.importPublicKey(spki(bad, 0x6e), 'spki-der')), hex(bad));
  }
  // OpenSSL writes the same SPKI for a point it is given
  const pk = ed25519.getPublicKey(new Uint8Array(32).fill(1));
  const nodeSpki = crypto.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(pk).toString('base64url') }, format: 'jwk' }).export({ format: 'der', type: 'spki' });
  assert.equal(hex(ed25519.exportPublicKey(pk, 'spki-der') as Uint8Array), nodeSpki.toString('hex'));
});

test('Ed25519: the PKCS#8 version 1 example of RFC 8410 section 10.3 (attributes, public key) loads', () => {
  // OpenSSL 3.0 cannot read this structure ("unsupported"); ctkit reads it and checks the public key
  const pem = [
    '-----BEGIN PRIVATE KEY-----',
    'MHICAQEwBQYDK2VwBCIEINTuctv5E1hK1bbY8fdp+K06/nwoy/HU++CXqI9EdVhC',
    'oB8wHQYKKoZIhvcNAQkJFDEPDA1DdXJkbGUgQ2hhaXJzgSEAGb9ECWmEzf6FQbrB',
    'Z9w7lshQhqowtrbLDFw4rXAxZuE=',
    '-----END PRIVATE KEY-----',
    '',
  ].join('\n');
  const sk = ed25519.importPrivateKey(pem, 'pkcs8-pem');
  assert.equal(hex(sk), 'd4ee72dbf913584ad5b6d8f1f769f8ad3afe7c28cbf1d4fbe097a88f44755842');
  assert.equal(hex(ed25519.getPublicKey(sk)), '19bf44096984cdfe8541bac167dc3b96c85086aa30b6b6cb0c5c38ad703166e1');
  // as X25519 (another OID) it is refused
  assert.throws(() => x25519.importPrivateKey(pem, 'pkcs8-pem'), InvalidKeyError);
});

// Differential tests against OpenSSL through node:crypto, every curve: 200 random key pairs
// agreeing in both directions (ctkit's private key with OpenSSL's public key and the reverse),
// public keys derived identically, and key exports byte-identical to OpenSSL's (PKCS#8, SEC 1,
// SubjectPublicKeyInfo, DER and PEM; JWK members where JWK names the curve), imports of
// OpenSSL's encodings; ECDH against WebCrypto for the curves it has.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import * as ec from '../src/ec/index.js';
import type { Curve } from '../src/ec/index.js';
import { CURVE_NAMES, perBackend } from './support/ec-curves.js';
import type { CurveName } from '../src/curves/params.js';
import { Rng } from './support/rng.js';

const PAIRS = perBackend(200, 20); // fewer on the scalar backends (test/backends.test.ts)
const curveOf = (name: string) => (ec as unknown as Record<string, Curve>)[name];
const buf = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.length);
const pad = (b: Uint8Array, n: number) => {
  const out = new Uint8Array(n);
  out.set(b, n - b.length);
  return out;
};

for (const name of CURVE_NAMES) {
  const c = curveOf(name);
  test(`${name}: ${PAIRS} key pairs agree with OpenSSL in both directions`, () => {
    const rng = new Rng(0xec0000 + c.privateKeyBytes);
    for (let i = 0; i < PAIRS; i++) {
      const a = c.generatePrivateKey();
      const pa = c.getPublicKey(a);
      const node = crypto.createECDH(c.params.openssl);
      node.generateKeys();
      const pb = node.getPublicKey();
      // OpenSSL derives the same public key from ctkit's private key
      const mirror = crypto.createECDH(c.params.openssl);
      mirror.setPrivateKey(buf(a));
      assert.deepEqual(buf(pa), mirror.getPublicKey(), `public key, pair ${i}`);
      // both directions, and the compressed forms
      const mine = c.ecdh(a, pb);
      assert.deepEqual(buf(mine), node.computeSecret(buf(pa)), `ECDH, pair ${i}`);
      if (i % 4 === 0) {
        assert.deepEqual(buf(c.ecdh(a, node.getPublicKey(null, 'compressed'))), buf(mine));
        const ca = c.getPublicKey(a, { compressed: true });
        assert.deepEqual(buf(ca), mirror.getPublicKey(null, 'compressed'));
        assert.deepEqual(node.computeSecret(buf(ca)), buf(mine));
      }
      // and ctkit derives OpenSSL's public key from OpenSSL's private key
      // (OpenSSL writes the private key without its leading zero bytes)
      if (i % 8 === 0) assert.deepEqual(buf(c.getPublicKey(pad(node.getPrivateKey(), c.privateKeyBytes))), pb);
      rng.u32();
    }
  });

  test(`${name}: key exports byte-identical to OpenSSL's, imports of OpenSSL's encodings`, () => {
    for (let i = 0; i < 12; i++) {
      const sk = c.generatePrivateKey();
      const pk = c.getPublicKey(sk);
      const ko = crypto.createPrivateKey({ key: buf(c.exportPrivateKey(sk, 'sec1-der')), format: 'der', type: 'sec1' });
      const po = crypto.createPublicKey(ko);
      const expect = (got: Uint8Array | string, want: Buffer | string, what: string) => assert.deepEqual(typeof got === 'string' ? got : buf(got), want, `${name} ${what}`);
      expect(c.exportPrivateKey(sk, 'pkcs8-der'), ko.export({ type: 'pkcs8', format: 'der' }), 'PKCS#8 DER');
      expect(c.exportPrivateKey(sk, 'pkcs8-pem'), ko.export({ type: 'pkcs8', format: 'pem' }) as string, 'PKCS#8 PEM');
      expect(c.exportPrivateKey(sk, 'sec1-der'), ko.export({ type: 'sec1', format: 'der' }), 'SEC 1 DER');
      expect(c.exportPrivateKey(sk, 'sec1-pem'), ko.export({ type: 'sec1', format: 'pem' }) as string, 'SEC 1 PEM');
      expect(c.exportPublicKey(pk, 'spki-der'), po.export({ type: 'spki', format: 'der' }), 'SPKI DER');
      expect(c.exportPublicKey(pk, 'spki-pem'), po.export({ type: 'spki', format: 'pem' }) as string, 'SPKI PEM');
      // imports of OpenSSL's encodings
      for (const [fmt, data] of [
        ['pkcs8-der', ko.export({ type: 'pkcs8', format: 'der' })],
        ['pkcs8-pem', ko.export({ type: 'pkcs8', format: 'pem' })],
        ['sec1-der', ko.export({ type: 'sec1', format: 'der' })],
        ['sec1-pem', ko.export({ type: 'sec1', format: 'pem' })],
      ] as const) {
        assert.deepEqual(buf(c.importPrivateKey(typeof data === 'string' ? data : new Uint8Array(data), fmt)), buf(sk), fmt);
      }
      assert.deepEqual(buf(c.importPublicKey(new Uint8Array(po.export({ type: 'spki', format: 'der' })), 'spki-der')), buf(pk));
      assert.deepEqual(buf(c.importPublicKey(po.export({ type: 'spki', format: 'pem' }) as string, 'spki-pem')), buf(pk));
      // a compressed SubjectPublicKeyInfo: OpenSSL reads it (and writes it back unchanged), so do we
      const cspki = c.exportPublicKey(pk, 'spki-der', { compressed: true });
      const co = crypto.createPublicKey({ key: buf(cspki), format: 'der', type: 'spki' });
      assert.deepEqual(co.export({ type: 'spki', format: 'der' }), buf(cspki));
      assert.ok(co.equals(po));
      assert.deepEqual(buf(c.importPublicKey(cspki, 'spki-der')), buf(pk));
      if (c.params.jwk !== undefined) {
        assert.deepEqual({ ...c.exportPrivateKey(sk, 'jwk') }, { ...(ko.export({ format: 'jwk' }) as object) });
        assert.deepEqual({ ...c.exportPublicKey(pk, 'jwk') }, { ...(po.export({ format: 'jwk' }) as object) });
        assert.deepEqual(buf(c.importPrivateKey(ko.export({ format: 'jwk' }) as ec.EcJwk, 'jwk')), buf(sk));
        assert.deepEqual(buf(c.importPublicKey(po.export({ format: 'jwk' }) as ec.EcJwk, 'jwk')), buf(pk));
      } else {
        assert.throws(() => c.exportPrivateKey(sk, 'jwk'), ec.EncodingError);
      }
      // without the public key inside
      const bare = c.exportPrivateKey(sk, 'pkcs8-der', { publicKey: false });
      assert.deepEqual(buf(c.importPrivateKey(bare, 'pkcs8-der')), buf(sk));
      const kb = crypto.createPrivateKey({ key: buf(bare), format: 'der', type: 'pkcs8' });
      assert.deepEqual(kb.export({ type: 'pkcs8', format: 'der' }), buf(bare));
      assert.deepEqual(kb.export({ type: 'sec1', format: 'der' }), buf(c.exportPrivateKey(sk, 'sec1-der', { publicKey: false })));
    }
  });
}

const WEBCRYPTO: Record<string, string> = { p256: 'P-256', p384: 'P-384', p521: 'P-521' };
for (const [name, namedCurve] of Object.entries(WEBCRYPTO).filter(([n]) => CURVE_NAMES.includes(n as CurveName))) {
  test(`${name}: ECDH agrees with WebCrypto (keys exchanged as PKCS#8, SPKI and JWK)`, async () => {
    const c = curveOf(name);
    const subtle = globalThis.crypto.subtle;
    for (let i = 0; i < 10; i++) {
      const kp = (await subtle.generateKey({ name: 'ECDH', namedCurve }, true, ['deriveBits'])) as CryptoKeyPair;
      const theirPub = new Uint8Array(await subtle.exportKey('raw', kp.publicKey));
      const sk = c.generatePrivateKey();
      const mySpki = c.exportPublicKey(c.getPublicKey(sk), 'spki-der');
      const myPubKey = await subtle.importKey('spki', mySpki as BufferSource, { name: 'ECDH', namedCurve }, true, []);
      const bits = new Uint8Array(await subtle.deriveBits({ name: 'ECDH', public: myPubKey }, kp.privateKey, c.sharedSecretBytes * 8));
      assert.deepEqual(buf(c.ecdh(sk, theirPub)), buf(bits));
      // WebCrypto imports our PKCS#8 and JWK private keys and derives the same secret
      const imported = await subtle.importKey('pkcs8', c.exportPrivateKey(sk, 'pkcs8-der') as BufferSource, { name: 'ECDH', namedCurve }, true, ['deriveBits']);
      const bits2 = new Uint8Array(await subtle.deriveBits({ name: 'ECDH', public: kp.publicKey }, imported, c.sharedSecretBytes * 8));
      assert.deepEqual(buf(bits2), buf(bits));
      const jwk = await subtle.importKey('jwk', c.exportPrivateKey(sk, 'jwk') as JsonWebKey, { name: 'ECDH', namedCurve }, true, ['deriveBits']);
      assert.deepEqual(new Uint8Array(await subtle.deriveBits({ name: 'ECDH', public: kp.publicKey }, jwk, c.sharedSecretBytes * 8)), bits);
    }
  });
}

// Non-canonical base64 for the OKP key formats (issue 18): test/teeth-base64.test.ts holds the
// EC curves' PEM and JWK and the CLI's key files to it; X25519's PKCS#8 and SPKI PEM and its JWK
// members "x" and "d" (through src/ec/okp.ts) must refuse a last character whose unused bits are
// set just the same, and still take the canonical encoding of the same bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { x25519 } from '../src/ec/x25519.js';
import { EncodingError } from '../src/errors.js';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const nonCanonical = (e: unknown) => e instanceof EncodingError && /non-canonical base64 \(unused bits set\)/.test((e as Error).message);

/** Every variant of the PEM whose last base64 character differs only in its unused bits. */
function spoilPem(pem: string): string[] {
  const lines = pem.trimEnd().split('\n');
  const i = lines.length - 2;
  const line = lines[i];
  const pad = line.length - line.replace(/=+$/, '').length;
  assert.ok(pad > 0, `no unused bits in ${line}`);
  const at = line.length - pad - 1;
  const v = B64.indexOf(line[at]);
  const mask = pad === 2 ? 15 : 3;
  assert.equal(v & mask, 0, 'the encoder wrote non-zero unused bits');
  const out: string[] = [];
  for (let u = 1; u <= mask; u++) {
    const copy = [...lines];
    copy[i] = line.slice(0, at) + B64[v | u] + line.slice(at + 1);
    out.push(`${copy.join('\n')}\n`);
  }
  return out;
}

/** Every variant of a 43-character base64url member (32 bytes: 2 unused bits) with unused bits set. */
function spoilB64url(s: string): string[] {
  assert.equal(s.length, 43);
  const v = B64URL.indexOf(s[42]);
  assert.equal(v & 3, 0, 'the encoder wrote non-zero unused bits');
  return [1, 2, 3].map((u) => s.slice(0, 42) + B64URL[v | u]);
}

test('X25519 SPKI PEM (44 DER bytes: one "=") and PKCS#8 v1 PEM with unused bits set are refused; the canonical ones import', () => {
  for (let k = 0; k < 4; k++) {
    const sk = x25519.generatePrivateKey();
    const pk = x25519.getPublicKey(sk);
    const spki = x25519.exportPublicKey(pk, 'spki-pem');
    assert.deepEqual(x25519.importPublicKey(spki, 'spki-pem'), pk);
    for (const bad of spoilPem(spki)) {
      assert.throws(() => x25519.importPublicKey(bad, 'spki-pem'), nonCanonical, bad);
      assert.throws(() => x25519.importPublicKey(new TextEncoder().encode(bad), 'spki-pem'), nonCanonical, bad);
    }
    // version 1 (with the public key) is 83 DER bytes: two unused bits in its last character
    const v1 = x25519.exportPrivateKey(sk, 'pkcs8-pem', { publicKey: true });
    assert.deepEqual(x25519.importPrivateKey(v1, 'pkcs8-pem'), sk);
    for (const bad of spoilPem(v1)) {
      assert.throws(() => x25519.importPrivateKey(bad, 'pkcs8-pem'), nonCanonical, bad);
      assert.throws(() => x25519.importPrivateKey(new TextEncoder().encode(bad), 'pkcs8-pem'), nonCanonical, bad);
    }
  }
});

test('X25519 JWK "x" and "d" with unused bits set are refused (private and public import); the canonical ones import', () => {
  for (let k = 0; k < 4; k++) {
    const sk = x25519.generatePrivateKey();
    const jwk = x25519.exportPrivateKey(sk, 'jwk');
    assert.deepEqual(x25519.importPrivateKey(jwk, 'jwk'), sk);
    for (const bad of spoilB64url(jwk.d!)) {
      assert.throws(() => x25519.importPrivateKey({ ...jwk, d: bad }, 'jwk'), nonCanonical, `d = ${bad}`);
    }
    for (const bad of spoilB64url(jwk.x)) {
      assert.throws(() => x25519.importPrivateKey({ ...jwk, x: bad }, 'jwk'), nonCanonical, `x = ${bad}`);
      assert.throws(() => x25519.importPublicKey({ kty: 'OKP', crv: 'X25519', x: bad }, 'jwk'), nonCanonical, `public x = ${bad}`);
    }
  }
});

// The TypeScript consumer: type-checks against the packed .d.ts (tsconfig.node16.json and
// tsconfig.bundler.json). Outputs must pass to WebCrypto as BufferSource under TypeScript 5.7+
// (Uint8Array<ArrayBuffer>, issue 12 point 10); the two calls below are the issue's own.
import { AuthenticationError, CtkitError, aesGcm, chacha20Poly1305, ghash, ready, sha256, type Aead, type Curve } from 'ctkit';
import { aesGcmSiv, sm4Gcm, xchacha20Poly1305 } from 'ctkit/aead';
import { poly1305, polyval } from 'ctkit/mac';
import { hmac, sha384, type Hash } from 'ctkit/hash';
import { p256, p384, secp256k1, InvalidKeyError, EncodingError, type EcJwk } from 'ctkit/ec';
import 'ctkit/ec/js/p256'; // the opt-in js backend of P-256 resolves, types included

export async function consumer(x: Uint8Array<ArrayBuffer>, a: Uint8Array<ArrayBuffer>, B: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  await ready();
  const digest: ArrayBuffer = await crypto.subtle.digest('SHA-256', sha256(x));
  const shared: CryptoKey = await crypto.subtle.importKey('raw', p256.ecdh(a, B), { name: 'HKDF' }, false, ['deriveBits']);

  const key = new Uint8Array(32);
  const aeads: Aead[] = [aesGcm(key), aesGcmSiv(key), chacha20Poly1305(key), xchacha20Poly1305(key), sm4Gcm(key.subarray(0, 16))];
  for (const aead of aeads) {
    const sealed: Uint8Array = aead.seal(new Uint8Array(12), x);
    try {
      aead.open(new Uint8Array(12), sealed);
    } catch (e) {
      if (e instanceof AuthenticationError || e instanceof CtkitError) void e.message;
    }
    aead.dispose();
  }
  const tags: Uint8Array[] = [ghash(key.subarray(0, 16), x), polyval(key.subarray(0, 16), x), poly1305(key, x), hmac(sha384, key, x)];
  const h: Hash = sha256;
  const curves: Curve[] = [p256, p384, secp256k1];
  const jwk: EcJwk = p256.exportPublicKey(B, 'jwk');
  const pem: string = p256.exportPrivateKey(a, 'pkcs8-pem');
  const sig: Uint8Array = p256.sign(x, a, { format: 'p1363' });
  const ok: boolean = p256.verify(sig, x, B, { format: 'p1363' });
  void [digest, tags, h, curves, jwk, pem, ok, InvalidKeyError, EncodingError];
  // the ECDH secret and a digest also go to importKey and sign as BufferSource
  await crypto.subtle.importKey('raw', sha256(p256.ecdh(a, B)), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return shared;
}

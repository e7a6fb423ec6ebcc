// Compile-only (covered by `npm run typecheck`, never run): ctkit's outputs are typed
// Uint8Array<ArrayBuffer>, so that under TypeScript 5.7+ they pass to WebCrypto and other APIs
// that take a BufferSource (ArrayBufferView<ArrayBuffer>). Had a return type widened back to
// Uint8Array<ArrayBufferLike>, each call below would fail with TS2769 / TS2345.

import { aesGcm, aesGcmSiv, chacha20, chacha20Poly1305, hchacha20, sm4Gcm, xchacha20Poly1305 } from '../src/aead/index.js';
import { p256, p384, secp256k1 } from '../src/ec/index.js';
import { hmac, sha256, sha384 } from '../src/hash/index.js';
import { ghash, poly1305, polyval } from '../src/mac/index.js';

/** Takes exactly what WebCrypto takes. */
declare function bufferSource(b: BufferSource): void;
/** Takes only Uint8Arrays over a plain ArrayBuffer. */
declare function plain(b: Uint8Array<ArrayBuffer>): void;

export async function typeChecks(x: Uint8Array, key: Uint8Array, nonce: Uint8Array, shared: Uint8Array<SharedArrayBuffer>): Promise<void> {
  // the two calls of the issue
  await crypto.subtle.digest('SHA-256', sha256(x));
  const a = p256.generatePrivateKey();
  const B = p256.getPublicKey(p256.generatePrivateKey());
  await crypto.subtle.importKey('raw', p256.ecdh(a, B), { name: 'HKDF' }, false, ['deriveBits']);

  // AEAD outputs: seal and open, keyed objects and one-shot functions
  const sealed = aesGcm(key).seal(nonce, x);
  await crypto.subtle.digest('SHA-256', sealed);
  plain(aesGcm(key).open(nonce, sealed));
  plain(aesGcmSiv.seal(key, nonce, x));
  plain(sm4Gcm(key).seal(nonce, x, x));
  plain(chacha20Poly1305.open(key, nonce, sealed));
  plain(xchacha20Poly1305(key).seal(nonce, x));
  plain(chacha20(key, nonce, x));
  plain(hchacha20(key, nonce));
  // with an output buffer, the output's own buffer type comes back (here a SharedArrayBuffer's)
  const into: Uint8Array<SharedArrayBuffer> = aesGcm(key).seal(nonce, x, undefined, shared);
  void into;
  // @ts-expect-error -- a view of a SharedArrayBuffer is not a BufferSource
  bufferSource(chacha20(key, nonce, x, 0, shared));

  // MACs and hashes
  bufferSource(ghash(key, x));
  bufferSource(polyval.create(key).update(x).digest());
  bufferSource(poly1305(key, x));
  bufferSource(sha384.create().update(x).digest());
  bufferSource(hmac(sha256, key, x));
  bufferSource(hmac.create(sha256, key).update(x).digest());

  // keys and signatures
  await crypto.subtle.importKey('raw', p256.exportPrivateKey(a, 'raw'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  await crypto.subtle.importKey('pkcs8', p256.exportPrivateKey(a, 'pkcs8-der'), { name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits']);
  await crypto.subtle.importKey('spki', p256.exportPublicKey(B, 'spki-der'), { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
  plain(p256.importPrivateKey(a, 'raw'));
  plain(p256.importPublicKey(B, 'raw'));
  plain(p256.compressPublicKey(B));
  plain(p384.sign(x, p384.generatePrivateKey()));
  plain(secp256k1.sign(x, secp256k1.generatePrivateKey(), { format: 'p1363' }));
  plain(p256.scalarField.mul(a, a));
}

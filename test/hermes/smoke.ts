// The smoke program of `npm run test:hermes` (test/hermes/run.ts bundles it, transpiles it to ES5
// the way React Native's toolchain does, and runs it under the Hermes binary of
// hermes-engine-cli, which has no WebAssembly). Every family with a JavaScript backend, over
// fixed inputs of several lengths; one `name hex` line each, which run.ts compares with OpenSSL.
// P-256, secp256k1 and P-521 (rolled products: src/kernels/fe_mont29.ts) with their opt-in
// JavaScript (ctkit/ec/js/<curve>), as an app imports it: public keys and ECDH compared with
// OpenSSL's, signatures verified by OpenSSL (run.ts). X25519 and Ed25519 (ctkit/ec/js/x25519 brings
// both): public keys, the shared secret and the (deterministic) signature compared with OpenSSL's.

import { backend } from '../../src/engine/backend.js';
import { chacha20, chacha20Poly1305 } from '../../src/aead/chacha20-poly1305.js';
import { poly1305 } from '../../src/mac/poly1305.js';
import { sha224, sha256, sha384, sha512 } from '../../src/hash/sha2.js';
import { hmac } from '../../src/hash/hmac.js';
import { hkdf } from '../../src/hash/hkdf.js';
import { AuthenticationError } from '../../src/errors.js';
import { p256 } from '../../src/ec/p256.js';
import { secp256k1 } from '../../src/ec/secp256k1.js';
import { p521 } from '../../src/ec/p521.js';
import '../../src/ec/js/p256.js';
import '../../src/ec/js/secp256k1.js';
import '../../src/ec/js/p521.js';
import { x25519 } from '../../src/ec/x25519.js';
import { ed25519 } from '../../src/ec/ed25519.js';
import '../../src/ec/js/x25519.js';
import { SMOKE_LENGTHS, pattern, smokeKey } from './inputs.js';

declare const print: ((s: string) => void) | undefined;
const out = (s: string) => (typeof print === 'function' ? print(s) : console.log(s));
const hex = (b: Uint8Array) => Array.from(b, (x) => (x < 16 ? '0' : '') + x.toString(16)).join('');

out(`backend ${backend()}`);
const key = pattern(32, 1),
  nonce = pattern(12, 2),
  aad = pattern(13, 3);
for (const n of SMOKE_LENGTHS) {
  const msg = pattern(n, 4);
  const sealed = chacha20Poly1305(key).seal(nonce, msg, aad);
  out(`chacha20-poly1305/${n} ${hex(sealed)}`);
  const opened = chacha20Poly1305(key).open(nonce, sealed, aad);
  out(`chacha20-poly1305-open/${n} ${hex(opened) === hex(msg) ? 'ok' : 'WRONG'}`);
  const bad = sealed.slice();
  bad[bad.length - 1] ^= 1;
  let rejected = false;
  try {
    chacha20Poly1305(key).open(nonce, bad, aad);
  } catch (e) {
    rejected = e instanceof AuthenticationError;
  }
  out(`chacha20-poly1305-forgery/${n} ${rejected ? 'rejected' : 'ACCEPTED'}`);
  out(`chacha20/${n} ${hex(chacha20(key, nonce, msg, 1))}`);
  out(`poly1305/${n} ${hex(poly1305(key, msg))}`);
  out(`sha224/${n} ${hex(sha224(msg))}`);
  out(`sha256/${n} ${hex(sha256(msg))}`);
  out(`sha384/${n} ${hex(sha384(msg))}`);
  out(`sha512/${n} ${hex(sha512(msg))}`);
  out(`hmac-sha256/${n} ${hex(hmac(sha256, key, msg))}`);
  out(`hmac-sha512/${n} ${hex(hmac(sha512, key, msg))}`);
  out(`hkdf-sha256/${n} ${hex(hkdf(sha256, msg, aad, key, 42))}`);
}
for (const [name, c] of [
  ['p256', p256],
  ['secp256k1', secp256k1],
  ['p521', p521],
] as const) {
  const sk = smokeKey(c.privateKeyBytes, 5),
    peer = c.getPublicKey(smokeKey(c.privateKeyBytes, 6)),
    msg = pattern(100, 7);
  const pk = c.getPublicKey(sk);
  out(`${name}-public-key ${hex(pk)}`);
  out(`${name}-ecdh ${hex(c.ecdh(sk, peer))}`);
  const sig = c.sign(msg, sk);
  out(`${name}-sign ${hex(sig)}`);
  const bad = sig.slice();
  bad[bad.length - 1] ^= 1;
  out(`${name}-verify ${c.verify(sig, msg, pk)} ${c.verify(bad, msg, pk)}`);
}
{
  const sk = smokeKey(32, 8),
    peerSk = smokeKey(32, 9),
    msg = pattern(100, 7);
  out(`x25519-public-key ${hex(x25519.getPublicKey(sk))}`);
  out(`x25519-ecdh ${hex(x25519.ecdh(sk, x25519.getPublicKey(peerSk)))}`);
  const pk = ed25519.getPublicKey(sk);
  out(`ed25519-public-key ${hex(pk)}`);
  const sig = ed25519.sign(msg, sk);
  out(`ed25519-sign ${hex(sig)}`);
  const bad = sig.slice();
  bad[0] ^= 1;
  out(`ed25519-verify ${ed25519.verify(sig, msg, pk)} ${ed25519.verify(bad, msg, pk)}`);
}

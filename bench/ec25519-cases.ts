// X25519 and Ed25519 rows of the elliptic-curve family (bench/ec.ts), beside node:crypto
// (OpenSSL), @noble/curves, libsodium.js (libsodium-wrappers: libsodium compiled to
// WebAssembly) and tweetnacl (pure JavaScript):
//   x25519               a fixed private key with a fixed peer public key given as 32 raw bytes
//                        (node:crypto imports them as a key object in each call, as ecdh_<curve>)
//   x25519_public_key    the public key of a fixed 32-byte private key (node:crypto: key object
//                        from the raw key, public key out)
//   ed25519_sign         a 32-byte message. ctkit and noble take the 32-byte seed and derive A in
//                        each call (RFC 8032's sign(M, seed)); libsodium and tweetnacl take the
//                        64-byte seed ‖ A, node:crypto a key object: they do one base-point
//                        multiplication fewer
//   ed25519_sign_key     the same signature from a prepared key: ctkit's signingKey(seed).sign,
//                        libsodium and tweetnacl on seed ‖ A, node:crypto a key object (noble
//                        has no prepared signing key); every row one base-point multiplication
//   ed25519_verify       the signature of that message under the 32-byte raw public key
//                        (node:crypto: the SPKI DER in each call, as ecdsa_<curve>_verify)

import crypto from 'node:crypto';
import { ed25519 as nobleEd, x25519 as nobleX } from '@noble/curves/ed25519.js';
import sodium from 'libsodium-wrappers';
import nacl from 'tweetnacl';
import { ed25519, x25519 } from '../src/ec/index.js';
import type { Case } from './harness.js';

await sodium.ready;

const fixed = (label: string) => new Uint8Array(crypto.createHash('sha256').update(label).digest());
const SPKI_ED = Buffer.from('302a300506032b6570032100', 'hex');
const SPKI_X = Buffer.from('302a300506032b656e032100', 'hex');
const PKCS8_X = Buffer.from('302e020100300506032b656e04220420', 'hex');
const PKCS8_ED = Buffer.from('302e020100300506032b657004220420', 'hex');

export function ec25519Cases(): Case[] {
  const sk = fixed('x25519/alice');
  const peer = x25519.getPublicKey(fixed('x25519/bob'));
  const seed = fixed('ed25519/alice');
  const pk = ed25519.getPublicKey(seed);
  const msg = fixed('ed25519/message');
  const sig = ed25519.sign(msg, seed);
  const sk64 = new Uint8Array([...seed, ...pk]);
  return [
    {
      name: 'x25519',
      impls: {
        ctkit: () => () => x25519.ecdh(sk, peer),
        'node:crypto': () => {
          const priv = crypto.createPrivateKey({ key: Buffer.concat([PKCS8_X, sk]), format: 'der', type: 'pkcs8' });
          const der = Buffer.concat([SPKI_X, peer]);
          return () => crypto.diffieHellman({ privateKey: priv, publicKey: crypto.createPublicKey({ key: der, format: 'der', type: 'spki' }) });
        },
        noble: () => () => nobleX.getSharedSecret(sk, peer),
        libsodium: () => () => sodium.crypto_scalarmult(sk, peer),
        tweetnacl: () => () => nacl.scalarMult(sk, peer),
      },
    },
    {
      name: 'x25519_public_key',
      impls: {
        ctkit: () => () => x25519.getPublicKey(sk),
        'node:crypto': () => {
          const der = Buffer.concat([PKCS8_X, sk]);
          return () => crypto.createPublicKey(crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })).export({ format: 'der', type: 'spki' });
        },
        noble: () => () => nobleX.getPublicKey(sk),
        libsodium: () => () => sodium.crypto_scalarmult_base(sk),
        tweetnacl: () => () => nacl.scalarMult.base(sk),
      },
    },
    {
      name: 'ed25519_sign',
      impls: {
        ctkit: () => () => ed25519.sign(msg, seed),
        'node:crypto': () => {
          const key = crypto.createPrivateKey({ key: Buffer.concat([PKCS8_ED, seed]), format: 'der', type: 'pkcs8' });
          return () => crypto.sign(null, msg, key);
        },
        noble: () => () => nobleEd.sign(msg, seed),
        libsodium: () => () => sodium.crypto_sign_detached(msg, sk64),
        tweetnacl: () => () => nacl.sign.detached(msg, sk64),
      },
    },
    {
      name: 'ed25519_sign_key',
      impls: {
        ctkit: () => {
          const key = ed25519.signingKey(seed);
          return () => key.sign(msg);
        },
        'node:crypto': () => {
          const key = crypto.createPrivateKey({ key: Buffer.concat([PKCS8_ED, seed]), format: 'der', type: 'pkcs8' });
          return () => crypto.sign(null, msg, key);
        },
        libsodium: () => () => sodium.crypto_sign_detached(msg, sk64),
        tweetnacl: () => () => nacl.sign.detached(msg, sk64),
      },
    },
    {
      name: 'ed25519_verify',
      impls: {
        ctkit: () => () => ed25519.verify(sig, msg, pk),
        'node:crypto': () => {
          const der = Buffer.concat([SPKI_ED, pk]);
          return () => crypto.verify(null, msg, { key: der, format: 'der', type: 'spki' }, sig);
        },
        noble: () => () => nobleEd.verify(sig, msg, pk),
        libsodium: () => () => sodium.crypto_sign_verify_detached(sig, msg, pk),
        tweetnacl: () => () => nacl.sign.detached.verify(msg, sig, pk),
      },
    },
  ];
}

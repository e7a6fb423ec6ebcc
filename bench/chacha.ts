// ChaCha20-Poly1305, XChaCha20-Poly1305 and Poly1305 benchmarks, ctkit beside OpenSSL
// (node:crypto), @noble/ciphers, @stablelib/chacha20poly1305, libsodium-wrappers and
// @chainsafe/as-chacha20poly1305 (an AssemblyScript WebAssembly peer) where each has the
// algorithm.
//
//   <alg>/tls-seal/N, <alg>/tls-open/N   a new call per record, 13-byte AAD, the key object
//                                        reused as a TLS stack would (a fresh nonce per seal)
//   <alg>/encrypt/N, <alg>/decrypt/N     one message of N bytes, no AAD
//   poly1305/N                           one-shot MAC of N bytes under a fixed one-time key
//
// libsodium-wrappers (the standard build) exports no bare Poly1305; the `poly1305/N` rows use
// the sumo build's crypto_onetimeauth (the same libsodium, compiled with every primitive).

import { createCipheriv, createDecipheriv } from 'node:crypto';
import { chacha20poly1305 as nobleChaPoly, xchacha20poly1305 as nobleXChaPoly } from '@noble/ciphers/chacha.js';
import { poly1305 as noblePoly } from '@noble/ciphers/_poly1305.js';
import { ChaCha20Poly1305 as StablelibChaPoly } from '@stablelib/chacha20poly1305';
import { oneTimeAuth as stablelibPoly } from '@stablelib/poly1305';
import sodium from 'libsodium-wrappers';
import sodiumSumo from 'libsodium-wrappers-sumo';
import { ChaCha20Poly1305 as AsChaPoly, Poly1305 as AsPoly, newInstance } from '@chainsafe/as-chacha20poly1305';
import { chacha20Poly1305, xchacha20Poly1305 } from '../src/aead/index.js';
import { poly1305 } from '../src/mac/index.js';
import type { Case, Family, Setup } from './harness.js';
import { AEAD_SIZES as SIZES, NO_AAD as NONE, TLS_AAD as AAD, TLS_SIZES, bytes } from './inputs.js';

await sodium.ready;
await sodiumSumo.ready;

const POLY_SIZES = [64, 1024, 16384];

const KEY = bytes(32, 0x9e3779b9);

type Alg = 'chacha20-poly1305' | 'xchacha20-poly1305';

interface Peer {
  seal(nonce: Uint8Array, pt: Uint8Array, aad: Uint8Array): Uint8Array;
  open(nonce: Uint8Array, sealed: Uint8Array, aad: Uint8Array): Uint8Array | null;
}

/** Each implementation's seal/open for an algorithm, set up with KEY (not timed). */
function peers(alg: Alg): Record<string, () => Peer> {
  const x = alg === 'xchacha20-poly1305';
  const out: Record<string, () => Peer> = {
    ctkit: () => {
      const a = x ? xchacha20Poly1305(KEY) : chacha20Poly1305(KEY);
      return { seal: (n, p, d) => a.seal(n, p, d), open: (n, s, d) => a.open(n, s, d) };
    },
  };
  if (!x) {
    out['node:crypto'] = () => ({
      seal: (n, p, d) => {
        const c = createCipheriv('chacha20-poly1305', KEY, n, { authTagLength: 16 });
        c.setAAD(d, { plaintextLength: p.length });
        return Buffer.concat([c.update(p), c.final(), c.getAuthTag()]);
      },
      open: (n, s, d) => {
        const len = s.length - 16;
        const c = createDecipheriv('chacha20-poly1305', KEY, n, { authTagLength: 16 });
        c.setAAD(d, { plaintextLength: len });
        c.setAuthTag(s.subarray(len));
        return Buffer.concat([c.update(s.subarray(0, len)), c.final()]);
      },
    });
  }
  const noble = x ? nobleXChaPoly : nobleChaPoly;
  out.noble = () => ({ seal: (n, p, d) => noble(KEY, n, d).encrypt(p), open: (n, s, d) => noble(KEY, n, d).decrypt(s) });
  if (!x) {
    out.stablelib = () => {
      const a = new StablelibChaPoly(KEY);
      return { seal: (n, p, d) => a.seal(n, p, d), open: (n, s, d) => a.open(n, s, d) };
    };
  }
  out.libsodium = () =>
    x
      ? { seal: (n, p, d) => sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(p, d, null, n, KEY), open: (n, s, d) => sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(null, s, d, n, KEY) }
      : { seal: (n, p, d) => sodium.crypto_aead_chacha20poly1305_ietf_encrypt(p, d, null, n, KEY), open: (n, s, d) => sodium.crypto_aead_chacha20poly1305_ietf_decrypt(null, s, d, n, KEY) };
  if (!x) {
    out['as-chacha20poly1305'] = () => {
      const a = new AsChaPoly(newInstance());
      return { seal: (n, p, d) => a.seal(KEY, n, p, d), open: (n, s, d) => a.open(KEY, n, s, d) };
    };
  }
  return out;
}

function aeadCase(alg: Alg, kind: 'tls-seal' | 'tls-open' | 'encrypt' | 'decrypt', n: number): Case {
  const nonceLength = alg === 'xchacha20-poly1305' ? 24 : 12;
  const aad = kind.startsWith('tls') ? AAD : NONE;
  const pt = bytes(n, n + 1);
  const impls: Record<string, Setup> = {};
  for (const [name, make] of Object.entries(peers(alg))) {
    impls[name] = () => {
      const p = make();
      const nonce = bytes(nonceLength, 7);
      if (kind === 'tls-seal' || kind === 'encrypt') {
        // a fresh nonce per record
        return () => {
          nonce[0] = (nonce[0] + 1) & 0xff;
          return p.seal(nonce, pt, aad);
        };
      }
      const sealed = p.seal(nonce, pt, aad);
      return () => p.open(nonce, sealed, aad);
    };
  }
  return { name: `${alg}/${kind}/${n}`, bytes: n, impls };
}

function polyCase(n: number): Case {
  const msg = bytes(n, n + 3);
  return {
    name: `poly1305/${n}`,
    bytes: n,
    impls: {
      ctkit: () => () => poly1305(KEY, msg),
      noble: () => () => noblePoly(msg, KEY),
      stablelib: () => () => stablelibPoly(KEY, msg),
      libsodium: () => () => sodiumSumo.crypto_onetimeauth(msg, KEY),
      'as-chacha20poly1305': () => {
        const p = new AsPoly(newInstance());
        return () => {
          p.init(KEY);
          p.update(msg);
          return p.digest();
        };
      },
    },
  };
}

const cases: Case[] = [];
for (const alg of ['chacha20-poly1305', 'xchacha20-poly1305'] as const) {
  for (const kind of ['tls-seal', 'tls-open'] as const) for (const n of TLS_SIZES) cases.push(aeadCase(alg, kind, n));
  for (const kind of ['encrypt', 'decrypt'] as const) for (const n of SIZES) cases.push(aeadCase(alg, kind, n));
}
for (const n of POLY_SIZES) cases.push(polyCase(n));

const family: Family = { title: 'ChaCha20-Poly1305, XChaCha20-Poly1305, Poly1305', cases };

export default family;

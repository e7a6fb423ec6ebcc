// AES-GCM and AES-GCM-SIV benchmarks, ctkit beside OpenSSL (node:crypto), @noble/ciphers and
// @stablelib/gcm (over @stablelib/aes) where each has the algorithm.
//
//   <alg>/tls-seal/N, <alg>/tls-open/N   a new call per record, 13-byte AAD, 12-byte nonce, the
//                                        key object reused as a TLS stack would (fresh nonce per seal)
//   <alg>/encrypt/N, <alg>/decrypt/N     one message of N bytes, no AAD
// for aes-128-gcm, aes-256-gcm and aes-256-gcm-siv. node:crypto (OpenSSL 3.0) has no GCM-SIV.

import { createCipheriv, createDecipheriv } from 'node:crypto';
import { gcm as nobleGcm, gcmsiv as nobleGcmSiv } from '@noble/ciphers/aes.js';
import { AES as StablelibAes } from '@stablelib/aes';
import { GCM as StablelibGcm } from '@stablelib/gcm';
import { aesGcm, aesGcmSiv } from '../src/aead/index.js';
import type { Case, Family, Setup } from './harness.js';
import { AEAD_SIZES as SIZES, NO_AAD as NONE, TLS_AAD as AAD, TLS_SIZES, bytes } from './inputs.js';

type Alg = 'aes-128-gcm' | 'aes-256-gcm' | 'aes-256-gcm-siv';

interface Peer {
  seal(nonce: Uint8Array, pt: Uint8Array, aad: Uint8Array): Uint8Array;
  open(nonce: Uint8Array, sealed: Uint8Array, aad: Uint8Array): Uint8Array | null;
}

function peers(alg: Alg): Record<string, () => Peer> {
  const siv = alg === 'aes-256-gcm-siv';
  const key = bytes(alg === 'aes-128-gcm' ? 16 : 32, 0x9e3779b9);
  const out: Record<string, () => Peer> = {
    ctkit: () => {
      const a = siv ? aesGcmSiv(key) : aesGcm(key);
      return { seal: (n, p, d) => a.seal(n, p, d), open: (n, s, d) => a.open(n, s, d) };
    },
  };
  if (!siv) {
    out['node:crypto'] = () => ({
      seal: (n, p, d) => {
        const c = createCipheriv(alg, key, n);
        c.setAAD(d);
        return Buffer.concat([c.update(p), c.final(), c.getAuthTag()]);
      },
      open: (n, s, d) => {
        const len = s.length - 16;
        const c = createDecipheriv(alg, key, n);
        c.setAAD(d);
        c.setAuthTag(s.subarray(len));
        return Buffer.concat([c.update(s.subarray(0, len)), c.final()]);
      },
    });
  }
  const noble = siv ? nobleGcmSiv : nobleGcm;
  out.noble = () => ({ seal: (n, p, d) => noble(key, n, d).encrypt(p), open: (n, s, d) => noble(key, n, d).decrypt(s) });
  if (!siv) {
    out.stablelib = () => {
      const a = new StablelibGcm(new StablelibAes(key));
      return { seal: (n, p, d) => a.seal(n, p, d), open: (n, s, d) => a.open(n, s, d) };
    };
  }
  return out;
}

function aeadCase(alg: Alg, kind: 'tls-seal' | 'tls-open' | 'encrypt' | 'decrypt', n: number): Case {
  const aad = kind.startsWith('tls') ? AAD : NONE;
  const pt = bytes(n, n + 1);
  const impls: Record<string, Setup> = {};
  for (const [name, make] of Object.entries(peers(alg))) {
    impls[name] = () => {
      const p = make();
      const nonce = bytes(12, 7);
      if (kind === 'tls-seal' || kind === 'encrypt') {
        return () => {
          nonce[0] = (nonce[0] + 1) & 0xff; // a fresh nonce per record
          return p.seal(nonce, pt, aad);
        };
      }
      const sealed = p.seal(nonce, pt, aad);
      return () => p.open(nonce, sealed, aad);
    };
  }
  return { name: `${alg}/${kind}/${n}`, bytes: n, impls };
}

const cases: Case[] = [];
for (const alg of ['aes-128-gcm', 'aes-256-gcm', 'aes-256-gcm-siv'] as const) {
  for (const kind of ['tls-seal', 'tls-open'] as const) for (const n of TLS_SIZES) cases.push(aeadCase(alg, kind, n));
  for (const kind of ['encrypt', 'decrypt'] as const) for (const n of SIZES) cases.push(aeadCase(alg, kind, n));
}

const family: Family = { title: 'AES-GCM, AES-GCM-SIV', cases };

export default family;

// SM4 benchmarks: SM4-GCM (RFC 8998) and SM4 in counter mode, ctkit beside OpenSSL (node:crypto)
// and sm-crypto (a JavaScript SM4) where each has the mode.
//
//   sm4-gcm/tls-seal/N, sm4-gcm/tls-open/N   a new call per record, 13-byte AAD, 12-byte nonce,
//                                            the key object reused (fresh nonce per seal)
//   sm4-gcm/encrypt/N, sm4-gcm/decrypt/N     one message of N bytes, no AAD
//   sm4-ctr/N                                N bytes in counter mode under a fresh 16-byte IV
//
// OpenSSL 3.0 (node:crypto) has SM4 but no SM4-GCM; sm-crypto has SM4 in ECB and CBC only. So the
// SM4-GCM encrypt/decrypt rows show sm-crypto's CBC (no MAC: less work than GCM) for scale, the
// sm4-ctr rows node:crypto's sm4-ctr (OpenSSL's table-based C SM4), and the TLS rows ctkit alone.
// ctkit's sm4-ctr is the raw Sm4 of src/aead/sm4-gcm.ts (not a public API: unauthenticated).

import { createCipheriv } from 'node:crypto';
import { createRequire } from 'node:module';
import { Sm4 } from '../src/aead/sm4-gcm.js';
import { sm4Gcm } from '../src/aead/index.js';
import type { Case, Family, Setup } from './harness.js';
import { AEAD_SIZES as SIZES, NO_AAD as NONE, TLS_AAD as AAD, TLS_SIZES, bytes } from './inputs.js';

const CTR_SIZES = [16, 64, 256, 1024, 1400, 4096, 16384, 65536, 1048576];

const KEY = bytes(16, 0x9e3779b9);

interface SmCryptoSm4 {
  encrypt(data: Uint8Array, key: Uint8Array, opts: { mode: 'cbc'; iv: Uint8Array; padding: 'none'; output: 'array' }): number[];
  decrypt(data: Uint8Array, key: Uint8Array, opts: { mode: 'cbc'; iv: Uint8Array; padding: 'none'; output: 'array' }): number[];
}
// sm-crypto ships no type declarations
const smSm4 = (createRequire(import.meta.url)('sm-crypto') as { sm4: SmCryptoSm4 }).sm4;

function gcmCase(kind: 'tls-seal' | 'tls-open' | 'encrypt' | 'decrypt', n: number): Case {
  const aad = kind.startsWith('tls') ? AAD : NONE;
  const pt = bytes(n, n + 1);
  const seal = kind === 'tls-seal' || kind === 'encrypt';
  const impls: Record<string, Setup> = {
    ctkit: () => {
      const a = sm4Gcm(KEY);
      const nonce = bytes(12, 7);
      if (seal) {
        return () => {
          nonce[0] = (nonce[0] + 1) & 0xff; // a fresh nonce per record
          return a.seal(nonce, pt, aad);
        };
      }
      const sealed = a.seal(nonce, pt, aad);
      return () => a.open(nonce, sealed, aad);
    },
  };
  if (!kind.startsWith('tls') && n % 16 === 0) {
    impls['sm-crypto (sm4-cbc, no MAC)'] = () => {
      const iv = bytes(16, 5);
      const opts = { mode: 'cbc', iv, padding: 'none', output: 'array' } as const;
      if (seal) return () => smSm4.encrypt(pt, KEY, opts);
      const ct = Uint8Array.from(smSm4.encrypt(pt, KEY, opts));
      return () => smSm4.decrypt(ct, KEY, opts);
    };
  }
  return { name: `sm4-gcm/${kind}/${n}`, bytes: n, impls };
}

function ctrCase(n: number): Case {
  const data = bytes(n, n + 3);
  return {
    name: `sm4-ctr/${n}`,
    bytes: n,
    impls: {
      ctkit: () => {
        const s = new Sm4(KEY);
        const iv = bytes(16, 11);
        return () => {
          iv[0] = (iv[0] + 1) & 0xff;
          return s.ctr(iv, data);
        };
      },
      'node:crypto': () => {
        const iv = Buffer.from(bytes(16, 11));
        return () => {
          iv[0] = (iv[0] + 1) & 0xff;
          const c = createCipheriv('sm4-ctr', KEY, iv);
          return Buffer.concat([c.update(data), c.final()]);
        };
      },
    },
  };
}

const cases: Case[] = [];
for (const kind of ['tls-seal', 'tls-open'] as const) for (const n of TLS_SIZES) cases.push(gcmCase(kind, n));
for (const kind of ['encrypt', 'decrypt'] as const) for (const n of SIZES) cases.push(gcmCase(kind, n));
for (const n of CTR_SIZES) cases.push(ctrCase(n));

const family: Family = { title: 'SM4-GCM, SM4-CTR', cases };

export default family;

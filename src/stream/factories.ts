// The AEAD factory of each format-1 algorithm, found by name and imported on demand: sealing
// with ChaCha20-Poly1305 loads the chacha module alone, not the AES and SM4 kernels (about
// 1.3 MB of JavaScript with their js variants, ~50 ms of start-up per thread that loads them).
// The stream workers (worker.ts) and the CLI take their AEAD from here.

import type { Aead } from '../aead/types.js';
import type { AlgorithmName } from './format.js';

export type AeadFactory = (key: Uint8Array) => Aead;

/** The factory for `name`, or undefined for a name that is not a format-1 algorithm. */
export async function loadAeadFactory(name: string): Promise<AeadFactory | undefined> {
  switch (name as AlgorithmName) {
    case 'aes-256-gcm':
      return (await import('../aead/aes-gcm.js')).aesGcm;
    case 'chacha20-poly1305':
      return (await import('../aead/chacha20-poly1305.js')).chacha20Poly1305;
    case 'xchacha20-poly1305':
      return (await import('../aead/chacha20-poly1305.js')).xchacha20Poly1305;
    case 'aes-256-gcm-siv':
      return (await import('../aead/aes-gcm-siv.js')).aesGcmSiv;
    case 'sm4-gcm':
      return (await import('../aead/sm4-gcm.js')).sm4Gcm;
    default:
      return undefined;
  }
}

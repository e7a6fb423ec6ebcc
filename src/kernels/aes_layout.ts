// Memory layout shared by the 'aes' kernel module (src/kernels/aes_gcm.ts) and its glue
// (src/aead/aes-gcm.ts, aes-gcm-siv.ts). Constants only, so that library code can import it
// without pulling in a generator.

import { GCM_IO } from './gcm_layout.js';

/** Fixed addresses in the IO area: the GCM mode loops' (gcm_layout.ts). */
export const AES_IO = GCM_IO;

/** Key slot layout. */
export const AES_SLOT = {
  size: 8192,
  /** GHASH key H, state, tables of H … H^8 (gf128 slot layout, 2048 bytes) */
  gf: 0,
  /** bitsliced round keys */
  rk: 2048,
  /** GCM-SIV: per-nonce message-encryption round keys */
  sivRk: 4096,
  /** GCM-SIV: per-nonce POLYVAL key and tables (gf128 slot layout) */
  sivGf: 6144,
} as const;

// Memory layout shared by the 'aes' kernel module (src/kernels/aes_gcm.ts) and its glue
// (src/aead/aes-gcm.ts, aes-gcm-siv.ts). Constants only, so that library code can import it
// without pulling in a generator.

/** Fixed addresses in the IO area. */
export const AES_IO = {
  /** counter block (GCM: J0 or the next counter; GCM-SIV: the counter block) */
  ctr: 0,
  /** GCM: E(K, J0), the tag mask */
  mask: 16,
  /** GHASH / POLYVAL state */
  state: 32,
  /** length block */
  lengths: 48,
  /** GCM-SIV nonce (12 bytes) */
  nonce: 64,
  /** computed tag */
  tag: 80,
  /** raw key material in transit (up to 48 bytes) */
  keys: 96,
  /** key-expansion scratch (240 bytes, wiped by the kernel) */
  tmp: 256,
  /** eight blocks of counters / keystream (128 bytes, wiped by the kernels) */
  ks: 512,
} as const;

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


// The IO area of the GCM mode loops (gcm_mode.ts), the same in every module that carries them
// (aes, sm4). Constants only, so that library code can import it without a generator.

/** Fixed addresses in the IO area. */
export const GCM_IO = {
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

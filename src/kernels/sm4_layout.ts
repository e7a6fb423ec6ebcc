// Memory layout shared by the 'sm4' kernel module (src/kernels/sm4_gcm.ts,
// sm4_vperm_simd128.ts) and its glue (src/aead/sm4-gcm.ts). Constants only, so that library
// code can import it without pulling in a generator. The IO area is the GCM layout of
// src/kernels/aes_layout.ts (AES_IO): the GCM mode functions are the same code in both modules.

/** The SM4 round keys (what sm4_expand writes, from the slot's rk offset). */
export const SM4_RK = {
  /** bytes of round-key material */
  size: 1088,
  /** 32 adjusted encryption round keys, each splatted to 16 bytes */
  enc: 0,
  /** the same in decryption order */
  dec: 512,
  /** the raw 16-byte key, written by the glue, zeroed by sm4_expand */
  key: 1024,
} as const;

/** Key slot layout of the 'sm4' module. */
export const SM4_SLOT = {
  size: 3136,
  /** GHASH key H, state, tables of H … H^8 (gf128 slot layout, 2048 bytes) */
  gf: 0,
  /** SM4 round keys (SM4_RK layout) */
  rk: 2048,
} as const;

/** Blocks per group of the GCM mode loop: one kernel pass of four groups of four blocks. */
export const SM4_GCM_BLOCKS = 16;

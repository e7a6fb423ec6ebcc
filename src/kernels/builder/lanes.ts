// Byte-lane patterns shared by the SIMD generators: swizzle index vectors (v128.bytes of them
// held in a local is a bare vpshufb) and i8x16.shuffle lane lists.

/** Byte order reversed inside each 32-bit lane. */
export const BSWAP32 = [3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12];
/** Byte order reversed inside each 64-bit lane. */
export const BSWAP64 = [7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8];
/** Each 32-bit lane rotated left by 8 / 16 bits. */
export const ROTL8_32 = [3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14];
export const ROTL16_32 = [2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13];
/** i8x16.shuffle lanes of a 4x4 transpose of 32-bit words: interleave low / high halves by 32 bits, then by 64 bits. */
export const SHUF_LO32 = [0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23];
export const SHUF_HI32 = [8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31];
export const SHUF_LO64 = [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23];
export const SHUF_HI64 = [8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31];

// Arithmetic on byte lengths. Lengths reach 2^32 (the largest Uint8Array of Node.js 20) and
// beyond on other engines, and the standards allow more (GCM 2^36 − 32 bytes, ChaCha20-Poly1305
// 2^38 − 64): the 32-bit operators (`&`, `|`, `~`, `>>`, `>>>`) wrap there — `(n + 15) & ~15` is
// negative from n = 2^31 − 15 on, `(n + 15) >>> 4` wraps from 2^32 − 15 — so lengths are rounded
// with exact floating-point arithmetic here, correct for every integer below 2^53.

/** 16-byte blocks needed for n bytes (the last one zero-padded). */
export const blocks16 = (n: number): number => Math.ceil(n / 16);

/** n rounded up to a multiple of 16. */
export const pad16 = (n: number): number => 16 * Math.ceil(n / 16);

/** n rounded down to a multiple of 16 (the bytes in whole blocks). */
export const whole16 = (n: number): number => n - (n % 16);

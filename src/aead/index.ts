// ctkit/aead: authenticated encryption (and the raw ChaCha20 streams it is built on).
export type { Aead, AeadOneShot } from './types.js';
export { ChaCha20Poly1305, chacha20Poly1305, xchacha20Poly1305, chacha20, xchacha20, hchacha20, type ChaCha20Poly1305Function } from './chacha20-poly1305.js';
export { AesGcm, aesGcm, type AesGcmOptions, type AesGcmFunction } from './aes-gcm.js';
export { AesGcmSiv, aesGcmSiv, type AesGcmSivFunction } from './aes-gcm-siv.js';
export { Sm4Gcm, sm4Gcm, type Sm4GcmOptions, type Sm4GcmFunction } from './sm4-gcm.js';

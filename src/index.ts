// ctkit: constant-time cryptography on generated WebAssembly kernels.
export { ghash, polyval, UniversalHash } from './mac/index.js';
export { poly1305, Poly1305 } from './mac/poly1305.js';
export { chacha20Poly1305, xchacha20Poly1305, ChaCha20Poly1305, chacha20, xchacha20, hchacha20, type Aead } from './aead/index.js';
export { sha224, sha256, sha384, sha512, hmac, hkdf, Sha2, Hmac, type Hash } from './hash/index.js';
export { aesGcm, aesGcmSiv, AesGcm, AesGcmSiv } from './aead/index.js';
export { sm4Gcm, Sm4Gcm } from './aead/index.js';
export { ready } from './engine/kernel.js';
export { backend, setBackend, type Backend } from './engine/backend.js';
export { AuthenticationError, CtkitError, CtkitRangeError, CtkitTypeError, StateError } from './errors.js';
export { p256, p224, brainpoolP256r1, p384, p521, secp256k1, brainpoolP384r1, brainpoolP512r1, x25519, ed25519, EncodingError, InvalidKeyError, type Curve } from './ec/index.js';

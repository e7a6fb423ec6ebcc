// ctkit/hash: SHA-2 (FIPS 180-4), HMAC (FIPS 198-1) and HKDF (RFC 5869) on the sha2 kernel.
export { sha224, sha256, sha384, sha512, Sha2, type Hash, type Sha2Algorithm } from './sha2.js';
export { hmac, Hmac, type HmacFunction } from './hmac.js';
export { hkdf, type HkdfFunction } from './hkdf.js';

// ctkit/ec: elliptic curves — key generation, public keys, ECDH and key formats on P-256, P-224,
// brainpoolP256r1, P-384, P-521, secp256k1, brainpoolP384r1 and brainpoolP512r1, each on its
// own generated kernel module (Montgomery field arithmetic, complete formulas, constant time);
// X25519 (RFC 7748) and Ed25519 (RFC 8032) on the field mod 2^255 − 19.
export { p256 } from './p256.js';
export { p224 } from './p224.js';
export { brainpoolP256r1 } from './brainpoolP256r1.js';
export { p384 } from './p384.js';
export { p521 } from './p521.js';
export { secp256k1 } from './secp256k1.js';
export { brainpoolP384r1 } from './brainpoolP384r1.js';
export { brainpoolP512r1 } from './brainpoolP512r1.js';
export type { Curve, EcJwk, PrivateKeyFormat, PublicKeyFormat, PublicKeyOptions, PrivateKeyExportOptions } from './curve.js';
export { ScalarField, type EcKernel } from './kernel.js';
export { CURVES, type CurveParams, type CurveName } from '../curves/params.js';
export { EncodingError, InvalidKeyError } from '../errors.js';
export type { Ecdsa, EcdsaCurve, SignOptions, VerifyOptions, SignatureFormat } from './ecdsa.js';
export { x25519, type X25519 } from './x25519.js';
export { ed25519, type Ed25519, type Ed25519Options, type Ed25519SigningKey, type Ed25519VerifyOptions } from './ed25519.js';
export type { OkpJwk, OkpPrivateKeyFormat, OkpPublicKeyFormat, OkpExportOptions } from './okp.js';

// Internal factories: the objects and calls of the public API on a given kernel instance (a
// negative-control build, a fresh instance) or with a deliberate glue fault. Tests and
// benchmarks import this file directly; the package does not export it, and the public types
// carry none of these seams (src/util/seam.ts says how they reach the constructors).

import { AesGcm, type AesGcmOptions, type AesSeams } from './aead/aes-gcm.js';
import { AesGcmSiv } from './aead/aes-gcm-siv.js';
import { ChaCha20Poly1305, type ChachaSeams, chacha20, xchacha20 } from './aead/chacha20-poly1305.js';
import { Sm4Gcm, type Sm4GcmOptions, type Sm4Seams } from './aead/sm4-gcm.js';
import type { Curve } from './ec/curve.js';
import { type Ecdsa, type EcdsaTestFlags, withEcdsa } from './ec/ecdsa.js';
import type { Hash } from './hash/sha2.js';
import { Poly1305, type Poly1305Options, type Poly1305Seams, poly1305OneShot } from './mac/poly1305.js';
import { type HashKind, UniversalHash, type UniversalHashOptions, type UniversalHashSeams } from './mac/universal-hash.js';
import { withSeams } from './util/seam.js';

export const aesGcmWith = (seams: AesSeams, key: Uint8Array, options?: AesGcmOptions): AesGcm => withSeams(seams, () => new AesGcm(key, options));

export const aesGcmSivWith = (seams: AesSeams, key: Uint8Array): AesGcmSiv => withSeams(seams, () => new AesGcmSiv(key));

export const sm4GcmWith = (seams: Sm4Seams, key: Uint8Array, options?: Sm4GcmOptions): Sm4Gcm => withSeams(seams, () => new Sm4Gcm(key, options));

export const chacha20Poly1305With = (seams: ChachaSeams, key: Uint8Array, extendedNonce: boolean): ChaCha20Poly1305 => withSeams(seams, () => new ChaCha20Poly1305(key, extendedNonce));

export const chacha20With = <B extends ArrayBufferLike = ArrayBuffer>(seams: ChachaSeams, key: Uint8Array, nonce: Uint8Array, data: Uint8Array, counter = 0, output?: Uint8Array<B>): Uint8Array<B> =>
  withSeams(seams, () => chacha20(key, nonce, data, counter, output));

export const xchacha20With = <B extends ArrayBufferLike = ArrayBuffer>(seams: ChachaSeams, key: Uint8Array, nonce: Uint8Array, data: Uint8Array, counter = 0, output?: Uint8Array<B>): Uint8Array<B> =>
  withSeams(seams, () => xchacha20(key, nonce, data, counter, output));

export const poly1305With = (seams: Poly1305Seams, key: Uint8Array, options?: Poly1305Options): Poly1305 => withSeams(seams, () => new Poly1305(key, options));

export const poly1305OneShotWith = (seams: Poly1305Seams, key: Uint8Array, msg: Uint8Array, options?: Poly1305Options): Uint8Array<ArrayBuffer> => withSeams(seams, () => poly1305OneShot(key, msg, options));

export const universalHashWith = (seams: UniversalHashSeams, kind: HashKind, key: Uint8Array, options?: UniversalHashOptions): UniversalHash => withSeams(seams, () => new UniversalHash(kind, key, options));

export const withEcdsaFlags = <C extends Curve>(flags: EcdsaTestFlags, curve: C, defaultHash: Hash): C & Ecdsa => withSeams(flags, () => withEcdsa(curve, defaultHash));

// AES-GCM (NIST SP 800-38D) with 128-, 192- and 256-bit keys, as a reusable keyed object:
//   const aead = aesGcm(key, { tagLength: 16 });
//   const sealed = aead.seal(nonce, plaintext, aad);   // ciphertext ‖ tag
//   const plaintext = aead.open(nonce, sealed, aad);   // or AuthenticationError
//   aead.dispose();                                    // wipes the round keys and H
// The key is expanded once (bitsliced round keys, H = E(K, 0^128) and its powers H … H^8) into
// a slot of the 'aes' kernel module; the GCM construction itself is in gcm-mode.ts.
// Nonces of any length from 1 byte (12 bytes is the fast path; others go through GHASH); tags
// of 16 bytes, or 12–15, 8 or 4 on request.

import { Kernel, getKernel, registerModule } from '../engine/kernel.js';
import * as aesModule from '../engine/wasm/aes.js';
import { type AesExports, layout } from '../engine/wasm/aes.contract.js';
import { checkBytes, checkLength, checkOptions } from '../util/check.js';
import { takeSeams } from '../util/seam.js';
import { GcmAead } from './gcm-mode.js';
import { type AeadOneShot, oneShot } from './types.js';

registerModule(aesModule);

const AES_IO = layout.IO;
const AES_SLOT = layout.SLOT;

export type AesKernel = Kernel<AesExports>;

/** The shared instance of the 'aes' module. */
export function aesKernel(): AesKernel {
  return getKernel<AesExports>(aesModule, AES_SLOT.size);
}

/** A separate instance of an aes module built from other bytes (tests: negative controls). */
export function aesKernelFrom(name: string, bytes: Uint8Array): AesKernel {
  return new Kernel<AesExports>({ name, bytes: () => bytes }, AES_SLOT.size);
}

/** Expand an AES key into the slot's bitsliced round keys (the raw key passes through the IO area and is wiped). */
export function expandAesKey(k: AesKernel, rk: number, key: Uint8Array): number {
  k.u8.set(key, AES_IO.keys);
  k.exports.aes_expand(rk, AES_IO.keys, key.length / 4, AES_IO.tmp);
  k.wipe(AES_IO.keys, 32);
  return key.length / 4 + 6;
}

export interface AesGcmOptions {
  /** tag length in bytes: 16 (default), 15, 14, 13, 12, 8 or 4 */
  tagLength?: number;
}

/** Test seams (src/internal.ts). */
export interface AesSeams {
  /** the kernel instance to run on */
  kernel?: AesKernel;
}

/** AES-GCM with one key. */
export class AesGcm extends GcmAead<AesExports> {
  constructor(key: Uint8Array, options?: AesGcmOptions) {
    const seams = takeSeams<AesSeams>();
    const o = checkOptions(options);
    checkBytes('key', key);
    checkLength('key', key, [16, 24, 32]);
    const nr = key.length / 4 + 6;
    super(`aes-${key.length * 8}-gcm`, key, o.tagLength, seams.kernel ?? aesKernel(), {
      rk: AES_SLOT.rk,
      gf: AES_SLOT.gf,
      nr,
      written: AES_SLOT.rk + (nr + 1) * 128,
      expand(k, slot, raw) {
        expandAesKey(k, slot + AES_SLOT.rk, raw);
        k.exports.aes_ecb(slot + AES_SLOT.rk, nr, slot + AES_SLOT.gf, slot + AES_SLOT.gf, 1); // H = E(K, 0^128)
      },
    });
  }
}

export interface AesGcmFunction extends AeadOneShot {
  /** AES-GCM keyed object: key of 16, 24 or 32 bytes; options.tagLength 16 (default), 15, 14, 13, 12, 8 or 4. */
  (key: Uint8Array, options?: { tagLength?: number }): AesGcm;
}

/**
 * AES-GCM: `aesGcm(key)` is a keyed object for many messages (dispose() it when done);
 * `aesGcm.seal(key, nonce, plaintext, aad?)` and `aesGcm.open(…)` do one message (16-byte tag).
 */
export const aesGcm: AesGcmFunction = /* @__PURE__ */ Object.assign(
  (key: Uint8Array, options?: { tagLength?: number }): AesGcm => new AesGcm(key, options),
  /* @__PURE__ */ oneShot((key) => new AesGcm(key)),
);

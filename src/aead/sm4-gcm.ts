// SM4-GCM (RFC 8998: GCM of NIST SP 800-38D with the SM4 block cipher of GB/T 32907-2016) as a
// reusable keyed object:
//   const aead = sm4Gcm(key, { tagLength: 16 });
//   const sealed = aead.seal(nonce, plaintext, aad);   // ciphertext ‖ tag
//   const plaintext = aead.open(nonce, sealed, aad);   // or AuthenticationError
//   aead.dispose();                                    // wipes the round keys and H
// The key is expanded once (SM4 round keys, H = E(K, 0^128) and its powers H … H^8) into a slot
// of the 'sm4' kernel module; the GCM construction is gcm-mode.ts, the same code as AES-GCM.
// Nonces of any length from 1 byte (12 bytes is the fast path and what RFC 8998 uses); tags of
// 16 bytes, or 12–15, 8 or 4 on request.
//
// Also here, for tests and benchmarks only (not exported by ctkit/aead: unauthenticated modes):
// Sm4, the raw block cipher on the same kernel (ECB over whole blocks, CTR with a 128-bit
// big-endian counter as OpenSSL's sm4-ctr).
//
// Constant time: the glue branches only on lengths; keys, counters and data move by position.
// Sm4.ctr splits a call where the low 32 bits of its counter wrap, so its branches depend on the
// counter value: the IV of counter mode is public. The GCM path never does this (the kernel's
// inc_32 wraps modulo 2^32 as SP 800-38D says).

import { CtkitRangeError } from '../errors.js';
import { Kernel, SCRATCH_PTR, SCRATCH_SIZE, getKernel, registerModule } from '../engine/kernel.js';
import { KeySlot } from '../util/key-slot.js';
import * as sm4Module from '../engine/wasm/sm4.js';
import { type Sm4Exports, layout } from '../engine/wasm/sm4.contract.js';
import { checkBytes, checkLength, checkOutput, checkOptions } from '../util/check.js';
import { takeSeams } from '../util/seam.js';
import { inPlaceSource } from '../util/overlap.js';
import { GcmAead } from './gcm-mode.js';
import { type AeadOneShot, oneShot } from './types.js';

registerModule(sm4Module);

const SM4_IO = layout.IO;
const SM4_RK = layout.RK;
const SM4_SLOT = layout.SLOT;

export type Sm4Kernel = Kernel<Sm4Exports>;

/** The shared instance of the 'sm4' module. */
export function sm4Kernel(): Sm4Kernel {
  return getKernel<Sm4Exports>(sm4Module, SM4_SLOT.size);
}

/** A separate instance of an sm4 module built from other bytes (tests: negative controls). */
export function sm4KernelFrom(name: string, bytes: Uint8Array): Sm4Kernel {
  return new Kernel<Sm4Exports>({ name, bytes: () => bytes }, SM4_SLOT.size);
}

/** SM4 has 32 rounds; the GCM mode loop passes this through to the cipher, which ignores it. */
const SM4_ROUNDS = 32;

/** Expand a 16-byte key into round keys at rk (the raw key passes through the slot and is zeroed by the kernel). */
function expandSm4Key(k: Sm4Kernel, rk: number, key: Uint8Array): void {
  k.u8.set(key, rk + SM4_RK.key);
  k.exports.sm4_expand(rk);
}

export interface Sm4GcmOptions {
  /** tag length in bytes: 16 (default), 15, 14, 13, 12, 8 or 4 */
  tagLength?: number;
}

/** Test seams (src/internal.ts). */
export interface Sm4Seams {
  /** the kernel instance to run on */
  kernel?: Sm4Kernel;
}

/** SM4-GCM with one key. */
export class Sm4Gcm extends GcmAead<Sm4Exports> {
  constructor(key: Uint8Array, options?: Sm4GcmOptions) {
    const seams = takeSeams<Sm4Seams>();
    const o = checkOptions(options);
    checkBytes('key', key);
    checkLength('key', key, [16]);
    super('sm4-gcm', key, o.tagLength, seams.kernel ?? sm4Kernel(), {
      rk: SM4_SLOT.rk,
      gf: SM4_SLOT.gf,
      nr: SM4_ROUNDS,
      written: SM4_SLOT.rk + SM4_RK.size,
      expand(k, slot, raw) {
        expandSm4Key(k, slot + SM4_SLOT.rk, raw);
        k.exports.sm4_ecb(slot + SM4_SLOT.rk, slot + SM4_SLOT.gf, slot + SM4_SLOT.gf, 1); // H = E(K, 0^128)
      },
    });
  }
}

export interface Sm4GcmFunction extends AeadOneShot {
  /** SM4-GCM keyed object (RFC 8998): key of 16 bytes; options.tagLength 16 (default), 15, 14, 13, 12, 8 or 4. */
  (key: Uint8Array, options?: { tagLength?: number }): Sm4Gcm;
}

/** SM4-GCM: `sm4Gcm(key)` keyed object; `sm4Gcm.seal(key, nonce, plaintext, aad?)` / `.open(…)` one message. */
export const sm4Gcm: Sm4GcmFunction = /* @__PURE__ */ Object.assign(
  (key: Uint8Array, options?: { tagLength?: number }): Sm4Gcm => new Sm4Gcm(key, options),
  /* @__PURE__ */ oneShot((key) => new Sm4Gcm(key)),
);

/**
 * The raw SM4 block cipher (tests and benchmarks; not part of the public API): ECB over whole
 * blocks and CTR with a 128-bit big-endian counter, streaming through the scratch window.
 */
export class Sm4 {
  readonly #k: Sm4Kernel;
  readonly #slot: number;
  readonly #key: KeySlot;

  constructor(key: Uint8Array, options?: { kernel?: Sm4Kernel }) {
    checkBytes('key', key);
    checkLength('key', key, [16]);
    const k = (this.#k = checkOptions(options).kernel ?? sm4Kernel());
    this.#key = new KeySlot(this, k as Kernel<unknown>);
    this.#slot = this.#key.ptr;
    expandSm4Key(k, this.#slot + SM4_SLOT.rk, key);
  }

  /** ECB encryption of whole blocks. */
  encrypt(data: Uint8Array): Uint8Array {
    return this.#ecb(data, SM4_RK.enc);
  }

  /** ECB decryption of whole blocks. */
  decrypt(data: Uint8Array): Uint8Array {
    return this.#ecb(data, SM4_RK.dec);
  }

  /** Counter mode: data XOR E(iv), E(iv + 1), … with the whole 16-byte iv as a big-endian counter. */
  ctr(iv: Uint8Array, data: Uint8Array, output?: Uint8Array): Uint8Array {
    this.#live();
    checkBytes('iv', iv);
    checkLength('iv', iv, [16]);
    checkBytes('data', data);
    const out = checkOutput(output, data.length);
    const k = this.#k;
    const ctr = SM4_IO.ctr;
    const rk = this.#slot + SM4_SLOT.rk + SM4_RK.enc;
    k.u8.set(iv, ctr);
    const src = inPlaceSource(data, out);
    let used = 0;
    try {
      for (let off = 0; off < src.length; ) {
        const u8 = k.u8;
        // blocks until the low 32 bits of the counter wrap (public: the IV of CTR is public)
        const low = ((u8[ctr + 12] << 24) | (u8[ctr + 13] << 16) | (u8[ctr + 14] << 8) | u8[ctr + 15]) >>> 0;
        const len = Math.min(SCRATCH_SIZE, src.length - off, (2 ** 32 - low) * 16);
        const blocks = (len + 15) >>> 4;
        u8.set(src.subarray(off, off + len), SCRATCH_PTR);
        k.exports.sm4_ctr32(rk, ctr, SCRATCH_PTR, SCRATCH_PTR, blocks, SM4_IO.ks);
        out.set(k.u8.subarray(SCRATCH_PTR, SCRATCH_PTR + len), off);
        used = Math.max(used, blocks * 16);
        off += len;
        if (low + blocks === 2 ** 32) {
          // carry into the upper 96 bits
          const v = k.u8;
          for (let i = ctr + 11; i >= ctr; i--)
            if (++v[i] <= 0xff) break;
            else v[i] = 0;
        }
      }
      return out;
    } finally {
      k.wipe(ctr, 16);
      k.wipe(SCRATCH_PTR, used);
    }
  }

  dispose(): void {
    this.#key.release();
  }

  #live(): void {
    this.#key.check('sm4');
  }

  #ecb(data: Uint8Array, which: number): Uint8Array {
    this.#live();
    checkBytes('data', data);
    if (data.length % 16 !== 0) throw new CtkitRangeError(`data must be a whole number of 16-byte blocks, got ${data.length} bytes`);
    const k = this.#k;
    const out = new Uint8Array(data.length);
    let used = 0;
    try {
      for (let off = 0; off < data.length; off += SCRATCH_SIZE) {
        const len = Math.min(SCRATCH_SIZE, data.length - off);
        k.u8.set(data.subarray(off, off + len), SCRATCH_PTR);
        k.exports.sm4_ecb(this.#slot + SM4_SLOT.rk + which, SCRATCH_PTR, SCRATCH_PTR, len >>> 4);
        out.set(k.u8.subarray(SCRATCH_PTR, SCRATCH_PTR + len), off);
        used = Math.max(used, len);
      }
      return out;
    } finally {
      k.wipe(SCRATCH_PTR, used);
    }
  }
}

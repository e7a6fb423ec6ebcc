// X25519 (RFC 7748 sections 5 and 6.1): key generation, public keys and the shared secret, on
// the x25519 kernel module (src/kernels/x25519_ladder.ts), with the key formats of okp.ts.
// getPublicKey runs on the ed25519 module instead (x25519_base: the fixed-base comb on the
// birationally equivalent edwards25519, then u = (Z + Y)/(Z − Y)), which costs one comb and
// one inversion instead of the 255-step ladder; the ladder serves every ECDH.
//
// Keys are 32 bytes. A private key is any 32 bytes (the kernel clamps it at each use;
// generatePrivateKey() returns it clamped, as OpenSSL does); a public key is any 32 bytes
// (bit 255 is ignored and values ≥ p are taken mod p, as RFC 7748 says). ecdh() refuses an
// all-zero shared secret (a peer key of small order, RFC 7748 section 6.1) with an
// InvalidKeyError.
//
// Constant time: the private key moves by position only (a copy into the IO area); the
// clamping, the ladder and the encoding run in the kernel; the glue branches on lengths and on
// the kernel's "all zero" answer (an error either way). The IO area and the work space are
// wiped after every call.

import * as x25519Module from '../engine/wasm/x25519.js';
import type { X25519Exports } from '../engine/wasm/x25519.contract.js';
import { Kernel, SCRATCH_PTR, type ModuleSource, getKernel, registerModule } from '../engine/kernel.js';
import { InvalidKeyError } from '../errors.js';
import { checkBytes, checkLength } from '../util/check.js';
import { ed25519, x25519BaseVia } from './ed25519.js';
import { type OkpFormats, okpFormats } from './okp.js';

/** IO-area offsets: the scalar, the u-coordinate, the result. */
const IO = { K: 0, U: 32, OUT: 64, END: 96 } as const;
const BASE_U = new Uint8Array(32).fill(9, 0, 1); // u = 9, little-endian (one expression: no statement at load)

export interface X25519 extends OkpFormats {
  readonly privateKeyBytes: 32;
  readonly publicKeyBytes: 32;
  readonly sharedSecretBytes: 32;
  /** 32 random bytes from crypto.getRandomValues, clamped (RFC 7748 section 5). */
  generatePrivateKey(): Uint8Array<ArrayBuffer>;
  /** X25519(privateKey, 9). */
  getPublicKey(privateKey: Uint8Array): Uint8Array<ArrayBuffer>;
  /** X25519(privateKey, peerPublicKey); an all-zero result is an InvalidKeyError. */
  ecdh(privateKey: Uint8Array, peerPublicKey: Uint8Array): Uint8Array<ArrayBuffer>;
}

/**
 * The X25519 object over a build of the x25519 module (internal: the tests pass broken builds).
 * `base`, when given, computes X25519(k, 9) in place of the ladder (the shipped object: the
 * Ed25519 module's comb); without it the public key runs the ladder as ECDH does.
 */
export function makeX25519(src: ModuleSource, fresh: boolean, base?: (privateKey: Uint8Array) => Uint8Array<ArrayBuffer>): X25519 {
  registerModule(src);
  let own: Kernel<X25519Exports> | undefined;
  // the shared instance of the backend in use, looked up on each call (setBackend applies)
  const k = (): Kernel<X25519Exports> => (fresh ? (own ??= new Kernel<X25519Exports>(src, 0)) : getKernel<X25519Exports>(src, 0));

  /** X25519(sk, u) → [result, not all zero]; wipes the IO area and the work space. */
  const scalarMult = (sk: Uint8Array, u: Uint8Array): [Uint8Array<ArrayBuffer>, boolean] => {
    const e = k();
    const u8 = e.u8;
    u8.set(sk, IO.K);
    u8.set(u, IO.U);
    const nonzero = e.exports.x25519(IO.OUT, IO.K, IO.U, SCRATCH_PTR) === 1;
    const out = e.u8.slice(IO.OUT, IO.OUT + 32);
    e.wipe(0, IO.END);
    e.wipe(SCRATCH_PTR, e.exports.WS_SIZE.value as number);
    return [out, nonzero];
  };

  function checkKey(name: string, v: unknown): asserts v is Uint8Array {
    checkBytes(name, v);
    checkLength(name, v, [32]);
  }

  const publicKey = (sk: Uint8Array): Uint8Array<ArrayBuffer> => {
    if (base) return base(sk);
    const [pk, nonzero] = scalarMult(sk, BASE_U);
    // a clamped scalar is a nonzero multiple of 8 below the order: k·9 is never the identity
    if (!nonzero) throw new Error('x25519: the public key came out zero (kernel fault)');
    return pk;
  };

  const formats = okpFormats({
    name: 'X25519',
    oid: '1.3.101.110',
    publicKey,
    checkPublic: () => {}, // every 32 bytes are a u-coordinate (RFC 7748 section 5)
  });

  return {
    privateKeyBytes: 32,
    publicKeyBytes: 32,
    sharedSecretBytes: 32,
    ...formats,

    generatePrivateKey() {
      const sk = new Uint8Array(32);
      globalThis.crypto.getRandomValues(sk);
      sk[0] &= 248;
      sk[31] = (sk[31] & 127) | 64;
      return sk;
    },

    getPublicKey(privateKey) {
      checkKey('privateKey', privateKey);
      return publicKey(privateKey);
    },

    ecdh(privateKey, peerPublicKey) {
      checkKey('privateKey', privateKey);
      checkKey('peerPublicKey', peerPublicKey);
      const [out, nonzero] = scalarMult(privateKey, peerPublicKey);
      if (!nonzero) throw new InvalidKeyError('x25519: the shared secret is all zero (the peer public key has small order)');
      return out;
    },
  };
}

/** X25519 (RFC 7748); public keys through Ed25519's comb. */
export const x25519: X25519 = makeX25519(x25519Module, false, (sk) => x25519BaseVia(ed25519, sk));

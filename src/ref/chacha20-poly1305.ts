// Reference AEAD_CHACHA20_POLY1305 (RFC 8439 §2.6 key generation, §2.8 the construction) and
// AEAD_XChaCha20_Poly1305 (draft-irtf-cfrg-xchacha-03 §2.3.1), composed from the reference
// ChaCha20 and Poly1305. Returns ciphertext ‖ tag. Tests only; it imports no kernel.

import { chacha20Block, chacha20Ref, xchachaSubkeyNonce } from './chacha20.js';
import { poly1305Ref } from './poly1305.js';

/** RFC 8439 §2.6: the one-time Poly1305 key is the first 32 bytes of block 0. */
export function poly1305KeyGen(key: Uint8Array, nonce: Uint8Array): Uint8Array {
  return chacha20Block(key, 0, nonce).slice(0, 32);
}

function pad16(n: number): Uint8Array {
  return new Uint8Array((16 - (n % 16)) % 16);
}

function le64(n: number): Uint8Array {
  const out = new Uint8Array(8);
  let v = BigInt(n);
  for (let i = 0; i < 8; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** RFC 8439 §2.8: the tag over aad ‖ pad16 ‖ ciphertext ‖ pad16 ‖ le64(|aad|) ‖ le64(|ct|). */
function aeadTagRef(otk: Uint8Array, aad: Uint8Array, ct: Uint8Array): Uint8Array {
  return poly1305Ref(otk, concat([aad, pad16(aad.length), ct, pad16(ct.length), le64(aad.length), le64(ct.length)]));
}

export function chacha20Poly1305SealRef(key: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array, aad: Uint8Array = new Uint8Array(0)): Uint8Array {
  const otk = poly1305KeyGen(key, nonce);
  const ct = chacha20Ref(key, nonce, plaintext, 1);
  return concat([ct, aeadTagRef(otk, aad, ct)]);
}

/** Plaintext, or undefined when the tag does not match. */
export function chacha20Poly1305OpenRef(key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array, aad: Uint8Array = new Uint8Array(0)): Uint8Array | undefined {
  if (sealed.length < 16) return undefined;
  const ct = sealed.subarray(0, sealed.length - 16);
  const tag = aeadTagRef(poly1305KeyGen(key, nonce), aad, ct);
  let diff = 0;
  for (let i = 0; i < 16; i++) diff |= tag[i] ^ sealed[sealed.length - 16 + i];
  return diff === 0 ? chacha20Ref(key, nonce, ct, 1) : undefined;
}

export function xchacha20Poly1305SealRef(key: Uint8Array, nonce24: Uint8Array, plaintext: Uint8Array, aad?: Uint8Array): Uint8Array {
  const { subkey, nonce } = xchachaSubkeyNonce(key, nonce24);
  return chacha20Poly1305SealRef(subkey, nonce, plaintext, aad);
}

export function xchacha20Poly1305OpenRef(key: Uint8Array, nonce24: Uint8Array, sealed: Uint8Array, aad?: Uint8Array): Uint8Array | undefined {
  const { subkey, nonce } = xchachaSubkeyNonce(key, nonce24);
  return chacha20Poly1305OpenRef(subkey, nonce, sealed, aad);
}

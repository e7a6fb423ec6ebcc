// The shape every AEAD in ctkit shares (AES-GCM, AES-GCM-SIV, SM4-GCM, ChaCha20-Poly1305,
// XChaCha20-Poly1305): a keyed object that expands its key once and is reused for many
// messages, then disposed (which wipes the expanded key).
//
// Outputs are typed Uint8Array<ArrayBuffer> (TypeScript 5.7+), so that they pass to WebCrypto
// and other BufferSource parameters; with an `output` buffer, the output's own buffer type comes
// back (B is inferred from it).

export interface Aead {
  /** the algorithm's name, e.g. 'aes-256-gcm', 'chacha20-poly1305' (the key size is part of it) */
  readonly algorithm: string;
  /** key length in bytes */
  readonly keyLength: number;
  /** nonce length in bytes (the fast-path length where several are allowed) */
  readonly nonceLength: number;
  /** tag length in bytes */
  readonly tagLength: number;
  /**
   * Encrypt and authenticate: returns ciphertext‖tag (plaintext.length + tagLength bytes).
   * With `output` (at least that long; may be the plaintext's own buffer for in-place use),
   * writes there and returns the written view.
   */
  seal<B extends ArrayBufferLike = ArrayBuffer>(nonce: Uint8Array, plaintext: Uint8Array, aad?: Uint8Array, output?: Uint8Array<B>): Uint8Array<B>;
  /**
   * Verify and decrypt ciphertext‖tag. Throws AuthenticationError on a bad tag, releasing no
   * plaintext (a caller-supplied `output` is wiped).
   */
  open<B extends ArrayBufferLike = ArrayBuffer>(nonce: Uint8Array, sealed: Uint8Array, aad?: Uint8Array, output?: Uint8Array<B>): Uint8Array<B>;
  /** Wipe the expanded key. Further use throws StateError. Idempotent. */
  dispose(): void;
}

/**
 * One-shot AEAD functions: expand the key, seal or open one message, wipe the expanded key.
 * `aesGcm.seal(key, nonce, plaintext, aad?)` is the same as
 * `const a = aesGcm(key); try { a.seal(nonce, plaintext, aad) } finally { a.dispose() }`.
 */
export interface AeadOneShot {
  /** ciphertext ‖ tag of plaintext under key (with `output`, written there), as Aead.seal */
  seal<B extends ArrayBufferLike = ArrayBuffer>(key: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array, aad?: Uint8Array, output?: Uint8Array<B>): Uint8Array<B>;
  /** the plaintext of sealed under key, or AuthenticationError (no plaintext released), as Aead.open */
  open<B extends ArrayBufferLike = ArrayBuffer>(key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array, aad?: Uint8Array, output?: Uint8Array<B>): Uint8Array<B>;
}

/** The one-shot functions over a keyed-object factory. */
export function oneShot(make: (key: Uint8Array) => Aead): AeadOneShot {
  return {
    seal<B extends ArrayBufferLike = ArrayBuffer>(key: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array, aad?: Uint8Array, output?: Uint8Array<B>): Uint8Array<B> {
      const a = make(key);
      try {
        return a.seal(nonce, plaintext, aad, output);
      } finally {
        a.dispose();
      }
    },
    open<B extends ArrayBufferLike = ArrayBuffer>(key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array, aad?: Uint8Array, output?: Uint8Array<B>): Uint8Array<B> {
      const a = make(key);
      try {
        return a.open(nonce, sealed, aad, output);
      } finally {
        a.dispose();
      }
    },
  };
}

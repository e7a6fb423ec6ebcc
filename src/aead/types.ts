// The shape every AEAD in ctkit shares (AES-GCM, AES-GCM-SIV, SM4-GCM, ChaCha20-Poly1305,
// XChaCha20-Poly1305): a keyed object that expands its key once and is reused for many
// messages, then disposed (which wipes the expanded key).

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
  seal(nonce: Uint8Array, plaintext: Uint8Array, aad?: Uint8Array, output?: Uint8Array): Uint8Array;
  /**
   * Verify and decrypt ciphertext‖tag. Throws AuthenticationError on a bad tag, releasing no
   * plaintext (a caller-supplied `output` is wiped).
   */
  open(nonce: Uint8Array, sealed: Uint8Array, aad?: Uint8Array, output?: Uint8Array): Uint8Array;
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
  seal(key: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array, aad?: Uint8Array, output?: Uint8Array): Uint8Array;
  /** the plaintext of sealed under key, or AuthenticationError (no plaintext released), as Aead.open */
  open(key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array, aad?: Uint8Array, output?: Uint8Array): Uint8Array;
}

/** The one-shot functions over a keyed-object factory. */
export function oneShot(make: (key: Uint8Array) => Aead): AeadOneShot {
  return {
    seal(key, nonce, plaintext, aad, output) {
      const a = make(key);
      try {
        return a.seal(nonce, plaintext, aad, output);
      } finally {
        a.dispose();
      }
    },
    open(key, nonce, sealed, aad, output) {
      const a = make(key);
      try {
        return a.open(nonce, sealed, aad, output);
      } finally {
        a.dispose();
      }
    },
  };
}

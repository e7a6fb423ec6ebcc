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

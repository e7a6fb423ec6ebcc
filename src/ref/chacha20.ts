// Reference ChaCha20, HChaCha20 and XChaCha20, written from
//   RFC 8439, "ChaCha20 and Poly1305 for IETF Protocols", sections 2.1 (quarter round),
//   2.3 (block function), 2.4 (encryption), and
//   draft-irtf-cfrg-xchacha-03, "XChaCha: eXtended-nonce ChaCha and AEAD_XChaCha20_Poly1305",
//   sections 2.2 (HChaCha20) and 2.3 (XChaCha20).
// One block at a time, words as JavaScript numbers, nothing unrolled or vectorised: a
// specification model for tests only. It imports no kernel.

const SIGMA = [0x61707865, 0x3320646e, 0x79622d32, 0x6b206574]; // "expand 32-byte k"

function rotl(v: number, c: number): number {
  return ((v << c) | (v >>> (32 - c))) >>> 0;
}

function le32(b: Uint8Array, off: number): number {
  return (b[off] | (b[off + 1] << 8) | (b[off + 2] << 16) | (b[off + 3] << 24)) >>> 0;
}

/** RFC 8439 §2.1: the quarter round on four words of the state, in place. */
export function quarterRound(s: number[], a: number, b: number, c: number, d: number): void {
  s[a] = (s[a] + s[b]) >>> 0;
  s[d] = rotl(s[d] ^ s[a], 16);
  s[c] = (s[c] + s[d]) >>> 0;
  s[b] = rotl(s[b] ^ s[c], 12);
  s[a] = (s[a] + s[b]) >>> 0;
  s[d] = rotl(s[d] ^ s[a], 8);
  s[c] = (s[c] + s[d]) >>> 0;
  s[b] = rotl(s[b] ^ s[c], 7);
}

/** Twenty rounds (ten column rounds, ten diagonal rounds) over a copy of the state. */
function rounds(input: number[]): number[] {
  const s = input.slice();
  for (let i = 0; i < 10; i++) {
    quarterRound(s, 0, 4, 8, 12);
    quarterRound(s, 1, 5, 9, 13);
    quarterRound(s, 2, 6, 10, 14);
    quarterRound(s, 3, 7, 11, 15);
    quarterRound(s, 0, 5, 10, 15);
    quarterRound(s, 1, 6, 11, 12);
    quarterRound(s, 2, 7, 8, 13);
    quarterRound(s, 3, 4, 9, 14);
  }
  return s;
}

/** RFC 8439 §2.3: the initial state from key (32 bytes), counter (32 bits) and nonce (12 bytes). */
function initialState(key: Uint8Array, counter: number, nonce: Uint8Array): number[] {
  if (key.length !== 32 || nonce.length !== 12) throw new RangeError('chacha20 ref: key 32, nonce 12 bytes');
  const s = SIGMA.slice();
  for (let i = 0; i < 8; i++) s.push(le32(key, 4 * i));
  s.push(counter >>> 0);
  for (let i = 0; i < 3; i++) s.push(le32(nonce, 4 * i));
  return s;
}

/** RFC 8439 §2.3: the 64-byte block for (key, counter, nonce). */
export function chacha20Block(key: Uint8Array, counter: number, nonce: Uint8Array): Uint8Array {
  const init = initialState(key, counter, nonce);
  const s = rounds(init);
  const out = new Uint8Array(64);
  for (let i = 0; i < 16; i++) {
    const w = (s[i] + init[i]) >>> 0;
    out[4 * i] = w & 0xff;
    out[4 * i + 1] = (w >>> 8) & 0xff;
    out[4 * i + 2] = (w >>> 16) & 0xff;
    out[4 * i + 3] = w >>> 24;
  }
  return out;
}

/**
 * RFC 8439 §2.4: data XOR the keystream starting at block `counter`. The counter is 32 bits;
 * a message that would need a block past 2^32 − 1 is refused rather than wrapped.
 */
export function chacha20Ref(key: Uint8Array, nonce: Uint8Array, data: Uint8Array, counter = 0): Uint8Array {
  const blocks = Math.ceil(data.length / 64);
  if (counter + blocks > 2 ** 32) throw new RangeError('chacha20 ref: block counter exhausted');
  const out = new Uint8Array(data.length);
  for (let j = 0; j < blocks; j++) {
    const ks = chacha20Block(key, counter + j, nonce);
    for (let i = 0; i < 64 && 64 * j + i < data.length; i++) out[64 * j + i] = data[64 * j + i] ^ ks[i];
  }
  return out;
}

/** XChaCha draft §2.2: HChaCha20(key, 16-byte nonce) → 32-byte subkey (words 0–3 and 12–15, no feed-forward). */
export function hchacha20Ref(key: Uint8Array, nonce16: Uint8Array): Uint8Array {
  if (key.length !== 32 || nonce16.length !== 16) throw new RangeError('hchacha20 ref: key 32, nonce 16 bytes');
  const init = SIGMA.slice();
  for (let i = 0; i < 8; i++) init.push(le32(key, 4 * i));
  for (let i = 0; i < 4; i++) init.push(le32(nonce16, 4 * i));
  const s = rounds(init);
  const words = [s[0], s[1], s[2], s[3], s[12], s[13], s[14], s[15]];
  const out = new Uint8Array(32);
  words.forEach((w, i) => {
    out[4 * i] = w & 0xff;
    out[4 * i + 1] = (w >>> 8) & 0xff;
    out[4 * i + 2] = (w >>> 16) & 0xff;
    out[4 * i + 3] = w >>> 24;
  });
  return out;
}

/** XChaCha draft §2.3: the subkey from the first 16 nonce bytes, then ChaCha20 with nonce 0^4 ‖ last 8 bytes. */
export function xchachaSubkeyNonce(key: Uint8Array, nonce24: Uint8Array): { subkey: Uint8Array; nonce: Uint8Array } {
  if (nonce24.length !== 24) throw new RangeError('xchacha20 ref: nonce 24 bytes');
  const subkey = hchacha20Ref(key, nonce24.subarray(0, 16));
  const nonce = new Uint8Array(12);
  nonce.set(nonce24.subarray(16), 4);
  return { subkey, nonce };
}

/** XChaCha20 stream: data XOR keystream. */
export function xchacha20Ref(key: Uint8Array, nonce24: Uint8Array, data: Uint8Array, counter = 0): Uint8Array {
  const { subkey, nonce } = xchachaSubkeyNonce(key, nonce24);
  return chacha20Ref(subkey, nonce, data, counter);
}

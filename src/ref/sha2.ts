// Reference SHA-224, SHA-256, SHA-384 and SHA-512, written from FIPS 180-4, "Secure Hash
// Standard" (August 2015), and HMAC from FIPS 198-1 (equivalently RFC 2104):
//   - section 4.1.2 / 4.1.3: the functions Ch, Maj, Σ0, Σ1, σ0, σ1 for 32- and 64-bit words;
//   - section 4.2.2 / 4.2.3: the constants K, *computed here from their definition* (the first
//     32 or 64 bits of the fractional parts of the cube roots of the first 64 or 80 primes), so
//     that a typo in the kernel generator's table cannot hide behind the same typo here;
//   - section 5.1.1 / 5.1.2: padding (a 1 bit, zeros, the length in bits as a 64- or 128-bit
//     big-endian integer);
//   - section 5.3.2 – 5.3.5: the initial hash values, also computed from their definition
//     (square roots of the first 8 primes; of the 9th to 16th primes for SHA-384; the second
//     32 bits of the latter for SHA-224);
//   - section 6.2.2 / 6.4.2: the message schedule W_0..W_63 (W_0..W_79) and the compression.
// 32-bit words are JavaScript numbers kept in [0, 2^32) with >>> 0; 64-bit words are BigInts.
// Slow and obvious on purpose: a specification model for tests, not constant-time, never used
// by the library. It imports no kernel.

const M64 = (1n << 64n) - 1n;

/** The first n primes, by trial division. */
function primes(n: number): number[] {
  const out: number[] = [];
  for (let c = 2; out.length < n; c++) if (out.every((p) => c % p !== 0)) out.push(c);
  return out;
}

/** floor(x^(1/k)) for a non-negative BigInt, by Newton's method. */
function iroot(x: bigint, k: bigint): bigint {
  if (x < 2n) return x;
  let r = 1n << (BigInt(x.toString(2).length) / k + 1n); // r ≥ the root
  for (;;) {
    const next = ((k - 1n) * r + x / r ** (k - 1n)) / k;
    if (next >= r) return r;
    r = next;
  }
}

/** The first `bits` bits of the fractional part of p^(1/k): floor(p^(1/k) · 2^bits) mod 2^bits. */
function fracRoot(p: number, k: bigint, bits: bigint): bigint {
  return iroot(BigInt(p) << (k * bits), k) & ((1n << bits) - 1n);
}

const P80 = primes(80);

/** SHA-256 constants K_0..K_63 (section 4.2.2): cube roots of the first 64 primes, 32 bits. */
export const K256: readonly number[] = P80.slice(0, 64).map((p) => Number(fracRoot(p, 3n, 32n)));
/** SHA-512 constants K_0..K_79 (section 4.2.3): cube roots of the first 80 primes, 64 bits. */
export const K512: readonly bigint[] = P80.map((p) => fracRoot(p, 3n, 64n));

/** Initial hash values (section 5.3). */
export const H256: readonly number[] = P80.slice(0, 8).map((p) => Number(fracRoot(p, 2n, 32n)));
export const H512: readonly bigint[] = P80.slice(0, 8).map((p) => fracRoot(p, 2n, 64n));
export const H384: readonly bigint[] = P80.slice(8, 16).map((p) => fracRoot(p, 2n, 64n));
export const H224: readonly number[] = H384.map((w) => Number(w & 0xffffffffn));

// ---- 32-bit words (SHA-224, SHA-256) ---------------------------------------------------------

const rotr32 = (x: number, n: number): number => ((x >>> n) | (x << (32 - n))) >>> 0;
const ch32 = (x: number, y: number, z: number): number => ((x & y) ^ (~x & z)) >>> 0;
const maj32 = (x: number, y: number, z: number): number => ((x & y) ^ (x & z) ^ (y & z)) >>> 0;
const bigSigma0_32 = (x: number): number => (rotr32(x, 2) ^ rotr32(x, 13) ^ rotr32(x, 22)) >>> 0;
const bigSigma1_32 = (x: number): number => (rotr32(x, 6) ^ rotr32(x, 11) ^ rotr32(x, 25)) >>> 0;
const smallSigma0_32 = (x: number): number => (rotr32(x, 7) ^ rotr32(x, 18) ^ (x >>> 3)) >>> 0;
const smallSigma1_32 = (x: number): number => (rotr32(x, 17) ^ rotr32(x, 19) ^ (x >>> 10)) >>> 0;

/** Section 5.1.1 / 5.1.2: M ‖ 1 ‖ 0^k ‖ ℓ as a big-endian integer of `lenBytes` bytes. */
function pad(msg: Uint8Array, blockBytes: number, lenBytes: number): Uint8Array {
  const total = Math.ceil((msg.length + 1 + lenBytes) / blockBytes) * blockBytes;
  const out = new Uint8Array(total);
  out.set(msg);
  out[msg.length] = 0x80;
  let bits = BigInt(msg.length) * 8n;
  for (let i = total - 1; i >= total - lenBytes; i--) {
    out[i] = Number(bits & 0xffn);
    bits >>= 8n;
  }
  return out;
}

function sha256Core(msg: Uint8Array, iv: readonly number[], outWords: number): Uint8Array {
  const m = pad(msg, 64, 8);
  const H = [...iv];
  for (let i = 0; i < m.length; i += 64) {
    // 6.2.2 step 1: the message schedule
    const W: number[] = [];
    for (let t = 0; t < 16; t++) {
      const j = i + 4 * t;
      W[t] = ((m[j] << 24) | (m[j + 1] << 16) | (m[j + 2] << 8) | m[j + 3]) >>> 0;
    }
    for (let t = 16; t < 64; t++) {
      W[t] = (smallSigma1_32(W[t - 2]) + W[t - 7] + smallSigma0_32(W[t - 15]) + W[t - 16]) >>> 0;
    }
    // steps 2-4
    let [a, b, c, d, e, f, g, h] = H;
    for (let t = 0; t < 64; t++) {
      const T1 = (h + bigSigma1_32(e) + ch32(e, f, g) + K256[t] + W[t]) >>> 0;
      const T2 = (bigSigma0_32(a) + maj32(a, b, c)) >>> 0;
      h = g;
      g = f;
      f = e;
      e = (d + T1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (T1 + T2) >>> 0;
    }
    // step 4: the intermediate hash value
    [a, b, c, d, e, f, g, h].forEach((v, k) => (H[k] = (H[k] + v) >>> 0));
  }
  const out = new Uint8Array(4 * outWords);
  for (let k = 0; k < outWords; k++) {
    out[4 * k] = H[k] >>> 24;
    out[4 * k + 1] = (H[k] >>> 16) & 0xff;
    out[4 * k + 2] = (H[k] >>> 8) & 0xff;
    out[4 * k + 3] = H[k] & 0xff;
  }
  return out;
}

// ---- 64-bit words (SHA-384, SHA-512) ---------------------------------------------------------

const rotr64 = (x: bigint, n: bigint): bigint => ((x >> n) | (x << (64n - n))) & M64;
const ch64 = (x: bigint, y: bigint, z: bigint): bigint => (x & y) ^ (~x & M64 & z);
const maj64 = (x: bigint, y: bigint, z: bigint): bigint => (x & y) ^ (x & z) ^ (y & z);
const bigSigma0_64 = (x: bigint): bigint => rotr64(x, 28n) ^ rotr64(x, 34n) ^ rotr64(x, 39n);
const bigSigma1_64 = (x: bigint): bigint => rotr64(x, 14n) ^ rotr64(x, 18n) ^ rotr64(x, 41n);
const smallSigma0_64 = (x: bigint): bigint => rotr64(x, 1n) ^ rotr64(x, 8n) ^ (x >> 7n);
const smallSigma1_64 = (x: bigint): bigint => rotr64(x, 19n) ^ rotr64(x, 61n) ^ (x >> 6n);

function sha512Core(msg: Uint8Array, iv: readonly bigint[], outBytes: number): Uint8Array {
  const m = pad(msg, 128, 16);
  const H = [...iv];
  for (let i = 0; i < m.length; i += 128) {
    // 6.4.2 step 1: the message schedule
    const W: bigint[] = [];
    for (let t = 0; t < 16; t++) {
      let w = 0n;
      for (let j = 0; j < 8; j++) w = (w << 8n) | BigInt(m[i + 8 * t + j]);
      W[t] = w;
    }
    for (let t = 16; t < 80; t++) {
      W[t] = (smallSigma1_64(W[t - 2]) + W[t - 7] + smallSigma0_64(W[t - 15]) + W[t - 16]) & M64;
    }
    // steps 2-4
    let [a, b, c, d, e, f, g, h] = H;
    for (let t = 0; t < 80; t++) {
      const T1 = (h + bigSigma1_64(e) + ch64(e, f, g) + K512[t] + W[t]) & M64;
      const T2 = (bigSigma0_64(a) + maj64(a, b, c)) & M64;
      h = g;
      g = f;
      f = e;
      e = (d + T1) & M64;
      d = c;
      c = b;
      b = a;
      a = (T1 + T2) & M64;
    }
    [a, b, c, d, e, f, g, h].forEach((v, k) => (H[k] = (H[k] + v) & M64));
  }
  const full = new Uint8Array(64);
  H.forEach((w, k) => {
    for (let j = 7; j >= 0; j--) {
      full[8 * k + j] = Number(w & 0xffn);
      w >>= 8n;
    }
  });
  return full.slice(0, outBytes);
}

/** SHA-224 (section 6.3): SHA-256 with its own initial value, truncated to 224 bits. */
const sha224Ref = (msg: Uint8Array): Uint8Array => sha256Core(msg, H224, 7);
/** SHA-256 (section 6.2). */
const sha256Ref = (msg: Uint8Array): Uint8Array => sha256Core(msg, H256, 8);
/** SHA-384 (section 6.5): SHA-512 with its own initial value, truncated to 384 bits. */
const sha384Ref = (msg: Uint8Array): Uint8Array => sha512Core(msg, H384, 48);
/** SHA-512 (section 6.4). */
const sha512Ref = (msg: Uint8Array): Uint8Array => sha512Core(msg, H512, 64);

export interface RefHash {
  (msg: Uint8Array): Uint8Array;
  blockLen: number;
  outputLen: number;
}

const withLens = (f: (m: Uint8Array) => Uint8Array, blockLen: number, outputLen: number): RefHash => Object.assign((m: Uint8Array) => f(m), { blockLen, outputLen });

/** The four references by name, with their block and output lengths in bytes. */
export const refHashes: Record<'sha224' | 'sha256' | 'sha384' | 'sha512', RefHash> = {
  sha224: withLens(sha224Ref, 64, 28),
  sha256: withLens(sha256Ref, 64, 32),
  sha384: withLens(sha384Ref, 128, 48),
  sha512: withLens(sha512Ref, 128, 64),
};

/**
 * HMAC (FIPS 198-1 section 4): K0 is the key hashed if longer than the block, then zero-padded
 * to the block; HMAC(K, text) = H((K0 ⊕ opad) ‖ H((K0 ⊕ ipad) ‖ text)), ipad = 0x36…,
 * opad = 0x5c….
 */
export function hmacRef(hash: RefHash, key: Uint8Array, msg: Uint8Array): Uint8Array {
  const B = hash.blockLen;
  const K0 = new Uint8Array(B);
  K0.set(key.length > B ? hash(key) : key);
  const ipadKey = K0.map((b) => b ^ 0x36);
  const opadKey = K0.map((b) => b ^ 0x5c);
  const concat = (x: Uint8Array, y: Uint8Array): Uint8Array => {
    const out = new Uint8Array(x.length + y.length);
    out.set(x);
    out.set(y, x.length);
    return out;
  };
  return hash(concat(opadKey, hash(concat(ipadKey, msg))));
}

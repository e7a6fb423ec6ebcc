// Reference AES (encryption), written from FIPS 197, "Advanced Encryption Standard (AES)"
// (updated 2023), sections 4 and 5:
//   - section 4.2: multiplication in GF(2^8) modulo m(x) = x^8 + x^4 + x^3 + x + 1;
//   - section 5.1.1: SubBytes, the S-box = the affine map of the multiplicative inverse;
//   - sections 5.1.2–5.1.4: ShiftRows, MixColumns, AddRoundKey on the 4×4 state, byte
//     in[r + 4c] in row r, column c;
//   - section 5.2: KeyExpansion (Nk = 4, 6, 8 words; Nr = 10, 12, 14 rounds);
//   - section 5.1: Cipher.
// Slow and obvious on purpose: the S-box is computed from its definition (inverse by search,
// then the affine transformation bit by bit), never looked up from a pasted table. Not
// constant-time; a specification model for tests only. It imports no kernel.

/** a · b in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1 (FIPS 197 section 4.2). */
function gfMul8(a: number, b: number): number {
  let r = 0;
  for (let i = 0; i < 8; i++) {
    if (b & 1) r ^= a;
    const hi = a & 0x80;
    a = (a << 1) & 0xff;
    if (hi) a ^= 0x1b; // xtime: reduce by m(x)
    b >>= 1;
  }
  return r;
}

/** The multiplicative inverse in GF(2^8), with 0 mapped to 0 (FIPS 197 section 5.1.1). */
function gfInv8(a: number): number {
  if (a === 0) return 0;
  for (let b = 1; b < 256; b++) if (gfMul8(a, b) === 1) return b;
  throw new Error('unreachable: every nonzero element has an inverse');
}

/**
 * SubBytes on one byte (FIPS 197 equation 5.1): b' = b ⊕ (b >>> 4) ⊕ (b >>> 5) ⊕ (b >>> 6)
 * ⊕ (b >>> 7) ⊕ 0x63 in the bit numbering b_i' = b_i ⊕ b_{i+4} ⊕ b_{i+5} ⊕ b_{i+6} ⊕ b_{i+7} ⊕ c_i,
 * indices mod 8, applied to the inverse.
 */
function sboxByte(x: number): number {
  const b = gfInv8(x);
  let out = 0;
  for (let i = 0; i < 8; i++) {
    const bit = ((b >> i) ^ (b >> ((i + 4) % 8)) ^ (b >> ((i + 5) % 8)) ^ (b >> ((i + 6) % 8)) ^ (b >> ((i + 7) % 8)) ^ (0x63 >> i)) & 1;
    out |= bit << i;
  }
  return out;
}

let sboxCache: Uint8Array | undefined;
/** The AES S-box as a 256-entry table, computed from its definition (FIPS 197 Table 4). */
export function sbox(): Uint8Array {
  if (!sboxCache) {
    sboxCache = new Uint8Array(256);
    for (let x = 0; x < 256; x++) sboxCache[x] = sboxByte(x);
  }
  return sboxCache;
}

/** Number of rounds for a key of 16, 24 or 32 bytes (FIPS 197 Table 3). */
function aesRounds(keyLength: number): number {
  if (keyLength !== 16 && keyLength !== 24 && keyLength !== 32) throw new RangeError(`AES key must be 16, 24 or 32 bytes, got ${keyLength}`);
  return keyLength / 4 + 6;
}

/**
 * KeyExpansion (FIPS 197 section 5.2, Algorithm 2): the 4·(Nr+1) words w[i] of the key
 * schedule, as 16-byte round keys, round key r = w[4r] ‖ w[4r+1] ‖ w[4r+2] ‖ w[4r+3].
 */
export function aesExpandKeyRef(key: Uint8Array): Uint8Array[] {
  const nk = key.length / 4;
  const nr = aesRounds(key.length);
  const s = sbox();
  const w: number[][] = [];
  for (let i = 0; i < nk; i++) w.push([key[4 * i], key[4 * i + 1], key[4 * i + 2], key[4 * i + 3]]);
  let rcon = 0x01; // Rcon[j] = [x^(j-1), 0, 0, 0]
  for (let i = nk; i < 4 * (nr + 1); i++) {
    let temp = w[i - 1].slice();
    if (i % nk === 0) {
      temp = [temp[1], temp[2], temp[3], temp[0]].map((b) => s[b]); // SubWord(RotWord(temp))
      temp[0] ^= rcon;
      rcon = gfMul8(rcon, 2);
    } else if (nk > 6 && i % nk === 4) {
      temp = temp.map((b) => s[b]); // SubWord(temp)
    }
    w.push(w[i - nk].map((b, j) => b ^ temp[j]));
  }
  const rks: Uint8Array[] = [];
  for (let r = 0; r <= nr; r++) rks.push(Uint8Array.from([...w[4 * r], ...w[4 * r + 1], ...w[4 * r + 2], ...w[4 * r + 3]]));
  return rks;
}

// The state as a flat 16-byte array: state[r][c] = st[r + 4c] (FIPS 197 section 3.4).

function subBytes(st: Uint8Array): void {
  const s = sbox();
  for (let i = 0; i < 16; i++) st[i] = s[st[i]];
}

/** ShiftRows (section 5.1.2): s'[r][c] = s[r][(c + r) mod 4]. */
function shiftRows(st: Uint8Array): void {
  const t = Uint8Array.from(st);
  for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) st[r + 4 * c] = t[r + 4 * ((c + r) % 4)];
}

/** MixColumns (section 5.1.3): each column times {03}x^3 + {01}x^2 + {01}x + {02}. */
function mixColumns(st: Uint8Array): void {
  for (let c = 0; c < 4; c++) {
    const a = [st[4 * c], st[4 * c + 1], st[4 * c + 2], st[4 * c + 3]];
    for (let r = 0; r < 4; r++) {
      st[4 * c + r] = gfMul8(a[r], 2) ^ gfMul8(a[(r + 1) % 4], 3) ^ a[(r + 2) % 4] ^ a[(r + 3) % 4];
    }
  }
}

function addRoundKey(st: Uint8Array, rk: Uint8Array): void {
  for (let i = 0; i < 16; i++) st[i] ^= rk[i];
}

/** Cipher (FIPS 197 section 5.1, Algorithm 1) with an expanded key from aesExpandKeyRef. */
export function aesEncryptWithSchedule(rks: Uint8Array[], block: Uint8Array): Uint8Array {
  if (block.length !== 16) throw new RangeError(`block must be 16 bytes, got ${block.length}`);
  const nr = rks.length - 1;
  const st = Uint8Array.from(block);
  addRoundKey(st, rks[0]);
  for (let r = 1; r < nr; r++) {
    subBytes(st);
    shiftRows(st);
    mixColumns(st);
    addRoundKey(st, rks[r]);
  }
  subBytes(st);
  shiftRows(st);
  addRoundKey(st, rks[nr]);
  return st;
}

/** AES encryption of one 16-byte block under a 16-, 24- or 32-byte key. */
export function aesEncryptBlockRef(key: Uint8Array, block: Uint8Array): Uint8Array {
  return aesEncryptWithSchedule(aesExpandKeyRef(key), block);
}

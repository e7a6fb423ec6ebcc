// Reference GHASH, written from NIST SP 800-38D, "Recommendation for Block Cipher Modes of
// Operation: Galois/Counter Mode (GCM) and GMAC":
//   - section 6.3, Algorithm 1: the multiplication X•Y in GF(2^128), bit-serial;
//   - section 6.4, Algorithm 2: GHASH_H(X_1 || … || X_m), Y_i = (Y_{i-1} ⊕ X_i)•H.
// Slow and obvious on purpose: a block is held as a BigInt whose most significant bit is
// bit 0 of the block (the leftmost bit, as the standard numbers them), so "bit i of X" is
// (X >> (127 - i)) & 1 and the standard's right shift V >> 1 is the BigInt's right shift.
// This is a specification model for tests; it is not constant-time and never runs in
// production. It imports no kernel.

const BLOCK = 16;
const MASK128 = (1n << 128n) - 1n;
/** R = 11100001 || 0^120 (SP 800-38D section 6.3). */
const R = 0xe1n << 120n;

function toBig(block: Uint8Array): bigint {
  let v = 0n;
  for (const b of block) v = (v << 8n) | BigInt(b);
  return v;
}

function fromBig(v: bigint): Uint8Array {
  const out = new Uint8Array(BLOCK);
  for (let i = BLOCK - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

function checkBlock(name: string, b: Uint8Array): void {
  if (b.length !== BLOCK) throw new RangeError(`${name} must be 16 bytes, got ${b.length}`);
}

/** X•Y, SP 800-38D section 6.3, Algorithm 1. Both arguments are 16-byte blocks. */
export function gfMulGcm(x: Uint8Array, y: Uint8Array): Uint8Array {
  checkBlock('x', x);
  checkBlock('y', y);
  const X = toBig(x);
  let Z = 0n; // Z_0 = 0^128
  let V = toBig(y); // V_0 = Y
  for (let i = 0; i < 128; i++) {
    const xi = (X >> BigInt(127 - i)) & 1n; // bit i of X, counted from the left
    if (xi === 1n) Z ^= V; // Z_{i+1} = Z_i ⊕ V_i
    const v127 = V & 1n; // the rightmost bit, LSB_1(V_i)
    V >>= 1n; // V_i >> 1
    if (v127 === 1n) V ^= R; // ... ⊕ R when LSB_1(V_i) = 1
  }
  return fromBig(Z & MASK128);
}

/**
 * GHASH_H(X_1 … X_m), SP 800-38D section 6.4, Algorithm 2, starting from `initialState`
 * (Y_0; the zero block by default). `data` is zero-padded to a multiple of 16 bytes, which is
 * how ctkit's ghash treats a partial final block. Returns Y_m.
 */
export function ghashRef(h: Uint8Array, data: Uint8Array, initialState?: Uint8Array): Uint8Array {
  checkBlock('h', h);
  let y: Uint8Array = new Uint8Array(BLOCK);
  if (initialState !== undefined) {
    checkBlock('initialState', initialState);
    y = Uint8Array.from(initialState);
  }
  for (let off = 0; off < data.length; off += BLOCK) {
    const xi = new Uint8Array(BLOCK); // zero-padded X_i
    xi.set(data.subarray(off, Math.min(off + BLOCK, data.length)));
    for (let j = 0; j < BLOCK; j++) xi[j] ^= y[j]; // Y_{i-1} ⊕ X_i
    y = gfMulGcm(xi, h); // (Y_{i-1} ⊕ X_i)•H
  }
  return y;
}

// Reference POLYVAL, written from RFC 8452, "AES-GCM-SIV: Nonce Misuse-Resistant Authenticated
// Encryption", section 3 (POLYVAL) and Appendix A (the relationship between POLYVAL and GHASH).
//   - A 16-byte block is a little-endian polynomial: bit i of the 128-bit little-endian
//     integer is the coefficient of x^i.
//   - dot(a, b) = a · b · x^-128 mod P, with P = x^128 + x^127 + x^126 + x^121 + 1.
//   - POLYVAL(H, X_1, …, X_s): S_0 = 0, S_j = dot(S_{j-1} ⊕ X_j, H), result S_s.
// Independent of ghash.ts on purpose: carry-less BigInt multiplication bit by bit, then the
// factor x^-128 as 128 steps of "if the constant term is 1, add P; divide by x", then a final
// reduction mod P by long division. Slow, obvious, not constant-time; a specification model
// for tests only. It imports no kernel.

const BLOCK = 16;
/** P = x^128 + x^127 + x^126 + x^121 + 1. */
const P = (1n << 128n) | (1n << 127n) | (1n << 126n) | (1n << 121n) | 1n;

function toBig(block: Uint8Array): bigint {
  // little-endian: byte k holds the coefficients of x^(8k) … x^(8k+7)
  let v = 0n;
  for (let k = block.length - 1; k >= 0; k--) v = (v << 8n) | BigInt(block[k]);
  return v;
}

function fromBig(v: bigint): Uint8Array {
  const out = new Uint8Array(BLOCK);
  for (let k = 0; k < BLOCK; k++) {
    out[k] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

function checkBlock(name: string, b: Uint8Array): void {
  if (b.length !== BLOCK) throw new RangeError(`${name} must be 16 bytes, got ${b.length}`);
}

function degree(v: bigint): number {
  return v === 0n ? -1 : v.toString(2).length - 1;
}

/** Carry-less (GF(2)[x]) product, bit by bit. */
function clmul(a: bigint, b: bigint): bigint {
  let r = 0n;
  for (let i = 0n; i < 128n; i++) if (((b >> i) & 1n) === 1n) r ^= a << i;
  return r;
}

/** v mod P, by polynomial long division. */
function modP(v: bigint): bigint {
  for (let d = degree(v); d >= 128; d = degree(v)) v ^= P << BigInt(d - 128);
  return v;
}

/** v · x^-128 mod P: 128 times "if odd, add P (making it divisible by x); divide by x". */
function timesXInv128(v: bigint): bigint {
  for (let i = 0; i < 128; i++) {
    if ((v & 1n) === 1n) v ^= P;
    v >>= 1n;
  }
  return modP(v);
}

/** dot(a, b) = a · b · x^-128 mod P (RFC 8452 section 3). */
export function dotRef(a: Uint8Array, b: Uint8Array): Uint8Array {
  checkBlock('a', a);
  checkBlock('b', b);
  return fromBig(timesXInv128(clmul(toBig(a), toBig(b))));
}

/**
 * POLYVAL(H, X_1, …, X_s) (RFC 8452 section 3), starting from `initialState` (S_0; the zero
 * block by default). `data` is zero-padded to a multiple of 16 bytes, which is how ctkit's
 * polyval treats a partial final block. Returns S_s.
 */
export function polyvalRef(h: Uint8Array, data: Uint8Array, initialState?: Uint8Array): Uint8Array {
  checkBlock('h', h);
  let s: Uint8Array = new Uint8Array(BLOCK);
  if (initialState !== undefined) {
    checkBlock('initialState', initialState);
    s = initialState.slice();
  }
  for (let off = 0; off < data.length; off += BLOCK) {
    const xj = new Uint8Array(BLOCK); // zero-padded X_j
    xj.set(data.subarray(off, Math.min(off + BLOCK, data.length)));
    for (let k = 0; k < BLOCK; k++) xj[k] ^= s[k]; // S_{j-1} ⊕ X_j
    s = dotRef(xj, h);
  }
  return s;
}

/** mulX_POLYVAL(v) = v · x mod P (RFC 8452 Appendix A). */
export function mulXPolyval(v: Uint8Array): Uint8Array {
  checkBlock('v', v);
  return fromBig(modP(toBig(v) << 1n));
}

function byteReverse(b: Uint8Array): Uint8Array {
  return b.slice().reverse();
}

/**
 * GHASH computed through POLYVAL, RFC 8452 Appendix A:
 *   GHASH(H, X_1, …, X_n) =
 *     ByteReverse(POLYVAL(mulX_POLYVAL(ByteReverse(H)), ByteReverse(X_1), …, ByteReverse(X_n))).
 * `data` is zero-padded to whole blocks first (the same convention as ghashRef). For tests that
 * cross-check the two reference models.
 */
export function ghashViaPolyval(h: Uint8Array, data: Uint8Array): Uint8Array {
  checkBlock('h', h);
  const n = Math.ceil(data.length / BLOCK);
  const reversed = new Uint8Array(n * BLOCK);
  for (let i = 0; i < n; i++) {
    const xi = new Uint8Array(BLOCK);
    xi.set(data.subarray(i * BLOCK, Math.min((i + 1) * BLOCK, data.length)));
    reversed.set(byteReverse(xi), i * BLOCK);
  }
  return byteReverse(polyvalRef(mulXPolyval(byteReverse(h)), reversed));
}

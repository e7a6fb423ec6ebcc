// X25519 (RFC 7748 section 5), written from the RFC's pseudo-code in BigInt: decodeScalar25519
// (clamping), decodeUCoordinate (bit 255 masked), the Montgomery ladder with cswap, and
// encodeUCoordinate. Slow and obvious; never imports a kernel.

export const P = (1n << 255n) - 19n;
const A24 = 121665n;

const mod = (a: bigint) => ((a % P) + P) % P;
function pow(b: bigint, e: bigint): bigint {
  let r = 1n;
  for (b = mod(b); e > 0n; e >>= 1n, b = (b * b) % P) if (e & 1n) r = (r * b) % P;
  return r;
}

function decodeLittleEndian(b: Uint8Array): bigint {
  let v = 0n;
  for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]);
  return v;
}

export function encodeLittleEndian(v: bigint, n = 32): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++, v >>= 8n) out[i] = Number(v & 0xffn);
  return out;
}

function decodeScalar25519(k: Uint8Array): bigint {
  const b = Uint8Array.from(k);
  b[0] &= 248;
  b[31] &= 127;
  b[31] |= 64;
  return decodeLittleEndian(b);
}

function decodeUCoordinate(u: Uint8Array): bigint {
  const b = Uint8Array.from(u);
  b[31] &= 127;
  return decodeLittleEndian(b);
}

/** X25519(k, u): the RFC's ladder (k clamped, u mod 2^255 then mod p). */
export function x25519Ref(k: Uint8Array, u: Uint8Array): Uint8Array {
  const kk = decodeScalar25519(k);
  const x1 = mod(decodeUCoordinate(u));
  let [x2, z2, x3, z3, swap] = [1n, 0n, x1, 1n, 0n];
  for (let t = 254; t >= 0; t--) {
    const kt = (kk >> BigInt(t)) & 1n;
    swap ^= kt;
    if (swap) [x2, x3, z2, z3] = [x3, x2, z3, z2];
    swap = kt;
    const A = mod(x2 + z2),
      AA = (A * A) % P,
      B = mod(x2 - z2),
      BB = (B * B) % P,
      E = mod(AA - BB);
    const C = mod(x3 + z3),
      D = mod(x3 - z3),
      DA = (D * A) % P,
      CB = (C * B) % P;
    x3 = mod((DA + CB) ** 2n);
    z3 = mod(x1 * mod((DA - CB) ** 2n));
    x2 = (AA * BB) % P;
    z2 = mod(E * (AA + A24 * E));
  }
  if (swap) [x2, z2] = [x3, z3];
  return encodeLittleEndian(mod(x2 * pow(z2, P - 2n)));
}

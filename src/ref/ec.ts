// Reference elliptic-curve arithmetic with BigInt, for tests only. Slow, obvious and variable
// time; never used by the library and never importing a kernel.
//
// Written from:
//   - SEC 1 v2.0, section 2.2.1 (the group law on E(F_p) in affine coordinates), 2.3.3 / 2.3.4
//     (point to octet string and back, compressed and uncompressed), 3.2.2 (public key
//     validation), 3.3.1 (Elliptic Curve Diffie-Hellman primitive);
//   - NIST SP 800-186 section 3 (short Weierstrass curves) and RFC 5639 (the Brainpool curves):
//     the same group law;
//   - J. Renes, C. Costello, L. Batina, "Complete addition formulas for prime order elliptic
//     curves" (EUROCRYPT 2016), Algorithms 1 and 3 (any a): projective (X:Y:Z) with x = X/Z,
//     y = Y/Z, the identity (0:1:0). (The kernels' a = −3 and a = 0 variants, src/kernels/
//     ec_formulas.ts, are checked against the affine law by test/ec-params.test.ts.)
// A curve is given by its parameters (src/curves/params.ts has the standard ones).

export interface RefCurve {
  p: bigint;
  a: bigint;
  b: bigint;
  n: bigint;
  gx: bigint;
  gy: bigint;
}

/** An affine point, or null for the point at infinity O. */
export type Affine = { x: bigint; y: bigint } | null;
/** A projective point (X:Y:Z); Z = 0 is the identity. */
export type Proj = { X: bigint; Y: bigint; Z: bigint };

export const mod = (a: bigint, m: bigint): bigint => {
  const r = a % m;
  return r < 0n ? r + m : r;
};

export function powMod(b: bigint, e: bigint, m: bigint): bigint {
  let r = 1n;
  b = mod(b, m);
  while (e > 0n) {
    if (e & 1n) r = (r * b) % m;
    b = (b * b) % m;
    e >>= 1n;
  }
  return r;
}

/** The inverse of a modulo m by the extended Euclidean algorithm; 0 has none (returns 0). */
export function invMod(a: bigint, m: bigint): bigint {
  let [r0, r1] = [mod(a, m), m];
  let [s0, s1] = [1n, 0n];
  if (r0 === 0n) return 0n;
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  if (r0 !== 1n) throw new Error('invMod: not invertible');
  return mod(s0, m);
}

/** A square root of a modulo the odd prime p (Tonelli–Shanks), or undefined if none exists. */
export function sqrtMod(a: bigint, p: bigint): bigint | undefined {
  a = mod(a, p);
  if (a === 0n) return 0n;
  if (powMod(a, (p - 1n) / 2n, p) !== 1n) return undefined;
  let q = p - 1n;
  let s = 0n;
  while ((q & 1n) === 0n) {
    q >>= 1n;
    s++;
  }
  let z = 2n;
  while (powMod(z, (p - 1n) / 2n, p) !== p - 1n) z++;
  let m = s;
  let c = powMod(z, q, p);
  let t = powMod(a, q, p);
  let r = powMod(a, (q + 1n) / 2n, p);
  while (t !== 1n) {
    let i = 0n;
    let t2 = t;
    while (t2 !== 1n) {
      t2 = (t2 * t2) % p;
      i++;
    }
    const bb = powMod(c, 1n << (m - i - 1n), p);
    m = i;
    c = (bb * bb) % p;
    t = (t * c) % p;
    r = (r * bb) % p;
  }
  return r;
}

/** Is (x, y) on the curve (both coordinates in [0, p))? */
export function onCurve(c: RefCurve, P: Affine): boolean {
  if (P === null) return true;
  const { x, y } = P;
  if (x < 0n || x >= c.p || y < 0n || y >= c.p) return false;
  return mod(y * y - (x * x * x + c.a * x + c.b), c.p) === 0n;
}

export function negate(c: RefCurve, P: Affine): Affine {
  return P === null ? null : { x: P.x, y: mod(-P.y, c.p) };
}

/** SEC 1 section 2.2.1: the sum of two affine points. */
export function add(c: RefCurve, P: Affine, Q: Affine): Affine {
  const { p } = c;
  if (P === null) return Q;
  if (Q === null) return P;
  if (P.x === Q.x) {
    if (mod(P.y + Q.y, p) === 0n) return null; // Q = −P (this includes y = 0 doubling)
    // doubling: λ = (3x² + a) / 2y
    const l = mod((3n * P.x * P.x + c.a) * invMod(2n * P.y, p), p);
    const x = mod(l * l - 2n * P.x, p);
    return { x, y: mod(l * (P.x - x) - P.y, p) };
  }
  const l = mod((Q.y - P.y) * invMod(Q.x - P.x, p), p);
  const x = mod(l * l - P.x - Q.x, p);
  return { x, y: mod(l * (P.x - x) - P.y, p) };
}

/** k·P by double-and-add (k reduced nowhere: any k ≥ 0). */
export function mul(c: RefCurve, k: bigint, P: Affine): Affine {
  if (k < 0n) return mul(c, -k, negate(c, P));
  let R: Affine = null;
  let A = P;
  while (k > 0n) {
    if (k & 1n) R = add(c, R, A);
    A = add(c, A, A);
    k >>= 1n;
  }
  return R;
}

/**
 * k·P by double-and-add on projective coordinates with the complete formulas (Algorithms 1 and
 * 3, any a), one inversion at the end: the same group law as mul(), faster, for bulk tests.
 */
export function mulProj(c: RefCurve, k: bigint, P: Affine): Affine {
  if (k < 0n) return mulProj(c, -k, negate(c, P));
  let R = toProj(null);
  const A = toProj(P);
  for (let i = k.toString(2).length - 1; i >= 0; i--) {
    R = projDouble(c, R);
    if ((k >> BigInt(i)) & 1n) R = projAdd(c, R, A);
  }
  return toAffine(c, R);
}

export function generator(c: RefCurve): Affine {
  return { x: c.gx, y: c.gy };
}

// ---------------------------------------------------------------------------------------------
// Projective complete formulas (Renes–Costello–Batina). Written step by step as in the paper;
// `b3` is 3·b.

export function toProj(P: Affine): Proj {
  return P === null ? { X: 0n, Y: 1n, Z: 0n } : { X: P.x, Y: P.y, Z: 1n };
}

export function toAffine(c: RefCurve, P: Proj): Affine {
  const Z = mod(P.Z, c.p);
  if (Z === 0n) return null;
  const zi = invMod(Z, c.p);
  return { x: mod(P.X * zi, c.p), y: mod(P.Y * zi, c.p) };
}

/** Algorithm 1: complete addition for any a. */
function projAdd(c: RefCurve, P: Proj, Q: Proj): Proj {
  const m = (v: bigint) => mod(v, c.p);
  const { a } = c;
  const b3 = m(3n * c.b);
  const { X: X1, Y: Y1, Z: Z1 } = P;
  const { X: X2, Y: Y2, Z: Z2 } = Q;
  let t0 = m(X1 * X2),
    t1 = m(Y1 * Y2),
    t2 = m(Z1 * Z2);
  let t3 = m(X1 + Y1),
    t4 = m(X2 + Y2);
  t3 = m(t3 * t4);
  t4 = m(t0 + t1);
  t3 = m(t3 - t4);
  t4 = m(X1 + Z1);
  let t5 = m(X2 + Z2);
  t4 = m(t4 * t5);
  t5 = m(t0 + t2);
  t4 = m(t4 - t5);
  t5 = m(Y1 + Z1);
  let X3 = m(Y2 + Z2);
  t5 = m(t5 * X3);
  X3 = m(t1 + t2);
  t5 = m(t5 - X3);
  let Z3 = m(a * t4);
  X3 = m(b3 * t2);
  Z3 = m(X3 + Z3);
  X3 = m(t1 - Z3);
  Z3 = m(t1 + Z3);
  let Y3 = m(X3 * Z3);
  t1 = m(t0 + t0);
  t1 = m(t1 + t0);
  t2 = m(a * t2);
  t4 = m(b3 * t4);
  t1 = m(t1 + t2);
  t2 = m(t0 - t2);
  t2 = m(a * t2);
  t4 = m(t4 + t2);
  t0 = m(t1 * t4);
  Y3 = m(Y3 + t0);
  t0 = m(t5 * t4);
  X3 = m(t3 * X3);
  X3 = m(X3 - t0);
  t0 = m(t3 * t1);
  Z3 = m(t5 * Z3);
  Z3 = m(Z3 + t0);
  return { X: X3, Y: Y3, Z: Z3 };
}

/** Algorithm 3: doubling for any a. */
function projDouble(c: RefCurve, P: Proj): Proj {
  const m = (v: bigint) => mod(v, c.p);
  const { a } = c;
  const b3 = m(3n * c.b);
  const { X, Y, Z } = P;
  let t0 = m(X * X),
    t1 = m(Y * Y),
    t2 = m(Z * Z);
  let t3 = m(X * Y);
  t3 = m(t3 + t3);
  let Z3 = m(X * Z);
  Z3 = m(Z3 + Z3);
  let X3 = m(a * Z3);
  let Y3 = m(b3 * t2);
  Y3 = m(X3 + Y3);
  X3 = m(t1 - Y3);
  Y3 = m(t1 + Y3);
  Y3 = m(X3 * Y3);
  X3 = m(t3 * X3);
  Z3 = m(b3 * Z3);
  t2 = m(a * t2);
  t3 = m(t0 - t2);
  t3 = m(a * t3);
  t3 = m(t3 + Z3);
  Z3 = m(t0 + t0);
  t0 = m(Z3 + t0);
  t0 = m(t0 + t2);
  t0 = m(t0 * t3);
  Y3 = m(Y3 + t0);
  t2 = m(Y * Z);
  t2 = m(t2 + t2);
  t0 = m(t2 * t3);
  X3 = m(X3 - t0);
  Z3 = m(t2 * t1);
  Z3 = m(Z3 + Z3);
  Z3 = m(Z3 + Z3);
  return { X: X3, Y: Y3, Z: Z3 };
}

// ---------------------------------------------------------------------------------------------
// Encodings and ECDH (SEC 1).

export function bigToBytes(v: bigint, len: number): Uint8Array {
  const out = new Uint8Array(len);
  for (let i = len - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  if (v !== 0n) throw new RangeError('bigToBytes: value does not fit');
  return out;
}

export function bytesToBig(b: Uint8Array): bigint {
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  return v;
}

const byteLen = (m: bigint) => Math.ceil(m.toString(2).length / 8);

/** SEC 1 section 2.3.3: point to octet string (O is the single byte 00). */
export function encodePoint(c: RefCurve, P: Affine, compressed = false): Uint8Array {
  if (P === null) return new Uint8Array(1);
  const L = byteLen(c.p);
  if (compressed) {
    const out = new Uint8Array(1 + L);
    out[0] = 2 + Number(P.y & 1n);
    out.set(bigToBytes(P.x, L), 1);
    return out;
  }
  const out = new Uint8Array(1 + 2 * L);
  out[0] = 4;
  out.set(bigToBytes(P.x, L), 1);
  out.set(bigToBytes(P.y, L), 1 + L);
  return out;
}

// Numbers for the field generators, computed at generation time: the limb count of a modulus,
// its unsigned and signed radix-2^29 digits, modular inverses and powers. Pure arithmetic on
// bigint, shared by fe_mont29.ts (Montgomery multiplication) and fe_safegcd.ts (inversion).

export const LIMB_BITS = 29;
const W = LIMB_BITS;
export const LIMB_MASK = (1n << BigInt(W)) - 1n;

/** Bits in the binary form of v > 0. */
export const bitLength = (v: bigint) => v.toString(2).length;

/** Number of limbs for a modulus: the least L with 2^(29L) ≥ 16m. */
export function limbsFor(m: bigint): number {
  let L = 1;
  while (1n << BigInt(W * L) < 16n * m) L++;
  return L;
}

export function powMod(b: bigint, e: bigint, m: bigint): bigint {
  let r = 1n;
  b %= m;
  for (; e > 0n; e >>= 1n) {
    if (e & 1n) r = (r * b) % m;
    b = (b * b) % m;
  }
  return r;
}

/** a⁻¹ mod m (extended Euclid; a coprime to m). */
export function modInv(a: bigint, m: bigint): bigint {
  let [r0, r1, s0, s1] = [((a % m) + m) % m, m, 1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1, s0, s1] = [r1, r0 - q * r1, s1, s0 - q * s1];
  }
  return ((s0 % m) + m) % m;
}

/** Unsigned radix-2^29 limbs of v (L of them). */
export function toLimbs(v: bigint, L: number): bigint[] {
  const out: bigint[] = [];
  for (let j = 0; j < L; j++) {
    out.push(v & LIMB_MASK);
    v >>= BigInt(W);
  }
  if (v !== 0n) throw new Error('toLimbs: value too large');
  return out;
}

/** Signed radix-2^29 digits of v, each in (−2^28, 2^28] (the top one absorbs the rest). */
export function signedDigits(v: bigint, L: number): bigint[] {
  const out: bigint[] = [];
  const half = 1n << BigInt(W - 1);
  for (let j = 0; j < L; j++) {
    let d = v & LIMB_MASK;
    if (j < L - 1 && d > half) d -= 1n << BigInt(W);
    out.push(d);
    v = (v - d) >> BigInt(W);
  }
  if (v !== 0n) throw new Error('signedDigits: value too large');
  return out;
}

/** A dense modulus: most of its signed digits cost a multiplication in the reduction. */
export function isDense(digits: bigint[]): boolean {
  const costly = digits.filter((d) => {
    const a = d < 0n ? -d : d;
    return (a & (a - 1n)) !== 0n;
  });
  return 2 * costly.length > digits.length;
}

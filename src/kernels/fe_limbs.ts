// Numbers for the field generators, computed at generation time: the limb count of a modulus,
// its unsigned and signed radix-2^W digits, modular inverses and powers. Pure arithmetic on
// bigint, shared by fe_mont29.ts (Montgomery multiplication) and fe_safegcd.ts (inversion).

/** The limb width of the WebAssembly targets: 29-bit limbs in i64 (fe_mont29.ts). */
export const LIMB_BITS = 29;
/** The limb width of the js target: 12-bit limbs in i32, so that a column of up to 2L products
 * and L reduction terms stays below 2^31 up to P-521's 44 limbs (fe_mont29.ts proves it). */
export const JS_LIMB_BITS = 12;
const W = LIMB_BITS;

/** fe_pow.ts's window: odd powers a^1 … a^(2·POW_TABLE − 1) in the work space. */
export const POW_WINDOW = 5;
export const POW_TABLE = 1 << (POW_WINDOW - 1);

/** Bits in the binary form of v > 0. */
export const bitLength = (v: bigint) => v.toString(2).length;

/** Number of limbs for a modulus: the least L with 2^(wL) ≥ 16m. */
export function limbsFor(m: bigint, w = W): number {
  let L = 1;
  while (1n << BigInt(w * L) < 16n * m) L++;
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

/** Unsigned radix-2^w limbs of v (L of them). */
export function toLimbs(v: bigint, L: number, w = W): bigint[] {
  const out: bigint[] = [];
  for (let j = 0; j < L; j++) {
    out.push(v & ((1n << BigInt(w)) - 1n));
    v >>= BigInt(w);
  }
  if (v !== 0n) throw new Error('toLimbs: value too large');
  return out;
}

/** Signed radix-2^w digits of v, each in (−2^(w−1), 2^(w−1)] (the top one absorbs the rest). */
export function signedDigits(v: bigint, L: number, w = W): bigint[] {
  const out: bigint[] = [];
  const half = 1n << BigInt(w - 1);
  for (let j = 0; j < L; j++) {
    let d = v & ((1n << BigInt(w)) - 1n);
    if (j < L - 1 && d > half) d -= 1n << BigInt(w);
    out.push(d);
    v = (v - d) >> BigInt(w);
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

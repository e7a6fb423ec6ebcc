// Scalar multiplication of a curve kernel against the BigInt reference: variable base (k·P) and
// fixed base (k·G, through the comb table), for structured scalars (1, 2, n − 1, n − 2, low and
// high Hamming weight, every window boundary) and random ones; and the group law itself
// (pt_add, pt_dbl) on the identity, equal and opposite points.

import { type EcKernel, IO } from '../../src/ec/kernel.js';
import { SCRATCH_PTR } from '../../src/engine/kernel.js';
import { type Affine, bigToBytes, bytesToBig, generator, mul, mulProj, negate, add } from '../../src/ref/ec.js';
import { Rng } from './rng.js';
import { scalarTwist } from '../../src/kernels/ec_rcb_window.js';

export function scalars(n: bigint, random: number, seed: number): bigint[] {
  const rng = new Rng(seed);
  const bits = n.toString(2).length;
  const rand = () => {
    let v = 0n;
    for (let i = 0; i < bits + 64; i += 32) v = (v << 32n) | BigInt(rng.u32());
    return (v % (n - 1n)) + 1n;
  };
  const out = new Set<bigint>([1n, 2n, 3n, 4n, 5n, 15n, 16n, 17n, 31n, 32n, 33n, n - 1n, n - 2n, n - 3n, n - 16n, n - 17n, (n - 1n) / 2n, (n + 1n) / 2n]);
  for (let k = 1; k < bits - 1; k += 13) {
    out.add(1n << BigInt(k)); // weight 1
    out.add((1n << BigInt(k)) - 1n); // runs of ones
    out.add(n - (1n << BigInt(k)));
  }
  out.add((1n << BigInt(bits - 1)) - 1n); // high weight
  out.add(n - ((1n << BigInt(bits - 1)) - 1n));
  out.add(0x5555555555555555555555555555555555555555555555555555n % n);
  while (out.size < 50 + random) out.add(rand());
  return [...out];
}

/**
 * x ‖ y of k·P on the kernel's own exports (the library has no variable-base multiplication that
 * returns y; ECDH returns x): P at the start of scratch, the product after it, its work space last.
 * Undefined when the product is the identity.
 */
export function kernelMul(e: EcKernel, k: Uint8Array, xy: Uint8Array): Uint8Array | undefined {
  const L = e.fieldBytes;
  const [P, R, ws] = [SCRATCH_PTR, SCRATCH_PTR + 3 * e.FE, SCRATCH_PTR + 6 * e.FE];
  e.k.u8.set(k, IO.K);
  e.k.u8.set(xy, IO.PT);
  e.x.point_from_bytes(P, IO.PT);
  e.x.ec_mul(R, IO.K, P, ws);
  const ok = e.x.to_affine(IO.OUT, IO.OUT + L, R, ws, 1) === 1;
  const out = e.k.u8.slice(IO.OUT, IO.OUT + 2 * L);
  e.wipe();
  e.k.wipe(SCRATCH_PTR + e.wsSize, 6 * e.FE);
  return ok ? out : undefined;
}

export interface ScalarResult {
  total: number;
  failures: string[];
}

const hexOf = (P: Affine) => (P === null ? 'O' : `(${P.x.toString(16)}, ${P.y.toString(16)})`);

export function scalarSuite(e: EcKernel, random = 30, stride = 1, useProjRef = true): ScalarResult {
  const c = e.params;
  const L = e.fieldBytes;
  const G = generator(c);
  const refMul = (k: bigint, P: Affine) => (useProjRef ? mulProj(c, k, P) : mul(c, k, P));
  const failures: string[] = [];
  let total = 0;
  const ks = scalars(c.n, random, 0x5ca1a + L);
  const toXY = (P: Affine) => {
    const out = new Uint8Array(2 * L);
    out.set(bigToBytes(P!.x, L));
    out.set(bigToBytes(P!.y, L), L);
    return out;
  };
  const fromXY = (b: Uint8Array | undefined): Affine => (b === undefined ? null : { x: bytesToBig(b.subarray(0, L)), y: bytesToBig(b.subarray(L)) });
  const eq = (what: string, got: Affine, want: Affine) => {
    total++;
    if (hexOf(got) !== hexOf(want)) failures.push(`${c.name} ${what}: got ${hexOf(got)}, want ${hexOf(want)}`);
  };
  // a few base points for the variable-base multiplication
  const points: Affine[] = [G, refMul(2n, G), refMul(c.n - 1n, G), refMul(0xdeadbeefn, G)];
  for (let i = 0; i < ks.length; i += stride) {
    const k = ks[i];
    const kb = bigToBytes(k, e.scalarBytes);
    eq(`k·G, k=${k.toString(16)}`, fromXY(e.publicKey(kb)), refMul(k, G));
    const P = points[i % points.length];
    eq(`k·P, k=${k.toString(16)}, P=${hexOf(P)}`, fromXY(kernelMul(e, kb, toXY(P))), refMul(k, P));
  }
  // the group law on special pairs
  const x = e.x,
    FE = e.FE;
  const [pa, pb, pr, ws] = [SCRATCH_PTR, SCRATCH_PTR + 3 * FE, SCRATCH_PTR + 6 * FE, SCRATCH_PTR + 9 * FE];
  const load = (ptr: number, P: Affine) => {
    if (P === null) {
      e.k.u8.fill(0, ptr, ptr + 3 * FE);
      e.k.u8.set(bigToBytes(1n, L), 3000);
      x.fp_from_bytes(ptr + FE, 3000);
    } else {
      // the module's projective points live on the a = −3 isomorphic curve when it has one
      // (to_affine maps back): (x, y) ↦ (Z²x, Z³y)
      const z = scalarTwist(c);
      if (z !== undefined) P = { x: (P.x * z * z) % c.p, y: (P.y * z * z * z) % c.p };
      e.k.u8.set(toXY(P), 3000);
      x.point_from_bytes(ptr, 3000);
    }
  };
  const read = (ptr: number): Affine => {
    const ok = x.to_affine(3200, 3200 + L, ptr, ws, 1);
    return ok ? { x: bytesToBig(e.k.u8.slice(3200, 3200 + L)), y: bytesToBig(e.k.u8.slice(3200 + L, 3200 + 2 * L)) } : null;
  };
  const special: Affine[] = [null, G, negate(c, G), refMul(2n, G), refMul(c.n - 2n, G), refMul(12345n, G)];
  for (const A of special) {
    for (const B of special) {
      load(pa, A);
      load(pb, B);
      x.pt_add(pr, pa, pb, ws);
      eq(`pt_add ${hexOf(A)} + ${hexOf(B)}`, read(pr), add(c, A, B));
    }
    load(pa, A);
    x.pt_dbl(pr, pa, ws);
    eq(`pt_dbl ${hexOf(A)}`, read(pr), add(c, A, A));
  }
  e.wipe();
  e.k.wipe(3000, 1000);
  return { total, failures };
}

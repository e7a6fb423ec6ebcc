// The smoke program's inputs, shared by smoke.ts (under Hermes) and run.ts (under OpenSSL).

/** Lengths across every path: empty, sub-block, block edges, multi-block, and past a 4 KiB fused pass. */
export const SMOKE_LENGTHS = [0, 1, 15, 16, 63, 64, 65, 127, 128, 129, 255, 256, 1000, 4096, 5000];

/** n bytes 0, seed, 2·seed, … (mod 251): fixed, different per seed. */
export function pattern(n: number, seed: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * seed + seed) % 251;
  return b;
}

/** A smoke curve's private key of n bytes: pattern(n, seed), its top byte cleared for P-521 (66 bytes, 521 bits). */
export function smokeKey(n: number, seed: number): Uint8Array {
  const k = pattern(n, seed);
  if (n === 66) k[0] = 0;
  return k;
}

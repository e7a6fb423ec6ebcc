// Small helpers for kernel generators that emit WebAssembly text (WAT).
//
// A generator is TypeScript that writes the WAT of one module, the way a perlasm script writes
// assembly: loops in the generator unroll, the output is the code that runs. Each exported
// function declares its public parameters (pointers, lengths, counts); the build step records
// that declaration in the module's `ctkit.ct` custom section, where the constant-time checker
// reads it from the final binary.

export interface KernelFunction {
  /** export name */
  name: string;
  /** parameter names in order, each with its WAT type */
  params: [string, 'i32' | 'i64' | 'v128'][];
  /** names of the parameters that are public (addresses, lengths, counts, modes) */
  publicParams: string[];
}

export type { GeneratedKernel } from './builder/index.js';

/** The public-parameter map of a list of exported functions, by parameter index. */
export function publicMap(fns: KernelFunction[]): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const f of fns) {
    const idx = f.publicParams.map((p) => {
      const i = f.params.findIndex(([n]) => n === p);
      if (i < 0) throw new Error(`${f.name}: public parameter ${p} is not a parameter`);
      return i;
    });
    out[f.name] = idx.sort((a, b) => a - b);
  }
  return out;
}

/** `(param $a i32) (param $b i32)` for a function signature. */
export function paramDecl(f: KernelFunction): string {
  return f.params.map(([n, t]) => `(param $${n} ${t})`).join(' ');
}

/** Declare locals: `(local $a i64) (local $b i64)`. */
export function locals(type: 'i32' | 'i64' | 'v128', names: string[]): string {
  return names.map((n) => `(local $${n} ${type})`).join(' ');
}

/** An i64 constant as unsigned hex (WAT accepts the range [-2^63, 2^64)). */
export function hex64(v: bigint): string {
  return '0x' + BigInt.asUintN(64, v).toString(16).padStart(16, '0');
}

/** A v128.const from 16 byte values. */
export function v128Bytes(bytes: number[]): string {
  if (bytes.length !== 16) throw new Error('v128Bytes: need 16 bytes');
  return `v128.const i8x16 ${bytes.map((b) => String(b & 0xff)).join(' ')}`;
}

/** Indent a list of instruction lines. */
export function indent(lines: string[], n = 4): string {
  const pad = ' '.repeat(n);
  return lines.map((l) => (l.length ? pad + l : l)).join('\n');
}

// Byte tables shared by the SIMD generators (for i8x16.swizzle via v128Bytes, or inline as the
// lane list of i8x16.shuffle).
/** Byte order reversed inside each 32-bit lane. */
export const BSWAP32 = [3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12];
/** Byte order reversed inside each 64-bit lane. */
export const BSWAP64 = [7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8];
/** Each 32-bit lane rotated left by 8 / 16 bits. */
export const ROTL8_32 = [3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14];
export const ROTL16_32 = [2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13];
/** i8x16.shuffle lanes of a 4x4 transpose of 32-bit words: interleave low / high halves by 32 bits, then by 64 bits. */
export const SHUF_LO32 = '0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23';
export const SHUF_HI32 = '8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31';
export const SHUF_LO64 = '0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23';
export const SHUF_HI64 = '8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31';

// Folded-form (S-expression) helpers, for generators that write nested expressions.
/** `(local.get $v)` */
export const get = (v: string) => `(local.get $${v})`;
/** `(local.set $v e)` */
export const set = (v: string, e: string) => `(local.set $${v} ${e})`;
/** `(call $f args…)` */
export const call = (f: string, ...args: string[]) => `(call $${f} ${args.join(' ')})`;
/** The address `$ptr + off` (just `$ptr` for off 0). */
export const at = (ptr: string, off: number) => (off ? `(i32.add ${get(ptr)} (i32.const ${off}))` : get(ptr));

/** Bits in the binary form of v > 0. */
export const bitLength = (v: bigint) => v.toString(2).length;
/** x rounded up to a multiple of 16 (v128 alignment). */
export const round16 = (x: number) => Math.ceil(x / 16) * 16;

// Hash benchmarks: SHA-256 and SHA-512 one-shot (a fresh call per operation over N bytes),
// HMAC-SHA-256 of a short message (the RFC 6979 nonce step's unit of work), beside OpenSSL
// (node:crypto) and @noble/hashes; and the sha2 kernel alone as shipped (the `ctkit` column:
// schedule in SIMD lanes, rounds in a loop of 16) against the same generator's variants with a
// scalar schedule and with fully unrolled rounds (`sha2-kernel/…`, the measurements behind
// src/kernels/sha2_vsched.ts; compiled with wabt at setup, so these rows need the dev
// dependencies).

import { createHash, createHmac } from 'node:crypto';
import { sha256 as nobleSha256, sha512 as nobleSha512 } from '@noble/hashes/sha2.js';
import { hmac as nobleHmac } from '@noble/hashes/hmac.js';
import { hmac, sha256, sha512 } from '../src/hash/index.js';
import type { Case, Family } from './harness.js';
import { bytes } from './inputs.js';

const SIZES = [64, 1024, 16384];

function oneShot(name: 'sha256' | 'sha512', n: number): Case {
  const [own, noble] = name === 'sha256' ? [sha256, nobleSha256] : [sha512, nobleSha512];
  const data = bytes(n, n);
  return {
    name: `${name}/${n}`,
    bytes: n,
    impls: {
      ctkit: () => () => own(data),
      'node:crypto': () => () => createHash(name).update(data).digest(),
      noble: () => () => noble(data),
    },
  };
}

function hmacCase(n: number): Case {
  const key = bytes(32, 7);
  const data = bytes(n, n + 1);
  return {
    name: `hmac-sha256/${n}`,
    bytes: n,
    impls: {
      ctkit: () => () => hmac(sha256, key, data),
      'node:crypto': () => () => createHmac('sha256', key).update(data).digest(),
      noble: () => () => nobleHmac(nobleSha256, key, data),
    },
  };
}

/** The kernel alone on 16 KiB already in its memory: shipped schedule vs. the scalar one. */
function kernelCase(fn: 'sha256_blocks' | 'sha512_blocks'): Case {
  const n = 16384;
  const block = fn === 'sha256_blocks' ? 64 : 128;
  const setup = (options: object) => async () => {
    const { generateSha2 } = await import('../src/kernels/sha2_vsched.js');
    const { compileKernel } = await import('../src/kernels/build.js');
    const bytes = await compileKernel(generateSha2({}, options));
    const inst = new WebAssembly.Instance(new WebAssembly.Module(bytes as BufferSource), {});
    const e = inst.exports as unknown as Record<string, (...a: number[]) => void> & { memory: WebAssembly.Memory };
    new Uint8Array(e.memory.buffer).set(bytesOf(n), 4096);
    e.sha2_init(0, block === 64 ? 256 : 512);
    return () => e[fn](0, 4096, n / block);
  };
  const bytesOf = (k: number) => bytes(k, 99);
  return {
    name: `sha2-kernel/${fn.slice(0, 6)}/${n}`,
    bytes: n,
    impls: {
      ctkit: setup({}),
      'scalar-schedule': setup({ schedule: 'scalar' }),
      unrolled: setup({ rolled: false }),
    },
  };
}

const family: Family = {
  title: 'Hashes (SHA-256, SHA-512, HMAC-SHA-256)',
  cases: [...SIZES.map((n) => oneShot('sha256', n)), ...SIZES.map((n) => oneShot('sha512', n)), hmacCase(32), hmacCase(1024), kernelCase('sha256_blocks'), kernelCase('sha512_blocks')],
};

export default family;

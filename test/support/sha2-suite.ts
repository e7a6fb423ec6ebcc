// The differential suite for SHA-2 and HMAC: ctkit (through the real glue, on a given kernel
// instance) against OpenSSL through node:crypto. Used by test/sha2.test.ts on the shipped kernel
// (no case may fail) and on deliberately broken kernels (cases of both families must fail).

import { createHash, createHmac } from 'node:crypto';
import type { Sha2Family } from '../../src/hash/sha2.js';
import { hmac } from '../../src/hash/hmac.js';
import type { Hash } from '../../src/hash/sha2.js';
import { Rng, hex } from './rng.js';

export type HashName = 'sha224' | 'sha256' | 'sha384' | 'sha512';
export const NAMES: HashName[] = ['sha224', 'sha256', 'sha384', 'sha512'];
export const BLOCK: Record<HashName, number> = { sha224: 64, sha256: 64, sha384: 128, sha512: 128 };

/** The HMAC key lengths of the suite for a block length B. */
export const keyLengths = (B: number): number[] => [0, 1, B - 1, B, B + 1, 200];

/** FIPS 180-4 examples (NIST's "Examples with intermediate values" for each algorithm). */
const ABC = 'abc';
const TWO_BLOCK_256 = 'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq';
const TWO_BLOCK_512 = 'abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu';
export const FIPS_KAT: [HashName, string, string][] = [
  ['sha224', ABC, '23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7'],
  ['sha224', TWO_BLOCK_256, '75388b16512776cc5dba5da1fd890150b0c6455cb4f58b1952522525'],
  ['sha256', ABC, 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
  ['sha256', TWO_BLOCK_256, '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1'],
  ['sha384', ABC, 'cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7'],
  ['sha384', TWO_BLOCK_512, '09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712fcc7c71a557e2db966c3e9fa91746039'],
  ['sha512', ABC, 'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f'],
  ['sha512', TWO_BLOCK_512, '8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909'],
];
/** One million repetitions of 'a'. */
export const MILLION_A: [HashName, string][] = [
  ['sha224', '20794655980c91d8bbb4c1ea97618a4bf03f42581948b2ee4ee7ad67'],
  ['sha256', 'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0'],
  ['sha384', '9d0e1809716474cb086e834e310a4a1ced149e9c00f248527972cec5704c2a5b07b8b3dc38ecc4ebae97ddd87f3d8985'],
  ['sha512', 'e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973ebde0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b'],
];

const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);
const node = (name: HashName, m: Uint8Array): string => createHash(name).update(m).digest('hex');
const nodeHmac = (name: HashName, k: Uint8Array, m: Uint8Array): string => createHmac(name, k).update(m).digest('hex');

/** update() with the given split points, then digest(). */
function pieces<T extends { update(d: Uint8Array): unknown; digest(): Uint8Array }>(obj: T, m: Uint8Array, splits: number[]): string {
  let prev = 0;
  for (const s of [...splits, m.length]) {
    obj.update(m.subarray(prev, s));
    prev = s;
  }
  return hex(obj.digest());
}

export interface SuiteOptions {
  /** stop after this many failures */
  maxFailures?: number;
  /** include the multi-MiB messages (default true) */
  long?: boolean;
  /** only these hashes (default all four) */
  names?: HashName[];
}

export interface SuiteResult {
  total: number;
  failures: string[];
  /** cases per group, for the log */
  counts: Record<string, number>;
}

/** Run every case against `family` (its hashes and hmac over them). */
export function suite(family: Sha2Family, opts: SuiteOptions = {}): SuiteResult {
  const maxFailures = opts.maxFailures ?? Infinity;
  const failures: string[] = [];
  const counts: Record<string, number> = {};
  let total = 0;
  class Stop extends Error {}
  const check = (group: string, desc: string, run: () => string, expected: string) => {
    total++;
    counts[group] = (counts[group] ?? 0) + 1;
    let got: string;
    try {
      got = run();
    } catch (e) {
      got = `threw ${(e as Error).message}`;
    }
    if (got !== expected) {
      failures.push(`${desc}: got ${got}, expected ${expected}`);
      if (failures.length >= maxFailures) throw new Stop();
    }
  };
  const rng = new Rng(0x5be0cd19);
  const H = (n: HashName): Hash => family[n];
  const names = opts.names ?? NAMES;

  try {
    // 1. FIPS 180-4 examples
    for (const [name, msg, digest] of FIPS_KAT.filter(([n]) => names.includes(n))) {
      check('fips-kat', `${name}(${JSON.stringify(msg.slice(0, 8))}…)`, () => hex(H(name)(ascii(msg))), digest);
    }
    const million = new Uint8Array(1_000_000).fill(0x61);
    for (const [name, digest] of MILLION_A.filter(([n]) => names.includes(n))) {
      check('fips-kat', `${name}(a × 10^6)`, () => hex(H(name)(million)), digest);
      check(
        'fips-kat',
        `${name}(a × 10^6) in 1000 updates of 1000`,
        () => {
          const h = H(name).create();
          for (let i = 0; i < 1000; i++) h.update(million.subarray(1000 * i, 1000 * (i + 1)));
          return hex(h.digest());
        },
        digest,
      );
    }

    // 2. every length 0..300, one-shot and split once at a seeded point; inputs at offsets 0..7
    for (const name of names) {
      for (let len = 0; len <= 300; len++) {
        const off = len % 8;
        const m = rng.bytes(len + off).subarray(off);
        const want = node(name, m);
        check('length', `${name} len=${len}`, () => hex(H(name)(m)), want);
        const cut = len === 0 ? 0 : rng.int(len + 1);
        check('length', `${name} len=${len} create/update split at ${cut}`, () => pieces(H(name).create(), m, [cut]), want);
      }
    }

    // 3. HMAC: every length 0..300 with keys of 0, 1, B−1, B, B+1 and 200 bytes
    for (const name of names) {
      for (const kl of keyLengths(BLOCK[name])) {
        const key = rng.bytes(kl);
        for (let len = 0; len <= 300; len++) {
          const m = rng.bytes(len);
          const want = nodeHmac(name, key, m);
          check('hmac', `hmac-${name} key=${kl} len=${len}`, () => hex(hmac(H(name), key, m)), want);
          const cut = len === 0 ? 0 : rng.int(len + 1);
          check('hmac', `hmac-${name} key=${kl} len=${len} create/update split at ${cut}`, () => pieces(hmac.create(H(name), key), m, [cut]), want);
        }
      }
    }

    // 4. split across update() calls at every offset within two blocks, and byte by byte
    for (const name of names) {
      const B = BLOCK[name];
      const m = rng.bytes(3 * B + 17);
      const want = node(name, m);
      const key = rng.bytes(B - 3);
      const wantMac = nodeHmac(name, key, m);
      for (let s = 0; s <= 2 * B; s++) {
        check('split', `${name} split at ${s}`, () => pieces(H(name).create(), m, [s]), want);
        const t = s + 1 + rng.int(B);
        check('split', `${name} splits at ${s}, ${t}`, () => pieces(H(name).create(), m, [s, t]), want);
        check('split', `hmac-${name} split at ${s}`, () => pieces(hmac.create(H(name), key), m, [s]), wantMac);
      }
      const every = Array.from({ length: m.length - 1 }, (_, i) => i + 1);
      check('split', `${name} byte by byte`, () => pieces(H(name).create(), m, every), want);
      check('split', `hmac-${name} byte by byte`, () => pieces(hmac.create(H(name), key), m, every), wantMac);
    }

    // 5. long messages across the 64 KiB scratch window (the one-shot chunk is 65280 bytes)
    if (opts.long !== false) {
      const lengths = [65279, 65280, 65281, 65536, 65537, 131072 + 13, 3 * 1048576 + 5];
      const big = rng.bytes(3 * 1048576 + 5);
      for (const len of lengths) {
        const m = big.subarray(0, len);
        for (const name of names) {
          const want = node(name, m);
          check('long', `${name} len=${len}`, () => hex(H(name)(m)), want);
          const chunked = (step: number) => Array.from({ length: Math.ceil(len / step) - 1 }, (_, i) => (i + 1) * step);
          check('long', `${name} len=${len} updates of 65536`, () => pieces(H(name).create(), m, chunked(65536)), want);
          check('long', `${name} len=${len} updates of 70001`, () => pieces(H(name).create(), m, chunked(70001)), want);
          if (len < 200000) check('long', `${name} len=${len} updates of 1000`, () => pieces(H(name).create(), m, chunked(1000)), want);
          const key = big.subarray(len % 97, (len % 97) + 77);
          const wantMac = nodeHmac(name, key, m);
          check('long', `hmac-${name} len=${len}`, () => hex(hmac(H(name), key, m)), wantMac);
          check('long', `hmac-${name} len=${len} updates of 70001`, () => pieces(hmac.create(H(name), key), m, chunked(70001)), wantMac);
        }
      }
    }
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
  }
  return { total, failures, counts };
}

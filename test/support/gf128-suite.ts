// The structured differential suite for GHASH and POLYVAL: kernel (through the real glue)
// against the bit-serial references in src/ref/. Used by test/gf128.test.ts both on the shipped
// kernel (no case may fail) and on deliberately broken kernels (some case must fail).

import { hashOneShot, type HashKind } from '../../src/mac/universal-hash.js';
import type { Kernel } from '../../src/engine/kernel.js';
import { ghashRef } from '../../src/ref/ghash.js';
import { polyvalRef } from '../../src/ref/polyval.js';
import { Rng, hex, unhex } from './rng.js';
import { universalHashWith } from '../../src/internal.js';

export interface Case {
  desc: string;
  kind: HashKind;
  key: Uint8Array;
  /** the input, at `offset` inside a larger buffer */
  data: Uint8Array;
  initialState?: Uint8Array;
  powers: 'auto' | 'always' | 'never';
  /** update() split points, or none for one update */
  splits: number[];
  expected: string;
}

const GROUP = 8; // blocks per reduction in the kernel

export const SPECIAL_KEYS: [string, Uint8Array][] = [
  ['zero', new Uint8Array(16)],
  ['ones', new Uint8Array(16).fill(0xff)],
  // the field's 1 in GHASH's bit order (x^0 is the leftmost bit)
  ['ghash-one', unhex('80000000000000000000000000000000')],
  // the polynomial 1 in POLYVAL's order
  ['polyval-one', unhex('01000000000000000000000000000000')],
  // x^128 mod P: the identity of POLYVAL's dot product
  ['polyval-dot-identity', unhex('010000000000000000000000000000c2')],
  ['top-bit', unhex('00000000000000000000000000000080')],
];

let cached: Case[] | undefined;

/** The cases with expected values from the references (computed once, then cached). */
export function cases(): Case[] {
  if (cached) return cached;
  const rng = new Rng(0x6a09e667);
  const keys: [string, Uint8Array][] = [...SPECIAL_KEYS];
  while (keys.length < 42) keys.push([`random${keys.length}`, rng.bytes(16)]);
  const out: Case[] = [];
  const maxLen = 3 * GROUP * 16 + 16; // 0 … 3 groups of blocks, every remainder
  keys.forEach(([kname, key], ki) => {
    for (const kind of ['ghash', 'polyval'] as const) {
      for (let len = 0; len <= maxLen; len++) {
        // each key takes every 5th length (its own residue mod 5), so every length is run with
        // every 5th key and every length 0 … maxLen is covered
        if ((len + ki) % 5 !== 0) continue;
        const offset = (len * 3 + ki) % 8;
        const buf = rng.bytes(len + offset + 5);
        const data = buf.subarray(offset, offset + len);
        const initialState = (len + ki) % 2 === 0 ? rng.bytes(16) : undefined;
        const powers = (['always', 'never', 'auto'] as const)[(len + ki) % 3];
        const splits: number[] = [];
        if ((len + ki) % 4 === 1 && len > 0) {
          let p = 0;
          while (true) {
            p += 1 + rng.int(40);
            if (p >= len) break;
            splits.push(p);
          }
        }
        const expected = hex((kind === 'ghash' ? ghashRef : polyvalRef)(key, data, initialState));
        out.push({ desc: `${kind} key=${kname} len=${len} off=${offset} state=${initialState ? 'set' : 'zero'} powers=${powers} splits=${splits.length}`, kind, key, data, initialState, powers, splits, expected });
      }
    }
  });
  // long inputs: the aggregated path across many groups and across the scratch window
  for (const len of [3072, 4096, 8192 + 5, 16384, 16400, 70000]) {
    for (const kind of ['ghash', 'polyval'] as const) {
      const [kname, key] = keys[(len >> 4) % keys.length];
      const offset = len % 8;
      const buf = rng.bytes(len + offset);
      const data = buf.subarray(offset);
      const expected = hex((kind === 'ghash' ? ghashRef : polyvalRef)(key, data));
      for (const powers of ['auto', 'never'] as const) {
        out.push({ desc: `${kind} key=${kname} len=${len} off=${offset} long powers=${powers}`, kind, key, data, powers, splits: len === 16400 ? [1000, 5000, 5001] : [], expected });
      }
    }
  }
  return (cached = out);
}

export function run(c: Case, kernel?: Kernel<any>): string {
  // the one-shot path (what ghash(key, data) runs) for plain cases
  if (c.powers === 'auto' && !c.initialState && c.splits.length === 0) return hex(hashOneShot(c.kind, c.key, c.data, kernel));
  const h = universalHashWith({ kernel }, c.kind, c.key, { initialState: c.initialState, powers: c.powers });
  let prev = 0;
  for (const s of [...c.splits, c.data.length]) {
    h.update(c.data.subarray(prev, s));
    prev = s;
  }
  return hex(h.digest());
}

/** Run the suite (or the cases `only` selects); stop after `maxFailures` failures. */
export function suite(kernel?: Kernel<any>, maxFailures = Infinity, only?: (c: Case) => boolean): { total: number; failures: string[] } {
  const failures: string[] = [];
  let total = 0;
  for (const c of cases()) {
    if (only && !only(c)) continue;
    total++;
    const got = run(c, kernel);
    if (got !== c.expected) {
      failures.push(`${c.desc}: got ${got}, expected ${c.expected}`);
      if (failures.length >= maxFailures) break;
    }
  }
  return { total, failures };
}

// MAC / universal-hash benchmarks: GHASH and POLYVAL, one-shot (a fresh call per operation with a
// fixed 16-byte key and N bytes of data), and GHASH incremental when ctkit offers `ghash.create`.

import { ghash as nobleGhash, polyval as noblePolyval } from '@noble/ciphers/_polyval.js';
import { ghash, polyval } from '../src/mac/index.js';
import type { Case, Family } from './harness.js';

const SIZES = [16, 64, 256, 1024, 16384];
const STREAM_SIZE = 16384;
const STREAM_CHUNK = 1024;

const KEY = bytes(16, 0x9e3779b9);

function oneShot(name: 'ghash' | 'polyval', n: number): Case {
  const [own, noble] = name === 'ghash' ? [ghash, nobleGhash] : [polyval, noblePolyval];
  const data = bytes(n, n);
  return {
    name: `${name}/${n}`,
    bytes: n,
    impls: {
      ctkit: () => () => own(KEY, data),
      noble: () => () => noble(data, KEY), // noble takes (msg, key)
    },
  };
}

interface Incremental {
  update(data: Uint8Array): unknown;
  digest(): Uint8Array;
}

/** ctkit's `ghash.create(key)`, if this revision has it. */
const ghashCreate = (ghash as unknown as { create?: (key: Uint8Array) => Incremental }).create;

function stream(n: number): Case {
  const chunks = Array.from({ length: n / STREAM_CHUNK }, (_, i) => bytes(STREAM_CHUNK, i + 1));
  const run = (create: (key: Uint8Array) => Incremental) => () => {
    const h = create(KEY);
    for (const c of chunks) h.update(c);
    return h.digest();
  };
  return {
    name: `ghash-stream/${n}`,
    bytes: n,
    impls: {
      ctkit: () => run(ghashCreate!.bind(ghash)),
      noble: () => run((key) => nobleGhash.create(key)),
    },
  };
}

const family: Family = {
  title: 'MAC (GHASH, POLYVAL)',
  cases: [...SIZES.map((n) => oneShot('ghash', n)), ...SIZES.map((n) => oneShot('polyval', n)), ...(ghashCreate ? [stream(STREAM_SIZE)] : [])],
};

export default family;

// The threshold above which the one-shot and incremental paths precompute H^2…H^8
// (POWERS_THRESHOLD in src/mac/universal-hash.ts): the same GHASH through the hash object with
// the powers forced on (cost of computing them included) and forced off.
import { UniversalHash } from '../src/mac/universal-hash.js';
import { bytes } from './inputs.js';

const THRESHOLD_SIZES = [256, 384, 512, 640, 768, 1024, 1536, 2048, 4096];

function threshold(n: number): Case {
  const data = bytes(n, n + 7);
  const run = (powers: 'always' | 'never') => () => () => new UniversalHash('ghash', KEY, { powers }).update(data).digest();
  return { name: `gf128-threshold/${n}`, bytes: n, impls: { 'ctkit-powers': run('always'), 'ctkit-1power': run('never') } };
}

family.cases.push(...THRESHOLD_SIZES.map(threshold));

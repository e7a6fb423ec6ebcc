// The differential suite for the chacha family: ChaCha20-Poly1305 and the raw ChaCha20 stream
// against OpenSSL (node:crypto), Poly1305 against the BigInt reference (src/ref/poly1305.ts)
// over edge cases and random cases. Used by test/chacha.test.ts on the shipped kernel (no case
// may fail) and on deliberately broken kernels and glue (some case must fail).

import { createCipheriv, createDecipheriv } from 'node:crypto';
import type { ChachaKernel, GlueFaults } from '../../src/mac/poly1305.js';
import { poly1305Ref, P1305 } from '../../src/ref/poly1305.js';
import { Rng, hex } from './rng.js';
import { chacha20Poly1305With, chacha20With, poly1305OneShotWith, poly1305With } from '../../src/internal.js';

export interface SuiteOptions {
  kernel?: ChachaKernel;
  faults?: GlueFaults;
  /** run only every n-th case of each part (negative controls run a quick pass) */
  stride?: number;
}

export interface SuiteResult {
  aead: number;
  stream: number;
  poly: number;
  failures: string[];
}

const GROUP = 256; // bytes per kernel pass (four ChaCha20 blocks, sixteen Poly1305 blocks)

/** Plaintext lengths 0…2100: every remainder mod 64 (and 16), each multi-block group ± 1 block, random. */
export function aeadLengths(rng: Rng): number[] {
  const out: number[] = [];
  for (let n = 0; n <= 400; n++) out.push(n);
  for (let g = GROUP; g <= 2048; g += GROUP) {
    for (const d of [-65, -64, -63, -17, -16, -15, -1, 0, 1, 15, 16, 17, 63, 64, 65]) out.push(g + d);
  }
  while (out.length < 2200) out.push(rng.int(2101));
  return out;
}

function le32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
}

export function opensslSeal(key: Uint8Array, nonce: Uint8Array, pt: Uint8Array, aad: Uint8Array): Uint8Array {
  const c = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 });
  c.setAAD(aad, { plaintextLength: pt.length });
  return new Uint8Array(Buffer.concat([c.update(pt), c.final(), c.getAuthTag()]));
}

export function opensslOpen(key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array, aad: Uint8Array): Uint8Array {
  const n = sealed.length - 16;
  const d = createDecipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 });
  d.setAAD(aad, { plaintextLength: n });
  d.setAuthTag(sealed.subarray(n));
  return new Uint8Array(Buffer.concat([d.update(sealed.subarray(0, n)), d.final()]));
}

export function opensslChacha20(key: Uint8Array, nonce: Uint8Array, data: Uint8Array, counter: number): Uint8Array {
  const c = createCipheriv('chacha20', key, Buffer.concat([le32(counter), nonce]));
  return new Uint8Array(Buffer.concat([c.update(data), c.final()]));
}

/** Poly1305 edge cases: [description, key, message]. */
export function polyEdgeCases(): [string, Uint8Array, Uint8Array][] {
  const out: [string, Uint8Array, Uint8Array][] = [];
  const key = (r: Uint8Array, s: Uint8Array) => {
    const k = new Uint8Array(32);
    k.set(r);
    k.set(s, 16);
    return k;
  };
  const ones16 = new Uint8Array(16).fill(0xff);
  const zero16 = new Uint8Array(16);
  const one16 = new Uint8Array(16);
  one16[0] = 1;
  const toBytes = (v: bigint, n: number) => {
    const b = new Uint8Array(n);
    for (let i = 0; i < n; i++) b[i] = Number((v >> BigInt(8 * i)) & 0xffn);
    return b;
  };
  // r and s at the clamping boundaries
  const rs: [string, Uint8Array][] = [
    ['r=max', ones16],
    ['r=0', zero16],
    ['r=1', one16],
    ['r=clamp-bits-only', Uint8Array.from([0xff, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f])],
  ];
  const ss: [string, Uint8Array][] = [
    ['s=max', ones16],
    ['s=0', zero16],
    ['s=1', one16],
  ];
  const ffs = (n: number) => new Uint8Array(n).fill(0xff);
  for (const [rn, r] of rs) {
    for (const [sn, s] of ss) {
      for (const len of [0, 1, 15, 16, 17, 32, 63, 64, 65, 255, 256, 257, 1024, 1040]) out.push([`${rn} ${sn} 0xff*${len}`, key(r, s), ffs(len)]);
    }
  }
  // r = 1: the accumulator of three blocks is T = 3·2^128 + m1 + m2 + m3; put T at and around
  // 2^130 − 5 (and up to 2^130 − 1, where the final reduction must subtract p)
  for (let d = -6; d <= 4; d++) {
    const T = P1305 + BigInt(d);
    const m1 = (1n << 128n) - 1n - 10n;
    const m2 = T - 3n * (1n << 128n) - m1;
    for (const [sn, s] of ss) {
      const msg = new Uint8Array(48);
      msg.set(toBytes(m1, 16), 0);
      msg.set(toBytes(m2, 16), 16);
      out.push([`r=1 acc=p${d >= 0 ? '+' : ''}${d} ${sn}`, key(one16, s), msg]);
    }
  }
  return out;
}

/** Run the suite; returns the case counts and the failures (descriptions). */
export function runSuite(opts: SuiteOptions = {}): SuiteResult {
  const stride = opts.stride ?? 1;
  const kernel = opts.kernel;
  const failures: string[] = [];
  const rng = new Rng(0x43686143);
  let aead = 0;
  let stream = 0;
  let poly = 0;

  // ChaCha20-Poly1305 against OpenSSL: seal equals, open of OpenSSL's output returns the plaintext
  const keys = Array.from({ length: 8 }, () => rng.bytes(32));
  const objects = keys.map((k) => chacha20Poly1305With({ kernel }, k, false));
  const lengths = aeadLengths(rng);
  for (let i = 0; i < lengths.length; i += stride) {
    const n = lengths[i];
    const ki = i % keys.length;
    const nonce = rng.bytes(12);
    const aadLen = i % 7 === 0 ? rng.int(300) : rng.int(40);
    const offset = i % 8;
    const pt = rng.bytes(n + offset).subarray(offset);
    const aad = rng.bytes(aadLen);
    const expected = opensslSeal(keys[ki], nonce, pt, aad);
    aead++;
    const got = objects[ki].seal(nonce, pt, aad);
    if (hex(got) !== hex(expected)) {
      failures.push(`aead seal n=${n} aad=${aadLen}`);
      continue;
    }
    try {
      const back = objects[ki].open(nonce, expected, aad);
      if (hex(back) !== hex(pt)) failures.push(`aead open n=${n} aad=${aadLen}: wrong plaintext`);
    } catch {
      failures.push(`aead open n=${n} aad=${aadLen}: rejected`);
    }
  }
  // long messages: the one-call layout's fused branch (from 4096 bytes), the boundary between
  // the one-call layout and streaming, and the streamed path (fused passes over 64 KiB chunks)
  const long = [4095, 4096, 4097, 4351, 4352, 5000, 16384, 16397, 65536 - 48, 65536 - 47, 65536 - 33, 65536 - 16, 65536, 65537, 65536 + 255, 65536 + 256, 131072 + 100, 200003];
  for (let i = 0; i < long.length; i += stride) {
    const n = long[i];
    const ki = i % keys.length;
    const nonce = rng.bytes(12);
    const aad = rng.bytes(i % 3 === 0 ? 0 : i % 3 === 1 ? 13 : 40);
    const pt = rng.bytes(n);
    const expected = opensslSeal(keys[ki], nonce, pt, aad);
    aead++;
    if (hex(objects[ki].seal(nonce, pt, aad)) !== hex(expected)) failures.push(`aead seal n=${n} aad=${aad.length}`);
    else if (hex(objects[ki].open(nonce, expected, aad)) !== hex(pt)) failures.push(`aead open n=${n} aad=${aad.length}`);
  }
  for (const o of objects) o.dispose();

  // raw ChaCha20 against OpenSSL, random counters and counters at the 32-bit limit
  for (let i = 0; i < 700; i += stride) {
    const n = i < 300 ? i : rng.int(2101);
    const key = rng.bytes(32);
    const nonce = rng.bytes(12);
    const data = rng.bytes(n);
    const blocks = Math.ceil(n / 64);
    const counter = i % 3 === 0 ? Math.min(2 ** 32 - 1, 2 ** 32 - blocks) : i % 3 === 1 ? 2 ** 32 - blocks - rng.int(8) : rng.u32() >>> 4;
    if (counter < 0 || counter + blocks > 2 ** 32) continue;
    stream++;
    const got = chacha20With({ kernel }, key, nonce, data, counter);
    if (hex(got) !== hex(opensslChacha20(key, nonce, data, counter))) failures.push(`chacha20 n=${n} counter=${counter}`);
  }

  // Poly1305 against the BigInt reference: edge cases (one-shot, and split, with and without powers)
  const check = (desc: string, key: Uint8Array, msg: Uint8Array, powers: 'auto' | 'always' | 'never', splits: number[]) => {
    poly++;
    const p = poly1305With({ kernel, faults: opts.faults }, key, { powers });
    let at = 0;
    for (const s of [...splits, msg.length]) {
      p.update(msg.subarray(at, s));
      at = s;
    }
    const got = p.digest();
    const expected = hex(poly1305Ref(key, msg));
    if (hex(got) !== expected) failures.push(`poly1305 ${desc} powers=${powers} splits=${splits.length}`);
    if (splits.length === 0 && hex(poly1305OneShotWith({ kernel, faults: opts.faults }, key, msg, { powers })) !== expected) failures.push(`poly1305 one-shot ${desc} powers=${powers}`);
  };
  const edges = polyEdgeCases();
  for (let i = 0; i < edges.length; i += stride) {
    const [desc, key, msg] = edges[i];
    for (const powers of ['always', 'never'] as const) check(desc, key, msg, powers, []);
  }
  for (let i = 0; i < 600; i += stride) {
    const n = i < 300 ? i : rng.int(3000);
    const key = rng.bytes(32);
    const msg = rng.bytes(n);
    const splits: number[] = [];
    if (i % 3 === 1) for (let p = 1 + rng.int(40); p < n; p += 1 + rng.int(70)) splits.push(p);
    check(`random n=${n}`, key, msg, (['auto', 'always', 'never'] as const)[i % 3], splits);
  }
  return { aead, stream, poly, failures };
}

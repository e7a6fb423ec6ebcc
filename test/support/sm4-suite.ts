// The SM4 and SM4-GCM suites: every case runs through the real glue (src/aead/sm4-gcm.ts) on a
// chosen kernel instance, so the same suite checks the shipped 'sm4' module (no case may fail)
// and the deliberately broken kernels of the negative controls (some case must fail).
//
// Sources, each case with its expected output computed independently of the kernel:
//   - GB/T 32907-2016 example 1 and the key schedule's published round keys;
//   - SM4 ECB (both directions) and SM4 CTR against OpenSSL through node:crypto (sm4-ecb, sm4-ctr);
//   - RFC 8998 Appendix A.1 (SM4-GCM);
//   - every case of Wycheproof's sm4_gcm_test.json, `result` honoured;
//   - SM4-GCM differential cases against the reference built from src/ref/ (ref/sm4.ts on the
//     reference GHASH), over the length classes of the AES-GCM suite.

import { createCipheriv, createDecipheriv } from 'node:crypto';
import { Sm4, type Sm4Kernel } from '../../src/aead/sm4-gcm.js';
import { sm4GcmSealRef } from '../../src/ref/sm4.js';
import { LENGTHS, at, cat, checkAeadCase, loadWycheproof } from './aes-suite.js';
import { Rng, hex, unhex } from './rng.js';
import { testBackend } from './backends.js';
import { sm4GcmWith } from '../../src/internal.js';

// fewer on the scalar backends (test/backends.test.ts runs the suites there too; CI time), still
// every pass size, tail, length class, nonce and tag length
const SIMD = testBackend() === 'simd';

// ---------------------------------------------------------------------------------------------
// Known answers

/** GB/T 32907-2016 Appendix A, example 1: one block, key = plaintext. */
export const GBT_EXAMPLE = {
  key: '0123456789abcdeffedcba9876543210',
  pt: '0123456789abcdeffedcba9876543210',
  ct: '681edf34d206965e86b3e94f536e4246',
  /** example 2: the same block encrypted 1,000,000 times with the same key */
  ct1e6: '595298c7c6fd271f0402f804c33d3f66',
};

/** RFC 8998 Appendix A.1, SM4-GCM. */
export const RFC8998_GCM = {
  key: '0123456789abcdeffedcba9876543210',
  nonce: '00001234567800000000abcd',
  aad: 'feedfacedeadbeeffeedfacedeadbeefabaddad2',
  pt: 'aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccddddddddddddddddeeeeeeeeeeeeeeeeffffffffffffffffeeeeeeeeeeeeeeeeaaaaaaaaaaaaaaaa',
  ct: '17f399f08c67d5ee19d0dc9969c4bb7d5fd46fd3756489069157b282bb200735d82710ca5c22f0ccfa7cbf93d496ac15a56834cbcf98c397b4024a2691233b8d',
  tag: '83de3541e4c2b58177e065a9bf7b62ec',
};

// ---------------------------------------------------------------------------------------------
// SM4 block and counter mode against OpenSSL

export interface CipherCase {
  desc: string;
  mode: 'ecb' | 'ctr';
  key: Uint8Array;
  /** CTR: the initial 16-byte counter block */
  iv?: Uint8Array;
  data: Uint8Array;
  /** ECB: E(data); CTR: data ⊕ keystream */
  expected: Uint8Array;
}

export const ECB_CASES = SIMD ? 1200 : 300;
export const CTR_CASES = SIMD ? 1200 : 300;

function ecbNode(key: Uint8Array, data: Uint8Array, decrypt = false): Uint8Array {
  const c = decrypt ? createDecipheriv('sm4-ecb', key, null) : createCipheriv('sm4-ecb', key, null);
  c.setAutoPadding(false);
  return new Uint8Array(Buffer.concat([c.update(data), c.final()]));
}

function ctrNode(key: Uint8Array, iv: Uint8Array, data: Uint8Array): Uint8Array {
  const c = createCipheriv('sm4-ctr', key, iv);
  return new Uint8Array(Buffer.concat([c.update(data), c.final()]));
}

/** Block counts that reach every pass size of the kernel (1–4 groups of 4) and the main loop. */
const BLOCKS = [1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 20, 31, 32, 33, 47, 48, 49, 64, 65, 100];

function cipherCases(): CipherCase[] {
  const rng = new Rng(0x1f83d9ab);
  const out: CipherCase[] = [];
  const special = [new Uint8Array(16), new Uint8Array(16).fill(0xff), unhex(GBT_EXAMPLE.key)];
  for (let i = 0; i < ECB_CASES; i++) {
    const key = i < special.length ? special[i] : rng.bytes(16);
    const n = i % 3 === 0 ? BLOCKS[(i / 3) % BLOCKS.length] : 1 + rng.int(40);
    const data = rng.bytes(16 * n);
    out.push({ desc: `ecb #${i} blocks=${n}`, mode: 'ecb', key, data, expected: ecbNode(key, data) });
  }
  for (let i = 0; i < CTR_CASES; i++) {
    const key = rng.bytes(16);
    const iv = rng.bytes(16);
    // counters about to wrap: the low 32 bits (the kernel's inc32 and the glue's carry), or all 128
    if (i % 7 === 1) iv.fill(0xff, 12 + (i % 4));
    if (i % 7 === 2) iv.fill(0xff);
    if (i % 7 === 3) iv.fill(0xff, 8, 16);
    const len = i % 2 === 0 ? LENGTHS[(i / 2) % LENGTHS.length] : rng.int(16 * 70);
    const data = rng.bytes(len);
    out.push({ desc: `ctr #${i} len=${len} iv=${hex(iv)}`, mode: 'ctr', key, iv, data, expected: ctrNode(key, iv, data) });
  }
  // across the 64 KiB scratch window
  for (const len of [65536, 65537, 140000]) {
    const key = rng.bytes(16),
      iv = rng.bytes(16),
      data = rng.bytes(len);
    iv.fill(0xff, 13); // and the low word wraps inside the call
    out.push({ desc: `ctr long len=${len}`, mode: 'ctr', key, iv, data, expected: ctrNode(key, iv, data) });
    const blocks = data.subarray(0, len & ~15);
    out.push({ desc: `ecb long len=${blocks.length}`, mode: 'ecb', key, data: blocks, expected: ecbNode(key, blocks) });
  }
  return out;
}

let cipherCache: CipherCase[] | undefined;
export function cipherSuiteCases(): CipherCase[] {
  return (cipherCache ??= cipherCases());
}

/** Run one cipher case through Sm4 (inputs at an offset for every third case); a failure or undefined. */
export function runCipherCase(c: CipherCase, index: number, kernel?: Sm4Kernel): string | undefined {
  const s = new Sm4(c.key, { kernel });
  try {
    const data = index % 3 === 1 ? at(c.data, 1 + (index % 7)) : c.data;
    if (c.mode === 'ecb') {
      const got = s.encrypt(data);
      if (hex(got) !== hex(c.expected)) return `${c.desc}: encrypt gave ${hex(got).slice(0, 64)}…, expected ${hex(c.expected).slice(0, 64)}…`;
      const back = s.decrypt(index % 2 ? at(got, 3) : got);
      if (hex(back) !== hex(c.data)) return `${c.desc}: decrypt did not invert`;
      return undefined;
    }
    const got = s.ctr(c.iv!, data);
    if (hex(got) !== hex(c.expected)) return `${c.desc}: ctr gave ${hex(got).slice(0, 64)}…, expected ${hex(c.expected).slice(0, 64)}…`;
    return undefined;
  } catch (e) {
    return `${c.desc}: threw ${(e as Error).message}`;
  } finally {
    s.dispose();
  }
}

export function cipherSuite(kernel?: Sm4Kernel, maxFailures = Infinity): { total: number; failures: string[] } {
  const failures: string[] = [];
  let total = 0;
  for (const c of cipherSuiteCases()) {
    const f = runCipherCase(c, total++, kernel);
    if (f !== undefined) {
      failures.push(f);
      if (failures.length >= maxFailures) break;
    }
  }
  return { total, failures };
}

// ---------------------------------------------------------------------------------------------
// SM4-GCM

export interface GcmCase {
  desc: string;
  key: Uint8Array;
  nonce: Uint8Array;
  aad: Uint8Array;
  pt: Uint8Array;
  /** ciphertext ‖ tag */
  sealed: Uint8Array;
  tagLength: number;
  valid: boolean;
  zeroNonce?: boolean;
}

export const GCM_NONCE_LENGTHS = [1, 8, 12, 16, 60];
export const GCM_TAG_LENGTHS = [16, 15, 14, 13, 12, 8, 4];
export const DIFF_GCM_CASES = SIMD ? 1200 : 480;

function katCases(): GcmCase[] {
  const v = RFC8998_GCM;
  return [{ desc: 'RFC 8998 A.1', key: unhex(v.key), nonce: unhex(v.nonce), aad: unhex(v.aad), pt: unhex(v.pt), sealed: unhex(v.ct + v.tag), tagLength: 16, valid: true }];
}

function wycheproofCases(): GcmCase[] {
  const data = loadWycheproof('sm4_gcm_test.json');
  const out: GcmCase[] = [];
  for (const g of data.testGroups) {
    for (const t of g.tests) {
      const [key, nonce, aad, pt, ct, tag] = [t.key, t.iv, t.aad, t.msg, t.ct, t.tag].map(unhex);
      out.push({
        desc: `wycheproof sm4-gcm tcId ${t.tcId} (${t.result}; ${t.flags.join(', ')}${t.comment ? '; ' + t.comment : ''})`,
        key,
        nonce,
        aad,
        pt,
        sealed: cat(ct, tag),
        tagLength: tag.length,
        valid: t.result === 'valid',
        zeroNonce: nonce.length === 0,
      });
    }
  }
  if (out.length !== data.numberOfTests) throw new Error(`read ${out.length} Wycheproof cases, the file says ${data.numberOfTests}`);
  return out;
}

function differentialCases(): GcmCase[] {
  const rng = new Rng(0x5be0cd19);
  const out: GcmCase[] = [];
  const push = (desc: string, key: Uint8Array, nonce: Uint8Array, pt: Uint8Array, aad: Uint8Array, tagLength: number) => {
    const r = sm4GcmSealRef(key, nonce, pt, aad, tagLength);
    out.push({ desc, key, nonce, aad, pt, sealed: cat(r.ciphertext, r.tag), tagLength, valid: true });
  };
  for (let i = 0; i < DIFF_GCM_CASES; i++) {
    const nonceLength = GCM_NONCE_LENGTHS[i % GCM_NONCE_LENGTHS.length];
    const tagLength = GCM_TAG_LENGTHS[Math.floor(i / 5) % GCM_TAG_LENGTHS.length];
    const ptLength = LENGTHS[i % LENGTHS.length];
    const aadLength = i % 4 === 0 ? LENGTHS[(i * 7 + 3) % LENGTHS.length] : [0, 13, 16, 20, 1][i % 5];
    const key = i === 0 ? new Uint8Array(16) : i === 1 ? new Uint8Array(16).fill(0xff) : rng.bytes(16);
    const nonce = rng.bytes(nonceLength),
      pt = rng.bytes(ptLength),
      aad = rng.bytes(aadLength);
    push(`differential sm4-gcm #${i} nonce=${nonceLength} tag=${tagLength} pt=${ptLength} aad=${aadLength}`, key, nonce, pt, aad, tagLength);
  }
  // across the 64 KiB scratch window
  for (const [n, nonceLength] of [
    [65536, 12],
    [65537, 12],
    [65536 + 16 * 16 * 3 + 5, 7],
    [140000, 12],
  ] as const) {
    push(`differential sm4-gcm long pt=${n} nonce=${nonceLength}`, rng.bytes(16), rng.bytes(nonceLength), rng.bytes(n), rng.bytes(n % 33), 16);
  }
  return out;
}

export type GcmSource = 'kat' | 'wycheproof' | 'differential';
const gcmCache = new Map<GcmSource, GcmCase[]>();
export function gcmCases(source: GcmSource): GcmCase[] {
  let c = gcmCache.get(source);
  if (!c) {
    c = source === 'kat' ? katCases() : source === 'wycheproof' ? wycheproofCases() : differentialCases();
    gcmCache.set(source, c);
  }
  return c;
}

/** Run one case (checkAeadCase of the AES suite: the same checks) on a new Sm4Gcm over `kernel`. */
export function runGcmCase(c: GcmCase, index: number, kernel?: Sm4Kernel): string | undefined {
  if (c.key.length !== 16) return `${c.desc}: unexpected key length`;
  return checkAeadCase(c, index, sm4GcmWith({ kernel }, c.key, { tagLength: c.tagLength }));
}

export function gcmSuite(sources: GcmSource[], kernel?: Sm4Kernel, maxFailures = Infinity): { total: number; failures: string[] } {
  const failures: string[] = [];
  let total = 0;
  for (const s of sources) {
    for (const c of gcmCases(s)) {
      const f = runGcmCase(c, total++, kernel);
      if (f !== undefined) {
        failures.push(f);
        if (failures.length >= maxFailures) return { total, failures };
      }
    }
  }
  return { total, failures };
}

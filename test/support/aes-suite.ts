// The AES-GCM and AES-GCM-SIV suites: every case runs through the real glue (the keyed objects of
// src/aead/) on a chosen kernel instance, so the same suite checks the shipped kernel (no case may
// fail) and the deliberately broken kernels of the negative controls (some case must fail).
//
// Sources, each case with its expected sealed output computed independently of the kernel:
//   - the GCM specification's test cases 1-18 and RFC 8452 Appendix C (test/support/aes-vectors.ts);
//   - every case of Wycheproof's aes_gcm_test.json / aes_gcm_siv_test.json, `result` honoured;
//   - AES-GCM differential cases against OpenSSL through node:crypto;
//   - AES-GCM-SIV differential cases against the reference built from src/ref/.

import assert from 'node:assert/strict';
import { createCipheriv } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AesGcm } from '../../src/aead/aes-gcm.js';
import type { AesGcmSiv } from '../../src/aead/aes-gcm-siv.js';
import type { AesKernel } from '../../src/aead/aes-gcm.js';
import { AuthenticationError } from '../../src/errors.js';
import { gcmSivSealRef } from '../../src/ref/gcm-siv.js';
import { GCM_SPEC, RFC8452 } from './aes-vectors.js';
import { Rng, hex, unhex } from './rng.js';
import { testBackend } from './backends.js';
import { aesGcmSivWith, aesGcmWith } from '../../src/internal.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const WYCHEPROOF = join(root, 'test', 'vectors', 'wycheproof', 'testvectors_v1');

export type Algo = 'gcm' | 'siv';

export interface AeadCase {
  desc: string;
  algo: Algo;
  key: Uint8Array;
  nonce: Uint8Array;
  aad: Uint8Array;
  pt: Uint8Array;
  /** ciphertext ‖ tag */
  sealed: Uint8Array;
  tagLength: number;
  /** false: open must reject (AuthenticationError, output wiped) */
  valid: boolean;
  /** Wycheproof: a zero-length IV, which the API refuses with RangeError */
  zeroNonce?: boolean;
}

interface WycheproofAead {
  numberOfTests: number;
  testGroups: { ivSize: number; keySize: number; tagSize: number; tests: { tcId: number; comment: string; key: string; iv: string; aad: string; msg: string; ct: string; tag: string; result: string; flags: string[] }[] }[];
}

export function loadWycheproof(file: string): WycheproofAead {
  const path = join(WYCHEPROOF, file);
  if (!existsSync(path)) throw new Error(`Wycheproof vectors missing: ${path} (vendored in test/vectors/wycheproof)`);
  return JSON.parse(readFileSync(path, 'utf8')) as WycheproofAead;
}

export const cat = (a: Uint8Array, b: Uint8Array) => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};

/** A view of `data` at byte offset `off` inside a larger buffer (inputs may be any view). */
export function at(data: Uint8Array, off: number): Uint8Array {
  const buf = new Uint8Array(data.length + off + 3).fill(0x5c);
  buf.set(data, off);
  return buf.subarray(off, off + data.length);
}

function wycheproofCases(algo: Algo): AeadCase[] {
  const data = loadWycheproof(algo === 'gcm' ? 'aes_gcm_test.json' : 'aes_gcm_siv_test.json');
  const out: AeadCase[] = [];
  for (const g of data.testGroups) {
    for (const t of g.tests) {
      const [key, nonce, aad, pt, ct, tag] = [t.key, t.iv, t.aad, t.msg, t.ct, t.tag].map(unhex);
      out.push({
        desc: `wycheproof ${algo} tcId ${t.tcId} (${t.result}; ${t.flags.join(', ')}${t.comment ? '; ' + t.comment : ''})`,
        algo,
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
  if (out.length !== data.numberOfTests) throw new Error(`${algo}: read ${out.length} Wycheproof cases, the file says ${data.numberOfTests}`);
  return out;
}

function katCases(algo: Algo): AeadCase[] {
  return (algo === 'gcm' ? GCM_SPEC : RFC8452).map((v) => ({
    desc: v.source,
    algo,
    key: unhex(v.key),
    nonce: unhex(v.nonce),
    aad: unhex(v.aad),
    pt: unhex(v.pt),
    sealed: unhex(v.ct + v.tag),
    tagLength: 16,
    valid: true,
  }));
}

/** Lengths that exercise every remainder mod 16 and the eight-block groups ± 1, up to 1100. */
function lengthClasses(): number[] {
  const s = new Set<number>();
  for (let n = 0; n <= 48; n++) s.add(n);
  for (let k = 1; 128 * k - 1 <= 1100; k++) for (const d of [-1, 0, 1]) if (128 * k + d <= 1100) s.add(128 * k + d);
  for (let r = 0; r < 16; r++) for (const base of [208, 496, 1072]) s.add(base + r);
  s.add(1100);
  return [...s].sort((a, b) => a - b);
}
export const LENGTHS = lengthClasses();

export const GCM_NONCE_LENGTHS = [1, 8, 12, 16, 60];
export const GCM_TAG_LENGTHS = [16, 15, 14, 13, 12, 8, 4];
// fewer on the scalar backends (test/backends.test.ts runs the suites there too; CI time), still
// every length class, key, nonce and tag length
const SIMD = testBackend() === 'simd';
export const DIFF_GCM_CASES = SIMD ? 2400 : 480;
export const DIFF_SIV_CASES = SIMD ? 1200 : 360;

function gcmSealNode(key: Uint8Array, nonce: Uint8Array, pt: Uint8Array, aad: Uint8Array, tagLength: number): Uint8Array {
  const c = createCipheriv(`aes-${key.length * 8}-gcm` as 'aes-128-gcm', key, nonce, { authTagLength: tagLength });
  c.setAAD(aad);
  const parts = [c.update(pt), c.final(), c.getAuthTag()];
  return new Uint8Array(Buffer.concat(parts));
}

function differentialGcm(): AeadCase[] {
  const rng = new Rng(0x510e527f);
  const out: AeadCase[] = [];
  for (let i = 0; i < DIFF_GCM_CASES; i++) {
    const keyLength = [16, 24, 32][i % 3];
    const nonceLength = GCM_NONCE_LENGTHS[Math.floor(i / 3) % GCM_NONCE_LENGTHS.length];
    const tagLength = GCM_TAG_LENGTHS[Math.floor(i / 15) % GCM_TAG_LENGTHS.length];
    const ptLength = LENGTHS[i % LENGTHS.length];
    const aadLength = i % 4 === 0 ? LENGTHS[(i * 7 + 3) % LENGTHS.length] : [0, 13, 16, 20, 1][i % 5];
    const key = rng.bytes(keyLength),
      nonce = rng.bytes(nonceLength),
      pt = rng.bytes(ptLength),
      aad = rng.bytes(aadLength);
    out.push({
      desc: `differential gcm #${i} key=${keyLength} nonce=${nonceLength} tag=${tagLength} pt=${ptLength} aad=${aadLength}`,
      algo: 'gcm',
      key,
      nonce,
      aad,
      pt,
      sealed: gcmSealNode(key, nonce, pt, aad, tagLength),
      tagLength,
      valid: true,
    });
  }
  // across the 64 KiB scratch window
  for (const [n, nonceLength, aadLength] of [
    [65536, 12, 0],
    [65537, 12, 1],
    [65536 + 16 * 8 * 3 + 5, 7, 30],
    [140000, 12, 2],
    [40000, 12, 30001],
    [100, 3, 70000],
  ] as const) {
    const key = rng.bytes(32),
      nonce = rng.bytes(nonceLength),
      pt = rng.bytes(n),
      aad = rng.bytes(aadLength);
    out.push({ desc: `differential gcm long pt=${n} nonce=${nonceLength} aad=${aadLength}`, algo: 'gcm', key, nonce, aad, pt, sealed: gcmSealNode(key, nonce, pt, aad, 16), tagLength: 16, valid: true });
  }
  return out;
}

function differentialSiv(): AeadCase[] {
  const rng = new Rng(0x9b05688c);
  const out: AeadCase[] = [];
  for (let i = 0; i < DIFF_SIV_CASES; i++) {
    const keyLength = i % 2 ? 32 : 16;
    // the reference is slow: every length class, shorter ones more often
    const ptLength = i % 3 === 0 ? LENGTHS[(i / 3) % LENGTHS.length] : LENGTHS[i % 60];
    const aadLength = i % 5 === 0 ? LENGTHS[(i * 11) % LENGTHS.length] : [0, 1, 13, 16, 17][i % 5];
    const key = rng.bytes(keyLength),
      nonce = rng.bytes(12),
      pt = rng.bytes(ptLength),
      aad = rng.bytes(aadLength);
    const r = gcmSivSealRef(key, nonce, pt, aad);
    out.push({
      desc: `differential siv #${i} key=${keyLength} pt=${ptLength} aad=${aadLength}`,
      algo: 'siv',
      key,
      nonce,
      aad,
      pt,
      sealed: cat(r.ciphertext, r.tag),
      tagLength: 16,
      valid: true,
    });
  }
  for (const n of [800, 65536, 65537]) {
    const key = rng.bytes(32),
      nonce = rng.bytes(12),
      pt = rng.bytes(n),
      aad = rng.bytes(n % 29);
    const r = gcmSivSealRef(key, nonce, pt, aad);
    out.push({ desc: `differential siv long pt=${n}`, algo: 'siv', key, nonce, aad, pt, sealed: cat(r.ciphertext, r.tag), tagLength: 16, valid: true });
  }
  return out;
}

const cache = new Map<string, AeadCase[]>();
/** The cases of one source, computed once. */
export function cases(algo: Algo, source: 'kat' | 'wycheproof' | 'differential'): AeadCase[] {
  const key = `${algo}/${source}`;
  let c = cache.get(key);
  if (!c) {
    c = source === 'kat' ? katCases(algo) : source === 'wycheproof' ? wycheproofCases(algo) : algo === 'gcm' ? differentialGcm() : differentialSiv();
    cache.set(key, c);
  }
  return c;
}

function make(c: AeadCase, kernel?: AesKernel): AesGcm | AesGcmSiv {
  return c.algo === 'gcm' ? aesGcmWith({ kernel }, c.key, { tagLength: c.tagLength }) : aesGcmSivWith({ kernel }, c.key);
}

/** The fields of an AEAD case that `checkAeadCase` reads (AeadCase here, GcmCase of the SM4 suite). */
export interface AeadCaseFields {
  desc: string;
  nonce: Uint8Array;
  aad: Uint8Array;
  pt: Uint8Array;
  /** ciphertext ‖ tag */
  sealed: Uint8Array;
  tagLength: number;
  valid: boolean;
  zeroNonce?: boolean;
}

/** A keyed AEAD object of src/aead/ (AesGcm, AesGcmSiv, Sm4Gcm). */
export interface SealOpen {
  seal(nonce: Uint8Array, plaintext: Uint8Array, aad?: Uint8Array, output?: Uint8Array): Uint8Array;
  open(nonce: Uint8Array, sealed: Uint8Array, aad?: Uint8Array, output?: Uint8Array): Uint8Array;
  dispose(): void;
}

/**
 * Run one case on the keyed object `a` (disposed afterwards); returns a failure description or
 * undefined. Valid cases: seal equals the expected output and open returns the plaintext (inputs
 * at an odd offset for every third case, caller-supplied output for every fifth). Invalid cases:
 * open throws AuthenticationError and wipes a caller-supplied output (a zero-length nonce:
 * RangeError from both). Shared by the AES and SM4 suites.
 */
export function checkAeadCase(c: AeadCaseFields, index: number, a: SealOpen): string | undefined {
  try {
    if (c.zeroNonce) {
      if (c.valid) return `${c.desc}: a zero-length nonce marked valid`;
      let threw = 0;
      try {
        a.seal(c.nonce, c.pt, c.aad);
      } catch (e) {
        if (e instanceof RangeError) threw++;
      }
      try {
        a.open(c.nonce, c.sealed, c.aad);
      } catch (e) {
        if (e instanceof RangeError) threw++;
      }
      return threw === 2 ? undefined : `${c.desc}: zero-length nonce not refused with RangeError`;
    }
    const off = index % 3 === 1 ? 1 + (index % 7) : 0;
    const [nonce, pt, aad, sealed] = off ? [at(c.nonce, off), at(c.pt, off), at(c.aad, off + 1), at(c.sealed, off + 2)] : [c.nonce, c.pt, c.aad, c.sealed];
    if (c.valid) {
      const out = index % 5 === 2 ? at(new Uint8Array(c.sealed.length), 3) : undefined;
      const got = a.seal(nonce, pt, aad, out);
      if (hex(got) !== hex(c.sealed)) return `${c.desc}: seal gave ${hex(got).slice(0, 80)}…, expected ${hex(c.sealed).slice(0, 80)}…`;
      const pout = index % 5 === 3 ? at(new Uint8Array(c.pt.length), 5) : undefined;
      let opened: Uint8Array;
      try {
        opened = a.open(nonce, sealed, aad, pout);
      } catch (e) {
        return `${c.desc}: open threw ${(e as Error).message}`;
      }
      if (hex(opened) !== hex(c.pt)) return `${c.desc}: open returned other plaintext`;
      return undefined;
    }
    const out = new Uint8Array(Math.max(0, c.sealed.length - c.tagLength)).fill(0xaa);
    try {
      a.open(nonce, sealed, aad, out);
      return `${c.desc}: invalid case accepted`;
    } catch (e) {
      if (!(e instanceof AuthenticationError)) return `${c.desc}: open threw ${(e as Error).name}, not AuthenticationError`;
      if (!out.every((b) => b === 0)) return `${c.desc}: output not wiped after a failed open`;
      return undefined;
    }
  } catch (e) {
    return `${c.desc}: threw ${(e as Error).message}`;
  } finally {
    a.dispose();
  }
}

/**
 * In place and through views at offsets, on one reused keyed object: for each length, seal into
 * the plaintext's own buffer (with room for the tag) equals a plain seal; open in place and from
 * an overlapping, shifted view return the plaintext; a failed open in place wipes the caller's
 * buffer. Shared by the AES-GCM and SM4-GCM tests.
 */
export function checkInPlace(a: Omit<SealOpen, 'dispose'>, rng: Rng, nonce: Uint8Array, aad: Uint8Array, lengths: number[], tagLength = 16): void {
  for (const n of lengths) {
    const pt = rng.bytes(n);
    const expected = a.seal(nonce, pt, aad);
    // in place: the plaintext at the start of a buffer with room for the tag
    const buf = new Uint8Array(n + tagLength + 9);
    const view = buf.subarray(9);
    view.set(pt);
    const sealed = a.seal(nonce, view.subarray(0, n), aad, view);
    assert.equal(sealed.buffer, buf.buffer);
    assert.equal(hex(sealed), hex(expected));
    const opened = a.open(nonce, view, aad, view.subarray(0, n));
    assert.equal(hex(opened), hex(pt));
    // overlapping at another position
    const buf2 = new Uint8Array(n + 48);
    buf2.set(expected, 7);
    const shifted = a.open(nonce, buf2.subarray(7, 7 + n + tagLength), aad, buf2.subarray(0, n));
    assert.equal(hex(shifted), hex(pt));
    // failure in place wipes the caller's buffer
    if (n > 0) {
      view.set(expected);
      view[0] ^= 1;
      assert.throws(() => a.open(nonce, view, aad, view.subarray(0, n)), AuthenticationError);
      assert.ok(view.subarray(0, n).every((b) => b === 0));
    }
  }
}

/** Run one case (checkAeadCase) on a new keyed object over `kernel`. */
export function runCase(c: AeadCase, index: number, kernel?: AesKernel): string | undefined {
  const keyOk = c.algo === 'gcm' ? [16, 24, 32].includes(c.key.length) : [16, 32].includes(c.key.length);
  if (!keyOk) return `${c.desc}: unexpected key length`;
  return checkAeadCase(c, index, make(c, kernel));
}

/** Run the sources in order; stop after maxFailures failures. */
export function suite(algo: Algo, sources: ('kat' | 'wycheproof' | 'differential')[], kernel?: AesKernel, maxFailures = Infinity): { total: number; failures: string[] } {
  const failures: string[] = [];
  let total = 0;
  for (const s of sources) {
    for (const c of cases(algo, s)) {
      const f = runCase(c, total++, kernel);
      if (f !== undefined) {
        failures.push(f);
        if (failures.length >= maxFailures) return { total, failures };
      }
    }
  }
  return { total, failures };
}

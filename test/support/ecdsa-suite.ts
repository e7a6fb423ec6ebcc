// The ECDSA suite, in parts that the tests run on the shipped curves and on deliberately broken
// variants (negative controls): RFC 6979 known answers, every Wycheproof ECDSA case, signatures
// built around edge values of r (constructed with the BigInt reference), and a differential
// against OpenSSL through node:crypto. Each part returns the number of checks and a description
// of every failure instead of asserting, so a negative control can assert that failures exist.

import crypto from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EcdsaCurve } from '../../src/ec/ecdsa.js';
import { CURVES, type CurveName } from '../../src/curves/params.js';
import { CtkitError } from '../../src/errors.js';
import { type Hash, sha224, sha256, sha384, sha512 } from '../../src/hash/index.js';
import { add, bigToBytes, bytesToBig, encodePoint, generator, invMod, mod, mulProj, negate, sqrtMod } from '../../src/ref/ec.js';
import { RFC6979 } from './ecdsa-rfc6979.js';
import { Rng, hex, unhex } from './rng.js';

export interface Outcome {
  total: number;
  failures: string[];
}

const merge = (...xs: Outcome[]): Outcome => ({ total: xs.reduce((n, x) => n + x.total, 0), failures: xs.flatMap((x) => x.failures) });

export const HASHES: Record<string, Hash> = { 'SHA-224': sha224, 'SHA-256': sha256, 'SHA-384': sha384, 'SHA-512': sha512 };
const nodeHash = (h: Hash) => h.algorithm.replace('-', '').toLowerCase();
const fixed = (hexValue: string, len: number) => bigToBytes(BigInt('0x' + hexValue), len);

/** verify() as a verdict: true, false, or the name of the typed error it threw. */
export function verdict(f: () => boolean): boolean | string {
  try {
    return f();
  } catch (e) {
    if (e instanceof CtkitError) return e.name;
    throw e;
  }
}

// ---- RFC 6979 Appendix A.2 ------------------------------------------------------------------

/** Every A.2 case of the curve (none for curves the appendix does not cover): the public key, signature and verification. */
export function rfc6979Part(c: EcdsaCurve, name: CurveName): Outcome {
  const out: Outcome = { total: 0, failures: [] };
  const cv = RFC6979.find((x) => x.curve === name);
  if (!cv) return out;
  const L = c.privateKeyBytes;
  const x = fixed(cv.x, L);
  const pk = c.getPublicKey(x);
  // the RFC's public key U = xG
  const wantPk = '04' + hex(fixed(cv.ux, L)) + hex(fixed(cv.uy, L));
  out.total++;
  if (hex(pk) !== wantPk) out.failures.push(`RFC 6979 ${name}: public key ${hex(pk)}, expected ${wantPk}`);
  for (const t of cv.cases) {
    const msg = new TextEncoder().encode(t.msg);
    const want = hex(fixed(t.r, L)) + hex(fixed(t.s, L));
    const got = hex(c.sign(msg, x, { hash: HASHES[t.hash], format: 'p1363' }));
    out.total += 2;
    if (got !== want) out.failures.push(`RFC 6979 ${name} ${t.hash} "${t.msg}": signature ${got}, expected ${want}`);
    if (verdict(() => c.verify(unhex(want), msg, pk, { hash: HASHES[t.hash], format: 'p1363' })) !== true) {
      out.failures.push(`RFC 6979 ${name} ${t.hash} "${t.msg}": the RFC's signature does not verify`);
    }
  }
  return out;
}

// ---- Wycheproof ---------------------------------------------------------------------------------

const repoRoot = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const WYCHEPROOF_DIR = path.join(repoRoot, 'test', 'vectors', 'wycheproof', 'testvectors_v1');

/** The Wycheproof ECDSA files of each curve (DER signatures, EcdsaVerify schema). */
export const WYCHEPROOF_FILES: Record<CurveName, string[]> = {
  p256: ['ecdsa_secp256r1_sha256_test.json'],
  p224: ['ecdsa_secp224r1_sha224_test.json', 'ecdsa_secp224r1_sha256_test.json'],
  brainpoolP256r1: ['ecdsa_brainpoolP256r1_sha256_test.json'],
  p384: ['ecdsa_secp384r1_sha384_test.json'],
  p521: ['ecdsa_secp521r1_sha512_test.json'],
  secp256k1: ['ecdsa_secp256k1_sha256_test.json'],
  brainpoolP384r1: ['ecdsa_brainpoolP384r1_sha384_test.json'],
  brainpoolP512r1: ['ecdsa_brainpoolP512r1_sha512_test.json'],
};

interface WycheproofFile {
  numberOfTests: number;
  testGroups: {
    publicKey: { curve: string; uncompressed: string };
    sha: string;
    tests: { tcId: number; comment: string; flags: string[]; msg: string; sig: string; result: 'valid' | 'invalid' | 'acceptable' }[];
  }[];
}

export function loadWycheproof(file: string): WycheproofFile {
  const p = path.join(WYCHEPROOF_DIR, file);
  if (!existsSync(p)) throw new Error(`Wycheproof vectors missing: ${p} (vendored in test/vectors/wycheproof)`);
  return JSON.parse(readFileSync(p, 'utf8')) as WycheproofFile;
}

export interface WycheproofTally extends Outcome {
  valid: number;
  invalidFalse: number;
  invalidThrown: Record<string, number>;
  p1363: number;
}

/**
 * Every case of one file: `valid` must verify (and, converted to P1363, verify there too);
 * `invalid` must return false or throw a typed ctkit error. There are no `acceptable` cases in
 * these files; one would fail the run (a policy must be written for it first).
 */
export function wycheproofPart(c: EcdsaCurve, file: string, every = 1): WycheproofTally {
  const data = loadWycheproof(file);
  const t: WycheproofTally = { total: 0, failures: [], valid: 0, invalidFalse: 0, invalidThrown: {}, p1363: 0 };
  let seen = 0;
  for (const g of data.testGroups) {
    const pk = unhex(g.publicKey.uncompressed);
    const hash = HASHES[g.sha];
    if (!hash) throw new Error(`${file}: unknown hash ${g.sha}`);
    for (const v of g.tests) {
      if (seen++ % every !== 0) continue;
      t.total++;
      const where = `${file} tcId ${v.tcId} (${v.comment}; ${v.flags.join(', ')})`;
      const msg = unhex(v.msg),
        sig = unhex(v.sig);
      const got = verdict(() => c.verify(sig, msg, pk, { hash }));
      if (v.result === 'valid') {
        if (got !== true) t.failures.push(`${where}: valid, got ${got}`);
        else t.valid++;
        // the same signature as r ‖ s
        const p1363 = derToP1363(sig, c.privateKeyBytes);
        if (p1363 && verdict(() => c.verify(p1363, msg, pk, { hash, format: 'p1363' })) !== true) t.failures.push(`${where}: valid, its P1363 form does not verify`);
        else if (p1363) t.p1363++;
      } else if (v.result === 'invalid') {
        if (got === true) t.failures.push(`${where}: invalid, but it verified`);
        else if (got === false) t.invalidFalse++;
        else t.invalidThrown[got] = (t.invalidThrown[got] ?? 0) + 1;
      } else {
        t.failures.push(`${where}: an acceptable case, and no policy for it`);
      }
    }
  }
  return t;
}

/** A DER ECDSA-Sig-Value (as written by a correct signer) → r ‖ s, or undefined if it is not that. */
export function derToP1363(sig: Uint8Array, len: number): Uint8Array | undefined {
  if (sig.length < 8 || sig[0] !== 0x30) return undefined;
  let o: number;
  if (sig[1] < 0x80) o = 2;
  else if (sig[1] === 0x81) o = 3;
  else return undefined;
  const out = new Uint8Array(2 * len);
  for (let i = 0; i < 2; i++) {
    if (sig[o] !== 2 || sig[o + 1] >= 0x80) return undefined;
    const l = sig[o + 1];
    let v = sig.subarray(o + 2, o + 2 + l);
    while (v.length > 1 && v[0] === 0) v = v.subarray(1);
    if (v.length > len) return undefined;
    out.set(v, (i + 1) * len - v.length);
    o += 2 + l;
  }
  return o === sig.length ? out : undefined;
}

// ---- signatures around edge values of r ---------------------------------------------------------

export interface EdgeVector {
  what: string;
  r: bigint;
  s: bigint;
  msg: Uint8Array;
  publicKey: Uint8Array;
}

const edgeCache = new Map<CurveName, EdgeVector[]>();

/**
 * Valid signatures whose r sits at an edge: the smallest r with a point of x-coordinate r, the
 * largest r < n with one, and the smallest r whose point has x = r + n (the verifier must try
 * r + n when it is below p). Built backwards: choose R = (x, y) and s, then the public key
 * Q = (r/s)⁻¹·(R − (z/s)·G) makes (r, s) a valid signature of msg (SEC 1 section 4.1.4).
 */
export function edgeVectors(name: CurveName, hash: Hash): EdgeVector[] {
  const cached = edgeCache.get(name);
  if (cached) return cached;
  const c = CURVES[name];
  const { p, n } = c;
  const G = generator(c);
  const pointAt = (x: bigint) => {
    if (x >= p) return undefined;
    const y = sqrtMod(mod(x * x * x + c.a * x + c.b, p), p);
    return y === undefined ? undefined : { x, y };
  };
  const qlen = n.toString(2).length;
  const msg = new TextEncoder().encode(`edge case for ${name}`);
  const h = hash(msg);
  let z = bytesToBig(h);
  if (8 * h.length > qlen) z >>= BigInt(8 * h.length - qlen);
  const out: EdgeVector[] = [];
  const build = (what: string, r: bigint, x: bigint) => {
    const R = pointAt(x)!;
    const s = mod(0x1d5b2f7e9c3a4b6dn * (r + 7n), n) || 1n;
    const w = invMod(s, n);
    const u1 = mod(z * w, n),
      u2 = mod(r * w, n);
    const Q = mulProj(c, invMod(u2, n), add(c, R, negate(c, mulProj(c, u1, G))));
    out.push({ what, r, s, msg, publicKey: encodePoint(c, Q) });
  };
  let r = 1n;
  while (!pointAt(r)) r++;
  build(`r = ${r} (the smallest r with x = r)`, r, r);
  r = n - 1n;
  while (!pointAt(r)) r--;
  build(`r = n − ${n - r} (the largest r < n with x = r)`, r, r);
  r = 1n;
  while (r + n < p && !pointAt(r + n)) r++;
  if (r + n < p) build(`r = ${r}, x = r + n (the reduction mod n in the comparison)`, r, r + n);
  edgeCache.set(name, out);
  return out;
}

/** Each edge vector must verify (DER and P1363); with r + n or s + n instead, it must not. */
export function edgePart(c: EcdsaCurve, name: CurveName): Outcome {
  const out: Outcome = { total: 0, failures: [] };
  const L = c.privateKeyBytes;
  const hash = c.ecdsaHash;
  const der = (r: bigint, s: bigint) => {
    const int = (v: bigint) => {
      let b = bigToBytes(v, L + 1);
      while (b.length > 1 && b[0] === 0 && b[1] < 0x80) b = b.subarray(1);
      return [2, b.length, ...b];
    };
    const body = [...int(r), ...int(s)];
    return Uint8Array.from([0x30, ...(body.length < 128 ? [body.length] : [0x81, body.length]), ...body]);
  };
  for (const v of edgeVectors(name, hash)) {
    const p1363 = new Uint8Array([...bigToBytes(v.r, L), ...bigToBytes(v.s, L)]);
    out.total += 4;
    if (verdict(() => c.verify(der(v.r, v.s), v.msg, v.publicKey)) !== true) out.failures.push(`edge ${name} ${v.what}: DER does not verify`);
    if (verdict(() => c.verify(p1363, v.msg, v.publicKey, { format: 'p1363' })) !== true) out.failures.push(`edge ${name} ${v.what}: P1363 does not verify`);
    if (verdict(() => c.verify(der(v.r + CURVES[name].n, v.s), v.msg, v.publicKey)) === true) out.failures.push(`edge ${name} ${v.what}: r + n verified`);
    if (verdict(() => c.verify(der(v.r, v.s + CURVES[name].n), v.msg, v.publicKey)) === true) out.failures.push(`edge ${name} ${v.what}: s + n verified`);
  }
  return out;
}

// ---- OpenSSL (node:crypto) ----------------------------------------------------------------------

export function nodeKeys(c: EcdsaCurve, sk: Uint8Array) {
  const pk = c.getPublicKey(sk);
  return {
    pk,
    priv: crypto.createPrivateKey({ key: Buffer.from(c.exportPrivateKey(sk, 'pkcs8-der')), format: 'der', type: 'pkcs8' }),
    pub: crypto.createPublicKey({ key: Buffer.from(c.exportPublicKey(pk, 'spki-der')), format: 'der', type: 'spki' }),
  };
}

/** A private key from seeded bytes (the first candidate below n). */
export function seededKey(c: EcdsaCurve, rng: Rng): Uint8Array {
  for (;;) {
    const sk = rng.bytes(c.privateKeyBytes);
    const bits = c.params.n.toString(2).length % 8;
    if (bits) sk[0] &= (1 << bits) - 1;
    if (c.isValidPrivateKey(sk)) return sk;
  }
}

/** Flip one bit of an integer of a DER signature (r or s, chosen by the index), keeping the DER valid. */
function tamperDer(sig: Uint8Array, which: number): Uint8Array {
  const t = sig.slice();
  const off = sig[1] === 0x81 ? 3 : 2;
  const rl = t[off + 1];
  const pos = which % 2 === 0 ? off + 2 + rl - 1 : off + 2 + rl + 2 + t[off + 2 + rl + 1] - 1; // last byte of r or s
  t[pos] ^= 1 << (which % 8);
  return t;
}

/**
 * `count` signatures each way per encoding: ctkit signs, OpenSSL verifies; OpenSSL signs,
 * ctkit verifies; and every tenth of each, tampered (a bit of r or s, or of the message), is
 * rejected by both. Keys and messages from the seed; both hashes the curve commonly uses.
 */
export function opensslPart(c: EcdsaCurve, name: CurveName, count: number, seed = 7): Outcome {
  const out: Outcome = { total: 0, failures: [] };
  const rng = new Rng(seed);
  const hashes: Hash[] = [c.ecdsaHash, ...(c.ecdsaHash === sha256 ? [sha384] : [sha256])];
  const keyEvery = 10; // a fresh key every 10 signatures
  let keys = nodeKeys(c, seededKey(c, rng));
  let sk: Uint8Array = new Uint8Array(0);
  for (const format of ['der', 'p1363'] as const) {
    const dsaEncoding = format === 'der' ? 'der' : 'ieee-p1363';
    for (let i = 0; i < count; i++) {
      if (i % keyEvery === 0) {
        sk = seededKey(c, rng);
        keys = nodeKeys(c, sk);
      }
      const hash = hashes[i % hashes.length];
      const msg = rng.bytes(rng.int(200));
      const where = `openssl ${name} ${format} #${i} ${hash.algorithm}`;
      // ctkit → OpenSSL
      const mine = c.sign(msg, sk, { hash, format, extraEntropy: i % 3 === 0 });
      out.total++;
      if (!crypto.verify(nodeHash(hash), msg, { key: keys.pub, dsaEncoding }, mine)) out.failures.push(`${where}: OpenSSL rejects ctkit's signature ${hex(mine)}`);
      // OpenSSL → ctkit
      const theirs = new Uint8Array(crypto.sign(nodeHash(hash), msg, { key: keys.priv, dsaEncoding }));
      out.total++;
      const v = verdict(() => c.verify(theirs, msg, keys.pk, { hash, format }));
      if (v !== true) out.failures.push(`${where}: ctkit says ${v} to OpenSSL's signature ${hex(theirs)}`);
      if (i % 10 === 0) {
        for (const [what, sig, m] of [
          ['ctkit', mine, msg],
          ['OpenSSL', theirs, msg],
        ] as const) {
          const bad =
            format === 'der'
              ? tamperDer(sig, i / 10)
              : (() => {
                  const t = sig.slice();
                  t[(i / 10) % t.length] ^= 0x40;
                  return t;
                })();
          const badMsg = Uint8Array.from([...m, 1]);
          for (const [s2, m2, how] of [
            [bad, m, 'signature'],
            [sig, badMsg, 'message'],
          ] as const) {
            out.total += 2;
            if (crypto.verify(nodeHash(hash), m2, { key: keys.pub, dsaEncoding }, s2)) out.failures.push(`${where}: OpenSSL accepts ${what}'s signature with a tampered ${how}`);
            const v2 = verdict(() => c.verify(s2, m2, keys.pk, { hash, format }));
            if (v2 === true) out.failures.push(`${where}: ctkit accepts ${what}'s signature with a tampered ${how}`);
          }
        }
      }
    }
  }
  return out;
}

/** The whole suite on one curve object (smaller counts: for the negative controls). */
export function ecdsaSuite(c: EcdsaCurve, name: CurveName, opts: { openssl: number; wycheproofEvery: number }): Outcome {
  return merge(rfc6979Part(c, name), ...WYCHEPROOF_FILES[name].map((f) => wycheproofPart(c, f, opts.wycheproofEvery)), edgePart(c, name), opensslPart(c, name, opts.openssl, 99));
}

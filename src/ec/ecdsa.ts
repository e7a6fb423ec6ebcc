// ECDSA (FIPS 186-5 section 6.4, SEC 1 v2 section 4.1) on every curve, attached to the curve
// objects by withEcdsa(): sign(msg, privateKey, options) and verify(signature, msg, publicKey,
// options). The arithmetic runs in the curve's kernel module (src/kernels/ecdsa_straus_wnaf.ts);
// this file hashes, derives the nonce, encodes and checks.
//
// Nonces: RFC 6979 section 3.2 (HMAC-DRBG with the signature's hash, keyed by the private key and
// bits2octets(H(m))), with section 3.6's additional data when `extraEntropy` is given (true: 32
// bytes from crypto.getRandomValues; or the caller's bytes), so a repeated or faulty random
// source never repeats a nonce for different messages. bits2int, int2octets and bits2octets are
// the RFC's, for every hash/curve pair (hash longer or shorter than the order, P-521's 521 bits).
// A candidate outside [1, n − 1], or one that gives r = 0 or s = 0, is rejected and the DRBG
// continues, as the RFC says.
//
// Signatures are not normalised to low s (s ≤ n/2): an ECDSA signature (r, s) and (r, n − s) are
// both valid, and ctkit returns what the algorithm gives, as OpenSSL does. `lowS: true` (for
// secp256k1 users: BIP 62/146) makes sign() return the low-s form and verify() refuse high s.
//
// Errors: sign() and verify() throw for malformed arguments — TypeError (not a Uint8Array, not a
// ctkit hash, bad option type), RangeError (a wrong length: private key, public key, a P1363
// signature, a prehashed digest; an unknown format), EncodingError (a signature that is not strict
// DER when DER was asked for; a public key with a wrong prefix), InvalidKeyError (a private key
// outside [1, n − 1]; a public key that is not a point of this curve: a key of another curve of
// the same size lands here). verify() returns false for a well-formed signature that does not
// verify, including r or s outside [1, n − 1] (0, n, or a DER INTEGER longer than n).
//
// Constant time (signing): the private key and the nonce move by position only (copies into
// WebAssembly memory, HMAC inputs, bits2int's shifts by public amounts); every operation on
// their values runs in a kernel — HMAC in the sha2 module, k·G, k⁻¹ and s = k⁻¹(z + r·d) in the
// curve's (ecdsa_sign). The glue branches on lengths and on the kernel's accept/reject of a
// candidate nonce (the RFC's rejection sampling: it reveals only that a discarded candidate was
// out of range). Buffers that held K, V, T, k or d are wiped. Verification handles public data
// only and runs variable-time kernel code (ecdsa_verify), as DESIGN.md allows.

import { SCRATCH_PTR } from '../engine/kernel.js';
import { CtkitError, EncodingError, InvalidKeyError, CtkitTypeError, CtkitRangeError } from '../errors.js';
import { hmac } from '../hash/hmac.js';
import { type Hash, hashInfo } from '../hash/sha2.js';
import { checkBytes, checkLength, copyBytes, isBytes } from '../util/check.js';
import { takeSeams } from '../util/seam.js';
import { type Curve, curveKernel } from './curve.js';
import { DerReader, TAG, concat, der } from './der.js';
import type { EcKernel } from './kernel.js';
import { fieldBytes, scalarBytes } from '../curves/params.js';

export type SignatureFormat = 'der' | 'p1363';

export interface SignOptions {
  /** the hash of the message and of RFC 6979's HMAC-DRBG (default: the curve's, see README) */
  hash?: Hash;
  /** 'der' (default): ECDSA-Sig-Value, SEQUENCE { r INTEGER, s INTEGER }; 'p1363': r ‖ s, fixed length */
  format?: SignatureFormat;
  /** msg is already the hash's digest (exactly hash.outputLen bytes) */
  prehashed?: boolean;
  /** hedged nonces (RFC 6979 section 3.6): true for 32 fresh random bytes, or the bytes to mix in */
  extraEntropy?: boolean | Uint8Array;
  /** return the low-s form (s ≤ (n − 1)/2) */
  lowS?: boolean;
}

export interface VerifyOptions {
  hash?: Hash;
  format?: SignatureFormat;
  prehashed?: boolean;
  /** refuse (return false for) signatures with s > (n − 1)/2 */
  lowS?: boolean;
}

export interface Ecdsa {
  /** The curve's default hash: SHA-256, SHA-224 (P-224), SHA-384 (P-384, brainpoolP384r1) or SHA-512 (P-521, brainpoolP512r1). */
  readonly ecdsaHash: Hash;
  /** Bytes of a P1363 signature (r ‖ s). */
  readonly signatureBytes: number;
  /** An ECDSA signature of msg with RFC 6979 nonces (deterministic unless extraEntropy is given). */
  sign(msg: Uint8Array, privateKey: Uint8Array, options?: SignOptions): Uint8Array<ArrayBuffer>;
  /** Does signature verify for msg under publicKey (SEC 1, compressed or not)? Throws for malformed arguments. */
  verify(signature: Uint8Array, msg: Uint8Array, publicKey: Uint8Array, options?: VerifyOptions): boolean;
}

export type EcdsaCurve = Curve & Ecdsa;

/** Deliberately broken variants, for the negative controls of the tests only (src/internal.ts). */
export interface EcdsaTestFlags {
  /** bits2int takes the whole hash as an integer (reduced mod n) instead of its leftmost bits(n) bits */
  noTruncation?: boolean;
  /** the range check of r is off by one: it refuses r = n − 1 */
  rCheckOffByOne?: boolean;
}

// IO-area offsets, inside the [0, 2048) that EcKernel.wipe() clears
const IO_K = 0,
  IO_D = 128,
  IO_XY = 256,
  IO_OUT = 512,
  IO_Z = 1024,
  IO_RS = 1280;
/** Bytes of the verification table of G while it is built (64 Jacobian points; see the generator). */
const GTABLE_BUILD = (FE: number) => 64 * 3 * FE;

const gtables = new WeakMap<EcKernel, number>();

/** The G table of ecdsa_verify (public data, built on first use, kept for the process's life). */
function gtable(e: EcKernel): number {
  let t = gtables.get(e);
  if (t === undefined) {
    if (GTABLE_BUILD(e.FE) > e.k.slotSize) throw new Error('ecdsa: verification table larger than a slot');
    t = e.k.allocSlot();
    e.x.ecdsa_gtable(t, SCRATCH_PTR);
    e.k.wipe(SCRATCH_PTR, e.wsSize);
    gtables.set(e, t);
  }
  return t;
}

const bytesToBig = (b: Uint8Array): bigint => {
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  return v;
};
const bigToBytes = (v: bigint, len: number): Uint8Array<ArrayBuffer> => {
  const out = new Uint8Array(len);
  for (let i = len - 1; i >= 0; i--, v >>= 8n) out[i] = Number(v & 0xffn);
  return out;
};
/** Big-endian comparison of equal-length byte strings (public data only). */
const compare = (a: Uint8Array, b: Uint8Array): number => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
};

/**
 * RFC 6979 section 2.3.2 bits2int, as `len` big-endian bytes: the leftmost qlen bits of b (b
 * shifted right by 8·|b| − qlen when longer, zero-extended when shorter). Moves bits by position
 * only: the shifts depend on the lengths, never on the contents.
 */
export function bits2int(b: Uint8Array, qlen: number, len: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(len);
  const blen = 8 * b.length;
  if (blen <= qlen) {
    out.set(b, len - b.length);
    return out;
  }
  const shift = blen - qlen,
    byteShift = shift >> 3,
    bitShift = shift & 7;
  for (let i = 0; i < len; i++) {
    const j = b.length - 1 - byteShift - i; // the byte that holds the low bits of out[len − 1 − i]
    const lo = j >= 0 ? b[j] >> bitShift : 0;
    const hi = bitShift !== 0 && j >= 1 ? (b[j - 1] << (8 - bitShift)) & 0xff : 0;
    out[len - 1 - i] = lo | hi;
  }
  return out;
}

/** Minimal DER INTEGER contents of a non-negative big-endian value. */
function derUint(v: Uint8Array): Uint8Array<ArrayBuffer> {
  let i = 0;
  while (i < v.length - 1 && v[i] === 0) i++;
  const body = v.subarray(i);
  return der(TAG.INTEGER, body[0] >= 0x80 ? concat([Uint8Array.of(0), body]) : body) as Uint8Array<ArrayBuffer>; // der() builds new arrays
}

/**
 * Strict DER ECDSA-Sig-Value → r and s as `len`-byte strings, or undefined when one of them is
 * a positive INTEGER too long for the order (well-formed, so verify() says false). Throws
 * EncodingError for anything that is not strict DER, and for negative integers.
 */
function parseDer(sig: Uint8Array, len: number): { r: Uint8Array; s: Uint8Array } | undefined {
  const what = 'signature (DER ECDSA-Sig-Value)';
  const top = new DerReader(sig, what);
  const seq = top.read(TAG.SEQUENCE, 'ECDSA-Sig-Value');
  top.end(what);
  const int = (name: string): Uint8Array | undefined => {
    const b = seq.read(TAG.INTEGER, name).rest();
    if (b.length === 0) throw new EncodingError(`${what}: ${name} is an INTEGER with no content bytes`);
    if (b.length > 1 && ((b[0] === 0 && b[1] < 0x80) || (b[0] === 0xff && b[1] >= 0x80))) throw new EncodingError(`${what}: ${name} is not in its shortest form (BER, not DER)`);
    if (b[0] >= 0x80) throw new EncodingError(`${what}: ${name} is negative`);
    const v = b[0] === 0 && b.length > 1 ? b.subarray(1) : b;
    if (v.length > len) return undefined;
    const out = new Uint8Array(len);
    out.set(v, len - v.length);
    return out;
  };
  const r = int('r');
  const s = int('s');
  seq.end('ECDSA-Sig-Value');
  return r && s ? { r, s } : undefined;
}

/** Adds sign() and verify() to a curve object (and returns it). */
export function withEcdsa<C extends Curve>(curve: C, defaultHash: Hash): C & Ecdsa {
  const testFlags = takeSeams<EcdsaTestFlags>();
  const params = curve.params;
  const name = curve.name;
  const Ls = scalarBytes(params);
  const L = fieldBytes(params);
  if (L !== Ls) throw new Error(`ecdsa: ${name} has field and scalar encodings of different lengths`);
  const qlen = params.n.toString(2).length;
  const nBytes = bigToBytes(params.n, Ls);
  // r must be below this bound; r + n < p decides whether x = r + n is a candidate too
  const rBound = testFlags.rCheckOffByOne ? bigToBytes(params.n - 1n, Ls) : nBytes;
  const pMinusN = bigToBytes(params.p - params.n, Ls);
  const halfN = params.n >> 1n;
  const zero = new Uint8Array(Ls);
  hashInfo(defaultHash);

  const toInt = testFlags.noTruncation
    ? (b: Uint8Array) => bigToBytes(bytesToBig(b) % params.n, Ls) // broken on purpose (tests only)
    : (b: Uint8Array) => bits2int(b, qlen, Ls);

  const kern = () => curveKernel(curve);

  function options(o: SignOptions | VerifyOptions | undefined) {
    if (o === undefined) o = {};
    if (typeof o !== 'object' || o === null) throw new CtkitTypeError('options must be an object');
    const hash = o.hash ?? defaultHash;
    const info = hashInfo(hash);
    const format = o.format ?? 'der';
    if (format !== 'der' && format !== 'p1363') throw new CtkitRangeError(`format must be 'der' or 'p1363', got ${JSON.stringify(format)}`);
    return { hash, info, format, prehashed: o.prehashed === true, lowS: o.lowS === true };
  }

  function digest(hash: Hash, outputLen: number, msg: Uint8Array, prehashed: boolean): Uint8Array {
    checkBytes('msg', msg);
    if (!prehashed) return hash(msg);
    checkLength('msg (a prehashed digest)', msg, [outputLen]);
    return msg;
  }

  function sign(msg: Uint8Array, privateKey: Uint8Array, opts?: SignOptions): Uint8Array<ArrayBuffer> {
    const o = options(opts);
    const extra = opts?.extraEntropy;
    let added: Uint8Array;
    if (extra === undefined || extra === false) added = new Uint8Array(0);
    else if (extra === true) added = globalThis.crypto.getRandomValues(new Uint8Array(32));
    else if (isBytes(extra)) added = copyBytes(extra);
    else throw new CtkitTypeError('extraEntropy must be a boolean or a Uint8Array');
    checkBytes('privateKey', privateKey);
    checkLength('privateKey', privateKey, [Ls]);
    const e = kern();
    if (!e.scalarOk(privateKey)) throw new InvalidKeyError(`privateKey is not a valid ${name} private key (it must be in [1, n − 1])`);
    const h1 = digest(o.hash, o.info.outputLen, msg, o.prehashed);
    const z = toInt(h1); // bits2int(H(m)); the kernel reduces it mod n
    const hlen = o.info.outputLen;
    const H = (key: Uint8Array, ...data: Uint8Array[]) => {
      const m = data.length === 1 ? data[0] : concat(data);
      const t = hmac(o.hash, key, m);
      if (m !== data[0]) m.fill(0);
      return t;
    };
    // RFC 6979 section 3.2 (with 3.6's additional data)
    const x = copyBytes(privateKey); // int2octets(x): the key is already Ls big-endian bytes
    const h1o = curve.scalarField.reduce(z); // bits2octets(h1) = int2octets(bits2int(h1) mod q)
    let V: Uint8Array = new Uint8Array(hlen).fill(1);
    let K: Uint8Array = new Uint8Array(hlen);
    const T = new Uint8Array(Math.ceil(Ls / hlen) * hlen);
    let k: Uint8Array = new Uint8Array(0);
    const swap = (next: Uint8Array, old: Uint8Array) => {
      old.fill(0);
      return next;
    };
    try {
      K = swap(H(K, V, Uint8Array.of(0), x, h1o, added), K);
      V = swap(H(K, V), V);
      K = swap(H(K, V, Uint8Array.of(1), x, h1o, added), K);
      V = swap(H(K, V), V);
      const tab = e.table(); // may grow the memory: views are taken after it
      for (let attempt = 0; attempt < 1000; attempt++) {
        for (let off = 0; off < Math.ceil(qlen / 8); off += hlen) {
          V = swap(H(K, V), V);
          T.set(V, off);
        }
        k.fill(0);
        k = toInt(T);
        if (e.scalarOk(k)) {
          const u8 = e.k.u8;
          u8.set(k, IO_K);
          u8.set(privateKey, IO_D);
          u8.set(z, IO_Z);
          const ok = e.x.ecdsa_sign(IO_OUT, IO_K, IO_D, IO_Z, tab, SCRATCH_PTR) === 1;
          const rs = u8.slice(IO_OUT, IO_OUT + 2 * Ls);
          e.wipe();
          if (ok) return encode(rs, o.format, o.lowS);
        }
        K = swap(H(K, V, Uint8Array.of(0)), K);
        V = swap(H(K, V), V);
      }
      throw new CtkitError('sign: 1000 nonce candidates rejected in a row');
    } finally {
      for (const b of [x, V, K, T, k, added]) b.fill(0);
    }
  }

  function encode(rs: Uint8Array<ArrayBuffer>, format: SignatureFormat, lowS: boolean): Uint8Array<ArrayBuffer> {
    // r and s are the signature: public from here on
    if (lowS && bytesToBig(rs.subarray(Ls)) > halfN) rs.set(bigToBytes(params.n - bytesToBig(rs.subarray(Ls)), Ls), Ls);
    if (format === 'p1363') return rs;
    return der(TAG.SEQUENCE, derUint(rs.subarray(0, Ls)), derUint(rs.subarray(Ls))) as Uint8Array<ArrayBuffer>;
  }

  function verify(signature: Uint8Array, msg: Uint8Array, publicKey: Uint8Array, opts?: VerifyOptions): boolean {
    const o = options(opts);
    checkBytes('signature', signature);
    checkBytes('msg', msg);
    const xy = curve.decompressPublicKey(publicKey).subarray(1); // validated (SEC 1 3.2.2.1)
    const h = digest(o.hash, o.info.outputLen, msg, o.prehashed);
    let r: Uint8Array, s: Uint8Array;
    if (o.format === 'p1363') {
      checkLength('signature (P1363: r ‖ s)', signature, [2 * Ls]);
      r = signature.subarray(0, Ls);
      s = signature.subarray(Ls);
    } else {
      const rs = parseDer(signature, Ls);
      if (rs === undefined) return false;
      ({ r, s } = rs);
    }
    // r, s ∈ [1, n − 1]
    if (compare(r, zero) === 0 || compare(r, rBound) >= 0) return false;
    if (compare(s, zero) === 0 || compare(s, nBytes) >= 0) return false;
    if (o.lowS && bytesToBig(s) > halfN) return false;
    const z = toInt(h);
    const e = kern();
    const tab = gtable(e);
    const u8 = e.k.u8;
    u8.set(r, IO_RS);
    u8.set(s, IO_RS + Ls);
    u8.set(z, IO_Z);
    u8.set(xy, IO_XY);
    const alt = compare(r, pMinusN) < 0 ? 1 : 0; // r + n < p: x = r + n is possible
    const ok = e.x.ecdsa_verify(IO_RS, IO_Z, IO_XY, tab, SCRATCH_PTR, alt) === 1;
    e.wipe();
    return ok;
  }

  return Object.assign(curve, {
    ecdsaHash: defaultHash,
    signatureBytes: 2 * Ls,
    sign,
    verify,
  });
}

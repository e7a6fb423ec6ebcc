// Ed25519 (RFC 8032 section 5.1): key generation, public keys, deterministic signatures and
// verification, on the ed25519 kernel module (src/kernels/ed25519_module.ts) and ctkit's
// SHA-512, with the key formats of okp.ts.
//
// Keys: a private key is the 32-byte seed of RFC 8032 (what OpenSSL's raw private key is); the
// public key is the 32-byte point encoding. sign(msg, privateKey) is section 5.1.6:
// h = SHA-512(seed), s = h[0..32) clamped, A = s·B, r = SHA-512(h[32..64) ‖ M) mod L,
// R = r·B, k = SHA-512(R ‖ A ‖ M) mod L, S = (r + k·s) mod L.
// signingKey(privateKey) does the first three steps once and keeps s, the prefix h[32..64) and
// A, so that each of its signatures costs one base-point multiplication, not two. A is derived
// from the seed, never taken from the caller: signing with a mismatched A would reveal s
// (two signatures of one message under two A's give k·s and k'·s with the same r).
//
// verify(signature, msg, publicKey, { zip215 }) is section 5.1.7, strict by default: S must be
// below L, A and R canonical encodings, and [S]B = R + [k]A checked by comparing the encoding of
// [S]B − [k]A with R. With zip215: true, the rules of ZIP 215 instead (A and R may be
// non-canonical, the equation is cofactored: [8]([S]B − R − [k]A) = O), as Zcash and
// consensus code need. A signature or key of the wrong length is a CtkitRangeError, a public key
// that is not a point an InvalidKeyError (whatever the signature: the key is decoded first); a
// well-formed signature that does not verify is false.
//
// Ed25519ctx and Ed25519ph (RFC 8032 section 5.1) through the options { context, prehash } of
// sign, signingKey().sign and verify: both hashes of the scheme get the prefix
// dom2(phflag, context) = "SigEd25519 no Ed25519 collisions" ‖ phflag ‖ len(context) ‖ context,
// and Ed25519ph signs PH(M) = SHA-512(M) in place of M. No options: plain Ed25519 (no dom2).
// A context alone selects Ed25519ctx, which needs 1 to 255 bytes (the section's SHOULD NOT be
// empty, made a rule: an empty context would be a fourth scheme, neither Ed25519 nor what the
// caller meant); prehash: true selects Ed25519ph, whose context may be empty (the default). The
// context and the prehashed message are public: they move by position like the message.
//
// Constant time (signing, public keys): the seed, h, s and r move by position only (copies into
// WebAssembly memory, SHA-512 inputs; the clamping masks two bytes); every operation on their
// values runs in the kernels (SHA-512 in the sha2 module, s·B, r·B and S in ed25519's). The
// buffers that held them are wiped. Verification handles public data only and runs
// variable-time kernel code (ed25519_verify), declared in src/ct/vartime.ts.

import * as ed25519Module from '../engine/wasm/ed25519.js';
import { type Ed25519Exports, layout } from '../engine/wasm/ed25519.contract.js';
import { Kernel, SCRATCH_PTR, type ModuleSource, getKernel, registerModule } from '../engine/kernel.js';
import { CtkitRangeError, CtkitTypeError, InvalidKeyError, StateError } from '../errors.js';
import { type Hash, sha512 as shippedSha512 } from '../hash/sha2.js';
import { checkBytes, checkLength, checkOptions } from '../util/check.js';
import { type OkpFormats, okpFormats } from './okp.js';

/** IO-area offsets (A: the public key sign derives; DG: verification's digits, 256 signed bytes for S, then 256 for k). */
const IO = { S: 0, OUT: 32, H: 64, R: 128, K: 160, SIG: 192, PK: 256, A: 288, DG: 320, END: 832 } as const;
/** one engine slot: the comb's table, then verification's odd multiples of B (40 + 10 KB on pairs, 32 + 8 KB on single elements) */
const TABLE_SLOT = 50 * 1024;
/** messages up to this length are hashed from a joined copy (one call), longer ones incrementally */
const SHORT = 1024;
/** the 32 ASCII bytes dom2 starts with (RFC 8032 section 5.1); not by TextEncoder, which Hermes lacks */
const DOM2_TAG = Uint8Array.from('SigEd25519 no Ed25519 collisions', (c) => c.charCodeAt(0));
const NO_DOM = new Uint8Array(0);

/**
 * The width-w NAF of the 32 little-endian bytes b into u8[at … at + 256) as signed bytes: b = Σ d_i·2^i,
 * each d_i zero or odd with |d_i| < 2^(w−1), a nonzero digit followed by w − 1 zeros. For
 * values below 2^253 (S < L, k < L: the carry out of position 255 is then zero). Variable
 * time: verification's public scalars only.
 */
function naf(b: Uint8Array, w: number, u8: Uint8Array, at: number): void {
  u8.fill(0, at, at + 256);
  const bit = (i: number) => (i < 256 ? (b[i >> 3] >> (i & 7)) & 1 : 0);
  let carry = 0;
  for (let i = 0; i < 256; ) {
    if (bit(i) === carry) {
      i++; // digit 0, the carry moves on
      continue;
    }
    let v = carry; // odd: bit i + carry = 1
    for (let j = 0; j < w; j++) v += bit(i + j) << j;
    carry = (v >> (w - 1)) & 1; // v ≥ 2^(w−1): take v − 2^w and carry 2^w
    u8[at + i] = (v - (carry << w)) & 0xff;
    i += w;
  }
}

/** The scheme of RFC 8032 section 5.1: Ed25519 (neither), Ed25519ctx (context) or Ed25519ph (prehash). */
export interface Ed25519Options {
  /** Ed25519ctx's or Ed25519ph's context: 1–255 bytes for Ed25519ctx, 0–255 for Ed25519ph (default empty) */
  context?: Uint8Array;
  /** Ed25519ph: sign or verify SHA-512(msg) under dom2(1, context) (default false) */
  prehash?: boolean;
}

export interface Ed25519VerifyOptions extends Ed25519Options {
  /** ZIP 215's rules instead of RFC 8032's strict ones (default false) */
  zip215?: boolean;
}

/**
 * dom2(phflag, context) for the options (empty for plain Ed25519), after checking them: a
 * context that is not bytes is a CtkitTypeError, one of the wrong length a CtkitRangeError.
 */
function domain(o: Ed25519Options): { dom: Uint8Array; prehash: boolean } {
  if (o.prehash !== undefined && typeof o.prehash !== 'boolean') throw new CtkitTypeError(`options.prehash must be a boolean, got ${typeof o.prehash}`);
  const prehash = o.prehash === true;
  if (o.context === undefined) return { dom: prehash ? dom2(1, NO_DOM) : NO_DOM, prehash };
  checkBytes('options.context', o.context);
  if (o.context.length > 255) throw new CtkitRangeError(`options.context must be at most 255 bytes (RFC 8032 section 5.1), got ${o.context.length}`);
  if (!prehash && o.context.length === 0) throw new CtkitRangeError('options.context must be 1 to 255 bytes for Ed25519ctx (RFC 8032 section 5.1), got 0; leave it out for plain Ed25519');
  return { dom: dom2(prehash ? 1 : 0, o.context), prehash };
}

function dom2(phflag: 0 | 1, context: Uint8Array): Uint8Array {
  const d = new Uint8Array(34 + context.length);
  d.set(DOM2_TAG);
  d[32] = phflag;
  d[33] = context.length;
  d.set(context, 34);
  return d;
}

/**
 * A private key prepared for signing many messages: s, the prefix and A are derived once and held
 * (the 64 secret bytes in a JavaScript buffer) until dispose() wipes them. Not tied to garbage collection:
 * a key that is never disposed stays in memory until its buffer is collected.
 */
export interface Ed25519SigningKey {
  /** The public key A (a new copy on each read). */
  readonly publicKey: Uint8Array<ArrayBuffer>;
  /** The same signature as ed25519.sign(msg, privateKey, options); StateError after dispose(). */
  sign(msg: Uint8Array, options?: Ed25519Options): Uint8Array<ArrayBuffer>;
  /** Wipe the held secrets. Idempotent. */
  dispose(): void;
}

export interface Ed25519 extends OkpFormats {
  readonly privateKeyBytes: 32;
  readonly publicKeyBytes: 32;
  readonly signatureBytes: 64;
  /** 32 random bytes from crypto.getRandomValues (the RFC 8032 seed). */
  generatePrivateKey(): Uint8Array<ArrayBuffer>;
  /** The public key A of a 32-byte private key (seed). */
  getPublicKey(privateKey: Uint8Array): Uint8Array<ArrayBuffer>;
  /** The deterministic signature R ‖ S of msg (RFC 8032 section 5.1.6; Ed25519ctx or Ed25519ph by options). */
  sign(msg: Uint8Array, privateKey: Uint8Array, options?: Ed25519Options): Uint8Array<ArrayBuffer>;
  /** The private key prepared for repeated signing (one base-point multiplication per signature). */
  signingKey(privateKey: Uint8Array): Ed25519SigningKey;
  /** Whether signature is valid for msg under publicKey (section 5.1.7, or ZIP 215's rules; Ed25519ctx or Ed25519ph by options). */
  verify(signature: Uint8Array, msg: Uint8Array, publicKey: Uint8Array, options?: Ed25519VerifyOptions): boolean;
}

const kernels = new WeakMap<Ed25519, () => Kernel<Ed25519Exports>>();
const montgomeryBase = new WeakMap<Ed25519, (privateKey: Uint8Array) => Uint8Array<ArrayBuffer>>();

/**
 * X25519(privateKey, 9) through this object's comb (internal: x25519.ts's getPublicKey). The
 * key is copied into the IO area and clamped by the kernel; the IO area and scratch are wiped.
 */
export function x25519BaseVia(ed: Ed25519, privateKey: Uint8Array): Uint8Array<ArrayBuffer> {
  const f = montgomeryBase.get(ed);
  if (!f) throw new TypeError('not an Ed25519 object');
  return f(privateKey);
}

/** The kernel instance an Ed25519 object runs on (internal: tests watch its memory). */
export function ed25519Kernel(ed: Ed25519): Kernel<Ed25519Exports> {
  const k = kernels.get(ed);
  if (!k) throw new TypeError('not an Ed25519 object');
  return k();
}

/**
 * The Ed25519 object over a build of the ed25519 module (internal: the tests pass broken builds,
 * fresh instances and a SHA-512 on a watched sha2 instance).
 */
export function makeEd25519(src: ModuleSource, fresh = false, sha512: Hash = shippedSha512): Ed25519 {
  registerModule(src);
  let own: Kernel<Ed25519Exports> | undefined;
  // the shared instance of the backend in use, looked up on each call (setBackend applies);
  // each instance gets its own tables, in one slot of it
  const k = (): Kernel<Ed25519Exports> => (fresh ? (own ??= new Kernel<Ed25519Exports>(src, TABLE_SLOT)) : getKernel<Ed25519Exports>(src, TABLE_SLOT));
  const tables = new WeakMap<Kernel<Ed25519Exports>, { table: number; odd: number }>();
  const wsSize = () => k().exports.WS_SIZE.value as number;
  const tablesOf = (e: Kernel<Ed25519Exports>) => {
    let t = tables.get(e);
    if (!t) tables.set(e, (t = { table: -1, odd: -1 }));
    return t;
  };
  /** the comb's table (public data: multiples of B), built on first use */
  const tab = (): number => {
    const e = k();
    const t = tablesOf(e);
    if (t.table < 0) {
      if ((e.exports.TABLE_BYTES.value as number) > TABLE_SLOT) throw new Error('ed25519: the table exceeds its slot');
      const slot = e.allocSlot();
      e.exports.base_table(slot, SCRATCH_PTR);
      e.wipe(SCRATCH_PTR, wsSize());
      t.table = slot;
    }
    return t.table;
  };
  /** verification's table of odd multiples of B (public), built on first use after the comb's */
  const otab = (): number => {
    const e = k();
    const t = tablesOf(e);
    if (t.odd < 0) {
      const at = tab() + (e.exports.TABLE_BYTES.value as number);
      if ((e.exports.TABLE_BYTES.value as number) + (e.exports.ODD_TABLE_BYTES.value as number) > TABLE_SLOT) throw new Error('ed25519: the tables exceed their slot');
      e.exports.base_odd_table(at, SCRATCH_PTR);
      e.wipe(SCRATCH_PTR, wsSize());
      t.odd = at;
    }
    return t.odd;
  };
  const wipe = () => {
    const e = k();
    e.wipe(0, IO.END);
    e.wipe(SCRATCH_PTR, wsSize());
  };

  /**
   * SHA-512(dom ‖ a ‖ b ‖ msg) for dom2 (or nothing) and 32-byte a and b (or none): one call on
   * a joined copy for short messages (the incremental hash costs a slot), incremental for long
   * ones. The copy may hold a secret (the prefix): wiped before it is dropped.
   */
  const hashDom = (dom: Uint8Array, a: Uint8Array, b: Uint8Array | undefined, msg: Uint8Array): Uint8Array => {
    if (msg.length > SHORT) {
      const st = sha512.create().update(dom).update(a);
      if (b) st.update(b);
      return st.update(msg).digest();
    }
    const n = dom.length + (b ? 64 : 32);
    const buf = new Uint8Array(n + msg.length);
    buf.set(dom);
    buf.set(a, dom.length);
    if (b) buf.set(b, dom.length + 32);
    buf.set(msg, n);
    try {
      return sha512(buf);
    } finally {
      buf.fill(0);
    }
  };
  /** dom2 of the (checkOptions-checked) options, and the message the scheme signs: msg, or SHA-512(msg) for Ed25519ph */
  const scheme = (msg: Uint8Array, o: Ed25519Options): { dom: Uint8Array; m: Uint8Array } => {
    const { dom, prehash } = domain(o);
    return { dom, m: prehash ? sha512(msg) : msg };
  };

  /** h = SHA-512(seed); s = clamp(h[0..32)) in the IO area at S; returns h (the caller wipes it) */
  const expand = (seed: Uint8Array): Uint8Array => {
    const h = sha512(seed);
    const u8 = k().u8;
    u8.set(h.subarray(0, 32), IO.S);
    u8[IO.S] &= 248;
    u8[IO.S + 31] = (u8[IO.S + 31] & 127) | 64;
    return h;
  };
  /** encode(s·B) for the 32 bytes at `at` into OUT; returns a copy */
  const base = (at: number): Uint8Array<ArrayBuffer> => {
    const e = k();
    e.exports.ed25519_base(IO.OUT, at, tab(), SCRATCH_PTR);
    return e.u8.slice(IO.OUT, IO.OUT + 32);
  };
  /** the 64-byte digest reduced mod L into the IO area at `to` */
  const reduce = (digest: Uint8Array, to: number): void => {
    const e = k();
    e.u8.set(digest, IO.H);
    e.exports.sc_reduce512(to, IO.H, SCRATCH_PTR);
  };

  function checkKey(name: string, v: unknown): asserts v is Uint8Array {
    checkBytes(name, v);
    checkLength(name, v, [32]);
  }

  /**
   * R ‖ S of msg, with s already at IO.S, the 32-byte prefix, A (or undefined: derived here, from
   * s, in the kernel call that computes R) and dom2 (or nothing) given (section 5.1.6 steps 2–5).
   * The caller wipes the IO area and scratch.
   */
  const signWith = (prefix: Uint8Array, heldA: Uint8Array | undefined, msg: Uint8Array, dom: Uint8Array): Uint8Array<ArrayBuffer> => {
    const e = k();
    // r = SHA-512(dom2 ‖ prefix ‖ M) mod L; R = r·B (and A = s·B beside it, one inversion for both)
    const rd = hashDom(dom, prefix, undefined, msg);
    try {
      reduce(rd, IO.R);
    } finally {
      rd.fill(0);
    }
    let A = heldA;
    let R: Uint8Array;
    if (A) R = base(IO.R);
    else {
      e.exports.ed25519_base2(IO.A, IO.S, IO.OUT, IO.R, tab(), SCRATCH_PTR);
      A = e.u8.subarray(IO.A, IO.A + 32);
      R = e.u8.slice(IO.OUT, IO.OUT + 32);
    }
    // k = SHA-512(dom2 ‖ R ‖ A ‖ M) mod L; S = (r + k·s) mod L
    reduce(hashDom(dom, R, A, msg), IO.K);
    e.exports.sc_muladd(IO.OUT, IO.K, IO.S, IO.R, SCRATCH_PTR);
    const sig = new Uint8Array(64);
    sig.set(R);
    sig.set(e.u8.subarray(IO.OUT, IO.OUT + 32), 32);
    return sig;
  };

  const publicKey = (seed: Uint8Array): Uint8Array<ArrayBuffer> => {
    const h = expand(seed);
    try {
      return base(IO.S);
    } finally {
      h.fill(0);
      wipe();
    }
  };

  const checkPublic = (pk: Uint8Array, what: string): void => {
    const e = k();
    e.u8.set(pk, IO.PK);
    const ok = e.exports.ed25519_check(IO.PK, SCRATCH_PTR) === 1;
    e.wipe(IO.PK, 32);
    if (!ok) throw new InvalidKeyError(`${what} is not the canonical encoding of an Ed25519 point`);
  };

  const formats = okpFormats({ name: 'Ed25519', oid: '1.3.101.112', publicKey, checkPublic });

  const ed: Ed25519 = {
    privateKeyBytes: 32,
    publicKeyBytes: 32,
    signatureBytes: 64,
    ...formats,

    generatePrivateKey() {
      return globalThis.crypto.getRandomValues(new Uint8Array(32));
    },

    getPublicKey(privateKey) {
      checkKey('privateKey', privateKey);
      return publicKey(privateKey);
    },

    sign(msg, privateKey, options) {
      checkBytes('msg', msg);
      checkKey('privateKey', privateKey);
      const { dom, m } = scheme(msg, checkOptions(options));
      const h = expand(privateKey);
      try {
        return signWith(h.subarray(32), undefined, m, dom);
      } finally {
        h.fill(0);
        wipe();
      }
    },

    signingKey(privateKey) {
      checkKey('privateKey', privateKey);
      // held: the secrets s ‖ prefix; A apart (public)
      const held = new Uint8Array(64);
      let A: Uint8Array<ArrayBuffer>;
      const h = expand(privateKey);
      try {
        held.set(k().u8.subarray(IO.S, IO.S + 32));
        held.set(h.subarray(32), 32);
        A = base(IO.S);
      } finally {
        h.fill(0);
        wipe();
      }
      let live = true;
      return {
        get publicKey() {
          return A.slice();
        },
        sign(msg, options) {
          if (!live) throw new StateError('Ed25519 signing key: used after dispose()');
          checkBytes('msg', msg);
          const { dom, m } = scheme(msg, checkOptions(options));
          k().u8.set(held.subarray(0, 32), IO.S);
          try {
            return signWith(held.subarray(32), A, m, dom);
          } finally {
            wipe();
          }
        },
        dispose() {
          live = false;
          held.fill(0);
        },
      };
    },

    verify(signature, msg, publicKey, options) {
      const o = checkOptions(options);
      if (o.zip215 !== undefined && typeof o.zip215 !== 'boolean') throw new CtkitTypeError(`options.zip215 must be a boolean, got ${typeof o.zip215}`);
      checkBytes('signature', signature);
      checkLength('signature', signature, [64]);
      checkBytes('msg', msg);
      checkKey('publicKey', publicKey);
      const { dom, m } = scheme(msg, o);
      const e = k();
      let r: number;
      try {
        const ot = otab();
        reduce(hashDom(dom, signature.subarray(0, 32), publicKey, m), IO.K);
        const u8 = e.u8;
        u8.set(signature, IO.SIG);
        u8.set(publicKey, IO.PK);
        naf(signature.subarray(32), layout.nafS, u8, IO.DG);
        naf(u8.subarray(IO.K, IO.K + 32), layout.nafK, u8, IO.DG + 256);
        r = e.exports.ed25519_verify(IO.SIG, IO.PK, IO.DG, ot, SCRATCH_PTR, o.zip215 === true ? 1 : 0);
      } finally {
        wipe(); // public data only, but the module is left as it was
      }
      if (r === 2) throw new InvalidKeyError(`publicKey is not ${o.zip215 === true ? 'an' : 'the canonical'} encoding of an Ed25519 point`);
      return r === 1;
    },
  };
  kernels.set(ed, k);
  montgomeryBase.set(ed, (privateKey) => {
    const e = k();
    e.u8.set(privateKey, IO.S);
    try {
      e.exports.x25519_base(IO.OUT, IO.S, tab(), SCRATCH_PTR);
      return e.u8.slice(IO.OUT, IO.OUT + 32);
    } finally {
      wipe();
    }
  });
  return ed;
}

/** Ed25519 (RFC 8032). */
export const ed25519: Ed25519 = makeEd25519(ed25519Module);

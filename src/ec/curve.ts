// The per-curve API: key generation, public keys, ECDH and the key formats, over one curve's
// kernel (kernel.ts). A curve object is its parameters plus its kernel module; nothing is
// instantiated or computed until first use.
//
// Private keys are big-endian scalars of exactly ceil(bits(n)/8) bytes in [1, n − 1]. Public keys
// are SEC 1 octet strings (section 2.3.3): 04 ‖ x ‖ y, or 02/03 ‖ x compressed. Every public key
// that enters is validated as SEC 1 section 3.2.2.1 asks (an encoding of this curve, coordinates
// below p, on the curve, not the point at infinity; compressed points decoded).
//
// Key formats (interoperable with OpenSSL and WebCrypto):
//   private: raw scalar, PKCS#8 (RFC 5208/5958, DER or PEM "PRIVATE KEY", the ECPrivateKey inside
//            with the public key and without parameters, as OpenSSL writes it), SEC 1 / RFC 5915
//            ECPrivateKey (DER or PEM "EC PRIVATE KEY", with parameters and public key), JWK;
//   public:  SEC 1 uncompressed or compressed, SubjectPublicKeyInfo (RFC 5480, DER or PEM
//            "PUBLIC KEY"), JWK (RFC 7518; RFC 8812 for secp256k1).
// Explicit curve parameters (instead of the named-curve OID) are refused, as are BER encodings.
// JWK has registered curve names only for P-256, P-384, P-521 and secp256k1; for the other
// curves a JWK export or import is an EncodingError.
//
// Constant time: the private scalar moves by position (copies, DER framing by length) and every
// operation on its value runs in the kernel; the glue branches on public data, on lengths and on
// whether a key is valid (an error either way). The text formats (PEM and JWK) pass the private
// key through der.ts's base64/base64url, which map values and characters by arithmetic on masks,
// not by indexing an alphabet (test/der-base64.test.ts holds them to Node's Buffer).

import { CtkitError, EncodingError, InvalidKeyError, CtkitTypeError, CtkitRangeError } from '../errors.js';
import { type ModuleSource, registerModule } from '../engine/kernel.js';
import { checkBytes, checkLength, checkOptions, copyBytes, isBytes } from '../util/check.js';
import { DerReader, TAG, base64url, der, derBits, derInt, derOid, derTop, pem, unbase64url, unpem } from './der.js';
import { type EcKernel, ScalarField, ecKernel } from './kernel.js';
import { type CurveParams, fieldBytes, scalarBytes } from '../curves/params.js';

export type PrivateKeyFormat = 'raw' | 'pkcs8-der' | 'pkcs8-pem' | 'sec1-der' | 'sec1-pem' | 'jwk';
export type PublicKeyFormat = 'raw' | 'spki-der' | 'spki-pem' | 'jwk';

/** An EC JSON Web Key (RFC 7518 section 6.2). */
export interface EcJwk {
  kty: 'EC';
  crv: string;
  x: string;
  y: string;
  d?: string;
}

export interface PublicKeyOptions {
  /** SEC 1 compressed form (02/03 ‖ x) instead of uncompressed (04 ‖ x ‖ y) */
  compressed?: boolean;
}

export interface PrivateKeyExportOptions {
  /** include the public key in PKCS#8 and SEC 1 encodings (default true, as OpenSSL does) */
  publicKey?: boolean;
}

type Bytes<F> = F extends 'pkcs8-pem' | 'sec1-pem' | 'spki-pem' ? string : F extends 'jwk' ? EcJwk : Uint8Array<ArrayBuffer>;

/** One curve's operations. */
export interface Curve {
  /** ctkit's name: 'p256', 'p224', 'brainpoolP256r1', … */
  readonly name: string;
  readonly params: CurveParams;
  /** bytes of a private key (a scalar) */
  readonly privateKeyBytes: number;
  /** bytes of an uncompressed public key */
  readonly publicKeyBytes: number;
  /** bytes of a compressed public key */
  readonly compressedPublicKeyBytes: number;
  /** bytes of an ECDH shared secret (the x-coordinate) */
  readonly sharedSecretBytes: number;

  /** A uniformly random private key in [1, n − 1] (rejection sampling from crypto.getRandomValues). */
  generatePrivateKey(): Uint8Array<ArrayBuffer>;
  /** The public key of a private key, SEC 1 encoded. */
  getPublicKey(privateKey: Uint8Array, options?: PublicKeyOptions): Uint8Array<ArrayBuffer>;
  /** ECDH (SEC 1 section 3.3.1): the x-coordinate of privateKey·peer, after validating peer. */
  ecdh(privateKey: Uint8Array, peerPublicKey: Uint8Array): Uint8Array<ArrayBuffer>;
  isValidPrivateKey(privateKey: Uint8Array): boolean;
  isValidPublicKey(publicKey: Uint8Array): boolean;
  /** A public key in the other SEC 1 form (validated). */
  compressPublicKey(publicKey: Uint8Array): Uint8Array<ArrayBuffer>;
  decompressPublicKey(publicKey: Uint8Array): Uint8Array<ArrayBuffer>;

  exportPrivateKey<F extends PrivateKeyFormat>(privateKey: Uint8Array, format: F, options?: PrivateKeyExportOptions): Bytes<F>;
  /** A private key (raw scalar) from an encoding; validates it (and its public key, if present). */
  importPrivateKey(data: Uint8Array | string | EcJwk, format: PrivateKeyFormat): Uint8Array<ArrayBuffer>;
  exportPublicKey<F extends PublicKeyFormat>(publicKey: Uint8Array, format: F, options?: PublicKeyOptions): Bytes<F>;
  /** A public key (SEC 1 uncompressed) from an encoding; validates it. */
  importPublicKey(data: Uint8Array | string | EcJwk, format: PublicKeyFormat): Uint8Array<ArrayBuffer>;

  /** Arithmetic modulo the group order n in the kernel. */
  readonly scalarField: ScalarField;
}

// Each curve's kernel, for ctkit's own modules (ECDSA) and tests: its unvalidated ecdh/mul are
// not part of the public API (an invalid-curve attack waits behind a point that was not checked).
const kernels = new WeakMap<Curve, () => EcKernel>();

/** The kernel behind a curve object (internal: not exported by ctkit/ec). */
export function curveKernel(curve: Curve): EcKernel {
  const k = kernels.get(curve);
  if (k === undefined) throw new CtkitTypeError("not one of ctkit's curve objects");
  return k();
}

const OID_EC_PUBLIC_KEY = '1.2.840.10045.2.1';

export function makeCurve(params: CurveParams, src: ModuleSource): Curve {
  registerModule(src); // so that ready() can compile it ahead (browsers); nothing runs here
  const L = fieldBytes(params);
  const Ls = scalarBytes(params);
  const topBits = params.n.toString(2).length - 8 * (Ls - 1);
  const topMask = (1 << topBits) - 1;
  // the instance of the backend in use, looked up on each call (a map lookup), so that
  // setBackend() applies to the shared curve objects too; one ScalarField per instance
  const k = (): EcKernel => ecKernel(params, src);
  const fields = new WeakMap<EcKernel, ScalarField>();
  const name = params.name;

  // ---- keys and points ------------------------------------------------------------------------
  function checkPrivate(sk: unknown, what = 'privateKey'): asserts sk is Uint8Array {
    checkBytes(what, sk);
    checkLength(what, sk, [Ls]);
    if (!k().scalarOk(sk)) throw new InvalidKeyError(`${what} is not a valid ${name} private key (it must be in [1, n − 1])`);
  }

  /** x ‖ y of a validated SEC 1 point. */
  function parsePoint(pk: unknown, what = 'publicKey'): Uint8Array<ArrayBuffer> {
    checkBytes(what, pk);
    const e = k();
    if (pk.length === 1 && pk[0] === 0) throw new InvalidKeyError(`${what} is the point at infinity`);
    checkLength(what, pk, [1 + 2 * L, 1 + L]);
    const prefix = pk[0];
    if (pk.length === 1 + 2 * L) {
      if (prefix !== 4) {
        throw new EncodingError(`${what}: a ${1 + 2 * L}-byte point must start with 04 (uncompressed), not 0x${prefix.toString(16).padStart(2, '0')}${prefix === 6 || prefix === 7 ? ' (hybrid encoding is not supported)' : ''}`);
      }
      const xy = copyBytes(pk.subarray(1)); // not slice(): a view on a Buffer
      if (!e.checkPoint(xy)) throw new InvalidKeyError(`${what} is not a point of ${name} (a coordinate is ≥ p or the point is off the curve)`);
      return xy;
    }
    if (prefix !== 2 && prefix !== 3) throw new EncodingError(`${what}: a ${1 + L}-byte point must start with 02 or 03 (compressed), not 0x${prefix.toString(16).padStart(2, '0')}`);
    const x = pk.subarray(1);
    const y = e.decompress(x, prefix === 3);
    if (y === undefined) throw new InvalidKeyError(`${what} is not a point of ${name} (x is ≥ p or not the x-coordinate of a point)`);
    const xy = new Uint8Array(2 * L);
    xy.set(x);
    xy.set(y, L);
    return xy;
  }

  const encodePoint = (xy: Uint8Array, compressed = false): Uint8Array<ArrayBuffer> => {
    if (compressed) {
      const out = new Uint8Array(1 + L);
      out[0] = 2 | (xy[2 * L - 1] & 1);
      out.set(xy.subarray(0, L), 1);
      return out;
    }
    const out = new Uint8Array(1 + 2 * L);
    out[0] = 4;
    out.set(xy, 1);
    return out;
  };

  const equalBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((v, i) => v === b[i]);

  // ---- DER structures -------------------------------------------------------------------------
  const curveOid = derOid(params.oid);
  const algorithmId = der(TAG.SEQUENCE, derOid(OID_EC_PUBLIC_KEY), curveOid);

  /** The named curve in an AlgorithmIdentifier's or ECPrivateKey's parameters must be ours. */
  const checkCurveParam = (r: DerReader, what: string) => {
    const t = r.peek();
    if (t === TAG.SEQUENCE) throw new EncodingError(`${what}: explicit curve parameters are not supported (only named curves)`);
    if (t === TAG.NULL) throw new EncodingError(`${what}: implicitly-CA curve parameters (NULL) are not supported`);
    const oid = r.oid('namedCurve');
    if (oid !== params.oid) throw new InvalidKeyError(`${what}: the key is for the curve with OID ${oid}, not ${name} (${params.oid})`);
  };

  const readAlgorithm = (r: DerReader, what: string) => {
    const alg = r.read(TAG.SEQUENCE, 'AlgorithmIdentifier');
    const oid = alg.oid('algorithm');
    if (oid !== OID_EC_PUBLIC_KEY) throw new InvalidKeyError(`${what}: not an elliptic-curve key (algorithm ${oid}, expected id-ecPublicKey ${OID_EC_PUBLIC_KEY})`);
    if (alg.done) throw new EncodingError(`${what}: AlgorithmIdentifier without curve parameters`);
    checkCurveParam(alg, what);
    alg.end('AlgorithmIdentifier');
  };

  const ecPrivateKeyDer = (sk: Uint8Array, withParams: boolean, withPublic: boolean): Uint8Array<ArrayBuffer> => {
    const parts = [derInt(1), der(TAG.OCTET_STRING, sk)];
    if (withParams) parts.push(der(TAG.CTX0, curveOid));
    if (withPublic) parts.push(der(TAG.CTX1, derBits(encodePoint(k().publicKey(sk))))); // sk checked by the caller
    return der(TAG.SEQUENCE, ...parts) as Uint8Array<ArrayBuffer>; // der() builds new arrays
  };

  /** RFC 5915 ECPrivateKey → the scalar (validated, and checked against its public key). */
  const parseEcPrivateKey = (bytes: Uint8Array, what: string, base = 0): Uint8Array<ArrayBuffer> => {
    const top = new DerReader(bytes, what, base);
    const r = top.read(TAG.SEQUENCE, 'ECPrivateKey');
    top.end(what);
    const v = r.smallInt('version');
    if (v !== 1) throw new EncodingError(`${what}: ECPrivateKey version ${v}, expected 1`);
    const d = r.octets('privateKey');
    if (r.peek() === TAG.CTX0) {
      const p = r.read(TAG.CTX0, 'parameters');
      checkCurveParam(p, what);
      p.end('parameters');
    }
    if (d.length !== Ls) throw new EncodingError(`${what}: the private key is ${d.length} bytes, ${name} keys are ${Ls} bytes`);
    let pub: Uint8Array | undefined;
    if (r.peek() === TAG.CTX1) {
      const p = r.read(TAG.CTX1, 'publicKey');
      pub = p.bits('publicKey');
      p.end('publicKey');
    }
    r.end('ECPrivateKey');
    const sk = copyBytes(d);
    checkPrivate(sk, `${what}: the private key`);
    if (pub !== undefined) {
      const xy = parsePoint(pub, `${what}: the public key`);
      if (!equalBytes(xy, k().publicKey(sk))) throw new InvalidKeyError(`${what}: the public key does not belong to the private key`);
    }
    return sk;
  };

  const parsePkcs8 = (bytes: Uint8Array): Uint8Array<ArrayBuffer> => {
    const what = 'PKCS#8 private key';
    const r = derTop(bytes, TAG.SEQUENCE, what, 'PrivateKeyInfo');
    const v = r.smallInt('version');
    if (v !== 0) throw new EncodingError(`${what}: version ${v} is not supported (expected 0)`);
    readAlgorithm(r, what);
    const inner = r.octets('privateKey');
    if (r.peek() === TAG.CTX0) r.read(TAG.CTX0, 'attributes'); // allowed; carries nothing for us
    r.end('PrivateKeyInfo');
    return parseEcPrivateKey(inner, `${what} (ECPrivateKey)`);
  };

  const parseSpki = (bytes: Uint8Array): Uint8Array<ArrayBuffer> => {
    const what = 'SubjectPublicKeyInfo';
    const r = derTop(bytes, TAG.SEQUENCE, what, what);
    readAlgorithm(r, what);
    const pk = r.bits('subjectPublicKey');
    r.end(what);
    return parsePoint(pk, `${what}: the public key`);
  };

  // ---- JWK ------------------------------------------------------------------------------------
  const jwkCrv = (): string => {
    if (params.jwk === undefined) throw new EncodingError(`JWK: there is no registered JWK curve name for ${name}`);
    return params.jwk;
  };
  const parseJwk = (j: unknown, needPrivate: boolean): { xy: Uint8Array<ArrayBuffer>; d?: Uint8Array<ArrayBuffer> } => {
    const what = 'JWK';
    if (typeof j !== 'object' || j === null) throw new CtkitTypeError('JWK must be an object');
    const o = j as Record<string, unknown>;
    if (o.kty !== 'EC') throw new InvalidKeyError(`${what}: kty is ${JSON.stringify(o.kty)}, expected "EC"`);
    const crv = jwkCrv();
    if (o.crv !== crv) throw new InvalidKeyError(`${what}: crv is ${JSON.stringify(o.crv)}, expected "${crv}"`);
    const field = (key: 'x' | 'y' | 'd', len: number) => {
      const v = o[key];
      if (typeof v !== 'string') throw new EncodingError(`${what}: member "${key}" is missing or not a string`);
      const b = unbase64url(v, `${what} "${key}"`);
      if (b.length !== len) throw new EncodingError(`${what}: "${key}" is ${b.length} bytes, expected ${len}`);
      return b as Uint8Array<ArrayBuffer>; // a new array
    };
    const xy = new Uint8Array(2 * L);
    xy.set(field('x', L));
    xy.set(field('y', L), L);
    const checked = parsePoint(encodePoint(xy), `${what} public key`);
    if (!needPrivate) return { xy: checked };
    if (o.d === undefined) throw new EncodingError(`${what}: member "d" is missing (not a private key)`);
    const d = field('d', Ls);
    checkPrivate(d, `${what} "d"`);
    if (!equalBytes(xy, k().publicKey(d))) throw new InvalidKeyError(`${what}: x and y do not belong to d`);
    return { xy, d };
  };

  // ---- the curve ------------------------------------------------------------------------------
  const curve: Curve = {
    name,
    params,
    privateKeyBytes: Ls,
    publicKeyBytes: 1 + 2 * L,
    compressedPublicKeyBytes: 1 + L,
    sharedSecretBytes: L,

    generatePrivateKey(): Uint8Array<ArrayBuffer> {
      const e = k();
      const sk = new Uint8Array(Ls);
      for (let i = 0; i < 256; i++) {
        globalThis.crypto.getRandomValues(sk);
        sk[0] &= topMask;
        if (e.scalarOk(sk)) return sk;
      }
      throw new CtkitError('generatePrivateKey: the random generator returned 256 rejected candidates in a row');
    },

    getPublicKey(privateKey, options) {
      const o = checkOptions(options);
      checkPrivate(privateKey);
      return encodePoint(k().publicKey(privateKey), o.compressed === true);
    },

    ecdh(privateKey, peerPublicKey) {
      checkPrivate(privateKey);
      const xy = parsePoint(peerPublicKey, 'peerPublicKey');
      const out = k().ecdh(privateKey, xy);
      if (out === undefined) throw new InvalidKeyError('ecdh: the shared point is the point at infinity');
      return out;
    },

    isValidPrivateKey(privateKey) {
      return isBytes(privateKey) && privateKey.length === Ls && k().scalarOk(privateKey);
    },

    isValidPublicKey(publicKey) {
      try {
        parsePoint(publicKey);
        return true;
      } catch (e) {
        if (e instanceof CtkitError || e instanceof RangeError || e instanceof TypeError) return false;
        throw e;
      }
    },

    compressPublicKey(publicKey) {
      return encodePoint(parsePoint(publicKey), true);
    },

    decompressPublicKey(publicKey) {
      return encodePoint(parsePoint(publicKey), false);
    },

    exportPrivateKey(privateKey, format, options) {
      const o = checkOptions(options);
      checkPrivate(privateKey);
      const withPublic = o.publicKey !== false;
      let out: Uint8Array | string | EcJwk;
      switch (format) {
        case 'raw':
          out = copyBytes(privateKey);
          break;
        case 'pkcs8-der':
        case 'pkcs8-pem': {
          const d = der(TAG.SEQUENCE, derInt(0), algorithmId, der(TAG.OCTET_STRING, ecPrivateKeyDer(privateKey, false, withPublic)));
          out = format === 'pkcs8-der' ? d : pem('PRIVATE KEY', d);
          break;
        }
        case 'sec1-der':
        case 'sec1-pem': {
          const d = ecPrivateKeyDer(privateKey, true, withPublic);
          out = format === 'sec1-der' ? d : pem('EC PRIVATE KEY', d);
          break;
        }
        case 'jwk': {
          const crv = jwkCrv();
          const xy = k().publicKey(privateKey);
          out = { kty: 'EC', crv, x: base64url(xy.subarray(0, L)), y: base64url(xy.subarray(L)), d: base64url(privateKey) };
          break;
        }
        default:
          throw new CtkitRangeError(`format must be one of raw, pkcs8-der, pkcs8-pem, sec1-der, sec1-pem, jwk; got ${JSON.stringify(format)}`);
      }
      return out as Bytes<typeof format>;
    },

    importPrivateKey(data, format) {
      switch (format) {
        case 'raw': {
          checkBytes('data', data);
          const sk = copyBytes(data);
          checkPrivate(sk, 'data');
          return sk;
        }
        case 'pkcs8-der':
          checkBytes('data', data);
          return parsePkcs8(data);
        case 'pkcs8-pem':
          return parsePkcs8(unpem(data as string | Uint8Array, 'PRIVATE KEY', 'PKCS#8 PEM', params.oid));
        case 'sec1-der':
          checkBytes('data', data);
          return parseEcPrivateKey(data, 'SEC 1 private key');
        case 'sec1-pem':
          return parseEcPrivateKey(unpem(data as string | Uint8Array, 'EC PRIVATE KEY', 'SEC 1 PEM', params.oid), 'SEC 1 private key');
        case 'jwk':
          return parseJwk(data, true).d!;
        default:
          throw new CtkitRangeError(`format must be one of raw, pkcs8-der, pkcs8-pem, sec1-der, sec1-pem, jwk; got ${JSON.stringify(format)}`);
      }
    },

    exportPublicKey(publicKey, format, options) {
      const o = checkOptions(options);
      const xy = parsePoint(publicKey);
      let out: Uint8Array | string | EcJwk;
      switch (format) {
        case 'raw':
          out = encodePoint(xy, o.compressed === true);
          break;
        case 'spki-der':
        case 'spki-pem': {
          const d = der(TAG.SEQUENCE, algorithmId, derBits(encodePoint(xy, o.compressed === true)));
          out = format === 'spki-der' ? d : pem('PUBLIC KEY', d);
          break;
        }
        case 'jwk':
          out = { kty: 'EC', crv: jwkCrv(), x: base64url(xy.subarray(0, L)), y: base64url(xy.subarray(L)) };
          break;
        default:
          throw new CtkitRangeError(`format must be one of raw, spki-der, spki-pem, jwk; got ${JSON.stringify(format)}`);
      }
      return out as Bytes<typeof format>;
    },

    importPublicKey(data, format) {
      switch (format) {
        case 'raw':
          return encodePoint(parsePoint(data, 'data'));
        case 'spki-der':
          checkBytes('data', data);
          return encodePoint(parseSpki(data));
        case 'spki-pem':
          return encodePoint(parseSpki(unpem(data as string | Uint8Array, 'PUBLIC KEY', 'SubjectPublicKeyInfo PEM')));
        case 'jwk':
          return encodePoint(parseJwk(data, false).xy);
        default:
          throw new CtkitRangeError(`format must be one of raw, spki-der, spki-pem, jwk; got ${JSON.stringify(format)}`);
      }
    },

    get scalarField() {
      const e = k();
      let f = fields.get(e);
      if (!f) fields.set(e, (f = new ScalarField(e)));
      return f;
    },
  };
  kernels.set(curve, k);
  return curve;
}

// Key formats of the OKP ("octet key pair") algorithms X25519 and Ed25519, as OpenSSL writes and
// reads them: raw 32-byte keys, PKCS#8 (RFC 5208 / RFC 5958 OneAsymmetricKey with RFC 8410's
// CurvePrivateKey, DER or PEM "PRIVATE KEY"), SubjectPublicKeyInfo (RFC 8410, DER or PEM
// "PUBLIC KEY") and JWK (RFC 8037, kty "OKP").
//
// Export writes what `openssl genpkey -algorithm X25519|ED25519` writes: PKCS#8 version 0 without
// the public key (or, with { publicKey: true }, version 1 with it); import accepts both versions
// (a public key present must belong to the private key), refuses AlgorithmIdentifier parameters
// (RFC 8410 section 3: absent) and BER. The private key moves by position only (DER framing by
// length; PEM and JWK through der.ts's constant-time base64).

import { CtkitRangeError, CtkitTypeError, EncodingError, InvalidKeyError } from '../errors.js';
import { checkBytes, checkLength, checkOptions, copyBytes, equalBytes } from '../util/check.js';
import { DerReader, TAG, base64url, der, derBits, derInt, derOid, derTop, pem, unbase64url, unpem } from './der.js';

export type OkpPrivateKeyFormat = 'raw' | 'pkcs8-der' | 'pkcs8-pem' | 'jwk';
export type OkpPublicKeyFormat = 'raw' | 'spki-der' | 'spki-pem' | 'jwk';

/** An OKP JSON Web Key (RFC 8037). */
export interface OkpJwk {
  kty: 'OKP';
  crv: 'X25519' | 'Ed25519';
  x: string;
  d?: string;
}

export interface OkpExportOptions {
  /** PKCS#8 version 1 (OneAsymmetricKey) with the public key; default false, as OpenSSL writes it */
  publicKey?: boolean;
}

type Out<F> = F extends 'pkcs8-pem' | 'spki-pem' ? string : F extends 'jwk' ? OkpJwk : Uint8Array<ArrayBuffer>;

export interface OkpFormats {
  exportPrivateKey<F extends OkpPrivateKeyFormat>(privateKey: Uint8Array, format: F, options?: OkpExportOptions): Out<F>;
  /** The raw private key from an encoding (a public key inside must belong to it). */
  importPrivateKey(data: Uint8Array | string | OkpJwk, format: OkpPrivateKeyFormat): Uint8Array<ArrayBuffer>;
  exportPublicKey<F extends OkpPublicKeyFormat>(publicKey: Uint8Array, format: F): Out<F>;
  /** The raw public key from an encoding (validated). */
  importPublicKey(data: Uint8Array | string | OkpJwk, format: OkpPublicKeyFormat): Uint8Array<ArrayBuffer>;
}

export interface OkpSpec {
  /** the JWK crv and the name in messages */
  name: 'X25519' | 'Ed25519';
  /** RFC 8410 section 3: 1.3.101.110 (X25519), 1.3.101.112 (Ed25519) */
  oid: string;
  /** the public key of a (length-checked) private key */
  publicKey(sk: Uint8Array): Uint8Array<ArrayBuffer>;
  /** throws unless pk (32 bytes) is a valid public key */
  checkPublic(pk: Uint8Array, what: string): void;
}

const KEY = 32;

export function okpFormats(spec: OkpSpec): OkpFormats {
  const { name, oid } = spec;
  const algorithm = der(TAG.SEQUENCE, derOid(oid));

  const readAlgorithm = (r: DerReader, what: string) => {
    const alg = r.read(TAG.SEQUENCE, 'AlgorithmIdentifier');
    const got = alg.oid('algorithm');
    if (got !== oid) throw new InvalidKeyError(`${what}: the key is for the algorithm with OID ${got}, not ${name} (${oid})`);
    if (!alg.done) throw new EncodingError(`${what}: ${name}'s AlgorithmIdentifier must not have parameters (RFC 8410 section 3)`);
  };

  const rawKey = (b: Uint8Array, what: string): Uint8Array<ArrayBuffer> => {
    if (b.length !== KEY) throw new EncodingError(`${what} is ${b.length} bytes, ${name} keys are ${KEY}`);
    return copyBytes(b);
  };

  const parsePkcs8 = (bytes: Uint8Array): Uint8Array<ArrayBuffer> => {
    const what = 'PKCS#8 private key';
    const r = derTop(bytes, TAG.SEQUENCE, what, 'OneAsymmetricKey');
    const v = r.smallInt('version');
    if (v !== 0 && v !== 1) throw new EncodingError(`${what}: version ${v} is not supported (0 or 1)`);
    readAlgorithm(r, what);
    const inner = new DerReader(r.octets('privateKey'), `${what} (CurvePrivateKey)`);
    const sk = rawKey(inner.octets('CurvePrivateKey'), `${what}: the private key`);
    inner.end('CurvePrivateKey');
    if (r.peek() === TAG.CTX0) r.read(TAG.CTX0, 'attributes'); // allowed; carries nothing for us
    if (r.peek() === 0x81) {
      if (v !== 1) throw new EncodingError(`${what}: a public key needs version 1 (OneAsymmetricKey)`);
      const bits = r.read(0x81, 'publicKey').rest();
      if (bits.length !== KEY + 1 || bits[0] !== 0) throw new EncodingError(`${what}: the public key must be a BIT STRING of ${KEY} bytes`);
      if (!equalBytes(bits.subarray(1), spec.publicKey(sk))) {
        sk.fill(0);
        throw new InvalidKeyError(`${what}: the public key does not belong to the private key`);
      }
    }
    r.end('OneAsymmetricKey');
    return sk;
  };

  const parseSpki = (bytes: Uint8Array): Uint8Array<ArrayBuffer> => {
    const what = 'SubjectPublicKeyInfo';
    const r = derTop(bytes, TAG.SEQUENCE, what, what);
    readAlgorithm(r, what);
    const pk = rawKey(r.bits('subjectPublicKey'), `${what}: the public key`);
    r.end(what);
    spec.checkPublic(pk, `${what}: the public key`);
    return pk;
  };

  const parseJwk = (j: unknown, needPrivate: boolean): { x: Uint8Array<ArrayBuffer>; d?: Uint8Array<ArrayBuffer> } => {
    if (typeof j !== 'object' || j === null) throw new CtkitTypeError('JWK must be an object');
    const o = j as Record<string, unknown>;
    if (o.kty !== 'OKP') throw new InvalidKeyError(`JWK: kty is ${JSON.stringify(o.kty)}, expected "OKP"`);
    if (o.crv !== name) throw new InvalidKeyError(`JWK: crv is ${JSON.stringify(o.crv)}, expected "${name}"`);
    const field = (key: 'x' | 'd') => {
      const v = o[key];
      if (typeof v !== 'string') throw new EncodingError(`JWK: member "${key}" is missing or not a string`);
      return rawKey(unbase64url(v, `JWK "${key}"`), `JWK "${key}"`);
    };
    const x = field('x');
    spec.checkPublic(x, 'JWK "x"');
    if (!needPrivate) return { x };
    if (o.d === undefined) throw new EncodingError('JWK: member "d" is missing (not a private key)');
    const d = field('d');
    if (!equalBytes(x, spec.publicKey(d))) {
      d.fill(0);
      throw new InvalidKeyError('JWK: "x" does not belong to "d"');
    }
    return { x, d };
  };

  function checkPrivate(sk: unknown, what: string): asserts sk is Uint8Array {
    checkBytes(what, sk);
    checkLength(what, sk, [KEY]);
  }
  function checkPublic(pk: unknown, what: string): asserts pk is Uint8Array {
    checkBytes(what, pk);
    checkLength(what, pk, [KEY]);
    spec.checkPublic(pk, what);
  }

  return {
    exportPrivateKey(privateKey, format, options) {
      const o = checkOptions(options);
      checkPrivate(privateKey, 'privateKey');
      let out: Uint8Array | string | OkpJwk;
      switch (format) {
        case 'raw':
          out = copyBytes(privateKey);
          break;
        case 'pkcs8-der':
        case 'pkcs8-pem': {
          const inner = der(TAG.OCTET_STRING, der(TAG.OCTET_STRING, privateKey));
          const d = o.publicKey === true ? der(TAG.SEQUENCE, derInt(1), algorithm, inner, der(0x81, Uint8Array.of(0), spec.publicKey(privateKey))) : der(TAG.SEQUENCE, derInt(0), algorithm, inner);
          out = format === 'pkcs8-der' ? d : pem('PRIVATE KEY', d);
          break;
        }
        case 'jwk':
          out = { kty: 'OKP', crv: name, x: base64url(spec.publicKey(privateKey)), d: base64url(privateKey) };
          break;
        default:
          throw new CtkitRangeError(`format must be one of raw, pkcs8-der, pkcs8-pem, jwk; got ${JSON.stringify(format)}`);
      }
      return out as Out<typeof format>;
    },

    importPrivateKey(data, format) {
      switch (format) {
        case 'raw':
          checkPrivate(data, 'data');
          return copyBytes(data);
        case 'pkcs8-der':
          checkBytes('data', data);
          return parsePkcs8(data);
        case 'pkcs8-pem':
          return parsePkcs8(unpem(data as string | Uint8Array, 'PRIVATE KEY', 'PKCS#8 PEM'));
        case 'jwk':
          return parseJwk(data, true).d!;
        default:
          throw new CtkitRangeError(`format must be one of raw, pkcs8-der, pkcs8-pem, jwk; got ${JSON.stringify(format)}`);
      }
    },

    exportPublicKey(publicKey, format) {
      checkPublic(publicKey, 'publicKey');
      let out: Uint8Array | string | OkpJwk;
      switch (format) {
        case 'raw':
          out = copyBytes(publicKey);
          break;
        case 'spki-der':
        case 'spki-pem': {
          const d = der(TAG.SEQUENCE, algorithm, derBits(publicKey));
          out = format === 'spki-der' ? d : pem('PUBLIC KEY', d);
          break;
        }
        case 'jwk':
          out = { kty: 'OKP', crv: name, x: base64url(publicKey) };
          break;
        default:
          throw new CtkitRangeError(`format must be one of raw, spki-der, spki-pem, jwk; got ${JSON.stringify(format)}`);
      }
      return out as Out<typeof format>;
    },

    importPublicKey(data, format) {
      switch (format) {
        case 'raw':
          checkPublic(data, 'data');
          return copyBytes(data);
        case 'spki-der':
          checkBytes('data', data);
          return parseSpki(data);
        case 'spki-pem':
          return parseSpki(unpem(data as string | Uint8Array, 'PUBLIC KEY', 'SubjectPublicKeyInfo PEM'));
        case 'jwk':
          return parseJwk(data, false).x;
        default:
          throw new CtkitRangeError(`format must be one of raw, spki-der, spki-pem, jwk; got ${JSON.stringify(format)}`);
      }
    },
  };
}

// `ctkit keygen --curve`, `ctkit pubkey`, `ctkit ecdh` (and the key loading that `sign` and
// `verify` share): EC key files in the formats OpenSSL and WebCrypto use.
//
// A key file's curve comes from the file itself (the OID in PKCS#8, SEC 1 and SPKI, "crv" in a
// JWK); only raw scalars and raw SEC 1 points need --curve.

import { promises as fsp } from 'node:fs';
import * as ec from '../ec/index.js';
import type { Curve, EcJwk } from '../ec/index.js';
import { Failure, FileError, UsageError } from './errors.js';
import { createSecretFile, reason } from './io.js';

const CURVES: Curve[] = [ec.p256, ec.p224, ec.brainpoolP256r1, ec.p384, ec.p521, ec.secp256k1, ec.brainpoolP384r1, ec.brainpoolP512r1];

/** ctkit's names and the usual aliases (OpenSSL, SEC 2, JWK). */
const ALIASES: Record<string, string> = {
  p256: 'p256', 'p-256': 'p256', prime256v1: 'p256', secp256r1: 'p256',
  p224: 'p224', 'p-224': 'p224', secp224r1: 'p224',
  p384: 'p384', 'p-384': 'p384', secp384r1: 'p384',
  p521: 'p521', 'p-521': 'p521', secp521r1: 'p521',
  secp256k1: 'secp256k1',
  brainpoolp256r1: 'brainpoolP256r1', brainpoolp384r1: 'brainpoolP384r1', brainpoolp512r1: 'brainpoolP512r1',
};

export const CURVE_NAMES = CURVES.map((c) => c.name).join(', ');

export function curveByName(name: string): Curve {
  const canonical = ALIASES[name.toLowerCase()];
  const c = CURVES.find((x) => x.name === canonical);
  if (!c) throw new UsageError(`unknown curve '${name}' (choose one of ${CURVE_NAMES})`);
  return c;
}

export async function readFileOrUsage(path: string, what: string): Promise<Uint8Array> {
  try {
    return new Uint8Array(await fsp.readFile(path));
  } catch (e) {
    throw new FileError(`cannot read ${what} ${path}: ${reason(e)}`);
  }
}

/** The PEM blocks of a text, by label (OpenSSL's `ecparam -genkey` writes EC PARAMETERS first). */
function pemBlocks(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const re = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;
  for (const m of text.matchAll(re)) if (!out.has(m[1])) out.set(m[1], m[0]);
  return out;
}

/** A JWK if the text is a JSON object, undefined if it is not JSON at all. */
function parseJwk(text: string, what: string): EcJwk | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    return JSON.parse(trimmed) as EcJwk;
  } catch {
    throw new Failure(`invalid key: ${what} is not valid JSON`);
  }
}

/** Hex-encoded raw key bytes. */
function parseHex(text: string, what: string): Uint8Array {
  const trimmed = text.trim();
  if (!/^([0-9a-fA-F]{2})+$/.test(trimmed)) throw new Failure(`invalid key: ${what} is not a PEM, JWK or hex key`);
  return Uint8Array.from(Buffer.from(trimmed, 'hex'));
}

function isText(b: Uint8Array): boolean {
  return b.every((x) => x === 9 || x === 10 || x === 13 || (x >= 32 && x < 127));
}

/** Run `f` on each candidate curve; the first that accepts wins; otherwise the most telling error. */
function firstCurve(candidates: Curve[], f: (c: Curve) => Uint8Array, what: string): { curve: Curve; key: Uint8Array } {
  const errors: string[] = [];
  for (const c of candidates) {
    try {
      return { curve: c, key: f(c) };
    } catch (e) {
      errors.push((e as Error).message);
    }
  }
  // "for the curve with OID x, not <ours>" from every curve: a curve ctkit does not have
  const wrongCurve = /the key is for the curve with OID ([0-9.]+)/;
  const telling = errors.find((m) => !wrongCurve.test(m));
  const oid = errors.map((m) => m.match(wrongCurve)?.[1]).find(Boolean);
  if (!telling && oid && candidates.length > 1) throw new Failure(`invalid key: ${what}: unsupported curve (OID ${oid}; ctkit has ${CURVE_NAMES})`);
  throw new Failure(`invalid key: ${what}: ${telling ?? errors[0]}`);
}

export interface LoadedPrivateKey {
  curve: Curve;
  key: Uint8Array;
}

export async function loadPrivateKey(path: string, curveName?: string): Promise<LoadedPrivateKey> {
  const bytes = await readFileOrUsage(path, 'private key');
  const candidates = curveName ? [curveByName(curveName)] : CURVES;
  const what = `private key ${path}`;
  if (isText(bytes)) {
    const text = new TextDecoder().decode(bytes);
    const blocks = pemBlocks(text);
    // the key block, after the EC PARAMETERS block `openssl ecparam -genkey` writes (the library checks it)
    const params = blocks.get('EC PARAMETERS') ?? '';
    if (blocks.has('PRIVATE KEY')) return firstCurve(candidates, (c) => c.importPrivateKey(params + '\n' + blocks.get('PRIVATE KEY')!, 'pkcs8-pem'), what);
    if (blocks.has('EC PRIVATE KEY')) return firstCurve(candidates, (c) => c.importPrivateKey(params + '\n' + blocks.get('EC PRIVATE KEY')!, 'sec1-pem'), what);
    if (blocks.has('ENCRYPTED PRIVATE KEY')) throw new Failure(`invalid key: ${what} is encrypted; decrypt it first (openssl pkcs8 -in ${path})`);
    if (blocks.size) throw new Failure(`invalid key: ${what}: PEM block ${[...blocks.keys()][0]} is not a private key (expected PRIVATE KEY or EC PRIVATE KEY)`);
    const jwk = parseJwk(text, what);
    if (jwk) return firstCurve(candidates, (c) => c.importPrivateKey(jwk, 'jwk'), what);
    const raw = parseHex(text, what);
    if (!curveName) throw new UsageError(`${what} is a raw scalar: say which curve with --curve`);
    return firstCurve(candidates, (c) => c.importPrivateKey(raw, 'raw'), what);
  }
  if (bytes[0] === 0x30) {
    try {
      return firstCurve(candidates, (c) => c.importPrivateKey(bytes, 'pkcs8-der'), what);
    } catch {
      return firstCurve(candidates, (c) => c.importPrivateKey(bytes, 'sec1-der'), what);
    }
  }
  if (!curveName) throw new UsageError(`${what} looks like a raw scalar: say which curve with --curve`);
  return firstCurve(candidates, (c) => c.importPrivateKey(bytes, 'raw'), what);
}

export interface LoadedPublicKey {
  curve: Curve;
  /** SEC 1 uncompressed */
  key: Uint8Array;
}

/** A public key file (SPKI PEM/DER, JWK, raw SEC 1 with --curve), or a private key file's public key. */
export async function loadPublicKey(path: string, curveName?: string): Promise<LoadedPublicKey> {
  const bytes = await readFileOrUsage(path, 'public key');
  const candidates = curveName ? [curveByName(curveName)] : CURVES;
  const what = `public key ${path}`;
  if (isText(bytes)) {
    const text = new TextDecoder().decode(bytes);
    const blocks = pemBlocks(text);
    if (blocks.has('PUBLIC KEY')) return firstCurve(candidates, (c) => c.importPublicKey(blocks.get('PUBLIC KEY')!, 'spki-pem'), what);
    if (blocks.has('PRIVATE KEY') || blocks.has('EC PRIVATE KEY')) {
      const { curve, key } = await loadPrivateKey(path, curveName);
      try {
        return { curve, key: curve.getPublicKey(key) };
      } finally {
        key.fill(0);
      }
    }
    if (blocks.size) throw new Failure(`invalid key: ${what}: PEM block ${[...blocks.keys()][0]} is not a key (expected PUBLIC KEY, PRIVATE KEY or EC PRIVATE KEY)`);
    const jwk = parseJwk(text, what);
    if (jwk) {
      const pub: EcJwk = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
      return firstCurve(candidates, (c) => c.importPublicKey(pub, 'jwk'), what);
    }
    const raw = parseHex(text, what);
    if (!curveName) throw new UsageError(`${what} is a raw (hex) key: say which curve with --curve`);
    // a raw scalar (from `keygen --format raw`) is a private key: its length says so
    if (curveName && raw.length === candidates[0].privateKeyBytes) {
      const sk = candidates[0].importPrivateKey(raw, 'raw');
      raw.fill(0);
      try {
        return { curve: candidates[0], key: candidates[0].getPublicKey(sk) };
      } finally {
        sk.fill(0);
      }
    }
    return firstCurve(candidates, (c) => c.importPublicKey(raw, 'raw'), what);
  }
  if (bytes[0] === 0x30) return firstCurve(candidates, (c) => c.importPublicKey(bytes, 'spki-der'), what);
  return firstCurve(candidates, (c) => c.importPublicKey(bytes, 'raw'), what);
}

/** --format jwk on a curve without a registered JWK name is a usage error (the format cannot be had). */
function jwkOrUsage<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new UsageError(`--format jwk: ${(e as Error).message}`);
  }
}

async function writeSecretFile(path: string | undefined, data: string | Uint8Array): Promise<void> {
  if (path === undefined || path === '-') process.stdout.write(data);
  else await createSecretFile(path, data);
}

export async function keygenCurve(curveName: string, format: string | undefined, out: string | undefined): Promise<void> {
  const curve = curveByName(curveName);
  const fmt = format ?? 'pkcs8';
  const sk = curve.generatePrivateKey();
  try {
    let data: string | Uint8Array;
    switch (fmt) {
      case 'pkcs8': data = curve.exportPrivateKey(sk, 'pkcs8-pem'); break;
      case 'sec1': data = curve.exportPrivateKey(sk, 'sec1-pem'); break;
      case 'jwk': data = JSON.stringify(jwkOrUsage(() => curve.exportPrivateKey(sk, 'jwk'))) + '\n'; break;
      case 'raw': data = Buffer.from(sk).toString('hex') + '\n'; break;
      default: throw new UsageError(`unknown private-key format '${fmt}' (pkcs8, sec1, jwk or raw)`);
    }
    await writeSecretFile(out, data);
  } finally {
    sk.fill(0);
  }
}

export async function pubkey(path: string, format: string | undefined, curveName: string | undefined, out: string | undefined): Promise<void> {
  const { curve, key } = await loadPublicKey(path, curveName);
  let data: string;
  switch (format ?? 'spki') {
    case 'spki': data = curve.exportPublicKey(key, 'spki-pem'); break;
    case 'jwk': data = JSON.stringify(jwkOrUsage(() => curve.exportPublicKey(key, 'jwk'))) + '\n'; break;
    case 'raw': data = Buffer.from(key).toString('hex') + '\n'; break;
    case 'compressed': data = Buffer.from(curve.compressPublicKey(key)).toString('hex') + '\n'; break;
    default: throw new UsageError(`unknown public-key format '${format}' (spki, jwk, raw or compressed)`);
  }
  if (out === undefined || out === '-') process.stdout.write(data);
  else await fsp.writeFile(out, data);
}

export async function ecdh(keyPath: string, peerPath: string, out: string | undefined, curveName?: string): Promise<void> {
  const mine = await loadPrivateKey(keyPath, curveName);
  try {
    const peer = await loadPublicKey(peerPath, curveName ?? mine.curve.name).catch((e) => {
      throw e instanceof Failure ? new Failure(e.message.replace(/^invalid key: /, 'invalid peer key: ')) : e;
    });
    if (peer.curve !== mine.curve) throw new Failure(`invalid peer key: the peer key is on ${peer.curve.name}, the private key on ${mine.curve.name}`);
    const secret = mine.curve.ecdh(mine.key, peer.key);
    try {
      if (out === undefined || out === '-') process.stdout.write(Buffer.from(secret).toString('hex') + '\n');
      else await writeSecretFile(out, secret);
    } finally {
      secret.fill(0);
    }
  } finally {
    mine.key.fill(0);
  }
}

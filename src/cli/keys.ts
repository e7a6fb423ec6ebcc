// `ctkit keygen --curve`, `ctkit pubkey`, `ctkit ecdh` (and the key loading that `sign` and
// `verify` share): EC key files in the formats OpenSSL and WebCrypto use; and the reader of
// `ctkit keygen --aead`'s symmetric key files (for seal and open).
//
// A key file's curve comes from the file itself (the OID in PKCS#8, SEC 1 and SPKI, "crv" in a
// JWK); only raw scalars and raw SEC 1 points need --curve.
//
// Constant time (issue 14 point 7): a private key file is secret text, so nothing here runs a
// regular expression, a string search, JSON.parse, TextDecoder or Buffer over it, nor makes a
// JavaScript string of it. Whether a file is text is computed over every byte with masks and
// branched on once. PEM blocks are framed by their BEGIN and END lines: the scan branches on
// line feeds (the layout) and, per line, once on a mask that says the line starts with
// "-----", which no base64 line does; the block's bytes go to the library's mask-based PEM
// decoder (der.ts). JWKs go through src/util/json-ct.ts (structure only; "d" and "k" as bytes
// to der.ts's base64url decoder), hex through der.ts's hex decoder, binary DER or raw scalars
// are told apart by a mask over the DER framing. Errors, taken only for input that is not a
// valid key, may look as they like.

import { promises as fsp } from 'node:fs';
import * as ec from '../ec/index.js';
import type { Curve, EcJwk } from '../ec/index.js';
import { hex, unbase64urlBytes, unhexBytes } from '../ec/der.js';
import { equalBytes } from '../util/check.js';
import { type JsonObject, scanJsonObject } from '../util/json-ct.js';
import { Failure, FileError, UsageError } from './errors.js';
import { createSecretFile, reason } from './io.js';

const CURVES: Curve[] = [ec.p256, ec.p224, ec.brainpoolP256r1, ec.p384, ec.p521, ec.secp256k1, ec.brainpoolP384r1, ec.brainpoolP512r1];
/** Byte lengths of the curves' raw scalars. */
const SCALAR_LENGTHS = new Set(CURVES.map((c) => c.privateKeyBytes));

/** ctkit's names and the usual aliases (OpenSSL, SEC 2, JWK). */
const ALIASES: Record<string, string> = {
  p256: 'p256',
  'p-256': 'p256',
  prime256v1: 'p256',
  secp256r1: 'p256',
  p224: 'p224',
  'p-224': 'p224',
  secp224r1: 'p224',
  p384: 'p384',
  'p-384': 'p384',
  secp384r1: 'p384',
  p521: 'p521',
  'p-521': 'p521',
  secp521r1: 'p521',
  secp256k1: 'secp256k1',
  brainpoolp256r1: 'brainpoolP256r1',
  brainpoolp384r1: 'brainpoolP384r1',
  brainpoolp512r1: 'brainpoolP512r1',
};

export const CURVE_NAMES = CURVES.map((c) => c.name).join(', ');

function curveByName(name: string): Curve {
  const canonical = ALIASES[name.toLowerCase()];
  const c = CURVES.find((x) => x.name === canonical);
  if (!c) throw new UsageError(`unknown curve '${name}' (choose one of ${CURVE_NAMES})`);
  return c;
}

/** A file's bytes (a copy: the buffer Node.js read into is wiped). */
export async function readFileOrUsage(path: string, what: string): Promise<Uint8Array> {
  let buf: Uint8Array;
  try {
    buf = await fsp.readFile(path);
  } catch (e) {
    throw new FileError(`cannot read ${what} ${path}: ${reason(e)}`);
  }
  const out = new Uint8Array(buf);
  buf.fill(0);
  return out;
}

// ---- text, lines, PEM framing ------------------------------------------------------------------

/** −1 when c = x, else 0 (both in [0, 2^16)), without a branch. */
const eq = (c: number, x: number): number => ((c ^ x) - 1) >> 31;
/** −1 when lo ≤ c ≤ hi, else 0, without a branch. */
const inRange = (c: number, lo: number, hi: number): number => ((lo - 1 - c) & (c - hi - 1)) >> 31;
const isWs = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const ascii = (b: Uint8Array, from: number, to: number) => String.fromCharCode(...b.subarray(from, to));

/** Printable ASCII, tab, CR and LF only: every byte is looked at, the answer is one mask. */
export function isText(b: Uint8Array): boolean {
  let ok = -1;
  for (let i = 0; i < b.length; i++) {
    const c = b[i];
    ok &= eq(c, 9) | eq(c, 10) | eq(c, 13) | inRange(c, 32, 126);
  }
  return ok !== 0;
}

/** [start, end) of b without the whitespace around it (key characters are never whitespace). */
function trim(b: Uint8Array): [number, number] {
  let s = 0,
    e = b.length;
  while (s < e && isWs(b[s])) s++;
  while (e > s && isWs(b[e - 1])) e--;
  return [s, e];
}

/** One PEM block of a text: its label and where it is, from its BEGIN line to the end of its END line. */
interface PemBlock {
  label: string;
  start: number;
  end: number;
  /** the line of its BEGIN line, from 1 */
  line: number;
}

/** An armor line's label: `-----BEGIN <label>-----` (or END), label of A–Z, 0–9 and inner spaces. */
function armorLabel(s: string, word: 'BEGIN' | 'END'): string | undefined {
  const head = `-----${word} `;
  if (!s.startsWith(head) || !s.endsWith('-----') || s.length < head.length + 6) return undefined;
  const label = s.slice(head.length, s.length - 5);
  for (let i = 0; i < label.length; i++) {
    const c = label.charCodeAt(i);
    if (!((c >= 65 && c <= 90) || (c >= 48 && c <= 57) || (c === 32 && i > 0 && i < label.length - 1))) return undefined;
  }
  return label;
}

/**
 * The PEM blocks of a text (RFC 7468: BEGIN and END lines at the start of a line, LF or CRLF;
 * text between blocks is allowed and ignored). A line that starts with "-----" and is not a
 * BEGIN or END line, a BEGIN inside a block, an END without its BEGIN or with another label,
 * and a block without its END line are errors (Failure) saying which line.
 */
function pemBlocks(b: Uint8Array, what: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  let open: { label: string; start: number; line: number } | undefined;
  let line = 0;
  for (let i = 0; i < b.length; ) {
    line++;
    let e = i;
    while (e < b.length && b[e] !== 10) e++; // line feeds are the layout, never a key character
    const le = e > i ? e + eq(b[e - 1], 13) : e; // without the CR of a CRLF
    // five dashes at the start of the line, as a mask: a base64 line never starts with '-'
    let dashes = le - i >= 5 ? -1 : 0;
    for (let k = 0; k < 5; k++) dashes &= eq(b[i + k] ?? 0, 45);
    if (dashes) {
      const s = le - i <= 128 ? ascii(b, i, le) : ''; // an armor line (public); a longer one is not
      const begin = armorLabel(s, 'BEGIN'),
        end = armorLabel(s, 'END');
      if (begin !== undefined) {
        if (open) throw new Failure(`invalid key: ${what}: PEM block ${open.label} (line ${open.line}) has no END line before the BEGIN line at line ${line}`);
        open = { label: begin, start: i, line };
      } else if (end !== undefined) {
        if (!open) throw new Failure(`invalid key: ${what}: line ${line} is an END line without its BEGIN line`);
        if (end !== open.label) throw new Failure(`invalid key: ${what}: PEM block ${open.label} (line ${open.line}) ends with an END line for ${end} (line ${line})`);
        blocks.push({ label: open.label, start: open.start, end: le, line: open.line });
        open = undefined;
      } else {
        throw new Failure(`invalid key: ${what}: line ${line} starts with "-----" but is not a PEM BEGIN or END line`);
      }
    }
    i = e + 1;
  }
  if (open) throw new Failure(`invalid key: ${what}: PEM block ${open.label} (line ${open.line}) has no END line`);
  return blocks;
}

/** The bytes of a block, after the EC PARAMETERS block when there is one (a new array; wipe it). */
function blockBytes(b: Uint8Array, key: PemBlock, params: PemBlock | undefined): Uint8Array {
  const body = b.subarray(key.start, key.end);
  if (!params) return new Uint8Array(body); // a copy (Buffer's slice would be a view)
  const p = b.subarray(params.start, params.end);
  const out = new Uint8Array(p.length + 1 + body.length);
  out.set(p);
  out[p.length] = 10;
  out.set(body, p.length + 1);
  return out;
}

/** Whether the text's first non-whitespace character is '{' (a JWK). */
function looksLikeJson(b: Uint8Array): boolean {
  const [s, e] = trim(b);
  return s < e && eq(b[s], 0x7b) !== 0;
}

/** Hex-encoded raw key bytes (der.ts's hex decoder over the bytes). */
function parseHex(b: Uint8Array, what: string): Uint8Array {
  const [s, e] = trim(b);
  if (s === e) throw new Failure(`invalid key: ${what} is empty`);
  try {
    return unhexBytes(b.subarray(s, e), 'hex');
  } catch (e) {
    throw new Failure(`invalid key: ${what} is not a PEM, JWK or hex key (${(e as Error).message})`);
  }
}

/** Run `f` on each candidate curve; the first that accepts wins; otherwise the most telling error. */
function firstCurve<T = Uint8Array>(candidates: Curve[], f: (c: Curve) => T, what: string): { curve: Curve; key: T } {
  const errors: string[] = [];
  for (const c of candidates) {
    try {
      return { curve: c, key: f(c) };
    } catch (e) {
      errors.push((e as Error).message); // the library's errors: f is one of its imports
    }
  }
  // "for the curve with OID x, not <ours>" from every curve: a curve ctkit does not have
  const wrongCurve = /the key is for the curve with OID ([0-9.]+)/;
  const telling = errors.find((m) => !wrongCurve.test(m));
  const oid = errors.map((m) => m.match(wrongCurve)?.[1]).find(Boolean);
  if (!telling && oid && candidates.length > 1) throw new Failure(`invalid key: ${what}: unsupported curve (OID ${oid}; ctkit has ${CURVE_NAMES})`);
  throw new Failure(`invalid key: ${what}: ${telling ?? errors[0]}`);
}

// ---- JWK ----------------------------------------------------------------------------------------

/** The top-level members of a JSON key file, or a Failure naming what is wrong with the JSON. */
function scanJwk(b: Uint8Array, what: string): JsonObject {
  try {
    return scanJsonObject(b, `${what}: JSON`);
  } catch (e) {
    throw new Failure(`invalid key: ${(e as Error).message}`);
  }
}

/** `f` (a JsonObject's accessor, whose messages name the file), its errors as Failures. */
function member<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new Failure(`invalid key: ${(e as Error).message}`);
  }
}

/** `f`, with the library's errors as Failures about `what`. */
function keyError<T>(what: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof Failure || e instanceof UsageError) throw e;
    throw new Failure(`invalid key: ${what}: ${(e as Error).message}`);
  }
}

/** The curve a JWK's "kty" and "crv" name, among the candidates. */
function jwkCurve(j: JsonObject, candidates: Curve[], what: string): { curve: Curve; crv: string } {
  const kty = member(() => j.text('kty'));
  if (kty !== 'EC') throw new Failure(`invalid key: ${what}: JWK "kty" is ${JSON.stringify(kty) ?? 'missing'}, expected "EC"`);
  const crv = member(() => j.text('crv'));
  if (crv === undefined) throw new Failure(`invalid key: ${what}: JWK member "crv" is missing`);
  const curve = candidates.find((c) => c.params.jwk === crv);
  if (curve) return { curve, crv };
  if (candidates.length === 1) {
    const c = candidates[0];
    if (c.params.jwk === undefined) throw new Failure(`invalid key: ${what}: JWK: there is no registered JWK curve name for ${c.name}`);
    throw new Failure(`invalid key: ${what}: JWK "crv" is ${JSON.stringify(crv)}, expected "${c.params.jwk}" (${c.name})`);
  }
  const names = CURVES.map((c) => c.params.jwk)
    .filter(Boolean)
    .join(', ');
  throw new Failure(`invalid key: ${what}: unsupported JWK curve ${JSON.stringify(crv)} (ctkit has ${names})`);
}

/** An EC private JWK: "d" decoded from its bytes, checked against "x" and "y". */
function parseJwkPrivate(b: Uint8Array, candidates: Curve[], what: string): LoadedPrivateKey {
  const j = scanJwk(b, what);
  const { curve, crv } = jwkCurve(j, candidates, what);
  const dText = member(() => j.secret('d'));
  if (dText === undefined) throw new Failure(`invalid key: ${what}: JWK member "d" is missing (not a private key)`);
  const d = keyError(what, () => unbase64urlBytes(dText, 'JWK "d"'));
  try {
    if (d.length !== curve.privateKeyBytes) throw new Failure(`invalid key: ${what}: JWK "d" is ${d.length} bytes, expected ${curve.privateKeyBytes}`);
    const key = keyError(what, () => curve.importPrivateKey(d, 'raw'));
    try {
      const pub = keyError(what, () => curve.importPublicKey({ kty: 'EC', crv, x: member(() => j.text('x')), y: member(() => j.text('y')) } as EcJwk, 'jwk'));
      if (!equalBytes(pub, curve.getPublicKey(key))) throw new Failure(`invalid key: ${what}: JWK "x" and "y" do not belong to "d"`);
      return { curve, key };
    } catch (e) {
      key.fill(0);
      throw e;
    }
  } finally {
    d.fill(0);
  }
}

// ---- private and public keys ---------------------------------------------------------------------

export interface LoadedPrivateKey {
  curve: Curve;
  key: Uint8Array;
}

/**
 * A private key from a key file's bytes: PKCS#8 or SEC 1 (PEM, with an EC PARAMETERS block
 * before it or not, or DER), JWK, or with a curve name a raw scalar (hex text or binary).
 * `bytes` is left as it was (the caller wipes it).
 */
export function parsePrivateKey(bytes: Uint8Array, what: string, curveName?: string): LoadedPrivateKey {
  const candidates = curveName ? [curveByName(curveName)] : CURVES;
  if (isText(bytes)) {
    const blocks = pemBlocks(bytes, what);
    const keys = blocks.filter((x) => x.label === 'PRIVATE KEY' || x.label === 'EC PRIVATE KEY');
    if (keys.length > 1) throw new Failure(`invalid key: ${what} holds ${keys.length} private keys (at lines ${keys.map((k) => k.line).join(', ')}); keep one`);
    if (keys.length === 1) {
      // the key block, after the EC PARAMETERS block `openssl ecparam -genkey` writes (the library checks it)
      const data = blockBytes(
        bytes,
        keys[0],
        blocks.find((x) => x.label === 'EC PARAMETERS'),
      );
      const format = keys[0].label === 'PRIVATE KEY' ? 'pkcs8-pem' : 'sec1-pem';
      try {
        return firstCurve(candidates, (c) => c.importPrivateKey(data, format), what);
      } finally {
        data.fill(0);
      }
    }
    if (blocks.some((x) => x.label === 'ENCRYPTED PRIVATE KEY')) throw new Failure(`invalid key: ${what} is encrypted; decrypt it first (openssl pkcs8 -in <file>)`);
    if (blocks.length) throw new Failure(`invalid key: ${what}: PEM block ${blocks[0].label} is not a private key (expected PRIVATE KEY or EC PRIVATE KEY)`);
    if (looksLikeJson(bytes)) return parseJwkPrivate(bytes, candidates, what);
    const raw = parseHex(bytes, what);
    try {
      if (!curveName) throw new UsageError(`${what} is a raw scalar: say which curve with --curve`);
      return firstCurve(candidates, (c) => c.importPrivateKey(raw, 'raw'), what);
    } finally {
      raw.fill(0);
    }
  }
  const der = () => {
    try {
      return firstCurve(candidates, (c) => c.importPrivateKey(bytes, 'pkcs8-der'), what);
    } catch {
      return firstCurve(candidates, (c) => c.importPrivateKey(bytes, 'sec1-der'), what);
    }
  };
  const raw = () => firstCurve(candidates, (c) => c.importPrivateKey(bytes, 'raw'), what);
  const rawLength = curveName ? candidates[0].privateKeyBytes : -1;
  const n = bytes.length;
  if (n === rawLength || (!curveName && SCALAR_LENGTHS.has(n))) {
    // A raw scalar's length (28–66 bytes) is DER only when the bytes are framed as exactly one
    // SEQUENCE: 30, then n − 2 in the short form. A mask over the two bytes, branched on once: a
    // raw scalar looks framed with probability about 2^−16 and is then still read as a raw
    // scalar, after the DER fails. Every other length goes to the DER parser or the raw length
    // error below, framed or not, so no other framing needs telling apart.
    if ((eq(bytes[0], 0x30) & eq(bytes[1], n - 2)) !== 0) {
      try {
        return der();
      } catch (e) {
        if (n !== rawLength) throw e;
        return raw(); // a raw scalar that looks like DER framing
      }
    }
    if (n === rawLength) return raw();
    throw new UsageError(`${what} looks like a raw scalar: say which curve with --curve`);
  }
  if (bytes[0] === 0x30) return der(); // not a raw scalar's length: damaged DER, say how
  if (!curveName) throw new UsageError(`${what} looks like a raw scalar: say which curve with --curve`);
  return raw(); // the library says what the length should be
}

export async function loadPrivateKey(path: string, curveName?: string): Promise<LoadedPrivateKey> {
  const bytes = await readFileOrUsage(path, 'private key');
  try {
    return parsePrivateKey(bytes, `private key ${path}`, curveName);
  } finally {
    bytes.fill(0);
  }
}

export interface LoadedPublicKey {
  curve: Curve;
  /** SEC 1 uncompressed */
  key: Uint8Array;
}

/** A public key from a file's bytes (SPKI PEM/DER, JWK, raw SEC 1 with a curve), or a private key file's public key. */
export function parsePublicKey(bytes: Uint8Array, what: string, curveName?: string): LoadedPublicKey {
  const candidates = curveName ? [curveByName(curveName)] : CURVES;
  const fromPrivate = ({ curve, key }: LoadedPrivateKey): LoadedPublicKey => {
    try {
      return { curve, key: curve.getPublicKey(key) };
    } finally {
      key.fill(0);
    }
  };
  if (isText(bytes)) {
    const blocks = pemBlocks(bytes, what);
    const spki = blocks.find((x) => x.label === 'PUBLIC KEY');
    if (spki) return firstCurve(candidates, (c) => c.importPublicKey(bytes.subarray(spki.start, spki.end), 'spki-pem'), what);
    if (blocks.some((x) => x.label === 'PRIVATE KEY' || x.label === 'EC PRIVATE KEY')) return fromPrivate(parsePrivateKey(bytes, what, curveName));
    if (blocks.length) throw new Failure(`invalid key: ${what}: PEM block ${blocks[0].label} is not a key (expected PUBLIC KEY, PRIVATE KEY or EC PRIVATE KEY)`);
    if (looksLikeJson(bytes)) {
      // the public members only: "d", if there is one, is not looked at
      const j = scanJwk(bytes, what);
      const pub = member(() => ({ kty: j.text('kty'), crv: j.text('crv'), x: j.text('x'), y: j.text('y') }) as EcJwk);
      return firstCurve(candidates, (c) => c.importPublicKey(pub, 'jwk'), what);
    }
    const raw = parseHex(bytes, what);
    try {
      if (!curveName) throw new UsageError(`${what} is a raw (hex) key: say which curve with --curve`);
      // a raw scalar (from `keygen --format raw`) is a private key: its length says so
      if (raw.length === candidates[0].privateKeyBytes) return fromPrivate(firstCurve(candidates, (c) => c.importPrivateKey(raw, 'raw'), what));
      return firstCurve(candidates, (c) => c.importPublicKey(raw, 'raw'), what);
    } finally {
      raw.fill(0);
    }
  }
  // binary: a raw scalar (its length says so, as for hex) or a DER private key gives its public key
  if (curveName && bytes.length === candidates[0].privateKeyBytes) return fromPrivate(parsePrivateKey(bytes, what, curveName));
  if (bytes[0] === 0x30) {
    try {
      return firstCurve(candidates, (c) => c.importPublicKey(bytes, 'spki-der'), what);
    } catch (e) {
      // a DER private key gives its public key (parsePrivateKey reads no other binary starting with 30 here)
      try {
        return fromPrivate(parsePrivateKey(bytes, what, curveName));
      } catch {
        throw e; // neither: the SPKI's error
      }
    }
  }
  return firstCurve(candidates, (c) => c.importPublicKey(bytes, 'raw'), what);
}

/** A public key file (SPKI PEM/DER, JWK, raw SEC 1 with --curve), or a private key file's public key. */
export async function loadPublicKey(path: string, curveName?: string): Promise<LoadedPublicKey> {
  const bytes = await readFileOrUsage(path, 'public key');
  try {
    return parsePublicKey(bytes, `public key ${path}`, curveName);
  } finally {
    bytes.fill(0);
  }
}

// ---- symmetric key files: src/cli/aead-key-file.ts (kept apart so that seal/open load no curve)

export { parseAeadKeyFile } from './aead-key-file.js';

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
      case 'pkcs8':
        data = curve.exportPrivateKey(sk, 'pkcs8-pem');
        break;
      case 'sec1':
        data = curve.exportPrivateKey(sk, 'sec1-pem');
        break;
      case 'jwk':
        data = JSON.stringify(jwkOrUsage(() => curve.exportPrivateKey(sk, 'jwk'))) + '\n';
        break;
      case 'raw':
        data = hex(sk) + '\n';
        break; // der.ts: no table indexed by the key's nibbles
      default:
        throw new UsageError(`unknown private-key format '${fmt}' (pkcs8, sec1, jwk or raw)`);
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
    case 'spki':
      data = curve.exportPublicKey(key, 'spki-pem');
      break;
    case 'jwk':
      data = JSON.stringify(jwkOrUsage(() => curve.exportPublicKey(key, 'jwk'))) + '\n';
      break;
    case 'raw':
      data = Buffer.from(key).toString('hex') + '\n';
      break;
    case 'compressed':
      data = Buffer.from(curve.compressPublicKey(key)).toString('hex') + '\n';
      break;
    default:
      throw new UsageError(`unknown public-key format '${format}' (spki, jwk, raw or compressed)`);
  }
  if (out === undefined || out === '-') process.stdout.write(data);
  else await fsp.writeFile(out, data);
}

export async function ecdh(keyPath: string, peerPath: string, out: string | undefined, curveName?: string): Promise<void> {
  const mine = await loadPrivateKey(keyPath, curveName);
  try {
    // read as a key on the private key's curve only: a key on another curve is refused there
    const peer = await loadPublicKey(peerPath, curveName ?? mine.curve.name).catch((e) => {
      throw e instanceof Failure ? new Failure(e.message.replace(/^invalid key: /, 'invalid peer key: ')) : e;
    });
    const secret = mine.curve.ecdh(mine.key, peer.key);
    try {
      if (out === undefined || out === '-') process.stdout.write(hex(secret) + '\n');
      else await writeSecretFile(out, secret);
    } finally {
      secret.fill(0);
    }
  } finally {
    mine.key.fill(0);
  }
}

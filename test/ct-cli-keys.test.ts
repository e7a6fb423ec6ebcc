// Issue 14 point 7: the CLI's key-file readers (src/cli/keys.ts over src/util/json-ct.ts and
// der.ts) decode secret key text without a regular expression, a string search, JSON.parse,
// Buffer or a JavaScript string of the secret, and are strict. Every accepted form loads
// (OpenSSL's PEM and DER, JWK, hex, raw) to the scalar OpenSSL prints; every malformed form is
// a Failure (or a UsageError) whose message names what is wrong; non-canonical base64 is
// refused in PEM, JWK and the AEAD key files. Negative controls: the same cases run against
// deliberately lax readers (the real reader behind JSON.parse/stringify, behind Buffer's
// base64url, behind a PEM regex) must fail, and the spy must see JSON.parse and a regex.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LoadedPrivateKey, isText, parseAeadKeyFile, parsePrivateKey, parsePublicKey } from '../src/cli/keys.js';
import { Failure, UsageError } from '../src/cli/errors.js';
import { scanJsonObject } from '../src/util/json-ct.js';
import { EncodingError } from '../src/errors.js';
import { Rng } from './support/rng.js';

const dir = mkdtempSync(join(tmpdir(), 'ctkit-ct-keys-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const enc = new TextEncoder();
const text = (s: string) => enc.encode(s);

const OPENSSL = 'openssl'; // the external peer (test/cli-keys.test.ts checks it is there)
function openssl(args: string[], input?: Uint8Array): Buffer {
  const r = spawnSync(OPENSSL, args, { cwd: dir, input });
  assert.equal(r.status, 0, `openssl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** The private scalar as OpenSSL prints it (`pkey -text`), L bytes big-endian. */
function opensslScalar(file: string, L: number): Uint8Array {
  const t = openssl(['pkey', '-in', file, '-text', '-noout']).toString();
  const m = /priv:\s*([0-9a-f:\s]+?)\s*pub:/.exec(t);
  assert.ok(m, `no priv: in ${t}`);
  const v = BigInt('0x' + m[1].replace(/[:\s]/g, ''));
  const out = new Uint8Array(L);
  for (let i = L - 1, x = v; i >= 0; i--, x >>= 8n) out[i] = Number(x & 0xffn);
  return out;
}

const b64u = (b: Uint8Array) => Buffer.from(b).toString('base64url');
/** The last character of unpadded base64url changed so that its unused bits are set (QR== style). */
function spoil(s: string): string {
  const alpha = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const unused = s.length % 4 === 2 ? 4 : 2;
  const v = alpha.indexOf(s[s.length - 1]);
  return s.slice(0, -1) + alpha[v | ((1 << unused) - 1)];
}
/** PEM whose base64 has unused bits set in its last character before '='. */
function spoilPem(pem: string): string {
  const lines = pem.split('\n');
  const i = lines.findIndex((l) => l.startsWith('-----END')) - 1;
  const l = lines[i],
    pad = l.length - l.replace(/=+$/, '').length;
  const alpha = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const at = l.length - pad - 1;
  assert.ok(pad > 0, 'a key whose DER length is not a multiple of 3');
  lines[i] = l.slice(0, at) + alpha[alpha.indexOf(l[at]) | ((1 << (2 * pad)) - 1)] + l.slice(at + 1);
  return lines.join('\n');
}

interface Fixture {
  curve: string;
  L: number;
  scalar: Uint8Array;
  forms: [string, Uint8Array, string?][];
  jwk?: Record<string, string>;
}
const fixtures: Fixture[] = [];

test('fixtures: keys made by openssl for P-256, P-384 and brainpoolP256r1', () => {
  for (const [curve, ossl, L, jwkCrv] of [
    ['p256', 'prime256v1', 32, 'P-256'],
    ['p384', 'secp384r1', 48, 'P-384'],
    ['brainpoolP256r1', 'brainpoolP256r1', 32, undefined],
  ] as const) {
    const f = (s: string) => join(dir, `${curve}-${s}`);
    writeFileSync(f('ec.pem'), openssl(['ecparam', '-name', ossl, '-genkey'])); // EC PARAMETERS + EC PRIVATE KEY
    const scalar = opensslScalar(f('ec.pem'), L);
    const pkcs8 = openssl(['pkcs8', '-topk8', '-nocrypt', '-in', f('ec.pem')]);
    const pkcs8Der = openssl(['pkcs8', '-topk8', '-nocrypt', '-in', f('ec.pem'), '-outform', 'DER']);
    const sec1 = openssl(['ec', '-in', f('ec.pem')]);
    const sec1Der = openssl(['ec', '-in', f('ec.pem'), '-outform', 'DER']);
    const ecPem = readFileSync(f('ec.pem'));
    const hexKey = Buffer.from(scalar).toString('hex');
    const forms: [string, Uint8Array, string?][] = [
      ['PKCS#8 PEM', pkcs8],
      ['PKCS#8 PEM, CRLF', text(pkcs8.toString().replace(/\n/g, '\r\n'))],
      ['PKCS#8 PEM, text around it and a certificate after it', text(`Key for ${curve}:\n${pkcs8}\nsubject=whatever\n-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n`)],
      ['SEC 1 PEM', sec1],
      ['SEC 1 PEM after EC PARAMETERS (openssl ecparam -genkey)', ecPem],
      ['PKCS#8 DER', pkcs8Der],
      ['SEC 1 DER', sec1Der],
      ['hex', text(hexKey + '\n'), curve],
      ['hex, upper case, CRLF and spaces', text(`  ${hexKey.toUpperCase()}\r\n`), curve],
      ['raw binary', scalar.slice(), curve],
    ];
    let jwk: Record<string, string> | undefined;
    if (jwkCrv) {
      // the public key from openssl's SPKI: x and y after 04
      const spki = openssl(['pkey', '-in', f('ec.pem'), '-pubout', '-outform', 'DER']);
      const pt = spki.subarray(spki.length - 2 * L);
      jwk = { kty: 'EC', crv: jwkCrv, x: b64u(pt.subarray(0, L)), y: b64u(pt.subarray(L)), d: b64u(scalar) };
      forms.push(['JWK', text(JSON.stringify(jwk))]);
      forms.push([
        'JWK, pretty, other members, an escape in a public member',
        text(`\n{\n  "kty" : "EC",\t"crv": "${jwkCrv.replace('-', '\\u002d')}",\r\n  "key_ops": ["sign"], "ext": true, "kid": null, "n": -1.5e+3, "o": {"a": [1, {}, []]},\n  "x": "${jwk.x}", "y": "${jwk.y}", "d": "${jwk.d}"}\n`),
      ]);
    }
    // plain Uint8Arrays, as the CLI reads files (a Buffer's slice() is a view: the library's
    // importPrivateKey(buffer, 'pkcs8-der') returns a view of a Buffer it is given)
    fixtures.push({ curve, L, scalar, forms: forms.map(([n, b, c]) => [n, new Uint8Array(b), c]), jwk });
  }
  assert.equal(fixtures.length, 3);
});

test('every accepted form loads to the scalar openssl prints, with its curve', () => {
  assert.ok(fixtures.length > 0, 'fixtures');
  for (const fx of fixtures) {
    for (const [name, bytes, curveName] of fx.forms) {
      const r = parsePrivateKey(bytes, `${fx.curve} ${name}`, curveName);
      assert.equal(r.curve.name, fx.curve, `${fx.curve} ${name}`);
      assert.deepEqual(r.key, fx.scalar, `${fx.curve} ${name}`);
      // and the public key reader takes a private key file too
      const pub = parsePublicKey(bytes, `${fx.curve} ${name}`, curveName);
      assert.deepEqual(pub.key, r.curve.getPublicKey(fx.scalar), `${fx.curve} ${name} (public)`);
    }
  }
});

test('a raw binary scalar that starts like DER (0x30, and 30 <length>) loads with --curve', () => {
  // before: bytes[0] === 0x30 sent it to the DER parsers, and it never loaded
  const L = 32;
  for (const head of [
    [0x30, 0x11],
    [0x30, L - 2],
  ]) {
    const sk = new Uint8Array(L).fill(0x42);
    sk.set(head);
    const r = parsePrivateKey(sk, `raw ${head}`, 'p256');
    assert.deepEqual(r.key, sk);
  }
  // without --curve it is a usage error whatever its first byte
  for (const b0 of [0x30, 0x42]) {
    const sk = new Uint8Array(32).fill(0x42);
    sk[0] = b0;
    assert.throws(
      () => parsePrivateKey(sk, 'raw', undefined),
      (e: Error) => e instanceof UsageError && /raw scalar: say which curve with --curve/.test(e.message),
    );
  }
});

/** A case the readers must refuse: input, the error class, what the message must say. */
type Bad = [name: string, bytes: Uint8Array, cls: typeof Failure | typeof UsageError, re: RegExp, curve?: string];

function badPrivateKeys(): Bad[] {
  const fx = fixtures[0]; // p256
  const pkcs8 = new TextDecoder().decode(fx.forms[0][1]);
  const sec1 = new TextDecoder().decode(fx.forms[3][1]); // 121 bytes of DER: base64 with padding
  const lines = pkcs8.trim().split('\n');
  const body = lines.slice(1, -1).join('\n');
  const jwk = fx.jwk!;
  const J = (o: object | string) => text(typeof o === 'string' ? o : JSON.stringify(o));
  const other = fixtures[1].jwk!; // a P-384 key
  return [
    // PEM framing
    ['PEM without its END line', text(`${lines[0]}\n${body}\n`), Failure, /PEM block PRIVATE KEY \(line 1\) has no END line/],
    ['PEM ending with another label', text(`${lines[0]}\n${body}\n-----END EC PRIVATE KEY-----\n`), Failure, /ends with an END line for EC PRIVATE KEY \(line \d+\)/],
    ['a BEGIN line inside a block', text(`${lines[0]}\n${body}\n${pkcs8}`), Failure, /has no END line before the BEGIN line at line \d+/],
    ['an END line without BEGIN', text(`${body}\n${lines.at(-1)}\n`), Failure, /line \d+ is an END line without its BEGIN line/],
    ['a "-----" line that is not armor', text(`${lines[0]}\n-----FOO-----\n${body}\n${lines.at(-1)}\n`), Failure, /line 2 starts with "-----" but is not a PEM BEGIN or END line/],
    ['a "-----" line of 200000 characters', text(`-----${'A'.repeat(200000)}\n`), Failure, /line 1 starts with "-----" but is not a PEM BEGIN or END line/],
    ['two private keys', text(pkcs8 + pkcs8), Failure, /holds 2 private keys \(at lines 1, \d+\); keep one/],
    ['PEM, non-canonical base64 (unused bits set)', text(spoilPem(sec1)), Failure, /non-canonical base64/],
    ['PEM with a header', text(`${lines[0]}\nProc-Type: 4,ENCRYPTED\n${body}\n${lines.at(-1)}\n`), Failure, /PEM headers/],
    ['encrypted PKCS#8', text('-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n'), Failure, /is encrypted; decrypt it first/],
    ['a certificate only', text('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'), Failure, /PEM block CERTIFICATE is not a private key/],
    // JWK: JSON strictness
    ['JWK, duplicate "d"', J(`{"kty":"EC","crv":"P-256","x":"${jwk.x}","y":"${jwk.y}","d":"${jwk.d}","d":"${jwk.d}"}`), Failure, /duplicate member "d" at byte \d+/],
    ['JWK, duplicate "crv"', J(`{"kty":"EC","crv":"P-384","crv":"P-256","x":"${jwk.x}","y":"${jwk.y}","d":"${jwk.d}"}`), Failure, /duplicate member "crv"/],
    ['JWK, duplicate member in a nested object', J(`{"kty":"EC","crv":"P-256","o":{"a":1,"a":2},"x":"${jwk.x}","y":"${jwk.y}","d":"${jwk.d}"}`), Failure, /duplicate member "a"/],
    ['JWK, an escape in "d"', J(`{"kty":"EC","crv":"P-256","x":"${jwk.x}","y":"${jwk.y}","d":"\\u00${jwk.d.charCodeAt(0).toString(16)}${jwk.d.slice(1)}"}`), Failure, /member "d" has an escape/],
    ['JWK, "\\/" in "d"', J(`{"kty":"EC","crv":"P-256","x":"${jwk.x}","y":"${jwk.y}","d":"\\/${jwk.d.slice(1)}"}`), Failure, /member "d" has an escape/],
    ['JWK, an unknown escape', J(`{"kty":"EC","crv":"P\\-256","x":"${jwk.x}","y":"${jwk.y}","d":"${jwk.d}"}`), Failure, /unknown escape in a string at byte \d+/],
    ['JWK, \\u with three hex digits', J(`{"kty":"EC","crv":"P\\u02d","x":"${jwk.x}","y":"${jwk.y}","d":"${jwk.d}"}`), Failure, /\\u escape without four hex digits/],
    ['JWK, trailing garbage', J(JSON.stringify(jwk) + ' x'), Failure, /unexpected data after the JSON object at byte \d+/],
    ['JWK, two objects', J(JSON.stringify(jwk) + JSON.stringify(jwk)), Failure, /unexpected data after the JSON object/],
    ['JWK, cut short', J(JSON.stringify(jwk).slice(0, 40)), Failure, /JSON: (unterminated string|.*the text ends)/],
    ['JWK, a control character in a string', J(`{"kty":"EC","crv":"P-256","kid":"a\tb","x":"${jwk.x}","y":"${jwk.y}","d":"${jwk.d}"}`), Failure, /control character in a string/],
    ['JWK, a trailing comma', J(`{"kty":"EC","crv":"P-256","x":"${jwk.x}","y":"${jwk.y}","d":"${jwk.d}",}`), Failure, /expected a member name/],
    ['JWK, a bad number', J(`{"kty":"EC","crv":"P-256","n":01,"x":"${jwk.x}","y":"${jwk.y}","d":"${jwk.d}"}`), Failure, /expected "," or "}" in an object/],
    ['JWK, a bad literal', J(`{"kty":"EC","crv":"P-256","ext":tru,"x":"${jwk.x}","y":"${jwk.y}","d":"${jwk.d}"}`), Failure, /invalid literal/],
    ['JWK, nested 65 deep', J(`{"kty":"EC","o":${'['.repeat(64)}${']'.repeat(64)}}`), Failure, /nested more than 64 deep/],
    // JWK: the key
    ['JWK, non-canonical "d"', J({ ...jwk, d: spoil(jwk.d) }), Failure, /JWK "d": non-canonical base64 \(unused bits set\)/],
    ['JWK, padded "d"', J({ ...jwk, d: jwk.d + '=' }), Failure, /JWK "d": base64url must not be padded/],
    ['JWK, "d" not base64url', J({ ...jwk, d: jwk.d.slice(0, 10) + '+' + jwk.d.slice(11) }), Failure, /JWK "d": invalid base64url character at position 10/],
    ['JWK, "d" a byte short', J({ ...jwk, d: b64u(fx.scalar.subarray(1)) }), Failure, /JWK "d" is 31 bytes, expected 32/],
    ['JWK, "d" a number', J({ ...jwk, d: 5 }), Failure, /member "d" is not a string \(it is a number\)/],
    ['JWK, "d" missing', J({ ...jwk, d: undefined }), Failure, /JWK member "d" is missing \(not a private key\)/],
    ['JWK, "d" zero', J({ ...jwk, d: b64u(new Uint8Array(32)) }), Failure, /invalid key: JWK, "d" zero: .*/],
    ['JWK, "x" and "y" of a P-384 key', J({ ...jwk, x: other.x, y: other.y }), Failure, /"x" is 48 bytes, expected 32/],
    ['JWK, "x" and "y" not of "d"', J({ ...jwk, d: b64u(Uint8Array.from(fx.scalar, (v, i) => (i === 31 ? v ^ 1 : v))) }), Failure, /JWK "x" and "y" do not belong to "d"/],
    ['JWK, non-canonical "x"', J({ ...jwk, x: spoil(jwk.x) }), Failure, /non-canonical base64/],
    ['JWK, kty OKP', J({ ...jwk, kty: 'OKP' }), Failure, /JWK "kty" is "OKP", expected "EC"/],
    ['JWK, kty missing', J({ ...jwk, kty: undefined }), Failure, /JWK "kty" is missing, expected "EC"/],
    ['JWK, unknown crv', J({ ...jwk, crv: 'P-257' }), Failure, /unsupported JWK curve "P-257"/],
    ['JWK, crv not the --curve', J(jwk), Failure, /JWK "crv" is "P-256", expected "P-384" \(p384\)/, 'p384'],
    ['JWK, --curve without a JWK name', J(jwk), Failure, /no registered JWK curve name for p224/, 'p224'],
    // hex, raw, DER
    ['hex, odd length', text('abc\n'), Failure, /is not a PEM, JWK or hex key \(hex: hex length is odd\)/, 'p256'],
    ['hex, not hex', text('not a key!\n'), Failure, /is not a PEM, JWK or hex key \(hex: invalid hex character at position 0\)/, 'p256'],
    ['hex, a non-hex character late', text('ab'.repeat(20) + 'g' + 'a'.repeat(23)), Failure, /invalid hex character at position 40/, 'p256'],
    ['an empty file', text(''), Failure, /is empty/, 'p256'],
    ['whitespace only', text(' \n\r\n'), Failure, /is empty/],
    ['hex without --curve', text(Buffer.from(fx.scalar).toString('hex')), UsageError, /is a raw scalar: say which curve with --curve/],
    ['hex of the wrong length', text('ab'.repeat(31)), Failure, /32 bytes/, 'p256'],
    ['damaged DER', Uint8Array.from([...fx.forms[5][1]].slice(0, -3)), Failure, /PrivateKeyInfo|ECPrivateKey|SEC 1|length/],
  ];
}

function badKeyFiles(): Bad[] {
  const key = new Rng(0x14).bytes(32);
  const k = b64u(key);
  const J = (s: string) => text(s);
  return [
    ['key file, duplicate "k"', J(`{"kty":"oct","alg":"chacha20-poly1305","k":"${k}","k":"${k}"}`), Failure, /JSON: duplicate member "k" at byte \d+/],
    ['key file, duplicate "alg"', J(`{"kty":"oct","alg":"aes-256-gcm","alg":"chacha20-poly1305","k":"${k}"}`), Failure, /duplicate member "alg"/],
    // the JSON reader's "JSON: " becomes the file's name
    ['key file, an escape in "k"', J(`{"kty":"oct","alg":"chacha20-poly1305","k":"\\u0041${k.slice(1)}"}`), Failure, /^invalid key: in key file, an escape in "k", member "k" has an escape \(\\\), which a key member never needs$/],
    ['key file, non-canonical "k"', J(`{"kty":"oct","alg":"chacha20-poly1305","k":"${spoil(k)}"}`), Failure, /"k": non-canonical base64 \(unused bits set\)/],
    ['key file, padded "k"', J(`{"kty":"oct","alg":"chacha20-poly1305","k":"${k}="}`), Failure, /"k": base64url must not be padded/],
    // only a "JSON: " that starts the message is the reader's: one in the file's name stays
    ['key file JSON: padded "k"', J(`{"kty":"oct","alg":"chacha20-poly1305","k":"${k}="}`), Failure, /^invalid key: in key file JSON: padded "k", "k": base64url must not be padded$/],
    ['key file, trailing garbage', J(`{"kty":"oct","alg":"chacha20-poly1305","k":"${k}"}]`), Failure, /not a ctkit key file .*unexpected data after the JSON object/],
    ['key file, not JSON', J('hello'), Failure, /is not a ctkit key file .*not a JSON object at byte 0/],
    ['key file, an array', J(`[{"kty":"oct"}]`), Failure, /not a JSON object at byte 0/],
    ['key file, kty EC', J(`{"kty":"EC","alg":"chacha20-poly1305","k":"${k}"}`), Failure, /is not a symmetric key file \(need "kty": "oct", "alg" and "k"\)/],
    ['key file, "k" a number', J(`{"kty":"oct","alg":"chacha20-poly1305","k":1}`), Failure, /is not a symmetric key file/],
    ['key file, "alg" an array', J(`{"kty":"oct","alg":["x"],"k":"${k}"}`), Failure, /is not a symmetric key file .*member "alg" is not a string \(it is an array\)/],
    // the format's algorithms, in the order of their ids (docs/stream-format.md)
    [
      'key file, unknown alg',
      J(`{"kty":"oct","alg":"rot13","k":"${k}"}`),
      Failure,
      /^invalid key: key file, unknown alg names the unknown algorithm 'rot13' \(ctkit has aes-256-gcm, chacha20-poly1305, xchacha20-poly1305, aes-256-gcm-siv, sm4-gcm\)$/,
    ],
    ['key file, short key', J(`{"kty":"oct","alg":"chacha20-poly1305","k":"AAAA"}`), Failure, /a chacha20-poly1305 key is 32 bytes, the one in .* is 3/],
  ];
}

type Reader = (bytes: Uint8Array, what: string, curve?: string) => unknown;
const strictPrivate: Reader = (b, w, c) => parsePrivateKey(b, w, c);
const strictKeyFile: Reader = (b, w) => parseAeadKeyFile(b, w);

/** The cases a reader gets wrong: accepted, or refused with another class or message. */
function misses(read: Reader, cases: Bad[]): string[] {
  const out: string[] = [];
  for (const [name, bytes, cls, re, curve] of cases) {
    try {
      const r = read(bytes.slice(), name, curve);
      out.push(`${name}: accepted (${(r as LoadedPrivateKey)?.curve?.name ?? 'key file'})`);
    } catch (e) {
      if (!(e instanceof cls)) out.push(`${name}: ${(e as Error).name} ${(e as Error).message}`);
      else if (!re.test(e.message)) out.push(`${name}: message ${JSON.stringify(e.message)} does not match ${re}`);
      else if (e.message.split('\n').length !== 1) out.push(`${name}: more than one line`);
    }
  }
  return out;
}

test('every malformed private key file is a typed error saying what is wrong', () => {
  assert.ok(fixtures.length > 0, 'fixtures');
  assert.deepEqual(misses(strictPrivate, badPrivateKeys()), []);
});

test('every malformed AEAD key file is a typed error saying what is wrong; a good one loads', () => {
  const key = new Rng(0x14).bytes(32);
  for (const form of [`{"kty":"oct","alg":"chacha20-poly1305","k":"${b64u(key)}","key_ops":["encrypt","decrypt"]}\n`, ` {\n "k" : "${b64u(key)}", "alg":"chacha20-poly1305",\r\n"kty":"oct", "ext": false } `]) {
    const r = parseAeadKeyFile(text(form), 'k.key');
    assert.equal(r.alg.name, 'chacha20-poly1305');
    assert.deepEqual(r.key, key);
  }
  assert.deepEqual(misses(strictKeyFile, badKeyFiles()), []);
});

test('error messages name positions and members, never the key text', () => {
  const fx = fixtures[0];
  for (const [name, bytes, , , curve] of [...badPrivateKeys(), ...badKeyFiles()]) {
    try {
      (name.startsWith('key file') ? strictKeyFile : strictPrivate)(bytes, 'f', curve);
    } catch (e) {
      const m = (e as Error).message;
      for (const secret of [fx.jwk!.d, Buffer.from(fx.scalar).toString('hex'), b64u(new Rng(0x14).bytes(32))]) {
        for (let i = 0; i + 8 <= secret.length; i += 8) assert.ok(!m.includes(secret.slice(i, i + 8)), `${name}: ${m}`);
      }
    }
  }
});

// ---- negative controls: lax readers the cases above must catch ------------------------------------

/** JSON.parse then JSON.stringify before the real reader: duplicates collapse (the last wins), escapes decode. */
const viaJsonParse =
  (read: Reader): Reader =>
  (b, w, c) => {
    const t = new TextDecoder().decode(b);
    if (!t.trim().startsWith('{')) return read(b, w, c);
    return read(text(JSON.stringify(JSON.parse(t))), w, c);
  };
/** Buffer's base64url for "d"/"k"/"x"/"y" (which takes unused bits and padding), re-encoded canonically. */
const viaBufferBase64 =
  (read: Reader): Reader =>
  (b, w, c) => {
    const t = new TextDecoder().decode(b);
    if (!t.trim().startsWith('{')) return read(b, w, c);
    const o = JSON.parse(t) as Record<string, unknown>;
    for (const m of ['d', 'k', 'x', 'y']) if (typeof o[m] === 'string') o[m] = b64u(Buffer.from(o[m] as string, 'base64url'));
    return read(text(JSON.stringify(o)), w, c);
  };
/** The old framing: the first block per label by a regex over the whole text, the rest dropped. */
const viaPemRegex =
  (read: Reader): Reader =>
  (b, w, c) => {
    const t = new TextDecoder().decode(b);
    const blocks = [...t.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g)];
    if (!blocks.length) return read(b, w, c);
    const key = blocks.find((m) => m[1] === 'PRIVATE KEY' || m[1] === 'EC PRIVATE KEY') ?? blocks[0];
    return read(text(key[0] + '\n'), w, c);
  };
/** A PEM decoder that takes unused bits: the body re-encoded from Buffer's base64. */
const viaBufferPem =
  (read: Reader): Reader =>
  (b, w, c) => {
    const t = new TextDecoder().decode(b);
    const m = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/.exec(t);
    if (!m) return read(b, w, c);
    const der = Buffer.from(m[2].replace(/\s/g, ''), 'base64')
      .toString('base64')
      .replace(/(.{64})/g, '$1\n');
    return read(text(`-----BEGIN ${m[1]}-----\n${der}\n-----END ${m[1]}-----\n`), w, c);
  };

test('negative controls: each lax reader is caught by the cases above', () => {
  const priv = badPrivateKeys(),
    files = badKeyFiles();
  const controls: [string, Reader, Bad[], RegExp][] = [
    ['JSON.parse (private keys)', viaJsonParse(strictPrivate), priv, /duplicate "d": accepted|an escape in "d": accepted/],
    ['JSON.parse (key files)', viaJsonParse(strictKeyFile), files, /duplicate "k": accepted/],
    ['Buffer base64url (private keys)', viaBufferBase64(strictPrivate), priv, /non-canonical "d": accepted/],
    ['Buffer base64url (key files)', viaBufferBase64(strictKeyFile), files, /non-canonical "k": accepted/],
    ['PEM by regex', viaPemRegex(strictPrivate), priv, /two private keys: accepted|inside a block: accepted/],
    ['PEM by Buffer base64', viaBufferPem(strictPrivate), priv, /PEM, non-canonical base64 \(unused bits set\): accepted/],
  ];
  for (const [name, read, cases, expected] of controls) {
    const m = misses(read, cases);
    assert.ok(
      m.some((x) => expected.test(x)),
      `${name}: the cases did not catch it (misses: ${JSON.stringify(m)})`,
    );
  }
});

// ---- no regex, search, JSON.parse, Buffer or string of the secret ---------------------------------

/** Records calls that would look at, or build a string of, text containing `marker`. */
function spy<T>(marker: string, f: () => T): { result: T; calls: string[] } {
  const calls: string[] = [];
  const includes = String.prototype.includes;
  const has = (s: unknown) => typeof s === 'string' && includes.call(s, marker);
  const saved: [object, string, PropertyDescriptor][] = [];
  const wrap = (obj: object, name: string, check: (self: unknown, args: unknown[], result: unknown) => boolean) => {
    const d = Object.getOwnPropertyDescriptor(obj, name)!;
    saved.push([obj, name, d]);
    const orig = d.value as (...a: unknown[]) => unknown;
    Object.defineProperty(obj, name, {
      ...d,
      value: function (this: unknown, ...a: unknown[]) {
        const r = orig.apply(this, a);
        if (check(this, a, r)) calls.push(name);
        return r;
      },
    });
  };
  const fromCharCode = String.fromCharCode;
  wrap(RegExp.prototype, 'exec', (_s, a) => has(a[0]));
  for (const m of ['includes', 'indexOf', 'lastIndexOf', 'split', 'replace', 'replaceAll', 'match', 'matchAll', 'search', 'startsWith', 'endsWith', 'trim']) wrap(String.prototype, m, (s) => has(s));
  wrap(JSON, 'parse', () => true);
  wrap(TextDecoder.prototype, 'decode', (_s, _a, r) => has(r));
  wrap(String, 'fromCharCode', (_s, _a, r) => has(r));
  wrap(Buffer, 'from', () => true);
  try {
    return { result: f(), calls };
  } finally {
    for (const [obj, name, d] of saved.reverse()) Object.defineProperty(obj, name, d);
    assert.equal(String.fromCharCode, fromCharCode);
  }
}

test('JWK, hex and key files: no regex, search, JSON.parse, TextDecoder, Buffer or JavaScript string of the secret', () => {
  for (const fx of fixtures.slice(0, 2)) {
    const hexText = Buffer.from(fx.scalar).toString('hex');
    for (const [name, bytes, curve] of fx.forms) {
      const marker = name.startsWith('JWK') ? fx.jwk!.d.slice(8, 32) : name.startsWith('hex') ? (name.includes('upper') ? hexText.toUpperCase() : hexText).slice(8, 40) : undefined;
      if (!marker) continue;
      const { result, calls } = spy(marker, () => parsePrivateKey(bytes, name, curve));
      assert.deepEqual(result.key, fx.scalar);
      assert.deepEqual(calls, [], `${fx.curve} ${name}`);
    }
  }
  const key = new Rng(7).bytes(32);
  const file = text(`{"kty":"oct","alg":"aes-256-gcm","k":"${b64u(key)}"}`);
  const { result, calls } = spy(b64u(key).slice(4, 30), () => parseAeadKeyFile(file, 'k.key'));
  assert.deepEqual(result.key, key);
  assert.deepEqual(calls, []);
});

test('PEM: the CLI runs no regex, search, JSON.parse or Buffer over the key text (the library decodes it)', () => {
  for (const fx of fixtures.slice(0, 2)) {
    for (const [name, bytes] of fx.forms.filter(([n]) => n.includes('PEM') && !n.includes('PARAMETERS'))) {
      const line = new TextDecoder()
        .decode(bytes)
        .split('\n')
        .find((l) => /^[A-Za-z0-9+/]{40,}/.test(l))!;
      const { result, calls } = spy(line.slice(4, 36), () => parsePrivateKey(bytes, name));
      assert.deepEqual(result.key, fx.scalar);
      // der.ts makes the PEM text a string for its mask-based decoder (String.fromCharCode) and
      // trims it and checks its BEGIN and END lines (trim, startsWith, endsWith: the armor at
      // either end, never a scan of the body; test/ct-der.test.ts)
      const library = ['fromCharCode', 'trim', 'startsWith', 'endsWith'];
      assert.deepEqual(
        calls.filter((c) => !library.includes(c)),
        [],
        `${fx.curve} ${name}`,
      );
    }
  }
});

test('the spy has teeth: it sees JSON.parse, a regex and Buffer over the secret', () => {
  const jwk = fixtures[0].jwk!;
  const t = JSON.stringify(jwk);
  assert.deepEqual(spy(jwk.d.slice(8, 32), () => JSON.parse(t)).calls, ['parse']);
  assert.deepEqual(spy(jwk.d.slice(8, 32), () => /"d":"([^"]*)"/.exec(t)).calls, ['exec']);
  assert.ok(spy(jwk.d.slice(8, 32), () => Buffer.from(jwk.d, 'base64url')).calls.includes('from'));
  assert.deepEqual(spy(jwk.d.slice(8, 32), () => new TextDecoder().decode(text(t))).calls, ['decode']);
  assert.deepEqual(spy('abc', () => String.fromCharCode(97, 98, 99)).calls, ['fromCharCode']);
  // the old readers, as they were: JSON.parse on the text, a regex test and Buffer for hex
  const hexText = Buffer.from(fixtures[0].scalar).toString('hex');
  assert.ok(spy(hexText.slice(8, 40), () => /^([0-9a-fA-F]{2})+$/.test(hexText) && Buffer.from(hexText, 'hex')).calls.length >= 2);
});

test('isText: every byte decides, wherever it is', () => {
  const rng = new Rng(3);
  const printable = text('0123456789abcdef\r\n\t ~');
  assert.equal(isText(printable), true);
  assert.equal(isText(new Uint8Array(0)), true);
  for (const bad of [0, 8, 11, 12, 14, 31, 127, 128, 255]) {
    for (const at of [0, 1, 10, 20]) {
      const b = printable.slice();
      b[at] = bad;
      assert.equal(isText(b), false, `byte ${bad} at ${at}`);
    }
  }
  for (let i = 0; i < 200; i++) {
    const b = rng.bytes(1 + rng.int(40));
    assert.equal(
      isText(b),
      [...b].every((x) => x === 9 || x === 10 || x === 13 || (x >= 32 && x < 127)),
    );
  }
});

test('json-ct: members, kinds and strings as JSON.parse reads them; errors are EncodingErrors', () => {
  const src = '{"a":"x\\"y\\\\z\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00","b":[1,-0.5e-3,{"c":null}],"c":true,"d":false,"e":null,"f":12,"g":"é☃"}';
  const j = scanJsonObject(text(src), 't');
  const ref = JSON.parse(src);
  assert.deepEqual([...j.members.keys()], Object.keys(ref));
  assert.equal(j.text('a'), ref.a);
  assert.equal(j.text('g'), ref.g);
  assert.deepEqual(
    ['b', 'c', 'd', 'e', 'f'].map((k) => j.kind(k)),
    ['array', 'boolean', 'boolean', 'null', 'number'],
  );
  assert.equal(j.text('zz'), undefined);
  assert.throws(
    () => j.text('b'),
    (e: Error) => e instanceof EncodingError && /member "b" is not a string \(it is an array\)/.test(e.message),
  );
  assert.throws(
    () => j.secret('a'),
    (e: Error) => e instanceof EncodingError && /has an escape/.test(e.message),
  );
  assert.throws(
    () => j.secret('g'),
    (e: Error) => e instanceof EncodingError && /outside ASCII/.test(e.message),
  );
  for (const [bad, re] of [
    ['', /text is empty/],
    ['{', /the text ends/],
    ['{"a":1}x', /unexpected data/],
    ['{"a" 1}', /expected ":"/],
    ['{"a":"\\x"}', /unknown escape/],
    ['{"a":1.}', /no digit after/],
    ['{"a":1e}', /exponent/],
    ['{"a":-}', /invalid number/],
    ['{"a":nul}', /invalid literal/],
    ['{"a":[1 2]}', /expected "," or "]"/],
    ['{"a":"\xff"}', /not UTF-8/],
    ['\ufeff{}', /not a JSON object/],
    ['{"a":1,"a":1}', /duplicate member "a"/],
    ['{"a":\'x\'}', /not a JSON value/],
  ] as [string, RegExp][]) {
    const bytes = bad.includes('\xff') ? Uint8Array.from([...bad].map((c) => c.charCodeAt(0))) : text(bad);
    assert.throws(
      () => scanJsonObject(bytes, 't'),
      (e: Error) => e instanceof EncodingError && re.test(e.message) && /^t: .* at byte \d+$/.test(e.message),
      JSON.stringify(bad),
    );
  }
});

// ---- through the command: the defects the old readers had -----------------------------------------

test('ctkit: a raw key starting with 0x30 loads; duplicate members, escapes in "d", two keys are refused', async () => {
  const { ctkitSync } = await import('./support/cli.js');
  const run = (args: string[]) => ctkitSync(args, { cwd: dir });
  // a raw binary P-256 scalar whose first bytes look like DER (30 1e …): was sent to the DER parsers
  const sk = Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? 0x30 : i === 1 ? 0x1e : 0x11 * i) & 0xff);
  writeFileSync(join(dir, 'raw30.bin'), sk);
  // openssl's public key of the same scalar, from a PKCS#8 wrapped around it by hand
  const pkcs8 = Uint8Array.from([
    0x30,
    0x41,
    0x02,
    0x01,
    0x00,
    0x30,
    0x13,
    0x06,
    0x07,
    0x2a,
    0x86,
    0x48,
    0xce,
    0x3d,
    0x02,
    0x01,
    0x06,
    0x08,
    0x2a,
    0x86,
    0x48,
    0xce,
    0x3d,
    0x03,
    0x01,
    0x07,
    0x04,
    0x27,
    0x30,
    0x25,
    0x02,
    0x01,
    0x01,
    0x04,
    0x20,
    ...sk,
  ]);
  writeFileSync(join(dir, 'raw30.p8'), pkcs8);
  writeFileSync(join(dir, 'peer.pub'), openssl(['pkey', '-in', join(dir, 'p256-ec.pem'), '-pubout']));
  const secret = openssl(['pkeyutl', '-derive', '-keyform', 'DER', '-inkey', 'raw30.p8', '-peerkey', 'peer.pub']).toString('hex');
  const e = run(['ecdh', '--key', 'raw30.bin', '--curve', 'p256', '--peer', 'peer.pub']);
  assert.equal(e.status, 0, e.stderr);
  assert.equal(e.stdout.toString().trim(), secret);
  // and its public key, as openssl has it (pubkey reads a raw binary scalar by its length, as hex)
  const mine = run(['pubkey', 'raw30.bin', '--curve', 'p256']);
  assert.equal(mine.status, 0, mine.stderr);
  assert.equal(mine.stdout.toString(), openssl(['pkey', '-inform', 'DER', '-in', 'raw30.p8', '-pubout']).toString());
  // key files that JSON.parse would take
  const key = b64u(new Rng(9).bytes(32));
  writeFileSync(join(dir, 'm'), 'message');
  writeFileSync(join(dir, 'dup.key'), `{"kty":"oct","alg":"chacha20-poly1305","k":"${spoil(key)}","k":"${key}"}`);
  const s = run(['seal', '-k', 'dup.key', 'm', '-o', 'm.ctk']);
  assert.equal(s.status, 1, `duplicate "k": exit ${s.status}`);
  assert.match(s.stderr, /invalid key: .*duplicate member "k"/);
  const jwk = fixtures[0].jwk!;
  const cases: [string, string, RegExp][] = [
    ['dup-d.jwk', `{"kty":"EC","crv":"P-256","x":"${jwk.x}","y":"${jwk.y}","d":"${spoil(jwk.d)}","d":"${jwk.d}"}`, /duplicate member "d"/],
    ['esc-d.jwk', `{"kty":"EC","crv":"P-256","x":"${jwk.x}","y":"${jwk.y}","d":"\\u00${jwk.d.charCodeAt(0).toString(16)}${jwk.d.slice(1)}"}`, /member "d" has an escape/],
    ['two.pem', new TextDecoder().decode(fixtures[0].forms[0][1]).repeat(2), /holds 2 private keys/],
  ];
  for (const [f, content, re] of cases) {
    writeFileSync(join(dir, f), content);
    const r = run(['sign', '--key', f, 'm']);
    assert.equal(r.status, 1, `${f}: exit ${r.status} ${r.stderr}`);
    assert.match(r.stderr, re, f);
  }
});

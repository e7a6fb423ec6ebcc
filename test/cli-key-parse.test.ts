// The framing of src/cli/keys.ts's key reader, in-process: every curve name and alias it accepts,
// PEM armor lines at the edges of RFC 7468's label syntax (characters next to A–Z and 0–9, inner
// and outer spaces, the shortest and the longest line read as armor), whitespace around hex,
// binary input that is framed as DER against a raw scalar's length, the refusals of keys on
// curves ctkit lacks, and the wiping of every copy of a private key the reader and the commands
// make (p256's methods and fs.promises.readFile wrapped to see them). Found by the survey of
// keys.ts (`npx tsx scripts/mutation.ts src/cli --files src/cli/keys.ts --tests
// cli-keygen,ct-cli-keys,cli-main --head`): the other files load well-formed keys only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { promises as fsp, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Failure, UsageError } from '../src/cli/errors.js';
import { ecdh, keygenCurve, loadPrivateKey, loadPublicKey, parsePrivateKey, parsePublicKey } from '../src/cli/keys.js';
import { p256 } from '../src/ec/index.js';
import { rejectsWith, scratch, throwsWith } from './support/scratch.js';

const text = (s: string) => new TextEncoder().encode(s);

/** the hex of the scalar 1, `bytes` long: a valid private key on every curve */
const one = (bytes: number) => '00'.repeat(bytes - 1) + '01';

test('every curve name and alias, in any case, reads a raw scalar on its curve; others are a usage error', () => {
  const names: [string, string, number][] = [
    ['p256', 'p256', 32],
    ['P-256', 'p256', 32],
    ['prime256v1', 'p256', 32],
    ['SECP256R1', 'p256', 32],
    ['p224', 'p224', 28],
    ['P-224', 'p224', 28],
    ['secp224r1', 'p224', 28],
    ['p384', 'p384', 48],
    ['p-384', 'p384', 48],
    ['secp384r1', 'p384', 48],
    ['p521', 'p521', 66],
    ['P-521', 'p521', 66],
    ['secp521r1', 'p521', 66],
    ['secp256k1', 'secp256k1', 32],
    ['brainpoolP256r1', 'brainpoolP256r1', 32],
    ['BRAINPOOLP384R1', 'brainpoolP384r1', 48],
    ['brainpoolp512r1', 'brainpoolP512r1', 64],
  ];
  for (const [name, curve, bytes] of names) {
    const k = parsePrivateKey(text(one(bytes)), 'k', name);
    assert.equal(k.curve.name, curve, name);
    assert.equal(Buffer.from(k.key).toString('hex'), one(bytes), name);
  }
  for (const name of ['p255', 'p-255', 'secp256r2', 'toString', 'brainpoolP256t1']) {
    throwsWith(() => parsePrivateKey(text(one(32)), 'k', name), UsageError, `unknown curve '${name}' (choose one of p256, p224, brainpoolP256r1, p384, p521, secp256k1, brainpoolP384r1, brainpoolP512r1)`);
  }
});

const block = (begin: string, end = begin.replace('BEGIN', 'END')) => text(`${begin}\nAAAA\n${end}\n`);
const notArmor = (line: number) => `invalid key: k: line ${line} starts with "-----" but is not a PEM BEGIN or END line`;

test('PEM armor labels: A–Z, 0–9 and inner single spaces are labels; the characters next to them, outer spaces and an empty label are not', () => {
  for (const label of ['A', 'Z', '0', '9', 'A0 Z9', 'X509 CRL', 'AZ', 'L'.repeat(112)]) {
    throwsWith(() => parsePrivateKey(block(`-----BEGIN ${label}-----`), 'k'), Failure, `invalid key: k: PEM block ${label} is not a private key (expected PRIVATE KEY or EC PRIVATE KEY)`);
    throwsWith(() => parsePublicKey(block(`-----BEGIN ${label}-----`), 'k'), Failure, `invalid key: k: PEM block ${label} is not a key (expected PUBLIC KEY, PRIVATE KEY or EC PRIVATE KEY)`);
  }
  // the longest armor line (128 characters) as the last line, without a line feed after it
  const longest = 'L'.repeat(112);
  throwsWith(() => parsePrivateKey(text(`text\n-----BEGIN ${longest}-----`), 'k'), Failure, `invalid key: k: PEM block ${longest} (line 2) has no END line`);
  // '@' and '[' around A–Z, '/' and ':' around 0–9, lower case, spaces at either end, other punctuation
  for (const label of ['', '@', '[', '/', ':', 'a', 'Key', ' A', 'A ', ' ', 'A-B', 'A\tB', 'L'.repeat(113)]) {
    throwsWith(() => parsePrivateKey(block(`-----BEGIN ${label}-----`), 'k'), Failure, notArmor(1));
  }
  // the armor itself: five dashes at both ends, one space after the word
  for (const line of ['-----BEGIN A', '-----BEGIN ABCDEFG', '-----BEGIN PRIVATE KEY', '-----BEGIN A----', '-----BEGINA-----', '-----BEGIN-----', '-----BEGIN -----', '------BEGIN A-----', '-----', '-----X']) {
    throwsWith(() => parsePrivateKey(text(`text before\n${line}\nAAAA\n`), 'k'), Failure, notArmor(2));
  }
  // an END line's label must be its BEGIN line's, also when it is a valid label of its own
  throwsWith(() => parsePrivateKey(block('-----BEGIN A-----', '-----END B-----'), 'k'), Failure, 'invalid key: k: PEM block A (line 1) ends with an END line for B (line 3)');
  // shorter runs of dashes are text, like any text between blocks
  throwsWith(() => parsePrivateKey(text('----\n--\n-\n'), 'k'), Failure, /^invalid key: k is not a PEM, JWK or hex key \(hex: /);
});

test('a PKCS#8 key loads with LF and CRLF lines, with text and short dash runs around it', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  const want = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('hex');
  for (const t of [pem, pem.replace(/\n/g, '\r\n'), `note ----\n----\n${pem}trailer\n`]) {
    const k = parsePrivateKey(text(t), 'k');
    assert.equal(k.curve.name, 'p256');
    const pub = parsePublicKey(text(t), 'k');
    assert.equal(Buffer.from(pub.key.subarray(1, 33)).toString('hex'), want);
  }
});

test('hex keys: spaces, tabs, CR and LF around them are not part of the key', () => {
  for (const ws of [' ', '\t', '\r\n', '\n', ' \t\r\n']) {
    const k = parsePrivateKey(text(`${ws}${one(32)}${ws}`), 'k', 'p256');
    assert.equal(Buffer.from(k.key).toString('hex'), one(32), JSON.stringify(ws));
  }
  throwsWith(() => parsePrivateKey(text(' \t\r\n'), 'k', 'p256'), Failure, 'invalid key: k is empty');
});

test("binary input: a raw scalar's length framed as one DER SEQUENCE is read as DER without a curve, and as a scalar with one", () => {
  // 32 bytes, 30 1e …: one SEQUENCE of 30 bytes (not valid PKCS#8 or SEC 1), and not text
  const framed = new Uint8Array(32).fill(0xff);
  framed[0] = 0x30;
  framed[1] = 30;
  throwsWith(() => parsePrivateKey(framed, 'k'), Failure, /^invalid key: k: /);
  // one byte longer or shorter in the length: not framed, so a raw scalar's length asks for the curve
  for (const len of [29, 31]) {
    const b = framed.slice();
    b[1] = len;
    throwsWith(() => parsePrivateKey(b, 'k'), UsageError, 'k looks like a raw scalar: say which curve with --curve');
  }
  // nor is a long form of that length (30 81 1d …, 30 82 00 1c …): DER takes the shortest form only
  for (const head of [
    [0x30, 0x81, 29],
    [0x30, 0x82, 0, 28],
  ]) {
    const b = framed.slice();
    b.set(head);
    throwsWith(() => parsePrivateKey(b, 'k'), UsageError, 'k looks like a raw scalar: say which curve with --curve');
  }
  // with the curve named, the framed bytes are a scalar after the DER fails (0x30ff… < n on P-256)
  const k = parsePrivateKey(framed, 'k', 'p256');
  assert.equal(Buffer.from(k.key).toString('hex'), Buffer.from(framed).toString('hex'));
});

test("a key on a curve ctkit does not have: its OID, with ctkit's curves; with --curve, the library's mismatch", () => {
  const k192 = generateKeyPairSync('ec', { namedCurve: 'prime192v1' }); // OID 1.2.840.10045.3.1.1
  const pkcs8 = text(k192.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string);
  const spki = text(k192.publicKey.export({ format: 'pem', type: 'spki' }) as string);
  const unsupported = 'invalid key: k: unsupported curve (OID 1.2.840.10045.3.1.1; ctkit has p256, p224, brainpoolP256r1, p384, p521, secp256k1, brainpoolP384r1, brainpoolP512r1)';
  throwsWith(() => parsePrivateKey(pkcs8, 'k'), Failure, unsupported);
  throwsWith(() => parsePublicKey(spki, 'k'), Failure, unsupported);
  throwsWith(() => parsePrivateKey(pkcs8, 'k', 'p256'), Failure, /^invalid key: k: PKCS#8 private key: the key is for the curve with OID 1\.2\.840\.10045\.3\.1\.1, not p256/);
});

test('JWK: a missing or unknown "crv", and a member of the wrong type, each said once', () => {
  throwsWith(() => parsePrivateKey(text('{"kty":"EC","d":"AA"}'), 'k'), Failure, 'invalid key: k: JWK member "crv" is missing');
  // RFC 7518 and RFC 8812 register P-256, P-384, P-521 and secp256k1 of ctkit's curves
  throwsWith(() => parsePrivateKey(text('{"kty":"EC","crv":"P-192","d":"AA"}'), 'k'), Failure, 'invalid key: k: unsupported JWK curve "P-192" (ctkit has P-256, P-384, P-521, secp256k1)');
  const jwk = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ format: 'jwk' });
  throwsWith(() => parsePrivateKey(text(JSON.stringify({ ...jwk, x: 5 })), 'k'), Failure, 'invalid key: k: JSON: member "x" is not a string (it is a number)');
});

test('binary input that is neither DER nor a scalar: the usage error without --curve, the length with it, the DER error when framed', () => {
  for (const b of [Uint8Array.of(0xff), new Uint8Array(40).fill(0xff)]) {
    throwsWith(() => parsePrivateKey(b, 'k'), UsageError, 'k looks like a raw scalar: say which curve with --curve');
  }
  throwsWith(() => parsePrivateKey(new Uint8Array(40).fill(0xff), 'k', 'p256'), Failure, 'invalid key: k: data must be 32 bytes long, got 40');
  // 30 26 …: one SEQUENCE of 38 bytes, not a scalar's length: its DER error, not the length
  const framed = new Uint8Array(40).fill(0xff);
  framed[0] = 0x30;
  framed[1] = 38;
  throwsWith(() => parsePrivateKey(framed, 'k', 'p256'), Failure, /^invalid key: k: SEC 1 private key: /);
});

test('a binary SEC 1 point loads as a public key without --curve', () => {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const jwk = publicKey.export({ format: 'jwk' });
  const point = Buffer.concat([Buffer.of(4), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
  const k = parsePublicKey(new Uint8Array(point), 'k');
  assert.equal(k.curve.name, 'p256');
  assert.deepEqual(Buffer.from(k.key), point);
  // with --curve too (only a scalar's length is read as a private key), and on another curve its length is wrong
  assert.deepEqual(Buffer.from(parsePublicKey(new Uint8Array(point), 'k', 'p256').key), point);
  throwsWith(() => parsePublicKey(new Uint8Array(point), 'k', 'p384'), Failure, 'invalid key: k: data must be 97 or 49 bytes long, got 65');
});

test('binary public keys that are not keys: a scalar-long one without --curve, one framed as DER that is neither SPKI nor a private key', () => {
  // without --curve a scalar's length is not read as a private key: P-256 (the first curve) says what a point's length is
  throwsWith(() => parsePublicKey(new Uint8Array(32).fill(0xff), 'k'), Failure, 'invalid key: k: data must be 65 or 33 bytes long, got 32');
  // 30 1e ff …: one SEQUENCE, neither an SPKI nor a private key: the SPKI's error, not the raw point's length
  const framed = new Uint8Array(32).fill(0xff);
  framed[0] = 0x30;
  framed[1] = 30;
  for (const curve of [undefined, 'p384']) {
    throwsWith(() => parsePublicKey(framed, 'k', curve), Failure, 'invalid key: k: SubjectPublicKeyInfo: multi-byte tags are not used here at byte 2');
  }
});

test("the key files' messages name the file and what it is", async () => {
  const { fresh } = scratch('key-what');
  const f = join(fresh(), 'junk.key');
  writeFileSync(f, 'not a key\n');
  await rejectsWith(loadPrivateKey(f), Failure, `invalid key: private key ${f} is not a PEM, JWK or hex key (hex: hex length is odd)`);
  await rejectsWith(loadPublicKey(f), Failure, new RegExp(`^invalid key: public key ${f.replace(/[.]/g, '\\.')} is not a PEM, JWK or hex key`));
});

type Call = { name: string; args: unknown[]; result: unknown };
/** Runs f with p256's methods wrapped: every call's arguments and result, in order. */
async function spyP256(f: () => unknown): Promise<Call[]> {
  const names = ['importPrivateKey', 'importPublicKey', 'generatePrivateKey', 'getPublicKey', 'ecdh'] as const;
  const saved = names.map((n) => p256[n]);
  const calls: Call[] = [];
  names.forEach((n, i) => {
    const orig = saved[i] as (...a: unknown[]) => unknown;
    (p256 as unknown as Record<string, unknown>)[n] = (...args: unknown[]) => {
      const call: Call = { name: n, args, result: undefined };
      calls.push(call);
      call.result = orig.apply(p256, args);
      return call.result;
    };
  });
  try {
    await f();
  } finally {
    names.forEach((n, i) => {
      (p256 as unknown as Record<string, unknown>)[n] = saved[i];
    });
  }
  return calls;
}
const zero = (b: unknown) => b instanceof Uint8Array && b.length > 0 && b.every((x) => x === 0);
/** the `which` (args[0] or result) of every call of `name` */
const taken = (calls: Call[], name: string, which: 'arg' | 'result') => calls.filter((c) => c.name === name).map((c) => (which === 'arg' ? c.args[0] : c.result));

test('wiping: every copy of a private key the reader makes is zero once it is done with it', async () => {
  const { root } = scratch('key-wipe');
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const pem = text(privateKey.export({ format: 'pem', type: 'pkcs8' }) as string);
  const der = join(root, 'k.der');
  writeFileSync(der, privateKey.export({ format: 'der', type: 'pkcs8' }));
  const peer = join(root, 'peer.pem');
  writeFileSync(peer, publicKey.export({ format: 'pem', type: 'spki' }));
  const hexKey = text(`${Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url').toString('hex')}\n`);
  const allZero = (bs: unknown[], what: string) => {
    assert.ok(bs.length > 0, `${what}: not reached`);
    for (const b of bs) assert.ok(zero(b), `${what} left unwiped`);
  };

  // PEM: the block's bytes handed to the library
  let calls = await spyP256(() => parsePrivateKey(pem, 'k'));
  allZero(taken(calls, 'importPrivateKey', 'arg'), 'the PEM block copy');
  // hex: the decoded scalar, for a private key and for a public key read from it (and that key)
  calls = await spyP256(() => parsePrivateKey(hexKey, 'k', 'p256'));
  allZero(taken(calls, 'importPrivateKey', 'arg'), 'the decoded hex scalar');
  calls = await spyP256(() => parsePublicKey(hexKey, 'k', 'p256'));
  allZero(taken(calls, 'importPrivateKey', 'arg'), 'the decoded hex scalar (public key)');
  allZero(taken(calls, 'importPrivateKey', 'result'), 'the private key a public key was read from');
  // JWK: the decoded "d"; and when "x" and "y" are another key's, the imported key before the refusal
  const jwk = privateKey.export({ format: 'jwk' });
  calls = await spyP256(() => parsePrivateKey(text(JSON.stringify(jwk)), 'k'));
  allZero(taken(calls, 'importPrivateKey', 'arg'), 'the decoded JWK "d"');
  const other = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ format: 'jwk' });
  calls = await spyP256(() => assert.throws(() => parsePrivateKey(text(JSON.stringify({ ...jwk, x: other.x, y: other.y })), 'k'), /do not belong to "d"/));
  allZero(taken(calls, 'importPrivateKey', 'result'), 'the key of a refused JWK');
  // files: the bytes read (handed to the library as DER), and a public key's private key
  const read: unknown[] = [];
  const readFile = fsp.readFile;
  fsp.readFile = (async (...a: Parameters<typeof readFile>) => {
    const buf = await readFile(...a);
    read.push(buf);
    return buf;
  }) as typeof readFile;
  try {
    calls = await spyP256(() => loadPrivateKey(der));
  } finally {
    fsp.readFile = readFile;
  }
  allZero(read, 'the buffer Node.js read the file into');
  allZero(taken(calls, 'importPrivateKey', 'arg'), 'the private key file bytes');
  calls = await spyP256(() => loadPublicKey(der));
  allZero(taken(calls, 'importPrivateKey', 'arg'), 'the file bytes read as a public key');
  allZero(taken(calls, 'importPrivateKey', 'result'), 'the private key behind a public key file');
  // commands: keygen's scalar, ecdh's private key and shared secret
  calls = await spyP256(() => keygenCurve('p256', 'raw', join(root, 'new.hex')));
  allZero(taken(calls, 'generatePrivateKey', 'result'), "keygen's scalar");
  calls = await spyP256(() => ecdh(der, peer, join(root, 'secret.bin')));
  allZero(taken(calls, 'importPrivateKey', 'result'), "ecdh's private key");
  allZero(taken(calls, 'ecdh', 'result'), "ecdh's shared secret");
});

test('an EC PARAMETERS block before a SEC 1 key (openssl ecparam -genkey) reaches the library, which holds the key to it', () => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const sec1 = privateKey.export({ format: 'pem', type: 'sec1' }) as string;
  const params = (b64: string) => `-----BEGIN EC PARAMETERS-----\n${b64}\n-----END EC PARAMETERS-----\n`;
  // 06 08 2a8648ce3d030107: prime256v1; 06 05 2b81040022: secp384r1
  assert.equal(parsePrivateKey(text(params('BggqhkjOPQMBBw==') + sec1), 'k').curve.name, 'p256');
  throwsWith(() => parsePrivateKey(text(params('BgUrgQQAIg==') + sec1), 'k'), Failure, 'invalid key: k: SEC 1 PEM: the EC PARAMETERS block names the curve with OID 1.3.132.0.34, not 1.2.840.10045.3.1.7');
});

// `ctkit age` and `ctkit age-keygen` (issue 17 point 4) against the real `age` 1.x (/usr/bin/age,
// Debian package `age`): files both ways (binary, armored, sizes around the 64 KiB chunks and the
// CLI's 4 MiB batches, several recipients, stdin/stdout, worker threads), identity files both
// ways, and every malformed file the age specification (age-encryption.org/v1, C2SP) names,
// rejected by ctkit with a typed one-line error and no output file, and by age alike.
//
// The malformed files come from an independent age writer in this file on node:crypto (OpenSSL:
// X25519, HKDF, HMAC, ChaCha20-Poly1305), which can re-MAC an edited header and chunk a payload
// in any way, so each case has exactly one defect; age itself accepting the writer's well-formed
// files shows the writer right. Negative controls: CLI bundles with one check of src/cli/age.ts
// patched out (or one label broken) must fail the cases that guard them.
import { test } from 'node:test';
import pLimit from 'p-limit';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createCipheriv, createHmac, createPrivateKey, createPublicKey, diffieHellman, hkdfSync, randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { bech32Decode, bech32Encode } from '../src/cli/bech32.js';
import { Rng } from './support/rng.js';
import { ctkitArgv, spawnAsync } from './support/cli.js';

const repo = fileURLToPath(new URL('../', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'ctkit-age-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
const rng = new Rng(0xa9e);
let dirs = 0;
const fresh = () => {
  const d = join(root, `d${dirs++}`);
  mkdirSync(d);
  return d;
};
const ls = (d: string) => readdirSync(d).sort();

// ---- running the two tools -------------------------------------------------------------------

const ageVersion = spawnSync('age', ['--version'], { encoding: 'utf8' });
if (ageVersion.status !== 0) throw new Error('`age` is not installed (apt-get install -y age): these tests need the real age');

/** The CLI under test: the bundle of the sources (support/cli.ts), or a mutant bundle's main.js. */
type Main = string | undefined;
interface Run {
  status: number | null;
  stdout: Buffer;
  stderr: string;
}
/**
 * `ctkit age` from stdin (size unknown) would start a worker per core, as for a large file: the
 * tests say --jobs 1 unless they test the workers (a worker's start-up is most of a small run).
 */
const oneJob = (args: string[]) => (args[0] === 'age' && !args.includes('--jobs') ? [...args, '--jobs', '1'] : args);
function ctkit(args: string[], o: { main?: Main; input?: Uint8Array; cwd?: string } = {}): Run {
  args = oneJob(args);
  const argv = o.main ? [o.main, ...args] : ctkitArgv(args);
  const r = spawnSync(process.execPath, argv, { input: o.input, cwd: o.cwd, maxBuffer: 64 << 20 });
  return { status: r.status, stdout: r.stdout, stderr: String(r.stderr) };
}
function age(args: string[], input?: Uint8Array): Run {
  const r = spawnSync('age', args, { input, maxBuffer: 64 << 20 });
  return { status: r.status, stdout: r.stdout, stderr: String(r.stderr) };
}
// the same, asynchronously: the tests run several at once (a run is mostly start-up, not CPU)
const spawnRun = (cmd: string, argv: string[], input?: Uint8Array, cwd?: string): Promise<Run> => spawnAsync(cmd, argv, { input, cwd });
const ctkitA = (args: string[], o: { main?: Main; input?: Uint8Array; cwd?: string } = {}) => spawnRun(process.execPath, o.main ? [o.main, ...oneJob(args)] : ctkitArgv(oneJob(args)), o.input, o.cwd);
const ageA = (args: string[], input?: Uint8Array) => spawnRun('age', args, input);
/** f over items, `n` at a time */
async function inParallel<T>(items: readonly T[], f: (t: T) => Promise<void>, n = 4): Promise<void> {
  const limit = pLimit(n);
  await Promise.all(items.map((t) => limit(() => f(t))));
}
const ok = (r: Run, what: string) => assert.equal(r.status, 0, `${what}: exit ${r.status}: ${r.stderr}`);

// ---- keys ------------------------------------------------------------------------------------

interface Key {
  file: string;
  recipient: string;
  sk: Buffer;
  pk: Buffer;
}
const keyDir = fresh();
function ageKeygen(name: string): Key {
  const file = join(keyDir, name);
  const r = spawnSync('age-keygen', ['-o', file], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return loadKey(file);
}
function ctkitKeygen(name: string): Key {
  const file = join(keyDir, name);
  ok(ctkit(['age-keygen', '-o', file]), 'ctkit age-keygen');
  return loadKey(file);
}
function loadKey(file: string): Key {
  const text = readFileSync(file, 'utf8');
  const line = text.split('\n').find((l) => l.startsWith('AGE-SECRET-KEY-1'))!;
  const sk = Buffer.from(bech32Decode(line).data);
  const pk = x25519Public(sk);
  return { file, sk, pk, recipient: bech32Encode('age', pk) };
}

// X25519 on OpenSSL (node:crypto), from raw keys through their DER forms
const PKCS8_X25519 = Buffer.from('302e020100300506032b656e04220420', 'hex');
const SPKI_X25519 = Buffer.from('302a300506032b656e032100', 'hex');
const privKey = (sk: Uint8Array) => createPrivateKey({ key: Buffer.concat([PKCS8_X25519, sk]), format: 'der', type: 'pkcs8' });
const pubKey = (pk: Uint8Array) => createPublicKey({ key: Buffer.concat([SPKI_X25519, pk]), format: 'der', type: 'spki' });
function x25519Public(sk: Uint8Array): Buffer {
  return (createPublicKey(privKey(sk)).export({ format: 'der', type: 'spki' }) as Buffer).subarray(-32);
}
const x25519 = (sk: Uint8Array, pk: Uint8Array) => diffieHellman({ privateKey: privKey(sk), publicKey: pubKey(pk) });

// ---- an independent age writer (node:crypto) -------------------------------------------------

const hkdf = (ikm: Uint8Array, salt: Uint8Array, info: string) => Buffer.from(hkdfSync('sha256', ikm, salt, info, 32));
function chachaSeal(key: Uint8Array, nonce: Uint8Array, plain: Uint8Array): Buffer {
  const c = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 });
  return Buffer.concat([c.update(plain), c.final(), c.getAuthTag()]);
}
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64').replace(/=+$/, '');
const wrap64 = (s: string) => {
  let out = '';
  for (let i = 0; i <= s.length; i += 64) out += s.slice(i, i + 64) + '\n';
  return out;
};

interface StanzaParts {
  share: Buffer;
  body: Buffer;
}
/** An X25519 stanza's share and body wrapping fileKey to pk (ephemeral secret `eph`, or a fresh one). */
function x25519Parts(fileKey: Uint8Array, pk: Uint8Array, eph: Uint8Array = randomBytes(32)): StanzaParts {
  const share = x25519Public(eph);
  const wrapKey = hkdf(x25519(eph, pk), Buffer.concat([share, pk]), 'age-encryption.org/v1/X25519');
  return { share, body: chachaSeal(wrapKey, new Uint8Array(12), fileKey) };
}
const stanzaText = (p: StanzaParts) => `-> X25519 ${b64(p.share)}\n${wrap64(b64(p.body))}`;

/** header text (without "---") → the whole header, MAC line included */
function withMac(fileKey: Uint8Array, text: string): Buffer {
  const macked = text + '---';
  const mac = createHmac('sha256', hkdf(fileKey, new Uint8Array(0), 'header'))
    .update(macked, 'latin1')
    .digest();
  return Buffer.from(`${macked} ${b64(mac)}\n`, 'latin1');
}

interface Chunk {
  plain: Uint8Array;
  final: boolean;
}
/** age's chunking of `plain`: 64 KiB chunks, the last one final (one empty final chunk for no data). */
function ageChunks(plain: Uint8Array): Chunk[] {
  const out: Chunk[] = [];
  for (let o = 0; o < plain.length || out.length === 0; o += 65536) out.push({ plain: plain.subarray(o, o + 65536), final: false });
  out[out.length - 1].final = true;
  return out;
}
function payload(fileKey: Uint8Array, chunks: Chunk[], nonce: Uint8Array = randomBytes(16)): Buffer {
  const key = hkdf(fileKey, nonce, 'payload');
  const parts: Buffer[] = [Buffer.from(nonce)];
  chunks.forEach((c, i) => {
    const n = Buffer.alloc(12);
    n.writeUIntBE(i, 5, 6);
    n[11] = c.final ? 1 : 0;
    parts.push(chachaSeal(key, n, c.plain));
  });
  return Buffer.concat(parts);
}
/** A whole age file of `plain` to the recipients (raw public keys). */
function ageFile(plain: Uint8Array, pks: Uint8Array[], fileKey: Uint8Array = randomBytes(16)): Buffer {
  const text = 'age-encryption.org/v1\n' + pks.map((pk) => stanzaText(x25519Parts(fileKey, pk))).join('');
  return Buffer.concat([withMac(fileKey, text), payload(fileKey, ageChunks(plain))]);
}
/** RFC 7468 strict armor, as age writes it */
function armor(bin: Uint8Array, eol = '\n'): string {
  const s = Buffer.from(bin).toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < s.length; i += 64) lines.push(s.slice(i, i + 64));
  return ['-----BEGIN AGE ENCRYPTED FILE-----', ...lines, '-----END AGE ENCRYPTED FILE-----', ''].join(eol);
}

// ---- the keys of the tests ---------------------------------------------------------------------

const alice = ageKeygen('alice.txt'); // made by age-keygen
const bob = ctkitKeygen('bob.txt'); // made by ctkit age-keygen
const carol = ageKeygen('carol.txt');
const mallory = ctkitKeygen('mallory.txt');

test('identity files: ctkit age-keygen writes what age reads (mode 0600, the comment lines), and reads age-keygen files', () => {
  const text = readFileSync(bob.file, 'utf8');
  assert.match(text, /^# created: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n# public key: age1[02-9ac-hj-np-z]{58}\nAGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}\n$/);
  assert.equal(statSync(bob.file).mode & 0o777, 0o600);
  // the public key line is the identity's recipient by OpenSSL's X25519, and by age-keygen -y
  assert.equal(text.split('\n')[1].slice('# public key: '.length), bob.recipient);
  assert.equal(spawnSync('age-keygen', ['-y', bob.file], { encoding: 'utf8' }).stdout.trim(), bob.recipient);
  // ctkit age-keygen -y of an age-keygen identity file
  const y = ctkit(['age-keygen', '-y', alice.file]);
  ok(y, 'age-keygen -y');
  assert.equal(String(y.stdout).trim(), alice.recipient);
  // to stdout: one identity, nothing else; never overwrites
  const s = ctkit(['age-keygen']);
  ok(s, 'age-keygen to stdout');
  assert.match(String(s.stdout), /^# created: .*\n# public key: age1\S+\nAGE-SECRET-KEY-1\S+\n$/);
  const again = ctkit(['age-keygen', '-o', bob.file]);
  assert.equal(again.status, 2, again.stderr);
  assert.equal(again.stderr, `ctkit age-keygen: ${bob.file} already exists; ctkit never overwrites a key\n`);
});

// ---- malformed files ----------------------------------------------------------------------------

interface Case {
  name: string;
  file: Buffer;
  /** what ctkit's message must say */
  why: RegExp;
  /** the identity to decrypt with (default alice) */
  id?: Key;
  /** age accepts it (a well-formed file among the malformed ones): ctkit must decrypt it to plain */
  accept?: Uint8Array;
  /** age (1.1) accepts this malformed file where the specification says to reject it */
  ageLenient?: boolean;
}

const fk = randomBytes(16);
const good = x25519Parts(fk, alice.pk);
const v1 = 'age-encryption.org/v1\n';
const goodStanza = stanzaText(good);
const goodHeaderLen = withMac(fk, v1 + goodStanza).length;
// the whole file's length 1 mod 3, so that its armor ends in "==" (the padding case needs it)
const plainS = rng.bytes(1000 + ((((1 - goodHeaderLen - 32 - 1000) % 3) + 3) % 3));
const plain2 = rng.bytes(65536 + 1000);
const pay = payload(fk, ageChunks(plainS));
/** a file whose header text (before "---") is `text`, MAC'd correctly, with the small payload */
const hdr = (text: string, p: Buffer = pay) => Buffer.concat([withMac(fk, text), p]);
/** flips the unused low bits of the last base64 character (canonical → non-canonical, same bytes) */
const uncanon = (s: string) => {
  const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  return s.slice(0, -1) + A[A.indexOf(s[s.length - 1]) ^ 1];
};
const goodFile = hdr(v1 + goodStanza);
const macLine = String(goodFile.subarray(0, goodHeaderLen)).split('\n').slice(-2)[0];
const chunks = (cs: [number, boolean][], data = plain2) => {
  let o = 0;
  return cs.map(([n, final]) => {
    const c = { plain: data.subarray(o, o + n), final };
    o += n;
    return c;
  });
};

const CASES: Case[] = [
  { name: 'the well-formed file (writer check)', file: goodFile, why: /^$/, accept: plainS },
  { name: 'an unknown stanza beside ours is ignored', file: hdr(v1 + '-> example.com/enigma a b\nZm9v\n' + goodStanza), why: /^$/, accept: plainS },
  { name: 'a full final chunk', file: hdr(v1 + goodStanza, payload(fk, chunks([[65536, true]]))), why: /^$/, accept: plain2.subarray(0, 65536) },
  { name: 'an empty payload (one empty final chunk)', file: hdr(v1 + goodStanza, payload(fk, [{ plain: new Uint8Array(0), final: true }])), why: /^$/, accept: new Uint8Array(0) },
  // version line
  { name: 'version v2', file: hdr('age-encryption.org/v2\n' + goodStanza), why: /unsupported age format version "v2"/ },
  { name: 'version line with CRLF', file: hdr('age-encryption.org/v1\r\n' + goodStanza), why: /unsupported age format version/ },
  { name: 'not an age file', file: Buffer.from('hello, world\n'.repeat(100)), why: /not an age file/ },
  { name: 'leading whitespace before a binary header', file: Buffer.concat([Buffer.from(' '), goodFile]), why: /not an age file/ },
  // stanzas
  { name: 'a stanza line without a space after "->"', file: hdr(v1 + goodStanza.replace('-> X25519', '->X25519')), why: /stanza line/ },
  { name: 'a stanza with an empty argument', file: hdr(v1 + goodStanza.replace('-> X25519 ', '-> X25519  ')), why: /stanza line/ },
  { name: 'a stanza without arguments', file: hdr(v1 + '->\n\n' + goodStanza), why: /stanza line/ },
  { name: 'a stanza argument with a control character', file: hdr(v1 + '-> foo\x01bar\n\n' + goodStanza), why: /stanza line/ },
  { name: 'a line that is neither stanza nor MAC', file: hdr(v1 + goodStanza + 'hello\n'), why: /expected a stanza/ },
  { name: 'an X25519 stanza with two arguments', file: hdr(v1 + goodStanza.replace(`${b64(good.share)}\n`, `${b64(good.share)} extra\n`)), why: /X25519 stanza has one argument/ },
  { name: 'an X25519 share of 31 bytes', file: hdr(v1 + stanzaText({ share: good.share.subarray(0, 31), body: good.body })), why: /X25519 stanza has one argument/ },
  { name: 'an X25519 share in non-canonical base64', file: hdr(v1 + goodStanza.replace(b64(good.share), uncanon(b64(good.share)))), why: /X25519 stanza has one argument: the canonical base64/ },
  { name: 'an X25519 share of small order (all zero)', file: hdr(v1 + stanzaText({ share: Buffer.alloc(32), body: good.body })), why: /small order/ },
  { name: 'an X25519 body of 33 bytes', file: hdr(v1 + stanzaText({ share: good.share, body: Buffer.concat([good.body, Buffer.of(0)]) })), why: /body is 32 bytes/ },
  { name: 'an X25519 body in non-canonical base64', file: hdr(v1 + goodStanza.replace(`\n${b64(good.body)}\n`, `\n${uncanon(b64(good.body))}\n`)), why: /canonical base64 without padding/ },
  { name: 'a body line with padding', file: hdr(v1 + goodStanza.replace(`\n${b64(good.body)}\n`, `\n${b64(good.body)}=\n`)), why: /canonical base64 without padding/ },
  { name: 'a body line of 65 columns', file: hdr(v1 + '-> foo\n' + 'A'.repeat(65) + '\n' + goodStanza), why: /at most 64 columns/ },
  { name: 'a stanza body without a final short line', file: hdr(v1 + '-> foo\n' + 'A'.repeat(64) + '\n' + goodStanza), why: /without a short body line/ },
  { name: 'no stanza', file: hdr(v1), why: /no recipient stanza/ },
  { name: 'an scrypt stanza beside another (age 1.1 ignores it for an X25519 identity)', ageLenient: true, file: hdr(v1 + '-> scrypt c2FsdHNhbHRzYWx0c2FsdA 10\n' + wrap64(b64(randomBytes(32))) + goodStanza), why: /scrypt stanza must be the only/ },
  // the MAC
  { name: 'a wrong MAC', file: Buffer.concat([Buffer.from(String(goodFile.subarray(0, goodHeaderLen)).replace(macLine, macLine.slice(0, 10) + (macLine[10] === 'A' ? 'B' : 'A') + macLine.slice(11)), 'latin1'), pay]), why: /MAC does not match/ },
  { name: 'a MAC in non-canonical base64', file: Buffer.concat([Buffer.from(String(goodFile.subarray(0, goodHeaderLen)).replace(macLine, uncanon(macLine)), 'latin1'), pay]), why: /MAC line is not/ },
  { name: 'a MAC line without the space', file: Buffer.concat([Buffer.from(String(goodFile.subarray(0, goodHeaderLen)).replace('--- ', '---'), 'latin1'), pay]), why: /MAC line is not/ },
  { name: 'a header changed after its MAC', file: Buffer.concat([Buffer.from(String(goodFile.subarray(0, goodHeaderLen)).replace(v1, v1 + '-> foo\n\n'), 'latin1'), pay]), why: /MAC does not match/ },
  { name: 'the wrong identity', file: goodFile, id: mallory, why: /no identity matched/ },
  // the payload
  { name: 'truncated inside the header', file: goodFile.subarray(0, 60), why: /ends inside the age header/ },
  { name: 'truncated inside the nonce', file: goodFile.subarray(0, goodHeaderLen + 10), why: /payload nonce/ },
  { name: 'a nonce and no chunk', file: goodFile.subarray(0, goodHeaderLen + 16), why: /truncated: payload chunk 0/ },
  { name: 'truncated inside the last chunk', file: goodFile.subarray(0, goodFile.length - 1), why: /chunk 0 failed authentication/ },
  { name: 'the final chunk cut off at a chunk boundary', file: hdr(v1 + goodStanza, payload(fk, ageChunks(plain2)).subarray(0, 16 + 65552)), why: /chunk 0 failed authentication/ },
  { name: 'one byte appended', file: Buffer.concat([goodFile, Buffer.of(0)]), why: /failed authentication/ },
  { name: "a tag's worth appended", file: Buffer.concat([goodFile, Buffer.alloc(16)]), why: /failed authentication/ },
  {
    name: 'a chunk appended after the final one',
    file: hdr(
      v1 + goodStanza,
      payload(
        fk,
        chunks([
          [65536, true],
          [1000, true],
        ]),
      ),
    ),
    why: /chunk 0 failed authentication/,
  },
  {
    name: 'an empty final chunk after a full one',
    file: hdr(
      v1 + goodStanza,
      payload(
        fk,
        chunks([
          [65536, false],
          [0, true],
        ]),
      ),
    ),
    why: /empty final chunk/,
  },
  {
    name: 'no final chunk (the last one not flagged)',
    file: hdr(
      v1 + goodStanza,
      payload(
        fk,
        chunks([
          [65536, false],
          [1000, false],
        ]),
      ),
    ),
    why: /chunk 1 failed authentication/,
  },
  {
    name: 'a short chunk before the last',
    file: hdr(
      v1 + goodStanza,
      payload(
        fk,
        chunks([
          [1000, false],
          [1000, true],
        ]),
      ),
    ),
    why: /failed authentication/,
  },
  {
    name: 'chunks swapped',
    file: (() => {
      const p = payload(fk, ageChunks(plain2));
      return hdr(v1 + goodStanza, Buffer.concat([p.subarray(0, 16), p.subarray(16 + 65552), p.subarray(16, 16 + 65552)]));
    })(),
    why: /failed authentication/,
  },
  { name: 'a payload from another file key', file: hdr(v1 + goodStanza, payload(randomBytes(16), ageChunks(plainS))), why: /chunk 0 failed authentication/ },
  // armor
  { name: 'armor: the well-formed armor (writer check)', file: Buffer.from(armor(goodFile)), why: /^$/, accept: plainS },
  // whitespace before the armor is allowed by the specification, and refused by age 1.1: not here
  { name: 'armor: CRLF line ends, whitespace after', file: Buffer.from(armor(goodFile, '\r\n') + '\n\n  \n'), why: /^$/, accept: plainS },
  { name: 'armor: a line of 65 columns', file: Buffer.from(armor(goodFile).replace(/\n([A-Za-z0-9+/]{64})\n([A-Za-z0-9+/])/, '\n$1$2\n')), why: /longer than 64 columns/ },
  { name: 'armor: a short line before the last', file: Buffer.from(armor(goodFile).replace(/\n([A-Za-z0-9+/]{60})([A-Za-z0-9+/]{4})\n/, '\n$1\n$2\n')), why: /invalid armor/ },
  { name: 'armor: no end line', file: Buffer.from(armor(goodFile).replace('-----END AGE ENCRYPTED FILE-----\n', '')), why: /ends before "-----END/ },
  { name: 'armor: data after the end line', file: Buffer.from(armor(goodFile) + 'x\n'), why: /data after the end line/ },
  { name: 'armor: non-canonical padding', file: Buffer.from(armor(goodFile).replace(/([A-Za-z0-9+/])(=+)\n/, (_m, c: string, p: string) => uncanon(c) + p + '\n')), why: /non-canonical base64 in the last line/ },
  { name: 'armor: another label', file: Buffer.from(armor(goodFile).replace('BEGIN AGE ENCRYPTED FILE', 'BEGIN AGE ENCRYPTED DATA')), why: /the first line is not/ },
  { name: 'armor: a space at the end of a line', file: Buffer.from(armor(goodFile).replace(/\n([A-Za-z0-9+/]{64})\n/, '\n$1 \n')), why: /longer than 64 columns/ },
  { name: 'armor: a space inside a line', file: Buffer.from(armor(goodFile).replace(/\n([A-Za-z0-9+/]{10})/, '\n$1 ')), why: /invalid armor/ },
];

test('the malformed-file cases are what they claim: the armor rewrites hit, the payload lengths are right', () => {
  const a = armor(goodFile);
  for (const c of CASES.filter((c) => c.name.startsWith('armor: '))) {
    if (!c.accept) assert.notEqual(String(c.file), a, `${c.name}: the rewrite changed nothing`);
  }
  assert.ok(/[^=]==\n-----END/.test(a), 'the good armor ends with "==" (the non-canonical padding case needs it)');
});

/** Decrypting `c` with -o: ctkit says why in one line, exit 1, and leaves no file (or decrypts an accepted case). */
async function checkCase(c: Case, main?: Main): Promise<void> {
  const dir = fresh();
  const f = join(dir, 'in.age');
  writeFileSync(f, c.file);
  const r = await ctkitA(['age', '-d', '-i', (c.id ?? alice).file, '-o', join(dir, 'out'), f], { main });
  if (c.accept) {
    assert.equal(r.status, 0, `${c.name}: ctkit refused a well-formed file: ${r.stderr}`);
    assert.ok(readFileSync(join(dir, 'out')).equals(c.accept), `${c.name}: plaintext`);
    return;
  }
  assert.equal(r.status, 1, `${c.name}: exit ${r.status}, stderr ${r.stderr}`);
  assert.match(r.stderr, /^ctkit age: [^\n]+\n$/, `${c.name}: one line`);
  assert.match(r.stderr, c.why, c.name);
  assert.deepEqual(ls(dir), ['in.age'], `${c.name}: a file was left behind`);
  assert.equal(r.stdout.length, 0, `${c.name}: output on stdout`);
}

test('malformed files: age and ctkit agree on each case; ctkit: exit 1, one line saying why, no output file', async () => {
  await inParallel(CASES, async (c) => {
    const a = await ageA(['-d', '-i', (c.id ?? alice).file], c.file);
    if (c.accept) {
      assert.equal(a.status, 0, `${c.name}: age refused it: ${a.stderr}`);
      assert.ok(a.stdout.equals(c.accept), `${c.name}: age's plaintext`);
    } else if (c.ageLenient) {
      assert.equal(a.status, 0, `${c.name}: age now refuses it too (drop ageLenient)`);
    } else {
      assert.notEqual(a.status, 0, `${c.name}: age accepted it`);
    }
    await checkCase(c);
  });
});

test('to stdout, a payload failing after good chunks: exit 1, the message counts what was written', () => {
  const p = payload(fk, ageChunks(plain2));
  const bad = hdr(v1 + goodStanza, Buffer.concat([p.subarray(0, p.length - 1), Buffer.of(p[p.length - 1] ^ 1)]));
  const r = ctkit(['age', '-d', '-i', alice.file], { input: bad });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /^ctkit age: payload chunk 1 failed authentication: .*; 65536 bytes of authenticated plaintext before it were already written to stdout\n$/);
  assert.ok(r.stdout.equals(plain2.subarray(0, 65536)));
});

test('command-line errors: usage (exit 2), bad recipients and identities (exit 1, the secret never printed)', () => {
  const dir = fresh();
  const none = ctkit(['age'], { input: plainS });
  assert.equal(none.status, 2);
  assert.match(none.stderr, /^ctkit age: age needs a recipient .*; usage: /);
  const noId = ctkit(['age', '-d'], { input: goodFile });
  assert.equal(noId.status, 2);
  assert.match(noId.stderr, /needs an identity file/);
  const bad = ctkit(['age', '-r', alice.recipient.slice(0, -1) + (alice.recipient.endsWith('q') ? 'p' : 'q')], { input: plainS });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /^ctkit age: -r: invalid recipient "age1.*": its checksum does not match/);
  const ssh = ctkit(['age', '-r', 'ssh-ed25519 AAAA'], { input: plainS });
  assert.equal(ssh.status, 1);
  assert.match(ssh.stderr, /is not an age X25519 recipient/);
  const secret = readFileSync(alice.file, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('AGE-'))!;
  const lower = join(dir, 'lower.txt');
  writeFileSync(lower, secret.toLowerCase() + '\n');
  const lc = ctkit(['age', '-d', '-i', lower], { input: goodFile });
  assert.equal(lc.status, 1);
  assert.match(lc.stderr, /lower\.txt line 1: not an age X25519 identity .*upper case/);
  const typo = join(dir, 'typo.txt');
  writeFileSync(typo, '# x\n' + secret.slice(0, 30) + (secret[30] === 'Q' ? 'P' : 'Q') + secret.slice(31) + '\n');
  const t = ctkit(['age', '-d', '-i', typo], { input: goodFile });
  assert.equal(t.status, 1);
  assert.match(t.stderr, /typo\.txt line 2: invalid identity: its checksum does not match/);
  for (const r of [lc, t]) assert.ok(!r.stderr.toUpperCase().includes(secret.slice(16, 40)), 'the identity in a message');
  const missing = ctkit(['age', '-d', '-i', join(dir, 'nope.txt')], { input: goodFile });
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /cannot read identity file .*nope\.txt: no such file/);
  // binary to a terminal is refused like seal's (not testable without a tty here); -o never overwrites
  writeFileSync(join(dir, 'exists'), 'keep');
  const ow = ctkit(['age', '-r', alice.recipient, '-o', join(dir, 'exists')], { input: plainS });
  assert.equal(ow.status, 2);
  assert.equal(readFileSync(join(dir, 'exists'), 'utf8'), 'keep');
  ok(ctkit(['age', '-r', alice.recipient, '-o', join(dir, 'exists'), '--force'], { input: plainS }), '--force');
  assert.ok(age(['-d', '-i', alice.file, join(dir, 'exists')]).stdout.equals(plainS));
});

// ---- interoperability ---------------------------------------------------------------------------
// (after the malformed files, whose cases are quicker: under `npm run test:mutation -- src/cli` a
// mutant of age.ts fails there first, and the first failing test ends the file)

const SIZES = [0, 1, 65535, 65536, 65537, 131072, 131073, (4 << 20) + 65537];
const ARMORED = [0, 1, 65537];

const SIZED = SIZES.flatMap((size) => (ARMORED.includes(size) ? [false, true] : [false]).map((armored) => ({ size, armored, plain: rng.bytes(size) })));

test('ctkit age encrypts, age -d decrypts: sizes around 64 KiB chunks and 4 MiB batches, binary and armored', async () => {
  const dir = fresh();
  await inParallel(SIZED, async ({ size, armored, plain }) => {
    const inFile = join(dir, `p${size}${armored ? '.asc' : ''}`);
    writeFileSync(inFile, plain);
    {
      const out = join(dir, `p${size}${armored ? '.asc' : ''}.age`);
      ok(await ctkitA(['age', '-r', alice.recipient, ...(armored ? ['-a'] : []), '-o', out, inFile]), `ctkit age ${size}`);
      const file = readFileSync(out);
      if (armored) {
        // strict armor: the begin line, 64-column lines, the end line
        const lines = String(file).split('\n');
        assert.equal(lines[0], '-----BEGIN AGE ENCRYPTED FILE-----');
        assert.deepEqual(lines.slice(-2), ['-----END AGE ENCRYPTED FILE-----', '']);
        const body = lines.slice(1, -2);
        assert.ok(body.slice(0, -1).every((l) => l.length === 64) && body[body.length - 1].length <= 64, `armor lines, size ${size}`);
      } else {
        // the header is one stanza and the MAC; the payload has age's chunk count
        assert.match(String(file.subarray(0, 200)), /^age-encryption\.org\/v1\n-> X25519 [A-Za-z0-9+/]{43}\n[A-Za-z0-9+/]{43}\n--- [A-Za-z0-9+/]{43}\n/);
        const headerLen = String(file.subarray(0, 200)).indexOf('\n--- ') + 49;
        assert.equal(file.length - headerLen - 16, size + 16 * Math.max(1, Math.ceil(size / 65536)), `payload length, size ${size}`);
      }
      const r = await ageA(['-d', '-i', alice.file, out]);
      ok(r, `age -d ${size} ${armored}`);
      assert.ok(r.stdout.equals(plain), `age -d: plaintext of ${size} bytes (armor ${armored})`);
    }
  });
});

test('age encrypts, ctkit age -d decrypts: the same sizes, binary and armored, from a file or from stdin', async () => {
  const dir = fresh();
  let k = 0;
  await inParallel(SIZED, async ({ size, armored, plain }) => {
    const enc = await ageA(['-r', bob.recipient, ...(armored ? ['-a'] : [])], plain);
    ok(enc, 'age -r');
    if (k++ % 2 === 0) {
      const piped = await ctkitA(['age', '-d', '-i', bob.file], { input: enc.stdout });
      ok(piped, 'ctkit age -d from stdin');
      assert.ok(piped.stdout.equals(plain), `ctkit age -d stdin → stdout: ${size} bytes (armor ${armored})`);
      return;
    }
    const f = join(dir, `a${size}${armored ? '.asc' : ''}.age`);
    writeFileSync(f, enc.stdout);
    const out = join(dir, `a${size}${armored ? '.asc' : ''}.out`);
    ok(await ctkitA(['age', '-d', '-i', bob.file, '-o', out, f]), `ctkit age -d ${size}`);
    assert.ok(readFileSync(out).equals(plain), `ctkit age -d -o: ${size} bytes (armor ${armored})`);
  });
});

test('several recipients both ways; -R files; several identities; worker threads', () => {
  const dir = fresh();
  const plain = rng.bytes(300_000);
  const rfile = join(dir, 'recipients.txt');
  writeFileSync(rfile, `# the team\n${carol.recipient}\n\n${bob.recipient}\n`);
  // ctkit to alice (-r) and carol, bob (-R): each identity opens it, in age and in ctkit
  const c = ctkit(['age', '-r', alice.recipient, '-R', rfile], { input: plain });
  ok(c, 'ctkit age, three recipients');
  assert.equal((String(c.stdout.subarray(0, 1000)).match(/\n-> X25519 /g) ?? []).length, 3);
  for (const k of [alice, bob, carol]) {
    const a = age(['-d', '-i', k.file], c.stdout);
    ok(a, `age -d -i ${k.file}`);
    assert.ok(a.stdout.equals(plain));
    const d = ctkit(['age', '-d', '-i', k.file], { input: c.stdout });
    ok(d, `ctkit age -d -i ${k.file}`);
    assert.ok(d.stdout.equals(plain));
  }
  // age to alice, carol (-R) → ctkit with carol's identity, and with an identity list holding mallory's first
  const a = age(['-r', alice.recipient, '-R', rfile], plain);
  ok(a, 'age, three recipients');
  const d = ctkit(['age', '-d', '-i', mallory.file, '-i', carol.file], { input: a.stdout });
  ok(d, 'ctkit age -d -i mallory -i carol');
  assert.ok(d.stdout.equals(plain));
  // the test's own writer, to two recipients: each tool opens it with either identity
  const w = ageFile(plain, [alice.pk, bob.pk]);
  for (const k of [alice, bob]) {
    const r = ctkit(['age', '-d', '-i', k.file], { input: w });
    ok(r, `ctkit age -d of the writer's file, ${k.file}`);
    assert.ok(r.stdout.equals(plain));
    assert.ok(age(['-d', '-i', k.file], w).stdout.equals(plain), `age -d of the writer's file, ${k.file}`);
  }
  // one identity file with several keys, the matching one last
  const both = join(dir, 'both.txt');
  writeFileSync(both, readFileSync(mallory.file, 'utf8') + readFileSync(bob.file, 'utf8'));
  const d2 = ctkit(['age', '-d', '-i', both], { input: a.stdout });
  ok(d2, 'identity file with two keys');
  assert.ok(d2.stdout.equals(plain));
  // --jobs 2 (worker threads) both ways, on more than one 4 MiB batch
  const big = rng.bytes((5 << 20) + 12345);
  const bigIn = join(dir, 'big');
  writeFileSync(bigIn, big);
  ok(ctkit(['age', '-r', alice.recipient, '--jobs', '2', '-o', join(dir, 'big.age'), bigIn]), 'ctkit age --jobs 2');
  const back = age(['-d', '-i', alice.file, join(dir, 'big.age')]);
  ok(back, 'age -d of a --jobs 2 file');
  assert.ok(back.stdout.equals(big));
  const ageBig = age(['-r', bob.recipient, '-o', join(dir, 'big2.age'), bigIn]);
  ok(ageBig, 'age -r big');
  ok(ctkit(['age', '-d', '-i', bob.file, '--jobs', '2', '-o', join(dir, 'big2.out'), join(dir, 'big2.age')]), 'ctkit age -d --jobs 2');
  assert.ok(readFileSync(join(dir, 'big2.out')).equals(big));
});

test('age -d -o: SIGINT mid-decryption removes the temporary file (no plaintext left)', async () => {
  const dir = fresh();
  const big = rng.bytes(9 << 20);
  const enc = age(['-r', alice.recipient], big).stdout;
  const child = spawn(process.execPath, ctkitArgv(['age', '-d', '-i', alice.file, '-o', join(dir, 'out'), '--jobs', '1']), { cwd: dir, stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  child.stdin!.on('error', () => undefined);
  child.stdin!.write(enc.subarray(0, enc.length - 1000)); // the pipe stays open: ctkit waits for the rest
  const temps = () => ls(dir).filter((f) => f.includes('.ctkit-tmp'));
  const until = Date.now() + 30000;
  while (!(temps().length === 1 && statSync(join(dir, temps()[0])).size > 0)) {
    if (Date.now() > until) throw new Error(`no temporary file with data appeared; stderr ${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(statSync(join(dir, temps()[0])).mode & 0o777, 0o600);
  child.kill('SIGINT');
  const { code, signal } = await done;
  assert.equal(signal, 'SIGINT', `exit ${code}, stderr ${stderr}`);
  assert.deepEqual(ls(dir), [], 'files left behind');
});

// ---- negative controls -------------------------------------------------------------------------

/** The CLI bundled with one replacement in src/cli/age.ts (which must occur exactly once). */
async function mutant(from: string, to: string): Promise<string> {
  const out = mkdtempSync(join(root, 'mutant-'));
  mkdirSync(join(out, 'src', 'cli'), { recursive: true });
  copyFileSync(join(repo, 'package.json'), join(out, 'package.json'));
  await build({
    entryPoints: [join(repo, 'src/cli/main.ts')],
    outfile: join(out, 'src/cli/main.js'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
    external: ['esbuild', 'tsx'],
    plugins: [
      {
        name: 'mutate',
        setup(b) {
          b.onLoad({ filter: /[\\/]src[\\/]cli[\\/]age\.ts$/ }, (a) => {
            const src = readFileSync(a.path, 'utf8');
            assert.equal(src.split(from).length, 2, `the mutation's text occurs once in age.ts: ${from}`);
            return { contents: src.replace(from, to), loader: 'ts' };
          });
        },
      },
    ],
  });
  return join(out, 'src/cli/main.js');
}
const caseNamed = (name: string) => CASES.find((c) => c.name === name)!;

test('negative controls: each check patched out of age.ts lets its case through, and the suite says so', async () => {
  const controls: [string, string, string[]][] = [
    ['if (diff !== 0) throw', 'if (diff !== 0 && false) throw', ['a wrong MAC', 'a header changed after its MAC']],
    ['if (len > TAG && len % (AGE_CHUNK + TAG) === TAG)', 'if (false)', ['an empty final chunk after a full one']],
    ['return b64encode(b) === s ? b : undefined;', 'return b;', ['an X25519 share in non-canonical base64', 'an X25519 body in non-canonical base64']],
    ['if (share?.length !== 32)', 'if (!share)', ['an X25519 share of 31 bytes']],
    ['if (s.body.length !== 32)', 'if (false)', ['an X25519 body of 33 bytes']],
    ["if (line.endsWith('\\r')) line = line.slice(0, -1);", 'line = line.trim();', ['armor: a space at the end of a line']],
  ];
  await inParallel(
    controls,
    async ([from, to, names]) => {
      const main = await mutant(from, to);
      for (const n of names) {
        await assert.rejects(checkCase(caseNamed(n), main), assert.AssertionError, `the mutant '${to}' passes the case '${n}'`);
      }
      // and the mutant still decrypts the well-formed file: the control breaks one check, not everything
      await checkCase(caseNamed('the well-formed file (writer check)'), main);
    },
    2,
  );
  // an encoder with a wrong label: age refuses its files, as the interoperability tests would see
  const main = await mutant("ascii('payload')", "ascii('Payload')");
  const enc = ctkit(['age', '-r', alice.recipient], { main, input: plainS });
  ok(enc, 'the mutant encrypts');
  assert.notEqual(age(['-d', '-i', alice.file], enc.stdout).status, 0, 'age decrypted a file with a wrong payload label');
});

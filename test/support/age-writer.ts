// An independent age (age-encryption.org/v1) writer and reader on node:crypto (OpenSSL: X25519,
// HKDF, HMAC, ChaCha20-Poly1305), and the malformed files the age specification names, made with
// the writer. The writer can re-MAC an edited header and chunk a payload in any way, so each case
// has exactly one defect. test/cli-age.test.ts runs the cases through the CLI beside the real
// age (which shows the writer right); test/cli-age-format.test.ts runs them in-process.
import { createCipheriv, createDecipheriv, createHmac, createPrivateKey, createPublicKey, diffieHellman, hkdfSync, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bech32Decode, bech32Encode } from '../../src/cli/bech32.js';
import type { Rng } from './rng.js';

export interface Key {
  file: string;
  recipient: string;
  sk: Buffer;
  pk: Buffer;
}
export function loadKey(file: string): Key {
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
export function x25519Public(sk: Uint8Array): Buffer {
  return (createPublicKey(privKey(sk)).export({ format: 'der', type: 'spki' }) as Buffer).subarray(-32);
}
export const x25519 = (sk: Uint8Array, pk: Uint8Array) => diffieHellman({ privateKey: privKey(sk), publicKey: pubKey(pk) });

export const hkdf = (ikm: Uint8Array, salt: Uint8Array, info: string) => Buffer.from(hkdfSync('sha256', ikm, salt, info, 32));
export function chachaSeal(key: Uint8Array, nonce: Uint8Array, plain: Uint8Array): Buffer {
  const c = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 });
  return Buffer.concat([c.update(plain), c.final(), c.getAuthTag()]);
}
export const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64').replace(/=+$/, '');
export const wrap64 = (s: string) => {
  let out = '';
  for (let i = 0; i <= s.length; i += 64) out += s.slice(i, i + 64) + '\n';
  return out;
};

export interface StanzaParts {
  share: Buffer;
  body: Buffer;
}
/** An X25519 stanza's share and body wrapping fileKey to pk (ephemeral secret `eph`, or a fresh one). */
export function x25519Parts(fileKey: Uint8Array, pk: Uint8Array, eph: Uint8Array = randomBytes(32)): StanzaParts {
  const share = x25519Public(eph);
  const wrapKey = hkdf(x25519(eph, pk), Buffer.concat([share, pk]), 'age-encryption.org/v1/X25519');
  return { share, body: chachaSeal(wrapKey, new Uint8Array(12), fileKey) };
}
export const stanzaText = (p: StanzaParts) => `-> X25519 ${b64(p.share)}\n${wrap64(b64(p.body))}`;

/** header text (without "---") → the whole header, MAC line included */
export function withMac(fileKey: Uint8Array, text: string): Buffer {
  const macked = text + '---';
  const mac = createHmac('sha256', hkdf(fileKey, new Uint8Array(0), 'header'))
    .update(macked, 'latin1')
    .digest();
  return Buffer.from(`${macked} ${b64(mac)}\n`, 'latin1');
}

export interface Chunk {
  plain: Uint8Array;
  final: boolean;
}
/** age's chunking of `plain`: 64 KiB chunks, the last one final (one empty final chunk for no data). */
export function ageChunks(plain: Uint8Array): Chunk[] {
  const out: Chunk[] = [];
  for (let o = 0; o < plain.length || out.length === 0; o += 65536) out.push({ plain: plain.subarray(o, o + 65536), final: false });
  out[out.length - 1].final = true;
  return out;
}
export function payload(fileKey: Uint8Array, chunks: Chunk[], nonce: Uint8Array = randomBytes(16)): Buffer {
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
export function ageFile(plain: Uint8Array, pks: Uint8Array[], fileKey: Uint8Array = randomBytes(16)): Buffer {
  const text = 'age-encryption.org/v1\n' + pks.map((pk) => stanzaText(x25519Parts(fileKey, pk))).join('');
  return Buffer.concat([withMac(fileKey, text), payload(fileKey, ageChunks(plain))]);
}
/** RFC 7468 strict armor, as age writes it */
export function armor(bin: Uint8Array, eol = '\n'): string {
  const s = Buffer.from(bin).toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < s.length; i += 64) lines.push(s.slice(i, i + 64));
  return ['-----BEGIN AGE ENCRYPTED FILE-----', ...lines, '-----END AGE ENCRYPTED FILE-----', ''].join(eol);
}

/** A new identity made by OpenSSL, written as age-keygen writes one (comments, then the key line). */
export function nodeIdentity(dir: string, name: string): Key {
  const sk = randomBytes(32);
  const file = join(dir, name);
  const recipient = bech32Encode('age', x25519Public(sk));
  writeFileSync(file, `# created: 2026-01-01T00:00:00Z\n# public key: ${recipient}\n${bech32Encode('AGE-SECRET-KEY-', sk).toUpperCase()}\n`);
  return loadKey(file);
}

/**
 * An independent age reader: the plaintext of an age file (binary, or armored as age writes it)
 * for the identity `sk`, or an Error saying what is wrong. Strict where the tests need it:
 * canonical 64-column armor, the header MAC, 64 KiB chunks with the last one (only) final.
 */
export function readAgeFile(file: Uint8Array, sk: Uint8Array): Buffer {
  let bin = Buffer.from(file);
  const text = bin.toString('latin1');
  if (text.startsWith('-----BEGIN AGE ENCRYPTED FILE-----\n')) {
    const lines = text.split('\n');
    if (lines.at(-1) !== '' || lines.at(-2) !== '-----END AGE ENCRYPTED FILE-----') throw new Error('armor: no end line');
    const body = lines.slice(1, -2);
    if (!body.every((l, i) => (i < body.length - 1 ? l.length === 64 : l.length <= 64 && l.length > 0))) throw new Error('armor: line lengths');
    bin = Buffer.from(body.join(''), 'base64');
    if (bin.toString('base64') !== body.join('')) throw new Error('armor: not canonical base64');
  }
  const end = bin.indexOf('\n--- ');
  if (end < 0 || !bin.subarray(0, 22).equals(Buffer.from('age-encryption.org/v1\n'))) throw new Error('not an age v1 file');
  const macEnd = bin.indexOf('\n', end + 1);
  const lines = bin.subarray(0, end).toString('latin1').split('\n').slice(1);
  const pk = x25519Public(sk);
  let fileKey: Buffer | undefined;
  for (let i = 0; i < lines.length; i++) {
    const m = /^-> X25519 ([A-Za-z0-9+/]{43})$/.exec(lines[i]);
    if (!m) continue;
    const share = Buffer.from(m[1], 'base64');
    const wrapKey = hkdf(x25519(sk, share), Buffer.concat([share, pk]), 'age-encryption.org/v1/X25519');
    const body = Buffer.from(lines[i + 1], 'base64');
    try {
      fileKey = chachaOpen(wrapKey, new Uint8Array(12), body);
      break;
    } catch {}
  }
  if (!fileKey) throw new Error('no stanza for this identity');
  const mac = createHmac('sha256', hkdf(fileKey, new Uint8Array(0), 'header'))
    .update(bin.subarray(0, end + 4))
    .digest();
  if (b64(mac) !== bin.subarray(end + 5, macEnd).toString('latin1')) throw new Error('header MAC');
  const nonce = bin.subarray(macEnd + 1, macEnd + 17);
  const key = hkdf(fileKey, nonce, 'payload');
  const out: Buffer[] = [];
  const payload = bin.subarray(macEnd + 17);
  for (let o = 0, i = 0; o < payload.length || i === 0; o += 65552, i++) {
    const n = Buffer.alloc(12);
    n.writeUIntBE(i, 5, 6);
    n[11] = o + 65552 >= payload.length ? 1 : 0;
    out.push(chachaOpen(key, n, payload.subarray(o, o + 65552)));
  }
  return Buffer.concat(out);
}
function chachaOpen(key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array): Buffer {
  const d = createDecipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 });
  d.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([d.update(sealed.subarray(0, sealed.length - 16)), d.final()]);
}

export interface Case {
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

/**
 * The malformed files (and the few well-formed ones among them) that age-encryption.org/v1 names,
 * each with one defect, encrypted to `alice`; `mallory` is an identity that opens none of them.
 */
export function malformedCases(alice: Key, mallory: Key, rng: Rng) {
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
  return { CASES, fk, v1, good, goodStanza, goodFile, plainS, plain2, hdr };
}

// `ctkit age` and `ctkit age-keygen`: files in the age v1 format (age-encryption.org/v1, C2SP)
// with X25519 recipients, read and written by the `age` tool and by ctkit alike.
//
//   header  = "age-encryption.org/v1\n" ‖ stanza… ‖ "---" ‖ " " ‖ base64(MAC) ‖ "\n"
//   stanza  = "-> X25519 " ‖ base64(share) ‖ "\n" ‖ base64(body) in lines of 64 columns, the
//             last one shorter (possibly empty) ‖ "\n"
//             share = X25519(e, 9); wrap key = HKDF-SHA-256(X25519(e, R), share ‖ R,
//             "age-encryption.org/v1/X25519"); body = ChaCha20-Poly1305(wrap key, 0^12, file key)
//   MAC     = HMAC-SHA-256(HKDF-SHA-256(file key, "", "header"), header up to and with "---")
//   payload = nonce (16 bytes) ‖ STREAM: 64 KiB chunks, ChaCha20-Poly1305 under
//             HKDF-SHA-256(file key, nonce, "payload"), chunk nonce = u88be(i) ‖ final flag
//
// base64 is RFC 4648's standard alphabet without padding, canonical only. The payload is
// ctkit/stream's segment batches with a 7-byte zero nonce prefix and no associated data (the
// 12-byte nonce u32be-counter layout is age's below 2^32 chunks, 256 TiB), so it runs on the
// CLI's own file pipeline (files.ts: big reads, in-place batches, --jobs workers) with the
// temporary-file and interrupt guarantees of `ctkit open` (io.ts). What age adds to ctkit's
// framing is checked here: a final chunk may be empty only when it is the only one.
//
// Decryption is all or nothing with -o (a temporary file renamed only when every chunk and the
// header MAC authenticated); to stdout, plaintext goes out as it authenticates, as `ctkit open`
// does, and a later failure is exit status 1. ASCII armor (-a; RFC 7468 strict PEM, label
// "AGE ENCRYPTED FILE", 64 columns) is written on request and detected on input. Secrets (the
// file key, identities, shared secrets, derived keys) are wiped after use and never printed.

import { promises as fsp } from 'node:fs';
import { chacha20Poly1305 } from '../aead/chacha20-poly1305.js';
import { x25519 } from '../ec/x25519.js';
import { AuthenticationError, InvalidKeyError } from '../errors.js';
import { hkdf } from '../hash/hkdf.js';
import { hmac } from '../hash/hmac.js';
import { sha256 } from '../hash/sha2.js';
import { algorithmByName } from '../stream/format.js';
import { SegmentAuthenticationError, type SegmentParams } from '../stream/segments.js';
import { Bech32Error, bech32Decode, bech32Encode } from './bech32.js';
import { Failure, FileError, UsageError } from './errors.js';
import { autoJobs, type Cipher, makeCipher, pipeline } from './files.js';
import { Input, type Output, Progress, createSecretFile, openOutput, reason } from './io.js';

const VERSION_LINE = 'age-encryption.org/v1';
const AGE_PREFIX = 'age-encryption.org/';
const X25519_INFO = 'age-encryption.org/v1/X25519';
const ARMOR_BEGIN = '-----BEGIN AGE ENCRYPTED FILE-----';
const ARMOR_END = '-----END AGE ENCRYPTED FILE-----';
const IDENTITY_HRP = 'AGE-SECRET-KEY-';
const RECIPIENT_HRP = 'age';
/** Plaintext bytes per payload chunk, and the tag after each. */
export const AGE_CHUNK = 65536;
const TAG = 16;
/** A header longer than this is refused (one X25519 stanza is about 130 bytes). */
const MAX_HEADER = 1 << 20;

const CHACHA = algorithmByName('chacha20-poly1305')!;
const ascii = (s: string) => new TextEncoder().encode(s);
const random = (n: number) => crypto.getRandomValues(new Uint8Array(n));

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** A string for a message: printable ASCII, quoted, at most 40 characters. */
const shown = (s: string) => JSON.stringify(s.length > 40 ? s.slice(0, 40) + '…' : s);

// ---- base64: standard alphabet, no padding, canonical only -----------------------------------

export function b64encode(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.length).toString('base64').replace(/=+$/, '');
}

/**
 * The bytes of `s`, or undefined when s is not canonical unpadded base64. Node's decoder skips
 * what is not base64 (white space, '=' anywhere, a lone last character), takes base64url's '-'
 * and '_', and ignores unused bits that are not zero: the re-encoding differs from s in each case.
 */
export function b64decode(s: string): Uint8Array | undefined {
  const b = new Uint8Array(Buffer.from(s, 'base64'));
  return b64encode(b) === s ? b : undefined;
}

// ---- recipients and identities ---------------------------------------------------------------

/** The 32-byte X25519 public key of an age1… recipient; `where` names its origin for messages. */
export function parseRecipient(s: string, where: string): Uint8Array {
  if (!s.startsWith(RECIPIENT_HRP + '1')) {
    throw new Failure(`${where}: ${shown(s)} is not an age X25519 recipient (age1…); ctkit age encrypts to X25519 recipients only`);
  }
  let d: ReturnType<typeof bech32Decode>;
  try {
    d = bech32Decode(s);
  } catch (e) {
    if (e instanceof Bech32Error) throw new Failure(`${where}: invalid recipient ${shown(s)}: ${e.message}`);
    throw e;
  }
  if (d.hrp !== RECIPIENT_HRP || d.data.length !== 32) throw new Failure(`${where}: invalid recipient ${shown(s)}: not a 32-byte X25519 key`);
  return d.data;
}

export function encodeRecipient(pk: Uint8Array): string {
  return bech32Encode(RECIPIENT_HRP, pk);
}

/** The 32-byte X25519 private key of an AGE-SECRET-KEY-1… identity. Messages never show the key. */
export function parseIdentity(s: string, where: string): Uint8Array {
  if (!s.startsWith(IDENTITY_HRP + '1')) {
    const hint = s.toUpperCase().startsWith(IDENTITY_HRP + '1') ? ' (identities are written in upper case)' : '';
    throw new Failure(`${where}: not an age X25519 identity (AGE-SECRET-KEY-1…)${hint}; ctkit age reads X25519 identities only`);
  }
  let d: ReturnType<typeof bech32Decode>;
  try {
    d = bech32Decode(s);
  } catch (e) {
    if (e instanceof Bech32Error) throw new Failure(`${where}: invalid identity: ${e.message}`);
    throw e;
  }
  if (d.hrp !== IDENTITY_HRP || d.data.length !== 32) {
    d.data.fill(0);
    throw new Failure(`${where}: invalid identity: not a 32-byte X25519 key`);
  }
  return d.data;
}

async function readText(path: string, what: string): Promise<string> {
  try {
    return await fsp.readFile(path, 'utf8');
  } catch (e) {
    throw new FileError(`cannot read ${what} ${path}: ${reason(e)}`);
  }
}

/** The non-empty, non-comment lines of a key file, with their line numbers. */
function keyLines(text: string): [string, number][] {
  const out: [string, number][] = [];
  text.split('\n').forEach((l, i) => {
    const t = l.trim();
    if (t !== '' && !t.startsWith('#')) out.push([t, i + 1]);
  });
  return out;
}

/** The identities of identity files (age-keygen's format: comments, blank lines, one key a line). */
export async function readIdentityFiles(paths: string[]): Promise<Uint8Array[]> {
  const ids: Uint8Array[] = [];
  try {
    for (const path of paths) {
      const text = await readText(path, 'identity file');
      if (text.startsWith('age-encryption.org/') || text.trimStart().startsWith(ARMOR_BEGIN)) {
        throw new Failure(`${path} is an encrypted identity file; ctkit age reads plain X25519 identity files only`);
      }
      const lines = keyLines(text);
      if (lines.length === 0) throw new Failure(`${path} holds no identity (expected AGE-SECRET-KEY-1… lines)`);
      for (const [line, n] of lines) ids.push(parseIdentity(line, `${path} line ${n}`));
    }
    return ids;
  } catch (e) {
    for (const k of ids) k.fill(0);
    throw e;
  }
}

async function readRecipientFile(path: string): Promise<Uint8Array[]> {
  const lines = keyLines(await readText(path, 'recipients file'));
  if (lines.length === 0) throw new Failure(`${path} holds no recipient (expected age1… lines)`);
  return lines.map(([line, n]) => parseRecipient(line, `${path} line ${n}`));
}

// ---- the header ------------------------------------------------------------------------------

interface Stanza {
  args: string[];
  body: Uint8Array;
}

interface Header {
  /** the header's bytes up to and including "---" (what the MAC covers) */
  macked: Uint8Array;
  mac: Uint8Array;
  stanzas: Stanza[];
}

/** base64 body text in lines of 64 columns, the last one shorter (possibly empty), each ending in LF. */
function wrapBody(s: string): string {
  let out = '';
  for (let i = 0; i <= s.length; i += 64) out += s.slice(i, i + 64) + '\n';
  return out;
}

function headerMac(fileKey: Uint8Array, macked: Uint8Array): Uint8Array {
  const key = hkdf(sha256, fileKey, new Uint8Array(0), ascii('header'), 32);
  try {
    return hmac(sha256, key, macked);
  } finally {
    key.fill(0);
  }
}

/** One X25519 stanza wrapping fileKey to `recipient`. */
function x25519Stanza(fileKey: Uint8Array, recipient: Uint8Array): string {
  const eph = random(32);
  let ss: Uint8Array | undefined;
  let wrap: Uint8Array | undefined;
  try {
    const share = x25519.getPublicKey(eph);
    try {
      ss = x25519.ecdh(eph, recipient);
    } catch (e) {
      if (e instanceof InvalidKeyError) throw new Failure(`invalid recipient ${encodeRecipient(recipient)}: a point of small order (the shared secret would be zero)`);
      throw e;
    }
    wrap = hkdf(sha256, ss, concat(share, recipient), ascii(X25519_INFO), 32);
    const body = chacha20Poly1305.seal(wrap, new Uint8Array(12), fileKey);
    return `-> X25519 ${b64encode(share)}\n${wrapBody(b64encode(body))}`;
  } finally {
    eph.fill(0);
    ss?.fill(0);
    wrap?.fill(0);
  }
}

/** The whole header (with its MAC line) for fileKey wrapped to each recipient. */
export function encodeHeader(fileKey: Uint8Array, recipients: Uint8Array[]): Uint8Array {
  let text = VERSION_LINE + '\n';
  for (const r of recipients) text += x25519Stanza(fileKey, r);
  const macked = ascii(text + '---');
  return concat(macked, ascii(` ${b64encode(headerMac(fileKey, macked))}\n`));
}

/** A failure in the header: not an age v1 file, or a malformed one. */
const malformed = (what: string) => new Failure(`malformed age header: ${what}`);

/** Parses the header's text (its bytes up to and including the LF of the MAC line). */
export function parseHeader(bytes: Uint8Array): Header {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
  const lines = text.split('\n');
  lines.pop(); // after the last LF
  if (lines[0] !== VERSION_LINE) {
    if (lines[0].startsWith('age-encryption.org/')) throw new Failure(`unsupported age format version ${shown(lines[0].slice(19))} (ctkit reads v1)`);
    throw new Failure('not an age file: the first line is not "age-encryption.org/v1"');
  }
  const stanzas: Stanza[] = [];
  let i = 1;
  for (;;) {
    const line = lines[i];
    if (line === undefined) throw malformed('the header has no MAC line');
    if (line.startsWith('---')) {
      const m = /^--- ([A-Za-z0-9+/]{43})$/.exec(line);
      const mac = m ? b64decode(m[1]) : undefined;
      if (mac?.length !== 32) throw malformed(`line ${i + 1}: the MAC line is not "--- " and 43 canonical base64 characters`);
      if (i + 1 !== lines.length) throw malformed('data after the MAC line'); // cannot happen: the reader stops there
      if (stanzas.length === 0) throw malformed('no recipient stanza');
      return { macked: bytes.subarray(0, text.length - line.length - 1 + 3), mac, stanzas };
    }
    if (!line.startsWith('->')) throw malformed(`line ${i + 1}: expected a stanza ("-> …") or the MAC line ("--- …")`);
    const parts = line.split(' ');
    if (parts[0] !== '->' || parts.length < 2 || !parts.slice(1).every((a) => /^[\x21-\x7e]+$/.test(a))) {
      throw malformed(`line ${i + 1}: a stanza line is "->" and arguments of visible ASCII characters, each after one space`);
    }
    const start = i + 1;
    const chunks: Uint8Array[] = [];
    for (;;) {
      i++;
      const body = lines[i];
      if (body === undefined || body.startsWith('---') || body.startsWith('->')) {
        throw malformed(`the stanza of line ${start} ends without a short body line (its body must end with a line of fewer than 64 columns)`);
      }
      const b = body.length <= 64 ? b64decode(body) : undefined;
      if (!b) throw malformed(`line ${i + 1}: a stanza body line is at most 64 columns of canonical base64 without padding`);
      chunks.push(b);
      if (body.length < 64) break;
    }
    stanzas.push({ args: parts.slice(1), body: concat(...chunks) });
    i++;
  }
}

// ---- byte sources: the input after what was peeked at, armored or not ------------------------

interface ByteSource {
  readFull(buf: Uint8Array, off?: number, len?: number): Promise<number>;
  bytesRead: number;
  /** bytesRead at the end of the source, when that is known (a regular file) */
  readonly size?: number;
}

/** `head` (bytes already read) and then the rest of `inner`. */
class Prefixed implements ByteSource {
  bytesRead = 0;
  readonly size: number | undefined;
  #head: Uint8Array;
  readonly #inner: ByteSource;
  constructor(head: Uint8Array, inner: ByteSource) {
    this.#head = head;
    this.#inner = inner;
    this.size = inner.size === undefined ? undefined : head.length + Math.max(0, inner.size - inner.bytesRead);
  }
  async readFull(buf: Uint8Array, off = 0, len = buf.length - off): Promise<number> {
    let got = 0;
    if (this.#head.length > 0) {
      got = Math.min(len, this.#head.length);
      buf.set(this.#head.subarray(0, got), off);
      this.#head = this.#head.subarray(got);
    }
    if (got < len) got += await this.#inner.readFull(buf, off + got, len - got);
    this.bytesRead += got;
    return got;
  }
}

const badArmor = (what: string) => new Failure(`invalid armor: ${what}`);
const ARMOR_FULL = /^[A-Za-z0-9+/]{64}$/;
const ARMOR_LAST = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The bytes inside an ASCII armor (strict: "-----BEGIN AGE ENCRYPTED FILE-----", lines of 64
 * columns of padded canonical base64, the last one shorter or full, "-----END AGE ENCRYPTED
 * FILE-----"; LF or CRLF line ends; nothing but whitespace after the end line). `text` starts
 * at the begin line.
 */
class ArmorSource implements ByteSource {
  bytesRead = 0;
  readonly #text: ByteSource;
  readonly #buf = new Uint8Array(1 << 20);
  #pend = '';
  #out: Uint8Array = new Uint8Array(0);
  #state: 'begin' | 'body' | 'short' | 'end' = 'begin';
  #eof = false;
  constructor(text: ByteSource) {
    this.#text = text;
  }

  async readFull(buf: Uint8Array, off = 0, len = buf.length - off): Promise<number> {
    let got = 0;
    while (got < len) {
      if (this.#out.length === 0) {
        if (this.#eof) break;
        await this.#fill();
        continue;
      }
      const n = Math.min(len - got, this.#out.length);
      buf.set(this.#out.subarray(0, n), off + got);
      this.#out = this.#out.subarray(n);
      got += n;
    }
    this.bytesRead += got;
    return got;
  }

  /** Reads more text and decodes its complete lines. */
  async #fill(): Promise<void> {
    const n = await this.#text.readFull(this.#buf);
    if (n < this.#buf.length) this.#eof = true;
    this.#pend += Buffer.from(this.#buf.buffer, 0, n).toString('latin1');
    let complete: string;
    if (this.#eof) {
      complete = this.#pend;
      this.#pend = '';
    } else {
      const nl = this.#pend.lastIndexOf('\n');
      complete = this.#pend.slice(0, nl + 1);
      this.#pend = this.#pend.slice(nl + 1);
    }
    const lines = complete === '' ? [] : complete.split('\n');
    if (lines.length && (!this.#eof || complete.endsWith('\n'))) lines.pop(); // after the last LF
    const full: string[] = [];
    let last = '';
    for (let line of lines) {
      if (line.endsWith('\r')) line = line.slice(0, -1);
      switch (this.#state) {
        case 'begin':
          if (line !== ARMOR_BEGIN) throw badArmor(`the first line is not "${ARMOR_BEGIN}"`);
          this.#state = 'body';
          break;
        case 'body':
          if (line === ARMOR_END) this.#state = 'end';
          else if (ARMOR_FULL.test(line)) full.push(line);
          else if (line.length > 0 && line.length <= 64 && line.length % 4 === 0 && ARMOR_LAST.test(line)) {
            last = line;
            this.#state = 'short';
          } else throw badArmor(line.length > 64 ? 'a line longer than 64 columns' : 'a line that is not padded base64 (or a short line before the last)');
          break;
        case 'short':
          if (line !== ARMOR_END) throw badArmor(`a short line is not followed by "${ARMOR_END}"`);
          this.#state = 'end';
          break;
        case 'end':
          if (line.trim() !== '') throw badArmor('data after the end line');
      }
    }
    const decoded = full.length ? Buffer.from(full.join(''), 'base64') : undefined;
    let tail: Uint8Array | undefined;
    if (last) {
      tail = new Uint8Array(Buffer.from(last, 'base64'));
      if (Buffer.from(tail).toString('base64') !== last) throw badArmor('non-canonical base64 in the last line');
    }
    this.#out = decoded && tail ? concat(decoded, tail) : (decoded ?? tail ?? new Uint8Array(0));
    if (this.#eof && this.#state !== 'end') throw badArmor(`the input ends before "${ARMOR_END}"`);
  }
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** The input as age bytes: armored input (detected after optional whitespace) decoded. */
async function ageSource(input: Input): Promise<ByteSource> {
  const head = new Uint8Array(4096);
  const n = await input.readFull(head); // none: readHeader says the input is empty
  let i = 0;
  while (i < n && isSpace(head[i])) i++;
  const start = Buffer.from(head.buffer, i, Math.min(n - i, 64)).toString('latin1');
  if (start.startsWith('-----BEGIN')) return new ArmorSource(new Prefixed(head.subarray(i, n), input));
  return new Prefixed(head.subarray(0, n), input);
}

/** Reads the header from `src`, leaving the source at the payload (bytes read past it pushed back). */
async function readHeader(src: ByteSource): Promise<{ header: Header; rest: ByteSource }> {
  let buf = new Uint8Array(4096);
  let have = 0;
  let scanned = 0; // lines before this offset are complete and not the MAC line
  for (;;) {
    // the MAC line: the first line that starts with "---", complete
    for (;;) {
      const nl = buf.subarray(scanned, have).indexOf(0x0a);
      if (nl < 0) break;
      const lineEnd = scanned + nl;
      if (lineEnd - scanned >= 3 && buf[scanned] === 0x2d && buf[scanned + 1] === 0x2d && buf[scanned + 2] === 0x2d) {
        const header = parseHeader(buf.slice(0, lineEnd + 1));
        return { header, rest: new Prefixed(buf.slice(lineEnd + 1, have), src) };
      }
      scanned = lineEnd + 1;
    }
    if (have === buf.length) {
      if (buf.length >= MAX_HEADER) throw malformed(`no MAC line in the first ${MAX_HEADER} bytes`);
      const bigger = new Uint8Array(buf.length * 2);
      bigger.set(buf);
      buf = bigger;
    }
    const n = await src.readFull(buf, have, Math.min(buf.length - have, 4096));
    have += n;
    // not an age file at all: said at once, not after a search for the MAC line
    const m = Math.min(have, AGE_PREFIX.length);
    if (Buffer.from(buf.buffer, 0, m).toString('latin1') !== AGE_PREFIX.slice(0, m)) throw new Failure('not an age file: it does not start with "age-encryption.org/v1"');
    if (n === 0) throw new Failure(have === 0 ? 'empty input: not an age file' : 'truncated: the file ends inside the age header');
  }
}

/** The file key of the first stanza an identity opens; a Failure when none does. */
export function unwrapFileKey(h: Header, identities: Uint8Array[]): Uint8Array {
  const types = h.stanzas.map((s) => s.args[0]);
  if (types.includes('scrypt') && h.stanzas.length > 1) throw malformed('an scrypt stanza must be the only stanza of its header');
  const ours: { share: Uint8Array; body: Uint8Array }[] = [];
  for (const s of h.stanzas) {
    if (s.args[0] !== 'X25519') continue;
    const share = s.args.length === 2 ? b64decode(s.args[1]) : undefined;
    if (share?.length !== 32) throw malformed('an X25519 stanza has one argument: the canonical base64 of a 32-byte share');
    if (s.body.length !== 32) throw malformed(`an X25519 stanza body is 32 bytes, this one is ${s.body.length}`);
    ours.push({ share, body: s.body });
  }
  const info = ascii(X25519_INFO);
  for (const id of identities) {
    const pk = x25519.getPublicKey(id);
    for (const { share, body } of ours) {
      let ss: Uint8Array;
      try {
        ss = x25519.ecdh(id, share);
      } catch (e) {
        if (e instanceof InvalidKeyError) throw malformed('an X25519 stanza has a share of small order (the shared secret is zero)');
        throw e;
      }
      const wrap = hkdf(sha256, ss, concat(share, pk), info, 32);
      ss.fill(0);
      try {
        return chacha20Poly1305.open(wrap, new Uint8Array(12), body);
      } catch (e) {
        if (!(e instanceof AuthenticationError)) throw e; // not this identity's stanza
      } finally {
        wrap.fill(0);
      }
    }
  }
  if (ours.length === 0 && types.includes('scrypt')) throw new Failure('the file is encrypted with a passphrase (scrypt); ctkit age decrypts files for X25519 identities only');
  if (ours.length === 0) throw new Failure(`no X25519 recipient in the header (stanza types: ${types.map(shown).join(', ')}); ctkit age decrypts X25519 files only`);
  throw new Failure('no identity matched any of the recipients (wrong identity file?)');
}

/** Checks the header MAC in constant time; a Failure when it does not match. */
function verifyMac(h: Header, fileKey: Uint8Array): void {
  const want = headerMac(fileKey, h.macked);
  let diff = 0;
  for (let i = 0; i < 32; i++) diff |= want[i] ^ h.mac[i];
  if (diff !== 0) throw new Failure('the header MAC does not match: the header was modified, or the file is damaged');
}

// ---- ASCII armor on output -------------------------------------------------------------------

/** An Output that armors what goes through it (64-column lines of padded base64). */
class ArmorOutput implements Output {
  readonly #inner: Output;
  readonly #carry = new Uint8Array(48);
  #n = 0;
  #started = false;
  constructor(inner: Output) {
    this.#inner = inner;
  }
  get streaming(): boolean {
    return this.#inner.streaming;
  }
  get written(): number {
    return this.#inner.written;
  }

  #lines(b: Uint8Array): string {
    const s = Buffer.from(b.buffer, b.byteOffset, b.length).toString('base64');
    const parts: string[] = [];
    for (let i = 0; i < s.length; i += 64) parts.push(s.slice(i, i + 64));
    return parts.join('\n') + '\n';
  }

  #begin(): string {
    if (this.#started) return '';
    this.#started = true;
    return ARMOR_BEGIN + '\n';
  }

  async write(chunks: readonly Uint8Array[]): Promise<void> {
    let text = this.#begin();
    for (let c of chunks) {
      if (this.#n > 0) {
        const take = Math.min(48 - this.#n, c.length);
        this.#carry.set(c.subarray(0, take), this.#n);
        this.#n += take;
        c = c.subarray(take);
        if (this.#n < 48) continue;
        text += this.#lines(this.#carry);
        this.#n = 0;
      }
      const whole = c.length - (c.length % 48);
      if (whole > 0) text += this.#lines(c.subarray(0, whole));
      this.#carry.set(c.subarray(whole));
      this.#n = c.length - whole;
    }
    if (text) await this.#inner.write([Buffer.from(text, 'latin1')]);
  }

  async commit(): Promise<void> {
    let text = this.#begin();
    if (this.#n > 0) text += this.#lines(this.#carry.subarray(0, this.#n));
    this.#n = 0;
    await this.#inner.write([Buffer.from(text + ARMOR_END + '\n', 'latin1')]);
    await this.#inner.commit();
  }

  abort(): Promise<void> {
    return this.#inner.abort();
  }
}

// ---- the commands ----------------------------------------------------------------------------

/** The payload's segment parameters: ctkit's framing with age's nonce (zero prefix, no AAD). */
function payloadParams(): SegmentParams {
  return { alg: CHACHA, prefix: new Uint8Array(CHACHA.nonceLength - 5), aad: new Uint8Array(0), segmentSize: AGE_CHUNK };
}

function payloadKey(fileKey: Uint8Array, nonce: Uint8Array): Uint8Array {
  return hkdf(sha256, fileKey, nonce, ascii('payload'), 32);
}

export interface AgeEncryptOptions {
  recipients: string[];
  recipientFiles: string[];
  armor?: boolean;
  input?: string;
  output?: string;
  force?: boolean;
  jobs?: number;
}

export async function ageEncrypt(o: AgeEncryptOptions): Promise<void> {
  const recipients = o.recipients.map((r) => parseRecipient(r, '-r'));
  for (const f of o.recipientFiles) recipients.push(...(await readRecipientFile(f)));
  if (recipients.length === 0) throw new UsageError('age needs a recipient to encrypt to (-r age1… or -R <file>), or -d to decrypt');
  const input = await Input.open(o.input);
  let out: Output | undefined;
  let c: Cipher | undefined;
  const progress = new Progress(input.size, 'encrypting');
  const fileKey = random(16);
  try {
    out = await openOutput(o.output, { force: o.force, binary: !o.armor });
    if (o.armor) out = new ArmorOutput(out);
    const header = encodeHeader(fileKey, recipients);
    const nonce = random(16);
    c = await makeCipher(CHACHA, payloadKey(fileKey, nonce), o.jobs ?? autoJobs(input.size)); // wipes the payload key
    await out.write([header, nonce]);
    await pipeline('seal', input, out, c.cipher, payloadParams(), progress);
    await out.commit();
  } catch (e) {
    await out?.abort();
    throw e;
  } finally {
    fileKey.fill(0);
    progress.end();
    await input.close();
    await c?.dispose();
  }
}

export interface AgeDecryptOptions {
  identityFiles: string[];
  input?: string;
  output?: string;
  force?: boolean;
  jobs?: number;
}

export async function ageDecrypt(o: AgeDecryptOptions): Promise<void> {
  if (o.identityFiles.length === 0) throw new UsageError('age -d needs an identity file (-i <file>)');
  const ids = await readIdentityFiles(o.identityFiles);
  const wipeIds = () => ids.forEach((k) => k.fill(0));
  const input = await Input.open(o.input).catch((e) => {
    wipeIds();
    throw e;
  });
  let out: Output | undefined;
  let c: Cipher | undefined;
  const progress = new Progress(input.size, 'decrypting');
  try {
    out = await openOutput(o.output, { force: o.force });
    const { header, rest } = await readHeader(await ageSource(input));
    const fileKey = unwrapFileKey(header, ids);
    wipeIds();
    let key: Uint8Array;
    try {
      verifyMac(header, fileKey);
      const nonce = new Uint8Array(16);
      if ((await rest.readFull(nonce)) < 16) throw new Failure('truncated: the file ends inside the payload nonce');
      key = payloadKey(fileKey, nonce);
    } finally {
      fileKey.fill(0);
    }
    c = await makeCipher(CHACHA, key, o.jobs ?? autoJobs(input.size)); // wipes key
    const start = rest.bytesRead;
    await pipeline('open', rest, out, c.cipher, payloadParams(), progress);
    // ctkit's framing takes a final chunk with no plaintext after full chunks; age does not
    const len = rest.bytesRead - start;
    if (len > TAG && len % (AGE_CHUNK + TAG) === TAG) throw new Failure(`the payload ends with an empty final chunk after full ones (not a valid age file)${already(out)}`);
    await out.commit();
  } catch (e) {
    await out?.abort();
    if (e instanceof SegmentAuthenticationError) {
      if (/^truncated/.test(e.message)) throw new Failure(`truncated: payload chunk ${e.segment} is shorter than its tag (the file was cut)${already(out)}`);
      throw new Failure(`payload chunk ${e.segment} failed authentication: the file is damaged, truncated or extended${already(out)}`);
    }
    if (e instanceof Failure && out?.streaming && out.written > 0 && !/already written/.test(e.message)) throw new Failure(e.message + already(out));
    throw e;
  } finally {
    wipeIds();
    progress.end();
    await input.close();
    await c?.dispose();
  }
}

function already(out: Output | undefined): string {
  return out?.streaming && out.written > 0 ? `; ${out.written} bytes of authenticated plaintext before it were already written to stdout` : '; nothing was written';
}

/** `ctkit age-keygen`: a new identity, as age-keygen writes it; the public key on stderr when written to a file. */
export async function ageKeygen(out: string | undefined): Promise<void> {
  const sk = random(32);
  try {
    const pk = encodeRecipient(x25519.getPublicKey(sk));
    const created = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const text = `# created: ${created}\n# public key: ${pk}\n${bech32Encode(IDENTITY_HRP, sk)}\n`;
    if (out === undefined || out === '-') {
      process.stdout.write(text);
      return;
    }
    await createSecretFile(out, text);
    process.stderr.write(`Public key: ${pk}\n`);
  } finally {
    sk.fill(0);
  }
}

/** `ctkit age-keygen -y`: the recipients of the identities in a file (stdout). */
export async function ageKeygenConvert(path: string): Promise<void> {
  const ids = await readIdentityFiles([path]);
  try {
    process.stdout.write(ids.map((k) => encodeRecipient(x25519.getPublicKey(k)) + '\n').join(''));
  } finally {
    ids.forEach((k) => k.fill(0));
  }
}

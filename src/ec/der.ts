// Strict DER (X.690 section 10) for the key structures of the curves, PEM (RFC 7468) and
// base64 / base64url (RFC 4648). Only what the key formats need: SEQUENCE, INTEGER, OCTET
// STRING, BIT STRING, OBJECT IDENTIFIER, NULL and context-specific tags.
//
// Strict means: definite lengths in their shortest form, no indefinite length, minimal INTEGER
// encodings, OBJECT IDENTIFIER sub-identifiers without 0x80 padding, nothing after the last
// element of a structure or after the outer one. Every error says what is malformed and where
// (the byte offset in the input) and is an EncodingError. Keys are public or secret: messages
// name positions and tags, never contents.

import { EncodingError, InvalidKeyError } from '../errors.js';

export const TAG = {
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  SEQUENCE: 0x30,
  CTX0: 0xa0,
  CTX1: 0xa1,
} as const;

const TAG_NAMES: Record<number, string> = {
  0x02: 'INTEGER',
  0x03: 'BIT STRING',
  0x04: 'OCTET STRING',
  0x05: 'NULL',
  0x06: 'OBJECT IDENTIFIER',
  0x30: 'SEQUENCE',
  0xa0: '[0]',
  0xa1: '[1]',
};
const tagName = (t: number) => `${TAG_NAMES[t] ?? 'tag'} (0x${t.toString(16).padStart(2, '0')})`;

/** A reader over one DER structure's contents. */
export class DerReader {
  readonly #buf: Uint8Array;
  readonly #base: number; // offset of #buf in the whole input, for messages
  readonly #what: string;
  #pos = 0;

  constructor(buf: Uint8Array, what: string, base = 0) {
    this.#buf = buf;
    this.#what = what;
    this.#base = base;
  }

  get done(): boolean {
    return this.#pos >= this.#buf.length;
  }

  /** The tag of the next element, or -1 at the end. */
  peek(): number {
    return this.done ? -1 : this.#buf[this.#pos];
  }

  #fail(msg: string, at = this.#pos): never {
    throw new EncodingError(`${this.#what}: ${msg} at byte ${this.#base + at}`);
  }

  /** Reads one element with the given tag; returns a reader over its contents. */
  read(tag: number, name: string): DerReader {
    const start = this.#pos;
    if (this.done) this.#fail(`missing ${name} (${tagName(tag)}): the structure ends`);
    const t = this.#buf[this.#pos];
    if (t === 0x1f || (t & 0x1f) === 0x1f) this.#fail('multi-byte tags are not used here');
    if (t !== tag) this.#fail(`expected ${name} (${tagName(tag)}), found ${tagName(t)}`);
    this.#pos++;
    if (this.done) this.#fail(`${name}: length missing`);
    const l0 = this.#buf[this.#pos++];
    let len: number;
    if (l0 < 0x80) len = l0;
    else if (l0 === 0x80) this.#fail(`${name}: indefinite length (BER, not DER)`, this.#pos - 1);
    else {
      const n = l0 & 0x7f;
      if (n > 3) this.#fail(`${name}: length of ${n} bytes is too long`, this.#pos - 1);
      if (this.#pos + n > this.#buf.length) this.#fail(`${name}: length bytes truncated`, this.#pos - 1);
      len = 0;
      for (let i = 0; i < n; i++) len = len * 256 + this.#buf[this.#pos++];
      if (this.#buf[this.#pos - n] === 0 || len < 0x80) this.#fail(`${name}: length not in its shortest form (BER, not DER)`, this.#pos - n - 1);
    }
    if (this.#pos + len > this.#buf.length) this.#fail(`${name}: length ${len} runs past the end of its container`, start);
    const body = this.#buf.subarray(this.#pos, this.#pos + len);
    const r = new DerReader(body, this.#what, this.#base + this.#pos);
    this.#pos += len;
    return r;
  }

  /** The remaining bytes of this element's contents. */
  rest(): Uint8Array {
    const out = this.#buf.subarray(this.#pos);
    this.#pos = this.#buf.length;
    return out;
  }

  /** Fails unless every byte was consumed. */
  end(name: string): void {
    if (!this.done) this.#fail(`unexpected data after the last element of ${name}`);
  }

  /** A non-negative INTEGER small enough for a number (versions). */
  smallInt(name: string): number {
    const r = this.read(TAG.INTEGER, name);
    const b = r.rest();
    if (b.length === 0) r.#fail(`${name}: INTEGER with no content bytes`, -2);
    if (b.length > 1 && ((b[0] === 0 && b[1] < 0x80) || (b[0] === 0xff && b[1] >= 0x80))) r.#fail(`${name}: INTEGER not in its shortest form`, 0);
    if (b[0] >= 0x80) r.#fail(`${name}: negative INTEGER`, 0);
    if (b.length > 4) r.#fail(`${name}: INTEGER too large`, 0);
    let v = 0;
    for (const x of b) v = v * 256 + x;
    return v;
  }

  octets(name: string): Uint8Array {
    return this.read(TAG.OCTET_STRING, name).rest();
  }

  /** A BIT STRING whose length is a whole number of bytes (no unused bits). */
  bits(name: string): Uint8Array {
    const r = this.read(TAG.BIT_STRING, name);
    const b = r.rest();
    if (b.length === 0) r.#fail(`${name}: BIT STRING without its unused-bits byte`, -2);
    if (b[0] !== 0) r.#fail(`${name}: BIT STRING with ${b[0]} unused bits (a key has a whole number of bytes)`, 0);
    return b.subarray(1);
  }

  /** An OBJECT IDENTIFIER, dotted. */
  oid(name: string): string {
    const r = this.read(TAG.OID, name);
    const b = r.rest();
    if (b.length === 0) r.#fail(`${name}: empty OBJECT IDENTIFIER`, -2);
    const parts: number[] = [];
    let v = 0,
      fresh = true;
    for (let i = 0; i < b.length; i++) {
      if (fresh && b[i] === 0x80) r.#fail(`${name}: OBJECT IDENTIFIER sub-identifier not in its shortest form`, i);
      if (v > 2 ** 45) r.#fail(`${name}: OBJECT IDENTIFIER sub-identifier too large`, i);
      v = v * 128 + (b[i] & 0x7f);
      fresh = (b[i] & 0x80) === 0;
      if (fresh) {
        parts.push(v);
        v = 0;
      }
    }
    if (!fresh) r.#fail(`${name}: OBJECT IDENTIFIER ends inside a sub-identifier`, b.length - 1);
    const first = parts[0];
    const head = first < 40 ? [0, first] : first < 80 ? [1, first - 40] : [2, first - 80];
    return [...head, ...parts.slice(1)].join('.');
  }
}

/** A reader over a whole DER input whose single outer element has the given tag. */
export function derTop(input: Uint8Array, tag: number, what: string, name: string): DerReader {
  const top = new DerReader(input, what);
  const r = top.read(tag, name);
  top.end(what);
  return r;
}

// ---------------------------------------------------------------------------------------------
// Encoding

/** The parts, one after the other, in a new array. */
export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** One element: tag, shortest-form length, contents. */
export function der(tag: number, ...contents: Uint8Array[]): Uint8Array {
  const body = concat(contents);
  const n = body.length;
  const len = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : n < 0x10000 ? [0x82, n >> 8, n & 0xff] : [0x83, n >> 16, (n >> 8) & 0xff, n & 0xff];
  return concat([Uint8Array.of(tag, ...len), body]);
}

export const derInt = (v: number): Uint8Array => {
  if (v < 0 || v > 127) throw new RangeError('derInt: small non-negative integers only');
  return der(TAG.INTEGER, Uint8Array.of(v));
};

export function derOid(dotted: string): Uint8Array {
  const p = dotted.split('.').map(Number);
  const subs = [p[0] * 40 + p[1], ...p.slice(2)];
  const bytes: number[] = [];
  for (const s of subs) {
    const chunk: number[] = [s & 0x7f];
    for (let v = Math.floor(s / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return der(TAG.OID, Uint8Array.from(bytes));
}

export const derBits = (b: Uint8Array): Uint8Array => der(TAG.BIT_STRING, Uint8Array.of(0), b);

// ---------------------------------------------------------------------------------------------
// base64, base64url, PEM

// Private keys pass through here (PKCS#8 / SEC 1 PEM, JWK "d"), so the 6-bit values and the
// characters are mapped by arithmetic on masks, never by indexing an alphabet or by indexOf,
// and no regular expression or string search runs over key text: no memory address and no
// branch depends on a key character. Branches look only at lengths, at the line breaks (the
// layout), at the padding (its length follows from the DER's) and at the accumulated error
// masks; the error paths, taken only for input that is not a key, may look as they like.

/** -1 when lo ≤ c ≤ hi, else 0, without a branch. */
const inRange = (c: number, lo: number, hi: number): number => ((lo - 1 - c) & (c - hi - 1)) >> 31;
/** -1 when c = x, else 0 (both in [0, 2^16)), without a branch. */
const eqMask = (c: number, x: number): number => ((c ^ x) - 1) >> 31;

/** The character code of a 6-bit value (A–Z a–z 0–9, then + / or - _). */
function symbol(v: number, url: boolean): number {
  let c = v + 65; //                                   'A' + v
  c += ((25 - v) >> 8) & 6; //                         v ≥ 26: 'a' + (v − 26)
  c -= ((51 - v) >> 8) & 75; //                        v ≥ 52: '0' + (v − 52)
  c -= ((61 - v) >> 8) & (url ? 13 : 15); //           v = 62: '-' or '+'
  c += ((62 - v) >> 8) & (url ? 49 : 3); //            v = 63: '_' or '/'
  return c;
}

/** The 6-bit value of a character code, or −1 if it is not in the alphabet. */
function value(c: number, url: boolean): number {
  return -1 + (inRange(c, 65, 90) & (c - 64)) + (inRange(c, 97, 122) & (c - 70)) + (inRange(c, 48, 57) & (c + 5)) + (inRange(c, url ? 45 : 43, url ? 45 : 43) & 63) + (inRange(c, url ? 95 : 47, url ? 95 : 47) & 64);
}

function encode64(b: Uint8Array, url: boolean): string {
  const codes: number[] = [];
  for (let i = 0; i < b.length; i += 3) {
    const n = (b[i] << 16) | ((b[i + 1] ?? 0) << 8) | (b[i + 2] ?? 0);
    const k = Math.min(3, b.length - i);
    codes.push(symbol((n >> 18) & 63, url), symbol((n >> 12) & 63, url));
    if (k > 1) codes.push(symbol((n >> 6) & 63, url));
    if (k > 2) codes.push(symbol(n & 63, url));
  }
  if (!url) while (codes.length % 4 !== 0) codes.push(61); // '='
  let s = '';
  for (let i = 0; i < codes.length; i += 4096) s += String.fromCharCode(...codes.slice(i, i + 4096));
  return s;
}

/** Canonical decoding: padding exactly as the encoder writes it, unused bits zero. */
function decode64(s: string, url: boolean, what: string): Uint8Array {
  return decodeCodes((i) => s.charCodeAt(i), s.length, url, what);
}

/** decode64 over the character codes code(0) … code(len − 1). */
function decodeCodes(code: (i: number) => number, len: number, url: boolean, what: string): Uint8Array {
  let n = len;
  if (!url) {
    if (len % 4 !== 0) throw new EncodingError(`${what}: base64 length is not a multiple of 4`);
    // one or two '=' at the end (masks: -1 each), not part of the body
    const p1 = len > 0 ? eqMask(code(len - 1), 61) : 0;
    const p2 = len > 1 ? eqMask(code(len - 2), 61) & p1 : 0;
    n = len + p1 + p2;
  } else {
    let pad = 0;
    for (let i = 0; i < len; i++) pad |= eqMask(code(i), 61);
    if (pad) throw new EncodingError(`${what}: base64url must not be padded`);
  }
  if (n % 4 === 1) throw new EncodingError(`${what}: base64 length is impossible`);
  const out = new Uint8Array(Math.floor((n * 3) / 4));
  let acc = 0,
    bits = 0,
    o = 0,
    bad = 0;
  for (let i = 0; i < n; i++) {
    const v = value(code(i), url);
    bad |= v; // negative once any character is outside the alphabet
    acc = (acc << 6) | (v & 63);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  if (bad < 0) {
    out.fill(0);
    // the input is invalid (not a key), so finding where may take as long as it likes
    let at = 0;
    while (at < n && value(code(at), url) >= 0) at++;
    throw new EncodingError(`${what}: invalid ${url ? 'base64url' : 'base64'} character at position ${at}`);
  }
  if ((acc & ((1 << bits) - 1)) !== 0) throw new EncodingError(`${what}: non-canonical base64 (unused bits set)`);
  return out;
}

/**
 * Hexadecimal without a branch or a lookup on the digits (raw private keys in text files):
 * lowercase out, either case in; an odd length or a non-hex character is an EncodingError.
 */
export function hex(b: Uint8Array): string {
  const codes: number[] = [];
  const digit = (d: number) => d + 48 + (((9 - d) >> 8) & 39); // '0' + d, or 'a' + (d − 10)
  for (let i = 0; i < b.length; i++) codes.push(digit(b[i] >> 4), digit(b[i] & 15));
  let s = '';
  for (let i = 0; i < codes.length; i += 4096) s += String.fromCharCode(...codes.slice(i, i + 4096));
  return s;
}

export function unhex(s: string, what: string): Uint8Array {
  return unhexCodes((i) => s.charCodeAt(i), s.length, what);
}

/** unhex over the character codes code(0) … code(len − 1). */
function unhexCodes(code: (i: number) => number, len: number, what: string): Uint8Array {
  if (len % 2 !== 0) throw new EncodingError(`${what}: hex length is odd`);
  const nibble = (c: number) => -1 + (inRange(c, 48, 57) & (c - 47)) + (inRange(c, 97, 102) & (c - 86)) + (inRange(c, 65, 70) & (c - 54));
  const out = new Uint8Array(len / 2);
  let bad = 0;
  for (let i = 0; i < out.length; i++) {
    const hi = nibble(code(2 * i)),
      lo = nibble(code(2 * i + 1));
    bad |= hi | lo;
    out[i] = ((hi << 4) | lo) & 0xff;
  }
  if (bad < 0) {
    out.fill(0);
    let at = 0;
    while (at < len && nibble(code(at)) >= 0) at++;
    throw new EncodingError(`${what}: invalid hex character at position ${at}`);
  }
  return out;
}

/** unhex over ASCII bytes (a key file's text, never made into a string). */
export const unhexBytes = (b: Uint8Array, what: string): Uint8Array => unhexCodes((i) => b[i], b.length, what);

export const base64 = (b: Uint8Array): string => encode64(b, false);
export const unbase64 = (s: string, what: string): Uint8Array => decode64(s, false, what);
export const base64url = (b: Uint8Array): string => encode64(b, true);
export const unbase64url = (s: string, what: string): Uint8Array => decode64(s, true, what);
/** unbase64url over ASCII bytes (a JWK member's text, never made into a string). */
export const unbase64urlBytes = (b: Uint8Array, what: string): Uint8Array => decodeCodes((i) => b[i], b.length, true, what);

/** PEM with 64-character lines, as OpenSSL writes it. */
export function pem(label: string, der: Uint8Array): string {
  const b = base64(der);
  const lines: string[] = [];
  for (let i = 0; i < b.length; i += 64) lines.push(b.slice(i, i + 64));
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** PEM text given as a string or as its bytes (ASCII: printable characters, tab, CR, LF). */
function pemText(data: string | Uint8Array, what: string): string {
  if (typeof data === 'string') return data;
  if (!(data instanceof Uint8Array)) throw new TypeError(`${what} must be a string or a Uint8Array of PEM text`);
  let ok = -1;
  for (let i = 0; i < data.length; i++) {
    const c = data[i];
    ok &= eqMask(c, 9) | eqMask(c, 10) | eqMask(c, 13) | inRange(c, 32, 126);
  }
  if (!ok) {
    let at = 0;
    while (at < data.length && (data[at] === 9 || data[at] === 10 || data[at] === 13 || (data[at] >= 32 && data[at] < 127))) at++;
    throw new EncodingError(`${what}: not PEM text (byte ${at} is not printable ASCII; DER goes with a -der format)`);
  }
  let s = '';
  for (let i = 0; i < data.length; i += 4096) s += String.fromCharCode(...data.subarray(i, i + 4096));
  return s;
}

/**
 * The DER inside a PEM text with the given label (RFC 7468 strict form, lines of any length,
 * LF or CRLF, whitespace around the whole block allowed; no headers, no other block), given as
 * a string or as its bytes.
 *
 * With `curveOid`, an `EC PARAMETERS` block may come first, as `openssl ecparam -genkey`
 * writes it: it must be a named curve (RFC 5480 ECParameters) and name that curve, else
 * InvalidKeyError; the key block after it is read as usual.
 */
export function unpem(data: string | Uint8Array, label: string, what: string, curveOid?: string): Uint8Array {
  let t = pemText(data, what).trim();
  if (curveOid !== undefined && t.startsWith('-----BEGIN EC PARAMETERS-----')) {
    const endLine = '-----END EC PARAMETERS-----';
    const end = t.indexOf(endLine);
    if (end < 0) throw new EncodingError(`${what}: the EC PARAMETERS block has no "${endLine}" line`);
    const params = unpemBlock(t.slice(0, end + endLine.length), 'EC PARAMETERS', `${what} (EC PARAMETERS)`);
    const r = new DerReader(params, `${what} (EC PARAMETERS)`);
    const tag = r.peek();
    if (tag === TAG.SEQUENCE) throw new EncodingError(`${what}: explicit curve parameters are not supported (only named curves)`);
    const oid = r.oid('namedCurve');
    r.end('EC PARAMETERS');
    if (oid !== curveOid) throw new InvalidKeyError(`${what}: the EC PARAMETERS block names the curve with OID ${oid}, not ${curveOid}`);
    t = t.slice(end + endLine.length).trim();
  }
  return unpemBlock(t, label, what);
}

function unpemBlock(t: string, label: string, what: string): Uint8Array {
  // The BEGIN line: up to the first LF, which ends it (the key text after it is not looked at).
  let nl = 0;
  while (nl < t.length && t.charCodeAt(nl) !== 10) nl++;
  const begin = /^-----BEGIN ([A-Z0-9 ]+)-----\r?\n$/.exec(t.slice(0, nl + 1));
  if (!begin) throw new EncodingError(`${what}: not PEM (no "-----BEGIN ${label}-----" line)`);
  if (begin[1] !== label) throw new EncodingError(`${what}: PEM label is "${begin[1]}", expected "${label}"`);
  const endLine = `-----END ${label}-----`;
  if (!t.endsWith(endLine)) throw new EncodingError(`${what}: PEM does not end with "${endLine}"`);
  const body = t.slice(begin[0].length, t.length - endLine.length);

  // Lines of base64 (and the final '=' padding) separated by LF or CRLF, no empty line: checked
  // with masks in one pass that also drops the line breaks; the alphabet is decodeCodes's.
  const codes = new Uint16Array(body.length);
  let o = 0,
    bad = 0,
    empty = -1; // empty: -1 at the start of a line
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    const lf = eqMask(c, 10),
      cr = eqMask(c, 13),
      br = lf | cr;
    const next = i + 1 < body.length ? body.charCodeAt(i + 1) : 0;
    bad |= cr & ~eqMask(next, 10); //                                 a CR not before an LF
    bad |= lf & empty; //                                             an empty line
    bad |= ~br & ~(~(value(c, false) >> 31) | eqMask(c, 61)); //      not base64, not '='
    empty = lf | (cr & empty);
    codes[o] = c & 0xff;
    o += 1 + br;
  }
  if (bad) {
    // not a key: say what is wrong, as slowly as needed
    if (body.includes(':')) throw new EncodingError(`${what}: PEM headers (encrypted keys) are not supported`);
    if (body.includes('-----')) throw new EncodingError(`${what}: more than one PEM block`);
    // Every flagged body has a line that fails here: a lone CR stays inside its line, an empty
    // line (the LF at a line's start) is an empty element before the last, any other character
    // is outside the pattern. The empty element after the body's final LF is never reached.
    const lines = body.split(/\r?\n/);
    for (const [i, l] of lines.entries()) {
      if (!/^[A-Za-z0-9+/=]+$/.test(l)) throw new EncodingError(`${what}: PEM line ${i + 2} is not base64`);
    }
    throw new Error(`${what}: PEM body flagged with every line base64 (unreachable)`);
  }
  return decodeCodes((i) => codes[i], o, false, what);
}

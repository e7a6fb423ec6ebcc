// A strict JSON (RFC 8259) scanner for key files — JWK private keys, ctkit's symmetric key
// files — over the file's bytes, built so that the secret members ("d", "k") are never looked
// at by a branch or an index that depends on their value, and never become a JavaScript string.
//
// Why its control flow does not depend on a secret: outside strings the scanner branches on
// the structural characters { } [ ] : , " and on whitespace, whose positions are the layout of
// the file; a key's value is in a string. Inside a string it compares each byte with '"' (the
// end) and '\' (an escape) and nothing else: control characters and bytes ≥ 0x80 are collected
// in masks (one branch on each mask after the string). The secret payloads are base64url (and
// hex in other files): neither alphabet has '"', '\', a control character or a byte ≥ 0x80, so
// over a secret both comparisons come out "no" at every byte, and the loop ends at the closing
// quote, a position fixed by the key's length. A secret member is handed out as a view of the
// input bytes (secret()), which the caller gives to der.ts's mask-based decoders; an escape in
// it is refused (no encoder writes one, and decoding one would look at the secret's
// characters). Member names and the strings the caller reads as text (text()) are public.
//
// Strict: one JSON object with nothing but whitespace after it, no duplicate member names (in
// any object), escapes only from RFC 8259's list, \u with four hex digits, no raw control
// characters in strings, UTF-8 strings, numbers in RFC 8259's grammar, nesting at most 64 deep.
// Every error is an EncodingError naming what is wrong and the byte offset, never a content.
//
// Past the end of the text b[i] is undefined, which is no structural character, no digit, no
// whitespace and no hex digit: the scanner looks at a byte without a bounds check first, and
// says "the text ends" where a byte it needs is undefined.

import { EncodingError } from '../errors.js';

export type JsonKind = 'string' | 'number' | 'object' | 'array' | 'boolean' | 'null';

/** A member of the top-level object: its kind and, for a string, the bytes between its quotes. */
export interface JsonMember {
  readonly kind: JsonKind;
  /** offset of the value (of the string's first byte after the quote) */
  readonly start: number;
  /** end of the value (of the string's closing quote) */
  readonly end: number;
  /** a string with at least one escape */
  readonly escaped: boolean;
}

const MAX_DEPTH = 64;
/** RFC 8259's two-character escapes (after the backslash) and what they stand for. */
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const utf8 = new TextDecoder('utf-8', { fatal: true });
const isWs = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const hexVal = (c: number) => (isDigit(c) ? c - 48 : c >= 0x61 && c <= 0x66 ? c - 87 : c >= 0x41 && c <= 0x46 ? c - 55 : -1);

/** The top-level object of a JSON text, its members by name. */
export class JsonObject {
  readonly #bytes: Uint8Array;
  readonly #what: string;
  readonly members: ReadonlyMap<string, JsonMember>;

  constructor(bytes: Uint8Array, members: ReadonlyMap<string, JsonMember>, what: string) {
    this.#bytes = bytes;
    this.members = members;
    this.#what = what;
  }

  has(name: string): boolean {
    return this.members.has(name);
  }

  kind(name: string): JsonKind | undefined {
    return this.members.get(name)?.kind;
  }

  /** A public string member with its escapes decoded; undefined when absent; an EncodingError when not a string. */
  text(name: string): string | undefined {
    const m = this.members.get(name);
    if (m === undefined) return undefined;
    if (m.kind !== 'string') throw new EncodingError(`${this.#what}: member "${name}" is not a string (it is ${article(m.kind)})`);
    return decodeString(this.#bytes, m.start, m.end, this.#what);
  }

  /**
   * A secret string member's bytes, as a view of the input (not copied, not decoded: give it to
   * a constant-time decoder); undefined when absent. Not a string, or a string with an escape
   * or a byte outside printable ASCII, is an EncodingError.
   */
  secret(name: string): Uint8Array | undefined {
    const m = this.members.get(name);
    if (m === undefined) return undefined;
    if (m.kind !== 'string') throw new EncodingError(`${this.#what}: member "${name}" is not a string (it is ${article(m.kind)})`);
    if (m.escaped) throw new EncodingError(`${this.#what}: member "${name}" has an escape (\\), which a key member never needs`);
    const v = this.#bytes.subarray(m.start, m.end);
    let high = 0;
    for (const c of v) high |= c;
    if (high & 0x80) throw new EncodingError(`${this.#what}: member "${name}" has a byte outside ASCII`);
    return v;
  }
}

const article = (k: JsonKind) => (k === 'object' || k === 'array' ? `an ${k}` : k === 'null' ? 'null' : `a ${k}`);

/** Decodes a string's contents [start, end) (already validated by the scanner): escapes, UTF-8. */
function decodeString(b: Uint8Array, start: number, end: number, what: string): string {
  let out = '';
  let run = start; // start of the current run of bytes without an escape
  const flush = (to: number) => {
    try {
      out += utf8.decode(b.subarray(run, to));
    } catch {
      throw new EncodingError(`${what}: a string that is not UTF-8 at byte ${start - 1}`);
    }
  };
  for (let i = start; i < end; i++) {
    if (b[i] !== 0x5c) continue;
    flush(i);
    const e = b[i + 1];
    if (e === 0x75) {
      let u = 0;
      for (let k = 2; k < 6; k++) u = u * 16 + hexVal(b[i + k]);
      out += String.fromCharCode(u);
      i += 5;
    } else {
      out += ESCAPES[String.fromCharCode(e)];
      i += 1;
    }
    run = i + 1;
  }
  flush(end);
  return out;
}

/** Scans a JSON text whose value is an object; returns its members (nested values are validated, not kept). */
export function scanJsonObject(bytes: Uint8Array, what: string): JsonObject {
  const b = bytes,
    n = bytes.length;
  const fail = (msg: string, at: number): never => {
    throw new EncodingError(`${what}: ${msg} at byte ${at}`);
  };
  const ws = (i: number) => {
    while (isWs(b[i])) i++;
    return i;
  };
  const expect = (i: number, c: number, msg: string) => {
    if (i >= n) fail(`${msg}: the text ends`, i);
    if (b[i] !== c) fail(msg, i);
  };

  /** A string at b[i] = '"': its contents [start, end), whether it has an escape, the index after it. */
  const string = (i: number): { start: number; end: number; escaped: boolean; next: number } => {
    const start = i + 1;
    let j = start,
      escaped = false,
      ctrl = 0,
      high = 0;
    for (;;) {
      const c = b[j];
      if (c === undefined) fail('unterminated string', i);
      if (c === 0x22) break;
      if (c === 0x5c) {
        escaped = true;
        const e = b[j + 1];
        if (e === 0x75) {
          for (let k = 2; k < 6; k++) if (hexVal(b[j + k]) < 0) fail('\\u escape without four hex digits', j);
          j += 6;
        } else if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) j += 2;
        else fail('unknown escape in a string', j);
        continue;
      }
      ctrl |= (c - 0x20) >> 31; // −1 once a byte < 0x20 appears
      high |= c;
      j++;
    }
    if (ctrl) {
      let at = start;
      while (b[at] >= 0x20) at++; // not a key: find it as slowly as needed
      fail('control character in a string', at);
    }
    if (high & 0x80) decodeString(b, start, j, what); // UTF-8 check (no key member has such bytes)
    return { start, end: j, escaped, next: j + 1 };
  };

  const number = (i: number): number => {
    const s = i;
    if (b[i] === 0x2d) i++;
    if (b[i] === 0x30) i++;
    else if (b[i] >= 0x31 && b[i] <= 0x39) while (isDigit(b[i])) i++;
    else fail('invalid number', s);
    if (b[i] === 0x2e) {
      i++;
      if (!isDigit(b[i])) fail('invalid number (no digit after ".")', s);
      while (isDigit(b[i])) i++;
    }
    if (b[i] === 0x65 || b[i] === 0x45) {
      i++;
      if (b[i] === 0x2b || b[i] === 0x2d) i++;
      if (!isDigit(b[i])) fail('invalid number (no digit in the exponent)', s);
      while (isDigit(b[i])) i++;
    }
    return i;
  };

  const literal = (i: number, word: string): number => {
    for (let k = 0; k < word.length; k++) if (b[i + k] !== word.charCodeAt(k)) fail('invalid literal', i);
    return i + word.length;
  };

  /** A value at b[i] (no whitespace before it): the member it makes (a string's contents; another value's text) and the index after it. */
  const value = (i: number, depth: number): { member: JsonMember; next: number } => {
    const c = b[i];
    if (c === undefined) fail('a value is missing: the text ends', i);
    if (c === 0x22) {
      const s = string(i);
      return { member: { kind: 'string', start: s.start, end: s.end, escaped: s.escaped }, next: s.next };
    }
    const other = (kind: JsonKind, next: number) => ({ member: { kind, start: i, end: next, escaped: false }, next });
    if (c === 0x7b) return other('object', object(i, depth + 1));
    if (c === 0x5b) return other('array', array(i, depth + 1));
    if (c === 0x74) return other('boolean', literal(i, 'true'));
    if (c === 0x66) return other('boolean', literal(i, 'false'));
    if (c === 0x6e) return other('null', literal(i, 'null'));
    if (c === 0x2d || isDigit(c)) return other('number', number(i));
    return fail('not a JSON value', i);
  };

  function object(i: number, depth: number, top?: Map<string, JsonMember>): number {
    if (depth > MAX_DEPTH) fail(`nested more than ${MAX_DEPTH} deep`, i);
    const names = new Set<string>();
    i = ws(i + 1);
    if (b[i] === 0x7d) return i + 1;
    for (;;) {
      expect(i, 0x22, 'expected a member name (a string)');
      const k = string(i);
      const name = decodeString(b, k.start, k.end, what);
      if (names.has(name)) fail(`duplicate member "${name}"`, i);
      names.add(name);
      i = ws(k.next);
      expect(i, 0x3a, `expected ":" after the member name "${name}"`);
      i = ws(i + 1);
      const v = value(i, depth);
      if (top) top.set(name, v.member);
      i = ws(v.next);
      if (b[i] === 0x2c) {
        i = ws(i + 1);
        continue;
      }
      expect(i, 0x7d, 'expected "," or "}" in an object');
      return i + 1;
    }
  }

  function array(i: number, depth: number): number {
    if (depth > MAX_DEPTH) fail(`nested more than ${MAX_DEPTH} deep`, i);
    i = ws(i + 1);
    if (b[i] === 0x5d) return i + 1;
    for (;;) {
      i = ws(value(i, depth).next);
      if (b[i] === 0x2c) {
        i = ws(i + 1);
        continue;
      }
      expect(i, 0x5d, 'expected "," or "]" in an array');
      return i + 1;
    }
  }

  const members = new Map<string, JsonMember>();
  let i = ws(0);
  if (i >= n) fail('no JSON object (the text is empty)', i);
  if (b[i] !== 0x7b) fail('not a JSON object', i);
  i = ws(object(i, 1, members));
  if (i < n) fail('unexpected data after the JSON object', i);
  return new JsonObject(bytes, members, what);
}

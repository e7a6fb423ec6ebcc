// src/util/json-ct.ts (the key files' JSON scanner) against JSON.parse, an independent reader:
// random objects with every kind of value (escapes with upper- and lower-case hex digits,
// numbers with fractions and exponents, literals, nesting), laid out with random whitespace,
// must read as JSON.parse reads them; every one-byte edit of them must be refused by both, or
// accepted by both, or refused by json-ct for a reason it has by design (a duplicate member, a
// top level that is not an object). Quick and in-process: under `npm run test:mutation -- src/cli`
// a json-ct mutant fails here before the CLI tests run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EncodingError } from '../src/errors.js';
import { type JsonKind, scanJsonObject } from '../src/util/json-ct.js';
import { Rng } from './support/rng.js';

const rng = new Rng(0x150c7);
const enc = new TextEncoder();
const pick = <T>(xs: readonly T[]): T => xs[rng.int(xs.length)];
const ws = () => pick(['', '', ' ', '\n', '\t', '\r\n', '  ']);

/** a JSON string literal with escapes of every kind, hex digits in either case */
function str(): string {
  let s = '"';
  for (let n = rng.int(6); n > 0; n--) {
    s += pick(['a', 'Z', '0', ' ', 'é', '☃', '\\"', '\\\\', '\\/', '\\b', '\\f', '\\n', '\\r', '\\t', '\\u00e9', '\\u00E9', '\\uABCD', '\\uabcd', '\\u0041', '\\ud83d\\ude00', '\\uD83D\\uDE00']);
  }
  return `${s}"`;
}
/** a number in RFC 8259's grammar */
function num(): string {
  const int = pick(['0', '7', '12', '905']);
  const frac = pick(['', '', '.5', '.25', '.0']);
  const exp = pick(['', '', 'e5', 'E-3', 'e+2', 'E07']);
  return `${pick(['', '-'])}${int}${frac}${exp}`;
}
function value(depth: number): string {
  const k = rng.int(depth > 3 ? 5 : 7);
  if (k === 0) return str();
  if (k === 1) return num();
  if (k === 2) return pick(['true', 'false']);
  if (k === 3) return 'null';
  if (k === 4) return str();
  if (k === 5) return array(depth + 1);
  return object(depth + 1);
}
function array(depth: number): string {
  const n = rng.int(4);
  return `[${ws()}${Array.from({ length: n }, () => value(depth)).join(`${ws()},${ws()}`)}${ws()}]`;
}
function object(depth: number): string {
  const names = ['a', 'b', 'kty', 'd', 'k', 'x', 'é', 'a\\u0062'].slice(0, rng.int(6));
  return `{${ws()}${names.map((m) => `"${m}"${ws()}:${ws()}${value(depth)}`).join(`${ws()},${ws()}`)}${ws()}}`;
}

const kindOf = (v: unknown): JsonKind => (v === null ? 'null' : Array.isArray(v) ? 'array' : (typeof v as JsonKind));

test('random objects read as JSON.parse reads them: members, kinds, strings', () => {
  let strings = 0;
  for (let i = 0; i < 400; i++) {
    const src = `${ws()}${object(0)}${ws()}`;
    const ref = JSON.parse(src) as Record<string, unknown>;
    const j = scanJsonObject(enc.encode(src), 't');
    assert.deepEqual([...j.members.keys()], Object.keys(ref), src);
    for (const [name, v] of Object.entries(ref)) {
      assert.equal(j.kind(name), kindOf(v), `${src}: ${name}`);
      if (typeof v === 'string') {
        assert.equal(j.text(name), v, `${src}: ${name}`);
        strings++;
      }
    }
  }
  assert.ok(strings > 200, `${strings} strings compared`);
});

/** json-ct refusals that JSON.parse does not share, by design */
const BY_DESIGN = /duplicate member|not a JSON object|nested more than 64/;

test('one-byte edits: refused by both readers, accepted by both, or refused by json-ct by design', () => {
  const bytes = ['"', '\\', '{', '}', '[', ']', ':', ',', ' ', '\n', '\x01', '\x1f', '0', '-', '+', '.', 'e', 'E', 'u', 'a', 'f', 'F', 'g', 't', 'n', 'l', 'x', '\x7f'];
  let refused = 0;
  let accepted = 0;
  for (let i = 0; i < 3000; i++) {
    const good = object(0);
    const at = rng.int(good.length);
    const src = rng.int(3) === 0 ? good.slice(0, at) + good.slice(at + 1) : good.slice(0, at) + pick(bytes) + good.slice(at + 1);
    let ref: unknown;
    let refOk = true;
    try {
      ref = JSON.parse(src);
    } catch {
      refOk = false;
    }
    let err: unknown;
    try {
      scanJsonObject(enc.encode(src), 't');
    } catch (e) {
      err = e;
    }
    if (err !== undefined) {
      assert.ok(err instanceof EncodingError, `${JSON.stringify(src)}: ${String(err)}`);
      assert.ok(!refOk ? true : BY_DESIGN.test((err as Error).message) || kindOf(ref) !== 'object', `${JSON.stringify(src)}: JSON.parse reads it, json-ct says ${(err as Error).message}`);
      refused++;
    } else {
      assert.ok(refOk, `${JSON.stringify(src)}: json-ct reads what JSON.parse refuses`);
      accepted++;
    }
  }
  assert.ok(refused > 500 && accepted > 300, `${refused} refused, ${accepted} accepted`);
});

test('nesting: 64 levels read, 65 refused; control characters in strings refused', () => {
  const nest = (n: number) => `{"a":${'['.repeat(n - 1)}${']'.repeat(n - 1)}}`;
  assert.equal(scanJsonObject(enc.encode(nest(64)), 't').kind('a'), 'array');
  assert.throws(
    () => scanJsonObject(enc.encode(nest(65)), 't'),
    (e: Error) => e instanceof EncodingError && /nested more than 64 deep/.test(e.message),
  );
  const objs = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
  assert.equal(scanJsonObject(enc.encode(objs(64)), 't').kind('a'), 'object');
  assert.throws(
    () => scanJsonObject(enc.encode(objs(65)), 't'),
    (e: Error) => e instanceof EncodingError && /nested more than 64 deep/.test(e.message),
  );
  for (let c = 0; c < 0x20; c++) {
    assert.throws(
      () => scanJsonObject(Uint8Array.from([...enc.encode('{"a":"x'), c, ...enc.encode('"}')]), 't'),
      (e: Error) => e instanceof EncodingError && /control character in a string/.test(e.message),
      `0x${c.toString(16)}`,
    );
  }
  // the error names the control character's offset, past a space before it
  assert.throws(
    () => scanJsonObject(enc.encode('{"a":"x y\x01"}'), 't'),
    (e: Error) => e instanceof EncodingError && e.message === 't: control character in a string at byte 9',
  );
  assert.equal(scanJsonObject(enc.encode('{"a":" ~"}'), 't').text('a'), ' ~');
});

/** every refusal: the text, and the exact message (its reason and byte offset) */
const REFUSALS: [string, string][] = [
  ['', 'no JSON object (the text is empty) at byte 0'],
  [' \n\t\r', 'no JSON object (the text is empty) at byte 4'],
  ['[1]', 'not a JSON object at byte 0'],
  [' 1', 'not a JSON object at byte 1'],
  ['{} x', 'unexpected data after the JSON object at byte 3'],
  ['{}{}', 'unexpected data after the JSON object at byte 2'],
  ['{', 'expected a member name (a string): the text ends at byte 1'],
  ['{ 1}', 'expected a member name (a string) at byte 2'],
  ['{"a":1,}', 'expected a member name (a string) at byte 7'],
  ['{"a":1,"a":2}', 'duplicate member "a" at byte 7'],
  ['{"a":1, "\\u0061":2}', 'duplicate member "a" at byte 8'],
  ['{"o":{"b":1,"b":2}}', 'duplicate member "b" at byte 12'],
  ['{"a" 1}', 'expected ":" after the member name "a" at byte 5'],
  ['{"a"', 'expected ":" after the member name "a": the text ends at byte 4'],
  ['{"a":1 2}', 'expected "," or "}" in an object at byte 7'],
  ['{"a":1', 'expected "," or "}" in an object: the text ends at byte 6'],
  ['{"a":[1 2]}', 'expected "," or "]" in an array at byte 8'],
  ['{"a":[1', 'expected "," or "]" in an array: the text ends at byte 7'],
  ['{"a":[1,]}', 'not a JSON value at byte 8'],
  ['{"a":', 'a value is missing: the text ends at byte 5'],
  ['{"a":[', 'a value is missing: the text ends at byte 6'],
  ['{"a":x}', 'not a JSON value at byte 5'],
  ['{"a":+1}', 'not a JSON value at byte 5'],
  ['{"a":tru}', 'invalid literal at byte 5'],
  ['{"a":nul', 'invalid literal at byte 5'],
  ['{"a":falsE}', 'invalid literal at byte 5'],
  ['{"a":-}', 'invalid number at byte 5'],
  ['{"a":-a}', 'invalid number at byte 5'],
  ['{"a":-', 'invalid number at byte 5'],
  ['{"a":01}', 'expected "," or "}" in an object at byte 6'],
  ['{"a":1.}', 'invalid number (no digit after ".") at byte 5'],
  ['{"a":-0.', 'invalid number (no digit after ".") at byte 5'],
  ['{"a":1e}', 'invalid number (no digit in the exponent) at byte 5'],
  ['{"a":1E+}', 'invalid number (no digit in the exponent) at byte 5'],
  ['{"a":1.5e-', 'invalid number (no digit in the exponent) at byte 5'],
  ['{"a":"abc', 'unterminated string at byte 5'],
  ['{"a', 'unterminated string at byte 1'],
  ['{"a":"x\\"}', 'unterminated string at byte 5'],
  ['{"a":"\\u12g4"}', '\\u escape without four hex digits at byte 6'],
  ['{"a":"\\u12', '\\u escape without four hex digits at byte 6'],
  ['{"a":"\\x"}', 'unknown escape in a string at byte 6'],
  ['{"a":"\\', 'unknown escape in a string at byte 6'],
  ['{"a":"\\U0041"}', 'unknown escape in a string at byte 6'],
  ['{"a\x01":1}', 'control character in a string at byte 3'],
];

test('every refusal names its reason and its byte offset, and nothing of the content', () => {
  for (const [src, message] of REFUSALS) {
    assert.throws(
      () => scanJsonObject(enc.encode(src), 'the file'),
      (e: Error) => e instanceof EncodingError && e.message === `the file: ${message}`,
      JSON.stringify(src),
    );
  }
  // a string that is not UTF-8 (a lone continuation byte, an overlong form), in a value and in a name
  for (const [bytes, at] of [
    [[...enc.encode('{"a":"x'), 0x80, ...enc.encode('"}')], 5],
    [[...enc.encode('{"a":"'), 0xc0, 0xaf, ...enc.encode('"}')], 5],
    [[...enc.encode('{"'), 0xff, ...enc.encode('":1}')], 1],
  ] as [number[], number][]) {
    assert.throws(
      () => scanJsonObject(Uint8Array.from(bytes), 'f'),
      (e: Error) => e instanceof EncodingError && e.message === `f: a string that is not UTF-8 at byte ${at}`,
      String(bytes),
    );
  }
});

test('\\u escapes: every hex digit in either case, and the characters beside the digits refused', () => {
  for (const d of '0123456789abcdefABCDEF') {
    const src = `{"a":"\\u${d}${d}0${d}"}`;
    assert.equal(scanJsonObject(enc.encode(src), 't').text('a'), JSON.parse(src).a, src);
  }
  for (const d of '/:@G`g') {
    assert.throws(
      () => scanJsonObject(enc.encode(`{"a":"\\u00${d}0"}`), 't'),
      (e: Error) => e instanceof EncodingError && e.message === 't: \\u escape without four hex digits at byte 6',
      d,
    );
  }
  // a name with escapes of each kind decodes as JSON.parse decodes it
  const src = '{"\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041z":1}';
  assert.deepEqual([...scanJsonObject(enc.encode(src), 't').members.keys()], Object.keys(JSON.parse(src)));
});

test('members: kind, text and secret, with the errors of each', () => {
  const src = '{"s":"ab\\u0063","n":-1.5e3,"o":{"x":[]},"l":[1],"t":true,"f":false,"z":null,"k":"QUJD","e":"a\\/b","h":"caf\u00e9"}';
  const bytes = enc.encode(src);
  const j = scanJsonObject(bytes, 'key');
  assert.deepEqual(
    [...j.members].map(([name, m]) => [name, m.kind]),
    [
      ['s', 'string'],
      ['n', 'number'],
      ['o', 'object'],
      ['l', 'array'],
      ['t', 'boolean'],
      ['f', 'boolean'],
      ['z', 'null'],
      ['k', 'string'],
      ['e', 'string'],
      ['h', 'string'],
    ],
  );
  // a string member's span is its contents; another kind's is the value's text
  const span = (name: string) => {
    const m = j.members.get(name);
    return m && new TextDecoder().decode(bytes.subarray(m.start, m.end));
  };
  assert.deepEqual(['s', 'n', 'o', 'l', 't', 'f', 'z'].map(span), ['ab\\u0063', '-1.5e3', '{"x":[]}', '[1]', 'true', 'false', 'null']);
  // escaped: a string with a backslash; never another kind
  assert.deepEqual(
    [...j.members.values()].map((m) => m.escaped),
    [true, false, false, false, false, false, false, false, true, false],
  );
  assert.equal(j.has('s'), true);
  assert.equal(j.has('q'), false);
  assert.equal(j.kind('q'), undefined);
  assert.equal(j.text('q'), undefined);
  assert.equal(j.secret('q'), undefined);
  assert.equal(j.text('s'), 'abc');
  assert.equal(j.text('h'), 'café');
  const k = j.secret('k');
  assert.ok(k !== undefined && k.buffer === bytes.buffer && k.byteOffset === src.indexOf('QUJD') && k.length === 4, 'secret() is a view of the input');
  const no = (f: () => unknown, message: string) => assert.throws(f, (e: Error) => e instanceof EncodingError && e.message === `key: ${message}`, message);
  for (const [name, it] of [
    ['n', 'a number'],
    ['o', 'an object'],
    ['l', 'an array'],
    ['t', 'a boolean'],
    ['z', 'null'],
  ]) {
    no(() => j.text(name), `member "${name}" is not a string (it is ${it})`);
    no(() => j.secret(name), `member "${name}" is not a string (it is ${it})`);
  }
  no(() => j.secret('e'), 'member "e" has an escape (\\), which a key member never needs');
  no(() => j.secret('h'), 'member "h" has a byte outside ASCII');
});

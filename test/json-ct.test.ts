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

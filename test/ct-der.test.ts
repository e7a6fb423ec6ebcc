// Constant time in the JavaScript glue that decodes secret text (src/ec/der.ts): importing a
// private key from PEM or JWK runs no regular expression and no string search over the key's
// base64 (spied on), and the mask-based PEM and base64 decoders accept and reject exactly what
// they did (checked against Buffer and the error messages).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { p256, p384 } from '../src/ec/index.js';
import { hex, unbase64, unbase64url, unhex, unpem } from '../src/ec/der.js';
import { EncodingError } from '../src/errors.js';
import { Rng } from './support/rng.js';

/** Calls of RegExp exec and of the searching String methods on a string containing `marker`. */
function spy<T>(marker: string, f: () => T): { result: T; calls: string[] } {
  const calls: string[] = [];
  const includes = String.prototype.includes; // the original, before it is wrapped below
  const hit = (what: string, s: unknown) => {
    if (typeof s === 'string' && includes.call(s, marker)) calls.push(what);
  };
  const saved: [object, string, PropertyDescriptor][] = [];
  const wrap = (obj: object, name: string, self: boolean) => {
    const d = Object.getOwnPropertyDescriptor(obj, name)!;
    saved.push([obj, name, d]);
    const orig = d.value as (...a: unknown[]) => unknown;
    Object.defineProperty(obj, name, {
      ...d,
      value: function (this: unknown, ...a: unknown[]) {
        if (self) hit(`String.prototype.${name}`, this);
        else hit(`RegExp.prototype.${name}`, a[0]);
        return orig.apply(this, a);
      },
    });
  };
  wrap(RegExp.prototype, 'exec', false);
  for (const m of ['includes', 'indexOf', 'lastIndexOf', 'split', 'replace', 'replaceAll', 'match', 'matchAll', 'search']) wrap(String.prototype, m, true);
  try {
    return { result: f(), calls };
  } finally {
    for (const [obj, name, d] of saved.reverse()) Object.defineProperty(obj, name, d);
  }
}

test('importing PEM and JWK private keys: no regular expression and no string search over the key text', () => {
  const rng = new Rng(0xde7);
  for (const c of [p256, p384]) {
    const sk = c.generatePrivateKey();
    for (const format of ['pkcs8-pem', 'sec1-pem'] as const) {
      const text = c.exportPrivateKey(sk, format);
      const body = text.split('\n')[1]; // a base64 line of the key
      for (const variant of [text, text.replace(/\n/g, '\r\n'), new TextEncoder().encode(text)]) {
        const { result, calls } = spy(body.slice(8, 40), () => c.importPrivateKey(variant, format));
        assert.deepEqual(result, sk);
        assert.deepEqual(calls, [], `${c.name} ${format}`);
      }
    }
    const jwk = c.exportPrivateKey(sk, 'jwk');
    const { result, calls } = spy(jwk.d!.slice(4, 36), () => c.importPrivateKey(jwk, 'jwk'));
    assert.deepEqual(result, sk);
    assert.deepEqual(calls, [], `${c.name} jwk`);
  }
  // the decoders alone, padded and not
  for (const n of [29, 30, 31, 32]) {
    const b = rng.bytes(n),
      s = Buffer.from(b).toString('base64'),
      u = Buffer.from(b).toString('base64url');
    assert.deepEqual(
      spy(s.slice(0, 24), () => unbase64(s, 't')),
      { result: b, calls: [] },
    );
    assert.deepEqual(
      spy(u.slice(0, 24), () => unbase64url(u, 't')),
      { result: b, calls: [] },
    );
  }
});

test('the spy sees what it should (it would catch a regular expression over the key)', () => {
  const { calls } = spy('SECRETKEYTEXT', () => /^[A-Z]+$/.test('SECRETKEYTEXT') && 'xSECRETKEYTEXT'.split('').length);
  assert.deepEqual(calls, ['RegExp.prototype.exec', 'String.prototype.split']);
});

test('PEM bodies in every layout decode to the bytes Buffer encoded: line lengths 1…80, LF or CRLF, with or without the last newline', () => {
  const rng = new Rng(0x9e3);
  for (const n of [0, 1, 2, 3, 31, 32, 33, 100, 138]) {
    const der = rng.bytes(n);
    const b64 = Buffer.from(der).toString('base64');
    for (const width of [1, 4, 63, 64, 76, 80]) {
      for (const eol of ['\n', '\r\n']) {
        for (const lastNewline of [true, false]) {
          const lines = b64.match(new RegExp(`.{1,${width}}`, 'g')) ?? [];
          const text = `-----BEGIN PRIVATE KEY-----${eol}${lines.join(eol)}${lastNewline && lines.length ? eol : ''}-----END PRIVATE KEY-----`;
          assert.deepEqual(unpem(text, 'PRIVATE KEY', 't'), der, `n=${n} width=${width} ${JSON.stringify(eol)} ${lastNewline}`);
        }
      }
    }
  }
});

test('malformed PEM bodies: the same messages as before', () => {
  const sk = p256.generatePrivateKey();
  const text = p256.exportPrivateKey(sk, 'pkcs8-pem');
  const lines = text.trim().split('\n');
  const join = (ls: string[]) => ls.join('\n') + '\n';
  const cases: [string, RegExp][] = [
    [join([lines[0], '', ...lines.slice(1)]), /PEM line 2 is not base64/], // an empty line
    [join([...lines.slice(0, 2), '', ...lines.slice(2)]), /PEM line 3 is not base64/],
    [text.replace(lines[1], lines[1].slice(0, 10) + '\r' + lines[1].slice(10)), /PEM line 2 is not base64/], // a lone CR
    [text.replace(lines[1], lines[1].slice(0, 10) + '*' + lines[1].slice(11)), /PEM line 2 is not base64/],
    [text.replace(lines[1], lines[1].slice(0, 10) + '=' + lines[1].slice(11)), /invalid base64 character at position 10/],
    [text.replace(lines[0] + '\n', lines[0] + '\nProc-Type: 4,ENCRYPTED\n'), /headers \(encrypted keys\)/],
    [text.replace(lines[1], lines[1] + '\n-----END PRIVATE KEY-----\n-----BEGIN PRIVATE KEY-----'), /more than one PEM block/],
    [text.replace(lines[1], lines[1].slice(1)), /base64 length is not a multiple of 4/],
    [text + '\n', /^(?!.*PEM).*$/s], // a newline after the END line is trimmed: it decodes
  ];
  for (const [t, re] of cases) {
    let msg = 'decoded';
    try {
      p256.importPrivateKey(t, 'pkcs8-pem');
    } catch (e) {
      assert.ok(e instanceof EncodingError, String(e));
      msg = e.message;
    }
    assert.match(msg, re, JSON.stringify(t.slice(0, 80)));
  }
  assert.deepEqual(p256.importPrivateKey(text + '\n', 'pkcs8-pem'), sk);
  assert.throws(() => p256.importPrivateKey(Uint8Array.of(0x2d, 0x2d, 0x80), 'pkcs8-pem'), /not PEM text \(byte 2 is not printable ASCII/);
});

test('hex and unhex: equal to Buffer for every byte and length, every character checked, no search over the text', () => {
  const rng = new Rng(0x4e);
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  assert.equal(hex(all), Buffer.from(all).toString('hex'));
  assert.deepEqual(unhex(Buffer.from(all).toString('hex'), 't'), all);
  assert.deepEqual(unhex(Buffer.from(all).toString('hex').toUpperCase(), 't'), all);
  for (let n = 0; n <= 70; n++) {
    const b = rng.bytes(n);
    assert.equal(hex(b), Buffer.from(b).toString('hex'));
    assert.deepEqual(
      spy(hex(b).slice(0, 8) || 'x', () => unhex(hex(b), 't')),
      { result: b, calls: [] },
    );
  }
  for (let c = 0; c < 384; c++) {
    const ch = String.fromCharCode(c);
    if (/^[0-9a-fA-F]$/.test(ch)) assert.equal(unhex('a' + ch, 't').length, 1);
    else
      assert.throws(
        () => unhex('0a' + ch + '0', 't'),
        (e: unknown) => e instanceof EncodingError && /invalid hex character at position 2/.test(e.message),
        `char ${c}`,
      );
  }
  assert.throws(() => unhex('abc', 't'), /hex length is odd/);
});

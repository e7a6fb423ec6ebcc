// Error classes keep their names in minified bundles: a program that imports ctkit is bundled
// and minified with esbuild (which renames classes, so `new.target.name` would be a short
// mangled identifier), then run; every error class exported by ctkit and its family entry
// points must report its own name, both constructed directly and as thrown by the library.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

// Collects, from each entry point, every exported class that makes Error instances, and the
// names of errors the library itself throws.
const PROGRAM = `
import * as all from './src/index.ts';
import * as mac from './src/mac/index.ts';
import * as aead from './src/aead/index.ts';
import * as hash from './src/hash/index.ts';
import * as ec from './src/ec/index.ts';
import * as stream from './src/stream/index.ts';
const constructed = {};
for (const ns of [all, mac, aead, hash, ec, stream]) {
  for (const [exported, C] of Object.entries(ns)) {
    if (typeof C === 'function' && C.prototype instanceof Error) constructed[exported] = new C('m').name;
  }
}
const thrown = {};
const name = (f) => { try { f(); } catch (e) { return e.name; } return 'nothing thrown'; };
thrown.AuthenticationError = name(() => all.aesGcm(new Uint8Array(16)).open(new Uint8Array(12), new Uint8Array(16)));
thrown.StateError = name(() => { const a = all.chacha20Poly1305(new Uint8Array(32)); a.dispose(); a.seal(new Uint8Array(12), new Uint8Array(1)); });
thrown.EncodingError = name(() => all.p256.importPublicKey(Uint8Array.of(5, ...new Uint8Array(64)), 'raw'));
thrown.InvalidKeyError = name(() => all.p256.getPublicKey(new Uint8Array(32)));
thrown.CtkitTypeError = name(() => all.sha256('not bytes'));
thrown.CtkitRangeError = name(() => all.aesGcm(new Uint8Array(15)));
thrown.StreamFormatError = name(() => stream.createOpener(all.chacha20Poly1305(new Uint8Array(32))).push(new Uint8Array(64)));
export { constructed, thrown };
`;

test('every error class keeps its name after esbuild --minify (constructed and thrown)', async () => {
  const r = await build({
    stdin: { contents: PROGRAM, resolveDir: root, sourcefile: 'names.ts', loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
    logLevel: 'silent',
  });
  const code = r.outputFiles[0]!.text;
  // the minifier did rename the classes (else this test would prove nothing)
  assert.doesNotMatch(code, /class AuthenticationError\b/);
  // a file, not a data: URL: ctkit/stream resolves its worker script against import.meta.url
  const dir = mkdtempSync(join(tmpdir(), 'ctkit-names-'));
  const file = join(dir, 'names.mjs');
  writeFileSync(file, code);
  const { constructed, thrown } = (await import(pathToFileURL(file).href).finally(() => rmSync(dir, { recursive: true, force: true }))) as {
    constructed: Record<string, string>;
    thrown: Record<string, string>;
  };
  const expected = ['AuthenticationError', 'CtkitError', 'CtkitRangeError', 'CtkitTypeError', 'EncodingError', 'InvalidKeyError', 'SegmentAuthenticationError', 'StateError', 'StreamFormatError'];
  assert.deepEqual(Object.keys(constructed).sort(), expected);
  for (const [exported, got] of Object.entries(constructed)) assert.equal(got, exported, `new ${exported}().name`);
  for (const [cls, got] of Object.entries(thrown)) assert.equal(got, cls, `the error thrown where a ${cls} is expected`);
});

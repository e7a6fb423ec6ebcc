// docs/stream-format.md is the specification of the sealed stream: its test vectors (from the
// reference model, src/ref/stream.ts) hold the model, ctkit/stream and OpenSSL (node:crypto,
// each segment built from the document's rules) to the same bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCipheriv, createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { aesGcm, aesGcmSiv, chacha20Poly1305, sm4Gcm, xchacha20Poly1305, type Aead } from '../src/aead/index.js';
import { createOpener, createSealer } from '../src/stream/index.js';
import { refOpenStream, refSealStream } from '../src/ref/stream.js';
import { VECTOR_INPUTS } from './support/stream-vectors.js';
import { hex, unhex } from './support/rng.js';

const FACTORIES: Record<string, (k: Uint8Array) => Aead> = {
  'aes-256-gcm': aesGcm,
  'chacha20-poly1305': chacha20Poly1305,
  'xchacha20-poly1305': xchacha20Poly1305,
  'aes-256-gcm-siv': aesGcmSiv,
  'sm4-gcm': sm4Gcm,
};

interface DocVector {
  title: string;
  fields: Map<string, string>;
}

function docVectors(): DocVector[] {
  const doc = readFileSync(new URL('../docs/stream-format.md', import.meta.url), 'utf8');
  const out: DocVector[] = [];
  for (const m of doc.matchAll(/### (.+)\n\n```text\n([\s\S]*?)```/g)) {
    const fields = new Map<string, string>();
    let last = '';
    for (const line of m[2].split('\n')) {
      const f = /^(\S+(?: \S+)?)\s{2,}(.*)$/.exec(line) ?? /^(\w+)\s+(.*)$/.exec(line);
      if (/^\s{5,}/.test(line)) fields.set(last, fields.get(last)! + line.trim());
      else if (f) fields.set((last = f[1]), f[2].trim());
    }
    out.push({ title: m[1], fields });
  }
  return out;
}

const cat = (parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));

test('the document has a vector for every algorithm, and each is the model output for its inputs', () => {
  const vs = docVectors();
  assert.equal(vs.length, VECTOR_INPUTS.length);
  assert.deepEqual(new Set(vs.map((v) => v.fields.get('algorithm'))), new Set(Object.keys(FACTORIES)));
  for (const [i, v] of vs.entries()) {
    const inp = VECTOR_INPUTS[i];
    assert.equal(v.title, inp.title);
    assert.equal(v.fields.get('key'), hex(inp.key));
    assert.equal(v.fields.get('prefix'), hex(inp.prefix));
    assert.equal(Number(v.fields.get('segment')), inp.segmentSize);
  }
});

for (const inp of VECTOR_INPUTS) {
  test(`vector "${inp.title}": model, implementation (push/finish) and opening agree with the document`, () => {
    const v = docVectors().find((d) => d.title === inp.title)!;
    const ref = refSealStream(inp, inp.plaintext);
    const aead = FACTORIES[inp.algorithm](inp.key);
    const s = createSealer(aead, { segmentSize: inp.segmentSize, noncePrefix: inp.prefix, aad: inp.aad });
    const mine = cat([...s.push(inp.plaintext), ...s.finish()]);
    const o = createOpener(aead, { aad: inp.aad });
    assert.deepEqual(cat([...o.push(mine), ...o.finish()]), inp.plaintext);
    aead.dispose();
    if (v.fields.has('sha256')) {
      assert.equal(createHash('sha256').update(ref).digest('hex'), v.fields.get('sha256'));
      assert.match(v.fields.get('sealed')!, new RegExp(hex(ref.subarray(0, 49))));
      assert.equal(v.fields.get('last 48'), hex(ref.subarray(ref.length - 48)));
    } else {
      assert.equal(v.fields.get('plaintext'), hex(inp.plaintext));
      assert.equal(v.fields.get('aad'), inp.aad ? hex(inp.aad) : '(none)');
      assert.equal(hex(ref), v.fields.get('sealed'), 'model');
    }
    assert.equal(hex(mine), hex(ref), 'implementation');
    assert.deepEqual(refOpenStream(inp.algorithm, inp.key, ref, inp.aad), inp.plaintext);
  });
}

test("OpenSSL rebuilds the ChaCha20-Poly1305 and AES-256-GCM vectors from the document's rules", () => {
  let checked = 0;
  for (const v of docVectors()) {
    const alg = v.fields.get('algorithm')!;
    if (alg !== 'chacha20-poly1305' && alg !== 'aes-256-gcm') continue;
    if (!v.fields.has('plaintext') || v.fields.has('sha256')) continue;
    const key = unhex(v.fields.get('key')!);
    const prefix = unhex(v.fields.get('prefix')!);
    const S = Number(v.fields.get('segment'));
    const aadField = v.fields.get('aad')!;
    const plain = unhex(v.fields.get('plaintext')!);
    const ids: Record<string, number> = { 'aes-256-gcm': 1, 'chacha20-poly1305': 2 };
    const header = cat([Uint8Array.of(0x43, 0x54, 0x4b, 0x31, 1, ids[alg], S >>> 24, (S >>> 16) & 255, (S >>> 8) & 255, S & 255), prefix]);
    const A = cat([header, aadField === '(none)' ? new Uint8Array(0) : unhex(aadField)]);
    const k = Math.max(1, Math.ceil(plain.length / S));
    const parts: Uint8Array[] = [header];
    for (let i = 0; i < k; i++) {
      const nonce = cat([prefix, Uint8Array.of(i >>> 24, (i >>> 16) & 255, (i >>> 8) & 255, i & 255, i === k - 1 ? 1 : 0)]);
      const c = createCipheriv(alg === 'aes-256-gcm' ? 'aes-256-gcm' : 'chacha20-poly1305', key, nonce, { authTagLength: 16 } as never) as ReturnType<typeof createCipheriv> & { setAAD(b: Uint8Array): void; getAuthTag(): Buffer };
      c.setAAD(A);
      parts.push(c.update(plain.subarray(i * S, Math.min(plain.length, (i + 1) * S))), c.final(), c.getAuthTag());
    }
    assert.equal(hex(cat(parts)), v.fields.get('sealed'), `${alg}: ${v.title}`);
    checked++;
  }
  assert.equal(checked, 3);
});

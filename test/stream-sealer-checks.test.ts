// The incremental form (createSealer / createOpener, src/stream/sealer.ts) at its edges: every
// argument and option check with its error class and whole message; the state rules (finished,
// dead after an error) with their messages; an AEAD that fails inside push() or finish() (the
// error passes through, the plaintext the sealer held is wiped, the sealer is dead); the header
// handed out as a copy; what each push() and finish() returns at every split of the
// specification's vectors (docs/stream-format.md: the header once, whole segments only, the last
// whole segment held back); and the batch sizes (at most BATCH_BYTES of plaintext per sealed
// chunk, of sealed bytes per opened chunk), held against the format-1 reference model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { aesGcm, aesGcmSiv, chacha20Poly1305, sm4Gcm, xchacha20Poly1305, type Aead } from '../src/aead/index.js';
import { ALGORITHMS, createOpener, createSealer, headerLength } from '../src/stream/index.js';
import { BATCH_BYTES } from '../src/stream/sealer.js';
import { refSealStream } from '../src/ref/stream.js';
import { VECTOR_INPUTS } from './support/stream-vectors.js';
import { Rng, cat, hex, unhex } from './support/rng.js';

const FACTORIES: Record<string, (k: Uint8Array) => Aead> = {
  'aes-256-gcm': aesGcm,
  'chacha20-poly1305': chacha20Poly1305,
  'xchacha20-poly1305': xchacha20Poly1305,
  'aes-256-gcm-siv': aesGcmSiv,
  'sm4-gcm': sm4Gcm,
};
const T = 16;
const rng = new Rng(0x5ea1e5);

/** The `sealed` field of each test vector of docs/stream-format.md (those printed whole), by title. */
function docSealed(): Map<string, Uint8Array> {
  const doc = readFileSync(new URL('../docs/stream-format.md', import.meta.url), 'utf8');
  const out = new Map<string, Uint8Array>();
  for (const m of doc.matchAll(/### (.+)\n\n```text\n([\s\S]*?)```/g)) {
    const s = /^sealed {5}([0-9a-f]+(?:\n {11}[0-9a-f]+)*)$/m.exec(m[2]);
    if (s) out.set(m[1], unhex(s[1]));
  }
  return out;
}

const SEALED = docSealed();
/** The small vectors (sealed bytes printed whole in the document), each with its aead. */
const SMALL = VECTOR_INPUTS.filter((v) => SEALED.has(v.title)).map((v) => ({ ...v, sealed: SEALED.get(v.title)! }));

test('the document vectors this file uses are there (all but the 64 KiB one are printed whole)', () => {
  assert.equal(SMALL.length, VECTOR_INPUTS.length - 1);
  for (const v of SMALL) assert.equal(v.sealed.length, headerLength(ALGORITHMS.find((g) => g.name === v.algorithm)!) + v.plaintext.length + Math.max(1, Math.ceil(v.plaintext.length / v.segmentSize)) * T, v.title);
});

type Maker = (aead: Aead, options?: object) => { push(c: Uint8Array): Uint8Array[]; finish(): Uint8Array[] };
const MAKERS: [string, Maker][] = [
  ['createSealer', createSealer as Maker],
  ['createOpener', createOpener as Maker],
];

test('a value that is not a ctkit AEAD: TypeError with the whole message, from the sealer and the opener', () => {
  const notAead = { name: 'TypeError', message: 'aead must be a ctkit AEAD object (aesGcm(key), chacha20Poly1305(key), …)' };
  const seal = () => new Uint8Array(0);
  const fn = Object.assign(() => undefined, { algorithm: 'chacha20-poly1305', keyLength: 32, nonceLength: 12, tagLength: 16, seal, open: seal, dispose() {} });
  const values: [string, unknown][] = [
    ['null', null],
    ['undefined', undefined],
    ['a string', 'chacha20-poly1305'],
    ['a function carrying the properties', fn],
    ['an object without seal()', { algorithm: 'chacha20-poly1305', tagLength: 16 }],
    ['an object whose seal is not a function', { algorithm: 'chacha20-poly1305', tagLength: 16, seal: 1 }],
    ['an object without an algorithm name', { seal, tagLength: 16 }],
    ['an object whose algorithm is not a string', { seal, algorithm: 2, tagLength: 16 }],
    ['an empty object', {}],
  ];
  for (const [maker, make] of MAKERS) {
    for (const [what, v] of values) assert.throws(() => make(v as Aead), notAead, `${maker}: ${what}`);
  }
});

test('an AEAD with other tags, or without a format-1 id: RangeError with the whole message', () => {
  const key = rng.bytes(32);
  const short = aesGcm(key, { tagLength: 12 });
  const aes128 = aesGcm(key.subarray(0, 16));
  for (const [maker, make] of MAKERS) {
    assert.throws(() => make(short), { name: 'RangeError', message: 'sealed streams use 16-byte tags, this aes-256-gcm object has 12' }, maker);
    assert.throws(() => make(aes128), { name: 'RangeError', message: 'aes-128-gcm has no sealed-stream algorithm id (format 1 has aes-256-gcm, chacha20-poly1305, xchacha20-poly1305, aes-256-gcm-siv, sm4-gcm)' }, maker);
  }
  short.dispose();
  aes128.dispose();
});

test('options: not an object, an aad or noncePrefix that is not bytes, a noncePrefix of the wrong length, a chunk that is not bytes', () => {
  const a = chacha20Poly1305(rng.bytes(32));
  const x = xchacha20Poly1305(rng.bytes(32));
  const notObject = { name: 'TypeError', message: 'options must be an object' };
  for (const [maker, make] of MAKERS) {
    for (const v of [null, 5, 'aad', true]) assert.throws(() => make(a, v as unknown as object), notObject, `${maker}: ${String(v)}`);
    assert.throws(() => make(a, { aad: 'x' }), { name: 'CtkitTypeError', message: 'aad must be a Uint8Array, got string' }, maker);
    assert.throws(() => make(a, { aad: null }), { name: 'CtkitTypeError', message: 'aad must be a Uint8Array, got null' }, maker);
    assert.throws(() => make(a).push('x' as unknown as Uint8Array), { name: 'CtkitTypeError', message: 'chunk must be a Uint8Array, got string' }, maker);
    // an absent aad (undefined) is no aad
    assert.deepEqual(make(a, { aad: undefined }).push(new Uint8Array(0)).length, maker === 'createSealer' ? 1 : 0);
  }
  assert.throws(() => createSealer(a, { noncePrefix: [1, 2, 3, 4, 5, 6, 7] as unknown as Uint8Array }), { name: 'CtkitTypeError', message: 'noncePrefix must be a Uint8Array, got Array' });
  assert.throws(() => createSealer(a, { noncePrefix: new Uint8Array(6) }), { name: 'RangeError', message: 'noncePrefix must be 7 bytes for chacha20-poly1305, got 6' });
  assert.throws(() => createSealer(a, { noncePrefix: new Uint8Array(8) }), { name: 'RangeError', message: 'noncePrefix must be 7 bytes for chacha20-poly1305, got 8' });
  assert.throws(() => createSealer(x, { noncePrefix: new Uint8Array(7) }), { name: 'RangeError', message: 'noncePrefix must be 19 bytes for xchacha20-poly1305, got 7' });
  a.dispose();
  x.dispose();
});

test('state: push() or finish() after finish() is StateError "… the stream is finished" (sealer and opener)', () => {
  const v = SMALL[0];
  const a = FACTORIES[v.algorithm](v.key);
  const s = createSealer(a, { segmentSize: v.segmentSize, noncePrefix: v.prefix });
  assert.equal(hex(cat([...s.push(v.plaintext), ...s.finish()])), hex(v.sealed));
  const sealerDone = { name: 'StateError', message: 'sealer: the stream is finished' };
  assert.throws(() => s.push(new Uint8Array(1)), sealerDone);
  assert.throws(() => s.push(new Uint8Array(0)), sealerDone);
  assert.throws(() => s.finish(), sealerDone);
  const o = createOpener(a);
  assert.equal(hex(cat([...o.push(v.sealed), ...o.finish()])), hex(v.plaintext));
  const openerDone = { name: 'StateError', message: 'opener: the stream is finished' };
  assert.throws(() => o.push(new Uint8Array(0)), openerDone);
  assert.throws(() => o.finish(), openerDone);
  a.dispose();
});

/** An AEAD that shows the tests each plaintext view it is asked to seal (and a copy of it as it was then). */
function watched(inner: Aead, views: Uint8Array[], copies: Uint8Array[]): Aead {
  return {
    algorithm: inner.algorithm,
    keyLength: inner.keyLength,
    nonceLength: inner.nonceLength,
    tagLength: inner.tagLength,
    seal: (n, p, x, o) => {
      views.push(p);
      copies.push(p.slice());
      return inner.seal(n, p, x, o);
    },
    open: (n, c, x, o) => inner.open(n, c, x, o),
    dispose: () => inner.dispose(),
  };
}

test('sealer: an AEAD that fails in push() or finish(): the error passes through, the plaintext held is wiped, the sealer is dead', () => {
  const disposed = { name: 'StateError', message: 'chacha20-poly1305: used after dispose()' };
  const dead = { name: 'StateError', message: 'sealer: the stream is dead after an error' };
  const H = 17;
  // push(): 10 bytes held, then 10 more complete the segment (and one follows it): sealing it fails
  {
    const inner = chacha20Poly1305(rng.bytes(32));
    const [views, copies]: Uint8Array[][] = [[], []];
    const s = createSealer(watched(inner, views, copies), { segmentSize: 16 });
    assert.deepEqual(
      s.push(new Uint8Array(10).fill(0x11)).map((c) => c.length),
      [H],
    );
    inner.dispose();
    assert.throws(() => s.push(new Uint8Array(10).fill(0x22)), disposed);
    assert.equal(views.length, 1);
    assert.equal(hex(copies[0]), '11'.repeat(10) + '22'.repeat(6), 'the segment the AEAD was given');
    assert.equal(hex(views[0]), '00'.repeat(16), 'the held plaintext was not wiped');
    assert.throws(() => s.push(new Uint8Array(1)), dead);
    assert.throws(() => s.push(new Uint8Array(0)), dead);
    assert.throws(() => s.finish(), dead);
    assert.equal(views.length, 1);
  }
  // finish(): 20 bytes pushed (one segment out, 4 bytes held); sealing the final segment fails
  {
    const inner = chacha20Poly1305(rng.bytes(32));
    const [views, copies]: Uint8Array[][] = [[], []];
    const s = createSealer(watched(inner, views, copies), { segmentSize: 16 });
    assert.deepEqual(
      s.push(new Uint8Array(20).fill(0x33)).map((c) => c.length),
      [H, 16 + T],
    );
    inner.dispose();
    assert.throws(() => s.finish(), disposed);
    assert.equal(views.length, 2);
    assert.equal(hex(copies[1]), '33'.repeat(4));
    assert.equal(hex(views[1]), '00'.repeat(4), 'the held plaintext was not wiped');
    assert.throws(() => s.finish(), dead);
    assert.throws(() => s.push(new Uint8Array(1)), dead);
  }
  // finish() on a sealer that never pushed: the header is not handed out, the sealer is dead
  {
    const inner = chacha20Poly1305(rng.bytes(32));
    inner.dispose();
    const s = createSealer(inner);
    assert.throws(() => s.finish(), disposed);
    assert.throws(() => s.finish(), dead);
    assert.throws(() => s.push(new Uint8Array(0)), dead);
  }
});

test("opener: each byte of the header's magic, its version and its algorithm id, changed, is refused by name", () => {
  const v = SMALL[0]; // chacha20-poly1305: magic "CTK1", version 1, algorithm id, segment size
  const a = FACTORIES[v.algorithm](v.key);
  const magic = { name: 'StreamFormatError', message: 'not a ctkit sealed stream (bad magic)' };
  for (let i = 0; i < 4; i++) {
    for (const flip of [0x01, 0x80]) {
      const b = v.sealed.slice();
      b[i] ^= flip;
      assert.throws(() => createOpener(a).push(b), magic, `magic byte ${i} ^ ${flip}`);
      // and the bytes one at a time: the check runs once the fixed part is complete
      const o = createOpener(a);
      assert.throws(() => {
        for (let j = 0; j < b.length; j++) o.push(b.subarray(j, j + 1));
      }, magic);
    }
  }
  const version = v.sealed.slice();
  version[4] = 2;
  assert.throws(() => createOpener(a).push(version), { name: 'StreamFormatError', message: 'unsupported format version 2 (this ctkit reads version 1)' });
  const id = v.sealed.slice();
  id[5] = 0xee;
  assert.throws(() => createOpener(a).push(id), { name: 'StreamFormatError', message: 'unknown algorithm id 238 in the header' });
});

test('opener: the empty input, an input that ends inside its header, a failed segment: whole messages, then dead', () => {
  const v = SMALL[0]; // chacha20-poly1305, header 17 bytes, segments 16, 16, 7
  const a = FACTORIES[v.algorithm](v.key);
  const dead = { name: 'StateError', message: 'opener: the stream is dead after an error' };
  const empty = { name: 'StreamFormatError', message: 'empty input: not a ctkit sealed stream' };
  const cut = { name: 'StreamFormatError', message: 'truncated: the stream ends inside its header' };
  const deadAfter = (o: ReturnType<typeof createOpener>) => {
    assert.throws(() => o.push(v.sealed), dead);
    assert.throws(() => o.push(new Uint8Array(0)), dead);
    assert.throws(() => o.finish(), dead);
  };
  let o = createOpener(a);
  assert.throws(() => o.finish(), empty, 'nothing pushed');
  deadAfter(o);
  o = createOpener(a);
  assert.deepEqual(o.push(new Uint8Array(0)), []);
  assert.deepEqual(o.push(new Uint8Array(0)), []);
  assert.throws(() => o.finish(), empty, 'empty chunks pushed');
  deadAfter(o);
  for (const n of [1, 9, 10, 11, 16]) {
    o = createOpener(a);
    assert.deepEqual(o.push(v.sealed.subarray(0, n)), []);
    assert.throws(() => o.finish(), cut, `${n} header bytes`);
    deadAfter(o);
  }
  // header bytes one at a time, then an empty chunk
  o = createOpener(a);
  for (let i = 0; i < 16; i++) assert.deepEqual(o.push(v.sealed.subarray(i, i + 1)), []);
  assert.deepEqual(o.push(new Uint8Array(0)), []);
  assert.throws(() => o.finish(), cut, '16 header bytes, one at a time');
  deadAfter(o);
  // a damaged last segment: the first two come out, finish() fails, the opener is dead
  const bad = v.sealed.slice();
  bad[bad.length - 1] ^= 1;
  o = createOpener(a);
  assert.equal(hex(cat(o.push(bad))), hex(v.plaintext.subarray(0, 32)));
  assert.throws(() => o.finish(), { name: 'SegmentAuthenticationError', message: 'segment 2 failed authentication: the stream is damaged, truncated, reordered, spliced or extended, or the key is wrong' });
  deadAfter(o);
  // a damaged first segment: push() fails, nothing comes out, the opener is dead
  const bad0 = v.sealed.slice();
  bad0[17] ^= 1;
  o = createOpener(a);
  assert.throws(() => o.push(bad0), { name: 'SegmentAuthenticationError', message: 'segment 0 failed authentication: the stream is damaged, truncated, reordered, spliced or extended, or the key is wrong' });
  deadAfter(o);
  a.dispose();
});

test('the header goes out once, as a copy: changing what push() or finish() returned leaves sealer.header alone', () => {
  const v = SMALL.find((s) => s.plaintext.length === 0)!; // xchacha20-poly1305, the empty stream
  const a = FACTORIES[v.algorithm](v.key);
  const H = 10 + 19;
  const header = hex(v.sealed.subarray(0, H));
  // finish() without a push: [header, final segment]
  let s = createSealer(a, { segmentSize: v.segmentSize, noncePrefix: v.prefix });
  assert.equal(hex(s.header), header);
  let out = s.finish();
  assert.deepEqual(
    out.map((c) => c.length),
    [H, T],
  );
  assert.equal(hex(cat(out)), hex(v.sealed));
  out[0].fill(0);
  assert.equal(hex(s.header), header, 'finish() returned the header itself');
  // push() first: the header there, not again in finish()
  s = createSealer(a, { segmentSize: v.segmentSize, noncePrefix: v.prefix });
  out = s.push(new Uint8Array(0));
  assert.deepEqual(
    out.map((c) => c.length),
    [H],
  );
  out[0].fill(0);
  assert.equal(hex(s.header), header, 'push() returned the header itself');
  assert.deepEqual(s.push(new Uint8Array(0)), []);
  out = s.finish();
  assert.deepEqual(
    out.map((c) => c.length),
    [T],
  );
  assert.equal(hex(out[0]), hex(v.sealed.subarray(H)));
  a.dispose();
});

/** Cuts `data` at the given points (ascending). */
const pieces = (data: Uint8Array, cuts: number[]): Uint8Array[] => [0, ...cuts].map((c, i) => data.slice(c, i < cuts.length ? cuts[i] : data.length));

/** All ways to cut n bytes into 2 and into 3 pieces (pieces may be empty). */
function splits(n: number): number[][] {
  const out: number[][] = [[]];
  for (let i = 0; i <= n; i++) {
    out.push([i]);
    for (let j = i; j <= n; j++) out.push([i, j]);
  }
  return out;
}

test('at every cut into 2 and 3 pieces of each small document vector, push() returns the header once, then whole segments, holding the last one back', () => {
  for (const v of SMALL) {
    const a = FACTORIES[v.algorithm](v.key);
    const S = v.segmentSize;
    const U = S + T;
    const H = headerLength(ALGORITHMS.find((g) => g.name === v.algorithm)!);
    const L = v.plaintext.length;
    const finalLength = L - S * (Math.max(1, Math.ceil(L / S)) - 1);
    for (const cuts of splits(L)) {
      const what = `${v.title}: plaintext cut at ${cuts}`;
      const s = createSealer(a, { segmentSize: S, noncePrefix: v.prefix, aad: v.aad });
      const got: Uint8Array[] = [];
      let pushed = 0;
      for (const [i, p] of pieces(v.plaintext, cuts).entries()) {
        const out = s.push(p);
        pushed += p.length;
        if (i === 0) assert.equal(hex(out.shift() ?? new Uint8Array(0)), hex(v.sealed.subarray(0, H)), `${what}: the header first`);
        assert.ok(
          out.every((c) => c.length > 0 && c.length % U === 0),
          `${what}: push ${i} returned ${out.map((c) => c.length)}`,
        );
        got.push(...out);
        // every whole segment but the last one pushed is out (a full one may be the final one)
        assert.equal(cat(got).length, U * Math.max(0, Math.ceil(pushed / S) - 1), `${what}: after push ${i}`);
      }
      const last = s.finish();
      assert.deepEqual(
        last.map((c) => c.length),
        [finalLength + T],
        what,
      );
      assert.equal(hex(cat([v.sealed.subarray(0, H), ...got, ...last])), hex(v.sealed), what);
    }
    // opening: released plaintext is every whole segment but the last piece received
    for (const cuts of splits(v.sealed.length)) {
      const what = `${v.title}: sealed stream cut at ${cuts}`;
      const o = createOpener(a, { aad: v.aad });
      const got: Uint8Array[] = [];
      let pushed = 0;
      for (const [i, p] of pieces(v.sealed, cuts).entries()) {
        const out = o.push(p);
        pushed += p.length;
        assert.ok(
          out.every((c) => c.length > 0 && c.length % S === 0),
          `${what}: push ${i} returned ${out.map((c) => c.length)}`,
        );
        got.push(...out);
        assert.equal(cat(got).length, S * Math.max(0, Math.ceil((pushed - H) / U) - 1), `${what}: after push ${i}`);
      }
      const last = o.finish();
      assert.deepEqual(
        last.map((c) => c.length),
        [finalLength],
        what,
      );
      assert.equal(hex(cat([...got, ...last])), hex(v.plaintext), what);
    }
    a.dispose();
  }
});

test('lengths 0, 1, S−1, S, S+1, 2S, 2S+1 in one push (S = 16): what push() and finish() return, against the model', () => {
  const key = rng.bytes(32);
  const prefix = rng.bytes(7);
  const a = chacha20Poly1305(key);
  const S = 16;
  const U = S + T;
  const H = 17;
  for (const [L, pushed, final] of [
    [0, [H], [T]],
    [1, [H], [1 + T]],
    [S - 1, [H], [S - 1 + T]],
    [S, [H], [U]],
    [S + 1, [H, U], [1 + T]],
    [2 * S, [H, U], [U]],
    [2 * S + 1, [H, 2 * U], [1 + T]],
  ] as const) {
    const plain = rng.bytes(L);
    const model = refSealStream({ algorithm: 'chacha20-poly1305', key, prefix, segmentSize: S }, plain);
    const s = createSealer(a, { segmentSize: S, noncePrefix: prefix });
    const out = s.push(plain);
    const fin = s.finish();
    assert.deepEqual(
      out.map((c) => c.length),
      pushed,
      `L=${L}: push`,
    );
    assert.deepEqual(
      fin.map((c) => c.length),
      final,
      `L=${L}: finish`,
    );
    assert.equal(hex(cat([...out, ...fin])), hex(model), `L=${L}`);
    const o = createOpener(a);
    const opened = o.push(model);
    assert.deepEqual(
      opened.map((c) => c.length),
      pushed.slice(1).map((n) => (n / U) * S),
      `L=${L}: opener push`,
    );
    assert.deepEqual(
      o.finish().map((c) => c.length),
      final.map((n) => n - T),
      `L=${L}: opener finish`,
    );
  }
  a.dispose();
});

test('batches: sealed chunks hold at most BATCH_BYTES (4 MiB) of plaintext, opened chunks come from at most 4 MiB of sealed bytes (S = 65536)', () => {
  assert.equal(BATCH_BYTES, 4 << 20);
  const S = 65536;
  const U = S + T;
  const H = 17;
  const key = rng.bytes(32);
  const prefix = rng.bytes(7);
  const plain = rng.bytes(65 * S + 1);
  const model = refSealStream({ algorithm: 'chacha20-poly1305', key, prefix, segmentSize: S }, plain);
  const a = chacha20Poly1305(key);
  // sealing: 64 segments are 4 MiB of plaintext; the 65th whole one is not held back (a byte follows)
  const s = createSealer(a, { noncePrefix: prefix });
  const out = s.push(plain);
  assert.deepEqual(
    out.map((c) => c.length),
    [H, 64 * U, U],
  );
  const fin = s.finish();
  assert.deepEqual(
    fin.map((c) => c.length),
    [1 + T],
  );
  assert.ok(hex(cat([...out, ...fin])) === hex(model), 'sealed bytes differ from the model');
  // opening: 63 sealed segments are 4 129 776 bytes, 64 would be 4 195 328 > 4 MiB
  const o = createOpener(a);
  const opened = o.push(model);
  assert.deepEqual(
    opened.map((c) => c.length),
    [63 * S, 2 * S],
  );
  const last = o.finish();
  assert.deepEqual(
    last.map((c) => c.length),
    [1],
  );
  assert.ok(hex(cat([...opened, ...last])) === hex(plain), 'opened bytes differ from the plaintext');
  a.dispose();
});

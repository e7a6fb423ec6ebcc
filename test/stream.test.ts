// ctkit/stream held against the format-1 reference model (src/ref/stream.ts) for every
// algorithm, segment-boundary lengths and random chunkings; every kind of stream damage; the web
// streams with Node's Readable.fromWeb / pipeline; backpressure; yielding, abort and progress;
// files sealed by ctkit 0.1's CLI; and negative controls that the differential suite must catch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { readFileSync } from 'node:fs';
import { aesGcm, aesGcmSiv, chacha20Poly1305, sm4Gcm, xchacha20Poly1305, type Aead } from '../src/aead/index.js';
import { AuthenticationError, StateError } from '../src/errors.js';
import { ALGORITHMS, StreamFormatError, createOpenStream, createOpener, createSealStream, createSealer, headerLength, openStreamAsync, sealStreamAsync } from '../src/stream/index.js';
import { loadAeadFactory } from '../src/stream/factories.js';
import { encodeHeader, parseHeaderStart, prefixLength, segmentNonce } from '../src/stream/format.js';
import { refOpenStream, refSealStream } from '../src/ref/stream.js';
import { Rng, hex } from './support/rng.js';

const FACTORIES: Record<string, (k: Uint8Array) => Aead> = {
  'aes-256-gcm': aesGcm,
  'chacha20-poly1305': chacha20Poly1305,
  'xchacha20-poly1305': xchacha20Poly1305,
  'aes-256-gcm-siv': aesGcmSiv,
  'sm4-gcm': sm4Gcm,
};

const rng = new Rng(0x57e4);
const cat = (parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};

/** Pushes `data` in random pieces (0 … 3·seg bytes, sometimes single bytes) through push/finish. */
function pushAll(s: { push(c: Uint8Array): Uint8Array[]; finish(): Uint8Array[] }, data: Uint8Array, seg: number, r: Rng): Uint8Array {
  const out: Uint8Array[] = [];
  let off = 0;
  while (off < data.length) {
    const n = r.int(4) === 0 ? r.int(2) : r.int(3 * seg + 2);
    const chunk = data.slice(off, off + n); // a copy the caller reuses: overwritten below
    out.push(...s.push(chunk));
    chunk.fill(0xee); // the sealer must not keep views of the caller's buffer
    off += n;
  }
  out.push(...s.finish());
  return cat(out);
}

function lengths(S: number): number[] {
  return [0, 1, S - 1, S, S + 1, 2 * S - 1, 2 * S, 2 * S + 1, 3 * S + 7];
}

interface Case {
  alg: string;
  key: Uint8Array;
  prefix: Uint8Array;
  S: number;
  aad?: Uint8Array;
  plain: Uint8Array;
}

function cases(alg: string, S: number): Case[] {
  const info = ALGORITHMS.find((a) => a.name === alg)!;
  return lengths(S).flatMap((n, i) => {
    const base = { alg, key: rng.bytes(info.keyLength), prefix: rng.bytes(info.nonceLength - 5), S, plain: rng.bytes(n) };
    return i % 2 ? [base, { ...base, aad: rng.bytes(1 + rng.int(40)) }] : [base];
  });
}

/** The differential suite: the implementation (on `wrap(aead)`) equals the reference model. */
function differential(alg: string, S: number, wrap: (a: Aead) => Aead = (a) => a): string[] {
  const bad: string[] = [];
  for (const c of cases(alg, S)) {
    const aead = wrap(FACTORIES[alg](c.key));
    const what = `${alg} S=${S} n=${c.plain.length}${c.aad ? ' aad' : ''}`;
    try {
      const expected = refSealStream({ algorithm: alg, key: c.key, prefix: c.prefix, segmentSize: S, aad: c.aad }, c.plain);
      const sealed = pushAll(createSealer(aead, { segmentSize: S, noncePrefix: c.prefix, aad: c.aad }), c.plain, S, rng);
      if (hex(sealed) !== hex(expected)) bad.push(`${what}: sealed bytes differ from the model`);
      const opened = pushAll(createOpener(aead, { aad: c.aad }), expected, S + 16, rng);
      if (hex(opened) !== hex(c.plain)) bad.push(`${what}: opened bytes differ`);
      const back = refOpenStream(alg, c.key, sealed, c.aad);
      if (!back || hex(back) !== hex(c.plain)) bad.push(`${what}: the model does not open the implementation's stream`);
    } catch (e) {
      bad.push(`${what}: ${(e as Error).message}`);
    } finally {
      aead.dispose();
    }
  }
  return bad;
}

for (const { name } of ALGORITHMS) {
  test(`${name}: push/finish equals the reference model (segment sizes 1, 16, 64, 65536; random chunkings; stream AAD)`, () => {
    for (const S of [1, 16, 64]) assert.deepEqual(differential(name, S), []);
  });
}

test('default segment size 65536 against the model (chacha20-poly1305, aes-256-gcm)', () => {
  for (const alg of ['chacha20-poly1305', 'aes-256-gcm']) assert.deepEqual(differential(alg, 65536).slice(0, 3), []);
});

// ---- negative controls: AEAD wrappers that break one rule of the format -----------------------
const mutate = (a: Aead, f: { nonce?: (n: Uint8Array) => Uint8Array; aad?: (x: Uint8Array) => Uint8Array }): Aead => ({
  algorithm: a.algorithm,
  keyLength: a.keyLength,
  nonceLength: a.nonceLength,
  tagLength: a.tagLength,
  seal: (n, p, x, o) => a.seal(f.nonce ? f.nonce(n) : n, p, f.aad && x ? f.aad(x) : x, o),
  open: (n, c, x, o) => a.open(f.nonce ? f.nonce(n) : n, c, f.aad && x ? f.aad(x) : x, o),
  dispose: () => a.dispose(),
});

test('negative controls: the differential suite catches a broken final flag, counter, header binding or AAD', () => {
  const controls: [string, (a: Aead) => Aead][] = [
    [
      'final flag never set',
      (a) =>
        mutate(a, {
          nonce: (n) => {
            const m = n.slice();
            m[m.length - 1] = 0;
            return m;
          },
        }),
    ],
    [
      'counter stuck at 0',
      (a) =>
        mutate(a, {
          nonce: (n) => {
            const m = n.slice();
            m.fill(0, m.length - 5, m.length - 1);
            return m;
          },
        }),
    ],
    [
      'counter little-endian',
      (a) =>
        mutate(a, {
          nonce: (n) => {
            const m = n.slice();
            const L = m.length;
            [m[L - 5], m[L - 4], m[L - 3], m[L - 2]] = [m[L - 2], m[L - 3], m[L - 4], m[L - 5]];
            return m;
          },
        }),
    ],
    ['header not in the AAD', (a) => mutate(a, { aad: (x) => x.subarray(headerLength(ALGORITHMS.find((g) => g.name === a.algorithm)!)) })],
    ['stream AAD dropped', (a) => mutate(a, { aad: (x) => x.subarray(0, headerLength(ALGORITHMS.find((g) => g.name === a.algorithm)!)) })],
  ];
  for (const [what, wrap] of controls) {
    const bad = differential('chacha20-poly1305', 16, wrap);
    assert.ok(bad.length > 0, `the suite missed: ${what}`);
  }
});

// ---- damage -----------------------------------------------------------------------------------
function openAll(aead: Aead, sealed: Uint8Array, aad?: Uint8Array): { out: Uint8Array[]; error?: unknown } {
  const o = createOpener(aead, { aad });
  const out: Uint8Array[] = [];
  try {
    out.push(...o.push(sealed));
    out.push(...o.finish());
    return { out };
  } catch (error) {
    return { out, error };
  }
}

test('every kind of damage is AuthenticationError, and only authenticated segments come out', () => {
  const S = 64;
  const key = rng.bytes(32);
  const aead = chacha20Poly1305(key);
  const plain = rng.bytes(3 * S + 10); // segments S, S, S, 10
  const prefix = rng.bytes(7);
  const sealed = pushAll(createSealer(aead, { segmentSize: S, noncePrefix: prefix }), plain, S, rng);
  const H = 17;
  const U = S + 16;
  assert.equal(sealed.length, H + 3 * U + 26);
  const seg = (i: number) => sealed.subarray(H + i * U, Math.min(sealed.length, H + (i + 1) * U));
  const hdr = sealed.subarray(0, H);
  const other = pushAll(createSealer(aead, { segmentSize: S }), plain, S, rng);
  const oseg = (i: number) => other.subarray(H + i * U, Math.min(other.length, H + (i + 1) * U));
  const damaged: [string, Uint8Array][] = [];
  for (let i = 0; i < sealed.length; i += 7) {
    const b = sealed.slice();
    b[i] ^= 0x20;
    damaged.push([`bit flipped at ${i}`, b]);
  }
  for (let cut = 0; cut < sealed.length; cut += 5) damaged.push([`truncated to ${cut}`, sealed.subarray(0, cut)]);
  for (const cut of [H + U, H + 2 * U, H + 3 * U]) damaged.push([`truncated at segment boundary ${cut}`, sealed.subarray(0, cut)]);
  damaged.push(['one byte appended', cat([sealed, Uint8Array.of(0)])]);
  damaged.push(['a whole segment appended', cat([sealed, seg(1)])]);
  damaged.push(['segments 0 and 1 swapped', cat([hdr, seg(1), seg(0), seg(2), seg(3)])]);
  damaged.push(['segment 1 duplicated', cat([hdr, seg(0), seg(1), seg(1), seg(2), seg(3)])]);
  damaged.push(['segment 2 removed', cat([hdr, seg(0), seg(1), seg(3)])]);
  damaged.push(['segment 1 spliced from another stream', cat([hdr, seg(0), oseg(1), seg(2), seg(3)])]);
  damaged.push(["another stream's header", cat([other.subarray(0, H), seg(0), seg(1), seg(2), seg(3)])]);
  for (const [what, bytes] of damaged) {
    assert.equal(refOpenStream('chacha20-poly1305', key, bytes), undefined, `model accepts: ${what}`);
    const { out, error } = openAll(aead, bytes);
    assert.ok(error instanceof AuthenticationError, `${what}: ${String(error)}`);
    // what came out is a prefix of the plaintext, made of whole authenticated segments
    const got = cat(out);
    assert.equal(got.length % S, 0, `${what}: a partial segment was released`);
    assert.deepEqual(got, plain.subarray(0, got.length), `${what}: released bytes are not the plaintext`);
  }
  // the stream AAD is bound: sealing with one, opening without (or with another) fails
  const withAad = pushAll(createSealer(aead, { segmentSize: S, aad: Uint8Array.of(1, 2, 3) }), plain, S, rng);
  assert.ok(openAll(aead, withAad).error instanceof AuthenticationError);
  assert.ok(openAll(aead, withAad, Uint8Array.of(1, 2, 4)).error instanceof AuthenticationError);
  assert.deepEqual(cat(openAll(aead, withAad, Uint8Array.of(1, 2, 3)).out), plain);
  // another algorithm's key, the empty input, a dead opener
  const aes = aesGcm(key);
  const e1 = openAll(aes, sealed).error as Error;
  assert.ok(e1 instanceof StreamFormatError && /sealed with chacha20-poly1305/.test(e1.message), String(e1));
  assert.ok(openAll(aead, new Uint8Array(0)).error instanceof StreamFormatError);
  const o = createOpener(aead);
  assert.throws(() => o.push(damaged[3][1]));
  assert.throws(() => o.push(sealed), StateError);
  const s = createSealer(aead);
  s.finish();
  assert.throws(() => s.push(plain), StateError);
  aes.dispose();
  aead.dispose();
});

test('argument checks: typed errors for a non-AEAD, short tags, bad options', () => {
  const key = rng.bytes(32);
  assert.throws(() => createSealer({} as Aead), TypeError);
  const short = aesGcm(key, { tagLength: 12 });
  assert.throws(() => createSealer(short), RangeError);
  short.dispose();
  const aes128 = aesGcm(rng.bytes(16));
  assert.throws(() => createSealer(aes128), /no sealed-stream algorithm id/);
  aes128.dispose();
  const a = chacha20Poly1305(key);
  assert.throws(() => createSealer(a, { segmentSize: 0 }), RangeError);
  assert.throws(() => createSealer(a, { segmentSize: 2 ** 24 + 1 }), RangeError);
  assert.throws(() => createSealer(a, { noncePrefix: new Uint8Array(6) }), RangeError);
  assert.throws(() => createSealer(a, { aad: 'x' as unknown as Uint8Array }), TypeError);
  assert.throws(() => createSealer(a).push('x' as unknown as Uint8Array), TypeError);
  assert.throws(() => createSealStream(a, { yieldEvery: -1 }), RangeError);
  a.dispose();
});

// ---- web streams ------------------------------------------------------------------------------
function sourceOf(data: Uint8Array, r: Rng, max = 200_000): ReadableStream<Uint8Array> {
  let off = 0;
  return new ReadableStream<Uint8Array>({
    pull(ctl) {
      if (off >= data.length) return ctl.close();
      const n = 1 + r.int(max);
      ctl.enqueue(data.slice(off, off + n));
      off += n;
    },
  });
}

async function collect(rs: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const c of rs as unknown as AsyncIterable<Uint8Array>) parts.push(c);
  return cat(parts);
}

test('TransformStreams produce the same bytes as push/finish and the model; Readable.fromWeb + pipeline', async () => {
  const key = rng.bytes(32);
  const prefix = rng.bytes(7);
  const aead = aesGcm(key);
  const plain = rng.bytes(3 * 65536 + 999);
  const expected = refSealStream({ algorithm: 'aes-256-gcm', key, prefix, segmentSize: 65536 }, plain);
  const sealed = await collect(sourceOf(plain, rng).pipeThrough(createSealStream(aead, { noncePrefix: prefix })));
  assert.equal(hex(sealed), hex(expected));
  assert.deepEqual(await collect(sourceOf(sealed, rng).pipeThrough(createOpenStream(aead))), plain);
  // Node streams: Readable.fromWeb of the open stream, through pipeline into a Writable
  const parts: Buffer[] = [];
  await pipeline(
    Readable.fromWeb(sourceOf(sealed, rng).pipeThrough(createOpenStream(aead)) as import('node:stream/web').ReadableStream),
    new Writable({
      write(c, _e, cb) {
        parts.push(c);
        cb();
      },
    }),
  );
  assert.deepEqual(new Uint8Array(Buffer.concat(parts)), plain);
  // a damaged stream errors the pipeline with AuthenticationError
  const bad = sealed.slice();
  bad[bad.length - 3] ^= 1;
  await assert.rejects(
    pipeline(
      Readable.fromWeb(sourceOf(bad, rng).pipeThrough(createOpenStream(aead)) as import('node:stream/web').ReadableStream),
      new Writable({
        write(_c, _e, cb) {
          cb();
        },
      }),
    ),
    AuthenticationError,
  );
  aead.dispose();
});

test('backpressure: a slow consumer keeps the producer at most a few batches ahead (64 MiB stream)', async () => {
  const aead = chacha20Poly1305(rng.bytes(32));
  const total = 64 << 20;
  const chunk = new Uint8Array(1 << 20);
  let produced = 0;
  let consumed = 0;
  let maxLead = 0;
  const src = new ReadableStream<Uint8Array>(
    {
      pull(ctl) {
        if (produced >= total) return ctl.close();
        produced += chunk.length;
        ctl.enqueue(chunk.slice());
      },
    },
    { highWaterMark: 1 },
  );
  const sink = new WritableStream<Uint8Array>(
    {
      async write(c) {
        consumed += c.length;
        maxLead = Math.max(maxLead, produced - consumed);
        if (consumed % (8 << 20) < c.length) await new Promise((r) => setTimeout(r, 5));
      },
    },
    { highWaterMark: 1 },
  );
  await src.pipeThrough(createSealStream(aead)).pipeThrough(createOpenStream(aead)).pipeTo(sink);
  assert.equal(consumed, total);
  assert.ok(maxLead < 24 << 20, `producer ran ${maxLead} bytes ahead of the consumer`);
  aead.dispose();
});

test('async one-shot calls: yield to the event loop (and not with yieldEvery 0), progress, abort', async () => {
  const aead = chacha20Poly1305(rng.bytes(32));
  const data = rng.bytes(24 << 20);
  const ticksDuring = async (f: () => Promise<unknown>) => {
    let ticks = 0;
    let on = true;
    const tick = () => {
      if (on) {
        ticks++;
        setTimeout(tick, 0);
      }
    };
    setTimeout(tick, 0);
    await f();
    on = false;
    return ticks;
  };
  let sealed!: Uint8Array;
  const progress: number[] = [];
  const yielding = await ticksDuring(async () => {
    sealed = await sealStreamAsync(aead, data, { yieldEvery: 1, onProgress: (n) => progress.push(n) });
  });
  assert.ok(yielding > 0, 'no timer ran while sealing 24 MiB with yieldEvery 1');
  assert.ok(progress.length > 1 && progress.every((v, i) => i === 0 || v > progress[i - 1]));
  assert.equal(progress[progress.length - 1], data.length);
  const blocking = await ticksDuring(() => sealStreamAsync(aead, data, { yieldEvery: 0 }));
  assert.equal(blocking, 0, 'negative control: without yielding no timer can run');
  assert.deepEqual(await openStreamAsync(aead, sealed), data);
  const ac = new AbortController();
  await assert.rejects(openStreamAsync(aead, sealed, { signal: ac.signal, yieldEvery: 1, onProgress: () => ac.abort(new Error('stop here')) }), /stop here/);
  const bad = sealed.slice();
  bad[100] ^= 1;
  await assert.rejects(openStreamAsync(aead, bad), AuthenticationError);
  aead.dispose();
});

test('files sealed by ctkit 0.1 (format 1, before ctkit/stream) open with the library', () => {
  const dir = new URL('./fixtures/stream-format1/', import.meta.url);
  const plain = new Uint8Array(150000).map((_, i) => (31 * i + 7) & 255);
  for (const [alg, file] of [
    ['aes-256-gcm', 'aes'],
    ['chacha20-poly1305', 'chacha'],
    ['xchacha20-poly1305', 'xchacha'],
  ]) {
    const jwk = JSON.parse(readFileSync(new URL(`${file}.key`, dir), 'utf8'));
    assert.equal(jwk.alg, alg);
    const key = new Uint8Array(Buffer.from(jwk.k, 'base64url'));
    const sealed = new Uint8Array(readFileSync(new URL(`plain.${file}.ctk`, dir)));
    const aead = FACTORIES[alg](key);
    assert.deepEqual(cat(openAll(aead, sealed).out), plain, alg);
    assert.deepEqual(refOpenStream(alg, key, sealed), plain, `${alg}: the model`);
    aead.dispose();
  }
});

test('loadAeadFactory: each format-1 algorithm by name, the same AEAD as ctkit/aead; other names undefined', async () => {
  const direct: Record<string, (key: Uint8Array) => Aead> = {
    'aes-256-gcm': aesGcm,
    'chacha20-poly1305': chacha20Poly1305,
    'xchacha20-poly1305': xchacha20Poly1305,
    'aes-256-gcm-siv': aesGcmSiv,
    'sm4-gcm': sm4Gcm,
  };
  assert.deepEqual(Object.keys(direct).sort(), ALGORITHMS.map((a) => a.name).sort());
  for (const alg of ALGORITHMS) {
    const f = await loadAeadFactory(alg.name);
    assert.ok(f, `${alg.name}: no factory`);
    const key = rng.bytes(alg.keyLength);
    const [a, b] = [f(key), direct[alg.name](key)];
    assert.deepEqual([a.algorithm, a.keyLength, a.nonceLength, a.tagLength], [alg.name, alg.keyLength, alg.nonceLength, alg.tagLength]);
    const nonce = rng.bytes(alg.nonceLength);
    const msg = rng.bytes(100);
    assert.equal(hex(a.seal(nonce, msg, msg.subarray(0, 7))), hex(b.seal(nonce, msg, msg.subarray(0, 7))), alg.name);
    a.dispose();
    b.dispose();
  }
  for (const name of ['rot13', 'aesGcm', 'chacha20Poly1305', 'AES-256-GCM', '', 'constructor', 'toString']) assert.equal(await loadAeadFactory(name), undefined, name);
});

test('header and counter errors: each message whole, at the boundaries', () => {
  const alg = ALGORITHMS[1];
  const good = encodeHeader(alg, new Uint8Array(prefixLength(alg)), 65536);
  const with_ = (i: number, v: number) => {
    const h = good.slice();
    h[i] = v;
    return h;
  };
  const fails = (b: Uint8Array, message: string) =>
    assert.throws(
      () => parseHeaderStart(b),
      (e: Error) => e instanceof StreamFormatError && e.message === message,
      message,
    );
  fails(with_(4, 2), 'unsupported format version 2 (this ctkit reads version 1)');
  fails(with_(4, 0), 'unsupported format version 0 (this ctkit reads version 1)');
  fails(with_(5, 0), 'unknown algorithm id 0 in the header');
  fails(with_(5, 6), 'unknown algorithm id 6 in the header');
  const sized = (n: number) => {
    const h = good.slice();
    new DataView(h.buffer).setUint32(6, n);
    return h;
  };
  fails(sized(0), 'segment size 0 in the header is out of range');
  fails(sized((1 << 24) + 1), 'segment size 16777217 in the header is out of range');
  fails(sized(0xffffffff), 'segment size 4294967295 in the header is out of range');
  assert.equal(parseHeaderStart(sized(1)).segmentSize, 1);
  assert.equal(parseHeaderStart(sized(1 << 24)).segmentSize, 1 << 24);
  assert.throws(
    () => encodeHeader(alg, new Uint8Array(6)),
    (e: Error) => e instanceof RangeError && e.message === 'nonce prefix must be 7 bytes, got 6',
  );
  for (const i of [-1, 2 ** 32, 0.5])
    assert.throws(
      () => segmentNonce(alg, new Uint8Array(7), i, false),
      (e: Error) => e instanceof RangeError && e.message === 'segment counter exhausted (more than 2^32 segments)',
    );
  assert.equal(hex(segmentNonce(alg, new Uint8Array(7).fill(0xaa), 2 ** 32 - 1, true)), 'aaaaaaaaaaaaaaffffffff01');
});

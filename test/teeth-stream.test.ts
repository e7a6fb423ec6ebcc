// The sealed-stream header (issue 18): every segment's associated data is the header, so a
// header that was changed in any bit must not open — also when the change leaves the framing
// intact, which is the case for a one-segment stream whose segment-size field was changed (the
// single final segment is as long as it was whatever the size says). Every bit of every header
// byte is flipped in one-segment streams (empty, short, exactly one segment) and multi-segment
// streams of every algorithm, through the library (push/finish); and every header byte of a
// one-segment file through the CLI (`ctkit open`, chacha20-poly1305: the command shares the
// library's format code, so one algorithm shows the file path; cli.test.ts does a multi-segment file). Opening must fail with an
// AuthenticationError (a StreamFormatError is one) and release no plaintext.
// Kills: segmentAad() returning the stream AAD without the header.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { aesGcm, aesGcmSiv, chacha20Poly1305, sm4Gcm, xchacha20Poly1305, type Aead } from '../src/aead/index.js';
import { AuthenticationError } from '../src/errors.js';
import { ALGORITHMS, createOpener, createSealer, headerLength } from '../src/stream/index.js';
import { refOpenStream } from '../src/ref/stream.js';
import { ctkitSync } from './support/cli.js';
import { Rng, hex } from './support/rng.js';

const FACTORIES: Record<string, (k: Uint8Array) => Aead> = {
  'aes-256-gcm': aesGcm,
  'chacha20-poly1305': chacha20Poly1305,
  'xchacha20-poly1305': xchacha20Poly1305,
  'aes-256-gcm-siv': aesGcmSiv,
  'sm4-gcm': sm4Gcm,
};
const rng = new Rng(0x4eade2);

const cat = (parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};

function seal(aead: Aead, plain: Uint8Array, segmentSize: number, aad?: Uint8Array): Uint8Array {
  const s = createSealer(aead, { segmentSize, aad });
  return cat([...s.push(plain), ...s.finish()]);
}

/** Opens `sealed` in one push; returns what came out and the error, if any. */
function open(aead: Aead, sealed: Uint8Array, aad?: Uint8Array): { out: Uint8Array; error?: unknown } {
  const o = createOpener(aead, { aad });
  const parts: Uint8Array[] = [];
  try {
    parts.push(...o.push(sealed));
    parts.push(...o.finish());
    return { out: cat(parts) };
  } catch (error) {
    return { out: cat(parts), error };
  }
}

for (const alg of ALGORITHMS) {
  test(`${alg.name}: every bit of every header byte flipped, one-segment and multi-segment streams: no stream opens, no plaintext`, () => {
    const key = rng.bytes(alg.keyLength);
    const aead = FACTORIES[alg.name](key);
    const H = headerLength(alg);
    const streams: [string, Uint8Array, number, Uint8Array | undefined][] = [
      ['empty, one segment', new Uint8Array(0), 65536, undefined],
      ['1000 bytes, one segment of 65536', rng.bytes(1000), 65536, undefined],
      ['64 bytes, one full segment of 64', rng.bytes(64), 64, undefined],
      ['100 bytes, one segment of 1000, stream AAD', rng.bytes(100), 1000, rng.bytes(5)],
      ['3 segments of 64 and 10 bytes', rng.bytes(3 * 64 + 10), 64, undefined],
      ['2 segments of 200, stream AAD', rng.bytes(400), 200, rng.bytes(3)],
    ];
    for (const [what, plain, S, aad] of streams) {
      const sealed = seal(aead, plain, S, aad);
      // the untampered stream opens
      assert.equal(hex(open(aead, sealed, aad).out), hex(plain), `${what}: untampered`);
      for (let bit = 0; bit < 8 * H; bit++) {
        const t = sealed.slice();
        t[bit >> 3] ^= 1 << (bit & 7);
        const r = open(aead, t, aad);
        const where = `${alg.name} ${what}: header byte ${bit >> 3} bit ${bit & 7}`;
        assert.ok(r.error instanceof AuthenticationError, `${where}: opened (${String(r.error)})`);
        assert.equal(r.out.length, 0, `${where}: ${r.out.length} bytes released`);
      }
      // and the stream is the format's (the model, written from the specification, opens it)
      assert.equal(hex(refOpenStream(alg.name, key, sealed, aad) ?? new Uint8Array(1)), hex(plain), `${what}: model`);
    }
    aead.dispose();
  });
}

test('ctkit open: every header byte of a one-segment file, flipped, is exit 1 with no output file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ctkit-teeth-'));
  try {
    const ctkit = (args: string[]) => ctkitSync(args, { cwd: dir });
    for (const name of ['chacha20-poly1305']) {
      const alg = ALGORITHMS.find((a) => a.name === name)!;
      const key = join(dir, `${name}.key`);
      assert.equal(ctkit(['keygen', '--aead', name, '-o', key]).status, 0);
      const plain = join(dir, `${name}.txt`);
      writeFileSync(plain, rng.bytes(777)); // one segment of the CLI's 65536
      assert.equal(ctkit(['seal', '-k', key, plain, '-o', plain + '.ctk']).status, 0);
      const sealed = readFileSync(plain + '.ctk');
      assert.equal(sealed.length, headerLength(alg) + 777 + 16);
      for (let i = 0; i < headerLength(alg); i++) {
        // bit 0 of the segment size's last byte is the change that keeps the framing intact
        const t = Buffer.from(sealed);
        t[i] ^= i === 9 ? 0x01 : 0x80 >> (i % 8);
        const p = join(dir, `t${i}.ctk`);
        writeFileSync(p, t);
        const r = ctkit(['open', '-k', key, p, '-o', p + '.out']);
        assert.equal(r.status, 1, `${name} header byte ${i}: exit ${r.status} ${r.stderr}`);
        assert.ok(!existsSync(p + '.out'), `${name} header byte ${i}: output file written`);
        assert.equal(r.stdout.length, 0);
      }
      const ok = ctkit(['open', '-k', key, plain + '.ctk', '-o', plain + '.back']);
      assert.equal(ok.status, 0, ok.stderr);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

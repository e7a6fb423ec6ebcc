// Non-canonical base64 (issue 18): a last character whose unused low bits are not zero (`QR==`
// for "A", `QUJ=` for "AB", and the unpadded base64url forms `QR`, `QUJ`) encodes the same
// bytes as the canonical one, so a decoder that accepts it lets one key have many encodings.
// Every decoder of ctkit must refuse it: der.ts's base64 and base64url (exhaustively, every
// last character), PEM keys (PKCS#8, SEC 1, SubjectPublicKeyInfo, as a string and as bytes),
// JWK members (x, y, d), and the CLI's key files (the AEAD key files' "k", EC keys in JWK and
// PEM).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unbase64, unbase64url } from '../src/ec/der.js';
import { p256, p384, p521, secp256k1 } from '../src/ec/index.js';
import { EncodingError } from '../src/errors.js';
import { ctkitSync } from './support/cli.js';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const nonCanonical = (e: unknown) => e instanceof EncodingError && /non-canonical base64 \(unused bits set\)/.test((e as Error).message);

test('unbase64 / unbase64url: every last character of a 2- and 3-character final group; only zero unused bits decode', () => {
  for (const url of [false, true]) {
    const A = url ? B64URL : B64;
    const dec = url ? unbase64url : unbase64;
    for (const prefix of ['', 'AAAA', 'QUJD']) {
      for (let v = 0; v < 64; v++) {
        // "Q" + c: 12 bits, one byte, 4 unused bits; "QU" + c: 18 bits, two bytes, 2 unused bits
        for (const [body, unused] of [
          ['Q', 4],
          ['QU', 2],
        ] as const) {
          const s = prefix + body + A[v] + (url ? '' : '='.repeat(unused / 2));
          const ok = (v & ((1 << unused) - 1)) === 0;
          if (ok) {
            const want = Buffer.from(prefix + body + A[v], url ? 'base64url' : 'base64');
            assert.deepEqual(Buffer.from(dec(s, 't')), want, s);
          } else {
            assert.throws(() => dec(s, 't'), nonCanonical, `${s} decoded`);
          }
        }
      }
    }
    assert.throws(() => dec(url ? 'QR' : 'QR==', 't'), nonCanonical);
    assert.throws(() => dec(url ? 'QUJ' : 'QUJ=', 't'), nonCanonical);
  }
});

/** The PEM with the unused bits of its last base64 character set (undefined when it has none). */
function spoilPem(pem: string): string | undefined {
  const lines = pem.trimEnd().split('\n');
  const i = lines.length - 2; // the last base64 line
  const line = lines[i];
  const pad = line.length - line.replace(/=+$/, '').length;
  if (pad === 0) return undefined;
  const at = line.length - pad - 1;
  const v = B64.indexOf(line[at]);
  assert.equal(v & (pad === 2 ? 15 : 3), 0, 'the encoder wrote non-zero unused bits');
  lines[i] = line.slice(0, at) + B64[v | 1] + line.slice(at + 1);
  return lines.join('\n') + '\n';
}

/** The base64url string with the unused bits of its last character set (undefined when it has none). */
function spoilB64url(s: string): string | undefined {
  if (s.length % 4 === 0) return undefined;
  const v = B64URL.indexOf(s[s.length - 1]);
  return s.slice(0, -1) + B64URL[v | 1];
}

test('PEM keys (PKCS#8, SEC 1, SPKI; string and bytes) with unused bits set in the last character are refused, on every curve', () => {
  let spoiled = 0;
  for (const c of [p256, p384, p521, secp256k1]) {
    const sk = c.generatePrivateKey();
    const pk = c.getPublicKey(sk);
    const cases: [string, string, () => unknown, (t: string | Uint8Array) => unknown][] = [];
    for (const publicKey of [true, false]) {
      for (const f of ['pkcs8-pem', 'sec1-pem'] as const) {
        const pem = c.exportPrivateKey(sk, f, { publicKey }) as string;
        cases.push([`${f} publicKey=${publicKey}`, pem, () => c.importPrivateKey(pem, f), (t) => c.importPrivateKey(t, f)]);
      }
    }
    for (const compressed of [false, true]) {
      const pem = c.exportPublicKey(pk, 'spki-pem', { compressed }) as string;
      cases.push([`spki-pem compressed=${compressed}`, pem, () => c.importPublicKey(pem, 'spki-pem'), (t) => c.importPublicKey(t, 'spki-pem')]);
    }
    for (const [what, pem, good, imp] of cases) {
      good(); // the canonical form imports
      const bad = spoilPem(pem);
      if (bad === undefined) continue; // a DER length that is a multiple of 3: no unused bits
      spoiled++;
      assert.throws(() => imp(bad), nonCanonical, `${c.name} ${what}: non-canonical PEM accepted`);
      assert.throws(() => imp(new TextEncoder().encode(bad)), nonCanonical, `${c.name} ${what} (bytes): non-canonical PEM accepted`);
    }
  }
  assert.ok(spoiled >= 12, `only ${spoiled} PEM encodings had unused bits to set`);
});

test('JWK members x, y and d with unused bits set are refused (P-256, secp256k1: 32-byte fields)', () => {
  for (const c of [p256, secp256k1]) {
    const sk = c.generatePrivateKey();
    const jwk = c.exportPrivateKey(sk, 'jwk');
    assert.deepEqual(c.importPrivateKey(jwk, 'jwk'), sk);
    for (const m of ['x', 'y', 'd'] as const) {
      const bad = { ...jwk, [m]: spoilB64url(jwk[m]!)! };
      assert.ok(bad[m] !== jwk[m]);
      assert.throws(() => c.importPrivateKey(bad, 'jwk'), nonCanonical, `${c.name} JWK ${m}`);
      if (m !== 'd') {
        const { d: _, ...pub } = bad;
        assert.throws(() => c.importPublicKey(pub, 'jwk'), nonCanonical, `${c.name} public JWK ${m}`);
      }
    }
  }
});

test('ctkit: AEAD key files ("k"), EC JWK and PEM key files with non-canonical base64 are exit 1, invalid key', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ctkit-teeth-b64-'));
  try {
    const ctkit = (args: string[]) => ctkitSync(args, { cwd: dir });
    writeFileSync(join(dir, 'm'), 'hello');
    for (const alg of ['chacha20-poly1305', 'sm4-gcm']) {
      const key = join(dir, `${alg}.jwk`);
      assert.equal(ctkit(['keygen', '--aead', alg, '-o', key]).status, 0);
      assert.equal(ctkit(['seal', '-k', key, 'm', '-o', `m.${alg}`]).status, 0);
      const jwk = JSON.parse(readFileSync(key, 'utf8'));
      const bad = join(dir, `${alg}.bad.jwk`);
      writeFileSync(bad, JSON.stringify({ ...jwk, k: spoilB64url(jwk.k) }));
      for (const args of [
        ['seal', '-k', bad, 'm', '-o', 'x'],
        ['open', '-k', bad, `m.${alg}`, '-o', 'y'],
      ]) {
        const r = ctkit(args);
        assert.equal(r.status, 1, `${alg} ${args[0]} with a non-canonical "k": exit ${r.status} ${r.stderr}`);
        assert.match(r.stderr, /invalid key/);
      }
      // "k" that is not base64url at all, or of an impossible length, is refused too
      for (const k of [jwk.k + 'A', jwk.k + '=']) {
        writeFileSync(bad, JSON.stringify({ ...jwk, k }));
        const r = ctkit(['seal', '-k', bad, 'm', '-o', 'x']);
        assert.equal(r.status, 1, `${alg} "k" = ${k}: exit ${r.status} ${r.stderr}`);
      }
    }
    // EC keys: a JWK whose "d" and a PEM whose last character have unused bits set
    const sk = p256.generatePrivateKey();
    const jwk = p256.exportPrivateKey(sk, 'jwk');
    writeFileSync(join(dir, 'ec.jwk'), JSON.stringify({ ...jwk, d: spoilB64url(jwk.d!) }));
    const pem = spoilPem(p256.exportPrivateKey(sk, 'sec1-pem') as string)!;
    writeFileSync(join(dir, 'ec.pem'), pem);
    for (const f of ['ec.jwk', 'ec.pem']) {
      const r = ctkit(['sign', '--key', f, 'm']); // pubkey would read a JWK's x and y only
      assert.equal(r.status, 1, `${f}: exit ${r.status} ${r.stderr}`);
      assert.match(r.stderr, /invalid key.*non-canonical base64/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

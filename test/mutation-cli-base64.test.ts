// Non-canonical base64 in the CLI's public-key files (issue 18). test/teeth-base64.test.ts holds
// the AEAD key files' "k" and the EC private keys (JWK "d", SEC 1 PEM) to it; the public keys
// that `pubkey`, `verify --pub` and `ecdh --peer` read — a public JWK's "x" and "y", an SPKI PEM —
// must refuse a last character with unused bits set just the same (exit 1, "invalid key"), while
// the canonical files of the same keys work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { p256 } from '../src/ec/index.js';
import { ctkitSync } from './support/cli.js';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The PEM with the unused bits of its last base64 character set. */
function spoilPem(pem: string): string {
  const lines = pem.trimEnd().split('\n');
  const i = lines.length - 2;
  const line = lines[i];
  const pad = line.length - line.replace(/=+$/, '').length;
  assert.ok(pad > 0, `no unused bits in ${line}`);
  const at = line.length - pad - 1;
  const v = B64.indexOf(line[at]);
  assert.equal(v & (pad === 2 ? 15 : 3), 0);
  lines[i] = line.slice(0, at) + B64[v | 1] + line.slice(at + 1);
  return `${lines.join('\n')}\n`;
}

/** A 43-character base64url member (32 bytes) with an unused bit of its last character set. */
function spoilB64url(s: string): string {
  assert.equal(s.length, 43);
  const v = B64URL.indexOf(s[42]);
  assert.equal(v & 3, 0);
  return s.slice(0, 42) + B64URL[v | 2];
}

test('ctkit pubkey, verify --pub and ecdh --peer: public JWK "x" or "y" and SPKI PEM with non-canonical base64 are exit 1, invalid (peer) key', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ctkit-mutation-b64-'));
  try {
    const ctkit = (args: string[]) => ctkitSync(args, { cwd: dir });
    const sk = p256.generatePrivateKey();
    const pk = p256.getPublicKey(sk);
    writeFileSync(join(dir, 'me.pem'), p256.exportPrivateKey(sk, 'sec1-pem') as string);
    writeFileSync(join(dir, 'm'), 'hello');
    assert.equal(ctkit(['sign', '--key', 'me.pem', 'm', '-o', 'm.sig']).status, 0);
    const jwk = p256.exportPublicKey(pk, 'jwk');
    const spki = p256.exportPublicKey(pk, 'spki-pem') as string;
    // the canonical files are accepted by each command
    writeFileSync(join(dir, 'good.jwk'), JSON.stringify(jwk));
    writeFileSync(join(dir, 'good.pub'), spki);
    const uses = (f: string) => [
      ['pubkey', f],
      ['verify', '--pub', f, '--sig', 'm.sig', 'm'],
      ['ecdh', '--key', 'me.pem', '--peer', f],
    ];
    for (const f of ['good.jwk', 'good.pub']) {
      for (const args of uses(f)) {
        const r = ctkit(args);
        assert.equal(r.status, 0, `${args.join(' ')}: exit ${r.status} ${r.stderr}`);
      }
    }
    writeFileSync(join(dir, 'x.jwk'), JSON.stringify({ ...jwk, x: spoilB64url(jwk.x) }));
    writeFileSync(join(dir, 'y.jwk'), JSON.stringify({ ...jwk, y: spoilB64url(jwk.y) }));
    writeFileSync(join(dir, 'bad.pub'), spoilPem(spki));
    for (const f of ['x.jwk', 'y.jwk', 'bad.pub']) {
      for (const args of uses(f)) {
        const r = ctkit(args);
        assert.equal(r.status, 1, `${args.join(' ')}: exit ${r.status} ${r.stderr}`);
        assert.match(r.stderr, /invalid (peer )?key.*non-canonical base64/, `${args.join(' ')}: ${r.stderr}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

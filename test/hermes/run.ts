// `npm run test:hermes`: the library under Hermes (React Native's engine) — the Linux binary of
// the pinned hermes-engine-cli (Hermes 0.12: no WebAssembly, no class syntax, no private fields).
// smoke.ts is bundled by esbuild and transpiled to ES5 by Babel's preset-env (as React Native's
// toolchain does, and as its users ship), run under `hermes`, and each output line compared with
// the value OpenSSL (node:crypto) computes for the same input; Poly1305, which node:crypto lacks,
// with the reference model of RFC 8439 (src/ref/poly1305.ts). Exits non-zero on any difference.

import { spawnSync } from 'node:child_process';
import { createCipheriv, createECDH, createHash, createHmac, createPrivateKey, createPublicKey, diffieHellman, hkdfSync, sign, verify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { transformAsync } from '@babel/core';
import { SMOKE_LENGTHS, pattern, smokeKey } from './inputs.js';
import { poly1305Ref } from '../../src/ref/poly1305.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const hermes = join(root, 'node_modules', 'hermes-engine-cli', 'linux64-bin', 'hermes');

function expected(): string[] {
  const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
  const key = pattern(32, 1),
    nonce = pattern(12, 2),
    aad = pattern(13, 3);
  const lines = ['backend js'];
  for (const n of SMOKE_LENGTHS) {
    const msg = pattern(n, 4);
    const c = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 });
    c.setAAD(aad, { plaintextLength: n });
    lines.push(`chacha20-poly1305/${n} ${hex(Buffer.concat([c.update(msg), c.final(), c.getAuthTag()]))}`);
    lines.push(`chacha20-poly1305-open/${n} ok`, `chacha20-poly1305-forgery/${n} rejected`);
    const iv = Buffer.concat([Buffer.from([1, 0, 0, 0]), nonce]); // counter 1 ‖ nonce
    const s = createCipheriv('chacha20', key, iv);
    lines.push(`chacha20/${n} ${hex(Buffer.concat([s.update(msg), s.final()]))}`);
    lines.push(`poly1305/${n} ${hex(poly1305Ref(key, msg))}`);
    for (const h of ['sha224', 'sha256', 'sha384', 'sha512']) lines.push(`${h}/${n} ${createHash(h).update(msg).digest('hex')}`);
    lines.push(`hmac-sha256/${n} ${createHmac('sha256', key).update(msg).digest('hex')}`);
    lines.push(`hmac-sha512/${n} ${createHmac('sha512', key).update(msg).digest('hex')}`);
    lines.push(`hkdf-sha256/${n} ${hex(new Uint8Array(hkdfSync('sha256', msg, aad, key, 42)))}`);
  }
  for (const { name, openssl, bytes } of CURVES) {
    const e = createECDH(openssl);
    e.setPrivateKey(smokeKey(bytes, 5));
    const peer = createECDH(openssl);
    peer.setPrivateKey(smokeKey(bytes, 6));
    lines.push(`${name}-public-key ${hex(e.getPublicKey())}`, `${name}-ecdh ${hex(e.computeSecret(peer.getPublicKey()))}`);
    lines.push(`${name}-sign verified by OpenSSL`, `${name}-verify true false`);
  }
  // X25519 and Ed25519 from OpenSSL's key objects on the same 32 bytes (PKCS#8 prefixes of RFC 8410)
  const okp = (prefix: string, seed: number) => createPrivateKey({ key: Buffer.concat([Buffer.from(prefix, 'hex'), smokeKey(32, seed)]), format: 'der', type: 'pkcs8' });
  const rawPub = (k: ReturnType<typeof createPrivateKey>) => hex(createPublicKey(k).export({ format: 'der', type: 'spki' }).subarray(12));
  const [x, xPeer, ed] = [okp(X25519_PKCS8, 8), okp(X25519_PKCS8, 9), okp(ED25519_PKCS8, 8)];
  lines.push(`x25519-public-key ${rawPub(x)}`, `x25519-ecdh ${hex(diffieHellman({ privateKey: x, publicKey: createPublicKey(xPeer) }))}`);
  lines.push(`ed25519-public-key ${rawPub(ed)}`, `ed25519-sign ${hex(sign(null, pattern(100, 7), ed))}`, 'ed25519-verify true false');
  return lines;
}

const X25519_PKCS8 = '302e020100300506032b656e04220420';
const ED25519_PKCS8 = '302e020100300506032b657004220420';

/** The smoke program's curves: OpenSSL's name, the JWK crv, the signatures' hash (the curve's default), private key and coordinate bytes. */
const CURVES = [
  { name: 'p256', openssl: 'prime256v1', crv: 'P-256', hash: 'sha256', bytes: 32 },
  { name: 'secp256k1', openssl: 'secp256k1', crv: 'secp256k1', hash: 'sha256', bytes: 32 },
  { name: 'p521', openssl: 'secp521r1', crv: 'P-521', hash: 'sha512', bytes: 66 },
];

/** Hermes's ECDSA signature lines, verified here by OpenSSL against the public key it printed (ECDSA with the curve's hash, DER). */
function verifiedSignatures(got: string[]): string[] {
  const hexOf = (prefix: string) => got.find((l) => l.startsWith(prefix))?.slice(prefix.length) ?? '';
  return got.map((line) => {
    const m = /^(\S+)-sign ([0-9a-f]+)$/.exec(line);
    if (!m || m[1] === 'ed25519') return line; // Ed25519 is deterministic: its bytes are compared
    const c = CURVES.find((x) => x.name === m[1]);
    const raw = Buffer.from(hexOf(`${m[1]}-public-key `), 'hex');
    if (!c || raw.length !== 1 + 2 * c.bytes) return `${m[1]}-sign without its public key`;
    const jwk = { kty: 'EC', crv: c.crv, x: raw.subarray(1, 1 + c.bytes).toString('base64url'), y: raw.subarray(1 + c.bytes).toString('base64url') };
    const ok = verify(c.hash, pattern(100, 7), createPublicKey({ key: jwk, format: 'jwk' }), Buffer.from(m[2], 'hex'));
    return `${m[1]}-sign ${ok ? 'verified by OpenSSL' : 'REFUSED by OpenSSL'}`;
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ctkit-hermes-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const bundled = await build({
    entryPoints: [join(root, 'test', 'hermes', 'smoke.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'neutral',
    target: 'es2020',
    logLevel: 'silent',
  });
  const es5 = await transformAsync(bundled.outputFiles[0].text, {
    babelrc: false,
    configFile: false,
    sourceType: 'script',
    compact: false,
    presets: [['@babel/preset-env', { targets: { ie: '11' }, modules: false }]],
  });
  if (!es5?.code) throw new Error('babel produced nothing');
  if (/\bclass\s+[\w$]+\s*(extends\b|\{)|\.#[\w$]/.test(es5.code)) throw new Error('the transpiled bundle still has class syntax or private fields');
  const file = join(dir, 'smoke.js');
  writeFileSync(file, es5.code);
  const r = spawnSync(hermes, [file], { encoding: 'utf8', maxBuffer: 16 << 20 });
  if (r.status !== 0) throw new Error(`hermes exited ${r.status}: ${r.stderr}`);
  const got = verifiedSignatures(r.stdout.trim().split('\n'));
  const want = expected();
  let bad = 0;
  for (let i = 0; i < Math.max(got.length, want.length); i++) {
    if (got[i] !== want[i]) {
      bad++;
      if (bad <= 10) console.error(`line ${i + 1}:\n  hermes:  ${got[i]}\n  openssl: ${want[i]}`);
    }
  }
  const version = spawnSync(hermes, ['-version'], { encoding: 'utf8' }).stdout.match(/Hermes release version: (\S+)/)?.[1] ?? '?';
  console.log(`test:hermes: Hermes ${version}, ${(es5.code.length / 1024).toFixed(0)} KiB ES5 bundle, ${want.length} lines compared`);
  if (bad) {
    console.error(`${bad} passed, ${bad} failed`.replace(/^\d+/, String(want.length - bad)));
    process.exit(1);
  }
  console.log(`${want.length} passed, 0 failed`);
}

await main();

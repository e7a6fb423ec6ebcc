// The curve modules on the js backend, in this process (issue 16): their JavaScript is opt-in,
// `import 'ctkit/ec/js/<curve>'` (src/ec/js/), and then runs under setBackend('js') through the
// same glue as the WebAssembly modules. Every curve is held to OpenSSL: public keys, ECDH,
// ECDSA both ways (6 keys for P-256 and secp256k1, the bar; 2 for the others). The
// family test files run on js too (test/backends.test.ts, with the field suite on 12-bit limbs,
// Wycheproof and the negative controls); this file is the in-process one that mutation testing
// of src/ec sees. P-521, brainpoolP384r1 and brainpoolP512r1 run on rolled products
// (src/kernels/fe_mont29.ts: rolledProduct). X25519 and Ed25519 (their own opt-ins) are held to
// OpenSSL the same way.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createECDH, createSign, createVerify, createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, sign as nodeSign, verify as nodeVerify } from 'node:crypto';
import type { CurveName } from '../src/curves/params.js';
import { curveKernel } from '../src/ec/curve.js';
import * as ec from '../src/ec/index.js';
import type { EcdsaCurve } from '../src/ec/ecdsa.js';
import { backend, setBackend } from '../src/engine/backend.js';
import { sha256 } from '../src/hash/sha2.js';
import '../src/ec/js/all.js'; // every curve's opt-in (the last test checks it imports each)
import { readFileSync, readdirSync } from 'node:fs';
import { EC_MODULES } from '../src/kernels/ec_rcb_window.js';
import { kernels } from '../src/kernels/registry.js';
import { ed25519Kernel } from '../src/ec/ed25519.js';

const OPENSSL: Record<CurveName, string> = {
  p256: 'prime256v1',
  p224: 'secp224r1',
  brainpoolP256r1: 'brainpoolP256r1',
  p384: 'secp384r1',
  secp256k1: 'secp256k1',
  p521: 'secp521r1',
  brainpoolP384r1: 'brainpoolP384r1',
  brainpoolP512r1: 'brainpoolP512r1',
};
const KEYS = 6;

const before = backend();
setBackend('js');
after(() => setBackend(before));

for (const name of Object.keys(OPENSSL) as CurveName[]) {
  const keys = name === 'p256' || name === 'secp256k1' ? KEYS : 2;
  test(`${name} on the js target: public keys, ECDH and ECDSA both ways equal OpenSSL's (${keys} keys)`, async () => {
    const curve = (ec as unknown as Record<CurveName, EcdsaCurve>)[name];
    assert.equal(curveKernel(curve).k.backend, 'js');
    const peer = createECDH(OPENSSL[name]);
    peer.generateKeys();
    for (let i = 0; i < keys; i++) {
      const e = createECDH(OPENSSL[name]);
      e.generateKeys();
      const sk = new Uint8Array(curve.privateKeyBytes);
      sk.set(e.getPrivateKey(), sk.length - e.getPrivateKey().length); // OpenSSL drops leading zero bytes
      assert.deepEqual(Buffer.from(curve.getPublicKey(sk)), e.getPublicKey(), `public key ${i}`);
      assert.deepEqual(Buffer.from(curve.ecdh(sk, peer.getPublicKey())), e.computeSecret(peer.getPublicKey()), `ECDH ${i}`);
      const msg = Buffer.from(`message ${i} for ${name}`);
      // OpenSSL's key objects from the PKCS#8 and SPKI encodings (node:crypto has no JWK for brainpool or P-224)
      const priv = createPrivateKey({ key: Buffer.from(curve.exportPrivateKey(sk, 'pkcs8-der')), format: 'der', type: 'pkcs8' });
      const pub = createPublicKey(priv);
      assert.deepEqual(Buffer.from(pub.export({ format: 'der', type: 'spki' })).subarray(-e.getPublicKey().length), e.getPublicKey());
      const ours = curve.sign(msg, sk, { hash: sha256 }); // OpenSSL below hashes with SHA-256
      assert.ok(createVerify('sha256').update(msg).verify(pub, ours), `OpenSSL verifies our signature ${i}`);
      const theirs = createSign('sha256').update(msg).sign(priv);
      assert.equal(curve.verify(theirs, msg, e.getPublicKey(), { hash: sha256 }), true, `we verify OpenSSL's signature ${i}`);
      assert.equal(curve.verify(theirs, Buffer.from('another message'), e.getPublicKey(), { hash: sha256 }), false);
    }
  });
}

test("X25519 and Ed25519 on the js target: keys, ECDH, signatures both ways equal OpenSSL's (6 keys)", () => {
  assert.equal(ed25519Kernel(ec.ed25519).backend, 'js');
  const raw = (k: ReturnType<typeof createPublicKey>) => new Uint8Array(k.export({ format: 'der', type: 'spki' }).subarray(12));
  const rawPriv = (k: ReturnType<typeof createPrivateKey>) => new Uint8Array(k.export({ format: 'der', type: 'pkcs8' }).subarray(16));
  const peer = generateKeyPairSync('x25519');
  for (let i = 0; i < 6; i++) {
    const x = generateKeyPairSync('x25519');
    const sk = rawPriv(x.privateKey);
    assert.deepEqual(ec.x25519.getPublicKey(sk), raw(x.publicKey), `X25519 public key ${i}`);
    assert.deepEqual(ec.x25519.ecdh(sk, raw(peer.publicKey)), new Uint8Array(diffieHellman({ privateKey: x.privateKey, publicKey: peer.publicKey })), `X25519 ECDH ${i}`);
    const e = generateKeyPairSync('ed25519');
    const esk = rawPriv(e.privateKey);
    const msg = Buffer.from(`message ${i} for Ed25519`);
    assert.deepEqual(ec.ed25519.getPublicKey(esk), raw(e.publicKey), `Ed25519 public key ${i}`);
    const ours = ec.ed25519.sign(msg, esk);
    assert.deepEqual(ours, new Uint8Array(nodeSign(null, msg, e.privateKey)), `Ed25519 signature ${i} (deterministic: OpenSSL's bytes)`);
    assert.ok(nodeVerify(null, msg, e.publicKey, ours));
    assert.equal(ec.ed25519.verify(ours, msg, raw(e.publicKey)), true);
    assert.equal(ec.ed25519.verify(ours, Buffer.from('another message'), raw(e.publicKey)), false);
  }
});

test('src/ec/js: one file per curve module with an opt-in js, and all.ts imports every one', () => {
  const dir = new URL('../src/ec/js/', import.meta.url);
  const files = readdirSync(dir)
    .filter((f) => f !== 'all.ts')
    .map((f) => f.replace(/\.ts$/, ''))
    .sort();
  const optIn = kernels.flatMap((m) => (m.optIn ? [m.optIn.js.replace('ctkit/ec/js/', '')] : [])).sort();
  assert.deepEqual(files, optIn);
  assert.equal(files.length, EC_MODULES.length + 2); // the eight curves, X25519 and Ed25519
  const imported = [...readFileSync(new URL('all.ts', dir), 'utf8').matchAll(/^import '\.\/(\w+)\.js';$/gm)].map((m) => m[1]).sort();
  assert.deepEqual(imported, files);
});

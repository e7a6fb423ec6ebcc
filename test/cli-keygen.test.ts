// `ctkit keygen --curve`, `ctkit pubkey` and `ctkit ecdh` (src/cli/keys.ts) in-process, against
// OpenSSL through node:crypto: on every curve, every private-key format keygen writes loads in
// OpenSSL as the same key, every public-key format pubkey prints is OpenSSL's public key, and ecdh
// agrees with OpenSSL's derive both ways; to a file (mode 0600 for secrets, never overwritten)
// and to stdout. test/cli-keys.test.ts runs the same commands as processes beside the `openssl`
// tool; this file is the quick one, so that under `npm run test:mutation -- src/cli` a mutant
// of keys.ts fails here first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ECDH, createECDH, createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Failure, FileError, UsageError } from '../src/cli/errors.js';
import { ecdh, keygenCurve, pubkey } from '../src/cli/keys.js';
import { rejectsWith } from './support/scratch.js';
import { cliStdout } from './support/stdout.js';

const dir = mkdtempSync(join(tmpdir(), 'ctkit-keygen-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const fresh = (ext: string) => join(dir, `${files++}.${ext}`);

// ctkit's curve (as the user may spell it), OpenSSL's name, scalar bytes, JWK "crv"
const CURVES = [
  ['P-256', 'prime256v1', 32, 'P-256'],
  ['secp224r1', 'secp224r1', 28, undefined],
  ['brainpoolP256r1', 'brainpoolP256r1', 32, undefined],
  ['p384', 'secp384r1', 48, 'P-384'],
  ['prime256v1', 'prime256v1', 32, 'P-256'],
  ['P-521', 'secp521r1', 66, 'P-521'],
  ['SECP256K1', 'secp256k1', 32, 'secp256k1'],
  ['brainpoolp384r1', 'brainpoolP384r1', 48, undefined],
  ['brainpoolP512r1', 'brainpoolP512r1', 64, undefined],
] as const;

const stdoutOf = async (f: () => Promise<void>) => (await cliStdout(f)).toString('latin1');

const curveOf = (k: KeyObject) => k.asymmetricKeyDetails?.namedCurve;
/** the SEC 1 uncompressed point at the end of a public key's SPKI (n: the field's bytes, here the scalar's) */
const uncompressed = (k: KeyObject, n: number) => {
  const spki = k.export({ format: 'der', type: 'spki' });
  return spki.subarray(spki.length - (2 * n + 1));
};

const rejects = (f: () => Promise<unknown>, type: abstract new (...a: never[]) => Error, message: string | RegExp) => rejectsWith(f(), type, message);

for (const [name, ossl, n, crv] of CURVES) {
  test(`${name}: keygen in every format → OpenSSL's key; pubkey in every format; ecdh both ways`, async () => {
    // pkcs8 (the default and by name), sec1: PEM that OpenSSL loads, on this curve, in a 0600 file
    const pems: KeyObject[] = [];
    for (const [format, label] of [
      [undefined, 'PRIVATE KEY'],
      ['pkcs8', 'PRIVATE KEY'],
      ['sec1', 'EC PRIVATE KEY'],
    ] as const) {
      const f = fresh('pem');
      await keygenCurve(name, format, f);
      const text = readFileSync(f, 'utf8');
      assert.ok(text.startsWith(`-----BEGIN ${label}-----\n`) && text.endsWith(`-----END ${label}-----\n`), `${format}: ${text}`);
      assert.equal(statSync(f).mode & 0o777, 0o600, `${format}: mode`);
      const k = createPrivateKey(text);
      assert.equal(curveOf(k), ossl, `${format}: curve`);
      pems.push(k);
      await rejects(() => keygenCurve(name, format, f), FileError, `${f} already exists; ctkit never overwrites a key`);
    }
    // each keygen draws a new key
    const ds = pems.map((k) => k.export({ format: 'der', type: 'pkcs8' }).toString('hex'));
    assert.equal(new Set(ds).size, ds.length, 'keygen repeats a key');

    // raw: the scalar in hex, n bytes, which OpenSSL takes as a private key
    const rawFile = fresh('hex');
    await keygenCurve(name, 'raw', rawFile);
    const rawText = readFileSync(rawFile, 'utf8');
    assert.match(rawText, new RegExp(`^[0-9a-f]{${2 * n}}\\n$`));
    const osslRaw = createECDH(ossl);
    osslRaw.setPrivateKey(Buffer.from(rawText.trim(), 'hex'));

    // jwk: OpenSSL's JWK of the same key where the curve has a JWK name; a usage error where not
    const jwkFile = fresh('jwk');
    if (crv) {
      await keygenCurve(name, 'jwk', jwkFile);
      const text = readFileSync(jwkFile, 'utf8');
      assert.ok(text.endsWith('}\n'));
      const jwk = JSON.parse(text);
      assert.equal(jwk.kty, 'EC');
      assert.equal(jwk.crv, crv);
      const k = createPrivateKey({ key: jwk, format: 'jwk' });
      assert.deepEqual(k.export({ format: 'jwk' }), { kty: 'EC', crv, d: jwk.d, x: jwk.x, y: jwk.y });
      assert.equal(statSync(jwkFile).mode & 0o777, 0o600);
    } else {
      await rejects(() => keygenCurve(name, 'jwk', jwkFile), UsageError, /^--format jwk: JWK: there is no registered JWK curve name for /);
      assert.throws(() => statSync(jwkFile), /ENOENT/, 'a refused keygen writes no file');
    }

    // keygen to stdout ('-' and no -o): PEM text that OpenSSL loads
    for (const out of ['-', undefined]) {
      const text = await stdoutOf(() => keygenCurve(name, 'sec1', out));
      assert.equal(curveOf(createPrivateKey(text)), ossl);
    }

    // pubkey of each private key, in each format, is OpenSSL's public key
    const priv = fresh('pem');
    writeFileSync(priv, pems[0].export({ format: 'pem', type: 'pkcs8' }));
    const pub = createPublicKey(pems[0]);
    const spki = pub.export({ format: 'pem', type: 'spki' });
    const point = uncompressed(pub, n);
    for (const format of [undefined, 'spki']) assert.equal(await stdoutOf(() => pubkey(priv, format, undefined, undefined)), spki);
    const toFile = fresh('pub');
    await pubkey(priv, undefined, undefined, toFile);
    assert.equal(readFileSync(toFile, 'utf8'), spki);
    assert.equal(await stdoutOf(() => pubkey(priv, 'raw', undefined, '-')), `${point.toString('hex')}\n`);
    if (crv) {
      const text = await stdoutOf(() => pubkey(priv, 'jwk', undefined, undefined));
      assert.ok(text.endsWith('}\n'));
      assert.deepEqual(JSON.parse(text), pub.export({ format: 'jwk' }));
    }
    const compressed = ECDH.convertKey(point, ossl, undefined, 'hex', 'compressed');
    assert.equal(await stdoutOf(() => pubkey(priv, 'compressed', undefined, undefined)), `${compressed}\n`);
    // the raw scalar with --curve: its public key (a raw scalar is a private key); without: a usage error
    assert.equal(await stdoutOf(() => pubkey(rawFile, 'raw', name, undefined)), `${osslRaw.getPublicKey('hex')}\n`);
    await rejects(() => pubkey(rawFile, 'raw', undefined, undefined), UsageError, `public key ${rawFile} is a raw (hex) key: say which curve with --curve`);
    await rejects(() => pubkey(priv, 'pem', undefined, undefined), UsageError, "unknown public-key format 'pem' (spki, jwk, raw or compressed)");
    if (!crv) await rejects(() => pubkey(priv, 'jwk', undefined, undefined), UsageError, /^--format jwk: JWK: there is no registered JWK curve name for /);

    // ecdh: ctkit's key with OpenSSL's peer, and OpenSSL's key with the public key pubkey wrote
    const other = generateKeyPairSync('ec', { namedCurve: ossl });
    const peer = fresh('pub');
    writeFileSync(peer, other.publicKey.export({ format: 'pem', type: 'spki' }));
    const shared = diffieHellman({ privateKey: pems[0], publicKey: other.publicKey });
    for (const out of [undefined, '-']) assert.equal(await stdoutOf(() => ecdh(priv, peer, out)), `${shared.toString('hex')}\n`);
    const otherPriv = fresh('pem');
    writeFileSync(otherPriv, other.privateKey.export({ format: 'pem', type: 'sec1' }));
    assert.equal(await stdoutOf(() => ecdh(otherPriv, toFile, undefined, name)), `${shared.toString('hex')}\n`);
    // to a file: the secret's bytes, mode 0600, never overwritten
    const secretFile = fresh('bin');
    await ecdh(priv, peer, secretFile);
    assert.deepEqual(readFileSync(secretFile), shared);
    assert.equal(statSync(secretFile).mode & 0o777, 0o600);
    await rejects(() => ecdh(priv, peer, secretFile), FileError, `${secretFile} already exists; ctkit never overwrites a key`);
    // the raw scalar with --curve, against OpenSSL's derive
    assert.equal(await stdoutOf(() => ecdh(rawFile, peer, undefined, name)), `${osslRaw.computeSecret(uncompressed(other.publicKey, n)).toString('hex')}\n`);
  });
}

test('keygen, pubkey and ecdh refuse what they cannot do, each with its reason', async () => {
  const p256 = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
  const priv = fresh('pem');
  writeFileSync(priv, p256.privateKey.export({ format: 'pem', type: 'pkcs8' }));
  const other = fresh('pub');
  writeFileSync(other, p384.publicKey.export({ format: 'pem', type: 'spki' }));
  const junk = fresh('pub');
  writeFileSync(junk, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
  const missing = join(dir, 'nope.pem');
  const names = 'p256, p224, brainpoolP256r1, p384, p521, secp256k1, brainpoolP384r1, brainpoolP512r1';
  await rejects(() => keygenCurve('p999', undefined, fresh('pem')), UsageError, `unknown curve 'p999' (choose one of ${names})`);
  await rejects(() => keygenCurve('p256', 'pem2', fresh('pem')), UsageError, "unknown private-key format 'pem2' (pkcs8, sec1, jwk or raw)");
  await rejects(() => keygenCurve('p256', undefined, join(dir, 'no', 'k.pem')), FileError, `cannot create ${join(dir, 'no', 'k.pem')}: the directory ${join(dir, 'no')} does not exist`);
  await rejects(() => pubkey(missing, undefined, undefined, undefined), FileError, /^cannot read public key .*nope\.pem: /);
  await rejects(() => pubkey(junk, undefined, undefined, undefined), Failure, `invalid key: public key ${junk}: PEM block CERTIFICATE is not a key (expected PUBLIC KEY, PRIVATE KEY or EC PRIVATE KEY)`);
  await rejects(() => ecdh(missing, other, undefined), FileError, /^cannot read private key .*nope\.pem: /);
  // the peer's errors say "peer"; a peer on another curve is refused by the OID in its SPKI
  await rejects(() => ecdh(priv, other, undefined), Failure, /^invalid peer key: public key .*: .*the key is for the curve with OID 1\.3\.132\.0\.34/);
  await rejects(() => ecdh(priv, junk, undefined), Failure, `invalid peer key: public key ${junk}: PEM block CERTIFICATE is not a key (expected PUBLIC KEY, PRIVATE KEY or EC PRIVATE KEY)`);
  await rejects(() => ecdh(priv, missing, undefined), FileError, /^cannot read public key .*nope\.pem: /);
});

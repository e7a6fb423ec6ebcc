// `ctkit sign` and `ctkit verify` (src/cli/sign.ts) in-process, against OpenSSL through
// node:crypto: ECDSA over a file hashed as it streams in, on every curve, in DER and P1363, with
// each curve's default hash and with a named one. test/cli-keys.test.ts runs the same commands
// beside the `openssl` tool; this file is the quick one, so that under
// `npm run test:mutation -- src/cli` a mutant of sign.ts fails here first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type KeyObject, generateKeyPairSync, sign as osslSign, verify as osslVerify } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Failure, FileError, UsageError } from '../src/cli/errors.js';
import { signFile, verifyFile } from '../src/cli/sign.js';
import { Rng } from './support/rng.js';
import { takeFromStdout } from './support/stdout.js';

const dir = mkdtempSync(join(tmpdir(), 'ctkit-sign-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const rng = new Rng(0x5197);

// ctkit's curve, OpenSSL's name, its default hash (the help of `ctkit sign`), its scalar bytes
const CURVES = [
  ['p256', 'prime256v1', 'sha256', 32],
  ['p224', 'secp224r1', 'sha224', 28],
  ['brainpoolP256r1', 'brainpoolP256r1', 'sha256', 32],
  ['p384', 'secp384r1', 'sha384', 48],
  ['p521', 'secp521r1', 'sha512', 66],
  ['secp256k1', 'secp256k1', 'sha256', 32],
  ['brainpoolP384r1', 'brainpoolP384r1', 'sha384', 48],
  ['brainpoolP512r1', 'brainpoolP512r1', 'sha512', 64],
] as const;

/** an OpenSSL key pair written as PKCS#8 and SPKI PEM files */
function keyFiles(curve: string, osslName: string): { priv: string; pub: string; publicKey: KeyObject; privateKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: osslName });
  const priv = join(dir, `${curve}.pem`);
  const pub = join(dir, `${curve}.pub`);
  writeFileSync(priv, privateKey.export({ format: 'pem', type: 'pkcs8' }));
  writeFileSync(pub, publicKey.export({ format: 'pem', type: 'spki' }));
  return { priv, pub, publicKey, privateKey };
}

/** verifyFile, with the one line it prints taken off stdout */
const verified = (o: Parameters<typeof verifyFile>[0]) =>
  takeFromStdout(
    (c) => c === 'Verified OK\n',
    () => verifyFile(o),
  );

// more than the 1 MiB that sign.ts reads at a time, not a multiple of it
const message = rng.bytes((2 << 20) + 777);
const msgFile = join(dir, 'message');
writeFileSync(msgFile, message);

for (const [curve, osslName, defaultHash, n] of CURVES) {
  test(`${curve}: sign → OpenSSL verifies, OpenSSL signs → verify; DER and P1363; default and named hash`, async () => {
    const k = keyFiles(curve, osslName);
    const sigFile = join(dir, `${curve}.sig`);
    // the default hash, DER (the default format, and by name)
    for (const format of [undefined, 'der']) {
      await signFile({ keyPath: k.priv, input: msgFile, output: sigFile, format });
      const sig = readFileSync(sigFile);
      assert.equal(sig[0], 0x30, 'DER');
      assert.ok(osslVerify(defaultHash, message, { key: k.publicKey, dsaEncoding: 'der' }, sig), `${curve}: OpenSSL verifies with ${defaultHash}`);
      const other = defaultHash === 'sha256' ? 'sha384' : 'sha256';
      assert.ok(!osslVerify(other, message, { key: k.publicKey, dsaEncoding: 'der' }, sig), `${curve}: not with ${other}`);
      assert.deepEqual(await verified({ pubPath: k.pub, sigPath: sigFile, input: msgFile, format }), ['Verified OK\n']);
    }
    // P1363 by both names: r ‖ s, each the scalar's length
    for (const format of ['p1363', 'ieee-p1363']) {
      await signFile({ keyPath: k.priv, input: msgFile, output: sigFile, format });
      const sig = readFileSync(sigFile);
      assert.equal(sig.length, 2 * n);
      assert.ok(osslVerify(defaultHash, message, { key: k.publicKey, dsaEncoding: 'ieee-p1363' }, sig));
      assert.deepEqual(await verified({ pubPath: k.pub, sigPath: sigFile, input: msgFile, format }), ['Verified OK\n']);
      // a P1363 signature read as DER does not verify: a Failure that says why
      await assert.rejects(verified({ pubPath: k.pub, sigPath: sigFile, input: msgFile }), (e: Error) => e instanceof Failure && /^signature does not verify: ./.test(e.message));
    }
    // a named hash, in the spellings people use; OpenSSL's signature over it verifies, and not under the default
    for (const [hash, ossl] of [
      ['SHA-512', 'sha512'],
      ['sha-224', 'sha224'],
      ['Sha384', 'sha384'],
      ['sha256', 'sha256'],
    ]) {
      await signFile({ keyPath: k.priv, input: msgFile, output: sigFile, hash });
      assert.ok(osslVerify(ossl, message, { key: k.publicKey, dsaEncoding: 'der' }, readFileSync(sigFile)), `${curve} --hash ${hash}`);
      const theirs = join(dir, `${curve}-ossl.sig`);
      writeFileSync(theirs, osslSign(ossl, message, { key: k.privateKey, dsaEncoding: 'der' }));
      assert.deepEqual(await verified({ pubPath: k.pub, sigPath: theirs, input: msgFile, hash }), ['Verified OK\n']);
      if (ossl !== defaultHash) await assert.rejects(verified({ pubPath: k.pub, sigPath: theirs, input: msgFile }), (e: Error) => e instanceof Failure && e.message === 'signature does not verify');
    }
    // a private key file verifies too (its public key)
    await signFile({ keyPath: k.priv, input: msgFile, output: sigFile });
    assert.deepEqual(await verified({ pubPath: k.priv, sigPath: sigFile, input: msgFile }), ['Verified OK\n']);
    // another message, or a flipped bit of the signature: does not verify
    const sig = readFileSync(sigFile);
    const flipped = join(dir, `${curve}-flipped.sig`);
    sig[sig.length - 1] ^= 1;
    writeFileSync(flipped, sig);
    await assert.rejects(verified({ pubPath: k.pub, sigPath: flipped, input: msgFile }), (e: Error) => e instanceof Failure && e.message === 'signature does not verify');
    const otherMsg = join(dir, `${curve}-other`);
    writeFileSync(otherMsg, message.subarray(1));
    await assert.rejects(verified({ pubPath: k.pub, sigPath: sigFile, input: otherMsg }), (e: Error) => e instanceof Failure && e.message === 'signature does not verify');
  });
}

test('RFC 6979: the same key and file give the same signature', async () => {
  const k = keyFiles('det', 'prime256v1');
  const a = join(dir, 'det-a.sig');
  const b = join(dir, 'det-b.sig');
  await signFile({ keyPath: k.priv, input: msgFile, output: a });
  await signFile({ keyPath: k.priv, input: msgFile, output: b });
  assert.deepEqual(readFileSync(a), readFileSync(b));
});

test('unknown hashes and formats are usage errors naming the choices', async () => {
  const k = keyFiles('bad', 'prime256v1');
  const out = join(dir, 'bad.sig');
  for (const hash of ['sha1', 'md5', 'sha-3-256', 'sha--256']) {
    await assert.rejects(signFile({ keyPath: k.priv, input: msgFile, output: out, hash }), (e: Error) => e instanceof UsageError && e.message === `unknown hash '${hash}' (sha224, sha256, sha384 or sha512)`, hash);
    await assert.rejects(verifyFile({ pubPath: k.pub, sigPath: out, input: msgFile, hash }), (e: Error) => e instanceof UsageError && e.message === `unknown hash '${hash}' (sha224, sha256, sha384 or sha512)`, hash);
  }
  for (const format of ['raw', 'DER', 'p1363 ', '']) {
    await assert.rejects(signFile({ keyPath: k.priv, input: msgFile, output: out, format }), (e: Error) => e instanceof UsageError && e.message === `unknown signature format '${format}' (der or p1363)`, format);
    await assert.rejects(verifyFile({ pubPath: k.pub, sigPath: out, input: msgFile, format }), (e: Error) => e instanceof UsageError && e.message === `unknown signature format '${format}' (der or p1363)`, format);
  }
});

test('sign to stdout with -o -; the file is closed and the key wiped after signing; an unreadable signature file names itself', async () => {
  const k = keyFiles('out', 'prime256v1');
  // `-o -` is stdout: the signature's bytes are written there (the test runner writes there too:
  // what is not a valid signature passes through)
  const isSignature = (c: unknown) => c instanceof Uint8Array && c.length < 100 && c[0] === 0x30 && osslVerify('sha256', message, { key: k.publicKey, dsaEncoding: 'der' }, c);
  const { p256 } = await import('../src/ec/index.js');
  const sign = p256.sign;
  let used: Uint8Array | undefined;
  const fds = () => readdirSync('/dev/fd').length;
  const before = fds();
  const cwd = process.cwd();
  let chunks: unknown[] = [];
  process.chdir(dir); // where a signFile that took '-' for a file name would write it
  try {
    // the private key the CLI loaded, as the curve gets it
    p256.sign = ((digest: Uint8Array, key: Uint8Array, o: never) => {
      used = key;
      return sign.call(p256, digest, key, o);
    }) as typeof p256.sign;
    chunks = await takeFromStdout(isSignature, () => signFile({ keyPath: k.priv, input: msgFile, output: '-' }));
  } finally {
    p256.sign = sign;
    process.chdir(cwd);
  }
  assert.equal(chunks.length, 1, 'the signature went to stdout');
  assert.ok(used && used.length === 32 && used.every((b) => b === 0), 'the private key is wiped once signed');
  assert.equal(fds(), before, 'the input file is closed');
  await assert.rejects(verifyFile({ pubPath: k.pub, sigPath: join(dir, 'missing.sig'), input: msgFile }), (e: Error) => e instanceof FileError && e.message.startsWith(`cannot read signature ${join(dir, 'missing.sig')}: `));
});

// ctkit's key commands against the `openssl` command as a real external peer: keys made by
// either load in the other, public keys agree, and ECDH secrets agree, on every curve.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ctkitArgv, ctkitShim, spawnAsync } from './support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'ctkit-keys-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

function run(cmd: string, args: string[], input?: Uint8Array): { status: number | null; stdout: string; stderr: string; raw: Buffer } {
  const r = spawnSync(cmd, args, { cwd: dir, input });
  return { status: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString(), raw: r.stdout };
}
const ctkit = (args: string[], input?: Uint8Array) => run(process.execPath, ctkitArgv(args), input);
const openssl = (args: string[]) => {
  const r = run('openssl', args);
  assert.equal(r.status, 0, `openssl ${args.join(' ')}: ${r.stderr}`);
  return r;
};

// the same, as child processes that run side by side
async function runA(cmd: string, args: string[], input?: Uint8Array, cwd = dir, env = process.env): Promise<ReturnType<typeof run>> {
  const r = await spawnAsync(cmd, args, { input, cwd, env });
  return { status: r.status, stdout: r.stdout.toString(), stderr: r.stderr, raw: r.stdout };
}
const ctkitA = (args: string[], input?: Uint8Array) => runA(process.execPath, ctkitArgv(args), input);
const opensslA = async (args: string[]) => {
  const r = await runA('openssl', args);
  assert.equal(r.status, 0, `openssl ${args.join(' ')}: ${r.stderr}`);
  return r;
};

// ctkit name -> OpenSSL's curve name
const CURVES: [string, string][] = [
  ['p256', 'prime256v1'],
  ['p224', 'secp224r1'],
  ['brainpoolP256r1', 'brainpoolP256r1'],
  ['p384', 'secp384r1'],
  ['p521', 'secp521r1'],
  ['secp256k1', 'secp256k1'],
  ['brainpoolP384r1', 'brainpoolP384r1'],
  ['brainpoolP512r1', 'brainpoolP512r1'],
];

test('openssl is available as the external peer', () => {
  assert.equal(run('openssl', ['version']).status, 0, 'the openssl command is needed for these tests');
});

// the curves run side by side (their commands are child processes): a quarter of the time alone
describe('every curve', { concurrency: true }, () => {
  for (const [name, osslName] of CURVES) {
    test(`${name}: keys, ECDH and ECDSA interoperate with the openssl command`, async () => {
      const f = (s: string) => join(dir, `${name}-${s}`);
      // ctkit keys in each format; openssl reads the PEM ones
      assert.equal((await ctkitA(['keygen', '--curve', name, '-o', f('ct.pem')])).status, 0);
      assert.equal(statSync(f('ct.pem')).mode & 0o777, 0o600);
      assert.equal((await ctkitA(['keygen', '--curve', name, '--format', 'sec1', '-o', f('ct-sec1.pem')])).status, 0);
      assert.match(readFileSync(f('ct-sec1.pem'), 'utf8'), /BEGIN EC PRIVATE KEY/);
      // JWK has registered curve names only for P-256, P-384, P-521 (RFC 7518) and secp256k1 (RFC 8812)
      const hasJwk = ['p256', 'p384', 'p521', 'secp256k1'].includes(name);
      const j = await ctkitA(['keygen', '--curve', name, '--format', 'jwk', '-o', f('ct.jwk')]);
      if (hasJwk) {
        assert.equal(j.status, 0, j.stderr);
        assert.equal(JSON.parse(readFileSync(f('ct.jwk'), 'utf8')).kty, 'EC');
      } else {
        assert.equal(j.status, 2);
        assert.match(j.stderr, /no registered JWK curve name/);
      }
      // openssl's keys: genpkey (PKCS#8) and ecparam -genkey (SEC 1 with an EC PARAMETERS block)
      await opensslA(['genpkey', '-algorithm', 'EC', '-pkeyopt', `ec_paramgen_curve:${osslName}`, '-out', f('os.pem')]);
      writeFileSync(f('os-ec.pem'), (await opensslA(['ecparam', '-name', osslName, '-genkey'])).raw);
      // public keys agree: ctkit pubkey == openssl pkey -pubout, for keys made by either
      for (const k of ['ct.pem', 'ct-sec1.pem', 'os.pem', 'os-ec.pem']) {
        const mine = await ctkitA(['pubkey', f(k)]);
        assert.equal(mine.status, 0, `${k}: ${mine.stderr}`);
        const theirs = (await opensslA(['pkey', '-in', f(k), '-pubout'])).stdout;
        assert.equal(mine.stdout, theirs, `${name} ${k}: public key differs from openssl's`);
      }
      writeFileSync(f('ct.pub'), (await ctkitA(['pubkey', f('ct.pem')])).stdout);
      writeFileSync(f('os.pub'), (await opensslA(['pkey', '-in', f('os.pem'), '-pubout'])).stdout);
      // ECDH both ways, and against openssl pkeyutl -derive
      const a = await ctkitA(['ecdh', '--key', f('ct.pem'), '--peer', f('os.pub')]);
      assert.equal(a.status, 0, a.stderr);
      const b = await ctkitA(['ecdh', '--key', f('os.pem'), '--peer', f('ct.pub')]);
      assert.equal(b.status, 0, b.stderr);
      const c = (await opensslA(['pkeyutl', '-derive', '-inkey', f('os.pem'), '-peerkey', f('ct.pub')])).raw.toString('hex');
      assert.equal(a.stdout.trim(), c);
      assert.equal(b.stdout.trim(), c);
      // the JWK private key gives the JWK public key with the same coordinates
      if (hasJwk) {
        const jwkPub = await ctkitA(['pubkey', f('ct.jwk'), '--format', 'jwk']);
        const jwk = JSON.parse(readFileSync(f('ct.jwk'), 'utf8'));
        assert.deepEqual(JSON.parse(jwkPub.stdout), { kty: 'EC', crv: jwk.crv, x: jwk.x, y: jwk.y });
      }
      // ECDSA: ctkit sign -> openssl dgst -verify, openssl dgst -sign -> ctkit verify, both tampered
      const hashName = { p224: 'sha224', p384: 'sha384', brainpoolP384r1: 'sha384', p521: 'sha512', brainpoolP512r1: 'sha512' }[name] ?? 'sha256';
      writeFileSync(f('msg'), `message for ${name}\n`);
      writeFileSync(f('msg2'), `another message for ${name}\n`);
      const sg = await ctkitA(['sign', '--key', f('ct.pem'), f('msg'), '-o', f('ct.sig')]);
      assert.equal(sg.status, 0, sg.stderr);
      assert.match((await opensslA(['dgst', `-${hashName}`, '-verify', f('ct.pub'), '-signature', f('ct.sig'), f('msg')])).stdout, /Verified OK/);
      await opensslA(['dgst', `-${hashName}`, '-sign', f('os.pem'), '-out', f('os.sig'), f('msg')]);
      const v1 = await ctkitA(['verify', '--pub', f('os.pub'), '--sig', f('os.sig'), f('msg')]);
      assert.equal(v1.status, 0, v1.stderr);
      assert.equal(v1.stdout, 'Verified OK\n');
      const v2 = await ctkitA(['verify', '--pub', f('os.pub'), '--sig', f('os.sig'), f('msg2')]);
      assert.equal(v2.status, 1, 'a signature of another message verified');
      assert.equal(v2.stderr, 'ctkit verify: signature does not verify\n');
      const bad = readFileSync(f('ct.sig'));
      bad[bad.length - 1] ^= 1;
      writeFileSync(f('bad.sig'), bad);
      assert.equal((await ctkitA(['verify', '--pub', f('ct.pub'), '--sig', f('bad.sig'), f('msg')])).status, 1);
      assert.notEqual((await runA('openssl', ['dgst', `-${hashName}`, '-verify', f('ct.pub'), '-signature', f('bad.sig'), f('msg')])).status, 0);
      // P1363 through stdin, and a DER signature read as P1363 is rejected with status 1
      const sp = await ctkitA(['sign', '--key', f('os-ec.pem'), '--format', 'p1363'], readFileSync(f('msg')));
      assert.equal(sp.status, 0, sp.stderr);
      writeFileSync(f('p.sig'), sp.raw);
      writeFileSync(f('os-ec.pub'), (await opensslA(['pkey', '-in', f('os-ec.pem'), '-pubout'])).stdout);
      assert.equal((await ctkitA(['verify', '--pub', f('os-ec.pub'), '--sig', f('p.sig'), '--format', 'p1363', f('msg')])).status, 0);
      assert.equal((await ctkitA(['verify', '--pub', f('os-ec.pub'), '--sig', f('p.sig'), f('msg')])).status, 1);
      // a raw (hex) private key: pubkey and ecdh with --curve, checked against openssl's derive
      assert.equal((await ctkitA(['keygen', '--curve', name, '--format', 'raw', '-o', f('ct.hex')])).status, 0);
      const rawPub = await ctkitA(['pubkey', f('ct.hex'), '--curve', name]);
      assert.equal(rawPub.status, 0, rawPub.stderr);
      writeFileSync(f('ct-raw.pub'), rawPub.stdout);
      const e1 = await ctkitA(['ecdh', '--key', f('ct.hex'), '--curve', name, '--peer', f('os.pub')]);
      assert.equal(e1.status, 0, e1.stderr);
      assert.equal(e1.stdout.trim(), (await opensslA(['pkeyutl', '-derive', '-inkey', f('os.pem'), '-peerkey', f('ct-raw.pub')])).raw.toString('hex'));
      assert.equal((await ctkitA(['pubkey', f('ct.hex')])).status, 2, 'a raw key without --curve must be a usage error');
      // compressed form is 1 + field bytes and starts 02/03
      const comp = (await ctkitA(['pubkey', f('os.pem'), '--format', 'compressed'])).stdout.trim();
      assert.match(comp, /^0[23][0-9a-f]+$/);
    });
  }
});

test('key usage errors: exit 2 with one line; an invalid key or peer key: exit 1 with its reason', () => {
  writeFileSync(join(dir, 'garbage.pem'), '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
  writeFileSync(join(dir, 'junk.key'), 'this is not a key\n');
  // a point that is not on P-256: the SPKI of the real public key with one coordinate byte changed
  const pub = readFileSync(join(dir, 'p256-ct.pub'), 'utf8');
  const der = Buffer.from(pub.replace(/-----[^-]+-----|\s/g, ''), 'base64');
  der[der.length - 1] ^= 1;
  writeFileSync(join(dir, 'offcurve.pub'), `-----BEGIN PUBLIC KEY-----\n${der.toString('base64')}\n-----END PUBLIC KEY-----\n`);
  const cases: [string[], number, RegExp][] = [
    [['keygen', '--curve', 'p999', '-o', 'x'], 2, /unknown curve 'p999'.*usage: ctkit keygen/],
    [['keygen', '--curve', 'p256', '--format', 'pem2', '-o', 'y'], 2, /unknown private-key format/],
    [['keygen', '--curve', 'p256', '-o', 'no/dir/k.pem'], 2, /cannot create no\/dir\/k\.pem: the directory no\/dir does not exist/],
    [['pubkey', 'nope.pem'], 2, /cannot read public key nope\.pem: no such file/],
    [['ecdh', '--key', 'p256-ct.pem'], 2, /needs --peer/],
    [['sign', '--key', 'p256-ct.pem', '--format', 'ber', 'p256-msg'], 2, /unknown signature format/],
    [['sign', '--key', 'p256-ct.pem', '--hash', 'md5', 'p256-msg'], 2, /unknown hash 'md5'/],
    [['sign', '--key', 'p256-ct.pem', 'no-such-file'], 2, /cannot read no-such-file: no such file/],
    [['verify', '--pub', 'p256-ct.pub', 'p256-msg'], 2, /needs --sig/],
    [['pubkey', 'garbage.pem'], 1, /^ctkit pubkey: invalid key: .*PEM block CERTIFICATE is not a key/],
    [['sign', '--key', 'junk.key', 'p256-msg'], 1, /^ctkit sign: invalid key: private key junk\.key is not a PEM, JWK or hex key/],
    [['ecdh', '--key', 'p256-ct.pem', '--peer', 'p384-os.pub'], 1, /^ctkit ecdh: invalid peer key: public key p384-os\.pub: .*the key is for the curve with OID 1\.3\.132\.0\.34/],
    [['ecdh', '--key', 'p256-ct.pem', '--peer', 'offcurve.pub'], 1, /^ctkit ecdh: invalid peer key: public key offcurve\.pub: .*not a point of p256/],
  ];
  for (const [args, status, re] of cases) {
    const r = ctkit(args);
    assert.equal(r.status, status, `${args.join(' ')}: exit ${r.status} ${r.stderr}`);
    assert.match(r.stderr, re, args.join(' '));
    assert.equal(r.stderr.split('\n').length, 2, `${args.join(' ')}: one line, got ${JSON.stringify(r.stderr)}`);
  }
});

describe("the help's examples of sign and verify work as printed, with the real openssl, on every curve", { concurrency: true }, () => {
  const bin = ctkitShim();
  after(() => rmSync(bin, { recursive: true, force: true }));
  const examples = (cmd: string) => {
    const help = ctkit([cmd, '--help']).stdout;
    return help
      .slice(help.indexOf('examples:') + 9)
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
  };
  const lines = [...examples('sign'), ...examples('verify')];
  for (const [name] of CURVES) {
    test(name, async () => {
      assert.equal(lines.length, 4, 'two examples of sign and two of verify');
      const d = join(dir, `examples-${name}`);
      mkdirSync(d);
      assert.equal((await ctkitA(['keygen', '--curve', name, '-o', join(d, 'alice.pem')])).status, 0);
      writeFileSync(join(d, 'alice.pub'), (await ctkitA(['pubkey', join(d, 'alice.pem')])).stdout);
      writeFileSync(join(d, 'release.tar'), `release of ${name}\n`.repeat(1000));
      for (const line of lines) {
        const r = await runA('bash', ['-c', line], undefined, d, { ...process.env, PATH: `${bin}:${process.env.PATH}` });
        assert.equal(r.status, 0, `${name}: \`${line}\` failed: ${r.stdout} ${r.stderr}`);
        if (/verify/.test(line)) assert.match(r.stdout, /Verified OK/, `${name}: ${line}`);
      }
    });
  }
});

test('sign and verify take --hash: a P-256 signature over SHA-512 verifies with openssl dgst -sha512 and not with the default', () => {
  writeFileSync(join(dir, 'h.msg'), 'hash me\n');
  const s = ctkit(['sign', '--key', 'p256-ct.pem', '--hash', 'sha512', 'h.msg', '-o', 'h.sig']);
  assert.equal(s.status, 0, s.stderr);
  assert.match(openssl(['dgst', '-sha512', '-verify', 'p256-ct.pub', '-signature', 'h.sig', 'h.msg']).stdout, /Verified OK/);
  assert.equal(ctkit(['verify', '--pub', 'p256-ct.pub', '--sig', 'h.sig', '--hash', 'sha512', 'h.msg']).status, 0);
  assert.equal(ctkit(['verify', '--pub', 'p256-ct.pub', '--sig', 'h.sig', 'h.msg']).status, 1);
});

// Issue 12 point 8: the library reads what the CLI reads.
test('importPrivateKey reads `openssl ecparam -genkey` output and PEM given as bytes, on every curve', async () => {
  const ec = await import('../src/ec/index.js');
  const { InvalidKeyError, EncodingError } = await import('../src/errors.js');
  const byName: Record<string, import('../src/ec/index.js').Curve> = {
    p256: ec.p256,
    p224: ec.p224,
    brainpoolP256r1: ec.brainpoolP256r1,
    p384: ec.p384,
    p521: ec.p521,
    secp256k1: ec.secp256k1,
    brainpoolP384r1: ec.brainpoolP384r1,
    brainpoolP512r1: ec.brainpoolP512r1,
  };
  const enc = new TextEncoder();
  for (const [name, osslName] of CURVES) {
    const curve = byName[name];
    const text = openssl(['ecparam', '-name', osslName, '-genkey']).stdout;
    assert.match(text, /^-----BEGIN EC PARAMETERS-----[\s\S]+-----BEGIN EC PRIVATE KEY-----/);
    writeFileSync(join(dir, `lib-${name}.pem`), text);
    // openssl's own view of the scalar: the PKCS#8 DER it converts the key to
    const pkcs8 = run('openssl', ['pkcs8', '-topk8', '-nocrypt', '-in', join(dir, `lib-${name}.pem`), '-outform', 'DER']).raw;
    const expected = curve.importPrivateKey(new Uint8Array(pkcs8), 'pkcs8-der');
    assert.deepEqual(curve.importPrivateKey(text, 'sec1-pem'), expected, `${name}: string`);
    assert.deepEqual(curve.importPrivateKey(enc.encode(text), 'sec1-pem'), expected, `${name}: bytes`);
    const pkcs8Pem = curve.exportPrivateKey(expected, 'pkcs8-pem');
    assert.deepEqual(curve.importPrivateKey(enc.encode(pkcs8Pem), 'pkcs8-pem'), expected, `${name}: PKCS#8 PEM as bytes`);
    const spki = curve.exportPublicKey(curve.getPublicKey(expected), 'spki-pem');
    assert.deepEqual(curve.importPublicKey(enc.encode(spki), 'spki-pem'), curve.getPublicKey(expected), `${name}: SPKI PEM as bytes`);
  }
  // an EC PARAMETERS block naming another curve is refused, even though the key itself names p256
  const p256Key = openssl(['ecparam', '-name', 'prime256v1', '-genkey']).stdout;
  const p384Params = openssl(['ecparam', '-name', 'secp384r1']).stdout;
  const mixed = p384Params + p256Key.slice(p256Key.indexOf('-----BEGIN EC PRIVATE KEY-----'));
  assert.throws(
    () => ec.p256.importPrivateKey(mixed, 'sec1-pem'),
    (e: Error) => e instanceof InvalidKeyError && /EC PARAMETERS block names the curve with OID 1\.3\.132\.0\.34/.test(e.message),
  );
  // explicit parameters are refused, binary bytes are not PEM
  const explicit = openssl(['ecparam', '-name', 'prime256v1', '-param_enc', 'explicit']).stdout;
  assert.throws(() => ec.p256.importPrivateKey(explicit + p256Key.slice(p256Key.indexOf('-----BEGIN EC PRIVATE KEY-----')), 'sec1-pem'), /explicit curve parameters/);
  assert.throws(
    () => ec.p256.importPrivateKey(Uint8Array.of(0x30, 0x82, 0x01), 'sec1-pem'),
    (e: Error) => e instanceof EncodingError && /not PEM text/.test(e.message),
  );
  // and the CLI reads the same file through the library
  writeFileSync(join(dir, 'lib-mixed.pem'), mixed);
  const r = ctkit(['pubkey', join(dir, 'lib-mixed.pem')]);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /EC PARAMETERS block names the curve/);
});

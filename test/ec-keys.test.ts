// The key API's checks and errors: argument types and lengths, invalid private scalars and
// public points, strict DER / PEM / JWK parsing with messages that say what is malformed, key
// generation, and the wiping of kernel memory after operations on secrets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { p224, p256, p384, p521, brainpoolP256r1, brainpoolP384r1, brainpoolP512r1, secp256k1, EncodingError, InvalidKeyError, type EcJwk } from '../src/ec/index.js';
import { curveKernel } from '../src/ec/curve.js';
import { SCRATCH_PTR } from '../src/engine/kernel.js';
import { backend, setBackend } from '../src/engine/backend.js';
import { bigToBytes } from '../src/ref/ec.js';
import { hex, unhex } from './support/rng.js';
import './support/ec-curves.js'; // on js: every curve's opt-in JavaScript, as an application imports it

const sk = unhex('c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721');
const pk = p256.getPublicKey(sk);
const n = p256.params.n,
  p = p256.params.p;

const throwsWith = (f: () => unknown, cls: abstract new (...args: never[]) => unknown, re: RegExp) => assert.throws(f, (e: unknown) => e instanceof cls && re.test((e as Error).message), `expected ${cls.name} matching ${re}`);

test('private keys: types, lengths and the range [1, n − 1]', () => {
  throwsWith(() => p256.getPublicKey(new Uint8Array(31)), RangeError, /privateKey must be 32 bytes long, got 31/);
  throwsWith(() => p521.getPublicKey(new Uint8Array(65)), RangeError, /privateKey must be 66 bytes long, got 65/);
  throwsWith(() => p256.getPublicKey('00' as unknown as Uint8Array), TypeError, /privateKey must be a Uint8Array/);
  for (const v of [0n, n, n + 1n, (1n << 256n) - 1n]) {
    throwsWith(() => p256.getPublicKey(bigToBytes(v, 32)), InvalidKeyError, /not a valid p256 private key/);
    throwsWith(() => p256.ecdh(bigToBytes(v, 32), pk), InvalidKeyError, /privateKey/);
    assert.equal(p256.isValidPrivateKey(bigToBytes(v, 32)), false);
  }
  for (const v of [1n, n - 1n]) assert.equal(p256.isValidPrivateKey(bigToBytes(v, 32)), true);
  // P-521: the top byte holds one bit
  throwsWith(() => p521.getPublicKey(new Uint8Array(66).fill(0xff)), InvalidKeyError, /private key/);
});

test('public keys: every SEC 1 rule (encoding, range, on the curve, not infinity, compressed decoding)', () => {
  const x = pk.subarray(1, 33),
    y = pk.subarray(33);
  const point = (...parts: (Uint8Array | number[])[]) => Uint8Array.from(parts.flatMap((q) => [...q]));
  throwsWith(() => p256.ecdh(sk, Uint8Array.of(0)), InvalidKeyError, /point at infinity/);
  throwsWith(() => p256.ecdh(sk, point([5], x, y)), EncodingError, /must start with 04/);
  throwsWith(() => p256.ecdh(sk, point([6], x, y)), EncodingError, /hybrid encoding is not supported/);
  throwsWith(() => p256.ecdh(sk, point([4], x, x)), InvalidKeyError, /not a point of p256/);
  throwsWith(() => p256.ecdh(sk, point([4], bigToBytes(p, 32), y)), InvalidKeyError, /not a point of p256/);
  // x + p and y + p do not fit; x with y + p: the same point mod p, refused (coordinate ≥ p)
  const yBig = BigInt('0x' + hex(y));
  if (yBig + p < 1n << 256n) throwsWith(() => p256.ecdh(sk, point([4], x, bigToBytes(yBig + p, 32))), InvalidKeyError, /coordinate is ≥ p/);
  // That guard never holds on P-256 (p > 2^256 − 2^224, and this key's y is fixed), so check the
  // rule where y + p fits: on brainpoolP256r1 (p < 0.67 · 2^256) min(y, p − y) + p < 2^256 always.
  {
    const bsk = bigToBytes(12345n, 32);
    const bpk = brainpoolP256r1.getPublicKey(bsk);
    const bp = brainpoolP256r1.params.p;
    const by = BigInt('0x' + hex(bpk.subarray(33)));
    const ySmall = by < bp - by ? by : bp - by;
    assert.ok(ySmall + bp < 1n << 256n);
    throwsWith(() => brainpoolP256r1.ecdh(bsk, point([4], bpk.subarray(1, 33), bigToBytes(ySmall + bp, 32))), InvalidKeyError, /coordinate is ≥ p/);
    // the same point with its coordinate reduced is accepted: the refusal is the range rule alone
    assert.equal(hex(brainpoolP256r1.ecdh(bsk, point([4], bpk.subarray(1, 33), bigToBytes(ySmall, 32)))).length, 64);
  }
  throwsWith(() => p256.ecdh(sk, point([2], bigToBytes(p, 32))), InvalidKeyError, /x is ≥ p/);
  // an x with no point: x³ − 3x + b a non-residue (search a small one)
  let bad = 0n;
  for (let t = 1n; ; t++) {
    if (!p256.isValidPublicKey(point([2], bigToBytes(t, 32)))) {
      bad = t;
      break;
    }
  }
  throwsWith(() => p256.ecdh(sk, point([3], bigToBytes(bad, 32))), InvalidKeyError, /not the x-coordinate of a point/);
  throwsWith(() => p256.ecdh(sk, point([1], x)), EncodingError, /must start with 02 or 03/);
  throwsWith(() => p256.ecdh(sk, pk.subarray(0, 64)), RangeError, /peerPublicKey must be 65 or 33 bytes long, got 64/);
  // a P-384 key on P-256, and a P-256 point on brainpoolP256r1 (same length, other curve)
  throwsWith(() => p256.ecdh(sk, p384.getPublicKey(p384.generatePrivateKey())), RangeError, /must be 65 or 33 bytes/);
  throwsWith(() => brainpoolP256r1.ecdh(brainpoolP256r1.generatePrivateKey(), pk), InvalidKeyError, /not a point of brainpoolP256r1/);
  // compressed and uncompressed round trips
  const cpk = p256.compressPublicKey(pk);
  assert.equal(cpk.length, 33);
  assert.deepEqual(p256.decompressPublicKey(cpk), pk);
  assert.deepEqual(p256.ecdh(sk, cpk), p256.ecdh(sk, pk));
});

test('P-224 decompression (Tonelli–Shanks, p ≡ 1 mod 2^96) agrees with OpenSSL', () => {
  for (let i = 0; i < 40; i++) {
    const k = p224.generatePrivateKey();
    const full = p224.getPublicKey(k);
    const comp = p224.getPublicKey(k, { compressed: true });
    assert.deepEqual(Buffer.from(crypto.ECDH.convertKey(comp, 'secp224r1', undefined, undefined, 'uncompressed') as Buffer), Buffer.from(full));
    assert.deepEqual(p224.decompressPublicKey(comp), full);
  }
});

// ---- DER ---------------------------------------------------------------------------------------

const pkcs8 = p256.exportPrivateKey(sk, 'pkcs8-der');
const sec1 = p256.exportPrivateKey(sk, 'sec1-der');
const spki = p256.exportPublicKey(pk, 'spki-der');
const edit = (b: Uint8Array, at: number, ...bytes: number[]) => {
  const c = b.slice();
  bytes.forEach((v, i) => (c[at + i] = v));
  return c;
};
const join = (...parts: (Uint8Array | number[])[]) => Uint8Array.from(parts.flatMap((q) => [...q]));

test('strict DER: errors say what is malformed and where', () => {
  // trailing data
  throwsWith(() => p256.importPrivateKey(join(pkcs8, [0]), 'pkcs8-der'), EncodingError, /unexpected data after the last element of PKCS#8 private key at byte 138/);
  throwsWith(() => p256.importPublicKey(join(spki, [0, 0]), 'spki-der'), EncodingError, /unexpected data after/);
  // truncation
  throwsWith(() => p256.importPrivateKey(pkcs8.subarray(0, 100), 'pkcs8-der'), EncodingError, /runs past the end of its container/);
  throwsWith(() => p256.importPublicKey(spki.subarray(0, 1), 'spki-der'), EncodingError, /length missing/);
  // a non-minimal length (0x81 0x57 for 87) in the SubjectPublicKeyInfo
  const longLen = join([0x30, 0x81, spki[1]], spki.subarray(2));
  throwsWith(() => p256.importPublicKey(longLen, 'spki-der'), EncodingError, /length not in its shortest form \(BER, not DER\) at byte 1/);
  // an indefinite length
  throwsWith(() => p256.importPublicKey(join([0x30, 0x80], spki.subarray(2), [0, 0]), 'spki-der'), EncodingError, /indefinite length/);
  // the wrong outer tag
  throwsWith(() => p256.importPublicKey(edit(spki, 0, 0x31), 'spki-der'), EncodingError, /expected SubjectPublicKeyInfo \(SEQUENCE \(0x30\)\), found tag \(0x31\) at byte 0/);
  // BIT STRING with unused bits
  const bitsAt = spki.length - 66;
  throwsWith(() => p256.importPublicKey(edit(spki, bitsAt, 1), 'spki-der'), EncodingError, /BIT STRING with 1 unused bits/);
  // a version that is not minimally encoded, a wrong version
  throwsWith(() => p256.importPrivateKey(join([0x30, 0x81, pkcs8[2] + 1, 0x02, 0x02, 0x00, 0x00], pkcs8.subarray(6)), 'pkcs8-der'), EncodingError, /INTEGER not in its shortest form/);
  throwsWith(() => p256.importPrivateKey(edit(pkcs8, 5, 1), 'pkcs8-der'), EncodingError, /version 1 is not supported/);
  throwsWith(() => p256.importPrivateKey(edit(sec1, 4, 2), 'sec1-der'), EncodingError, /ECPrivateKey version 2, expected 1/);
  // an OID sub-identifier with 0x80 padding
  const oidAt = spki.indexOf(0x2a); // 1.2…: first byte 0x2a
  throwsWith(() => p256.importPublicKey(join(edit(spki.subarray(0, oidAt), 1, spki[1] + 1, 0x30, spki[3] + 1, 0x06, spki[5] + 1), [0x80], spki.subarray(oidAt)), 'spki-der'), EncodingError, /sub-identifier not in its shortest form/);
});

test('key structures: algorithm, curve, explicit parameters, lengths, consistency', () => {
  // an RSA key
  const rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 1024 });
  throwsWith(() => p256.importPublicKey(new Uint8Array(rsa.publicKey.export({ type: 'spki', format: 'der' })), 'spki-der'), InvalidKeyError, /not an elliptic-curve key \(algorithm 1\.2\.840\.113549\.1\.1\.1/);
  throwsWith(() => p256.importPrivateKey(new Uint8Array(rsa.privateKey.export({ type: 'pkcs8', format: 'der' })), 'pkcs8-der'), InvalidKeyError, /not an elliptic-curve key/);
  // a key of another curve
  const k384 = p384.generatePrivateKey();
  throwsWith(() => p256.importPrivateKey(p384.exportPrivateKey(k384, 'pkcs8-der'), 'pkcs8-der'), InvalidKeyError, /curve with OID 1\.3\.132\.0\.34, not p256/);
  throwsWith(() => p256.importPrivateKey(p384.exportPrivateKey(k384, 'sec1-pem'), 'sec1-pem'), InvalidKeyError, /curve with OID 1\.3\.132\.0\.34/);
  throwsWith(() => p256.importPublicKey(secp256k1.exportPublicKey(secp256k1.getPublicKey(secp256k1.generatePrivateKey()), 'spki-pem'), 'spki-pem'), InvalidKeyError, /1\.3\.132\.0\.10/);
  // explicit parameters (OpenSSL's paramEncoding: 'explicit')
  const ex = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1', paramEncoding: 'explicit' });
  throwsWith(() => p256.importPublicKey(new Uint8Array(ex.publicKey.export({ type: 'spki', format: 'der' })), 'spki-der'), EncodingError, /explicit curve parameters are not supported/);
  throwsWith(() => p256.importPrivateKey(ex.privateKey.export({ type: 'sec1', format: 'pem' }) as string, 'sec1-pem'), EncodingError, /explicit curve parameters/);
  // the scalar's OCTET STRING must be exactly 32 bytes
  const short = join([0x30, 0x30, 0x02, 0x01, 0x01, 0x04, 0x1f], sk.subarray(1), sec1.subarray(39, 51));
  throwsWith(() => p256.importPrivateKey(short, 'sec1-der'), EncodingError, /the private key is 31 bytes, p256 keys are 32 bytes/);
  // a public key that belongs to another private key
  const other = p256.exportPrivateKey(p256.generatePrivateKey(), 'sec1-der');
  const mixed = join(sec1.subarray(0, 7 + 32), other.subarray(7 + 32));
  throwsWith(() => p256.importPrivateKey(mixed, 'sec1-der'), InvalidKeyError, /the public key does not belong to the private key/);
  // a private scalar out of range inside a valid structure
  const zero = p256.exportPrivateKey(sk, 'pkcs8-der', { publicKey: false });
  zero.fill(0, zero.length - 32);
  throwsWith(() => p256.importPrivateKey(zero, 'pkcs8-der'), InvalidKeyError, /not a valid p256 private key/);
  // raw
  assert.deepEqual(p256.importPrivateKey(sk, 'raw'), sk);
  throwsWith(() => p256.importPrivateKey(new Uint8Array(33), 'raw'), RangeError, /data must be 32 bytes long/);
  throwsWith(() => p256.importPrivateKey(sk, 'der' as never), RangeError, /format must be one of/);
});

test('PEM: label, headers, base64 and framing', () => {
  const text = p256.exportPrivateKey(sk, 'pkcs8-pem');
  assert.deepEqual(p256.importPrivateKey(`\n  ${text.replace(/\n/g, '\r\n')}  \n`, 'pkcs8-pem'), sk);
  throwsWith(() => p256.importPrivateKey(text, 'sec1-pem'), EncodingError, /PEM label is "PRIVATE KEY", expected "EC PRIVATE KEY"/);
  throwsWith(() => p256.importPrivateKey(text.replace('MIGH', 'MI*H'), 'pkcs8-pem'), EncodingError, /PEM line 2 is not base64/);
  throwsWith(() => p256.importPrivateKey(text.replace('-----END PRIVATE KEY-----', ''), 'pkcs8-pem'), EncodingError, /does not end with/);
  throwsWith(() => p256.importPrivateKey(text.replace('-----\n', '-----\nProc-Type: 4,ENCRYPTED\n'), 'pkcs8-pem'), EncodingError, /headers \(encrypted keys\)/);
  throwsWith(() => p256.importPrivateKey('hello', 'pkcs8-pem'), EncodingError, /not PEM/);
  throwsWith(() => p256.importPublicKey(p256.exportPublicKey(pk, 'spki-pem').replace(/=*\n-----END/, 'A\n-----END'), 'spki-pem'), EncodingError, /base64/);
});

test('JWK: members, curve names, base64url, consistency', () => {
  const jwk = p256.exportPrivateKey(sk, 'jwk');
  assert.deepEqual(p256.importPrivateKey(jwk, 'jwk'), sk);
  assert.deepEqual(p256.importPublicKey(p256.exportPublicKey(pk, 'jwk'), 'jwk'), pk);
  throwsWith(() => p256.importPrivateKey({ ...jwk, kty: 'RSA' } as unknown as EcJwk, 'jwk'), InvalidKeyError, /kty is "RSA"/);
  throwsWith(() => p256.importPrivateKey({ ...jwk, crv: 'P-384' }, 'jwk'), InvalidKeyError, /crv is "P-384", expected "P-256"/);
  throwsWith(() => p256.importPrivateKey({ ...jwk, x: jwk.x + '=' }, 'jwk'), EncodingError, /must not be padded/);
  throwsWith(() => p256.importPrivateKey({ ...jwk, x: jwk.x.slice(0, -3) }, 'jwk'), EncodingError, /"x" is 30 bytes, expected 32/);
  throwsWith(() => p256.importPrivateKey({ ...jwk, d: undefined }, 'jwk'), EncodingError, /"d" is missing/);
  const other = p256.exportPrivateKey(p256.generatePrivateKey(), 'jwk');
  throwsWith(() => p256.importPrivateKey({ ...jwk, d: other.d }, 'jwk'), InvalidKeyError, /x and y do not belong to d/);
  throwsWith(() => p256.importPublicKey({ ...jwk, y: jwk.x }, 'jwk'), InvalidKeyError, /not a point of p256/);
  throwsWith(() => p224.exportPrivateKey(p224.generatePrivateKey(), 'jwk'), EncodingError, /no registered JWK curve name for p224/);
  throwsWith(() => brainpoolP256r1.importPublicKey(jwk, 'jwk'), EncodingError, /no registered JWK curve name for brainpoolP256r1/);
});

test('generatePrivateKey: valid, distinct, P-521 top byte within bits(n)', () => {
  const seen = new Set<string>();
  for (const c of [p256, brainpoolP256r1, p521]) {
    for (let i = 0; i < 40; i++) {
      const k = c.generatePrivateKey();
      assert.equal(k.length, c.privateKeyBytes);
      assert.ok(c.isValidPrivateKey(k));
      if (c === p521) assert.ok(k[0] <= 1);
      seen.add(hex(k));
    }
  }
  assert.equal(seen.size, 120);
});

test('kernel memory holding secrets is wiped after each operation', () => {
  for (const c of [p256, p521]) {
    const k = c.generatePrivateKey();
    c.ecdh(k, c.getPublicKey(c.generatePrivateKey()));
    c.getPublicKey(k);
    c.scalarField.inv(k);
    const e = curveKernel(c);
    const u8 = e.k.u8;
    assert.ok(
      u8.subarray(0, 2048).every((b) => b === 0),
      'IO area not wiped',
    );
    assert.ok(
      u8.subarray(SCRATCH_PTR, SCRATCH_PTR + e.wsSize).every((b) => b === 0),
      'work space not wiped',
    );
  }
});

test('scalarField: one object per kernel, a new one when setBackend changes the kernel', () => {
  const before = backend();
  const a = p256.generatePrivateKey(),
    b = p256.generatePrivateKey();
  try {
    setBackend('simd');
    const simd = p256.scalarField;
    assert.equal(p256.scalarField, simd, 'a second read made a new object');
    setBackend('wasm');
    const wasm = p256.scalarField;
    assert.notEqual(wasm, simd, "the wasm kernel kept the simd kernel's field");
    assert.equal(p256.scalarField, wasm);
    assert.deepEqual(wasm.mul(a, b), simd.mul(a, b));
    setBackend('simd');
    assert.equal(p256.scalarField, simd, 'back on simd: the first object again');
  } finally {
    setBackend(before);
  }
});

test('scalarField (mod n, for ECDSA) against BigInt', () => {
  for (const c of [p256, p521, secp256k1]) {
    const N = c.params.n,
      L = c.privateKeyBytes;
    const big = (b: Uint8Array) => BigInt('0x' + hex(b));
    for (let i = 0; i < 20; i++) {
      const a = c.generatePrivateKey(),
        b = c.generatePrivateKey(),
        d = c.generatePrivateKey();
      const [A, B, D] = [big(a), big(b), big(d)];
      assert.equal(big(c.scalarField.mul(a, b)), (A * B) % N);
      assert.equal(big(c.scalarField.add(a, b)), (A + B) % N);
      assert.equal(big(c.scalarField.sub(a, b)), (((A - B) % N) + N) % N);
      assert.equal(big(c.scalarField.neg(a)), (N - A) % N);
      assert.equal(big(c.scalarField.mulAdd(a, b, d)), (A * B + D) % N);
      assert.equal((big(c.scalarField.inv(a)) * A) % N, 1n);
      const wide = new Uint8Array(L).fill(0xff);
      assert.equal(big(c.scalarField.reduce(wide)), ((1n << BigInt(8 * L)) - 1n) % N);
    }
  }
});

test('scalarField.inv (constant-time safegcd, Montgomery factor restored) on every curve: edge values, 0 → 0, inputs ≥ n', () => {
  const curves = { p224, p256, p384, p521, brainpoolP256r1, secp256k1, brainpoolP384r1, brainpoolP512r1 };
  for (const c of Object.values(curves)) {
    const N = c.params.n,
      L = c.privateKeyBytes;
    const big = (b: Uint8Array) => BigInt('0x' + hex(b));
    const modInv = (a: bigint) => {
      // extended Euclid, written here
      let [r0, r1, s0, s1] = [a % N, N, 1n, 0n];
      while (r1 !== 0n) {
        const q = r0 / r1;
        [r0, r1, s0, s1] = [r1, r0 - q * r1, s1, s0 - q * s1];
      }
      return ((s0 % N) + N) % N;
    };
    const inputs = [1n, 2n, 3n, N - 1n, N - 2n, (N + 1n) / 2n, 1n << BigInt(8 * L - 9), N + 5n, (1n << BigInt(8 * L)) - 1n];
    for (let i = 0; i < 8; i++) inputs.push(big(c.generatePrivateKey()));
    for (const A of inputs) {
      const got = big(c.scalarField.inv(bigToBytes(A, L)));
      assert.equal(got, modInv(A), `${c.name}: inv(0x${A.toString(16)})`);
    }
    assert.equal(big(c.scalarField.inv(new Uint8Array(L))), 0n, `${c.name}: inv(0)`);
    assert.equal(big(c.scalarField.inv(bigToBytes(N, L))), 0n, `${c.name}: inv(n)`);
  }
});

// ECDSA against OpenSSL through node:crypto, every curve: 200 signatures each way in each
// encoding (DER and ieee-p1363) — ctkit signs and OpenSSL verifies, OpenSSL signs and ctkit
// verifies — with keys and messages from a seed, the curve's hash and a second one, every third
// ctkit signature hedged; and every tenth pair tampered (a bit of r or s, or one byte more of
// message), which both must reject.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as ec from '../src/ec/index.js';
import type { EcdsaCurve } from '../src/ec/ecdsa.js';
import type { CurveName } from '../src/curves/params.js';
import { opensslPart } from './support/ecdsa-suite.js';
import { perBackend } from './support/ec-curves.js';

const CURVE_OBJECTS: Record<CurveName, EcdsaCurve> = {
  p256: ec.p256,
  p224: ec.p224,
  brainpoolP256r1: ec.brainpoolP256r1,
  p384: ec.p384,
  p521: ec.p521,
  secp256k1: ec.secp256k1,
  brainpoolP384r1: ec.brainpoolP384r1,
  brainpoolP512r1: ec.brainpoolP512r1,
};

const COUNT = perBackend(200, 20); // a multiple of 10; fewer on the scalar backends (test/backends.test.ts)

for (const [name, c] of Object.entries(CURVE_OBJECTS) as [CurveName, EcdsaCurve][]) {
  test(`${name}: ${COUNT} signatures each way in DER and in P1363 agree with OpenSSL; tampered ones rejected by both`, () => {
    const { total, failures } = opensslPart(c, name, COUNT);
    assert.deepEqual(failures.slice(0, 5), [], `${failures.length} of ${total} checks failed`);
    // 2 encodings × COUNT × (ctkit→OpenSSL + OpenSSL→ctkit) + tampering: 2 signatures × 2 ways × 2 verifiers per tenth
    assert.equal(total, 2 * COUNT * 2 + 2 * (COUNT / 10) * 8);
  });
}

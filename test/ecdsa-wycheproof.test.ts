// Every case of the Wycheproof ECDSA files (ecdsa_<curve>_<hash>_test.json, DER signatures):
// `valid` must verify (and its P1363 form too); `invalid` must return false or throw a typed
// ctkit error (EncodingError for BER or otherwise malformed DER). These files have no
// `acceptable` case; one appearing would fail the run until a policy is written for it. The
// vectors are vendored in test/vectors/wycheproof; a missing file fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as ec from '../src/ec/index.js';
import type { EcdsaCurve } from '../src/ec/ecdsa.js';
import type { CurveName } from '../src/curves/params.js';
import { readdirSync } from 'node:fs';
import { WYCHEPROOF_DIR, WYCHEPROOF_FILES, loadWycheproof, wycheproofPart } from './support/ecdsa-suite.js';
import './support/ec-curves.js'; // on js: every curve's opt-in JavaScript, as an application imports it

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

test('Wycheproof: every vendored ecdsa_*_test.json is mapped to a curve here', () => {
  const present = readdirSync(WYCHEPROOF_DIR)
    .filter((f) => /^ecdsa_.*_test\.json$/.test(f))
    .sort();
  assert.deepEqual(present, Object.values(WYCHEPROOF_FILES).flat().sort());
});

let all = 0,
  ran = 0;
for (const [name, files] of Object.entries(WYCHEPROOF_FILES) as [CurveName, string[]][]) {
  for (const file of files) {
    ran++;
    test(`Wycheproof ${file}: every case`, () => {
      const expected = loadWycheproof(file).numberOfTests;
      const t = wycheproofPart(CURVE_OBJECTS[name], file);
      assert.deepEqual(t.failures, []);
      assert.equal(t.total, expected, 'every case ran');
      assert.equal(t.valid + t.invalidFalse + Object.values(t.invalidThrown).reduce((a, b) => a + b, 0), expected);
      assert.equal(t.p1363, t.valid, 'every valid case also verified as P1363');
      all += t.total;
      console.log(`${file}: ${t.total} cases: ${t.valid} valid verified, ${t.invalidFalse} invalid → false, invalid → thrown ${JSON.stringify(t.invalidThrown)}`);
    });
  }
}

test('Wycheproof: all nine ECDSA files ran (4499 cases)', () => {
  assert.equal(ran, 9);
  assert.equal(all, 4499);
});

// Every case of the Wycheproof ECDH files (ecdh_<curve>_test.json, public keys as
// SubjectPublicKeyInfo DER): the result must match `result`; each `acceptable` case is decided
// by the policy below, which says why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ec from '../src/ec/index.js';
import type { Curve } from '../src/ec/index.js';
import { CtkitError } from '../src/errors.js';
import { hex, unhex } from './support/rng.js';
import type { CurveName } from '../src/curves/params.js';
import './support/ec-curves.js'; // on js: every curve's opt-in JavaScript, as an application imports it

const repoRoot = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = path.join(repoRoot, 'test', 'vectors', 'wycheproof', 'testvectors_v1');

const FILES: [string, Curve, CurveName][] = [
  ['ecdh_secp256r1_test.json', ec.p256, 'p256'],
  ['ecdh_secp224r1_test.json', ec.p224, 'p224'],
  ['ecdh_brainpoolP256r1_test.json', ec.brainpoolP256r1, 'brainpoolP256r1'],
  ['ecdh_secp384r1_test.json', ec.p384, 'p384'],
  ['ecdh_secp521r1_test.json', ec.p521, 'p521'],
  ['ecdh_secp256k1_test.json', ec.secp256k1, 'secp256k1'],
  ['ecdh_brainpoolP384r1_test.json', ec.brainpoolP384r1, 'brainpoolP384r1'],
  ['ecdh_brainpoolP512r1_test.json', ec.brainpoolP512r1, 'brainpoolP512r1'],
] as [string, Curve, CurveName][];

/**
 * Our choice for each `acceptable` flag:
 *   CompressedPublic / CompressedPoint — accepted: SEC 1 allows compressed points and we decode
 *     them (the shared secret must then equal the vector's).
 *   InvalidAsn — rejected: the encoding is BER, not DER (non-minimal lengths or integers,
 *     indefinite lengths, …); we parse DER strictly.
 *   UnnamedCurve (with UnusedParam, ModifiedGenerator, WrongOrder, ModifiedCofactor, NoCofactor,
 *     ModifiedCurveParameter) — rejected: explicit curve parameters are refused; only the
 *     named-curve OID is accepted.
 */
function acceptableVerdict(flags: string[]): 'accept' | 'reject' {
  if (flags.includes('CompressedPublic') || flags.includes('CompressedPoint')) return 'accept';
  if (flags.includes('InvalidAsn') || flags.includes('UnnamedCurve')) return 'reject';
  throw new Error(`no policy for acceptable flags ${flags.join(', ')}`);
}

interface Vector {
  tcId: number;
  comment: string;
  flags: string[];
  public: string;
  private: string;
  shared: string;
  result: 'valid' | 'invalid' | 'acceptable';
}

/** The private key hex as a fixed-length scalar (Wycheproof writes the integer's DER bytes). */
function scalar(h: string, len: number): Uint8Array {
  let b = unhex(h);
  while (b.length > len && b[0] === 0) b = b.subarray(1);
  if (b.length > len) throw new Error('private key too long');
  const out = new Uint8Array(len);
  out.set(b, len - b.length);
  return out;
}

test('the Wycheproof vectors are present', () => {
  assert.ok(existsSync(dir), `Wycheproof vectors missing: ${dir} (vendored in test/vectors/wycheproof)`);
});

for (const [file, curve] of FILES) {
  test(`Wycheproof ${file}: every case honoured`, () => {
    const p = path.join(dir, file);
    assert.ok(existsSync(p), `missing Wycheproof file ${p}`);
    const data = JSON.parse(readFileSync(p, 'utf8'));
    let n = 0,
      accepted = 0,
      rejected = 0;
    const bad: string[] = [];
    for (const g of data.testGroups) {
      for (const t of g.tests as Vector[]) {
        n++;
        let shared: Uint8Array | undefined;
        let error: unknown;
        try {
          const pub = curve.importPublicKey(unhex(t.public), 'spki-der');
          shared = curve.ecdh(scalar(t.private, curve.privateKeyBytes), pub);
        } catch (e) {
          if (!(e instanceof CtkitError || e instanceof RangeError)) throw e;
          error = e;
        }
        const want = t.result === 'acceptable' ? acceptableVerdict(t.flags) : t.result === 'valid' ? 'accept' : 'reject';
        if (want === 'accept') {
          if (shared === undefined) bad.push(`tcId ${t.tcId} (${t.comment}): rejected: ${(error as Error).message}`);
          else if (hex(shared) !== t.shared) bad.push(`tcId ${t.tcId} (${t.comment}): wrong shared secret`);
          else accepted++;
        } else if (shared !== undefined) bad.push(`tcId ${t.tcId} (${t.comment}): accepted, expected rejection`);
        else rejected++;
      }
    }
    assert.equal(n, data.numberOfTests);
    assert.deepEqual(bad.slice(0, 10), [], `${bad.length} of ${n} cases wrong`);
    console.log(`# ${file}: ${n} cases, ${accepted} accepted, ${rejected} rejected`);
  });
}

// Symmetric key files (`ctkit keygen --aead`): read by seal, open and age, which must not load
// the curve code that src/cli/keys.ts brings with it.

import { unbase64urlBytes } from '../ec/der.js';
import { ALGORITHMS, type AlgorithmInfo, algorithmByName } from '../stream/format.js';
import { type JsonObject, scanJsonObject } from '../util/json-ct.js';
import { Failure } from './errors.js';

const algNames = () => ALGORITHMS.map((a) => a.name).join(', ');

/**
 * A symmetric key file (`ctkit keygen --aead`: a JWK, RFC 7517, of kty "oct" naming its
 * algorithm in "alg", the key in "k") from its bytes; "k" goes from the file's bytes to der.ts's
 * strict base64url decoder (non-canonical unused bits and padding refused).
 */
export function parseAeadKeyFile(bytes: Uint8Array, path: string): { alg: AlgorithmInfo; key: Uint8Array } {
  let j: JsonObject;
  try {
    j = scanJsonObject(bytes, 'JSON');
  } catch (e) {
    throw new Failure(`invalid key: ${path} is not a ctkit key file (expected a JSON Web Key from \`ctkit keygen --aead\`): ${(e as Error).message}`);
  }
  const notSymmetric = `invalid key: ${path} is not a symmetric key file (need "kty": "oct", "alg" and "k")`;
  let kty: string | undefined, algName: string | undefined;
  try {
    kty = j.text('kty');
    algName = j.text('alg');
  } catch (e) {
    throw new Failure(`${notSymmetric}: ${(e as Error).message}`);
  }
  if (kty !== 'oct' || algName === undefined || j.kind('k') !== 'string') throw new Failure(notSymmetric);
  const alg = algorithmByName(algName);
  if (!alg) throw new Failure(`invalid key: ${path} names the unknown algorithm '${algName}' (ctkit has ${algNames()})`);
  let key: Uint8Array;
  try {
    key = unbase64urlBytes(j.secret('k')!, `in ${path}, "k"`);
  } catch (e) {
    throw new Failure(`invalid key: ${(e as Error).message.replace(/^JSON: /, `in ${path}, `)}`);
  }
  if (key.length !== alg.keyLength) {
    key.fill(0);
    throw new Failure(`invalid key: a ${alg.name} key is ${alg.keyLength} bytes, the one in ${path} is ${key.length}`);
  }
  return { alg, key };
}

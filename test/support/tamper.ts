// The tampering property every AEAD must have: for a sealed message, each flipped bit of the
// ciphertext‖tag, of the nonce and of the AAD, and each truncation to a shorter tag, makes open()
// throw AuthenticationError, and a caller-supplied output buffer is left wiped (all zero).
import assert from 'node:assert/strict';
import type { Aead } from '../../src/aead/types.js';
import { AuthenticationError } from '../../src/errors.js';
import { hex } from './rng.js';

/** Asserts the property for one message; returns how many tampered inputs were rejected. */
export function assertTamperingRejected(a: Aead, nonce: Uint8Array, pt: Uint8Array, aad: Uint8Array): number {
  const sealed = a.seal(nonce, pt, aad);
  let rejected = 0;
  const tryOpen = (n: Uint8Array, s: Uint8Array, d: Uint8Array) => {
    const out = new Uint8Array(pt.length).fill(0xee);
    assert.throws(() => a.open(n, s, d, out), AuthenticationError);
    assert.ok(
      out.every((b) => b === 0),
      'output not wiped',
    );
    rejected++;
  };
  const flips = (v: Uint8Array, use: (t: Uint8Array) => void) => {
    for (let bit = 0; bit < v.length * 8; bit++) {
      const t = v.slice();
      t[bit >> 3] ^= 1 << (bit & 7);
      use(t);
    }
  };
  flips(sealed, (s) => tryOpen(nonce, s, aad));
  flips(nonce, (n) => tryOpen(n, sealed, aad));
  flips(aad, (d) => tryOpen(nonce, sealed, d));
  assert.throws(() => a.open(nonce, sealed.subarray(0, sealed.length - 1), aad), AuthenticationError);
  assert.throws(
    () => a.open(nonce, sealed.subarray(0, a.tagLength - 1), aad),
    (e: unknown) => e instanceof AuthenticationError || e instanceof RangeError,
  );
  assert.equal(hex(a.open(nonce, sealed, aad)), hex(pt), 'the untampered message no longer opens');
  assert.equal(rejected, (sealed.length + nonce.length + aad.length) * 8);
  return rejected;
}

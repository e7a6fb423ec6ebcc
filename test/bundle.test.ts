// One module per family, measured: bundling one entry point with tree shaking carries that
// family's kernel module and no other (DESIGN.md: an application that imports
// ChaCha20-Poly1305 carries no AES or curve kernel). A family with scalar backends carries its
// SIMD module, its scalar module (`<name>_wasm`) and its JavaScript kernel (not recognised here).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ENTRIES, measure } from '../bench/bundle-size.js';

const EXPECTED: Record<string, string[]> = {
  'ghash (ctkit/mac)': ['gf128', 'gf128_wasm'],
  'poly1305 (ctkit/mac)': ['chacha', 'chacha_wasm'],
  'chacha20Poly1305 (ctkit/aead)': ['chacha', 'chacha_wasm'],
  'aesGcm (ctkit/aead)': ['aes', 'aes_wasm'],
  'sm4Gcm (ctkit/aead)': ['sm4', 'sm4_wasm'],
  'sha256 + hmac (ctkit/hash)': ['sha2', 'sha2_wasm'],
  'p256 (ctkit/ec)': ['ec_p256', 'ec_p256_wasm', 'sha2', 'sha2_wasm'],
  'secp256k1 (ctkit/ec)': ['ec_secp256k1', 'ec_secp256k1_wasm', 'sha2', 'sha2_wasm'],
};

for (const [entry, modules] of Object.entries(EXPECTED)) {
  test(`bundle of ${entry} carries only ${modules.join(', ')}`, async () => {
    const s = await measure(entry, ENTRIES[entry]);
    assert.deepEqual(s.modules, modules);
  });
}

test('the whole library bundles every shipped module (the recognizer sees them all)', async () => {
  const { shipped } = await import('../src/engine/wasm/all.js');
  const s = await measure('everything', ENTRIES['everything (ctkit)']);
  assert.deepEqual(s.modules, Object.keys(shipped).sort());
});

// a curve's JavaScript is opt-in (src/ec/js/): the p256 bundle carries none of it, and its
// import brings exactly that curve's (its export object lists ecdsa_gtable and the field's
// 12-bit element size, FE 176; only printed JavaScript has such an object)
test('the p256 bundle has no js kernel; with ctkit/ec/js/p256 it has P-256’s and no other', async () => {
  const without = await measure('p256', ENTRIES['p256 (ctkit/ec)']);
  assert.doesNotMatch(without.text, /ecdsa_gtable:/);
  const s = await measure('p256 with its js', ENTRIES['p256 with its js (ctkit/ec, ctkit/ec/js/p256)']);
  assert.equal(s.text.match(/ecdsa_gtable:/g)?.length, 1);
  assert.match(s.text, /FE:\{value:176\}/);
  assert.deepEqual(s.modules, without.modules);
  assert.ok(s.bytes > without.bytes + 100_000, `${s.bytes} vs ${without.bytes}`);
});

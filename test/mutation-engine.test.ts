// Tests for src/engine that kill the survivors of its mutation run (issue 18; scripts/mutation.ts
// src/engine) where teeth-engine.test.ts left them: behaviour no other suite observes directly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Kernel, SLOTS_PTR } from '../src/engine/kernel.js';
import { tinyModule } from './support/tiny-module.js';

const PAGE = 65536;
let serial = 0;
const tiny = (pages: number, slotSize: number) => new Kernel<{ memory: WebAssembly.Memory }>({ name: `mutation-engine-${serial++}`, bytes: () => tinyModule(pages) }, slotSize);

test('Kernel.u8 is a live view after the memory grew by other means than allocSlot (its detached view is replaced)', () => {
  const k = tiny(2, 64);
  const before = k.u8;
  assert.equal(before.length, 2 * PAGE);
  k.exports.memory.grow(1); // detaches `before`
  assert.equal(before.byteLength, 0);
  const after = k.u8;
  assert.equal(after.length, 3 * PAGE, 'u8 still the detached view of the old memory');
  after[3 * PAGE - 1] = 9;
  assert.equal(new Uint8Array(k.exports.memory.buffer)[3 * PAGE - 1], 9);
  assert.equal(k.u8, after, 'a live view is kept, not made again on every access');
  // slots still come from SLOTS_PTR, and the memory grown outside is not counted twice
  assert.equal(k.allocSlot(), SLOTS_PTR);
  assert.equal(k.u8.length, 3 * PAGE);
});

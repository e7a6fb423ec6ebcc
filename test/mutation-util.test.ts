// src/util directly (issue 18, mutation testing): the argument checks' exact verdicts and
// messages, BlockBuffer's calls (every whole block, in order, as few calls as possible) against
// a model, inPlaceSource's three cases at their boundaries, and KeySlot / CachedKey on a tiny
// module. Small and quick: it runs first for every mutant of src/util (scripts/mutation.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runInNewContext } from 'node:vm';
import { BlockBuffer } from '../src/util/block-buffer.js';
import { checkBytes, checkLength, checkOptions, checkOutput, equalBytes, isBytes } from '../src/util/check.js';
import { inPlaceSource } from '../src/util/overlap.js';
import { CachedKey, KeySlot } from '../src/util/key-slot.js';
import { Kernel, SLOTS_PTR } from '../src/engine/kernel.js';
import { CtkitRangeError, CtkitTypeError, StateError } from '../src/errors.js';
import { takeSeams, withSeams } from '../src/util/seam.js';
import { tinyModule } from './support/tiny-module.js';

const typeError = (message: string) => (e: unknown) => e instanceof CtkitTypeError && (e as Error).message === message;
const rangeError = (message: string) => (e: unknown) => e instanceof CtkitRangeError && (e as Error).message === message;

function detached(n: number): Uint8Array {
  const b = new Uint8Array(n);
  structuredClone(b.buffer, { transfer: [b.buffer] });
  return b;
}

test('equalBytes: the same bytes are equal; a difference in any byte or bit, or in length either way, is not', () => {
  const a = Uint8Array.from({ length: 33 }, (_, i) => (i * 37 + 11) & 0xff);
  assert.equal(equalBytes(a, a.slice()), true);
  assert.equal(equalBytes(new Uint8Array(0), new Uint8Array(0)), true);
  for (let i = 0; i < a.length; i++) {
    for (const bit of [0x01, 0x80]) {
      const b = a.slice();
      b[i] ^= bit;
      assert.equal(equalBytes(a, b), false, `byte ${i} bit ${bit}`);
      assert.equal(equalBytes(b, a), false, `byte ${i} bit ${bit}, swapped`);
    }
  }
  // a prefix, shorter or longer, is not equal (nor is a longer one whose extra bytes are zero)
  for (const [x, y] of [
    [a, a.subarray(0, 32)],
    [a, Uint8Array.of(...a, 0)],
    [new Uint8Array(0), Uint8Array.of(0)],
  ]) {
    assert.equal(equalBytes(x, y), false, `${x.length} against ${y.length}`);
    assert.equal(equalBytes(y, x), false, `${y.length} against ${x.length}`);
  }
});

test('checkBytes / isBytes: genuine Uint8Arrays (this realm, another realm, empty, views) pass; everything else is named', () => {
  const other = runInNewContext('new Uint8Array(3)') as Uint8Array;
  const otherEmpty = runInNewContext('new Uint8Array(0)') as Uint8Array;
  const goods: Uint8Array[] = [new Uint8Array(0), new Uint8Array(5), new Uint8Array(8).subarray(2, 6), other, otherEmpty];
  for (const g of goods) {
    checkBytes('x', g);
    assert.equal(isBytes(g), true);
  }
  const bads: [unknown, string][] = [
    [null, 'null'],
    [undefined, 'undefined'],
    [5, 'number'],
    ['abc', 'string'],
    [[1, 2], 'Array'],
    [new Int8Array(4), 'Int8Array'],
    [new Uint8ClampedArray(4), 'Uint8ClampedArray'],
    [new Uint16Array(2), 'Uint16Array'],
    [new DataView(new ArrayBuffer(4)), 'DataView'],
    [new ArrayBuffer(4), 'ArrayBuffer'],
    [Object.create(Uint8Array.prototype), 'Uint8Array'], // inherits the prototype only
    [Object.create(null), 'object'], // no constructor at all
    [
      new Proxy(
        {},
        {
          get() {
            throw new Error('trap');
          },
        },
      ),
      'object',
    ], // its constructor getter throws
    [new Proxy(new Uint8Array(4), {}), 'Uint8Array'],
    [{ length: 3, 0: 1, 1: 2, 2: 3 }, 'Object'],
  ];
  for (const [v, what] of bads) {
    assert.throws(() => checkBytes('key', v), typeError(`key must be a Uint8Array, got ${what}`), what);
    assert.equal(isBytes(v), false, what);
  }
  // a view of a detached buffer: length 0, unusable
  assert.throws(() => checkBytes('nonce', detached(12)), typeError('nonce is a view of a detached ArrayBuffer (transferred or resized away)'));
  assert.equal(isBytes(detached(12)), false);
});

test('checkLength: the allowed lengths pass, others are a CtkitRangeError listing them', () => {
  checkLength('k', new Uint8Array(32), [32]);
  checkLength('k', new Uint8Array(16), [16, 24, 32]);
  checkLength('k', new Uint8Array(24), [16, 24, 32]);
  checkLength('k', new Uint8Array(32), [16, 24, 32]);
  assert.throws(() => checkLength('key', new Uint8Array(31), [32]), rangeError('key must be 32 bytes long, got 31'));
  assert.throws(() => checkLength('key', new Uint8Array(33), [32]), rangeError('key must be 32 bytes long, got 33'));
  assert.throws(() => checkLength('iv', new Uint8Array(0), [12, 16]), rangeError('iv must be 12 or 16 bytes long, got 0'));
  assert.throws(() => checkLength('key', new Uint8Array(20), [16, 24, 32]), rangeError('key must be 16, 24 or 32 bytes long, got 20'));
});

test('checkOutput: none makes a zeroed buffer of exactly `need`; a longer one is cut to `need` (same memory); a shorter one is refused', () => {
  const made = checkOutput(undefined, 7);
  assert.equal(made.length, 7);
  assert.ok(made.every((b) => b === 0));
  assert.equal(checkOutput(undefined, 0).length, 0);
  const big = new Uint8Array(20);
  const cut = checkOutput(big, 12);
  assert.equal(cut.length, 12);
  assert.equal(cut.buffer, big.buffer);
  assert.equal(cut.byteOffset, 0);
  const exact = new Uint8Array(12);
  assert.equal(checkOutput(exact, 12).length, 12);
  assert.equal(checkOutput(exact, 12).buffer, exact.buffer);
  assert.throws(() => checkOutput(new Uint8Array(11), 12), rangeError('output must be at least 12 bytes long, got 11'));
  assert.throws(() => checkOutput([0, 0] as unknown as Uint8Array, 1), typeError('output must be a Uint8Array, got Array'));
});

test('checkOptions: undefined is {}, objects pass through, null and primitives are named', () => {
  assert.deepEqual(checkOptions(undefined), {});
  const o = { a: 1 };
  assert.equal(checkOptions(o), o);
  const f = () => 0;
  assert.throws(() => checkOptions(f as unknown as object), typeError('options must be an object, got function'));
  assert.throws(() => checkOptions(null as unknown as object), typeError('options must be an object, got null'));
  assert.throws(() => checkOptions(3 as unknown as object, 'opts'), typeError('opts must be an object, got number'));
  assert.throws(() => checkOptions('x' as unknown as object), typeError('options must be an object, got string'));
});

/** The calls BlockBuffer should make: the completed buffered block, then all further whole blocks in one call. */
function model(pieces: number[]): { calls: number[][]; tail: number } {
  const calls: number[][] = [];
  let buffered = 0;
  for (const n of pieces) {
    let left = n;
    if (buffered > 0) {
      const take = Math.min(16 - buffered, left);
      buffered += take;
      left -= take;
      if (buffered < 16) continue;
      calls.push([16]);
      buffered = 0;
    }
    const whole = left - (left % 16);
    if (whole > 0) calls.push([whole]);
    buffered = left - whole;
  }
  return { calls, tail: buffered };
}

test('BlockBuffer.feed: every byte passed on in order, in whole blocks, with exactly the calls of the model; the tail kept', () => {
  const patterns = [[0], [1], [15], [16], [17], [31], [32], [33], [5, 11], [5, 10, 1], [5, 27], [15, 1, 16], [15, 17], [8, 8, 8, 8], [3, 0, 13], [1, 47, 2], [16, 16, 5], [7, 100, 9, 0, 16]];
  for (const pieces of patterns) {
    const total = pieces.reduce((a, b) => a + b, 0);
    const data = Uint8Array.from({ length: total }, (_, i) => (i * 7 + 3) & 255);
    const b = new BlockBuffer();
    const got: number[] = [];
    const sizes: number[][] = [];
    let at = 0;
    for (const n of pieces) {
      b.feed(data.subarray(at, at + n), (whole) => {
        assert.equal(whole.length % 16, 0, 'a partial block was passed on');
        sizes.push([whole.length]);
        got.push(...whole);
      });
      at += n;
    }
    const m = model(pieces);
    assert.deepEqual(sizes, m.calls, `calls for ${pieces}`);
    assert.equal(b.length, m.tail, `tail for ${pieces}`);
    assert.deepEqual(b.partial(), data.subarray(total - m.tail), `partial() for ${pieces}`);
    assert.deepEqual(Uint8Array.from(got), data.subarray(0, total - m.tail), `bytes for ${pieces}`);
  }
});

test('BlockBuffer.wipe zeroes the whole block and the length', () => {
  const b = new BlockBuffer();
  b.feed(
    Uint8Array.from({ length: 13 }, (_, i) => i + 1),
    () => assert.fail('no whole block yet'),
  );
  assert.equal(b.partial().length, 13);
  b.wipe();
  assert.equal(b.length, 0);
  assert.equal(b.partial().length, 0);
  assert.ok(
    b.block.every((x) => x === 0),
    'wipe() left bytes in the block',
  );
});

test('inPlaceSource: src itself unless out starts above src inside it; then src moved to out (the rest of the buffer untouched)', () => {
  const buf = new ArrayBuffer(64);
  const u = new Uint8Array(buf);
  const fill = () => u.forEach((_, i) => (u[i] = i));
  const view = (off: number, n: number) => new Uint8Array(buf, off, n);
  // out below, equal, adjacent above, far above, or in another buffer: src itself, nothing written
  for (const o of [0, 5, 10, 30, 31]) {
    fill();
    const src = view(10, 20);
    assert.equal(inPlaceSource(src, view(o, 20)), src, `out at ${o}`);
    assert.ok(
      u.every((x, i) => x === i),
      `out at ${o}: the buffer was written`,
    );
  }
  fill();
  const src = view(10, 20);
  assert.equal(inPlaceSource(src, new Uint8Array(20)), src, 'another buffer');
  // another buffer, at a position that would overlap were it the same one: src itself, neither buffer written
  const other = new Uint8Array(64).fill(0xee);
  assert.equal(inPlaceSource(src, new Uint8Array(other.buffer, 15, 24)), src, 'another buffer, overlapping positions');
  assert.ok(
    other.every((x) => x === 0xee),
    'another buffer, overlapping positions: it was written',
  );
  assert.ok(
    u.every((x, i) => x === i),
    'another buffer, overlapping positions: src was written',
  );
  // overlapping above, by one byte and by many
  for (const o of [11, 17, 29]) {
    fill();
    const s = view(10, 20);
    const out = view(o, 24);
    const r = inPlaceSource(s, out);
    assert.equal(r.buffer, buf);
    assert.equal(r.byteOffset, o);
    assert.equal(r.length, 20);
    assert.deepEqual(
      [...r],
      Array.from({ length: 20 }, (_, i) => 10 + i),
      `out at ${o}: src not moved`,
    );
    for (let i = 0; i < 64; i++) if (i < o || i >= o + 20) assert.equal(u[i], i, `out at ${o}: byte ${i} outside the move was written`);
  }
  // an empty src needs no move
  fill();
  const e = view(10, 0);
  assert.equal(inPlaceSource(e, view(10, 5)), e);
});

let serial = 0;
const tiny = (slotSize: number) => new Kernel<unknown>({ name: `mutation-util-${serial++}`, bytes: () => tinyModule(2) }, slotSize);

test('KeySlot: a slot of its own, check() until release(), release(used) wipes used bytes (all by default) once', () => {
  const k = tiny(256);
  const a = new KeySlot({}, k);
  const b = new KeySlot({}, k);
  assert.equal(a.ptr, SLOTS_PTR);
  assert.equal(b.ptr, SLOTS_PTR + 256);
  assert.equal(k.slotsInUse, 2);
  k.u8.fill(7, a.ptr, a.ptr + 256);
  a.check('a');
  a.release();
  assert.equal(a.released, true);
  assert.ok(
    k.u8.subarray(a.ptr, a.ptr + 256).every((x) => x === 0),
    'release() with no length wipes the whole slot',
  );
  assert.equal(k.slotsInUse, 1);
  assert.throws(
    () => a.check('AEAD key'),
    (e: unknown) => e instanceof StateError && (e as Error).message === 'AEAD key: used after dispose()',
  );
  a.release();
  assert.equal(k.slotsInUse, 1, 'a second release() freed again');
  b.check('b');
  assert.equal(b.released, false);
});

test('CachedKey: expands a copy of the raw key; ptr() until release(); extras reset on expansion; release wipes the copy and the slot', () => {
  const k = tiny(64);
  const raws: Uint8Array[] = [];
  const raw = Uint8Array.of(9, 8, 7, 6);
  const c = new CachedKey(k, raw, (slot, r) => {
    raws.push(r);
    k.u8.set(r, slot);
    return r.length;
  });
  assert.equal(raws.length, 1);
  assert.notEqual(raws[0], raw, 'the raw key was not copied');
  raw.fill(0); // the caller's buffer is theirs
  const p = c.ptr('k');
  assert.deepEqual([...k.u8.subarray(p, p + 4)], [9, 8, 7, 6]);
  assert.equal(c.released, false);
  c.extras = 5;
  c.written(30);
  k.u8.fill(1, p + 4, p + 30);
  c.release();
  assert.equal(c.released, true);
  assert.ok(
    raws[0].every((x) => x === 0),
    'release() left the raw copy',
  );
  assert.ok(
    k.u8.subarray(p, p + 64).every((x) => x === 0),
    'release() left bytes the owner wrote',
  );
  assert.throws(
    () => c.ptr('the key'),
    (e: unknown) => e instanceof StateError && (e as Error).message === 'the key: used after dispose()',
  );
  c.release(); // idempotent
  assert.equal(k.cachedKeys, 0);
  // extras is 0 after every expansion
  const d = new CachedKey(k, Uint8Array.of(1), (slot) => {
    k.u8[slot] = 1;
    return 1;
  });
  assert.equal(d.extras, 0);
  d.release();
});

test('withSeams / takeSeams: the seams reach the first takeSeams() inside only; none are left after the call, however it ends', () => {
  const seams = { fault: 1 };
  assert.deepEqual(takeSeams(), {}, 'outside withSeams');
  assert.equal(
    withSeams(seams, () => takeSeams()),
    seams,
  );
  assert.deepEqual(
    withSeams(seams, () => [takeSeams(), takeSeams()]),
    [seams, {}],
    'a second takeSeams() inside gets none',
  );
  withSeams(seams, () => 0); // never taken
  assert.deepEqual(takeSeams(), {}, 'seams not taken inside were left behind');
  assert.throws(() =>
    withSeams(seams, () => {
      throw new Error('make failed');
    }),
  );
  assert.deepEqual(takeSeams(), {}, 'seams left behind by a call that threw');
});

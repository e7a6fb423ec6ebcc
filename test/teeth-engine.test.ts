// The engine (src/engine/kernel.ts, issue 18), directly: slot allocation and reuse, wiping on
// free, growth of the memory by whole pages exactly when a slot would not fit, the finalizer
// fallback (a slot freed by dispose() and again when its owner is collected is handed out once;
// an undisposed owner's slot is wiped and reused), the key cache (free entries reused, eviction
// of the least recently used by the clock, the evicted slot wiped before its next owner, the
// bytes written tracked), getKernel's per-module instances, and JsMemory's growth.
// Runs on a tiny module of known size (test/support/tiny-module.ts), so every address is known.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CACHE_SLOTS, IO_SIZE, Kernel, SCRATCH_PTR, SCRATCH_SIZE, SLOTS_PTR, getKernel, holdSlot, ready, registerModule, releaseSlot } from '../src/engine/kernel.js';
import { JsMemory } from '../src/engine/js-memory.js';
import { CachedKey, KeySlot } from '../src/util/key-slot.js';
import { StateError } from '../src/errors.js';
import { TSX } from './support/cli.js';
import { tinyModule } from './support/tiny-module.js';

const PAGE = 65536;
let serial = 0;
const tiny = (pages: number, slotSize: number) => new Kernel<unknown>({ name: `teeth-engine-${serial++}`, bytes: () => tinyModule(pages) }, slotSize);
const zero = (k: Kernel<unknown>, from: number, n: number) => k.u8.subarray(from, from + n).every((b) => b === 0);

test('the layout: IO area, scratch window, slots from SLOTS_PTR', () => {
  assert.equal(IO_SIZE, 4096);
  assert.equal(SCRATCH_PTR, 4096);
  assert.equal(SCRATCH_SIZE, 65536);
  assert.equal(SLOTS_PTR, 4096 + 65536);
  assert.equal(CACHE_SLOTS, 256);
});

test('allocSlot hands out consecutive zero-filled slots; freeSlot wipes and the freed slots come back last-in first-out', () => {
  const k = tiny(2, 4096);
  const a = k.allocSlot(),
    b = k.allocSlot(),
    c = k.allocSlot();
  assert.deepEqual([a, b, c], [SLOTS_PTR, SLOTS_PTR + 4096, SLOTS_PTR + 8192]);
  assert.equal(k.slotsInUse, 3);
  for (const s of [a, b, c]) assert.ok(zero(k, s, 4096));
  k.u8.fill(0x11, a, a + 4096);
  k.u8.fill(0x22, b, b + 4096);
  k.u8.fill(0x33, c, c + 4096);
  k.freeSlot(a);
  assert.ok(zero(k, a, 4096), 'freed slot not wiped');
  assert.ok(
    k.u8.subarray(b, b + 4096).every((x) => x === 0x22),
    'a neighbour was touched',
  );
  // `used` larger than the slot wipes only the slot, not the live one after it
  k.freeSlot(b, 1 << 20);
  assert.ok(zero(k, b, 4096));
  assert.ok(
    k.u8.subarray(c, c + 4096).every((x) => x === 0x33),
    'freeSlot(used > slotSize) wiped the next slot',
  );
  // `used`: only the first bytes are wiped (the caller says the rest was never written)
  k.freeSlot(c, 100);
  assert.ok(zero(k, c, 100));
  assert.equal(k.u8[c + 100], 0x33);
  k.u8.fill(0, c, c + 4096);
  assert.equal(k.slotsInUse, 0);
  assert.equal(k.allocSlot(), c);
  assert.equal(k.allocSlot(), b);
  assert.equal(k.allocSlot(), a);
  assert.equal(k.allocSlot(), SLOTS_PTR + 3 * 4096, 'a new slot once the free ones are used');
  assert.equal(k.slotsInUse, 4);
  k.wipe(a, 1);
});

test('growth: the memory grows by whole pages only when a slot would not fit, and keeps what the slots hold', () => {
  // 2 pages = 131072 bytes: room for exactly (131072 − 69632) / 4096 = 15 slots
  const k = tiny(2, 4096);
  const slots: number[] = [];
  for (let i = 0; i < 15; i++) {
    slots.push(k.allocSlot());
    k.u8[slots[i]] = i + 1;
  }
  assert.equal(k.u8.buffer.byteLength, 2 * PAGE, 'grew although the 15th slot ends exactly at the end');
  const s16 = k.allocSlot();
  assert.equal(s16, 2 * PAGE);
  assert.equal(k.u8.buffer.byteLength, 3 * PAGE, 'one page more for the 16th slot');
  assert.equal(k.u8.length, 3 * PAGE, 'u8 is a view of the grown memory');
  k.u8[s16 + 4095] = 7; // writable to its last byte
  slots.forEach((s, i) => assert.equal(k.u8[s], i + 1, `slot ${i} kept its byte`));
  // a module smaller than the slots' start grows on the first slot; a slot larger than a page grows by several
  const small = tiny(1, 3 * PAGE + 5);
  const s = small.allocSlot();
  assert.equal(s, SLOTS_PTR);
  assert.equal(small.u8.buffer.byteLength, Math.ceil((SLOTS_PTR + 3 * PAGE + 5) / PAGE) * PAGE);
  small.u8[s + 3 * PAGE + 4] = 1;
  small.wipe(s, 3 * PAGE + 5);
  assert.ok(zero(small, s, 3 * PAGE + 5));
});

test('regions: 64-byte aligned after the slots, room for 8 slots beyond, generation counts growths, freeRegion wipes and reuses by size', () => {
  // 2 pages, slots of 4096 bytes: a region at SLOTS_PTR + 4096 whose 8 slots of slack end exactly at the end
  const k = tiny(2, 4096);
  assert.equal(k.generation, 0);
  const s0 = k.allocSlot();
  const fit = 2 * PAGE - (s0 + 4096) - 8 * 4096;
  const r = k.allocRegion(fit);
  assert.equal(r, s0 + 4096);
  assert.equal(k.generation, 0, 'grew although the region and its slack end exactly at the end');
  assert.ok(zero(k, r, fit));
  k.u8.fill(0x5a, r, r + fit);
  for (let i = 0; i < 8; i++) assert.equal(k.allocSlot(), r + fit + 4096 * i, `slack slot ${i}`);
  assert.equal(k.generation, 0, 'the slack slots grew the memory');
  assert.equal(k.u8.buffer.byteLength, 2 * PAGE);
  assert.equal(k.allocSlot(), 2 * PAGE, 'the ninth slot lies beyond');
  assert.equal(k.generation, 1, 'one growth');
  assert.equal(k.u8.buffer.byteLength, 3 * PAGE);
  assert.ok(
    k.u8.subarray(r, r + fit).every((b) => b === 0x5a),
    'the region kept its bytes through the growth',
  );

  // a region whose slack does not fit grows the memory when it is made, not at the next slot
  const g = tiny(2, 4096);
  const big = g.allocRegion(40000);
  assert.equal(big, SLOTS_PTR);
  assert.equal(g.generation, 1, 'allocRegion did not make room for its slack');
  assert.equal(g.u8.buffer.byteLength, 3 * PAGE);
  for (let i = 0; i < 8; i++) assert.equal(g.allocSlot(), SLOTS_PTR + 40000 + 4096 * i);
  assert.equal(g.generation, 1, 'a slack slot grew the memory');

  // alignment: after a 100-byte slot, the region starts at the next multiple of 64, past the slot
  const a = tiny(2, 100);
  const slot = a.allocSlot();
  const ra = a.allocRegion(10);
  assert.equal(ra, Math.ceil((slot + 100) / 64) * 64);
  assert.ok(ra % 64 === 0 && ra >= slot + 100);
  assert.equal(a.allocSlot(), ra + 10, 'the next slot starts where the region ends');

  // freeRegion: wiped, kept by size, handed out again last-in first-out; another size is new memory
  const f = tiny(4, 4096);
  const [x, y] = [f.allocRegion(1000), f.allocRegion(1000)];
  f.u8.fill(0x11, x, x + 1000);
  f.u8.fill(0x22, y, y + 1000);
  f.freeRegion(x, 1000);
  assert.ok(zero(f, x, 1000), 'a freed region is wiped');
  assert.ok(
    f.u8.subarray(y, y + 1000).every((b) => b === 0x22),
    'its neighbour was touched',
  );
  f.freeRegion(y, 1000);
  assert.ok(zero(f, y, 1000));
  const other = f.allocRegion(500);
  assert.ok(other >= y + 1000, 'a freed region of another size was handed out');
  assert.equal(f.allocRegion(1000), y);
  assert.equal(f.allocRegion(1000), x);
  assert.ok(f.allocRegion(1000) > other, 'a third region of that size is new');
  assert.equal(f.generation, 0);
});

test('holdSlot/releaseSlot and KeySlot: release wipes and frees once; check() and released after it', () => {
  const k = tiny(2, 512);
  const owner = {};
  const s = new KeySlot(owner, k);
  assert.equal(s.ptr, SLOTS_PTR);
  assert.equal(s.released, false);
  s.check('x');
  k.u8.fill(0x5a, s.ptr, s.ptr + 512);
  s.release(100);
  assert.ok(zero(k, s.ptr, 100));
  assert.equal(k.u8[s.ptr + 100], 0x5a, 'release(used) wipes the first `used` bytes');
  k.u8.fill(0, s.ptr, s.ptr + 512);
  assert.equal(s.released, true);
  assert.throws(
    () => s.check('label'),
    (e: unknown) => e instanceof StateError && (e as Error).message === 'label: used after dispose()',
  );
  s.release(); // idempotent: not freed twice
  assert.equal(k.slotsInUse, 0);
  const a = k.allocSlot(),
    b = k.allocSlot();
  assert.notEqual(a, b, 'a slot released twice was handed out twice');
  // the raw functions
  const t = holdSlot(owner, k, a);
  releaseSlot(t, k, a);
  assert.equal(k.slotsInUse, 1);
});

test('the finalizer fallback (child process with --expose-gc): no double free after dispose(); an undisposed owner is wiped and freed', () => {
  const child = fileURLToPath(new URL('./support/engine-gc-child.ts', import.meta.url));
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', TSX, child], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
  assert.equal(out.releasedThenCollected.first, out.slotsPtr);
  assert.equal(out.releasedThenCollected.distinct, true, `released then collected: handed out twice (${JSON.stringify(out.releasedThenCollected)})`);
  assert.equal(out.releasedThenCollected.inUse, 2);
  assert.deepEqual(out.collectedUndisposed, { before: 0, held: 1, after: 0, wiped: true, reused: true });
});

/** A cached key whose expansion writes `bytes` copies of its first raw byte, checking that it got a zero-filled slot. */
function cachedKey(k: Kernel<unknown>, mark: number, bytes: number, seen: { expansions: number; dirty: number }): CachedKey {
  return new CachedKey(k, Uint8Array.of(mark, 1, 2, 3), (slot, raw) => {
    seen.expansions++;
    if (!zero(k, slot, k.slotSize)) seen.dirty++;
    k.u8.fill(raw[0], slot, slot + bytes);
    return bytes;
  });
}

test('the key cache: entries up to CACHE_SLOTS, then the clock evicts the least recently used, wiped before its next owner', () => {
  const k = tiny(2, 64);
  const seen = { expansions: 0, dirty: 0 };
  const keys = Array.from({ length: CACHE_SLOTS }, (_, i) => cachedKey(k, (i % 250) + 1, 40, seen));
  assert.equal(seen.expansions, CACHE_SLOTS);
  assert.equal(k.cachedKeys, CACHE_SLOTS);
  assert.equal(k.slotsInUse, CACHE_SLOTS);
  const ptrs = keys.map((c) => c.ptr('k'));
  assert.deepEqual(
    ptrs,
    keys.map((_, i) => SLOTS_PTR + 64 * i),
    'entries take consecutive slots',
  );
  assert.equal(seen.expansions, CACHE_SLOTS, 'a cached key is not expanded again');
  // a new key: every entry was used since the hand started, so the clock clears them all and
  // evicts entry 0 — the least recently used
  const extra = cachedKey(k, 251, 40, seen);
  assert.equal(seen.dirty, 0, 'the evicted slot was not wiped before its next owner');
  assert.equal(extra.ptr('x'), ptrs[0], 'the least recently used entry (0) was not the one evicted');
  assert.equal(k.cachedKeys, CACHE_SLOTS);
  assert.equal(k.slotsInUse, CACHE_SLOTS, 'eviction allocates no new slot');
  // key 1 is used now; the next new key passes over it (its bit set) and evicts key 2
  keys[1].ptr('k1');
  const extra2 = cachedKey(k, 252, 40, seen);
  assert.equal(extra2.ptr('x2'), ptrs[2], 'a key used since the last pass was evicted before the least recently used');
  assert.equal(k.u8[ptrs[1]], 2, 'key 1 kept its slot');
  assert.equal(seen.dirty, 0);
  // key 0 lost its slot: its next use expands it again (into another reclaimed slot)
  const before = seen.expansions;
  const p0 = keys[0].ptr('k0');
  assert.equal(seen.expansions, before + 1, 'an evicted key is expanded again on its next use');
  assert.equal(k.u8[p0], 1);
  assert.equal(k.u8[p0 + 39], 1);
  assert.equal(k.u8[p0 + 40], 0, 'the expansion wrote 40 bytes into a zero-filled slot');
  assert.equal(seen.dirty, 0);
  for (const c of [...keys, extra, extra2]) c.release();
  assert.equal(k.cachedKeys, 0);
  assert.equal(k.slotsInUse, 0);
  assert.ok(zero(k, SLOTS_PTR, 64 * (CACHE_SLOTS + 1)), 'a released key left bytes behind');
});

test('the key cache: released entries are reused, written() extends what is wiped (never shrinks, never past the slot)', () => {
  const k = tiny(2, 64);
  const seen = { expansions: 0, dirty: 0 };
  const a = cachedKey(k, 9, 10, seen);
  const b = cachedKey(k, 8, 10, seen);
  const pa = a.ptr('a');
  a.release();
  a.release(); // idempotent
  assert.ok(a.released);
  assert.throws(
    () => a.ptr('label'),
    (e: unknown) => e instanceof StateError && (e as Error).message === 'label: used after dispose()',
  );
  assert.equal(k.cachedKeys, 1);
  const c = cachedKey(k, 7, 10, seen);
  assert.equal(c.ptr('c'), pa, 'a released entry and its slot are reused');
  assert.equal(k.slotsInUse, 2);
  // the owner writes 30 more bytes after the expansion: release wipes them all
  k.u8.fill(0x44, pa + 10, pa + 40);
  c.written(40);
  c.written(20); // never shrinks
  c.extras = 3;
  c.release();
  assert.ok(zero(k, pa, 64), 'bytes the owner reported with written() were left');
  // written() beyond the slot is clamped: release wipes the slot, not its neighbour
  const d = cachedKey(k, 6, 10, seen);
  const pd = d.ptr('d');
  d.written(10_000);
  d.release();
  assert.ok(zero(k, pd, 64));
  assert.equal(k.u8[b.ptr('b')], 8, 'the neighbouring key is intact');
  b.release();
  assert.equal(k.cachedKeys, 0);
  assert.equal(k.slotsInUse, 0);
});

test("the key cache: an evicted owner cannot report bytes for, or release, its slot's new owner; extras reset on re-expansion", () => {
  const k = tiny(2, 64);
  const seen = { expansions: 0, dirty: 0 };
  // fill the cache, evict key 0, then the evicted key's written()/release() must not touch the new owner
  const keys = Array.from({ length: CACHE_SLOTS }, (_, i) => cachedKey(k, 1 + (i % 200), 8, seen));
  const evicted = keys[0];
  const e0 = evicted.ptr('e');
  const thief = cachedKey(k, 222, 8, seen);
  assert.equal(thief.ptr('t'), e0);
  assert.equal(evicted.extras, 0);
  evicted.written(64); // not its entry any more
  const probe = cachedKey(k, 223, 8, seen); // evicts the next one; the thief keeps 8 written bytes
  assert.notEqual(probe.ptr('p'), e0);
  k.u8.fill(0x99, e0 + 8, e0 + 64); // what the thief did not report
  thief.release();
  assert.ok(zero(k, e0, 8));
  assert.equal(k.u8[e0 + 8], 0x99, "the evicted owner's written(64) counted for the new owner");
  k.wipe(e0, 64);
  const a2 = evicted.ptr('again'); // re-expands
  assert.equal(k.u8[a2], 1);
  for (const x of [...keys, probe]) x.release();
  assert.equal(k.cachedKeys, 0);
  assert.equal(k.slotsInUse, 0);
  // cached(): a foreign id or a released entry is -1
  assert.equal(k.cached(-1, 1), -1);
  assert.equal(k.cached(0, 0xfffffff), -1);
  // extras are reset when the key expands again
  const e = cachedKey(k, 5, 8, seen);
  e.extras = 7;
  const fill = Array.from({ length: 2 * CACHE_SLOTS }, () => cachedKey(k, 4, 8, seen)); // e, never used, is evicted on the way
  e.ptr('e');
  assert.equal(e.extras, 0, 'extras not reset by the re-expansion');
  for (const x of [e, ...fill]) x.release();
});

test('getKernel: one instance per module and backend, shared; ready() compiles registered modules; a test source runs as its bytes', async () => {
  const src = { name: 'teeth-engine-shared', bytes: () => tinyModule(2) };
  registerModule(src);
  await ready();
  const a = getKernel<unknown>(src, 128);
  const b = getKernel<unknown>(src, 128);
  assert.equal(a, b);
  assert.equal(a.backend, 'simd');
  assert.equal(a.name, 'teeth-engine-shared');
  assert.equal(a.slotSize, 128);
  const other = getKernel<unknown>({ name: 'teeth-engine-other', bytes: () => tinyModule(2) }, 128);
  assert.notEqual(other, a);
  assert.notEqual(other.u8.buffer, a.u8.buffer);
});

test('JsMemory: grow copies, wipes the old buffer, reports the new one; grow(0) changes nothing', () => {
  const seen: ArrayBuffer[] = [];
  const m = new JsMemory(1, (b) => seen.push(b));
  const old = m.buffer;
  assert.equal(old.byteLength, PAGE);
  new Uint8Array(old).fill(3, 0, 10);
  assert.equal(m.grow(0), 1);
  assert.equal(m.buffer, old);
  assert.equal(seen.length, 0);
  assert.equal(m.grow(2), 1);
  assert.equal(m.buffer.byteLength, 3 * PAGE);
  assert.deepEqual([...new Uint8Array(m.buffer, 0, 11)], [3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0]);
  assert.ok(
    new Uint8Array(old).every((b) => b === 0),
    'the old buffer still holds the data',
  );
  assert.deepEqual(seen, [m.buffer]);
  assert.equal(m.grow(1), 3);
});

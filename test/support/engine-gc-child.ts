// Run by test/teeth-engine.test.ts in a child process with --expose-gc: the finalizer fallback of
// engine slots. Prints one JSON line with what it saw.
import { Kernel, SLOTS_PTR } from '../../src/engine/kernel.js';
import { KeySlot } from '../../src/util/key-slot.js';
import { tinyModule } from './tiny-module.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

async function collect(): Promise<void> {
  for (let i = 0; i < 6; i++) {
    gc!();
    await new Promise((r) => setTimeout(r, 10));
  }
}

const k = new Kernel<unknown>({ name: 'gc-child', bytes: () => tinyModule(2) }, 256);
const out: Record<string, unknown> = {};

// 1. a slot freed by dispose() (release) and later by the finalizer must not be handed out twice
{
  let owner: object | undefined = {};
  const s = new KeySlot(owner, k);
  k.u8.fill(0xab, s.ptr, s.ptr + 256);
  s.release();
  owner = undefined;
  await collect();
  const a = k.allocSlot();
  const b = k.allocSlot();
  out.releasedThenCollected = { first: s.ptr, a, b, distinct: a !== b, inUse: k.slotsInUse };
  k.freeSlot(a);
  k.freeSlot(b);
}

// 2. an owner collected without dispose(): the finalizer wipes and frees its slot
{
  const before = k.slotsInUse;
  let ptr = -1;
  (() => {
    const owner = {};
    const s = new KeySlot(owner, k);
    ptr = s.ptr;
    k.u8.fill(0xcd, s.ptr, s.ptr + 256);
  })();
  const held = k.slotsInUse;
  await collect();
  const wiped = k.u8.subarray(ptr, ptr + 256).every((x) => x === 0);
  out.collectedUndisposed = { before, held, after: k.slotsInUse, wiped, reused: k.allocSlot() === ptr };
}
out.slotsPtr = SLOTS_PTR;
process.stdout.write(JSON.stringify(out) + '\n');

// The engine: loads kernel modules and owns their linear memory.
//
// Each kernel module (one per family: gf128, later aes, chacha, …) gets its own instance and
// memory, laid out as
//
//   [0, IO_SIZE)                       small per-call area (states, padded blocks)
//   [SCRATCH_PTR, + SCRATCH_SIZE)      the scratch window through which inputs stream in chunks
//   [SLOTS_PTR, …)                     key slots of a fixed size, allocated and wiped here,
//                                      and regions for a caller's batches (allocRegion)
//
// so a 1 GiB message needs 64 KiB of WebAssembly memory, not 1 GiB. Scratch that held caller
// data is wiped by the family code when a call ends; a key slot is wiped when it is freed
// (dispose(), digest(), or — as a last resort — when its owner is garbage collected).
//
// Expanded AEAD keys live in a bounded cache of slots instead (at most CACHE_SLOTS per module):
// the key object keeps its raw key, and its slot is reclaimed — wiped and handed to another key
// — when the cache is full and it is the least recently used (clock replacement); the next use
// expands the key again. So keys that are never disposed cost at most CACHE_SLOTS slots, with
// no garbage collection involved (a synchronous loop never lets a FinalizationRegistry run).
//
// Instantiation is synchronous (Node.js, Deno, Bun, workers). A browser main thread may refuse
// to compile a large module synchronously; there `await ready()` first compiles every module
// that the imported families registered, and later instantiations reuse the compiled modules.

import { type Backend, backend } from './backend.js';
import { CtkitError } from '../errors.js';

/**
 * A kernel module: its SIMD128 bytes and, for the other backends (backend.ts), its scalar
 * WebAssembly bytes and its JavaScript instance (the generated src/engine/wasm/<name>.ts lists
 * them). A source without `variants` (a test's own bytes) runs as the WebAssembly it is.
 */
export interface ModuleSource {
  readonly name: string;
  bytes(): Uint8Array;
  readonly variants?: { readonly wasm?: () => Uint8Array; readonly js?: () => unknown };
  /** a variant this module's file does not import: the import that provides it (provideJs) */
  readonly optIn?: { readonly js?: string };
  /** runs on this backend whatever backend() says (tests: a broken variant of one backend) */
  readonly backend?: Backend;
}

/** The backend a source runs on now: its own, the chosen one, or simd for bare bytes. */
function backendOf(src: ModuleSource): Backend {
  return src.backend ?? (src.variants ? backend() : 'simd');
}

/** The WebAssembly bytes of src for backend b (simd or wasm). */
function wasmBytes(src: ModuleSource, b: Backend): Uint8Array {
  if (b === 'simd') return src.bytes();
  const v = src.variants?.wasm;
  if (!v) throw new CtkitError(`kernel module '${src.name}' has no ${b} backend`);
  return v();
}

/**
 * Kernel memory for data that a caller reads into and writes from directly, so that an AEAD
 * seals or opens it in place with no copy through scratch (the CLI's file path). An AEAD object
 * offers it under ARENA when its kernel is WebAssembly (a JavaScript kernel's memory is replaced
 * when it grows, so views of it cannot be held across I/O).
 */
export interface Arena {
  /** the memory's current view (views made before a growth are detached) */
  readonly u8: Uint8Array;
  /** changes whenever the memory grows */
  readonly generation: number;
  allocRegion(bytes: number): number;
  freeRegion(ptr: number, bytes: number): void;
}

/** The key of an AEAD object's method that returns its Arena, or undefined. */
export const ARENA: unique symbol = Symbol('ctkit.arena');

export const IO_PTR = 0;
export const IO_SIZE = 4096;
export const SCRATCH_PTR = IO_PTR + IO_SIZE;
export const SCRATCH_SIZE = 65536;
export const SLOTS_PTR = SCRATCH_PTR + SCRATCH_SIZE;
const PAGE = 65536;
/** Key slots' room kept free beyond a region (Kernel.allocRegion). */
const REGION_SLACK_SLOTS = 8;
/** Slots of a module's key cache: above this many live keys, the least recently used is re-expanded on its next use. */
export const CACHE_SLOTS = 256;

const sources = new Map<string, ModuleSource>();
/** js variants provided by opt-in imports (the curves' JavaScript: ctkit/ec/js/<curve>) */
const provided = new Map<string, () => unknown>();

/**
 * Gives module `name` its JavaScript backend. The opt-in files (src/ec/js/<curve>.ts) call this
 * when imported: a curve's kernel printed as JavaScript is 200–450 KB, which every bundle would
 * carry if the module's file imported it, for the few engines without WebAssembly.
 */
export function provideJs(name: string, instantiate: () => unknown): void {
  provided.set(name, instantiate);
}
const compiled = new Map<string, WebAssembly.Module>();
// biome-ignore lint/suspicious/noExplicitAny: the cache holds every module's kernel; getKernel gives each caller its own exports type
const kernels = new Map<string, Partial<Record<Backend, Kernel<any>>>>();

/** Families call this at import time so that ready() knows which modules to compile. */
export function registerModule(src: ModuleSource): void {
  sources.set(src.name, src);
}

/**
 * Compile every registered kernel module asynchronously. Needed only on browser main threads,
 * which refuse synchronous compilation of large modules; harmless (and cheap) elsewhere.
 */
export async function ready(): Promise<void> {
  await Promise.all(
    [...sources.values()].map(async (s) => {
      const b = backendOf(s);
      const key = `${s.name}:${b}`;
      if (b !== 'js' && !compiled.has(key)) compiled.set(key, await WebAssembly.compile(wasmBytes(s, b) as BufferSource));
    }),
  );
}

/** One instantiated kernel module with its memory and key-slot allocator. */
export class Kernel<E> {
  readonly name: string;
  readonly exports: E;
  readonly slotSize: number;
  /** the backend this instance runs on */
  readonly backend: Backend;
  #memory: WebAssembly.Memory;
  #u8: Uint8Array;
  #free: number[] = [];
  #next = SLOTS_PTR;
  #generation = 0;
  /** slots made (freed ones included) */
  #slots = 0;
  /** freed regions by size, wiped, for the next allocRegion of that size */
  readonly #freeRegions = new Map<number, number[]>();
  // the key cache: entry i has slot #cPtr[i] (-1: free entry), owner #cId[i], #cUsed[i] bytes
  // written from the slot's start, and the clock's reference bit #cRef[i]
  #cPtr: number[] = [];
  #cId: number[] = [];
  #cUsed: number[] = [];
  #cRef: number[] = [];
  #cFree: number[] = [];
  #cHand = 0;
  #cNextId = 1;

  constructor(src: ModuleSource, slotSize: number) {
    this.name = src.name;
    this.slotSize = slotSize;
    const b = (this.backend = backendOf(src));
    if (b === 'js') {
      const js = src.variants?.js ?? provided.get(src.name);
      if (!js) {
        const hint = src.optIn?.js ? `: import '${src.optIn.js}' to provide it (without WebAssembly, the curves' JavaScript is opt-in)` : '';
        throw new CtkitError(`kernel module '${src.name}' has no js backend${hint}`);
      }
      this.exports = js() as E;
    } else {
      const key = `${src.name}:${b}`;
      let mod = src.variants ? compiled.get(key) : undefined;
      if (!mod) {
        mod = new WebAssembly.Module(wasmBytes(src, b) as BufferSource);
        if (src.variants) compiled.set(key, mod);
      }
      this.exports = new WebAssembly.Instance(mod, {}).exports as E;
    }
    this.#memory = (this.exports as { memory: WebAssembly.Memory }).memory;
    this.#u8 = new Uint8Array(this.#memory.buffer);
  }

  /**
   * Growths of this memory so far. A WebAssembly memory's buffer is detached when it grows (and a
   * JavaScript memory's replaced), so a holder of views of its regions compares this before and
   * after I/O into them.
   */
  get generation(): number {
    return this.#generation;
  }

  /** The current view of linear memory (a new view after the memory grows). */
  get u8(): Uint8Array {
    if (this.#u8.byteLength === 0) this.#u8 = new Uint8Array(this.#memory.buffer);
    return this.#u8;
  }

  /** A fresh key slot: slotSize bytes, zero-filled. */
  allocSlot(): number {
    const reused = this.#free.pop();
    if (reused !== undefined) return reused;
    const ptr = this.#next;
    this.#reserve(ptr + this.slotSize);
    this.#next = ptr + this.slotSize;
    this.#slots++;
    return ptr;
  }

  /** Grows the memory (if needed) to hold `end` bytes. */
  #reserve(end: number): void {
    const have = this.#memory.buffer.byteLength;
    if (end <= have) return;
    this.#memory.grow(Math.ceil((end - have) / PAGE));
    this.#generation++;
    this.#u8 = new Uint8Array(this.#memory.buffer); // a JS memory's old buffer is not detached
  }

  /**
   * A region of `bytes` zero-filled bytes of this memory for a caller's data (the file path's
   * batches: read into, sealed or opened in place, written out, with no copy), at a 64-byte
   * boundary; freeRegion wipes it. The memory is grown here, with room for REGION_SLACK_SLOTS
   * key slots beyond, so that a key expanded after the regions were made does not grow it again
   * (which would detach their views while a read into them is in flight; holders check
   * `generation`).
   */
  allocRegion(bytes: number): number {
    const reused = this.#freeRegions.get(bytes)?.pop();
    if (reused !== undefined) return reused;
    const ptr = (this.#next + 63) & ~63;
    this.#reserve(ptr + bytes + REGION_SLACK_SLOTS * this.slotSize);
    this.#next = ptr + bytes;
    return ptr;
  }

  /** Wipes a region from allocRegion and keeps it for the next of its size. */
  freeRegion(ptr: number, bytes: number): void {
    this.wipe(ptr, bytes);
    let list = this.#freeRegions.get(bytes);
    if (!list) this.#freeRegions.set(bytes, (list = []));
    list.push(ptr);
  }

  /**
   * Wipe a slot and return it to the allocator. `used` may name how many leading bytes were
   * written (the rest is still zero from the last wipe); by default the whole slot is wiped.
   */
  freeSlot(ptr: number, used = this.slotSize): void {
    this.u8.fill(0, ptr, ptr + Math.min(used, this.slotSize));
    this.#free.push(ptr);
  }

  /** Wipe a region of memory. */
  wipe(ptr: number, len: number): void {
    this.u8.fill(0, ptr, ptr + len);
  }

  /** A new owner id for the key cache. */
  cacheId(): number {
    return this.#cNextId++;
  }

  /** The slot of cache entry `entry` if `id` still owns it (marking it used), else -1. */
  cached(entry: number, id: number): number {
    if (entry < 0 || this.#cId[entry] !== id) return -1;
    this.#cRef[entry] = 1;
    return this.#cPtr[entry];
  }

  /**
   * A cache entry for owner `id` with a zero-filled slot: a free entry, a new one while there are
   * fewer than CACHE_SLOTS, or else the least recently used one, wiped (its owner loses it).
   */
  cacheAcquire(id: number): number {
    let entry = this.#cFree.pop();
    if (entry !== undefined) {
      this.#cPtr[entry] = this.allocSlot();
    } else if (this.#cPtr.length < CACHE_SLOTS) {
      entry = this.#cPtr.length;
      this.#cPtr.push(this.allocSlot());
      this.#cId.push(0);
      this.#cUsed.push(0);
      this.#cRef.push(0);
    } else {
      // clock: pass over entries used since the hand last came by, clearing their bits
      const n = this.#cPtr.length;
      while (this.#cRef[this.#cHand] === 1) {
        this.#cRef[this.#cHand] = 0;
        this.#cHand = (this.#cHand + 1) % n;
      }
      entry = this.#cHand;
      this.#cHand = (this.#cHand + 1) % n;
      this.wipe(this.#cPtr[entry], this.#cUsed[entry]);
    }
    this.#cId[entry] = id;
    this.#cUsed[entry] = 0;
    this.#cRef[entry] = 1;
    return entry;
  }

  /** The slot pointer of a cache entry. */
  cachePtr(entry: number): number {
    return this.#cPtr[entry];
  }

  /** Owner `id` has written the first `bytes` bytes of its entry's slot (what eviction and release wipe). */
  cacheWritten(entry: number, id: number, bytes: number): void {
    if (entry >= 0 && this.#cId[entry] === id) this.#cUsed[entry] = Math.max(this.#cUsed[entry], Math.min(bytes, this.slotSize));
  }

  /** Wipe and free owner `id`'s entry, if it still has it. */
  cacheRelease(entry: number, id: number): void {
    if (entry < 0 || this.#cId[entry] !== id) return;
    this.freeSlot(this.#cPtr[entry], this.#cUsed[entry]);
    this.#cPtr[entry] = -1;
    this.#cId[entry] = 0;
    this.#cUsed[entry] = 0;
    this.#cRef[entry] = 0;
    this.#cFree.push(entry);
  }

  /** Number of key-cache entries owned (for tests). */
  get cachedKeys(): number {
    return this.#cId.filter((id) => id !== 0).length;
  }

  /** Number of slots handed out and not yet freed (for tests). */
  get slotsInUse(): number {
    return this.#slots - this.#free.length;
  }
}

/** The kernel instance of a module, instantiated on first use. */
export function getKernel<E>(src: ModuleSource, slotSize: number): Kernel<E> {
  const b = backendOf(src);
  let per = kernels.get(src.name);
  if (!per) kernels.set(src.name, (per = {}));
  return (per[b] ??= new Kernel<E>(src, slotSize)) as Kernel<E>;
}

interface Held {
  kernel: Kernel<unknown>;
  slot: number;
}

// Last resort for key objects that were never disposed: wipe and free the slot when the owner
// is collected. dispose() is the documented way; this only bounds the damage of forgetting it.
// Engines without FinalizationRegistry (Hermes 0.12, React Native's engine before 0.74) have no
// such last resort: there a forgotten key's slot stays allocated (and unwiped) until dispose().
const finalizer: Pick<FinalizationRegistry<Held>, 'register' | 'unregister'> = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry<Held>((h) => h.kernel.freeSlot(h.slot)) : { register: () => undefined, unregister: () => false };

/** Tie a slot's lifetime to an owner object; returns the token for release(). */
export function holdSlot(owner: object, kernel: Kernel<unknown>, slot: number): object {
  const token = {};
  finalizer.register(owner, { kernel, slot }, token);
  return token;
}

/** Wipe and free a slot held by holdSlot, and forget the owner. `used` as for freeSlot. */
export function releaseSlot(token: object, kernel: Kernel<unknown>, slot: number, used?: number): void {
  finalizer.unregister(token);
  kernel.freeSlot(slot, used);
}

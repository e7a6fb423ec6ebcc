// A key slot owned by an object of the public API (an AEAD key, a MAC or hash state): allocated in the kernel
// module's memory, wiped and freed by release() — or, as a last resort, when the owner is
// garbage collected — and the one place that says "used after dispose()".
import { type Kernel, holdSlot, releaseSlot } from '../engine/kernel.js';
import { StateError } from '../errors.js';
import { copyBytes } from './check.js';

export class KeySlot {
  readonly ptr: number;
  readonly #kernel: Kernel<unknown>;
  readonly #token: object;
  #released = false;

  constructor(owner: object, kernel: Kernel<unknown>) {
    this.#kernel = kernel;
    this.ptr = kernel.allocSlot();
    this.#token = holdSlot(owner, kernel, this.ptr);
  }

  /** Throws StateError once released: `${label}: used after dispose()`. */
  check(label: string): void {
    if (this.#released) throw new StateError(`${label}: used after dispose()`);
  }

  /** Whether release() has run. */
  get released(): boolean {
    return this.#released;
  }

  /** Wipe and free the slot (its first `used` bytes, the rest never written; all by default). Idempotent. */
  release(used?: number): void {
    if (this.#released) return;
    this.#released = true;
    releaseSlot(this.#token, this.#kernel, this.ptr, used);
  }
}

/**
 * An expanded key in the kernel's key cache (engine/kernel.ts): the object keeps a copy of the
 * raw key, and its slot may be reclaimed by other keys when the cache is full; ptr() expands the
 * key again when that happened. release() wipes the raw copy and the slot. No finalizer: an
 * object that is never released costs its raw copy (garbage once unreachable) and, until
 * evicted, one of the cache's slots.
 */
export class CachedKey {
  readonly #kernel: Kernel<unknown>;
  readonly #id: number;
  readonly #expand: (slot: number, raw: Uint8Array) => number;
  #raw: Uint8Array | undefined;
  /** the kernel's cache entry (#load sets it; the kernel answers for it only while it holds this key's id, so it is not reset on release) */
  #entry = -1;
  /** what the owner computed in the slot besides the expansion; reset to 0 whenever it is expanded again */
  extras = 0;

  /** `expand` writes the key into a zero-filled slot and returns the bytes it wrote from the slot's start. */
  constructor(kernel: Kernel<unknown>, raw: Uint8Array, expand: (slot: number, raw: Uint8Array) => number) {
    this.#kernel = kernel;
    this.#id = kernel.cacheId();
    this.#expand = expand;
    this.#raw = copyBytes(raw);
    this.#load(this.#raw);
  }

  /** The slot holding the expanded key (expanding it again if it was reclaimed); StateError once released. */
  ptr(label: string): number {
    const raw = this.#raw;
    if (raw === undefined) throw new StateError(`${label}: used after dispose()`);
    const p = this.#kernel.cached(this.#entry, this.#id);
    return p >= 0 ? p : this.#load(raw);
  }

  /** The owner wrote the slot's first `bytes` bytes (so that eviction and release wipe them). */
  written(bytes: number): void {
    this.#kernel.cacheWritten(this.#entry, this.#id, bytes);
  }

  get released(): boolean {
    return this.#raw === undefined;
  }

  /** Wipe the raw key and the slot. Idempotent. */
  release(): void {
    if (this.#raw === undefined) return;
    this.#raw.fill(0);
    this.#raw = undefined;
    this.#kernel.cacheRelease(this.#entry, this.#id);
  }

  #load(raw: Uint8Array): number {
    const k = this.#kernel;
    const entry = (this.#entry = k.cacheAcquire(this.#id));
    const slot = k.cachePtr(entry);
    this.extras = 0;
    k.cacheWritten(entry, this.#id, this.#expand(slot, raw));
    return slot;
  }
}

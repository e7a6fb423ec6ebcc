// A key slot owned by an object of the public API (an AEAD key, a MAC or hash state): allocated in the kernel
// module's memory, wiped and freed by release() — or, as a last resort, when the owner is
// garbage collected — and the one place that says "used after dispose()".
import { type Kernel, holdSlot, releaseSlot } from '../engine/kernel.js';
import { StateError } from '../errors.js';

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

// The linear memory of a JavaScript kernel instance (the `js` backend): an ArrayBuffer in
// 64 KiB pages with WebAssembly.Memory's `buffer` and `grow`. Growing allocates a larger buffer,
// copies, wipes the old one (it may hold keys) and tells the instance to re-view it; unlike a
// WebAssembly memory, the old buffer is not detached, so views made before must be re-made
// (Kernel.allocSlot, the only code that grows a kernel's memory, re-views it at once; Kernel.u8's
// own check for a detached view cannot see this growth).

const PAGE = 65536;

export class JsMemory {
  #buffer: ArrayBuffer;
  readonly #onGrow: (b: ArrayBuffer) => void;

  constructor(pages: number, onGrow: (b: ArrayBuffer) => void) {
    this.#buffer = new ArrayBuffer(pages * PAGE);
    this.#onGrow = onGrow;
  }

  get buffer(): ArrayBuffer {
    return this.#buffer;
  }

  /** Adds `delta` pages; returns the previous size in pages. */
  grow(delta: number): number {
    const old = this.#buffer;
    const pages = old.byteLength / PAGE;
    if (delta > 0) {
      const next = new ArrayBuffer(old.byteLength + delta * PAGE);
      new Uint8Array(next).set(new Uint8Array(old));
      new Uint8Array(old).fill(0);
      this.#buffer = next;
      this.#onGrow(next);
    }
    return pages;
  }
}

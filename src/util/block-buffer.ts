// The one place where a 16-byte-block MAC (GHASH, POLYVAL, Poly1305) splits arbitrary update()
// input into whole blocks for its kernel and keeps the partial block between calls. Lengths
// decide everything here; the bytes are only moved.
import { whole16 } from './length.js';

export class BlockBuffer {
  /** the partial block (its first `length` bytes are data) */
  readonly block = new Uint8Array(16);
  length = 0;

  /** Passes every whole block of buffered‖data to `blocks` (in order, as few calls as possible). */
  feed(data: Uint8Array, blocks: (whole: Uint8Array) => void): void {
    let off = 0;
    if (this.length > 0) {
      const take = Math.min(16 - this.length, data.length);
      this.block.set(data.subarray(0, take), this.length);
      this.length += take;
      off = take;
      if (this.length < 16) return;
      blocks(this.block);
      this.length = 0;
    }
    const whole = whole16(data.length - off);
    if (whole > 0) blocks(data.subarray(off, off + whole));
    off += whole;
    if (off < data.length) {
      this.block.set(data.subarray(off));
      this.length = data.length - off;
    }
  }

  /** The buffered partial block (a view; empty when none). */
  partial(): Uint8Array {
    return this.block.subarray(0, this.length);
  }

  wipe(): void {
    this.block.fill(0);
    this.length = 0;
  }
}

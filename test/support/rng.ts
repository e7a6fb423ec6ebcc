// A small seeded generator (SplitMix32-style) so that structured "random" cases are the same on
// every run and a failure can be reproduced from its case description.
export class Rng {
  #s: number;
  constructor(seed: number) {
    this.#s = seed >>> 0;
  }
  u32(): number {
    this.#s = (this.#s + 0x9e3779b9) >>> 0;
    let z = this.#s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  }
  int(n: number): number {
    return this.u32() % n;
  }
  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.u32() & 0xff;
    return out;
  }
}

/** The bytes of parts, one after another, in a new array. */
export const cat = (parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts));
export const hex = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.length).toString('hex');
export const unhex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'));

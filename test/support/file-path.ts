// In-memory ends for the CLI's file path (pipeline() in src/cli/files.ts): tests that drive it
// directly, without files or processes (cli-seal, cli-files).
import type { Aead } from '../../src/aead/types.js';
import type { Output } from '../../src/cli/io.js';
import { ARENA } from '../../src/engine/kernel.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * An input of `data`. Each read first waits `delay()` ms (none without it); `size` is the length
 * it says it has (less than it is: the reads stay that small while the data goes on); every
 * buffer read into is kept in `into`.
 */
export function memoryInput(data: Uint8Array, o: { delay?: () => number; size?: number } = {}) {
  let at = 0;
  const input = {
    into: [] as Uint8Array[],
    size: o.size,
    bytesRead: 0,
    async readFull(buf: Uint8Array, off = 0, len = buf.length - off): Promise<number> {
      if (o.delay) await sleep(o.delay());
      input.into.push(buf);
      const n = Math.min(len, data.length - at);
      buf.set(data.subarray(at, at + n), off);
      at += n;
      input.bytesRead += n;
      return n;
    },
  };
  return input;
}

/**
 * An Output that keeps each buffer it is given (`given`, not a copy: to see it wiped later) and a
 * copy of its bytes (`parts`); each write takes `delay` ms (one turn of the event loop without
 * it), and `maxPending` is the most writes in flight at once.
 */
export function memoryOutput(o: { delay?: number } = {}) {
  const out = {
    given: [] as Uint8Array[],
    parts: [] as Uint8Array[],
    pending: 0,
    maxPending: 0,
    streaming: true,
    written: 0,
    commit: async () => undefined,
    abort: async () => undefined,
    async write(chunks: readonly Uint8Array[]): Promise<void> {
      out.maxPending = Math.max(out.maxPending, ++out.pending);
      for (const c of chunks) {
        out.given.push(c);
        out.parts.push(c.slice());
        out.written += c.length;
      }
      await (o.delay ? sleep(o.delay) : new Promise((r) => setImmediate(r)));
      out.pending--;
    },
  };
  return out satisfies Output;
}

/** `aead` without its kernel memory (ARENA): the file path then reads into plain buffers, as on the js backend. */
export function withoutArena(aead: Aead): Aead {
  return Object.assign(Object.create(aead) as Aead, {
    seal: (...a: Parameters<Aead['seal']>) => aead.seal(...a),
    open: (...a: Parameters<Aead['open']>) => aead.open(...a),
    [ARENA]: () => undefined,
  });
}

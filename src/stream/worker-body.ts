// The message handler of a sealed-stream worker (worker.ts runs it on the worker's globalThis;
// the tests run it in-process, with a stand-in postMessage and AEAD factories). It receives the
// key once, expands it into its own AEAD object and wipes the copy it received; then seals or
// opens batches of segments; on dispose it wipes the expanded key and says whether that worked.
//
// Messages in:  { t: 'init', algorithm, key } · { t: 'seal' | 'open', id, data, algorithm, prefix, aad, segmentSize, first, lastFinal } · { t: 'dispose' }
// Messages out: { t: 'ready' } · { t: 'done', id, data } · { t: 'fail', id, name, message, segment } · { t: 'disposed', wiped }
//
// A batch at the start of a buffer with room for the result is sealed or opened in place, and
// the result goes back in that same buffer (transferred). Otherwise the result is a new buffer,
// and plaintext that came in to be sealed is wiped. The AEAD's module is imported at 'init'
// (factories.ts: a ChaCha20-Poly1305 worker loads no AES or SM4 code), so messages are handled
// one after the other, each once the one before it has finished: a 'dispose' that arrives while
// 'init' is still importing waits for the key to be expanded, then wipes it.

import type { Aead } from '../aead/types.js';
import { StateError } from '../errors.js';
import { type AeadFactory, loadAeadFactory } from './factories.js';
import { algorithmByName } from './format.js';
import { SegmentAuthenticationError, openBatch, openedLength, sealBatch, sealedLength, type SegmentParams } from './segments.js';

/** How the handler answers: the worker's postMessage. */
export type Post = (message: unknown, transfer?: Transferable[]) => void;

function paramsOf(m: { algorithm: string; prefix: Uint8Array; aad: Uint8Array; segmentSize: number }): SegmentParams {
  return { alg: algorithmByName(m.algorithm)!, prefix: m.prefix, aad: m.aad, segmentSize: m.segmentSize };
}

/**
 * A worker's handler: call it with each message's data, in the order they arrive. It returns the
 * promise of that message's handling (after those before it), which never rejects.
 */
// biome-ignore lint/suspicious/noExplicitAny: a message from the pool is untyped until its tag is read
export function workerBody(post: Post, load: (algorithm: string) => Promise<AeadFactory | undefined> = loadAeadFactory): (m: any) => Promise<void> {
  let aead: Aead | undefined;
  let received: Uint8Array | undefined;
  let queue: Promise<void> = Promise.resolve();

  // biome-ignore lint/suspicious/noExplicitAny: as above
  async function handle(m: any): Promise<void> {
    try {
      switch (m.t) {
        case 'init': {
          received = m.key as Uint8Array;
          try {
            const f = await load(m.algorithm);
            if (!f) throw new RangeError(`unknown algorithm ${m.algorithm}`);
            aead = f(received);
          } finally {
            received.fill(0);
          }
          post({ t: 'ready' });
          return;
        }
        case 'seal':
        case 'open': {
          if (!aead) throw new StateError('worker: no key');
          const data = m.data as Uint8Array;
          const p = paramsOf(m);
          const seal = m.t === 'seal';
          const need = seal ? sealedLength(data.length, p, m.lastFinal) : openedLength(data.length, p, m.lastFinal);
          const room = data.byteOffset === 0 && need >= 0 && data.buffer.byteLength >= need ? new Uint8Array(data.buffer) : undefined;
          const out = seal ? sealBatch(aead, p, data, m.first, m.lastFinal, room) : openBatch(aead, p, data, m.first, m.lastFinal, room);
          if (seal && !room) data.fill(0); // plaintext that came in (in place, ciphertext covers it)
          post({ t: 'done', id: m.id, data: out }, [out.buffer as ArrayBuffer]);
          return;
        }
        case 'dispose': {
          aead?.dispose();
          let disposed = false;
          try {
            aead?.seal(new Uint8Array(aead.nonceLength), new Uint8Array(0));
          } catch (err) {
            disposed = err instanceof StateError;
          }
          const wiped = (received?.every((b) => b === 0) ?? true) && (aead === undefined || disposed);
          aead = undefined;
          post({ t: 'disposed', wiped });
          return;
        }
      }
    } catch (err) {
      if (m.t === 'seal' && m.data instanceof Uint8Array) m.data.fill(0);
      const x = err as Error;
      post({
        t: 'fail',
        id: m.id,
        name: x?.name,
        message: x?.message ?? String(err),
        segment: err instanceof SegmentAuthenticationError ? err.segment : undefined,
      });
    }
  }

  // biome-ignore lint/suspicious/noExplicitAny: as above
  return (m: any) => {
    queue = queue.then(() => handle(m));
    return queue;
  };
}

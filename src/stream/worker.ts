// The body of a sealed-stream worker (a Web Worker, or a Node.js worker_threads worker through
// the bootstrap in pool.ts, which gives it the same globalThis.postMessage / onmessage). It
// receives the key once, expands it into its own AEAD object and wipes the copy it received;
// then seals or opens batches of segments; on dispose it wipes the expanded key.
//
// Messages in:  { t: 'init', algorithm, key } · { t: 'seal' | 'open', id, data, params, first, lastFinal } · { t: 'dispose' }
// Messages out: { t: 'loaded' } · { t: 'ready' } · { t: 'done', id, data } · { t: 'fail', id, … } · { t: 'disposed', wiped }
//
// A batch at the start of a buffer with room for the result is sealed or opened in place, and
// the result goes back in that same buffer. The AEAD's module is imported at 'init' (factories.ts:
// a ChaCha20-Poly1305 worker loads no AES or SM4 code), so messages are handled one after the
// other, each once the one before it has finished: a 'dispose' that arrives while 'init' is
// still importing waits for the key to be expanded, then wipes it.

import type { Aead } from '../aead/types.js';
import { StateError } from '../errors.js';
import { loadAeadFactory } from './factories.js';
import { algorithmByName } from './format.js';
import { SegmentAuthenticationError, openBatch, openedLength, sealBatch, sealedLength, type SegmentParams } from './segments.js';

interface Scope {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  // biome-ignore lint/suspicious/noExplicitAny: a message from the pool is untyped until its tag is read
  onmessage: ((e: { data: any }) => void) | null;
}
const scope = globalThis as unknown as Scope;

let aead: Aead | undefined;
let received: Uint8Array | undefined;

function paramsOf(m: { algorithm: string; prefix: Uint8Array; aad: Uint8Array; segmentSize: number }): SegmentParams {
  return { alg: algorithmByName(m.algorithm)!, prefix: m.prefix, aad: m.aad, segmentSize: m.segmentSize };
}

// messages in order, each after the one before it (only 'init' waits for anything)
let queue: Promise<void> = Promise.resolve();
scope.onmessage = (e) => {
  queue = queue.then(() => handle(e.data));
};

// biome-ignore lint/suspicious/noExplicitAny: a message from the pool is untyped until its tag is read
async function handle(m: any): Promise<void> {
  try {
    switch (m.t) {
      case 'init': {
        received = m.key as Uint8Array;
        try {
          const f = await loadAeadFactory(m.algorithm);
          if (!f) throw new RangeError(`unknown algorithm ${m.algorithm}`);
          aead = f(received);
        } finally {
          received.fill(0);
        }
        scope.postMessage({ t: 'ready' });
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
        scope.postMessage({ t: 'done', id: m.id, data: out }, [out.buffer as ArrayBuffer]);
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
        scope.postMessage({ t: 'disposed', wiped });
        return;
      }
    }
  } catch (err) {
    if (m.t === 'seal' && m.data instanceof Uint8Array) m.data.fill(0);
    const x = err as Error;
    scope.postMessage({
      t: 'fail',
      id: m.id,
      name: x?.name,
      message: x?.message ?? String(err),
      segment: err instanceof SegmentAuthenticationError ? err.segment : undefined,
    });
  }
}

scope.postMessage({ t: 'loaded' });

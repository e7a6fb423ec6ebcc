// The incremental form of the sealed stream, for code without web streams:
//
//   const s = createSealer(aead);  out.push(...s.push(chunk)); …; out.push(...s.finish());
//   const o = createOpener(aead);  plain.push(...o.push(chunk)); …; plain.push(...o.finish());
//
// push() returns the bytes that are complete (possibly none); finish() ends the stream. The
// opener returns a segment's plaintext only after that segment authenticated, and finish()
// throws AuthenticationError when the stream was truncated; after any error the object is dead
// (StateError). Memory: one segment held back, plus the output of the current push.

import type { Aead } from '../aead/types.js';
import { StateError } from '../errors.js';
import { checkBytes, copyBytes } from '../util/check.js';
import { type AlgorithmInfo, HEADER_FIXED, SEGMENT_SIZE, StreamFormatError, algorithmByName, checkSegmentSize, encodeHeader, headerLength, parseHeaderStart, prefixLength, segmentAad } from './format.js';
import { Framer, type SegmentParams, openBatch, sealBatch } from './segments.js';

/** Bytes of plaintext (or sealed data) handed to one AEAD batch at most. */
export const BATCH_BYTES = 4 << 20;

export interface SealerOptions {
  /** plaintext bytes per segment (default 65536, the CLI's); recorded in the header */
  segmentSize?: number;
  /** associated data bound to the whole stream (not stored: the opener must pass the same) */
  aad?: Uint8Array;
  /**
   * The nonce prefix, for test vectors only. A prefix must never be used twice with one key:
   * by default it is random (crypto.getRandomValues), which is what every real use wants.
   */
  noncePrefix?: Uint8Array;
}

export interface OpenerOptions {
  /** the associated data the stream was sealed with */
  aad?: Uint8Array;
}

/** The format-1 algorithm of an AEAD object (its `algorithm` name), or a RangeError. */
export function streamAlgorithm(name: string): AlgorithmInfo {
  const alg = algorithmByName(name);
  if (!alg) {
    throw new RangeError(`${name} has no sealed-stream algorithm id (format 1 has aes-256-gcm, chacha20-poly1305, xchacha20-poly1305, aes-256-gcm-siv, sm4-gcm)`);
  }
  return alg;
}

export function checkAead(aead: Aead): AlgorithmInfo {
  if (aead === null || typeof aead !== 'object' || typeof aead.seal !== 'function' || typeof aead.algorithm !== 'string') {
    throw new TypeError('aead must be a ctkit AEAD object (aesGcm(key), chacha20Poly1305(key), …)');
  }
  const alg = streamAlgorithm(aead.algorithm);
  if (aead.tagLength !== alg.tagLength) throw new RangeError(`sealed streams use ${alg.tagLength}-byte tags, this ${alg.name} object has ${aead.tagLength}`);
  return alg;
}

/** Header and per-segment parameters of a new stream. */
export function newStreamParams(alg: AlgorithmInfo, o: SealerOptions = {}): { header: Uint8Array; params: SegmentParams } {
  if (o === null || typeof o !== 'object') throw new TypeError('options must be an object');
  const segmentSize = o.segmentSize ?? SEGMENT_SIZE;
  checkSegmentSize(segmentSize);
  if (o.aad !== undefined) checkBytes('aad', o.aad);
  let prefix: Uint8Array;
  if (o.noncePrefix !== undefined) {
    checkBytes('noncePrefix', o.noncePrefix);
    if (o.noncePrefix.length !== prefixLength(alg)) throw new RangeError(`noncePrefix must be ${prefixLength(alg)} bytes for ${alg.name}, got ${o.noncePrefix.length}`);
    prefix = copyBytes(o.noncePrefix);
  } else {
    prefix = crypto.getRandomValues(new Uint8Array(prefixLength(alg)));
  }
  const header = encodeHeader(alg, prefix, segmentSize);
  return { header, params: { alg, prefix, segmentSize, aad: segmentAad(header, o.aad && copyBytes(o.aad)) } };
}

/**
 * Reads a header from the front of a byte stream: feed() until it returns the parameters.
 * `expected` is the algorithm of the key that will open the stream.
 */
export class HeaderReader {
  readonly #buf = new Uint8Array(HEADER_FIXED + 19);
  #have = 0;
  #need = HEADER_FIXED;
  #alg: AlgorithmInfo | undefined;
  #segmentSize = 0;
  constructor(
    readonly expected: AlgorithmInfo | undefined,
    readonly aad: Uint8Array | undefined,
  ) {}

  get started(): boolean {
    return this.#have > 0;
  }

  /** Consumes header bytes from chunk; returns the parameters and the rest of the chunk once complete. */
  feed(chunk: Uint8Array): { params: SegmentParams; header: Uint8Array; rest: Uint8Array } | undefined {
    let c = chunk;
    while (c.length > 0) {
      const take = Math.min(this.#need - this.#have, c.length);
      this.#buf.set(c.subarray(0, take), this.#have);
      this.#have += take;
      c = c.subarray(take);
      if (this.#have < this.#need) return undefined;
      if (!this.#alg) {
        const { alg, segmentSize } = parseHeaderStart(this.#buf.subarray(0, HEADER_FIXED));
        if (this.expected && alg.id !== this.expected.id) {
          throw new StreamFormatError(`the stream was sealed with ${alg.name}, but the key is for ${this.expected.name}`);
        }
        this.#alg = alg;
        this.#segmentSize = segmentSize;
        this.#need = headerLength(alg);
        continue;
      }
      const header = this.#buf.slice(0, this.#need);
      const prefix = header.slice(HEADER_FIXED);
      return { header, rest: c, params: { alg: this.#alg, prefix, segmentSize: this.#segmentSize, aad: segmentAad(header, this.aad) } };
    }
    return undefined;
  }
}

function maxUnits(unit: number): number {
  return Math.max(1, Math.floor(BATCH_BYTES / unit));
}

/** The sealing side of the incremental form. */
export class StreamSealer {
  /** the stream's header (also the first bytes that push() or finish() returns) */
  readonly header: Uint8Array;
  readonly #aead: Aead;
  readonly #params: SegmentParams;
  readonly #framer: Framer;
  #index = 0;
  #headerOut = false;
  #state: 'open' | 'done' | 'failed' = 'open';

  constructor(aead: Aead, options: SealerOptions = {}) {
    const alg = checkAead(aead);
    const { header, params } = newStreamParams(alg, options);
    this.#aead = aead;
    this.header = header;
    this.#params = params;
    this.#framer = new Framer(params.segmentSize, maxUnits(params.segmentSize));
  }

  /** Plaintext bytes that are complete segments go out sealed; the rest waits. */
  push(chunk: Uint8Array): Uint8Array[] {
    this.#check();
    checkBytes('chunk', chunk);
    const out: Uint8Array[] = [];
    if (!this.#headerOut) {
      out.push(this.header.slice());
      this.#headerOut = true;
    }
    try {
      this.#framer.push(chunk, (batch) => {
        out.push(sealBatch(this.#aead, this.#params, batch, this.#index, false));
        this.#index += batch.length / this.#params.segmentSize;
      });
    } catch (e) {
      this.#fail();
      throw e;
    }
    return out;
  }

  /** Seals what is left as the final segment; the stream is complete. */
  finish(): Uint8Array[] {
    this.#check();
    const out: Uint8Array[] = [];
    if (!this.#headerOut) {
      out.push(this.header.slice());
      this.#headerOut = true;
    }
    try {
      out.push(sealBatch(this.#aead, this.#params, this.#framer.rest(), this.#index, true));
    } catch (e) {
      this.#fail();
      throw e;
    }
    this.#framer.clear();
    this.#state = 'done';
    return out;
  }

  #check(): void {
    if (this.#state !== 'open') throw new StateError(`sealer: the stream is ${this.#state === 'done' ? 'finished' : 'dead after an error'}`);
  }

  #fail(): void {
    this.#state = 'failed';
    this.#framer.clear();
  }
}

/** The opening side of the incremental form. */
export class StreamOpener {
  readonly #aead: Aead;
  readonly #reader: HeaderReader;
  #params: SegmentParams | undefined;
  #framer: Framer | undefined;
  #index = 0;
  #state: 'open' | 'done' | 'failed' = 'open';

  constructor(aead: Aead, options: OpenerOptions = {}) {
    const alg = checkAead(aead);
    if (options === null || typeof options !== 'object') throw new TypeError('options must be an object');
    if (options.aad !== undefined) checkBytes('aad', options.aad);
    this.#aead = aead;
    this.#reader = new HeaderReader(alg, options.aad && copyBytes(options.aad));
  }

  /** The segment size the header declares (once the header has been read). */
  get segmentSize(): number | undefined {
    return this.#params?.segmentSize;
  }

  /** Plaintext of the segments that authenticated (all but the last one received, which waits). */
  push(chunk: Uint8Array): Uint8Array[] {
    this.#check();
    checkBytes('chunk', chunk);
    const out: Uint8Array[] = [];
    try {
      let c = chunk;
      if (!this.#params) {
        const h = this.#reader.feed(c);
        if (!h) return out;
        this.#params = h.params;
        this.#framer = new Framer(h.params.segmentSize + h.params.alg.tagLength, maxUnits(h.params.segmentSize + h.params.alg.tagLength));
        c = h.rest;
      }
      const unit = this.#framer!.unit;
      this.#framer!.push(c, (batch) => {
        out.push(openBatch(this.#aead, this.#params!, batch, this.#index, false));
        this.#index += batch.length / unit;
      });
    } catch (e) {
      for (const o of out) o.fill(0);
      this.#fail();
      throw e;
    }
    return out;
  }

  /** Opens the final segment; AuthenticationError when the stream was cut short. */
  finish(): Uint8Array[] {
    this.#check();
    try {
      if (!this.#params) {
        throw new StreamFormatError(this.#reader.started ? 'truncated: the stream ends inside its header' : 'empty input: not a ctkit sealed stream');
      }
      const out = [openBatch(this.#aead, this.#params, this.#framer!.rest(), this.#index, true)];
      this.#framer!.clear();
      this.#state = 'done';
      return out;
    } catch (e) {
      this.#fail();
      throw e;
    }
  }

  #check(): void {
    if (this.#state !== 'open') throw new StateError(`opener: the stream is ${this.#state === 'done' ? 'finished' : 'dead after an error'}`);
  }

  #fail(): void {
    this.#state = 'failed';
    this.#framer?.clear();
  }
}

export function createSealer(aead: Aead, options?: SealerOptions): StreamSealer {
  return new StreamSealer(aead, options);
}

export function createOpener(aead: Aead, options?: OpenerOptions): StreamOpener {
  return new StreamOpener(aead, options);
}

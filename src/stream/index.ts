// ctkit/stream: the sealed stream (format 1, docs/stream-format.md) as web streams, an
// incremental push/finish form, async one-shot calls that yield, and a worker pool.
export { createSealStream, createOpenStream, sealStreamAsync, openStreamAsync, yieldToEventLoop, type BatchCipher, type PumpOptions, type SealStreamOptions, type OpenStreamOptions } from './web.js';
export { createSealer, createOpener, StreamSealer, StreamOpener, type SealerOptions, type OpenerOptions } from './sealer.js';
export { SegmentAuthenticationError } from './segments.js';
export { ALGORITHMS, SEGMENT_SIZE, MAX_SEGMENT_SIZE, StreamFormatError, headerLength, type AlgorithmInfo, type AlgorithmName } from './format.js';
export { createWorkerPool, nodeWorkers, WorkerPool, type WorkerPoolOptions, type WorkerLike, type NodeWorkerLike, type NodeWorkersOptions } from './pool.js';

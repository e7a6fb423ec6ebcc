// Worker entry of bench/stream.ts: registers tsx inside the worker, then loads the TS body.
import { register } from 'tsx/esm/api';
register();
await import('./stream-worker-body.ts');

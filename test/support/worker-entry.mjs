// Worker entry (test/engine.test.ts): registers tsx inside the worker, then loads the TS body.
import { register } from 'tsx/esm/api';
register();
await import('./worker-polyval.ts');

// Removes dist/ before a build, so that no file of an earlier build (a module since renamed or
// moved out of the build) is packed.
import { rmSync } from 'node:fs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

#!/usr/bin/env node
// The ctkit command: runs the compiled dist/cli/main.js, in an installed package and in a clone
// alike (a clone builds dist/ on `npm install`, through the `prepare` script). It never loads
// the TypeScript sources; tests of the CLI run src/cli/main.ts through tsx themselves.
import { existsSync } from 'node:fs';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (existsSync(main)) {
  await import(main.href);
} else {
  process.stderr.write('ctkit: dist/cli/main.js is missing; in a clone, run `npm install` or `npm run build`\n');
  process.exitCode = 2;
}

#!/usr/bin/env node
// The ctkit command. In a clone with dev dependencies it runs the TypeScript sources through
// tsx; in an installed package it runs the compiled dist/cli/main.js.
import { existsSync } from 'node:fs';

const src = new URL('../src/cli/main.ts', import.meta.url);
const dist = new URL('../dist/cli/main.js', import.meta.url);

let useSrc = false;
if (existsSync(src)) {
  try {
    const { register } = await import('tsx/esm/api');
    register();
    useSrc = true;
  } catch {
    // no tsx (an installed package): fall back to dist/
  }
}
if (useSrc) await import(src.href);
else if (existsSync(dist)) await import(dist.href);
else {
  process.stderr.write('ctkit: neither dist/ (run `npm run build`) nor the dev dependencies (run `npm install`) are present\n');
  process.exitCode = 2;
}

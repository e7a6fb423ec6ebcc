// `npm run docs:cli`: writes docs/cli.md, the help of the ctkit command as it prints it
// (src/cli/commands.ts); test/cli-help.test.ts fails when the two differ.
import { writeFileSync } from 'node:fs';
import { cliReference } from '../src/cli/commands.js';

writeFileSync(new URL('../docs/cli.md', import.meta.url), cliReference());

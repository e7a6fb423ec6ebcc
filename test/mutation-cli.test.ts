// The CLI's glue that its other tests cannot see (issue 18, `npm run test:mutation -- src/cli`):
// the error classes' names, and the worker pool of a CLI run from its TypeScript sources (the
// other CLI tests run a bundle, where the workers need no loader).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Failure, FileError, UsageError } from '../src/cli/errors.js';
import { createOpener } from '../src/stream/index.js';
import { chacha20Poly1305 } from '../src/aead/index.js';
import { Rng, cat } from './support/rng.js';
import { ctkitSourceArgv } from './support/cli.js';
import { keygenAead } from '../src/cli/files.js';
import { parseAeadKeyFile } from '../src/cli/aead-key-file.js';

const dir = mkdtempSync(join(tmpdir(), 'ctkit-mutation-cli-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

test('the CLI error classes are Errors named after themselves', () => {
  for (const [C, name] of [
    [UsageError, 'UsageError'],
    [FileError, 'FileError'],
    [Failure, 'Failure'],
  ] as const) {
    const e = new C('m');
    assert.ok(e instanceof Error);
    assert.equal(e.name, name);
    assert.equal(String(e), `${name}: m`);
  }
});

/** `node --import tsx src/cli/main.ts <args>`, stdin written in parts with a pause between them. */
function fromSource(args: string[], parts: Uint8Array[], pauseMs: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ctkitSourceArgv(args), { cwd: dir, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    c.stderr.on('data', (d) => (stderr += d));
    c.on('error', reject);
    c.on('exit', (code) => resolve({ code, stderr }));
    c.stdin.on('error', () => {}); // a child that failed early closes its stdin
    const write = (i: number) => {
      if (i === parts.length) return void c.stdin.end();
      c.stdin.write(parts[i], () => setTimeout(() => write(i + 1), i === 0 ? pauseMs : 0));
    };
    write(0);
  });
}

test('from the sources, seal --jobs 2 starts its workers with the TypeScript loader', async () => {
  // without it a worker cannot import worker.ts ("Unknown file extension .ts") and the seal fails;
  // the pause lets the workers start (or fail) before the second half of the input arrives
  const keyFile = join(dir, 'k.jwk');
  await keygenAead('chacha20-poly1305', keyFile);
  const { key } = parseAeadKeyFile(readFileSync(keyFile), keyFile);
  const rng = new Rng(0x10b5);
  const parts = [rng.bytes(9 << 20), rng.bytes(9 << 20)];
  const r = await fromSource(['seal', '-k', keyFile, '--jobs', '2', '-o', join(dir, 'out.ctk')], parts, 3000);
  assert.equal(r.code, 0, r.stderr);
  const opener = createOpener(chacha20Poly1305(key));
  const plain = cat([...opener.push(readFileSync(join(dir, 'out.ctk'))), ...opener.finish()]);
  assert.ok(Buffer.from(plain).equals(Buffer.from(cat(parts))), 'the sealed file opens to the input');
});

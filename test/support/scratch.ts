// Scratch directories for tests that write files, removed when the test process exits, and the
// one assertion their commands need most: a rejection (or throw) of a given type with a given message.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A private directory under $TMPDIR (`root`), fresh subdirectories of it, and a sorted listing. */
export function scratch(prefix: string): { root: string; fresh: () => string; ls: (d: string) => string[] } {
  const root = mkdtempSync(join(tmpdir(), `ctkit-${prefix}-`));
  process.on('exit', () => rmSync(root, { recursive: true, force: true }));
  let n = 0;
  const fresh = () => {
    const d = join(root, `d${n++}`);
    mkdirSync(d);
    return d;
  };
  return { root, fresh, ls: (d: string) => readdirSync(d).sort() };
}

type ErrorClass = abstract new (...a: never[]) => Error;

/** An assert.throws/rejects validator: an error of `type` whose message is `message` (or matches it). */
function errorOf(type: ErrorClass, message: string | RegExp, what: string): (e: Error) => true {
  return (e) => {
    assert.ok(e instanceof type, `${what}: ${e.name}: ${e.message}`);
    if (typeof message === 'string') assert.equal(e.message, message, what);
    else assert.match(e.message, message, what);
    return true;
  };
}

/** `f` rejects with an error of `type` whose message is `message` (or matches it). */
export async function rejectsWith(f: Promise<unknown>, type: ErrorClass, message: string | RegExp, what = ''): Promise<void> {
  await assert.rejects(f, errorOf(type, message, what));
}

/** `f()` throws an error of `type` whose message is `message` (or matches it). */
export function throwsWith(f: () => unknown, type: ErrorClass, message: string | RegExp, what = ''): void {
  assert.throws(f, errorOf(type, message, what));
}

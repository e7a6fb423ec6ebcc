// Argument checks shared by the public APIs. Lengths are public; these never look at contents.
// Every mistake is one of ctkit's typed errors naming the parameter (never an engine TypeError
// from deeper down): a value that is not a Uint8Array — including objects that only inherit
// from Uint8Array.prototype, and proxies — or a view of a detached (transferred) ArrayBuffer is
// a CtkitTypeError. A Uint8Array from another realm (an iframe, a vm context) is accepted.

import { CtkitRangeError, CtkitTypeError } from '../errors.js';

const NOTHING = new Uint8Array(0);
const objectToString = Object.prototype.toString;

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v !== 'object') return typeof v;
  try {
    return (v as object).constructor?.name ?? 'object';
  } catch {
    return 'object';
  }
}

/** A real Uint8Array (this realm's or another's), not an object that only inherits its prototype. */
function genuine(v: unknown): v is Uint8Array {
  return ArrayBuffer.isView(v) && (v instanceof Uint8Array || objectToString.call(v) === '[object Uint8Array]');
}

/** Whether v is a genuine Uint8Array (of this realm or another) whose buffer can be read. */
export function isBytes(v: unknown): v is Uint8Array {
  return genuine(v) && (v.length > 0 || usable(v));
}

// A view of length 0 may be one of a detached buffer (or out of bounds of a shrunk resizable
// one), which the engine's own methods reject with a TypeError: copying it somewhere tells.
function usable(v: Uint8Array): boolean {
  try {
    NOTHING.set(v);
    return true;
  } catch {
    return false;
  }
}

export function checkBytes(name: string, v: unknown): asserts v is Uint8Array {
  if (genuine(v)) {
    if (v.length === 0 && !usable(v)) throw new CtkitTypeError(`${name} is a view of a detached ArrayBuffer (transferred or resized away)`);
    return;
  }
  throw new CtkitTypeError(`${name} must be a Uint8Array, got ${describe(v)}`);
}

export function checkLength(name: string, v: Uint8Array, allowed: readonly number[]): void {
  if (!allowed.includes(v.length)) {
    const list = allowed.length === 1 ? `${allowed[0]}` : `${allowed.slice(0, -1).join(', ')} or ${allowed[allowed.length - 1]}`;
    throw new CtkitRangeError(`${name} must be ${list} bytes long, got ${v.length}`);
  }
}

/**
 * The caller's output buffer, at least `need` bytes (the view of its first `need`), or a new one
 * (over a plain ArrayBuffer: B defaults to ArrayBuffer when there is no output).
 */
export function checkOutput<B extends ArrayBufferLike = ArrayBuffer>(output: Uint8Array<B> | undefined, need: number): Uint8Array<B> {
  if (output === undefined) return new Uint8Array(need) as Uint8Array<ArrayBufferLike> as Uint8Array<B>;
  checkBytes('output', output);
  if (output.length < need) throw new CtkitRangeError(`output must be at least ${need} bytes long, got ${output.length}`);
  return output.subarray(0, need);
}

/** An options argument: undefined (no options) or an object; null and primitives are a CtkitTypeError. */
export function checkOptions<T extends object>(v: T | undefined, name = 'options'): T | Record<string, never> {
  if (v === undefined) return {};
  if (typeof v !== 'object' || v === null) throw new CtkitTypeError(`${name} must be an object, got ${describe(v)}`);
  return v;
}

/**
 * A copy of b in a fresh ArrayBuffer. Not `b.slice()`: on a Node.js Buffer, `slice` returns a
 * view, so a "copy" of a caller's Buffer key would alias it and a wipe of either wipes both.
 */
export const copyBytes = (b: Uint8Array): Uint8Array<ArrayBuffer> => new Uint8Array(b);

/**
 * Whether a and b hold the same bytes: every byte looked at, one answer (for comparing a key's
 * public part with the one derived from its secret). Lengths are public; unequal ones are unequal.
 */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  let d = a.length ^ b.length; // unequal lengths are already unequal: past b's end, b[i] ^ … cannot clear d
  for (let i = 0; i < a.length; i++) d |= a[i] ^ b[i];
  return d === 0;
}

// Timing core for `npm run bench`. Small on purpose: warm up, calibrate a batch size, then time
// batches of every implementation of a case round-robin, so they are measured side by side under
// the same machine conditions, and report the median ns per operation. Nothing here asserts
// anything about timing.

import { type Backend, setBackend } from '../src/engine/backend.js';

/** The operation to time. It returns its result so the work cannot be optimized away. */
export type Op = () => unknown;

/** Prepares inputs (not timed) and returns the operation to time. */
export type Setup = () => Op | Promise<Op>;

export interface Case {
  /** Row name, like `ghash/1024`; see DESIGN.md, "Performance". */
  name: string;
  /** Bytes processed per operation, for MB/s; omit when the case has no byte size. */
  bytes?: number;
  /** Implementation name (`ctkit`, `noble`, `node:crypto`, …) to its setup. */
  impls: Record<string, Setup>;
  /**
   * For operations of a second or more (a 1 GiB file): each is timed alone (no warm-up past the
   * first, untimed call; no calibration), and this many timed calls per implementation suffice
   * (instead of 5, or the time budget).
   */
  minRuns?: number;
}

export interface Family {
  /** Table heading, like `MAC`. */
  title: string;
  cases: Case[];
}

export interface Result {
  case: string;
  impl: string;
  /** Median ns per operation, or NaN if the setup or the operation threw. */
  ns: number;
  bytes?: number;
  error?: string;
}

export interface MeasureOptions {
  /** Total time budget per (case, impl) in ms, warm-up and calibration included. */
  timeMs: number;
  /**
   * The backends ctkit's impl runs on (src/engine/backend.ts): `ctkit` is simd, the others are
   * columns `ctkit (wasm)` and `ctkit (js)`. Default: all three.
   */
  backends?: readonly Backend[];
}

/** The impl name of ctkit on backend b. */
export const ctkitImpl = (b: Backend): string => (b === 'simd' ? 'ctkit' : `ctkit (${b})`);

const BATCH_TARGET_NS = 3e6; // one batch ~3 ms (calibrated into 2–5 ms)
const BATCH_MIN_NS = 2e6;
const WARMUP_MAX_MS = 100;
const MIN_SAMPLES = 5;
const MAX_SAMPLES = 10_000;

/** Results go here, so the work of every call is observable. */
let sink = 0;
const keep: unknown[] = new Array(8);

/** Folds a result into the sink. */
function consume(r: unknown): void {
  if (r instanceof Uint8Array) sink = (sink + (r.length > 0 ? r[0]! : 1)) | 0;
  else if (typeof r === 'number') sink = (sink + r) | 0;
  else if (typeof r === 'bigint') sink = (sink + Number(r & 0xffn)) | 0;
  else if (r) sink = (sink + 1) | 0;
}

/** The sink's value; printing it somewhere keeps it live. */
export function sinkValue(): number {
  return sink;
}

type Loop = (fn: Op, n: number, keep: unknown[]) => void;

/**
 * A fresh copy of the loop `for (i < n) keep[i & 7] = fn()` per (case, impl). Built with
 * `new Function` so each copy has its own JIT feedback: its call site sees one closure only, and
 * what ran before (other impls, other cases) cannot make it polymorphic or deoptimize it.
 */
function makeLoop(): Loop {
  return new Function('fn', 'n', 'keep', 'for (let i = 0; i < n; i++) keep[i & 7] = fn();') as Loop;
}

/** Runs `r.fn` n times and returns the elapsed ns. */
function batch(r: Runner, n: number): number {
  if (r.backend) setBackend(r.backend); // one-shot calls run on the backend in use
  const t0 = process.hrtime.bigint();
  r.loop(r.fn, n, keep);
  const t1 = process.hrtime.bigint();
  for (let i = 0; i < 8; i++) consume(keep[i]);
  return Number(t1 - t0);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

interface Runner {
  impl: string;
  fn: Op;
  loop: Loop;
  n: number; // calls per batch
  spentNs: number; // all time spent on this impl so far
  samples: number[]; // ns per op, one per timed batch
  backend?: Backend; // ctkit's runners: the backend their setup and batches run on
  error?: string;
}

/** Warms `r` up for about `ms` (at least a few calls), then calibrates its batch size. */
function warmAndCalibrate(r: Runner, ms: number): void {
  const budget = ms * 1e6;
  let n = 1;
  // Warm-up: doubling batches until the warm-up budget is used up.
  while (r.spentNs < budget) {
    const t = batch(r, n);
    r.spentNs += t;
    if (t < BATCH_MIN_NS) n *= 2;
  }
  // Calibrate: grow n until one batch takes >= 2 ms, then aim it at ~3 ms.
  for (;;) {
    const t = batch(r, n);
    r.spentNs += t;
    if (t >= BATCH_MIN_NS || n >= 2 ** 30) {
      r.n = Math.max(1, Math.round((n * BATCH_TARGET_NS) / Math.max(t, 1)));
      if (t / n > BATCH_TARGET_NS) r.n = 1; // one call already exceeds a batch
      return;
    }
    n = t > 0 ? Math.min(n * 16, Math.ceil((n * BATCH_TARGET_NS) / t)) : n * 16;
  }
}

/**
 * Measures every implementation of `c` (restricted to `impls` when given) and returns one result
 * per implementation, in the case's order.
 */
export async function measureCase(c: Case, opts: MeasureOptions, impls?: string[]): Promise<Result[]> {
  const runners: Runner[] = [];
  const backends = opts.backends ?? ['simd', 'wasm', 'js'];
  const entries = Object.entries(c.impls).flatMap(([impl, setup]): [string, Setup, Backend | undefined][] => (impl === 'ctkit' ? backends.map((b) => [ctkitImpl(b), setup, b]) : [[impl, setup, undefined]]));
  for (const [impl, setup, backend] of entries) {
    if (impls && !impls.includes(impl)) continue;
    const r: Runner = { impl, fn: () => undefined, loop: makeLoop(), n: 1, spentNs: 0, samples: [], backend };
    try {
      if (backend) setBackend(backend);
      r.fn = await setup();
      consume(r.fn()); // a first call, so an operation that throws is reported, not timed
    } catch (e) {
      r.error = message(e);
    } finally {
      if (backend) setBackend('simd');
    }
    // a family whose module has no such backend yet: no cell, not an error
    if (r.error && /has no (wasm|js) backend/.test(r.error)) continue;
    runners.push(r);
  }
  const live = runners.filter((r) => r.error === undefined);

  const warmMs = Math.min(WARMUP_MAX_MS, opts.timeMs / 2);
  if (c.minRuns === undefined) for (const r of live) warmAndCalibrate(r, warmMs);
  const minSamples = c.minRuns ?? MIN_SAMPLES;

  // Timed batches, round-robin; the starting impl rotates so no impl always goes first.
  const budgetNs = opts.timeMs * 1e6;
  for (let round = 0; ; round++) {
    const pending = live.filter((r) => r.samples.length < MAX_SAMPLES && (r.samples.length < minSamples || (c.minRuns === undefined && r.spentNs < budgetNs)));
    if (pending.length === 0) break;
    for (let i = 0; i < pending.length; i++) {
      const r = pending[(i + round) % pending.length]!;
      const t = batch(r, r.n);
      r.spentNs += t;
      r.samples.push(t / r.n);
    }
  }

  setBackend('simd');
  return runners.map((r) => {
    const out: Result = { case: c.name, impl: r.impl, ns: r.error === undefined ? median(r.samples) : NaN };
    if (c.bytes !== undefined) out.bytes = c.bytes;
    if (r.error !== undefined) out.error = r.error;
    return out;
  });
}

/** `filter` as a regular expression when it is one, else as a plain substring. */
export function caseMatcher(filter: string | undefined): (name: string) => boolean {
  if (!filter) return () => true;
  try {
    const re = new RegExp(filter);
    return (name) => re.test(name);
  } catch {
    return (name) => name.includes(filter);
  }
}

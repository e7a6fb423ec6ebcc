// Markdown tables for `npm run bench`: one per family (each impl's median, MB/s, and
// "ctkit vs <peer>" ratios), and Base/Head/Change for `--base`.

import os from 'node:os';
import type { Result } from './harness.js';

const SELF = 'ctkit';

/** 3 significant digits (more for numbers >= 1000), without exponent notation. */
function sig3(x: number): string {
  return x >= 999.5 ? x.toFixed(0) : x.toPrecision(3);
}

/** A duration in ns in human units: `812 ns`, `12.3 µs`, `4.56 ms`, `1.20 s`. */
export function formatTime(ns: number): string {
  if (!Number.isFinite(ns)) return '—';
  if (ns < 999.5) return `${sig3(ns)} ns`;
  if (ns < 999.5e3) return `${sig3(ns / 1e3)} µs`;
  if (ns < 999.5e6) return `${sig3(ns / 1e6)} ms`;
  return `${sig3(ns / 1e9)} s`;
}

/** Throughput of `bytes` per `ns`, in MB/s (10^6 bytes). */
export function formatRate(bytes: number, ns: number): string {
  return `${sig3((bytes / ns) * 1e3)} MB/s`;
}

/** `peer / self` as `7.9×`. */
export function formatRatio(peerNs: number, selfNs: number): string {
  if (!Number.isFinite(peerNs) || !Number.isFinite(selfNs) || selfNs <= 0) return '—';
  const r = peerNs / selfNs;
  return `${r >= 9.95 ? r.toFixed(0) : r >= 0.995 ? r.toFixed(1) : r.toFixed(2)}×`;
}

/** Signed change of time from base to head, as in `-10.7% faster` / `+2.9% slower`. */
export function formatChange(baseNs: number, headNs: number): string {
  const pct = ((headNs - baseNs) / baseNs) * 100;
  const s = `${pct >= 0 ? '+' : '-'}${Math.abs(pct).toFixed(1)}%`;
  if (s === '+0.0%' || s === '-0.0%') return '0.0%';
  return `${s} ${pct < 0 ? 'faster' : 'slower'}`;
}

/** Node version, CPU model and date, as lines to print above a table. */
export function environment(): string {
  const cpus = os.cpus();
  const cpu = cpus[0]?.model.trim() ?? 'unknown CPU';
  return [`Node ${process.version} (${process.platform}-${process.arch}, V8 ${process.versions.v8})`, `CPU: ${cpu} × ${cpus.length}`, `Date: ${new Date().toISOString()}`].join('  \n');
}

function table(header: string[], rows: string[][], rightFrom = 1): string {
  const align = header.map((_, i) => (i >= rightFrom ? '---:' : '---'));
  return [header, align, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

/** Distinct values of `key` in first-seen order. */
function distinct<T>(xs: T[], key: (x: T) => string): string[] {
  return [...new Set(xs.map(key))];
}

/** One family's table: a row per case, a column per impl, then "ctkit vs <peer>" ratios. */
export function familyTable(title: string, results: Result[]): string {
  const impls = distinct(results, (r) => r.impl).sort((a, b) => Number(b === SELF) - Number(a === SELF));
  const peers = impls.includes(SELF) ? impls.filter((i) => i !== SELF) : [];
  // with the other backends beside it, ctkit's own column is its simd backend
  const label = (i: string) => (i === SELF && impls.some((x) => x.startsWith(`${SELF} (`)) ? `${SELF} (simd)` : i);
  const header = ['case', ...impls.map(label), ...peers.map((p) => `${label(SELF)} vs ${p}`)];
  const rows = distinct(results, (r) => r.case).map((name) => {
    const byImpl = new Map(results.filter((r) => r.case === name).map((r) => [r.impl, r]));
    const cell = (impl: string): string => {
      const r = byImpl.get(impl);
      if (!r) return '';
      if (r.error !== undefined) return `error: ${r.error.replaceAll('|', '\\|').slice(0, 60)}`;
      const t = formatTime(r.ns);
      return r.bytes ? `${t} (${formatRate(r.bytes, r.ns)})` : t;
    };
    const self = byImpl.get(SELF)?.ns ?? NaN;
    return [name, ...impls.map(cell), ...peers.map((p) => formatRatio(byImpl.get(p)?.ns ?? NaN, self))];
  });
  return `### ${title}\n\n${table(header, rows)}`;
}

/** One side of a `--base` comparison: best ns per case, or why there is none. */
export interface Side {
  label: string;
  ns: Map<string, number>;
  /** Set when this side produced no results at all (e.g. no bench/run.ts at that revision). */
  unavailable?: string;
}

/** `case | Base | Head | Change`, Change as the signed percentage of time. */
export function compareTable(base: Side, head: Side): string {
  const names = [...new Set([...head.ns.keys(), ...base.ns.keys()])];
  const rows = names.map((name) => {
    const b = base.ns.get(name);
    const h = head.ns.get(name);
    const missing = (s: Side): string => (s.unavailable ? `— (${s.unavailable})` : `missing on ${s.label.toLowerCase()}`);
    return [name, b === undefined ? missing(base) : formatTime(b), h === undefined ? missing(head) : formatTime(h), b === undefined || h === undefined ? '—' : formatChange(b, h)];
  });
  if (rows.length === 0) {
    const why = [base, head].filter((s) => s.unavailable).map((s) => `${s.label}: ${s.unavailable}`);
    rows.push(['(no cases)', base.unavailable ?? '—', head.unavailable ?? '—', why.length ? '—' : '']);
  }
  return table(['case', 'Base', 'Head', 'Change'], rows);
}

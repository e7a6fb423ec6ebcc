// A second witness beside the wall-clock medians, for a shared machine: the CPU time (user+sys)
// each operation took, of this process (every thread) plus the child processes it waited for,
// and the load average while each case ran. Printed to stderr when the run ends, one table per
// family that asked for it. Nothing here asserts anything.
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import type { Case } from './harness.js';

/** CPU seconds of the children that have been waited for, from /proc/self/stat (0 without /proc). */
function childrenCpu(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // f[0] is field 3 (state)
    return (Number(f[13]) + Number(f[14])) / 100; // cutime, cstime in clock ticks (USER_HZ = 100)
  } catch {
    return 0;
  }
}

/** CPU seconds so far: this process (all its threads) and its children that have been waited for. */
function spent(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6 + childrenCpu();
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * Wraps every implementation of `cases` so that the CPU time of each call is recorded, and
 * prints the medians (per case and implementation) at exit under `title`.
 */
export function witnessCpu(title: string, cases: Case[]): void {
  const times = new Map<string, Map<string, number[]>>(); // case → impl → seconds per call
  const loads = new Map<string, [number, number]>(); // case → load average (1 min) at its first and last call
  for (const c of cases) {
    for (const [impl, setup] of Object.entries(c.impls)) {
      c.impls[impl] = async () => {
        const op = await setup();
        return () => {
          const l = loadavg()[0]!;
          loads.set(c.name, [loads.get(c.name)?.[0] ?? l, l]);
          const c0 = spent();
          const r = op();
          const row = times.get(c.name) ?? new Map<string, number[]>();
          times.set(c.name, row);
          row.set(impl, [...(row.get(impl) ?? []), spent() - c0]);
          return r;
        };
      };
    }
  }
  process.on('exit', () => {
    if (times.size === 0) return;
    const impls = [...new Set([...times.values()].flatMap((r) => [...r.keys()]))];
    const lines = [
      '',
      `${title}: CPU time per operation (user+sys of this process and the commands it waited for; median of every call, warm-up included), ${cpus()[0]?.model ?? '?'} × ${cpus().length}`,
      '',
      `| case | load (1 min) | ${impls.join(' | ')} |`,
      `| --- | ---: | ${impls.map(() => '---:').join(' | ')} |`,
    ];
    for (const [name, row] of times) {
      const [a, b] = loads.get(name)!;
      lines.push(`| ${name} | ${a.toFixed(1)} → ${b.toFixed(1)} | ${impls.map((i) => (row.has(i) ? `${median(row.get(i)!).toFixed(2)} s` : '')).join(' | ')} |`);
    }
    process.stderr.write(lines.join('\n') + '\n');
  });
}

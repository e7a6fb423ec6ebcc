// npx tsx bench/forget.ts [cycles] [filter] [noble-cycles]
//
// Create-use-forget: a new key object per message in a synchronous loop, as users write
// `aesGcm(key).seal(nonce, msg)` (and noble's `gcm(key, nonce).encrypt(msg)`), 64-byte messages,
// a different key and nonce every cycle. For each AEAD and way of calling it, one child process
// runs `cycles` cycles (default 1,000,000; noble rows `noble-cycles`, default 100,000, as they
// take ten times longer) after 20,000 warm-up cycles and reports the time per cycle, the growth
// of the process's resident set over the timed cycles, and the byte length of the kernel
// module's memory at the end. Prints a markdown table; never asserts anything.
//
//   forget    ctkit's keyed object, never disposed: make(key).seal(nonce, msg)
//   dispose   the same with dispose() after the seal
//   one-shot  ctkit's one-shot function: alg.seal(key, nonce, msg)
//   noble     @noble/ciphers: alg(key, nonce).encrypt(msg)

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { gcm, gcmsiv } from '@noble/ciphers/aes.js';
import { chacha20poly1305, xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import * as aead from '../src/aead/index.js';
import { aesKernel } from '../src/aead/aes-gcm.js';
import { sm4Kernel } from '../src/aead/sm4-gcm.js';
import { chachaKernel } from '../src/mac/poly1305.js';
import { environment } from './format.js';

type Seal = (key: Uint8Array, nonce: Uint8Array, msg: Uint8Array) => Uint8Array;
interface Alg {
  keyLength: number;
  nonceLength: number;
  make(key: Uint8Array): { seal(n: Uint8Array, m: Uint8Array): Uint8Array; dispose(): void };
  /** the one-shot function, where this revision has it */
  oneShot: Seal | undefined;
  noble?: Seal;
  memory(): number;
}

const oneShot = (f: unknown): Seal | undefined => {
  const seal = (f as { seal?: unknown }).seal;
  return typeof seal === 'function' ? (seal as Seal) : undefined;
};

const ALGS: Record<string, Alg> = {
  'aes-128-gcm': { keyLength: 16, nonceLength: 12, make: (k) => aead.aesGcm(k), oneShot: oneShot(aead.aesGcm), noble: (k, n, m) => gcm(k, n).encrypt(m), memory: () => aesKernel().u8.buffer.byteLength },
  'aes-256-gcm': { keyLength: 32, nonceLength: 12, make: (k) => aead.aesGcm(k), oneShot: oneShot(aead.aesGcm), noble: (k, n, m) => gcm(k, n).encrypt(m), memory: () => aesKernel().u8.buffer.byteLength },
  'aes-256-gcm-siv': { keyLength: 32, nonceLength: 12, make: (k) => aead.aesGcmSiv(k), oneShot: oneShot(aead.aesGcmSiv), noble: (k, n, m) => gcmsiv(k, n).encrypt(m), memory: () => aesKernel().u8.buffer.byteLength },
  'sm4-gcm': { keyLength: 16, nonceLength: 12, make: (k) => aead.sm4Gcm(k), oneShot: oneShot(aead.sm4Gcm), memory: () => sm4Kernel().u8.buffer.byteLength },
  'chacha20-poly1305': { keyLength: 32, nonceLength: 12, make: (k) => aead.chacha20Poly1305(k), oneShot: oneShot(aead.chacha20Poly1305), noble: (k, n, m) => chacha20poly1305(k, n).encrypt(m), memory: () => chachaKernel().u8.buffer.byteLength },
  'xchacha20-poly1305': { keyLength: 32, nonceLength: 24, make: (k) => aead.xchacha20Poly1305(k), oneShot: oneShot(aead.xchacha20Poly1305), noble: (k, n, m) => xchacha20poly1305(k, n).encrypt(m), memory: () => chachaKernel().u8.buffer.byteLength },
};

const MODES = ['forget', 'dispose', 'one-shot', 'noble'] as const;
type Mode = (typeof MODES)[number];
const WARMUP = 20_000;
const MiB = 2 ** 20;

function step(alg: Alg, mode: Mode): (key: Uint8Array, nonce: Uint8Array, msg: Uint8Array) => Uint8Array {
  switch (mode) {
    case 'forget':
      return (k, n, m) => alg.make(k).seal(n, m);
    case 'dispose':
      return (k, n, m) => {
        const a = alg.make(k);
        const s = a.seal(n, m);
        a.dispose();
        return s;
      };
    case 'one-shot':
      return alg.oneShot!;
    case 'noble':
      return alg.noble!;
  }
}

/** In the child: run the loop, print one JSON line. */
function child(name: string, mode: Mode, cycles: number): void {
  const alg = ALGS[name]!;
  const f = step(alg, mode);
  const key = new Uint8Array(alg.keyLength).fill(0x5c);
  const nonce = new Uint8Array(alg.nonceLength).fill(0x3a);
  const msg = new Uint8Array(64).fill(0x17);
  let sink = 0;
  const loop = (n: number, from: number) => {
    for (let i = from; i < from + n; i++) {
      key[0] = i;
      key[1] = i >>> 8;
      key[2] = i >>> 16;
      nonce[0] = i;
      nonce[1] = i >>> 8;
      sink ^= f(key, nonce, msg)[i & 63]!;
    }
  };
  let error: string | undefined;
  let done = 0;
  loop(WARMUP, 0);
  const rss0 = process.memoryUsage().rss;
  const t0 = process.hrtime.bigint();
  try {
    for (; done < cycles; done += 10_000) loop(Math.min(10_000, cycles - done), WARMUP + done);
  } catch (e) {
    error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  }
  const ns = Number(process.hrtime.bigint() - t0) / Math.max(done, 1);
  const rss1 = process.memoryUsage().rss;
  console.log(JSON.stringify({ ns, growth: rss1 - rss0, memory: alg.memory(), done, error, sink }));
}

interface Row {
  ns: number;
  growth: number;
  memory: number;
  done: number;
  error?: string;
}

function run(name: string, mode: Mode, cycles: number): Row | string {
  const self = fileURLToPath(import.meta.url);
  const r = spawnSync(process.execPath, ['--import', 'tsx', self, '--child', name, mode, String(cycles)], { encoding: 'utf8', maxBuffer: 1 << 20 });
  const line = r.stdout.trim().split('\n').at(-1);
  if (r.status !== 0 || !line) return `exit ${r.status ?? r.signal}: ${r.stderr.trim().split('\n').at(-1) ?? ''}`;
  return JSON.parse(line) as Row;
}

function main(): void {
  const args = process.argv.slice(2);
  if (args[0] === '--child') {
    child(args[1]!, args[2] as Mode, Number(args[3]));
    return;
  }
  const cycles = args[0] !== undefined ? Number(args[0]) : 1_000_000;
  const filter = args[1] !== undefined && args[1] !== '' ? new RegExp(args[1]) : undefined;
  const nobleCycles = args[2] !== undefined ? Number(args[2]) : Math.min(cycles, 100_000);
  console.log(`${environment()}\n`);
  console.log(`create-use-forget: ${cycles.toLocaleString('en')} cycles (noble: ${nobleCycles.toLocaleString('en')}) of a new key + one 64-byte seal, after ${WARMUP.toLocaleString('en')} warm-up cycles; one child process per row\n`);
  console.log('| AEAD | way | per cycle | process growth | module memory | ctkit vs noble |');
  console.log('| --- | --- | ---: | ---: | ---: | ---: |');
  for (const [name, alg] of Object.entries(ALGS)) {
    if (filter && !filter.test(name)) continue;
    const rows: Partial<Record<Mode, Row | string>> = {};
    for (const mode of MODES) {
      if ((mode === 'one-shot' && !alg.oneShot) || (mode === 'noble' && !alg.noble)) continue;
      rows[mode] = run(name, mode, mode === 'noble' ? nobleCycles : cycles);
    }
    const noble = rows.noble;
    for (const [mode, r] of Object.entries(rows) as [Mode, Row | string][]) {
      if (typeof r === 'string') {
        console.log(`| ${name} | ${mode} | ${r} | | | |`);
        continue;
      }
      const ratio = mode !== 'noble' && noble && typeof noble !== 'string' ? `${(noble.ns / r.ns).toFixed(1)}×` : '';
      const what = r.error ? ` (stopped after ${r.done.toLocaleString('en')}: ${r.error})` : '';
      const mem = mode === 'noble' ? '' : `${(r.memory / MiB).toFixed(1)} MiB`;
      console.log(`| ${name} | ${mode} | ${(r.ns / 1000).toFixed(2)} µs${what} | ${(r.growth / MiB).toFixed(1)} MiB | ${mem} | ${ratio} |`);
    }
  }
}

main();

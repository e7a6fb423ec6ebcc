// A probe, not a benchmark family: `npx tsx bench/aes-vperm-probe.ts`.
// The instruction shape of a vector-permute AES round (Hamburg, "Accelerating AES with Vector
// Permute Instructions", CHES 2009) in WebAssembly: per block and round two nibble splits, nine
// data-indexed swizzles (inva, inv ×4, sb1u/t, sb2u/t), three constant swizzles (MixColumns
// rotations), ~11 XORs and the round-key XOR. The tables are random, so the output is not AES and
// the input/output basis changes and the last round are left out: it measures a lower bound on the
// cost of that path, with 1, 2, 4 or 8 blocks interleaved, side by side with the shipped bitsliced
// kernel (aes_ecb, AES-128, 512 blocks per call). See src/kernels/aes_bitsliced_simd128.ts for the
// numbers it gave.
import wabtInit from 'wabt';
import { aesKernel } from '../src/aead/aes-gcm.js';
const wabt = await wabtInit();
function gen(N: number): string {
  const T = ['inva', 'inv', 'sb1u', 'sb1t', 'sb2u', 'sb2t'];
  const C = ['mcf', 'mcb', 'sr'];
  const rnd = () => Array.from({ length: 16 }, () => (Math.random() * 16) | 0).join(' ');
  const L: string[] = [];
  const loc = [...T, ...C, 'm0f'].map((n) => `(local $${n} v128)`).join(' ') + ' ' + Array.from({ length: N }, (_, b) => ['x', 'lo', 'hi', 'j', 'ak', 'io', 'jo', 'iak', 'jak', 'su', 's2'].map((n) => `(local $${n}${b} v128)`).join(' ')).join(' ');
  for (const t of T) L.push(`v128.const i8x16 ${rnd()}`, `local.set $${t}`);
  L.push(`v128.const i8x16 1 2 3 0 5 6 7 4 9 10 11 8 13 14 15 12`, 'local.set $mcf', `v128.const i8x16 3 0 1 2 7 4 5 6 11 8 9 10 15 12 13 14`, 'local.set $mcb', `v128.const i8x16 0 5 10 15 4 9 14 3 8 13 2 7 12 1 6 11`, 'local.set $sr');
  L.push('v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15', 'local.set $m0f');
  L.push('block $done', 'loop $blk', 'local.get $n', 'i32.eqz', 'br_if $done');
  for (let b = 0; b < N; b++) L.push('local.get $p', `v128.load offset=${16 * b}`, `local.set $x${b}`);
  L.push('i32.const 0', 'local.set $r', 'loop $round');
  const sw = (t: string, i: string) => [`local.get $${t}`, `local.get $${i}`, 'i8x16.swizzle'];
  for (let b = 0; b < N; b++) {
    L.push(`local.get $x${b}`, 'local.get $m0f', 'v128.and', `local.set $lo${b}`);
    L.push(`local.get $x${b}`, 'i32.const 4', 'i16x8.shr_u', 'local.get $m0f', 'v128.and', `local.set $hi${b}`);
    L.push(...sw('inva', `lo${b}`), `local.set $ak${b}`);
    L.push(`local.get $hi${b}`, `local.get $lo${b}`, 'v128.xor', `local.set $j${b}`);
    L.push(...sw('inv', `hi${b}`), `local.get $ak${b}`, 'v128.xor', `local.set $io${b}`);
    L.push(...sw('inv', `j${b}`), `local.get $ak${b}`, 'v128.xor', `local.set $jo${b}`);
    L.push(...sw('inv', `io${b}`), `local.get $j${b}`, 'v128.xor', `local.set $iak${b}`);
    L.push(...sw('inv', `jo${b}`), `local.get $hi${b}`, 'v128.xor', `local.set $jak${b}`);
    L.push(...sw('sb1u', `iak${b}`), ...sw('sb1t', `jak${b}`), 'v128.xor', 'local.get $k', 'local.get $r', 'i32.add', 'v128.load', 'v128.xor', `local.set $su${b}`);
    L.push(...sw('sb2u', `iak${b}`), ...sw('sb2t', `jak${b}`), 'v128.xor', `local.set $s2${b}`);
    L.push(`local.get $su${b}`, 'local.get $mcf', 'i8x16.swizzle', `local.get $s2${b}`, 'v128.xor', `local.set $s2${b}`);
    L.push(`local.get $s2${b}`, 'local.get $mcb', 'i8x16.swizzle', `local.get $su${b}`, 'v128.xor', `local.get $s2${b}`, 'local.get $sr', 'i8x16.swizzle', 'v128.xor', `local.set $x${b}`);
  }
  L.push('local.get $r', 'i32.const 16', 'i32.add', 'local.tee $r', 'i32.const 160', 'i32.lt_u', 'br_if $round', 'end');
  for (let b = 0; b < N; b++) L.push('local.get $p', `local.get $x${b}`, `v128.store offset=${16 * b}`);
  L.push('local.get $p', `i32.const ${16 * N}`, 'i32.add', 'local.set $p', 'local.get $n', `i32.const ${N}`, 'i32.sub', 'local.set $n', 'br $blk', 'end', 'end');
  return `(module (memory (export "memory") 2) (func (export "run") (param $p i32) (param $n i32) (param $k i32) (local $r i32) ${loc}\n${L.join('\n')}))`;
}
const res: Record<string, number[]> = {};
const ex: Record<string, { run(p: number, n: number, k: number): void }> = {};
for (const N of [1, 2, 4, 8]) {
  const m = wabt.parseWat('p.wat', gen(N), { simd: true });
  ex[N] = new WebAssembly.Instance(new WebAssembly.Module(m.toBinary({}).buffer as BufferSource), {}).exports as unknown as (typeof ex)[string];
}
for (let rep = 0; rep < 12; rep++)
  for (const N of [1, 2, 4, 8]) {
    const t0 = performance.now();
    for (let i = 0; i < 100; i++) ex[N].run(4096, 512, 65536);
    (res[N] ??= []).push((100 * 8192) / (performance.now() - t0) / 1e3);
  }
for (const [N, xs] of Object.entries(res)) {
  xs.sort((a, b) => b - a);
  console.log(`vperm shape, ${N} block(s) interleaved: median ${xs[xs.length >> 1].toFixed(0)} MB/s, best ${xs[0].toFixed(0)}`);
}
const k = aesKernel();
const slot = k.allocSlot();
k.u8.set(new Uint8Array(16).fill(3), 96);
k.exports.aes_expand(slot + 2048, 96, 4, 256);
const side: Record<string, number[]> = {};
for (let rep = 0; rep < 15; rep++) {
  for (const [name, f] of [
    ['bitsliced ecb', () => k.exports.aes_ecb(slot + 2048, 10, 4096, 4096, 512)],
    ['vperm shape x4', () => ex[4].run(4096, 512, 65536)],
    ['vperm shape x2', () => ex[2].run(4096, 512, 65536)],
  ] as const) {
    const t0 = performance.now();
    for (let i = 0; i < 100; i++) (f as () => void)();
    (side[name] ??= []).push((100 * 8192) / (performance.now() - t0) / 1e3);
  }
}
for (const [N, xs] of Object.entries(side)) {
  xs.sort((a, b) => b - a);
  console.log(`${N}: median ${xs[xs.length >> 1].toFixed(0)} MB/s, best ${xs[0].toFixed(0)}`);
}

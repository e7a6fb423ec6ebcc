// TRANSITIONAL: the string form of aes_bitsliced_simd128.ts, for legacy/aes_gcm_strings.ts only
// (issue 13); deleted with it.

// AES-128/192/256 encryption, constant time: bitsliced over SIMD128, eight blocks per pass
// (Käsper and Schwabe, "Faster and Timing-Attack Resistant AES-GCM", CHES 2009, layout and
// linear layer; Boyar and Peralta's 113-gate S-box circuit, "A new combinational logic
// minimization technique with applications to cryptology", SEA 2010 / ePrint 2009/191).
//
// Why constant time: there is no table. Eight blocks are transposed into eight 128-bit "planes":
// plane i, byte k, bit j = bit i of byte k of block j. SubBytes is then the S-box as a Boolean
// circuit (32 AND, 77 XOR) over whole planes, ShiftRows and the row rotations of MixColumns are
// byte permutations of each plane (`i8x16.swizzle` with a constant index vector held in a local:
// a bare vpshufb, the data never forms an address), and xtime is a renaming of planes plus four
// XORs. The key schedule computes its S-box lookups with the same circuit, on one vector of 16
// bytes held one bit per byte ("byte-sliced"), so the key never forms an address either.
//
// Cost per pass of eight blocks (128 bytes), per round: 113 gates for SubBytes, 24 swizzles and
// 28 XORs for ShiftRows and MixColumns, 8 loads and 8 XORs for AddRoundKey; plus two 8×8 bit
// transposes (24 swap-moves) per pass. About 190 SIMD operations per round, 15 per byte for
// AES-128.
//
// Measured (Node 20 / V8 11.3, Zen 4; `node --no-liftoff --print-wasm-code`): the round loop
// compiles to ~307 x86 instructions, of which ~102 are spill stores and reloads — the circuit
// keeps up to 26 planes live (30 in the paper's gate order) against 16 xmm registers. The loop
// runs at ~4 instructions per cycle: ~580 MB/s for AES-128 (CTR or ECB, 8 KiB calls), ~420 MB/s
// for AES-256. Tried and not kept (interleaved A/B, same process): explicit spills of the
// eighteen values the last AND layer needs (+4% ECB, 0% in GCM), all top-layer values through
// memory (−5%), the three permutation vectors loaded from a data segment instead of held in
// locals (−8%), fully unrolled rounds (±0, −9% in GCM), and a register-aware order of the linear
// layer (±0: TurboFan reorders pure operations anyway).
//
// Vector-permute AES (Hamburg, CHES 2009) was not built; its cost was measured with a probe of
// the same instruction shape (bench/aes-vperm-probe.ts: nine data-indexed swizzles per block and
// round, each a vpaddusb + vpshufb pair here since V8 cannot know the indices are below 16, three
// constant swizzles, ~12 XORs; random tables, no basis changes, no last round, so a lower bound).
// Side by side with this kernel's ECB (~530 MB/s): 1 block ~200 MB/s, 2 interleaved ~340, 4
// ~510, 8 ~320 (its ten table vectors and eight states spill). So it does not beat bitslicing in
// bulk even before its extra work, and for one block it would save ~150 ns over a padded pass.
// The single blocks the modes need (H, GCM-SIV's derivation and tag) run as one padded pass of
// this kernel (~0.25 µs); GCM's E(K, J0) shares the first counter group instead of costing a
// pass of its own.
//
// The S-box circuit here omits the four NOTs of the affine constant 0x63: since ShiftRows and
// MixColumns are linear and map a state of all-0x63 bytes to itself, the constant is folded
// into round keys 1 … Nr instead (their planes 0, 1, 5 and 6 are complemented).
//
// Bitsliced round-key layout at `rk`: round r at rk + 128·r, plane i at + 16·i, each byte 0x00 or
// 0xff (the same key bit for all eight blocks). (Nr + 1) · 128 bytes: 1408, 1664 or 1920.
//
// This file emits functions to be placed into a module (see aes_gcm.ts); it is not a module of
// its own. Negative-control flags produce deliberately broken variants for the tests.

import { hex64, indent, locals, v128Bytes } from '../wat.js';

export interface AesFlags {
  /** the key schedule uses a wrong round constant (0x09 instead of 0x08 in round 4) */
  wrongRcon?: boolean;
}

/** Bytes of bitsliced round keys for Nr rounds. */
export const bitslicedKeyBytes = (nr: number) => (nr + 1) * 128;
export const AES_MAX_RK_BYTES = bitslicedKeyBytes(14);

// Boyar–Peralta S-box circuit without the final NOTs (S1, S2, S6, S7 are XNORs in the paper):
// its outputs are S(x) ⊕ 0x63. Inputs U0 … U7 (U0 the most significant bit), outputs S0 … S7.
const CIRCUIT = `
T1=U0^U3 T2=U0^U5 T3=U0^U6 T4=U3^U5 T5=U4^U6 T6=T1^T5 T7=U1^U2 T8=U7^T6 T9=U7^T7 T10=T6^T7
T11=U1^U5 T12=U2^U5 T13=T3^T4 T14=T6^T11 T15=T5^T11 T16=T5^T12 T17=T9^T16 T18=U3^U7 T19=T7^T18
T20=T1^T19 T21=U6^U7 T22=T7^T21 T23=T2^T22 T24=T2^T10 T25=T20^T17 T26=T3^T16 T27=T1^T12
M1=T13&T6 M2=T23&T8 M3=T14^M1 M4=T19&U7 M5=M4^M1 M6=T3&T16 M7=T22&T9 M8=T26^M6 M9=T20&T17
M10=M9^M6 M11=T1&T15 M12=T4&T27 M13=M12^M11 M14=T2&T10 M15=M14^M11 M16=M3^M2 M17=M5^T24
M18=M8^M7 M19=M10^M15 M20=M16^M13 M21=M17^M15 M22=M18^M13 M23=M19^T25 M24=M22^M23 M25=M22&M20
M26=M21^M25 M27=M20^M21 M28=M23^M25 M29=M28&M27 M30=M26&M24 M31=M20&M23 M32=M27&M31 M33=M27^M25
M34=M21&M22 M35=M24&M34 M36=M24^M25 M37=M21^M29 M38=M32^M33 M39=M23^M30 M40=M35^M36 M41=M38^M40
M42=M37^M39 M43=M37^M38 M44=M39^M40 M45=M42^M41 M46=M44&T6 M47=M40&T8 M48=M39&U7 M49=M43&T16
M50=M38&T9 M51=M37&T17 M52=M42&T15 M53=M45&T27 M54=M41&T10 M55=M44&T13 M56=M40&T23 M57=M39&T19
M58=M43&T3 M59=M38&T22 M60=M37&T20 M61=M42&T1 M62=M45&T4 M63=M41&T2
L0=M61^M62 L1=M50^M56 L2=M46^M48 L3=M47^M55 L4=M54^M58 L5=M49^M61 L6=M62^L5 L7=M46^L3 L8=M51^M59
L9=M52^M53 L10=M53^L4 L11=M60^L2 L12=M48^M51 L13=M50^L0 L14=M52^M61 L15=M55^L1 L16=M56^L0 L17=M57^L1
L18=M58^L8 L19=M63^L4 L20=L0^L1 L21=L1^L7 L22=L3^L12 L23=L18^L2 L24=L15^L9 L25=L6^L10 L26=L7^L9
L27=L8^L10 L28=L11^L14 L29=L11^L17
S0=L6^L24 S1=L16^L26 S2=L19^L28 S3=L6^L21 S4=L20^L22 S5=L25^L29 S6=L13^L27 S7=L6^L23`;

const GATES = CIRCUIT.trim().split(/\s+/).map((g) => {
  const m = /^(\w+)=(\w+)([&^])(\w+)$/.exec(g);
  if (!m) throw new Error(`bad gate ${g}`);
  return { out: m[1], a: m[2], op: m[3] === '&' ? 'v128.and' : 'v128.xor', b: m[4] };
});
const TEMPS = GATES.map((g) => g.out).filter((n) => !/^S\d$/.test(n));

/**
 * The S-box circuit on v128 locals: inputs[i] holds U_i, outputs[i] receives S_i (outputs may
 * be the same locals as the inputs: every input is read before the first output is written).
 * Temporaries are locals named `${p}T1`, … (declare them with sboxLocals(p)).
 */
export function sboxCircuit(inputs: string[], outputs: string[], p: string): string[] {
  const name = (n: string) => {
    const u = /^U(\d)$/.exec(n);
    if (u) return inputs[+u[1]];
    const s = /^S(\d)$/.exec(n);
    if (s) return `${p}S${s[1]}`;
    return `${p}${n}`;
  };
  const out: string[] = [];
  for (const g of GATES) out.push(`local.get $${name(g.a)}`, `local.get $${name(g.b)}`, g.op, `local.set $${name(g.out)}`);
  for (let i = 0; i < 8; i++) out.push(`local.get $${p}S${i}`, `local.set $${outputs[i]}`);
  return out;
}

export function sboxLocals(p: string): string {
  return locals('v128', [...TEMPS.map((t) => `${p}${t}`), ...Array.from({ length: 8 }, (_, i) => `${p}S${i}`)]);
}

// Byte permutations of a plane. The state byte k = 4c + r is row r, column c (FIPS 197 3.4).
const idx = (f: (r: number, c: number) => number) => Array.from({ length: 16 }, (_, k) => f(k % 4, k >> 2));
/** ShiftRows: out[r, c] = in[r, c + r]. */
const SR = idx((r, c) => 4 * ((c + r) % 4) + r);
/** Rotate each column by one row: out[r, c] = in[r + 1, c]. */
const ROT1 = idx((r, c) => 4 * c + ((r + 1) % 4));
/** ShiftRows followed by ROT1. */
const SR_ROT1 = ROT1.map((k) => SR[k]);
/** Rotate each column by two rows. */
const ROT2 = idx((r, c) => 4 * c + ((r + 2) % 4));

const PLANES = Array.from({ length: 8 }, (_, i) => `s${i}`);

/** Constants kept in v128 locals (a swizzle with a local constant index is a bare vpshufb). */
const constLocals = locals('v128', ['kSR', 'kSR1', 'kRot2']);
const initConsts = [v128Bytes(SR), 'local.set $kSR', v128Bytes(SR_ROT1), 'local.set $kSR1', v128Bytes(ROT2), 'local.set $kRot2'];

/** 8×8 bit transposition within each byte position of s0 … s7 (its own inverse). */
function transpose(): string[] {
  const out: string[] = [];
  for (const [sh, mask] of [[1, 0x55], [2, 0x33], [4, 0x0f]] as const) {
    for (let x = 0; x < 8; x++) {
      if (x & sh) continue;
      const a = `s${x}`, b = `s${x + sh}`;
      out.push(
        `;; swapmove(${a}, ${b}, ${sh}, 0x${mask.toString(16)})`,
        `local.get $${a}`, `i32.const ${sh}`, 'i64x2.shr_u', `local.get $${b}`, 'v128.xor',
        `v128.const i8x16 ${Array(16).fill(mask).join(' ')}`, 'v128.and', 'local.set $bt',
        `local.get $${b}`, 'local.get $bt', 'v128.xor', `local.set $${b}`,
        `local.get $${a}`, 'local.get $bt', `i32.const ${sh}`, 'i64x2.shl', 'v128.xor', `local.set $${a}`,
      );
    }
  }
  return out;
}

/** AddRoundKey from the bitsliced round key at $rk. */
const addRoundKey = () => PLANES.flatMap((s, i) => [`local.get $${s}`, 'local.get $rk', `v128.load offset=${16 * i}`, 'v128.xor', `local.set $${s}`]);

/** SubBytes (without the constant) on the planes: U_i is plane 7 - i. */
const subBytes = () => sboxCircuit(PLANES.map((_, i) => `s${7 - i}`), PLANES.map((_, i) => `s${7 - i}`), 'q');

/** ShiftRows and MixColumns: out = xtime(t) ⊕ rot1(y) ⊕ rot2(t), y = SR(s), t = y ⊕ rot1(y). */
function shiftMix(): string[] {
  const out: string[] = [];
  for (const s of PLANES) {
    out.push(`local.get $${s}`, 'local.get $kSR1', 'i8x16.swizzle', `local.set $br${s.slice(1)}`);
    out.push(`local.get $${s}`, 'local.get $kSR', 'i8x16.swizzle', `local.get $br${s.slice(1)}`, 'v128.xor', `local.set $bt${s.slice(1)}`);
  }
  // xtime on planes: (2a)_0 = a_7, (2a)_i = a_{i-1} ⊕ [i ∈ {1,3,4}]·a_7
  for (let i = 0; i < 8; i++) {
    const x = i === 0 ? ['local.get $bt7'] : [`local.get $bt${i - 1}`, ...([1, 3, 4].includes(i) ? ['local.get $bt7', 'v128.xor'] : [])];
    out.push(...x, `local.get $br${i}`, 'v128.xor', `local.get $bt${i}`, 'local.get $kRot2', 'i8x16.swizzle', 'v128.xor', `local.set $s${i}`);
  }
  return out;
}

const shiftRows = () => PLANES.flatMap((s) => [`local.get $${s}`, 'local.get $kSR', 'i8x16.swizzle', `local.set $${s}`]);

/**
 * Other work to interleave with the rounds (aes_gcm.ts hashes one block per round): code that
 * shares no local with the AES core, run at the start, inside each looped round after SubBytes
 * ($i is the round number, 1 … nr − 1), and between the last looped round and the final one.
 */
export interface Aes8Stitch {
  name: string;
  params: string;
  locals: string;
  prologue: string[];
  inRound: string[];
  afterRounds: string[];
  /**
   * Alternatively, segments woven into each looped round: the first before SubBytes, the others
   * spread evenly between the S-box's gates (inRound is then unused).
   */
  weave?: string[][];
}

/** Interleave `segs` evenly between the gates (4 instructions each) of an S-box listing. */
function weaveInto(sbox: string[], segs: string[][]): string[] {
  const gates = GATES.length;
  const out: string[] = [];
  let next = 0;
  for (let g = 0; g < gates; g++) {
    out.push(...sbox.slice(4 * g, 4 * g + 4));
    // after gate g, emit the segments due by then
    while (next < segs.length && Math.floor(((next + 1) * gates) / (segs.length + 1)) <= g + 1) out.push(...segs[next++]);
  }
  while (next < segs.length) out.push(...segs[next++]);
  out.push(...sbox.slice(4 * gates));
  return out;
}

/**
 * `$aes8(rk, nr, buf)`: encrypt the eight blocks at buf (128 bytes) in place with the bitsliced
 * round keys at rk; nr rounds (10, 12, 14). All parameters public. With `stitch`, the same under
 * another name with the stitched work woven in.
 */
export function aes8Func(stitch?: Aes8Stitch): string[] {
  const loc = [
    locals('v128', [...PLANES, 'bt', ...PLANES.map((_, i) => `br${i}`), ...PLANES.map((_, i) => `bt${i}`)]),
    sboxLocals('q'),
    constLocals,
    locals('i32', ['i']),
  ].join(' ');
  return [
    `(func $${stitch?.name ?? 'aes8'} (param $rk i32) (param $nr i32) (param $buf i32) ${stitch?.params ?? ''} ${loc} ${stitch?.locals ?? ''}`,
    indent([
      ...initConsts,
      ...(stitch?.prologue ?? []),
      ...PLANES.flatMap((s, j) => ['local.get $buf', `v128.load offset=${16 * j}`, `local.set $${s}`]),
      ';; blocks -> planes',
      ...transpose(),
      ...addRoundKey(),
      'i32.const 1', 'local.set $i',
      'loop $round',
      indent([
        'local.get $rk', 'i32.const 128', 'i32.add', 'local.set $rk',
        ';; SubBytes',
        ...(stitch?.weave ? [...stitch.weave[0], ...weaveInto(subBytes(), stitch.weave.slice(1))] : [...subBytes(), ...(stitch?.inRound ?? [])]),
        ';; ShiftRows, MixColumns',
        ...shiftMix(),
        ';; AddRoundKey',
        ...addRoundKey(),
        'local.get $i', 'i32.const 1', 'i32.add', 'local.tee $i',
        'local.get $nr', 'i32.lt_u', 'br_if $round',
      ], 2),
      'end',
      ...(stitch?.afterRounds ?? []),
      ';; final round: no MixColumns',
      'local.get $rk', 'i32.const 128', 'i32.add', 'local.set $rk',
      ...subBytes(),
      ...shiftRows(),
      ...addRoundKey(),
      ';; planes -> blocks',
      ...transpose(),
      ...PLANES.flatMap((s, j) => ['local.get $buf', `local.get $${s}`, `v128.store offset=${16 * j}`]),
    ]),
    ')',
  ];
}

/**
 * `$sub16(x) -> S(x)`: the AES S-box on each of 16 bytes, byte-sliced (one bit per byte lane),
 * for the key schedule.
 */
export function sub16Func(): string[] {
  const u = Array.from({ length: 8 }, (_, i) => `u${i}`);
  return [
    `(func $sub16 (param $x v128) (result v128) ${locals('v128', u)} ${sboxLocals('k')}`,
    indent([
      ';; U_i = bit 7 - i of each byte, as 0 or 1 in its lane',
      ...u.flatMap((n, i) => ['local.get $x', `i32.const ${7 - i}`, 'i8x16.shr_u', 'v128.const i8x16 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1', 'v128.and', `local.set $${n}`]),
      ...sboxCircuit(u, u, 'k'),
      ';; pack the bits back and add the affine constant 0x63',
      'v128.const i8x16 99 99 99 99 99 99 99 99 99 99 99 99 99 99 99 99',
      ...u.flatMap((n, i) => [`local.get $${n}`, `i32.const ${7 - i}`, 'i8x16.shl', 'v128.xor']),
    ]),
    ')',
  ];
}

const RCON = [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36];

/**
 * `$expandN(rk, key, tmp)` for N = 4, 6, 8 key words: FIPS 197 KeyExpansion, unrolled, words at
 * tmp (little-endian i32: byte 0 of the word is the low byte), then the round keys bitsliced
 * into rk with 0x63 folded into rounds 1 … Nr. tmp is wiped before returning.
 */
export function expandFunc(nk: 4 | 6 | 8, flags: AesFlags = {}): string[] {
  const nr = nk + 6;
  const words = 4 * (nr + 1);
  const rcon = RCON.slice();
  if (flags.wrongRcon) rcon[3] = 0x09;
  const body: string[] = [];
  for (let i = 0; i < nk; i++) body.push('local.get $tmp', 'local.get $key', `i32.load offset=${4 * i}`, `i32.store offset=${4 * i}`);
  for (let i = nk; i < words; i++) {
    body.push(`;; w[${i}]`, 'local.get $tmp', `i32.load offset=${4 * (i - 1)}`, 'local.set $w');
    if (i % nk === 0) {
      body.push(
        ';; SubWord(RotWord(w)) ^ Rcon',
        'local.get $w', 'i32.const 8', 'i32.rotr', 'i32x4.splat', 'call $sub16', 'i32x4.extract_lane 0',
        `i32.const ${rcon[i / nk - 1]}`, 'i32.xor', 'local.set $w',
      );
    } else if (nk === 8 && i % nk === 4) {
      body.push(';; SubWord(w)', 'local.get $w', 'i32x4.splat', 'call $sub16', 'i32x4.extract_lane 0', 'local.set $w');
    }
    body.push('local.get $tmp', 'local.get $tmp', `i32.load offset=${4 * (i - nk)}`, 'local.get $w', 'i32.xor', `i32.store offset=${4 * i}`);
  }
  body.push(';; bitslice each round key: plane i = bit i of each byte spread to 0x00 / 0xff');
  for (let r = 0; r <= nr; r++) {
    body.push('local.get $tmp', `v128.load offset=${16 * r}`, 'local.set $x');
    for (let i = 0; i < 8; i++) {
      const fold = r > 0 && [0, 1, 5, 6].includes(i); // 0x63 = bits 0, 1, 5, 6
      body.push('local.get $rk', 'local.get $x', `i32.const ${7 - i}`, 'i8x16.shl', 'i32.const 7', 'i8x16.shr_s', ...(fold ? ['v128.not'] : []), `v128.store offset=${128 * r + 16 * i}`);
    }
  }
  body.push('local.get $tmp', 'i32.const 0', `i32.const ${4 * words}`, 'memory.fill', 'v128.const i64x2 0 0', 'local.set $x');
  return [`(func $expand${nk} (param $rk i32) (param $key i32) (param $tmp i32) (local $w i32) (local $x v128)`, indent(body), ')'];
}

export { hex64 };

// AES-128/192/256 encryption, bitsliced over SIMD128, eight blocks per pass: the Käsper–Schwabe
// layout and linear layer (CHES 2009) with Boyar and Peralta's 113-gate S-box circuit (ePrint
// 2009/191); FIPS 197 for the cipher and the key schedule.
//
// Technique: eight blocks are transposed into eight 128-bit planes (plane i, byte k, bit j = bit
// i of byte k of block j); SubBytes is the circuit (32 AND, 77 XOR) over whole planes, ShiftRows
// and MixColumns' rotations are byte swizzles of each plane by constant index vectors, xtime is a
// renaming of planes plus four XORs. The key schedule runs the same circuit byte-sliced on one
// vector. The S-box's affine constant 0x63 is folded into round keys 1 … Nr.
//
// Why constant time: there is no table; the data never forms an address (a swizzle by a constant
// index held in a local is a bare vpshufb), and the loops count public rounds.
//
// Cost per pass of 128 bytes and round: 113 gates, 24 swizzles and 28 XORs for the linear
// layer, 8 loads and XORs for AddRoundKey: about 15 SIMD operations per byte for AES-128, ~580
// MB/s (CTR, 8 KiB) on the development machine. Measurements and the variants tried (vector-
// permute AES among them): docs/kernels/aes.md.
//
// Round-key layout at rk: round r at rk + 128·r, plane i at + 16·i, each byte 0x00 or 0xff;
// (Nr + 1)·128 bytes. This file emits functions for the 'aes' module (aes_gcm.ts).
// Negative-control flags (tests only) produce deliberately broken variants.

import { type Expr, Func, type Local, type Params, type Stmt, br_if, call, comment, i32, i32x4, i64x2, i8x16, label, loop, memory, v128 } from './builder/index.js';

export interface AesFlags {
  /** the key schedule uses a wrong round constant (0x09 instead of 0x08 in round 4) */
  wrongRcon?: boolean;
  /** timing control (npm run ct:timing): the key schedule reads memory[4096 + 65536·b] for every
   * raw key byte b, a key-indexed lookup in a table of 256 lines 64 KiB apart (one cache set:
   * the caller grows the memory to 17 MiB first); the checker must flag it too */
  leakyKeyLookup?: boolean;
}

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

/** The circuit's gates in order (shared with the scalar generator, aes_ct64.ts). */
export const GATES = CIRCUIT.trim()
  .split(/\s+/)
  .map((g) => {
    const m = /^(\w+)=(\w+)([&^])(\w+)$/.exec(g);
    if (!m) throw new Error(`bad gate ${g}`);
    return { out: m[1], a: m[2], and: m[3] === '&', b: m[4] };
  });
export const TEMPS = GATES.map((g) => g.out).filter((n) => !/^S\d$/.test(n));

/** The circuit's temporaries as locals of f, named `${p}T1`, …, then `${p}S0` … `${p}S7`. */
export function sboxLocals(f: Func, p: string): Map<string, Local<'v128'>> {
  return new Map([...TEMPS, ...Array.from({ length: 8 }, (_, i) => `S${i}`)].map((n) => [n, f.v128(`${p}${n}`)]));
}

/**
 * The S-box circuit on v128 locals: inputs[i] holds U_i, outputs[i] receives S_i (outputs may
 * be the same locals as the inputs: every input is read before the first output is written).
 * One statement per gate, then the eight output copies.
 */
export function sboxCircuit(inputs: Local<'v128'>[], outputs: Local<'v128'>[], t: Map<string, Local<'v128'>>): Stmt[] {
  const loc = (n: string) => (/^U\d$/.test(n) ? inputs[+n[1]] : t.get(n)!);
  return [...GATES.map((g) => loc(g.out).set(g.and ? v128.and(loc(g.a), loc(g.b)) : v128.xor(loc(g.a), loc(g.b)))), ...outputs.map((o, i) => o.set(t.get(`S${i}`)!))];
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

/** The bitsliced state and the round's constants, as locals of one function. */
interface Planes {
  s: Local<'v128'>[];
  bt: Local<'v128'>;
  br: Local<'v128'>[];
  btp: Local<'v128'>[];
  q: Map<string, Local<'v128'>>;
  kSR: Local<'v128'>;
  kSR1: Local<'v128'>;
  kRot2: Local<'v128'>;
  init: Stmt[];
}

function planes(f: Func): Planes {
  const n = (p: string) => Array.from({ length: 8 }, (_, i) => f.v128(`${p}${i}`));
  const s = n('s');
  const bt = f.v128('bt');
  const br = n('br');
  const btp = n('bt');
  const q = sboxLocals(f, 'q');
  const [kSR, kSR1, kRot2] = f.locals('v128', ['kSR', 'kSR1', 'kRot2']);
  return { s, bt, br, btp, q, kSR, kSR1, kRot2, init: [kSR.set(v128.bytes(SR)), kSR1.set(v128.bytes(SR_ROT1)), kRot2.set(v128.bytes(ROT2))] };
}

/** 8×8 bit transposition within each byte position of s0 … s7 (its own inverse). */
function transpose(P: Planes): Stmt[] {
  const out: Stmt[] = [];
  for (const [sh, mask] of [
    [1, 0x55],
    [2, 0x33],
    [4, 0x0f],
  ] as const) {
    for (let x = 0; x < 8; x++) {
      if (x & sh) continue;
      const a = P.s[x],
        b = P.s[x + sh];
      out.push(comment(`swapmove(${a.name}, ${b.name}, ${sh}, 0x${mask.toString(16)})`), P.bt.set(v128.and(v128.xor(i64x2.shr_u(a, sh), b), v128.i8x16(Array(16).fill(mask)))), b.set(v128.xor(b, P.bt)), a.set(v128.xor(a, i64x2.shl(P.bt, sh))));
    }
  }
  return out;
}

/** AddRoundKey from the bitsliced round key at rk. */
const addRoundKey = (P: Planes, rk: Local<'i32'>) => P.s.map((s, i) => s.set(v128.xor(s, v128.load(rk, 16 * i))));

/** SubBytes (without the constant) on the planes: U_i is plane 7 - i. */
const subBytes = (P: Planes) =>
  sboxCircuit(
    P.s.map((_, i) => P.s[7 - i]),
    P.s.map((_, i) => P.s[7 - i]),
    P.q,
  );

/** ShiftRows and MixColumns: out = xtime(t) ⊕ rot1(y) ⊕ rot2(t), y = SR(s), t = y ⊕ rot1(y). */
function shiftMix(P: Planes): Stmt[] {
  const out: Stmt[] = [];
  P.s.forEach((s, i) => {
    out.push(P.br[i].set(i8x16.swizzle(s, P.kSR1)));
    out.push(P.btp[i].set(v128.xor(i8x16.swizzle(s, P.kSR), P.br[i])));
  });
  // xtime on planes: (2a)_0 = a_7, (2a)_i = a_{i-1} ⊕ [i ∈ {1,3,4}]·a_7
  for (let i = 0; i < 8; i++) {
    const t = P.btp;
    const x: Expr<'v128'> = i === 0 ? t[7].get() : [1, 3, 4].includes(i) ? v128.xor(t[i - 1], t[7]) : t[i - 1].get();
    out.push(P.s[i].set(v128.xor(v128.xor(x, P.br[i]), i8x16.swizzle(t[i], P.kRot2))));
  }
  return out;
}

const shiftRows = (P: Planes) => P.s.map((s) => s.set(i8x16.swizzle(s, P.kSR)));

/**
 * Other work woven into the looped rounds (aes_gcm.ts hashes one block per round): code that
 * shares no local with the AES core. `build` declares its locals in the function (after the
 * AES ones) and returns: a prologue (at the start); segments for each looped round, the first
 * before SubBytes and the others spread evenly between the S-box's gates ($i is the round
 * number, 1 … nr − 1); and what runs between the last looped round and the final one.
 */
export interface Aes8Stitch {
  name: string;
  params: Params;
  build(f: Func, core: { round: Local<'i32'> }): { prologue: Stmt[]; weave: Stmt[][]; afterRounds: Stmt[] };
}

/** Interleave `segs` evenly between the gates of an S-box listing (sboxCircuit). */
function weaveInto(sbox: Stmt[], segs: Stmt[][]): Stmt[] {
  const gates = GATES.length;
  const out: Stmt[] = [];
  let next = 0;
  for (let g = 0; g < gates; g++) {
    out.push(sbox[g]);
    // after gate g, emit the segments due by then
    while (next < segs.length && Math.floor(((next + 1) * gates) / (segs.length + 1)) <= g + 1) out.push(...segs[next++]);
  }
  while (next < segs.length) out.push(...segs[next++]);
  out.push(...sbox.slice(gates));
  return out;
}

/**
 * `$aes8(rk, nr, buf)`: encrypt the eight blocks at buf (128 bytes) in place with the bitsliced
 * round keys at rk; nr rounds (10, 12, 14). All parameters public. With `stitch`, the same under
 * another name with the stitched work woven in.
 */
export function aes8Func(stitch?: Aes8Stitch): Func {
  const f = new Func(stitch?.name ?? 'aes8', { rk: 'i32', nr: 'i32', buf: 'i32', ...stitch?.params });
  const { rk, nr, buf } = f.p as unknown as Record<'rk' | 'nr' | 'buf', Local<'i32'>>;
  const P = planes(f);
  const i = f.i32('i');
  const st = stitch?.build(f, { round: i });
  const round = label('round');
  f.emit(
    P.init,
    st?.prologue ?? [],
    P.s.map((s, j) => s.set(v128.load(buf, 16 * j))),
    comment('blocks -> planes'),
    transpose(P),
    addRoundKey(P, rk),
    i.set(1),
    loop(
      round,
      rk.set(i32.add(rk, 128)),
      comment('SubBytes'),
      st ? [...st.weave[0], ...weaveInto(subBytes(P), st.weave.slice(1))] : subBytes(P),
      comment('ShiftRows, MixColumns'),
      shiftMix(P),
      comment('AddRoundKey'),
      addRoundKey(P, rk),
      br_if(round, i32.lt_u(i.tee(i32.add(i, 1)), nr)),
    ),
    st?.afterRounds ?? [],
    comment('final round: no MixColumns'),
    rk.set(i32.add(rk, 128)),
    subBytes(P),
    shiftRows(P),
    addRoundKey(P, rk),
    comment('planes -> blocks'),
    transpose(P),
    P.s.map((s, j) => v128.store(buf, s, 16 * j)),
  );
  return f;
}

/**
 * `$sub16(x) -> S(x)`: the AES S-box on each of 16 bytes, byte-sliced (one bit per byte lane),
 * for the key schedule.
 */
export function sub16Func(): Func {
  const f = new Func('sub16', { x: 'v128' }, { results: ['v128'] });
  const x = f.p.x;
  const u = Array.from({ length: 8 }, (_, i) => f.v128(`u${i}`));
  const k = sboxLocals(f, 'k');
  const ones = v128.i8x16(Array(16).fill(1));
  f.emit(
    comment('U_i = bit 7 - i of each byte, as 0 or 1 in its lane'),
    u.map((n, i) => n.set(v128.and(i8x16.shr_u(x, 7 - i), ones))),
    sboxCircuit(u, u, k),
    comment('pack the bits back and add the affine constant 0x63'),
    v128.xor(v128.i8x16(Array(16).fill(99)), ...(u.map((n, i) => i8x16.shl(n, 7 - i)) as [Expr<'v128'>])),
  );
  return f;
}

export const RCON = [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36];

/**
 * `$expandN(rk, key, tmp)` for N = 4, 6, 8 key words: FIPS 197 KeyExpansion, unrolled, words at
 * tmp (little-endian i32: byte 0 of the word is the low byte), then the round keys bitsliced
 * into rk with 0x63 folded into rounds 1 … Nr. tmp is wiped before returning.
 */
export function expandFunc(nk: 4 | 6 | 8, sub16: Func, flags: AesFlags = {}): Func {
  const f = new Func(`expand${nk}`, { rk: 'i32', key: 'i32', tmp: 'i32' });
  const { rk, key, tmp } = f.p;
  const w = f.i32('w');
  const x = f.v128('x');
  const nr = nk + 6;
  const words = 4 * (nr + 1);
  const rcon = RCON.slice();
  if (flags.wrongRcon) rcon[3] = 0x09;
  const sub = (e: Expr<'i32'>) => i32x4.extract_lane(call(sub16, i32x4.splat(e)) as Expr<'v128'>, 0);
  for (let i = 0; i < nk; i++) f.emit(i32.store(tmp, i32.load(key, 4 * i), 4 * i));
  if (flags.leakyKeyLookup) {
    const leak = f.i32('leak');
    for (let i = 0; i < 4 * nk; i++) f.emit(leak.set(i32.xor(leak, i32.load8_u(i32.shl(i32.load8_u(key, i), 16), 4096))));
    f.emit(i32.store(tmp, leak, 240)); // kept: the 16 bytes after the 240 of key-expansion scratch are unused
  }
  for (let i = nk; i < words; i++) {
    f.emit(comment(`w[${i}]`), w.set(i32.load(tmp, 4 * (i - 1))));
    if (i % nk === 0) f.emit(comment('SubWord(RotWord(w)) ^ Rcon'), w.set(i32.xor(sub(i32.rotr(w, 8)), rcon[i / nk - 1])));
    else if (nk === 8 && i % nk === 4) f.emit(comment('SubWord(w)'), w.set(sub(w.get())));
    f.emit(i32.store(tmp, i32.xor(i32.load(tmp, 4 * (i - nk)), w), 4 * i));
  }
  f.emit(comment('bitslice each round key: plane i = bit i of each byte spread to 0x00 / 0xff'));
  for (let r = 0; r <= nr; r++) {
    f.emit(x.set(v128.load(tmp, 16 * r)));
    for (let i = 0; i < 8; i++) {
      const fold = r > 0 && [0, 1, 5, 6].includes(i); // 0x63 = bits 0, 1, 5, 6
      const plane = i8x16.shr_s(i8x16.shl(x, 7 - i), 7);
      f.emit(v128.store(rk, fold ? v128.not(plane) : plane, 128 * r + 16 * i));
    }
  }
  f.emit(memory.fill(tmp, 0, 4 * words), x.set(v128.zero()));
  return f;
}

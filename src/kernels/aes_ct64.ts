// AES-128/192/256 encryption for the scalar targets (wasm, js), bitsliced on i64, four blocks in
// eight words: the technique of BearSSL's aes_ct64 (Pornin), with Boyar and Peralta's 113-gate
// S-box circuit (ePrint 2009/191, shared with aes_bitsliced_simd128.ts); FIPS 197 for the cipher
// and the key schedule.
//
// Technique: word i holds bit i of all 64 bytes of four blocks, bit position 16r + 8b0 + 2c + b1
// for row r, column c, block b = 2b1 + b0 (the words are built from the blocks' 32-bit columns,
// then two in-word delta swaps and three rounds of swapmoves between words). SubBytes is the
// circuit on the eight words; ShiftRows rotates each byte of row r right by 2r bits (masks and
// shifts); MixColumns' rotations by one and two rows are 64-bit rotations by 16 and 32; xtime is
// a renaming of words plus three XORs. On wasm the rounds are fixsliced (Adomnicai and Peyrin,
// TCHES 2021/1; see aes8): no ShiftRows, MixColumns' rotations also turn the columns, and round
// key r is stored as SR^−r(k_r). The affine constant 0x63 is folded into round keys 1 … Nr.
// The key schedule runs the circuit byte-sliced on one i32 (SubWord), then bitslices each round
// key with the data's own transposition (the key in all four block positions).
//
// Why constant time: there is no table and no data-dependent address or branch; the loops count
// public rounds and blocks.
//
// Cost per four blocks and round: 113 gates, 19 operations of ShiftRows and 8 of MixColumns and
// AddRoundKey per word: ~330 i64 operations, ~5 per byte (the JavaScript printer writes each as
// one to four int32 operations). Fixsliced (wasm): no ShiftRows, and 5 (odd rounds 10)
// operations more per word in MixColumns' rotations: ~220–260 (docs/kernels/aes.md).
//
// Round-key layout at rk: round r at rk + 64·r, word i at + 8·i; (Nr + 1)·64 bytes (within the
// SIMD layout's (Nr + 1)·128, so the slot layout and its wipes are the same on every target).

import { type Expr, Func, type Local, type Stmt, block, br, br_if, callv, comment, i32, i64, if_, label, loop, memory, target } from './builder/index.js';
import { type AesFlags, GATES, RCON, TEMPS } from './aes_bitsliced_simd128.js';

const K = (v: bigint) => i64.const(BigInt.asUintN(64, v), true);

/** The circuit on i64 or i32 locals: inputs[j] holds U_j, outputs[j] receives S_j (may alias inputs). */
export function circuit<T extends 'i32' | 'i64'>(t: T, inputs: Local<T>[], outputs: Local<T>[], tmp: Map<string, Local<T>>): Stmt[] {
  const ops = (t === 'i64' ? i64 : i32) as unknown as { and(a: Local<T>, b: Local<T>): Expr<T>; xor(a: Local<T>, b: Local<T>): Expr<T> };
  const loc = (n: string) => (/^U\d$/.test(n) ? inputs[+n[1]] : tmp.get(n)!);
  return [...GATES.map((g) => loc(g.out).set(g.and ? ops.and(loc(g.a), loc(g.b)) : ops.xor(loc(g.a), loc(g.b)))), ...outputs.map((o, j) => o.set(tmp.get(`S${j}`)!))];
}

export function circuitLocals<T extends 'i32' | 'i64'>(f: Func, t: T, p: string): Map<string, Local<T>> {
  return new Map([...TEMPS, ...Array.from({ length: 8 }, (_, i) => `S${i}`)].map((n) => [n, f.local(t, `${p}${n}`)]));
}

/** x with the bits at m and at m << s exchanged (an in-word delta swap), via the local t. */
function deltaSwap(x: Local<'i64'>, t: Local<'i64'>, s: bigint, m: bigint): Stmt[] {
  return [t.set(i64.and(i64.xor(i64.shr_u(x, s), x), K(m))), x.set(i64.xor(x, t, i64.shl(t, s)))];
}

/** swapmove: bits of a at ~m << s exchanged with the bits of b at m (m the zero positions of bit s). */
function swapMove(a: Local<'i64'>, b: Local<'i64'>, t: Local<'i64'>, s: bigint, m: bigint): Stmt[] {
  return [t.set(i64.and(i64.xor(i64.shr_u(a, s), b), K(m))), b.set(i64.xor(b, t)), a.set(i64.xor(a, i64.shl(t, s)))];
}

// In-word: [b0 r1 r0 i] → [r1 b0 r0 i] → [r1 r0 b0 i] (bit-address fields, high to low).
const DS1 = [16n, 0x00000000ffff0000n] as const;
const DS2 = [8n, 0x0000ff000000ff00n] as const;
const SWAPS = [
  [1n, 0x5555555555555555n],
  [2n, 0x3333333333333333n],
  [4n, 0x0f0f0f0f0f0f0f0fn],
] as const;

/**
 * Columns → planes: w[4c1 + 2c0 + b1] = column c of block 2b1 (low half) ‖ of block 2b1 + 1
 * (high half) enters; word i leaves holding bit i of every byte (layout in the opening comment).
 */
export function toPlanes(w: Local<'i64'>[], t: Local<'i64'>): Stmt[] {
  const out: Stmt[] = [];
  for (const x of w) out.push(...deltaSwap(x, t, ...DS1), ...deltaSwap(x, t, ...DS2));
  SWAPS.forEach(([s, m], k) => {
    for (let x = 0; x < 8; x++) if (!(x & (1 << k))) out.push(...swapMove(w[x], w[x | (1 << k)], t, s, m));
  });
  return out;
}

/** The inverse of toPlanes. */
export function fromPlanes(w: Local<'i64'>[], t: Local<'i64'>): Stmt[] {
  const out: Stmt[] = [];
  SWAPS.forEach(([s, m], k) => {
    for (let x = 0; x < 8; x++) if (!(x & (1 << k))) out.push(...swapMove(w[x], w[x | (1 << k)], t, s, m));
  });
  for (const x of w) out.push(...deltaSwap(x, t, ...DS2), ...deltaSwap(x, t, ...DS1));
  return out;
}

/** The word index of column c of blocks 2b1, 2b1 + 1. */
const wordOf = (c: number, b1: number) => 4 * (c >> 1) + 2 * (c & 1) + b1;

/** ShiftRows twice on one plane: rows 1 and 3 rotated by two columns (4 bits in each byte), row 2 unchanged. */
function shiftRows2(x: Local<'i64'>): Expr<'i64'> {
  const rows13 = 0xffff0000ffff0000n;
  return i64.or(i64.and(x, K(~rows13 & 0xffffffffffffffffn)), i64.and(byteRotrK(x.get(), 4n), K(rows13)));
}

/** ShiftRows on one plane: row r's bytes rotated right by 2r bits. */
function shiftRows(x: Local<'i64'>): Expr<'i64'> {
  return i64.or(
    i64.and(x, 0xffff),
    i64.and(i64.shr_u(x, 2n), K(0x3f3f0000n)),
    i64.and(i64.shl(x, 6n), K(0xc0c00000n)),
    i64.and(i64.shr_u(x, 4n), K(0x0f0f00000000n)),
    i64.and(i64.shl(x, 4n), K(0xf0f000000000n)),
    i64.and(i64.shr_u(x, 6n), K(0x0303000000000000n)),
    i64.and(i64.shl(x, 2n), K(0xfcfc000000000000n)),
  );
}

/** Whether aes8 runs fixsliced rounds (and the round keys are laid out for them): the wasm target; js keeps the classic round (see aes8). */
const fixsliced = (): boolean => target() !== 'js';

/** Every byte of x rotated right by s bits (0 ≤ s < 8, public), under the masks lo = bytes 0xff >> s, hi = ~lo. */
function byteRotr(x: Expr<'i64'>, s: Local<'i64'>, lo: Local<'i64'>, hi: Local<'i64'>): Expr<'i64'> {
  return i64.or(i64.and(i64.shr_u(x, s), lo), i64.and(i64.shl(x, i64.sub(8, s)), hi));
}

/** Every byte of x rotated right by the constant s bits (0 < s < 8). */
function byteRotrK(x: Expr<'i64'>, s: bigint): Expr<'i64'> {
  const lo = (0xffn >> s) * 0x0101010101010101n;
  return i64.or(i64.and(i64.shr_u(x, s), K(lo)), i64.and(i64.shl(x, 8n - s), K(~lo & 0xffffffffffffffffn)));
}

/**
 * `$aes8(rk, nr, buf)`: encrypt the eight blocks at buf (128 bytes) in place with the fixsliced
 * round keys at rk (expandScalarFunc), as two passes of four; nr rounds (10, 12, 14). All
 * parameters public.
 *
 * Fixslicing (Adomnicai and Peyrin, TCHES 2021/1, "Fixslicing AES-like ciphers"): the state
 * after round i is kept as y_i with x_i = SR^i(y_i), so no round runs ShiftRows. Since SubBytes
 * commutes with SR, round i is y_i = MC_i(SB(y_(i−1))) ⊕ SR^−i(k_i), with
 * MC_i = SR^−i ∘ MixColumns ∘ SR^i: b(r, c) = 2z(r, c) ⊕ 3z(r+1, c+i) ⊕ z(r+2, c+2i) ⊕ z(r+3, c+3i),
 * MixColumns with its row rotations also turning the columns by i (SR^4 = 1, so i mod 4). In
 * this layout a row is 16 bits (a rotation by 16) and a column step is 2 bits inside every byte
 * (a byte rotation by 2i: two shifts, two masks). The last round is SR^nr(SB(y)) ⊕ k_nr: SR² for
 * nr = 10 and 14, nothing for 12. Rounds come in pairs (i odd, then even): the odd round's
 * second rotation turns the columns by 2i ≡ 2 (mod 4), a constant 4-bit byte rotation; the even
 * round's is none. The js target keeps the classic round (fixsliced() below).
 */
export function aes8ScalarFunc(): Func {
  const f = new Func('aes8', { rk: 'i32', nr: 'i32', buf: 'i32' });
  const { rk, nr, buf } = f.p;
  const s = f.locals(
    'i64',
    Array.from({ length: 8 }, (_, i) => `s${i}`),
  );
  const t = f.i64('t');
  const br = f.locals(
    'i64',
    Array.from({ length: 8 }, (_, i) => `br${i}`),
  );
  const bt = f.locals(
    'i64',
    Array.from({ length: 8 }, (_, i) => `bt${i}`),
  );
  const q = circuitLocals(f, 'i64', 'q');
  const [i, p, h, src] = f.locals('i32', ['i', 'p', 'h', 'src']);
  const U = s.map((_, j) => s[7 - j]);
  const ark = (at: Local<'i32'>) => s.map((x, j) => x.set(i64.xor(x, i64.load(at, 8 * j))));
  const [half, round, done] = [label('half'), label('round'), label('done')];
  /** xtime of the word pair bt (bit-plane renaming plus three XORs): its word j */
  const xt = (j: number): Expr<'i64'> => (j === 0 ? bt[7].get() : [1, 3, 4].includes(j) ? i64.xor(bt[j - 1], bt[7]) : bt[j - 1].get());
  /**
   * MixColumns and the round key on the words y_j (written into s): br = rot1(y), bt = y ⊕ br,
   * s_j = xtime(bt) ⊕ br ⊕ rot2(bt) ⊕ k_j (the round key at p). y(j) gives y_j's first use
   * and its second (a local both times, or a tee into bt and then bt).
   */
  const mixColumns = (y: (j: number) => [Expr<'i64'>, Expr<'i64'>], rot1: (e: Expr<'i64'>) => Expr<'i64'>, rot2: (e: Expr<'i64'>) => Expr<'i64'>): Stmt[] => [
    ...s.flatMap((_, j) => {
      const [first, again] = y(j);
      return [br[j].set(rot1(first)), bt[j].set(i64.xor(again, br[j]))];
    }),
    ...s.map((x, j) => x.set(i64.xor(xt(j), br[j], rot2(bt[j].get()), i64.load(p, 8 * j)))),
  ];
  // wasm: fixsliced rounds in pairs, rot1's column turn a run-time shift (a loop body of four
  // rounds with constant shifts ran slower there); js: the classic round, ShiftRows and all (its
  // 64-bit shifts are emulated on 32-bit halves; fixsliced, four rounds to a pass were 0.8–3 %
  // slower, pairs 2–7 %)
  const fix = fixsliced();
  /**
   * Fixsliced round i (the local i), i odd or even: SubBytes, then MC_i: rot1 turns rows by one
   * and columns by i (a byte rotation by the run-time count 2i mod 8), rot2 = rot1² turns
   * columns by 2i ≡ 2 (odd i: a 4-bit byte rotation) or 0 (even i).
   */
  const fixRound = (odd: boolean): Stmt[] => {
    const [sh, lo, hi] = [f.i64('sh'), f.i64('lo'), f.i64('hi')];
    return [
      p.set(i32.add(p, 64)),
      ...circuit('i64', U, U, q),
      comment(`MC_i for ${odd ? 'odd' : 'even'} i`),
      sh.set(i64.extend_i32_u(i32.and(i32.shl(i, 1), 7))),
      lo.set(i64.mul(i64.shr_u(i64.const(0xff), sh), K(0x0101010101010101n))),
      hi.set(i64.xor(lo, -1)),
      ...mixColumns(
        (j) => [s[j].get(), s[j].get()],
        (e) => byteRotr(i64.rotr(e, 16n), sh, lo, hi),
        (e) => (odd ? byteRotrK(i64.rotr(e, 32n), 4n) : i64.rotr(e, 32n)),
      ),
    ];
  };
  const classic: Stmt[] = [
    p.set(i32.add(p, 64)),
    comment('SubBytes'),
    ...circuit('i64', U, U, q),
    comment('ShiftRows; MixColumns: xtime(y ⊕ rot1 y) ⊕ rot1 y ⊕ rot2(y ⊕ rot1 y)'),
    ...mixColumns(
      (j) => [bt[j].tee(shiftRows(s[j])), bt[j].get()],
      (e) => i64.rotr(e, 16n),
      (e) => i64.rotr(e, 32n),
    ),
  ];
  const next = (last: boolean) => (last ? br_if(round, i32.lt_u(i.tee(i32.add(i, 1)), nr)) : br_if(done, i32.eq(i.tee(i32.add(i, 1)), nr)));
  const rounds: Stmt[] = fix ? [...fixRound(true), next(false), ...fixRound(false), next(true)] : [...classic, next(true)];
  const col = (c: number, b: number) => i64.load32_u(src, 16 * b + 4 * c);
  f.emit(
    h.set(0),
    loop(
      half,
      src.set(i32.add(buf, i32.shl(h, 6))),
      comment('four blocks -> eight planes'),
      [0, 1, 2, 3].flatMap((c) => [0, 1].map((b1) => s[wordOf(c, b1)].set(i64.or(col(c, 2 * b1), i64.shl(col(c, 2 * b1 + 1), 32n))))),
      toPlanes(s, t),
      p.set(rk),
      ark(p),
      i.set(1),
      comment(fix ? 'rounds 1 … nr − 1 (an odd number of them), fixsliced, two per pass' : 'rounds 1 … nr − 1'),
      fix ? block(done, loop(round, rounds)) : loop(round, rounds),
      comment(fix ? 'final round: SR^nr(SubBytes(y)) ⊕ k_nr; SR^nr = SR² for nr = 10, 14 and 1 for 12' : 'final round: no MixColumns'),
      p.set(i32.add(p, 64)),
      circuit('i64', U, U, q),
      fix
        ? if_(
            i32.and(nr, 2),
            s.map((x) => x.set(shiftRows2(x))),
          )
        : s.map((x) => x.set(shiftRows(x))),
      ark(p),
      comment('planes -> blocks'),
      fromPlanes(s, t),
      [0, 1, 2, 3].flatMap((c) =>
        [0, 1].flatMap((b1) => {
          const w = s[wordOf(c, b1)];
          return [i64.store32(src, w, 16 * (2 * b1) + 4 * c), i64.store32(src, i64.shr_u(w, 32n), 16 * (2 * b1 + 1) + 4 * c)];
        }),
      ),
      br_if(half, i32.lt_u(h.tee(i32.add(h, 1)), 2)),
    ),
  );
  return f;
}

/** `$sub4(x) -> S(x)`: the AES S-box on each byte of an i32, byte-sliced (the key schedule's SubWord). */
export function sub4Func(): Func {
  const f = new Func('sub4', { x: 'i32' }, { results: ['i32'] });
  const x = f.p.x;
  const u = f.locals(
    'i32',
    Array.from({ length: 8 }, (_, i) => `u${i}`),
  );
  const k = circuitLocals(f, 'i32', 'k');
  f.emit(
    comment('U_j = bit 7 - j of each byte, in bit 0 of the byte'),
    u.map((n, j) => n.set(i32.and(i32.shr_u(x, 7 - j), 0x01010101))),
    circuit('i32', u, u, k),
    comment('pack the bits back and add the affine constant 0x63'),
    i32.xor(0x63636363, ...(u.map((n, j) => i32.shl(n, 7 - j)) as [Expr<'i32'>])),
  );
  return f;
}

/**
 * `$expandN(rk, key, tmp)` for N = 4, 6, 8 key words: FIPS 197 KeyExpansion, unrolled, words at
 * tmp (little-endian i32), then each round key bitsliced into rk with 0x63 folded into rounds
 * 1 … Nr (words 0, 1, 5, 6 inverted). tmp is wiped before returning.
 */
export function expandScalarFunc(nk: 4 | 6 | 8, sub4: Func, flags: AesFlags = {}): Func {
  const f = new Func(`expand${nk}`, { rk: 'i32', key: 'i32', tmp: 'i32' });
  const { rk, key, tmp } = f.p;
  const w = f.i32('w');
  const s = f.locals(
    'i64',
    Array.from({ length: 8 }, (_, i) => `s${i}`),
  );
  const [t, inv] = f.locals('i64', ['t', 'inv']);
  const [r, src, dst, m] = f.locals('i32', ['r', 'src', 'dst', 'm']);
  const nr = nk + 6;
  const words = 4 * (nr + 1);
  const rcon = RCON.slice();
  if (flags.wrongRcon) rcon[3] = 0x09;
  const sub = (e: Expr<'i32'>) => callv('i32', sub4, e);
  for (let i = 0; i < nk; i++) f.emit(i32.store(tmp, i32.load(key, 4 * i), 4 * i));
  if (flags.leakyKeyLookup) {
    const leak = f.i32('leak');
    for (let i = 0; i < 4 * nk; i++) f.emit(leak.set(i32.xor(leak, i32.load8_u(i32.shl(i32.load8_u(key, i), 16), 4096))));
    f.emit(i32.store(tmp, leak, 240));
  }
  for (let i = nk; i < words; i++) {
    f.emit(comment(`w[${i}]`), w.set(i32.load(tmp, 4 * (i - 1))));
    if (i % nk === 0) f.emit(comment('SubWord(RotWord(w)) ^ Rcon'), w.set(i32.xor(sub(i32.rotr(w, 8)), rcon[i / nk - 1])));
    else if (nk === 8 && i % nk === 4) f.emit(comment('SubWord(w)'), w.set(sub(w.get())));
    f.emit(i32.store(tmp, i32.xor(i32.load(tmp, 4 * (i - nk)), w), 4 * i));
  }
  const [next, sr, srDone] = [label('next'), label('sr'), label('sr_done')];
  const col = (c: number) => i64.load32_u(src, 4 * c);
  f.emit(
    comment('bitslice each round key: the same key in all four block positions'),
    r.set(0),
    src.set(tmp),
    dst.set(rk),
    loop(
      next,
      [0, 1, 2, 3].flatMap((c) => [0, 1].map((b1) => s[wordOf(c, b1)].set(i64.or(col(c), i64.shl(col(c), 32n))))),
      toPlanes(s, t),
      fixsliced()
        ? [
            comment('fixslicing (see aes8): round key r of 1 … nr − 1 as SR^−r(k_r) = SR^((−r) mod 4)(k_r)'),
            m.set(i32.mul(i32.and(i32.sub(0, r), 3), i32.lt_u(r, nr))),
            block(
              srDone,
              loop(
                sr,
                br_if(srDone, i32.eqz(m)),
                s.map((x) => x.set(shiftRows(x))),
                m.set(i32.sub(m, 1)),
                br(sr),
              ),
            ),
          ]
        : [],
      comment('0x63 = bits 0, 1, 5, 6: those words inverted from round 1 on'),
      s.map((x, j) => i64.store(dst, [0, 1, 5, 6].includes(j) ? i64.xor(x, inv) : x.get(), 8 * j)),
      inv.set(-1),
      src.set(i32.add(src, 16)),
      dst.set(i32.add(dst, 64)),
      br_if(next, i32.le_u(r.tee(i32.add(r, 1)), nr)),
    ),
    memory.fill(tmp, 0, 4 * words),
    s.map((x) => x.set(0)),
    t.set(0),
  );
  return f;
}

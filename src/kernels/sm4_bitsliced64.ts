// SM4 (GB/T 32907-2016) for the scalar targets (wasm, js): bitsliced on i64, sixteen blocks per
// pass, the S-box as a circuit; the SM4 functions of the 'sm4' module (sm4_gcm.ts adds GCM).
//
// Technique: the SM4 S-box is affine-equivalent to inversion in GF(2^8), so it is the AES S-box
// circuit of Boyar and Peralta (aes_bitsliced_simd128.ts, 113 gates) between two linear layers
// found at generation time: S(x) = L2·BP(L1·x ⊕ c1) ⊕ c2, with L1 the field isomorphism from
// SM4's field to AES's after SM4's input affine map, L2 the way back through AES's and SM4's
// output maps (the generator checks all 256 inputs before it emits anything). Word j of sixteen
// blocks is eight i64 planes, bit position 16m + b for byte m of the word (in memory order) of
// block b; the transposition is aes_ct64.ts's. L's rotations by 2, 10, 18 and 24 bits become
// plane renamings and 64-bit rotations by multiples of 16; each round key is expanded to its
// planes from eight stored nibbles.
//
// Why not a full-table scan with masks: every S-box lookup would read all 256 entries (about
// 4 operations each) for each of the 4 bytes of 16 blocks' word per round — ~16 000 operations
// per round and 16 blocks against ~330 for the circuit with its linear layers here.
//
// Why constant time: no table, no data-dependent address or branch; loops count public rounds
// and blocks.
//
// Cost per round and sixteen blocks: 113 gates, ~50 XORs of the two linear layers, ~60 of L and
// ~30 to expand the round key: ~1.3 i64 operations per byte and round.
//
// Round keys (SM4_RK, sm4_layout.ts): 16 bytes per round key as in the SIMD layout, here its
// planes' nibbles (byte i: bit m = bit i of byte m of rk in memory order); encryption order at
// [0, 512), decryption at [512, 1024); the raw key at 1024 (zeroed by sm4_expand).

import { type Expr, Func, type Local, type Stmt, type Val, block, br, br_if, call, callv, comment, i32, i64, if_, label, loop, memory, select, setMany } from './builder/index.js';
import { GCM_IO } from './gcm_layout.js';
import { circuit, circuitLocals, fromPlanes, toPlanes } from './aes_ct64.js';
import { GATES } from './aes_bitsliced_simd128.js';
import { SM4_RK } from './sm4_layout.js';
import { FK, POLY_SM4, SM4_C, type Sm4Flags, ck, sboxAlgebraic } from './sm4_vperm_simd128.js';

// ---------------------------------------------------------------------------------------------
// The linear layers, at generation time.

const parity = (v: number): number => {
  let p = 0;
  for (; v; v &= v - 1) p ^= 1;
  return p;
};
const rotl8 = (v: number, n: number) => ((v << n) | (v >> (8 - n))) & 0xff;
function gfMul(a: number, b: number, poly: number): number {
  let r = 0;
  for (let i = 0; i < 8; i++) {
    if (b & 1) r ^= a;
    b >>= 1;
    a <<= 1;
    if (a & 0x100) a ^= poly;
  }
  return r;
}
/** SM4's input and output affine map without its constant (the simd file's sm4A). */
const sm4A = (x: number) => {
  let o = 0;
  for (let i = 0; i < 8; i++) o |= parity(rotl8(0xa7, i) & x) << i;
  return o;
};
/** AES's affine map without 0x63: b ⊕ b<<<1 ⊕ b<<<2 ⊕ b<<<3 ⊕ b<<<4. */
const aesM = (b: number) => b ^ rotl8(b, 1) ^ rotl8(b, 2) ^ rotl8(b, 3) ^ rotl8(b, 4);

/** The circuit on one byte (U_j = bit 7 − j, output bit 7 − j = S_j): AES's S-box ⊕ 0x63. */
function circuitByte(y: number): number {
  const v = new Map<string, number>();
  for (let j = 0; j < 8; j++) v.set(`U${j}`, (y >> (7 - j)) & 1);
  for (const g of GATES) v.set(g.out, g.and ? v.get(g.a)! & v.get(g.b)! : v.get(g.a)! ^ v.get(g.b)!);
  let o = 0;
  for (let j = 0; j < 8; j++) o |= v.get(`S${j}`)! << (7 - j);
  return o;
}

/** A linear map as rows: out bit i = parity(rows[i] & in). */
const rowsOf = (f: (x: number) => number): number[] => Array.from({ length: 8 }, (_, i) => Array.from({ length: 8 }, (_, j) => ((f(1 << j) >> i) & 1) << j).reduce((a, b) => a | b, 0));
const apply = (rows: number[], x: number) => rows.reduce((o, r, i) => o | (parity(r & x) << i), 0);

interface Layers {
  l1: number[];
  c1: number;
  l2: number[];
  c2: number;
}

function layers(): Layers {
  // φ: SM4's field → AES's, α ↦ β for a root β of SM4's polynomial in AES's field
  for (let beta = 2; beta < 256; beta++) {
    let pw = 1,
      v = 0;
    const basis: number[] = [];
    for (let e = 0; e <= 8; e++) {
      if (e < 8) basis.push(pw);
      if ((POLY_SM4 >> e) & 1) v ^= pw;
      pw = gfMul(pw, beta, 0x11b);
    }
    if (v !== 0) continue;
    const phi = (x: number) => basis.reduce((a, b, e) => ((x >> e) & 1 ? a ^ b : a), 0);
    const phiTab = Array.from({ length: 256 }, (_, x) => phi(x));
    if (new Set(phiTab).size !== 256) continue;
    const phiInv = new Array<number>(256),
      mInv = new Array<number>(256);
    phiTab.forEach((y, x) => (phiInv[y] = x));
    for (let x = 0; x < 256; x++) mInv[aesM(x)] = x;
    // S(x) = A·inv(A·x ⊕ C) ⊕ C, inv = φ⁻¹∘inv_AES∘φ, inv_AES = M⁻¹∘BP
    const t: Layers = { l1: rowsOf((x) => phi(sm4A(x))), c1: phi(SM4_C), l2: rowsOf((x) => sm4A(phiInv[mInv[x]])), c2: SM4_C };
    let ok = true;
    for (let x = 0; x < 256 && ok; x++) ok = (apply(t.l2, circuitByte(apply(t.l1, x) ^ t.c1)) ^ t.c2) === sboxAlgebraic(x);
    if (ok) return t;
  }
  throw new Error('sm4: no linear layers around the AES circuit reproduce the S-box');
}

// ---------------------------------------------------------------------------------------------
// Emission.

type W = 'i32' | 'i64';

/** Where a pass keeps its 32 planes between its functions: IO-area bytes after the keystream
 * buffer (GCM_IO.ks + 16 blocks · 16 bytes), wiped at the end of every pass. */
const PLANES = GCM_IO.ks + 512;
const opsOf = <T extends W>(t: T) =>
  (t === 'i64' ? i64 : i32) as unknown as {
    xor(a: Val<T>, b: Val<T>, ...r: Val<T>[]): Expr<T>;
  };

/** out_i = XOR of in_j over row i, ⊕ `ones` where bit i of c is set. */
function linear<T extends W>(t: T, out: Local<T>[], inp: Local<T>[], rows: number[], c: number, ones: Val<T>): Stmt[] {
  const ops = opsOf(t);
  return out.map((o, i) => {
    const terms: Val<T>[] = inp.filter((_, j) => (rows[i] >> j) & 1);
    if ((c >> i) & 1) terms.push(ones);
    if (terms.length === 0) return o.set((t === 'i64' ? i64.const(0) : i32.const(0)) as Expr<T>);
    return o.set(terms.length === 1 ? terms[0] : ops.xor(terms[0], terms[1], ...terms.slice(2)));
  });
}

/** The S-box on planes x[i] (bit i), in place; `p` prefixes its locals; ones: the all-ones of a lane. */
function sboxPlanes<T extends W>(f: Func, t: T, x: Local<T>[], p: string, L: Layers, ones: Val<T>): Stmt[] {
  const y = f.locals(
    t,
    Array.from({ length: 8 }, (_, i) => `${p}y${i}`),
  );
  const q = circuitLocals(f, t, `${p}q`);
  const U = y.map((_, j) => y[7 - j]);
  return [comment('S-box: L1·x ⊕ c1, the AES circuit (inversion), L2·(…) ⊕ c2'), ...linear(t, y, x, L.l1, L.c1, ones), ...circuit(t, U, U, q), ...linear(t, x, y, L.l2, L.c2, ones)];
}

/** `$sm4_tau(x) -> τ(x)`: the S-box on each byte of an i32, byte-sliced (the key schedule). */
function tauFunc(L: Layers): Func {
  const f = new Func('sm4_tau', { x: 'i32' }, { results: ['i32'] });
  const x = f.p.x;
  const u = f.locals(
    'i32',
    Array.from({ length: 8 }, (_, i) => `u${i}`),
  );
  f.emit(
    u.map((n, i) => n.set(i32.and(i32.shr_u(x, i), 0x01010101))),
    sboxPlanes(f, 'i32', u, 'k', L, 0x01010101),
    i32.or(u[0], ...(u.slice(1).map((n, i) => i32.shl(n, i + 1)) as [Expr<'i32'>])),
  );
  return f;
}

const bswap32 = (x: Local<'i32'>): Expr<'i32'> => i32.or(i32.and(i32.rotr(x, 8), i32.const(0xff00ff00, true)), i32.and(i32.rotl(x, 8), 0x00ff00ff));

export interface Sm4ScalarFunctions {
  expand: Func;
  ctr32: Func;
  ecb: Func;
  functions: Func[];
}

/** sm4_expand, sm4_ctr32 and sm4_ecb for the scalar targets (the SIMD module's exports). */
export function sm4ScalarFunctions(flags: Sm4Flags = {}): Sm4ScalarFunctions {
  const L = layers();
  const tau = tauFunc(L);

  // ---- key expansion: 32 rounds unrolled, the round keys stored as their planes' nibbles
  const expand = new Func('sm4_expand', { slot: 'i32' }, { export: true, public: 'all' });
  {
    const f = expand,
      { slot } = f.p;
    const mk = f.locals('i32', ['mk0', 'mk1', 'mk2', 'mk3']);
    const [w, r, t] = f.locals('i32', ['w', 'r', 't']);
    f.emit(mk.flatMap((m, j) => [t.set(i32.load(slot, SM4_RK.key + 4 * j)), m.set(i32.xor(bswap32(t), FK[j] | 0))]));
    for (let i = 0; i < 32; i++) {
      f.emit(
        comment(`rk_${i} = K_${i + 4} = K_${i} ⊕ L'(τ(K_${i + 1} ⊕ K_${i + 2} ⊕ K_${i + 3} ⊕ CK_${i}))`),
        w.set(callv('i32', tau, i32.xor(mk[1], mk[2], mk[3], ck(i, flags) | 0))),
        w.set(i32.xor(w, i32.rotl(w, 13), i32.rotl(w, 23), mk[0])),
        mk[0].set(mk[1]),
        mk[1].set(mk[2]),
        mk[2].set(mk[3]),
        mk[3].set(w),
        r.set(bswap32(w)),
        Array.from({ length: 8 }, (_, j) => [
          t.set(i32.and(i32.shr_u(r, j), 0x01010101)),
          t.set(i32.and(i32.or(t, i32.shr_u(t, 7), i32.shr_u(t, 14), i32.shr_u(t, 21)), 15)),
          i32.store8(slot, t, SM4_RK.enc + 16 * i + j),
          i32.store8(slot, t, SM4_RK.dec + 16 * (31 - i) + j),
        ]).flat(),
      );
    }
    f.emit(
      comment('the raw key is no longer needed'),
      i64.store(slot, 0, SM4_RK.key),
      i64.store(slot, 0, SM4_RK.key + 8),
      mk.map((m) => m.set(0)),
      w.set(0),
      r.set(0),
      t.set(0),
    );
  }

  // ---- one pass of up to sixteen blocks: sm4_pass(rk, src, dst, n), n ≤ 16 (public). Four
  // functions and the planes in the IO area between them (PLANES), so that each stays below V8's
  // bytecode-size limit for optimisation in its printed JavaScript (106 KB as one function).
  const ifBlock = (n: Local<'i32'>, b: number, body: Stmt[]): Stmt[] => (b === 0 ? body : [if_(i32.gt_u(n, b), body)]);
  const planeAt = (j: number, i: number) => PLANES + 64 * j + 8 * i;

  const sbox = new Func('sm4_sbox', Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`b${i}`, 'i64'])) as Record<string, 'i64'>, { results: Array(8).fill('i64') });
  {
    const b = Array.from({ length: 8 }, (_, i) => sbox.get('i64', `b${i}`));
    sbox.emit(
      sboxPlanes(sbox, 'i64', b, 's', L, -1),
      b.map((x) => x.get()),
    );
  }

  const input = new Func('sm4_in', { src: 'i32', n: 'i32' });
  {
    const f = input,
      { src, n } = f.p;
    const w = f.locals(
      'i64',
      Array.from({ length: 8 }, (_, i) => `w${i}`),
    );
    const tt = f.i64('tt');
    for (let j = 0; j < 4; j++) {
      f.emit(comment(`word ${j} of blocks k (low half) and k + 8 (high half) -> its eight planes`));
      for (let k = 0; k < 8; k++) {
        f.emit(w[k].set(0));
        f.emit(ifBlock(n, k, [w[k].set(i64.load32_u(src, 16 * k + 4 * j))]));
        f.emit(ifBlock(n, k + 8, [w[k].set(i64.or(w[k], i64.shl(i64.load32_u(src, 16 * (k + 8) + 4 * j), 32n)))]));
      }
      f.emit(
        toPlanes(w, tt),
        w.map((x, i) => i64.store(planeAt(j, i), x)),
      );
    }
  }

  const rounds = new Func('sm4_rounds', { rk: 'i32' });
  {
    const f = rounds,
      { rk } = f.p;
    const x = [0, 1, 2, 3].map((j) =>
      f.locals(
        'i64',
        Array.from({ length: 8 }, (_, i) => `x${j}_${i}`),
      ),
    );
    const tp = f.locals(
      'i64',
      Array.from({ length: 8 }, (_, i) => `t${i}`),
    );
    const e = f.locals(
      'i64',
      Array.from({ length: 8 }, (_, i) => `e${i}`),
    );
    const s = f.i64('s');
    const [rkp, rkEnd] = f.locals('i32', ['rkp', 'rkEnd']);
    const nrot = flags.rotOffByOne ? 3 : 2;
    const K = (v: bigint) => i64.const(v, true);
    /** round r of four in an iteration: X_{r+4} = X_r ⊕ L(S(X_{r+1} ⊕ X_{r+2} ⊕ X_{r+3} ⊕ rk_r)) */
    const round = (r: number): Stmt[] => {
      const X = (j: number) => x[(r + j) % 4];
      return [
        comment(`round ${r} of the iteration`),
        ...tp.flatMap((t, i) => {
          // the round key's plane i: nibble bit m spread to bits 16m … 16m + 15
          const nb = i64.load8_u(rkp, 16 * r + i);
          return [s.set(i64.and(i64.or(nb, i64.shl(nb, 15n), i64.shl(nb, 30n), i64.shl(nb, 45n)), K(0x0001000100010001n))), t.set(i64.xor(X(1)[i], X(2)[i], X(3)[i], i64.sub(i64.shl(s, 16n), s)))];
        }),
        ...setMany(call(sbox, ...tp), tp),
        comment('L: x ⊕ x<<<2 ⊕ x<<<10 ⊕ x<<<18 ⊕ x<<<24, as plane renamings and rotations by 16, 32, 48'),
        ...e.map((v, i) => v.set(i64.xor(tp[i], i64.rotr(tp[i], 16n), i64.rotr(tp[i], 32n)))),
        ...X(0).map((v, o) => v.set(i64.xor(v, tp[o], i64.rotr(tp[o], 48n), o >= nrot ? e[o - nrot].get() : i64.rotr(e[o - nrot + 8], 16n)))),
      ];
    };
    const lp = label('rounds');
    f.emit(
      x.flatMap((w, j) => w.map((v, i) => v.set(i64.load(planeAt(j, i))))),
      rkp.set(rk),
      rkEnd.set(i32.add(rk, 512)),
      loop(lp, round(0), round(1), round(2), round(3), br_if(lp, i32.lt_u(rkp.tee(i32.add(rkp, 64)), rkEnd))),
      x.flatMap((w, j) => w.map((v, i) => i64.store(planeAt(j, i), v))),
    );
  }

  const output = new Func('sm4_out', { dst: 'i32', n: 'i32' });
  {
    const f = output,
      { dst, n } = f.p;
    const w = f.locals(
      'i64',
      Array.from({ length: 8 }, (_, i) => `w${i}`),
    );
    const tt = f.i64('tt');
    // after 32 rounds X32 … X35 are words 0 … 3; the reversal R = (X35, X34, X33, X32)
    const outWords = flags.skipReversal ? [0, 1, 2, 3] : [3, 2, 1, 0];
    for (let pos = 0; pos < 4; pos++) {
      f.emit(
        comment(`block word ${pos} = X${32 + outWords[pos]}: planes -> blocks`),
        w.map((x, i) => x.set(i64.load(planeAt(outWords[pos], i)))),
        fromPlanes(w, tt),
      );
      for (let k = 0; k < 8; k++) {
        f.emit(ifBlock(n, k, [i64.store32(dst, w[k], 16 * k + 4 * pos)]));
        f.emit(ifBlock(n, k + 8, [i64.store32(dst, i64.shr_u(w[k], 32n), 16 * (k + 8) + 4 * pos)]));
      }
    }
  }

  const pass = new Func('sm4_pass', { rk: 'i32', src: 'i32', dst: 'i32', n: 'i32' });
  pass.emit(call(input, pass.p.src, pass.p.n), call(rounds, pass.p.rk), call(output, pass.p.dst, pass.p.n), memory.fill(PLANES, 0, 256));

  // ---- ECB: passes of sixteen blocks
  const ecb = new Func('sm4_ecb', { rk: 'i32', src: 'i32', dst: 'i32', n: 'i32' }, { export: true, public: 'all' });
  {
    const { rk, src, dst, n } = ecb.p;
    const [done, next] = [label('done'), label('next')];
    ecb.emit(block(done, loop(next, br_if(done, i32.eqz(n)), call(pass, rk, src, dst, select(n, 16, i32.lt_u(n, 16))), src.set(i32.add(src, 256)), dst.set(i32.add(dst, 256)), n.set(select(i32.sub(n, 16), 0, i32.gt_u(n, 16))), br(next))));
  }

  // ---- CTR with GCM's 32-bit counter (the SIMD module's sm4_ctr32, on words)
  const ctr32 = new Func('sm4_ctr32', { rk: 'i32', ctr: 'i32', src: 'i32', dst: 'i32', n: 'i32', ks: 'i32' }, { export: true, public: 'all' });
  {
    const f = ctr32,
      { rk, ctr, src, dst, n, ks } = f.p;
    const B = 16;
    const [c3, m, j, cx] = f.locals('i32', ['c3', 'm', 'j', 'cx']);
    const [w0] = f.locals('i64', ['w0']);
    const cw = f.i32('cw');
    const [done, chunk, xr] = [label('done'), label('chunk'), label('xor')];
    f.emit(
      w0.set(i64.load(ctr)),
      cw.set(i32.load(ctr, 8)),
      cx.set(i32.load(ctr, 12)),
      c3.set(bswap32(cx)),
      comment('the counter after this call: word 3 plus n (mod 2^32, inc_32 of SP 800-38D)'),
      cx.set(i32.add(c3, n)),
      i32.store(ctr, bswap32(cx), 12),
      block(
        done,
        loop(
          chunk,
          br_if(done, i32.eqz(n)),
          Array.from({ length: B }, (_, b) => [i64.store(ks, w0, 16 * b), i32.store(ks, cw, 16 * b + 8), cx.set(i32.add(c3, b)), i32.store(ks, bswap32(cx), 16 * b + 12)]).flat(),
          comment(`count = min(n, ${B})`),
          m.set(select(n, B, i32.lt_u(n, B))),
          call(ecb, rk, ks, ks, m),
          j.set(0),
          loop(xr, i64.store(i32.add(dst, j), i64.xor(i64.load(i32.add(src, j)), i64.load(i32.add(ks, j)))), br_if(xr, i32.lt_u(j.tee(i32.add(j, 8)), i32.shl(m, 4)))),
          c3.set(i32.add(c3, m)),
          src.set(i32.add(src, 16 * B)),
          dst.set(i32.add(dst, 16 * B)),
          n.set(i32.sub(n, m)),
          br(chunk),
        ),
      ),
      memory.fill(ks, 0, 16 * B),
    );
  }

  return { expand, ctr32, ecb, functions: [tau, expand, sbox, input, rounds, output, pass, ecb, ctr32] };
}

// The SM4 family module ("sm4"): the SM4 kernel (sm4_vperm_simd128.ts), the GF(2^128) code of
// gf128_ctmul64.ts under the prefix `gf_`, and the GCM mode loops of aes_gcm.ts
// (gcmModeFunctions) with SM4 as their block cipher: SM4-GCM of RFC 8998 is the same GCM code as
// AES-GCM, only the cipher call differs.
//
// Why one module: the GCM loop encrypts a group of counter blocks in place in the IO area, XORs
// them into the scratch window and hashes them there, all in one memory, with no copy between
// modules; a bundle that imports SM4-GCM carries this module and no AES.
//
// The cipher call of the mode loop: $sm4_ks(rk, nr, ks, count) encrypts the first `count` of
// SM4_GCM_BLOCKS counter blocks at ks in place (sm4_ecb, one pass of up to four groups of four
// blocks; the round count nr is the mode loop's parameter for AES and is ignored here). GCM seal
// and open use the stitched form, $sm4_ks_ghash, which also hashes up to 16 blocks: with more
// than 8 counter blocks to encrypt it runs the 16-block pass with GHASH woven into the round
// loop (sm4PassFunc + ghashStitch below), so the scalar multiplications of GHASH and the SIMD
// rounds of SM4 can issue side by side. Measured on this 2-vCPU VM under load (best of 15
// interleaved runs, 16 blocks): pass with 16 blocks hashed 846–867 ns, sm4_ecb then
// gf_ghash_blocks 884–901 ns (SM4 alone ~510, GHASH alone ~385): ~4%, less than the overlap
// the separate execution units would allow, as if the core's issue rate were the limit.
//
// Constant time: as in the three generators it combines; this file adds only the adapter, whose
// arguments are public pointers and counts.
//
// Memory: the IO area as AES_IO (aes_layout.ts); key slot SM4_SLOT (sm4_layout.ts): GHASH key and
// tables at 0, SM4 round keys at 2048.
import { type Expr, Func, type GeneratedKernel, Module, type Stmt, call, comment, i32, i64x2, if_, kernel, ret, select, target, v128 } from './builder/index.js';
import { sm4ScalarFunctions } from './sm4_bitsliced64.js';
import { type Gf128Flags, GF128_TABLE_OFFSET, GF128_TABLE_SIZE, Gf128Mul, gf128Functions } from './gf128_ctmul64.js';
import { gcmFunctions } from './gcm_mode.js';
import { GCM_IO } from './gcm_layout.js';
import { SM4_GCM_BLOCKS } from './sm4_layout.js';
import { type Sm4Flags, type Sm4Options, type Sm4Stitch, sm4Functions, sm4PassFunc } from './sm4_vperm_simd128.js';

export interface Sm4GcmFlags extends Sm4Flags, Gf128Flags {}

export interface Sm4GcmOptions extends Sm4Options {
  /** GHASH stitched into the SM4 rounds (default true) */
  stitch?: boolean;
}

/** the prefix of the GF(2^128) functions in this module */
const GF_PREFIX = 'gf_';

/**
 * GHASH of hn ≤ 16 blocks at $hsrc into IO.state, woven into the 16-block SM4 pass: two blocks
 * per iteration of the four-round loop (each block's load and lane work, then its six 64-bit
 * carry-less products, one piece after each group's round), blocks 0–7 reduced together with
 * H^g1 … H^1 (g1 = min(hn, 8)) at the end of the fourth iteration, blocks 8 … hn−1 with
 * H^(hn−8) … H^1 after the loop. Every piece is guarded by the public count (hb < hn).
 */
function ghashStitch(flags: Gf128Flags): Sm4Stitch {
  return {
    params: { gf: 'i32', hsrc: 'i32', hn: 'i32' },
    build(f, core) {
      const g = new Gf128Mul(f, flags);
      const hs = f.v128('hs');
      const p = f.i32('p');
      const hb = f.i32('hb');
      const [gf, hsrc, hn] = ['gf', 'hsrc', 'hn'].map((n) => f.get('i32', n));
      const { rk, rkp } = core;
      const pieces = g.products(p);
      const block = pieces.map((piece, k) => [
        if_(i32.lt_u(hb, hn), [
          ...(k === 0 ? [comment('GHASH block hb of hsrc (the state enters with the first block of a reduction)'), g.v.set(v128.xor(g.domain(v128.load(hsrc)), hs)), hs.set(v128.zero())] : []),
          ...piece,
          ...(k === pieces.length - 1 ? [hsrc.set(i32.add(hsrc, 16)), p.set(i32.sub(p, GF128_TABLE_SIZE)), hb.set(i32.add(hb, 1))] : []),
        ]),
      ]);
      /** p = the table of H^power */
      const table = (power: Expr<'i32'>): Stmt[] => [p.set(power), p.set(i32.add(i32.add(gf, i32.mul(p, GF128_TABLE_SIZE)), GF128_TABLE_OFFSET - GF128_TABLE_SIZE))];
      const reduceInto = [...g.reduce(), hs.set(i64x2.replace_lane(i64x2.splat(g.r0), 1, g.r1))];
      return {
        prologue: [comment('GHASH: the state in the POLYVAL domain, the table of H^min(hn, 8) for the first block'), ...g.consts(), g.pinAt.set(gf), ...g.zero(), hs.set(g.domain(v128.load(GCM_IO.state))), ...table(select(hn, 8, i32.lt_u(hn, 8)))],
        weave: {
          pieces: [...block, ...block],
          iterationEnd: [comment('after the fourth iteration: blocks 0–7 reduced, the table of H^(hn−8) for block 8'), if_(i32.and(i32.eq(rkp, i32.add(rk, 192)), i32.ne(hn, 0)), [...reduceInto, ...g.zero(), ...table(i32.sub(hn, 8))])],
        },
        epilogue: [if_(i32.gt_u(hn, 8), reduceInto), if_(hn, [v128.store(GCM_IO.state, g.domain(hs.get()))])],
      };
    },
  };
}

/** The module for the scalar targets (wasm, js): the same exports on sm4_bitsliced64.ts, nothing stitched. */
function generateSm4GcmScalar(flags: Sm4GcmFlags): GeneratedKernel {
  const sm4 = sm4ScalarFunctions(flags);
  const gf = gf128Functions(flags, GF_PREFIX);
  const ks = new Func('sm4_ks', { rk: 'i32', nr: 'i32', ks: 'i32', count: 'i32' });
  ks.emit(call(sm4.ecb, ks.p.rk, ks.p.ks, ks.p.ks, ks.p.count));
  const gcm = gcmFunctions({ call: ks, blocks: SM4_GCM_BLOCKS, counted: true }, gf);
  const m = new Module('sm4').memory(2).add(sm4.functions, ks, gcm.functions, gf.functions);
  m.header.push(`SM4 (bitsliced on i64, sixteen blocks per pass, the S-box as a circuit), the GCM mode loops, GF(2^128) (multiplication with holes on i64), constant time; target ${target()}.`);
  return kernel(m);
}

export function generateSm4Gcm(flags: Sm4GcmFlags = {}, options: Sm4GcmOptions = {}): GeneratedKernel {
  if (target() !== 'simd') return generateSm4GcmScalar(flags);
  const stitch = options.stitch ?? true;
  const sm4 = sm4Functions(flags, options);
  const gf = gf128Functions(flags, GF_PREFIX);
  // the cipher call of the mode loop: the first count of SM4_GCM_BLOCKS counter blocks at ks
  const ks = new Func('sm4_ks', { rk: 'i32', nr: 'i32', ks: 'i32', count: 'i32' });
  ks.emit(call(sm4.ecb, ks.p.rk, ks.p.ks, ks.p.ks, ks.p.count));
  const adapter: Func[] = [ks];
  let stitched: Func | undefined;
  if (stitch) {
    const pass = sm4PassFunc('sm4_pass_ghash', ghashStitch(flags), flags, options);
    const sk = new Func(
      'sm4_ks_ghash',
      { rk: 'i32', nr: 'i32', ks: 'i32', gf: 'i32', hsrc: 'i32', hn: 'i32', count: 'i32' },
      {
        doc: ['the cipher call of the stitched GCM loop: more than 8 blocks with some to hash run the 16-block pass', 'with GHASH woven in; otherwise the smaller passes, and GHASH after them'],
      },
    );
    const { rk, ks: k, gf: g, hsrc, hn, count } = sk.p;
    sk.emit(if_(i32.or(i32.le_u(count, 8), i32.eqz(hn)), [call(sm4.ecb, rk, k, k, count), if_(hn, [call(gf.ghash, g, GCM_IO.state, hsrc, hn, 8)]), ret()]), call(pass, rk, k, g, hsrc, hn));
    adapter.push(sk, pass);
    stitched = sk;
  }
  const gcm = gcmFunctions({ call: ks, blocks: SM4_GCM_BLOCKS, counted: true, stitched }, gf);
  const m = new Module('sm4').memory(2).add(sm4.functions, adapter, gcm.functions, gf.functions);
  m.header.push('SM4 (vector-permute S-box, SIMD128), the GCM mode loops, GF(2^128) (multiplication with holes), constant time.');
  return kernel(m);
}

// The AES module ("aes"): bitsliced AES (aes_bitsliced_simd128.ts), the GF(2^128) code of
// gf128_ctmul64.ts under the prefix gf_, the GCM (SP 800-38D) and GCM-SIV (RFC 8452) mode loops
// of gcm_mode.ts with AES as their cipher, and GCM-SIV's key derivation and tag.
//
// Technique: one module, so that a group of eight counter blocks is encrypted and hashed in
// place in the scratch window while it is in L1. In GCM seal and open and in GCM-SIV open (with
// the powers) the hash is woven into the AES rounds — one block per round, its six 64-bit
// products spread between the S-box gates — so that the scalar multiplier and the SIMD units work
// side by side.
//
// Why constant time: keys, counters, data and states are only loaded, stored and computed on;
// branches, loop bounds and addresses depend on public parameters (pointers, lengths, counts,
// round numbers, mode flags).
//
// Cost (8 KiB calls, AES-128): AES alone ~580 MB/s, GHASH alone ~690 MB/s, stitched ~340 MB/s;
// docs/kernels/aes.md.
//
// Scalar targets (wasm, js): AES bitsliced on i64 (aes_ct64.ts), eight blocks per call as two
// passes of four, the mode loops and GF(2^128) on scalar words, nothing stitched.
//
// Memory: the IO area GCM_IO (gcm_layout.ts, as AES_IO); the key slot AES_SLOT (aes_layout.ts):
// GHASH key and tables at 0, bitsliced round keys at 2048, GCM-SIV's per-nonce round keys at
// 4096 and POLYVAL key and tables at 6144 (wiped after each message).

import { type Expr, Func, type Local, type GeneratedKernel, Module, type Stmt, type Val, call, comment, i32, i64, i64x2, i8x16, if_, kernel, memory, v128, block, br, br_if, label, loop, ret, select, target } from './builder/index.js';
import { aes8ScalarFunc, expandScalarFunc, sub4Func } from './aes_ct64.js';
import { type AesFlags, type Aes8Stitch, aes8Func, expandFunc, sub16Func } from './aes_bitsliced_simd128.js';
import { type Gf128Flags, GF128_TABLE_OFFSET, GF128_TABLE_SIZE, Gf128Mul, gf128Functions } from './gf128_ctmul64.js';
import { type GcmCipher, type GcmFlags, ctrLoop, gcmFunctions, lengthBlock } from './gcm_mode.js';
import { AES_IO, AES_SLOT } from './aes_layout.js';

export { AES_IO, AES_SLOT };

export interface AesGcmFlags extends AesFlags, Gf128Flags, GcmFlags {
  /** GCM-SIV skips XORing the nonce into the POLYVAL result */
  sivSkipNonceXor?: boolean;
  /** timing control (npm run ct:timing): also export gcm_tag_eq_vt(a, b, n), a byte compare that
   * returns 0 at the first difference (an early-exit tag compare); the checker must flag it */
  leakyTagCompare?: boolean;
}

/** The prefix of the GF(2^128) functions in this module. */
export const GF_PREFIX = 'gf_';
const IO = AES_IO;

/**
 * One block's hashing cut into pieces to weave between the S-box gates of a round: the block's
 * load and lane extraction, then its six 64-bit carry-less products, each guarded by i ≤ hn.
 */
function weaveGhash(f: Func, g: Gf128Mul, ghash: boolean, i: Local<'i32'>): Stmt[][] {
  const [hn, hsrc, hs, p] = [f.get('i32', 'hn'), f.get('i32', 'hsrc'), f.get('v128', 'hs'), f.get('i32', 'p')];
  const load = ghash ? g.domain(v128.load(hsrc)) : v128.load(hsrc);
  const pieces = g.products(p);
  return pieces.map((piece, k) => [
    if_(i32.le_u(i, hn), [
      ...(k === 0 ? [comment('hash block i - 1 of hsrc (the state enters with the first)'), g.v.set(v128.xor(load, hs)), hs.set(v128.zero())] : []),
      ...piece,
      ...(k === pieces.length - 1 ? [hsrc.set(i32.add(hsrc, 16)), p.set(i32.sub(p, GF128_TABLE_SIZE))] : []),
    ]),
  ]);
}

/**
 * An aes8Func variant that also hashes hn ≤ 8 blocks at hsrc into IO.state with one reduction
 * (block j with H^(hn−j), so the powers must be in the slot): one block per looped round, the
 * reduction before the final round.
 */
function hashStitch(kind: 'ghash' | 'polyval', flags: Gf128Flags): Aes8Stitch {
  return {
    name: `aes8_${kind}`,
    params: { gf: 'i32', hsrc: 'i32', hn: 'i32' },
    build(f, core) {
      const g = new Gf128Mul(f, flags);
      const hs = f.v128('hs');
      const p = f.i32('p');
      const [gf, hn] = [f.get('i32', 'gf'), f.get('i32', 'hn')];
      const domain = (x: Expr<'v128'>) => (kind === 'ghash' ? g.domain(x) : x);
      return {
        prologue: [
          comment('hashing: the state in the POLYVAL domain, the table of H^hn for the first block'),
          ...g.consts(),
          g.pinAt.set(gf),
          ...g.zero(),
          hs.set(domain(v128.load(IO.state))),
          p.set(i32.add(i32.add(gf, i32.mul(hn, GF128_TABLE_SIZE)), GF128_TABLE_OFFSET - GF128_TABLE_SIZE)),
        ],
        weave: weaveGhash(f, g, kind === 'ghash', core.round),
        afterRounds: [if_(hn, [...g.reduce(), v128.store(IO.state, domain(i64x2.replace_lane(i64x2.splat(g.r0), 1, g.r1)))])],
      };
    },
  };
}

/** aes_expand(rk, key, nk, tmp): the bitsliced round keys for nk = 4, 6, 8 key words. */
function expandExport(expand: Record<4 | 6 | 8, Func>): Func {
  const f = new Func('aes_expand', { rk: 'i32', key: 'i32', nk: 'i32', tmp: 'i32' }, { export: true, public: 'all' });
  const { rk, key, nk, tmp } = f.p;
  for (const k of [4, 6, 8] as const) f.emit(if_(i32.eq(nk, k), [call(expand[k], rk, key, tmp)]));
  return f;
}

/** aes_ecb(rk, nr, src, dst, n): n blocks, eight per pass, through the IO keystream buffer. */
function ecbExport(aes8: Func): Func {
  const f = new Func('aes_ecb', { rk: 'i32', nr: 'i32', src: 'i32', dst: 'i32', n: 'i32' }, { export: true, public: 'all' });
  const { rk, nr, src, dst, n } = f.p;
  const [j, bytes, ks] = f.locals('i32', ['j', 'bytes', 'ks']);
  const scalar = target() !== 'simd';
  const copy = (from: typeof src, to: typeof src) => {
    const c = label('c');
    return [j.set(0), loop(c, scalar ? copy16(i32.add(to, j), i32.add(from, j)) : v128.store(i32.add(to, j), v128.load(i32.add(from, j))), br_if(c, i32.lt_u(j.tee(i32.add(j, 16)), bytes)))];
  };
  const [done, group] = [label('done'), label('group')];
  f.emit(
    ks.set(IO.ks),
    block(
      done,
      loop(
        group,
        br_if(done, i32.eqz(n)),
        bytes.set(i32.shl(select(n, 8, i32.lt_u(n, 8)), 4)),
        copy(src, ks),
        call(aes8, rk, nr, ks),
        copy(ks, dst),
        src.set(i32.add(src, bytes)),
        dst.set(i32.add(dst, bytes)),
        n.set(i32.sub(n, i32.shr_u(bytes, 4))),
        br(group),
      ),
    ),
    memory.fill(IO.ks, 0, 128),
  );
  return f;
}

/**
 * siv_init(slot, nr): RFC 8452 key derivation for the nonce at IO.nonce. Encrypts
 * LE32(i) ‖ nonce for i = 0 … 3 (nr = 10) or 0 … 5 (nr = 14) under the key-generating key;
 * the first halves give the POLYVAL key (initialised at slot + sivGf) and the encryption key
 * (expanded at slot + sivRk). Wipes what it used of the IO area.
 */
function sivInitExport(aes8: Func, gfInit: Func, expand4: Func, expand8: Func): Func {
  const f = new Func('siv_init', { slot: 'i32', nr: 'i32' }, { export: true, public: 'all' });
  const { slot, nr } = f.p;
  const nb = f.v128('nb');
  const take = (i: number) => i64.load(IO.ks, 16 * i);
  f.emit(
    nb.set(v128.load(IO.nonce)),
    comment('block i = LE32(i) ‖ nonce'),
    Array.from({ length: 6 }, (_, i) => v128.store(IO.ks, i8x16.shuffle(v128.i32x4([i, 0, 0, 0]), nb, '0 1 2 3 16 17 18 19 20 21 22 23 24 25 26 27'), 16 * i)),
    call(aes8, i32.add(slot, AES_SLOT.rk), nr, IO.ks),
    comment('the POLYVAL key: first halves of blocks 0, 1'),
    i64.store(slot, take(0), AES_SLOT.sivGf),
    i64.store(slot, take(1), AES_SLOT.sivGf + 8),
    call(gfInit, i32.add(slot, AES_SLOT.sivGf), 0),
    comment('the encryption key: first halves of blocks 2, 3 (and 4, 5)'),
    [2, 3, 4, 5].map((i) => i64.store(IO.keys, take(i), 8 * (i - 2))),
    if_(i32.eq(nr, 10), [call(expand4, i32.add(slot, AES_SLOT.sivRk), IO.keys, IO.tmp)], [call(expand8, i32.add(slot, AES_SLOT.sivRk), IO.keys, IO.tmp)]),
    memory.fill(IO.keys, 0, 32),
    memory.fill(IO.ks, 0, 128),
    nb.set(v128.zero()),
  );
  return f;
}

/**
 * siv_tag(slot, nr, aadLen, len): POLYVAL the length block into the state, XOR the nonce,
 * clear the top bit, encrypt with the per-nonce key: the tag at IO.tag and the counter block
 * (the tag with the top bit of its last byte set) at IO.ctr.
 */
function sivTagExport(aes8: Func, polyval: Func, flags: AesGcmFlags): Func {
  const f = new Func('siv_tag', { slot: 'i32', nr: 'i32', a: 'i64', b: 'i64' }, { export: true, public: 'all' });
  const { slot, nr, a, b } = f.p;
  const s = f.v128('s');
  f.emit(
    lengthBlock(a, b, false, false),
    call(polyval, i32.add(slot, AES_SLOT.sivGf), IO.state, IO.lengths, 1, 1),
    s.set(v128.load(IO.state)),
    flags.sivSkipNonceXor ? [] : [comment('S ⊕ (nonce ‖ 0^32)'), s.set(v128.xor(s, v128.and(v128.load(IO.nonce), v128.i32x4(['-1', '-1', '-1', '0']))))],
    comment('clear the most significant bit of the last byte'),
    v128.store(IO.ks, v128.and(s, v128.i32x4(['-1', '-1', '-1', '0x7fffffff']))),
    call(aes8, i32.add(slot, AES_SLOT.sivRk), nr, IO.ks),
    v128.store(IO.tag, v128.load(IO.ks)),
    v128.store(IO.ctr, v128.or(v128.load(IO.ks), v128.i32x4(['0', '0', '0', '0x80000000']))),
    memory.fill(IO.ks, 0, 128),
    s.set(v128.zero()),
  );
  return f;
}

/** 16 bytes from src to dst as two i64 (scalar targets). */
function copy16(dst: Val<'i32'>, src: Val<'i32'>): Stmt[] {
  return [i64.store(dst, i64.load(src)), i64.store(dst, i64.load(src, 8), 8)];
}

/** siv_init for the scalar targets (sivInitExport's steps on words). */
function sivInitScalar(aes8: Func, gfInit: Func, expand4: Func, expand8: Func): Func {
  const f = new Func('siv_init', { slot: 'i32', nr: 'i32' }, { export: true, public: 'all' });
  const { slot, nr } = f.p;
  const [n0] = f.locals('i32', ['n0']);
  const [n1] = f.locals('i64', ['n1']);
  const take = (i: number) => i64.load(IO.ks, 16 * i);
  f.emit(
    n0.set(i32.load(IO.nonce)),
    n1.set(i64.load(IO.nonce, 4)),
    comment('block i = LE32(i) ‖ nonce'),
    Array.from({ length: 6 }, (_, i) => [i32.store(IO.ks, i, 16 * i), i32.store(IO.ks, n0, 16 * i + 4), i64.store(IO.ks, n1, 16 * i + 8)]).flat(),
    call(aes8, i32.add(slot, AES_SLOT.rk), nr, IO.ks),
    comment('the POLYVAL key: first halves of blocks 0, 1'),
    i64.store(slot, take(0), AES_SLOT.sivGf),
    i64.store(slot, take(1), AES_SLOT.sivGf + 8),
    call(gfInit, i32.add(slot, AES_SLOT.sivGf), 0),
    comment('the encryption key: first halves of blocks 2, 3 (and 4, 5)'),
    [2, 3, 4, 5].map((i) => i64.store(IO.keys, take(i), 8 * (i - 2))),
    if_(i32.eq(nr, 10), [call(expand4, i32.add(slot, AES_SLOT.sivRk), IO.keys, IO.tmp)], [call(expand8, i32.add(slot, AES_SLOT.sivRk), IO.keys, IO.tmp)]),
    memory.fill(IO.keys, 0, 32),
    memory.fill(IO.ks, 0, 128),
    n0.set(0),
    n1.set(0),
  );
  return f;
}

/** siv_tag for the scalar targets (sivTagExport's steps on words). */
function sivTagScalar(aes8: Func, polyval: Func, flags: AesGcmFlags): Func {
  const f = new Func('siv_tag', { slot: 'i32', nr: 'i32', a: 'i64', b: 'i64' }, { export: true, public: 'all' });
  const { slot, nr, a, b } = f.p;
  const [s0, s1] = f.locals('i64', ['s0', 's1']);
  f.emit(
    lengthBlock(a, b, false, false),
    call(polyval, i32.add(slot, AES_SLOT.sivGf), IO.state, IO.lengths, 1, 1),
    s0.set(i64.load(IO.state)),
    s1.set(i64.load(IO.state, 8)),
    flags.sivSkipNonceXor ? [] : [comment('S ⊕ (nonce ‖ 0^32)'), s0.set(i64.xor(s0, i64.load(IO.nonce))), s1.set(i64.xor(s1, i64.load32_u(IO.nonce, 8)))],
    comment('clear the most significant bit of the last byte'),
    i64.store(IO.ks, s0),
    i64.store(IO.ks, i64.and(s1, i64.const(0x7fffffffffffffffn, true)), 8),
    call(aes8, i32.add(slot, AES_SLOT.sivRk), nr, IO.ks),
    copy16(IO.tag, IO.ks),
    i64.store(IO.ctr, i64.load(IO.ks)),
    i64.store(IO.ctr, i64.or(i64.load(IO.ks, 8), i64.const(0x8000000000000000n, true)), 8),
    memory.fill(IO.ks, 0, 128),
    s0.set(0),
    s1.set(0),
  );
  return f;
}

/** The module for the scalar targets (wasm, js): the same exports, on aes_ct64.ts. */
function generateAesGcmScalar(flags: AesGcmFlags): GeneratedKernel {
  const gf = gf128Functions(flags, GF_PREFIX);
  const sub4 = sub4Func();
  const expand = { 4: expandScalarFunc(4, sub4, flags), 6: expandScalarFunc(6, sub4, flags), 8: expandScalarFunc(8, sub4, flags) };
  const aes8 = aes8ScalarFunc();
  const cipher: GcmCipher = { call: aes8, blocks: 8 };
  const gcm = gcmFunctions(cipher, gf, flags);
  const sivCtr = ctrLoop('siv_ctr_x', 'siv', undefined, cipher);
  const sivOpen = ctrLoop('siv_open_x', 'siv', { fn: gf.polyval, order: 'after' }, cipher);
  /** the SIMD module's stitched siv_open_s: here the same loop as siv_open_x */
  const sivOpenS = ctrLoop('siv_open_s', 'siv', { fn: gf.polyval, order: 'after' }, cipher);
  const m = new Module('aes')
    .memory(2)
    .add(
      sub4,
      expand[4],
      expand[6],
      expand[8],
      aes8,
      expandExport(expand),
      ecbExport(aes8),
      gcm.seal,
      gcm.open,
      sivCtr,
      sivOpen,
      sivOpenS,
      gcm.lengths,
      gcm.finish,
      gcm.oneshot,
      sivInitScalar(aes8, gf.init, expand[4], expand[8]),
      sivTagScalar(aes8, gf.polyval, flags),
      gf.functions,
    );
  if (flags.leakyTagCompare) m.add(tagEqVt());
  m.header.push(`AES (bitsliced on i64, four blocks in eight words), GCM and GCM-SIV mode loops, GF(2^128) (multiplication with holes on i64), constant time; target ${target()}.`);
  return kernel(m);
}

function tagEqVt(): Func {
  const f = new Func('gcm_tag_eq_vt', { a: 'i32', b: 'i32', n: 'i32' }, { export: true, public: ['a', 'b', 'n'], results: ['i32'] });
  const { a, b, n } = f.p;
  const i = f.i32('i');
  const done = label('done'),
    next = label('next');
  f.emit(block(done, loop(next, br_if(done, i32.ge_u(i, n)), if_(i32.ne(i32.load8_u(i32.add(a, i)), i32.load8_u(i32.add(b, i))), [ret(i32.const(0))]), i.set(i32.add(i, 1)), br(next))), ret(i32.const(1)));
  return f;
}

export function generateAesGcm(flags: AesGcmFlags = {}): GeneratedKernel {
  if (target() !== 'simd') return generateAesGcmScalar(flags);
  const gf = gf128Functions(flags, GF_PREFIX);
  const sub16 = sub16Func();
  const expand = { 4: expandFunc(4, sub16, flags), 6: expandFunc(6, sub16, flags), 8: expandFunc(8, sub16, flags) };
  const aes8 = aes8Func();
  const aes8Ghash = aes8Func(hashStitch('ghash', flags));
  const aes8Polyval = aes8Func(hashStitch('polyval', flags));
  const cipher: GcmCipher = { call: aes8, blocks: 8, stitched: aes8Ghash };
  const gcm = gcmFunctions(cipher, gf, flags);
  const sivCtr = ctrLoop('siv_ctr_x', 'siv', undefined, cipher);
  const sivOpen = ctrLoop('siv_open_x', 'siv', { fn: gf.polyval, order: 'after' }, cipher);
  /** siv_open_x with POLYVAL stitched into the rounds (needs the powers) */
  const sivOpenStitched = ctrLoop('siv_open_s', 'siv', { fn: gf.polyval, order: 'after' }, cipher, aes8Polyval);
  const m = new Module('aes')
    .memory(2)
    .add(
      sub16,
      expand[4],
      expand[6],
      expand[8],
      aes8,
      aes8Ghash,
      aes8Polyval,
      expandExport(expand),
      ecbExport(aes8),
      gcm.seal,
      gcm.open,
      sivCtr,
      sivOpen,
      sivOpenStitched,
      gcm.lengths,
      gcm.finish,
      gcm.oneshot,
      sivInitExport(aes8, gf.init, expand[4], expand[8]),
      sivTagExport(aes8, gf.polyval, flags),
      gf.functions,
    );
  if (flags.leakyTagCompare) m.add(tagEqVt());
  m.header.push('AES (bitsliced, SIMD128), GCM and GCM-SIV mode loops, GF(2^128) (multiplication with holes), constant time.');
  return kernel(m);
}

// The counter-mode loops of GCM (SP 800-38D) and GCM-SIV (RFC 8452) over any block cipher, each
// joined with its hash, and GCM's length block, tag and one-shot call: one generator for the
// AES (aes_gcm.ts) and SM4 (sm4_gcm.ts) modules, which differ only in the cipher call.
//
// Why constant time: keys, counters, data and states are only loaded, stored and computed on;
// branches, loop bounds and addresses depend on the public parameters (pointers, lengths,
// counts, mode flags). The 32-bit counter is added with i32.add (wrapping modulo 2^32, as GCM's
// inc32 and GCM-SIV's little-endian counter both require) and byte-swapped with a swizzle.
//
// Cost: the cipher's and the hash's; the loop adds per group of B blocks B counter stores, one
// call and B 16-byte XORs.
//
// Scalar targets (wasm, js): the same loops on i32/i64 words (counters byte-swapped with rotations
// and masks), never stitched; the cipher's and the hash's scalar functions.
//
// Memory: the IO area GCM_IO (gcm_layout.ts); the GF(2^128) slot at `gf`.

import { type Expr, Func, type Local, type Stmt, type Val, block, br, br_if, call, comment, i32, i32x4, i64, i64x2, i8x16, if_, label, loop, memory, select, target, v128 } from './builder/index.js';
import type { Gf128Functions } from './gf128_ctmul64.js';
import { GCM_IO as IO } from './gcm_layout.js';
import { BSWAP64 as LANE_REV } from './builder/lanes.js';

export type Mode = 'gcm' | 'gcm-carry' | 'siv';

/**
 * The block cipher of a counter-mode loop: `call` encrypts `blocks` blocks in place at IO.ks,
 * (rk, nr, ks) — or, with `counted`, (rk, nr, ks, count) only the first count ≤ blocks of them.
 * `stitched`, optional: the same call that also hashes hn ≤ blocks blocks at hsrc into IO.state
 * (the powers H … H^8 in the slot), (rk, nr, ks, gf, hsrc, hn) with `counted` (…, hn, count).
 */
export interface GcmCipher {
  call: Func;
  blocks: number;
  counted?: boolean;
  stitched?: Func;
}

export interface GcmFlags {
  /** GCM's 32-bit counter carries into the nonce (a 64-bit increment) */
  counterCarry?: boolean;
  /** GCM's length block has len(C) and len(A) swapped */
  swapLengths?: boolean;
}

// Byte 12..15 reversed (GCM's big-endian 32-bit counter in lane 3); bytes 8..15 reversed.
const BSWAP3 = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 14, 13, 12];
const BSWAP_HI64 = [0, 1, 2, 3, 4, 5, 6, 7, 15, 14, 13, 12, 11, 10, 9, 8];

/** The counter of a mode in f: in c (i32) or c64 (i64), the block in cb. */
function counter(f: Func, mode: Mode) {
  const [cb, kBs, kBs64] = f.locals('v128', ['cb', 'kBs', 'kBs64']);
  const c = f.i32('c');
  const c64 = f.i64('c64');
  /** the counter block for counter + j */
  const blockJ = (j: number): Expr<'v128'> => {
    if (mode === 'gcm') return i8x16.swizzle(i32x4.replace_lane(cb, 3, i32.add(c, j)), kBs);
    if (mode === 'gcm-carry') return i8x16.swizzle(i64x2.replace_lane(cb, 1, i64.add(c64, j)), kBs64);
    return i32x4.replace_lane(cb, 0, i32.add(c, j));
  };
  return {
    init: [kBs.set(v128.bytes(BSWAP3)), kBs64.set(v128.bytes(BSWAP_HI64))],
    load: [cb.set(v128.load(IO.ctr)), mode === 'gcm' ? c.set(i32x4.extract_lane(i8x16.swizzle(cb, kBs), 3)) : mode === 'gcm-carry' ? c64.set(i64x2.extract_lane(i8x16.swizzle(cb, kBs64), 1)) : c.set(i32x4.extract_lane(cb, 0))],
    block: blockJ,
    /** counter += by */
    advance: (by: Expr<'i32'>): Stmt => (mode === 'gcm-carry' ? c64.set(i64.add(c64, i64.extend_i32_u(by))) : c.set(i32.add(c, by))),
    store: v128.store(IO.ctr, blockJ(0)),
  };
}

/** x's bytes reversed (i32), x read twice. */
const bswap32 = (x: Local<'i32'>): Expr<'i32'> => i32.or(i32.and(i32.rotr(x, 8), i32.const(0xff00ff00, true)), i32.and(i32.rotl(x, 8), 0x00ff00ff));

/** t = x's bytes reversed (i64). */
function bswap64(t: Local<'i64'>, x: Val<'i64'>): Stmt[] {
  const swap = (v: Val<'i64'>, w: bigint, m: bigint) => i64.or(i64.and(i64.shr_u(v, w), i64.const(m, true)), i64.shl(i64.and(v, i64.const(m, true)), w));
  return [t.set(swap(x, 8n, 0x00ff00ff00ff00ffn)), t.set(swap(t, 16n, 0x0000ffff0000ffffn)), t.set(i64.rotl(t, 32n))];
}

/** The scalar counter of a mode in f (the wasm and js targets): the same blocks as counter()'s, in words. */
function counterScalar(f: Func, mode: Mode) {
  const c = f.i32('c');
  const c64 = f.i64('c64');
  const [w0, w1, bs] = f.locals('i64', ['cw0', 'cw1', 'bs']);
  const [cw, x] = f.locals('i32', ['cw', 'cx']);
  /** the counter block for counter + j at addr + off */
  const storeBlock = (addr: Val<'i32'>, off: number, j: number): Stmt[] => {
    if (mode === 'gcm') return [i64.store(addr, w0, off), i32.store(addr, cw, off + 8), x.set(i32.add(c, j)), i32.store(addr, bswap32(x), off + 12)];
    if (mode === 'gcm-carry') return [i64.store(addr, w0, off), ...bswap64(bs, i64.add(c64, j)), i64.store(addr, bs, off + 8)];
    return [i32.store(addr, i32.add(c, j), off), i32.store(addr, cw, off + 4), i64.store(addr, w1, off + 8)];
  };
  return {
    init: [] as Stmt[],
    load:
      mode === 'siv'
        ? [c.set(i32.load(IO.ctr)), cw.set(i32.load(IO.ctr, 4)), w1.set(i64.load(IO.ctr, 8))]
        : mode === 'gcm'
          ? [w0.set(i64.load(IO.ctr)), cw.set(i32.load(IO.ctr, 8)), x.set(i32.load(IO.ctr, 12)), c.set(bswap32(x))]
          : [w0.set(i64.load(IO.ctr)), ...bswap64(c64, i64.load(IO.ctr, 8))],
    blocks: (B: number): Stmt[] => Array.from({ length: B }, (_, k) => storeBlock(IO.ks, 16 * k, k)).flat(),
    advance: (by: Expr<'i32'>): Stmt => (mode === 'gcm-carry' ? c64.set(i64.add(c64, i64.extend_i32_u(by))) : c.set(i32.add(c, by))),
    store: storeBlock(IO.ctr, 0, 0),
  };
}

/** 16 bytes from src to dst as two i64 (the scalar targets' v128.store(dst, v128.load(src))). */
const copy16 = (dst: Val<'i32'>, src: Val<'i32'>): Stmt[] => [i64.store(dst, i64.load(src)), i64.store(dst, i64.load(src, 8), 8)];

const CRYPT_PARAMS = { rk: 'i32', gf: 'i32', nr: 'i32', buf: 'i32', len: 'i32', mask: 'i32', maxg: 'i32' } as const;

/** buf[j] ^= keystream block (j + skip) for j < g. */
function xorGroup(j: Local<'i32'>, g: Local<'i32'>, buf: Local<'i32'>, skip: Local<'i32'>): Stmt[] {
  const [xd, x] = [label('xd'), label('x')];
  const at = i32.add(buf, i32.shl(j, 4));
  const scalar = target() !== 'simd';
  const f = j.scope as Func;
  const xorBlock = (): Stmt[] => {
    const [p, k] = [f.i32('xp'), f.i32('xk')];
    return [p.set(at), k.set(i32.add(IO.ks, i32.shl(i32.add(j, skip), 4))), ...[0, 8].map((o) => i64.store(p, i64.xor(i64.load(p, o), i64.load(k, o)), o))];
  };
  return [j.set(0), block(xd, loop(x, br_if(xd, i32.ge_u(j, g)), scalar ? xorBlock() : v128.store(at, v128.xor(v128.load(i32.add(buf, i32.shl(j, 4))), v128.load(i32.add(IO.ks, i32.shl(i32.add(j, skip), 4))))), j.set(i32.add(j, 1)), br(x)))];
}

/**
 * A counter-mode loop over `len` bytes at buf, in place, optionally joined with a hash:
 *   'after'  — encrypt a group, then hash it (GCM seal, GCM-SIV open: the hashed text is what
 *              the group becomes; the partial last block is zero-padded first);
 *   'before' — hash a group, then encrypt it (GCM open);
 *   none     — CTR only (GCM-SIV seal).
 * With mask ≠ 0 the first counter's keystream block goes to IO.mask (GCM's E(K, J0)) and the
 * data starts at the next counter. maxg: blocks per hash reduction (1, or 8 with the powers).
 * With `stitched` (a cipher call that hashes as it encrypts), stitchedCtrLoop.
 */
export function ctrLoop(name: string, mode: Mode, hash: { fn: Func; order: 'before' | 'after' } | undefined, cipher: GcmCipher, stitched?: Func): Func {
  if (stitched) return stitchedCtrLoop(name, mode, hash!, stitched, cipher);
  const f = new Func(name, CRYPT_PARAMS, { export: true, public: 'all' });
  const { rk, gf, nr, buf, len, mask, maxg } = f.p;
  const [n, g, j, skip, pad, end] = f.locals('i32', ['n', 'g', 'j', 'skip', 'pad', 'end']);
  const scalar = target() !== 'simd';
  const sc = scalar ? counterScalar(f, mode) : undefined;
  const vc = scalar ? undefined : counter(f, mode);
  const ctr = (sc ?? vc)!;
  const blocks = (B: number): Stmt[] => (sc ? sc.blocks(B) : Array.from({ length: B }, (_, k) => v128.store(IO.ks, vc!.block(k), 16 * k)));
  const B = cipher.blocks;
  const count = cipher.counted ? [select(i32.add(n, skip), B, i32.lt_u(i32.add(n, skip), B))] : [];
  const callHash = hash ? [call(hash.fn, gf, IO.state, buf, g, maxg)] : [];
  const fillPad = memory.fill(end, 0, pad);
  const [done, group] = [label('done'), label('group')];
  f.emit(
    ctr.init,
    n.set(i32.shr_u(i32.add(len, 15), 4)),
    pad.set(i32.sub(i32.shl(n, 4), len)),
    end.set(i32.add(buf, len)),
    skip.set(i32.ne(mask, 0)),
    ctr.load,
    hash?.order === 'before' ? [comment('zero-pad the partial last block before hashing it'), fillPad] : [],
    block(
      done,
      loop(
        group,
        br_if(done, i32.eqz(i32.or(n, skip))),
        comment(`${B === 8 ? 'eight' : B} counter blocks, encrypted in place`),
        blocks(B),
        call(cipher.call, rk, nr, IO.ks, ...count),
        if_(skip, scalar ? copy16(IO.mask, IO.ks) : [v128.store(IO.mask, v128.load(IO.ks))]),
        comment(`g = min(n, ${B} - skip) data blocks in this group`),
        // (scalar: the tee apart, as print_js.ts evaluates a select's condition before a tee in its operands)
        scalar ? [g.set(i32.sub(B, skip)), g.set(select(n, g, i32.lt_u(n, g)))] : g.set(select(n, g.tee(i32.sub(B, skip)), i32.lt_u(n, g))),
        hash?.order === 'before' ? callHash : [],
        xorGroup(j, g, buf, skip),
        hash?.order === 'after' ? [comment('the last group: zero the padding of the partial last block, then hash'), if_(i32.eq(n, g), [fillPad]), ...callHash] : [],
        ctr.advance(i32.add(g, skip)),
        buf.set(i32.add(buf, i32.shl(g, 4))),
        n.set(i32.sub(n, g)),
        skip.set(0),
        br(group),
      ),
    ),
    ctr.store,
    memory.fill(IO.ks, 0, 16 * B),
  );
  return f;
}

/**
 * The counter-mode loop with the hash in the cipher call (`stitched` hashes up to B blocks
 * while it encrypts B):
 *   'before' (GCM open): each group's input blocks are hashed while its keystream is computed;
 *   'after' (GCM seal, GCM-SIV open): each group's output blocks are hashed while the next
 *           group's keystream is computed, and the last group's after the loop.
 * The scalar multiplications of the hash and the SIMD rounds then run side by side in the core.
 * Requires the powers H … H^8 (maxg is ignored).
 */
function stitchedCtrLoop(name: string, mode: Mode, hash: { fn: Func; order: 'before' | 'after' }, stitched: Func, cipher: GcmCipher): Func {
  const f = new Func(name, CRYPT_PARAMS, { export: true, public: 'all' });
  const { rk, gf, nr, buf, len, mask } = f.p;
  const [n, g, j, skip, pad, end, prev, prevN] = f.locals('i32', ['n', 'g', 'j', 'skip', 'pad', 'end', 'prev', 'prevN']);
  const ctr = counter(f, mode);
  const B = cipher.blocks;
  const after = hash.order === 'after';
  const fillPad = memory.fill(end, 0, pad);
  // counted ciphers: count = g + skip, the blocks this group needs
  const count = cipher.counted ? [i32.add(g, skip)] : [];
  const [done, group] = [label('done'), label('group')];
  f.emit(
    ctr.init,
    n.set(i32.shr_u(i32.add(len, 15), 4)),
    pad.set(i32.sub(i32.shl(n, 4), len)),
    end.set(i32.add(buf, len)),
    skip.set(i32.ne(mask, 0)),
    ctr.load,
    after ? [] : [comment('zero-pad the partial last block before hashing it'), fillPad],
    block(
      done,
      loop(
        group,
        br_if(done, i32.eqz(i32.or(n, skip))),
        comment(`${B === 8 ? 'eight' : B} counter blocks, encrypted in place while hashing`),
        Array.from({ length: B }, (_, k) => v128.store(IO.ks, ctr.block(k), 16 * k)),
        comment('g = min(n, 8 - skip) data blocks in this group'),
        g.set(select(n, g.tee(i32.sub(B, skip)), i32.lt_u(n, g))),
        call(stitched, rk, nr, IO.ks, gf, ...(after ? [prev, prevN] : [buf, g]), ...count),
        if_(skip, [v128.store(IO.mask, v128.load(IO.ks))]),
        xorGroup(j, g, buf, skip),
        after ? [comment('the last group: zero the padding of the partial last block; hash this group with the next'), if_(i32.eq(n, g), [fillPad]), prev.set(buf), prevN.set(g)] : [],
        ctr.advance(i32.add(g, skip)),
        buf.set(i32.add(buf, i32.shl(g, 4))),
        n.set(i32.sub(n, g)),
        skip.set(0),
        br(group),
      ),
    ),
    after ? [comment('the last group'), call(hash.fn, gf, IO.state, prev, prevN, 8)] : [],
    ctr.store,
    memory.fill(IO.ks, 0, 16 * B),
  );
  return f;
}

/** The length block of a and b byte counts as bit counts, big-endian (GCM) or little-endian (SIV), at IO.lengths. */
export function lengthBlock(a: Local<'i64'>, b: Local<'i64'>, bigEndian: boolean, swap: boolean): Stmt | Stmt[] {
  const [x, y] = swap ? [b, a] : [a, b];
  if (target() !== 'simd') {
    if (!bigEndian) return [i64.store(IO.lengths, i64.shl(x, 3n)), i64.store(IO.lengths, i64.shl(y, 3n), 8)];
    const t = (a.scope as Func).i64('lb');
    return [...bswap64(t, i64.shl(x, 3n)), i64.store(IO.lengths, t), ...bswap64(t, i64.shl(y, 3n)), i64.store(IO.lengths, t, 8)];
  }
  const v = i64x2.replace_lane(i64x2.splat(i64.shl(x, 3)), 1, i64.shl(y, 3));
  return v128.store(IO.lengths, bigEndian ? i8x16.swizzle(v, v128.bytes(LANE_REV)) : v);
}

export interface GcmFunctions {
  seal: Func;
  open: Func;
  lengths: Func;
  finish: Func;
  oneshot: Func;
  /** in module order */
  functions: Func[];
}

/**
 * The GCM functions of a module: gcm_seal_x, gcm_open_x (the mode loops), gcm_lengths,
 * gcm_finish and gcm_oneshot (src/aead/gcm-mode.ts drives them), over `cipher` and the GF(2^128)
 * functions gf of the same module.
 */
export function gcmFunctions(cipher: GcmCipher, gf: Gf128Functions, flags: GcmFlags = {}): GcmFunctions {
  const mode: Mode = flags.counterCarry ? 'gcm-carry' : 'gcm';
  const seal = ctrLoop('gcm_seal_x', mode, { fn: gf.ghash, order: 'after' }, cipher, cipher.stitched);
  const open = ctrLoop('gcm_open_x', mode, { fn: gf.ghash, order: 'before' }, cipher, cipher.stitched);

  const lengths = new Func('gcm_lengths', { gf: 'i32', a: 'i64', b: 'i64' }, { export: true, public: 'all' });
  lengths.emit(lengthBlock(lengths.p.a, lengths.p.b, true, !!flags.swapLengths), call(gf.ghash, lengths.p.gf, IO.state, IO.lengths, 1, 1));

  // gcm_finish(gf, aadLen, len): hash the length block, tag = S ⊕ E(K, J0) at IO.tag
  const finish = new Func('gcm_finish', { gf: 'i32', a: 'i64', b: 'i64' }, { export: true, public: 'all' });
  finish.emit(
    call(lengths, finish.p.gf, finish.p.a, finish.p.b),
    target() === 'simd' ? v128.store(IO.tag, v128.xor(v128.load(IO.state), v128.load(IO.mask))) : [0, 8].map((o) => i64.store(IO.tag, i64.xor(i64.load(IO.state, o), i64.load(IO.mask, o)), o)),
  );

  // gcm_oneshot(rk, gf, nr, buf, len, aad, aadLen, decrypt): a whole GCM message that fits the
  // scratch window in one call (J0 already at IO.ctr): the state zeroed, the AAD (zero-padded
  // by the caller) hashed, the text sealed or opened in place with E(K, J0) from the first
  // group, and the tag at IO.tag. Saves the calls and 64-bit arguments of the general path on
  // short records.
  const oneshot = new Func('gcm_oneshot', { rk: 'i32', gf: 'i32', nr: 'i32', buf: 'i32', len: 'i32', aad: 'i32', aadLen: 'i32', decrypt: 'i32' }, { export: true, public: 'all' });
  {
    const { rk, gf: g, nr, buf, len, aad, aadLen, decrypt } = oneshot.p;
    const args = [rk, g, nr, buf, len, 1, 8] as const;
    oneshot.emit(
      target() === 'simd' ? v128.store(IO.state, v128.zero()) : [i64.store(IO.state, 0), i64.store(IO.state, 0, 8)],
      call(gf.ghash, g, IO.state, aad, i32.shr_u(i32.add(aadLen, 15), 4), 8),
      if_(decrypt, [call(open, ...args)], [call(seal, ...args)]),
      call(finish, g, i64.extend_i32_u(aadLen), i64.extend_i32_u(len)),
    );
  }
  return { seal, open, lengths, finish, oneshot, functions: [seal, open, lengths, finish, oneshot] };
}

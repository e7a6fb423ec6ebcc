// ChaCha20 (RFC 8439) over SIMD128, four blocks per pass, and the 'chacha' module that holds it
// with Poly1305 (poly1305_radix26.ts), HChaCha20 (for XChaCha20) and the fused AEAD passes.
//
// Technique: one v128 per state word, its four lanes the same word of four consecutive blocks,
// so a quarter round on four columns is 12 lane-wise instructions and a double round needs no
// shuffle; rotations by 16 and 8 are byte swizzles with the pattern in a local, by 12 and 7
// shl/shr/or; a 4×4 transpose per row restores byte order. A rest of at most 64 bytes takes one
// scalar block ($chacha_block1). The AEAD passes run 256 bytes at a time, the rounds unrolled and
// the sixteen Poly1305 blocks of the pass stitched in statement by statement.
//
// Why constant time: key, nonce, counter, state and message flow only through add, xor, shifts,
// and swizzles and shuffles with constant indices, and through loads and stores at public
// addresses; the loops count public lengths.
//
// Cost: ~1.5 GB/s for chacha20_xor and ~1.4 GB/s fused (64 KiB calls, the development machine).
// Dead "pinning" stores at PIN (each quarter round's b, each Poly1305 block's d4) fix where
// TurboFan schedules the two halves. Measurements and dropped variants: docs/kernels/chacha.md.
//
// Invariants: the block counter is 32 bits (RFC 8439); the glue refuses a call that would pass
// 2^32 − 1, so the kernel never wraps. Memory: the state (64 bytes) at st, KS_PTR (256 bytes of
// keystream), POLY (the one-call functions' Poly1305 state) and PIN (64 bytes), in the IO area
// the glue wipes. Negative-control flags (tests only) produce deliberately broken variants.

import { type Expr, Func, type GeneratedKernel, type Local, Module, type Stmt, block, br, br_if, call, comment, i32, i32x4, i64, i8x16, if_, kernel, label, loop, memory, select, target, v128 } from './builder/index.js';
import { ROTL16_32 as ROT16, ROTL8_32 as ROT8, SHUF_HI32 as HI32, SHUF_HI64 as HI64, SHUF_LO32 as LO32, SHUF_LO64 as LO64 } from './builder/lanes.js';
import { type PolyFlags, POLY_STATE_SIZE, Poly, polyFunctions } from './poly1305_radix26.js';
import { polyFunctions13 } from './poly1305_radix13.js';

export interface ChachaFlags extends PolyFlags {
  /** each four-block pass advances the counter by five: a block is skipped */
  counterSkips?: boolean;
  /** the scalar one-block tail uses the next block's counter */
  tailCounterOff?: boolean;
}

/** The IO-area layout the one-call AEAD functions use (src/mac/poly1305.ts, IO). */
export const ST = 0;
export const KS_PTR = 64;
export const POLY = 512;
/** 64 bytes for the pinning stores (dead stores of round and Poly1305 intermediates; see the
 * opening comment), inside the IO area the glue wipes after each call. */
export const PIN = 960;
/** Messages from this many bytes on take the fused pass in the one-call AEAD functions (measured:
 * 16 KiB 1.0 -> 1.1 GB/s, 60 KB 1.04 -> 1.16 GB/s; at 1-2 KiB the separate passes, which reuse
 * the key pass for 192 bytes, are as fast). */
export const FUSED_MIN = 4096;
export const CHACHA_POLY_STATE_SIZE = POLY_STATE_SIZE;

const SIGMA = [0x61707865, 0x3320646e, 0x79622d32, 0x6b206574];

/** The four-block state of one function: v0…v15, t, u0…u3, ctr, the rotation patterns, i. */
class ChachaState {
  readonly v: Local<'v128'>[];
  readonly t: Local<'v128'>;
  readonly u: Local<'v128'>[];
  readonly ctr: Local<'v128'>;
  readonly rot16: Local<'v128'>;
  readonly rot8: Local<'v128'>;
  readonly i: Local<'i32'>;

  constructor(readonly f: Func) {
    this.v = Array.from({ length: 16 }, (_, w) => f.v128(`v${w}`));
    this.t = f.v128('t');
    this.u = [0, 1, 2, 3].map((j) => f.v128(`u${j}`));
    this.ctr = f.v128('ctr');
    this.rot16 = f.v128('rot16');
    this.rot8 = f.v128('rot8');
    this.i = f.i32('i');
  }

  get #st(): Local<'i32'> {
    return this.f.i32('st');
  }

  initConsts(): Stmt[] {
    return [this.rot16.set(v128.bytes(ROT16)), this.rot8.set(v128.bytes(ROT8))];
  }

  /** ctr = splat(st.counter) + (0, 1, 2, 3). */
  ctrInit(): Stmt {
    return this.ctr.set(i32x4.add(v128.load32_splat(this.#st, 48), v128.i32x4([0, 1, 2, 3])));
  }

  ctrNext(flags: ChachaFlags): Stmt {
    const step = flags.counterSkips ? 5 : 4;
    return this.ctr.set(i32x4.add(this.ctr, v128.i32x4([step, step, step, step])));
  }

  /** v_w = the state word w in every lane (the counter word: ctr). */
  loadState(): Stmt[] {
    return this.v.map((v, w) => (w === 12 ? v.set(this.ctr) : v.set(v128.load32_splat(this.#st, 4 * w))));
  }

  /**
   * Four quarter rounds at once (each step across the four), on the given word indices; then
   * each quarter round's b stored at PIN (dead stores that fix where TurboFan schedules them).
   */
  quarter4(qs: number[][]): Stmt[] {
    const out: Stmt[] = [];
    const v = this.v;
    const add = (x: number, y: number) => qs.forEach((q) => out.push(v[q[x]].set(i32x4.add(v[q[x]], v[q[y]]))));
    const xorSwz = (x: number, y: number, pat: Local<'v128'>) => qs.forEach((q) => out.push(v[q[x]].set(i8x16.swizzle(v128.xor(v[q[x]], v[q[y]]), pat))));
    const xorRot = (x: number, y: number, r: number) => qs.forEach((q) => out.push(v[q[x]].set(v128.or(i32x4.shl(this.t.tee(v128.xor(v[q[x]], v[q[y]])), r), i32x4.shr_u(this.t, 32 - r)))));
    // (a, b, c, d) = (0, 1, 2, 3)
    add(0, 1);
    xorSwz(3, 0, this.rot16);
    add(2, 3);
    xorRot(1, 2, 12);
    add(0, 1);
    xorSwz(3, 0, this.rot8);
    add(2, 3);
    xorRot(1, 2, 7);
    qs.forEach((q, i) => out.push(v128.store(PIN, v[q[1]], 16 * i)));
    return out;
  }

  /** Twenty rounds (a loop of ten double rounds), then the feed-forward. */
  rounds(): Stmt[] {
    const lp = label('dround');
    return [this.i.set(10), loop(lp, this.quarter4(COLS), this.quarter4(DIAGS), br_if(lp, this.i.tee(i32.sub(this.i, 1)))), ...this.feedForward()];
  }

  /** Twenty rounds unrolled, without the feed-forward (for stitching). */
  roundsUnrolled(): Stmt[] {
    const out: Stmt[] = [];
    for (let i = 0; i < 10; i++) out.push(...this.quarter4(COLS), ...this.quarter4(DIAGS));
    return out;
  }

  /** The feed-forward: v_w += the input word. */
  feedForward(): Stmt[] {
    return this.v.map((v, w) => (w === 12 ? v.set(i32x4.add(v, this.ctr)) : v.set(i32x4.add(v, v128.load32_splat(this.#st, 4 * w)))));
  }

  /**
   * Transpose the four blocks back to byte order and either XOR them with 256 bytes at src into
   * dst, or store them as keystream at dst.
   */
  output(xor: boolean): Stmt[] {
    const f = this.f;
    const [src, dst] = [f.i32('src'), f.i32('dst')];
    const [u0, u1, u2, u3] = this.u;
    const out: Stmt[] = [];
    for (let j = 0; j < 4; j++) {
      const [a, b, c, d] = [4 * j, 4 * j + 1, 4 * j + 2, 4 * j + 3].map((w) => this.v[w]);
      out.push(u0.set(i8x16.shuffle(a, b, LO32)), u1.set(i8x16.shuffle(c, d, LO32)), u2.set(i8x16.shuffle(a, b, HI32)), u3.set(i8x16.shuffle(c, d, HI32)));
      const blocks: [Local<'v128'>, Local<'v128'>, readonly number[], number][] = [
        [u0, u1, LO64, 0],
        [u0, u1, HI64, 1],
        [u2, u3, LO64, 2],
        [u2, u3, HI64, 3],
      ];
      for (const [x, y, pat, k] of blocks) {
        const off = 64 * k + 16 * j;
        const ks = i8x16.shuffle(x, y, pat);
        out.push(v128.store(dst, xor ? v128.xor(v128.load(src, off), ks) : ks, off));
      }
    }
    return out;
  }
}

const COLS = [
  [0, 4, 8, 12],
  [1, 5, 9, 13],
  [2, 6, 10, 14],
  [3, 7, 11, 15],
];
const DIAGS = [
  [0, 5, 10, 15],
  [1, 6, 11, 12],
  [2, 7, 8, 13],
  [3, 4, 9, 14],
];

/**
 * Interleave two independent straight-line sequences statement by statement, spreading b
 * evenly over a, so that the integer multiplier (Poly1305) and the vector units (ChaCha20) are
 * busy at the same time ("stitching").
 */
function stitch(a: readonly Stmt[], b: readonly Stmt[]): Stmt[] {
  const out: Stmt[] = [];
  let j = 0;
  for (let i = 0; i < a.length; i++) {
    out.push(a[i]);
    const want = Math.floor(((i + 1) * b.length) / a.length);
    while (j < want) out.push(b[j++]);
  }
  while (j < b.length) out.push(b[j++]);
  return out;
}

/** The scalar rounds of HChaCha20 and the one-block tail on x0 … x15 (i32 locals of f). */
function scalarRounds(f: Func): { x: Local<'i32'>[]; doubleRounds: Stmt[] } {
  const x = Array.from({ length: 16 }, (_, i) => f.i32(`x${i}`));
  const i = f.i32('i');
  const sqr = (a: number, b: number, c: number, d: number): Stmt[] => {
    const o: Stmt[] = [];
    const step = (p: number, q: number, r: number, rot: number) => o.push(x[p].set(i32.add(x[p], x[q])), x[r].set(i32.rotl(i32.xor(x[r], x[p]), rot)));
    step(a, b, d, 16);
    step(c, d, b, 12);
    step(a, b, d, 8);
    step(c, d, b, 7);
    return o;
  };
  // the 20 rounds as ten column+diagonal double rounds in a loop
  const lp = label('dround');
  return {
    x,
    doubleRounds: [
      i.set(10),
      loop(
        lp,
        COLS.flatMap((q) => sqr(q[0], q[1], q[2], q[3])),
        DIAGS.flatMap((q) => sqr(q[0], q[1], q[2], q[3])),
        br_if(lp, i.tee(i32.sub(i, 1))),
      ),
    ],
  };
}

export function generateChacha(flags: ChachaFlags = {}): GeneratedKernel {
  const simd = target() === 'simd';
  const pub = { export: true, public: 'all' } as const;
  const poly = target() === 'js' ? polyFunctions13(flags) : polyFunctions(flags);
  const chachaXor = new Func('chacha20_xor', { st: 'i32', src: 'i32', dst: 'i32', len: 'i32' }, pub);
  const hchacha = new Func('hchacha20', { key: 'i32', nonce: 'i32', out: 'i32' }, pub);
  const block1 = new Func('chacha_block1', { st: 'i32', ctr: 'i32', out: 'i32' });
  const xor1 = new Func('chacha_xor1', { st: 'i32', ctr: 'i32', src: 'i32', dst: 'i32' });
  const ks = new Func('chacha_ks', { st: 'i32', dst: 'i32' });
  const xorKs = new Func('xor_ks', { src: 'i32', dst: 'i32', ks: 'i32', len: 'i32' });
  const allParams = { key: 'i32', nonce: 'i32', x: 'i32', buf: 'i32', ablocks: 'i32', len: 'i32', maxg: 'i32', tag: 'i32' } as const;
  const sealAll = new Func('aead_seal_all', allParams, pub);
  const openAll = new Func('aead_open_all', allParams, pub);
  const init = new Func('aead_init', { key: 'i32', nonce: 'i32', st: 'i32', p: 'i32', x: 'i32' }, pub);
  const aeadParams = { st: 'i32', p: 'i32', src: 'i32', dst: 'i32', len: 'i32', maxg: 'i32' } as const;
  const seal = new Func('aead_seal', aeadParams, pub);
  const open = new Func('aead_open', aeadParams, pub);

  // chacha20_xor(st, src, dst, len): whole passes of 256 bytes, then a partial pass through
  // the keystream buffer; the state's counter advances by the number of blocks used. Outside
  // the simd target: whole 64-byte blocks on scalar i32 ($chacha_xor1), then the same tail.
  if (simd) {
    {
      const f = chachaXor,
        { st, src, dst, len } = f.p;
      const S = new ChachaState(f);
      const [len0, off] = f.locals('i32', ['len0', 'off']);
      const [done, whole] = [label('whole_done'), label('whole')];
      const first = i32x4.extract_lane(S.ctr, 0);
      f.emit(
        S.initConsts(),
        S.ctrInit(),
        len0.set(len),
        block(done, loop(whole, br_if(done, i32.lt_u(len, 256)), S.loadState(), S.rounds(), S.output(true), S.ctrNext(flags), src.set(i32.add(src, 256)), dst.set(i32.add(dst, 256)), len.set(i32.sub(len, 256)), br(whole))),
        if_(len, [
          comment('partial pass: keystream into KS (one scalar block up to 64 bytes, else a four-block'),
          comment('pass), then XOR 16 bytes at a time, then bytes'),
          off.set(dst),
          dst.set(KS_PTR),
          if_(i32.le_u(len, 64), [call(block1, st, flags.tailCounterOff ? i32.add(first, 1) : first, KS_PTR)], [...S.loadState(), ...S.rounds(), ...S.output(false)]),
          call(xorKs, src, off, KS_PTR, len),
        ]),
        comment('counter += blocks used'),
        i32.store(st, i32.add(i32.load(st, 48), i32.shr_u(i32.add(len0, 63), 6)), 48),
      );
    }
  } else {
    const f = chachaXor,
      { st, src, dst, len } = f.p;
    const [len0, off, ctr] = f.locals('i32', ['len0', 'off', 'ctr']);
    const [done, whole] = [label('whole_done'), label('whole')];
    f.emit(
      len0.set(len),
      ctr.set(i32.load(st, 48)),
      block(done, loop(whole, br_if(done, i32.lt_u(len, 64)), call(xor1, st, ctr, src, dst), ctr.set(i32.add(ctr, flags.counterSkips ? 2 : 1)), src.set(i32.add(src, 64)), dst.set(i32.add(dst, 64)), len.set(i32.sub(len, 64)), br(whole))),
      if_(len, [comment('partial block: keystream into KS, then XOR'), call(block1, st, flags.tailCounterOff ? i32.add(ctr, 1) : ctr, KS_PTR), off.set(dst), call(xorKs, src, off, KS_PTR, len)]),
      comment('counter += blocks used'),
      i32.store(st, i32.add(i32.load(st, 48), i32.shr_u(i32.add(len0, 63), 6)), 48),
    );
  }

  // $xor_ks(src, dst, ks, len): dst = src XOR ks over len bytes, 16 at a time (scalar: 4),
  // then bytes; nothing past len is written (the glue's zero padding after a message stays zero).
  {
    const f = xorKs,
      { src, dst, ks: k, len } = f.p;
    const off = f.i32('off');
    const [vd, v, bd, b] = [label('v_done'), label('v'), label('b_done'), label('b')];
    const w = simd ? 16 : 4;
    const at = (p: Local<'i32'>) => i32.add(p, off);
    f.emit(
      block(vd, loop(v, br_if(vd, i32.gt_u(i32.add(off, w), len)), simd ? v128.store(at(dst), v128.xor(v128.load(at(src)), v128.load(at(k)))) : i32.store(at(dst), i32.xor(i32.load(at(src)), i32.load(at(k)))), off.set(i32.add(off, w)), br(v))),
      block(bd, loop(b, br_if(bd, i32.ge_u(off, len)), i32.store8(i32.add(dst, off), i32.xor(i32.load8_u(i32.add(src, off)), i32.load8_u(i32.add(k, off)))), off.set(i32.add(off, 1)), br(b))),
    );
  }

  // aead_seal_all / aead_open_all(key, nonce, x, buf, ablocks, len, maxg, tag): one call for a
  // message laid out by the glue as aad ‖ zeros ‖ message ‖ zeros ‖ le64 lengths at buf (ablocks
  // whole blocks of padded AAD; the message padded to whole blocks). Poly1305 runs over that
  // whole region in one go; the message's len bytes are XORed in place, the padding untouched.
  // Blocks 1–3 of the pass that made the one-time key encrypt the first 192 bytes.
  const allFn = (f: typeof sealAll, isSeal: boolean) => {
    const { key, nonce, x, buf, ablocks, len, maxg, tag } = f.p;
    const [msg, big, rest, tail] = f.locals('i32', ['msg', 'big', 'rest', 'tail']);
    // the first 192 bytes with blocks 1–3 of the key pass, the rest from block 4
    const xor = [call(xorKs, msg, msg, KS_PTR + 64, select(len, 192, i32.lt_u(len, 192))), if_(i32.gt_u(len, 192), [i32.store(ST, 4, 48), call(chachaXor, ST, i32.add(msg, 192), i32.add(msg, 192), i32.sub(len, 192))])];
    const mac = [call(poly.blocks, POLY, buf, i32.add(i32.add(ablocks, i32.shr_u(i32.add(len, 15), 4)), 1), maxg, 1)];
    // From FUSED_MIN bytes on, the message's whole 256-byte passes go through the fused pass
    // (aead_seal / aead_open) and only the rest and the lengths block are MACed separately.
    const blocks = (n: Local<'i32'>) => i32.add(i32.shr_u(i32.add(n, 15), 4), 1);
    const fused = [
      big.set(i32.and(len, -256)),
      rest.set(i32.sub(len, big)),
      tail.set(i32.add(msg, big)),
      call(poly.blocks, POLY, buf, ablocks, maxg, 1),
      call(isSeal ? seal : open, ST, POLY, msg, msg, big, maxg),
      ...(isSeal ? [call(chachaXor, ST, tail, tail, rest), call(poly.blocks, POLY, tail, blocks(rest), maxg, 1)] : [call(poly.blocks, POLY, tail, blocks(rest), maxg, 1), call(chachaXor, ST, tail, tail, rest)]),
    ];
    f.emit(
      call(init, key, nonce, ST, POLY, x),
      if_(i32.ge_u(maxg, 4), [call(poly.powers, POLY)]),
      msg.set(i32.add(buf, i32.shl(ablocks, 4))),
      if_(i32.and(i32.ge_u(maxg, 4), i32.ge_u(len, FUSED_MIN)), fused, isSeal ? [...xor, ...mac] : [...mac, ...xor]),
      call(poly.finish, POLY, tag),
    );
  };
  allFn(sealAll, true);
  allFn(openAll, false);

  // hchacha20(key, nonce16, out): scalar rounds, words 0–3 and 12–15 out, no feed-forward.
  {
    const f = hchacha,
      { key, nonce, out } = f.p;
    const { x, doubleRounds } = scalarRounds(f);
    f.emit(
      SIGMA.map((c, i) => x[i].set(c)),
      Array.from({ length: 8 }, (_, i) => x[4 + i].set(i32.load(key, 4 * i))),
      Array.from({ length: 4 }, (_, i) => x[12 + i].set(i32.load(nonce, 4 * i))),
      doubleRounds,
      [0, 1, 2, 3, 12, 13, 14, 15].map((w, i) => i32.store(out, x[w], 4 * i)),
    );
  }

  // $chacha_xor1(st, ctr, src, dst): 64 bytes at src XOR one block of keystream (counter word
  // ctr) into dst, on scalar i32 (the scalar targets' chacha20_xor).
  {
    const f = xor1,
      { st, ctr, src, dst } = f.p;
    const { x, doubleRounds } = scalarRounds(f);
    const word = (w: number): Expr<'i32'> => (w === 12 ? ctr.get() : i32.load(st, 4 * w));
    f.emit(
      x.map((xw, w) => xw.set(word(w))),
      doubleRounds,
      x.map((xw, w) => i32.store(dst, i32.xor(i32.load(src, 4 * w), i32.add(xw, word(w))), 4 * w)),
    );
  }

  // $chacha_block1(st, ctr, out): one block of keystream (64 bytes) for the state at st with
  // the counter word ctr, on scalar i32 like HChaCha20: for a partial pass of at most 64 bytes
  // it costs ~70 ns against ~180 ns for the four-block SIMD pass.
  {
    const f = block1,
      { st, ctr, out } = f.p;
    const { x, doubleRounds } = scalarRounds(f);
    const word = (w: number): Expr<'i32'> => (w === 12 ? ctr.get() : i32.load(st, 4 * w));
    f.emit(
      x.map((xw, w) => xw.set(word(w))),
      doubleRounds,
      x.map((xw, w) => i32.store(out, i32.add(xw, word(w)), 4 * w)),
    );
  }

  // aead_init(key, nonce, st, p, x): the ChaCha20 state for (key, nonce) — for x = 1 the
  // XChaCha subkey from HChaCha20(key, nonce[0..16]) and nonce 0^4 ‖ nonce[16..24] — then the
  // one-time Poly1305 key from block 0, and the counter set to 1 (RFC 8439 §2.6, §2.8).
  {
    const { key, nonce, st, p, x } = init.p;
    init.emit(
      SIGMA.map((c, i) => i32.store(st, c, 4 * i)),
      i32.store(st, 0, 48),
      if_(
        x,
        [call(hchacha, key, nonce, i32.add(st, 16)), i32.store(st, 0, 52), i64.store(st, i64.load(nonce, 16), 56)],
        simd
          ? [v128.store(st, v128.load(key, 0), 16), v128.store(st, v128.load(key, 16), 32), i32.store(st, i32.load(nonce, 0), 52), i64.store(st, i64.load(nonce, 4), 56)]
          : [...[0, 8, 16, 24].map((o) => i64.store(st, i64.load(key, o), 16 + o)), i32.store(st, i32.load(nonce, 0), 52), i64.store(st, i64.load(nonce, 4), 56)],
      ),
      comment('block 0 (with blocks 1–3, unused) into KS; its first 32 bytes key Poly1305'),
      call(ks, st, KS_PTR),
      call(poly.init, p, KS_PTR),
      i32.store(st, 1, 48),
    );
  }

  // $chacha_ks(st, dst): four blocks of keystream at dst (a whole pass over 256 zero bytes).
  ks.emit(memory.fill(ks.p.dst, 0, 256), call(chachaXor, ks.p.st, ks.p.dst, ks.p.dst, 256));

  // aead_seal / aead_open(st, p, src, dst, len, maxg): len bytes of message; ChaCha20 from the
  // state's counter, Poly1305 over the ciphertext's whole 16-byte blocks (the glue pads the
  // last partial block). Whole 256-byte passes with the powers of r run fused: one ChaCha20
  // pass, then sixteen Poly1305 blocks in four steps over the same 256 bytes while they are in
  // L1 — after the XOR when sealing, before it when opening (so dst may equal src).
  const aeadFn = (f: typeof seal, isSeal: boolean) => {
    const { st, p, src, dst, len, maxg } = f.p;
    if (!simd) {
      // scalar targets: ChaCha20 then Poly1305 over the ciphertext (opening: the other order)
      f.emit(if_(len, isSeal ? [call(chachaXor, st, src, dst, len), call(poly.blocks, p, dst, i32.shr_u(len, 4), maxg, 1)] : [call(poly.blocks, p, src, i32.shr_u(len, 4), maxg, 1), call(chachaXor, st, src, dst, len)]));
      return;
    }
    const S = new ChachaState(f);
    const P = new Poly(f, [1, 2, 3, 4]);
    const [ng, mp] = f.locals('i32', ['ng', 'mp']);
    const hib = () => i64.const(0x1000000, true);
    // after each block's products, d4 stored at PIN: the next block's loads stay after it; and
    // after each four-block step's carry, h1
    const pin = (j: number): Stmt[] => [i64.store(PIN, P.d[4], 8 * j)];
    const carryPin = i64.store(PIN, P.h[1], 32);
    const mac = (addr: Local<'i32'>) => [0, 64, 128, 192].flatMap((o) => [...P.step4(addr, o, hib(), flags, pin), carryPin]);
    const advance = [src.set(i32.add(src, 256)), dst.set(i32.add(dst, 256)), ng.set(i32.add(ng, 1)), len.set(i32.sub(len, 256))];
    // one pass: four ChaCha20 blocks with the Poly1305 steps over 256 bytes at macAddr stitched in
    const pass = (macAddr: Local<'i32'>): Stmt[] => [...S.loadState(), ...stitch(S.roundsUnrolled(), mac(macAddr)), ...S.feedForward(), ...S.output(true), S.ctrNext(flags)];
    // Sealing MACs the ciphertext of the pass before the previous one while computing this one
    // (the first two passes run as plain ChaCha20 through a call, the last two are MACed after
    // the loop by a call: code around the loop changes V8's register allocation inside it, and
    // this keeps the loop the same shape as opening's). Opening MACs this pass's ciphertext
    // before the XOR overwrites it (dst may equal src).
    const passLoop = (macAddr: Local<'i32'>, setup: Stmt[]) => {
      const lp = label('pass');
      return loop(lp, setup, pass(macAddr), advance, br_if(lp, i32.ge_u(len, 256)));
    };
    const minLen = isSeal ? 768 : 256;
    const fused = isSeal
      ? [
          call(chachaXor, st, src, dst, 512),
          src.set(i32.add(src, 512)),
          dst.set(i32.add(dst, 512)),
          len.set(i32.sub(len, 512)),
          ...S.initConsts(),
          S.ctrInit(),
          ...P.loadH(),
          ...P.loadR([1, 2, 3, 4]),
          passLoop(mp, [mp.set(i32.sub(dst, 512))]),
          ...P.store(),
          call(poly.blocks, p, i32.sub(dst, 512), 32, 4, 1),
        ]
      : [...S.initConsts(), S.ctrInit(), ...P.loadH(), ...P.loadR([1, 2, 3, 4]), passLoop(src, []), ...P.store()];
    f.emit(
      if_(i32.and(i32.ge_u(maxg, 4), i32.ge_u(len, minLen)), [...fused, i32.store(st, i32.add(i32.load(st, 48), i32.shl(ng, 2)), 48)]),
      if_(len, isSeal ? [call(chachaXor, st, src, dst, len), call(poly.blocks, p, dst, i32.shr_u(len, 4), maxg, 1)] : [call(poly.blocks, p, src, i32.shr_u(len, 4), maxg, 1), call(chachaXor, st, src, dst, len)]),
    );
  };
  aeadFn(seal, true);
  aeadFn(open, false);

  const m = new Module('chacha').memory(2).add(chachaXor, hchacha, block1, ...(simd ? [] : [xor1]), ks, xorKs, sealAll, openAll, init, seal, open, poly.functions);
  m.header.push(
    simd
      ? 'ChaCha20 (SIMD128, four blocks per pass), HChaCha20, Poly1305 (radix 2^26, r^1..r^4), fused AEAD passes.'
      : `ChaCha20 (scalar, one block at a time), HChaCha20, Poly1305 (${target() === 'js' ? 'radix 2^13, one block per step' : 'radix 2^26, r^1..r^4'}); target ${target()}.`,
  );
  return kernel(m);
}

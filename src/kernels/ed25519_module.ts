// Ed25519 (RFC 8032 section 5.1) in a module of its own: the field (fe25519_radix25.ts), the
// group and the encodings (ed25519_group.ts), the fixed-base comb (ed25519_comb.ts; on SIMD128
// with its additions on pairs of field elements, ed25519_comb_pair.ts), the scalars
// mod L (ed25519_scalar.ts) and verification (ed25519_verify.ts); this file assembles them. The
// glue (src/ec/ed25519.ts) hashes with the sha2 module and calls, for a signature:
//   sc_reduce512(r, h)        r = SHA-512(prefix ‖ M) mod L
//   ed25519_base2(A, a, R, r) the public key A = encode(a·B), a the clamped secret scalar, and
//                             R = encode(r·B), with one inversion for both (ed25519_base(R, r)
//                             alone when A is held: signingKey)
//   sc_reduce512(k, h′)       k = SHA-512(R ‖ A ‖ M) mod L
//   sc_muladd(S, k, a, r)     S = (r + k·a) mod L
// and ed25519_verify for a verification (base_odd_table builds its table once), ed25519_check
// to validate a public key. x25519_base(u, k) is X25519's public key through the same comb:
// k clamped, k·B on edwards25519, then u = (Z + Y)/(Z − Y) (the birational map of RFC 7748
// section 4.1, B ↦ 9), one comb and one inversion instead of a 255-step ladder.
//
// Why constant time: everything but ed25519_verify is straight-line field and scalar code with
// masked choices and public loop counters (see each file); ed25519_verify is variable time on
// public inputs and declared so in src/ct/vartime.ts.
//
// Work space: every function takes ws, scratch it may use; the exported global WS_SIZE bounds
// the tree, and the glue wipes it after a call on secrets. The comb's table (TABLE_BYTES) lives
// in an engine slot, built by base_table on first use.
// Negative-control flags (tests only): Ed25519Flags.

import { Func, type GeneratedKernel, Module, call, callv, i32, kernel, memory, simdAllowed } from './builder/index.js';
import { Fe25519, clamp25519 } from './fe25519_radix25.js';
import { FePair25519 } from './fe25519_pair_simd128.js';
import { PAIR_TABLE_BYTES, pairCombFunctions } from './ed25519_comb_pair.js';
import { pairGroupFunctions } from './ed25519_group_pair.js';
import { ODD_TABLE_BYTES_PAIR, verifyPairFunction } from './ed25519_verify_pair.js';
import { type Fv, Fx, PT, X, Y, Z, encodeWith, fv, groupFunctions } from './ed25519_group.js';
import { TABLE_BYTES, combFunctions } from './ed25519_comb.js';
import { scalarFunctions } from './ed25519_scalar.js';
import { ODD_TABLE_BYTES, W_K, W_S, verifyFunction } from './ed25519_verify.js';

export interface Ed25519Flags {
  /** a carry lost in the field's products */
  dropCarry?: boolean;
  /** entry 6 of every comb row holds 5·256^k·B */
  wrongEntry?: boolean;
  /** verification accepts S ≥ L */
  skipSCheck?: boolean;
  /** the reduction of a 64-byte hash drops its high half */
  skipReduceHigh?: boolean;
  /** the comb's and verification's group operations on pairs (SIMD128, the default on the simd target) or on single elements (the default on the scalar targets) */
  group?: 'pair' | 'single';
}

export interface Ed25519Layout {
  wsSize: number;
  tableBytes: number;
  oddTableBytes: number;
  /** the NAF widths of S and k that ed25519_verify's digits must have */
  nafS: number;
  nafK: number;
}

export function generateEd25519(flags: Ed25519Flags = {}): GeneratedKernel & { layout: Ed25519Layout } {
  const fe = new Fe25519('fe', { dropCarry: flags.dropCarry });
  const g = groupFunctions(fe);
  const comb = combFunctions(fe, g, flags);
  const sc = scalarFunctions(flags);
  // the comb and verification on pairs of field elements where SIMD128 is allowed
  const pair = (flags.group ?? (simdAllowed() ? 'pair' : 'single')) === 'pair';
  const fp = new FePair25519('fp', { dropCarry: flags.dropCarry });
  const gp = pair ? pairGroupFunctions(fp) : undefined;
  const pc = gp ? pairCombFunctions(fe, fp, gp, comb) : undefined;
  const { verify, oddTable, ws: verifyWs, oddWs } = gp ? verifyPairFunction(fe, fp, g, gp, comb, sc, flags) : verifyFunction(fe, g, comb, sc, flags);
  const oddTableBytes = gp ? ODD_TABLE_BYTES_PAIR : ODD_TABLE_BYTES;
  const mulBase = pc ? pc.mulBase : comb.mulBase;
  const baseTable = pc ? pc.baseTable : comb.baseTable;
  const tableBytes = pc ? PAIR_TABLE_BYTES : TABLE_BYTES;
  const mulBaseWs = (pc ? pc.ws : comb.ws).get(mulBase)!;

  // ed25519_base(out, s, tab, ws): out = encode(s·B) for the 32-byte little-endian s < 2^255
  const base = new Func('ed25519_base', { out: 'i32', s: 'i32', tab: 'i32', ws: 'i32' });
  {
    const { out, s, tab, ws } = base.p;
    base.emit(call(mulBase, ws, s, tab, i32.add(ws, PT)), call(g.encode, out, ws, i32.add(ws, PT)));
    base.doc.push('out = the encoding of s·B (s: 32 little-endian bytes below 2^255), by the comb at tab.');
  }
  // ed25519_base2(outA, a, outR, r, tab, ws): outA = encode(a·B), outR = encode(r·B), the two
  // points' Z inverted together (Montgomery's trick: 1/Z1 = Z2/(Z1·Z2), 1/Z2 = Z1/(Z1·Z2)),
  // one inversion instead of two: sign(M, seed) needs both A and R. Work space: the two points,
  // then the comb's (or the formula's) temporaries. Z of an extended point is never zero.
  const base2 = new Func('ed25519_base2', { outA: 'i32', a: 'i32', outR: 'i32', r: 'i32', tab: 'i32', ws: 'i32' });
  let base2Ws: number;
  {
    const { outA, a, outR, r, tab, ws } = base2.p;
    const [P1, P2, REST] = [0, PT, 2 * PT];
    const x = new Fx(fe, ws, REST);
    const zz = x.mul(fv(ws, P1 + Z), fv(ws, P2 + Z));
    const zi = x.tmp();
    x.stmt(call(fe.inv, zi.at(), zz.at(), x.rest));
    const z1i = x.mul(zi, fv(ws, P2 + Z));
    const z2i = x.mul(zi, fv(ws, P1 + Z));
    encodeWith(x, fv(ws, P1 + X), fv(ws, P1 + Y), z1i, outA);
    encodeWith(x, fv(ws, P2 + X), fv(ws, P2 + Y), z2i, outR);
    base2.emit(call(mulBase, ws, a, tab, i32.add(ws, REST)), call(mulBase, i32.add(ws, P2), r, tab, i32.add(ws, REST)), ...x.code);
    base2.doc.push('outA = the encoding of a·B, outR = that of r·B (a, r: 32 little-endian bytes below 2^255), by the comb at tab and one shared inversion.');
    base2Ws = REST + Math.max(mulBaseWs, x.used + Math.max(fe.invWorkspace, fe.testWorkspace));
  }
  // x25519_base(out, k, tab, ws): out = X25519(k, 9) for the 32 bytes at k, through the comb.
  // Work space: the clamped copy of k (32 bytes, 64 reserved), the point, then the formula's
  // temporaries and the callees'. The clamped k is below 2^255 and a multiple of 8, never a
  // multiple of L (odd, above 2^252), so k·B is not the identity and Z − Y is not zero.
  const xbase = new Func('x25519_base', { out: 'i32', k: 'i32', tab: 'i32', ws: 'i32' });
  let xbaseWs: number;
  {
    const { out, k, tab, ws } = xbase.p;
    const P = 64; // the clamped k at ws, then the point
    const coord = (off: number): Fv => ({ at: () => i32.add(ws, P + off), k: 1 });
    const x = new Fx(fe, ws, P + PT);
    const d = x.carry(x.sub(coord(Z), coord(Y)));
    const di = x.tmp();
    x.stmt(call(fe.inv, di.at(), d.at(), x.rest));
    const u = x.mul(x.add(coord(Z), coord(Y)), di);
    x.stmt(call(fe.toBytes, out, u.at()));
    xbase.emit(memory.copy(ws, k, 32), ...clamp25519(ws), call(mulBase, i32.add(ws, P), ws, tab, i32.add(ws, P + PT)), ...x.code);
    xbase.doc.push('out = the u-coordinate of k·B (k: 32 bytes, clamped here as RFC 7748 section 5 says), by the comb at tab and u = (Z + Y)/(Z − Y).');
    xbaseWs = P + PT + Math.max(mulBaseWs, x.used + fe.invWorkspace);
  }
  // ed25519_check(pk, ws) → 1 iff pk is the canonical encoding of a point (RFC 8032 5.1.3)
  const check = new Func('ed25519_check', { pk: 'i32', ws: 'i32' }, { results: ['i32'] });
  check.emit(callv('i32', g.decode, check.p.ws, check.p.pk, i32.add(check.p.ws, PT), i32.const(1)));
  check.doc.push('→ 1 iff the 32 bytes at pk are the canonical encoding of a point of edwards25519 (strict decoding).');

  const need = [xbaseWs, base2Ws, comb.ws.get(comb.baseTable)!, ...(pc ? [pc.ws.get(pc.baseTable)!] : []), PT + Math.max(mulBaseWs, g.ws.get(g.encode)!), PT + g.ws.get(g.decode)!, verifyWs, oddWs, sc.ws];
  const wsSize = Math.ceil(Math.max(...need) / 16) * 16;
  if (wsSize > 65536) throw new Error(`ed25519: work space ${wsSize} exceeds scratch`);

  const layout: Ed25519Layout = { wsSize, tableBytes, oddTableBytes, nafS: W_S, nafK: W_K };
  const m = new Module('ed25519').memory(2);
  m.global('WS_SIZE', 'i32', wsSize);
  m.global('TABLE_BYTES', 'i32', tableBytes);
  m.global('ODD_TABLE_BYTES', 'i32', oddTableBytes);
  const groupFuncs: Func[] = [g.dbl, g.dblXyz, g.madd, g.add, g.toCached, g.identity, g.pow22523, g.encode, g.encodeVt, g.decode];
  const combFuncs: Func[] = pc && gp ? [comb.setBase, comb.baseTable, comb.recode, gp.add, gp.dbl, gp.entry, gp.negEntry, pc.baseTable, pc.lookup, pc.mulBase] : [comb.setBase, comb.baseTable, comb.recode, comb.lookup, comb.mulBase];
  m.add(fe.functions(), ...(pc ? [fp.functions()] : []), sc.functions, groupFuncs, combFuncs, verify, oddTable, base, base2, xbase, check);
  const all = (f: Func) => f.params.map((_, i) => i);
  for (const f of [base, base2, xbase, baseTable, oddTable, sc.reduce, sc.muladd, verify, check]) m.exportFunc(f === baseTable ? 'base_table' : f.name, f, all(f));
  m.header.push(
    `Ed25519 (RFC 8032): radix-2^25.5 field, extended coordinates, signed radix-16 comb, scalars mod L, verification${pc ? ', the comb and verification on pairs of field elements (fe25519_pair_simd128.ts)' : ''}.`,
    `layout ${JSON.stringify(layout)}`,
  );
  return { ...kernel(m), layout: layout as Ed25519Layout & Record<string, unknown> };
}

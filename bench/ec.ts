// Elliptic-curve benchmarks: ECDH (`ecdh_<curve>`: a fixed private key with a fixed peer public
// key, validation of the peer key included, output the x-coordinate) and public-key derivation
// (`ec_<curve>_public_key`: the uncompressed SEC 1 public key of a fixed private key), every curve,
// beside node:crypto (OpenSSL), @noble/curves, elliptic (P-224, which noble lacks) and
// tiny-secp256k1 (libsecp256k1 compiled to WebAssembly: pointMultiply / pointFromScalar, which
// do the same work: validate the point, multiply, encode). Kernel rows `ec_<curve>_fp_mul`, …
// time single field and group operations (ctkit only). X25519 and Ed25519 rows: ec25519-cases.ts.

import crypto from 'node:crypto';
import elliptic from 'elliptic';
import { p256 as nobleP256, p384 as nobleP384, p521 as nobleP521 } from '@noble/curves/nist.js';
import { secp256k1 as nobleK256 } from '@noble/curves/secp256k1.js';
import { brainpoolP256r1 as nobleBp256, brainpoolP384r1 as nobleBp384, brainpoolP512r1 as nobleBp512 } from '@noble/curves/misc.js';
import * as tiny from 'tiny-secp256k1';
import * as ec from '../src/ec/index.js';
import type { Curve, EcKernel } from '../src/ec/index.js';
import { curveKernel } from '../src/ec/curve.js';
import '../src/ec/js/all.js'; // the curves' opt-in JavaScript: the `ctkit (js)` column
import { SCRATCH_PTR } from '../src/engine/kernel.js';
import type { Case, Family, Setup } from './harness.js';
import { ecdsaCases, fixedKey } from './ecdsa-cases.js';
import { ec25519Cases } from './ec25519-cases.js';

interface NobleLike {
  getPublicKey(sk: Uint8Array, compressed?: boolean): Uint8Array;
  getSharedSecret(sk: Uint8Array, pk: Uint8Array, compressed?: boolean): Uint8Array;
}

const CURVES: [Curve, NobleLike | undefined, string | undefined][] = [
  [ec.p256, nobleP256, undefined],
  [ec.p224, undefined, 'p224'],
  [ec.brainpoolP256r1, nobleBp256, undefined],
  [ec.p384, nobleP384, undefined],
  [ec.p521, nobleP521, undefined],
  [ec.secp256k1, nobleK256, undefined],
  [ec.brainpoolP384r1, nobleBp384, undefined],
  [ec.brainpoolP512r1, nobleBp512, undefined],
];

function cases(c: Curve, noble: NobleLike | undefined, ellipticName: string | undefined): Case[] {
  const rowName = c.name.toLowerCase();
  const sk = fixedKey(c, 'alice');
  const peerSk = fixedKey(c, 'bob');
  const peer = c.getPublicKey(peerSk);
  const ecdh: Record<string, Setup> = {
    ctkit: () => () => c.ecdh(sk, peer),
    'node:crypto': () => {
      const e = crypto.createECDH(c.params.openssl);
      e.setPrivateKey(sk);
      const pk = Buffer.from(peer);
      return () => e.computeSecret(pk);
    },
  };
  const pub: Record<string, Setup> = {
    ctkit: () => () => c.getPublicKey(sk),
    'node:crypto': () => {
      const key = Buffer.from(sk);
      return () => {
        const e = crypto.createECDH(c.params.openssl);
        e.setPrivateKey(key);
        return e.getPublicKey();
      };
    },
  };
  if (noble) {
    ecdh.noble = () => () => noble.getSharedSecret(sk, peer);
    pub.noble = () => () => noble.getPublicKey(sk, false);
  }
  if (ellipticName) {
    const curve = new elliptic.ec(ellipticName);
    const key = curve.keyFromPrivate(Buffer.from(sk));
    ecdh.elliptic = () => () => key.derive(curve.keyFromPublic(Buffer.from(peer)).getPublic());
    pub.elliptic = () => () => curve.keyFromPrivate(Buffer.from(sk)).getPublic().encode('array', false);
  }
  if (c.name === 'secp256k1') {
    ecdh['tiny-secp256k1'] = () => () => tiny.pointMultiply(peer, sk, false);
    pub['tiny-secp256k1'] = () => () => tiny.pointFromScalar(sk, false);
  }
  return [
    { name: `ecdh_${rowName}`, impls: ecdh },
    { name: `ec_${rowName}_public_key`, impls: pub },
  ];
}

/**
 * Kernel rows (ctkit only, for tuning the generator): one field product, squaring and addition
 * mod p, one point doubling and addition, called on operands in the kernel's memory.
 */
function kernelCases(c: Curve): Case[] {
  const rowName = c.name.toLowerCase();
  const setup =
    (op: (x: EcKernel['x'], ws: number, p: number, q: number) => unknown): Setup =>
    () => {
      const e = curveKernel(c);
      const x = e.x,
        FE = e.FE;
      const ws = SCRATCH_PTR,
        p = SCRATCH_PTR + 16 * FE,
        q = SCRATCH_PTR + 20 * FE;
      e.k.u8.set(c.getPublicKey(fixedKey(c, 'p')).subarray(1), 1024);
      x.point_from_bytes(p, 1024);
      e.k.u8.set(c.getPublicKey(fixedKey(c, 'q')).subarray(1), 1024);
      x.point_from_bytes(q, 1024);
      return () => op(x, ws, p, q);
    };
  return [
    { name: `ec_${rowName}_fp_mul`, impls: { ctkit: setup((x, ws, p, q) => x.fp_mul(ws, p, q)) } },
    { name: `ec_${rowName}_fp_sqr`, impls: { ctkit: setup((x, ws, p) => x.fp_sqr(ws, p)) } },
    { name: `ec_${rowName}_fp_add`, impls: { ctkit: setup((x, ws, p, q) => x.fp_add(ws, p, q)) } },
    { name: `ec_${rowName}_pt_double`, impls: { ctkit: setup((x, ws, p) => x.pt_dbl(p, p, ws)) } },
    { name: `ec_${rowName}_pt_add`, impls: { ctkit: setup((x, ws, p, q) => x.pt_add(p, p, q, ws)) } },
  ];
}

const family: Family = {
  title: 'Elliptic curves (ECDH, public-key derivation, ECDSA)',
  cases: [...CURVES.flatMap(([c, noble, ell]) => cases(c, noble, ell)), ...ecdsaCases(), ...ec25519Cases(), ...CURVES.flatMap(([c]) => kernelCases(c))],
};

export default family;

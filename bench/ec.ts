// Elliptic-curve benchmarks: ECDH (`ecdh_<curve>`: a fixed private key with a fixed peer public
// key, validation of the peer key included, output the x-coordinate) and public-key derivation
// (`ec_<curve>_public_key`: the uncompressed SEC 1 public key of a fixed private key), every curve,
// beside node:crypto (OpenSSL), @noble/curves, elliptic (P-224, which noble lacks) and
// tiny-secp256k1 (libsecp256k1 compiled to WebAssembly: pointMultiply / pointFromScalar, which
// do the same work: validate the point, multiply, encode).

import crypto from 'node:crypto';
import elliptic from 'elliptic';
import { p256 as nobleP256, p384 as nobleP384, p521 as nobleP521 } from '@noble/curves/nist.js';
import { secp256k1 as nobleK256 } from '@noble/curves/secp256k1.js';
import { brainpoolP256r1 as nobleBp256, brainpoolP384r1 as nobleBp384, brainpoolP512r1 as nobleBp512 } from '@noble/curves/misc.js';
import * as tiny from 'tiny-secp256k1';
import * as ec from '../src/ec/index.js';
import type { Curve } from '../src/ec/index.js';
import type { Case, Family, Setup } from './harness.js';

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

/** A deterministic valid private key: SHA-512 expansions of a label, the first one below n. */
function fixedKey(c: Curve, label: string): Uint8Array {
  for (let i = 0; ; i++) {
    const h = crypto.createHash('sha512').update(`${label}/${c.name}/${i}`).digest();
    const h2 = crypto.createHash('sha512').update(h).digest();
    const k = new Uint8Array(Buffer.concat([h, h2]).subarray(0, c.privateKeyBytes));
    if (c.name === 'p521') k[0] &= 1;
    if (c.isValidPrivateKey(k)) return k;
  }
}

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

const family: Family = {
  title: 'Elliptic curves (ECDH, public-key derivation)',
  cases: CURVES.flatMap(([c, noble, ell]) => cases(c, noble, ell)),
};

export default family;

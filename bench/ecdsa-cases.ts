// ECDSA rows for the elliptic-curve family (bench/ec.ts): `ecdsa_<curve>_sign` and
// `ecdsa_<curve>_verify`, a 32-byte message hashed with the curve's default hash inside the timed
// call, a fixed key, every curve, beside node:crypto (OpenSSL: random nonces, DER), @noble/curves
// (RFC 6979, r ‖ s), elliptic (RFC 6979; P-224, P-256, P-384, P-521, secp256k1: it has no
// Brainpool curves) and tiny-secp256k1 (libsecp256k1 in WebAssembly; it signs a digest, so the
// SHA-256 of the message is part of its timed call too, by node:crypto). ctkit signs
// deterministically (RFC 6979) in DER, the format node:crypto uses; verification of one fixed
// signature per implementation, the public key passed encoded (validation included).

import crypto from 'node:crypto';
import elliptic from 'elliptic';
import { p256 as nobleP256, p384 as nobleP384, p521 as nobleP521 } from '@noble/curves/nist.js';
import { secp256k1 as nobleK256 } from '@noble/curves/secp256k1.js';
import { brainpoolP256r1 as nobleBp256, brainpoolP384r1 as nobleBp384, brainpoolP512r1 as nobleBp512 } from '@noble/curves/misc.js';
import * as tiny from 'tiny-secp256k1';
import * as ec from '../src/ec/index.js';
import type { Curve, EcdsaCurve } from '../src/ec/index.js';
import type { Case, Setup } from './harness.js';

interface NobleEcdsa {
  sign(msg: Uint8Array, sk: Uint8Array, opts?: { lowS?: boolean }): Uint8Array;
  verify(sig: Uint8Array, msg: Uint8Array, pk: Uint8Array, opts?: { lowS?: boolean }): boolean;
}

const CURVES: [EcdsaCurve, NobleEcdsa | undefined, string | undefined][] = [
  [ec.p256, nobleP256, 'p256'],
  [ec.p224, undefined, 'p224'],
  [ec.brainpoolP256r1, nobleBp256, undefined],
  [ec.p384, nobleP384, 'p384'],
  [ec.p521, nobleP521, 'p521'],
  [ec.secp256k1, nobleK256, 'secp256k1'],
  [ec.brainpoolP384r1, nobleBp384, undefined],
  [ec.brainpoolP512r1, nobleBp512, undefined],
];

/** A deterministic valid private key: SHA-512 expansions of a label, the first one below n. */
export function fixedKey(c: Curve, label: string): Uint8Array {
  for (let i = 0; ; i++) {
    const h = crypto.createHash('sha512').update(`${label}/${c.name}/${i}`).digest();
    const h2 = crypto.createHash('sha512').update(h).digest();
    const k = new Uint8Array(Buffer.concat([h, h2]).subarray(0, c.privateKeyBytes));
    if (c.name === 'p521') k[0] &= 1;
    if (c.isValidPrivateKey(k)) return k;
  }
}

function cases(c: EcdsaCurve, noble: NobleEcdsa | undefined, ellipticName: string | undefined): Case[] {
  const row = c.name.toLowerCase();
  const sk = fixedKey(c, 'signer');
  const pk = c.getPublicKey(sk);
  const msg = crypto.createHash('sha256').update(`ecdsa/${c.name}`).digest();
  const m = new Uint8Array(msg);
  const hashName = c.ecdsaHash.algorithm.replace('-', '').toLowerCase();
  const sign: Record<string, Setup> = {
    ctkit: () => () => c.sign(m, sk),
    'node:crypto': () => {
      const key = crypto.createPrivateKey({ key: Buffer.from(c.exportPrivateKey(sk, 'pkcs8-der')), format: 'der', type: 'pkcs8' });
      return () => crypto.sign(hashName, msg, key);
    },
  };
  const verify: Record<string, Setup> = {
    ctkit: () => {
      const sig = c.sign(m, sk);
      return () => c.verify(sig, m, pk);
    },
    'node:crypto': () => {
      const priv = crypto.createPrivateKey({ key: Buffer.from(c.exportPrivateKey(sk, 'pkcs8-der')), format: 'der', type: 'pkcs8' });
      const sig = crypto.sign(hashName, msg, priv);
      const spki = Buffer.from(c.exportPublicKey(pk, 'spki-der'));
      return () => crypto.verify(hashName, msg, { key: spki, format: 'der', type: 'spki' }, sig);
    },
  };
  if (noble) {
    sign.noble = () => () => noble.sign(m, sk, { lowS: false });
    verify.noble = () => {
      const sig = noble.sign(m, sk, { lowS: false });
      return () => noble.verify(sig, m, pk, { lowS: false });
    };
  }
  if (ellipticName) {
    const curve = new elliptic.ec(ellipticName);
    sign.elliptic = () => {
      const key = curve.keyFromPrivate(Buffer.from(sk));
      return () => key.sign(crypto.createHash(hashName).update(msg).digest()).toDER();
    };
    verify.elliptic = () => {
      const sig = curve.keyFromPrivate(Buffer.from(sk)).sign(crypto.createHash(hashName).update(msg).digest()).toDER();
      const pub = Buffer.from(pk);
      return () => curve.keyFromPublic(pub).verify(crypto.createHash(hashName).update(msg).digest(), sig);
    };
  }
  if (c.name === 'secp256k1') {
    sign['tiny-secp256k1'] = () => () => tiny.sign(crypto.createHash('sha256').update(msg).digest(), sk);
    verify['tiny-secp256k1'] = () => {
      const sig = tiny.sign(crypto.createHash('sha256').update(msg).digest(), sk);
      return () => tiny.verify(crypto.createHash('sha256').update(msg).digest(), pk, sig);
    };
  }
  return [
    { name: `ecdsa_${row}_sign`, impls: sign },
    { name: `ecdsa_${row}_verify`, impls: verify },
  ];
}

/** Every curve's ECDSA rows. */
export function ecdsaCases(): Case[] {
  return CURVES.flatMap(([c, noble, ell]) => cases(c, noble, ell));
}

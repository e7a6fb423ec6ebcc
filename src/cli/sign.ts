// `ctkit sign` and `ctkit verify`: ECDSA over a file (or stdin), hashed as it streams in
// (constant memory) and signed as a prehashed digest, so a signature verifies with
// `openssl dgst -sha256 -verify key.pub -signature sig file` and the reverse.

import { promises as fsp } from 'node:fs';
import type { EcdsaCurve, SignatureFormat } from '../ec/index.js';
import { sha224, sha256, sha384, sha512, type Hash } from '../hash/index.js';
import { UsageError, Failure } from './errors.js';
import { Input } from './io.js';
import { loadPrivateKey, loadPublicKey, readFileOrUsage } from './keys.js';

const HASHES: Record<string, Hash> = { sha224, sha256, sha384, sha512 };

function pickHash(name: string | undefined, curve: EcdsaCurve): Hash {
  if (name === undefined) return curve.ecdsaHash;
  const h = HASHES[name.toLowerCase().replace('-', '')];
  if (!h) throw new UsageError(`unknown hash '${name}' (sha224, sha256, sha384 or sha512)`);
  return h;
}

function pickFormat(f: string | undefined): SignatureFormat {
  if (f === undefined || f === 'der') return 'der';
  if (f === 'p1363' || f === 'ieee-p1363') return 'p1363';
  throw new UsageError(`unknown signature format '${f}' (der or p1363)`);
}

async function digestOf(path: string | undefined, hash: Hash): Promise<Uint8Array> {
  const input = await Input.open(path);
  const h = hash.create();
  const buf = new Uint8Array(1 << 20);
  try {
    for (;;) {
      const n = await input.readFull(buf);
      if (n === 0) break;
      h.update(buf.subarray(0, n));
    }
  } finally {
    await input.close();
  }
  return h.digest();
}

export interface SignCliOptions {
  keyPath: string;
  input?: string;
  output?: string;
  format?: string;
  hash?: string;
}

export async function signFile(o: SignCliOptions): Promise<void> {
  const format = pickFormat(o.format);
  const { curve, key } = await loadPrivateKey(o.keyPath);
  const ec = curve as EcdsaCurve;
  try {
    const hash = pickHash(o.hash, ec);
    const digest = await digestOf(o.input, hash);
    const sig = ec.sign(digest, key, { hash, prehashed: true, format });
    if (o.output === undefined || o.output === '-') process.stdout.write(sig);
    else await fsp.writeFile(o.output, sig);
  } finally {
    key.fill(0);
  }
}

export interface VerifyCliOptions {
  pubPath: string;
  sigPath: string;
  input?: string;
  format?: string;
  hash?: string;
}

export async function verifyFile(o: VerifyCliOptions): Promise<void> {
  const format = pickFormat(o.format);
  const { curve, key } = await loadPublicKey(o.pubPath);
  const ec = curve as EcdsaCurve;
  const hash = pickHash(o.hash, ec);
  const sig = await readFileOrUsage(o.sigPath, 'signature');
  const digest = await digestOf(o.input, hash);
  let ok: boolean;
  try {
    ok = ec.verify(sig, digest, key, { hash, prehashed: true, format });
  } catch (e) {
    // a signature that is not DER (or not r‖s of the right length) is a verification failure
    // of this input, not a usage error
    throw new Failure(`signature does not verify: ${(e as Error).message}`);
  }
  if (!ok) throw new Failure('signature does not verify');
  process.stdout.write('Verified OK\n');
}

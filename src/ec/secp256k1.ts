// secp256k1: SEC 2 section 2.4.1.
// Its own kernel module (ec_secp256k1), so an application using only this curve carries no other.
import * as module from '../engine/wasm/ec_secp256k1.js';
import { makeCurve } from './curve.js';
import { type EcdsaCurve, withEcdsa } from './ecdsa.js';
import { sha256 } from '../hash/sha2.js';
import { CURVES } from '../curves/params.js';

export const secp256k1: EcdsaCurve = withEcdsa(makeCurve(CURVES.secp256k1, module), sha256);

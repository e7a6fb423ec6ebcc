// brainpoolP256r1: RFC 5639 section 3.4.
// Its own kernel module (ec_brainpoolp256r1), so an application using only this curve carries no other.
import * as module from '../engine/wasm/ec_brainpoolp256r1.js';
import { makeCurve } from './curve.js';
import { type EcdsaCurve, withEcdsa } from './ecdsa.js';
import { sha256 } from '../hash/sha2.js';
import { CURVES } from '../curves/params.js';

export const brainpoolP256r1: EcdsaCurve = withEcdsa(makeCurve(CURVES.brainpoolP256r1, module), sha256);

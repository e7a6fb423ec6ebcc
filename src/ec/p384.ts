// P-384 (secp384r1): NIST SP 800-186 section 3.2.1.4, SEC 2 section 2.5.1.
// Its own kernel module (ec_p384), so an application using only this curve carries no other.
import * as module from '../engine/wasm/ec_p384.js';
import { makeCurve } from './curve.js';
import { type EcdsaCurve, withEcdsa } from './ecdsa.js';
import { sha384 } from '../hash/sha2.js';
import { CURVES } from '../curves/params.js';

export const p384: EcdsaCurve = withEcdsa(makeCurve(CURVES.p384, module), sha384);

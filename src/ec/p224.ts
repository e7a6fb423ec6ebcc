// P-224 (secp224r1): NIST SP 800-186 section 3.2.1.2, SEC 2 section 2.3.2.
// Its own kernel module (ec_p224), so an application using only this curve carries no other.
import * as module from '../engine/wasm/ec_p224.js';
import { makeCurve } from './curve.js';
import { type EcdsaCurve, withEcdsa } from './ecdsa.js';
import { sha224 } from '../hash/sha2.js';
import { CURVES } from '../curves/params.js';

export const p224: EcdsaCurve = withEcdsa(makeCurve(CURVES.p224, module), sha224);

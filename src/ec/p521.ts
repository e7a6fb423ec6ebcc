// P-521 (secp521r1): NIST SP 800-186 section 3.2.1.5, SEC 2 section 2.6.1.
// Its own kernel module (ec_p521), so an application using only this curve carries no other.
import * as module from '../engine/wasm/ec_p521.js';
import { makeCurve } from './curve.js';
import { type EcdsaCurve, withEcdsa } from './ecdsa.js';
import { sha512 } from '../hash/sha2.js';
import { CURVES } from '../curves/params.js';

export const p521: EcdsaCurve = withEcdsa(makeCurve(CURVES.p521, module), sha512);

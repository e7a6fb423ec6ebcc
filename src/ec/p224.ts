// P-224 (secp224r1): NIST SP 800-186 section 3.2.1.2, SEC 2 section 2.3.2.
// Its own kernel module (ec_p224), so an application using only this curve carries no other.
import * as module from '../engine/wasm/ec_p224.js';
import { type Curve, makeCurve } from './curve.js';
import { CURVES } from './params.js';

export const p224: Curve = makeCurve(CURVES.p224, module);

// brainpoolP256r1: RFC 5639 section 3.4.
// Its own kernel module (ec_brainpoolp256r1), so an application using only this curve carries no other.
import * as module from '../engine/wasm/ec_brainpoolp256r1.js';
import { type Curve, makeCurve } from './curve.js';
import { CURVES } from './params.js';

export const brainpoolP256r1: Curve = makeCurve(CURVES.brainpoolP256r1, module);

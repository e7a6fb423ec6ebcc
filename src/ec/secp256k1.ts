// secp256k1: SEC 2 section 2.4.1.
// Its own kernel module (ec_secp256k1), so an application using only this curve carries no other.
import * as module from '../engine/wasm/ec_secp256k1.js';
import { type Curve, makeCurve } from './curve.js';
import { CURVES } from './params.js';

export const secp256k1: Curve = makeCurve(CURVES.secp256k1, module);

// brainpoolP384r1: RFC 5639 section 3.6.
// Its own kernel module (ec_brainpoolp384r1), so an application using only this curve carries no other.
import * as module from '../engine/wasm/ec_brainpoolp384r1.js';
import { type Curve, makeCurve } from './curve.js';
import { CURVES } from './params.js';

export const brainpoolP384r1: Curve = makeCurve(CURVES.brainpoolP384r1, module);

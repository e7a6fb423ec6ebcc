// brainpoolP512r1: RFC 5639 section 3.7.
// Its own kernel module (ec_brainpoolp512r1), so an application using only this curve carries no other.
import * as module from '../engine/wasm/ec_brainpoolp512r1.js';
import { type Curve, makeCurve } from './curve.js';
import { CURVES } from './params.js';

export const brainpoolP512r1: Curve = makeCurve(CURVES.brainpoolP512r1, module);

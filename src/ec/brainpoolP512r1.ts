// brainpoolP512r1: RFC 5639 section 3.7.
// Its own kernel module (ec_brainpoolp512r1), so an application using only this curve carries no other.
import * as module from '../engine/wasm/ec_brainpoolp512r1.js';
import { makeCurve } from './curve.js';
import { type EcdsaCurve, withEcdsa } from './ecdsa.js';
import { sha512 } from '../hash/sha2.js';
import { CURVES } from '../curves/params.js';

export const brainpoolP512r1: EcdsaCurve = withEcdsa(makeCurve(CURVES.brainpoolP512r1, module), sha512);

// brainpoolP384r1: RFC 5639 section 3.6.
// Its own kernel module (ec_brainpoolp384r1), so an application using only this curve carries no other.
import * as module from '../engine/wasm/ec_brainpoolp384r1.js';
import { makeCurve } from './curve.js';
import { type EcdsaCurve, withEcdsa } from './ecdsa.js';
import { sha384 } from '../hash/sha2.js';
import { CURVES } from '../curves/params.js';

export const brainpoolP384r1: EcdsaCurve = withEcdsa(makeCurve(CURVES.brainpoolP384r1, module), sha384);

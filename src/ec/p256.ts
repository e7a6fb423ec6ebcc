// P-256 (secp256r1, prime256v1): NIST SP 800-186 section 3.2.1.3, SEC 2 section 2.4.2.
// Its own kernel module (ec_p256), so an application using only this curve carries no other.
import * as module from '../engine/wasm/ec_p256.js';
import { makeCurve } from './curve.js';
import { type EcdsaCurve, withEcdsa } from './ecdsa.js';
import { sha256 } from '../hash/sha2.js';
import { CURVES } from '../curves/params.js';

export const p256: EcdsaCurve = withEcdsa(makeCurve(CURVES.p256, module), sha256);

// Opt-in: every curve's kernel printed as JavaScript (`import 'ctkit/ec/js/all'`), for an
// application that uses several curves without WebAssembly; the ctkit command loads it when it
// runs on js (src/cli/run.ts). P-521, brainpoolP384r1 and brainpoolP512r1 have no js backend
// (src/kernels/ec_rcb_window.ts: JS_TOO_LARGE). test/ec-js.test.ts checks this list against
// the curves that have one.
import './p256.js';
import './p224.js';
import './p384.js';
import './secp256k1.js';
import './brainpoolP256r1.js';

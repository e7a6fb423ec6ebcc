// Opt-in: every curve's kernel printed as JavaScript (`import 'ctkit/ec/js/all'`), for an
// application that uses several curves without WebAssembly; the ctkit command loads it when it
// runs on js (src/cli/run.ts). test/ec-js.test.ts checks this list against the curve modules.
import './p256.js';
import './p224.js';
import './p384.js';
import './secp256k1.js';
import './brainpoolP256r1.js';
import './p521.js';
import './brainpoolP384r1.js';
import './brainpoolP512r1.js';
import './x25519.js';
import './ed25519.js';

// The curves' JavaScript for the command on the js backend (CTKIT_BACKEND=js): a library user
// imports the curves they need (ctkit/ec/js/<curve>); the command loads all of them, and only
// when it runs on js (run.ts). P-521, brainpoolP384r1 and brainpoolP512r1 have none.
import '../ec/js/p256.js';
import '../ec/js/p224.js';
import '../ec/js/p384.js';
import '../ec/js/secp256k1.js';
import '../ec/js/brainpoolP256r1.js';

// Functions exempt from the constant-time check, each with the reason it may be variable-time.
// Keep this list short: an entry says the function handles only public data (signature
// verification, public-key decoding). `func` is the name the checker reports (export name, else
// the `name` section's name, else `func[N]`). The checker prints the whole list with every report.

// ECDSA verification in every curve module (src/kernels/ecdsa_straus_wnaf.ts): its inputs are the
// signature, the message digest and the public key, all public. Signing (ecdsa_sign) is not
// exempt and passes the checker.
const EC_MODULES = ['ec_p256', 'ec_p224', 'ec_brainpoolp256r1', 'ec_p384', 'ec_p521', 'ec_secp256k1', 'ec_brainpoolp384r1', 'ec_brainpoolp512r1'];
const ECDSA_VERIFY: [string, string][] = [
  ['ecdsa_verify', 'ECDSA verification (public signature, digest and key): branches on the wNAF digits of u1, u2 and on the point at infinity, reads the G and Q tables at digit-chosen addresses'],
  ['ecdsa_jadd_vt', 'Jacobian addition for ECDSA verification only (public points): branches on the exceptional cases (equal or opposite points)'],
  ['ecdsa_jmadd_vt', 'mixed Jacobian-affine addition for ECDSA verification only (public points): branches on the exceptional cases'],
  ['ecdsa_wnaf', 'wNAF recoding of the public verification scalars u1 = z/s, u2 = r/s: branches on their bits'],
  ['fn_inv_vt_raw', 'variable-time safegcd inversion mod n of the public s in ECDSA verification (w = s⁻¹): branches on the divsteps'],
  ['fp_inv_vt_raw', 'variable-time safegcd inversion mod p of the product of the public Q table\'s Z coordinates in ECDSA verification: branches on the divsteps'],
];

export const varTime: { module: string; func: string; reason: string }[] = EC_MODULES.flatMap((module) =>
  ECDSA_VERIFY.map(([func, reason]) => ({ module, func, reason })));

// Variable-time declarations of the shipped modules, each with the reason it may be variable
// time. An exemption is a property of an ENTRY POINT, not of a function name: the checker
// (check.ts) accepts a violation in a function only when every call path into that function
// starts at an export declared here as `export` (its callers, the glue, pass it public data
// only) or passes through a function declared as `helper` (it handles public data only,
// whoever calls it). A path from any other export, from the start function or from a table into
// a function with a violation is itself a violation naming the path. Keep this list short; the
// checker prints it with every report. The same declarations can be carried by a module in its
// `ctkit.ct` section ("vartime", "helpers": section.ts) or given to `ctkit ct-check --vartime`.

export interface VarTimeDecl {
  /** module name (as in src/engine/wasm/all.ts) */
  module: string;
  /** `export`: an exported function; `helper`: a function by export name, `name`-section name or func[N] */
  kind: 'export' | 'helper';
  func: string;
  reason: string;
}

// ECDSA verification in every curve module (src/kernels/ecdsa_straus_wnaf.ts). Everything it
// reaches that is variable time (its wNAF recoding ecdsa_wnaf, the exceptional-case additions
// ecdsa_jadd_vt and ecdsa_jmadd_vt, the variable-time safegcd inversions fn_inv_vt_raw and
// fp_inv_vt_raw) is exempt only because no other export reaches it, except ecdsa_jadd_vt through
// the G-table builder, a helper; ecdsa_sign, ecdh, pubkey and to_affine must not reach any of it
// (the tests patch them to, and the checker must say so).
// (each with its scalar wasm module and its JavaScript one's IR: <name>_wasm, <name>_js)
const EC_MODULES = ['ec_p256', 'ec_p224', 'ec_brainpoolp256r1', 'ec_p384', 'ec_p521', 'ec_secp256k1', 'ec_brainpoolp384r1', 'ec_brainpoolp512r1'].flatMap((m) => [m, `${m}_wasm`, `${m}_js`]);
const ECDSA_VERIFY =
  'ECDSA verification: its inputs are the signature, the message digest and the public key, all public. ' +
  'Branches on the wNAF digits of u1 = z/s and u2 = r/s and on the point at infinity, reads the G and Q tables at ' +
  'digit-chosen addresses, adds with branches on the exceptional cases (ecdsa_jadd_vt, ecdsa_jmadd_vt), and inverts ' +
  "s mod n and the Q table's Z product mod p by variable-time safegcd (fn_inv_vt_raw, fp_inv_vt_raw)";

const ECDSA_GTABLE =
  "builds the verification table of the odd multiples G, 3G, …, 127G of the curve's fixed generator: its only " + 'input is the constant G, so the exceptional-case branches of ecdsa_jadd_vt it takes depend on public constants alone';

// Ed25519 verification (src/kernels/ed25519_verify.ts; ed25519_verify_pair.ts on SIMD128): the violations are in ed25519_verify
// itself and in the variable-time inversion only it reaches (pt_encode_vt → fe_inv_vt); the
// group and field code it shares with signing must stay clean (each backend: ed25519_wasm, and
// the JavaScript module's IR, ed25519_js).
const ED25519_VERIFY =
  'Ed25519 verification: its inputs are the signature (R, S), the public key A and k = SHA-512(R ‖ A ‖ M) mod L, ' +
  'all public. Returns early when A (or, with ZIP-215, R) does not decode or S ≥ L, doubles without T before a doubling ' +
  '(single elements; on pairs every doubling is whole), skips the additions of zero NAF digits of S and k, copies the table ' +
  'entries B, 3B, …, 127B and −A, −3A, …, −15A from digit-chosen addresses (negating them by a branch on the digit), ' +
  'and encodes the result with the variable-time inversion';

export const varTime: VarTimeDecl[] = [
  ...EC_MODULES.flatMap((module): VarTimeDecl[] => [
    { module, kind: 'export', func: 'ecdsa_verify', reason: ECDSA_VERIFY },
    { module, kind: 'helper', func: 'ecdsa_gtable', reason: ECDSA_GTABLE },
  ]),
  ...['ed25519', 'ed25519_wasm', 'ed25519_js'].map((module): VarTimeDecl => ({ module, kind: 'export', func: 'ed25519_verify', reason: ED25519_VERIFY })),
];

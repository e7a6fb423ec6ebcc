// Domain parameters of the curves ctkit supports: short Weierstrass curves y² = x³ + ax + b over
// GF(p), a base point G of prime order n, cofactor 1.
//
// Sources: SEC 2 v2 (secp224r1, secp256r1, secp384r1, secp521r1, secp256k1), NIST SP 800-186
// (P-224, P-256, P-384, P-521), RFC 5639 (brainpoolP256r1, P384r1, P512r1). The values were
// cross-checked against OpenSSL's explicit-parameter encodings; test/ec-params.test.ts checks
// that p and n are prime, that G is on the curve, that n·G is the identity and that OpenSSL
// derives G from the private key 1.
//
// Pure data, apart from both sides that read it: the kernel generators (src/kernels/) and the
// curve API (src/ec/, which re-exports CURVES) import it, and it imports nothing.

export interface CurveParams {
  /** ctkit's name, as used for the per-curve objects */
  readonly name: string;
  /** OpenSSL's name (node:crypto createECDH) */
  readonly openssl: string;
  /** JWK "crv" (RFC 7518 / RFC 8812), or undefined when the JOSE registry has no name for it */
  readonly jwk: string | undefined;
  /** the named-curve OBJECT IDENTIFIER, dotted */
  readonly oid: string;
  readonly p: bigint;
  readonly a: bigint;
  readonly b: bigint;
  readonly gx: bigint;
  readonly gy: bigint;
  readonly n: bigint;
  readonly h: bigint;
}

const P256: CurveParams = {
  name: 'p256',
  openssl: 'prime256v1',
  jwk: 'P-256',
  oid: '1.2.840.10045.3.1.7',
  p: 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn,
  a: 0xffffffff00000001000000000000000000000000fffffffffffffffffffffffcn,
  b: 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn,
  gx: 0x6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296n,
  gy: 0x4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5n,
  n: 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n,
  h: 1n,
};

const P224: CurveParams = {
  name: 'p224',
  openssl: 'secp224r1',
  jwk: undefined,
  oid: '1.3.132.0.33',
  p: 0xffffffffffffffffffffffffffffffff000000000000000000000001n,
  a: 0xfffffffffffffffffffffffffffffffefffffffffffffffffffffffen,
  b: 0xb4050a850c04b3abf54132565044b0b7d7bfd8ba270b39432355ffb4n,
  gx: 0xb70e0cbd6bb4bf7f321390b94a03c1d356c21122343280d6115c1d21n,
  gy: 0xbd376388b5f723fb4c22dfe6cd4375a05a07476444d5819985007e34n,
  n: 0xffffffffffffffffffffffffffff16a2e0b8f03e13dd29455c5c2a3dn,
  h: 1n,
};

const BP256: CurveParams = {
  name: 'brainpoolP256r1',
  openssl: 'brainpoolP256r1',
  jwk: undefined,
  oid: '1.3.36.3.3.2.8.1.1.7',
  p: 0xa9fb57dba1eea9bc3e660a909d838d726e3bf623d52620282013481d1f6e5377n,
  a: 0x7d5a0975fc2c3057eef67530417affe7fb8055c126dc5c6ce94a4b44f330b5d9n,
  b: 0x26dc5c6ce94a4b44f330b5d9bbd77cbf958416295cf7e1ce6bccdc18ff8c07b6n,
  gx: 0x8bd2aeb9cb7e57cb2c4b482ffc81b7afb9de27e1e3bd23c23a4453bd9ace3262n,
  gy: 0x547ef835c3dac4fd97f8461a14611dc9c27745132ded8e545c1d54c72f046997n,
  n: 0xa9fb57dba1eea9bc3e660a909d838d718c397aa3b561a6f7901e0e82974856a7n,
  h: 1n,
};

const P384: CurveParams = {
  name: 'p384',
  openssl: 'secp384r1',
  jwk: 'P-384',
  oid: '1.3.132.0.34',
  p: 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffffn,
  a: 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000fffffffcn,
  b: 0xb3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3ec2aefn,
  gx: 0xaa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a385502f25dbf55296c3a545e3872760ab7n,
  gy: 0x3617de4a96262c6f5d9e98bf9292dc29f8f41dbd289a147ce9da3113b5f0b8c00a60b1ce1d7e819d7a431d7c90ea0e5fn,
  n: 0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973n,
  h: 1n,
};

const P521: CurveParams = {
  name: 'p521',
  openssl: 'secp521r1',
  jwk: 'P-521',
  oid: '1.3.132.0.35',
  p: (1n << 521n) - 1n,
  a: (1n << 521n) - 4n,
  b: 0x0051953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef109e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b503f00n,
  gx: 0x00c6858e06b70404e9cd9e3ecb662395b4429c648139053fb521f828af606b4d3dbaa14b5e77efe75928fe1dc127a2ffa8de3348b3c1856a429bf97e7e31c2e5bd66n,
  gy: 0x011839296a789a3bc0045c8a5fb42c7d1bd998f54449579b446817afbd17273e662c97ee72995ef42640c550b9013fad0761353c7086a272c24088be94769fd16650n,
  n: 0x01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409n,
  h: 1n,
};

const K256: CurveParams = {
  name: 'secp256k1',
  openssl: 'secp256k1',
  jwk: 'secp256k1',
  oid: '1.3.132.0.10',
  p: 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn,
  a: 0n,
  b: 7n,
  gx: 0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798n,
  gy: 0x483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8n,
  n: 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n,
  h: 1n,
};

const BP384: CurveParams = {
  name: 'brainpoolP384r1',
  openssl: 'brainpoolP384r1',
  jwk: undefined,
  oid: '1.3.36.3.3.2.8.1.1.11',
  p: 0x8cb91e82a3386d280f5d6f7e50e641df152f7109ed5456b412b1da197fb71123acd3a729901d1a71874700133107ec53n,
  a: 0x7bc382c63d8c150c3c72080ace05afa0c2bea28e4fb22787139165efba91f90f8aa5814a503ad4eb04a8c7dd22ce2826n,
  b: 0x04a8c7dd22ce28268b39b55416f0447c2fb77de107dcd2a62e880ea53eeb62d57cb4390295dbc9943ab78696fa504c11n,
  gx: 0x1d1c64f068cf45ffa2a63a81b7c13f6b8847a3e77ef14fe3db7fcafe0cbd10e8e826e03436d646aaef87b2e247d4af1en,
  gy: 0x8abe1d7520f9c2a45cb1eb8e95cfd55262b70b29feec5864e19c054ff99129280e4646217791811142820341263c5315n,
  n: 0x8cb91e82a3386d280f5d6f7e50e641df152f7109ed5456b31f166e6cac0425a7cf3ab6af6b7fc3103b883202e9046565n,
  h: 1n,
};

const BP512: CurveParams = {
  name: 'brainpoolP512r1',
  openssl: 'brainpoolP512r1',
  jwk: undefined,
  oid: '1.3.36.3.3.2.8.1.1.13',
  p: 0xaadd9db8dbe9c48b3fd4e6ae33c9fc07cb308db3b3c9d20ed6639cca703308717d4d9b009bc66842aecda12ae6a380e62881ff2f2d82c68528aa6056583a48f3n,
  a: 0x7830a3318b603b89e2327145ac234cc594cbdd8d3df91610a83441caea9863bc2ded5d5aa8253aa10a2ef1c98b9ac8b57f1117a72bf2c7b9e7c1ac4d77fc94can,
  b: 0x3df91610a83441caea9863bc2ded5d5aa8253aa10a2ef1c98b9ac8b57f1117a72bf2c7b9e7c1ac4d77fc94cadc083e67984050b75ebae5dd2809bd638016f723n,
  gx: 0x81aee4bdd82ed9645a21322e9c4c6a9385ed9f70b5d916c1b43b62eef4d0098eff3b1f78e2d0d48d50d1687b93b97d5f7c6d5047406a5e688b352209bcb9f822n,
  gy: 0x7dde385d566332ecc0eabfa9cf7822fdf209f70024a57b1aa000c55b881f8111b2dcde494a5f485e5bca4bd88a2763aed1ca2b2fa8f0540678cd1e0f3ad80892n,
  n: 0xaadd9db8dbe9c48b3fd4e6ae33c9fc07cb308db3b3c9d20ed6639cca70330870553e5c414ca92619418661197fac10471db1d381085ddaddb58796829ca90069n,
  h: 1n,
};

/** Every supported curve, by ctkit name. */
export const CURVES = {
  p256: P256,
  p224: P224,
  brainpoolP256r1: BP256,
  p384: P384,
  p521: P521,
  secp256k1: K256,
  brainpoolP384r1: BP384,
  brainpoolP512r1: BP512,
} as const;

export type CurveName = keyof typeof CURVES;

/** Bytes of a field element (and of each coordinate): ceil(bits(p) / 8). */
export function fieldBytes(c: CurveParams): number {
  return Math.ceil(c.p.toString(2).length / 8);
}

/** Bytes of a scalar (private key): ceil(bits(n) / 8). */
export function scalarBytes(c: CurveParams): number {
  return Math.ceil(c.n.toString(2).length / 8);
}

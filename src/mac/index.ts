// ctkit/mac: universal hashes and MACs.
export { ghash, type GHash } from './ghash.js';
export { polyval, type Polyval } from './polyval.js';
export { UniversalHash } from './universal-hash.js';
export { poly1305, Poly1305, type Poly1305Fn } from './poly1305.js';

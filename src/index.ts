// ctkit: constant-time cryptography on generated WebAssembly kernels.
export { ghash, polyval, UniversalHash } from './mac/index.js';
export { ready } from './engine/kernel.js';
export { AuthenticationError, CtkitError, StateError } from './errors.js';

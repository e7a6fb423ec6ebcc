// ctkit/aead: authenticated encryption.
export type { Aead } from './types.js';

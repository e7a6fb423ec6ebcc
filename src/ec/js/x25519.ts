// Opt-in: X25519's kernel printed as JavaScript, for engines without WebAssembly (React Native's
// Hermes, pages whose CSP refuses to compile it). `import 'ctkit/ec/js/x25519'` once, before the
// first call on the js backend; on the simd and wasm backends it changes nothing. It brings
// Ed25519's kernel too: X25519's public keys run on Ed25519's fixed-base comb (src/ec/x25519.ts).
import { provideJs } from '../../engine/kernel.js';
import { instantiate } from '../../engine/wasm/x25519_js.js';
import './ed25519.js';

provideJs('x25519', instantiate);

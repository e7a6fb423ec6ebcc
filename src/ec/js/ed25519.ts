// Opt-in: Ed25519's kernel printed as JavaScript, for engines without WebAssembly (React Native's
// Hermes, pages whose CSP refuses to compile it). `import 'ctkit/ec/js/ed25519'` once, before the
// first call on the js backend; on the simd and wasm backends it changes nothing.
import { provideJs } from '../../engine/kernel.js';
import { instantiate } from '../../engine/wasm/ed25519_js.js';

provideJs('ed25519', instantiate);

// Opt-in: P-384's kernel printed as JavaScript, for engines without WebAssembly (React Native's
// Hermes, pages whose CSP refuses to compile it). `import 'ctkit/ec/js/p384'` once, before the
// first call on the js backend; on the simd and wasm backends it changes nothing.
import { provideJs } from '../../engine/kernel.js';
import { instantiate } from '../../engine/wasm/ec_p384_js.js';

provideJs('ec_p384', instantiate);

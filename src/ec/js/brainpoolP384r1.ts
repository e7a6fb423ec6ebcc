// Opt-in: brainpoolP384r1's kernel printed as JavaScript, for engines without WebAssembly (React Native's
// Hermes, pages whose CSP refuses to compile it). `import 'ctkit/ec/js/brainpoolP384r1'` once, before the
// first call on the js backend; on the simd and wasm backends it changes nothing.
import { provideJs } from '../../engine/kernel.js';
import { instantiate } from '../../engine/wasm/ec_brainpoolp384r1_js.js';

provideJs('ec_brainpoolp384r1', instantiate);

// The layers of DESIGN.md, checked by `npm run lint:deps` (part of `npm test`):
//   src/<family>/ (aead, mac, hash, ec, stream) — the public API — and the engine import the
//   generated contracts (src/engine/wasm/*.contract.ts) and the bytes modules, never src/kernels/;
//   src/kernels/ (the generators) never import the API; src/ref/ and src/kernels/ never import
//   each other; library code (src/ but src/cli/) never imports a node: module; no cycles.
// src/kernels/gen.ts is the generators' build script (run by tsx, never shipped): it may use node:.
const API = '^src/(aead|mac|hash|ec|stream|engine|util|curves)/|^src/(index|errors)\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'An import cycle: cut it (DESIGN.md, issue 13).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'api-not-kernels',
      severity: 'error',
      comment: 'The family code and the engine import the generated contracts and bytes (src/engine/wasm/), never the generators.',
      from: { path: API },
      to: { path: '^src/kernels/' },
    },
    {
      name: 'kernels-not-api',
      severity: 'error',
      comment: 'A generator never imports the API (curve data lives in src/curves/, which both import).',
      from: { path: '^src/kernels/' },
      to: { path: '^src/(aead|mac|hash|ec|stream|engine|util|cli)/|^src/(index|errors)\\.ts$' },
    },
    {
      name: 'ref-not-kernels',
      severity: 'error',
      comment: 'A reference model never imports a kernel: ref/ is the specification the kernels are held against.',
      from: { path: '^src/ref/' },
      to: { path: '^src/kernels/' },
    },
    {
      name: 'kernels-not-ref',
      severity: 'error',
      comment: 'A kernel generator never imports a reference model.',
      from: { path: '^src/kernels/' },
      to: { path: '^src/ref/' },
    },
    {
      name: 'library-not-node',
      severity: 'error',
      comment: 'Library code uses web-standard APIs only (DESIGN.md); node: modules are for src/cli/, the tests and the build scripts.',
      from: { path: '^src/', pathNot: ['^src/cli/', '^src/kernels/gen\\.ts$'] },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to no file.',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};

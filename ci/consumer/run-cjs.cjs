// The smoke as a CommonJS consumer: require() of the ESM-only package (Node >= 20.19 loads ES
// modules without top-level await through require).
const root = require('ctkit');
const aead = require('ctkit/aead');
const mac = require('ctkit/mac');
const hash = require('ctkit/hash');
const ec = require('ctkit/ec');
const cases = require('./cases.cjs');
const { report, smoke } = require('./smoke.mjs');

smoke({ root, aead, mac, hash, ec }, cases).then(
  (result) => console.log(report(result)),
  (error) => {
    console.error(error);
    process.exitCode = 1;
  },
);

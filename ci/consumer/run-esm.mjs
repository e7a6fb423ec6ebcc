// The smoke as an ES module consumer (Node, Deno, Bun): bare imports of the package's entry points.
import * as root from 'ctkit';
import * as aead from 'ctkit/aead';
import * as mac from 'ctkit/mac';
import * as hash from 'ctkit/hash';
import * as ec from 'ctkit/ec';
import cases from './cases.mjs';
import { report, smoke } from './smoke.mjs';

console.log(report(await smoke({ root, aead, mac, hash, ec }, cases)));

// The smoke in a dedicated Worker (bundled by esbuild): posts its result to the page.
import * as root from 'ctkit';
import * as aead from 'ctkit/aead';
import * as mac from 'ctkit/mac';
import * as hash from 'ctkit/hash';
import * as ec from 'ctkit/ec';
import cases from './cases.mjs';
import { smoke } from './smoke.mjs';

smoke({ root, aead, mac, hash, ec }, cases).then(
  (result) => postMessage(result),
  (e) => postMessage({ error: String((e && e.stack) || e) }),
);

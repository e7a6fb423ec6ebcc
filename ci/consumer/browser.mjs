// The smoke on a browser main thread (bundled by esbuild): window.ctkitSmoke is its promise.
import * as root from 'ctkit';
import * as aead from 'ctkit/aead';
import * as mac from 'ctkit/mac';
import * as hash from 'ctkit/hash';
import * as ec from 'ctkit/ec';
import cases from './cases.mjs';
import { smoke } from './smoke.mjs';

window.ctkitSmoke = smoke({ root, aead, mac, hash, ec }, cases).catch((e) => ({ error: String((e && e.stack) || e) }));

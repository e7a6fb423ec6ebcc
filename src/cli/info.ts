// `ctkit info`: the version, the kernel backend in use (src/engine/backend.ts) and what the
// engine could run, one `key: value` per line.

import { backend } from '../engine/backend.js';
import { probeBackend } from '../engine/backend.js';

export function infoLines(version: string): string[] {
  const env = process.env.CTKIT_BACKEND;
  return [`ctkit: ${version}`, `backend: ${backend()}${env ? ' (CTKIT_BACKEND)' : ''}`, `probe: ${probeBackend()}`, `runtime: Node.js ${process.versions.node}`];
}

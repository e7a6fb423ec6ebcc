// `npm run size`: the size of what an application carries for each entry point, measured by
// bundling a one-line program with esbuild (tree shaking, minified, ESM, platform neutral) and
// listing which kernel modules ended up inside. Each kernel module file (src/engine/wasm/<name>.ts)
// embeds its binary as lines of base64; a module is inside a bundle when a line of its base64
// from the middle of the binary (code, not the header all modules share) is.
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Each shipped module's name and a fingerprint: one line of its base64 from the middle. */
function fingerprints(): [string, string][] {
  const dir = join(root, 'src/engine/wasm');
  const modules: [string, string[]][] = [];
  for (const f of readdirSync(dir).sort()) {
    if (!f.endsWith('.ts') || f.endsWith('.contract.ts')) continue;
    const text = readFileSync(join(dir, f), 'utf8');
    const name = /^export const name = '([a-z0-9_]+)';$/m.exec(text)?.[1];
    if (!name) continue;
    const lines = [...text.matchAll(/^ {2}'([A-Za-z0-9+/=]{40,})',?$/gm)].map((m) => m[1]);
    if (lines.length < 3) throw new Error(`${f}: too few base64 lines to fingerprint`);
    modules.push([name, lines]);
  }
  // a module's fingerprint is a line of its base64 that no other module's text contains:
  // modules share code (the safegcd inversion of the curve and 25519 fields), so a line chosen
  // by position alone can show up in a bundle that never carried the module
  return modules.map(([name, lines]) => {
    const others = modules.filter(([n]) => n !== name).map(([, l]) => l.join(''));
    const mid = Math.floor(lines.length / 2);
    const order = lines.map((_, i) => lines[(mid + i) % lines.length]);
    const own = order.find((l) => !others.some((o) => o.includes(l)));
    if (!own) throw new Error(`${name}: no base64 line of its own to fingerprint`);
    return [name, own];
  });
}

export const ENTRIES: Record<string, string> = {
  'ghash (ctkit/mac)': `import { ghash } from './src/mac/index.ts'; console.log(ghash);`,
  'poly1305 (ctkit/mac)': `import { poly1305 } from './src/mac/index.ts'; console.log(poly1305);`,
  'chacha20Poly1305 (ctkit/aead)': `import { chacha20Poly1305 } from './src/aead/index.ts'; console.log(chacha20Poly1305);`,
  'aesGcm (ctkit/aead)': `import { aesGcm } from './src/aead/index.ts'; console.log(aesGcm);`,
  'sm4Gcm (ctkit/aead)': `import { sm4Gcm } from './src/aead/index.ts'; console.log(sm4Gcm);`,
  'sha256 + hmac (ctkit/hash)': `import { sha256, hmac } from './src/hash/index.ts'; console.log(sha256, hmac);`,
  'p256 (ctkit/ec)': `import { p256 } from './src/ec/index.ts'; console.log(p256);`,
  'secp256k1 (ctkit/ec)': `import { secp256k1 } from './src/ec/index.ts'; console.log(secp256k1);`,
  'p256 with its js (ctkit/ec, ctkit/ec/js/p256)': `import { p256 } from './src/ec/index.ts'; import './src/ec/js/p256.ts'; console.log(p256);`,
  'everything (ctkit)': `import * as all from './src/index.ts'; console.log(all);`,
};

export interface BundleSize {
  entry: string;
  bytes: number;
  gzip: number;
  modules: string[];
  /** the minified bundle */
  text: string;
}

export async function measure(entry: string, code: string): Promise<BundleSize> {
  const r = await build({
    stdin: { contents: code, resolveDir: root, sourcefile: 'entry.ts', loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
    logLevel: 'silent',
  });
  const text = r.outputFiles[0].text;
  const modules = fingerprints()
    .filter(([, line]) => text.includes(line))
    .map(([name]) => name)
    .sort();
  return { entry, bytes: text.length, gzip: gzipSync(text).length, modules, text };
}

async function main(): Promise<void> {
  console.log('| entry point | minified | gzip | kernel modules inside |');
  console.log('| --- | ---: | ---: | --- |');
  for (const [entry, code] of Object.entries(ENTRIES)) {
    const s = await measure(entry, code);
    console.log(`| ${entry} | ${(s.bytes / 1024).toFixed(1)} KiB | ${(s.gzip / 1024).toFixed(1)} KiB | ${s.modules.join(', ')} |`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();

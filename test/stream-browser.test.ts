// The worker pool of ctkit/stream on Web Workers in headless Chromium (Debian's chromium, driven
// by puppeteer-core): the same src/stream/pool.ts and worker.ts as under Node, bundled by
// esbuild and served from 127.0.0.1. Output identical to one thread, opening in parallel,
// damage rejected, keys wiped in the workers on dispose; and sealStreamAsync keeps the main
// thread responsive (timers run while it seals 32 MiB). Fails, never skips, without Chromium.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const repo = fileURLToPath(new URL('../', import.meta.url));

const PAGE = `
import { chacha20Poly1305 } from '${repo}src/aead/index.ts';
import { createSealer, createOpenStream, createSealStream, createWorkerPool, sealStreamAsync, SegmentAuthenticationError } from '${repo}src/stream/index.ts';
const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
async function collect(rs) { const parts = []; const r = rs.getReader(); for (;;) { const { done, value } = await r.read(); if (done) break; parts.push(value); } const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0)); let o = 0; for (const p of parts) { out.set(p, o); o += p.length; } return out; }
const source = (data, piece) => new ReadableStream({ start(c) { for (let o = 0; o < data.length; o += piece) c.enqueue(data.slice(o, o + piece)); c.close(); } });
window.runPool = async () => {
  const key = crypto.getRandomValues(new Uint8Array(32));
  const prefix = crypto.getRandomValues(new Uint8Array(7));
  const plain = new Uint8Array((6 << 20) + 4321);
  for (let o = 0; o < plain.length; o += 65536) crypto.getRandomValues(plain.subarray(o, o + 65536));
  const aead = chacha20Poly1305(key);
  const one = createSealer(aead, { noncePrefix: prefix });
  const expected = await collect(new ReadableStream({ start(c) { for (const x of one.push(plain)) c.enqueue(x); for (const x of one.finish()) c.enqueue(x); c.close(); } }));
  const pool = await createWorkerPool({ algorithm: 'chacha20-poly1305', key, workers: 3 });
  const viaPool = await collect(source(plain, 1000003).pipeThrough(createSealStream(pool, { noncePrefix: prefix })));
  const opened = await collect(source(viaPool, 777777).pipeThrough(createOpenStream(pool)));
  const bad = viaPool.slice(); bad[3 << 20] ^= 1;
  let damage = 'accepted';
  try { await collect(source(bad, 1 << 20).pipeThrough(createOpenStream(pool))); } catch (e) { damage = (e instanceof SegmentAuthenticationError ? 'segment ' + e.segment : String(e)); }
  const wiped = await pool.dispose();
  let ticks = 0, on = true;
  const tick = () => { if (on) { ticks++; setTimeout(tick, 0); } };
  setTimeout(tick, 0);
  const big = new Uint8Array(32 << 20);
  await sealStreamAsync(aead, big, { yieldEvery: 8 });
  on = false;
  aead.dispose();
  return { hardwareConcurrency: navigator.hardwareConcurrency, same: hex(viaPool) === hex(expected), length: viaPool.length, expectedLength: expected.length, roundTrip: hex(opened) === hex(plain), damage, wiped, ticks, expectedSegment: Math.floor(((3 << 20) - 17) / 65552) };
};
window.pageReady = true;
`;

test('headless Chromium: the worker pool on Web Workers gives the single-thread bytes and wipes its keys', async () => {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium (.ci/run must), or set CHROMIUM`);
  const www = mkdtempSync(join(tmpdir(), 'ctkit-stream-www-'));
  try {
    const { build } = await import('esbuild');
    writeFileSync(join(www, 'entry.js'), PAGE);
    await build({ entryPoints: [join(www, 'entry.js')], bundle: true, format: 'esm', platform: 'browser', outfile: join(www, 'page.js'), logLevel: 'error' });
    await build({ entryPoints: [join(repo, 'src/stream/worker.ts')], bundle: true, format: 'esm', platform: 'browser', minify: true, outfile: join(www, 'worker.js'), logLevel: 'error' });
    writeFileSync(join(www, 'index.html'), '<!doctype html><meta charset="utf-8"><script type="module" src="page.js"></script>');
    const types: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };
    const server: Server = createServer((req, res) => {
      const name = new URL(req.url ?? '/', 'http://127.0.0.1').pathname.slice(1) || 'index.html';
      const file = join(www, name);
      if (!/^[\w.-]+$/.test(name) || !existsSync(file)) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': types[extname(name)] ?? 'application/octet-stream', 'cache-control': 'no-store' }).end(readFileSync(file));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const { default: puppeteer } = await import('puppeteer-core');
    const browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      pipe: true,
      userDataDir: mkdtempSync(join(www, 'profile-')),
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      timeout: 60_000,
    });
    try {
      const page = await browser.newPage();
      const log: string[] = [];
      page.on('console', (m) => log.push(`console.${m.type()}: ${m.text()}`));
      page.on('pageerror', (e) => log.push(`pageerror: ${String(e)}`));
      await page.goto(`http://127.0.0.1:${port}/index.html`, { waitUntil: 'load', timeout: 60_000 });
      await page.waitForFunction('window.pageReady === true', { timeout: 60_000 });
      const r = (await Promise.race([page.evaluate('runPool()'), new Promise((_, reject) => setTimeout(() => reject(new Error(`no result in 180 s\n${log.join('\n')}`)), 180_000))])) as Record<string, unknown>;
      assert.equal(r.length, r.expectedLength, JSON.stringify(r));
      assert.equal(r.same, true, 'pool output differs from the single-thread output');
      assert.equal(r.roundTrip, true);
      assert.equal(r.damage, `segment ${r.expectedSegment}`);
      assert.equal(r.wiped, true, 'a worker did not confirm its key wiped');
      assert.ok((r.ticks as number) > 0, 'no timer ran on the main thread while sealStreamAsync sealed 32 MiB');
    } finally {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    }
  } finally {
    rmSync(www, { recursive: true, force: true });
  }
});

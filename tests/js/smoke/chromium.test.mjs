// chromium.test.mjs - the package in headless Chromium (Debian's chromium,
// driven by playwright-core), through its "browser" export (index.js: the
// module is fetched beside the entry). A loopback-only HTTP server serves
// build/npm and a page that runs the probe; nothing leaves 127.0.0.1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expected } from './probe.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const npm = here('../../../build/npm/');
const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.wasm': 'application/wasm', '.html': 'text/html' };

const PAGE = `<!doctype html><meta charset="utf-8"><title>memsandbox smoke</title>
<script type="module">
  import * as pkg from '/pkg/index.js';
  import { probe } from '/probe.mjs';
  probe(pkg).then((r) => { window.result = r; }, (e) => { window.result = { failed: String(e) }; });
</script>`;

function serve() {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    let file = null;
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(PAGE);
      return;
    }
    if (url.pathname === '/probe.mjs') file = here('probe.mjs');
    else if (url.pathname === '/pkg/memsandbox.wasm' && process.env.MSB_WASM) {
      file = process.env.MSB_WASM;
    } else if (url.pathname.startsWith('/pkg/')) {
      const rel = normalize(url.pathname.slice(5));
      if (!rel.startsWith('..')) file = join(npm, rel);
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

test('smoke-chromium-1 the browser entry runs in headless Chromium', async () => {
  const { chromium } = await import('playwright-core');
  const exe = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((p) => existsSync(p));
  assert.ok(exe, 'Debian chromium is not installed');
  const server = await serve();
  const profile = mkdtempSync(join(tmpdir(), 'msb-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: exe, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForFunction(() => window.result !== undefined, null, { timeout: 60000 });
    const result = await page.evaluate(() => window.result);
    assert.deepEqual(errors, []);
    assert.deepEqual(result, expected);
  } finally {
    await context.close();
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
});

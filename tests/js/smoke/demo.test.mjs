// demo.test.mjs - the browser demo (demo/) in headless Chromium: types
// commands as a person would and reads the terminal. Leaves a screenshot in
// build/demo.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

function startServer() {
  const proc = spawn(process.execPath, [join(root, 'demo/serve.mjs'), '0'],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      if (m) resolve({ proc, url: `http://127.0.0.1:${m[1]}/demo/` });
    });
    proc.on('exit', (code) => reject(new Error(`demo server exited ${code}`)));
  });
}

test('demo-1 the browser terminal runs commands typed into it', async () => {
  const { chromium } = await import('playwright-core');
  const exe = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((p) => existsSync(p));
  assert.ok(exe, 'Debian chromium is not installed');
  const { proc, url } = await startServer();
  const profile = mkdtempSync(join(tmpdir(), 'msb-demo-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: exe, headless: true, viewport: { width: 900, height: 520 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(url);
    await page.waitForFunction(() => window.memsandboxReady === true, null, { timeout: 60000 });
    const type = async (line) => {
      await page.locator('#input').fill(line);
      await page.locator('#input').press('Enter');
    };
    await type('echo hello demo');
    await type('cd /tmp');
    await type('for i in 1 2; do');
    await type('echo "n=$i"; done');
    await page.waitForFunction(() => document.getElementById('log').textContent.includes('n=2'),
      null, { timeout: 30000 });
    const log = await page.locator('#log').textContent();
    assert.match(log, /hello demo\n/);
    assert.match(log, /n=1\nn=2\n/);
    assert.equal(await page.locator('#prompt').textContent(), 'mem-sandbox:/tmp> ');
    assert.deepEqual(errors, []);
    await page.screenshot({ path: join(root, 'build/demo.png') });
  } finally {
    await context.close();
    proc.kill();
    rmSync(profile, { recursive: true, force: true });
  }
});

// playground.test.mjs - the built playground (build/demo, `make
// demo-build`) in headless Chromium, used as a person would: typing into
// the terminal, clicking the tree, editing, downloading and restoring
// snapshots, reloading, rolling back, forking, and running the agent
// against a mock OpenAI-compatible server started here. Screenshots of
// each state go to build/demo-shots/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMockModel } from './mock-model.mjs';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const site = process.env.DEMO_DIR ?? join(root, 'build/demo');
const shots = join(root, 'build/demo-shots');
const T = { timeout: 30000 };

let server, model, context, page, base, profile;

function startServer() {
  const proc = spawn(process.execPath, [join(root, 'demo/serve.mjs'), site, '0'],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      if (m) resolve({ proc, url: `http://127.0.0.1:${m[1]}/` });
    });
    proc.on('exit', (code) => reject(new Error(`playground server exited ${code}`)));
  });
}

async function ready(p) {
  const errors = [];
  p.on('pageerror', (e) => errors.push(String(e)));
  p.on('dialog', (d) => d.accept());
  await p.waitForFunction(() => window.playground?.ready === true, null, { timeout: 60000 });
  p.errors = errors;
  return p;
}

const shot = (p, name) => p.screenshot({ path: join(shots, `${name}.png`) });
const screen = (p = page) => p.evaluate(() => window.playground.terminal.text());
const ask = (type, args = {}, p = page) =>
  p.evaluate(([t, a]) => window.playground.client.request(t, a), [type, args]);

/** Types a line into the terminal and waits until it has been handled. */
async function typeLine(line, p = page) {
  const n = await p.evaluate(() => window.playground.terminal.lines);
  await p.locator('#term').click();
  await p.keyboard.type(line);
  await p.keyboard.press('Enter');
  await p.waitForFunction((k) => window.playground.terminal.lines > k, n, T);
}

const treeHas = (path, p = page) =>
  p.locator(`#tree [data-path="${path}"]`).waitFor({ state: 'attached', ...T });
const treeLacks = (path, p = page) =>
  p.locator(`#tree [data-path="${path}"]`).waitFor({ state: 'detached', ...T });

before(async () => {
  assert.ok(existsSync(join(site, 'index.html')), `no built playground in ${site} (make demo-build)`);
  mkdirSync(shots, { recursive: true });
  const { chromium } = await import('playwright-core');
  const exe = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((p) => existsSync(p));
  assert.ok(exe, 'Debian chromium is not installed');
  server = await startServer();
  base = server.url;
  model = await startMockModel();
  profile = mkdtempSync(join(tmpdir(), 'msb-playground-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: exe, headless: true, viewport: { width: 1400, height: 900 },
    acceptDownloads: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  page = await ready(await context.newPage().then(async (p) => { await p.goto(base); return p; }));
});

after(async () => {
  await context?.close();
  server?.proc.kill();
  await model?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

test('playground-0 the site is at most 1 MB gzipped and serves the module as application/wasm', async () => {
  const { readdirSync } = await import('node:fs');
  const { gzipSync } = await import('node:zlib');
  let total = 0;
  for (const name of readdirSync(site)) {
    if (!name.startsWith('.')) total += gzipSync(readFileSync(join(site, name)), { level: 9 }).length;
  }
  assert.ok(total <= 1024 * 1024, `${total} bytes gzipped`);
  const res = await fetch(`${base}memsandbox.wasm`);
  assert.equal(res.headers.get('content-type'), 'application/wasm');
  await res.arrayBuffer();
});

test('playground-1 the terminal runs commands, multi-line input and history', async () => {
  await typeLine('echo hello playground');
  await typeLine('for i in 1 2; do');
  await typeLine('echo "n=$i"; done');
  await typeLine('cd /tmp');
  await typeLine('printf "%s\\n" "$PWD" "$COLUMNS"');
  const text = await screen();
  assert.match(text, /^hello playground$/m);
  assert.match(text, /^> echo "n=\$i"; done\nn=1\nn=2$/m);
  assert.match(text, /sandbox:\/tmp\$ printf/);
  const cols = await page.evaluate(() => window.playground.terminal.term.cols);
  assert.match(text, new RegExp(`^/tmp\\n${cols}$`, 'm'));
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /\/tmp\n\d+\nsandbox:\/tmp\$ cd \/tmp\n/.test(
    window.playground.terminal.text()), null, T);
  await typeLine('cd /workspace');
  // a pasted block runs line by line, the continuation included
  const n = await page.evaluate(() => window.playground.terminal.lines);
  await page.evaluate(() => window.playground.terminal.term.paste('echo p1\nif true; then\necho p2; fi\n'));
  await page.waitForFunction((k) => window.playground.terminal.lines >= k + 3, n, T);
  assert.match(await screen(), /^p1\nsandbox:\/workspace\$ if true; then\n> echo p2; fi\np2$/m);
  // Ctrl-C with a selection copies: the line stays
  await page.keyboard.type('kept');
  await page.evaluate(() => window.playground.terminal.term.selectAll());
  await page.keyboard.press('Control+C');
  await page.evaluate(() => window.playground.terminal.term.clearSelection());
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /\bkep: command not found/.test(window.playground.terminal.text()), null, T);
  await shot(page, '1-terminal');
});

test('playground-2 Tab completes commands, paths and variables; Ctrl-C drops the line; Ctrl-L clears', async () => {
  await page.locator('#term').click();
  await page.keyboard.type('ech');
  await page.keyboard.press('Tab');
  await page.keyboard.type('$HO');
  await page.keyboard.press('Tab');
  await page.waitForFunction(() => /\$HOME  \$HOSTNAME\n/.test(window.playground.terminal.text()), null, T);
  await page.keyboard.type('M');
  await page.keyboard.press('Tab');
  await page.keyboard.type('; cat REA');
  await page.keyboard.press('Tab');
  await page.waitForFunction(() => window.playground.terminal.text().split('\n').pop()
    === 'sandbox:/workspace$ echo $HOME ; cat README.txt ', null, T);
  await page.keyboard.press('Control+C');
  await page.waitForFunction(() => /README\.txt \^C\nsandbox:\/workspace\$ ?$/.test(
    window.playground.terminal.text()), null, T);
  await typeLine('echo after');
  assert.doesNotMatch(await screen(), /Welcome to the MemSandbox/);
  await page.keyboard.type('ls');
  await page.keyboard.press('Control+L');
  await page.waitForFunction(() => window.playground.terminal.text().trim() === 'sandbox:/workspace$ ls',
    null, T);
  await page.keyboard.press('Control+U');
});

test('playground-2b Ctrl-C cancels a running loop: ^C, status 130, the workspace kept', async () => {
  await typeLine('echo before > kept.txt');
  const n = await page.evaluate(() => window.playground.terminal.lines);
  await page.keyboard.type('echo during > loop.txt; echo looping; while :; do :; done');
  await page.keyboard.press('Enter');
  // the output streams while the loop still runs
  await page.waitForFunction(() => /^looping$/m.test(window.playground.terminal.text()), null, T);
  assert.equal(await page.locator('#term-pane.busy').count(), 1);
  await page.keyboard.press('Control+C');
  // the worker answers between two slices: no wait for a restart
  await page.waitForFunction((k) => window.playground.terminal.lines > k, n, { timeout: 1000 });
  assert.match(await screen(), /done\nlooping\n\^C\nsandbox:\/workspace\$ ?$/);
  await typeLine('echo $?');
  assert.match(await screen(), /echo \$\?\n130\n/);
  await shot(page, '2b-ctrl-c');
  await typeLine('cat kept.txt loop.txt; rm kept.txt loop.txt');
  assert.match(await screen(), /^before\nduring$/m);
  assert.doesNotMatch(await screen(), /stopped; the workspace is as it was/);
});

test('playground-3 the file tree follows commands', async () => {
  await typeLine('mkdir -p src && echo one > src/a.txt && echo two > src/b.txt');
  await treeHas('/workspace/src/a.txt');
  await treeHas('/workspace/src/b.txt');
  await typeLine('rm src/b.txt');
  await treeLacks('/workspace/src/b.txt');
  await shot(page, '3-tree');
});

test('playground-4 the editor saves, and reports a conflict instead of overwriting', async () => {
  await page.locator('#tree [data-path="/workspace/src/a.txt"]').click();
  await page.waitForFunction(() => document.querySelector('.cm-content')?.textContent === 'one', null, T);
  assert.match(await page.locator('#editor-hash').textContent(), /^sha256 [0-9a-f]{16}/);
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('End');
  await page.keyboard.type(' edited');
  await page.keyboard.press('Control+s');
  await page.locator('#editor-status', { hasText: 'Saved /workspace/src/a.txt' }).waitFor(T);
  await typeLine('cat src/a.txt');
  assert.match(await screen(), /^one edited$/m);

  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('End');
  await page.keyboard.type('!');
  await typeLine('echo agent was here > src/a.txt');
  await page.locator('#editor-status', { hasText: 'changed in the sandbox' }).waitFor(T);
  await page.locator('#save').click();
  await page.locator('#editor-status', { hasText: 'Conflict' }).waitFor(T);
  await shot(page, '4-conflict');
  assert.equal((await ask('readFile', { path: '/workspace/src/a.txt' })).text, 'agent was here\n');
  await page.locator('#overwrite').click();
  await page.locator('#editor-status', { hasText: 'Saved' }).waitFor(T);
  assert.equal((await ask('readFile', { path: '/workspace/src/a.txt' })).text, 'one edited!\n');
});

test('playground-5 snapshot download, reset, upload and drop restore the same root hash', async () => {
  const hash = await ask('rootHash');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.locator('#snapshot-download').click()]);
  const file = join(profile, 'snapshot.tar.gz');
  await dl.saveAs(file);
  assert.deepEqual([...readFileSync(file).subarray(0, 2)], [0x1f, 0x8b]);

  await page.locator('#reset').click();
  await treeLacks('/workspace/src/a.txt');
  assert.notEqual(await ask('rootHash'), hash);
  await page.locator('#snapshot-upload').setInputFiles(file);
  await treeHas('/workspace/src/a.txt');
  assert.equal(await ask('rootHash'), hash);

  await page.locator('#reset').click();
  await treeLacks('/workspace/src/a.txt');
  const bytes = [...readFileSync(file)];
  await page.evaluate((b) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(b)], 'snapshot.tar.gz', { type: 'application/gzip' }));
    document.querySelector('#term-pane').dispatchEvent(
      new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, bytes);
  await treeHas('/workspace/src/a.txt');
  assert.equal(await ask('rootHash'), hash);
});

test('playground-6 files dropped on the tree join the workspace; a folder downloads as .tar.gz', async () => {
  await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.items.add(new File(['dropped\n'], 'notes.md', { type: 'text/markdown' }));
    document.querySelector('#tree').dispatchEvent(
      new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await treeHas('/workspace/notes.md');
  await page.locator('#tree [data-path="/workspace/src"]').click();
  const [dl] = await Promise.all([page.waitForEvent('download'), page.locator('#download-folder').click()]);
  assert.equal(dl.suggestedFilename(), 'src.tar.gz');
});

test('playground-7 the workspace and the history survive a reload', async () => {
  const hash = await ask('rootHash');
  await page.reload();
  await ready(page);
  await treeHas('/workspace/src/a.txt');
  assert.equal(await ask('rootHash'), hash);
  await page.locator('#term').click();
  await page.keyboard.press('ArrowUp');
  const line = await page.evaluate(() => window.playground.terminal.text().split('\n').pop());
  assert.equal(line, 'sandbox:/workspace$ echo agent was here > src/a.txt');
  await page.keyboard.press('Control+C');
});

test('playground-8 the timeline rolls back to a checkpoint', async () => {
  await typeLine('echo temporary > temp.txt');
  await treeHas('/workspace/temp.txt');
  await page.locator('#tab-timeline').click();
  const item = page.locator('#timeline li', { hasText: 'echo temporary' });
  await item.waitFor(T);
  // the checkpoint before it: the next entry in the newest-first list
  const prev = page.locator('#timeline li').nth(1);
  await shot(page, '8-timeline');
  await prev.locator('button').click();
  await treeLacks('/workspace/temp.txt');
  await page.locator('#timeline li.current').nth(0).waitFor(T);
  assert.equal(await page.locator('#timeline li').nth(1).getAttribute('aria-current'), 'step');
});

test('playground-9 fork opens the current state in a new tab, independent of this one', async () => {
  const [child] = await Promise.all([context.waitForEvent('page'), page.locator('#fork').click()]);
  await ready(child);
  assert.match(child.url(), /\?ws=ws-/);
  await treeHas('/workspace/src/a.txt', child);
  await typeLine('echo forked > fork-only.txt', child);
  await treeHas('/workspace/fork-only.txt', child);
  await shot(child, '9-fork');
  assert.equal(await page.locator('#tree [data-path="/workspace/fork-only.txt"]').count(), 0);
  assert.deepEqual(child.errors, []);
  await child.close();
});

/** Fills the agent form and runs a task. */
async function runAgent(api, task) {
  await page.locator('#tab-agent').click();
  await page.locator('#agent-url').fill(model.url);
  await page.locator('#agent-model').fill('mock-model');
  await page.locator('#agent-key').fill('sk-test');
  await page.locator('#agent-api').selectOption(api);
  await page.locator('#agent-task').fill(task);
  await page.locator('#agent-run').click();
}

for (const api of ['chat', 'responses']) {
  test(`playground-10 the agent runs a streamed tool loop (${api})`, async () => {
    model.requests.length = 0;
    await runAgent(api, `write agent-${api}.txt`);
    await page.locator('#agent-log .done').waitFor(T);
    const log = await page.locator('#agent-log').textContent();
    assert.match(log, /execute \{"command":"echo from the agent > agent-/);
    assert.match(log, /"exit_code":0/);
    assert.match(log, /write_file/);
    assert.match(log, /All done\./);
    await treeHas(`/workspace/agent-${api}.txt`);
    assert.equal((await ask('readFile', { path: `/workspace/agent-${api}.txt` })).text,
      'from the agent\n');
    // the model saw the package's tools and got each result back
    const [first, second, third] = model.requests;
    assert.equal(first.headers.authorization, 'Bearer sk-test');
    const names = api === 'chat' ? first.body.tools.map((t) => t.function.name)
      : first.body.tools.map((t) => t.name);
    assert.deepEqual(names.sort(), ['apply_patch', 'execute', 'read_file', 'write_file']);
    const out = api === 'chat' ? second.body.messages.at(-1) : second.body.input.at(-1);
    assert.equal(api === 'chat' ? out.role : out.type, api === 'chat' ? 'tool' : 'function_call_output');
    assert.match(api === 'chat' ? out.content : out.output, /"stdout":"from the agent\\n"/);
    assert.ok(third, 'a third turn after the write_file call');
    assert.equal(await page.evaluate(() => sessionStorage.getItem('memsandbox.agent')?.includes('sk-test')), true);
    assert.equal(await page.evaluate(() => JSON.stringify(localStorage).includes('sk-test')), false);
    await shot(page, `10-agent-${api}`);
  });
}

test('playground-11 Stop aborts the agent in the middle of a streamed reply', async () => {
  await runAgent('chat', 'stall please');
  await page.locator('#agent-log .text', { hasText: 'Thinking' }).waitFor(T);
  assert.equal(await page.locator('#agent-stop').isEnabled(), true);
  await page.locator('#agent-stop').click();
  await page.locator('#agent-log .stopped').waitFor(T);
  assert.equal(await page.locator('#agent-run').isEnabled(), true);
  await model.waitAborted();
});

test('playground-11b Stop cancels a tool call that runs forever; the worker is kept', async () => {
  const hash = await ask('rootHash');
  await runAgent('chat', 'spin');
  await page.locator('#agent-log .tool pre.pending').waitFor(T);
  await page.locator('#agent-stop').click();
  await page.locator('#agent-log .stopped').waitFor(T);
  assert.equal(await ask('rootHash'), hash);
  await typeLine('echo still here');
  assert.match(await screen(), /^still here$/m);
  assert.doesNotMatch(await screen(), /agent stopped; the workspace is as it was/);
});

test('playground-12 host controls: policy, secrets, limits, and the event stream', async () => {
  await page.locator('#tab-host').click();
  await page.locator('#host-policy').fill('deny-command rm');
  await page.locator('#host-form button[type=submit]').click();
  await page.locator('#host-status', { hasText: 'Applied' }).waitFor(T);
  await typeLine('rm notes.md');
  assert.match(await screen(), /rm: command denied by policy/);
  await page.locator('#secret-name').fill('API_TOKEN');
  await page.locator('#secret-value').fill('hunter2-secret');
  await page.locator('#secret-form button[type=submit]').click();
  await page.locator('#secrets li', { hasText: 'API_TOKEN = [REDACTED]' }).waitFor(T);
  await typeLine('echo "token=$API_TOKEN"');
  assert.match(await screen(), /^token=\[REDACTED\]$/m);
  assert.doesNotMatch(await page.content(), /hunter2/);
  await page.locator('#tab-events').click();
  await page.locator('#events li', { hasText: 'operation.completed  execute' }).first().waitFor(T);
  await shot(page, '12-host');
  await page.locator('#tab-host').click();
  await page.locator('#host-policy').fill('');
  await page.locator('#host-form [name=max_steps]').fill('2000');
  await page.locator('#host-form button[type=submit]').click();
  await page.locator('#host-status', { hasText: 'Applied' }).waitFor(T);
  await typeLine('i=0; while true; do i=$((i+1)); done');
  assert.match(await screen(), /max_steps/);
  await page.locator('#host-form [name=max_steps]').fill('');
  await page.locator('#host-form button[type=submit]').click();
  await page.locator('#host-status', { hasText: 'Applied' }).waitFor(T);
});

test('playground-13 every control has a label, and a phone-sized screen has no sideways scroll', async () => {
  const unlabelled = await page.evaluate(() => [...document.querySelectorAll(
    'input:not(.xterm-helper-textarea), select, textarea:not(.xterm-helper-textarea), button')]
    .filter((e) => !(e.labels?.length || e.getAttribute('aria-label') || e.textContent.trim()))
    .map((e) => e.outerHTML.slice(0, 80)));
  assert.deepEqual(unlabelled, []);
  await page.setViewportSize({ width: 390, height: 844 });
  // the terminal refits on the next frame after the resize
  const tooWide = () => [...document.querySelectorAll('body *')]
    .filter((e) => e.getBoundingClientRect().right > 391).slice(0, 5)
    .map((e) => `${e.parentElement.className} > ${e.tagName}#${e.id}.${e.className}`);
  await page.waitForFunction(`(${tooWide})().length === 0`, null, T).catch(() => {});
  assert.deepEqual(await page.evaluate(tooWide), []);
  await shot(page, '13-phone');
  await page.setViewportSize({ width: 1400, height: 900 });
  assert.deepEqual(page.errors, []);
});

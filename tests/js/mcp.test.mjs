// mcp.test.mjs - the MCP server: spawns bin/memsandbox-mcp.js from the
// staged package and speaks newline-delimited JSON-RPC 2.0 to it over
// stdio, as MCP clients do (integrations.md §4), plus serveLines in process
// for the framing limits. Ids are stable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Sandbox } from '../../build/npm/node.js';
import { createMcpServer, serveLines, MCP_MAX_LINE_BYTES } from '../../build/npm/mcp.js';

const BIN = fileURLToPath(new URL('../../build/npm/bin/memsandbox-mcp.js', import.meta.url));

// A client over a spawned server: send() writes one line; next() resolves
// to the next response line, parsed. Every stdout line must be JSON.
function client(args = []) {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines = [];
  const waiters = [];
  let buf = '';
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  child.stdout.on('data', (d) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const msg = JSON.parse(line); // throws (fails the test) on a stray line
      if (waiters.length) waiters.shift()(msg);
      else lines.push(msg);
    }
  });
  const exited = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  let nextId = 1;
  return {
    send(obj) {
      child.stdin.write((typeof obj === 'string' ? obj : JSON.stringify(obj)) + '\n');
    },
    next() {
      return lines.length ? Promise.resolve(lines.shift()) : new Promise((r) => waiters.push(r));
    },
    async request(method, params) {
      const id = nextId++;
      this.send({ jsonrpc: '2.0', id, method, params });
      const res = await this.next();
      assert.equal(res.id, id);
      return res;
    },
    async close() {
      child.stdin.end();
      return exited;
    },
    get stderr() {
      return stderr;
    },
  };
}

async function initialized(args) {
  const c = client(args);
  const r = await c.request('initialize', { protocolVersion: '2025-06-18', capabilities: {},
    clientInfo: { name: 'test', version: '1' } });
  c.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { c, init: r };
}

function seedDir() {
  const dir = mkdtempSync(join(tmpdir(), 'msb-mcp-'));
  mkdirSync(join(dir, 'src'));
  mkdirSync(join(dir, 'empty'));
  writeFileSync(join(dir, 'src', 'app.py'), 'def f():\n    return 1\n');
  writeFileSync(join(dir, 'README.md'), '# seeded\n');
  return dir;
}

test('mcp-1.1 initialize, version negotiation, ping, tools/list', async () => {
  const { c, init } = await initialized();
  assert.equal(init.jsonrpc, '2.0');
  assert.equal(init.result.protocolVersion, '2025-06-18');
  assert.deepEqual(init.result.capabilities, { tools: { listChanged: false },
    resources: { listChanged: false, subscribe: false } });
  assert.equal(init.result.serverInfo.name, 'memsandbox');
  // an unknown version is answered with the newest supported one
  const again = await c.request('initialize', { protocolVersion: '1999-01-01' });
  assert.equal(again.result.protocolVersion, '2025-11-25');
  for (const v of ['2025-11-25', '2025-03-26', '2024-11-05']) {
    assert.equal((await c.request('initialize', { protocolVersion: v })).result.protocolVersion, v);
  }
  // the notification got no answer: the next line is the ping's
  assert.deepEqual((await c.request('ping')).result, {});
  const list = await c.request('tools/list', {});
  const tools = list.result.tools;
  assert.deepEqual(tools.map((t) => t.name), ['execute', 'read_file', 'write_file', 'apply_patch']);
  for (const t of tools) {
    assert.equal(t.inputSchema.type, 'object');
    assert.equal(t.inputSchema.additionalProperties, false);
    assert.equal(typeof t.description, 'string');
  }
  assert.equal(tools[1].annotations.readOnlyHint, true);
  assert.equal(tools[0].annotations.readOnlyHint, false);
  assert.equal(await c.close(), 0);
});

test('mcp-1.2 tools/call on a seeded workspace; state persists; errors are isError results', async () => {
  const dir = seedDir();
  try {
    const { c } = await initialized(['--seed', dir]);
    let r = await c.request('tools/call', { name: 'execute', arguments: { command: 'ls; cat README.md',
      timeout_seconds: null, max_output_bytes: null } });
    assert.equal(r.result.isError, false);
    assert.equal(r.result.content.length, 1);
    assert.equal(r.result.content[0].type, 'text');
    const env = JSON.parse(r.result.content[0].text);
    assert.deepEqual(env, r.result.structuredContent);
    assert.equal(env.result.stdout, 'README.md\nempty\nsrc\n# seeded\n');
    r = await c.request('tools/call', { name: 'apply_patch', arguments: { patch:
      '*** Begin Patch\n*** Update File: src/app.py\n@@\n-    return 1\n+    return 2\n*** End Patch\n',
      expected_hashes: null } });
    assert.equal(r.result.isError, false);
    assert.equal(r.result.structuredContent.result.files[0].op, 'update');
    r = await c.request('tools/call', { name: 'read_file', arguments: { path: 'src/app.py', start_line: null, end_line: null } });
    assert.equal(r.result.structuredContent.result.content, 'def f():\n    return 2');
    // tool failures: isError results the model reads
    r = await c.request('tools/call', { name: 'read_file', arguments: { path: 'nope', start_line: null, end_line: null } });
    assert.equal(r.result.isError, true);
    assert.match(r.result.content[0].text, /"code":"path_not_found"/);
    r = await c.request('tools/call', { name: 'execute', arguments: { cmd: 'ls' } });
    assert.equal(r.result.isError, true);
    assert.equal(r.result.structuredContent.error.message, 'Invalid input for execute');
    r = await c.request('tools/call', { name: 'execute' });
    assert.equal(r.result.structuredContent.error.code, 'invalid_tool_input');
    assert.equal(await c.close(), 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('mcp-1.3 protocol errors: parse, invalid request, unknown method and tool', async () => {
  const { c } = await initialized();
  c.send('{not json');
  assert.deepEqual(await c.next(), { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
  c.send([{ jsonrpc: '2.0', id: 9, method: 'ping' }]);
  assert.equal((await c.next()).error.code, -32600);
  c.send({ jsonrpc: '1.0', id: 5, method: 'ping' });
  assert.deepEqual(await c.next(), { jsonrpc: '2.0', id: 5, error: { code: -32600, message: 'invalid request' } });
  c.send({ jsonrpc: '2.0', id: { x: 1 }, method: 'ping' });
  assert.equal((await c.next()).error.code, -32600);
  c.send('"just a string"');
  assert.equal((await c.next()).error.code, -32600);
  let r = await c.request('prompts/list');
  assert.equal(r.error.code, -32601);
  r = await c.request('tools/call', { name: 'nope', arguments: {} });
  assert.deepEqual(r.error, { code: -32602, message: 'Tool nope not found' });
  r = await c.request('tools/call', 'x');
  assert.equal(r.error.code, -32602);
  r = await c.request('__proto__');
  assert.equal(r.error.code, -32601);
  // blank lines and CRLF framing are tolerated
  c.send('');
  c.send('{"jsonrpc":"2.0","id":"s","method":"ping"}\r');
  assert.deepEqual(await c.next(), { jsonrpc: '2.0', id: 's', result: {} });
  assert.equal(await c.close(), 0);
});

test('mcp-1.6 `memsandbox mcp` is the same server', () => {
  const cli = fileURLToPath(new URL('../../build/npm/bin/memsandbox.js', import.meta.url));
  const r = spawnSync(process.execPath, [cli, 'mcp', '--profile', 'strict'], { encoding: 'utf8',
    input: '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"execute",' +
      '"arguments":{"command":"echo hi","timeout_seconds":null,"max_output_bytes":null}}}\n' });
  assert.equal(r.status, 0, r.stderr);
  const res = JSON.parse(r.stdout);
  assert.equal(res.id, 7);
  assert.equal(res.result.structuredContent.result.stdout, 'hi\n');
  const h = spawnSync(process.execPath, [cli, 'mcp', '--help'], { encoding: 'utf8' });
  assert.match(h.stdout, /^Usage: memsandbox-mcp/);
});

test('mcp-1.4 bin options', () => {
  const run = (...args) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', input: '' });
  let r = run('--help');
  assert.equal(r.status, 0);
  assert.match(r.stdout, /^Usage: memsandbox-mcp/);
  r = run('--bogus');
  assert.equal(r.status, 2);
  assert.equal(r.stderr, "memsandbox-mcp: unrecognized option '--bogus'\n" +
    "Try 'memsandbox-mcp --help' for more information.\n");
  assert.equal(r.stdout, '');
  r = run('--profile', 'huge');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /unknown profile 'huge'/);
  r = run('--seed');
  assert.equal(r.status, 2);
  r = run('--seed', '/nonexistent/dir/x');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /cannot read \/nonexistent\/dir\/x/);
  r = run('--profile=strict');
  assert.equal(r.status, 0);
  assert.equal(r.stdout, '');
});

test('mcp-1.5 serveLines: split chunks, bytes, over-long lines', async () => {
  const sb = await Sandbox.create({ clock: 0, seed: 1 });
  const server = createMcpServer(sb, { name: 'x', version: '9' });
  const out = [];
  const msg = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }) + '\n';
  const enc = new TextEncoder();
  async function* chunks() {
    yield msg.slice(0, 10);
    yield enc.encode(msg.slice(10));
    yield 'x'.repeat(MCP_MAX_LINE_BYTES + 1);
    yield 'still the long line\n';
    yield '{"jsonrpc":"2.0","id":2,"method":"ping"}';
  }
  await serveLines(server, chunks(), (line) => out.push(line));
  assert.equal(out.length, 3);
  const first = JSON.parse(out[0]);
  assert.deepEqual(first.result.serverInfo, { name: 'x', version: '9' });
  assert.equal(JSON.parse(out[1]).error.message, 'message too long');
  assert.deepEqual(JSON.parse(out[2]), { jsonrpc: '2.0', id: 2, result: {} });
  assert.ok(out.every((l) => l.endsWith('\n') && l.indexOf('\n') === l.length - 1));
  await sb.close();
});

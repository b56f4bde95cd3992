// mcp-2026.test.mjs - the MCP server's 2026-07-28 side (server/discover,
// the version in each request's _meta, resultType in results) beside the
// legacy handshake, tool annotations and outputSchema, and the workspace's
// files as resources. In process, through createMcpServer().handle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Sandbox } from '../../build/npm/node.js';
import { createMcpServer, MCP_PROTOCOL_VERSIONS } from '../../build/npm/mcp.js';

const META = (v) => ({ _meta: { 'io.modelcontextprotocol/protocolVersion': v,
  'io.modelcontextprotocol/clientCapabilities': {} } });
let n = 0;
const req = (method, params) => ({ jsonrpc: '2.0', id: ++n, method, ...(params ? { params } : {}) });

test('mcp-2026-1.1 server/discover, stateless requests, legacy negotiation', async () => {
  const sb = await Sandbox.create({ files: { 'a.txt': 'A' } });
  const server = createMcpServer(sb, { instructions: 'use the tools' });
  assert.equal(MCP_PROTOCOL_VERSIONS[0], '2026-07-28');
  const d = (await server.handle(req('server/discover'))).result;
  assert.equal(d.resultType, 'complete');
  assert.deepEqual(d.supportedVersions, [...MCP_PROTOCOL_VERSIONS]);
  assert.deepEqual(Object.keys(d.capabilities).sort(), ['resources', 'tools']);
  assert.equal(d.instructions, 'use the tools');
  assert.equal(d.serverInfo.name, 'memsandbox');
  const list = (await server.handle(req('tools/list', META('2026-07-28')))).result;
  assert.equal(list.resultType, 'complete');
  const call = (await server.handle(req('tools/call', { ...META('2026-07-28'), name: 'execute',
    arguments: { command: 'cat a.txt', timeout_seconds: null, max_output_bytes: null } }))).result;
  assert.equal(call.resultType, 'complete');
  assert.equal(call.structuredContent.result.stdout, 'A');
  assert.equal((await server.handle(req('ping', META('2026-07-28')))).error.code, -32601);
  const bad = await server.handle(req('tools/list', META('2099-01-01')));
  assert.equal(bad.error.code, -32602);
  assert.deepEqual(bad.error.data.supported, [...MCP_PROTOCOL_VERSIONS]);
  // legacy: initialize negotiates down, ping answers, no resultType
  for (const [asked, got] of [['2024-11-05', '2024-11-05'], ['2026-07-28', '2025-11-25'], ['1999-01-01', '2025-11-25']]) {
    const init = (await server.handle(req('initialize', { protocolVersion: asked, capabilities: {},
      clientInfo: { name: 't', version: '1' } }))).result;
    assert.equal(init.protocolVersion, got);
    assert.equal(init.resultType, undefined);
  }
  assert.deepEqual((await server.handle(req('ping'))).result, {});
  assert.equal(await server.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }), null);
  await sb.close();
});

test('mcp-2026-1.2 tools carry annotations and an outputSchema the results satisfy', async () => {
  const sb = await Sandbox.create();
  const server = createMcpServer(sb, { include: ['grep', 'edit_file'] });
  const { tools } = (await server.handle(req('tools/list'))).result;
  const by = Object.fromEntries(tools.map((t) => [t.name, t]));
  // the optional tools follow the four, in the order include names them
  assert.deepEqual(Object.keys(by), ['execute', 'read_file', 'write_file', 'apply_patch', 'grep', 'edit_file']);
  assert.equal(by.read_file.annotations.readOnlyHint, true);
  assert.equal(by.grep.annotations.readOnlyHint, true);
  assert.equal(by.execute.annotations.destructiveHint, true);
  assert.equal(by.write_file.annotations.idempotentHint, true);
  for (const t of tools) assert.deepEqual(t.outputSchema.required, ['ok']);
  const r = (await server.handle(req('tools/call', { name: 'read_file', arguments: { path: 'none', start_line: null, end_line: null } }))).result;
  assert.equal(r.isError, true);
  assert.deepEqual(Object.keys(r.structuredContent.error).filter((k) => by.read_file.outputSchema.properties.error.required.includes(k)).sort(),
    ['category', 'code', 'correctable', 'message', 'retryable']);
  await sb.close();
});

test('mcp-2026-1.3 the workspace files are resources', async () => {
  const sb = await Sandbox.create({ files: { 'a.md': '# A\n', 'd/b.bin': Uint8Array.of(0xff, 0, 1) } });
  const server = createMcpServer(sb);
  const { resources } = (await server.handle(req('resources/list'))).result;
  assert.deepEqual(resources.map((r) => [r.uri, r.name, r.mimeType, r.size]),
    [['file:///workspace/a.md', 'a.md', 'text/markdown', 4], ['file:///workspace/d/b.bin', 'd/b.bin', 'text/plain', 3]]);
  const t = (await server.handle(req('resources/templates/list'))).result;
  assert.equal(t.resourceTemplates[0].uriTemplate, 'file:///workspace/{+path}');
  const a = (await server.handle(req('resources/read', { uri: 'file:///workspace/a.md' }))).result;
  assert.deepEqual(a.contents, [{ uri: 'file:///workspace/a.md', mimeType: 'text/markdown', text: '# A\n' }]);
  const b = (await server.handle(req('resources/read', { uri: 'file:///workspace/d/b.bin' }))).result;
  assert.equal(b.contents[0].blob, '/wAB');
  assert.equal((await server.handle(req('resources/read', { uri: 'file:///workspace/none' }))).error.code, -32002);
  assert.equal((await server.handle(req('resources/read', { uri: 'file:///etc/passwd' }))).error.code, -32602);
  assert.equal((await server.handle(req('resources/read', { uri: 'file:///workspace/../etc' }))).error.code, -32602);
  await sb.close();
});

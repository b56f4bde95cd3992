// mcp.js - a Model Context Protocol server exposing the four tools of one
// sandbox, written by hand (no SDK): JSON-RPC 2.0 messages, one per line.
//
// createMcpServer() is transport-free: handle(message) takes one parsed
// message and resolves to the response object, or null for notifications.
// serveLines() runs it over any async iterable of text or byte chunks and a
// write(line) function, so the same code serves Node's stdio (see
// bin/memsandbox-mcp.js) or anything else; nothing here imports node:.
//
// Protocol: 2026-07-28 (stateless: server/discover, and each request's
// _meta naming its protocol version; results carry resultType) and the
// legacy handshake family (initialize, then notifications/initialized,
// ping), where a client's requested version is echoed when supported, else
// the newest legacy version is offered. Methods: tools/list, tools/call
// (tools with annotations and an outputSchema for the structuredContent),
// and the workspace's files as resources (resources/list, resources/read,
// resources/templates/list). notifications/cancelled aborts the named
// tools/call's run at its next slice (serveLines reads it while the call
// runs).
// Tool failures are results with isError: true and the envelope as text
// (the model reads them); protocol problems are JSON-RPC errors: -32700
// parse error, -32600 invalid request, -32601 unknown method, -32602 bad
// params or unknown tool. Each tool result carries the envelope as JSON
// text and as structuredContent.
//
// Types: mcp.d.ts (the directive below points Deno at it).
// @ts-self-types="./mcp.d.ts"
import { createTools, toolResultText } from './tools.js';
import { normalisePath } from './core.js';
import { toBase64 } from './encoding.js';
import { isNotFound, walk } from './walk.js';
import constants from './constants.js';

const strict = new TextDecoder('utf-8', { fatal: true });

function utf8(bytes) {
  try {
    return strict.decode(bytes);
  } catch {
    return null;
  }
}

const MIME = { md: 'text/markdown', json: 'application/json', js: 'text/javascript', mjs: 'text/javascript',
  html: 'text/html', css: 'text/css', csv: 'text/csv', xml: 'application/xml', py: 'text/x-python',
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', pdf: 'application/pdf' };

function mimeOf(path) {
  const m = /\.([^./]+)$/.exec(path);
  return (m && MIME[m[1].toLowerCase()]) ?? 'text/plain';
}

const STATELESS = '2026-07-28';
const LEGACY = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];

/** Protocol versions this server speaks, newest first. */
export const MCP_PROTOCOL_VERSIONS = Object.freeze([STATELESS, ...LEGACY]);

const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const ROOT = '/workspace';
const URI = 'file://';

const ANNOTATIONS = {
  execute: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  read_file: { readOnlyHint: true, openWorldHint: false },
  write_file: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  apply_patch: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  edit_file: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  list_directory: { readOnlyHint: true, openWorldHint: false },
  glob: { readOnlyHint: true, openWorldHint: false },
  grep: { readOnlyHint: true, openWorldHint: false },
};

// Every tool answers with the envelope, which structuredContent carries.
const OUTPUT_SCHEMA = {
  type: 'object',
  properties: {
    ok: { type: 'boolean' },
    result: { type: 'object', description: 'When ok: the tool\'s result.' },
    error: {
      type: 'object', description: 'When not ok.',
      properties: { category: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' },
        correctable: { type: 'boolean' }, retryable: { type: 'boolean' } },
      required: ['category', 'code', 'message', 'correctable', 'retryable'],
    },
  },
  required: ['ok'],
};

/** Longest accepted message line, in bytes (a patch is at most 1 MiB). */
export const MCP_MAX_LINE_BYTES = 8 * 1024 * 1024;

function rpcError(id, code, message) {
  return { jsonrpc: '2.0', id: id ?? null, error: { code, message } };
}

function isId(id) {
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

/**
 * An MCP server over one sandbox. Options: name and version (serverInfo),
 * instructions, and the createTools options.
 * @param {import('./index.js').Sandbox} sandbox
 * @param {import('./mcp.js').McpServerOptions} [options]
 * @returns {import('./mcp.js').McpServer}
 */
export function createMcpServer(sandbox, options = {}) {
  const { name = 'memsandbox', version = constants.version, instructions, ...rest } = options ?? {};
  const tools = createTools(sandbox, rest);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const listed = tools.map((t) => ({ name: t.name, description: t.description,
    inputSchema: t.parameters, outputSchema: OUTPUT_SCHEMA, annotations: ANNOTATIONS[t.name] }));
  const capabilities = { tools: { listChanged: false }, resources: { listChanged: false, subscribe: false } };
  const withInstructions = (out) => (instructions ? { ...out, instructions } : out);

  /** tools/call requests in progress, by id: notifications/cancelled aborts them. */
  const running = new Map();
  const methods = {
    initialize(params) {
      const asked = params?.protocolVersion;
      const protocolVersion = LEGACY.includes(asked) ? asked : LEGACY[0];
      return withInstructions({ protocolVersion, capabilities, serverInfo: { name, version } });
    },
    'server/discover'() {
      return withInstructions({ supportedVersions: MCP_PROTOCOL_VERSIONS, capabilities,
        serverInfo: { name, version } });
    },
    ping(_params, _id, stateless) {
      return stateless ? null : {};
    },
    async 'resources/list'() {
      const { entries } = await walk(sandbox, ROOT);
      return { resources: entries.filter((e) => e.stat.kind === 'file').map((e) => ({
        uri: URI + e.path, name: e.path.slice(ROOT.length + 1), mimeType: mimeOf(e.path), size: e.stat.size })) };
    },
    'resources/templates/list'() {
      return { resourceTemplates: [{ uriTemplate: `${URI}${ROOT}/{+path}`, name: 'workspace file',
        description: 'A file in the sandbox workspace, by its path under /workspace.' }] };
    },
    async 'resources/read'(params, id) {
      const uri = params?.uri;
      const path = typeof uri === 'string' && uri.startsWith(URI) ? decodeURIComponent(uri.slice(URI.length)) : null;
      if (!path || normalisePath('/', path) !== path || !path.startsWith(`${ROOT}/`)) {
        return rpcError(id, -32602, `Resource not found: ${uri}`);
      }
      let bytes;
      try {
        bytes = await sandbox.readFile(path, { encoding: 'bytes' });
      } catch (e) {
        if (isNotFound(e)) return rpcError(id, -32002, `Resource not found: ${uri}`);
        throw e;
      }
      const text = utf8(bytes);
      return { contents: [text === null
        ? { uri, mimeType: 'application/octet-stream', blob: toBase64(bytes) }
        : { uri, mimeType: mimeOf(path), text }] };
    },
    'tools/list'() {
      return { tools: listed };
    },
    async 'tools/call'(params, id) {
      if (!params || typeof params !== 'object' || typeof params.name !== 'string') {
        return rpcError(id, -32602, 'tools/call needs params.name');
      }
      const t = byName.get(params.name);
      if (!t) return rpcError(id, -32602, `Tool ${params.name} not found`);
      const ac = new AbortController();
      if (isId(id)) running.set(id, ac);
      let env;
      try {
        env = await t.execute(params.arguments ?? {}, { signal: ac.signal });
      } finally {
        if (running.get(id) === ac) running.delete(id);
      }
      return { content: [{ type: 'text', text: toolResultText(env) }],
        structuredContent: env, isError: !env.ok };
    },
  };

  /** One parsed message in; the response, or null for a notification. */
  async function handle(msg) {
    if (!msg || typeof msg !== 'object' || Array.isArray(msg)) {
      return rpcError(null, -32600, Array.isArray(msg) ? 'batches are not supported' : 'invalid request');
    }
    const notification = !Object.hasOwn(msg, 'id');
    if (msg.jsonrpc !== '2.0' || typeof msg.method !== 'string') {
      if (notification && msg.jsonrpc === '2.0' && ('result' in msg || 'error' in msg)) return null;
      return notification ? null : rpcError(isId(msg.id) ? msg.id : null, -32600, 'invalid request');
    }
    if (notification) {
      if (msg.method === 'notifications/cancelled') running.get(msg.params?.requestId)?.abort();
      return null; // notifications/initialized, ...
    }
    if (!isId(msg.id)) return rpcError(null, -32600, 'invalid request id');
    const asked = msg.params?._meta?.[META_VERSION];
    if (asked !== undefined && asked !== STATELESS && !LEGACY.includes(asked)) {
      return { jsonrpc: '2.0', id: msg.id, error: { code: -32602,
        message: `Unsupported protocol version: ${asked}`, data: { supported: MCP_PROTOCOL_VERSIONS } } };
    }
    // a 2026-07-28 request names its version; server/discover is one too
    const stateless = asked === STATELESS || msg.method === 'server/discover';
    const fn = Object.hasOwn(methods, msg.method) ? methods[msg.method] : null;
    if (!fn) return rpcError(msg.id, -32601, `Method not found: ${msg.method}`);
    try {
      const result = await fn(msg.params, msg.id, stateless);
      if (result === null) return rpcError(msg.id, -32601, `Method not found: ${msg.method}`);
      if (result && result.jsonrpc) return result;
      return { jsonrpc: '2.0', id: msg.id, result: stateless ? { resultType: 'complete', ...result } : result };
    } catch {
      return rpcError(msg.id, -32603, 'internal error');
    }
  }

  /** One line of text in; the response line (without newline) or null. */
  async function handleLine(line) {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      return JSON.stringify(rpcError(null, -32700, 'parse error'));
    }
    const res = await handle(msg);
    return res ? JSON.stringify(res) : null;
  }

  return { handle, handleLine, tools };
}

/**
 * Serves newline-delimited JSON-RPC: reads chunks (strings or bytes) from
 * input, calls write(line) with each response line including its newline.
 * Requests are answered in order. Resolves when input ends.
 * @param {import('./mcp.js').McpServer} server
 * @param {AsyncIterable<string | Uint8Array>} input
 * @param {(line: string) => unknown} write
 */
export async function serveLines(server, input, write) {
  const dec = new TextDecoder();
  let pending = '';
  let skipping = false; // inside an over-long line
  // Requests run one at a time and are answered in order (a chain), while
  // reading goes on, so a notifications/cancelled line reaches the server
  // during the call it names: it is handled at once (it has no answer).
  let queue = Promise.resolve();
  const send = (fn) => {
    queue = queue.then(fn);
  };
  const flush = async (line) => {
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (!line.trim()) return;
    if (line.includes('notifications/cancelled')) {
      const out = await server.handleLine(line);
      if (out === null) return;
      send(() => write(out + '\n'));
      return;
    }
    send(async () => {
      const out = await server.handleLine(line);
      if (out !== null) await write(out + '\n');
    });
  };
  for await (const chunk of input) {
    const from = pending.length; // only the new text can hold a newline
    pending += typeof chunk === 'string' ? chunk : dec.decode(chunk, { stream: true });
    let nl = pending.indexOf('\n', from);
    for (; nl >= 0; nl = pending.indexOf('\n')) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (skipping) {
        skipping = false;
        continue;
      }
      await flush(line);
    }
    if (pending.length > MCP_MAX_LINE_BYTES) {
      pending = '';
      if (!skipping) send(() => write(JSON.stringify(rpcError(null, -32700, 'message too long')) + '\n'));
      skipping = true;
    }
  }
  pending += dec.decode();
  if (!skipping) await flush(pending);
  await queue;
}

// mcp.js - a Model Context Protocol server exposing the four tools of one
// sandbox, written by hand (no SDK): JSON-RPC 2.0 messages, one per line.
//
// createMcpServer() is transport-free: handle(message) takes one parsed
// message and resolves to the response object, or null for notifications.
// serveLines() runs it over any async iterable of text or byte chunks and a
// write(line) function, so the same code serves Node's stdio (see
// bin/memsandbox-mcp.js) or anything else; nothing here imports node:.
//
// Protocol: the legacy handshake family (initialize, then
// notifications/initialized), tools/list, tools/call, ping. A client's
// requested version is echoed when supported, else the newest is offered.
// Tool failures are results with isError: true and the envelope as text
// (the model reads them); protocol problems are JSON-RPC errors: -32700
// parse error, -32600 invalid request, -32601 unknown method, -32602 bad
// params or unknown tool. Each tool result carries the envelope as JSON
// text and as structuredContent.
//
// Types: mcp.d.ts (the directive below points Deno at it).
// @ts-self-types="./mcp.d.ts"
import { createTools, toolResultText } from './tools.js';
import constants from './constants.js';

/** Protocol versions this server speaks, newest first. */
export const MCP_PROTOCOL_VERSIONS = Object.freeze(
  ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07']);

const ANNOTATIONS = {
  execute: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  read_file: { readOnlyHint: true, openWorldHint: false },
  write_file: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  apply_patch: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
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
    inputSchema: t.parameters, annotations: ANNOTATIONS[t.name] }));

  const methods = {
    initialize(params) {
      const asked = params?.protocolVersion;
      const protocolVersion = MCP_PROTOCOL_VERSIONS.includes(asked) ? asked : MCP_PROTOCOL_VERSIONS[0];
      const out = { protocolVersion, capabilities: { tools: { listChanged: false } },
        serverInfo: { name, version } };
      if (instructions) out.instructions = instructions;
      return out;
    },
    ping() {
      return {};
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
      const env = await t.execute(params.arguments ?? {});
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
    if (notification) return null; // notifications/initialized, cancelled, ...
    if (!isId(msg.id)) return rpcError(null, -32600, 'invalid request id');
    const fn = Object.hasOwn(methods, msg.method) ? methods[msg.method] : null;
    if (!fn) return rpcError(msg.id, -32601, `Method not found: ${msg.method}`);
    try {
      const result = await fn(msg.params, msg.id);
      if (result && result.jsonrpc) return result;
      return { jsonrpc: '2.0', id: msg.id, result };
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
  const flush = async (line) => {
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (!line.trim()) return;
    const out = await server.handleLine(line);
    if (out !== null) await write(out + '\n');
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
      if (!skipping) await write(JSON.stringify(rpcError(null, -32700, 'message too long')) + '\n');
      skipping = true;
    }
  }
  pending += dec.decode();
  if (!skipping) await flush(pending);
}

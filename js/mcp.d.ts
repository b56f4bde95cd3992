// mcp.d.ts - types of memsandbox/mcp.
import type { Sandbox } from './index.d.ts';
import type { Tool, ToolOptions } from './tools.d.ts';

export const MCP_PROTOCOL_VERSIONS: readonly string[];
export const MCP_MAX_LINE_BYTES: number;

export interface McpServerOptions extends ToolOptions {
  name?: string;
  version?: string;
  instructions?: string;
}

export interface McpServer {
  /** One parsed JSON-RPC message; the response, or null for notifications. */
  handle(message: unknown): Promise<Record<string, unknown> | null>;
  /** One line of JSON text; the response line, or null. */
  handleLine(line: string): Promise<string | null>;
  tools: Tool[];
}

export function createMcpServer(sandbox: Sandbox, options?: McpServerOptions): McpServer;
/** Serves newline-delimited JSON-RPC from input, writing response lines. */
export function serveLines(server: McpServer,
  input: AsyncIterable<string | Uint8Array>,
  write: (line: string) => unknown): Promise<void>;

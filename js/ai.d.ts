// ai.d.ts - types of memsandbox/ai (Vercel AI SDK tools).
import type { Sandbox } from './index.d.ts';
import type { JsonSchema, ToolEnvelope, ToolName, ToolOptions } from './tools.d.ts';

export interface AiToolDefinition {
  description: string;
  /** jsonSchema(parameters) from 'ai', or the same shape built here. */
  inputSchema: unknown;
  execute(input: unknown): Promise<ToolEnvelope>;
}

export interface AiToolOptions extends ToolOptions {
  /** tool() from 'ai' (optional: it only returns its argument). */
  tool?: (def: AiToolDefinition) => unknown;
  /** jsonSchema() from 'ai' (optional). */
  jsonSchema?: (schema: JsonSchema) => unknown;
}

export function aiTools(sandbox: Sandbox, options?: AiToolOptions): Record<ToolName, AiToolDefinition>;

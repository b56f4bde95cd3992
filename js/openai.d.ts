// openai.d.ts - types of memsandbox/openai.
import type { Sandbox } from './index.d.ts';
import type { JsonSchema, ToolName, ToolOptions } from './tools.d.ts';

export interface OpenAIToolDefinition {
  name: ToolName;
  description: string;
  parameters: JsonSchema;
  strict: true;
  /** Resolves to the envelope as compact JSON text. */
  execute(input: unknown): Promise<string>;
}

export function openaiToolDefinitions(sandbox: Sandbox, options?: ToolOptions): OpenAIToolDefinition[];
/** With { tool } from '@openai/agents': the SDK's FunctionTools. */
export function openaiTools<T>(sandbox: Sandbox,
  options: ToolOptions & { tool: (def: OpenAIToolDefinition) => T }): T[];
export function openaiTools(sandbox: Sandbox, options?: ToolOptions): OpenAIToolDefinition[];

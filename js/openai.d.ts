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

export interface OpenAIShellResult {
  output: Array<{ stdout: string; stderr: string; outcome: { type: 'exit'; exitCode: number } }>;
  maxOutputLength?: number;
}
/** A Shell for shellTool({ shell }) from '@openai/agents'. */
export function openaiShell(sandbox: Sandbox): {
  run(action: { commands: string[]; timeoutMs?: number; maxOutputLength?: number }): Promise<OpenAIShellResult>;
};

export interface OpenAIEditorResult {
  status: 'completed' | 'failed';
  output: string;
}
/** An Editor for applyPatchTool({ editor }) from '@openai/agents'. */
export function openaiEditor(sandbox: Sandbox): {
  createFile(op: { type?: 'create_file'; path: string; diff: string }): Promise<OpenAIEditorResult>;
  updateFile(op: { type?: 'update_file'; path: string; diff: string; moveTo?: string }): Promise<OpenAIEditorResult>;
  deleteFile(op: { type?: 'delete_file'; path: string }): Promise<OpenAIEditorResult>;
};

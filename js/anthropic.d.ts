// anthropic.d.ts - types of memsandbox/anthropic (the tools' types come
// from @anthropic-ai/sdk, a peer dependency).
import type { BetaRunnableTool } from '@anthropic-ai/sdk/lib/tools/BetaRunnableTool';
import type { MemoryToolHandlers } from '@anthropic-ai/sdk/helpers/beta/memory';
import type {
  BetaToolTextEditor20250728, BetaToolBash20250124, BetaMemoryTool20250818,
  BetaToolResultBlockParam, BetaToolUseBlock,
} from '@anthropic-ai/sdk/resources/beta';
import type { Sandbox } from './index.d.ts';

export interface TextEditorInput {
  command: 'view' | 'create' | 'str_replace' | 'insert';
  path: string;
  view_range?: [number, number] | null;
  file_text?: string;
  old_str?: string;
  new_str?: string | null;
  insert_line?: number;
  insert_text?: string;
}

export interface BashInput {
  command?: string;
  restart?: boolean;
}

export interface AnthropicToolsOptions {
  /** Longest view output before it is clipped (also sent as max_characters). */
  maxCharacters?: number;
  /** Where the memory tool lives (default /memories). */
  memoryRoot?: string;
}

/** A BetaRunnableTool whose run resolves to the text the model reads. */
export type TextTool<Input, Definition> = Omit<BetaRunnableTool<Input>, 'run'> & Definition & {
  /** Rejects with an Error whose message the model reads. */
  run(input: Input): Promise<string>;
};

export type MemoryCommand = Parameters<MemoryToolHandlers[keyof MemoryToolHandlers]>[0];

export interface AnthropicTools {
  /** text_editor_20250728 (str_replace_based_edit_tool); paths are absolute. */
  textEditor: TextTool<TextEditorInput, BetaToolTextEditor20250728>;
  /** bash_20250124; restart puts the shell session back as it was. */
  bash: TextTool<BashInput, BetaToolBash20250124>;
  /** memory_20250818, confined to memoryRoot. */
  memory: TextTool<MemoryCommand, BetaMemoryTool20250818>;
  /** For betaMemoryTool(handlers) from '@anthropic-ai/sdk/helpers/beta/memory'. */
  memoryHandlers: MemoryToolHandlers;
  all: Array<AnthropicTools['textEditor'] | AnthropicTools['bash'] | AnthropicTools['memory']>;
  /** The tool_result block for a tool_use block; failures are is_error results. */
  handle(toolUse: Pick<BetaToolUseBlock, 'id' | 'name' | 'input'>): Promise<BetaToolResultBlockParam>;
}

export function anthropicTools(sandbox: Sandbox, options?: AnthropicToolsOptions): AnthropicTools;

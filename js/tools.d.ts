// tools.d.ts - types of memsandbox/tools (also exported by the package root).
import type { Sandbox } from './index.d.ts';

export type ToolName = 'execute' | 'read_file' | 'write_file' | 'apply_patch';
/** The optional tools createTools adds with { include }. */
export type ExtraToolName = 'edit_file' | 'list_directory' | 'glob' | 'grep';

export interface ToolError {
  category: string;
  code: string;
  message: string;
  correctable: boolean;
  retryable: boolean;
  /** Why the arguments were rejected (code invalid_tool_input). */
  details?: string;
  operation_id?: string;
  /** Internal errors only: the message is redacted; this finds the log. */
  correlation_id?: string;
}

export type ToolEnvelope<R = Record<string, unknown>> =
  | { ok: true; result: R }
  | { ok: false; error: ToolError };

/** A JSON Schema object (the subset the tools use). */
export type JsonSchema = Record<string, unknown>;

export interface Tool {
  name: ToolName | ExtraToolName;
  description: string;
  /** Strict JSON Schema: additionalProperties false, every property required (optional ones nullable). */
  parameters: JsonSchema;
  /** Never throws: bad arguments and failures are ok:false envelopes.
   * opts.signal cancels an execute call's run (limit 'cancelled'). */
  execute(args: unknown, opts?: { signal?: AbortSignal }): Promise<ToolEnvelope>;
}

export interface ToolOptions {
  /** Reported in metadata.session_id (default: a random id). */
  sessionId?: string;
  maxReadLines?: number;
  maxReadBytes?: number;
  maxPatchBytes?: number;
  maxOutputBytes?: number;
  /**
   * Secret values bound to every execute call ({ NAME: value }): expanded
   * inside the sandbox, redacted from output as [REDACTED]; write_file and
   * apply_patch refuse content holding one (protected_value_rejected).
   */
  secrets?: Record<string, string>;
  /**
   * Optional tools after the four: edit_file (unique-match replacement,
   * replace_all), list_directory, glob and grep (paginated: offset, limit,
   * next_offset).
   */
  include?: ExtraToolName[];
  /** 'compact' drops metadata (ids, timestamps); default 'reference'. */
  envelope?: 'reference' | 'compact';
  /**
   * Error codes: the reference's (default: session_policy_denied with
   * "policy denied <tool>: <reason>", invalid_path for over-long paths,
   * session_closed) or 'memsandbox' (policy_denied with the rule named,
   * path_too_long, sandbox_closed).
   */
  errorCodes?: 'reference' | 'memsandbox';
}

export const TOOL_LIMITS: Readonly<{
  maxReadLines: number;
  maxReadBytes: number;
  maxPatchBytes: number;
  maxOutputBytes: number;
}>;
export const TOOL_NAMES: readonly ToolName[];

/** execute, read_file, write_file and apply_patch (then options.include) over one sandbox. */
export function createTools(sandbox: Sandbox, options?: ToolOptions): Tool[];
/** The envelope without metadata (ids, timestamps) or an error's operation_id. */
export function compactEnvelope(envelope: ToolEnvelope): ToolEnvelope;
/** Compact JSON, sorted keys, ASCII escapes: the reference's wire form. */
export function toolResultText(envelope: ToolEnvelope): string;

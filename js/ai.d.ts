// ai.d.ts - types of memsandbox/ai (Vercel AI SDK tools).
import type { Sandbox } from './index.d.ts';
import type { ExtraToolName, ToolEnvelope, ToolName, ToolOptions } from './tools.d.ts';
import type { Tool, tool as aiTool, jsonSchema as aiJsonSchema } from 'ai';

/** One tool as the AI SDK takes it: arguments in, the envelope out. */
export type AiToolDefinition = Tool<Record<string, unknown>, ToolEnvelope> & {
  /** Never throws for bad input; rejects only when options.abortSignal was aborted. */
  execute(input: Record<string, unknown>, options?: { abortSignal?: AbortSignal }): Promise<ToolEnvelope>;
};

export interface AiToolOptions extends ToolOptions {
  /** tool() from 'ai' (optional: it only returns its argument). */
  tool?: typeof aiTool;
  /** jsonSchema() from 'ai' (optional). */
  jsonSchema?: typeof aiJsonSchema;
}

/** A ToolSet for generateText / streamText / agents. */
export function aiTools<I extends ExtraToolName = never>(sandbox: Sandbox,
  options?: AiToolOptions & { include?: I[] }): Record<ToolName | I, AiToolDefinition>;

// ---- sandbox sessions (types from the SDKs, peer dependencies) ------------
import type { Experimental_SandboxSession } from 'ai';
import type { HarnessV1NetworkSandboxSession, HarnessV1SandboxProvider } from '@ai-sdk/harness';
import type { CreateOptions } from './index.d.ts';

export interface AiSandboxSessionOptions {
  /** Where relative paths and commands start (default /workspace). */
  baseDirectory?: string;
  description?: string;
}

/**
 * An Experimental_SandboxSession over a sandbox. spawn() delivers the whole
 * output when the run ends, and kill() cannot stop a run yet.
 */
export function aiSandboxSession(sandbox: Sandbox, options?: AiSandboxSessionOptions): Experimental_SandboxSession;

/** A HarnessV1SandboxProvider: each session is a new Sandbox; no ports. */
export function memsandboxProvider(options?: CreateOptions & { baseDirectory?: string }):
  HarnessV1SandboxProvider & {
    createSession: (...args: Parameters<HarnessV1SandboxProvider['createSession']>) =>
      Promise<HarnessV1NetworkSandboxSession>;
  };

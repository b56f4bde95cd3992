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

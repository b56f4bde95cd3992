// openai.d.ts - types of memsandbox/openai.
import type { Sandbox } from './index.d.ts';
import type { ExtraToolName, ToolName, ToolOptions } from './tools.d.ts';
import type { ToolInputParameters, Shell, Editor } from '@openai/agents';

/** Strict JSON Schema parameters, as the SDK's tool() types them. */
export type OpenAIToolParameters = Extract<ToolInputParameters, { additionalProperties: false }>;

export interface OpenAIToolDefinition {
  name: ToolName | ExtraToolName;
  description: string;
  parameters: OpenAIToolParameters;
  strict: true;
  /** Resolves to the envelope as compact JSON text. */
  execute(input: unknown): Promise<string>;
}

export function openaiToolDefinitions(sandbox: Sandbox, options?: ToolOptions): OpenAIToolDefinition[];
/**
 * With { tool } from '@openai/agents': the SDK's FunctionTools (with any
 * other helper, whatever it makes of each definition).
 */
export function openaiTools<T>(sandbox: Sandbox,
  options: ToolOptions & { tool: (def: OpenAIToolDefinition) => T }): T[];
export function openaiTools(sandbox: Sandbox, options?: ToolOptions): OpenAIToolDefinition[];

export interface OpenAIShellResult {
  output: Array<{ stdout: string; stderr: string; outcome: { type: 'exit'; exitCode: number } | { type: 'timeout' } }>;
  maxOutputLength?: number;
}
/** A Shell for shellTool({ shell }) from '@openai/agents'. */
export function openaiShell(sandbox: Sandbox): Shell & {
  run(action: { commands: string[]; timeoutMs?: number; maxOutputLength?: number }): Promise<OpenAIShellResult>;
};

export interface OpenAIEditorResult {
  status: 'completed' | 'failed';
  output: string;
}
/** An Editor for applyPatchTool({ editor }) from '@openai/agents'. */
export function openaiEditor(sandbox: Sandbox): Editor & {
  createFile(op: { type?: 'create_file'; path: string; diff: string }): Promise<OpenAIEditorResult>;
  updateFile(op: { type?: 'update_file'; path: string; diff: string; moveTo?: string }): Promise<OpenAIEditorResult>;
  deleteFile(op: { type?: 'delete_file'; path: string }): Promise<OpenAIEditorResult>;
};

// ---- SandboxAgent backend (types from the SDK, a peer dependency) ----------
import type {
  SandboxClient, SandboxClientCreateArgs, SandboxSession, SandboxSessionState,
  ExecCommandArgs, SandboxExecResult, ReadFileArgs, ListDirectoryArgs,
  SandboxDirectoryEntry, ViewImageArgs, MaterializeEntryArgs, Manifest,
  WorkspaceArchiveData,
} from '@openai/agents/sandbox';
import type { ToolOutputImage } from '@openai/agents';
import type { CreateOptions } from './index.d.ts';

/** A SandboxSession over one Sandbox (backend id "memsandbox"). */
export declare class MemSandboxSession implements SandboxSession {
  constructor(sandbox: Sandbox, state?: Partial<SandboxSessionState>);
  readonly sandbox: Sandbox;
  state: SandboxSessionState;
  /** The manifest root (default /workspace); relative paths resolve here. */
  readonly root: string;
  resolve(path: string): string;
  exec(args: ExecCommandArgs): Promise<SandboxExecResult>;
  execCommand(args: ExecCommandArgs): Promise<string>;
  /** Always false: a run cannot go on in the background, so no write_stdin. */
  supportsPty(): boolean;
  createEditor(runAs?: string): Editor;
  readFile(args: ReadFileArgs): Promise<Uint8Array>;
  /** PNG, JPEG, GIF or WebP, by signature. */
  viewImage(args: ViewImageArgs): Promise<ToolOutputImage>;
  listDir(args: ListDirectoryArgs): Promise<SandboxDirectoryEntry[]>;
  pathExists(path: string, runAs?: string): Promise<boolean>;
  directoryExists(path: string, runAs?: string): Promise<boolean>;
  materializeEntry(args: MaterializeEntryArgs): Promise<void>;
  applyManifest(manifest: Manifest, runAs?: string): Promise<void>;
  /** A MemSandbox snapshot (gzip tar of the whole state). */
  persistWorkspace(): Promise<Uint8Array>;
  hydrateWorkspace(data: WorkspaceArchiveData): Promise<void>;
  running(): Promise<boolean>;
  start(): Promise<void>;
  stop(): Promise<void>;
  shutdown(): Promise<void>;
  delete(): Promise<void>;
  close(): Promise<void>;
}

/** A SandboxClient: each create() is a new Sandbox made with these options. */
export declare class MemSandboxClient implements SandboxClient {
  constructor(options?: CreateOptions);
  readonly backendId: 'memsandbox';
  readonly options: CreateOptions;
  create(args?: SandboxClientCreateArgs): Promise<MemSandboxSession>;
  create(manifest: Manifest, options?: Record<string, unknown>): Promise<MemSandboxSession>;
  /** The state plus the workspace as base64 (a snapshot). */
  serializeSessionState(state: SandboxSessionState): Promise<Record<string, unknown>>;
  deserializeSessionState(state: Record<string, unknown>): Promise<SandboxSessionState>;
  resume(state: SandboxSessionState): Promise<MemSandboxSession>;
}

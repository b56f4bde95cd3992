// index.d.ts - types of the memsandbox package (every entry exports these).

/** A WebAssembly module source: compiled, bytes, or where to fetch it. */
export type WasmSource =
  | WebAssembly.Module
  | ArrayBuffer
  | ArrayBufferView
  | URL
  | string
  | (() => WasmSource | Promise<WasmSource>);

export type ErrorCategory =
  | 'invalid_request'
  | 'not_found'
  | 'conflict'
  | 'quota_exceeded'
  | 'policy_denied'
  | 'timeout'
  | 'cancelled'
  | 'unsupported'
  | 'internal';

export class MemSandboxError extends Error {
  readonly name: 'MemSandboxError';
  /** snake_case code, e.g. "path_not_found". */
  readonly code: string;
  readonly category: ErrorCategory;
  /** The C result code (negative MSB_E*), when one applies. */
  readonly errno?: number;
  /** The call that failed, e.g. "write", when a sandbox call failed. */
  readonly operation?: string;
  /** The path that call was given, when it took one. */
  readonly path?: string;
  /** A policy denial: the id of the operation it refused (its events'). */
  readonly operationId?: number;
  readonly correctable: boolean;
  readonly retryable: boolean;
  toJSON(): {
    category: ErrorCategory;
    code: string;
    message: string;
    correctable: boolean;
    retryable: boolean;
  };
}

/** Limits by C field name (camelCase accepted too). */
export interface Limits {
  max_memory_bytes?: number;
  max_total_bytes?: number;
  max_file_bytes?: number;
  max_nodes?: number;
  max_path_bytes?: number;
  max_segment_bytes?: number;
  max_depth?: number;
  max_steps?: number;
  max_call_depth?: number;
  max_script_bytes?: number;
  max_output_bytes?: number;
  max_string_bytes?: number;
  max_array_items?: number;
  max_glob_work?: number;
  [camelCase: string]: number | undefined;
}

export type Content = string | Uint8Array | ArrayBuffer | ArrayBufferView;

/**
 * One event. Events from the core carry seq (strictly increasing per
 * sandbox), operation (id) and op (operation kind); the terminal event of
 * an operation carries the revision, and an execute's its exit_code and
 * bytes. Never file contents, command text, output or environment values.
 */
export interface SandboxEvent {
  kind:
    | 'sandbox.created' | 'sandbox.started' | 'sandbox.closing' | 'sandbox.closed' | 'sandbox.failed'
    | 'operation.started' | 'operation.completed' | 'operation.failed'
    | 'policy.denied' | 'limit.exceeded' | 'snapshot.created' | 'snapshot.restored'
    | 'events.dropped' | 'event.malformed';
  /** The sandbox's id (SandboxService handle). */
  sandbox: string;
  seq?: number;
  operation?: number;
  op?: OperationKind;
  revision?: number;
  exit_code?: number;
  /** Normalised paths the operation named (at most 8). */
  paths?: string[];
  bytes?: { stdout?: number; stderr?: number; read?: number; written?: number };
  /** policy.denied: denials in the operation; events.dropped: events lost. */
  count?: number;
  limit?: string;
  /** operation.failed: the C code name, e.g. "MSB_ENOENT". */
  code?: string;
  /** policy.denied: "operation", "command" or "path". */
  reason?: string;
  /** sandbox.failed: what broke. */
  message?: string;
  /** sandbox.created of a fork: the parent's id. */
  forkedFrom?: string;
}

export type OperationKind =
  | 'execute' | 'read_file' | 'write_file' | 'stat' | 'list_entries'
  | 'create_directory' | 'remove_path' | 'copy_path' | 'move_path'
  | 'create_symlink' | 'read_link' | 'change_mode' | 'hash' | 'checkpoint'
  | 'rollback' | 'release' | 'create_snapshot' | 'restore_snapshot' | 'fork'
  | 'apply_patch';

/** A policy as an object; the text form (memsandbox.h) is accepted too. */
export interface Policy {
  /** When given, only these commands (plus shell builtins) may run. */
  allowCommands?: string[];
  /** Never run these (builtins included). */
  denyCommands?: string[];
  /** Access by path prefix; the longest matching prefix wins. */
  paths?: Record<string, 'none' | 'read-only' | 'read-write'>;
  /** When given, only these host operations are allowed. */
  allowOperations?: OperationKind[];
  denyOperations?: OperationKind[];
}

export interface CreateOptions {
  files?: Record<string, Content> | Array<{ path: string; content?: Content; mode?: number }>;
  directories?: string[];
  cwd?: string;
  env?: Record<string, string>;
  profile?: 'normal' | 'strict';
  limits?: Limits;
  /** 'system' (default: host time before each call), a Date, ms, or BigInt ns. */
  clock?: 'system' | Date | number | bigint;
  seed?: number | bigint;
  /** execute's default sliceMs (4; Infinity: run scripts whole). */
  sliceMs?: number;
  onEvent?: (event: SandboxEvent) => void;
  /** Set after files and directories are seeded. */
  policy?: Policy | string;
  wasm?: WasmSource;
}

export interface ExecuteOptions {
  stdin?: Content;
  cwd?: string;
  /** $0 for this call, and the name errors are reported under (as
   * `bash -c SCRIPT NAME`); the session's own ("bash") otherwise. */
  arg0?: string;
  env?: Record<string, string>;
  /**
   * Secret values for this call only, bound like env. Every occurrence in
   * stdout/stderr becomes "[REDACTED]", writes containing one are refused,
   * and nothing holding one is kept after the call. At most 16, each value
   * 1-4096 bytes without NUL; names not used by the shell (PWD, PATH, ...).
   */
  secrets?: Record<string, string>;
  fresh?: boolean;
  atomic?: boolean;
  encoding?: 'utf8' | 'bytes';
  /**
   * The script runs in slices, giving the event loop a turn at least every
   * sliceMs (default: the sandbox's, 4) so timers fire and the page
   * renders while it runs; Infinity runs it whole. The result is the same
   * whatever the slicing. Operations called while a run is paused wait for
   * it and run in call order; synchronous members the core cannot answer
   * then throw sandbox_busy.
   */
  sliceMs?: number;
  /** Aborting ends the run at its next slice: exit 130, limit 'cancelled'. */
  signal?: AbortSignal;
  /** Wall-clock budget: exit 124, limit 'timeout'. */
  timeoutMs?: number;
  /** Output as it is produced (redacted), in chunks; the result still has all of it. */
  onStdout?: (chunk: any) => void;
  onStderr?: (chunk: any) => void;
}

export interface ExecuteResult<T = string> {
  exitCode: number;
  stdout: T;
  stderr: T;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  stdoutBytes: number;
  stderrBytes: number;
  cwd: string;
  revision: number;
  durationMs: number;
  /** Name of the limit that stopped the run, e.g. "max_steps". */
  limit: string | null;
  /** Why exitCode is not 0, recorded by what failed (the reference's
   * failure_code); null for 0. */
  failure: 'invalid_argument' | 'workspace_failure' | 'no_match' | 'command_not_found' |
    'command_not_executable' | 'redirection_failure' | 'execution_limit_exceeded' |
    'nonzero_exit' | null;
  rolledBack: boolean;
}

export interface Stat {
  kind: 'file' | 'directory' | 'symlink';
  mode: number;
  size: number;
  mtimeMs: number;
  nodes: number;
  bytes: number;
}

export interface ForkOptions {
  /** 'memory' (default): copy the instance memory; 'serialize': restore an
   * uncompressed snapshot into a new sandbox. */
  mode?: 'memory' | 'serialize';
  onEvent?: (event: SandboxEvent) => void;
}

export type SandboxState = 'CREATED' | 'RUNNING' | 'CLOSED' | 'FAILED';
export const SandboxState: Readonly<Record<SandboxState, SandboxState>>;

export interface ApplyPatchOptions {
  /** Where relative patch paths resolve (default /workspace). */
  cwd?: string;
  /** Unified hunks only at their stated lines (no offset search). */
  exact?: boolean;
  /** Check and report; change nothing. */
  dryRun?: boolean;
  /** Refuse paths with a ".." component or outside /workspace. */
  workspaceOnly?: boolean;
  /** Compare-and-swap guards: hex SHA-256 each file must still have. */
  expectedHashes?: Record<string, string> | Array<{ path: string; hash: string }>;
}

export interface PatchedFile {
  /** Absolute path (the destination of a move). */
  path: string;
  op: 'add' | 'update' | 'delete' | 'move';
  /** Source of a move. */
  from?: string;
  previousHash: string | null;
  currentHash: string | null;
}

export interface ApplyPatchResult {
  files: PatchedFile[];
  revision: number;
}

/** A top directory of a state manifest. */
export interface StateTop {
  key: string;
  mode: number;
  /** nanoseconds, decimal */
  mtime: string;
}

/** The JSON-safe root of a content-addressed state (exportState). */
export interface StateManifest {
  format: 'memsandbox-state-1';
  tmp?: StateTop;
  workspace: StateTop;
  rootHash: string;
  revision: string;
  cwd: string;
  /** key of the shell session's piece */
  session: string;
}

export interface StateExport {
  manifest: StateManifest;
  /** the pieces `since` lacked, by SHA-256 key (hex) */
  pieces: Map<string, Uint8Array>;
  /** every key the manifest reaches */
  keys: Set<string>;
  /** each listing's file and link keys and subdirectory keys, so a later
   * export skips what has not changed */
  index: Map<string, { leaves: string[]; dirs: string[] }>;
}

export type GetPiece = (key: string) =>
  Uint8Array | undefined | null | Promise<Uint8Array | undefined | null>;

export const STATE_FORMAT: 'memsandbox-state-1';
/** Entries of a directory piece (throws malformed_input on a bad one). */
export function dirEntries(piece: Uint8Array, key?: string): {
  kind: 'file' | 'directory' | 'symlink' | 'command' | 'hardlink'; mode: number; mtime: string; key: string; name: Uint8Array;
}[];

/** Where content-addressed state lives: string keys to bytes. */
export interface SnapshotStore {
  get(key: string): Promise<Uint8Array | undefined>;
  put(key: string, value: Uint8Array): Promise<void>;
  has(key: string): Promise<boolean>;
  delete(key: string): Promise<unknown>;
  list(prefix?: string): Promise<string[]>;
  /** optional: all entries at once (atomically where the store can) */
  putMany?(entries: [string, Uint8Array][]): Promise<void>;
}
export class MemoryStore implements SnapshotStore {
  constructor();
  get(key: string): Promise<Uint8Array | undefined>;
  put(key: string, value: Uint8Array): Promise<void>;
  has(key: string): Promise<boolean>;
  delete(key: string): Promise<boolean>;
  list(prefix?: string): Promise<string[]>;
  putMany(entries: [string, Uint8Array][]): Promise<void>;
}
export class KeyValueStore implements SnapshotStore {
  constructor(ops: {
    get(key: string): Promise<Uint8Array | ArrayBuffer | undefined | null>;
    put(key: string, value: Uint8Array): Promise<unknown>;
    delete(key: string): Promise<unknown>;
    has?(key: string): Promise<boolean>;
    list?(prefix: string): Promise<string[]>;
  }, options?: { prefix?: string });
  get(key: string): Promise<Uint8Array | undefined>;
  put(key: string, value: Uint8Array): Promise<void>;
  has(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
  list(prefix?: string): Promise<string[]>;
}
/** A directory of the host's filesystem (the Node and Bun entry only). */
export class FileStore implements SnapshotStore {
  constructor(dir: string);
  get(key: string): Promise<Uint8Array | undefined>;
  put(key: string, value: Uint8Array): Promise<void>;
  has(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
  list(prefix?: string): Promise<string[]>;
}
/** Durable Object storage (ctx.storage); putMany is one transaction. */
export class DurableObjectStore implements SnapshotStore {
  constructor(storage: any, options?: { prefix?: string });
  get(key: string): Promise<Uint8Array | undefined>;
  put(key: string, value: Uint8Array): Promise<void>;
  has(key: string): Promise<boolean>;
  delete(key: string): Promise<boolean>;
  list(prefix?: string): Promise<string[]>;
  putMany(entries: [string, Uint8Array][]): Promise<void>;
}
/** Saves an export's pieces and then its manifest under name. */
export function saveState(store: SnapshotStore, name: string,
  exported: { manifest: StateManifest; pieces: Map<string, Uint8Array> }): Promise<{ pieces: number; bytes: number }>;
export function loadManifest(store: SnapshotStore, name: string): Promise<StateManifest | undefined>;
export function pieceReader(store: SnapshotStore): GetPiece;
/** Removes the pieces no saved manifest reaches; resolves to the count. */
export function collectGarbage(store: SnapshotStore): Promise<number>;

export class Sandbox {
  static create(options?: CreateOptions): Promise<Sandbox>;
  /** A new sandbox from a state manifest and its pieces; validated as
   * restore validates a snapshot, all or nothing. */
  static importState(manifest: StateManifest, getPiece: GetPiece,
    options?: CreateOptions): Promise<Sandbox>;
  /** A new sandbox holding a snapshot's (or any tar's) state; files,
   * directories, cwd and env options apply on top of it. */
  static fromSnapshot(archive: Content, options?: CreateOptions): Promise<Sandbox>;
  readonly state: SandboxState;
  readonly limits: Required<Limits>;
  readonly revision: number;
  readonly memoryUsed: number;
  execute(script: string | Uint8Array, options?: ExecuteOptions & { encoding?: 'utf8' }): Promise<ExecuteResult<string>>;
  execute(script: string | Uint8Array, options: ExecuteOptions & { encoding: 'bytes' }): Promise<ExecuteResult<Uint8Array>>;
  parseCheck(script: string | Uint8Array): 'complete' | 'incomplete' | 'error';
  readFile(path: string, options?: { encoding?: 'utf8' }): Promise<string>;
  readFile(path: string, options: { encoding: 'bytes' }): Promise<Uint8Array>;
  writeFile(path: string, content: Content, options?: {
    parents?: boolean; mustNotExist?: boolean; expectHash?: string; mode?: number;
  }): Promise<{ revision: number; hash: string }>;
  appendFile(path: string, content: Content, options?: { parents?: boolean }): Promise<{ revision: number }>;
  stat(path: string, options?: { followSymlinks?: boolean }): Promise<Stat>;
  exists(path: string): Promise<boolean>;
  list(path?: string | Uint8Array): Promise<string[]>;
  list(path: string | Uint8Array, options: { encoding: 'bytes' }): Promise<Uint8Array[]>;
  mkdir(path: string, options?: { parents?: boolean; existOk?: boolean; mode?: number }): Promise<{ revision: number }>;
  remove(path: string, options?: { recursive?: boolean; missingOk?: boolean }): Promise<{ revision: number }>;
  copy(src: string, dst: string, options?: { recursive?: boolean; overwrite?: boolean; parents?: boolean }): Promise<{ revision: number }>;
  move(src: string, dst: string, options?: { overwrite?: boolean; parents?: boolean }): Promise<{ revision: number }>;
  symlink(target: string, linkPath: string): Promise<{ revision: number }>;
  readlink(path: string): Promise<string>;
  chmod(path: string, mode: number): Promise<{ revision: number }>;
  /** SHA-256 as hex. */
  hash(path: string): Promise<string>;
  rootHash(): Promise<string>;
  /**
   * Applies a unified diff or an OpenAI V4A patch atomically. Relative
   * patch paths resolve against cwd (default /workspace).
   */
  applyPatch(patch: Content, options?: ApplyPatchOptions): Promise<ApplyPatchResult>;
  /** The shell session's exported variables. */
  env(): Promise<Record<string, string>>;
  /** The shell session's working directory. */
  readonly cwd: string;
  checkpoint(): Promise<number>;
  rollback(id: number): Promise<void>;
  release(id: number): Promise<void>;
  snapshot(options?: { level?: number }): Promise<Uint8Array>;
  restore(archive: Content): Promise<{ revision: number }>;
  /** The state as content-addressed pieces; with since (an earlier
   * export, or a set of keys a store holds) only the missing pieces. */
  exportState(options?: { since?: StateExport | { has(key: string): boolean } }): Promise<StateExport>;
  /** Opaque id events carry as `sandbox`. */
  readonly id: string;
  setPolicy(policy: Policy | string): Promise<void>;
  fork(options?: ForkOptions): Promise<Sandbox>;
  close(): Promise<void>;
  /** `await using sb = await Sandbox.create()` closes it at scope exit. */
  [Symbol.asyncDispose](): Promise<void>;
}

export function createSandbox(options?: CreateOptions): Promise<Sandbox>;

export class SandboxService {
  /** workers (Node and Bun): sandboxes in that many worker threads, each
   * pinned to one; stateDir: where each sandbox's state is saved after
   * every change, so a crashed worker's sandboxes restore in a new one. */
  constructor(defaults?: CreateOptions & { workers?: number; stateDir?: string });
  create(options?: CreateOptions): Promise<{ handle: string; sandbox: Sandbox }>;
  get(handle: string): Sandbox;
  resume(archive: Content, options?: CreateOptions): Promise<{ handle: string; sandbox: Sandbox }>;
  fork(handle: string, options?: ForkOptions): Promise<{ handle: string; sandbox: Sandbox }>;
  delete(handle: string): Promise<void>;
  list(): Array<{ handle: string; state: SandboxState }>;
  close(): Promise<void>;
}

export function setDefaultWasm(source: WasmSource): void;
export function setFileReader(reader: (path: string | URL) => Promise<Uint8Array>): void;
export function loadModule(source?: WasmSource): Promise<WebAssembly.Module>;

export const constants: {
  version: string;
  codes: Record<string, number>;
  constants: Record<string, number>;
  limitFields: Array<{ name: string; bits: 32 | 64 }>;
};

export * from './tools.js';

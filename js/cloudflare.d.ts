import type { CreateOptions, ExecuteOptions, ExecuteResult, StateManifest, Stat } from './index.js';

/** Every mutating call takes one: a retry with a recorded key is answered
 * with the first result and not applied again. */
export interface Idempotent {
  idempotencyKey?: string;
}

/** A Durable Object hosting one sandbox; Workers RPC methods below, and
 * fetch() serves the same as HTTP (see the package README). */
export class SandboxObject {
  constructor(ctx: any, env: any);
  /** Milliseconds of inactivity before the alarm drops the in-memory
   * sandbox and collects unreferenced pieces. */
  idleMs: number;
  create(options?: CreateOptions, call?: Idempotent): Promise<{ rootHash: string; revision: number }>;
  execute(script: string, options?: ExecuteOptions & Idempotent): Promise<ExecuteResult>;
  writeFile(path: string, content: string | Uint8Array, options?: Idempotent & Record<string, unknown>): Promise<{ revision: number; hash: string }>;
  remove(path: string, options?: Idempotent & { recursive?: boolean; force?: boolean }): Promise<unknown>;
  mkdir(path: string, options?: Idempotent & { parents?: boolean }): Promise<unknown>;
  readFile(path: string, options?: { encoding?: 'utf8' | 'bytes' }): Promise<any>;
  list(path?: string): Promise<unknown>;
  stat(path: string, options?: Record<string, unknown>): Promise<Stat>;
  info(): Promise<{ rootHash: string; revision: number; cwd: string }>;
  /** The current manifest; kept (and its pieces with it) under name. */
  snapshot(name?: string): Promise<StateManifest>;
  getPieces(keys: string[]): Promise<Record<string, Uint8Array>>;
  /** Makes this object a fork: parent is the other object's stub. */
  forkFrom(manifest: StateManifest, parent: { getPieces(keys: string[]): Promise<Record<string, Uint8Array>> },
    options?: { create?: CreateOptions }): Promise<{ rootHash: string; revision: number }>;
  delete(): Promise<{ deleted: true }>;
  alarm(): Promise<void>;
  fetch(request: Request): Promise<Response>;
}

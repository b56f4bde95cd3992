// just-bash.d.ts - types of memsandbox/just-bash (the just-bash API).
import type { CreateOptions, Sandbox } from './index.d.ts';

export type FileContent = string | Uint8Array;
export interface FileInit { content: FileContent; mode?: number; mtime?: Date }
export type InitialFiles = Record<string, FileContent | FileInit | (() => FileContent | Promise<FileContent>)>;

export interface BashOptions {
  files?: InitialFiles;
  env?: Record<string, string>;
  /** Default /home/user. */
  cwd?: string;
  /** Keep variables, functions and cwd between exec calls (just-bash resets them). */
  keepState?: boolean;
  /** Sandbox.create options: limits, policy, wasm... */
  sandbox?: CreateOptions;
}

export interface ExecOptions {
  env?: Record<string, string>;
  replaceEnv?: boolean;
  cwd?: string;
  stdin?: string;
  signal?: AbortSignal;
}

export interface BashExecResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  env: Record<string, string>;
}

export interface FsStat {
  isFile: boolean;
  isDirectory: boolean;
  isSymbolicLink: boolean;
  mode: number;
  size: number;
  mtime: Date;
}

export interface DirentEntry { name: string; isFile: boolean; isDirectory: boolean; isSymbolicLink: boolean }

type Encoding = 'utf8' | 'utf-8' | 'ascii' | 'binary' | 'base64' | 'hex' | 'latin1';

export interface BashFs {
  resolvePath(base: string, path: string): string;
  readFile(path: string, options?: { encoding?: Encoding | null } | Encoding): Promise<string>;
  readFileBuffer(path: string): Promise<Uint8Array>;
  writeFile(path: string, content: FileContent): Promise<void>;
  appendFile(path: string, content: FileContent): Promise<void>;
  exists(path: string): Promise<boolean>;
  stat(path: string): Promise<FsStat>;
  lstat(path: string): Promise<FsStat>;
  mkdir(path: string, options?: { recursive?: boolean }): Promise<void>;
  readdir(path: string): Promise<string[]>;
  readdirWithFileTypes(path: string): Promise<DirentEntry[]>;
  rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void>;
  cp(src: string, dest: string, options?: { recursive?: boolean }): Promise<void>;
  mv(src: string, dest: string): Promise<void>;
  chmod(path: string, mode: number): Promise<void>;
  symlink(target: string, linkPath: string): Promise<void>;
  readlink(path: string): Promise<string>;
  realpath(path: string): Promise<string>;
}

/** just-bash's Bash over a MemSandbox, created on first use. */
export declare class Bash {
  constructor(options?: BashOptions);
  readonly fs: BashFs;
  /** The sandbox once created (null before the first call). */
  readonly sandbox: Sandbox | null;
  exec(commandLine: string, options?: ExecOptions): Promise<BashExecResult>;
  readFile(path: string): Promise<string>;
  writeFile(path: string, content: FileContent): Promise<void>;
  getCwd(): string;
  getEnv(): Record<string, string>;
  close(): Promise<void>;
}

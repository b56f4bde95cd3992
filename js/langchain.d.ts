// langchain.d.ts - types of memsandbox/langchain (deepagents backend; the
// protocol's types come from deepagents, a peer dependency).
import type {
  SandboxBackendProtocolV2, ExecuteResponse, LsResult, ReadResult, ReadRawResult,
  GrepResult, GlobResult, WriteResult, EditResult, DeleteResult,
  FileUploadResponse, FileDownloadResponse,
} from 'deepagents';
import type { Sandbox } from './index.d.ts';

/** A deepagents sandbox backend over one Sandbox: createDeepAgent({ backend }). */
export declare class MemSandboxBackend implements SandboxBackendProtocolV2 {
  constructor(sandbox: Sandbox, options?: { maxGlobEntries?: number });
  readonly sandbox: Sandbox;
  /** The sandbox's id. */
  readonly id: string;
  execute(command: string): Promise<ExecuteResponse>;
  ls(path: string): Promise<LsResult>;
  read(filePath: string, offset?: number, limit?: number): Promise<ReadResult>;
  readRaw(filePath: string): Promise<ReadRawResult>;
  /** Literal search; glob filters file names. */
  grep(pattern: string, path?: string | null, glob?: string | null, maxCount?: number | null): Promise<GrepResult>;
  glob(pattern: string, path?: string): Promise<GlobResult>;
  write(filePath: string, content: string): Promise<WriteResult>;
  edit(filePath: string, oldString: string, newString: string, replaceAll?: boolean): Promise<EditResult>;
  delete(filePath: string): Promise<DeleteResult>;
  uploadFiles(files: Array<[string, Uint8Array]>): Promise<FileUploadResponse[]>;
  downloadFiles(paths: string[]): Promise<FileDownloadResponse[]>;
  /** The file's bytes, or null when it cannot be read as a file. */
  readBytes(filePath: string): Promise<Uint8Array | null>;
}

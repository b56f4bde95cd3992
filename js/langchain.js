// langchain.js - a LangChain deepagents backend (SandboxBackendProtocolV2)
// over a Sandbox, without depending on deepagents: the protocol is
// structural, so createDeepAgent({ backend: new MemSandboxBackend(sb) })
// accepts it.
//
// Files are read, written, listed and searched through the sandbox's host
// API rather than through shell commands, so no output needs parsing and
// paths may hold any byte. Results and error texts follow deepagents' own
// backends (StateBackend for reads, BaseSandbox for the rest): a missing
// file is an { error } result, never an exception; binary files (by
// extension, as deepagents decides) come back as bytes and are skipped by
// grep.
//
// Types: langchain.d.ts (the directive below points Deno at it).
// @ts-self-types="./langchain.d.ts"
import { MemSandboxError, normalisePath } from './core.js';
import { globRegex, isNotFound, walk } from './walk.js';
import { fromBase64 } from './encoding.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

// Extensions deepagents treats as binary; everything else is text.
const BINARY = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif',
  webp: 'image/webp', heic: 'image/heic', heif: 'image/heif', mp3: 'audio/mpeg',
  wav: 'audio/wav', aiff: 'audio/aiff', aac: 'audio/aac', ogg: 'audio/ogg',
  flac: 'audio/flac', mp4: 'video/mp4', webm: 'video/webm', mpeg: 'video/mpeg',
  mpg: 'video/mpeg', mov: 'video/quicktime', avi: 'video/x-msvideo', flv: 'video/x-flv',
  wmv: 'video/x-ms-wmv', '3gpp': 'video/3gpp', pdf: 'application/pdf',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};
const TEXT = { md: 'text/markdown', markdown: 'text/markdown', html: 'text/html',
  htm: 'text/html', css: 'text/css', csv: 'text/csv', xml: 'text/xml',
  json: 'application/json', js: 'application/javascript', mjs: 'application/javascript',
  cjs: 'application/javascript', svg: 'image/svg+xml' };

function mimeType(path) {
  const m = /\.([^./]+)$/.exec(path);
  const ext = m ? m[1].toLowerCase() : '';
  return BINARY[ext] ?? TEXT[ext] ?? 'text/plain';
}

const BINARY_TYPES = new Set(Object.values(BINARY));
const isText = (path) => !BINARY_TYPES.has(mimeType(path));

const iso = (ms) => new Date(ms).toISOString();

/** deepagents' FileOperationError for a sandbox error. */
function fileError(e) {
  if (!(e instanceof MemSandboxError)) throw e;
  if (e.category === 'not_found') return 'file_not_found';
  if (e.category === 'policy_denied') return 'permission_denied';
  if (e.code === 'not_a_file') return 'is_directory';
  if (e.category === 'invalid_request' || e.code === 'not_a_directory') return 'invalid_path';
  throw e;
}

export class MemSandboxBackend {
  /**
   * @param {import('./index.js').Sandbox} sandbox
   * @param {{ maxGlobEntries?: number }} [options]
   */
  constructor(sandbox, options = {}) {
    this.sandbox = sandbox;
    this.maxGlobEntries = options.maxGlobEntries ?? 50000;
  }

  get id() {
    return this.sandbox.id;
  }

  /** Runs command in the sandbox's shell session; stdout then stderr. */
  async execute(command) {
    const r = await this.sandbox.execute(command);
    return { output: r.stdout + r.stderr, exitCode: r.exitCode,
      truncated: r.stdoutTruncated || r.stderrTruncated };
  }

  async ls(path) {
    const dir = normalisePath('/', path);
    let names;
    try {
      names = await this.sandbox.list(dir);
    } catch (e) {
      if (isNotFound(e) || e?.code === 'not_a_directory') return { files: [] };
      throw e;
    }
    const files = [];
    for (const name of names) {
      const full = normalisePath(dir, name);
      const st = await this.sandbox.stat(full, { followSymlinks: true }).catch(() => null);
      const isDir = st?.kind === 'directory';
      files.push({ path: isDir ? `${full}/` : full, is_dir: isDir, size: st?.size ?? 0,
        modified_at: st ? iso(st.mtimeMs) : '' });
    }
    return { files };
  }

  async readBytes(filePath) {
    try {
      return await this.sandbox.readFile(filePath, { encoding: 'bytes' });
    } catch (e) {
      if (fileError(e)) return null;
      throw e;
    }
  }

  async read(filePath, offset = 0, limit = 500) {
    const bytes = await this.readBytes(filePath);
    if (!bytes) return { error: `File '${filePath}' not found` };
    const type = mimeType(filePath);
    if (!isText(filePath)) return { content: bytes, mimeType: type };
    const from = Number.isFinite(offset) ? Math.max(0, Math.floor(offset)) : 0;
    const count = Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : 0;
    const lines = dec.decode(bytes).split('\n');
    const total = lines[lines.length - 1] === '' ? lines.length - 1 : lines.length;
    const content = lines.slice(from, from + count).join('\n');
    if (from >= total || count === 0) return { content, mimeType: type };
    const end = Math.min(from + count, total);
    return { content, mimeType: type, totalLines: total, startLine: from + 1, endLine: end,
      nextOffset: end < total ? end : undefined };
  }

  async readRaw(filePath) {
    const bytes = await this.readBytes(filePath);
    if (!bytes) return { error: `File '${filePath}' not found` };
    const st = await this.sandbox.stat(filePath, { followSymlinks: true });
    return { data: { content: isText(filePath) ? dec.decode(bytes) : bytes,
      mimeType: mimeType(filePath), created_at: iso(st.mtimeMs), modified_at: iso(st.mtimeMs) } };
  }

  /** Literal (not regex) search; glob filters file names, as find -name does. */
  async grep(pattern, path = '/', glob = null, maxCount = null) {
    const root = normalisePath('/', path ?? '/');
    const st = await this.sandbox.stat(root, { followSymlinks: true }).catch(() => null);
    if (!st) return { matches: [] };
    const files = st.kind === 'file' ? [root]
      : (await walk(this.sandbox, root)).entries.filter((e) => e.stat.kind === 'file').map((e) => e.path);
    const name = glob ? globRegex(glob) : null;
    const matches = [];
    for (const file of files) {
      if (!isText(file) || (name && !name.test(file.slice(file.lastIndexOf('/') + 1)))) continue;
      const bytes = await this.readBytes(file);
      if (!bytes || bytes.includes(0)) continue;
      dec.decode(bytes).split('\n').forEach((text, i) => {
        if (text.includes(pattern)) matches.push({ path: file, line: i + 1, text });
      });
    }
    if (maxCount != null && matches.length > maxCount) {
      return { matches: matches.slice(0, maxCount), truncated: true };
    }
    return { matches };
  }

  /** Paths under path (relative to it) whose relative path matches pattern. */
  async glob(pattern, path = '/') {
    const root = normalisePath('/', path);
    const re = globRegex(pattern.replace(/^\/+/, ''));
    let walked;
    try {
      walked = await walk(this.sandbox, root, this.maxGlobEntries);
    } catch (e) {
      if (isNotFound(e) || e?.code === 'not_a_directory') return { files: [], truncated: false };
      throw e;
    }
    const prefix = root === '/' ? 1 : root.length + 1;
    const files = walked.entries.map(({ path: p, stat }) => ({ rel: p.slice(prefix), stat }))
      .filter(({ rel }) => re.test(rel))
      .map(({ rel, stat }) => ({ path: rel, is_dir: stat.kind === 'directory', size: stat.size,
        modified_at: iso(stat.mtimeMs) }));
    return { files, truncated: walked.truncated };
  }

  /** Creates or replaces a file; binary types take base64 content. */
  async write(filePath, content) {
    const bytes = isText(filePath) ? enc.encode(content)
      : fromBase64(content);
    const [r] = await this.uploadFiles([[filePath, bytes]]);
    if (r.error) return { error: `Failed to write to ${filePath}: ${r.error}` };
    return { path: filePath, filesUpdate: null };
  }

  async edit(filePath, oldString, newString, replaceAll = false) {
    const bytes = await this.readBytes(filePath);
    if (!bytes) return { error: `Error: File '${filePath}' not found` };
    const text = dec.decode(bytes);
    const done = async (next, occurrences) => {
      const [r] = await this.uploadFiles([[filePath, enc.encode(next)]]);
      if (r.error) return { error: `Failed to write edited file '${filePath}': ${r.error}` };
      return { path: filePath, filesUpdate: null, occurrences };
    };
    if (oldString === '') {
      if (text !== '') return { error: 'oldString must not be empty unless the file is empty' };
      return newString === '' ? { path: filePath, filesUpdate: null, occurrences: 0 } : done(newString, 1);
    }
    const parts = text.split(oldString);
    if (parts.length === 1) return { error: `String not found in file '${filePath}'` };
    if (parts.length > 2 && !replaceAll) {
      return { error: `Multiple occurrences found in '${filePath}'. Use replaceAll=true to replace all.` };
    }
    if (oldString === newString) return { path: filePath, filesUpdate: null, occurrences: parts.length - 1 };
    return done(parts.join(newString), parts.length - 1);
  }

  async delete(filePath) {
    try {
      await this.sandbox.remove(filePath, { recursive: true });
      return { path: filePath, filesUpdate: null };
    } catch (e) {
      if (isNotFound(e)) return { error: `Error: '${filePath}' not found` };
      return { error: `Error deleting file '${filePath}': ${e.message}` };
    }
  }

  async uploadFiles(files) {
    const out = [];
    for (const [path, content] of files) {
      try {
        await this.sandbox.writeFile(path, content, { parents: true });
        out.push({ path, error: null });
      } catch (e) {
        out.push({ path, error: fileError(e) });
      }
    }
    return out;
  }

  async downloadFiles(paths) {
    const out = [];
    for (const path of paths) {
      try {
        out.push({ path, content: await this.sandbox.readFile(path, { encoding: 'bytes' }), error: null });
      } catch (e) {
        out.push({ path, content: null, error: fileError(e) });
      }
    }
    return out;
  }
}

// openai-sandbox.js - a SandboxClient and SandboxSession for the OpenAI
// Agents SDK's SandboxAgent (@openai/agents/sandbox), without depending on
// it: the SDK's interfaces are structural, so plain classes satisfy them.
//
// run(agent, input, { sandbox: { client: new MemSandboxClient() } }) makes
// the SDK create one MemSandbox per session. The manifest's file and dir
// entries are written under its root (default /workspace, which is also
// the sandbox's workspace); entries that need a host (local files, git,
// mounts) are refused with an error naming them. Commands run in the
// sandbox's one shell session with the manifest's environment; output comes
// back in the Codex-style text the SDK's own backends produce. The editor
// applies the SDK's V4A operations atomically; persistWorkspace and
// hydrateWorkspace move a MemSandbox snapshot.
//
// Not yet: a run can be cancelled, but not left running in the background
// to be read again later, so yieldTimeMs is not honoured and there is no
// PTY (supportsPty() is false, so the SDK offers no write_stdin tool).
import { Sandbox } from 'memsandbox';
import { normalisePath } from './core.js';
import { fromBase64, toBase64 } from './encoding.js';
import { openaiEditor } from './openai.js';

const BACKEND_ID = 'memsandbox';
const SESSION = Symbol('memsandbox.session');
const BYTES_PER_TOKEN = 4; // the SDK's own estimate for truncation

const IMAGE_TYPES = [
  { type: 'image/png', magic: [0x89, 0x50, 0x4e, 0x47] },
  { type: 'image/jpeg', magic: [0xff, 0xd8, 0xff] },
  { type: 'image/gif', magic: [0x47, 0x49, 0x46, 0x38] },
];

/** The image media type of bytes, by signature; null when not an image. */
function imageType(b) {
  for (const { type, magic } of IMAGE_TYPES) {
    if (magic.every((v, i) => b[i] === v)) return type;
  }
  const tag = (at) => String.fromCharCode(...b.subarray(at, at + 4));
  return b.length >= 12 && tag(0) === 'RIFF' && tag(8) === 'WEBP' ? 'image/webp' : null;
}

/** Keeps the head and tail of text over the budget, as the SDK's backends do. */
function truncateOutput(text, maxOutputTokens) {
  if (!Number.isSafeInteger(maxOutputTokens) || maxOutputTokens < 1) return { text };
  const bytes = new TextEncoder().encode(text);
  const max = maxOutputTokens * BYTES_PER_TOKEN;
  if (bytes.length <= max) return { text };
  const dec = new TextDecoder();
  const half = Math.floor(max / 2);
  const cut = Math.ceil((bytes.length - max) / BYTES_PER_TOKEN);
  return {
    text: dec.decode(bytes.subarray(0, half)) + `...${cut} tokens truncated...` +
      dec.decode(bytes.subarray(bytes.length - (max - half))),
    originalTokenCount: Math.ceil(bytes.length / BYTES_PER_TOKEN),
  };
}

/** Each { path, entry } of a manifest's entries, parents before children. */
function* manifestFiles(root, entries, prefix = '') {
  for (const [name, entry] of Object.entries(entries ?? {})) {
    const path = normalisePath(root, prefix ? `${prefix}/${name}` : name);
    yield { path, entry };
    if (entry?.type === 'dir') yield* manifestFiles(root, entry.children, path);
  }
}

function hostEntry(path, entry) {
  return new Error(`memsandbox: manifest entry ${path} of type ${entry?.type} needs the host ` +
    '(an in-memory sandbox holds only file and dir entries)');
}

async function resolveEnvironment(manifest) {
  if (typeof manifest?.resolveEnvironment === 'function') return manifest.resolveEnvironment();
  const env = {};
  for (const [k, v] of Object.entries(manifest?.environment ?? {})) {
    env[k] = typeof v === 'string' ? v : await (typeof v === 'function' ? v() : v?.value);
  }
  return env;
}

/** A session over one Sandbox; see the file comment. */
export class MemSandboxSession {
  /**
   * @param {Sandbox} sandbox
   * @param {{ manifest?: any, environment?: Record<string, string> }} [state]
   */
  constructor(sandbox, state = {}) {
    this.sandbox = sandbox;
    this.state = { workspaceReady: true, environment: {}, ...state };
    // serializeSessionState receives only the state: let it find the sandbox
    Object.defineProperty(this.state, SESSION, { value: this });
  }

  get root() {
    return this.state.manifest?.root ?? '/workspace';
  }

  /** A sandbox path: relative ones resolve against the manifest root. */
  resolve(path) {
    if (typeof path !== 'string' || path === '') throw new TypeError('path must be a non-empty string');
    return normalisePath(this.root, path);
  }

  async exec(args) {
    if (typeof args?.cmd !== 'string') throw new TypeError('cmd must be a string');
    const t0 = Date.now();
    const r = await this.sandbox.execute(args.cmd, {
      cwd: args.workdir ? this.resolve(args.workdir) : this.root,
      env: this.state.environment ?? {},
    });
    const { text, originalTokenCount } = truncateOutput(r.stdout + r.stderr, args.maxOutputTokens);
    return {
      output: text, stdout: r.stdout, stderr: r.stderr,
      wallTimeSeconds: (Date.now() - t0) / 1000, exitCode: r.exitCode,
      ...(originalTokenCount === undefined ? {} : { originalTokenCount }),
    };
  }

  /** exec rendered as the text the SDK's exec_command tool returns. */
  async execCommand(args) {
    const r = await this.exec(args);
    const lines = [`Wall time: ${r.wallTimeSeconds.toFixed(4)} seconds`,
      `Process exited with code ${r.exitCode}`];
    if (r.originalTokenCount !== undefined) lines.push(`Original token count: ${r.originalTokenCount}`);
    lines.push('Output:', r.output);
    return lines.join('\n');
  }

  supportsPty() {
    return false;
  }

  createEditor() {
    const editor = openaiEditor(this.sandbox);
    const at = (op) => ({ ...op, path: this.relative(op.path),
      ...(op.moveTo ? { moveTo: this.relative(op.moveTo) } : {}) });
    return {
      createFile: (op) => editor.createFile(at(op)),
      updateFile: (op) => editor.updateFile(at(op)),
      deleteFile: (op) => editor.deleteFile(at(op)),
    };
  }

  // The editor's patches resolve against /workspace and may not leave it;
  // a path under another manifest root is made relative to it first.
  relative(path) {
    const abs = this.resolve(path);
    return abs.startsWith('/workspace/') ? abs.slice('/workspace/'.length) : abs;
  }

  async readFile(args) {
    const bytes = await this.sandbox.readFile(this.resolve(args?.path), { encoding: 'bytes' });
    const max = args.maxBytes;
    return Number.isSafeInteger(max) && max >= 0 && bytes.length > max ? bytes.subarray(0, max) : bytes;
  }

  async viewImage(args) {
    const bytes = await this.sandbox.readFile(this.resolve(args?.path), { encoding: 'bytes' });
    const mediaType = imageType(bytes);
    if (!mediaType) throw new Error(`not a PNG, JPEG, GIF or WebP image: ${args.path}`);
    return { type: 'image', image: { data: toBase64(bytes), mediaType } };
  }

  async listDir(args) {
    const dir = this.resolve(args?.path ?? '.');
    const out = [];
    for (const name of await this.sandbox.list(dir)) {
      const path = dir === '/' ? `/${name}` : `${dir}/${name}`;
      const { kind } = await this.sandbox.stat(path, { followSymlinks: true }).catch(() => ({ kind: 'other' }));
      out.push({ name, path, type: kind === 'directory' ? 'dir' : kind === 'file' ? 'file' : 'other' });
    }
    return out;
  }

  async pathExists(path) {
    return this.sandbox.exists(this.resolve(path));
  }

  async directoryExists(path) {
    const st = await this.sandbox.stat(this.resolve(path), { followSymlinks: true }).catch(() => null);
    return st?.kind === 'directory';
  }

  async materializeEntry(args) {
    await this.write(this.resolve(args.path), args.entry);
  }

  async write(path, entry) {
    if (entry?.type === 'dir') {
      await this.sandbox.mkdir(path, { parents: true, existOk: true });
    } else if (entry?.type === 'file') {
      await this.sandbox.writeFile(path, entry.content, { parents: true });
    } else {
      throw hostEntry(path, entry);
    }
  }

  async applyManifest(manifest) {
    const root = manifest?.root ?? this.root;
    const entries = [...manifestFiles(root, manifest?.entries)];
    const foreign = entries.find(({ entry }) => entry?.type !== 'dir' && entry?.type !== 'file');
    if (foreign) throw hostEntry(foreign.path, foreign.entry);
    await this.sandbox.mkdir(root, { parents: true, existOk: true });
    for (const { path, entry } of entries) await this.write(path, entry);
    this.state.manifest ??= manifest;
    this.state.environment = { ...this.state.environment, ...await resolveEnvironment(manifest) };
  }

  /** The whole state as a MemSandbox snapshot (gzip tar). */
  async persistWorkspace() {
    return this.sandbox.snapshot();
  }

  async hydrateWorkspace(data) {
    await this.sandbox.restore(typeof data === 'string' ? new TextEncoder().encode(data) : data);
  }

  async running() {
    return this.sandbox.state !== 'CLOSED' && this.sandbox.state !== 'FAILED';
  }

  async start() {}

  async stop() {}

  async shutdown() {
    await this.close();
  }

  async delete() {
    await this.close();
  }

  async close() {
    if (this.sandbox.state !== 'CLOSED') await this.sandbox.close();
  }
}

/**
 * A SandboxClient: new MemSandboxClient(createOptions) where createOptions
 * are Sandbox.create's (limits, policy, profile, wasm, ...).
 */
export class MemSandboxClient {
  /** @param {import('./index.js').CreateOptions} [options] */
  constructor(options = {}) {
    this.backendId = BACKEND_ID;
    this.options = options;
  }

  /**
   * create({ manifest, snapshot, options }) or the legacy create(manifest, options).
   * @param {any} [args]
   * @param {Record<string, unknown>} [legacyOptions]
   */
  async create(args = {}, legacyOptions) {
    const legacy = args && !('manifest' in args) && ('entries' in args || 'root' in args);
    const manifest = legacy ? args : args?.manifest;
    const options = (legacy ? legacyOptions : args?.options) ?? {};
    const sandbox = await Sandbox.create({ ...this.options, ...options });
    const session = new MemSandboxSession(sandbox, manifest ? { manifest } : {});
    try {
      if (manifest) await session.applyManifest(manifest);
    } catch (e) {
      await sandbox.close();
      throw e;
    }
    return session;
  }

  /** The state the SDK stores in a RunState: the workspace as base64. */
  async serializeSessionState(state) {
    const session = state?.[SESSION];
    const { manifest, ...rest } = state ?? {};
    const out = { ...rest, manifest: typeof manifest?.toJSON === 'function' ? manifest.toJSON() : manifest };
    if (session) out.workspace = toBase64(await session.persistWorkspace());
    return out;
  }

  async deserializeSessionState(state) {
    return { ...state };
  }

  async resume(state) {
    const { workspace, ...rest } = state ?? {};
    const sandbox = workspace
      ? await Sandbox.fromSnapshot(fromBase64(workspace), this.options)
      : await Sandbox.create(this.options);
    return new MemSandboxSession(sandbox, rest);
  }
}

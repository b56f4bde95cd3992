// just-bash.js - the just-bash API over a Sandbox, so a just-bash user
// switches by changing one import: new Bash({ files, cwd, env }),
// bash.exec(command, { env, cwd, stdin }) resolving to { stdout, stderr,
// exitCode, env }, bash.fs with the common file methods, readFile and
// writeFile on the instance.
//
// As in just-bash, each exec starts from the instance's environment and
// working directory: variables, functions and `cd` of one exec are gone in
// the next, while files persist. { keepState: true } keeps the shell
// session instead. The sandbox is created on first use (the constructor
// is synchronous, creating a sandbox is not); `sandbox` passes
// Sandbox.create options (limits, policy, wasm).
//
// Differences: without keepState, the env of a result is the environment
// the command started with (exports it made are not reported, because its
// shell state is dropped); with keepState it is the session's exported
// variables after the command. Options for just-bash's own interpreter
// (custom commands, python, javascript, network, fetch) are refused.
//
// Types: just-bash.d.ts (the directive below points Deno at it).
// @ts-self-types="./just-bash.d.ts"
import { Sandbox } from 'memsandbox';
import { normalisePath } from './core.js';
import { isNotFound } from './walk.js';
import { shellQuote, toBase64 } from './encoding.js';

const UNSUPPORTED = ['customCommands', 'python', 'javascript', 'network', 'fetch', 'fs', 'commands'];

/** just-bash's file system methods over the sandbox. */
class SandboxFs {
  /** @param {() => Promise<Sandbox>} open @param {() => string} cwd */
  constructor(open, cwd) {
    this.open = open;
    this.cwd = cwd;
  }

  resolvePath(base, path) {
    return normalisePath(base, path);
  }

  async at(path) {
    return { sb: await this.open(), path: normalisePath(this.cwd(), path) };
  }

  async readFile(path, options) {
    const { sb, path: p } = await this.at(path);
    const encoding = typeof options === 'string' ? options : options?.encoding;
    if (encoding && !/^utf-?8$/i.test(encoding)) {
      return decode(await sb.readFile(p, { encoding: 'bytes' }), encoding);
    }
    return sb.readFile(p);
  }

  async readFileBuffer(path) {
    const { sb, path: p } = await this.at(path);
    return sb.readFile(p, { encoding: 'bytes' });
  }

  async writeFile(path, content) {
    const { sb, path: p } = await this.at(path);
    await sb.writeFile(p, content, { parents: true });
  }

  async appendFile(path, content) {
    const { sb, path: p } = await this.at(path);
    await sb.appendFile(p, content, { parents: true });
  }

  async exists(path) {
    const { sb, path: p } = await this.at(path);
    return sb.exists(p);
  }

  async stat(path) {
    return this.statOf(path, true);
  }

  async lstat(path) {
    return this.statOf(path, false);
  }

  async statOf(path, followSymlinks) {
    const { sb, path: p } = await this.at(path);
    const st = await sb.stat(p, { followSymlinks });
    return { isFile: st.kind === 'file', isDirectory: st.kind === 'directory',
      isSymbolicLink: st.kind === 'symlink', mode: st.mode, size: st.size, mtime: new Date(st.mtimeMs) };
  }

  async mkdir(path, options) {
    const { sb, path: p } = await this.at(path);
    await sb.mkdir(p, { parents: !!options?.recursive, existOk: !!options?.recursive });
  }

  async readdir(path) {
    const { sb, path: p } = await this.at(path);
    return sb.list(p);
  }

  async readdirWithFileTypes(path) {
    const { sb, path: p } = await this.at(path);
    const out = [];
    for (const name of await sb.list(p)) {
      const { kind } = await sb.stat(normalisePath(p, name), { followSymlinks: false });
      out.push({ name, isFile: kind === 'file', isDirectory: kind === 'directory', isSymbolicLink: kind === 'symlink' });
    }
    return out;
  }

  async rm(path, options) {
    const { sb, path: p } = await this.at(path);
    try {
      await sb.remove(p, { recursive: !!options?.recursive });
    } catch (e) {
      if (!(options?.force && isNotFound(e))) throw e;
    }
  }

  async cp(src, dest, options) {
    const a = await this.at(src);
    await a.sb.copy(a.path, normalisePath(this.cwd(), dest), { recursive: !!options?.recursive, overwrite: true });
  }

  async mv(src, dest) {
    const a = await this.at(src);
    await a.sb.move(a.path, normalisePath(this.cwd(), dest), { overwrite: true });
  }

  async chmod(path, mode) {
    const { sb, path: p } = await this.at(path);
    await sb.chmod(p, mode);
  }

  async symlink(target, linkPath) {
    const { sb, path: p } = await this.at(linkPath);
    await sb.symlink(target, p);
  }

  async readlink(path) {
    const { sb, path: p } = await this.at(path);
    return sb.readlink(p);
  }

  async realpath(path) {
    const { sb, path: p } = await this.at(path);
    const r = await sb.execute(`realpath -- ${shellQuote(p)}`);
    if (r.exitCode !== 0) throw new Error(r.stderr.trim());
    return r.stdout.replace(/\n$/, '');
  }
}

function decode(bytes, encoding) {
  if (/^(binary|latin1)$/i.test(encoding)) return String.fromCharCode(...bytes);
  if (/^hex$/i.test(encoding)) return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  if (/^base64$/i.test(encoding)) return toBase64(bytes);
  return new TextDecoder(encoding).decode(bytes);
}

/** just-bash's Bash class over a MemSandbox; see the file comment. */
export class Bash {
  /**
   * @param {{ files?: Record<string, any>, cwd?: string, env?: Record<string, string>,
   *   keepState?: boolean, sandbox?: import('./index.js').CreateOptions, [k: string]: unknown }} [options]
   */
  constructor(options = {}) {
    const refused = UNSUPPORTED.filter((k) => options[k] !== undefined);
    if (refused.length) throw new TypeError(`memsandbox/just-bash does not support: ${refused.join(', ')}`);
    this.options = options;
    this.cwd = normalisePath('/', options.cwd ?? '/home/user');
    this.baseEnv = { HOME: '/home/user', PWD: this.cwd, ...options.env };
    this.keepState = !!options.keepState;
    this.sandbox = null;
    this.opening = null;
    this.fs = new SandboxFs(() => this.open(), () => this.cwd);
  }

  /** The sandbox, created with the initial files on first use. */
  open() {
    this.opening ??= (async () => {
      const files = [];
      for (const [path, v] of Object.entries(this.options.files ?? {})) {
        const init = typeof v === 'function' ? { content: await v() }
          : typeof v === 'string' || v instanceof Uint8Array ? { content: v } : v;
        files.push({ path: normalisePath(this.cwd, path), content: init.content,
          ...(init.mode === undefined ? {} : { mode: init.mode }) });
      }
      const sb = await Sandbox.create({ ...this.options.sandbox, files, directories: [this.cwd],
        cwd: this.cwd, env: this.baseEnv });
      this.sandbox = sb;
      return sb;
    })();
    return this.opening;
  }

  /**
   * @param {string} commandLine
   * @param {{ env?: Record<string, string>, replaceEnv?: boolean, cwd?: string,
   *   stdin?: string, signal?: AbortSignal }} [options]
   */
  async exec(commandLine, options = {}) {
    if (options.signal?.aborted) throw options.signal.reason ?? new Error('aborted');
    const sb = await this.open();
    const env = options.replaceEnv ? { ...options.env } : { ...this.baseEnv, ...options.env };
    const r = await sb.execute(commandLine, {
      env, fresh: !this.keepState,
      ...(options.cwd || !this.keepState ? { cwd: normalisePath(this.cwd, options.cwd ?? '.') } : {}),
      ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    });
    return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode,
      env: this.keepState ? await sb.env() : env };
  }

  readFile(path) {
    return this.fs.readFile(path);
  }

  writeFile(path, content) {
    return this.fs.writeFile(path, content);
  }

  getCwd() {
    return this.keepState && this.sandbox ? this.sandbox.cwd : this.cwd;
  }

  getEnv() {
    return { ...this.baseEnv };
  }

  /** Closes the sandbox (just-bash has nothing to close; MemSandbox does). */
  async close() {
    if (this.sandbox) await this.sandbox.close();
  }
}

// ai-session.js - the Vercel AI SDK's sandbox interfaces over a Sandbox,
// without depending on the SDK: Experimental_SandboxSession (what tools
// receive as experimental_sandbox, and what bash-tool-style helpers take)
// and the harness's HarnessV1SandboxProvider.
//
// Paths: relative ones resolve against a fixed base directory (default
// /workspace), as the interface specifies; a `cd` inside a command moves
// neither the base nor the next command's directory, because every run
// starts in workingDirectory or the base.
//
// A run goes in slices: its abortSignal (and spawn's kill()) stop it at the
// next slice (exit 130), and spawn's streams carry output as it is produced.
// Not yet: stdin is read whole, when the caller closes it. Ports do not
// exist (no network): getPortEndpoint rejects.
import { Sandbox } from 'memsandbox';
import { MemSandboxError, normalisePath } from './core.js';

const enc = new TextEncoder();

function aborted(signal) {
  if (signal?.aborted) throw signal.reason ?? new Error('aborted');
}

function decoder(encoding) {
  try {
    return new TextDecoder(encoding ?? 'utf-8');
  } catch {
    throw new RangeError(`unsupported encoding: ${encoding}`);
  }
}

function encode(text, encoding) {
  if (encoding !== undefined && !/^utf-?8$/i.test(encoding)) {
    throw new RangeError(`unsupported encoding for writing: ${encoding} (only utf-8)`);
  }
  return enc.encode(text);
}

async function collect(stream) {
  const parts = [];
  let size = 0;
  for await (const chunk of stream) {
    parts.push(chunk);
    size += chunk.length;
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function streamOf(bytes) {
  return new ReadableStream({
    start(c) {
      if (bytes.length) c.enqueue(bytes);
      c.close();
    },
  });
}

/** Lines start..end (1-based, inclusive) of text, keeping line endings. */
function lineRange(text, start, end) {
  if (start === undefined && end === undefined) return text;
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  return lines.slice(Math.max(1, start ?? 1) - 1, end ?? lines.length).join('');
}

/**
 * A process handle. The run starts at once, or, with stdin: true, when the
 * caller closes stdin (the whole input is the run's stdin); its output
 * reaches the streams as it is produced; kill() stops it.
 */
function spawn(run, opts) {
  let stdout;
  let stderr;
  const out = new ReadableStream({ start: (c) => void (stdout = c) });
  const err = new ReadableStream({ start: (c) => void (stderr = c) });
  let input = null;
  const started = opts.stdin
    ? new Promise((resolve, reject) => {
      const parts = [];
      input = new WritableStream({
        write: (chunk) => void parts.push(chunk),
        close: () => resolve(collect(parts)),
        abort: (reason) => reject(reason),
      });
    })
    : Promise.resolve(null);
  const ac = new AbortController();
  opts.abortSignal?.addEventListener('abort', () => ac.abort(opts.abortSignal?.reason), { once: true });
  if (opts.abortSignal?.aborted) ac.abort(opts.abortSignal.reason);
  const stream = {
    onStdout: (/** @type {string} */ t) => stdout.enqueue(enc.encode(t)),
    onStderr: (/** @type {string} */ t) => stderr.enqueue(enc.encode(t)),
  };
  const done = started.then((bytes) => run({ ...opts, abortSignal: ac.signal }, bytes, stream)).then((r) => {
    stdout.close();
    stderr.close();
    return { exitCode: r.exitCode };
  }, (e) => {
    stdout.error(e);
    stderr.error(e);
    throw e;
  });
  done.catch(() => {}); // the caller sees the failure through wait()
  return { stdout: out, stderr: err, ...(input ? { stdin: input } : {}),
    wait: () => done, kill: async () => ac.abort() };
}

const notFound = (e) => e instanceof MemSandboxError && e.category === 'not_found';

/**
 * An Experimental_SandboxSession over a sandbox.
 * @param {import('./index.js').Sandbox} sandbox
 * @param {{ baseDirectory?: string, description?: string }} [options]
 */
export function aiSandboxSession(sandbox, options = {}) {
  const base = normalisePath('/', options.baseDirectory ?? '/workspace');
  const at = (path) => {
    if (typeof path !== 'string' || path === '') throw new TypeError('path must be a non-empty string');
    return normalisePath(base, path);
  };
  const readBytes = async ({ path, abortSignal }) => {
    aborted(abortSignal);
    try {
      return await sandbox.readFile(at(path), { encoding: 'bytes' });
    } catch (e) {
      if (notFound(e)) return null;
      throw e;
    }
  };
  const writeBytes = async ({ path, abortSignal }, bytes) => {
    aborted(abortSignal);
    await sandbox.writeFile(at(path), bytes, { parents: true });
  };
  const run = async ({ command, workingDirectory, env, abortSignal }, stdin, stream = {}) => {
    aborted(abortSignal);
    const r = await sandbox.execute(command, {
      cwd: workingDirectory ? at(workingDirectory) : base, env: env ?? {},
      ...(stdin ? { stdin } : {}), ...(abortSignal ? { signal: abortSignal } : {}), ...stream,
    });
    return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
  };
  return {
    description: options.description ?? `An in-memory bash-compatible sandbox (MemSandbox): ` +
      `GNU-style commands, no network, no host files. Working directory: ${base}.`,
    run: (opts) => run(opts),
    spawn: async (opts) => spawn(run, opts),
    readBinaryFile: readBytes,
    async readFile(opts) {
      const bytes = await readBytes(opts);
      return bytes && streamOf(bytes);
    },
    async readTextFile(opts) {
      const bytes = await readBytes(opts);
      return bytes && lineRange(decoder(opts.encoding).decode(bytes), opts.startLine, opts.endLine);
    },
    writeBinaryFile: (opts) => writeBytes(opts, opts.content),
    writeTextFile: (opts) => writeBytes(opts, encode(opts.content, opts.encoding)),
    async writeFile(opts) {
      await writeBytes(opts, await collect(opts.content));
    },
    async stat({ path }) {
      const st = await sandbox.stat(at(path), { followSymlinks: true }).catch((e) => {
        if (notFound(e)) return null;
        throw e;
      });
      if (!st) return null;
      const type = st.kind === 'file' || st.kind === 'directory' ? st.kind : 'other';
      return { type, size: st.size };
    },
    async listDirectory({ path }) {
      const dir = at(path);
      let names;
      try {
        names = await sandbox.list(dir);
      } catch (e) {
        if (notFound(e) || e?.code === 'not_a_directory') return null;
        throw e;
      }
      const out = [];
      for (const name of names) {
        const st = await sandbox.stat(normalisePath(dir, name), { followSymlinks: false }).catch(() => null);
        out.push({ name, type: st?.kind === 'symlink' ? 'symlink' : st?.kind === 'file' ||
          st?.kind === 'directory' ? st.kind : 'other' });
      }
      return out;
    },
    async deleteFile({ path }) {
      try {
        await sandbox.remove(at(path));
        return true;
      } catch (e) {
        if (notFound(e)) return false;
        throw e;
      }
    },
  };
}

function noPorts() {
  return Promise.reject(new Error('memsandbox has no network: it exposes no ports'));
}

/**
 * A HarnessV1SandboxProvider: each createSession() is a new Sandbox.
 * @param {import('./index.js').CreateOptions & { baseDirectory?: string }} [options]
 */
export function memsandboxProvider(options = {}) {
  const { baseDirectory = '/workspace', ...createOptions } = options;
  return {
    specificationVersion: 'harness-sandbox-v1',
    providerId: 'memsandbox',
    /** @param {{ sessionId?: string, abortSignal?: AbortSignal, onFirstCreate?: Function }} [opts] */
    async createSession({ sessionId, abortSignal, onFirstCreate } = {}) {
      aborted(abortSignal);
      const sandbox = await Sandbox.create(createOptions);
      await sandbox.mkdir(baseDirectory, { parents: true, existOk: true });
      const session = aiSandboxSession(sandbox, { baseDirectory });
      const network = {
        ...session,
        id: sessionId ?? sandbox.id,
        defaultWorkingDirectory: normalisePath('/', baseDirectory),
        ports: [],
        getPortEndpoint: noPorts,
        getPortUrl: noPorts,
        stop: async () => {
          if (sandbox.state !== 'CLOSED') await sandbox.close();
        },
        destroy: async () => network.stop(),
        restricted: () => session,
      };
      // every session is created fresh (nothing is reused by identity), so
      // the one-time setup runs each time
      if (onFirstCreate) await onFirstCreate(session, { abortSignal });
      return network;
    },
  };
}

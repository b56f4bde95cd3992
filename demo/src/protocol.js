// protocol.js - the one message protocol between the page and the sandbox
// worker. The page sends requests ({ id, type, args }); the worker answers
// each with one reply ({ id, ok, result | error }) and pushes notices
// ({ type, ... }) whenever something changes: sandbox events, tree changes,
// command output, the timeline. Both ends import this file, so the names
// and shapes below are the whole contract (checked by tsc --checkJs).

/**
 * @typedef {{ profile: 'normal' | 'strict', limits: Record<string, number>,
 *   policy: string }} Settings
 *
 * @typedef {{ path: string, kind: 'file' | 'directory' | 'symlink',
 *   size: number, mtimeMs: number }} TreeEntry
 *
 * @typedef {{ id: number, label: string, revision: number, time: number }} Checkpoint
 *
 * @typedef {{ name: string, description: string,
 *   parameters: Record<string, unknown> }} ToolDefinition
 *
 * @typedef {{ category: string, code: string, message: string }} WireError
 */

/**
 * Requests: type -> [arguments, result]. `cancel` aborts the running `run`
 * or `callTool` (the sandbox's cancellation: the run ends with status 130
 * and limit 'cancelled', the sandbox keeps its state); it answers at once,
 * cancelled false when nothing was running. A `run` streams its output as
 * 'output' notices while it runs.
 * @typedef {{
 *   init: [{ workspace: string }, { revision: number, cwd: string, restored: boolean, settings: Settings }],
 *   run: [{ script: string, columns: number, lines: number }, { exitCode: number, cwd: string, revision: number, limit: string | null }],
 *   cancel: [{}, { cancelled: boolean, reason: string }],
 *   parseCheck: [{ script: string }, 'complete' | 'incomplete' | 'error'],
 *   complete: [{ line: string, cursor: number }, { start: number, candidates: string[] }],
 *   readFile: [{ path: string }, { text: string, hash: string, binary: boolean }],
 *   fileBytes: [{ path: string }, Uint8Array],
 *   writeFile: [{ path: string, text: string, expectHash: string | null }, { hash: string, revision: number }],
 *   upload: [{ files: Array<{ path: string, data: Uint8Array }> }, { revision: number }],
 *   snapshot: [{}, Uint8Array],
 *   archive: [{ path: string }, Uint8Array],
 *   restore: [{ archive: Uint8Array }, { revision: number, rootHash: string }],
 *   rootHash: [{}, string],
 *   rollback: [{ id: number }, { revision: number }],
 *   reset: [{}, { revision: number, settings: Settings }],
 *   fork: [{}, { workspace: string }],
 *   configure: [{ settings: Settings }, { settings: Settings }],
 *   setSecrets: [{ secrets: Record<string, string> }, { names: string[] }],
 *   tools: [{}, ToolDefinition[]],
 *   callTool: [{ name: string, args: unknown, label: string }, { text: string, ok: boolean }],
 * }} Requests
 */

/**
 * Notices the worker pushes.
 * @typedef {{ type: 'output', stream: 'stdout' | 'stderr', text: string }
 *   | { type: 'event', event: import('memsandbox').SandboxEvent }
 *   | { type: 'tree', revision: number, added: TreeEntry[], changed: TreeEntry[], removed: string[] }
 *   | { type: 'timeline', checkpoints: Checkpoint[], current: number }
 *   | { type: 'status', revision: number, cwd: string, persisted: boolean }} Notice
 */

/**
 * @template {keyof Requests} K
 * @typedef {{ id: number, type: K, args: Requests[K][0] }} Request
 */

/**
 * @typedef {{ id: number, ok: true, result: unknown }
 *   | { id: number, ok: false, error: WireError }} Reply
 */

/** Raised on the page when the worker answers with an error. */
export class RemoteError extends Error {
  /** @param {WireError} e */
  constructor(e) {
    super(e.message);
    this.name = 'RemoteError';
    this.code = e.code;
    this.category = e.category;
  }
}

/**
 * @typedef {{ postMessage(m: unknown, t?: Transferable[]): void,
 *   addEventListener(t: 'message', f: (e: MessageEvent) => void): void }} Port
 */

/**
 * The page's end: a typed request function and notice subscriptions.
 * replace() moves them to a new worker; requests still waiting on the old
 * one fail with code "worker_replaced".
 * @param {Port} first
 */
export function createClient(first) {
  let next = 1;
  let worker = first;
  /** @type {Map<number, { resolve: (v: any) => void, reject: (e: Error) => void }>} */
  const pending = new Map();
  /** @type {Map<string, Array<(n: any) => void>>} */
  const listeners = new Map();
  /** @param {Port} w */
  const listen = (w) => w.addEventListener('message', (e) => {
    if (w !== worker) return;
    const m = e.data;
    if (typeof m.id === 'number') {
      const p = pending.get(m.id);
      pending.delete(m.id);
      if (!p) return;
      if (m.ok) p.resolve(m.result);
      else p.reject(new RemoteError(m.error));
      return;
    }
    for (const f of listeners.get(m.type) ?? []) f(m);
  });
  listen(first);
  return {
    /** @param {Port} w */
    replace(w) {
      worker = w;
      listen(w);
      const error = new RemoteError({ category: 'cancelled', code: 'worker_replaced',
        message: 'stopped: the sandbox was restarted from its last saved state' });
      for (const p of pending.values()) p.reject(error);
      pending.clear();
    },
    /**
     * @template {keyof Requests} K
     * @param {K} type
     * @param {Requests[K][0]} args
     * @returns {Promise<Requests[K][1]>}
     */
    request(type, args) {
      const id = next++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, type, args });
      });
    },
    /**
     * @template {Notice['type']} T
     * @param {T} type
     * @param {(n: Extract<Notice, { type: T }>) => void} fn
     */
    on(type, fn) {
      if (!listeners.has(type)) listeners.set(type, []);
      listeners.get(type).push(fn);
    },
  };
}

/**
 * The worker's end: answers requests with the handlers, one at a time in
 * arrival order (the sandbox runs one call at a time), except `cancel`,
 * which must not wait behind the call it cancels.
 * @param {{ postMessage(m: unknown): void,
 *   addEventListener(t: 'message', f: (e: MessageEvent) => void): void }} scope
 * @param {{ [K in keyof Requests]: (args: Requests[K][0]) => Promise<Requests[K][1]> | Requests[K][1] }} handlers
 */
export function serve(scope, handlers) {
  let queue = Promise.resolve();
  /** @param {Request<keyof Requests>} m */
  const answer = async (m) => {
    try {
      const result = await handlers[m.type](/** @type {any} */ (m.args));
      scope.postMessage({ id: m.id, ok: true, result });
    } catch (e) {
      scope.postMessage({ id: m.id, ok: false, error: wireError(e) });
    }
  };
  scope.addEventListener('message', (e) => {
    const m = e.data;
    if (m.type === 'cancel') answer(m);
    else queue = queue.then(() => answer(m));
  });
}

/**
 * Pushes a notice to the page.
 * @param {{ postMessage(m: unknown): void }} scope
 * @param {Notice} notice
 */
export function notify(scope, notice) {
  scope.postMessage(notice);
}

/** @param {any} e @returns {WireError} */
export function wireError(e) {
  return {
    category: e?.category ?? 'internal',
    code: e?.code ?? 'error',
    message: e?.message ?? String(e),
  };
}

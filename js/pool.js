// pool.js - SandboxService({ workers: n }) for Node: sandboxes spread over n
// worker_threads, each pinned to the worker that created it, new ones to
// the least loaded worker. The service keeps its in-process API: create,
// get and fork give a sandbox object whose methods are the Sandbox's,
// forwarded to its worker (results by structured clone).
//
// With stateDir, every call that may change a sandbox ends with a save of
// its state in that directory (store.js, content-addressed, so a save
// writes what changed), and when a worker dies its sandboxes restore from
// their last save in a new worker. Without one, they fail with
// sandbox_lost. Node's entry (node.js) exports this SandboxService; with
// no workers option it is the in-process service of service.js.
import { Worker } from 'node:worker_threads';
import { MemSandboxError, invalid } from './errors.js';
import { randomHandle } from './encoding.js';
import { SandboxService as LocalService } from './service.js';

// Where pool-worker.js is: the entry (node.js) says, as only entries may
// read import.meta.
let workerUrl = () => {
  throw new MemSandboxError('pool_unavailable', 'invalid_request', 'worker pools need the Node entry');
};

/** Sets the function giving pool-worker.js's URL (node.js calls it). */
export function setPoolWorker(fn) {
  workerUrl = fn;
}

function lost(handle) {
  return new MemSandboxError('sandbox_lost', 'internal',
    `sandbox ${handle} was lost with its worker and no state directory was configured`);
}

function fromWire(e) {
  return new MemSandboxError(e.code ?? 'internal_error', e.category ?? 'internal', e.message);
}

class PoolWorker {
  constructor(pool, index) {
    this.pool = pool;
    this.index = index;
    this.handles = new Set();
    this.pending = new Map();
    this.seq = 0;
    this.ready = this._spawn();
  }

  _spawn() {
    this.w = new Worker(workerUrl(), { workerData: { stateDir: this.pool.stateDir } });
    this.w.on('message', ({ id, value, error }) => {
      const p = this.pending.get(id);
      if (!p) return;
      this.pending.delete(id);
      if (error) p.reject(fromWire(error));
      else p.resolve(value);
    });
    this.w.on('exit', (code) => this._died(code));
    this.w.on('error', () => {}); // 'exit' follows and recovers
    this.w.unref();
    return Promise.resolve();
  }

  send(op, msg = {}) {
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.w.ref();
      this.w.postMessage({ id, op, ...msg });
    }).finally(() => {
      if (!this.pending.size) this.w.unref();
    });
  }

  // A dead worker: its calls fail, a new one takes its place and its
  // sandboxes restore from their saves (or are marked lost).
  _died(code) {
    if (this.pool.closed) return;
    const err = new MemSandboxError('worker_crashed', 'internal', `worker ${this.index} exited with code ${code}`);
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this._spawn();
    this.ready = Promise.all([...this.handles].map(async (h) => {
      /* each restores or is marked lost; none rejects */
      if (!this.pool.stateDir) {
        this.pool.lost.add(h);
        this.handles.delete(h);
        return;
      }
      try {
        await this.send('restore', { handle: h, options: this.pool.optionsOf.get(h) });
      } catch {
        this.pool.lost.add(h);
        this.handles.delete(h);
      }
    })).then(() => {});
  }
}

// The sandbox object a pooled service gives: Sandbox's methods, forwarded.
function remoteSandbox(pool, handle) {
  const base = { id: handle };
  return new Proxy(base, {
    get(target, name) {
      if (name === 'id') return handle;
      if (name === 'then' || typeof name === 'symbol') return undefined;
      if (name === 'close') return () => pool.delete(handle);
      if (name === 'fork') return async () => (await pool.fork(handle)).sandbox;
      return (...args) => pool.call(handle, String(name), args);
    },
  });
}

/** SandboxService over worker threads (see the file comment). */
class PooledService {
  constructor(defaults) {
    const { workers, stateDir, ...rest } = defaults;
    if (!Number.isInteger(workers) || workers < 1 || workers > 1024) throw invalid('workers must be 1..1024');
    if (stateDir !== undefined && typeof stateDir !== 'string') throw invalid('stateDir must be a directory path');
    this._defaults = rest;
    this.stateDir = stateDir;
    this.closed = false;
    this.lost = new Set();
    this.optionsOf = new Map();
    this.where = new Map(); // handle -> PoolWorker
    this.workers = Array.from({ length: workers }, (_, i) => new PoolWorker(this, i));
  }

  _open() {
    if (this.closed) throw new MemSandboxError('service_closed', 'invalid_request', 'the sandbox service is closed');
  }

  _worker(handle) {
    this._open();
    if (this.lost.has(handle)) throw lost(handle);
    const w = this.where.get(handle);
    if (!w) throw new MemSandboxError('sandbox_not_found', 'not_found', `no sandbox ${handle}`);
    return w;
  }

  async call(handle, method, args) {
    const w = this._worker(handle);
    await w.ready;
    if (this.lost.has(handle)) throw lost(handle);
    const value = await w.send('call', { handle, method, args });
    // the policy in force travels with the options: forks and restores
    // after a crash set it again (a snapshot does not carry it)
    if (method === 'setPolicy' && this.optionsOf.has(handle)) {
      this.optionsOf.set(handle, { ...this.optionsOf.get(handle), policy: args[0] });
    }
    return value;
  }

  _least() {
    return this.workers.reduce((a, b) => (b.handles.size < a.handles.size ? b : a));
  }

  async _place(handle, options, w = this._least()) {
    this.optionsOf.set(handle, options);
    w.handles.add(handle);
    this.where.set(handle, w);
    await w.ready;
    return w;
  }

  /** Creates a sandbox in the least loaded worker. */
  async create(options = {}) {
    this._open();
    const handle = randomHandle();
    const opts = { ...this._defaults, ...options };
    const w = await this._place(handle, opts);
    try {
      await w.send('create', { handle, options: opts });
    } catch (e) {
      this._forget(handle);
      throw e;
    }
    return { handle, sandbox: remoteSandbox(this, handle) };
  }

  get(handle) {
    this._worker(handle);
    return remoteSandbox(this, handle);
  }

  /** A fork: the parent's state (an uncompressed snapshot), restored in
   * the least loaded worker, then the parent's policy, as the in-process
   * serialize fork does. */
  async fork(handle) {
    const archive = await this.call(handle, 'snapshot', [{ level: 0 }]);
    const child = randomHandle();
    const opts = this.optionsOf.get(handle);
    const { policy, ...open } = opts;
    const w = await this._place(child, opts);
    try {
      await w.send('create', { handle: child, options: open });
      await w.send('call', { handle: child, method: 'restore', args: [archive] });
      if (policy !== undefined) await w.send('call', { handle: child, method: 'setPolicy', args: [policy] });
    } catch (e) {
      this._forget(child);
      throw e;
    }
    return { handle: child, sandbox: remoteSandbox(this, child) };
  }

  _forget(handle) {
    const w = this.where.get(handle);
    w?.handles.delete(handle);
    this.where.delete(handle);
    this.optionsOf.delete(handle);
  }

  async delete(handle) {
    const w = this._worker(handle);
    await w.ready;
    await w.send('delete', { handle });
    this._forget(handle);
  }

  list() {
    this._open();
    return [...this.where.keys()].map((handle) => ({ handle, state: this.lost.has(handle) ? 'FAILED' : 'RUNNING' }));
  }

  async close() {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.workers.map((w) => w.w.terminate()));
  }
}

/** The service: in-process, or over worker threads with { workers: n }. */
export class SandboxService extends LocalService {
  constructor(defaults = {}) {
    if (defaults && defaults.workers !== undefined) {
      // eslint-disable-next-line no-constructor-return
      return /** @type {any} */ (new PooledService(defaults));
    }
    super(defaults);
  }
}

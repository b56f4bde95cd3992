// service.js - SandboxService: sandboxes by opaque handle, with lifecycle
// (create, get, resume, fork, delete, list, close).
import { MemSandboxError } from './errors.js';
import { Sandbox, SandboxState } from './sandbox.js';

/** @import * as T from './index.js' */

/**
 * Sandboxes by opaque random handle: create, get, fork, delete, list,
 * close. A handle is not a credential: the application maps principals to
 * handles. Options given to the service are defaults for every create.
 * @implements {T.SandboxService}
 */
export class SandboxService {
  constructor(defaults = {}) {
    this._defaults = defaults;
    this._sandboxes = new Map();
    this._closed = false;
  }

  _open() {
    if (this._closed) {
      throw new MemSandboxError('service_closed', 'invalid_request', 'the sandbox service is closed');
    }
  }

  _find(handle) {
    this._open();
    const sb = this._sandboxes.get(handle);
    if (!sb) throw new MemSandboxError('sandbox_not_found', 'not_found', `no sandbox ${handle}`);
    if (sb.state === SandboxState.CLOSED || sb.state === SandboxState.FAILED) {
      this._sandboxes.delete(handle);
      sb.close();
      throw new MemSandboxError('sandbox_not_found', 'not_found', `no sandbox ${handle}`);
    }
    return sb;
  }

  /** Creates a sandbox; resolves to { handle, sandbox }. */
  async create(options = {}) {
    this._open();
    const sandbox = await Sandbox.create({ ...this._defaults, ...options });
    if (this._closed) {
      await sandbox.close();
      this._open();
    }
    const handle = sandbox.id; /* the handle events carry as `sandbox` */
    this._sandboxes.set(handle, sandbox);
    return { handle, sandbox };
  }

  /** The running sandbox of a handle, or a not_found error. */
  get(handle) {
    return this._find(handle);
  }

  /**
   * A new sandbox from a snapshot (Sandbox.fromSnapshot with the service's
   * defaults); resolves to { handle, sandbox }.
   */
  async resume(archive, options = {}) {
    this._open();
    const sandbox = await Sandbox.fromSnapshot(archive, { ...this._defaults, ...options });
    if (this._closed) {
      await sandbox.close();
      this._open();
    }
    const handle = sandbox.id; /* as create's: the id its events carry */
    this._sandboxes.set(handle, sandbox);
    return { handle, sandbox };
  }

  /** Forks a sandbox under a new handle; resolves to { handle, sandbox }. */
  async fork(handle, options = {}) {
    const sandbox = await this._find(handle).fork(options);
    const child = sandbox.id;
    this._sandboxes.set(child, sandbox);
    return { handle: child, sandbox };
  }

  /** Closes and forgets a sandbox. */
  async delete(handle) {
    this._open();
    const sb = this._sandboxes.get(handle);
    if (!sb) throw new MemSandboxError('sandbox_not_found', 'not_found', `no sandbox ${handle}`);
    this._sandboxes.delete(handle);
    await sb.close();
  }

  /** Handles with their states. */
  list() {
    this._open();
    return [...this._sandboxes].map(([handle, sb]) => ({ handle, state: sb.state }));
  }

  /** Closes every sandbox and rejects further calls; idempotent. */
  async close() {
    if (this._closed) return;
    this._closed = true;
    const all = [...this._sandboxes.values()];
    this._sandboxes.clear();
    for (const sb of all) await sb.close();
  }
}


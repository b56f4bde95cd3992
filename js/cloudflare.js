// cloudflare.js - memsandbox/cloudflare: SandboxObject, a Durable Object
// holding one sandbox, reached by Workers RPC or HTTP.
//
// The object's storage is the sandbox's durable copy: after every call
// that changes the sandbox, the pieces its state gained (state.js) and the
// new manifest are written in one storage transaction (store.js), with the
// call's idempotency key and result when it has one. An object that was
// evicted, or a workerd that restarted, rebuilds the sandbox from the
// manifest on its next call. A retried call whose key is recorded gets
// the recorded result and is not applied again. Calls are serialised, so
// a call's change and its persist are one step for every other caller.
// An alarm drops the in-memory sandbox and collects unreferenced pieces
// once the object has been idle for idleMs.
//
// The wasm module is imported as a Workers wasm module, as Wrangler and
// workerd load it.
// The platform's modules have no declarations in this package (their
// types are @cloudflare/workers-types, which it does not depend on).
// @ts-ignore
import { DurableObject } from 'cloudflare:workers';
// @ts-ignore
import wasm from './memsandbox.wasm';
import { MemSandboxError, invalid } from './errors.js';
import { setDefaultWasm } from './loader.js';
import { Sandbox } from './sandbox.js';
import { collectPieces } from './state.js';
import { DurableObjectStore, collectGarbage, loadManifest, saveState } from './store.js';

setDefaultWasm(wasm);

const enc = new TextEncoder();
const dec = new TextDecoder();
const CURRENT = 'current';
const OPTIONS_KEY = 'meta/options';
const KEYS_KEY = 'meta/idempotency';
// Idempotency keys remembered per sandbox (the oldest is forgotten first).
const MAX_KEYS = 64;
const DEFAULT_IDLE_MS = 10 * 60 * 1000;
// Create options that survive a restore (what a sandbox is, not its state).
const DURABLE_OPTIONS = ['limits', 'profile', 'seed', 'clock'];

// getPiece for collectPieces over a getPieces(keys) call: the keys asked
// for in one turn go in one call (of at most 1024).
function batched(getPieces) {
  let batch = null;
  return (key) => {
    if (!batch) {
      /** @type {{keys: string[], done?: Promise<Record<string, any>>}} */
      const b = batch = { keys: [] };
      b.done = Promise.resolve().then(async () => {
        batch = null;
        const out = {};
        for (let i = 0; i < b.keys.length; i += 1024) Object.assign(out, await getPieces(b.keys.slice(i, i + 1024)));
        return out;
      });
    }
    batch.keys.push(key);
    return batch.done.then((got) => got[key]);
  };
}

function notFound() {
  return new MemSandboxError('sandbox_not_found', 'not_found', 'this object holds no sandbox (call create first)');
}

function checkIdemKey(key) {
  if (key === undefined) return;
  if (typeof key !== 'string' || !key || key.length > 256) {
    throw invalid('idempotencyKey must be a string of 1-256 characters');
  }
}

/** A Durable Object hosting one sandbox (see the file comment). */
export class SandboxObject extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.storage = ctx.storage;
    this.store = new DurableObjectStore(ctx.storage);
    this.sandbox = null;
    this.last = null; // the last persisted export: what the store holds
    this.queue = Promise.resolve();
    this.idleMs = DEFAULT_IDLE_MS;
  }

  // Runs fn after every earlier call has finished.
  _serial(fn) {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }

  async _options() {
    const o = await this.store.get(OPTIONS_KEY);
    return o === undefined ? null : JSON.parse(dec.decode(o));
  }

  // The sandbox, rebuilt from storage when this instance has none.
  async _load() {
    if (this.sandbox) return this.sandbox;
    const manifest = await loadManifest(this.store, CURRENT);
    if (!manifest) throw notFound();
    const options = (await this._options()) ?? {};
    const pieces = await collectPieces(manifest, (k) => this.store.get(`p/${k}`));
    // its own storage, written by itself: the keys need no hashing
    this.sandbox = await Sandbox.importState(manifest, (k) => pieces.get(k), { ...options, trustPieces: true });
    this.last = { keys: new Set(pieces.keys()) };
    return this.sandbox;
  }

  async _recorded(key) {
    if (key === undefined) return undefined;
    const v = await this.store.get(`i/${key}`);
    return v === undefined ? undefined : JSON.parse(dec.decode(v));
  }

  // Persists the sandbox and the call's key and result in one transaction.
  async _persist(key, result, extra = []) {
    const exported = await this.sandbox.exportState({ since: this.last });
    const entries = [...extra];
    let order = null;
    if (key !== undefined) {
      order = JSON.parse(dec.decode((await this.store.get(KEYS_KEY)) ?? enc.encode('[]')));
      order.push(key);
      entries.push([`i/${key}`, enc.encode(JSON.stringify(result ?? null))]);
      entries.push([KEYS_KEY, enc.encode(JSON.stringify(order.slice(-MAX_KEYS)))]);
    }
    const pieces = [...exported.pieces].map(([k, v]) => [`p/${k}`, v]);
    pieces.push([`m/${CURRENT}`, enc.encode(JSON.stringify(exported.manifest))]);
    await this.store.putMany([...pieces, ...entries]);
    this.last = exported;
    if (order && order.length > MAX_KEYS) {
      for (const old of order.slice(0, order.length - MAX_KEYS)) await this.store.delete(`i/${old}`);
    }
    await this.storage.setAlarm(Date.now() + this.idleMs);
    return { manifest: exported.manifest, written: exported.pieces.size };
  }

  // A mutating call: applied once per idempotency key, then persisted.
  _mutate(key, fn) {
    checkIdemKey(key);
    return this._serial(async () => {
      const seen = await this._recorded(key);
      if (seen !== undefined) return seen;
      const sb = await this._load();
      let result, failure;
      try {
        result = await fn(sb);
      } catch (e) {
        failure = e;
      }
      try {
        // a failed call may still have changed the sandbox (an execute's
        // earlier commands): what is in memory is what gets kept, but
        // not the key, so a retry runs again
        await this._persist(failure ? undefined : key, result);
      } catch (e) {
        // memory and storage may differ now: the next call reloads
        this._drop();
        throw failure ?? e;
      }
      if (failure) throw failure;
      return result;
    });
  }

  _drop() {
    this.sandbox?.close().catch(() => {});
    this.sandbox = null;
    this.last = null;
  }

  _read(fn) {
    return this._serial(async () => fn(await this._load()));
  }

  /**
   * Creates the sandbox (Sandbox.create options: limits, profile, seed,
   * clock, files, directories, cwd, env). Fails when one exists.
   */
  /**
   * @param {any} [options]
   * @param {{idempotencyKey?: string}} [call]
   */
  async create(options = {}, { idempotencyKey } = {}) {
    checkIdemKey(idempotencyKey);
    return this._serial(async () => {
      const seen = await this._recorded(idempotencyKey);
      if (seen !== undefined) return seen;
      if (this.sandbox || (await loadManifest(this.store, CURRENT))) {
        throw new MemSandboxError('sandbox_exists', 'conflict', 'this object already holds a sandbox');
      }
      const durable = Object.fromEntries(DURABLE_OPTIONS.filter((k) => options[k] !== undefined)
        .map((k) => [k, options[k]]));
      this.sandbox = await Sandbox.create(options);
      this.last = null;
      const result = { rootHash: await this.sandbox.rootHash(), revision: this.sandbox.revision };
      await this._persist(idempotencyKey, result, [[OPTIONS_KEY, enc.encode(JSON.stringify(durable))]]);
      return result;
    });
  }

  /** Runs a script (Sandbox.execute options plus idempotencyKey). */
  async execute(script, options = {}) {
    const { idempotencyKey, ...rest } = options;
    return this._mutate(idempotencyKey, (sb) => sb.execute(script, rest));
  }

  async writeFile(path, content, options = {}) {
    const { idempotencyKey, ...rest } = options;
    return this._mutate(idempotencyKey, (sb) => sb.writeFile(path, content, rest));
  }

  async remove(path, options = {}) {
    const { idempotencyKey, ...rest } = options;
    return this._mutate(idempotencyKey, (sb) => sb.remove(path, rest));
  }

  async mkdir(path, options = {}) {
    const { idempotencyKey, ...rest } = options;
    return this._mutate(idempotencyKey, (sb) => sb.mkdir(path, rest));
  }

  async readFile(path, options = {}) {
    return this._read((sb) => sb.readFile(path, options));
  }

  async list(path = '.') {
    return this._read((sb) => sb.list(path));
  }

  async stat(path, options = {}) {
    return this._read((sb) => sb.stat(path, options));
  }

  /** { rootHash, revision, cwd } of the sandbox. */
  async info() {
    return this._read(async (sb) => ({ rootHash: await sb.rootHash(), revision: sb.revision, cwd: sb.cwd }));
  }

  /**
   * The current manifest (JSON-safe), saved under "m/snapshot/NAME" when
   * name is given so garbage collection keeps its pieces.
   */
  async snapshot(name) {
    return this._serial(async () => {
      await this._load();
      const manifest = await loadManifest(this.store, CURRENT);
      if (name !== undefined) {
        if (typeof name !== 'string' || !name) throw invalid('a snapshot name must be a non-empty string');
        await this.store.put(`m/snapshot/${name}`, enc.encode(JSON.stringify(manifest)));
      }
      return manifest;
    });
  }

  /** The bytes of pieces by key (what a fork reads from its parent). */
  async getPieces(keys) {
    if (!Array.isArray(keys) || keys.length > 1024) throw invalid('keys must be an array of at most 1024 keys');
    const out = {};
    for (const k of keys) {
      const v = await this.store.get(`p/${k}`);
      if (v !== undefined) out[k] = v;
    }
    return out;
  }

  /**
   * Makes this object a fork of another: the parent's manifest, with its
   * pieces read through parent (a stub with getPieces, 1,024 keys per
   * call) into this object's storage, so the fork owns its state. The
   * parent only reads; the copy costs the workspace's size here.
   * TODO(#20): a store shared between objects (R2) would make a fork the
   * manifest alone.
   */
  async forkFrom(manifest, parent, options = {}) {
    return this._serial(async () => {
      if (this.sandbox || (await loadManifest(this.store, CURRENT))) {
        throw new MemSandboxError('sandbox_exists', 'conflict', 'this object already holds a sandbox');
      }
      const pieces = await collectPieces(manifest, batched((keys) => parent.getPieces(keys)));
      this.sandbox = await Sandbox.importState(manifest, (k) => pieces.get(k), options.create ?? {});
      this.last = null;
      const durable = Object.fromEntries(DURABLE_OPTIONS.filter((k) => options.create?.[k] !== undefined)
        .map((k) => [k, options.create[k]]));
      await this._persist(undefined, null, [[OPTIONS_KEY, enc.encode(JSON.stringify(durable))]]);
      return { rootHash: manifest.rootHash, revision: this.sandbox.revision };
    });
  }

  /** Deletes the sandbox and everything stored for it. */
  async delete() {
    return this._serial(async () => {
      if (this.sandbox) await this.sandbox.close();
      this.sandbox = null;
      this.last = null;
      await this.storage.deleteAlarm();
      await this.storage.deleteAll();
      // deleteAll drops the store's table too
      this.store = new DurableObjectStore(this.storage);
      return { deleted: true };
    });
  }

  /** Idle: drop the in-memory sandbox and collect unreferenced pieces. */
  async alarm() {
    return this._serial(async () => {
      if (this.sandbox) await this.sandbox.close();
      this.sandbox = null;
      this.last = null;
      await collectGarbage(this.store);
    });
  }

  /**
   * The HTTP API: POST /create, POST /execute {script, ...options},
   * GET|PUT|DELETE /file?path=, GET /info, POST /snapshot?name=, DELETE /.
   * The Idempotency-Key header is the mutating calls' key; errors are
   * JSON { error: { code, category, message } } with 4xx/5xx statuses.
   */
  async fetch(request) {
    try {
      return Response.json(await this._route(request));
    } catch (e) {
      const body = e instanceof MemSandboxError ? e.toJSON()
        : { code: 'internal_error', category: 'internal', message: String(e?.message ?? e) };
      const status = { not_found: 404, conflict: 409, invalid_request: 400, quota_exceeded: 413,
        policy_denied: 403 }[body.category] ?? 500;
      return Response.json({ error: body }, { status });
    }
  }

  async _route(request) {
    const url = new URL(request.url);
    const idempotencyKey = request.headers.get('idempotency-key') ?? undefined;
    const path = url.searchParams.get('path');
    const route = `${request.method} ${url.pathname}`;
    const json = async () => (request.headers.get('content-type')?.includes('json') ? request.json() : {});
    switch (route) {
      case 'POST /create': return this.create(await json(), { idempotencyKey });
      case 'POST /execute': {
        const { script, ...options } = await json();
        return this.execute(script, { ...options, idempotencyKey });
      }
      case 'GET /file': return { content: await this.readFile(path) };
      case 'PUT /file': return this.writeFile(path, new Uint8Array(await request.arrayBuffer()), { idempotencyKey });
      case 'DELETE /file': return this.remove(path, { idempotencyKey });
      case 'GET /info': return this.info();
      case 'POST /snapshot': return this.snapshot(url.searchParams.get('name') ?? undefined);
      case 'DELETE /': return this.delete();
      default:
        throw new MemSandboxError('route_not_found', 'not_found', `no route ${route}`);
    }
  }
}

// store.js - where content-addressed state lives: the SnapshotStore
// interface, stores for memory, Durable Object storage and any key-value
// service, and the operations over them (save, load, garbage collection).
//
// A store maps string keys to bytes: get, put, has, delete, list(prefix),
// and optionally getMany / putMany / deleteMany, which the operations use
// when present (putMany is where a store makes a save atomic). Pieces live
// under "p/<sha256>", manifests under "m/<name>" as JSON, so one store
// serves many sandboxes and an identical file is stored once across all.
// The Node filesystem store is in store-node.js (node.js exports it).
import { invalid } from './errors.js';
import { collectPieces } from './state.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

export const PIECE_PREFIX = 'p/';
export const MANIFEST_PREFIX = 'm/';

function checkKey(key) {
  if (typeof key !== 'string' || !key) throw invalid('a store key must be a non-empty string');
}

function checkBytes(value) {
  if (!(value instanceof Uint8Array)) throw invalid('a store value must be a Uint8Array');
}

/** A store in this process's memory (tests, caches, one-host services). */
export class MemoryStore {
  constructor() {
    this._m = new Map();
  }

  async get(key) {
    return this._m.get(key);
  }

  async put(key, value) {
    checkKey(key);
    checkBytes(value);
    this._m.set(key, value);
  }

  async has(key) {
    return this._m.has(key);
  }

  async delete(key) {
    return this._m.delete(key);
  }

  async list(prefix = '') {
    return [...this._m.keys()].filter((k) => k.startsWith(prefix)).sort();
  }

  async putMany(entries) {
    for (const [k, v] of entries) {
      checkKey(k);
      checkBytes(v);
    }
    for (const [k, v] of entries) this._m.set(k, v);
  }
}

/**
 * A store over any key-value service the host already runs (R2, S3, KV,
 * Redis ...): ops are async functions get(key) -> bytes | undefined,
 * put(key, bytes), delete(key), and optionally has(key) and list(prefix)
 * -> keys (needed for garbage collection). prefix namespaces the keys.
 */
export class KeyValueStore {
  constructor(ops, { prefix = '' } = {}) {
    for (const f of ['get', 'put', 'delete']) {
      if (typeof ops?.[f] !== 'function') throw invalid(`KeyValueStore needs ${f}(key)`);
    }
    this._ops = ops;
    this._prefix = prefix;
  }

  async get(key) {
    const v = await this._ops.get(this._prefix + key);
    if (v === undefined || v === null) return undefined;
    return v instanceof Uint8Array ? v : new Uint8Array(v);
  }

  async put(key, value) {
    checkKey(key);
    checkBytes(value);
    await this._ops.put(this._prefix + key, value);
  }

  async has(key) {
    if (this._ops.has) return !!(await this._ops.has(this._prefix + key));
    return (await this.get(key)) !== undefined;
  }

  async delete(key) {
    await this._ops.delete(this._prefix + key);
  }

  async list(prefix = '') {
    if (!this._ops.list) throw invalid('this KeyValueStore has no list(prefix)');
    const keys = await this._ops.list(this._prefix + prefix);
    return keys.map((k) => k.slice(this._prefix.length)).sort();
  }
}

// Durable Object storage keeps values up to 2 MiB (SQLite-backed) or
// 128 KiB (key-value backed); larger pieces are split into chunks.
const DO_CHUNK = 120 * 1024;
// Keys per storage.put / get / delete call.
const DO_BATCH = 128;

// Bytes per row of the SQL table (SQLite-backed objects take 2 MB).
const SQL_CHUNK = 1 << 20;

/**
 * A store in a Durable Object's transactional storage (ctx.storage). On a
 * SQLite-backed object it is a table of its own (rows of at most 1 MiB,
 * keys listed without reading values, putMany in transactionSync);
 * elsewhere the key-value API, where a value is bytes, or { chunks: n }
 * with the bytes under "key#0" ... "key#n-1", and putMany is one
 * storage.transaction. Either way a save is all or nothing.
 */
export class DurableObjectStore {
  constructor(storage, { prefix = 'state/' } = {}) {
    if (typeof storage?.get !== 'function' || typeof storage?.put !== 'function') {
      throw invalid('DurableObjectStore needs a Durable Object storage (ctx.storage)');
    }
    this._s = storage;
    this._prefix = prefix;
    if (storage.sql && typeof storage.transactionSync === 'function') {
      // eslint-disable-next-line no-constructor-return
      return /** @type {any} */ (new SqlStore(storage, prefix));
    }
  }

  _entries(key, value) {
    const k = this._prefix + key;
    if (value.length <= DO_CHUNK) return [[k, value]];
    const out = [[k, { chunks: Math.ceil(value.length / DO_CHUNK), length: value.length }]];
    for (let i = 0; i * DO_CHUNK < value.length; i++) {
      out.push([`${k}#${i}`, value.slice(i * DO_CHUNK, (i + 1) * DO_CHUNK)]);
    }
    return out;
  }

  async get(key) {
    const v = await this._s.get(this._prefix + key);
    if (v === undefined || v === null) return undefined;
    if (v instanceof Uint8Array) return v;
    if (v instanceof ArrayBuffer) return new Uint8Array(v);
    const names = Array.from({ length: v.chunks }, (_, i) => `${this._prefix}${key}#${i}`);
    const out = new Uint8Array(v.length);
    let at = 0;
    for (let i = 0; i < names.length; i += DO_BATCH) {
      const got = await this._s.get(names.slice(i, i + DO_BATCH));
      for (const n of names.slice(i, i + DO_BATCH)) {
        const c = got.get(n);
        if (!c) return undefined; // a torn value reads as missing
        out.set(new Uint8Array(c), at);
        at += c.byteLength;
      }
    }
    return out;
  }

  async put(key, value) {
    await this.putMany([[key, value]]);
  }

  async has(key) {
    return (await this._s.get(this._prefix + key)) !== undefined;
  }

  async delete(key) {
    const v = await this._s.get(this._prefix + key);
    if (v === undefined) return false;
    const names = [this._prefix + key];
    if (v?.chunks) for (let i = 0; i < v.chunks; i++) names.push(`${this._prefix}${key}#${i}`);
    for (let i = 0; i < names.length; i += DO_BATCH) await this._s.delete(names.slice(i, i + DO_BATCH));
    return true;
  }

  async list(prefix = '') {
    const m = await this._s.list({ prefix: this._prefix + prefix });
    return [...m.keys()].filter((k) => !k.includes('#')).map((k) => k.slice(this._prefix.length));
  }

  /** Writes every entry in one storage transaction. */
  async putMany(entries) {
    const all = [];
    for (const [k, v] of entries) {
      checkKey(k);
      checkBytes(v);
      all.push(...this._entries(k, v));
    }
    const write = async (s) => {
      for (let i = 0; i < all.length; i += DO_BATCH) {
        await s.put(Object.fromEntries(all.slice(i, i + DO_BATCH)));
      }
    };
    if (typeof this._s.transaction === 'function') await this._s.transaction(write);
    else await write(this._s);
  }
}

/** DurableObjectStore on a SQLite-backed object (see there). */
class SqlStore {
  constructor(storage, prefix) {
    this._s = storage;
    this._sql = storage.sql;
    this._prefix = prefix;
    this._sql.exec('CREATE TABLE IF NOT EXISTS memsandbox_store (key TEXT NOT NULL, part INTEGER NOT NULL, ' +
      'data BLOB NOT NULL, PRIMARY KEY (key, part))');
  }

  async get(key) {
    const rows = this._sql.exec('SELECT data FROM memsandbox_store WHERE key = ? ORDER BY part',
      this._prefix + key).toArray();
    if (!rows.length) return undefined;
    if (rows.length === 1) return new Uint8Array(/** @type {ArrayBuffer} */ (rows[0].data));
    const parts = rows.map((r) => new Uint8Array(/** @type {ArrayBuffer} */ (r.data)));
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }

  _put(key, value) {
    this._sql.exec('DELETE FROM memsandbox_store WHERE key = ?', this._prefix + key);
    for (let i = 0, part = 0; i < value.length || part === 0; i += SQL_CHUNK, part++) {
      this._sql.exec('INSERT INTO memsandbox_store (key, part, data) VALUES (?, ?, ?)', this._prefix + key, part,
        value.slice(i, i + SQL_CHUNK));
    }
  }

  async put(key, value) {
    await this.putMany([[key, value]]);
  }

  async has(key) {
    return this._sql.exec('SELECT 1 FROM memsandbox_store WHERE key = ? LIMIT 1', this._prefix + key)
      .toArray().length > 0;
  }

  async delete(key) {
    this._sql.exec('DELETE FROM memsandbox_store WHERE key = ?', this._prefix + key);
  }

  async list(prefix = '') {
    const p = this._prefix + prefix;
    return this._sql.exec('SELECT DISTINCT key FROM memsandbox_store WHERE substr(key, 1, ?) = ? ORDER BY key',
      p.length, p).toArray().map((r) => String(r.key).slice(this._prefix.length));
  }

  /** Writes every entry in one transaction. */
  async putMany(entries) {
    for (const [k, v] of entries) {
      checkKey(k);
      checkBytes(v);
    }
    this._s.transactionSync(() => {
      for (const [k, v] of entries) this._put(k, v);
    });
  }
}

async function putAll(store, entries) {
  if (typeof store.putMany === 'function') return store.putMany(entries);
  for (const [k, v] of entries) await store.put(k, v);
}

function checkName(name) {
  if (typeof name !== 'string' || !name) throw invalid('a state name must be a non-empty string');
}

/**
 * Saves an exportState result under name: its pieces, then the manifest,
 * in one putMany when the store has it. Resolves to { pieces, bytes }
 * written.
 * @param {any} store
 * @param {string} name
 * @param {{manifest: any, pieces: Map<string, Uint8Array>}} exported
 */
export async function saveState(store, name, exported) {
  checkName(name);
  const entries = [];
  let bytes = 0;
  for (const [k, v] of exported.pieces) {
    entries.push([PIECE_PREFIX + k, v]);
    bytes += v.length;
  }
  const m = enc.encode(JSON.stringify(exported.manifest));
  entries.push([MANIFEST_PREFIX + name, m]);
  await putAll(store, entries);
  return { pieces: exported.pieces.size, bytes: bytes + m.length };
}

/** The manifest saved under name, or undefined. */
export async function loadManifest(store, name) {
  checkName(name);
  const m = await store.get(MANIFEST_PREFIX + name);
  return m === undefined ? undefined : JSON.parse(dec.decode(m));
}

/** A piece reader over a store, for Sandbox.importState. */
export function pieceReader(store) {
  return (key) => store.get(PIECE_PREFIX + key);
}

/**
 * Removes every piece no saved manifest reaches; resolves to the number
 * removed. Run it where no save is in flight (a Durable Object's own
 * calls are serialised; elsewhere, pause writers): a save's pieces land
 * before its manifest, so a collector running between the two would take
 * them.
 */
export async function collectGarbage(store) {
  const live = new Set();
  for (const name of await store.list(MANIFEST_PREFIX)) {
    const manifest = JSON.parse(dec.decode(await store.get(name)));
    const reached = await collectPieces(manifest, pieceReader(store), { leaves: false });
    for (const k of reached.keys()) live.add(k);
  }
  let removed = 0;
  for (const k of await store.list(PIECE_PREFIX)) {
    if (live.has(k.slice(PIECE_PREFIX.length))) continue;
    await store.delete(k);
    removed++;
  }
  return removed;
}

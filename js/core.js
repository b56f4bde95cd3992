// core.js - the runtime-neutral MemSandbox package: loader, Sandbox,
// SandboxService and MemSandboxError.
//
// Every sandbox lives in its own WebAssembly instance with its own
// WebAssembly.Memory, whose maximum comes from limits.max_memory_bytes, so a
// runaway sandbox (or a bug in the C core) cannot touch another one or the
// host. The module is compiled once per source and instantiated per sandbox.
// This file never reads import.meta: edge runtimes lack it. The per-runtime
// entry files (node.js, index.js, edge.js) only decide
// where the default module comes from.
//
// Calls cross the boundary as 32-bit integers; strings and records go
// through buffers allocated in the instance (OP.alloc) with the
// layouts of wasm/abi.h, whose offsets arrive in constants.js (generated
// from the C headers), so no number is repeated here. A trap or an exit
// inside the module marks that sandbox FAILED; others are untouched.
import constants from './constants.js';
import { wasiImports } from './wasi.js';

const K = constants.constants;
// The module's operations by name (MSB_WASM_OP_OPEN -> OP.open); every call
// goes through its one export, msb_wasm_call (see wasm/abi.h).
const OP = Object.fromEntries(Object.entries(K)
  .filter(([name]) => name.startsWith('MSB_WASM_OP_'))
  .map(([name, v]) => [name.slice('MSB_WASM_OP_'.length).toLowerCase(), v]));
const CODE_NAMES = Object.fromEntries(
  Object.entries(constants.codes).map(([name, v]) => [v, name]));
const PAGE = 65536;
const MAX_PAGES = 65536;
const UNSET = 0xffffffffffffffffn;
const enc = new TextEncoder();
const dec = new TextDecoder('utf-8', { fatal: false });

// ---- errors ---------------------------------------------------------------

// Model- and host-facing code and category for each C result code, after the
// reference product's taxonomy.
const ERROR_KINDS = {
  MSB_ENOENT: ['path_not_found', 'not_found'],
  MSB_EEXIST: ['path_already_exists', 'conflict'],
  MSB_ENOTDIR: ['not_a_directory', 'conflict'],
  MSB_EISDIR: ['not_a_file', 'conflict'],
  MSB_ENOTEMPTY: ['directory_not_empty', 'conflict'],
  MSB_EINVAL: ['invalid_argument', 'invalid_request'],
  MSB_ENOSPC: ['workspace_size_limit_exceeded', 'quota_exceeded'],
  MSB_EDQUOT: ['node_limit_exceeded', 'quota_exceeded'],
  MSB_EFBIG: ['file_size_limit_exceeded', 'quota_exceeded'],
  MSB_ENAMETOOLONG: ['path_too_long', 'invalid_request'],
  MSB_ELOOP: ['symlink_loop', 'invalid_request'],
  MSB_ENOMEM: ['memory_limit_exceeded', 'quota_exceeded'],
  MSB_ELIMIT: ['execution_limit_exceeded', 'quota_exceeded'],
  MSB_ESYNTAX: ['command_syntax_invalid', 'invalid_request'],
  MSB_EPOLICY: ['policy_denied', 'policy_denied'],
  MSB_ECORRUPT: ['malformed_input', 'invalid_request'],
  MSB_EMISUSE: ['api_misuse', 'invalid_request'],
  MSB_ESTALE: ['stale_content', 'conflict'],
  MSB_EPERM: ['root_modification', 'conflict'],
  MSB_EINCOMPLETE: ['command_incomplete', 'invalid_request'],
  MSB_ENOTSUP: ['unsupported', 'unsupported'],
  MSB_EBUSY: ['destination_within_source', 'conflict'],
  MSB_ESECRET: ['secret_write_denied', 'policy_denied'],
};

const CORRECTABLE = new Set(['invalid_request', 'not_found', 'conflict',
  'quota_exceeded', 'timeout']);

/**
 * The one error class of the package. `code` is a snake_case string
 * ("path_not_found"), `category` the reference product's category
 * ("not_found"), `errno` the C result code when one applies.
 */
export class MemSandboxError extends Error {
  constructor(code, category, message, errno = undefined) {
    super(message);
    this.name = 'MemSandboxError';
    this.code = code;
    this.category = category;
    if (errno !== undefined) this.errno = errno;
  }

  /** Whether a model can fix the call (the reference's rule). */
  get correctable() {
    return CORRECTABLE.has(this.category);
  }

  /** Whether retrying the same call may succeed. */
  get retryable() {
    return this.category === 'timeout';
  }

  toJSON() {
    return { category: this.category, code: this.code, message: this.message,
      correctable: this.correctable, retryable: this.retryable };
  }
}

function errorFromCode(rc, message) {
  const name = CODE_NAMES[rc];
  const [code, category] = ERROR_KINDS[name] ?? ['internal_error', 'internal'];
  return new MemSandboxError(code, category, message, rc);
}

function invalid(message) {
  return new MemSandboxError('invalid_argument', 'invalid_request', message);
}

// ---- loading --------------------------------------------------------------

let defaultSource = null;
let fileReader = null;
const compiled = new WeakMap(); // source object -> Promise<Module>
let compiledDefault = null;

/**
 * Sets where the module comes from when a sandbox names none: a
 * WebAssembly.Module, bytes, a URL, or a function returning one of those
 * (called once, lazily). Entry files call this; hosts may too.
 */
export function setDefaultWasm(source) {
  defaultSource = source;
  compiledDefault = null;
}

/**
 * Lets an entry read file: URLs and plain paths (Node's fetch cannot).
 * `reader(urlOrPath)` resolves to bytes.
 */
export function setFileReader(reader) {
  fileReader = reader;
}

function isLocal(source) {
  if (source instanceof URL) return source.protocol === 'file:';
  return !/^[a-z][a-z0-9+.-]*:/i.test(source) || source.startsWith('file:');
}

async function toModule(source) {
  if (typeof source === 'function') source = await source();
  if (source instanceof WebAssembly.Module) return source;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
    return WebAssembly.compile(source);
  }
  if ((source instanceof URL || typeof source === 'string') && fileReader &&
      isLocal(source)) {
    return WebAssembly.compile(await fileReader(
      typeof source === 'string' && source.startsWith('file:') ? new URL(source) : source));
  }
  if (source instanceof URL || typeof source === 'string') {
    const res = await fetch(source);
    if (!res.ok) throw invalid(`cannot fetch ${source}: HTTP ${res.status}`);
    if (WebAssembly.compileStreaming &&
        (res.headers.get('content-type') || '').startsWith('application/wasm')) {
      return WebAssembly.compileStreaming(res);
    }
    return WebAssembly.compile(await res.arrayBuffer());
  }
  if (source && typeof source.arrayBuffer === 'function') {
    return WebAssembly.compile(await source.arrayBuffer());
  }
  throw invalid('wasm must be a WebAssembly.Module, bytes, or a URL');
}

// Loading errors (I/O, invalid bytes) become MemSandboxErrors.
async function toModuleChecked(source) {
  try {
    return await toModule(source);
  } catch (e) {
    if (e instanceof MemSandboxError) throw e;
    throw new MemSandboxError('wasm_load_failed', 'invalid_request',
      `cannot load the WebAssembly module: ${e.message}`);
  }
}

/** Compiles (once) and returns the module for a source, or the default. */
export function loadModule(source = undefined) {
  if (source === undefined || source === null) {
    if (!defaultSource) {
      throw invalid('no WebAssembly module: pass { wasm } (a WebAssembly.Module, ' +
        'bytes or URL); edge runtimes must import memsandbox.wasm and pass it');
    }
    if (!compiledDefault) {
      compiledDefault = toModuleChecked(defaultSource);
      compiledDefault.catch(() => { compiledDefault = null; });
    }
    return compiledDefault;
  }
  if (typeof source === 'object' || typeof source === 'function') {
    let p = compiled.get(source);
    if (!p) {
      p = toModuleChecked(source);
      compiled.set(source, p);
    }
    return p;
  }
  return toModuleChecked(source);
}

// Memories of closed sandboxes, kept for the next instance of the same
// module that needs exactly their size and maximum: a new sandbox (the
// initial size) or a fork (its parent's size). A fresh WebAssembly.Memory
// costs 40-200 us in V8 (more the more memory is committed: it drives the
// GC) plus a page fault per 4 KiB first touched, and the common patterns
// are create-use-close and fork-try-discard. A taken memory is zeroed
// unless its new owner overwrites every byte (a fork's copy), so it is
// indistinguishable from a fresh one: no byte of a closed sandbox reaches
// the next. Zeroing on take, not on close, keeps close cheap for the
// memories that are never reused. Bounded small (edge runtimes cap an
// isolate's memory): POOL_COUNT memories, POOL_MAX_BYTES in all, the
// oldest dropped first.
const pools = new WeakMap(); // Module -> [{ memory, maxPages }], oldest first
const POOL_COUNT = 4;
const POOL_MAX_BYTES = 32 * 1024 * 1024;

function poolGive(module, maxPages, memory) {
  if (memory.buffer.byteLength > POOL_MAX_BYTES) return;
  let list = pools.get(module);
  if (!list) {
    list = [];
    pools.set(module, list);
  }
  list.push({ memory, maxPages });
  let total = list.reduce((n, e) => n + e.memory.buffer.byteLength, 0);
  while (list.length > POOL_COUNT || total > POOL_MAX_BYTES) {
    total -= list.shift().memory.buffer.byteLength;
  }
}

// A pooled memory of exactly `bytes`, zeroed unless `overwritten`.
function poolTake(module, maxPages, bytes, overwritten) {
  const list = pools.get(module);
  if (!list) return null;
  // the most recent first: its pages are the likeliest still in cache
  const i = list.findLastIndex((e) => e.maxPages === maxPages &&
    e.memory.buffer.byteLength === bytes);
  if (i < 0) return null;
  const { memory } = list.splice(i, 1)[0];
  if (!overwritten) new Uint8Array(memory.buffer).fill(0);
  return memory;
}

// The function imports a module declares, listed once per module:
// env (Emscripten's hooks) and wasi_snapshot_preview1 names.
const importCache = new WeakMap();

function importNames(module) {
  let names = importCache.get(module);
  if (!names) {
    names = { env: [], wasi: [] };
    for (const imp of WebAssembly.Module.imports(module)) {
      if (imp.kind !== 'function') continue;
      if (imp.module === 'env') names.env.push(imp.name);
      else if (imp.module === 'wasi_snapshot_preview1') names.wasi.push(imp.name);
    }
    importCache.set(module, names);
  }
  return names;
}

// Records every call may use, allocated once per instance (calls are
// synchronous and never nest, so one set serves them all): the clock value
// set before each call, an exec options record, and one output record
// (exec result, stat, blob, handle, id or a 32-byte hash).
const SCRATCH_CLOCK = 0;
const SCRATCH_OPTS = 8;
const SCRATCH_OUT = SCRATCH_OPTS + Math.ceil(K.MSB_WASM_OPTS_SIZE / 8) * 8;
const SCRATCH_BYTES = SCRATCH_OUT + Math.max(K.MSB_WASM_RES_SIZE, K.MSB_WASM_STAT_RECORD,
  K.MSB_WASM_BLOB_SIZE, 32);

// One raw instance: memory, exports, and typed helpers over them.
class Instance {
  // copyOf: a parent's memory that the caller copies over this one (a
  // fork): the new memory starts at its size, in one allocation.
  constructor(module, maxPages, seed, clockNs, copyOf = null) {
    const initial = copyOf ? copyOf.buffer.byteLength / PAGE
      : Math.min(maxPages, K.MSB_WASM_INITIAL_PAGES);
    this.module = module;
    this.maxPages = maxPages;
    this.memory = poolTake(module, maxPages, initial * PAGE, copyOf !== null) ||
      new WebAssembly.Memory({ initial, maximum: maxPages });
    this.state = { memory: this.memory, seed, clockNs };
    const { env, wasi } = importNames(module);
    const imports = { env: { memory: this.memory } };
    // Emscripten's growth hook: views are re-read on every access anyway.
    for (const name of env) imports.env[name] = () => {};
    imports.wasi_snapshot_preview1 = wasiImports(wasi, this.state);
    this.instance = new WebAssembly.Instance(module, imports);
    this.call = this.instance.exports.msb_wasm_call;
  }

  // Hands the memory back for reuse; the instance is dead afterwards.
  release() {
    poolGive(this.module, this.maxPages, this.memory);
    this.memory = null;
  }

  // Runs the module's constructors (a fresh instance; a fork's copy has
  // them run already) and sets aside the scratch records.
  start() {
    this.instance.exports._initialize();
    this.scratch = this.alloc(SCRATCH_BYTES);
  }

  get clockRec() { return this.scratch + SCRATCH_CLOCK; }
  get optsRec() { return this.scratch + SCRATCH_OPTS; }
  get outRec() { return this.scratch + SCRATCH_OUT; }

  u8() {
    return new Uint8Array(this.memory.buffer);
  }

  dv() {
    return new DataView(this.memory.buffer);
  }

  alloc(n) {
    const p = this.call(OP.alloc, Math.max(n, 1)) >>> 0;
    if (!p) {
      throw new MemSandboxError('memory_limit_exceeded', 'quota_exceeded',
        'the sandbox memory limit was reached');
    }
    return p;
  }

  // Copies bytes in; the caller frees. A trailing NUL is added when asked.
  put(bytes, nul = false) {
    const p = this.alloc(bytes.length + (nul ? 1 : 0));
    const u8 = this.u8();
    u8.set(bytes, p);
    if (nul) u8[p + bytes.length] = 0;
    return p;
  }

  cstring(ptr) {
    ptr >>>= 0;
    if (!ptr) return null;
    const u8 = this.u8();
    let end = ptr;
    while (u8[end]) end++;
    return dec.decode(u8.subarray(ptr, end));
  }

  bytes(ptr, len) {
    return this.u8().slice(ptr, ptr + len);
  }
}

// Allocations of one call, freed together.
class Scope {
  constructor(inst) {
    this.inst = inst;
    this.ptrs = [];
  }

  alloc(n) {
    const p = this.inst.alloc(n);
    this.ptrs.push(p);
    return p;
  }

  bytes(data, nul = false) {
    const p = this.inst.put(data, nul);
    this.ptrs.push(p);
    return p;
  }

  // A path or other C string: no NUL bytes allowed inside.
  str(s, what = 'path') {
    const data = typeof s === 'string' ? enc.encode(s) : s;
    if (!(data instanceof Uint8Array)) throw invalid(`${what} must be a string`);
    if (data.includes(0)) throw invalid(`${what} contains a NUL byte`);
    return this.bytes(data, true);
  }

  free() {
    for (const p of this.ptrs) this.inst.call(OP.free, p);
    this.ptrs = [];
  }
}

// Profile defaults, read once per module from a small probe instance.
const profileCache = new WeakMap();

function profileLimits(module, profile) {
  let byProfile = profileCache.get(module);
  if (!byProfile) {
    byProfile = new Map();
    profileCache.set(module, byProfile);
  }
  if (byProfile.has(profile)) return byProfile.get(profile);
  const inst = new Instance(module, K.MSB_WASM_INITIAL_PAGES + 16, 0, () => 0n);
  inst.start();
  const n = constants.limitFields.length;
  const p = inst.alloc(8 * n);
  const rc = inst.call(OP.limits_get, profile, p);
  if (rc < 0) throw errorFromCode(rc, `unknown profile ${profile}`);
  if (rc !== n) {
    throw new MemSandboxError('internal_error', 'internal',
      `module has ${rc} limit fields, constants.js has ${n}`);
  }
  const dv = inst.dv();
  const out = {};
  constants.limitFields.forEach((f, i) => {
    out[f.name] = Number(dv.getBigUint64(p + 8 * i, true));
  });
  byProfile.set(profile, out);
  return out;
}

const PROFILES = { normal: K.MSB_PROFILE_NORMAL, strict: K.MSB_PROFILE_STRICT };

function snakeCase(key) {
  return key.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());
}

// Validates host limits: keys are the C field names or their camelCase form.
function normaliseLimits(limits) {
  const out = {};
  if (limits === undefined || limits === null) return out;
  if (typeof limits !== 'object') throw invalid('limits must be an object');
  const known = new Map(constants.limitFields.map((f) => [f.name, f]));
  for (const [key, value] of Object.entries(limits)) {
    const name = snakeCase(key);
    const f = known.get(name);
    if (!f) throw invalid(`unknown limit "${key}"`);
    const max = f.bits === 32 ? 2 ** 32 - 1 : Number.MAX_SAFE_INTEGER;
    if (!Number.isSafeInteger(value) || value < 0 || value > max) {
      throw invalid(`limit ${key} must be an integer from 0 to ${max}`);
    }
    out[name] = value;
  }
  return out;
}

// Linear memory for a sandbox: its allocator cap plus room for the stack,
// static data and allocator overhead, so the C allocator reports ENOMEM
// before the instance itself runs out.
function memoryPages(maxMemoryBytes) {
  const bytes = maxMemoryBytes * 1.25 + 4 * 1024 * 1024;
  return Math.max(K.MSB_WASM_INITIAL_PAGES,
    Math.min(MAX_PAGES, Math.ceil(bytes / PAGE)));
}

function toNs(clock) {
  if (typeof clock === 'bigint') return clock;
  if (clock instanceof Date) return BigInt(clock.getTime()) * 1000000n;
  if (typeof clock === 'number' && Number.isFinite(clock)) {
    return BigInt(Math.trunc(clock)) * 1000000n;
  }
  throw invalid('clock must be "system", a Date, milliseconds, or BigInt ns');
}

// Host entropy for seeds and handles, fetched in batches: one
// getRandomValues call costs about 20 us in Node, more than the rest of
// creating a pooled sandbox.
const entropy = { bytes: new Uint8Array(4096), used: 4096 };

function randomBytes(n) {
  if (entropy.used + n > entropy.bytes.length) {
    globalThis.crypto.getRandomValues(entropy.bytes);
    entropy.used = 0;
  }
  entropy.used += n;
  return entropy.bytes.subarray(entropy.used - n, entropy.used);
}

function randomSeed() {
  const b = randomBytes(8);
  return new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0, true);
}

function toBytes(content, what = 'content') {
  if (typeof content === 'string') return enc.encode(content);
  if (content instanceof Uint8Array) return content;
  if (content instanceof ArrayBuffer) return new Uint8Array(content);
  if (ArrayBuffer.isView(content)) {
    return new Uint8Array(content.buffer, content.byteOffset, content.byteLength);
  }
  throw invalid(`${what} must be a string or bytes`);
}

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

function hex(bytes) {
  let s = '';
  for (const b of bytes) s += HEX[b];
  return s;
}

function fromHex(s) {
  if (typeof s !== 'string' || !/^[0-9a-fA-F]{64}$/.test(s)) {
    throw invalid('a content hash is 64 hexadecimal digits (SHA-256)');
  }
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function flag(cond, bit) {
  return cond ? bit : 0;
}

const KINDS = { [K.MSB_FILE]: 'file', [K.MSB_DIR]: 'directory', [K.MSB_LINK]: 'symlink' };
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function envStrings(env, what) {
  if (env === undefined || env === null) return [];
  if (typeof env !== 'object') throw invalid(`${what} must be an object`);
  return Object.entries(env).map(([k, v]) => {
    if (!ENV_NAME.test(k)) throw invalid(`${what}: invalid variable name "${k}"`);
    if (typeof v !== 'string') throw invalid(`${what}: ${k} must be a string`);
    if (v.includes('\0')) throw invalid(`${what}: ${k} contains a NUL byte`);
    return `${k}=${v}`;
  });
}

function shellQuote(s) {
  return "'" + s.replace(/'/g, "'\\''") + "'";
}

// ---- patches --------------------------------------------------------------

/** Joins path onto cwd when relative and resolves "." and ".." lexically. */
export function normalisePath(cwd, path) {
  const out = [];
  for (const seg of (path.startsWith('/') ? path : `${cwd}/${path}`).split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return '/' + out.join('/');
}

// Change records of msb_apply_patch: five NUL-terminated fields each.
function patchChanges({ data, count }) {
  const f = dec.decode(data).split('\0');
  const files = [];
  for (let i = 0; i < count; i++) {
    const [op, path, from, prev, cur] = f.slice(5 * i, 5 * i + 5);
    const rec = { path, op, previousHash: prev || null, currentHash: cur || null };
    if (op === 'move') rec.from = from;
    files.push(rec);
  }
  return files;
}

function patchGuards(expected) {
  const guards = new Map();
  if (expected === undefined || expected === null) return guards;
  const list = Array.isArray(expected) ? expected
    : typeof expected === 'object' ? Object.entries(expected).map(([path, hash]) => ({ path, hash }))
      : null;
  if (!list) throw invalid('expectedHashes must be an object or an array');
  for (const g of list) {
    if (!g || typeof g.path !== 'string' || g.path === '') throw invalid('each expected hash needs a path');
    fromHex(g.hash);
    if (guards.has(g.path)) throw invalid(`expectedHashes name ${g.path} twice`);
    guards.set(g.path, g.hash.toLowerCase());
  }
  return guards;
}

// Compare-and-swap guards against a dry run's records (the state now).
function checkPatchGuards(guards, files, cwd) {
  const before = new Map();
  for (const f of files) before.set(f.op === 'move' ? f.from : f.path, f.previousHash);
  const resolved = new Map();
  for (const [path, hash] of guards) {
    const abs = normalisePath(cwd, path);
    if (resolved.has(abs)) throw invalid(`expectedHashes name ${abs} twice`);
    resolved.set(abs, hash);
    if (!before.has(abs)) {
      throw new MemSandboxError('invalid_patch', 'invalid_request',
        'expected hash supplied for a path not present in the patch');
    }
    const prev = before.get(abs);
    if (prev === null) {
      throw new MemSandboxError('path_not_found', 'not_found', `${abs} does not exist`);
    }
    if (prev !== hash) {
      throw new MemSandboxError('stale_content', 'conflict',
        `${abs} content hash does not match the expected hash`);
    }
  }
}

// Malformed patches and context that does not match share MSB_ECORRUPT;
// the reference product names them apart.
function patchError(e) {
  if (!(e instanceof MemSandboxError) || e.errno !== K.MSB_ECORRUPT) return e;
  const mismatch = /does not match at line|^Failed to find/.test(e.message);
  return new MemSandboxError(mismatch ? 'patch_context_mismatch' : 'invalid_patch',
    mismatch ? 'conflict' : 'invalid_request', e.message, e.errno);
}

// ---- Sandbox --------------------------------------------------------------

export const SandboxState = Object.freeze({
  CREATED: 'CREATED', RUNNING: 'RUNNING', CLOSED: 'CLOSED', FAILED: 'FAILED',
});

const POLICY_ACCESS = new Set(['none', 'read-only', 'read-write']);

// The text form of a policy given as a string or an object (see
// Sandbox.setPolicy). Names and paths may not hold line breaks; the C
// parser checks the rest and names the bad line.
function policyText(policy) {
  if (typeof policy === 'string') return policy;
  if (policy === null || typeof policy !== 'object' || Array.isArray(policy)) {
    throw invalid('policy must be a string or an object');
  }
  const known = new Set(['allowCommands', 'denyCommands', 'paths', 'allowOperations',
    'denyOperations']);
  for (const k of Object.keys(policy)) {
    if (!known.has(k)) throw invalid(`unknown policy field "${k}"`);
  }
  const lines = [];
  const word = (v, what) => {
    if (typeof v !== 'string' || v === '' || /[\r\n]/.test(v)) {
      throw invalid(`${what} must be non-empty strings without line breaks`);
    }
    return v;
  };
  const list = (field, keyword) => {
    const v = policy[field];
    if (v === undefined) return;
    if (!Array.isArray(v)) throw invalid(`policy.${field} must be an array`);
    for (const x of v) lines.push(`${keyword} ${word(x, `policy.${field}`)}`);
  };
  list('allowCommands', 'allow-command');
  list('denyCommands', 'deny-command');
  list('allowOperations', 'allow-op');
  list('denyOperations', 'deny-op');
  if (policy.paths !== undefined) {
    if (policy.paths === null || typeof policy.paths !== 'object' || Array.isArray(policy.paths)) {
      throw invalid('policy.paths must be an object of PREFIX: access');
    }
    for (const [prefix, access] of Object.entries(policy.paths)) {
      if (!POLICY_ACCESS.has(access)) {
        throw invalid(`policy.paths["${prefix}"] must be none, read-only or read-write`);
      }
      lines.push(`path ${word(prefix, 'policy.paths keys')} ${access}`);
    }
  }
  return lines.join('\n');
}

/**
 * One sandbox: a workspace and a shell session in a private instance.
 * Create with `await Sandbox.create(options)`.
 */
export class Sandbox {
  /** @private Use Sandbox.create. */
  constructor(inst, handle, info) {
    this._inst = inst;
    this._sb = handle;
    this._info = info;
    this._state = SandboxState.CREATED;
    this._failure = null;
    this._onEvent = info.onEvent;
    this._pendingCwd = null;
    /** Opaque id carried by every event as `sandbox`. */
    this.id = randomHandle();
  }

  /**
   * Creates a sandbox. Options: files ({path: content} or [{path, content,
   * mode}]), directories ([path]), cwd, env ({NAME: value}), profile
   * ('normal' | 'strict'), limits ({max_memory_bytes: n, ...}), clock
   * ('system', a Date, ms, or BigInt ns), seed (number | BigInt), onEvent
   * (function), policy (see setPolicy; set after files and directories
   * are seeded), wasm (Module | bytes | URL).
   */
  static async create(options = {}) {
    if (options === null || typeof options !== 'object') {
      throw invalid('options must be an object');
    }
    const module = await loadModule(options.wasm);
    const profileName = options.profile ?? 'normal';
    if (!Object.hasOwn(PROFILES, profileName)) {
      throw invalid(`unknown profile "${profileName}" (normal or strict)`);
    }
    const profile = PROFILES[profileName];
    const limits = { ...profileLimits(module, profile), ...normaliseLimits(options.limits) };
    const clock = options.clock ?? 'system';
    const systemClock = clock === 'system';
    const clockNs = systemClock ? toNs(Date.now()) : toNs(clock);
    let seed = options.seed ?? randomSeed();
    if (typeof seed === 'number') {
      if (!Number.isSafeInteger(seed)) throw invalid('seed must be an integer');
      seed = BigInt(seed);
    }
    if (typeof seed !== 'bigint') throw invalid('seed must be a number or BigInt');
    seed = BigInt.asUintN(64, seed);
    if (options.onEvent !== undefined && typeof options.onEvent !== 'function') {
      throw invalid('onEvent must be a function');
    }
    const policy = options.policy === undefined ? null : policyText(options.policy);
    const maxPages = memoryPages(limits.max_memory_bytes);
    const info = { module, maxPages, seed, systemClock, clockNs, onEvent: options.onEvent,
      limits, profile: profileName };
    let sbClock = () => 0n;
    const inst = new Instance(module, maxPages, seed, () => sbClock());
    const rec = new Scope(inst);
    let handle = 0;
    try {
      inst.start();
      const r = rec.alloc(8 * K.MSB_WASM_OPEN_SLOTS);
      const dv = inst.dv();
      for (let i = 0; i < K.MSB_WASM_OPEN_SLOTS; i++) dv.setBigUint64(r + 8 * i, UNSET, true);
      dv.setBigUint64(r + 8 * K.MSB_WASM_OPEN_PROFILE, BigInt(profile), true);
      dv.setBigInt64(r + 8 * K.MSB_WASM_OPEN_CLOCK, clockNs, true);
      dv.setBigUint64(r + 8 * K.MSB_WASM_OPEN_SEED, seed, true);
      constants.limitFields.forEach((f, i) => {
        dv.setBigUint64(r + 8 * (K.MSB_WASM_OPEN_LIMITS + i), BigInt(limits[f.name]), true);
      });
      const out = inst.outRec;
      const rc = inst.call(OP.open, r, out);
      if (rc < 0) {
        throw errorFromCode(rc, `cannot open a sandbox: ${inst.cstring(inst.call(OP.strerror, rc))}`);
      }
      handle = inst.dv().getUint32(out, true);
    } finally {
      rec.free();
    }
    const sb = new Sandbox(inst, handle, info);
    sbClock = () => sb._clockNow();
    try {
      await sb._seed(options);
      if (policy !== null) await sb.setPolicy(policy);
    } catch (e) {
      sb._destroy();
      throw e;
    }
    sb._state = SandboxState.RUNNING;
    sb._flushEvents();
    return sb;
  }

  async _seed(options) {
    for (const d of options.directories ?? []) {
      this._call('mkdir', (s) => this._inst.call(OP.mkdir, this._sb, s.str(d), 0,
        K.MSB_PARENTS | K.MSB_EXIST_OK), d);
    }
    let files = options.files ?? [];
    if (!Array.isArray(files)) {
      if (typeof files !== 'object') throw invalid('files must be an object or array');
      files = Object.entries(files).map(([path, content]) => ({ path, content }));
    }
    const seen = new Set();
    for (const f of files) {
      if (!f || typeof f.path !== 'string') throw invalid('each file needs a path');
      if (seen.has(f.path)) throw invalid(`files contain duplicate path "${f.path}"`);
      seen.add(f.path);
      this._writeFile(f.path, f.content ?? '', { parents: true, mode: f.mode });
    }
    if (options.cwd !== undefined) {
      if (typeof options.cwd !== 'string') throw invalid('cwd must be a string');
      const st = this._stat(options.cwd, {});
      if (st.kind !== 'directory') {
        throw new MemSandboxError('not_a_directory', 'conflict', `${options.cwd}: Not a directory`);
      }
      this._pendingCwd = options.cwd;
    }
    const env = envStrings(options.env, 'env');
    if (env.length) {
      const script = env.map((kv) => {
        const i = kv.indexOf('=');
        return `export ${kv.slice(0, i)}=${shellQuote(kv.slice(i + 1))}`;
      }).join('\n');
      const r = this._execute(script, {});
      if (r.exitCode !== 0) {
        throw new MemSandboxError('invalid_argument', 'invalid_request',
          `cannot set env: ${r.stderr.trim()}`);
      }
    }
  }

  // The WASI clock import reads this; the core keeps its own clock, which
  // the host sets before each call when the clock is 'system'.
  _clockNow() {
    return this._info.systemClock ? toNs(Date.now()) : this._info.clockNs;
  }

  /** CREATED, RUNNING, CLOSED or FAILED. */
  get state() {
    return this._state;
  }

  /** The limits in force (C field names). */
  get limits() {
    return { ...this._info.limits };
  }

  _check() {
    if (this._state === SandboxState.CLOSED) {
      throw new MemSandboxError('sandbox_closed', 'invalid_request', 'the sandbox is closed');
    }
    if (this._state === SandboxState.FAILED) {
      throw new MemSandboxError('sandbox_failed', 'internal',
        `the sandbox failed earlier: ${this._failure}`);
    }
  }

  // Runs fn with a call scope; converts a negative code into an error and
  // a trap into the FAILED state.
  _call(what, fn, path) {
    this._check();
    const scope = new Scope(this._inst);
    let rc;
    try {
      if (this._info.systemClock) this._syncClock();
      rc = fn(scope);
    } catch (e) {
      if (e instanceof MemSandboxError) {
        scope.free();
        throw e;
      }
      this._fail(e);
    } finally {
      if (this._state !== SandboxState.FAILED) scope.free();
    }
    if (typeof rc === 'number' && rc < 0) {
      const msg = this._inst.cstring(this._inst.call(OP.errmsg, this._sb)) ||
        this._inst.cstring(this._inst.call(OP.strerror, rc));
      this._flushEvents();
      throw errorFromCode(rc, path !== undefined && !msg.includes(String(path))
        ? `${what} ${path}: ${msg}` : msg);
    }
    this._flushEvents();
    return rc;
  }

  _syncClock() {
    const p = this._inst.clockRec;
    this._inst.dv().setBigInt64(p, toNs(Date.now()), true);
    this._inst.call(OP.set_clock, this._sb, p);
  }

  _fail(e) {
    this._state = SandboxState.FAILED;
    this._failure = e instanceof Error ? e.message : String(e);
    this._emit({ kind: 'sandbox.failed', message: this._failure });
    throw new MemSandboxError('sandbox_failed', 'internal',
      `the sandbox failed: ${this._failure}`);
  }

  _emit(event) {
    if (!this._onEvent) return;
    try {
      this._onEvent({ ...event, sandbox: this.id });
    } catch {
      // A subscriber's exception must not break the sandbox.
    }
  }

  _flushEvents() {
    if (!this._onEvent || this._state === SandboxState.FAILED) return;
    const blob = this._inst.outRec;
    if (this._inst.call(OP.events_take, this._sb, blob) < 0) return;
    const text = dec.decode(this._takeBlob(blob).data);
    for (const line of text.split('\n')) {
      if (!line) continue;
      let ev;
      try {
        ev = JSON.parse(line);
      } catch {
        ev = { kind: 'event.malformed' };
      }
      this._emit(ev);
    }
  }

  // Reads a blob record and frees its buffer.
  _takeBlob(blob) {
    const inst = this._inst;
    const dv = inst.dv();
    const ptr = dv.getUint32(blob + K.MSB_WASM_BLOB_PTR, true);
    const len = dv.getUint32(blob + K.MSB_WASM_BLOB_LEN, true);
    const count = dv.getUint32(blob + K.MSB_WASM_BLOB_COUNT, true);
    const data = ptr ? inst.bytes(ptr, len) : new Uint8Array(0);
    if (ptr) inst.call(OP.sb_free, this._sb, ptr);
    return { data, count };
  }

  /**
   * Runs a script in the session's shell. Options: stdin (string | bytes),
   * cwd, env ({NAME: value}, this call only), secrets ({NAME: value}: bound
   * like env and redacted from output), fresh (fresh shell state), atomic
   * (roll back on a non-zero exit), encoding ('utf8' | 'bytes').
   * Resolves to {exitCode, stdout, stderr, stdoutTruncated,
   * stderrTruncated, cwd, revision, durationMs, limit, rolledBack}.
   */
  async execute(script, options = {}) {
    return this._execute(script, options);
  }

  _execute(script, options) {
    if (typeof script !== 'string' && !(script instanceof Uint8Array)) {
      throw invalid('the command must be a string');
    }
    if (options === null || typeof options !== 'object') throw invalid('options must be an object');
    const started = globalThis.performance?.now?.() ?? Date.now();
    const env = envStrings(options.env, 'env');
    const secrets = envStrings(options.secrets, 'secrets');
    let cwd = options.cwd;
    if (cwd === undefined && this._pendingCwd !== null) cwd = this._pendingCwd;
    const inst = this._inst;
    let result;
    this._call('execute', (s) => {
      const text = toBytes(script, 'command');
      const code = s.bytes(text);
      const opts = inst.optsRec;
      const res = inst.outRec;
      const stdin = options.stdin === undefined ? null : toBytes(options.stdin, 'stdin');
      const stdinPtr = stdin ? s.bytes(stdin) : 0;
      const list = (items) => {
        if (!items.length) return 0;
        const arr = s.alloc(4 * items.length);
        items.forEach((kv, i) => {
          const p = s.str(kv, 'environment entry');
          inst.dv().setUint32(arr + 4 * i, p, true);
        });
        return arr;
      };
      const envPtr = list(env);
      const secPtr = list(secrets);
      const cwdPtr = cwd === undefined ? 0 : s.str(cwd, 'cwd');
      const dv = inst.dv();
      const set = (off, v) => dv.setUint32(opts + off, v, true);
      set(K.MSB_WASM_OPTS_STDIN, stdinPtr);
      set(K.MSB_WASM_OPTS_STDIN_LEN, stdin ? stdin.length : 0);
      set(K.MSB_WASM_OPTS_CWD, cwdPtr);
      set(K.MSB_WASM_OPTS_FRESH, options.fresh ? 1 : 0);
      set(K.MSB_WASM_OPTS_ATOMIC, options.atomic ? 1 : 0);
      set(K.MSB_WASM_OPTS_ENV, envPtr);
      set(K.MSB_WASM_OPTS_ENV_COUNT, env.length);
      set(K.MSB_WASM_OPTS_SECRETS, secPtr);
      set(K.MSB_WASM_OPTS_SECRET_COUNT, secrets.length);
      const rc = inst.call(OP.exec, this._sb, code, text.length, opts, res);
      if (rc < 0) return rc;
      const rv = inst.dv();
      const u32 = (off) => rv.getUint32(res + off, true);
      const out = inst.bytes(u32(K.MSB_WASM_RES_OUT), u32(K.MSB_WASM_RES_OUT_LEN));
      const err = inst.bytes(u32(K.MSB_WASM_RES_ERR), u32(K.MSB_WASM_RES_ERR_LEN));
      const asText = options.encoding !== 'bytes';
      result = {
        exitCode: rv.getInt32(res + K.MSB_WASM_RES_EXIT, true),
        stdout: asText ? dec.decode(out) : out,
        stderr: asText ? dec.decode(err) : err,
        stdoutTruncated: u32(K.MSB_WASM_RES_OUT_TRUNC) !== 0,
        stderrTruncated: u32(K.MSB_WASM_RES_ERR_TRUNC) !== 0,
        stdoutBytes: Number(rv.getBigUint64(res + K.MSB_WASM_RES_OUT_TOTAL, true)),
        stderrBytes: Number(rv.getBigUint64(res + K.MSB_WASM_RES_ERR_TOTAL, true)),
        cwd: inst.cstring(u32(K.MSB_WASM_RES_CWD)),
        revision: Number(rv.getBigUint64(res + K.MSB_WASM_RES_REVISION, true)),
        limit: inst.cstring(u32(K.MSB_WASM_RES_LIMIT)),
        rolledBack: u32(K.MSB_WASM_RES_ROLLED_BACK) !== 0,
        durationMs: 0,
      };
      inst.call(OP.result_finish, this._sb, res);
      return 0;
    });
    if (cwd !== undefined && options.cwd === undefined) this._pendingCwd = null;
    const ended = globalThis.performance?.now?.() ?? Date.now();
    result.durationMs = Math.max(0, Math.round((ended - started) * 1000) / 1000);
    return result;
  }

  /**
   * Whether a script is 'complete', 'incomplete' (a REPL should read
   * another line) or a syntax 'error'.
   */
  parseCheck(script) {
    this._check();
    const s = new Scope(this._inst);
    try {
      const data = toBytes(script, 'script');
      const rc = this._inst.call(OP.parse_check, this._sb, s.bytes(data), data.length);
      if (rc === 0) return 'complete';
      if (rc === K.MSB_EINCOMPLETE) return 'incomplete';
      if (rc === K.MSB_ESYNTAX) return 'error';
      throw errorFromCode(rc, this._inst.cstring(this._inst.call(OP.errmsg, this._sb)));
    } finally {
      s.free();
    }
  }

  /** Reads a file: a string (UTF-8), or bytes with { encoding: 'bytes' }. */
  async readFile(path, options = {}) {
    const { data } = this._readBytes(path);
    return options.encoding === 'bytes' ? data : dec.decode(data);
  }

  _readBytes(path) {
    let blob = null;
    this._call('read', (s) => {
      const b = this._inst.outRec;
      const rc = this._inst.call(OP.read, this._sb, s.str(path), b);
      if (rc >= 0) blob = this._takeBlob(b);
      return rc;
    }, path);
    return blob;
  }

  /**
   * Writes a whole file. Options: parents (create missing directories),
   * mustNotExist (fail with path_already_exists), expectHash (hex SHA-256
   * the current content must have: compare-and-swap), mode.
   * Resolves to { revision, hash }.
   */
  async writeFile(path, content, options = {}) {
    this._writeFile(path, content, options);
    return { revision: this.revision, hash: this._hash(path) };
  }

  _writeFile(path, content, options) {
    if (options.mustNotExist && options.expectHash !== undefined) {
      throw invalid('mustNotExist and expectHash cannot be combined');
    }
    const mode = options.mode ?? 0;
    if (!Number.isInteger(mode) || mode < 0 || mode > 0o7777) throw invalid('mode must be 0..0o7777');
    const data = toBytes(content);
    const hash = options.expectHash === undefined ? null : fromHex(options.expectHash);
    const cond = hash ? K.MSB_WRITE_HASH_EQUALS
      : options.mustNotExist ? K.MSB_WRITE_MUST_NOT_EXIST : K.MSB_WRITE_ANY;
    this._call('write', (s) => this._inst.call(OP.write, this._sb, s.str(path),
      s.bytes(data), data.length, cond, hash ? s.bytes(hash) : 0, mode,
      flag(options.parents, K.MSB_PARENTS)), path);
  }

  /** Appends to a file, creating it if absent. */
  async appendFile(path, content, options = {}) {
    const data = toBytes(content);
    this._call('append', (s) => this._inst.call(OP.append, this._sb, s.str(path),
      s.bytes(data), data.length, flag(options.parents, K.MSB_PARENTS)), path);
    return { revision: this.revision };
  }

  /**
   * Stats a path: { kind: 'file' | 'directory' | 'symlink', mode, size,
   * mtimeMs, nodes, bytes }. Follows a final symlink unless
   * { followSymlinks: false }.
   */
  async stat(path, options = {}) {
    return this._stat(path, options);
  }

  _stat(path, options) {
    let st = null;
    this._call('stat', (s) => {
      const rec = this._inst.outRec;
      const rc = this._inst.call(OP.stat, this._sb, s.str(path),
        flag(options.followSymlinks === false, K.MSB_NOFOLLOW), rec);
      if (rc < 0) return rc;
      const dv = this._inst.dv();
      st = {
        kind: KINDS[dv.getInt32(rec + K.MSB_WASM_STAT_KIND, true)] ?? 'unknown',
        mode: dv.getUint32(rec + K.MSB_WASM_STAT_MODE, true),
        size: Number(dv.getBigUint64(rec + K.MSB_WASM_STAT_SIZE, true)),
        mtimeMs: Number(dv.getBigInt64(rec + K.MSB_WASM_STAT_MTIME, true) / 1000000n),
        nodes: Number(dv.getBigUint64(rec + K.MSB_WASM_STAT_NODES, true)),
        bytes: Number(dv.getBigUint64(rec + K.MSB_WASM_STAT_BYTES, true)),
      };
      return 0;
    }, path);
    return st;
  }

  /** Whether a path exists (following symlinks). */
  async exists(path) {
    try {
      this._stat(path, {});
      return true;
    } catch (e) {
      if (e instanceof MemSandboxError && e.category === 'not_found') return false;
      throw e;
    }
  }

  /** Entry names of a directory, sorted bytewise. */
  async list(path = '.') {
    let names = [];
    this._call('list', (s) => {
      const b = this._inst.outRec;
      const rc = this._inst.call(OP.list, this._sb, s.str(path), b);
      if (rc >= 0) {
        const { data, count } = this._takeBlob(b);
        names = count ? dec.decode(data).split('\0').slice(0, count) : [];
      }
      return rc;
    }, path);
    return names;
  }

  /** Creates a directory. Options: parents, existOk, mode. */
  async mkdir(path, options = {}) {
    this._call('mkdir', (s) => this._inst.call(OP.mkdir, this._sb, s.str(path),
      options.mode ?? 0, flag(options.parents, K.MSB_PARENTS) |
      flag(options.existOk ?? options.parents, K.MSB_EXIST_OK)), path);
    return { revision: this.revision };
  }

  /** Removes a path. Options: recursive, missingOk. */
  async remove(path, options = {}) {
    this._call('remove', (s) => this._inst.call(OP.remove, this._sb, s.str(path),
      flag(options.recursive, K.MSB_RECURSIVE) | flag(options.missingOk, K.MSB_MISSING_OK)),
    path);
    return { revision: this.revision };
  }

  /** Copies a path. Options: recursive, overwrite, parents. */
  async copy(src, dst, options = {}) {
    this._call('copy', (s) => this._inst.call(OP.copy, this._sb, s.str(src), s.str(dst),
      flag(options.recursive, K.MSB_RECURSIVE) | flag(options.overwrite, K.MSB_OVERWRITE) |
      flag(options.parents, K.MSB_PARENTS)), src);
    return { revision: this.revision };
  }

  /** Moves a path atomically. Options: overwrite, parents. */
  async move(src, dst, options = {}) {
    this._call('move', (s) => this._inst.call(OP.move, this._sb, s.str(src), s.str(dst),
      flag(options.overwrite, K.MSB_OVERWRITE) | flag(options.parents, K.MSB_PARENTS)), src);
    return { revision: this.revision };
  }

  /** Creates a symbolic link at linkPath pointing to target. */
  async symlink(target, linkPath) {
    this._call('symlink', (s) => this._inst.call(OP.symlink, this._sb,
      s.str(target, 'target'), s.str(linkPath)), linkPath);
    return { revision: this.revision };
  }

  /** A symbolic link's target. */
  async readlink(path) {
    let target = null;
    this._call('readlink', (s) => {
      const b = this._inst.outRec;
      const rc = this._inst.call(OP.readlink, this._sb, s.str(path), b);
      if (rc >= 0) target = dec.decode(this._takeBlob(b).data);
      return rc;
    }, path);
    return target;
  }

  /** Sets permission bits. */
  async chmod(path, mode) {
    if (!Number.isInteger(mode) || mode < 0 || mode > 0o7777) throw invalid('mode must be 0..0o7777');
    this._call('chmod', (s) => this._inst.call(OP.chmod, this._sb, s.str(path), mode), path);
    return { revision: this.revision };
  }

  /** SHA-256 of a path (file, directory or link) as hex. */
  async hash(path) {
    return this._hash(path);
  }

  _hash(path) {
    let out = null;
    this._call('hash', (s) => {
      const p = this._inst.outRec;
      const rc = this._inst.call(OP.hash, this._sb, s.str(path), p);
      if (rc >= 0) out = hex(this._inst.bytes(p, 32));
      return rc;
    }, path);
    return out;
  }

  /** Hash of /workspace as hex (the reference product's construction). */
  async rootHash() {
    let out = null;
    this._call('rootHash', (s) => {
      const p = this._inst.outRec;
      const rc = this._inst.call(OP.root_hash, this._sb, p);
      if (rc >= 0) out = hex(this._inst.bytes(p, 32));
      return rc;
    });
    return out;
  }

  /**
   * Applies a patch atomically: a unified diff (diff -u / git diff, with
   * /dev/null for created and deleted files) or an OpenAI V4A patch
   * ("*** Begin Patch" with Add / Update [+ Move to] / Delete File).
   * Options: cwd (where relative patch paths resolve; default
   * /workspace), exact (unified hunks only at their stated lines),
   * dryRun (check and report, change nothing), workspaceOnly (refuse any
   * path with a ".." component or outside /workspace, as the reference
   * product does for a model's patches), expectedHashes ({path: hex} or
   * [{path, hash}]: compare-and-swap guards on the files the patch
   * touches, checked before anything changes). Resolves to { files: [{
   * path, op: 'add' | 'update' | 'delete' | 'move', from (moves),
   * previousHash, currentHash }], revision }.
   */
  async applyPatch(patch, options = {}) {
    return this._applyPatch(patch, options);
  }

  _applyPatch(patch, options) {
    if (options === null || typeof options !== 'object') throw invalid('options must be an object');
    const data = toBytes(patch, 'patch');
    const guards = patchGuards(options.expectedHashes);
    const flags = flag(options.exact, K.MSB_PATCH_EXACT) |
      flag(options.workspaceOnly, K.MSB_PATCH_WORKSPACE);
    const run = (dry) => {
      let files = [];
      this._call('applyPatch', (s) => {
        const b = this._inst.outRec;
        const cwd = options.cwd === undefined ? 0 : s.str(options.cwd, 'cwd');
        const rc = this._inst.call(OP.apply_patch, this._sb, s.bytes(data), data.length,
          cwd, flags | flag(dry, K.MSB_PATCH_DRY_RUN), b);
        if (rc >= 0) files = patchChanges(this._takeBlob(b));
        return rc;
      });
      return files;
    };
    try {
      if (guards.size) checkPatchGuards(guards, run(true), options.cwd ?? '/workspace');
      const files = run(Boolean(options.dryRun));
      return { files, revision: this.revision };
    } catch (e) {
      throw patchError(e);
    }
  }

  /** The shell session's exported variables as { NAME: value }. */
  async env() {
    return this._sessionEnv();
  }

  _sessionEnv() {
    const out = {};
    this._call('env', (s) => {
      const b = this._inst.outRec;
      const rc = this._inst.call(OP.session_env, this._sb, b);
      if (rc >= 0) {
        const { data, count } = this._takeBlob(b);
        for (const kv of dec.decode(data).split('\0').slice(0, count)) {
          const i = kv.indexOf('=');
          out[kv.slice(0, i)] = kv.slice(i + 1);
        }
      }
      return rc;
    });
    return out;
  }

  /** The shell session's working directory (where relative paths resolve). */
  get cwd() {
    if (this._pendingCwd !== null) return normalisePath('/workspace', this._pendingCwd);
    let out = '/workspace';
    this._call('cwd', () => {
      out = this._inst.cstring(this._inst.call(OP.session_cwd, this._sb)) || out;
      return 0;
    });
    return out;
  }

  /** The workspace revision: +1 per successful mutation. */
  get revision() {
    let v = 0;
    this._call('revision', (s) => {
      const p = this._inst.outRec;
      const rc = this._inst.call(OP.revision, this._sb, p);
      v = Number(this._inst.dv().getBigUint64(p, true));
      return rc;
    });
    return v;
  }

  /** Bytes the sandbox's allocator holds. */
  get memoryUsed() {
    let v = 0;
    this._call('memoryUsed', (s) => {
      const p = this._inst.outRec;
      const rc = this._inst.call(OP.memory_used, this._sb, p);
      v = Number(this._inst.dv().getBigUint64(p, true));
      return rc;
    });
    return v;
  }

  /** Takes an O(1) checkpoint; resolves to its id. */
  async checkpoint() {
    let id = 0;
    this._call('checkpoint', (s) => {
      const p = this._inst.outRec;
      const rc = this._inst.call(OP.checkpoint, this._sb, p);
      id = this._inst.dv().getUint32(p, true);
      return rc;
    });
    return id;
  }

  /** Returns to a checkpoint (it stays valid). */
  async rollback(id) {
    this._call('rollback', () => this._inst.call(OP.rollback, this._sb, id >>> 0));
  }

  /** Releases a checkpoint. */
  async release(id) {
    this._call('release', () => this._inst.call(OP.release, this._sb, id >>> 0));
  }

  /** The whole state as a deterministic tar.gz (Uint8Array). */
  async snapshot(options = {}) {
    const level = options.level ?? -1;
    if (!Number.isInteger(level) || level < -1 || level > 9) throw invalid('level must be -1..9');
    let data = null;
    this._call('snapshot', (s) => {
      const b = this._inst.outRec;
      const rc = this._inst.call(OP.snapshot, this._sb, level, b);
      if (rc >= 0) data = this._takeBlob(b).data;
      return rc;
    });
    return data;
  }

  /**
   * Replaces the whole state (files, shell session, revision) with a
   * snapshot, or with any .tar / .tar.gz (files into /workspace, fresh
   * shell session). All or nothing.
   */
  async restore(archive) {
    const data = toBytes(archive, 'archive');
    this._call('restore', (s) => this._inst.call(OP.restore, this._sb,
      s.bytes(data), data.length));
    // the snapshot's working directory replaces a pending create({cwd})
    this._pendingCwd = null;
    return { revision: this.revision };
  }

  /**
   * A new sandbox holding a snapshot's state (or any .tar / .tar.gz).
   * options are Sandbox.create's: limits, profile, clock, seed, onEvent and
   * wasm apply to the new sandbox; files, directories, cwd and env are
   * applied on top of the restored state.
   */
  static async fromSnapshot(archive, options = {}) {
    if (options === null || typeof options !== 'object') {
      throw invalid('options must be an object');
    }
    const data = toBytes(archive, 'archive');
    const { files, directories, cwd, env, ...base } = options;
    const sb = await Sandbox.create(base);
    try {
      await sb.restore(data);
      await sb._seed({ files, directories, cwd, env });
    } catch (e) {
      await sb.close();
      throw e;
    }
    return sb;
  }

  /**
   * Replaces the policy, atomically: the text form of memsandbox.h, or
   * { allowCommands, denyCommands, paths: { PREFIX: 'none' | 'read-only' |
   * 'read-write' }, allowOperations, denyOperations }. An empty policy
   * allows everything. A denial later is an MSB_EPOLICY error
   * (category 'policy_denied') for host operations, and status 126 with
   * "NAME: command denied by policy" for commands.
   */
  async setPolicy(policy) {
    const text = policyText(policy);
    const data = toBytes(text, 'policy');
    this._call('setPolicy', (s) => this._inst.call(OP.set_policy, this._sb,
      s.bytes(data), data.length));
    this._policyText = text; // a serialize fork sets it again
  }

  /**
   * An independent sandbox with identical state. mode 'memory' (default):
   * a new instance whose memory is a copy of this one's, as fast as copying
   * memory; everything travels, checkpoints included. mode 'serialize': a
   * new sandbox with the same options restored from an uncompressed
   * snapshot (files under /tmp and /workspace, the shell session); slower,
   * but its memory holds only the state.
   */
  async fork(options = {}) {
    this._check();
    const mode = options.mode ?? 'memory';
    if (mode !== 'memory' && mode !== 'serialize') {
      throw invalid(`unknown fork mode "${mode}" (memory or serialize)`);
    }
    const info = { ...this._info, onEvent: options.onEvent ?? this._info.onEvent };
    if (mode === 'serialize') {
      const archive = await this.snapshot({ level: 0 });
      const child = await Sandbox.fromSnapshot(archive, { wasm: info.module,
        limits: info.limits, profile: info.profile, seed: info.seed,
        onEvent: info.onEvent, clock: info.systemClock ? 'system' : info.clockNs });
      try {
        if (this._policyText) await child.setPolicy(this._policyText);
      } catch (e) {
        await child.close();
        throw e;
      }
      child._pendingCwd = this._pendingCwd;
      return child;
    }
    let sbClock = () => 0n;
    // no secret value left on the stack by an earlier call travels along
    this._inst.call(OP.wipe_stack);
    const src = this._inst.memory;
    const inst = new Instance(info.module, info.maxPages, info.seed, () => sbClock(), src);
    // Instantiation wrote the data segments; the copy replaces them with
    // this instance's current data, heap and stack (its scratch records
    // included).
    new Uint8Array(inst.memory.buffer).set(new Uint8Array(src.buffer));
    inst.scratch = this._inst.scratch;
    const child = new Sandbox(inst, this._sb, info);
    sbClock = () => child._clockNow();
    child._pendingCwd = this._pendingCwd;
    child._state = SandboxState.RUNNING;
    // the copy carries the policy (C memory); the events are the child's own
    child._emit({ kind: 'sandbox.created', forkedFrom: this.id });
    return child;
  }

  _destroy() {
    let closed = false;
    try {
      if (this._state !== SandboxState.FAILED) {
        this._inst.call(OP.close, this._sb);
        closed = true;
      }
    } catch {
      // Closing a broken instance: dropping it frees everything anyway.
    }
    // wasm calls are synchronous and this instance is unreachable from
    // here on, so nothing writes the memory another instance takes over
    if (closed) this._inst.release();
    this._inst = null;
  }

  /** Closes the sandbox; idempotent. */
  async close() {
    if (this._state === SandboxState.CLOSED) return;
    if (this._inst && this._state !== SandboxState.FAILED) this._flushEvents();
    if (this._inst) this._destroy();
    this._state = SandboxState.CLOSED;
    this._emit({ kind: 'sandbox.closed' });
  }
}

/** Shorthand for Sandbox.create. */
export function createSandbox(options) {
  return Sandbox.create(options);
}

// ---- SandboxService -------------------------------------------------------

function randomHandle() {
  return hex(randomBytes(16));
}

/**
 * Sandboxes by opaque random handle: create, get, fork, delete, list,
 * close. A handle is not a credential: the application maps principals to
 * handles. Options given to the service are defaults for every create.
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
    const handle = randomHandle();
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

export { constants };

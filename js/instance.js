// instance.js - one WebAssembly instance and the calls across its boundary.
//
// Calls cross the boundary as 32-bit integers through the module's one
// export, msb_wasm_call(op, ...) (see wasm/abi.h); strings and records go
// through buffers allocated in the instance (OP.alloc) with the layouts of
// wasm/abi.h, whose offsets arrive in constants.js (generated from the C
// headers), so no number is repeated here.
import constants from './constants.js';
import { MemSandboxError, invalid } from './errors.js';
import { enc, dec } from './encoding.js';
import { wasiImports } from './wasi.js';

export const K = constants.constants;
/** The module's operations by name (MSB_WASM_OP_OPEN -> OP.open). */
export const OP = Object.fromEntries(Object.entries(K)
  .filter(([name]) => name.startsWith('MSB_WASM_OP_'))
  .map(([name, v]) => [name.slice('MSB_WASM_OP_'.length).toLowerCase(), v]));
export const PAGE = 65536;

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

/** One raw instance: memory, exports, and typed helpers over them. */
export class Instance {
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
    /** @type {(op: number, ...args: (number | bigint)[]) => number} */
    this.call = /** @type {any} */ (this.instance.exports.msb_wasm_call);
    this.scratch = 0;
  }

  // Hands the memory back for reuse; the instance is dead afterwards.
  release() {
    poolGive(this.module, this.maxPages, this.memory);
    this.memory = null;
  }

  // Runs the module's constructors (a fresh instance; a fork's copy has
  // them run already) and sets aside the scratch records.
  start() {
    /** @type {Function} */ (this.instance.exports._initialize)();
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

  u64(ptr) {
    return Number(this.dv().getBigUint64(ptr, true));
  }

  // The text of a code (msb_strerror).
  strerror(rc) {
    return this.cstring(this.call(OP.strerror, rc));
  }

  // Reads a blob record that sandbox sb filled, and frees its buffer.
  takeBlob(sb, blob) {
    const dv = this.dv();
    const ptr = dv.getUint32(blob + K.MSB_WASM_BLOB_PTR, true);
    const len = dv.getUint32(blob + K.MSB_WASM_BLOB_LEN, true);
    const count = dv.getUint32(blob + K.MSB_WASM_BLOB_COUNT, true);
    const data = ptr ? this.bytes(ptr, len) : new Uint8Array(0);
    if (ptr) this.call(OP.sb_free, sb, ptr);
    return { data, count };
  }
}

/** Allocations of one call, freed together. */
export class Scope {
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

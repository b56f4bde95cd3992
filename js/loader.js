// loader.js - where the WebAssembly module comes from: a compiled Module,
// bytes, a URL or a function returning one of those, compiled once per
// source. The per-runtime entry files (node.js, index.js, edge.js) set the
// default; this file never reads import.meta (edge runtimes lack it).
import { MemSandboxError, invalid } from './errors.js';

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

async function fetchModule(source) {
  const res = await fetch(source);
  if (!res.ok) throw invalid(`cannot fetch ${source}: HTTP ${res.status}`);
  if (WebAssembly.compileStreaming &&
      (res.headers.get('content-type') || '').startsWith('application/wasm')) {
    return WebAssembly.compileStreaming(res);
  }
  return WebAssembly.compile(await res.arrayBuffer());
}

async function toModule(source) {
  if (typeof source === 'function') source = await source();
  if (source instanceof WebAssembly.Module) return source;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
    return WebAssembly.compile(/** @type {BufferSource} */ (source));
  }
  if (source instanceof URL || typeof source === 'string') {
    if (!fileReader || !isLocal(source)) return fetchModule(source);
    return WebAssembly.compile(await fileReader(
      typeof source === 'string' && source.startsWith('file:') ? new URL(source) : source));
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

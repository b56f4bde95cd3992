// edge.js - the entry for Cloudflare workerd and Vercel Edge. These runtimes
// forbid compiling wasm from bytes and lack a usable import.meta.url, so
// nothing is loaded implicitly: import the module as the platform allows
// (`import wasm from 'memsandbox/memsandbox.wasm'`) and pass it, either per
// sandbox ({ wasm }) or once with setDefaultWasm(wasm).
export * from './core.js';
export * from './tools.js';

// index.js - the web and default entry: browsers, Deno, and any runtime with
// fetch and import.meta.url. The module is located next to this file, lazily
// (import.meta is read only when the first sandbox needs the module), so
// bundlers that rewrite `new URL(..., import.meta.url)` find the asset.
import { setDefaultWasm } from './core.js';

setDefaultWasm(() => {
  return new URL('./memsandbox.wasm', import.meta.url);
});

export * from './core.js';
export * from './tools.js';

// node.js - the Node.js and Bun entry: reads memsandbox.wasm beside this file
// with node:fs (Node 20's fetch cannot read file: URLs), lazily, so merely
// importing the package does no I/O. MSB_WASM in the environment overrides
// the file (tests run both wasm builds through the same suite).
import { setDefaultWasm, setFileReader } from './core.js';
import { setPoolWorker } from './pool.js';

async function readLocal(path) {
  const { readFile } = await import('node:fs/promises');
  return readFile(path);
}

setFileReader(readLocal);
setDefaultWasm(() => {
  const override = globalThis.process?.env?.MSB_WASM;
  return readLocal(override || new URL('./memsandbox.wasm', import.meta.url));
});

export * from './core.js';
export * from './tools.js';
export { FileStore } from './store-node.js';
// with { workers: n }, sandboxes in worker threads
export { SandboxService } from './pool.js';

setPoolWorker(() =>
  new URL('./pool-worker.js', import.meta.url));

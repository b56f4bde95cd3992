// core.js - the runtime-neutral MemSandbox package: everything but where
// the default module comes from, which the per-runtime entry files
// (node.js, index.js, edge.js) decide.
//
// Layers, each in its own file: errors.js (MemSandboxError and the result
// code taxonomy), encoding.js (bytes, hex, clocks, entropy), loader.js
// (compiling the module), instance.js (one instance and the ABI calls),
// options.js (profiles, limits, memory sizes, policies), patch.js
// (applyPatch's host side), sandbox.js (Sandbox) and service.js
// (SandboxService).
import constants from './constants.js';

export { MemSandboxError } from './errors.js';
export { loadModule, setDefaultWasm, setFileReader } from './loader.js';
export { normalisePath } from './patch.js';
export { Sandbox, SandboxState, createSandbox } from './sandbox.js';
export { SandboxService } from './service.js';
export { STATE_FORMAT, dirEntries } from './state.js';
export {
  DurableObjectStore, KeyValueStore, MemoryStore, collectGarbage, loadManifest, pieceReader, saveState,
} from './store.js';
export { constants };

// pool-worker.js - one worker thread of SandboxService({ workers }) (pool.js):
// holds the sandboxes pinned to it and runs the calls the main thread
// forwards, one message each. With a state directory, every call that may
// change a sandbox is followed by a save of its state (store.js), so a
// sandbox of a crashed worker restores elsewhere from its last save.
import { parentPort, workerData } from 'node:worker_threads';
import { Sandbox } from './node.js';
import { loadManifest, pieceReader, saveState } from './store.js';
import { FileStore } from './store-node.js';

const store = workerData.stateDir ? new FileStore(workerData.stateDir) : null;
const sandboxes = new Map(); // handle -> { sb, last }
// Calls that cannot change a sandbox's state: no save after them.
const READS = new Set(['readFile', 'stat', 'exists', 'list', 'readlink', 'hash', 'rootHash', 'env',
  'exportState', 'snapshot', 'parseCheck']);
// Properties read as values rather than called.
const GETTERS = new Set(['revision', 'cwd', 'state', 'limits', 'id']);

async function persist(handle, entry) {
  if (!store) return;
  const e = await entry.sb.exportState({ since: entry.last });
  await saveState(store, handle, e);
  entry.last = e;
}

async function restore(handle, options) {
  const manifest = store && await loadManifest(store, handle);
  if (!manifest) throw Object.assign(new Error(`no saved state for sandbox ${handle}`), { code: 'sandbox_lost' });
  // the policy last, as after a fork: it may deny the import itself
  const { policy, ...open } = options ?? {};
  const sb = await Sandbox.importState(manifest, pieceReader(store), { ...open, trustPieces: true });
  try {
    if (policy !== undefined) await sb.setPolicy(policy);
  } catch (e) {
    await sb.close();
    throw e;
  }
  sandboxes.set(handle, { sb, last: null });
}

const ops = {
  async create({ handle, options }) {
    const sb = await Sandbox.create(options);
    const entry = { sb, last: null };
    sandboxes.set(handle, entry);
    await persist(handle, entry);
    return null;
  },
  async restore({ handle, options }) {
    await restore(handle, options);
    return null;
  },
  async call({ handle, method, args }) {
    const entry = sandboxes.get(handle);
    if (!entry) throw Object.assign(new Error(`no sandbox ${handle}`), { code: 'sandbox_not_found' });
    if (GETTERS.has(method)) return entry.sb[method];
    if (typeof entry.sb[method] !== 'function' || method.startsWith('_') || method === 'fork' || method === 'close') {
      throw Object.assign(new Error(`no sandbox method ${method}`), { code: 'invalid_argument' });
    }
    let result, failure;
    try {
      result = await entry.sb[method](...args);
    } catch (e) {
      failure = e;
    }
    if (!READS.has(method)) await persist(handle, entry);
    if (failure) throw failure;
    return result;
  },
  async delete({ handle }) {
    const entry = sandboxes.get(handle);
    sandboxes.delete(handle);
    if (entry) await entry.sb.close();
    if (store) await store.delete(`m/${handle}`);
    return null;
  },
  async crash() {
    // tests: a worker that dies mid-flight
    process.exit(3);
  },
};

parentPort.on('message', async ({ id, op, ...msg }) => {
  try {
    const value = await ops[op](msg);
    parentPort.postMessage({ id, value });
  } catch (e) {
    parentPort.postMessage({ id, error: { message: e.message, code: e.code, category: e.category, name: e.name } });
  }
});

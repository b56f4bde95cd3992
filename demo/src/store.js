// store.js - workspaces kept in IndexedDB: one record per workspace id,
// { snapshot: Uint8Array (the sandbox's .tar.gz), settings }. Used by the
// worker, which saves after every change.

const DB = 'memsandbox-playground';
const STORE = 'workspaces';

/** @returns {Promise<IDBDatabase>} */
function open() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/**
 * Runs one request against the store and closes the database after it.
 * @param {IDBTransactionMode} mode
 * @param {(s: IDBObjectStore) => IDBRequest} fn
 */
async function run(mode, fn) {
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const req = fn(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(req.result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

/**
 * @typedef {{ snapshot: Uint8Array,
 *   settings: import('./protocol.js').Settings }} Saved
 */

/** @param {string} id @returns {Promise<Saved | undefined>} */
export function loadWorkspace(id) {
  return run('readonly', (s) => s.get(id));
}

/** @param {string} id @param {Saved} value */
export function saveWorkspace(id, value) {
  return run('readwrite', (s) => s.put(value, id));
}

/** @param {string} id */
export function deleteWorkspace(id) {
  return run('readwrite', (s) => s.delete(id));
}

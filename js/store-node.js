// store-node.js - FileStore: a SnapshotStore (store.js) in a directory of
// the host's filesystem, for Node and Bun. A key "p/<sha256>" is the file
// p/<sha256>; other characters of the part after the first "/" are
// percent-encoded, so any key maps to one file name. Writes go to a
// temporary file renamed into place, so a crash never leaves a torn value.
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { invalid } from './errors.js';

function split(key) {
  if (typeof key !== 'string' || !key) throw invalid('a store key must be a non-empty string');
  const i = key.indexOf('/');
  const dir = i < 0 ? '_' : encodeURIComponent(key.slice(0, i));
  return [dir, encodeURIComponent(i < 0 ? key : key.slice(i + 1))];
}

/** A store in a directory (created when missing). */
export class FileStore {
  constructor(dir) {
    if (typeof dir !== 'string' || !dir) throw invalid('FileStore needs a directory');
    this._dir = dir;
    this._seq = 0;
  }

  _path(key) {
    const [d, f] = split(key);
    return [join(this._dir, d), join(this._dir, d, f)];
  }

  async get(key) {
    try {
      return new Uint8Array(await readFile(this._path(key)[1]));
    } catch (e) {
      if (e.code === 'ENOENT') return undefined;
      throw e;
    }
  }

  async put(key, value) {
    if (!(value instanceof Uint8Array)) throw invalid('a store value must be a Uint8Array');
    const [d, p] = this._path(key);
    await mkdir(d, { recursive: true });
    const tmp = `${p}.${process.pid}.${this._seq++}.tmp`;
    await writeFile(tmp, value);
    await rename(tmp, p);
  }

  async has(key) {
    try {
      await stat(this._path(key)[1]);
      return true;
    } catch (e) {
      if (e.code === 'ENOENT') return false;
      throw e;
    }
  }

  async delete(key) {
    await rm(this._path(key)[1], { force: true });
  }

  async list(prefix = '') {
    const out = [];
    let dirs;
    try {
      dirs = await readdir(this._dir);
    } catch (e) {
      if (e.code === 'ENOENT') return out;
      throw e;
    }
    for (const d of dirs) {
      const top = decodeURIComponent(d);
      for (const f of await readdir(join(this._dir, d))) {
        if (f.endsWith('.tmp')) continue;
        const key = top === '_' ? decodeURIComponent(f) : `${top}/${decodeURIComponent(f)}`;
        if (key.startsWith(prefix)) out.push(key);
      }
    }
    return out.sort();
  }
}

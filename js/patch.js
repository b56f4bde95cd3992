// patch.js - the host side of applyPatch: paths, compare-and-swap guards
// and the change records msb_apply_patch returns.
import { MemSandboxError, invalid } from './errors.js';
import { dec, fromHex } from './encoding.js';
import { K } from './instance.js';

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

/** Change records of msb_apply_patch: five NUL-terminated fields each. */
export function patchChanges({ data, count }) {
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

/** expectedHashes ({path: hex} or [{path, hash}]) as a Map path -> hex. */
export function patchGuards(expected) {
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

/** Compare-and-swap guards against a dry run's records (the state now). */
export function checkPatchGuards(guards, files, cwd) {
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

/**
 * Malformed patches and context that does not match share MSB_ECORRUPT;
 * the reference product names them apart.
 */
export function patchError(e) {
  if (!(e instanceof MemSandboxError) || e.errno !== K.MSB_ECORRUPT) return e;
  const mismatch = /does not match at line|^Failed to find/.test(e.message);
  return new MemSandboxError(mismatch ? 'patch_context_mismatch' : 'invalid_patch',
    mismatch ? 'conflict' : 'invalid_request', e.message,
    { errno: e.errno, operation: e.operation, path: e.path });
}

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

const staleContent = (abs) => new MemSandboxError('stale_content', 'conflict',
  `${abs} content hash does not match the expected hash`);

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
    if (prev !== hash) throw staleContent(abs);
  }
}

/**
 * A guarded patch's dry run, then its guards. The reference checks the
 * guards before it applies anything (§1.6), so a patch whose context no
 * longer matches a guarded file that changed is stale_content, not
 * patch_context_mismatch. dryRun gives the change records; hashOf(path)
 * a file's current hash.
 */
export function checkGuardedPatch(guards, cwd, dryRun, hashOf) {
  let files;
  try {
    files = dryRun();
  } catch (e) {
    if (patchError(e).code === 'patch_context_mismatch') checkStale(guards, cwd, hashOf);
    throw e;
  }
  checkPatchGuards(guards, files, cwd);
}

function checkStale(guards, cwd, hashOf) {
  for (const [path, hash] of guards) {
    const abs = normalisePath(cwd, path);
    let now;
    try {
      now = hashOf(abs);
    } catch {
      continue; // missing: the dry run's own error stands
    }
    if (now !== hash) throw staleContent(abs);
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

const badPatch = (message) => new MemSandboxError('invalid_patch', 'invalid_request', message);

// A unified header's path: up to a tab, without a/ or b/ (§1.6).
function headerPath(line) {
  let p = line.slice(4);
  const tab = p.indexOf('\t');
  if (tab >= 0) p = p.slice(0, tab);
  if (p.startsWith('a/') || p.startsWith('b/')) p = p.slice(2);
  return p;
}

/**
 * The apply_patch tool's unified diffs as the reference applies them
 * (§1.6), brought to what the engine applies: CRLF in the patch read as
 * LF; an empty patch, differing ---/+++ names (without git's rename
 * lines) and a blank hunk body line refused; a target that is not UTF-8
 * refused (file_encoding_error); a CRLF file matched and kept with its own
 * line ends; the last line of a file without a final newline changed
 * without the "\ No newline" marker, the file keeping none. read(path)
 * gives a file's bytes or null. V4A patches pass unchanged.
 * @param {string} text
 * @param {(path: string) => Uint8Array | null} read
 */
export function referencePatch(text, read) {
  text = text.replace(/\r\n?/g, '\n');
  if (text.trim() === '') throw badPatch('patch contains no file sections');
  if (/^\*\*\* Begin Patch/.test(text)) return text;
  const lines = text.split('\n');
  const out = [];
  let file = null; // { crlf, lines (total), nonl }
  let renamed = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith('diff --git ')) renamed = false;
    if (line.startsWith('rename from ') || line.startsWith('rename to ')) renamed = true;
    if (line.startsWith('--- ') && i + 1 < lines.length && lines[i + 1].startsWith('+++ ')) {
      const from = headerPath(line);
      const to = headerPath(lines[i + 1]);
      if (from !== to && from !== '/dev/null' && to !== '/dev/null' && !renamed) {
        throw badPatch(`patch names ${from} and ${to}: renaming is not supported`);
      }
      file = null;
      if (from !== '/dev/null') {
        const abs = normalisePath('/workspace', from);
        const data = read(abs);
        if (data) {
          let s;
          try {
            s = new TextDecoder('utf-8', { fatal: true }).decode(data);
          } catch {
            throw new MemSandboxError('file_encoding_error', 'invalid_request', `${abs} is not valid UTF-8`);
          }
          const body = s.endsWith('\n') ? s.slice(0, -1) : s;
          // an empty file has no final newline either (@@ -0,0 +1 @@ +x: "x")
          file = { crlf: s.includes('\r\n'), total: s === '' ? 0 : body.split('\n').length,
            nonl: !s.endsWith('\n') };
        }
      }
      out.push(line, lines[i + 1]);
      i++;
      renamed = false;
      continue;
    }
    const h = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (!h) {
      out.push(line);
      continue;
    }
    out.push(line);
    let oldLeft = h[2] === undefined ? 1 : Number(h[2]);
    let newLeft = h[4] === undefined ? 1 : Number(h[4]);
    const oldEnd = Number(h[1]) + oldLeft - 1;
    const eol = file?.crlf ? '\r' : '';
    let lastOld = -1;
    let lastNew = -1;
    while ((oldLeft > 0 || newLeft > 0) && i + 1 < lines.length) {
      const b = lines[++i];
      if (b === '') throw badPatch(`hunk line ${i + 1} is empty; a blank context line is a single space`);
      const c = b[0];
      if (c === '\\') {
        out.push(b);
        continue;
      }
      if (c !== ' ' && c !== '-' && c !== '+') {
        throw badPatch(`hunk line ${i + 1} does not start with a space, - or +`);
      }
      if (c !== '+') oldLeft--;
      if (c !== '-') newLeft--;
      out.push(b + eol);
      if (c !== '+') lastOld = out.length - 1;
      if (c !== '-') lastNew = out.length - 1;
    }
    // the file's last line has no newline: so has the hunk's, unless marked
    if (file?.nonl && (oldEnd === file.total || file.total === 0) && !/^\\/.test(lines[i + 1] ?? '')) {
      if (lastOld >= 0) out[lastOld] = out[lastOld].replace(/\r$/, '');
      if (lastNew >= 0) out[lastNew] = out[lastNew].replace(/\r$/, '');
      const marks = [lastOld, lastNew].filter((k) => k >= 0).sort((a, b) => b - a);
      for (const k of [...new Set(marks)]) out.splice(k + 1, 0, '\\ No newline at end of file');
    }
  }
  return out.join('\n');
}

/**
 * The size a unified diff gives path's file of oldSize bytes: what its
 * sections add less what they remove (for the reference's over-limit
 * message, "file contains N bytes; limit is M bytes").
 * @param {string} text @param {string} path @param {number} oldSize
 */
export function patchedSize(text, path, oldSize) {
  const enc = new TextEncoder();
  let size = oldSize;
  let mine = false;
  let last = '';
  for (const line of text.split('\n')) {
    if (line.startsWith('+++ ')) {
      mine = normalisePath('/workspace', headerPath(line)) === path;
    } else if (mine && !line.startsWith('--- ') && (line[0] === '+' || line[0] === '-')) {
      size += (line[0] === '+' ? 1 : -1) * enc.encode(line).length;
    } else if (mine && line.startsWith('\\') && (last[0] === '+' || last[0] === '-')) {
      size -= last[0] === '+' ? 1 : -1; // that line had no newline after all
    }
    last = line;
  }
  return size;
}

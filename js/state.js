// state.js - content-addressed sandbox state: a small manifest plus pieces
// named by their SHA-256 (src/cas.h has the byte formats).
//
// A file's piece is its bytes, a link's its target, a command file's (a
// copy of a /usr/bin file, which runs its command) the command's name, a
// directory's the listing of its entries (kind, mode, mtime, key, name),
// so identical files and directories across sandboxes, forks and points
// in time are stored once, and a change writes only the pieces on its
// path: the new file, the directories above it, the manifest. The C core builds the
// listings (files keyed by the hashes their contents cache); this module
// picks the pieces a store lacks, and on import fetches the pieces a
// manifest reaches and hands them to the core, which checks each against
// its key and rebuilds through the snapshot restore path, all or nothing.
import constants from './constants.js';
import { errorFromCode, invalid } from './errors.js';
import { hex } from './encoding.js';

/** The manifest format this module writes and reads. */
export const STATE_FORMAT = 'memsandbox-state-1';

const DIR_MAGIC = new TextEncoder().encode('msb-dir-1\n');
const ENTRY_FIXED = 1 + 4 + 8 + 32 + 4;
const KIND = { 0x46: 'file', 0x44: 'directory', 0x4c: 'symlink', 0x58: 'command', 0x48: 'hardlink' };
const TAG = (c) => c.charCodeAt(0);
// Bounds on what a manifest may make an import fetch, before the core's
// own quotas apply to what it builds.
const MAX_ENTRIES = 1 << 22;
const MAX_BYTES = 2 ** 31;

function rejected(reason) {
  return errorFromCode(constants.codes.MSB_ECORRUPT, `state rejected: ${reason}`);
}

// The records of a state export or import: [tag, payload] pairs.
function* records(bytes) {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < bytes.length;) {
    const len = dv.getUint32(i + 1);
    yield [bytes[i], bytes.subarray(i + 5, i + 5 + len)];
    i += 5 + len;
  }
}

/**
 * The entries of a directory piece: { kind, mode, mtime (ns, string), key,
 * name (bytes) }. Throws a malformed_input error naming the piece when it
 * is not a listing.
 * @param {Uint8Array} piece
 * @param {string} [key] the piece's key, for the message
 */
export function dirEntries(piece, key = '') {
  const bad = (why) => rejected(`directory piece ${key} ${why}`);
  if (piece.length < DIR_MAGIC.length || DIR_MAGIC.some((b, i) => piece[i] !== b)) {
    throw rejected(`piece ${key} is not a directory listing`);
  }
  const dv = new DataView(piece.buffer, piece.byteOffset, piece.byteLength);
  const out = [];
  for (let i = DIR_MAGIC.length; i < piece.length;) {
    if (piece.length - i < ENTRY_FIXED) throw bad('is truncated');
    const nl = dv.getUint32(i + 45);
    if (piece.length - i - ENTRY_FIXED < nl) throw bad('is truncated');
    const kind = KIND[piece[i]];
    if (!kind) throw bad('has an unknown entry kind');
    out.push({ kind, mode: dv.getUint32(i + 1), mtime: String(dv.getBigInt64(i + 5)),
      key: hex(piece.subarray(i + 13, i + 45)), name: piece.subarray(i + ENTRY_FIXED, i + ENTRY_FIXED + nl) });
    i += ENTRY_FIXED + nl;
  }
  return out;
}

function joinPath(dir, name) {
  const p = new Uint8Array(dir.length + 1 + name.length);
  p.set(dir);
  p[dir.length] = 0x2f;
  p.set(name, dir.length + 1);
  return p;
}

function top(p) {
  const dv = new DataView(p.buffer, p.byteOffset, p.byteLength);
  return { key: hex(p.subarray(12, 44)), mode: dv.getUint32(0), mtime: String(dv.getBigInt64(4)) };
}

/**
 * Exports a sandbox's state: { manifest, pieces, keys }. manifest is a
 * plain JSON-safe object; pieces maps keys to bytes for the pieces that
 * `since` does not hold; keys is every key the manifest reaches. since:
 * an earlier export's result (its keys, and its listings so unchanged
 * directories are not read again) or any object with has(key).
 * @param {import('./sandbox.js').Sandbox} sb
 * @param {{since?: any}} [options]
 * @returns {import('./index.js').StateExport}
 */
export function exportState(sb, options = {}) {
  const since = options.since ?? null;
  if (since !== null && typeof since.has !== 'function' && !(since.keys instanceof Set)) {
    throw invalid('since must be an earlier exportState result or have has(key)');
  }
  const known = since?.keys instanceof Set ? since.keys : since;
  const prevIndex = since?.index instanceof Map ? since.index : null;
  const has = (k) => (known ? known.has(k) : false);
  const pieces = new Map();
  const keys = new Set();
  const index = new Map();
  /** @type {any} */
  const manifest = { format: STATE_FORMAT };
  const need = (k, bytes) => {
    keys.add(k);
    if (!has(k) && !pieces.has(k)) pieces.set(k, typeof bytes === 'function' ? bytes() : bytes);
  };
  const dec = new TextDecoder();
  // with the previous export's listings at hand, the core skips what has
  // not changed since ('U' records) and the listings come from there
  let recs = sb._stateRecords(prevIndex !== null);
  const unchanged = [];
  for (const [tag, p] of records(recs)) {
    if (tag === TAG('U')) unchanged.push(hex(p));
  }
  if (unchanged.some((k) => !prevIndex.has(k))) recs = sb._stateRecords(false);
  else {
    for (const k of unchanged) {
      const stack = [k];
      while (stack.length) {
        const d = stack.pop();
        if (index.has(d)) continue;
        const entry = prevIndex.get(d);
        index.set(d, entry);
        keys.add(d);
        for (const l of entry.leaves) keys.add(l);
        stack.push(...entry.dirs);
      }
    }
  }
  for (const [tag, p] of records(recs)) {
    if (tag === TAG('D')) {
      const key = hex(p.subarray(0, 32));
      const plen = new DataView(p.buffer, p.byteOffset + 32, 4).getUint32(0);
      const path = p.subarray(36, 36 + plen);
      const piece = p.subarray(36 + plen);
      need(key, () => piece.slice());
      let entry = prevIndex?.get(key);
      if (!entry) {
        entry = { leaves: [], dirs: [] };
        for (const e of dirEntries(piece, key)) {
          if (e.kind === 'directory') {
            entry.dirs.push(e.key);
            continue;
          }
          entry.leaves.push(e.key);
          // links and command files come as their own records
          if (e.kind === 'file') need(e.key, () => sb._readBytes(joinPath(path, e.name)).data);
        }
      }
      index.set(key, entry);
      for (const k of entry.leaves) keys.add(k);
    } else if (tag === TAG('L')) {
      need(hex(p.subarray(0, 32)), () => p.slice(32));
    } else if (tag === TAG('S')) {
      manifest.session = hex(p.subarray(0, 32));
      need(manifest.session, () => p.slice(32));
    } else if (tag === TAG('T')) {
      manifest.tmp = top(p);
    } else if (tag === TAG('W')) {
      manifest.workspace = top(p);
    } else if (tag === TAG('R')) {
      manifest.rootHash = hex(p);
    } else if (tag === TAG('V')) {
      manifest.revision = dec.decode(p);
    } else if (tag === TAG('C')) {
      manifest.cwd = dec.decode(p);
    }
  }
  for (const t of ['tmp', 'workspace']) if (manifest[t]) keys.add(manifest[t].key);
  return { manifest, pieces, keys, index };
}

const HEX64 = /^[0-9a-f]{64}$/;

// Checks a manifest's shape; every failure names the field.
function checkManifest(m) {
  if (m === null || typeof m !== 'object') throw rejected('the manifest must be an object');
  if (m.format !== STATE_FORMAT) throw rejected(`manifest.format must be "${STATE_FORMAT}"`);
  for (const t of ['tmp', 'workspace']) {
    const d = m[t];
    if (d === undefined && t === 'tmp') continue;
    if (d === null || typeof d !== 'object') throw rejected(`manifest.${t} must be an object`);
    if (typeof d.key !== 'string' || !HEX64.test(d.key)) throw rejected(`manifest.${t}.key must be 64 lowercase hex digits`);
    if (!Number.isInteger(d.mode) || d.mode < 0 || d.mode > 0o7777) throw rejected(`manifest.${t}.mode must be 0..0o7777`);
    if (typeof d.mtime !== 'string' || !/^-?\d{1,19}$/.test(d.mtime)) throw rejected(`manifest.${t}.mtime must be a decimal string`);
  }
  if (typeof m.session !== 'string' || !HEX64.test(m.session)) throw rejected('manifest.session must be 64 lowercase hex digits');
  if (typeof m.rootHash !== 'string' || !HEX64.test(m.rootHash)) throw rejected('manifest.rootHash must be 64 lowercase hex digits');
  if (typeof m.revision !== 'string' || !/^\d{1,20}$/.test(m.revision)) throw rejected('manifest.revision must be a decimal string');
  if (typeof m.cwd !== 'string' || !m.cwd.startsWith('/') || m.cwd.includes('\0')) throw rejected('manifest.cwd must be an absolute path');
}

/**
 * Every piece a manifest reaches, fetched through getPiece: resolves to
 * Map(key -> bytes). Fetches each distinct piece once, a directory level
 * at a time. With leaves false only listings are fetched (files, links
 * and the session map to null): what a garbage collector needs.
 * @param {any} manifest
 * @param {(key: string) => any} getPiece
 */
export async function collectPieces(manifest, getPiece, { leaves = true } = {}) {
  checkManifest(manifest);
  const pieces = new Map();
  let entries = 0, bytes = 0;
  let frontier = [[manifest.workspace.key, true]];
  if (leaves) frontier.push([manifest.session, false]);
  else pieces.set(manifest.session, null);
  if (manifest.tmp) frontier.push([manifest.tmp.key, true]);
  const fetch = async (key) => {
    const b = await getPiece(key);
    if (b === undefined || b === null) throw rejected(`missing piece ${key}`);
    if (!(b instanceof Uint8Array)) throw rejected(`piece ${key} is not bytes`);
    return b;
  };
  while (frontier.length) {
    const asked = new Set();
    const batch = frontier.filter(([k]) => !pieces.has(k) && !asked.has(k) && asked.add(k));
    const got = await Promise.all(batch.map(([k]) => fetch(k)));
    frontier = [];
    batch.forEach(([k, isDir], i) => {
      pieces.set(k, got[i]);
      bytes += got[i].length;
      if (bytes > MAX_BYTES) throw rejected('the pieces exceed 2 GiB');
      if (!isDir) return;
      for (const e of dirEntries(got[i], k)) {
        if (++entries > MAX_ENTRIES) throw rejected('the tree has too many entries');
        if (pieces.has(e.key)) continue;
        if (e.kind === 'directory') frontier.push([e.key, true]);
        else if (leaves) frontier.push([e.key, false]);
        else pieces.set(e.key, null);
      }
    });
  }
  return pieces;
}

// A checked key's 64 lowercase hex digits as 32 bytes.
function fromHexKey(k) {
  const b = new Uint8Array(32);
  const v = (c) => (c < 97 ? c - 48 : c - 87);
  for (let i = 0; i < 32; i++) b[i] = (v(k.charCodeAt(2 * i)) << 4) | v(k.charCodeAt(2 * i + 1));
  return b;
}

function topRecord(d) {
  const b = new Uint8Array(44);
  const dv = new DataView(b.buffer);
  dv.setUint32(0, d.mode);
  dv.setBigInt64(4, BigInt(d.mtime));
  b.set(fromHexKey(d.key), 12);
  return b;
}

/**
 * The import records for a checked manifest and its pieces (cas.h),
 * written into alloc(n): the bytes go to the module's memory in one copy.
 * trusted: the pieces come from the host's own store, so the core need not
 * hash them against their keys (the root hash is still checked).
 * @param {any} manifest
 * @param {Map<string, Uint8Array>} pieces
 * @param {(n: number) => Uint8Array} [alloc]
 * @param {boolean} [trusted]
 */
export function importRecords(manifest, pieces, alloc = (n) => new Uint8Array(n), trusted = false) {
  const enc = new TextEncoder();
  const head = [];
  const rec = (tag, p = new Uint8Array(0)) => head.push([tag, p]);
  if (trusted) rec('K');
  rec('V', enc.encode(manifest.revision));
  rec('C', enc.encode(manifest.cwd));
  rec('R', fromHexKey(manifest.rootHash));
  rec('S', fromHexKey(manifest.session));
  if (manifest.tmp) rec('T', topRecord(manifest.tmp));
  rec('W', topRecord(manifest.workspace));
  // the pieces go straight into the output: 8 MB of files is one copy
  let size = 0;
  for (const [, p] of head) size += 5 + p.length;
  for (const p of pieces.values()) size += 5 + 32 + p.length;
  const out = alloc(size);
  const dv = new DataView(out.buffer, out.byteOffset, out.byteLength);
  let at = 0;
  const put = (tag, len) => {
    out[at] = TAG(tag);
    dv.setUint32(at + 1, len);
    at += 5;
  };
  for (const [tag, p] of head) {
    put(tag, p.length);
    out.set(p, at);
    at += p.length;
  }
  for (const [k, p] of pieces) {
    put('P', 32 + p.length);
    out.set(fromHexKey(k), at);
    out.set(p, at + 32);
    at += 32 + p.length;
  }
  return out;
}

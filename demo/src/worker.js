// worker.js - the sandbox, off the page's thread. It owns one Sandbox,
// answers the requests of protocol.js, and after every change takes a
// checkpoint (the timeline), saves the workspace to IndexedDB and pushes
// the file tree's changes, found from the sandbox's events.
import { Sandbox, createTools, toolResultText } from 'memsandbox';
import { notify, serve } from './protocol.js';
import { deleteWorkspace, loadWorkspace, saveWorkspace } from './store.js';

/** @typedef {import('./protocol.js').Settings} Settings */
/** @typedef {import('./protocol.js').TreeEntry} TreeEntry */
/** @typedef {import('./protocol.js').Checkpoint} Checkpoint */

const scope = /** @type {any} */ (self);
const post = (/** @type {import('./protocol.js').Notice} */ n) => notify(scope, n);

const WELCOME = `Welcome to the MemSandbox playground. Everything here runs in
this browser tab: a bash-compatible shell over an in-memory workspace.

Try:
  ls -l
  for i in 1 2 3; do echo "line $i"; done > n.txt; sort -r n.txt
  cat README.txt | wc -w

Files you change appear in the tree; open one to edit it. Each command
is a checkpoint in the timeline. Snapshot downloads a .tar.gz of it all.
`;
/** @type {Settings} */
const DEFAULT_SETTINGS = { profile: 'normal', limits: {}, policy: '' };
const MAX_CHECKPOINTS = 50;
const MAX_TREE = 3000;
// What the tree shows: the workspace and scratch space, not the whole root.
const TREE_ROOTS = ['/workspace', '/tmp'];

/** @type {Sandbox} */
let sb = null;
let workspace = '';
/** @type {Settings} */
let settings = DEFAULT_SETTINGS;
/** @type {Record<string, string>} */
let secrets = {};
let tools = [];
/** @type {Checkpoint[]} */
let checkpoints = [];
let current = 0;
/** @type {Map<string, TreeEntry>} */
let tree = new Map();
let treeRevision = -1;
let lastRevision = -1;
let quiet = false; // the page's own calls (tree walks, saves) are not news
let persisted = false;
let commands = [];

// ---- the sandbox ----------------------------------------------------------

/** @param {import('memsandbox').SandboxEvent} ev */
function onEvent(ev) {
  if (quiet) return;
  if (typeof ev.revision === 'number') lastRevision = ev.revision;
  post({ type: 'event', event: ev });
}

/**
 * Runs the worker's own housekeeping calls without reporting their events.
 * @template T @param {() => Promise<T>} fn @returns {Promise<T>}
 */
async function quietly(fn) {
  quiet = true;
  try {
    return await fn();
  } finally {
    quiet = false;
  }
}

/** @param {Settings} s */
function createOptions(s) {
  return { profile: s.profile, limits: s.limits, onEvent, policy: s.policy || undefined };
}

/** @param {Uint8Array | null} snapshot @param {Settings} s */
async function open(snapshot, s) {
  const next = snapshot
    ? await Sandbox.fromSnapshot(snapshot, createOptions(s))
    : await Sandbox.create({ ...createOptions(s), files: { 'README.txt': WELCOME } });
  if (sb) await sb.close();
  sb = next;
  settings = s;
  tools = createTools(sb, { secrets });
  checkpoints = [];
  treeRevision = -1; // the next settle diffs the new sandbox against the old tree
  await checkpoint(snapshot ? 'restored' : 'created');
}

// Builtins, keywords and commands for Tab completion, asked of the shell
// once (compgen does not exist yet): help's "NAME - purpose" lines and
// the entries of /usr/bin.
function listCommands() {
  return quietly(async () => {
    const r = await sb.execute("help -d '*'", { fresh: true });
    const names = [...r.stdout.matchAll(/^([^\s(]\S*) - /gm)].map((m) => m[1]);
    names.push(...await sb.list('/usr/bin'));
    return [...new Set(names)].sort();
  }).catch(() => []);
}

// ---- after every change -----------------------------------------------------

/**
 * Adds a checkpoint to the timeline (none when a policy denies them).
 * @param {string} label
 */
async function checkpoint(label) {
  const id = await sb.checkpoint().catch(() => null);
  if (id === null) return;
  checkpoints.push({ id, label, revision: sb.revision, time: Date.now() });
  while (checkpoints.length > MAX_CHECKPOINTS) await sb.release(checkpoints.shift().id);
  current = id;
  post({ type: 'timeline', checkpoints, current });
}

/**
 * Runs after each request that may have changed the sandbox: when its
 * events carried a new revision, records a checkpoint, pushes the tree's
 * changes and saves the workspace.
 * @param {string} label
 */
async function settle(label) {
  if (lastRevision !== treeRevision) {
    if (label) await checkpoint(label);
    await refreshTree();
    await persist();
  }
  post({ type: 'status', revision: sb.revision, cwd: sb.cwd, persisted });
}

// Saves the workspace; a policy denying snapshots or a full IndexedDB
// leave it unsaved, which the page shows, rather than failing the call.
async function persist() {
  try {
    const snapshot = await quietly(() => sb.snapshot());
    await saveWorkspace(workspace, { snapshot, settings });
    persisted = true;
  } catch {
    persisted = false;
  }
}

/** @returns {Promise<Map<string, TreeEntry>>} */
async function walk() {
  /** @type {Map<string, TreeEntry>} */
  const out = new Map();
  const visit = async (/** @type {string} */ path) => {
    if (out.size >= MAX_TREE) return;
    const st = await sb.stat(path, { followSymlinks: false }).catch(() => null);
    if (!st) return; // hidden by the policy
    out.set(path, { path, kind: st.kind, size: st.size, mtimeMs: st.mtimeMs });
    if (st.kind !== 'directory') return;
    for (const name of await sb.list(path).catch(() => [])) await visit(`${path}/${name}`);
  };
  for (const root of TREE_ROOTS) {
    if (await sb.exists(root)) await visit(root);
  }
  return out;
}

async function refreshTree() {
  const next = await quietly(walk);
  const added = [], changed = [], removed = [];
  for (const [p, e] of next) {
    const old = tree.get(p);
    if (!old) added.push(e);
    else if (old.size !== e.size || old.mtimeMs !== e.mtimeMs || old.kind !== e.kind) changed.push(e);
  }
  for (const p of tree.keys()) if (!next.has(p)) removed.push(p);
  tree = next;
  treeRevision = lastRevision = sb.revision;
  post({ type: 'tree', revision: treeRevision, added, changed, removed });
}

// ---- execution seam ---------------------------------------------------------

// The running command's AbortController (a terminal command or an agent
// tool call), null when nothing runs. The sandbox runs a script in slices
// and yields between them, so the 'cancel' request is read while it runs.
/** @type {AbortController | null} */
let running = null;

/**
 * Runs fn with a fresh AbortController's signal, kept in `running` so
 * that cancelScript can abort it.
 * @template T @param {(signal: AbortSignal) => Promise<T>} fn @returns {Promise<T>}
 */
async function cancellable(fn) {
  const controller = new AbortController();
  running = controller;
  try {
    return await fn(controller.signal);
  } finally {
    if (running === controller) running = null;
  }
}

/**
 * Runs one script, streaming its output through `emit` as it is produced.
 * A cancelled run ends with status 130 and limit 'cancelled', as bash
 * after Ctrl-C: the terminal shows ^C, so no note is added.
 * @param {string} script
 * @param {Record<string, string>} env
 * @param {(stream: 'stdout' | 'stderr', text: string) => void} emit
 */
function runScript(script, env, emit) {
  return cancellable(async (signal) => {
    const r = await sb.execute(script, { env, ...(Object.keys(secrets).length ? { secrets } : {}),
      signal, onStdout: (text) => emit('stdout', text), onStderr: (text) => emit('stderr', text) });
    if (r.stdoutTruncated || r.stderrTruncated) emit('stderr', '[output truncated]\n');
    if (r.limit && r.limit !== 'cancelled') emit('stderr', `[stopped by the ${r.limit} limit]\n`);
    return r;
  });
}

/**
 * Cancels the running command through the sandbox's own cancellation: the
 * run stops at its next slice and the sandbox keeps its state.
 * @returns {{ cancelled: boolean, reason: string }}
 */
function cancelScript() {
  if (!running) return { cancelled: false, reason: 'nothing is running' };
  running.abort();
  return { cancelled: true, reason: '' };
}

// ---- completion ---------------------------------------------------------

/**
 * The word before the cursor and what may complete it: a $variable, a
 * command name in command position, else a path.
 * @param {string} line @param {number} cursor
 */
async function complete(line, cursor) {
  const before = line.slice(0, cursor);
  const word = /[^\s|;&<>()]*$/.exec(before)[0];
  const start = cursor - word.length;
  const head = before.slice(0, start);
  const candidates = await quietly(async () => {
    if (word.startsWith('$')) return Object.keys(await sb.env()).map((n) => `$${n}`);
    if (!word.includes('/') && /(^|[|;&(`]|\bdo|\bthen|\belse)\s*$/.test(head)) return commands;
    return pathCandidates(word);
  });
  return { start, candidates: candidates.filter((c) => c.startsWith(word)).sort() };
}

/** @param {string} word */
async function pathCandidates(word) {
  const slash = word.lastIndexOf('/');
  const dirPart = word.slice(0, slash + 1);
  let dir = dirPart || '.';
  if (!dir.startsWith('/')) dir = `${sb.cwd}/${dir}`;
  let names;
  try {
    names = await sb.list(dir);
  } catch {
    return [];
  }
  const out = [];
  for (const n of names) {
    const st = await sb.stat(`${dir}/${n}`).catch(() => null);
    out.push(dirPart + n + (st?.kind === 'directory' ? '/' : ''));
  }
  return out;
}

// ---- the requests -----------------------------------------------------------

/** @param {Uint8Array} bytes */
function isText(bytes) {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return !bytes.includes(0);
  } catch {
    return false;
  }
}

function toolDefinitions() {
  return tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
}

serve(scope, {
  async init({ workspace: id }) {
    workspace = id;
    const saved = await loadWorkspace(id);
    await open(saved?.snapshot ?? null, saved?.settings ?? DEFAULT_SETTINGS);
    commands = await listCommands();
    lastRevision = -2;
    await settle('');
    return { revision: sb.revision, cwd: sb.cwd, restored: !!saved, settings };
  },
  async run({ script, columns, lines }) {
    const r = await runScript(script, { COLUMNS: String(columns), LINES: String(lines) },
      (stream, text) => post({ type: 'output', stream, text }));
    await settle(script.split('\n')[0].slice(0, 80));
    return { exitCode: r.exitCode, cwd: r.cwd, revision: r.revision, limit: r.limit };
  },
  cancel: () => cancelScript(),
  parseCheck: ({ script }) => sb.parseCheck(script),
  complete: ({ line, cursor }) => complete(line, cursor),
  async readFile({ path }) {
    const bytes = await sb.readFile(path, { encoding: 'bytes' });
    const binary = !isText(bytes);
    const text = binary ? '' : new TextDecoder().decode(bytes);
    return { text, hash: await sb.hash(path), binary };
  },
  fileBytes: ({ path }) => sb.readFile(path, { encoding: 'bytes' }),
  async writeFile({ path, text, expectHash }) {
    const r = await sb.writeFile(path, text, expectHash ? { expectHash } : {});
    await settle(`save ${path}`);
    return r;
  },
  async upload({ files }) {
    for (const f of files) await sb.writeFile(f.path, f.data, { parents: true });
    await settle(`upload ${files.length} file${files.length === 1 ? '' : 's'}`);
    return { revision: sb.revision };
  },
  snapshot: () => sb.snapshot(),
  async archive({ path }) {
    const r = await sb.execute('tar -czf - -C "$D" "$B"',
      { encoding: 'bytes', fresh: true, env: { D: path.replace(/\/[^/]*$/, '') || '/', B: path.replace(/.*\//, '') } });
    if (r.exitCode !== 0) throw new Error(new TextDecoder().decode(r.stderr) || 'tar failed');
    return r.stdout;
  },
  async restore({ archive }) {
    await sb.restore(archive);
    await settle('restore snapshot');
    return { revision: sb.revision, rootHash: await sb.rootHash() };
  },
  rootHash: () => sb.rootHash(),
  async rollback({ id }) {
    await sb.rollback(id);
    current = id;
    lastRevision = -2; // a rollback's revision may equal an earlier one
    await refreshTree();
    await persist();
    post({ type: 'timeline', checkpoints, current });
    post({ type: 'status', revision: sb.revision, cwd: sb.cwd, persisted });
    return { revision: sb.revision };
  },
  async reset() {
    await deleteWorkspace(workspace);
    await open(null, DEFAULT_SETTINGS);
    lastRevision = -2;
    await settle('');
    return { revision: sb.revision, settings };
  },
  async fork() {
    const id = `ws-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    await saveWorkspace(id, { snapshot: await sb.snapshot(), settings });
    return { workspace: id };
  },
  async configure({ settings: s }) {
    await open(await sb.snapshot(), s);
    lastRevision = -2;
    await settle('');
    return { settings };
  },
  setSecrets({ secrets: s }) {
    secrets = s;
    tools = createTools(sb, { secrets });
    return { names: Object.keys(s) };
  },
  tools: () => toolDefinitions(),
  async callTool({ name, args, label }) {
    const tool = tools.find((t) => t.name === name);
    const envelope = tool
      ? await cancellable((signal) => tool.execute(args, { signal }))
      : { ok: false, error: { category: 'invalid_request', code: 'unknown_tool',
        message: `no tool named ${name}`, correctable: true, retryable: false } };
    await settle(label);
    return { text: toolResultText(envelope), ok: envelope.ok };
  },
});

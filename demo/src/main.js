// main.js - the page: starts the sandbox worker for this tab's workspace
// (?ws=ID, "default" otherwise; a fork opens a new tab with its own) and
// wires the panes to it.
import '@xterm/xterm/css/xterm.css';
import './style.css';
import { createClient } from './protocol.js';
import { createTerminal } from './terminal.js';
import { createFiles, download, droppedFiles } from './files.js';
import { createPanels } from './panels.js';
import { createAgentPanel } from './agentpanel.js';

const $ = (/** @type {string} */ id) => /** @type {any} */ (document.getElementById(id));
const workspace = new URLSearchParams(location.search).get('ws') || 'default';
const startWorker = () => new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
let worker = startWorker();
const client = createClient(worker);
const status = (/** @type {string} */ s) => { $('status').textContent = s; };

// How long the worker may take to answer a cancel before it is taken for
// stuck. It answers between two slices of a run, milliseconds apart; only
// a single step that never ends (a bug) would keep it from answering.
const CANCEL_ANSWER_MS = 5000;

/**
 * Stops whatever the sandbox is running (Ctrl-C, the agent's Stop): the
 * worker aborts the run through the sandbox's cancellation, which ends it
 * with status 130 and keeps the sandbox's state. Only if the worker does
 * not answer at all is it replaced by a new one restored from the last
 * saved state (the timeline starts anew). Resolves to what happened.
 * @returns {Promise<'cancelled' | 'idle' | 'restarted'>}
 */
async function interrupt() {
  const answer = await Promise.race([client.request('cancel', {}),
    new Promise((resolve) => setTimeout(resolve, CANCEL_ANSWER_MS, null))]);
  if (answer) return answer.cancelled ? 'cancelled' : 'idle';
  worker.terminate();
  worker = startWorker();
  client.replace(worker);
  await client.request('init', { workspace });
  await panels.resync();
  return 'restarted';
}

const terminal = createTerminal($('term'), client, {
  onBusy: (busy) => $('term-pane').classList.toggle('busy', busy),
  interrupt,
});
const files = createFiles({
  tree: $('tree'), editor: $('editor'), path: $('editor-path'), hash: $('editor-hash'),
  status: $('editor-status'), save: $('save'), reload: $('reload'), overwrite: $('overwrite'),
  downloadFile: $('download-file'), downloadFolder: $('download-folder'),
}, client);
const panels = createPanels(client, { status, note: (s) => terminal.note(s) });
createAgentPanel(client, { note: (s) => terminal.note(s), interrupt });

client.on('status', ({ revision, cwd, persisted }) => {
  terminal.setCwd(cwd);
  status(`Workspace "${workspace}", revision ${revision}, ` +
    `${persisted ? 'saved in this browser' : 'NOT saved (a snapshot could not be taken or stored)'}.`);
});

// ---- snapshots, reset, fork ---------------------------------------------

/** @param {Uint8Array} archive @param {string} from */
async function restore(archive, from) {
  try {
    const r = await client.request('restore', { archive });
    files.close();
    terminal.note(`restored ${from} (root hash ${r.rootHash.slice(0, 16)}…)`);
  } catch (e) {
    terminal.note(`cannot restore ${from}: ${e.message}`);
  }
}

$('snapshot-download').addEventListener('click', async () => {
  const data = await client.request('snapshot', {});
  download(data, `memsandbox-${workspace}.tar.gz`, 'application/gzip');
});
$('snapshot-upload').addEventListener('change', async (/** @type {any} */ e) => {
  const f = e.target.files[0];
  if (f) await restore(new Uint8Array(await f.arrayBuffer()), f.name);
  e.target.value = '';
});
$('reset').addEventListener('click', async () => {
  if (!confirm('Reset this workspace to its first state? Its saved copy is deleted.')) return;
  const r = await client.request('reset', {});
  panels.showSettings(r.settings);
  files.close();
  terminal.note('workspace reset');
});
$('fork').addEventListener('click', async () => {
  const { workspace: id } = await client.request('fork', {});
  window.open(`?ws=${encodeURIComponent(id)}`, '_blank');
  terminal.note(`forked into workspace ${id} (a new tab)`);
});

// Drops: on the files pane, files and folders join the workspace (under
// the selected folder); elsewhere, one archive restores the sandbox.
document.addEventListener('dragover', (e) => e.preventDefault());
document.addEventListener('drop', async (e) => {
  e.preventDefault();
  const onFiles = /** @type {Element} */ (e.target).closest?.('#files-pane');
  const dropped = await droppedFiles(e.dataTransfer);
  if (!dropped.length) return;
  if (!onFiles && dropped.length === 1 && /\.(tar\.gz|tgz|tar)$/.test(dropped[0].path)) {
    await restore(dropped[0].data, dropped[0].path);
    return;
  }
  const dir = files.selectedDir;
  await client.request('upload', { files: dropped.map((f) => ({ ...f, path: `${dir}/${f.path}` })) });
  terminal.note(`added ${dropped.length} file(s) under ${dir}`);
});

// ---- start --------------------------------------------------------------

const init = await client.request('init', { workspace });
panels.showSettings(init.settings);
terminal.note(init.restored ? `workspace "${workspace}" restored from this browser`
  : 'MemSandbox ready. Try: cat README.txt');
terminal.start(init.cwd);
terminal.focus();
// For tests and the console: the pieces of this page.
Object.assign(window, { playground: { ready: true, client, terminal, files, workspace } });

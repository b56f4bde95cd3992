// files.js - the file tree and the editor. The tree changes only when the
// worker pushes a 'tree' notice (it walks the sandbox after events carried
// a new revision), never by polling. The editor (CodeMirror 6) saves with
// the hash the file had when it was opened, so a change made meanwhile by
// a command or the agent is reported as a conflict, not overwritten.
import { EditorView, keymap, lineNumbers, highlightActiveLine } from '@codemirror/view';
import { EditorState } from '@codemirror/state';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';

/** @typedef {import('./protocol.js').TreeEntry} TreeEntry */

/** @param {string} tag @param {Record<string, any>} props @param {...(Node | string)} kids */
export function h(tag, props = {}, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else el.setAttribute(k, v);
  }
  el.append(...kids);
  return el;
}

/** Saves bytes as a download. @param {Uint8Array | string} data @param {string} name @param {string} type */
export function download(data, name, type = 'application/octet-stream') {
  const url = URL.createObjectURL(new Blob([/** @type {BlobPart} */ (data)], { type }));
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

/**
 * Reads what was dropped: files, and folders walked recursively.
 * @param {DataTransfer} dt @returns {Promise<Array<{ path: string, data: Uint8Array }>>}
 */
export async function droppedFiles(dt) {
  const out = [];
  /** @param {any} entry @param {string} prefix */
  const visit = async (entry, prefix) => {
    if (entry.isFile) {
      const file = await new Promise((res, rej) => entry.file(res, rej));
      out.push({ path: prefix + entry.name, data: new Uint8Array(await file.arrayBuffer()) });
    } else if (entry.isDirectory) {
      const reader = entry.createReader();
      for (;;) {
        const batch = await new Promise((res, rej) => reader.readEntries(res, rej));
        if (!batch.length) break;
        for (const e of batch) await visit(e, `${prefix}${entry.name}/`);
      }
    }
  };
  const entries = [...dt.items].map((i) => i.webkitGetAsEntry?.()).filter(Boolean);
  if (entries.length) {
    for (const e of entries) await visit(e, '');
  } else {
    for (const f of dt.files) out.push({ path: f.name, data: new Uint8Array(await f.arrayBuffer()) });
  }
  return out;
}

/**
 * @param {{ tree: HTMLElement, editor: HTMLElement, path: HTMLElement, hash: HTMLElement,
 *   status: HTMLElement, save: HTMLButtonElement, reload: HTMLButtonElement,
 *   overwrite: HTMLButtonElement, downloadFile: HTMLButtonElement,
 *   downloadFolder: HTMLButtonElement }} ui
 * @param {ReturnType<typeof import('./protocol.js').createClient>} client
 */
export function createFiles(ui, client) {
  /** @type {Map<string, TreeEntry>} */
  const entries = new Map();
  const collapsed = new Set(['/tmp']);
  const fresh = new Set(); // changed by the last notice: highlighted
  let open = null;      // path in the editor
  let openHash = null;  // its hash when opened or last saved
  let selected = '/workspace';
  let dirty = false;

  const view = new EditorView({
    parent: ui.editor,
    state: EditorState.create({ doc: '', extensions: [
      lineNumbers(), highlightActiveLine(), history(),
      keymap.of([{ key: 'Mod-s', run: () => { save(false); return true; } },
        ...defaultKeymap, ...historyKeymap]),
      EditorView.updateListener.of((u) => {
        if (u.docChanged) setDirty(true);
      }),
      EditorView.contentAttributes.of({ 'aria-label': 'file contents' }),
    ] }),
  });

  /** @param {boolean} d */
  function setDirty(d) {
    dirty = d;
    ui.save.disabled = !open;
    ui.path.textContent = open ? `${open}${d ? ' (modified)' : ''}` : 'no file open';
  }

  /** @param {string} msg @param {'ok' | 'warn' | 'error'} [kind] */
  function status(msg, kind = 'ok') {
    ui.status.textContent = msg;
    ui.status.dataset.kind = kind;
  }

  function render() {
    const paths = [...entries.keys()].sort();
    const rows = [];
    for (const p of paths) {
      if ([...collapsed].some((c) => p.startsWith(`${c}/`))) continue;
      const e = entries.get(p);
      const depth = p.split('/').length - 2;
      const name = p.slice(p.lastIndexOf('/') + 1);
      const isDir = e.kind === 'directory';
      const label = isDir ? `${collapsed.has(p) ? '▸' : '▾'} ${name}/` : name;
      const btn = h('button', {
        class: `entry ${e.kind}${fresh.has(p) ? ' fresh' : ''}${p === selected ? ' selected' : ''}`,
        style: `padding-left:${0.4 + depth}em`, 'data-path': p,
        'aria-label': `${isDir ? 'folder' : 'file'} ${p}${isDir ? '' : `, ${e.size} bytes`}`,
        onclick: () => (isDir ? toggle(p) : openFile(p)),
      }, label);
      rows.push(h('li', {}, btn));
    }
    ui.tree.replaceChildren(...rows);
  }

  /** @param {string} p */
  function toggle(p) {
    selected = p;
    if (collapsed.has(p)) collapsed.delete(p);
    else collapsed.add(p);
    ui.downloadFolder.disabled = false;
    render();
    /** @type {HTMLElement | null} */ (ui.tree.querySelector(`[data-path="${CSS.escape(p)}"]`))?.focus();
  }

  /** @param {string} path */
  async function openFile(path) {
    if (dirty && open && !confirm(`Discard your changes to ${open}?`)) return;
    selected = path;
    render();
    try {
      const r = await client.request('readFile', { path });
      open = path;
      openHash = r.hash;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: r.binary ? '' : r.text } });
      view.contentDOM.setAttribute('contenteditable', String(!r.binary));
      setDirty(false);
      ui.hash.textContent = `sha256 ${r.hash.slice(0, 16)}…`;
      ui.hash.title = r.hash;
      ui.downloadFile.disabled = false;
      ui.reload.hidden = true;
      ui.overwrite.hidden = true;
      status(r.binary ? 'Binary file: not editable here (download it).' : `Opened ${path}.`);
    } catch (e) {
      status(`Cannot open ${path}: ${e.message}`, 'error');
    }
  }

  /** @param {boolean} force save even if the file changed meanwhile */
  async function save(force) {
    if (!open) return;
    try {
      const r = await client.request('writeFile',
        { path: open, text: view.state.doc.toString(), expectHash: force ? null : openHash });
      openHash = r.hash;
      ui.hash.textContent = `sha256 ${r.hash.slice(0, 16)}…`;
      ui.hash.title = r.hash;
      setDirty(false);
      ui.reload.hidden = true;
      ui.overwrite.hidden = true;
      status(`Saved ${open} (revision ${r.revision}).`);
    } catch (e) {
      if (e.category !== 'conflict') {
        status(`Cannot save ${open}: ${e.message}`, 'error');
        return;
      }
      ui.reload.hidden = false;
      ui.overwrite.hidden = false;
      status(`Conflict: ${open} changed in the sandbox since you opened it. Your text is ` +
        'kept here: Reload takes the sandbox\'s version, Overwrite saves yours.', 'warn');
    }
  }

  client.on('tree', ({ added, changed, removed }) => {
    fresh.clear();
    for (const e of [...added, ...changed]) {
      entries.set(e.path, e);
      fresh.add(e.path);
    }
    for (const p of removed) entries.delete(p);
    render();
    if (open && removed.includes(open)) status(`${open} was removed in the sandbox.`, 'warn');
    else if (open && changed.some((e) => e.path === open)) {
      if (dirty) status(`${open} changed in the sandbox; saving will report a conflict.`, 'warn');
      else void openFile(open);
    }
  });

  ui.save.addEventListener('click', () => save(false));
  ui.overwrite.addEventListener('click', () => save(true));
  ui.reload.addEventListener('click', () => {
    dirty = false;
    if (open) void openFile(open);
  });
  ui.downloadFile.addEventListener('click', async () => {
    if (!open) return;
    const data = await client.request('fileBytes', { path: open });
    download(data, open.slice(open.lastIndexOf('/') + 1));
  });
  ui.downloadFolder.addEventListener('click', async () => {
    const dir = entries.get(selected)?.kind === 'directory' ? selected : '/workspace';
    try {
      const data = await client.request('archive', { path: dir });
      download(data, `${dir.slice(dir.lastIndexOf('/') + 1) || 'root'}.tar.gz`, 'application/gzip');
      status(`Downloaded ${dir} as .tar.gz.`);
    } catch (e) {
      status(`Cannot archive ${dir}: ${e.message}`, 'error');
    }
  });
  setDirty(false);

  return {
    view,
    openFile,
    save,
    /** Clears the editor (after a reset or restore). */
    close() {
      open = null;
      openHash = null;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: '' } });
      setDirty(false);
      ui.hash.textContent = '';
      ui.reload.hidden = true;
      ui.overwrite.hidden = true;
      ui.downloadFile.disabled = true;
    },
    get selectedDir() {
      return entries.get(selected)?.kind === 'directory' ? selected : '/workspace';
    },
  };
}

// terminal.js - the shell pane: xterm.js for the screen, lineedit.js for
// the line, the worker for everything else. Enter runs the line, or asks
// for a continuation line while the shell's own parser reports the input
// incomplete; Tab completes; Ctrl-C drops the line, or cancels a running
// command (main.js's interrupt); output streams as it is produced; Ctrl-L clears; pasted lines run one
// after another. History persists in localStorage.
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { LineEditor } from './lineedit.js';

const HISTORY_KEY = 'memsandbox.history';
const GREEN = '\x1b[32m', BLUE = '\x1b[34m', RED = '\x1b[31m', DIM = '\x1b[90m', OFF = '\x1b[0m';

function loadHistory() {
  try {
    const h = JSON.parse(localStorage.getItem(HISTORY_KEY) ?? '[]');
    return Array.isArray(h) ? h.filter((s) => typeof s === 'string') : [];
  } catch {
    return [];
  }
}

/** Output for the terminal: bare \n becomes \r\n. */
const crlf = (/** @type {string} */ s) => s.replace(/\r?\n/g, '\r\n');

/**
 * @param {HTMLElement} el
 * @param {ReturnType<typeof import('./protocol.js').createClient>} client
 * @param {{ onBusy: (busy: boolean) => void, interrupt: () => Promise<string> }} hooks
 */
export function createTerminal(el, client, hooks) {
  const term = new Terminal({
    convertEol: false, cursorBlink: true, fontSize: 14, lineHeight: 1.2, scrollback: 5000,
    fontFamily: 'ui-monospace, "DejaVu Sans Mono", Menlo, monospace',
    // brighter than xterm's defaults: readable (AA contrast) on this background
    theme: { background: '#101418', foreground: '#e1e7ec', blue: '#6cb6ff', green: '#7fd18b',
      red: '#ff9e94', brightBlack: '#a3b1bf' },
    screenReaderMode: true,
  });
  const fit = new FitAddon();
  term.loadAddon(fit);
  term.open(el);
  fit.fit();
  new ResizeObserver(() => {
    fit.fit();
  }).observe(el);

  // Tab completes, so it cannot also move the focus: Shift+Tab, or Esc
  // then Tab, leaves the terminal (keyboard users are never trapped).
  // Ctrl-C with text selected copies it instead of interrupting.
  let escaped = false;
  term.attachCustomKeyEventHandler((e) => {
    if (e.type !== 'keydown') return true;
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'c' && term.hasSelection()) return false;
    if (e.key === 'Tab' && (e.shiftKey || escaped)) {
      escaped = false;
      return false;
    }
    escaped = e.key === 'Escape';
    return !escaped;
  });

  const editor = new LineEditor({ write: (s) => term.write(s), columns: term.cols, history: loadHistory() });
  term.onResize(({ cols }) => {
    editor.columns = cols;
  });
  let cwd = '/workspace';
  let pending = '';   // lines of an incomplete command so far
  let busy = false;
  let interrupted = false; // Ctrl-C was pressed while the command ran
  let queue = '';     // input that arrived after a pasted line, fed once it has run
  let lines = 0;      // lines entered and handled so far (tests wait on it)

  const prompt = () => (pending ? '> '
    : `${GREEN}sandbox${OFF}:${BLUE}${cwd}${OFF}$ `);
  const write = (/** @type {string} */ s) => term.write(s);

  client.on('output', ({ stream, text }) => {
    write(stream === 'stderr' ? `${RED}${crlf(text)}${OFF}` : crlf(text));
  });

  const saveHistory = () => localStorage.setItem(HISTORY_KEY, JSON.stringify(editor.history));

  /** @param {boolean} b */
  function setBusy(b) {
    busy = b;
    hooks.onBusy(b);
  }

  /** @param {string} line */
  async function runLine(line) {
    saveHistory();
    const script = pending ? `${pending}\n${line}` : line;
    if (!script.trim()) return;
    if (await client.request('parseCheck', { script }) === 'incomplete') {
      pending = script;
      return;
    }
    pending = '';
    setBusy(true);
    interrupted = false;
    try {
      const r = await client.request('run', { script, columns: term.cols, lines: term.rows });
      cwd = r.cwd || cwd;
      if (interrupted) write('\r\n'); // as bash: ^C, then the prompt on a line of its own
    } catch (e) {
      if (e.code !== 'worker_replaced') write(`${RED}playground: ${e.message}${OFF}\r\n`);
      else write(`\r\n${DIM}stopped; the workspace is as it was before the command${OFF}\r\n`);
    } finally {
      setBusy(false);
    }
  }

  async function completeWord() {
    const { start, candidates } = await client.request('complete',
      { line: editor.buf, cursor: editor.pos });
    const list = editor.complete(start, candidates);
    if (list.length) {
      write(`\r\n${list.join('  ')}\r\n`);
      editor.redraw();
    }
  }

  /** @param {string} data */
  async function feed(data) {
    for (const a of editor.feed(data)) {
      if (a.type === 'line') {
        await runLine(a.line);
        editor.start(prompt());
        lines++;
      } else if (a.type === 'rest') {
        queue = a.data + queue;
      } else if (a.type === 'complete') {
        await completeWord();
      } else if (a.type === 'interrupt') {
        pending = '';
        editor.cancel();
        editor.start(prompt());
      } else if (a.type === 'clear') {
        term.clear();
        write('\x1b[2J\x1b[H');
        editor.redraw();
      }
    }
  }

  // Input is handled one chunk at a time, in order; while a command runs,
  // Ctrl-C asks the worker to cancel (the command ends with status 130,
  // the workspace as the command left it) and anything else waits.
  let chain = Promise.resolve();
  term.onData((data) => {
    if (busy && data === '\x03') {
      write('^C');
      interrupted = true;
      void hooks.interrupt();
      return;
    }
    chain = chain.then(async () => {
      queue += data;
      while (queue) {
        const d = queue;
        queue = '';
        await feed(d);
      }
    });
  });

  return {
    term,
    get lines() {
      return lines;
    },
    /** The screen and scrollback as text (tests read it). */
    text() {
      const b = term.buffer.active;
      const rows = [];
      for (let i = 0; i < b.length; i++) {
        const line = b.getLine(i);
        const s = line?.translateToString(!b.getLine(i + 1)?.isWrapped) ?? '';
        if (line?.isWrapped && rows.length) rows[rows.length - 1] += s;
        else rows.push(s);
      }
      return rows.join('\n').replace(/\n+$/, '');
    },
    /** Shows a note above the prompt. @param {string} text */
    note(text) {
      write(`\r\x1b[K${DIM}${crlf(text)}${OFF}\r\n`);
      editor.redraw();
    },
    /** @param {string} dir */
    start(dir) {
      cwd = dir;
      editor.start(prompt());
    },
    /** @param {string} dir */
    setCwd(dir) {
      cwd = dir;
    },
    focus: () => term.focus(),
    /** Types a command as if entered (used by tests and the agent panel's echo). */
    type: (/** @type {string} */ s) => term.input(s),
  };
}

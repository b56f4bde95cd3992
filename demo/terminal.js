// terminal.js - the demo's line-oriented terminal over one Sandbox.
//
// A plain log plus an input line (accessible, copyable, easy to test)
// rather than a full terminal emulator: the shell is line-based anyway.
// Enter runs the line, or asks for a continuation line ("> ") while the
// shell's parser reports incomplete input; Up/Down walk the history;
// Ctrl-L clears; Ctrl-C drops the pending lines.
import { Sandbox } from '../build/npm/index.js';

const log = document.getElementById('log');
const input = document.getElementById('input');
const promptEl = document.getElementById('prompt');
const history = [];
let hpos = 0;
let pending = '';
let cwd = '/workspace';

function append(text, cls) {
  const span = document.createElement('span');
  if (cls) span.className = cls;
  span.textContent = text;
  log.append(span);
  window.scrollTo(0, document.body.scrollHeight);
}

function showPrompt() {
  promptEl.textContent = pending ? '> ' : `mem-sandbox:${cwd}> `;
}

const sb = await Sandbox.create({
  files: {
    'README.txt': 'Welcome to MemSandbox. Try:\n  ls -l\n  cat README.txt | wc -w\n' +
      '  for i in 1 2 3; do echo "line $i"; done > n.txt; sort -r n.txt\n',
  },
});
append('MemSandbox ready. Type `cat README.txt`.\n', 'note');
showPrompt();
input.focus();
window.memsandboxReady = true;

async function runLine(line) {
  append(promptEl.textContent, 'prompt');
  append(line + '\n');
  const script = pending ? `${pending}\n${line}` : line;
  if (line.trim()) {
    history.push(line);
    hpos = history.length;
  }
  if (sb.parseCheck(script) === 'incomplete') {
    pending = script;
    showPrompt();
    return;
  }
  pending = '';
  try {
    const r = await sb.execute(script);
    if (r.stdout) append(r.stdout);
    if (r.stderr) append(r.stderr, 'err');
    if (r.stdoutTruncated || r.stderrTruncated) append('[output truncated]\n', 'note');
    cwd = r.cwd || cwd;
  } catch (e) {
    append(`memsandbox: ${e.message}\n`, 'err');
  }
  showPrompt();
}

input.addEventListener('keydown', async (ev) => {
  if (ev.key === 'Enter') {
    ev.preventDefault();
    const line = input.value;
    input.value = '';
    await runLine(line);
  } else if (ev.key === 'ArrowUp') {
    ev.preventDefault();
    if (hpos > 0) input.value = history[--hpos];
  } else if (ev.key === 'ArrowDown') {
    ev.preventDefault();
    hpos = Math.min(history.length, hpos + 1);
    input.value = history[hpos] ?? '';
  } else if (ev.ctrlKey && ev.key === 'l') {
    ev.preventDefault();
    log.textContent = '';
  } else if (ev.ctrlKey && ev.key === 'c' && !window.getSelection().toString()) {
    ev.preventDefault();
    append(promptEl.textContent + input.value + '^C\n', 'prompt');
    input.value = '';
    pending = '';
    showPrompt();
  }
});
document.addEventListener('click', () => {
  if (!window.getSelection().toString()) input.focus();
});

// lineedit.js - the line discipline a terminal component lacks: xterm.js
// hands over raw keystrokes, so this keeps the line being typed, echoes
// it, moves the cursor (wrapped lines included) and walks the history.
// It knows nothing of xterm or the sandbox: feed() takes the terminal's
// input and returns what the caller must do (run a line, complete, ...),
// and all screen output goes through the write function it was given.

// Escape sequences and control keys -> editing actions.
const KEYS = {
  '\x1b[D': 'left', '\x1b[C': 'right', '\x1b[A': 'up', '\x1b[B': 'down',
  '\x1b[H': 'home', '\x1bOH': 'home', '\x1b[1~': 'home', '\x01': 'home',
  '\x1b[F': 'end', '\x1bOF': 'end', '\x1b[4~': 'end', '\x05': 'end',
  '\x7f': 'backspace', '\b': 'backspace', '\x1b[3~': 'delete', '\x04': 'delete',
  '\x15': 'killStart', '\x0b': 'killEnd', '\x17': 'killWord',
  '\x02': 'left', '\x06': 'right', '\x10': 'up', '\x0e': 'down',
};

/** The visible width of a prompt (escape sequences take no columns). */
export function visibleLength(s) {
  return s.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '').length;
}

/** Splits terminal input into keys: escape sequences whole, else characters. */
export function keys(data) {
  const out = [];
  for (let i = 0; i < data.length;) {
    let m = null;
    if (data[i] === '\x1b') m = /^\x1b(\[[0-9;]*[ -/]*[@-~]|O.)/.exec(data.slice(i));
    const k = m ? m[0] : String.fromCodePoint(data.codePointAt(i));
    out.push(k);
    i += k.length;
  }
  return out;
}

/** The longest prefix shared by every string. */
export function commonPrefix(list) {
  if (!list.length) return '';
  let p = list[0];
  for (const s of list) while (!s.startsWith(p)) p = p.slice(0, -1);
  return p;
}

export class LineEditor {
  /**
   * @param {{ write: (s: string) => void, columns?: number,
   *   history?: string[], maxHistory?: number }} options
   */
  constructor({ write, columns = 80, history = [], maxHistory = 500 }) {
    this.write = write;
    this.columns = columns;
    this.history = history.slice(-maxHistory);
    this.maxHistory = maxHistory;
    this.prompt = '';
    this.buf = '';
    this.pos = 0;
    this.hidx = this.history.length;
    this.draft = '';
    this.row = 0; // rows between the prompt's start and the cursor
  }

  /** Starts a new line after `prompt`. */
  start(prompt) {
    this.prompt = prompt;
    this.buf = '';
    this.pos = 0;
    this.row = 0;
    this.hidx = this.history.length;
    this.write(prompt);
  }

  /**
   * @typedef {{ type: 'line', line: string } | { type: 'rest', data: string }
   *   | { type: 'complete' | 'interrupt' | 'clear' }} Action
   */

  /**
   * Feeds terminal input. Returns the actions in order:
   * { type: 'line', line } (Enter; the echo has moved to the next row),
   * { type: 'complete' }, { type: 'interrupt' }, { type: 'clear' }.
   * Input after a line is left for the caller to feed again once the line
   * has run: { type: 'rest', data }.
   * @param {string} data @returns {Action[]}
   */
  feed(data) {
    /** @type {Action[]} */
    const actions = [];
    const ks = keys(data);
    for (let i = 0; i < ks.length; i++) {
      const k = ks[i];
      if (k === '\r' || k === '\n') {
        if (k === '\n' && ks[i - 1] === '\r') continue;
        actions.push(this.enter());
        let rest = ks.slice(i + 1).join('');
        if (k === '\r' && rest.startsWith('\n')) rest = rest.slice(1);
        if (rest) actions.push({ type: 'rest', data: rest });
        return actions;
      }
      if (k === '\t') actions.push({ type: 'complete' });
      else if (k === '\x03') actions.push({ type: 'interrupt' });
      else if (k === '\x0c') actions.push({ type: 'clear' });
      else if (KEYS[k]) this[KEYS[k]]();
      else if (k >= ' ' && k !== '\x7f' && !k.startsWith('\x1b')) this.insert(k);
    }
    return actions;
  }

  /** @returns {Action} */
  enter() {
    const line = this.buf;
    this.end();
    this.write('\r\n');
    this.row = 0;
    this.addHistory(line);
    return { type: 'line', line };
  }

  /** Adds a line to the history (not blank lines or repeats). */
  addHistory(line) {
    if (line.trim() && this.history[this.history.length - 1] !== line) {
      this.history.push(line);
      if (this.history.length > this.maxHistory) this.history.shift();
    }
    this.hidx = this.history.length;
  }

  insert(s) {
    this.set(this.buf.slice(0, this.pos) + s + this.buf.slice(this.pos), this.pos + s.length);
  }

  left() { this.set(this.buf, Math.max(0, this.pos - 1)); }
  right() { this.set(this.buf, Math.min(this.buf.length, this.pos + 1)); }
  home() { this.set(this.buf, 0); }
  end() { this.set(this.buf, this.buf.length); }

  backspace() {
    if (this.pos > 0) this.set(this.buf.slice(0, this.pos - 1) + this.buf.slice(this.pos), this.pos - 1);
  }

  delete() {
    if (this.pos < this.buf.length) this.set(this.buf.slice(0, this.pos) + this.buf.slice(this.pos + 1), this.pos);
  }

  killStart() { this.set(this.buf.slice(this.pos), 0); }
  killEnd() { this.set(this.buf.slice(0, this.pos), this.pos); }

  killWord() {
    const start = this.buf.slice(0, this.pos).replace(/\S*\s*$/, '').length;
    this.set(this.buf.slice(0, start) + this.buf.slice(this.pos), start);
  }

  up() {
    if (this.hidx === 0) return;
    if (this.hidx === this.history.length) this.draft = this.buf;
    this.hidx--;
    this.set(this.history[this.hidx], this.history[this.hidx].length);
  }

  down() {
    if (this.hidx >= this.history.length) return;
    this.hidx++;
    const s = this.hidx === this.history.length ? this.draft : this.history[this.hidx];
    this.set(s, s.length);
  }

  /** Drops the line (Ctrl-C at the prompt): shows ^C, the caller starts anew. */
  cancel() {
    this.end();
    this.write('^C\r\n');
    this.row = 0;
  }

  /**
   * Applies completion candidates for the word starting at `start`: one
   * candidate replaces the word, several extend it to their common prefix
   * or, when that adds nothing, are returned for the caller to list.
   * @param {number} start @param {string[]} candidates @returns {string[]}
   */
  complete(start, candidates) {
    const word = this.buf.slice(start, this.pos);
    let text = candidates.length === 1 ? candidates[0] : commonPrefix(candidates);
    if (candidates.length === 1 && !text.endsWith('/')) text += ' ';
    if (text.length > word.length) {
      const before = this.buf.slice(0, start) + text;
      this.set(before + this.buf.slice(this.pos), before.length);
      return [];
    }
    return candidates.length > 1 ? candidates : [];
  }

  /** Redraws the line after output was printed above it (a listing). */
  redraw() {
    this.row = 0;
    this.set(this.buf, this.pos);
  }

  /** Replaces the line and cursor, rewriting the screen from the prompt on. */
  set(buf, pos) {
    const width = Math.max(1, this.columns);
    const plen = visibleLength(this.prompt);
    let out = this.row > 0 ? `\x1b[${this.row}A` : '';
    out += `\r${this.prompt}${buf}\x1b[J`;
    // After writing, the cursor sits at the end (xterm defers the wrap at
    // the last column); move it up and across to pos.
    const endCell = plen + buf.length;
    let endRow = Math.floor(endCell / width);
    if (endCell > 0 && endCell % width === 0) {
      out += '\r\n';
    }
    const cell = plen + pos;
    const row = Math.floor(cell / width);
    if (endRow > row) out += `\x1b[${endRow - row}A`;
    out += `\r${cell % width ? `\x1b[${cell % width}C` : ''}`;
    this.write(out);
    this.buf = buf;
    this.pos = pos;
    this.row = row;
  }
}
